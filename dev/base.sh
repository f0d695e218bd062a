#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Create the kernel work tree: Debian's linux-source-6.12 committed as the
# base (cached outside the repo), then 'series' applied with 'git am'.
#
#   dev/base.sh [DEST]      DEST defaults to build/linux; an existing work
#                           tree is left alone unless FORCE=1.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dest=${1:-$KSRC}

[ -r "$TARBALL" ] || die "$TARBALL missing: run dev/setup.sh (apt-get install linux-source-6.12)"

# The cache key is the tarball itself: a newer 6.12.y gets a new base repo.
stamp=$(stat -c '%s-%Y' "$TARBALL")
baserepo=$CACHE/base-$stamp.git

make_base() {
	local tmp
	tmp=$(mktemp -d "$CACHE/extract.XXXXXX")
	log "extracting $TARBALL"
	tar -xJf "$TARBALL" -C "$tmp" --strip-components=1
	# Debian's .gitignore ends with a block ignoring everything at the top
	# level, and lacks upstream's exceptions for tracked dotfiles: restore
	# upstream's behaviour so new .gitignore files of the series are tracked.
	sed -i '/^# Debian packaging/,$d' "$tmp/.gitignore"
	sed -i -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$tmp/.gitignore"
	sed -i '$!N;/^#\n$/!P;D' "$tmp/.gitignore"
	cat >>"$tmp/.gitignore" <<'EOG'

# We don't want to ignore the following even if they are dot-files
!.clang-format
!.cocciconfig
!.get_maintainer.ignore
!.gitattributes
!.gitignore
!.mailmap
!.rustfmt.toml
EOG
	local ver
	ver=$(make -s -C "$tmp" kernelversion)
	log "committing Linux $ver (Debian linux-source-6.12) as the base"
	rm -rf "$baserepo.tmp"
	git init -q --bare "$baserepo.tmp"
	(
		export GIT_DIR=$baserepo.tmp GIT_WORK_TREE=$tmp
		export GIT_AUTHOR_NAME=prepage GIT_AUTHOR_EMAIL=prepage@localhost
		export GIT_COMMITTER_NAME=prepage GIT_COMMITTER_EMAIL=prepage@localhost
		export GIT_AUTHOR_DATE=$FIXED_DATE GIT_COMMITTER_DATE=$FIXED_DATE
		git add -A -f
		git commit -q -m "Linux $ver (Debian linux-source-6.12)"
		git tag "$BASE_TAG"
		echo "$ver" >"$GIT_DIR/kernelversion"
	)
	rm -rf "$tmp"
	mv "$baserepo.tmp" "$baserepo"
}

mkdir -p "$CACHE"
if [ ! -d "$baserepo" ]; then
	# Only the cache of the current tarball is kept.
	rm -rf "$CACHE"/base-*.git
	make_base
fi
ver=$(cat "$baserepo/kernelversion")

if [ -d "$dest/.git" ] && [ "${FORCE:-0}" != 1 ]; then
	log "$dest exists; leaving it (FORCE=1 recreates it from the series)"
	exit 0
fi
rm -rf "$dest"
log "cloning the base into $dest"
git clone -q --no-checkout "$baserepo" "$dest"
git -C "$dest" checkout -q -b "$BRANCH" "$BASE_TAG"
git -C "$dest" config user.name "$(git -C "$ROOT" config user.name || echo prepage)"
git -C "$dest" config user.email "$(git -C "$ROOT" config user.email || echo prepage@localhost)"

if [ "$ver" != "$BASE_VERSION" ]; then
	log "WARNING: $TARBALL is Linux $ver, the series was exported against $BASE_VERSION"
fi
n=0
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	n=$((n + 1))
	if ! git -C "$dest" am -q --whitespace=nowarn "$ROOT/patches/$p" >/dev/null 2>&1; then
		git -C "$dest" am --abort >/dev/null 2>&1 || true
		die "patch $n ($p) does not apply to Linux $ver (series exported against $BASE_VERSION)"
	fi
done <"$ROOT/series"
# Remember what this tree was made from: dev/check-roundtrip.sh reuses a
# tree whose head is still exactly the committed series applied.
echo "$(series_digest) $(git -C "$dest" rev-parse HEAD)" >"$dest/.git/prepage-applied"
log "work tree $dest: Linux $ver + $n patches on branch $BRANCH (base tag $BASE_TAG)"
