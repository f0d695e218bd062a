# SPDX-License-Identifier: GPL-2.0
"""prepage-bench app (bench/README.md, "Apps"): a Redis server and its
client. The client starts redis-server (no persistence, a Unix socket
here), fills it, and answers the protocol; READY names redis-server's
pid, the process the switch signals are for."""
import os
import random
import socket
import subprocess
import time
import zlib

from app_protocol import serve

SOCK = os.path.abspath('redis.sock')
if os.path.exists(SOCK):
    os.unlink(SOCK)
server = subprocess.Popen(
    ['/usr/bin/redis-server', '--port', '0', '--unixsocket', SOCK,
     '--save', '', '--appendonly', 'no', '--enable-debug-command', 'local',
     '--maxmemory-policy', 'noeviction', '--daemonize', 'no',
     '--logfile', '/dev/null'], stdin=subprocess.DEVNULL,
    stdout=subprocess.DEVNULL)
for _ in range(600):
    if os.path.exists(SOCK):
        break
    time.sleep(0.05)
conn = socket.socket(socket.AF_UNIX)
conn.connect(SOCK)
rfile = conn.makefile('rb')


def call(*args):
    """One command, RESP; its reply (bulk strings as bytes)."""
    out = b'*%d\r\n' % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out += b'$%d\r\n%s\r\n' % (len(a), a)
    conn.sendall(out)
    return reply()


def reply():
    line = rfile.readline()
    kind, rest = line[:1], line[1:-2]
    if kind in (b'+', b':'):
        return rest
    if kind == b'-':
        raise RuntimeError(rest.decode())
    if kind == b'$':
        n = int(rest)
        return None if n < 0 else rfile.read(n + 2)[:-2]
    if kind == b'*':
        return [reply() for _ in range(int(rest))]
    raise RuntimeError('bad reply %r' % line)


call('DEBUG', 'POPULATE', 120000, 'post', 256)
rng = random.Random(4)
for i in range(0, 20000, 500):
    args = ['ZADD', 'likes']
    for j in range(i, i + 500):
        args += [rng.randrange(10**6), 'post:%d' % rng.randrange(120000)]
    call(*args)
FOLLOWED = random.Random(7).sample(range(120000), 400)


def page(rng, keys):
    crc = 0
    for i in range(0, len(keys), 100):
        vals = call('MGET', *['post:%d' % k for k in keys[i:i + 100]])
        crc = zlib.crc32(b''.join(v or b'-' for v in vals), crc)
    for _ in range(10):
        lo = rng.randrange(10**6)
        crc = zlib.crc32(b''.join(call('ZRANGEBYSCORE', 'likes', lo,
                                       lo + 2000)), crc)
    return crc


def switch(r):
    rng = random.Random(1000 + r)
    return page(rng, FOLLOWED + [rng.randrange(120000) for _ in range(200)])


def use(r):
    rng = random.Random(50000 + r)
    page(rng, [rng.randrange(120000) for _ in range(400)])
    # New content arrives while the app is used: written, then replaced.
    for i in range(0, 2000, 200):
        args = ['MSET']
        for j in range(i, i + 200):
            args += ['new:%d' % j, os.urandom(64).hex()]
        call(*args)


serve(switch, use, lambda: call('MEMORY', 'PURGE'), pid=server.pid)
server.terminate()
server.wait()
