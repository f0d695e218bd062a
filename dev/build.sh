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
	rm -f "$KOBJ/.fragments"
	kmake "$KSRC" "$KOBJ" -s tinyconfig >/dev/null
	KCONFIG_CONFIG="$KOBJ/.config" "$KSRC/scripts/kconfig/merge_config.sh" \
		-m -O "$KOBJ" "$KOBJ/.config" "${frags[@]}" >"$KOBJ/merge.log" </dev/null
	kmake "$KSRC" "$KOBJ" -s olddefconfig >/dev/null
	missing=$(config_missing "$KOBJ/.config" "${frags[@]}")
	# Every requested option must have survived olddefconfig.
	[ -z "$missing" ] || die "config options not set after olddefconfig (a dependency missing from the fragment?):"$'\n'"$missing"
	echo "$want" >"$KOBJ/.fragments"
fi
# Every time, whatever the stamp says: the .config may have been changed
# by hand (menuconfig), by an interrupted run, or by a build of another
# tree in this directory, and the work tree may have symbols the .config
# does not know yet. olddefconfig settles those without a prompt (kbuild's
# own syncconfig would ask "(NEW)" and take the default on EOF); then the
# fragments' options must all be there, or nothing is built.
kmake "$KSRC" "$KOBJ" -s olddefconfig >/dev/null
missing=$(config_missing "$KOBJ/.config" "${frags[@]}")
[ -z "$missing" ] || die "$KOBJ/.config lacks options the fragments ask for:
$missing
It was changed after dev/build.sh configured it (by hand, an interrupted run,
or a build of another tree there). To reconfigure from the fragments:
  rm $KOBJ/.fragments && ${DEBUG:+DEBUG=1 }${BASE_KERNEL:+BASE_KERNEL=1 }dev/build.sh
(or rm -rf $KOBJ for a clean build)."
log "building bzImage in $KOBJ"
kmake "$KSRC" "$KOBJ" -s bzImage
# The build itself must not have dropped any (a kconfig run inside it).
missing=$(config_missing "$KOBJ/.config" "${frags[@]}")
[ -z "$missing" ] || die "$KOBJ/.config lost options during the build: $missing"
ls -l "$KOBJ/arch/x86/boot/bzImage" >&2
