#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench: from a fresh clone, install what is needed, build the patched
# kernel, boot it in the VM with a throttled disk, run prepage-bench with
# every mode side by side on two workloads, real programs as apps and the
# calibrated footprint model (bench/README.md), and print the result
# tables. Writes build/bench/apps/ (real programs) and build/bench/ (the
# model), each {raw.txt,console.log,results.json,switches.csv,
# summary.csv,latency.png,cdf.png,hist.png,anatomy.png}.
#
# Every setting is an environment variable (bench/README.md, "Settings"):
#   BENCH_<OPTION>=VALUE          prepage-bench's --<option> VALUE ('-' as
#                                 '_'; =1 for a flag; BENCH_SET="A=1 B=2"
#                                 for --set A=1 --set B=2), e.g.
#                                 BENCH_MODES, BENCH_ROUNDS, BENCH_FOOTPRINT,
#                                 BENCH_TRIALS (default 5), BENCH_ANATOMY
#                                 (default 1): for both workloads, but
#                                 what the apps workload sets itself
#   BENCH_APP_<OPTION>=VALUE      the same, for the apps workload only,
#                                 after BENCH_<OPTION> (its own: MODES
#                                 ideal, baseline, userspace, populate,
#                                 prepage-anon, prepage, prepage-profile;
#                                 WARMUP 2, ROUNDS 4, ANATOMY 0)
#   BENCH_SCENARIO_<OPTION>=VALUE the same, for a scenario only, after
#                                 its own (a scenario takes no
#                                 BENCH_<OPTION>)
#   BENCH_WORKLOADS="apps model"  which of the two (default both)
#   BENCH_APP_DIRS="DIR..."       the app directories (default
#                                 bench/apps/*; bench/README.md, "Apps")
#   BENCH_SCENARIO=drift|apps     instead, a scenario of bench/README.md
#                 on the calibrated model, with its pre-registered
#                 verdict (bench/scenario.py): drift, a run per
#                 BENCH_DRIFTS (default "0 5 10 20") into
#                 build/bench/scenario-drift/d<PCT>/; apps, into
#                 build/bench/scenario-apps/
#   BENCH_STORAGE=emmc|ufs|none   disk throttling profile (default emmc);
#                 emmc-dilated, ufs-dilated: the same profile with its
#                 bandwidth and IOPS divided by how much slower the
#                 guest runs the kernel's paths than the host (a page
#                 fault loop timed on both; a plain CPU loop's ratio is
#                 logged beside it), so that CPU and storage keep a
#                 phone's balance
#   BENCH_OVERHEAD=0              skip the hook-overhead comparison (it
#                                 builds the base kernel once, ~10 min;
#                                 wall time, then instructions under
#                                 QEMU's -icount); =only: that alone,
#                                 no switches
#   BENCH_TIMEOUT=SECONDS         of a VM run (default 5400)
#   VM_MEM, VM_CPUS, VM_DISK_SIZE the guest (default 1024 MiB, 2, 1G)
set -euo pipefail
. "$(dirname "$0")/../dev/lib.sh"

# prepage-bench's options that the environment sets (the others run.sh
# passes itself), and its flags.
bench_opts=(apps warmup rounds trials anatomy seed footprint gc use-alloc
	framework-pct jitter modes work sequences budget set drift unprofiled
	update)
