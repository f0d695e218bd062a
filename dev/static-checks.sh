#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Static checks of the series. Prints one "PASS|FAIL <check>" line per
# check (details of failures above it) and exits non-zero if any failed.
#
#  - checkpatch.pl --strict on every patch (exceptions: dev/checkpatch.exceptions)
#  - kernel-doc -none -Wall: new sources clean, touched sources no new warnings
#  - each patch, applied in order, builds (bzImage; selftests it touches)
#  - sparse (C=2) and coccicheck on the kernel .c files the series adds or
#    touches: no report that the base does not already have
#  - the series applies to an extracted base tree with quilt
#  - the series as a mail thread: b4 am + git am on the base give the same
#    tree, and b4 prep --check is clean (dev/check-mail.sh)
#
# The build walk runs in the work tree, in a build directory of its own
# (build/obj-patches: only the files a patch touches are rebuilt, ccache
# shared with the test kernel), and returns to the branch head; the work
# tree must be clean and hold exactly the committed series. build/obj is
# never used here: it only ever holds the final series (dev/build.sh),
# so an interrupted walk cannot leave it configured for an earlier patch.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

chk=$KSRC
chkobj=$BUILD/obj-patches${DEBUG:+-debug}
res=$BUILD/static-results
mkdir -p "$BUILD"
: >"$res"
pass() { echo "PASS $*" | tee -a "$res"; }
fail() { echo "FAIL $*" | tee -a "$res"; }
# step <what>: says what starts, and how long the step before it took.
t_step=$(date +%s)
step() {
	local now=$(date +%s)
	log "($((now - t_step))s) $*"
	t_step=$now
}

[ -d "$chk/.git" ] || die "no work tree at $chk: run dev/base.sh"
[ -z "$(git -C "$chk" status --porcelain --untracked-files=no)" ] ||
	die "$chk has uncommitted changes"
exp=$(mktemp -d)
"$ROOT/dev/export.sh" "$chk" "$exp" 2>/dev/null
diff -r -q "$exp/patches" "$ROOT/patches" >/dev/null ||
	die "$chk does not hold the committed series: run dev/export.sh (or FORCE=1 dev/base.sh)"
rm -rf "$exp"
head_ref=$(git -C "$chk" symbolic-ref -q --short HEAD || git -C "$chk" rev-parse HEAD)
trap 'git -C "$chk" checkout -q "$head_ref"' EXIT
base=$(git -C "$chk" rev-parse "$BASE_TAG")
mapfile -t commits < <(git -C "$chk" rev-list --reverse "$BASE_TAG..HEAD")
mapfile -t patches < <(grep -v '^\s*\(#\|$\)' "$ROOT/series")
[ "${#commits[@]}" = "${#patches[@]}" ] || die "series/commit count mismatch"

# --- checkpatch -----------------------------------------------------------
step "checkpatch --strict on ${#patches[@]} patches"
# Debian's python3 (python3-ply, python3-git) for scripts/spdxcheck.py.
for p in "${patches[@]}"; do
	PATH=/usr/bin:$PATH "$chk/scripts/checkpatch.pl" --strict --show-types \
		--no-summary "$ROOT/patches/$p" >"$BUILD/checkpatch.out" 2>&1 || true
	if grep -q 'Traceback' "$BUILD/checkpatch.out"; then
		cat "$BUILD/checkpatch.out"; fail "checkpatch $p (a helper script crashed)"
	elif "$ROOT/dev/checkpatch-filter.py" "$ROOT/dev/checkpatch.exceptions" "$p" \
		"$BUILD/checkpatch.out"; then
		pass "checkpatch $p"
	else
		fail "checkpatch $p"
	fi
done

