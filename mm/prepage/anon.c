// SPDX-License-Identifier: GPL-2.0
/*
 * prepage anonymous tables: pages an app swapped in during its switch
 * windows become candidates; candidates the app accesses again in later
 * windows (the PTE accessed bit, cleared at the end of each window, is
 * found set at the end of the next) are promoted to the target table once
 * used in anon/promote_windows windows, the swap-in's included (three by
 * default: a page used in only two of an app's switches is more likely
 * to be in the part of its footprint that changes than in the part that
 * does not); a target the app did not access in a window goes back to
 * being a candidate, so that only pages used in the last window are
 * prepaged.
 * Every entry has a timeout, in windows, reset when the page is
 * accessed: an entry whose page was not accessed for anon/timeout
 * windows is dropped.
 *
 * At the start of a window the anonymous prepager swaps the target pages
 * that are still swapped out back in and maps them, as a read fault of
 * the app would, so that the app takes no fault at all.
 */

#define pr_fmt(fmt) "prepage-anon: " fmt

#include <linux/kthread.h>
#include <linux/bitmap.h>
#include <linux/freezer.h>
#include <linux/hugetlb.h>
#include <linux/mm.h>
#include <linux/mempolicy.h>
#include <linux/mm_inline.h>
#include <linux/mmu_notifier.h>
#include <linux/page_idle.h>
#include <linux/pagewalk.h>
#include <linux/prepage.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/uaccess.h>
#include <linux/userfaultfd_k.h>
#include <linux/xarray.h>
#include <trace/events/prepage.h>
#include <asm/tlbflush.h>

#include "../internal.h"
#include "../swap.h"
#include "extents.h"
#include "internal.h"
#include "workers.h"

/**
 * struct prepage_anon_table - the anonymous tables of an address space
 * @pages:		virtual page number -> xa_mk_value() of the entry: bit 0
 *			set for a target page (clear: a candidate), bits 1-3
 *			the windows a candidate's page was used in, the
 *			windows left before the entry times out above them
 * @nr_candidates:	candidate entries
 * @nr_targets:		target entries
 * @nr_chunks:		XArray chunks (XA_CHUNK_SIZE pages) with an entry
 * @nr_parsed:		pages of the table lines parsed into it, overlaps
 *			counted twice, bounded by anon/max_pages
 */
struct prepage_anon_table {
	struct xarray pages;
	unsigned long nr_candidates;
	unsigned long nr_targets;
	unsigned long nr_chunks;
	unsigned long nr_parsed;
};

/**
 * struct prepage_anon_plan - a target page to prepage in this window
 * @vpn:	its virtual page number
 * @prepaged:	the prepager swapped it in and mapped it; written only by
 *		the prepager thread that took it
 */
struct prepage_anon_plan {
	unsigned long vpn;
	bool prepaged;
};

/* What a prepager's fault did with a page (anon_fault_in()). */
enum anon_fault {
	ANON_FAULT_NONE,	/* neither read nor mapped by it */
	ANON_FAULT_MAPPED,	/* mapped, from the swap cache */
	ANON_FAULT_READ,	/* read in and mapped */
	ANON_FAULT_READ_ONLY,	/* read in; mapped by someone else */
	ANON_FAULT_READ_LEFT,	/* read in; left in the swap cache, unmapped */
};

/* Bounds of the anonymous prepager threads and entry timeouts. */
#define PREPAGE_MAX_ANON_WORKERS	8
#define PREPAGE_MAX_ANON_TIMEOUT	255

/**
 * struct prepage_anon_walk - page table state of up to a page table's
 * span of pages, found by a page walk
 * @base:		virtual page number of bit 0
 * @clear_young:	test and clear the accessed bits of present pages
 * @only:		if not NULL, clear (or deactivate) only those of the
 *			pages set here
 * @own:		the bits to clear were set by the prepager's own
 *			faults: clear those of PTEs as the classic LRU's
 *			reclaim does (see anon_walk_pte()), and do not hand
 *			them to the folio
 * @demote:		instead of clearing accessed bits, deactivate the
 *			folios of the pages in @only whose bit is clear
 * @demoted:		pages demoted
 * @present:		pages present
 * @young:		present pages whose accessed bit was cleared
 * @swapped:		pages swapped out
 * @added:		the pages a walk is limited to (its @only): the
 *			window's new candidates, or the unused prepaged
 *			pages, at its end
 * @faulted:		pages the anonymous prepager faulted in
 * @read:		of those, pages it read in itself: not found in the
 *			swap cache, where another fault or readahead put
 *			them
 *
 * The bitmaps have PTRS_PER_PTE bits each, which is not a constant on
 * every architecture, and are allocated by whoever walks, for the walk.
 */
struct prepage_anon_walk {
	unsigned long base;
	bool clear_young;
	const unsigned long *only;
	bool own;
	bool demote;
	unsigned long demoted;
	unsigned long *present;
	unsigned long *young;
	unsigned long *swapped;
	unsigned long *added;
	unsigned long *faulted;
	unsigned long *read;
};

/**
 * struct prepage_anon_work - the work of one anonymous prepager thread
 * @work:	the work
 * @pm:		whose pages it prepages
 */
struct prepage_anon_work {
	struct kthread_work work;
	struct prepage_mm *pm;
};

/**
 * struct prepage_anon_mm - the anonymous side of an address space's state
 * @table:	the anonymous tables, or NULL (the state's lock; read
 *		without it by the first anonymous prepager, which every
 *		writer waits to be done first)
 * @plan:	the target pages of the window, by address: made by its
 *		first anonymous prepager, freed under the state's lock with
 *		the prepagers stopped
 * @plan_nr:	entries in @plan (as @plan)
 * @cursor:	the next entry of @plan a prepager takes
 * @prepaging:	anonymous prepager works queued or running
 * @stop:	tells the anonymous prepagers to stop, and why: 0, or an
 *		&enum prepage_stop_reason of the window closing or the table
 *		being replaced (the state's lock)
 * @work:	the anonymous prepagers' works
 */
struct prepage_anon_mm {
	struct prepage_anon_table *table;
	struct prepage_anon_plan *plan;
	unsigned int plan_nr;
	atomic_t cursor;
	atomic_t prepaging;
	u8 stop;
	struct prepage_anon_work work[PREPAGE_MAX_ANON_WORKERS];
};

/* Prepage and log anonymous pages. Default: true. */
static bool prepage_anon_enabled __read_mostly = true;
/* Windows an anonymous entry survives without its page accessed. Default: 5. */
static unsigned int prepage_anon_timeout __read_mostly = 5;
/*
 * Windows in which a page must have been used, the window of its
 * swap-in included, to be a target. Default: 3.
 */
static unsigned int prepage_anon_promote_windows __read_mostly = 3;
/* Anonymous pages an anonymous prepager takes at a time. Default: 16. */
static unsigned int prepage_batch_pages __read_mostly = 16;
/* Most anonymous table entries of one app. Default: 65536. */
static unsigned int prepage_max_anon_pages __read_mostly = 65536;
/*
 * Back off below this anonymous precision, in permille
 * (prepage_backoff_judge()). Default: 100.
 */
static unsigned int prepage_anon_min_precision_permille __read_mostly = 100;

/* The anonymous side of @pm's state (see prepage_side_make()). */
static struct prepage_anon_mm *anon_mm(struct prepage_mm *pm)
{
	return pm->side[PREPAGE_SIDE_ANON];
}

/*
 * A table entry: the target bit, the windows in which a candidate's page
 * was used (up to ANON_MAX_USES; the window of its swap-in is the first;
 * a target has ANON_MAX_USES), and the windows left before it times out.
 */
#define ANON_TARGET		1UL
#define ANON_USES_SHIFT		1
#define ANON_MAX_USES		7U
#define ANON_TIMEOUT_SHIFT	4
/* The uses: a mask of bits between the target bit and the timeout. */
static_assert(((ANON_MAX_USES + 1) & ANON_MAX_USES) == 0);
static_assert((ANON_MAX_USES << ANON_USES_SHIFT) < (1U << ANON_TIMEOUT_SHIFT));

static unsigned long anon_entry_uses(bool target, unsigned int uses,
				     unsigned int timeout)
{
	return (target ? ANON_TARGET : 0) |
	       ((unsigned long)min(uses, ANON_MAX_USES) << ANON_USES_SHIFT) |
	       ((unsigned long)timeout << ANON_TIMEOUT_SHIFT);
}

/* A new entry: a candidate used once (swapped in), or a target. */
static unsigned long anon_entry(bool target, unsigned int timeout)
{
	return anon_entry_uses(target, target ? ANON_MAX_USES : 1, timeout);
}

static bool anon_is_target(void *entry)
{
	return xa_to_value(entry) & ANON_TARGET;
}

static unsigned int anon_uses_of(void *entry)
{
	return (xa_to_value(entry) >> ANON_USES_SHIFT) & ANON_MAX_USES;
}

static unsigned int anon_timeout_of(void *entry)
{
	return xa_to_value(entry) >> ANON_TIMEOUT_SHIFT;
}

/*
 * What the entry @entry of a table page becomes at the end of a window
 * in which its page was used (@young) or not: 0 if it times out. A used
 * page starts over with @timeout windows, and is a target once it was
 * used in @promote windows. A target that was not used goes back to
 * being a candidate, one window of use from being a target again: a page
 * that happened to be used in enough windows is not prepaged in every
 * window until it times out.
 */
