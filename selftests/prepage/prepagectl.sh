#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Test tools/mm/prepagectl against the kernel: each command does what it
# says and each bad input gets its message and exit status and changes
# nothing. Needs root, CONFIG_PREPAGE, and a directory of a disk file
# system in PREPAGE_TESTDIR (its pages can be evicted and read back).

DIR="$(dirname "$(readlink -f "$0")")"
. "$DIR"/../kselftest/ktap_helpers.sh

CTL="$DIR/prepagectl"
SYSFS=/sys/kernel/mm/prepage
PSZ=$(awk '/^KernelPageSize:/ { print $2 * 1024; exit }' /proc/self/smaps)

ktap_print_header
[ "$(id -u)" = 0 ] || { ktap_skip_all "needs root"; exit "$KSFT_SKIP"; }
[ -d "$SYSFS" ] || { ktap_skip_all "no CONFIG_PREPAGE"; exit "$KSFT_SKIP"; }
[ -x "$CTL" ] || { ktap_skip_all "prepagectl not built"; exit "$KSFT_SKIP"; }
[ -d "${PREPAGE_TESTDIR:-}" ] ||
	{ ktap_skip_all "PREPAGE_TESTDIR: no disk directory"; exit "$KSFT_SKIP"; }
ktap_set_plan 14

WORK=$(mktemp -d "$PREPAGE_TESTDIR/prepagectl.XXXXXX")
ENABLED=$(cat "$SYSFS/enabled")
PID=
cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null
	echo "$ENABLED" > "$SYSFS/enabled"
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
echo 1 > "$SYSFS/enabled"

# A process to act on (once it runs sleep: its tables are per address
# space, and the exec replaces it), and a 16-page file.
sleep 1000 &
PID=$!
for i in $(seq 50); do
	[ "$(cat /proc/$PID/comm 2>/dev/null)" = sleep ] && break
	sleep 0.1
done
[ "$(cat /proc/$PID/comm 2>/dev/null)" = sleep ] ||
	ktap_exit_fail_msg "the target process does not run sleep"
DATA="$WORK/data file"
dd if=/dev/zero of="$DATA" bs="$PSZ" count=16 2>/dev/null
ESC=$(printf '%s' "$DATA" | sed 's/ /\\040/g')

# run EXPECTED_STATUS MESSAGE_PART CMD...: the status is exact, the
# message (standard error) contains MESSAGE_PART.
run() {
	want=$1 msg=$2
	shift 2
	"$@" > "$WORK/out" 2> "$WORK/err"
	got=$?
	if [ "$got" != "$want" ]; then
		ktap_print_msg "$*: exit $got, expected $want"
		cat "$WORK/err" | sed 's/^/# /'
		return 1
	fi
	if [ -n "$msg" ] && ! grep -qF -- "$msg" "$WORK/err"; then
		ktap_print_msg "$*: no '$msg' in: $(cat "$WORK/err")"
		return 1
	fi
	return 0
}

# The value of KEY in the process's prepage_stat.
stat_of() {
	awk -v k="$1" '$1 == k { print $2 }' "/proc/$PID/prepage_stat"
}

test_usage() {
	run 2 "usage:" "$CTL" &&
	run 2 "usage:" "$CTL" frobnicate -p "$PID" &&
	run 2 "needs -p PID" "$CTL" dump &&
	run 2 "bad process id 'x1'" "$CTL" dump -p x1 &&
	run 2 "usage:" "$CTL" switch -p "$PID" sideways &&
	run 2 "-n '0': expected 1 to 1000" "$CTL" record -p "$PID" -n 0 &&
	run 2 "-k 3: more than the 2 windows" "$CTL" record -p "$PID" -n 2 -k 3 &&
	run 2 "usage:" "$CTL" record -p "$PID" extra &&
	run 2 "usage:" "$CTL" dump -p "$PID" -n 2
}

test_no_process() {
	run 1 "no process 2147483647" "$CTL" dump -p 2147483647 &&
	run 1 "no process 2147483647" "$CTL" switch -p 2147483647 start &&
	run 1 "no process 2147483647" "$CTL" record -p 2147483647
}

