#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build and install the series' kselftest target(s) on the host, against
# the work tree's UAPI headers, into build/kselftest (run_kselftest.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

targets=${KSELFTEST_TARGETS:-prepage}
[ -d "$KSRC/tools/testing/selftests/prepage" ] || die "the work tree has no prepage selftests"
mkdir -p "$KOBJ"
[ -f "$KOBJ/.config" ] || die "no configured kernel in $KOBJ: run dev/build.sh"
kmake "$KSRC" "$KOBJ" -s headers
rm -rf "$BUILD/kselftest" "$BUILD/kselftest-obj"
make -s -C "$KSRC/tools/testing/selftests" O="$BUILD/kselftest-obj" \
	TARGETS="$targets" KHDR_INCLUDES="-isystem $KOBJ/usr/include" \
	INSTALL_PATH="$BUILD/kselftest" install >/dev/null
log "kselftests ($targets) installed in $BUILD/kselftest"