static unsigned long anon_entry_next(void *entry, bool young,
				     unsigned int timeout, unsigned int promote)
{
	unsigned int uses = anon_uses_of(entry);
	unsigned int left = anon_timeout_of(entry);

	if (young) {
		/* A target's entry stays the same while it is used. */
		if (anon_is_target(entry) || uses + 1 >= promote)
			return anon_entry(true, timeout);
		return anon_entry_uses(false, uses + 1, timeout);
	}
	if (left <= 1)
		return 0;
	if (anon_is_target(entry))
		uses = promote - 1;
	return anon_entry_uses(false, uses, left - 1);
}

/* An empty anonymous table, or NULL. */
static struct prepage_anon_table *anon_table_new(void)
{
	struct prepage_anon_table *t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);

	/* The XArray's nodes are charged like the rest of the table. */
	if (t)
		xa_init_flags(&t->pages, XA_FLAGS_ACCOUNT);
	return t;
}

/* Free the anonymous table @t, or nothing if NULL. */
static void anon_table_free(struct prepage_anon_table *t)
{
	if (!t)
		return;
	xa_destroy(&t->pages);
	kfree(t);
}

/*
 * Whether any page of the XArray chunk (XA_CHUNK_SIZE pages) of @vpn has
 * an entry. A table's memory is mostly one node per used chunk, whatever
 * the number of entries in it: tables are bounded in chunks as well.
 */
static bool anon_chunk_used(struct prepage_anon_table *t, unsigned long vpn)
{
	unsigned long first = round_down(vpn, XA_CHUNK_SIZE);

	return xa_find(&t->pages, &first, first + XA_CHUNK_SIZE - 1,
		       XA_PRESENT);
}

/*
 * The most chunks a table may use: entries a quarter as dense as they
 * can be. Sparse tables cost memory out of proportion to their entries.
 */
static unsigned long anon_max_chunks(void)
{
	return max(4UL * READ_ONCE(prepage_max_anon_pages) / XA_CHUNK_SIZE,
		   1UL);
}

/*
 * Make @val the entry of page @vpn. Return: 0; -ENOSPC past
 * anon/max_pages entries or past the chunks they may use; -ENOMEM.
 */
static int anon_table_set_entry(struct prepage_anon_table *t,
				unsigned long vpn, unsigned long val)
{
	void *old = xa_load(&t->pages, vpn);
	bool target = val & ANON_TARGET;
	bool new_chunk = false;
	int err;

	/* Most entries of a table in use stay as they are at a window's end. */
	if (old && xa_to_value(old) == val)
		return 0;
	if (!old) {
		if (t->nr_candidates + t->nr_targets >=
		    READ_ONCE(prepage_max_anon_pages))
			return -ENOSPC;
		new_chunk = !anon_chunk_used(t, vpn);
		if (new_chunk && t->nr_chunks >= anon_max_chunks())
			return -ENOSPC;
	}
	err = xa_err(xa_store(&t->pages, vpn, xa_mk_value(val),
			      GFP_KERNEL_ACCOUNT));
	if (err)
		return err;
	t->nr_chunks += new_chunk;
	if (old) {
		if (anon_is_target(old))
			t->nr_targets--;
		else
			t->nr_candidates--;
	}
	if (target)
		t->nr_targets++;
	else
		t->nr_candidates++;
	return 0;
}

/* Add or change the entry of page @vpn as a new one (anon_entry()). */
static int anon_table_set(struct prepage_anon_table *t, unsigned long vpn,
			  bool target, unsigned int timeout)
{
	return anon_table_set_entry(t, vpn, anon_entry(target, timeout));
}

static void anon_table_erase(struct prepage_anon_table *t, unsigned long vpn)
{
	void *old = xa_erase(&t->pages, vpn);

	if (!old)
		return;
	if (!anon_chunk_used(t, vpn))
		t->nr_chunks--;
	if (anon_is_target(old))
		t->nr_targets--;
	else
		t->nr_candidates--;
}

/* ---- page table state of table pages ------------------------------------ */

/* Allocate the bitmaps of @w. Return: 0 or -ENOMEM. */
static int anon_walk_alloc(struct prepage_anon_walk *w)
{
	unsigned long longs = BITS_TO_LONGS(PTRS_PER_PTE);
	unsigned long *maps;

	*w = (struct prepage_anon_walk){};
	maps = kmalloc_array(6 * longs, sizeof(long), GFP_KERNEL_ACCOUNT);
	if (!maps)
		return -ENOMEM;
	w->present = maps;
	w->young = maps + longs;
	w->swapped = maps + 2 * longs;
	w->added = maps + 3 * longs;
	w->faulted = maps + 4 * longs;
	w->read = maps + 5 * longs;
	return 0;
}

static void anon_walk_free(struct prepage_anon_walk *w)
{
	kfree(w->present);
	w->present = NULL;
}

/*
 * The access of an accessed bit the engine cleared, kept in the folio for
 * reclaim. With the idle page flags (CONFIG_PAGE_IDLE_FLAG), PG_young,
 * which reclaim counts as one accessed bit, as it does for page_idle.
 * Without them (Android's GKI has none, and prepage does not add page
 * flags to a frozen KMI): a folio on an LRU list is activated, which
 * keeps it from the next reclaim as the bit would have (reclaim takes a
 * mapped anonymous folio with PG_referenced alone); one in a per-CPU
 * batch is marked accessed.
 */
static void anon_folio_set_used(struct folio *folio)
{
	if (IS_ENABLED(CONFIG_PAGE_IDLE_FLAG))
		folio_set_young(folio);
	else if (folio_test_lru(folio))
		folio_activate(folio);
	else
		folio_mark_accessed(folio);
}

/*
 * An accessed bit the engine clears for its own bookkeeping is handed on
 * to the folio, so that whoever else reads accessed bits still sees the
 * access. The folio is no longer idle, as page_idle hands on the bits it
 * clears (idle page tracking). Reclaim gets the access as it would have
 * used the bit, once: the classic LRU reads it from the folio when it
 * tests the references of a folio it would reclaim
 * (anon_folio_set_used()); MGLRU's aging finds accesses in the page
 * tables, and the folio gets what the aging does with a set bit, a move to
 * the youngest generation (the folio flag as well would count the access
 * again when the folio reaches the oldest generation; the flag alone, for
 * a folio not on an LRU list). Not when the access was the prepager's own
 * fault: a page brought in speculatively must not look used.
 */
static void anon_walk_transfer(struct prepage_anon_walk *w,
			       struct folio *folio)
{
	if (!folio || w->own)
		return;
	folio_clear_idle(folio);
	if (lru_gen_enabled() && folio_test_lru(folio))
		folio_activate(folio);
	else
		anon_folio_set_used(folio);
}

/* Whether the folio keeps an access anon_folio_set_used() handed on. */
static bool anon_folio_used(struct folio *folio)
{
	return IS_ENABLED(CONFIG_PAGE_IDLE_FLAG) ? folio_test_young(folio) :
						    folio_test_referenced(folio);
}

/*
 * Deactivate the folio of page @i, mapped by @ptent, if the page is one
 * of @w->only and its accessed bit is still clear, as MADV_COLD does: it
 * loses the protection its fault gave it (the active list; with MGLRU,
 * the youngest generation for the next one). anon_folio_used() is true
 * only for the app's own accesses (the engine's faults never make it
 * so). Left where they are: a large folio, whose other pages may be in
 * use, and a folio other processes may map (KSM, or shared since a
 * fork). Called with the page table lock held.
 */
static void anon_walk_demote(struct prepage_anon_walk *w, unsigned long i,
			     struct folio *folio, pte_t ptent)
{
	if (!test_bit(i, w->only) || pte_young(ptent) || !folio ||
	    !folio_test_anon(folio) || folio_test_large(folio) ||
	    folio_test_ksm(folio) || folio_likely_mapped_shared(folio) ||
	    anon_folio_used(folio))
		return;
	/* What folio_deactivate() moves: count only those. */
	if (!folio_test_lru(folio) || folio_test_unevictable(folio) ||
	    !(folio_test_active(folio) || lru_gen_enabled()))
		return;
	folio_deactivate(folio);
	w->demoted++;
}

/* A PMD-mapped THP counts for all its pages. Called with its lock held. */
static void anon_walk_huge(struct prepage_anon_walk *w, pmd_t *pmd,
			   unsigned long addr, unsigned long next,
			   struct mm_walk *walk)
{
	unsigned long i = (addr >> PAGE_SHIFT) - w->base;
	unsigned long n = (next - addr) >> PAGE_SHIFT;
	unsigned long haddr = addr & PMD_MASK;
	pmd_t pmdval = pmdp_get(pmd);

	if (!pmd_present(pmdval))
		return;		/* being migrated: neither present nor swapped */
	bitmap_set(w->present, i, n);
	if (w->demote || !w->clear_young ||
	    (w->only && find_next_bit(w->only, i + n, i) >= i + n))
		return;
	/*
	 * Not flushed, even for the prepager's own bits: on x86 a PMD's
	 * flush is an IPI (see anon_walk_pte()), and its own fault never
	 * maps a PMD; a THP there was collapsed since its first walk.
	 */
	if (pmdp_clear_young_notify(walk->vma, haddr, pmd)) {
		struct folio *folio;

		bitmap_set(w->young, i, n);
		/* Not the huge zero folio. */
		folio = vm_normal_folio_pmd(walk->vma, haddr, pmdval);
		anon_walk_transfer(w, folio);
	}
}

