#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A prepagectl session in the test VM, printed as a terminal transcript:
# record a stand-in app (dev/demo-app.c) over three switches, load the
# table, switch once more, and look at the counters.
#
#   dev/demo.sh        (after dev/build.sh and dev/selftests.sh)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ctl=$BUILD/kselftest/prepage/prepagectl
[ -x "$ctl" ] || die "no prepagectl in $BUILD/kselftest: run dev/selftests.sh"
tmp=$(mktemp -d "$BUILD/demo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -Wall -o "$tmp/demo-app" "$ROOT/dev/demo-app.c"
cp "$ctl" "$tmp/prepagectl"
cat >"$tmp/session.sh" <<'GUEST'
# One switch of the app: pushed out, then brought back to the foreground
# inside a window, as ActivityManager would signal it.
switch() {
	kill -USR2 $PID; sleep 0.5
	./prepagectl switch -p $PID start
	kill -USR1 $PID; sleep 0.5
	./prepagectl switch -p $PID end
}
cd /extra
echo 1 > /sys/kernel/mm/prepage/enabled
psz=$(awk '/^KernelPageSize:/ { print $2 * 1024; exit }' /proc/self/smaps)
dd if=/dev/zero of=/mnt/disk/app.dat bs=$psz count=64 2>/dev/null
./demo-app /mnt/disk/app.dat > /tmp/app.out &
PID=$!
for i in $(seq 50); do [ -s /tmp/app.out ] && break; sleep 0.1; done
[ -s /tmp/app.out ] || { echo "demo-app did not start"; exit 1; }
set -x
# Record with both sides off, so that every page the app uses faults.
echo 0 > /sys/kernel/mm/prepage/file_enabled
echo 0 > /sys/kernel/mm/prepage/anon_enabled
./prepagectl record -p $PID -n 3 -k 2 -o /tmp/app.table &
sleep 1
switch; switch; switch
wait $!
cat /tmp/app.table
echo 1 > /sys/kernel/mm/prepage/file_enabled
echo 1 > /sys/kernel/mm/prepage/anon_enabled
./prepagectl load -p $PID /tmp/app.table
switch
./prepagectl stat -p $PID
set +x
kill $PID
GUEST
# The trace (set -x) goes to standard error: one stream, as typed.
dev_vm=$ROOT/dev/vm.sh
"$dev_vm" -t 300 -x "$tmp/demo-app" -x "$tmp/prepagectl" -x "$tmp/session.sh" \
	-- 'sh /extra/session.sh 2>&1 | sed "s/^+ /# /"'
