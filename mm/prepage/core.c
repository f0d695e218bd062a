// SPDX-License-Identifier: GPL-2.0
/*
 * prepage core: per address space state, the switch window, and the page
 * extent sets the file and anonymous tables are made of.
 *
 * The state of an address space lives in a hash keyed by its mm, as KSM
 * and khugepaged keep theirs, so that no field is added to mm_struct.
 */

#define pr_fmt(fmt) "prepage: " fmt

#include <linux/hashtable.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/prepage.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "internal.h"

/*
 * Set while prepage is enabled. Every hook tests it first; while it is
 * clear no address space has prepage state.
 */
DEFINE_STATIC_KEY_FALSE(prepage_key);

#define PREPAGE_HASH_BITS 8

/*
 * prepage_slots_lock protects insertion into and removal from
 * prepage_slots, and prepage_on. Lookups walk the hash under RCU.
 */
static DEFINE_HASHTABLE(prepage_slots, PREPAGE_HASH_BITS);
static DEFINE_SPINLOCK(prepage_slots_lock);
static bool prepage_on;
/* Serializes prepage_enable() and prepage_disable(). */
static DEFINE_MUTEX(prepage_admin_lock);
static struct kmem_cache *prepage_mm_cache;

/* ---- extent sets ------------------------------------------------------ */

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

