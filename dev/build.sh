#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Configure (tinyconfig + dev/kconfig/prepage.config [+ debug.config]) and
# build the test kernel from the work tree, with ccache.
#
#   dev/build.sh            build/obj/arch/x86/boot/bzImage
#   DEBUG=1 dev/build.sh    build/obj-debug/..., with the debug fragment
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -e "$KSRC/.git" ] || die "no work tree at $KSRC: run dev/base.sh"
mkdir -p "$KOBJ" "$CCACHE_DIR"

frags=("$ROOT/dev/kconfig/prepage.config")
if [ -n "${BASE_KERNEL:-}" ]; then
	# The same kernel without the series: its options cannot be set.
	grep -v '^CONFIG_PREPAGE' "$ROOT/dev/kconfig/prepage.config" >"$KOBJ/base.config"
	frags=("$KOBJ/base.config")
fi
[ -n "${DEBUG:-}" ] && frags+=("$ROOT/dev/kconfig/debug.config")
# Extra fragments from later patches of the series (KUnit suites etc.)
[ -n "${EXTRA_KCONFIG:-}" ] && frags+=($EXTRA_KCONFIG)

# Regenerate .config only when a fragment changed: a config change
# rebuilds nearly everything.
want=$(cat "${frags[@]}" "$ROOT/dev/build.sh" | sha256sum | cut -c1-16)
if [ "$(cat "$KOBJ/.fragments" 2>/dev/null)" != "$want" ] || [ ! -f "$KOBJ/.config" ]; then
	log "configuring $KOBJ (tinyconfig + ${frags[*]##*/})"
	kmake "$KSRC" "$KOBJ" -s tinyconfig >/dev/null
	KCONFIG_CONFIG="$KOBJ/.config" "$KSRC/scripts/kconfig/merge_config.sh" \
		-m -O "$KOBJ" "$KOBJ/.config" "${frags[@]}" >"$KOBJ/merge.log"
	kmake "$KSRC" "$KOBJ" -s olddefconfig >/dev/null
	# Every requested option must have survived olddefconfig.
	missing=$(cat "${frags[@]}" | grep -E '^CONFIG_[A-Z0-9_]+=' | while read -r l; do
		grep -qxF "$l" "$KOBJ/.config" || echo "$l"; done)
	[ -z "$missing" ] || die "config options not set after olddefconfig: $missing"
	echo "$want" >"$KOBJ/.fragments"
fi
log "building bzImage in $KOBJ"
kmake "$KSRC" "$KOBJ" -s bzImage
ls -l "$KOBJ/arch/x86/boot/bzImage" >&2
