#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The no-regression run, in the test VM (busybox sh, as root): upstream
# kselftests of mm, cachestat and proc on the patched kernel with prepage
# enabled and every test process in a switch window. Installed by
# dev/selftests.sh as /kselftest-upstream/run-upstream.sh, run by
# dev/vm-tests.sh after the prepage kselftests.
#
# Each test process loads prepage-shim.so (LD_PRELOAD), which writes
# "start" to /proc/self/prepage in its constructor and in every forked
# child; a background loop cycles the windows of all processes (end, then
# start) every 0.5 s while the tests run. Output is TAP in the layout of
# run_kselftest.sh ("# selftests: mm: cow", the program's output with a
# "# " prefix, "ok N selftests: mm: cow"), read by dev/results.py, which
# also applies the known failures of dev/upstream-selftests.known. A
# program that fails runs once more (see run_test()).
#
#   PREPAGE=0 run-upstream.sh    the same run with prepage disabled and no
#                                shim (to tell a regression from a test
#                                that fails on this VM anyway)
#   run-upstream.sh NAME...      only the tests whose name ("mm: cow",
#                                "mm: gup_test -u") is given
#   TIMEOUT_SCALE=N              N times each test's timeout (debug kernels)
#
# The set: the mm tests that touch what the series hooks (anonymous
# faults, swap-in, page cache insertion, fork/exit, mremap/munmap,
# pinning, userfaultfd, KSM, THP, hugetlb, /proc) and finish in seconds
# under TCG; run_vmtests.sh needs bash, and its stress runs take too long
# here. Each line: run_test <collection> <timeout s> <program> [args]
# (dev/selftests.sh checks that every program named so was built).
cd "$(dirname "$0")" || exit 1
dir=$PWD
PREPAGE=${PREPAGE:-1}
n=0
in_dir=
only=" $* "

# run_once: run the current test program once, its output in
# /tmp/upstream-out, its exit status in $rc, its time in $el.
run_once() {
	t0=$(date +%s)
	rm -f /tmp/upstream-rc
	(
		cd "${in_dir:-$dir/$col}" || exit 1
		if [ "$PREPAGE" = 1 ]; then
			LD_PRELOAD=$dir/prepage-shim.so timeout "$t" "$dir/$col/$prog" "$@" </dev/null
		else
			timeout "$t" "$dir/$col/$prog" "$@" </dev/null
		fi
		echo $? >/tmp/upstream-rc
	) >/tmp/upstream-out 2>&1
	rc=$(cat /tmp/upstream-rc 2>/dev/null || echo 255)
	el=$(($(date +%s) - t0))
}

# A program that fails (not by a timeout) runs once more: a failure that
# does not happen again is reported as a SKIP that says so ("flaky"), with
# the first run's output kept under "# first run: " (not read as results).
run_test() {
	col=$1 t=$2 prog=$3
	shift 3
	name="$col: $prog${*:+ $*}"
	if [ "$only" != "  " ]; then
		case "$only" in *" $name "*) ;; *) return 0 ;; esac
	fi
	n=$((n + 1))
	t=$((t * ${TIMEOUT_SCALE:-1}))
	echo "# selftests: $name"
	first=
	run_once "$@"
	if [ "$rc" != 0 ] && [ "$rc" != 4 ] && [ "$el" -lt "$t" ]; then
		awk '{ print "# first run: " $0 }' /tmp/upstream-out
		echo "# ($name: exit $rc after ${el}s; running it again)"
		first=$rc
		run_once "$@"
	fi
	awk '{ print "# " $0 }' /tmp/upstream-out   # also ends a last line without newline
	echo "# ($name: exit $rc after ${el}s)"
	if [ "$rc" = 0 ] && [ -n "$first" ]; then
		echo "ok $n selftests: $name # SKIP flaky: exit $first on the first run, passed on the second"
	elif [ "$rc" = 0 ]; then
		echo "ok $n selftests: $name"
	elif [ "$rc" = 4 ]; then
		echo "ok $n selftests: $name # SKIP"
	elif [ "$el" -ge "$t" ]; then
		echo "not ok $n selftests: $name # TIMEOUT $t seconds"
	else
		echo "not ok $n selftests: $name # exit=$rc"
	fi
}

# cycle_windows: end and restart the window of every process that has
# one, every 0.5 s, until /tmp/upstream-done appears.
cycle_windows() {
	c=0
	while [ ! -e /tmp/upstream-done ]; do
		for f in /proc/[0-9]*/prepage; do
			{ echo end >"$f" && echo start >"$f" && c=$((c + 1)); } 2>/dev/null
		done
		echo "$c" >/tmp/upstream-cycles
		sleep 0.5
	done
}

echo "TAP version 13"
rm -f /tmp/upstream-done /tmp/upstream-cycles
if [ "$PREPAGE" = 1 ]; then
	echo 1 >/sys/kernel/mm/prepage/enabled || exit 1
	cycle_windows &
	cycler=$!
else
	[ -e /sys/kernel/mm/prepage/enabled ] && echo 0 >/sys/kernel/mm/prepage/enabled
