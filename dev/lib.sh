# SPDX-License-Identifier: GPL-2.0
# Common settings for the prepage project scripts; sourced, not run.
# shellcheck shell=bash

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
# Caches shared between clones and CI runs on one machine (never in the repo).
CACHE=${PREPAGE_CACHE:-$HOME/.cache/prepage}
TARBALL=${PREPAGE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
# The 6.12.y release the series was last exported against.
BASE_VERSION=$(cat "$ROOT/dev/BASE_VERSION")
KSRC=$BUILD/linux           # work tree: base commit + series as commits
KOBJ=$BUILD/obj${DEBUG:+-debug}   # O= output for the test kernel
# Two more kernels for the benchmark, each a worktree with its build
# directory beside it, as build/linux and build/obj are: ccache rewrites
# paths relative to the build directory, so the files they share with the
# test kernel come from the cache.
# BASE_KERNEL=1: the base without the series (a worktree at the base tag),
# for the overhead comparison.
if [ -n "${BASE_KERNEL:-}" ]; then
	KSRC=$BUILD/kbase/linux
	KOBJ=$BUILD/kbase/obj
fi
# BENCH_KERNEL=1: the series plus bench/process-madvise-populate.patch
# (never part of the series), for the benchmark's populate mode.
if [ -n "${BENCH_KERNEL:-}" ]; then
	KSRC=$BUILD/kbench/linux
	KOBJ=$BUILD/kbench/obj
fi
BASE_TAG=prepage-base
BRANCH=prepage
JOBS=${JOBS:-$(( $(nproc) + 1 ))}

# Fixed identity and dates make the base commit and re-applied series
# reproducible, so exported patches are byte-identical across machines.
export GIT_CONFIG_NOSYSTEM=1
FIXED_DATE="2000-01-01T00:00:00Z"

export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
export CCACHE_BASEDIR=$ROOT
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime

log()  { printf '==> %s\n' "$*" >&2; }
die()  { printf 'error: %s\n' "$*" >&2; exit 1; }

kmake() {
	# kmake <srcdir> <objdir> args...: build with ccache, quietly. No
	# standard input: a kconfig step (syncconfig inside any make) must not
	# prompt for a "(NEW)" symbol and take its default on EOF.
	local src=$1 obj=$2; shift 2
	make -C "$src" O="$obj" -j"$JOBS" CC="ccache gcc" HOSTCC="ccache gcc" \
		KBUILD_BUILD_TIMESTAMP="$FIXED_DATE" KBUILD_BUILD_USER=prepage \
		KBUILD_BUILD_HOST=prepage "$@" </dev/null
}

# config_missing <config> <fragment>...: what the fragments ask for that
# <config> does not have: each CONFIG_X=V line not in it verbatim, and each
# "# CONFIG_X is not set" whose symbol it sets.
config_missing() {
	local cfg=$1 l sym; shift
	cat "$@" | grep -E '^(CONFIG_[A-Za-z0-9_]+=|# CONFIG_[A-Za-z0-9_]+ is not set)' |
	while read -r l; do
		case $l in
		"# "*) sym=${l#\# }; sym=${sym%% *}
			! grep -q "^$sym=" "$cfg" || echo "$l" ;;
		*) grep -qxF -- "$l" "$cfg" || echo "$l" ;;
		esac
	done
}

# Digest of the committed series (the series file and every patch).
series_digest() {
	(cd "$ROOT" && cat series patches/*.patch) | sha256sum | cut -c1-16
}
