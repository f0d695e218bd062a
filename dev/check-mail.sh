#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The series as reviewers get it. patches/ as one mail thread (the cover
# letter, every patch a reply to it) is taken apart by `b4 am` and applied
# with `git am` to a clean base: the result must be the tree of the series.
# Then `b4 prep --check` runs on those commits (checkpatch as b4 runs it);
# it must report no error and no warning but checkpatch's "does
# MAINTAINERS need updating?" for patches that add files before the
# MAINTAINERS patch, and the reports dev/checkpatch.exceptions excuses
# (as the static checks' checkpatch --strict run does). Prints PASS/FAIL
# lines; non-zero exit on a failure.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

B4=$BUILD/b4-venv/bin/b4
[ -x "$B4" ] || die "no b4 at $B4: run dev/setup.sh"
[ -d "$KSRC/.git" ] || die "no work tree at $KSRC: run dev/base.sh"
w=$(mktemp -d "$BUILD/mail.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$w"' EXIT
export XDG_CACHE_HOME=$w/cache XDG_DATA_HOME=$w/data
rc=0

python3 "$ROOT/dev/mail-thread.py" thread "$ROOT" >"$w/thread.mbox"
mkdir "$w/am"
git clone -q --shared --no-checkout "$KSRC" "$w/tree"
git -C "$w/tree" checkout -q --detach "$BASE_TAG"
# The author of the series sends it: no in-body From: lines.
git -C "$w/tree" config user.name "$(git -C "$KSRC" log -1 --format=%an)"
git -C "$w/tree" config user.email "$(git -C "$KSRC" log -1 --format=%ae)"
if (cd "$w/tree" && "$B4" -q am -m "$w/thread.mbox" -o "$w/am" \
	"$(python3 "$ROOT/dev/mail-thread.py" msgid)") >"$w/am.log" 2>&1 &&
   git -C "$w/tree" am -q "$w"/am/*.mbx >>"$w/am.log" 2>&1 &&
   [ "$(git -C "$w/tree" rev-parse 'HEAD^{tree}')" = \
     "$(git -C "$KSRC" rev-parse 'HEAD^{tree}')" ]; then
	echo "PASS mail thread: b4 am + git am on $BASE_TAG give the series ($(git -C "$w/tree" rev-list --count "$BASE_TAG..HEAD") patches)"
else
	cat "$w/am.log"
	echo "FAIL mail thread: b4 am + git am on $BASE_TAG"
	exit 1
fi

# b4 prep on the applied commits, with the cover letter of patches/.
git -C "$w/tree" checkout -q -b prepage-check
# b4 takes GIT_EDITOR before core.editor, VISUAL and EDITOR.
printf '#!/bin/sh\nexec python3 "%s/dev/mail-thread.py" cover "%s" "$1"\n' "$ROOT" "$ROOT" \
	>"$w/cover-editor"
chmod +x "$w/cover-editor"
(cd "$w/tree" && "$B4" -q prep -e "$BASE_TAG" &&
 GIT_EDITOR="$w/cover-editor" "$B4" -q prep --edit-cover) \
	>"$w/prep.log" 2>&1 || { cat "$w/prep.log"; echo "FAIL b4 prep (enroll)"; exit 1; }
# Debian's python3 (python3-ply, python3-git) for checkpatch's spdxcheck.py.
(cd "$w/tree" && PATH=/usr/bin:$PATH "$B4" prep --check) 2>&1 |
	sed 's/\x1b\[[0-9;]*m//g' >"$w/check.log" || true
summary=$(grep -E '^(Success|Warning|Error):|^Success: ' "$w/check.log" | tail -1)
# The reports dev/checkpatch.exceptions excuses (the EM()/EMe() lists of
# trace headers), by the message b4 shows for their type: it shows none.
excused='^$'
while read -r pglob type fglob why; do
	case "$pglob" in '#'*|'') continue ;; esac
	case "$type" in
	COMPLEX_MACRO) m='ERROR: Macros with complex values should be enclosed in parentheses' ;;
	MACRO_ARG_UNUSED) m="WARNING: Argument '[^']*' is not used in function-like macro" ;;
	TRAILING_SEMICOLON) m='WARNING: macros should not use a trailing semicolon' ;;
	*) continue ;;
	esac
	f=$(sed -e 's/[.]/[.]/g' -e 's/[*]/[^:]*/g' <<<"$fglob")
	excused+="|checkpatch[.]pl: $f:[0-9]+: $m\$"
done <"$ROOT/dev/checkpatch.exceptions"
other=$(grep -E 'checkpatch.pl: ' "$w/check.log" |
	grep -v 'WARNING: added, moved or deleted file(s), does MAINTAINERS need updating?' |
	grep -Ev "$excused" || true)
maint=$(grep -c 'does MAINTAINERS need updating' "$w/check.log" || true)
nexcused=$(grep -Ec "$excused" "$w/check.log" || true)
# Every error b4 counts must be one of the excused reports.
errors=$(sed -n 's/.*Error: \([0-9]*\).*/\1/p' <<<"$summary")
if [ -n "$summary" ] && [ -z "$other" ] &&
   { [ "$errors" = 0 ] || [ "$(grep -E "$excused" "$w/check.log" | grep -c ': ERROR: ')" -gt 0 ]; }; then
	echo "PASS b4 prep --check ($summary; the warnings: $maint of 'does MAINTAINERS need updating?', $nexcused report(s) excused in dev/checkpatch.exceptions)"
else
	cat "$w/check.log"
	echo "FAIL b4 prep --check"
	rc=1
fi
exit $rc
