// SPDX-License-Identifier: GPL-2.0
// prepage-bench app (bench/README.md, "Apps"): renders a feed page.
'use strict';
const fs = require('fs');
const crypto = require('crypto');
const readline = require('readline');

const posts = JSON.parse(fs.readFileSync('feed.json', 'utf8'));
const byAuthor = new Map();
for (const p of posts) {
	if (!byAuthor.has(p.author))
		byAuthor.set(p.author, []);
	byAuthor.get(p.author).push(p);
}
// A small seeded generator (xorshift32): the same draws for a round.
function rng(seed) {
	let x = (Math.imul(seed, 2654435761) >>> 0) || 1;
	return (n) => {
		x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
		return x % n;
	};
}
const followed = [];
{ const r = rng(7); for (let i = 0; i < 60; i++) followed.push(r(1500)); }
let kept = [];

function render(authors, perAuthor) {
	const h = crypto.createHash('sha1');
	for (const a of authors) {
		for (const p of (byAuthor.get(a) || []).slice(0, perAuthor)) {
			h.update(`<article id="${p.id}"><h2>${p.title}</h2>` +
				 `<p>${p.body}</p><footer>${p.likes} ` +
				 `${p.tags.join(' ')}</footer></article>`);
		}
	}
	return h.digest('hex').slice(0, 8);
}

function doSwitch(round) {
	const r = rng(1000 + round);
	const authors = followed.concat(Array.from({ length: 20 }, () => r(1500)));
	return render(authors, 4);
}

function use(round) {
	const r = rng(50000 + round);
	kept.push(Array.from({ length: 2000 }, () => ({ ...posts[r(posts.length)] })));
	kept = kept.slice(-3);
	render(Array.from({ length: 30 }, () => r(1500)), 6);
}

process.stdout.write('READY\n');
const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
	const cmd = line.trim().split(/\s+/);
	if (cmd[0] === 'Q' || cmd[0] === '') {
		process.exit(0);
	} else if (cmd[0] === 'S') {
		const sum = doSwitch(parseInt(cmd[1], 10));
		process.stdout.write(`DONE ${sum} ${process.hrtime.bigint()}\n`);
	} else if (cmd[0] === 'U') {
		use(parseInt(cmd[1], 10));
		process.stdout.write('OK\n');
	} else if (cmd[0] === 'B') {
		global.gc();
		process.stdout.write('OK\n');
	} else {
		process.stdout.write('ERROR unknown command\n');
	}
});
rl.on('close', () => process.exit(0));
