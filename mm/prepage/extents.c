// SPDX-License-Identifier: GPL-2.0
/*
 * prepage extent sets: sorted, merged runs of pages, and the parsers of
 * the numbers and byte ranges of table lines. See extents.h.
 */

#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "extents.h"

static pgoff_t extent_end(const struct prepage_extent *e)
{
	return e->start + e->nr;
}

/*
 * Index of the first extent that ends after @index or, if @touching, that
 * ends at @index or after it (so that it touches a run starting there).
 */
static unsigned int extents_search(const struct prepage_extents *set,
				   pgoff_t index, bool touching)
{
	unsigned int lo = 0, hi = set->nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		pgoff_t end = extent_end(&set->ext[mid]);

		if (end < index || (end == index && !touching))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/**
 * prepage_extents_reserve() - make room in a set
 * @set:	the set
 * @nr:		extents it must have room for
 *
 * Return: 0 or -ENOMEM.
 */
int prepage_extents_reserve(struct prepage_extents *set, unsigned int nr)
{
	struct prepage_extent *ext;
	unsigned int cap;

	if (nr <= set->cap)
		return 0;
	cap = max3(nr, 2 * set->cap, 4U);
	/* Charged to the memcg the caller charges the app's tables to. */
	ext = kvrealloc(set->ext, array_size(cap, sizeof(*ext)),
			GFP_KERNEL_ACCOUNT);
	if (!ext)
		return -ENOMEM;
	set->ext = ext;
	set->cap = cap;
	return 0;
}

/* Add [@start, @start + @nr) to @set, growing it only if @may_alloc. */
static int __extents_add(struct prepage_extents *set, pgoff_t start,
			 pgoff_t nr, bool may_alloc)
{
	pgoff_t end = start + nr;
	unsigned int lo, hi;

	if (!nr || end < start)
		return -EINVAL;
	lo = extents_search(set, start, true);
	hi = lo;
	while (hi < set->nr && set->ext[hi].start <= end)
		hi++;
	if (lo == hi) {
		int err = -ENOSPC;

		if (set->nr < set->cap)
			err = 0;
		else if (may_alloc)
			err = prepage_extents_reserve(set, set->nr + 1);
		if (err)
			return err;
		memmove(&set->ext[lo + 1], &set->ext[lo],
			(set->nr - lo) * sizeof(*set->ext));
		set->ext[lo] = (struct prepage_extent){ start, nr };
		set->nr++;
		return 0;
	}
	start = min(start, set->ext[lo].start);
	end = max(end, extent_end(&set->ext[hi - 1]));
	set->ext[lo] = (struct prepage_extent){ start, end - start };
	memmove(&set->ext[lo + 1], &set->ext[hi],
		(set->nr - hi) * sizeof(*set->ext));
	set->nr -= hi - lo - 1;
	return 0;
}

/**
 * prepage_extents_add() - add a run of pages to a set
 * @set:	the set
 * @start:	index of the first page
 * @nr:		number of pages
 *
 * Extents that overlap or touch the new run are merged with it.
 *
 * Return: 0, -EINVAL for an empty or wrapping run, or -ENOMEM (the set
 * is unchanged then).
 */
int prepage_extents_add(struct prepage_extents *set, pgoff_t start, pgoff_t nr)
{
	return __extents_add(set, start, nr, true);
}

/**
 * prepage_extents_add_reserved() - add a run of pages without allocating
 * @set:	the set, with room made by prepage_extents_reserve()
 * @start:	index of the first page
 * @nr:		number of pages
 *
 * For callers that must not allocate: as prepage_extents_add(), but
 * -ENOSPC instead of growing the set.
 *
 * Return: 0, -EINVAL for an empty or wrapping run, or -ENOSPC (the set
 * is unchanged then).
 */
int prepage_extents_add_reserved(struct prepage_extents *set, pgoff_t start,
				 pgoff_t nr)
{
	return __extents_add(set, start, nr, false);
}

/**
 * prepage_extents_remove() - remove a run of pages from a set
 * @set:	the set
 * @start:	index of the first page
 * @nr:		number of pages
 *
 * Extents are trimmed, dropped, or split in two around the run.
 *
 * Return: 0, -EINVAL for an empty or wrapping run, or -ENOMEM when an
 * extent had to be split and there was no room (the set is unchanged
 * then).
 */
int prepage_extents_remove(struct prepage_extents *set, pgoff_t start,
			   pgoff_t nr)
{
	pgoff_t end = start + nr;
	unsigned int i, lo, kept;

	if (!nr || end < start)
		return -EINVAL;
	lo = extents_search(set, start, false);
	if (lo == set->nr || set->ext[lo].start >= end)
		return 0;
	if (set->ext[lo].start < start && extent_end(&set->ext[lo]) > end) {
		struct prepage_extent *e;
		int err = prepage_extents_reserve(set, set->nr + 1);

		if (err)
			return err;
		e = &set->ext[lo];
		memmove(e + 1, e, (set->nr - lo) * sizeof(*e));
		e[1] = (struct prepage_extent){ end, extent_end(e) - end };
		e->nr = start - e->start;
		set->nr++;
		return 0;
	}
	kept = lo;
	for (i = lo; i < set->nr; i++) {
		struct prepage_extent e = set->ext[i];

		if (e.start < end) {
			if (e.start < start) {
				e.nr = start - e.start;
			} else if (extent_end(&e) > end) {
				e.nr = extent_end(&e) - end;
				e.start = end;
			} else {
				continue;	/* wholly removed */
			}
		}
		set->ext[kept++] = e;
	}
	set->nr = kept;
	return 0;
}

/**
 * prepage_extents_contains() - whether a page is in a set
 * @set:	the set
 * @index:	the page
 *
 * Return: true if @index is in @set.
 */
bool prepage_extents_contains(const struct prepage_extents *set, pgoff_t index)
{
	unsigned int i = extents_search(set, index, false);

	return i < set->nr && set->ext[i].start <= index;
}

/**
 * prepage_extents_overlaps() - whether a run of pages meets a set
 * @set:	the set
 * @start:	the first page of the run
 * @nr:		number of pages in the run
 *
 * Return: true if any of the @nr pages from @start is in @set.
 */
bool prepage_extents_overlaps(const struct prepage_extents *set,
			      pgoff_t start, pgoff_t nr)
{
	unsigned int i = extents_search(set, start, false);

	return nr && i < set->nr &&
	       (set->ext[i].start <= start || set->ext[i].start - start < nr);
}

/**
 * prepage_extents_truncate() - remove the pages from an index on
 * @set:	the set
 * @end:	the first page to remove; the pages before it stay
 */
void prepage_extents_truncate(struct prepage_extents *set, pgoff_t end)
{
	unsigned int i = extents_search(set, end, false);

	if (i < set->nr && set->ext[i].start < end) {
		set->ext[i].nr = end - set->ext[i].start;
		i++;
	}
	set->nr = i;
}

/**
 * prepage_extents_pages() - number of pages in a set
 * @set:	the set
 *
 * Return: the number of pages.
 */
unsigned long prepage_extents_pages(const struct prepage_extents *set)
{
	unsigned long pages = 0;
	unsigned int i;

	for (i = 0; i < set->nr; i++)
		pages += set->ext[i].nr;
	return pages;
}

/**
 * prepage_extents_next_io() - next I/O range to cover a set
 * @set:	the set
 * @pos:	cursor; start at 0
 * @gap:	merge extents fewer than @gap pages apart into one range
 * @io:	the range, on return
 *
 * Reading a few pages that are not wanted is cheaper than another I/O,
 * so extents separated by fewer than @gap pages are read as one range.
 *
 * Return: true and the next range in @io, or false when done.
 */
bool prepage_extents_next_io(const struct prepage_extents *set,
			     unsigned int *pos, pgoff_t gap,
			     struct prepage_extent *io)
{
	unsigned int i = *pos;
	pgoff_t end;

	if (i >= set->nr)
		return false;
	*io = set->ext[i];
	end = extent_end(io);
	for (i++; i < set->nr && set->ext[i].start - end < gap; i++)
		end = extent_end(&set->ext[i]);
	io->nr = end - io->start;
	*pos = i;
	return true;
}

/**
 * prepage_extents_copy() - copy a set into an empty one
 * @dst:	the copy, an empty set
 * @src:	the set to copy
 *
 * Return: 0, -ENOMEM (@dst then stays empty), or -EINVAL if @dst is not
 * empty.
 */
int prepage_extents_copy(struct prepage_extents *dst,
			 const struct prepage_extents *src)
{
	int err;

	if (WARN_ON_ONCE(dst->nr))
		return -EINVAL;
	err = prepage_extents_reserve(dst, src->nr);
	if (err)
		return err;
	if (src->nr)
		memcpy(dst->ext, src->ext, array_size(src->nr, sizeof(*dst->ext)));
	dst->nr = src->nr;
	return 0;
}

/**
 * prepage_extents_intersect() - add the pages in two sets to a third
 * @dst:	the set the common pages are added to
 * @a:		a set
 * @b:		another set
 *
 * Return: 0, or -ENOMEM (@dst then holds part of the intersection).
 */
int prepage_extents_intersect(struct prepage_extents *dst,
			      const struct prepage_extents *a,
			      const struct prepage_extents *b)
{
	unsigned int i = 0, j = 0;

	while (i < a->nr && j < b->nr) {
		const struct prepage_extent *x = &a->ext[i], *y = &b->ext[j];
		pgoff_t start = max(x->start, y->start);
		pgoff_t end = min(extent_end(x), extent_end(y));

		if (start < end) {
			int err = prepage_extents_add(dst, start, end - start);

			if (err)
				return err;
		}
		if (extent_end(x) < extent_end(y))
			i++;
		else
			j++;
	}
	return 0;
}

/**
 * prepage_extents_subtract() - remove the pages of one set from another
 * @set:	the set to remove pages from
 * @b:		the pages to remove
 *
 * Return: 0, or -ENOMEM (@set then lacks part of @b only).
 */
int prepage_extents_subtract(struct prepage_extents *set,
			     const struct prepage_extents *b)
{
	unsigned int i;

	for (i = 0; i < b->nr; i++) {
		int err = prepage_extents_remove(set, b->ext[i].start,
						 b->ext[i].nr);

		if (err)
			return err;
	}
	return 0;
}

/**
 * prepage_extents_destroy() - free a set's memory and empty it
 * @set:	the set
 */
void prepage_extents_destroy(struct prepage_extents *set)
{
	kvfree(set->ext);
	*set = (struct prepage_extents){};
}

/**
 * prepage_parse_u64() - parse a number of a table line
 * @s:		the number: decimal, or hexadecimal with a 0x prefix
 * @val:	the number, on return
 *
 * Return: 0 or -EINVAL. Octal, which kstrtou64() would take from a
 * leading 0, is read as decimal: the table format has no octal.
 */
int prepage_parse_u64(const char *s, u64 *val)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return kstrtou64(s + 2, 16, val) ? -EINVAL : 0;
	return kstrtou64(s, 10, val) ? -EINVAL : 0;
}