test_round_trip() {
	printf '%s 0:%d target=%d:%d\nanon 0x10000:4 target=1 timeout=3\n' \
		"$ESC" $((16 * PSZ)) $((4 * PSZ)) $((4 * PSZ)) > "$WORK/table"
	run 0 "" "$CTL" load -p "$PID" "$WORK/table" &&
	run 0 "" "$CTL" dump -p "$PID" -o "$WORK/dump1" &&
	grep -qF "$ESC 0:$((16 * PSZ)) " "$WORK/dump1" &&
	grep -qF "target=$((4 * PSZ)):$((4 * PSZ))" "$WORK/dump1" &&
	grep -q "^anon 0x10000:4 target=1 timeout=3" "$WORK/dump1" &&
	run 0 "" "$CTL" reset -p "$PID" &&
	[ "$(stat_of files)" = 0 ] &&
	run 0 "" "$CTL" load -p "$PID" - < "$WORK/dump1" &&
	run 0 "" "$CTL" dump -p "$PID" -o "$WORK/dump2" &&
	cmp -s "$WORK/dump1" "$WORK/dump2" &&
	[ "$(stat_of file_target_pages)" = 4 ] &&
	[ "$(stat_of anon_target_pages)" = 4 ]
}

# A malformed table is reported by line, and the tables stay as they were.
test_malformed() {
	printf '%s 0:%d\n\n%s 0:%d target=some\n' "$ESC" $((16 * PSZ)) \
		"$ESC" $((16 * PSZ)) > "$WORK/bad"
	"$CTL" dump -p "$PID" > "$WORK/before" &&
	run 2 "bad:3: expected OFF:LEN" "$CTL" load -p "$PID" "$WORK/bad" &&
	printf 'data 0:%d\n' "$PSZ" > "$WORK/bad" &&
	run 2 "bad:1: a path must be absolute" "$CTL" load -p "$PID" "$WORK/bad" &&
	printf 'anon 0x10000:4 target=1\n' > "$WORK/bad" &&
	run 2 "bad:1: an anon line needs target= and timeout=" \
		"$CTL" load -p "$PID" "$WORK/bad" &&
	printf '\n \n' > "$WORK/bad" &&
	run 2 "bad: no table line" "$CTL" load -p "$PID" "$WORK/bad" &&
	run 1 "$WORK/none" "$CTL" load -p "$PID" "$WORK/none" &&
	"$CTL" dump -p "$PID" > "$WORK/after" &&
	cmp -s "$WORK/before" "$WORK/after"
}

# What the kernel refuses is reported, and nothing is loaded.
test_refused() {
	"$CTL" dump -p "$PID" > "$WORK/before" &&
	ln -sf "$DATA" "$WORK/link" &&
	printf '%s/link 0:%d\n' "$WORK" "$PSZ" > "$WORK/bad" &&
	run 1 "cannot be opened by process $PID" \
		"$CTL" load -p "$PID" "$WORK/bad" &&
	printf '%s 0:%d target=0:%d\n' "$ESC" "$PSZ" $((2 * PSZ)) > "$WORK/bad" &&
	run 1 "nothing was loaded" "$CTL" load -p "$PID" "$WORK/bad" &&
	run 1 "permission denied" su -s /bin/sh -c "'$CTL' dump -p $PID" nobody &&
	"$CTL" dump -p "$PID" > "$WORK/after" &&
	cmp -s "$WORK/before" "$WORK/after"
}

test_disabled() {
	echo 0 > "$SYSFS/enabled"
	run 1 "prepage is disabled" "$CTL" load -p "$PID" "$WORK/table" &&
	run 1 "prepage is disabled" "$CTL" switch -p "$PID" start &&
	run 1 "prepage is disabled" "$CTL" record -p "$PID"
	ret=$?
	echo 1 > "$SYSFS/enabled"
	return $ret
}

# One window, counted once; a second end is refused, as is a
# "background" in the window, not after it.
test_switch_stat() {
	sw=$(stat_of switches)
	run 0 "" "$CTL" switch -p "$PID" start &&
	grep -qx "state switching" "/proc/$PID/prepage" &&
	run 1 "process $PID is in a switch window" \
		"$CTL" switch -p "$PID" background &&
	run 0 "" "$CTL" switch -p "$PID" end &&
	run 0 "" "$CTL" switch -p "$PID" background &&
	run 1 "process $PID has no open switch window" \
		"$CTL" switch -p "$PID" end &&
	[ "$(stat_of switches)" = $((sw + 1)) ] &&
	run 0 "" "$CTL" stat -p "$PID" &&
	grep -q "^$PID sleep: $((sw + 1)) switches" "$WORK/out" &&
	run 0 "" "$CTL" stat -p "$PID" --json &&
	grep -qF "\"pid\": $PID, \"comm\": \"sleep\", \"switches\": $((sw + 1))," \
		"$WORK/out" &&
	run 0 "" "$CTL" stat --json &&
	grep -qF "\"pid\": $PID," "$WORK/out"
}

