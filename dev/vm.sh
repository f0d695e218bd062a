#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot the test kernel in QEMU (TCG; KVM=1 to opt in where nested KVM
# works) with a busybox initramfs, zram swap and a fresh ext4 scratch disk
# (virtio-blk, mounted at /mnt/disk: file page cache that can really be
# evicted and read back), run a command in the guest, and exit with the
# guest command's status.
#
#   dev/vm.sh [-t SECONDS] [-l LOG] [-k] [-u] [-x FILE]... [-- COMMAND...]
#     -t   timeout for the whole VM run (default 600)
#     -l   also write the full console log here
#     -k   include the installed kselftests (build/kselftest) at /kselftest,
#          and trace-cmd and perf
#     -u   include the upstream kselftests of the no-regression run
#          (build/kselftest-upstream) at /kselftest-upstream
#     -x   include FILE (a program, say) in /extra
#   With no COMMAND, an interactive shell on the serial console.
#   DEBUG=1 boots the debug kernel (build/obj-debug). VM_DISK_SIZE sizes
#   the scratch disk (256M); VM_DISK_TREE fills it with a directory tree.
#   A task blocked for VM_HUNG_SECONDS (60) is reported by the kernel and
#   fails the run; 30 s before the timeout the guest dumps its blocked
#   tasks (sysrq-w), shown if the VM then times out.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

timeout=600 log= with_kst=0 with_up=0 extra=()
while getopts t:l:kux: o; do
	case $o in
	t) timeout=$OPTARG ;;
	l) log=$OPTARG ;;
	k) with_kst=1 ;;
	u) with_up=1 ;;
	x) extra+=("$OPTARG") ;;
	*) die "usage: dev/vm.sh [-t SECONDS] [-l LOG] [-k] [-u] [-x FILE]... [-- COMMAND...]" ;;
	esac
done
shift $((OPTIND - 1))

kernel=$KOBJ/arch/x86/boot/bzImage
[ -f "$kernel" ] || die "no kernel at $kernel: run dev/build.sh"
command -v busybox >/dev/null || die "busybox missing: run dev/setup.sh"

stage=$(mktemp -d "$BUILD/initramfs.XXXXXX")
chmod 755 "$stage"   # the guest's /: other users must get through it
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,etc,root}
cp "$(command -v busybox)" "$stage/bin/busybox"
for a in $(busybox --list); do
	[ -e "$stage/bin/$a" ] || ln -s busybox "$stage/bin/$a"
done
install -m 755 "$ROOT/dev/guest-init" "$stage/init"
# Users and groups, as any system has them (tests open /etc/passwd, look
# up nobody).
printf '%s\n' root:x:0:0:root:/root:/bin/sh nobody:x:65534:65534:nobody:/nonexistent:/bin/false \
	>"$stage/etc/passwd"