/* A PMD that maps a THP, or a THP being migrated: no page table below. */
static bool anon_pmd_leaf(pmd_t pmdval)
{
	return pmd_trans_huge(pmdval) ||
	       (!pmd_none(pmdval) && !pmd_present(pmdval));
}

/*
 * A leaf PMD is handled here, read again under its lock as
 * pmd_trans_huge_lock() does, and never walked below: walk_page_range()
 * would split it. A PMD that points to a page table goes on to the PTE
 * level, and stays a page table: that would take a collapse, which needs
 * the mmap lock held for writing, and the walk holds it for reading.
 */
static int anon_walk_pmd(pmd_t *pmd, unsigned long addr, unsigned long next,
			 struct mm_walk *walk)
{
	struct prepage_anon_walk *w = walk->private;
	spinlock_t *ptl;	/* the page table lock */

	/* Without THP no PMD maps a page (and the helpers are BUILD_BUG()s). */
	if (!IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE) ||
	    !anon_pmd_leaf(pmdp_get_lockless(pmd)))
		return 0;
	ptl = pmd_lock(walk->mm, pmd);
	if (anon_pmd_leaf(pmdp_get(pmd))) {
		anon_walk_huge(w, pmd, addr, next, walk);
		walk->action = ACTION_CONTINUE;
	}
	spin_unlock(ptl);
	return 0;
}

/* Called with the page table lock held. */
static int anon_walk_pte(pte_t *pte, unsigned long addr, unsigned long next,
			 struct mm_walk *walk)
{
	struct prepage_anon_walk *w = walk->private;
	unsigned long i = (addr >> PAGE_SHIFT) - w->base;
	pte_t ptent = ptep_get(pte);

	if (is_swap_pte(ptent)) {
		if (!non_swap_entry(pte_to_swp_entry(ptent)))
			__set_bit(i, w->swapped);
		return 0;
	}
	if (!pte_present(ptent))
		return 0;
	__set_bit(i, w->present);
	if (w->demote) {
		anon_walk_demote(w, i, vm_normal_folio(walk->vma, addr, ptent),
				 ptent);
		return 0;
	}
	if (!w->clear_young || (w->only && !test_bit(i, w->only)))
		return 0;
	/*
	 * The pages the prepager just faulted in may be in a TLB already (a
	 * speculative fill, or an access of the app), which would hide the
	 * app's next accesses: their bits are cleared as the classic LRU's
	 * reclaim clears them (folio_referenced_one()), with the flush each
	 * architecture wants there: on arm64 a TLB invalidation that is
	 * not waited for; on x86 none, where a flush is an IPI to the CPUs
	 * running the app in the middle of its switch. On x86, then, a
	 * page the app touched between the fault and this walk can miss
	 * its hit, and be demoted at the window's end, until its TLB entry
	 * goes.
	 */
	if (w->own ? ptep_clear_flush_young_notify(walk->vma, addr, pte) :
		     ptep_clear_young_notify(walk->vma, addr, pte)) {
		__set_bit(i, w->young);
		anon_walk_transfer(w, vm_normal_folio(walk->vma, addr, ptent));
	}
	return 0;
}

static const struct mm_walk_ops anon_walk_ops = {
	.pmd_entry	= anon_walk_pmd,
	.pte_entry	= anon_walk_pte,
	.walk_lock	= PGWALK_RDLOCK,
};

/*
 * Walk pages [@first, @last] of @mm, all within one page table's span;
 * the caller holds the mmap lock.
 */
static void anon_walk_span(struct mm_struct *mm, struct prepage_anon_walk *w,
			   unsigned long first, unsigned long last)
{
	bitmap_zero(w->present, PTRS_PER_PTE);
	bitmap_zero(w->young, PTRS_PER_PTE);
	bitmap_zero(w->swapped, PTRS_PER_PTE);
	walk_page_range(mm, first << PAGE_SHIFT, (last + 1) << PAGE_SHIFT,
			&anon_walk_ops, w);
}

/*
 * Call @fn for every entry of @t with what the page tables say of its
 * page, one page table's span at a time, clearing the accessed bits.
 * @fn may change the entry it is given and those before it. The caller
 * holds @mm's mmap lock, taken with mmap_read_trylock() (the core's
 * settle): nothing here waits for it.
 */
static void anon_table_walk(struct mm_struct *mm, struct prepage_anon_table *t,
			    struct prepage_anon_walk *w,
			    void (*fn)(struct prepage_anon_table *t,
				       unsigned long vpn, void *entry,
				       bool present, bool young, bool swapped,
				       void *arg),
			    void *arg)
{
	unsigned long span = PTRS_PER_PTE, vpn = 0, first, last;
	void *entry;

	mmap_assert_locked(mm);
	w->clear_young = true;
	w->only = NULL;
	w->own = false;
	w->demote = false;
	for (;;) {
		entry = xa_find(&t->pages, &vpn, ULONG_MAX, XA_PRESENT);
		if (!entry)
			break;
		first = vpn;
		w->base = round_down(first, span);
		/* The last entry in this span. */
		last = first;
		xa_for_each_range(&t->pages, vpn, entry, first,
				  w->base + span - 1)
			last = vpn;
		anon_walk_span(mm, w, first, last);
		xa_for_each_range(&t->pages, vpn, entry, first, last) {
			unsigned long i = vpn - w->base;

			fn(t, vpn, entry, test_bit(i, w->present),
			   test_bit(i, w->young), test_bit(i, w->swapped), arg);
		}
		if (last == ULONG_MAX)
			break;
		vpn = last + 1;
		cond_resched();
	}
}

/*
 * Walk the pages of @ext only, one page table's span at a time, in the
 * mode the caller set in @w. If @held, the caller holds @mm's mmap lock;
 * else it is taken for each span with mmap_read_trylock(), and a span
 * whose lock is contended is left as it is (the walks that do not hold
 * it only demote, which is best effort). Return: whether an accessed bit
 * was cleared.
 */
static bool anon_walk_extents(struct mm_struct *mm, struct prepage_anon_walk *w,
			      const struct prepage_extents *ext, bool held)
{
	unsigned long span = PTRS_PER_PTE, vpn, first, last;
	bool cleared = false;
	unsigned int i = 0;

	if (!ext->nr)
		return false;
	w->only = w->added;
	vpn = ext->ext[0].start;
	while (i < ext->nr) {
		w->base = round_down(vpn, span);
		first = vpn;
		bitmap_zero(w->added, PTRS_PER_PTE);
		/* The pages of @ext in this span. */
		do {
			unsigned long end = min_t(unsigned long,
						  ext->ext[i].start + ext->ext[i].nr,
						  w->base + span);

			bitmap_set(w->added, vpn - w->base, end - vpn);
			last = end - 1;
			vpn = end;
			if (vpn == ext->ext[i].start + ext->ext[i].nr &&
			    ++i < ext->nr)
				vpn = ext->ext[i].start;
		} while (i < ext->nr && vpn < w->base + span);
		if (held) {
			anon_walk_span(mm, w, first, last);
		} else if (mmap_read_trylock(mm)) {
			anon_walk_span(mm, w, first, last);
			mmap_read_unlock(mm);
		} else {
			cond_resched();
			continue;
		}
		cleared |= !bitmap_empty(w->young, PTRS_PER_PTE);
		cond_resched();
	}
	return cleared;
}

/*
 * Clear the accessed bits of the pages in @added, handing them to the
 * folios; the caller holds @mm's mmap lock. Return: whether one was set.
 */
static bool anon_clear_added(struct mm_struct *mm, struct prepage_anon_walk *w,
			     const struct prepage_extents *added)
{
	w->clear_young = true;
	w->own = false;
	w->demote = false;
	return anon_walk_extents(mm, w, added, true);
}

/*
 * Deactivate the prepaged pages in @unused whose accessed bits are still
 * clear, as MADV_COLD does: speculation the app did not use keeps no
 * protection from its fault. The caller drained every CPU's LRU batches
 * before it took the state's lock (the core's settle), and holds @mm's
 * mmap lock if @held (see anon_walk_extents()). Return: the number of
 * pages deactivated.
 */
static unsigned long anon_demote_unused(struct mm_struct *mm,
					struct prepage_anon_walk *w,
					const struct prepage_extents *unused,
					bool held)
{
	if (!unused->nr)
		return 0;
	w->clear_young = false;
	w->own = false;
	w->demote = true;
	w->demoted = 0;
	anon_walk_extents(mm, w, unused, held);
	w->demote = false;
	w->only = NULL;
	/*
	 * Where they go now, not when this CPU's batch fills: the core
	 * drains the other CPUs' once it dropped the state's lock.
	 */
	if (w->demoted)
		lru_add_drain();
	return w->demoted;
}

/* ---- the switch window ------------------------------------------------- */

/**
 * prepage_anon_window_discard() - drop the plan of a window not ended
 * @pm:	the prepage state; its lock is held, its prepagers stopped, and
 *	the caller holds a user of its address space (not its mmap lock)
 *
 * When a window is reset or its table replaced, the pages prepaged for
 * it that the app has not accessed are deactivated, as at the end of a
 * window; nothing is counted or learned. (A restarted window keeps its
 * plan.) After a window ended there is no plan, and nothing here walks
 * the table or the page tables: the first prepager of a window plans it,
 * and the accessed bits the end of the window tests were cleared when
 * the last one was settled (a table loaded since keeps the bits its pages
 * had), so that the caller's path stays short whatever the size of the
 * table.
 */