bench_flags=(pageout no-memcg no-delay-dequeue)
# The variable of option $2 under prefix $1: BENCH_APP + use-alloc ->
# BENCH_APP_USE_ALLOC.
opt_var() { local o=${2//-/_}; echo "${1}_${o^^}"; }
# The options set in the environment under prefix $1, as arguments.
opts_from() {
	local o var v
	for o in "${bench_opts[@]}"; do
		var=$(opt_var "$1" "$o")
		v=${!var:-}
		[ -n "$v" ] || continue
		if [ "$o" = set ]; then
			for v in $v; do printf -- '--set %s ' "$v"; done
		else
			printf -- '--%s %s ' "$o" "$v"
		fi
	done
	for o in "${bench_flags[@]}"; do
		var=$(opt_var "$1" "$o")
		if [ "${!var:-0}" = 1 ]; then
			printf -- '--%s ' "$o"
		fi
	done
	return 0
}
# A misspelt setting would be silently ignored: refuse any BENCH_
# variable that is not one.
known=" BENCH_WORKLOADS BENCH_APP_DIRS BENCH_SCENARIO BENCH_DRIFTS BENCH_STORAGE BENCH_OVERHEAD BENCH_TIMEOUT BENCH_KERNEL "
for p in BENCH BENCH_APP BENCH_SCENARIO; do
	for o in "${bench_opts[@]}" "${bench_flags[@]}"; do
		known+="$(opt_var $p "$o") "
	done
done
for v in $(compgen -v BENCH_); do
	case $v in
	BENCH_ARGS|BENCH_APP_ARGS|BENCH_SCENARIO_ARGS)
		die "$v is gone: each option of prepage-bench is a variable of its own, BENCH_<OPTION> (bench/README.md, \"Settings\")" ;;
	BENCH_APPS)
		[[ ${BENCH_APPS} =~ ^[0-9]+$ ]] ||
			die "BENCH_APPS is the model's --apps N; the app directories are BENCH_APP_DIRS" ;;
	esac
	[[ $known = *" $v "* ]] || die "$v is not a setting of make bench (bench/README.md, \"Settings\")"
done
for p in BENCH BENCH_APP BENCH_SCENARIO; do
	for o in "${bench_flags[@]}"; do
		v=$(opt_var $p "$o")
		case ${!v:-0} in 0|1) ;; *) die "$v: 1 or 0, not ${!v}" ;; esac
	done
done
# A scenario runs with its own options (bench/README.md, "Scenarios"):
# the workloads' would be ignored, and what defines it cannot change.
if [ -n "${BENCH_SCENARIO:-}" ]; then
	for o in "${bench_opts[@]}" "${bench_flags[@]}"; do
		v=$(opt_var BENCH "$o")
		[ -z "${!v:-}" ] ||
			die "$v is not a scenario's: BENCH_SCENARIO_${v#BENCH_} is"
	done
	for o in drift unprofiled update; do
		v=$(opt_var BENCH_SCENARIO "$o")
		[ -z "${!v:-}" ] || die "$v: the scenario defines it (BENCH_DRIFTS sets the drifts)"
	done
fi

"$ROOT/dev/setup.sh" bench
"$ROOT/dev/base.sh"
"$ROOT/dev/build.sh"
# The benchmark's kernel: the series plus the bench-only patches: one
# lets process_madvise() take MADV_POPULATE_READ (the populate mode), one
# adds the pressure_stop knob (MODE@pressure_stop=0, an experiment). The
# worktree is re-made only when the series or a patch changed, so that
# the build stays incremental.
kbench=$BUILD/kbench/linux
bench_patches=("$ROOT/bench/process-madvise-populate.patch" "$ROOT/bench/pressure-stop-knob.patch")
want="$(git -C "$KSRC" rev-parse "$BRANCH") $(cat "${bench_patches[@]}" | sha256sum | cut -c1-16)"
if [ "$(cat "$BUILD/kbench/.stamp" 2>/dev/null)" != "$want" ]; then
	log "bench kernel tree: $BRANCH + ${bench_patches[*]##*/}"
	mkdir -p "$BUILD/kbench"
	[ -e "$kbench/.git" ] || git -C "$KSRC" worktree add -q -f --detach "$kbench" "$BRANCH"
	git -C "$kbench" checkout -q -f --detach "$BRANCH"
	for p in "${bench_patches[@]}"; do
		git -C "$kbench" apply "$p"
	done
	echo "$want" >"$BUILD/kbench/.stamp"
