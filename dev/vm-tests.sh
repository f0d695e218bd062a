#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run the tests in the test VM and write build/vm-results ("PASS|FAIL|SKIP
# kind name", judged by dev/results.py):
#  1. the prepage kselftests (build/kselftest); the KUnit suites built into
#     the kernel run at boot, and prepage-core once more with prepage
#     enabled; then prepage's enabled and a trace event toggled under
#     page cache load (dev/toggle-stress.sh, STRESS_SECONDS, default 30).
#     Console log: build/vm-console.log.
#  2. the no-regression run: the upstream mm, cachestat and proc kselftests
#     (build/kselftest-upstream, dev/upstream-selftests.sh) with prepage
#     enabled and every test process in a switch window, in a VM of its
#     own (UPSTREAM_VM_MEM MiB, default 2048: khugepaged's and mremap's
#     tests want more than 1 GiB). Failures listed in
#     dev/upstream-selftests.known are reported as SKIP with the reason.
#     Console log: build/vm-console-upstream.log. UPSTREAM=0 leaves it
#     out; with DEBUG=1 (KASAN and lockdep under TCG: several times
#     slower) it is opt-in, UPSTREAM=1, with four times the timeouts.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

sfx=${DEBUG:+-debug}
log=$BUILD/vm-console$sfx.log
uplog=$BUILD/vm-console-upstream$sfx.log
res=$BUILD/vm-results$sfx
if [ -n "${DEBUG:-}" ]; then upstream=${UPSTREAM:-0} scale=4; else upstream=${UPSTREAM:-1} scale=1; fi
rm -f "$log" "$uplog"

# The kselftests run are those dev/selftests.sh installed: not older than
# their sources in the work tree, or the run says nothing of those.
st=$BUILD/kselftest/kselftest-list.txt
[ -e "$st" ] || die "no kselftests in $BUILD/kselftest: run dev/selftests.sh"
srcs=("$KSRC/tools/testing/selftests/prepage")
[ ! -e "$KSRC/tools/mm/prepagectl.c" ] || srcs+=("$KSRC/tools/mm/prepagectl.c")
newer=$(find "${srcs[@]}" -newer "$st" -print -quit)
[ -z "$newer" ] || die "$BUILD/kselftest is older than ${newer#"$KSRC"/}: run dev/selftests.sh"

# Then the prepage-core KUnit suite again, through KUnit's debugfs, with
# prepage enabled: at boot it ran with prepage off, and it never turns
# prepage on or off itself. Its results ("prepage-core[2]") are in the
# console log with those of the boot.
k=/sys/kernel/debug/kunit/prepage-core
kunit_again="mount -t debugfs none /sys/kernel/debug 2>/dev/null; \
echo 1 >/sys/kernel/mm/prepage/enabled && echo run >$k/run; \
echo 0 >/sys/kernel/mm/prepage/enabled"

# The debug kernel's tasks may block that much longer, too.
export VM_HUNG_SECONDS=$(( ${VM_HUNG_SECONDS:-60} * scale ))

set +e
t0=$(date +%s)
"$ROOT/dev/vm.sh" -k -t "${VM_TIMEOUT:-900}" -l "$log" -x "$ROOT/dev/toggle-stress.sh" -- \
	"cd /kselftest && ./run_kselftest.sh; rc=\$?; $kunit_again; sh /extra/toggle-stress.sh ${STRESS_SECONDS:-30}; exit \$rc" \
	>"$BUILD/vm-output.log"
rc=$?
log "prepage kselftests VM: $(( $(date +%s) - t0 ))s"
cat "$BUILD/vm-output.log"
if [ "$upstream" = 1 ]; then
	t0=$(date +%s)
	VM_MEM=${UPSTREAM_VM_MEM:-2048} "$ROOT/dev/vm.sh" -u -t "${UPSTREAM_VM_TIMEOUT:-$((1200 * scale))}" \
		-l "$uplog" -- TIMEOUT_SCALE=$scale /kselftest-upstream/run-upstream.sh \
		>"$BUILD/vm-output-upstream.log"
	uprc=$?
	log "upstream kselftests VM: $(( $(date +%s) - t0 ))s"
	# The programs' own output is in the log; show the results only.
	grep -E '^(ok|not ok) ' "$BUILD/vm-output-upstream.log"
fi
set -e

logs=("$log")
[ "$upstream" = 1 ] && logs+=(--known "$ROOT/dev/upstream-selftests.known" "$uplog")
"$ROOT/dev/results.py" "${logs[@]}" >"$res"
grep -q '^[A-Z]* kunit prepage-core\[2\]\.' "$res" ||
	echo "FAIL kunit prepage-core[2] (the run with prepage enabled did not happen)" >>"$res"
# The toggling stress (dev/toggle-stress.sh) after them.
stress=$(sed -n 's/^PREPAGE-STRESS: //p' "$log" | tail -n 1)
case $stress in
"ok "*) echo "PASS stress toggle-under-load (${stress#ok })" >>"$res" ;;
*) echo "FAIL stress toggle-under-load (${stress:-no result: the guest crashed or timed out})" >>"$res" ;;
esac
case $rc in
0|1) ;;   # run_kselftest.sh: 1 when a test failed; results.py has them
*) echo "FAIL vm (exit $rc: no result, a kernel problem or a timeout)" >>"$res" ;;
esac
if [ "$upstream" = 1 ]; then
	case $uprc in
	0) ;;
	*) echo "FAIL vm upstream (exit $uprc: a kernel problem or a timeout; see $uplog)" >>"$res" ;;
	esac
fi
cat "$res"
! grep -q '^FAIL' "$res"