static void prepage_anon_window_discard(struct prepage_mm *pm)
{
	struct prepage_extents unused = {};
	struct prepage_anon_walk w;
	unsigned int i;

	lockdep_assert_held(&pm->lock);

	for (i = 0; i < anon_mm(pm)->plan_nr; i++)
		if (anon_mm(pm)->plan[i].prepaged &&
		    prepage_extents_add(&unused, anon_mm(pm)->plan[i].vpn, 1))
			break;	/* -ENOMEM: the rest stay where they are */
	/* Best effort: never waiting for the app's mmap lock. */
	if (unused.nr && !anon_walk_alloc(&w)) {
		prepage_stat_add(pm, PREPAGE_STAT_ANON_DEMOTED,
				 anon_demote_unused(pm->slot.mm, &w, &unused,
						    false));
		anon_walk_free(&w);
	}
	prepage_extents_destroy(&unused);
	kvfree(anon_mm(pm)->plan);
	anon_mm(pm)->plan = NULL;
	anon_mm(pm)->plan_nr = 0;
}

struct anon_end {
	struct prepage_mm *pm;
	struct prepage_anon_plan *plan;	/* sorted by vpn */
	unsigned int plan_nr, plan_pos;
	unsigned int timeout, promote;
	const struct prepage_extents *missed;	/* the app's swap-in reads */
	const struct prepage_extents *cached;	/* its swap-cache swap-ins */
	struct prepage_extents *unused;	/* prepaged, present, not used */
	bool cleared;			/* an accessed bit was cleared */
	unsigned long refetched;	/* prepaged, out, swapped in by the app */
};

/* The plan entry of page @vpn, or NULL (calls come in vpn order). */
static struct prepage_anon_plan *anon_end_planned(struct anon_end *e,
						  unsigned long vpn)
{
	while (e->plan_pos < e->plan_nr && e->plan[e->plan_pos].vpn < vpn)
		e->plan_pos++;
	if (e->plan_pos < e->plan_nr && e->plan[e->plan_pos].vpn == vpn)
		return &e->plan[e->plan_pos];
	return NULL;
}

static void anon_end_one(struct prepage_anon_table *t, unsigned long vpn,
			 void *entry, bool present, bool young, bool swapped,
			 void *arg)
{
	struct anon_end *e = arg;
	struct prepage_anon_plan *planned = anon_end_planned(e, vpn);
	/*
	 * The app may have mapped a prepager's read from the swap cache
	 * before the prepager did: used, even though the prepager's walk
	 * then cleared the accessed bit it set.
	 */
	bool used = young || prepage_extents_contains(e->cached, vpn);
	unsigned long next = anon_entry_next(entry, used, e->timeout,
					     e->promote);

	e->cleared |= young;
	/* Planned, and the app swapped it in first: the prepager was behind. */
	if (planned && !planned->prepaged &&
	    prepage_extents_contains(e->missed, vpn))
		prepage_stat_add(e->pm, PREPAGE_STAT_ANON_LATE, 1);
	if (planned && planned->prepaged) {
		if (used)
			prepage_stat_add(e->pm, PREPAGE_STAT_ANON_HIT, 1);
		/* Swapped out again: still out, or swapped in by the app. */
		if (swapped || prepage_extents_contains(e->missed, vpn)) {
			prepage_stat_add(e->pm, PREPAGE_STAT_ANON_EVICTED, 1);
			/* The app's own swap-in set the accessed bit. */
			if (young)
				e->refetched++;
		} else if (present && !used)
			/* On -ENOMEM the page is not demoted. */
			prepage_extents_add(e->unused, vpn, 1);
	}
	if (!next) {
		trace_prepage_anon_evict(e->pm->slot.mm, e->pm->pid,
					 vpn << PAGE_SHIFT);
		anon_table_erase(t, vpn);
		return;
	}
	if ((next & ANON_TARGET) && !anon_is_target(entry))
		trace_prepage_anon_promote(e->pm->slot.mm, e->pm->pid,
					   vpn << PAGE_SHIFT);
	else if (!(next & ANON_TARGET) && anon_is_target(entry))
		trace_prepage_anon_demote(e->pm->slot.mm, e->pm->pid,
					  vpn << PAGE_SHIFT);
	anon_table_set_entry(t, vpn, next);
}

/*
 * Add the pages of @set that are not in @t to it as candidates, and to
 * @added. Return: 0, or -ENOMEM once @t or @added is full.
 */
static int anon_add_candidates(struct prepage_anon_table *t,
			       const struct prepage_extents *set,
			       unsigned int timeout,
			       struct prepage_extents *added)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < set->nr; i++) {
		unsigned long vpn = set->ext[i].start;
		unsigned long end = vpn + set->ext[i].nr;

		for (err = 0; vpn < end && !err; vpn++) {
			if (xa_load(&t->pages, vpn))
				continue;
			err = anon_table_set(t, vpn, false, timeout);
			if (!err && prepage_extents_add(added, vpn, 1)) {
				anon_table_erase(t, vpn);
				err = -ENOMEM;
			}
		}
		/* Full here may leave room in another XArray chunk. */
		if (err == -ENOMEM)
			return err;
	}
	return 0;
}

static const struct prepage_ops prepage_anon_ops;

/**
 * prepage_anon_window_close() - account a closed window and learn from it
 * @pm:		the prepage state; its lock is held, its prepagers stopped,
 *		and the caller holds a user of its address space and its
 *		mmap lock (for reading)
 * @log:	the window's access log
 * @nr:		number of entries in @log
 * @out:	the window's outcome for the anonymous side
 *
 * Counts the window's anonymous misses (pages the app swapped in itself)
 * and hits (prepaged pages whose accessed bit is set), adds the pages the
 * app swapped in as candidates, promotes the candidates used in their
 * anon/promote_windows-th window, demotes the targets that were not
 * accessed and ages them and the candidates, and deactivates the prepaged
 * pages the app did not use, as MADV_COLD does. The accessed bits of all
 * table pages are cleared on the way, for the end of the next window: a
 * page accessed after this one is settled (prepage_window_settle()) counts
 * as used in the next.
 */
static void prepage_anon_window_close(struct prepage_mm *pm,
				      struct prepage_log_entry *log,
				      unsigned int nr,
				      struct prepage_outcome *out)
{
	unsigned int timeout = READ_ONCE(prepage_anon_timeout);
	struct prepage_anon_table *t = anon_mm(pm)->table;
	struct mm_struct *mm = pm->slot.mm;
	struct prepage_extents missed = {}, cached = {}, added = {}, unused = {};
	struct prepage_anon_walk w;
	struct anon_end e = {
		.pm = pm, .plan = anon_mm(pm)->plan, .plan_nr = anon_mm(pm)->plan_nr,
		.timeout = timeout, .missed = &missed, .cached = &cached,
		.unused = &unused,
		.promote = READ_ONCE(prepage_anon_promote_windows),
	};
	unsigned int i;

	lockdep_assert_held(&pm->lock);

	/* On -ENOMEM the window undercounts. */
	for (i = 0; i < nr; i++) {
		if (log[i].kind == PREPAGE_LOG_ANON_SWAPIN)
			prepage_extents_add(&missed, log[i].index, log[i].nr);
		else if (log[i].kind == PREPAGE_LOG_ANON_CACHED)
			prepage_extents_add(&cached, log[i].index, log[i].nr);
	}
	/* Only a swap-in that read its page waited for it. */
	prepage_stat_add(pm, PREPAGE_STAT_ANON_MISS,
			 prepage_extents_pages(&missed));

	if (!t && (missed.nr || cached.nr)) {
		t = anon_table_new();
		anon_mm(pm)->table = t;
	}
	if (t && !anon_walk_alloc(&w)) {
		anon_table_walk(mm, t, &w, anon_end_one, &e);
		/*
		 * What the app swapped in itself, read or found in the swap
		 * cache: new candidates, added after the walk aged the table
		 * and made room, their accessed bits cleared on their own.
		 */
		if (!anon_add_candidates(t, &missed, timeout, &added))
			anon_add_candidates(t, &cached, timeout, &added);
		e.cleared |= anon_clear_added(mm, &w, &added);
		prepage_stat_add(pm, PREPAGE_STAT_ANON_DEMOTED,
				 anon_demote_unused(mm, &w, &unused, true));
		anon_walk_free(&w);
		/* The app's TLB entries must not hide its next accesses. */
		if (e.cleared)
			flush_tlb_mm(mm);
	}
	prepage_extents_destroy(&unused);
	prepage_extents_destroy(&added);
	prepage_extents_destroy(&cached);
	prepage_extents_destroy(&missed);
	kvfree(anon_mm(pm)->plan);
	anon_mm(pm)->plan = NULL;
	anon_mm(pm)->plan_nr = 0;
	out->refetched = e.refetched;
	prepage_window_counts(pm, &prepage_anon_ops, out);
}

static void anon_out_one(struct prepage_anon_table *t, unsigned long vpn,
			 void *entry, bool present, bool young, bool swapped,
			 void *arg)
{
	*(bool *)arg |= young;
}

/**
 * prepage_anon_switch_out() - forget what the app used between windows
 * @pm:	the prepage state; its lock is held, no window is open, no
 *	prepager runs, and the caller holds a user of its address space
 *	and its mmap lock (for reading)
 *
 * Clears the accessed bits of the table pages again, as the end of the
 * last window did, handing them to the folios: what the app accessed
 * since, up to its leaving the foreground, is reclaim's to see, not a use
 * in its next window.
 */
