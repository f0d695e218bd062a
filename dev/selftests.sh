#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build and install the kselftests on the host, against the work tree's
# UAPI headers:
#  - the series' target(s) into build/kselftest (run_kselftest.sh);
#  - the upstream targets of the no-regression run (mm, cachestat, proc)
#    into build/kselftest-upstream, with the guest runner
#    (dev/upstream-selftests.sh) and the LD_PRELOAD shim that puts every
#    test process in a prepage switch window (dev/prepage-shim.c).
#    UPSTREAM_TARGETS= (empty) skips them.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

targets=${KSELFTEST_TARGETS:-prepage}
upstream=${UPSTREAM_TARGETS-mm cachestat proc}
[ -d "$KSRC/tools/testing/selftests/prepage" ] || die "the work tree has no prepage selftests"
mkdir -p "$KOBJ"
[ -f "$KOBJ/.config" ] || die "no configured kernel in $KOBJ: run dev/build.sh"
kmake "$KSRC" "$KOBJ" -s headers

# install_targets <install dir> <targets> [make args]: a fresh build and
# install; the compiler through ccache (its gcc in PATH: CC="ccache gcc"
# would break mm's check_config.sh).
install_targets() {
	local dir=$1 t=$2 log=$BUILD/${1##*/}.log
	shift 2
	rm -rf "$dir" "$dir-obj"
	if ! PATH=/usr/lib/ccache:$PATH make -C "$KSRC/tools/testing/selftests" \
		O="$dir-obj" -j"$JOBS" TARGETS="$t" \
		KHDR_INCLUDES="-isystem $KOBJ/usr/include" \
		INSTALL_PATH="$dir" "$@" install >"$log" 2>&1 </dev/null; then
		grep -E 'error|Error' "$log" | head -30 >&2
		die "kselftests ($t) did not build: see $log"
	fi
	log "kselftests ($t) installed in $dir"
}
install_targets "$BUILD/kselftest" "$targets"

if [ -n "$upstream" ]; then
	up=$BUILD/kselftest-upstream
	# 6.12.y's mm/khugepaged.c returns KSFT_SKIP without including
	# kselftest.h (a stable backport): define it as kselftest.h does.
	install_targets "$up" "$upstream" EXTRA_CFLAGS=-DKSFT_SKIP=4
	# Every program the guest runner names must have been built (a
	# missing library would silently leave one out of the mm target).
	for t in $(sed -n 's#^run_test \([^ ]*\) [0-9]* \([^ ]*\).*#\1/\2#p' "$ROOT/dev/upstream-selftests.sh" | sort -u); do
		[ -x "$up/$t" ] || die "$up/$t was not built (see $BUILD/kselftest-upstream.log; dev/setup.sh installs its libraries)"
	done
	gcc -O2 -Wall -Wextra -Werror -shared -fPIC -pthread \
		-o "$up/prepage-shim.so" "$ROOT/dev/prepage-shim.c"
	install -m 755 "$ROOT/dev/upstream-selftests.sh" "$up/run-upstream.sh"
	log "upstream runner and prepage shim installed in $up"
fi