/**
 * prepage_parse_ranges() - parse byte ranges into a set of pages
 * @s:			"OFFSET:LENGTH[,OFFSET:LENGTH...]"; modified
 * @set:		the set the pages are added to
 * @max_extents:	the most ranges @s may have, and extents @set may end
 *			up with
 *
 * Offsets and lengths are in bytes, decimal or 0x-prefixed hexadecimal,
 * page aligned, with lengths above zero and ranges that end within the
 * largest file size. This is the range format of the table lines written
 * to /proc/<pid>/prepage_table. Ranges are counted whether or not they
 * overlap others, so that the work of a parse is bounded by
 * @max_extents; the parse reschedules and stops on a fatal signal.
 *
 * Return: 0; -EINVAL for a malformed, unaligned, empty or overflowing
 * range; -E2BIG when @s has more than @max_extents ranges; -EINTR;
 * -ENOMEM. On error @set holds what was added before it: the caller
 * discards it.
 */
int prepage_parse_ranges(char *s, struct prepage_extents *set,
			 unsigned int max_extents)
{
	unsigned int ranges = 0;
	char *range;

	while ((range = strsep(&s, ","))) {
		char *len = strchr(range, ':');
		u64 off, bytes, end;
		int err;

		if (++ranges > max_extents)
			return -E2BIG;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
		if (!len)
			return -EINVAL;
		*len++ = '\0';
		if (prepage_parse_u64(range, &off) ||
		    prepage_parse_u64(len, &bytes))
			return -EINVAL;
		if (!bytes || !PAGE_ALIGNED(off) || !PAGE_ALIGNED(bytes) ||
		    check_add_overflow(off, bytes, &end) ||
		    end > MAX_LFS_FILESIZE)
			return -EINVAL;
		err = prepage_extents_add(set, off >> PAGE_SHIFT,
					  bytes >> PAGE_SHIFT);
		if (err)
			return err;
	}
	return 0;
}

/**
 * prepage_permille() - a ratio in thousandths
 * @part:	numerator, such as hits
 * @whole:	denominator, such as pages prepaged
 *
 * Return: @part * 1000 / @whole rounded down, or 0 when @whole is 0.
 */
unsigned int prepage_permille(u64 part, u64 whole)
{
	if (!whole)
		return 0;
	if (part > whole)
		part = whole;
	/*
	 * Not mul_u64_u64_div_u64(): x86's version lets @whole share %rax
	 * with @part when the compiler knows they are equal, and mulq
	 * clobbers it. Counters never get this large; stay exact anyway.
	 */
	while (whole > U64_MAX / 1000) {
		part >>= 1;
		whole >>= 1;
	}
	return div64_u64(part * 1000, whole);
}

#include "tests/extents-kunit.h"