fi
echo "# prepage enabled: $(cat /sys/kernel/mm/prepage/enabled 2>/dev/null || echo none)"

# --- proc ---------------------------------------------------------------
run_test proc 60 fd-001-lookup
run_test proc 60 fd-002-posix-eq
run_test proc 60 fd-003-kthread
run_test proc 60 proc-2-is-kthread
run_test proc 60 proc-loadavg-001
run_test proc 60 proc-empty-vm
run_test proc 60 proc-pid-vm
run_test proc 60 proc-self-map-files-001
run_test proc 60 proc-self-map-files-002
run_test proc 60 proc-self-isnt-kthread
run_test proc 60 proc-self-syscall
run_test proc 60 proc-self-wchan
run_test proc 60 proc-subset-pid
run_test proc 60 proc-tid0
run_test proc 60 proc-uptime-001
run_test proc 60 proc-uptime-002
run_test proc 60 read
run_test proc 60 self
run_test proc 60 setns-dcache
run_test proc 60 setns-sysvipc
run_test proc 60 thread-self
run_test proc 60 proc-multiple-procfs
run_test proc 60 proc-fsconfig-hidepid

# --- cachestat ------------------------------------------------------------
# In the ext4 scratch disk: in tmpfs it skips its file part.
in_dir=${PREPAGE_TESTDIR:-/tmp}
run_test cachestat 60 test_cachestat
in_dir=

# --- mm -------------------------------------------------------------------
run_test mm 120 map_fixed_noreplace
run_test mm 120 map_populate
run_test mm 120 mlock-random-test
run_test mm 120 mlock2-tests
run_test mm 120 mrelease_test
run_test mm 120 mremap_dontunmap
run_test mm 120 madv_populate
run_test mm 120 memfd_secret
run_test mm 120 mdwe_test
run_test mm 120 mkdirty
run_test mm 120 mseal_test
run_test mm 120 seal_elf
run_test mm 120 droppable
run_test mm 120 soft-dirty
run_test mm 120 gup_test -u
run_test mm 120 gup_test -a
run_test mm 120 gup_test -ct -F 0x1 0 19 0x1000
run_test mm 300 uffd-unit-tests
run_test mm 300 uffd-stress anon 20 16
run_test mm 300 uffd-stress shmem 20 16
run_test mm 300 uffd-stress shmem-private 20 16
run_test mm 120 ksm_tests -M -p 10
run_test mm 120 ksm_tests -U
run_test mm 120 ksm_tests -Z -p 10 -z 0
run_test mm 120 ksm_tests -Z -p 10 -z 1
run_test mm 300 ksm_functional_tests
run_test mm 300 khugepaged
run_test mm 120 transhuge-stress -d 20
run_test mm 300 split_huge_page_test
run_test mm 120 migration
run_test mm 300 virtual_address_range
run_test mm 300 protection_keys_64
run_test mm 120 pkey_sighandler_tests_64
# Its 2 GiB mappings (touched 4 MiB at a time) need more than the
# overcommit heuristic allows a small VM.
echo 1 >/proc/sys/vm/overcommit_memory
run_test mm 300 mremap_test
echo 0 >/proc/sys/vm/overcommit_memory

# hugetlb, and the tests with hugetlb cases: 256 MiB of huge pages, as
# run_vmtests.sh reserves; given back after.
echo 128 >/proc/sys/vm/nr_hugepages
echo "# nr_hugepages: $(cat /proc/sys/vm/nr_hugepages)"
run_test mm 600 cow
run_test mm 300 gup_longterm
run_test mm 300 pagemap_ioctl
run_test mm 120 hugepage-mmap
run_test mm 120 hugepage-shm
run_test mm 120 map_hugetlb
run_test mm 120 hugepage-mremap
run_test mm 120 hugepage-vmemmap
run_test mm 120 hugetlb-madvise
run_test mm 120 hugetlb_dio
run_test mm 300 uffd-stress hugetlb 128 32
run_test mm 300 uffd-stress hugetlb-private 128 32
# These two want exactly one huge page. hugetlb_fault_after_madv runs
# 10000 rounds of two racing threads; how often the toucher faults (and
# zeroes) the 2 MB page again depends on their interleaving: alone it
# took 79 s with prepage off and 92 s on, in one full run over 120 s.
echo 1 >/proc/sys/vm/nr_hugepages
run_test mm 300 hugetlb_fault_after_madv
run_test mm 120 hugetlb_madv_vs_map
echo 0 >/proc/sys/vm/nr_hugepages

# --- the windows were really there ------------------------------------------
if [ "$PREPAGE" = 1 ]; then
	touch /tmp/upstream-done
	wait "$cycler"
	c=$(cat /tmp/upstream-cycles 2>/dev/null || echo 0)
	n=$((n + 1))
	echo "# selftests: upstream: prepage windows"
	echo "# test process windows ended and restarted: $c"
	if [ "$c" -gt 0 ]; then
		echo "ok $n selftests: upstream: prepage windows"
	else
		echo "not ok $n selftests: upstream: prepage windows # no window was cycled: the shim did not open any"
	fi
	echo 0 >/sys/kernel/mm/prepage/enabled
fi
echo "1..$n"
