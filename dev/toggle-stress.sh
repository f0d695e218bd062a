#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Toggling under load, in the test VM (busybox sh, as root; run by
# dev/vm-tests.sh after the kselftests): prepage's enabled and a page
# cache trace event are flipped in a loop for SECONDS (default 30) while
# two readers drop and read a file's page cache again, so that the code
# patched when a static key or tracepoint flips (prepage's hook in
# filemap_add_folio(), the event's call site) runs on the other vCPU as it
# is patched. Under QEMU 7.2's multi-threaded TCG that Oopsed the guest
# with int3 within 90 s (README, "The test VM"); the test VMs run
# single-threaded TCG, and this keeps it so. Prints one line:
# "PREPAGE-STRESS: ok toggles=N" (a crash prints none).
secs=${1:-30}
f=${PREPAGE_TESTDIR:-/tmp}/toggle-stress.dat
en=/sys/kernel/mm/prepage/enabled
ev=/sys/kernel/tracing/events/filemap/mm_filemap_add_to_page_cache/enable
for p in $en $ev; do
	[ -w $p ] || { echo "PREPAGE-STRESS: not ok (no $p)"; exit 1; }
done
dd if=/dev/zero of="$f" bs=1M count=8 2>/dev/null || {
	echo "PREPAGE-STRESS: not ok (cannot write $f)"; exit 1; }
reader() {
	while :; do
		cat "$f" >/dev/null
		echo 1 >/proc/sys/vm/drop_caches
	done
}
reader & r1=$!
reader & r2=$!
end=$(( $(date +%s) + secs ))
n=0
while [ "$(date +%s)" -lt $end ]; do
	echo 1 >$en && echo 1 >$ev && echo 0 >$ev && echo 0 >$en || break
	n=$((n + 1))
done
kill $r1 $r2
wait 2>/dev/null
rm -f "$f"
if [ "$(date +%s)" -lt $end ]; then
	echo "PREPAGE-STRESS: not ok (a toggle failed after $n)"
	exit 1
fi
echo "PREPAGE-STRESS: ok toggles=$n"
