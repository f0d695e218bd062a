#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the series' kernel objects for other architectures, with W=1:
# arm64 with 16K pages (dev/kconfig/arm64-16k.config; android16-6.12 ships
# 16K kernels) and powerpc book3s64 (dev/kconfig/ppc64le.config; a
# runtime PTRS_PER_PTE). Only mm/prepage/ and the files the series hooks
# into are compiled, not a whole kernel.
#
#   dev/cross-build.sh [arm64|ppc64le]...   build/obj-<arch>; default both
set -euo pipefail
. "$(dirname "$0")/lib.sh"

build_one() { # build_one <name> <ARCH> <CROSS_COMPILE prefix> <fragment>
local name=$1 arch=$2 cross=$3 frag=$ROOT/dev/kconfig/$4
command -v ${cross}gcc >/dev/null || die "${cross}gcc missing: run dev/setup.sh"
local obj=$BUILD/obj-$name
mkdir -p "$obj" "$CCACHE_DIR"
amake() {
	make -C "$KSRC" O="$obj" -j"$JOBS" ARCH=$arch CROSS_COMPILE=$cross \
		CC="ccache ${cross}gcc" HOSTCC="ccache gcc" "$@" </dev/null
}
local want=$(cat "$frag" "$ROOT/dev/cross-build.sh" | sha256sum | cut -c1-16)
if [ "$(cat "$obj/.fragments" 2>/dev/null)" != "$want" ] || [ ! -f "$obj/.config" ]; then
	log "configuring $obj ($arch tinyconfig + ${frag##*/})"
	amake -s tinyconfig >/dev/null
	KCONFIG_CONFIG="$obj/.config" "$KSRC/scripts/kconfig/merge_config.sh" \
		-m -O "$obj" "$obj/.config" "$frag" >"$obj/merge.log"
	amake -s olddefconfig >/dev/null
	echo "$want" >"$obj/.fragments"
fi
# Every time: a config without the options must not pass as a build of them.
local missing=$(grep -E '^CONFIG_[A-Z0-9_]+=' "$frag" | while read -r l; do
	grep -qxF "$l" "$obj/.config" || echo "$l"; done)
[ -z "$missing" ] || die "$name config lacks: $missing"
log "building mm/prepage/ and the hooked files for $name in $obj"
local out
out=$(amake -s W=1 mm/prepage/ mm/filemap.o mm/memory.o kernel/fork.o \
	fs/proc/base.o 2>&1) || { echo "$out"; die "$name build failed"; }
# W=1 warnings of the series' own files fail the check.
if echo "$out" | grep -E '(mm/prepage/|include/linux/prepage\.h).*warning:'; then
	die "$name build has warnings in the series' files"
fi
ls "$obj/mm/prepage/"*.o >/dev/null
}

[ -e "$KSRC/.git" ] || die "no work tree at $KSRC: run dev/base.sh"
[ $# -gt 0 ] || set -- arm64 ppc64le
for a in "$@"; do
	case $a in
	arm64) build_one arm64 arm64 aarch64-linux-gnu- arm64-16k.config ;;
	ppc64le) build_one ppc64le powerpc powerpc64le-linux-gnu- ppc64le.config ;;
	*) die "unknown architecture $a (arm64, ppc64le)" ;;
	esac
done
