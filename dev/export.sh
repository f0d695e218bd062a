#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Regenerate patches/, series and the mirrored new files from the work
# tree's commits (prepage-base..HEAD). The cover letter's subject and blurb
# are kept from the existing patches/0000-cover-letter.patch; its shortlog,
# diffstat and base-commit are regenerated.
#
#   dev/export.sh [SRC [OUT]]   SRC defaults to build/linux, OUT to the repo
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src=${1:-$KSRC}
out=${2:-$ROOT}
[ -d "$src/.git" ] || die "no work tree at $src"
[ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ] ||
	die "$src has uncommitted changes: commit or fold them first"
n=$(git -C "$src" rev-list --count "$BASE_TAG..HEAD")
[ "$n" -gt 0 ] || die "no commits on top of $BASE_TAG in $src"

cover=$ROOT/patches/0000-cover-letter.patch
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Reproducible output: no commit ids in the From lines, no git version
# signature, and the cover letter dated like the newest commit.
GIT_COMMITTER_DATE=$(git -C "$src" log -1 --format=%ad --date=raw HEAD) \
git -C "$src" -c core.abbrev=12 -c diff.renames=true format-patch -q \
	--zero-commit --no-signature --cover-letter --base="$BASE_TAG" \
	-o "$tmp" "$BASE_TAG..HEAD"

if [ -f "$cover" ]; then
	python3 - "$cover" "$tmp/0000-cover-letter.patch" <<'PY'
import re, sys
old = open(sys.argv[1]).read()
new = open(sys.argv[2]).read()
def split(text):
    head, body = text.split("\n\n", 1)
    # The blurb ends where git's shortlog starts ("Author Name (N):").
    m = re.search(r"^\S[^\n]* \(\d+\):$", body, re.M)
    if not m:
        sys.exit("cover letter: no shortlog found in " + sys.argv[1])
    return head, body[:m.start()], body[m.start():]
ohead, oblurb, _ = split(old)
nhead, _, ntail = split(new)
osubj = re.search(r"^Subject: \[PATCH[^\]]*\] (.*(?:\n .*)*)", ohead, re.M).group(1)
nhead = re.sub(r"(^Subject: \[PATCH[^\]]*\] ).*", lambda m: m.group(1) + osubj.replace("\\", "\\\\"),
               nhead, count=1, flags=re.M)
open(sys.argv[2], "w").write(nhead + "\n\n" + oblurb + ntail)
PY
fi

mkdir -p "$out/patches"
rm -f "$out"/patches/*.patch
cp "$tmp"/*.patch "$out/patches/"
(cd "$tmp" && ls -1 [0-9]*.patch | grep -v '^0000-cover-letter.patch$') >"$out/series"

# Mirrors: every file the series adds, as it stands after the last patch.
for d in mm include selftests tools Documentation; do rm -rf "${out:?}/$d"; done
git -C "$src" diff --name-only --diff-filter=A "$BASE_TAG..HEAD" | while read -r f; do
	case "$f" in
	tools/testing/selftests/prepage/*) m=selftests/${f#tools/testing/selftests/} ;;
	mm/*|include/*|tools/*|Documentation/*) m=$f ;;
	*) die "the series adds $f, which has no mirror location" ;;
	esac
	mkdir -p "$out/$(dirname "$m")"
	git -C "$src" show "HEAD:$f" >"$out/$m"
	if [ -x "$src/$f" ]; then chmod +x "$out/$m"; fi
done
log "exported $n patches + cover letter to $out/patches, series and mirrors"
