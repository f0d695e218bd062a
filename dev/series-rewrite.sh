#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Rewrite every commit of the series with a tree filter, for changes that
# must appear in their final form in the patch that first needs them
# (a file split out of another, a rename across the series), where a
# fixup would make every later patch conflict.
#
#   dev/series-rewrite.sh FILTER
#
# FILTER (a .py run with python3, anything else with bash) runs at the top
# of a checkout of each commit of $BASE_TAG..HEAD of build/linux, oldest
# first, and edits the files in place; it must do nothing to a commit it
# does not concern, and be written for every shape the files have along
# the series. The commit is recorded again with its message and author.
# build/linux ends at the rewritten head (the old one is printed, for
# `git reset --hard` if the result is not what was wanted); work happens
# in the worktree build/wt. Then: dev/export.sh, and the checks.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

filter=$(realpath "${1:?usage: $0 FILTER}")
[ -d "$KSRC/.git" ] || die "no work tree at $KSRC: run dev/base.sh"
[ -z "$(git -C "$KSRC" status --porcelain --untracked-files=no)" ] ||
	die "$KSRC has uncommitted changes"
wt=$BUILD/wt
[ -d "$wt" ] || git -C "$KSRC" worktree add -q --detach "$wt" "$BASE_TAG"
old=$(git -C "$KSRC" rev-parse HEAD)
parent=$(git -C "$KSRC" rev-parse "$BASE_TAG")
cd "$wt"
for c in $(git rev-list --reverse "$BASE_TAG..$old"); do
	git checkout -q -f --detach "$c"
	git clean -fdxq mm/prepage tools/testing/selftests/prepage 2>/dev/null || true
	case $filter in
	*.py) python3 "$filter" ;;
	*) bash "$filter" ;;
	esac
	git add -A .
	# The kernel's .gitignore hides dotfiles that are sources.
	find mm/prepage -name .kunitconfig -exec git add -f {} + 2>/dev/null || true
	tree=$(git write-tree)
	parent=$(GIT_AUTHOR_NAME=$(git log -1 --format=%an "$c") \
		 GIT_AUTHOR_EMAIL=$(git log -1 --format=%ae "$c") \
		 GIT_AUTHOR_DATE=$(git log -1 --format=%aI "$c") \
		 git commit-tree "$tree" -p "$parent" -F <(git log -1 --format=%B "$c"))
	git reset -q --hard
done
git -C "$KSRC" reset -q --hard "$parent"
echo "==> rewritten: $(git -C "$KSRC" rev-parse --short HEAD) (was $(git -C "$KSRC" rev-parse --short "$old"))"