static void prepage_anon_switch_out(struct prepage_mm *pm)
{
	struct prepage_anon_table *t = anon_mm(pm)->table;
	struct prepage_anon_walk w;
	bool cleared = false;

	lockdep_assert_held(&pm->lock);

	if (!t || anon_walk_alloc(&w))
		return;
	anon_table_walk(pm->slot.mm, t, &w, anon_out_one, &cleared);
	anon_walk_free(&w);
	/* Its TLB entries must not hide the app's next accesses. */
	if (cleared)
		flush_tlb_mm(pm->slot.mm);
}

/* ---- the anonymous prepager ---------------------------------------------- */

/*
 * Created by prepage_anon_workers_init() when prepage is enabled, destroyed
 * by prepage_anon_workers_exit() when it is disabled.
 */
static struct kthread_worker *prepage_anon_workers[PREPAGE_MAX_ANON_WORKERS];
static unsigned int prepage_nr_anon_workers;

/**
 * prepage_anon_workers_init() - start the anonymous prepager threads
 *
 * One SCHED_IDLE thread per possible CPU, up to %PREPAGE_MAX_ANON_WORKERS.
 * The first call starts them; later calls do nothing until they are
 * destroyed. Called with the lock that serializes enabling prepage.
 *
 * Return: 0, or the error of creating the first thread.
 */
static int prepage_anon_workers_init(void)
{
	int nr;

	if (prepage_nr_anon_workers)
		return 0;
	nr = prepage_idle_workers_create(prepage_anon_workers,
					 PREPAGE_MAX_ANON_WORKERS,
					 "kprepaged_anon");
	if (nr < 0)
		return nr;
	prepage_nr_anon_workers = nr;
	return 0;
}

/**
 * prepage_anon_workers_exit() - destroy the anonymous prepager threads
 *
 * Called with the lock that serializes enabling prepage, once no address
 * space has prepage state.
 */
static void prepage_anon_workers_exit(void)
{
	prepage_workers_destroy(prepage_anon_workers, prepage_nr_anon_workers);
	prepage_nr_anon_workers = 0;
}

/* Whether the prepager may fault in pages of @vma. */
static bool anon_vma_prepageable(struct vm_area_struct *vma)
{
	/*
	 * MAP_SHARED anonymous memory is shmem: its swapped pages are not
	 * in the page tables, and it is not the app's alone.
	 */
	if (vma->vm_flags & (VM_IO | VM_PFNMAP | VM_MIXEDMAP | VM_HUGETLB |
			     VM_DONTEXPAND | VM_SHARED))
		return false;
	/*
	 * Nor memory the app cannot read (PROT_NONE, execute-only): a
	 * read fault of its own would not map it, nor would GUP.
	 * handle_mm_fault() leaves that check to its callers.
	 */
	if (!(vma->vm_flags & VM_READ))
		return false;
	return !userfaultfd_armed(vma);
}

/*
 * Whether the anonymous prepagers of @pm's window were cut short: told to
 * stop, or their address space is exiting (which closes its window) or
 * being killed (prepage_mm_dying()).
 */
static bool anon_cut_short(struct prepage_mm *pm)
{
	return READ_ONCE(anon_mm(pm)->stop) || prepage_mm_dying(pm->slot.mm);
}

/*
 * How a prepager allocates the pages it swaps in, and charges them: never
 * reclaiming, waking kswapd or invoking the OOM killer (of the system or
 * of the app's memory cgroup), which a fault of the app itself may do.
 * A page there is no free memory for is the app's to fault in.
 */
#define PREPAGE_ANON_GFP \
	((GFP_HIGHUSER_MOVABLE & ~__GFP_RECLAIM) | __GFP_NOWARN | \
	 __GFP_NOMEMALLOC)

#ifdef CONFIG_SWAP
/*
 * The swap entry in the page table entry of @addr in @vma, whose lock (or
 * the mmap lock) the caller holds, which keeps the upper levels of its
 * page tables; false if the entry does not hold one. The page table
 * itself is read as __pte_offset_map() reads it, under RCU (a page table
 * is freed after a grace period) from a snapshot of its PMD; prepage is
 * 64-bit only, so page tables are never in highmem. (Not through
 * pte_offset_map() and pte_unmap(): the RCU read section they open and
 * close is taken out of line, where sparse cannot see it, and the
 * unmap then reads as an unlock without a lock.) The entry is read
 * without the page table lock, as GUP-fast reads it: the caller checks
 * it again once the page is in the swap cache.
 */
static bool anon_swap_entry(struct vm_area_struct *vma, unsigned long addr,
			    swp_entry_t *entry)
{
	pmd_t *pmd = mm_find_pmd(vma->vm_mm, addr), pmdval;
	pte_t pte;

	if (!pmd)
		return false;
	rcu_read_lock();
	pmdval = pmdp_get_lockless(pmd);
	if (!pmd_present(pmdval) || pmd_trans_huge(pmdval) ||
	    pmd_devmap(pmdval) || pmd_bad(pmdval)) {
		rcu_read_unlock();
		return false;
	}
	pte = ptep_get_lockless(pte_offset_kernel(&pmdval, addr));
	rcu_read_unlock();
	if (!is_swap_pte(pte))
		return false;
	*entry = pte_to_swp_entry(pte);
	return !non_swap_entry(*entry);
}

/*
 * Read the page @addr of @vma maps from swap into the swap cache, as
 * MADV_WILLNEED does, but allocated and charged with %PREPAGE_ANON_GFP,
 * and without waiting for a swap-in of the same entry in progress (the
 * app's own). The caller holds @vma's lock (or the mmap lock). Return:
 * the folio, with a reference that keeps it in the swap cache, @new
 * set if this call read it; the page table entry then still names it
 * (the fault that maps it finds it there: it allocates nothing). NULL
 * if the page is not swapped out, was there no memory for it, or is
 * being swapped in; or if the entry changed while this call read it
 * (the app mapped the page, say), @new then still set.
 */
static struct folio *anon_swap_cache_read(struct vm_area_struct *vma,
					  unsigned long addr, bool *new)
{
	swp_entry_t entry, now;
	struct mempolicy *mpol;
	struct folio *folio;
	pgoff_t ilx;

	*new = false;
	if (!anon_swap_entry(vma, addr, &entry))
		return NULL;
	mpol = get_vma_policy(vma, addr, 0, &ilx);
	folio = __read_swap_cache_async(entry, PREPAGE_ANON_GFP, mpol, ilx,
					new, true);
	mpol_cond_put(mpol);
	if (!folio)
		return NULL;
	if (*new)
		swap_read_folio(folio, NULL);
	/*
	 * While the folio is in the swap cache the entry can only be
	 * mapped (its page swapped out again keeps its slot) or zapped.
	 */
	if (!anon_swap_entry(vma, addr, &now) || now.val != entry.val) {
		folio_put(folio);
		return NULL;
	}
	return folio;
}

/*
 * Once @folio, from anon_swap_cache_read(), is mapped: a page the app's
 * own fault swaps in from a synchronous device (zram) keeps no copy in
 * swap (do_swap_page() reads it around the swap cache and frees its
 * slot), and neither does one the prepager read (@new), unless others
 * still map the entry. Left as it is if its lock is taken.
 */
static void anon_swap_cache_done(struct folio *folio, bool new)
{
	if (!new || !folio_test_swapcache(folio) || !folio_trylock(folio))
		return;
	if (folio_test_swapcache(folio) &&
	    /* SWP_SYNCHRONOUS_IO is set at swapon, before any entry. */
	    data_race(swp_swap_info(folio->swap)->flags & SWP_SYNCHRONOUS_IO))
		folio_free_swap(folio);
	folio_unlock(folio);
}
#else
static struct folio *anon_swap_cache_read(struct vm_area_struct *vma,
					  unsigned long addr, bool *new)
{
	*new = false;
	return NULL;
}

static void anon_swap_cache_done(struct folio *folio, bool new)
{
}
#endif

/*
 * Whether the fault that maps @folio, found in the swap cache (read by
 * someone else), at @addr of @vma would copy it (ksm_might_need_to_copy()):
 * a KSM folio, or one that the anon_vma of another process owns, or at
 * another index (a KSM page swapped out loses its KSM flag, and whoever
 * swaps it in first owns the folio). Read under the folio lock, as the
 * fault does; a folio whose lock is taken counts as one that would be
 * copied. Every KSM folio does (without the stable node the fault
 * checks, which KSM keeps to itself): the app's fault maps it.
 */
static bool anon_fault_would_copy(struct folio *folio,
				  struct vm_area_struct *vma,
				  unsigned long addr)
{
	struct anon_vma *anon_vma;
	bool copy;

	if (folio_test_large(folio))
		return false;
	if (!folio_trylock(folio))
		return true;
	anon_vma = folio_anon_vma(folio);
	if (folio_test_ksm(folio))
		copy = true;
	else if (!anon_vma)
		copy = false;
	else
		copy = folio->index != linear_page_index(vma, addr) ||
		       !vma->anon_vma || anon_vma->root != vma->anon_vma->root;
	folio_unlock(folio);
	return copy;
}

#ifdef CONFIG_PER_VMA_LOCK
/* The lock a prepager faults @addr of @mm under: its VMA's. */
static struct vm_area_struct *anon_fault_lock(struct mm_struct *mm,
					      unsigned long addr,
					      unsigned int *flags)
{
	*flags |= FAULT_FLAG_VMA_LOCK;
	return lock_vma_under_rcu(mm, addr);
}