# Files the series adds or modifies, by kind.
mapfile -t added < <(git -C "$chk" diff --name-only --diff-filter=A "$base" HEAD)
mapfile -t touched < <(git -C "$chk" diff --name-only --diff-filter=AM "$base" HEAD)
ksrcs=()   # kernel C sources (not tools/) that the series adds or touches
for f in "${touched[@]}"; do
	case "$f" in tools/*|scripts/*) ;; *.c) ksrcs+=("$f") ;; esac
done

# --- kernel-doc -------------------------------------------------------------
step "kernel-doc on the sources the series adds or touches"
kdoc() { (cd "$chk" && scripts/kernel-doc -none -Wall "$1" 2>&1 | sed -E 's/:[0-9]+:/:/' | sort); }
for f in "${touched[@]}"; do
	case "$f" in tools/*|scripts/*|Documentation/*) continue ;; *.c|*.h) ;; *) continue ;; esac
	now=$(git -C "$chk" checkout -q "$head_ref" && kdoc "$f")
	if printf '%s\n' "${added[@]}" | grep -qxF "$f"; then
		was=""
	else
		was=$(git -C "$chk" checkout -q "$base" && kdoc "$f")
		git -C "$chk" checkout -q "$head_ref"
	fi
	new=$(comm -13 <(printf '%s\n' "$was") <(printf '%s\n' "$now") | sed '/^$/d')
	if [ -z "$new" ]; then pass "kernel-doc $f"; else echo "$new"; fail "kernel-doc $f"; fi
done
git -C "$chk" checkout -q "$head_ref"

# --- the documents, rendered ------------------------------------------------
# Sphinx (make htmldocs) on the directories that hold the series'
# documents: no warning may come from a file of the series, the documents
# or the sources whose kernel-doc they render (built alone, the other
# documents of these directories warn of labels defined elsewhere).
docdirs="mm admin-guide/mm trace"
step "htmldocs ($docdirs)"
if make -s -C "$chk" O="$BUILD/docs" SPHINXDIRS="$docdirs" htmldocs \
	>"$BUILD/docs.log" 2>&1; then
	warn=$(grep -E 'Documentation/(mm|admin-guide/mm|trace)/prepage|events-prepage|mm/prepage/|include/linux/prepage|trace/events/prepage' "$BUILD/docs.log" || true)
	if [ -z "$warn" ]; then pass "htmldocs ($docdirs)"
	else echo "$warn"; fail "htmldocs ($docdirs): warnings in the series' files"; fi
else
	tail -20 "$BUILD/docs.log"; fail "htmldocs ($docdirs)"
fi

# --- per-patch build, with sparse and coccicheck at base and head ----------
# The head's config is the test kernel's (dev/build.sh configured it).
[ -f "$KOBJ/.config" ] || die "no configured kernel in $KOBJ: run dev/build.sh"
mkdir -p "$chkobj"
headcfg=$chkobj/head.config
cp "$KOBJ/.config" "$headcfg"
cfgsum=$(sha256sum "$headcfg" | cut -c1-12)

# analyse <tool> <commit>: reports for ksrcs, line numbers dropped; cached
# on this machine by content (see the key), so unchanged inputs are not
# analysed twice.
analyse() {
	local tool=$1 rev=$2 f o key out="" todo=() objs=() r
	declare -A keys
	for f in "${ksrcs[@]}"; do
		[ -f "$chk/$f" ] || continue
		# The reports depend on the file, the headers next to it, in mm/,
		# include/ and arch/x86/include/, and the config: key on those.
		key=$CACHE/static/v3-$tool-$(git -C "$chk" rev-parse "$rev:$(dirname "$f")" "$rev:mm" \
			"$rev:include" "$rev:arch/x86/include" | sha256sum | cut -c1-24)-$(basename "$f")-$cfgsum
		keys[$f]=$key
		[ -f "$key" ] || { todo+=("$f"); objs+=("${f%.c}.o"); }
	done
	# sparse: one file at a time (seconds each), so that the warnings it
	# gives in headers are attributed to the file that included them.
	# coccicheck: one make for all (it reports in the checked file only).
	if [ $tool = cocci ] && [ ${#todo[@]} -gt 0 ]; then
		r=$(kmake "$chk" "$chkobj" C=2 CHECK="$chk/scripts/coccicheck" \
			MODE=report "${objs[@]}" 2>&1)
	fi
	for f in "${todo[@]}"; do
		local mine
		case $tool in
		sparse) r=$(kmake "$chk" "$chkobj" C=2 "${f%.c}.o" 2>&1)
			grep -qE "CHECK +(\S*/)?$f\$" <<<"$r" || { echo "sparse did not run on $f" >&2; return 1; }
			mine=$(grep -E '(warning|error):' <<<"$r" || true) ;;
		cocci) # coccicheck echoes each spatch run: none means it did not run.
			grep -qE "spatch .*--cocci-file .*(\./|/)$f\$" <<<"$r" || { echo "coccicheck did not run on $f" >&2; return 1; }
			mine=$(grep -E "^(\./|$chk/)?$f:[0-9]" <<<"$r" || true) ;;
		esac
		mine=$(printf '%s\n' "$mine" | sed -E "s#^(\./|$chk/)##; s/:[0-9]+(:[0-9]+)?(-[0-9]+)?:/:/; s/line [0-9]+/line N/g" | sed '/^$/d' | sort)
		mkdir -p "$CACHE/static"
		printf '%s\n' "$mine" >"${keys[$f]}"
	done
	for f in "${!keys[@]}"; do
		out+=$(cat "${keys[$f]}")$'\n'
	done
	printf '%s' "$out" | sed '/^$/d' | sort
}

# Each step starts from the head's .config: olddefconfig at an earlier
# step drops the symbols later patches add, and they must come back on.
# Kbuild tracks config symbols per file, so only their users rebuild.
stepconfig() {
	cp "$headcfg" "$chkobj/.config"
	kmake "$chk" "$chkobj" -s olddefconfig >/dev/null
}
trap 'git -C "$chk" checkout -q "$head_ref"' EXIT

