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
# Each command is shown as typed ("$ ..."), then run.
run() {
	echo "\$ $*"
	eval "$*"
}
# One switch of the app: pushed out, then brought back to the foreground
# inside a window, as ActivityManager would signal it.
switch() {
	run "kill -USR2 $PID; sleep 0.5   # pushed out"
	run ./prepagectl switch -p $PID start
	run "kill -USR1 $PID; sleep 0.5   # in front again"
	run ./prepagectl switch -p $PID end
}
cd /extra
echo 1 > /sys/kernel/mm/prepage/enabled
psz=$(awk '/^KernelPageSize:/ { print $2 * 1024; exit }' /proc/self/smaps)
dd if=/dev/zero of=/mnt/disk/app.dat bs=$psz count=64 2>/dev/null
./demo-app /mnt/disk/app.dat > /tmp/app.out &
PID=$!
for i in $(seq 50); do [ -s /tmp/app.out ] && break; sleep 0.1; done
[ -s /tmp/app.out ] || { echo "demo-app did not start"; exit 1; }
echo "# demo-app $PID: reads pages 0-15 of /mnt/disk/app.dat and heap pages 0-31"
echo "# Record with both sides off, so that every page the app uses faults."
run "echo 0 > /sys/kernel/mm/prepage/file/enabled"
run "echo 0 > /sys/kernel/mm/prepage/anon/enabled"
run "./prepagectl record -p $PID -n 3 -k 2 -o /tmp/app.table &"
rec=$!
sleep 1
switch; switch; switch
wait $rec
run cat /tmp/app.table
run "echo 1 > /sys/kernel/mm/prepage/file/enabled"
run "echo 1 > /sys/kernel/mm/prepage/anon/enabled"
run ./prepagectl load -p $PID /tmp/app.table
switch
run ./prepagectl stat -p $PID
kill $PID
GUEST
"$ROOT/dev/vm.sh" -t 300 -x "$tmp/demo-app" -x "$tmp/prepagectl" \
	-x "$tmp/session.sh" -- 'sh /extra/session.sh 2>&1'