static void anon_fault_unlock(struct vm_area_struct *vma)
{
	vma_end_read(vma);
}
#else
/* Without per-VMA locks: the mmap lock, for one page. */
static struct vm_area_struct *anon_fault_lock(struct mm_struct *mm,
					      unsigned long addr,
					      unsigned int *flags)
{
	struct vm_area_struct *vma;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	if (!vma)
		mmap_read_unlock(mm);
	return vma;
}

static void anon_fault_unlock(struct vm_area_struct *vma)
{
	mmap_read_unlock(vma->vm_mm);
}
#endif

/*
 * Fault in page @addr of @mm as a read fault of the app would, under the
 * lock of its VMA only (the mmap lock without per-VMA locks, for this
 * page alone), which is given up when the VMA is contended: the app then
 * faults the page in itself. The VMA is checked under that lock, so a
 * VMA armed with userfaultfd since it was planned is never faulted. The
 * page is read into the swap cache first (anon_swap_cache_read()), so
 * that the fault only maps it: it allocates nothing that could reclaim
 * or kill. A page found in the swap cache was read by someone else (the
 * app's fault, readahead): mapping it is not prepaging it; one the
 * fault would copy (anon_fault_would_copy()) is left to the app.
 * Return: %ANON_FAULT_READ if this call read the page in and it is mapped
 * now, %ANON_FAULT_MAPPED if it is mapped now but was read by someone
 * else, %ANON_FAULT_READ_ONLY if this call read it and someone else (the
 * app) mapped it first, %ANON_FAULT_READ_LEFT if this call read it and
 * it was left in the swap cache (the fault failed, or retried twice),
 * %ANON_FAULT_NONE if it did neither.
 */
static enum anon_fault anon_fault_in(struct mm_struct *mm, unsigned long addr)
{
	bool retried = false, new, read = false;
	struct vm_area_struct *vma;
	struct folio *folio;
	unsigned int flags;
	vm_fault_t ret;

again:
	flags = FAULT_FLAG_REMOTE | FAULT_FLAG_ALLOW_RETRY | FAULT_FLAG_KILLABLE;
	vma = anon_fault_lock(mm, addr, &flags);
	if (!vma)
		goto none;
	if (!anon_vma_prepageable(vma)) {
		anon_fault_unlock(vma);
		goto none;
	}
	folio = anon_swap_cache_read(vma, addr, &new);
	/* Read by the first try, mapped by the second. */
	read |= new;
	if (!folio) {
		anon_fault_unlock(vma);
		/*
		 * Not swapped out (any more): read by this call, or by the
		 * first try, and mapped by the app's fault since.
		 */
		return read ? ANON_FAULT_READ_ONLY : ANON_FAULT_NONE;
	}
	/*
	 * A folio found in the swap cache that the fault would copy for
	 * this VMA is the app's own fault's to map: the copy allocates, and
	 * may reclaim, at idle priority, under the app's VMA lock.
	 */
	if (!new && anon_fault_would_copy(folio, vma, addr)) {
		folio_put(folio);
		anon_fault_unlock(vma);
		goto none;
	}
	/* No FAULT_FLAG_WRITE: a COW page stays shared, a read-only one so. */
	ret = handle_mm_fault(vma, addr, flags, NULL);
	/*
	 * The lock is gone with these. A retry waited for the page, busy
	 * (read into the swap cache by someone else), without the lock: try
	 * once more, the same way (not FAULT_FLAG_TRIED, which would wait
	 * for the page holding the lock, at idle priority); then leave it.
	 */
	if (ret & (VM_FAULT_RETRY | VM_FAULT_COMPLETED)) {
		folio_put(folio);
		if (!(ret & VM_FAULT_RETRY) || retried)
			goto none;
		retried = true;
		goto again;
	}
	anon_fault_unlock(vma);
	if (!(ret & VM_FAULT_ERROR))
		anon_swap_cache_done(folio, read);
	folio_put(folio);
	if (ret & VM_FAULT_ERROR)
		goto none;
	return read ? ANON_FAULT_READ : ANON_FAULT_MAPPED;
none:
	/* A read of this call's, if any, is in the swap cache, unmapped. */
	return read ? ANON_FAULT_READ_LEFT : ANON_FAULT_NONE;
}

/*
 * Fault in pages [@vpn, @vpn + @nr) of @pm's mm, as far as the window's
 * budget goes; mark those mapped in @w, and those it read in. Only those
 * are taken from the budget.
 */
static void anon_fault_run(struct prepage_mm *pm,
			   struct prepage_anon_walk *w,
			   unsigned long vpn, unsigned int nr)
{
	unsigned long granted = prepage_budget_take(pm, nr), read = 0;

	for (nr = granted; nr && !anon_cut_short(pm); vpn++, nr--) {
		switch (anon_fault_in(pm->slot.mm, vpn << PAGE_SHIFT)) {
		case ANON_FAULT_READ:
			__set_bit(vpn - w->base, w->faulted);
			fallthrough;
		case ANON_FAULT_READ_ONLY:
			/* Its accessed bit is the app's. */
			__set_bit(vpn - w->base, w->read);
			fallthrough;
		case ANON_FAULT_READ_LEFT:
			/* Spent on it: a read, prepaged or not. */
			read++;
			break;
		case ANON_FAULT_MAPPED:
			__set_bit(vpn - w->base, w->faulted);
			break;
		case ANON_FAULT_NONE:
			break;
		}
	}
	prepage_budget_give(pm, granted - read);
}

/*
 * Prepage the plan entries [@i, @end) of @pm, which lie in one page
 * table's span: one walk finds those still swapped out, each run of them
 * is faulted in as a read fault of the app would, and a last walk clears
 * the accessed bits those faults set, so that the end of the window sees
 * only the app's own use. The mmap lock is held for the walks only,
 * never across a swap-in; a span whose lock is contended when the first
 * walk would take it is left to the app, as a contended VMA is.
 * Return: the pages it prepaged.
 */
static unsigned int anon_prepage_span(struct prepage_mm *pm,
				      struct prepage_anon_walk *w,
				      unsigned int i, unsigned int end)
{
	struct prepage_anon_plan *plan = anon_mm(pm)->plan;
	struct mm_struct *mm = pm->slot.mm;
	unsigned long first = plan[i].vpn, last = plan[end - 1].vpn;
	unsigned int k, run, prepaged = 0;

	w->base = round_down(first, PTRS_PER_PTE);
	w->clear_young = false;
	w->only = NULL;
	w->own = false;
	w->demote = false;
	if (!mmap_read_trylock(mm))
		return 0;
	anon_walk_span(mm, w, first, last);
	mmap_read_unlock(mm);
	bitmap_zero(w->faulted, PTRS_PER_PTE);
	bitmap_zero(w->read, PTRS_PER_PTE);

	for (k = i; k < end && !anon_cut_short(pm); k += run) {
		run = 1;
		if (!test_bit(plan[k].vpn - w->base, w->swapped))
			continue;
		/* Consecutive pages still swapped out. */
		while (k + run < end &&
		       plan[k + run].vpn == plan[k].vpn + run &&
		       test_bit(plan[k + run].vpn - w->base, w->swapped))
			run++;
		anon_fault_run(pm, w, plan[k].vpn, run);
	}
	if (!bitmap_empty(w->faulted, PTRS_PER_PTE)) {
		w->clear_young = true;
		w->only = w->faulted;
		w->own = true;
		w->demote = false;
		mmap_read_lock(mm);
		anon_walk_span(mm, w, first, last);
		mmap_read_unlock(mm);
	}
	for (k = i; k < end; k++) {
		unsigned long b = plan[k].vpn - w->base;

		/*
		 * Read by the prepager: mapped by its own fault (and still
		 * there), or read for the app's, which mapped it first.
		 */
		if (!test_bit(b, w->read) ||
		    (test_bit(b, w->faulted) && !test_bit(b, w->present)))
			continue;
		plan[k].prepaged = true;
		prepage_stat_add(pm, PREPAGE_STAT_ANON_PREPAGED, 1);
		prepaged++;
	}
	return prepaged;
}

/*
 * Whether the anonymous prepagers of @pm's window, all done, left part of
 * it undone for want of memory (for the plan, or for their page walks):
 * they were not cut short, the budget was not spent and they did not
 * stop under pressure. Each batch taken is done unless they are cut
 * short.
 */
static bool anon_nomem(struct prepage_mm *pm, bool cut)
{
	if (cut || atomic_read(&pm->budget_spent) ||
	    atomic_read(&pm->pressure_stopped))
		return false;
	return !anon_mm(pm)->plan ||
	       atomic_read(&anon_mm(pm)->cursor) < anon_mm(pm)->plan_nr;
}

/*
 * The event of the last prepager of @pm's window: why they stopped, as
 * it was when that prepager was done (@stop, @cut: anon_worker_done()).
 */
static void anon_trace_done(struct prepage_mm *pm, u8 stop, bool cut,
			    bool nomem)
{
	unsigned long prepaged = 0;
	enum prepage_stop_reason why;
	unsigned int i;

	/* No prepager runs, and the plan stays until the next stop. */
	for (i = 0; i < anon_mm(pm)->plan_nr; i++)
		prepaged += anon_mm(pm)->plan[i].prepaged;
	why = stop;
	if (!why) {
		if (cut)
			why = PREPAGE_STOP_EXIT;
		else if (nomem)
			why = PREPAGE_STOP_NOMEM;
		else if (atomic_read(&pm->budget_spent) ||
			 atomic_read(&pm->pressure_stopped))
			why = prepage_budget_stop_reason(pm);
		else
			why = PREPAGE_STOP_DONE;
	}
	trace_prepage_anon_done(pm->slot.mm, pm->pid, prepaged, why);
}