# Interrupted, record writes the table of the windows it counted (none:
# it refuses), and leaves no tracefs instance behind.
test_record_interrupted() {
	for windows in 1 0; do
		"$CTL" record -p "$PID" -n 5 -k 1 -o "$WORK/rec" 2> "$WORK/err" &
		rp=$!
		for i in $(seq 100); do
			grep -q "recording process $PID" "$WORK/err" && break
			sleep 0.1
		done
		if [ $windows = 1 ]; then
			"$CTL" switch -p "$PID" start &&
			"$CTL" switch -p "$PID" end || return 1
		fi
		kill -INT $rp
		wait $rp
		got=$?
		if [ $windows = 1 ]; then
			[ $got = 0 ] && grep -qF "recorded 1 of 5 windows" "$WORK/err" &&
			[ -f "$WORK/rec" ] && [ ! -s "$WORK/rec" ] || return 1
		else
			[ $got = 1 ] && grep -qF "nothing recorded" "$WORK/err" ||
				return 1
		fi
		ls /sys/kernel/tracing/instances/ /sys/kernel/debug/tracing/instances/ \
			2>/dev/null | grep -q "^prepagectl\." && return 1
	done
	return 0
}

# Evict the file's pages (clean: written back first).
evict() {
	sync
	echo 1 > /proc/sys/vm/drop_caches
}

# One window of the process; how many file pages prepage brought in.
window_prepaged() {
	before=$(stat_of file_prepaged)
	"$CTL" switch -p "$PID" start || return 1
	for i in $(seq 100); do
		grep -qx "prepaging 0" "/proc/$PID/prepage" && break
		sleep 0.1
	done
	"$CTL" switch -p "$PID" end || return 1
	echo $(($(stat_of file_prepaged) - before))
}

# The userspace replay reads the target ranges of the file and advises
# the target anonymous ranges (here one present page of the stack). The
# engine, a table with the same target, then finds the 4 pages cached
# and brings in none of them; without the replay it brings in 4.
test_replay() {
	addr=$(awk '/\[stack\]/ { split($1, r, "-"); print "0x" r[1]; exit }' \
		"/proc/$PID/maps")
	{
		printf '%s 0:%d target=%d:%d\n' "$ESC" $((16 * PSZ)) \
			$((4 * PSZ)) $((4 * PSZ))
		printf 'anon %s:1 target=1 timeout=3\n' "$addr"
		printf 'anon 0x10000:4 target=0 timeout=3\n'
	} > "$WORK/replay"
	"$CTL" reset -p "$PID" &&
	head -1 "$WORK/replay" > "$WORK/table4" &&
	"$CTL" load -p "$PID" "$WORK/table4" &&
	evict &&
	run 0 "" "$CTL" replay -p "$PID" "$WORK/replay" &&
	grep -qx "replayed 4 file pages, 1 anonymous pages" "$WORK/out" &&
	[ "$(window_prepaged)" = 0 ] &&
	evict &&
	[ "$(window_prepaged)" = 4 ]
}

# Every counter of prepage_stat, and its sum over the system in
# /sys/kernel/mm/prepage/stat.
COUNTERS="switches restarts file_prepaged file_hit file_miss file_demoted
	file_evicted file_late file_stale budget_stops closed_stops nomem_stops
	log_dropped anon_prepaged anon_hit anon_miss anon_evicted anon_demoted
	anon_late file_sat_out anon_sat_out pressure_stops"
system_of() {
	awk -v k="$1" '$1 == k { print $2 }' /sys/kernel/mm/prepage/stat
}
counters() {
	for k in $COUNTERS; do
		echo "$k $(stat_of "$k") $(system_of "$k")"
	done
}

