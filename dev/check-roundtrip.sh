#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Round trip: apply the committed series to a fresh clone of the base,
# export it again, and fail if patches/, series or the mirrored files
# differ from what is committed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$(mktemp -d)
# The work tree will do if it was made from the committed series and its
# head has not moved since; otherwise apply the series to a fresh clone.
made=$(cat "$KSRC/.git/prepage-applied" 2>/dev/null || true)
if [ -n "$made" ] && [ "$made" = "$(series_digest) $(git -C "$KSRC" rev-parse HEAD)" ] &&
   [ -z "$(git -C "$KSRC" status --porcelain --untracked-files=no)" ]; then
	rt=$KSRC
	trap 'rm -rf "$out"' EXIT
else
	rt=$BUILD/roundtrip
	trap 'rm -rf "$out" "$rt"' EXIT
	FORCE=1 "$ROOT/dev/base.sh" "$rt" >/dev/null
fi
cp "$ROOT/patches/0000-cover-letter.patch" "$out/" 2>/dev/null || true
"$ROOT/dev/export.sh" "$rt" "$out" 2>/dev/null
rc=0
moved=0
[ "$(make -s -C "$rt" kernelversion)" = "$BASE_VERSION" ] || moved=1
# A newer 6.12.y than the series was exported against moves hunk offsets,
# blob ids and the base-commit line; compare the content then.
norm() {
	if [ $moved = 1 ]; then
		sed -E -e 's/^(@@ -)[0-9,]+ \+[0-9,]+ @@/\1N +N @@/' -e '/^index [0-9a-f]+\.\.[0-9a-f]+/d' \
			-e '/^base-commit: /d' "$1"
	else
		cat "$1"
	fi
}
for b in $( (ls "$ROOT/patches"; ls "$out/patches") | sort -u); do
	if [ ! -f "$ROOT/patches/$b" ] || [ ! -f "$out/patches/$b" ]; then
		echo "roundtrip: patches/$b exists on one side only"; rc=1
	elif ! diff -u <(norm "$ROOT/patches/$b") <(norm "$out/patches/$b") >&2; then
		echo "roundtrip: patches/$b differs from what the series produces"; rc=1
	fi
done
cmp -s "$ROOT/series" "$out/series" || { echo "roundtrip: series differs"; rc=1; }
for d in mm include selftests tools Documentation; do
	if [ -e "$ROOT/$d" ] || [ -e "$out/$d" ]; then
		diff -r "$ROOT/$d" "$out/$d" >&2 || { echo "roundtrip: mirror $d/ differs from the series"; rc=1; }
	fi
done
[ $moved = 1 ] && echo "roundtrip: NOTE base is Linux $(make -s -C "$rt" kernelversion), exported against $BASE_VERSION: compared modulo offsets"
exit $rc