/* A prepager is done with @pm's window; the last one says why. */
static void anon_worker_done(struct prepage_mm *pm)
{
	/*
	 * Why it stopped, read before it counts itself done: once the last
	 * one has, the app may end the window (and a prepager that did all
	 * of it was not stopped by that end).
	 */
	u8 stop = READ_ONCE(anon_mm(pm)->stop);
	bool cut = stop || prepage_mm_dying(pm->slot.mm);
	bool nomem;

	if (!atomic_dec_and_test(&anon_mm(pm)->prepaging))
		return;
	nomem = anon_nomem(pm, cut);
	if (nomem)
		prepage_nomem_stop(pm);
	/* Their event before what their being done starts. */
	if (trace_prepage_anon_done_enabled())
		anon_trace_done(pm, stop, cut, nomem);
	prepage_prepagers_done(pm, PREPAGE_SIDE_ANON);
}

/*
 * Plan the window: its target pages, in address order. Run by the first
 * prepager; the table does not change while it runs (every writer stops
 * the prepagers first), nor does the plan until they are stopped again.
 * A restarted window keeps the plan, and what it says was prepaged.
 */
static void anon_plan_build(struct prepage_mm *pm)
{
	struct prepage_anon_table *t = anon_mm(pm)->table;
	struct prepage_anon_plan *plan;
	unsigned long vpn;
	unsigned int n = 0;
	void *entry;

	if (anon_mm(pm)->plan)
		return;
	plan = kvmalloc_array(t->nr_targets, sizeof(*plan), GFP_KERNEL_ACCOUNT);
	if (!plan)
		return;
	xa_for_each(&t->pages, vpn, entry) {
		if (!anon_is_target(entry))
			continue;
		plan[n++] = (struct prepage_anon_plan){ .vpn = vpn };
		if (n == t->nr_targets)
			break;
		if (!(n % PTRS_PER_PTE)) {
			if (READ_ONCE(anon_mm(pm)->stop)) {
				/* A plan cut short must not be kept. */
				kvfree(plan);
				return;
			}
			cond_resched();
		}
	}
	anon_mm(pm)->plan = plan;
	anon_mm(pm)->plan_nr = n;
}

/* The first prepager plans the window, then wakes the others. */
static void anon_plan_and_queue(struct prepage_mm *pm)
{
	unsigned int batch = max(READ_ONCE(prepage_batch_pages), 1U);
	unsigned int i, nr;

	anon_plan_build(pm);
	if (READ_ONCE(anon_mm(pm)->stop))
		return;
	nr = min(prepage_nr_anon_workers,
		 DIV_ROUND_UP(anon_mm(pm)->plan_nr, batch));
	/* This work's count keeps the others' from reaching 0. */
	for (i = 1; i < nr; i++) {
		atomic_inc(&anon_mm(pm)->prepaging);
		/* Not pending: the last start's works are all done. */
		if (WARN_ON_ONCE(!kthread_queue_work(prepage_anon_workers[i],
						     &anon_mm(pm)->work[i].work)))
			atomic_dec(&anon_mm(pm)->prepaging);
	}
}

/*
 * The work of one prepager thread in a window: take batches of
 * anon/batch_pages target pages until none is left or it is told to stop.
 */
static void anon_worker_fn(struct kthread_work *work)
{
	struct prepage_anon_work *aw = container_of(work, struct prepage_anon_work,
						    work);
	struct prepage_mm *pm = aw->pm;
	struct mm_struct *mm = pm->slot.mm;
	unsigned int batch = max(READ_ONCE(prepage_batch_pages), 1U);
	struct prepage_charge charge;
	struct prepage_anon_walk w;
	unsigned int nr;

	/*
	 * The state pins the mm_struct (mmgrab()), not its pages: the app
	 * may be exiting.
	 */
	if (!mmget_not_zero(mm))
		goto out;
	prepage_charge_begin(mm, &charge);
	if (aw == &anon_mm(pm)->work[0])
		anon_plan_and_queue(pm);
	nr = anon_mm(pm)->plan_nr;
	if (!nr || anon_walk_alloc(&w))
		goto uncharge;
	for (;;) {
		unsigned int start = atomic_fetch_add(batch, &anon_mm(pm)->cursor);
		unsigned int i = start, end = min(start + batch, nr);
		unsigned int prepaged = 0;

		if (start >= nr)
			break;
		/* A batch may cross page tables: one span at a time. */
		while (i < end && !anon_cut_short(pm)) {
			unsigned long span = round_down(anon_mm(pm)->plan[i].vpn,
							PTRS_PER_PTE);
			unsigned int j = i + 1;

			while (j < end && round_down(anon_mm(pm)->plan[j].vpn,
						     PTRS_PER_PTE) == span)
				j++;
			prepaged += anon_prepage_span(pm, &w, i, j);
			i = j;
		}
		trace_prepage_anon_batch(mm, pm->pid,
					 anon_mm(pm)->plan[start].vpn << PAGE_SHIFT,
					 anon_mm(pm)->plan[end - 1].vpn << PAGE_SHIFT,
					 end - start, prepaged);
		if (anon_cut_short(pm))
			break;
		cond_resched();
		/*
		 * A work takes batches until the window's plan is done: let
		 * a suspend freeze the thread between them rather than wait
		 * for that. No lock is held here; the app's mm stays pinned
		 * (mmget()) until the thread thaws, and its window may end
		 * meanwhile (the next batch sees that).
		 */
		try_to_freeze();
	}
	/*
	 * Put the pages on the LRU now rather than when this CPU's batch
	 * fills: prepaged pages the app does not use must be reclaimable.
	 * (Not lru_add_drain_all(): a SCHED_IDLE thread would hold its
	 * global mutex while it waits for work on every CPU, in the switch.
	 * At most one batch is left behind if the thread moved, as for any
	 * readahead(2) caller.)
	 */
	lru_add_drain();
	anon_walk_free(&w);
uncharge:
	prepage_charge_end(&charge);
	/* Not mmput(): tearing the mm down here would wait for this work. */
	mmput_async(mm);
out:
	anon_worker_done(pm);
}

/**
 * prepage_anon_start() - start prepaging the anonymous target
 * @pm:	the prepage state; its lock is held and a window is open
 *
 * Return: whether the first prepager, which plans the window, was queued.
 */
static bool prepage_anon_start(struct prepage_mm *pm)
{
	lockdep_assert_held(&pm->lock);

	WRITE_ONCE(anon_mm(pm)->stop, 0);
	atomic_set(&anon_mm(pm)->cursor, 0);
	if (!anon_mm(pm)->table || !anon_mm(pm)->table->nr_targets ||
	    !prepage_nr_anon_workers)
		return false;
	atomic_set(&anon_mm(pm)->prepaging, 1);
	/* Not pending: the last start's works are all done. */
	if (WARN_ON_ONCE(!kthread_queue_work(prepage_anon_workers[0],
					     &anon_mm(pm)->work[0].work))) {
		atomic_set(&anon_mm(pm)->prepaging, 0);
		return false;
	}
	return true;
}

/**
 * prepage_anon_stop() - tell the anonymous prepagers to stop
 * @pm:	the prepage state; its lock is held
 *
 * Waits for none: a work queued or running stops at its next check
 * (each page it faults in), and is done on its own.
 */
static void prepage_anon_stop(struct prepage_mm *pm)
{
	lockdep_assert_held(&pm->lock);

	/* The core says why before it stops the prepagers. */
	WRITE_ONCE(anon_mm(pm)->stop, pm->stop_reason ?: PREPAGE_STOP_END);
}

static void *prepage_anon_state_new(struct prepage_mm *pm)
{
	struct prepage_anon_mm *am = kzalloc(sizeof(*am), GFP_KERNEL_ACCOUNT);
	unsigned int i;

	if (!am)
		return NULL;
	for (i = 0; i < PREPAGE_MAX_ANON_WORKERS; i++) {
		kthread_init_work(&am->work[i].work, anon_worker_fn);
		am->work[i].pm = pm;
	}
	return am;
}

static void prepage_anon_state_free(struct prepage_mm *pm)
{
	struct prepage_anon_mm *am = anon_mm(pm);

	lockdep_assert_held(&pm->lock);

	anon_table_free(am->table);
	kvfree(am->plan);
	kfree(am);
}

/* ---- table lines --------------------------------------------------------- */

/* Whether @line is an anonymous table line: "anon" and a blank. */
static bool prepage_anon_table_owns(const char *line)
{
	return !strncmp(line, "anon", 4) && (line[4] == ' ' || line[4] == '\t');
}

static void *prepage_anon_table_new(void)
{
	return anon_table_new();
}

static void prepage_anon_table_free(void *table)
{
	anon_table_free(table);
}

/**
 * prepage_anon_table_parse() - add a table line to an anonymous table
 * @table:	the table, from prepage_anon_table_new()
 * @line:	the line, without its newline; modified
 * @cred:	unused: an anonymous line names no file
 *
 * A line is "anon ADDR:NR_PAGES target=0|1 timeout=N", ADDR page aligned
 * and the range within the user address space. The pages of all lines
 * are counted, whether or not lines overlap, so that the work of a parse
 * is bounded by anon/max_pages; the parse reschedules and stops on a
 * fatal signal.
 *
 * Return: 0; -EINVAL for a malformed line or a range outside the user
 * address space; -ENOSPC for more than anon/max_pages pages in all, or
 * pages spread too thinly; -EINTR; -ENOMEM.
 */
