#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install what the project needs on a fresh Debian 12 machine. Idempotent:
# does nothing when everything is there.
#   dev/setup.sh          what make check needs
#   dev/setup.sh bench    and what the benchmark needs (its report's
#                         matplotlib, the programs it runs as apps)
set -euo pipefail

pkgs=(linux-source-6.12 qemu-system-x86 sparse coccinelle ccache
      busybox-static flex bison bc libelf-dev libssl-dev cpio e2fsprogs
      quilt xz-utils file make gcc libc6-dev python3 python3-ply python3-git
      perl git kmod rsync ocaml-nox gcc-aarch64-linux-gnu libc6-dev-arm64-cross
      gcc-powerpc64le-linux-gnu libcap-dev libnuma-dev liburing-dev trace-cmd
      linux-perf python3-venv abigail-tools python3-sphinx)
# rsync: the kselftest install target; ocaml-nox: coccicheck's OCaml-scripted
# rules (ocamlopt, which --no-install-recommends leaves out);
# gcc-aarch64-linux-gnu, gcc-powerpc64le-linux-gnu: the arm64 (16K pages)
# and powerpc book3s64 build checks of the series (dev/cross-build.sh);
# libcap-dev, libnuma-dev, liburing-dev: the upstream mm kselftests of the
# no-regression run (dev/selftests.sh; without liburing, cow and
# gup_longterm leave their io_uring cases out); trace-cmd, linux-perf: brought
# into the guest by dev/vm.sh -k for the tests that the series' events parse
# in them. python3-venv: the virtualenv b4 is installed in (below).
# abigail-tools: abidw and abidiff, the KMI check (dev/abi-check.sh).
# python3-sphinx: make htmldocs of the series' documents (dev/static-checks.sh).
# bench: matplotlib for the report's plots; the real programs the
# benchmark runs as apps (bench/apps/*/manifest: their PACKAGES, and
# javac for the JVM app) and strace, with which bench/stage-apps.sh finds
# the files they use. The apps' runtimes are pinned to Debian 12's
# builds (bookworm and its security updates, which the archive serves
# together with their dependencies), so that a fresh machine runs the
# same programs; a pin the archive no longer serves (its next point
# release) is said, and the archive's build installed instead: the
# versions staged are recorded in each app's VERSIONS either way.
bench_pins=(python3-matplotlib=3.6.3-1+b1 python3-numpy=1:1.24.2-1+deb12u1
	openjdk-17-jre-headless=17.0.21.1+2-1~deb12u1
	openjdk-17-jdk-headless=17.0.21.1+2-1~deb12u1
	nodejs=18.20.4+dfsg-1~deb12u3 redis-server=5:7.0.15-1~deb12u10
	strace=6.1-0.1)
[ "${1:-}" = bench ] && pkgs+=("${bench_pins[@]}")
missing=()
pinned=()
for p in "${pkgs[@]}"; do
	if [[ $p = *=* ]]; then
		# A pin: that version, if it is not the one installed.
		[ "$(dpkg-query -W -f='${Status} ${Version}' "${p%%=*}" 2>/dev/null)" = "install ok installed ${p#*=}" ] ||
			pinned+=("$p")
		continue
	fi
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#pinned[@]} -gt 0 ]; then
	sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -qq
	for p in "${pinned[@]}"; do
		if apt-cache madison "${p%%=*}" | awk -F'|' '{gsub(/ /, "", $2); print $2}' |
			grep -qxF "${p#*=}"; then
			missing+=("$p")
		else
			echo "==> warning: ${p%%=*} ${p#*=} (pinned) is no longer in the archive: installing its build there" >&2
			dpkg-query -W -f='${Status}' "${p%%=*}" 2>/dev/null | grep -q 'install ok installed' ||
				missing+=("${p%%=*}")
		fi
	done
fi
if [ ${#missing[@]} -gt 0 ]; then
	echo "==> installing: ${missing[*]}" >&2
	sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
		--allow-downgrades "${missing[@]}" >/dev/null
	# The benchmark runs redis-server itself, in the VM: not a service
	# of this machine.
	if [[ " ${missing[*]} " = *" redis-server"* ]] && [ -d /run/systemd/system ]; then
		$sudo systemctl disable --now redis-server >/dev/null 2>&1 || true
	fi
fi
# b4 0.16 from PyPI, for dev/check-mail.sh (Debian 12's b4 0.12 has no
# `b4 prep --check`, and its `b4 am` fails on a folded From: header), in a
# virtualenv of Debian's python3 that sees its packages (python3-ply and
# python3-git, which checkpatch's spdxcheck.py needs when b4 runs it).
b4venv=${BUILD:-$(cd "$(dirname "$0")/.." && pwd)/build}/b4-venv
if ! "$b4venv/bin/b4" --version 2>/dev/null | grep -qx 0.16.0; then
	echo "==> installing b4 0.16.0 in $b4venv" >&2
	rm -rf "$b4venv"
	mkdir -p "$(dirname "$b4venv")"
	# Without it only dev/check-mail.sh fails (it says why): not the setup.
	/usr/bin/python3 -m venv --system-site-packages "$b4venv" &&
		"$b4venv/bin/pip" install -q --disable-pip-version-check b4==0.16.0 ||
		echo "==> WARNING: b4 could not be installed in $b4venv" >&2
fi
echo "==> tools: $(qemu-system-x86_64 --version | head -1); sparse $(sparse --version); spatch $(spatch --version 2>&1 | head -1 | awk '{print $3}'); ccache $(ccache --version | head -1 | awk '{print $3}'); b4 $("$b4venv/bin/b4" --version 2>/dev/null || echo missing)" >&2