static int extents_reserve(struct prepage_extents *set, unsigned int nr)
{
	struct prepage_extent *ext;
	unsigned int cap;

	if (nr <= set->cap)
		return 0;
	cap = max3(nr, 2 * set->cap, 4U);
	ext = krealloc_array(set->ext, cap, sizeof(*ext), GFP_KERNEL);
	if (!ext)
		return -ENOMEM;
	set->ext = ext;
	set->cap = cap;
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
	pgoff_t end = start + nr;
	unsigned int lo, hi;

	if (!nr || end < start)
		return -EINVAL;
	lo = extents_search(set, start, true);
	hi = lo;
	while (hi < set->nr && set->ext[hi].start <= end)
		hi++;
	if (lo == hi) {
		int err = extents_reserve(set, set->nr + 1);

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
		int err = extents_reserve(set, set->nr + 1);

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
 * prepage_extents_destroy() - free a set's memory and empty it
 * @set:	the set
 */
void prepage_extents_destroy(struct prepage_extents *set)
{
	kfree(set->ext);
	*set = (struct prepage_extents){};
}

/**
 * prepage_parse_ranges() - parse byte ranges into a set of pages
 * @s:			"OFFSET:LENGTH[,OFFSET:LENGTH...]"; modified
 * @set:		the set the pages are added to
 * @max_extents:	the most extents @set may end up with
 *
 * Offsets and lengths are in bytes, decimal or 0x-prefixed hexadecimal,
 * page aligned, with lengths above zero and ranges that end within the
 * largest file size. This is the range format of the table lines written
 * to /proc/<pid>/prepage_table.
 *
 * Return: 0; -EINVAL for a malformed, unaligned, empty or overflowing
 * range; -E2BIG when @set would exceed @max_extents; -ENOMEM. On error
 * @set holds what was added before it: the caller discards it.
 */
int prepage_parse_ranges(char *s, struct prepage_extents *set,
			 unsigned int max_extents)
{
	char *range;

	while ((range = strsep(&s, ","))) {
		char *len = strchr(range, ':');
		u64 off, bytes, end;
		int err;

		if (!len)
			return -EINVAL;
		*len++ = '\0';
		if (kstrtou64(range, 0, &off) || kstrtou64(len, 0, &bytes))
			return -EINVAL;
		if (!bytes || !PAGE_ALIGNED(off) || !PAGE_ALIGNED(bytes) ||
		    check_add_overflow(off, bytes, &end) ||
		    end > MAX_LFS_FILESIZE)
			return -EINVAL;
		err = prepage_extents_add(set, off >> PAGE_SHIFT,
					  bytes >> PAGE_SHIFT);
		if (err)
			return err;
		if (set->nr > max_extents)
			return -E2BIG;
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

/* ---- per address space state ---------------------------------------- */

static struct prepage_mm *prepage_mm_lookup(struct mm_struct *mm)
{
	struct mm_slot *slot;

	hash_for_each_possible_rcu(prepage_slots, slot, hash, (unsigned long)mm)
		if (slot->mm == mm)
			return container_of(slot, struct prepage_mm, slot);
	return NULL;
}

static void prepage_mm_free(struct kref *kref)
{
	struct prepage_mm *pm = container_of(kref, struct prepage_mm, kref);

	kfree_rcu(pm, rcu);
}

/**
 * prepage_mm_put() - drop a reference taken by prepage_mm_get()
 * @pm:	the prepage state
 */
void prepage_mm_put(struct prepage_mm *pm)
{
	kref_put(&pm->kref, prepage_mm_free);
}

/**
 * prepage_mm_get() - find, or create, the prepage state of an address space
 * @mm:		the address space; the caller holds an mm_users reference
 *		or runs in a task of @mm
 * @create:	create the state if there is none
 *
 * Return: the state with a reference the caller drops with
 * prepage_mm_put(); NULL if there is none and @create is false;
 * ERR_PTR(-EPERM) if prepage is disabled; ERR_PTR(-ENOMEM).
 */
struct prepage_mm *prepage_mm_get(struct mm_struct *mm, bool create)
{
	struct prepage_mm *pm, *new;

	rcu_read_lock();
	pm = prepage_mm_lookup(mm);
	if (pm && !kref_get_unless_zero(&pm->kref))
		pm = NULL;
	rcu_read_unlock();
	if (pm || !create)
		return pm;

	new = kmem_cache_zalloc(prepage_mm_cache, GFP_KERNEL);
	if (!new)
		return ERR_PTR(-ENOMEM);
	kref_init(&new->kref);		/* the hash's reference */
	kref_get(&new->kref);		/* the caller's */
	mutex_init(&new->lock);
	new->state = PREPAGE_IDLE;

	spin_lock(&prepage_slots_lock);
	pm = prepage_mm_lookup(mm);	/* lost a race with another creator? */
	if (pm) {
		kref_get(&pm->kref);	/* hashed entries hold the hash's ref */
	} else if (!prepage_on) {
		pm = ERR_PTR(-EPERM);
	} else {
		new->slot.mm = mm;
		hash_add_rcu(prepage_slots, &new->slot.hash, (unsigned long)mm);
		pm = new;
		new = NULL;
	}
	spin_unlock(&prepage_slots_lock);
	if (new)
		kmem_cache_free(prepage_mm_cache, new);
	return pm;
}

/**
 * __prepage_exit_mm() - release the prepage state of an exiting mm
 * @mm:	the address space; its last user is gone
 *
 * See prepage_exit_mm().
 */
void __prepage_exit_mm(struct mm_struct *mm)
{
	struct prepage_mm *pm;

	/*
	 * Most address spaces never had prepage state: check without the
	 * lock first. Nobody can create state for @mm any more, since that
	 * takes a user of @mm and the last one is gone.
	 */
	rcu_read_lock();
	pm = prepage_mm_lookup(mm);
	rcu_read_unlock();
	if (!pm)
		return;

	spin_lock(&prepage_slots_lock);
	pm = prepage_mm_lookup(mm);
	if (pm)
		hash_del_rcu(&pm->slot.hash);
	spin_unlock(&prepage_slots_lock);
	if (pm)
		prepage_mm_put(pm);
}

/* Close @pm's window (caller holds @pm->lock). */
static void __prepage_window_close(struct prepage_mm *pm)
{
	pm->last_window_ns = ktime_get_ns() - pm->window_start;
	pm->state = PREPAGE_IDLE;
}

/**
 * prepage_switch_start() - an app switch to @pm's address space begins
 * @pm:	the prepage state
 *
 * Opens the accounting window. A start while a window is open closes
 * that window first and counts a restart.
 *
 * Return: 0, or -EINTR if interrupted by a fatal signal.
 */
int prepage_switch_start(struct prepage_mm *pm)
{
	if (mutex_lock_killable(&pm->lock))
		return -EINTR;
	if (pm->state == PREPAGE_SWITCHING) {
		__prepage_window_close(pm);
		prepage_stat_add(pm, PREPAGE_STAT_RESTARTS, 1);
	}
	pm->state = PREPAGE_SWITCHING;
	pm->window_start = ktime_get_ns();
	prepage_stat_add(pm, PREPAGE_STAT_SWITCHES, 1);
	mutex_unlock(&pm->lock);
	return 0;
}

/**
 * prepage_switch_end() - the app switch to @pm's address space is done
 * @pm:	the prepage state
 *
 * Closes the accounting window.
 *
 * Return: 0; -EINVAL if no window is open; -EINTR if interrupted by a
 * fatal signal.
 */
int prepage_switch_end(struct prepage_mm *pm)
{
	int ret = 0;

	if (mutex_lock_killable(&pm->lock))
		return -EINTR;
	if (pm->state == PREPAGE_SWITCHING)
		__prepage_window_close(pm);
	else
		ret = -EINVAL;
	mutex_unlock(&pm->lock);
	return ret;
}

/**
 * prepage_enable() - enable prepage
 *
 * Return: 0, or -ENOMEM if prepage could not be initialized at boot.
 */
int prepage_enable(void)
{
	if (!prepage_mm_cache)
		return -ENOMEM;
	mutex_lock(&prepage_admin_lock);
	static_branch_enable(&prepage_key);
	spin_lock(&prepage_slots_lock);
	prepage_on = true;
	spin_unlock(&prepage_slots_lock);
	mutex_unlock(&prepage_admin_lock);
	return 0;
}

/**
 * prepage_disable() - disable prepage and drop all prepage state
 *
 * State still referenced by a user lives until that user drops it, but
 * no longer belongs to its address space.
 */
void prepage_disable(void)
{
	struct prepage_mm *pm, *next;
	struct hlist_node *tmp;
	LIST_HEAD(dead);
	int bkt;

	mutex_lock(&prepage_admin_lock);
	spin_lock(&prepage_slots_lock);
	prepage_on = false;
	hash_for_each_safe(prepage_slots, bkt, tmp, pm, slot.hash) {
		/* Lockless lookups may still walk slot.hash: link mm_node. */
		hash_del_rcu(&pm->slot.hash);
		list_add(&pm->slot.mm_node, &dead);
	}
	spin_unlock(&prepage_slots_lock);
	static_branch_disable(&prepage_key);
	mutex_unlock(&prepage_admin_lock);

	list_for_each_entry_safe(pm, next, &dead, slot.mm_node)
		prepage_mm_put(pm);
}

static int __init prepage_init(void)
{
	prepage_mm_cache = KMEM_CACHE(prepage_mm, 0);
	if (!prepage_mm_cache)
		pr_warn("cannot allocate its cache; prepage stays disabled\n");
	return 0;
}
subsys_initcall(prepage_init);

#include "tests/core-kunit.h"
