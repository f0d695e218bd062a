#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The KMI check: the series with CONFIG_PREPAGE=y changes no type that an
# exported symbol of the base kernel uses, the way Android's frozen KMI
# (the kernel's module ABI) is checked: the ABI of the exported functions
# and variables of the base kernel and of the patched one, dumped by
# libabigail's abidw from their DWARF, compared by abidiff (added symbols
# are allowed; any other difference fails).
#
#   dev/abi-check.sh      build/abi/{base,prepage}.abi, build/abi/report.txt
#
# Both kernels are built from one worktree (build/abi/linux) in one build
# directory, the base first and then the series over it, so that the
# second build recompiles only what the series touches. The base's ABI
# depends on nothing the series changes: it is kept in
# ~/.cache/prepage/abi, keyed by the base's tree, the configuration
# fragment, the compiler and abidw, and the base is built only when the
# key is new. Their
# configuration is tinyconfig with dev/kconfig/abi.config: modules, DWARF
# and the memory management options of Android's generic kernel
# (gki_defconfig), without idle page tracking, which it does not have,
# so that an option the series would select (PAGE_IDLE_FLAG adds page
# flags) shows as a change too.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

command -v abidw >/dev/null && command -v abidiff >/dev/null ||
	die "abidw/abidiff missing: run dev/setup.sh (abigail-tools)"
[ -e "$KSRC/.git" ] || die "no work tree at $KSRC: run dev/base.sh"
dir=$BUILD/abi
src=$dir/linux obj=$dir/obj
mkdir -p "$dir" "$obj" "$CCACHE_DIR"
if [ ! -e "$src/.git" ]; then
	rm -rf "$src"
	git -C "$KSRC" worktree prune
	git -C "$KSRC" worktree add -q -f --detach "$src" "$BASE_TAG"
fi
series=$(git -C "$KSRC" rev-parse "$BRANCH")
# With debug info ccache hashes the working directory too, and a clean
# clone builds in a directory of its own: the DWARF's compile directory
# does not matter to the ABI, the cache does (CI's 60 minutes).
export CCACHE_NOHASHDIR=1

# build <commit> <fragment...>: vmlinux of <commit> with these options.
build() {
	local commit=$1; shift
	git -C "$src" checkout -q --detach "$commit"
	kmake "$src" "$obj" -s tinyconfig >/dev/null
	KCONFIG_CONFIG="$obj/.config" "$src/scripts/kconfig/merge_config.sh" \
		-m -O "$obj" "$obj/.config" "$@" >"$obj/merge.log" </dev/null
	kmake "$src" "$obj" -s olddefconfig >/dev/null
	missing=$(config_missing "$obj/.config" "$@")
	[ -z "$missing" ] || die "KMI check: options not set after olddefconfig:"$'\n'"$missing"
	kmake "$src" "$obj" -s vmlinux
}

printf 'CONFIG_PREPAGE=y\n' >"$dir/prepage.config"

t0=$(date +%s)
key=$( { git -C "$KSRC" rev-parse "$BASE_TAG^{tree}"; cat "$ROOT/dev/kconfig/abi.config"
	 "${CC:-gcc}" --version | head -1; abidw --version; } | sha256sum | cut -c1-24)
kept=$CACHE/abi/$key
if [ -s "$kept/base.abi" ] && [ -s "$kept/base-bounds.h" ]; then
	log "KMI check: base kernel ($BASE_TAG): its ABI as kept in $kept"
	cp "$kept/base.abi" "$kept/base-bounds.h" "$dir/"
else
	log "KMI check: base kernel ($BASE_TAG)"
	build "$BASE_TAG" "$ROOT/dev/kconfig/abi.config"
	grep -q '^CONFIG_PREPAGE' "$obj/.config" && die "KMI check: the base has CONFIG_PREPAGE"
	abidw --vmlinux "$obj/vmlinux" --linux-tree "$obj" --out-file "$dir/base.abi"
	# The page flags and the fields packed above them in page->flags
	# are no type of an exported symbol, but every module compiles them
	# in: their numbers, which kbuild generates into bounds.h, must not
	# move either.
	cp "$obj/include/generated/bounds.h" "$dir/base-bounds.h"
	mkdir -p "$kept"
	cp "$dir/base.abi" "$dir/base-bounds.h" "$kept/"
fi
log "KMI check: with the series, CONFIG_PREPAGE=y"
build "$series" "$ROOT/dev/kconfig/abi.config" "$dir/prepage.config"
abidw --vmlinux "$obj/vmlinux" --linux-tree "$obj" --out-file "$dir/prepage.abi"

# The comparison must have something to compare: exported functions.
nr=$(grep -c '<elf-symbol name=.* type=.func-type' "$dir/base.abi" || true)
[ "$nr" -gt 1000 ] || die "KMI check: only $nr exported functions in the base's ABI (no ksymtab? no DWARF?)"
if ! diff -u "$dir/base-bounds.h" "$obj/include/generated/bounds.h" >"$dir/bounds.diff"; then
	cat "$dir/bounds.diff" >&2
	die "KMI check: the series changes the page flags or what page->flags packs (bounds.h)"
fi
set +e
abidiff --no-added-syms "$dir/base.abi" "$dir/prepage.abi" >"$dir/report.txt" 2>&1
rc=$?
set -e
log "KMI check: $nr exported functions compared, abidiff exit $rc, $(( $(date +%s) - t0 ))s"
if [ $rc != 0 ]; then
	cat "$dir/report.txt" >&2
	die "KMI check: the series changes the ABI of the base's exported symbols (build/abi/report.txt)"
fi