git -C "$chk" checkout -q "$base"
step "base: building $(git -C "$chk" log -1 --format=%s) in $chkobj"
stepconfig
if ! kmake "$chk" "$chkobj" -s bzImage >"$BUILD/check-build.log" 2>&1; then
	tail -20 "$BUILD/check-build.log"; die "the base does not build"
fi
step "base: sparse and coccicheck on ${ksrcs[*]}"
sparse_base=$(analyse sparse "$base") || die "sparse failed on the base"
cocci_base=$(analyse cocci "$base") || die "coccicheck failed on the base"

i=0 built=1
for c in "${commits[@]}"; do
	p=${patches[$i]}; i=$((i + 1))
	git -C "$chk" checkout -q "$c"
	step "patch $i/${#commits[@]}: build ($p)"
	# A patch that changes only what no kernel build reads (the
	# selftests, tools/mm, Documentation, MAINTAINERS) leaves the tree
	# the previous step built as it was.
	if [ "$built" = 1 ] && ! git -C "$chk" diff --name-only "$c~1" "$c" |
		grep -qvE '^(tools/testing/selftests/|tools/mm/|Documentation/|MAINTAINERS$)'; then
		pass "build $p (no file a kernel build reads: as patch $((i - 1)))"
	elif built=0 && stepconfig &&
	   kmake "$chk" "$chkobj" -s bzImage >"$BUILD/check-build.log" 2>&1; then
		built=1
		# W=1 on the kernel objects this patch touches.
		objs=$(git -C "$chk" diff --name-only "$c~1" "$c" | grep -E '^(mm|fs|kernel|include/linux)/.*\.c$' | sed 's/\.c$/.o/' || true)
		warn=""
		[ -z "$objs" ] || warn=$(kmake "$chk" "$chkobj" -s W=1 $objs 2>&1 | grep -E 'warning:|error:' || true)
		if [ -z "$warn" ]; then pass "build $p"; else echo "$warn"; fail "build $p (W=1 warnings in touched files)"; fi
	else
		tail -30 "$BUILD/check-build.log"; fail "build $p"
	fi
	if git -C "$chk" diff --name-only "$c~1" "$c" | grep -q '^tools/testing/selftests/'; then
		t=$(git -C "$chk" diff --name-only "$c~1" "$c" | sed -n 's#^tools/testing/selftests/\([^/]*\)/.*#\1#p' | sort -u | tr '\n' ' ')
		if kmake "$chk" "$chkobj" -s headers >"$BUILD/check-kst.log" 2>&1 &&
		   make -s -C "$chk/tools/testing/selftests" O="$BUILD/check-kst" TARGETS="$t" \
			KHDR_INCLUDES="-isystem $chkobj/usr/include" >>"$BUILD/check-kst.log" 2>&1 </dev/null &&
			! grep -q 'warning:' "$BUILD/check-kst.log"; then
			pass "selftests build $p ($t)"
		else
			tail -30 "$BUILD/check-kst.log"; fail "selftests build $p ($t)"
		fi
	fi
done
rm -rf "$BUILD/check-kst"

step "head: sparse and coccicheck on ${ksrcs[*]}"
for tool in sparse cocci; do
	was=sparse_base; [ $tool = cocci ] && was=cocci_base
	if ! now=$(analyse $tool "$head_ref"); then fail "$tool (did not run)"; continue; fi
	new=$(comm -13 <(printf '%s\n' "${!was}") <(printf '%s\n' "$now") | sed '/^$/d')
	if [ -z "$new" ]; then pass "$tool (${#ksrcs[@]} files, $(printf '%s\n' "$now" | sed '/^$/d' | wc -l) reports, none new)"
	else echo "$new"; fail "$tool: new reports"; fi
done

# --- quilt on an extracted tree ---------------------------------------------
step "quilt push -a on an extracted base tree"
q=$(mktemp -d "$BUILD/quilt.XXXXXX")
git -C "$chk" archive "$base" | tar -x -C "$q"
if (cd "$q" && QUILT_PATCHES="$ROOT/patches" QUILT_SERIES="$ROOT/series" \
	quilt push -a -q --fuzz=0 >"$BUILD/quilt.log" 2>&1); then
	pass "quilt push -a (${#patches[@]} patches)"
else
	tail -20 "$BUILD/quilt.log"; fail "quilt push -a"
fi
rm -rf "$q"

# --- the series as a mail thread -------------------------------------------
step "mail thread: b4 am, git am, b4 prep --check"
"$ROOT/dev/check-mail.sh" | tee -a "$res" || true
grep -q '^PASS b4 prep --check' "$res" || grep -q '^FAIL b4 prep' "$res" ||
	fail "mail thread (dev/check-mail.sh did not finish)"

grep -q '^FAIL' "$res" && exit 1
exit 0