static int prepage_anon_table_parse(void *table, char *line,
				    const struct cred *cred)
{
	unsigned long max_pages = READ_ONCE(prepage_max_anon_pages);
	unsigned int max_timeout = PREPAGE_MAX_ANON_TIMEOUT;
	struct prepage_anon_table *t = table;
	char *range, *field, *nr_s;
	unsigned long addr, nr, vpn;
	unsigned int timeout = 0;
	u64 addr64, nr64;
	int target = -1;
	int err;

	if (!prepage_anon_table_owns(line))
		return -EINVAL;
	line += 5;
	range = strsep(&line, " \t");
	nr_s = strchr(range, ':');
	if (!nr_s)
		return -EINVAL;
	*nr_s++ = '\0';
	if (prepage_parse_u64(range, &addr64) ||
	    prepage_parse_u64(nr_s, &nr64) || !nr64 ||
	    addr64 >= TASK_SIZE_MAX || !PAGE_ALIGNED(addr64) ||
	    nr64 > (TASK_SIZE_MAX - addr64) >> PAGE_SHIFT)
		return -EINVAL;
	addr = addr64;
	nr = nr64;
	while ((field = line ? strsep(&line, " \t") : NULL)) {
		if (!*field)
			continue;
		if (str_has_prefix(field, "target=") && target < 0 &&
		    !kstrtoint(field + 7, 10, &target) && target <= 1)
			continue;
		if (str_has_prefix(field, "timeout=") && !timeout &&
		    !kstrtouint(field + 8, 10, &timeout) && timeout &&
		    timeout <= max_timeout)
			continue;
		return -EINVAL;
	}
	if (target < 0 || !timeout)
		return -EINVAL;
	if (nr > max_pages || t->nr_parsed > max_pages - nr)
		return -ENOSPC;
	t->nr_parsed += nr;
	for (vpn = addr >> PAGE_SHIFT; nr--; vpn++) {
		err = anon_table_set(t, vpn, target, timeout);
		if (!err && fatal_signal_pending(current))
			err = -EINTR;
		if (err)
			return err;
		if (!(vpn % XA_CHUNK_SIZE))
			cond_resched();
	}
	return 0;
}

/* What a table line shows of @entry: the target bit and the timeout. */
static unsigned long anon_shown(void *entry)
{
	return xa_to_value(entry) & ~((unsigned long)ANON_MAX_USES <<
				      ANON_USES_SHIFT);
}

/**
 * prepage_anon_table_show() - print the anonymous table as table lines
 * @m:	where to print
 * @pm:	the prepage state; its lock is held
 *
 * Runs of pages with the same target bit and timeout share a line. The
 * windows a candidate was used in are not shown: a candidate loaded back
 * counts as used in one (its swap-in's).
 */
static void prepage_anon_table_show(struct seq_file *m, struct prepage_mm *pm)
{
	struct prepage_anon_table *t = anon_mm(pm)->table;
	unsigned long vpn, start = 0, nr = 0, val = 0;
	void *entry;

	lockdep_assert_held(&pm->lock);

	if (!t)
		return;
	xa_for_each(&t->pages, vpn, entry) {
		if (nr && vpn == start + nr && anon_shown(entry) == val) {
			nr++;
			continue;
		}
		if (nr)
			seq_printf(m, "anon 0x%lx:%lu target=%d timeout=%lu\n",
				   start << PAGE_SHIFT, nr,
				   !!(val & ANON_TARGET),
				   val >> ANON_TIMEOUT_SHIFT);
		start = vpn;
		nr = 1;
		val = anon_shown(entry);
	}
	if (nr)
		seq_printf(m, "anon 0x%lx:%lu target=%d timeout=%lu\n",
			   start << PAGE_SHIFT, nr, !!(val & ANON_TARGET),
			   val >> ANON_TIMEOUT_SHIFT);
}

/* Print the sizes of the anonymous table of @pm (its lock held, or NULL). */
static void prepage_anon_sizes_show(struct seq_file *m, struct prepage_mm *pm)
{
	unsigned long candidates = 0, targets = 0;

	if (pm && anon_mm(pm)) {
		lockdep_assert_held(&pm->lock);
		if (anon_mm(pm)->table) {
			candidates = anon_mm(pm)->table->nr_candidates;
			targets = anon_mm(pm)->table->nr_targets;
		}
	}
	seq_printf(m, "anon_candidate_pages %lu\n", candidates);
	seq_printf(m, "anon_target_pages %lu\n", targets);
}

/*
 * Make @table (from prepage_anon_table_parse()) the anonymous table of
 * @pm, whose lock is held and whose anonymous prepagers are done.
 * Return: the table it replaces, or NULL.
 */
static void *prepage_anon_table_swap(struct prepage_mm *pm, void *table)
{
	struct prepage_anon_mm *am = anon_mm(pm);
	struct prepage_anon_table *old = am->table;

	lockdep_assert_held(&pm->lock);

	prepage_anon_window_discard(pm);
	am->table = table;
	return old;
}

/**
 * __prepage_anon_swapin() - log anonymous pages swapped in by a fault
 * @mm:		the address space of the faulting VMA
 * @address:	address of the first page
 * @nr:		number of pages
 * @io:		the fault read them
 *
 * See prepage_anon_swapin().
 */
void __prepage_anon_swapin(struct mm_struct *mm, unsigned long address,
			   unsigned long nr, bool io)
{
	/* Remote faults (ptrace, GUP of another process) are not the app's. */
	if (mm == current->mm && READ_ONCE(prepage_anon_enabled))
		prepage_log(io ? PREPAGE_LOG_ANON_SWAPIN :
				 PREPAGE_LOG_ANON_CACHED,
			    NULL, address >> PAGE_SHIFT, nr);
}

/* ---- the backend ------------------------------------------------------- */

PREPAGE_SWITCH(anon_enabled, enabled);
/* Windows; applies to entries as they are next used or learned. */
PREPAGE_KNOB(anon_timeout, timeout, 1, PREPAGE_MAX_ANON_TIMEOUT);
/* Windows of use, the swap-in's included; applies at the next window's end. */
PREPAGE_KNOB(anon_promote_windows, promote_windows, 2, ANON_MAX_USES);
/* Pages an anonymous prepager thread takes at a time. */
PREPAGE_KNOB(batch_pages, batch_pages, 1, 1024);
/* Pages; the most anonymous table entries of one process. */
PREPAGE_KNOB(max_anon_pages, max_pages, 1, 1U << 24);
/* The anonymous precision below which a window did not pay; 0: never. */
PREPAGE_KNOB(anon_min_precision_permille, min_precision_permille, 0, 1000);

static struct attribute *prepage_anon_attrs[] = {
	&anon_enabled_switch.attr.attr,
	&anon_timeout_knob.attr.attr,
	&anon_promote_windows_knob.attr.attr,
	&batch_pages_knob.attr.attr,
	&max_anon_pages_knob.attr.attr,
	&anon_min_precision_permille_knob.attr.attr,
	NULL,
};

static const struct attribute_group prepage_anon_attr_group = {
	.attrs = prepage_anon_attrs,
	.name = "anon",
};

/* The target pages the anonymous prepagers start with, for the back-off. */
static unsigned long prepage_anon_targets(struct prepage_mm *pm)
{
	lockdep_assert_held(&pm->lock);
	return anon_mm(pm)->table ? anon_mm(pm)->table->nr_targets : 0;
}

static const struct prepage_ops prepage_anon_ops = {
	.name		= "anon",
	.side		= PREPAGE_SIDE_ANON,
	.enabled	= &prepage_anon_enabled,
	.stat_prepaged	= PREPAGE_STAT_ANON_PREPAGED,
	.stat_hit	= PREPAGE_STAT_ANON_HIT,
	.stat_miss	= PREPAGE_STAT_ANON_MISS,
	.wait_kind	= PREPAGE_LOG_ANON_SWAPIN,
	.stat_sat_out	= PREPAGE_STAT_ANON_SAT_OUT,
	.min_precision	= &prepage_anon_min_precision_permille,
	.targets	= prepage_anon_targets,
	.attrs		= &prepage_anon_attr_group,
	.workers_init	= prepage_anon_workers_init,
	.workers_exit	= prepage_anon_workers_exit,
	.state_new	= prepage_anon_state_new,
	.state_free	= prepage_anon_state_free,
	.start		= prepage_anon_start,
	.stop		= prepage_anon_stop,
	.walks_mm	= true,
	.window_close	= prepage_anon_window_close,
	.window_discard	= prepage_anon_window_discard,
	.switch_out	= prepage_anon_switch_out,
	.table_owns	= prepage_anon_table_owns,
	.table_new	= prepage_anon_table_new,
	.table_parse	= prepage_anon_table_parse,
	.table_swap	= prepage_anon_table_swap,
	.table_free	= prepage_anon_table_free,
	.table_show	= prepage_anon_table_show,
	.sizes_show	= prepage_anon_sizes_show,
};

static int __init prepage_anon_init(void)
{
	return prepage_register_ops(&prepage_anon_ops);
}
subsys_initcall(prepage_anon_init);

#include "tests/anon-kunit.h"