printf '%s\n' root:x:0: nogroup:x:65534: >"$stage/etc/group"
if [ $# -eq 0 ]; then
	echo 'exec setsid cttyhack sh' >"$stage/cmd"
	interactive=1
else
	printf '%s\n' "$*" >"$stage/cmd"
	interactive=0
fi
if [ "$with_kst" = 1 ]; then
	[ -x "$BUILD/kselftest/run_kselftest.sh" ] || die "no kselftests in $BUILD/kselftest: run dev/selftests.sh"
	cp -a "$BUILD/kselftest" "$stage/kselftest"
	# trace-cmd and perf, for the tests that read the series' events with
	# them (their libraries come along with those of the test programs
	# below).
	for t in trace-cmd perf; do
		command -v $t >/dev/null || die "$t missing: run dev/setup.sh"
		cp "$(command -v $t)" "$stage/usr/bin/$t"
	done
fi
if [ "$with_up" = 1 ]; then
	[ -x "$BUILD/kselftest-upstream/run-upstream.sh" ] ||
		die "no upstream kselftests in $BUILD/kselftest-upstream: run dev/selftests.sh"
	cp -a "$BUILD/kselftest-upstream" "$stage/kselftest-upstream"
fi
if [ ${#extra[@]} -gt 0 ]; then
	mkdir -p "$stage/extra"
	cp -a "${extra[@]}" "$stage/extra/"
fi
# Dynamically linked test programs (and LD_PRELOAD shims): bring their
# libraries along, and libgcc_s.so.1 next to libc, where glibc dlopen()s
# it for pthread_cancel() and pthread_exit(): ldd does not list it.
dyn=$(find "$stage" -type f ! -name busybox -exec file {} + 2>/dev/null |
	{ grep -E ':.*ELF.*dynamically' || true; } | cut -d: -f1)
if [ -n "$dyn" ]; then
	libgcc=$(readlink -f "$(gcc -print-file-name=libgcc_s.so.1)")
	[ -f "$libgcc" ] || die "libgcc_s.so.1 not found: run dev/setup.sh"
	libs=$(while read -r f; do ldd "$f" | grep -oE '/[^ ]+' || true; done <<<"$dyn" | sort -u)
	libc=$(grep -m1 '/libc\.so\.6$' <<<"$libs") || die "no libc among the test programs' libraries"
	while read -r lib; do
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done <<<"$libs"
	cp -L "$libgcc" "$stage$(dirname "$libc")/libgcc_s.so.1"
fi
(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$stage.cpio.gz"
trap 'rm -rf "$stage" "$stage.cpio.gz"' EXIT

# A new scratch disk every run: tests start from the same empty file
# system, or one made from the tree VM_DISK_TREE (the benchmark's apps).
disk=$stage.disk
truncate -s "${VM_DISK_SIZE:-256M}" "$disk"
mkfs.ext4 -q -F -L scratch ${VM_DISK_TREE:+-d "$VM_DISK_TREE"} "$disk"
trap 'rm -rf "$stage" "$stage.cpio.gz" "$disk"' EXIT

# One host thread for all vCPUs (VM_TCG_THREAD=single, the default) for
# the correctness runs: QEMU 7.2's multi-threaded TCG mishandles the
# kernel's code patching while other vCPUs run the patched code, and a
# static key or trace event toggled under load (prepage's enabled, a
# test's events) then Oopses the guest with int3 (README, "The test VM").
# The benchmark's timed runs, which toggle nothing under load, ask for
# VM_TCG_THREAD=multi.
accel=(-accel "tcg,thread=${VM_TCG_THREAD:-single}" -cpu max)
# acpi=noirq: the CPUs come from QEMU's ACPI tables, but PCI interrupts
# are routed from the MP table: under TCG (and KASAN) the AML interpreter
# can run into its loop timeout evaluating _PRT, leaving virtio without
# an interrupt and the boot hung.
[ "${KVM:-0}" = 1 ] && accel=(-accel kvm -cpu host)
qemu=(qemu-system-x86_64 "${accel[@]}" -smp "${VM_CPUS:-2}" -m "${VM_MEM:-1024}"
      -kernel "$kernel" -initrd "$stage.cpio.gz" -nographic -no-reboot
      -drive "file=$disk,if=virtio,format=raw,cache=unsafe${VM_DISK_OPTS:+,$VM_DISK_OPTS}"
      -append "console=ttyS0 panic=-1 oops=panic rdinit=/init acpi=noirq sysctl.kernel.hung_task_timeout_secs=${VM_HUNG_SECONDS:-60} PREPAGE_VM_TIMEOUT=$((interactive ? 0 : timeout)) ${VM_APPEND:-}"
      ${VM_QEMU_ARGS:-})

if [ "$interactive" = 1 ]; then
	exec "${qemu[@]}"
fi
out=$(mktemp "$BUILD/console.XXXXXX")
trap 'rm -rf "$stage" "$stage.cpio.gz" "$disk" "$out"' EXIT
set +e
timeout --foreground -k 10 "$timeout" "${qemu[@]}" </dev/null >"$out" 2>&1
qrc=$?
set -e
tr -d '\r' <"$out" >"$out.tmp" && mv "$out.tmp" "$out"
# Stack traces name their functions (the test kernel has no kallsyms).
if [ -f "$KOBJ/System.map" ]; then
	"$ROOT/dev/symbolize.py" "$KOBJ/System.map" <"$out" >"$out.tmp" && mv "$out.tmp" "$out"
fi
[ -n "$log" ] && cp "$out" "$log"
# Guest output between the init banner and the exit line goes to stdout.
sed -n '/^PREPAGE-GUEST: /,/^PREPAGE-GUEST-EXIT: /p' "$out"
rc=$(sed -n 's/^PREPAGE-GUEST-EXIT: \([0-9]*\)$/\1/p' "$out" | tail -n 1)
if [ -z "$rc" ]; then
	[ "$qrc" = 124 ] && echo "vm: timed out after ${timeout}s" >&2
	echo "vm: the guest did not report an exit status (qemu rc=$qrc); console tail:" >&2
	tail -n 40 "$out" >&2
	# The guest's dump of its blocked tasks before the timeout, if it made one.
	if grep -q 'Show Blocked State' "$out"; then
		echo "vm: the blocked tasks (sysrq-w)${log:+; the whole console log is $log}:" >&2
		sed -n '/Show Blocked State/,$p' "$out" | head -n 200 >&2
	fi
	exit 125
fi
problems='Kernel panic|BUG:|WARNING:|Oops|KASAN|unreferenced object|new suspected memory leak|possible recursive locking|circular locking|blocked for more than'
if grep -qE "$problems" "$out"; then
	echo "vm: the kernel reported a problem:" >&2
	grep -nE -A20 "$problems" "$out" | head -80 >&2
	exit 126
fi
exit "$rc"