# A window that prepages 4 file pages (and nothing else: the process
# does not run) moves each system counter exactly as the process's own,
# and stat shows the system counters.
test_system_stat() {
	if [ -z "$(system_of switches)" ]; then
		ktap_print_msg "no switches in /sys/kernel/mm/prepage/stat"
		return 1
	fi
	"$CTL" reset -p "$PID" &&
	"$CTL" load -p "$PID" "$WORK/table4" &&
	counters > "$WORK/before" &&
	evict &&
	[ "$(window_prepaged)" = 4 ] &&
	counters > "$WORK/after" || return 1
	# KEY PROCESS SYSTEM KEY PROCESS SYSTEM: before and after
	paste -d' ' "$WORK/before" "$WORK/after" > "$WORK/both"
	awk '$6 - $3 != $5 - $2 { bad = 1
		print "# " $1 ": process +" $5 - $2 ", system +" $6 - $3 }
	     $1 == "switches" && $5 - $2 != 1 { bad = 1 }
	     $1 == "file_prepaged" && $5 - $2 != 4 { bad = 1 }
	     END { exit bad }' "$WORK/both" &&
	run 0 "" "$CTL" stat &&
	sw=$(system_of switches) &&
	grep -qxF "system: $sw switches ($(system_of restarts) restarted)" \
		"$WORK/out" &&
	run 0 "" "$CTL" stat --json &&
	grep -qF "\"system\": {\"switches\": $(system_of switches), " \
		"$WORK/out"
}

# trace-cmd (where the system has it; the test VM does) records a known
# window and resolves the fields and the symbolic names of the prepage
# events from their formats, and those of the anon events.
# The window the tracers record: the 4 pages of table4 are prepaged, and
# it ends when they are.
TRACED_WINDOW="'$CTL' switch -p $PID start &&
	for i in \$(seq 100); do
		grep -qx 'prepaging 0' /proc/$PID/prepage && break
		sleep 0.1
	done &&
	'$CTL' switch -p $PID end"

traced_window_setup() {
	ino=$(printf '%x' "$(stat -c %i "$DATA")")
	"$CTL" reset -p "$PID" &&
	"$CTL" load -p "$PID" "$WORK/table4" &&
	evict
}

# A report of the traced window without a field or event left unparsed;
# if it is not what report_check finds, show the events and fail.
report_ok() {
	if grep -E "FAILED TO PARSE|UNKNOWN|\[unknown" "$WORK/report" ||
	   ! report_check; then
		{ grep prepage_ "$WORK/report"; grep -m 3 mm_anon_fault \
			"$WORK/report"; } | sed 's/^/# /'
		return 1
	fi
}

test_trace_cmd() {
	traced_window_setup &&
	# (Uncompressed: the zstd-compressed file of Debian 12's trace-cmd
	# 3.1.6 cannot be read back in the test VM.)
	trace-cmd record -q --compression none -o "$WORK/trace.dat" \
		-e prepage -e anon:mm_anon_fault \
		sh -c "$TRACED_WINDOW" > "$WORK/out" 2>&1 &&
	trace-cmd report -i "$WORK/trace.dat" > "$WORK/report" 2> "$WORK/err" ||
		{ cat "$WORK/out" "$WORK/err" | sed 's/^/# /'; return 1; }
	report_ok && trace_cmd_filter
}

# The same window through perf: system-wide, as the prepage threads are
# kernel threads, not the recorded command's tasks.
test_perf() {
	traced_window_setup &&
	perf record -q -a -B -o "$WORK/perf.data" \
		-e 'prepage:*' -e anon:mm_anon_fault \
		-- sh -c "$TRACED_WINDOW" > "$WORK/out" 2>&1 &&
	perf script -i "$WORK/perf.data" > "$WORK/report" 2> "$WORK/err" ||
		{ cat "$WORK/out" "$WORK/err" | sed 's/^/# /'; return 1; }
	report_ok
}

# The report of the traced window (trace-cmd report or perf script): each
# prepage event once, as the window was (the mm is printed as
# libtraceevent prints a %p, not hashed), and anonymous faults. The
# prepager reads the table's first page (the metadata pass), then its four
# pages; the target, which sleep does not use, leaves the table at the end.
report_check() {
	mm='mm=[0-9a-fx]*' n='[0-9][0-9]*'
	file="$mm pid=$PID dev=$n:$n ino=$ino"
	[ "$(grep -c "prepage_window_open: *$mm pid=$PID restart=0 lead=none$" \
		"$WORK/report")" = 1 ] &&
	[ "$(grep -c "prepage_file_extent: *$file index=$n nr=1 added=1$" \
		"$WORK/report")" = 1 ] &&
	[ "$(grep -c "prepage_file_extent: *$file index=$n nr=4 added=3$" \
		"$WORK/report")" = 1 ] &&
	[ "$(grep -c "prepage_file_done: *$file prepaged=4 reason=done$" \
		"$WORK/report")" = 1 ] &&
	[ "$(grep -c "prepage_file_evict: *$file index=$n nr=4$" \
		"$WORK/report")" = 1 ] &&
	close="prepage_window_close: *$mm pid=$PID reason=end"
	counts="file_prepaged=4 file_hit=0 file_miss=0 anon_prepaged=0 anon_hit=0 anon_miss=0"
	[ "$(grep -c "$close duration_ns=$n logged=$n dropped=0 $counts$" \
		"$WORK/report")" = 1 ] &&
	[ "$(grep -c "prepage_" "$WORK/report")" = 6 ] &&
	grep -q "mm_anon_fault: *$mm address=0x[0-9a-f]* nr_pages=$n write=[01] zero=[01]$" \
		"$WORK/report"
}

