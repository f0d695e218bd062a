#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Stage real programs as benchmark apps: a root file system tree that
# holds each app's directory (bench/apps/NAME, see bench/README.md) and
# every file of the host its program opens, which bench/run.sh puts on
# the app disk (mkfs.ext4 -d) and prepage-bench runs chrooted in the
# guest, so that the programs' code, libraries and data are file pages
# read from that disk.
#
#   bench/stage-apps.sh ROOT APPDIR...
#
# For each APPDIR: its files are copied to ROOT/apps/NAME; the manifest's
# BUILD and DATA commands run there (on the host); then the app is run
# there once on the host under strace, through two switches, use phases
# and switch-outs of its protocol, and every file it opened, executed or
# looked up under /usr, /etc and the merged-/usr links is copied into
# ROOT (symbolic links with their targets). The app's answers must come
# back as the protocol says, or staging fails. ROOT/apps/NAME/VERSIONS
# lists the Debian packages of the manifest with their versions, and
# ROOT/apps/NAME/COMMAND its command line, which prepage-bench runs. A
# stamp keeps ROOT when nothing it was made from changed.
set -euo pipefail
. "$(dirname "$0")/../dev/lib.sh"

[ $# -ge 2 ] || die "usage: bench/stage-apps.sh ROOT APPDIR..."
root=$(realpath -m "$1")
here=$(cd "$(dirname "$0")" && pwd)
shift
for t in strace dpkg-query mkfs.ext4; do
	command -v $t >/dev/null || die "$t missing: run dev/setup.sh bench"
done

# What the tree is made from: the apps' files and the packages' versions.
stamp=$( {
	for d in "$@"; do
		(cd "$d" && find . -type f | LC_ALL=C sort | xargs sha256sum)
		( . "$d/manifest"; dpkg-query -W ${PACKAGES:-} 2>/dev/null || true)
	done
	cat "$0" "$here/app_protocol.py" | sha256sum
} | sha256sum | cut -c1-16)
if [ -f "$root/.stamp" ] && [ "$(cat "$root/.stamp")" = "$stamp" ]; then
	log "apps: $root is up to date"
	exit 0
fi
rm -rf "$root"
mkdir -p "$root"/{apps,proc,sys,dev,tmp}
chmod 1777 "$root/tmp"
# The merged-/usr links, as links (files under them are copied below).
for l in bin sbin lib lib64; do
	if [ -L "/$l" ]; then
		cp -a "/$l" "$root/$l"
		mkdir -p "$root/$(realpath -m "/$l")"
	fi
done

# copy_path PATH: PATH into the tree, with its parents, and, for a
# symbolic link, what it points to, link by link.
copy_path() {
	local p=$1 n=0
	while [ -n "$p" ] && [ $n -lt 16 ]; do
		n=$((n + 1))
		# Its directory as the host resolves it (/lib is /usr/lib).
		p=$(realpath -m "$(dirname "$p")")/$(basename "$p")
		[ -e "$root$p" ] || [ -L "$root$p" ] && [ ! -L "$p" ] && return 0
		if [ -d "$p" ] && [ ! -L "$p" ]; then
			mkdir -p "$root$p"
			return 0
		fi
		[ -e "$p" ] || [ -L "$p" ] || return 0
		mkdir -p "$root$(dirname "$p")"
		[ -e "$root$p" ] || [ -L "$root$p" ] || cp -a "$p" "$root$p"
		[ -L "$p" ] || return 0
		local t
		t=$(readlink "$p")
		case $t in /*) p=$t ;; *) p=$(dirname "$p")/$t ;; esac
		p=$(realpath -ms "$p")
	done
}

for d in "$@"; do
	name=$(basename "$d")
	[ -f "$d/manifest" ] || die "$d: no manifest"
	(
		COMMAND= BUILD= DATA= PACKAGES=
		. "$d/manifest"
		[ -n "$COMMAND" ] || die "$d/manifest: no COMMAND"
		app=$root/apps/$name
		mkdir -p "$app"
		cp -a "$d/." "$app/"
		# The protocol for apps in Python (the others speak it alone).
		cp "$here/app_protocol.py" "$app/"
		cd "$app"
		[ -z "$BUILD" ] || sh -c "$BUILD" || die "$name: BUILD failed: $BUILD"
		[ -z "$DATA" ] || sh -c "$DATA" || die "$name: DATA failed: $DATA"
		[ -n "$PACKAGES" ] || die "$d/manifest: no PACKAGES"
		dpkg-query -W $PACKAGES >VERSIONS || die "$name: packages not installed: $PACKAGES (dev/setup.sh bench)"
		# The command as the shell read the manifest: what prepage-bench
		# runs (it reads this file, not the manifest).
		printf '%s\n' "$COMMAND" >COMMAND
		trace=$(mktemp)
		out=$(printf 'S 0\nU 0\nB\nS 1\nU 1\nB\nQ\n' |
		      strace -f -qq -e trace=%file,execve -e signal=none -o "$trace" \
		      sh -c "exec $COMMAND") || die "$name: the app failed on the host"
		[ "$(grep -c '^DONE ' <<<"$out")" = 2 ] && grep -q '^READY' <<<"$out" ||
			die "$name: the app did not answer READY and two DONEs: $out"
		# The paths looked up: the first quoted string of each call
		# (failed ones too, and calls strace split between threads:
		# copy_path() takes only what exists).
		sed -n 's/^[0-9]* *[a-z0-9_]*(\(AT_FDCWD, \)\{0,1\}"\([^"]*\)".*/\2/p' "$trace" |
			LC_ALL=C sort -u >"$trace.paths"
		rm -f "$trace"
		while read -r p; do
			case $p in
			/usr/*|/etc/*|/lib/*|/lib64/*|/bin/*|/sbin/*) copy_path "$p" ;;
			esac
		done <"$trace.paths"
		rm -f "$trace.paths"
		# The ELF interpreter, which the kernel opens (not traced).
		for i in /lib64/ld-linux-x86-64.so.2; do copy_path "$i"; done
		log "apps: $name staged ($(du -sh "$app" | cut -f1) of its own; $(tr '\n' ' ' <VERSIONS))"
	)
done
echo "$stamp" >"$root/.stamp"
log "apps: $root $(du -sh "$root" | cut -f1)"
