#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Everything, from a fresh clone: set up, create the work tree from the
# series, check the round trip, build, run the tests in the VM, run the
# static checks, and print "N passed, N failed, N skipped".
set -uo pipefail
. "$(dirname "$0")/lib.sh"

start=$(date +%s)
mkdir -p "$BUILD"
all=$BUILD/check-results
: >"$all"
record() { # record <PASS|FAIL> <name>
	echo "$1 $2" >>"$all"
	echo "$1 $2"
}
phase() { # phase <name> <command...>: one result for the phase itself
	local name=$1 t0=$(date +%s); shift
	log "$name"
	if "$@"; then record PASS "$name"; else record FAIL "$name"; return 1; fi
	log "$name: $(( $(date +%s) - t0 ))s"
}

phase setup "$ROOT/dev/setup.sh" || { echo "0 passed, 1 failed"; exit 1; }
phase "base tree + series (git am)" "$ROOT/dev/base.sh" || { echo "$(grep -c ^PASS "$all") passed, 1 failed"; exit 1; }
phase "tooling self-tests (result parser)" python3 "$ROOT/dev/test_results.py" -q
phase "round trip (patches, series, mirrors)" "$ROOT/dev/check-roundtrip.sh"
phase "arm64 (16K pages) and powerpc book3s64 builds of mm/prepage" "$ROOT/dev/cross-build.sh"
if phase "kernel build" "$ROOT/dev/build.sh" &&
   phase "selftests build" "$ROOT/dev/selftests.sh"; then
	"$ROOT/dev/vm-tests.sh"
	cat "$BUILD/vm-results${DEBUG:+-debug}" >>"$all"
	if [ -z "${QUICK:-}" ]; then
		"$ROOT/dev/static-checks.sh"
		src=$?
		cat "$BUILD/static-results" >>"$all"
		# An abort (not a failed check) leaves no FAIL line of its own.
		if [ $src != 0 ] && ! grep -q '^FAIL' "$BUILD/static-results"; then
			record FAIL "static checks (aborted, exit $src)"
		fi
		phase "KMI check (abidiff of the base's exported symbols, CONFIG_PREPAGE=y)" \
			"$ROOT/dev/abi-check.sh"
	fi
fi

echo
echo "Summary ($(( $(date +%s) - start ))s):"
# Every FAIL and SKIP, but the upstream run's plain SKIPs (features this
# VM or config lacks, as the tests themselves report) only counted per
# program; all of them are in build/vm-results. Known and flaky failures
# are listed one by one.
awk '/^SKIP upstream / && !/\((known failure|flaky): / {
	p = $0; sub(/^SKIP upstream /, "", p)
	c = index(p, ":"); prog = substr(p, 1, c); rest = substr(p, c + 1)
	c = index(rest, ":"); if (c) prog = prog substr(rest, 1, c - 1); else prog = p
	if (!(prog in n)) order[++k] = prog
	n[prog]++; next }
/^(FAIL|SKIP)/ { print }
END { for (i = 1; i <= k; i++)
	printf "SKIP upstream %s: %d case(s) skipped (build/vm-results)\n", order[i], n[order[i]] }' "$all"
p=$(grep -c '^PASS' "$all"); f=$(grep -c '^FAIL' "$all"); s=$(grep -c '^SKIP' "$all")
echo "$p passed, $f failed, $s skipped"
[ "$f" = 0 ]
