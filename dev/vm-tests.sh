#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run the installed kselftests in the test VM; KUnit suites built into the
# kernel run at boot. Writes build/vm-results ("PASS|FAIL|SKIP kind name")
# and the console log to build/vm-console.log.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

log=$BUILD/vm-console${DEBUG:+-debug}.log
res=$BUILD/vm-results${DEBUG:+-debug}
set +e
"$ROOT/dev/vm.sh" -k -t "${VM_TIMEOUT:-900}" -l "$log" -- \
	'cd /kselftest && ./run_kselftest.sh' >"$BUILD/vm-output.log"
rc=$?
set -e
cat "$BUILD/vm-output.log"
"$ROOT/dev/results.py" "$log" >"$res"
case $rc in
0|1) ;;   # run_kselftest.sh: 1 when a test failed; results.py has them
*) echo "FAIL vm (exit $rc: no result, a kernel problem or a timeout)" >>"$res" ;;
esac
[ -s "$res" ] || echo "FAIL vm (no test results in the console log)" >>"$res"
cat "$res"
! grep -q '^FAIL' "$res"