fi
# Configured as Android's kernels are in what the prepagers depend on
# (bench/bench.config: preemption). The overhead comparison below boots
# the test kernels, base and series alike, without it.
BENCH_KERNEL=1 EXTRA_KCONFIG="$ROOT/bench/bench.config" "$ROOT/dev/build.sh"
out=$BUILD/bench
mkdir -p "$out"
# The benchmark links tools/mm/prepagectl's replay (bench/prepagectl-replay.c),
# and runs prepagectl record (next to it in the guest) for its profile.
gcc -O2 -Wall -pthread -I"$kbench/tools/mm" -o "$out/prepage-bench" \
	"$ROOT/bench/prepage-bench.c" "$ROOT/bench/prepagectl-replay.c"
gcc -O2 -Wall -o "$out/prepagectl" "$kbench/tools/mm/prepagectl.c"

# QEMU throttling of the app disk, reads and writes: eMMC 5.1-like
# (~150 MB/s, ~4k IOPS) or UFS 3.x-like (~800 MB/s, ~25k IOPS):
# read bytes/s, read IOPS, write bytes/s, write IOPS.
storage=${BENCH_STORAGE:-emmc}
case ${storage%-dilated} in
emmc) t=(157286400 4000 52428800 2000) ;;
ufs)  t=(838860800 25000 314572800 10000) ;;
none) t=() ;;
*) die "BENCH_STORAGE must be emmc, ufs, none, emmc-dilated or ufs-dilated" ;;
esac
dilation=1
if [ "$storage" != "${storage%-dilated}" ]; then
	[ ${#t[@]} = 4 ] || die "BENCH_STORAGE=$storage: nothing to dilate"
	# "CALIBRATE loop_ns=N fault_ns=N" -> "N N"
	cal='s/^CALIBRATE loop_ns=\([0-9.]*\) fault_ns=\([0-9.]*\).*/\1 \2/p'
	host=($("$out/prepage-bench" --calibrate | sed -n "$cal"))
	guest=($(BENCH_KERNEL=1 "$ROOT/dev/vm.sh" -t 300 -x "$out/prepage-bench" -- "/extra/prepage-bench --calibrate" |
		tr -d '\r' | sed -n "$cal"))
	[ ${#host[@]} = 2 ] && [ ${#guest[@]} = 2 ] || die "storage dilation: could not time the calibration loops (host '${host[*]}', guest '${guest[*]}')"
	dilation=$(python3 -c "print(f'{max(1.0, ${guest[1]} / ${host[1]}):.2f}')")
	log "storage dilation: a page fault takes ${guest[1]} ns in the guest, ${host[1]} ns on the host (CPU loop: ${guest[0]} / ${host[0]} ns): disk ${dilation}x slower"
	t=($(python3 -c "print(*(max(1, int(v / $dilation)) for v in [$(IFS=,; echo "${t[*]}")]))"))
fi
disk=""
[ ${#t[@]} = 4 ] && disk="throttling.bps-read=${t[0]},throttling.iops-read=${t[1]},throttling.bps-write=${t[2]},throttling.iops-write=${t[3]}"
args=$(BENCH_TRIALS=${BENCH_TRIALS:-5} BENCH_ANATOMY=${BENCH_ANATOMY:-1} opts_from BENCH)
# The workloads: the real programs of BENCH_APP_DIRS (apps: bench/apps/*
# by default, see bench/README.md) and the calibrated footprint model
# (model; BENCH_FOOTPRINT picks another). Each is a VM run of its own:
# build/bench/apps/ and build/bench/.
workloads=${BENCH_WORKLOADS:-apps model}
for w in $workloads; do
	case $w in apps|model) ;; *) die "BENCH_WORKLOADS: apps, model or both, not $w" ;; esac
done
: >"$out/raw.txt"
rc=0
# run_vm DIR DISK_SIZE ARGS...: prepage-bench in the VM, output in DIR.
run_vm() {
	local dir=$1 size=$2 start vrc
	shift 2
	mkdir -p "$dir"
	log "prepage-bench in the VM (storage $storage, ${VM_MEM:-1024} MiB, ${VM_CPUS:-2} CPUs) $*"
	start=$(date +%s)
	set +e
	# Multi-threaded TCG: the apps and the prepage threads run on two
	# host CPUs, as the timings need (dev/vm.sh defaults to one thread).
	BENCH_KERNEL=1 VM_DISK_SIZE=$size VM_DISK_OPTS=$disk \
		VM_TCG_THREAD=${VM_TCG_THREAD:-multi} "$ROOT/dev/vm.sh" -t "${BENCH_TIMEOUT:-5400}" -l "$dir/console.log" \
		-x "$out/prepage-bench" -x "$out/prepagectl" -- "/extra/prepage-bench $*" >"$dir/raw.txt"
	vrc=$?
	set -e
	log "VM run: $(( $(date +%s) - start ))s, exit $vrc"
	[ $vrc = 0 ] || rc=$vrc
}
scenario=${BENCH_SCENARIO:-}
case $scenario in
""|drift|apps) ;;
*) die "BENCH_SCENARIO: drift or apps, not $scenario" ;;
esac
if [ -n "$scenario" ]; then
	# The scenarios (bench/README.md): their own settings, no overhead
	# comparison; the verdict by bench/scenario.py.
	sargs="--anatomy 0 --warmup 0"
	if [ "$scenario" = drift ]; then
		dirs=()
		for d in ${BENCH_DRIFTS:-0 5 10 20}; do
			[[ $d =~ ^[0-9]+$ ]] && [ "$d" -le 100 ] || die "BENCH_DRIFTS: percentages, not $d"
			run_vm "$out/scenario-drift/d$d" "${VM_DISK_SIZE:-1G}" $sargs \
				--trials 3 --apps 4 --rounds 60 --sequences cycle,random \
				--modes "${BENCH_SCENARIO_MODES:-baseline,userspace,userspace-rerecord,prepage,prepage-profile}" \
				--drift "$d" $(opts_from BENCH_SCENARIO)
			dirs+=("$out/scenario-drift/d$d")
		done
		set +e
		python3 "$ROOT/bench/scenario.py" drift "${dirs[@]}" | tee "$out/scenario-drift/verdict.txt"
		vrc=${PIPESTATUS[0]}
		set -e
	else
		run_vm "$out/scenario-apps" "${VM_DISK_SIZE:-1G}" $sargs \
			--trials 2 --apps 12 --rounds 25 --sequences zipf \
			--unprofiled 1,5,9 --update 4@150 \
			--modes "${BENCH_SCENARIO_MODES:-baseline,userspace,prepage}" \
			$(opts_from BENCH_SCENARIO)
		set +e
		python3 "$ROOT/bench/scenario.py" apps "$out/scenario-apps" | tee "$out/scenario-apps/verdict.txt"
		vrc=${PIPESTATUS[0]}
		set -e
	fi
	# FAIL is a result, not a broken run; a missing or failed run is.
	[ "$rc" = 0 ] && [ "$vrc" != 2 ] || die "the scenario did not run (VM exit $rc, verdict exit $vrc): see $out/scenario-*"
	exit 0
fi
if [ "${BENCH_OVERHEAD:-1}" != only ]; then
	if [[ " $workloads " = *" apps "* ]]; then
		# The apps' root tree, on the app disk at /mnt/disk/root.
		apps=(${BENCH_APP_DIRS:-$ROOT/bench/apps/*})
		"$ROOT/bench/stage-apps.sh" "$BUILD/bench-apps/root" "${apps[@]}"
		size=$(( $(du -sm "$BUILD/bench-apps" | cut -f1) + 512 ))M
		names=$(for a in "${apps[@]}"; do basename "$a"; done | paste -sd,)
		# The oracle modes need a footprint known in advance. Fewer
		# rounds and no anatomy trial by default: a real program's
		# switch takes longer than a model app's (the VM time, README).
		aargs=$(BENCH_APP_WARMUP=${BENCH_APP_WARMUP:-2} \
			BENCH_APP_ROUNDS=${BENCH_APP_ROUNDS:-4} \
			BENCH_APP_ANATOMY=${BENCH_APP_ANATOMY:-0} \
			BENCH_APP_MODES=${BENCH_APP_MODES:-ideal,baseline,userspace,populate,prepage-anon,prepage,prepage-profile} \
			opts_from BENCH_APP)
		VM_DISK_TREE=$BUILD/bench-apps run_vm "$out/apps" "$size" \
			$args $aargs --real-apps /mnt/disk/root --app-list "$names"
	fi
	[[ " $workloads " = *" model "* ]] &&
		run_vm "$out" "${VM_DISK_SIZE:-1G}" $args
fi
# Overhead when off: base kernel, series with prepage disabled, and
# enabled but idle, fault loops only, the three interleaved, three times.
if [ "${BENCH_OVERHEAD:-1}" != 0 ] && [ "$rc" = 0 ]; then
	if [ ! -e "$BUILD/kbase/linux/.git" ]; then
		mkdir -p "$BUILD/kbase"
		git -C "$KSRC" worktree add -q -f --detach "$BUILD/kbase/linux" "$BASE_TAG"
	fi
	BASE_KERNEL=1 "$ROOT/dev/build.sh"
	log "overhead: base / prepage off / prepage enabled-idle, interleaved x3"
	# The order rotates each round, so that drift hits all three alike.
	for order in "base off idle" "off idle base" "idle base off"; do
		for k in $order; do
			cmd="/extra/prepage-bench --overhead $k"
			[ $k = idle ] && cmd="echo 1 > /sys/kernel/mm/prepage/enabled && $cmd"
			BASE_KERNEL=$([ $k = base ] && echo 1) \
				VM_TCG_THREAD=${VM_TCG_THREAD:-multi} \
				"$ROOT/dev/vm.sh" -t 900 -x "$out/prepage-bench" -- "$cmd" \
				>>"$out/raw.txt" || rc=1
		done
	done
	# The same loops on one vCPU under QEMU's -icount (shift=0: the guest
	# clock advances 1 ns per instruction the vCPU executes, and never
	# while it is idle), so that a loop's "ns per op" is the instructions
	# it costs, which host load and TCG's timing noise cannot move. Two
	# boots of each kernel, interleaved.
	log "overhead: the same under -icount (instructions per op), interleaved x2"
	for order in "base off idle" "idle off base"; do
		for k in $order; do
			cmd="/extra/prepage-bench --overhead icount-$k"
			[ $k = idle ] && cmd="echo 1 > /sys/kernel/mm/prepage/enabled && $cmd"
			BASE_KERNEL=$([ $k = base ] && echo 1) VM_CPUS=1 \
				VM_QEMU_ARGS="-icount shift=0,sleep=off" \
				"$ROOT/dev/vm.sh" -t 1800 -x "$out/prepage-bench" -- "$cmd" \
				>>"$out/raw.txt" || rc=1
		done
	done
fi
{
	echo "# prepage-bench $(date -u +%Y-%m-%dT%H:%MZ) storage=$storage dilation=$dilation disk=$disk mem=${VM_MEM:-1024} cpus=${VM_CPUS:-2} args=$args"
	echo "# series $(series_digest)"
} >"$out/run.txt"
# Debian's python3, which has the python3-matplotlib dev/setup.sh installs.
py=/usr/bin/python3; [ -x "$py" ] || py=python3
if [ -s "$out/apps/raw.txt" ] && [[ " $workloads " = *" apps "* ]]; then
	echo "== real programs as apps ($names) =="
	"$py" "$ROOT/bench/report.py" "$out/apps/raw.txt" "$out/apps" || rc=1
fi
# The model's records, and the overhead part's (which go to the same
# file): none with BENCH_WORKLOADS=apps and BENCH_OVERHEAD=0.
if [[ " $workloads " = *" model "* ]] || [ -s "$out/raw.txt" ]; then
	[[ " $workloads " = *" apps "* ]] && echo &&
		echo "== the calibrated footprint model (or BENCH_FOOTPRINT's) =="
	"$py" "$ROOT/bench/report.py" "$out/raw.txt" "$out" || rc=1
fi
[ "$rc" = 0 ] || die "the benchmark failed (exit $rc): see $out/raw.txt and $out/console.log"