# A trace-cmd filter on the fields of an event finds it, or leaves it out.
trace_cmd_filter() {
	# (-F before -i: trace-cmd 3.1.6 ignores a filter that follows it.)
	trace-cmd report -F "prepage_file_done: prepaged == 4 && pid == $PID" \
		-i "$WORK/trace.dat" > "$WORK/out" 2> /dev/null &&
	[ "$(grep -c prepage_file_done "$WORK/out")" = 1 ] &&
	[ "$(grep -c prepage_ "$WORK/out")" = 1 ] &&
	trace-cmd report -F "prepage_file_done: prepaged != 4" \
		-i "$WORK/trace.dat" > "$WORK/out" 2> /dev/null &&
	! grep -q prepage_ "$WORK/out"
}

# A table made before its file changed (a system update), or went (an app
# update): load drops the file's line, says so (naming the first line
# whose file is gone), and loads the rest; file_stale counts the line.
test_stale() {
	upd="$WORK/updated"
	dd if=/dev/zero of="$upd" bs="$PSZ" count=8 2>/dev/null &&
	printf '%s 0:%d\nanon 0x10000:4 target=1 timeout=3\n' "$upd" \
		$((8 * PSZ)) > "$WORK/t" &&
	"$CTL" reset -p "$PID" &&
	"$CTL" load -p "$PID" "$WORK/t" &&
	"$CTL" dump -p "$PID" -o "$WORK/made" &&
	grep -q "^$upd 0:$((8 * PSZ)) ino=[0-9]* size=$((8 * PSZ)) ctime=" \
		"$WORK/made" || return 1
	stale=$(stat_of file_stale)
	# The update: a new version of the file, one page longer.
	dd if=/dev/zero of="$upd" bs="$PSZ" count=9 2>/dev/null &&
	"$CTL" reset -p "$PID" &&
	run 0 "$WORK/made: 1 stale line(s) dropped" \
		"$CTL" load -p "$PID" "$WORK/made" &&
	[ "$(stat_of file_stale)" = $((stale + 1)) ] &&
	[ "$(stat_of files)" = 0 ] &&
	[ "$(stat_of anon_target_pages)" = 4 ] &&
	# The same table, not stale, loads silently.
	run 0 "" "$CTL" load -p "$PID" "$WORK/t" &&
	[ ! -s "$WORK/err" ] &&
	[ "$(stat_of files)" = 1 ] || return 1
	# An app update renamed a directory: its line goes, the rest loads.
	stale=$(stat_of file_stale)
	printf '\nanon 0x10000:2 target=1 timeout=3\n%s 0:%d\n%s 0:%d\n' \
		"$WORK/renamed/lib.so" "$PSZ" "$upd" "$PSZ" > "$WORK/t" &&
	run 0 "first gone: line 3, $WORK/renamed/lib.so" \
		"$CTL" load -p "$PID" "$WORK/t" &&
	[ "$(stat_of file_stale)" = $((stale + 1)) ] &&
	[ "$(stat_of files)" = 1 ] &&
	[ "$(stat_of anon_target_pages)" = 2 ]
}

test_reset() {
	run 0 "" "$CTL" load -p "$PID" "$WORK/table" &&
	[ "$(stat_of anon_target_pages)" = 4 ] &&
	run 0 "" "$CTL" reset -p "$PID" &&
	run 0 "" "$CTL" dump -p "$PID" &&
	[ ! -s "$WORK/out" ] &&
	[ "$(stat_of anon_target_pages)" = 0 ]
}

for t in usage no_process round_trip malformed refused disabled \
	 switch_stat replay system_stat trace_cmd perf stale reset \
	 record_interrupted; do
	tool=$(echo $t | tr _ -)
	if { [ $t = trace_cmd ] || [ $t = perf ]; } &&
	   ! command -v $tool > /dev/null; then
		ktap_test_skip "prepagectl.$t: no $tool"
		continue
	fi
	ktap_test_result "prepagectl.$t" "test_$t"
done
ktap_finished
