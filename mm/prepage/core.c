// SPDX-License-Identifier: GPL-2.0
/*
 * prepage core: per address space state and the switch window.
 *
 * The state of an address space lives in a hash keyed by its mm, as KSM
 * and khugepaged keep theirs, so that no field is added to mm_struct.
 */

#define pr_fmt(fmt) "prepage: " fmt

#include <linux/cgroup.h>
#include <linux/hashtable.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/prepage.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "internal.h"

#define CREATE_TRACE_POINTS
#include <trace/events/prepage.h>

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
/* Address spaces in a switch window: the access hooks return at once at 0. */
static atomic_t prepage_nr_switching = ATOMIC_INIT(0);

/*
 * Kilobytes one window may bring in, file and anonymous pages together.
 * Default: 262144 (256 MiB).
 */
unsigned int prepage_max_switch_kbytes __read_mostly = 262144;
/* Prepage and log file pages. Default: true. */
bool prepage_file_enabled __read_mostly = true;
/* Read extents fewer than this many pages apart as one I/O. Default: 16. */
unsigned int prepage_merge_gap_pages __read_mostly = 16;
/* Most extents in the candidate table of one app. Default: 16384. */
unsigned int prepage_max_file_extents __read_mostly = 16384;
/* Files of at least this many pages get the normal-priority prepager. */
unsigned int prepage_big_file_pages __read_mostly = 16384;
/* Read one page per this many first, for the file system's block map. */
unsigned int prepage_metadata_stride_pages __read_mostly = 512;
/* Prepage and log anonymous pages. Default: true. */
bool prepage_anon_enabled __read_mostly = true;
/* Windows an anonymous entry survives without its page accessed. Default: 5. */
unsigned int prepage_anon_timeout __read_mostly = 5;
/* Anonymous pages an anonymous prepager takes at a time. Default: 16. */
unsigned int prepage_batch_pages __read_mostly = 16;
/* Most anonymous table entries of one app. Default: 65536. */
unsigned int prepage_max_anon_pages __read_mostly = 65536;

/* ---- per address space state ---------------------------------------- */

static struct prepage_mm *prepage_mm_find(struct mm_struct *mm)
{
	struct mm_slot *slot;

	hash_for_each_possible_rcu(prepage_slots, slot, hash, (unsigned long)mm,
				   lockdep_is_held(&prepage_slots_lock))
		if (slot->mm == mm)
			return container_of(slot, struct prepage_mm, slot);
	return NULL;
}

static void prepage_mm_free(struct kref *kref)
{
	struct prepage_mm *pm = container_of(kref, struct prepage_mm, kref);

	/* Lockless lookups only compare slot.mm: it may go before them. */
	mmdrop(pm->slot.mm);
	kfree_rcu(pm, rcu);
}

/**
 * prepage_mm_put() - drop a reference taken by prepage_mm_lookup() or
 * prepage_mm_enter()
 * @pm:	the prepage state
 */
void prepage_mm_put(struct prepage_mm *pm)
{
	kref_put(&pm->kref, prepage_mm_free);
}

/**
 * prepage_mm_lookup() - find the prepage state of an address space
 * @mm:	the address space
 *
 * Return: the state with a reference the caller drops with
 * prepage_mm_put(), or NULL if @mm has none.
 */
struct prepage_mm *prepage_mm_lookup(struct mm_struct *mm)
{
	struct prepage_mm *pm;

	rcu_read_lock();
	pm = prepage_mm_find(mm);
	if (pm && !kref_get_unless_zero(&pm->kref))
		pm = NULL;
	rcu_read_unlock();
	return pm;
}

/**
 * prepage_mm_enter() - find, or create, the prepage state of an address
 * space
 * @mm:	the address space; the caller holds an mm_users reference or
 *	runs in a task of @mm
 *
 * Return: the state with a reference the caller drops with
 * prepage_mm_put(); ERR_PTR(-ENODEV) if prepage is disabled;
 * ERR_PTR(-ENOMEM).
 */
struct prepage_mm *prepage_mm_enter(struct mm_struct *mm)
{
	struct prepage_mm *pm, *new;

	pm = prepage_mm_lookup(mm);
	if (pm)
		return pm;

	new = kmem_cache_zalloc(prepage_mm_cache, GFP_KERNEL_ACCOUNT);
	if (!new)
		return ERR_PTR(-ENOMEM);
	kref_init(&new->kref);		/* the hash's reference */
	kref_get(&new->kref);		/* the caller's */
	mutex_init(&new->lock);
	new->state = PREPAGE_IDLE;
	prepage_file_table_init(&new->file_table);
	spin_lock_init(&new->log_lock);
	prepage_anon_init(new);

	spin_lock(&prepage_slots_lock);
	pm = prepage_mm_find(mm);	/* lost a race with another creator? */
	if (pm) {
		kref_get(&pm->kref);	/* hashed entries hold the hash's ref */
	} else if (!prepage_on) {
		pm = ERR_PTR(-ENODEV);
	} else {
		/* The state keeps the mm_struct, not its pages: see below. */
		mmgrab(mm);
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
 * prepage_charge_begin() - charge what the current thread does to an app
 * @mm:		the app's address space; the caller keeps it from being
 *		freed
 * @c:		saved state, for prepage_charge_end()
 *
 * Speculative work is the app's: the memory it allocates (page cache,
 * swap-ins, page tables, the tables of the engine) is charged to the
 * app's memory cgroup, and, in a kernel thread, the I/O it issues is
 * throttled as the app's block cgroup.
 */
void prepage_charge_begin(struct mm_struct *mm, struct prepage_charge *c)
{
	c->memcg = get_mem_cgroup_from_mm(mm);
	c->old_memcg = set_active_memcg(c->memcg);
#if defined(CONFIG_BLK_CGROUP) && defined(CONFIG_MEMCG)
	c->blkcg = NULL;
	if (current->flags & PF_KTHREAD) {
		struct task_struct *owner;

		rcu_read_lock();
		owner = rcu_dereference(mm->owner);
		if (owner)
			c->blkcg = task_get_css(owner, io_cgrp_id);
		rcu_read_unlock();
		kthread_associate_blkcg(c->blkcg);
	}
#endif
}

/**
 * prepage_charge_end() - end what prepage_charge_begin() began
 * @c:	the state prepage_charge_begin() saved
 */
void prepage_charge_end(struct prepage_charge *c)
{
#if defined(CONFIG_BLK_CGROUP) && defined(CONFIG_MEMCG)
	if (c->blkcg) {
		kthread_associate_blkcg(NULL);
		css_put(c->blkcg);
	}
#endif
	set_active_memcg(c->old_memcg);
	mem_cgroup_put(c->memcg);
}

/* Count @item for the window once, the first time @flag is set. */
static void prepage_stop_once(struct prepage_mm *pm, atomic_t *flag,
			      enum prepage_stat_item item)
{
	if (!atomic_cmpxchg(flag, 0, 1))
		prepage_stat_add(pm, item, 1);
}

/**
 * prepage_budget_take() - take pages from the budget of a window
 * @pm:	the prepage state, in a window
 * @nr:	pages a prepager is about to bring in
 *
 * The work of a window is bounded: its prepagers bring in at most
 * max_switch_kbytes, taken before each read or fault and given back
 * for the pages that were not brought in after all.
 *
 * Return: the pages granted, at most @nr; 0 when the budget is spent.
 */
unsigned long prepage_budget_take(struct prepage_mm *pm, unsigned long nr)
{
	long old = atomic_long_read(&pm->budget), take;

	do {
		take = min_t(long, old, nr);
		if (take <= 0)
			break;
	} while (!atomic_long_try_cmpxchg(&pm->budget, &old, old - take));
	if (take < (long)nr)
		prepage_stop_once(pm, &pm->budget_spent,
				  PREPAGE_STAT_BUDGET_STOPS);
	return max(take, 0L);
}

/**
 * prepage_budget_give() - give back pages taken and not brought in
 * @pm:	the prepage state
 * @nr:	the pages
 */
void prepage_budget_give(struct prepage_mm *pm, unsigned long nr)
{
	atomic_long_add(nr, &pm->budget);
}

/**
 * prepage_nomem_stop() - a prepager stops for want of memory
 * @pm:	the prepage state, in a window
 *
 * Counts the window once in nomem_stops, however many of its prepagers
 * stop so.
 *
 * Context: a prepage thread.
 */
void prepage_nomem_stop(struct prepage_mm *pm)
{
	prepage_stop_once(pm, &pm->nomem_stopped, PREPAGE_STAT_NOMEM_STOPS);
}

/*
 * Take @pm out of the hash (the caller holds prepage_slots_lock). From
 * here on it takes no new window or table, even from a holder of a
 * reference taken before, and it is shut down by whoever unhashed it.
 */
static void prepage_mm_unhash(struct prepage_mm *pm)
{
	lockdep_assert_held(&prepage_slots_lock);
	hash_del_rcu(&pm->slot.hash);
	WRITE_ONCE(pm->dead, true);
}

/*
 * Stop logging and close @pm's window (caller holds @pm->lock), for
 * @reason. A window that closes while its prepagers are queued or
 * running, other than to restart, counts as a closed stop, unless it
 * counted as a budget or a memory stop already: each window is counted
 * for one reason at most (but for a budget and a memory stop in the
 * same window).
 * Return: the number of entries the window logged.
 */
static unsigned int __prepage_window_close(struct prepage_mm *pm,
					   enum prepage_close_reason reason)
{
	bool busy = reason != PREPAGE_CLOSE_RESTART && prepage_prepaging(pm);
	unsigned int nr;

	lockdep_assert_held(&pm->lock);

	prepage_file_stop(pm);
	prepage_anon_stop(pm);
	spin_lock(&pm->log_lock);
	pm->logging = false;
	nr = pm->log_nr;
	pm->log_nr = 0;
	spin_unlock(&pm->log_lock);
	atomic_dec(&prepage_nr_switching);
	pm->last_window_ns = ktime_get_ns() - pm->window_start;
	if (busy && !atomic_read(&pm->budget_spent) &&
	    !atomic_read(&pm->nomem_stopped))
		prepage_stat_add(pm, PREPAGE_STAT_CLOSED_STOPS, 1);
	pm->state = PREPAGE_IDLE;
	trace_prepage_window_close(pm->slot.mm, pm->pid, reason,
				   pm->last_window_ns, nr, pm->log_dropped);
	return nr;
}

/*
 * Drop @pm's window and tables for good: its address space is going away
 * or prepage is being disabled. It must be unhashed already.
 */
static void prepage_mm_shutdown(struct prepage_mm *pm)
{
	struct prepage_log_entry *log;

	mutex_lock(&pm->lock);
	if (pm->state == PREPAGE_SWITCHING)
		__prepage_window_close(pm, PREPAGE_CLOSE_GONE);
	prepage_file_table_free(&pm->file_table);
	prepage_anon_table_free(pm->anon_table);
	pm->anon_table = NULL;
	kvfree(pm->anon_plan);
	pm->anon_plan = NULL;
	pm->anon_plan_nr = 0;
	spin_lock(&pm->log_lock);
	log = pm->log;
	pm->log = NULL;
	spin_unlock(&pm->log_lock);
	mutex_unlock(&pm->lock);
	kvfree(log);
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
	pm = prepage_mm_find(mm);
	rcu_read_unlock();
	if (!pm)
		return;

	spin_lock(&prepage_slots_lock);
	pm = prepage_mm_find(mm);
	if (pm)
		prepage_mm_unhash(pm);
	spin_unlock(&prepage_slots_lock);
	if (pm) {
		prepage_mm_shutdown(pm);
		prepage_mm_put(pm);
	}
}

/* The process that owns @mm, for the events; 0 if not known. */
static pid_t prepage_owner_pid(struct mm_struct *mm)
{
	pid_t pid = 0;
#ifdef CONFIG_MEMCG
	struct task_struct *owner;

	rcu_read_lock();
	owner = rcu_dereference(mm->owner);
	if (owner)
		pid = task_tgid_nr(owner);
	rcu_read_unlock();
#endif
	return pid;
}

/**
 * prepage_window_open() - an app switch to @pm's address space begins
 * @pm:	the prepage state
 *
 * Opens the accounting window: from now on the app's accesses are logged,
 * the file prepagers start reading the target tables and the anonymous
 * prepagers start swapping the target pages in. The caller holds a user
 * of the address space.
 * A start while a window is open restarts it: the log of the window so
 * far is neither counted nor learned from (the accessed bits its
 * accesses set count in the new window), but what was prepaged for it
 * is carried over and the prepagers go on with the same plan: the new
 * window wants the same pages, within the budget of the window it
 * restarts. As the new log lacks the accesses before the restart, no
 * prepaged file page leaves the target at the new end (anonymous use is
 * read from the accessed bits, which span the restart).
 *
 * Return: 0; -ESRCH if the address space is gone; -ENOMEM; -EINTR if
 * interrupted by a fatal signal.
 */
int prepage_window_open(struct prepage_mm *pm)
{
	bool restart = false;
	int ret = 0;

	if (mutex_lock_killable(&pm->lock))
		return -EINTR;
	if (READ_ONCE(pm->dead)) {
		ret = -ESRCH;
		goto out;
	}
	if (!pm->log) {
		struct prepage_log_entry *log;

		log = kvmalloc_array(PREPAGE_LOG_ENTRIES, sizeof(*log),
				     GFP_KERNEL_ACCOUNT);
		if (!log) {
			ret = -ENOMEM;
			goto out;
		}
		spin_lock(&pm->log_lock);
		pm->log = log;
		spin_unlock(&pm->log_lock);
	}
	if (pm->state == PREPAGE_SWITCHING) {
		__prepage_window_close(pm, PREPAGE_CLOSE_RESTART);
		prepage_stat_add(pm, PREPAGE_STAT_RESTARTS, 1);
		restart = true;
	}
	pm->state = PREPAGE_SWITCHING;
	pm->window_start = ktime_get_ns();
	atomic_inc(&prepage_nr_switching);
	spin_lock(&pm->log_lock);
	pm->logging = true;
	/* A restarted window's log lacks the accesses before the restart. */
	pm->log_dropped = restart;
	spin_unlock(&pm->log_lock);
	pm->pid = prepage_owner_pid(pm->slot.mm);
	trace_prepage_window_open(pm->slot.mm, pm->pid, restart);
	prepage_stat_add(pm, PREPAGE_STAT_SWITCHES, 1);
	/* A restarted window goes on with what is left of its budget. */
	if (!restart) {
		atomic_long_set(&pm->budget, (unsigned long)
				READ_ONCE(prepage_max_switch_kbytes) >>
				(PAGE_SHIFT - 10));
		atomic_set(&pm->budget_spent, 0);
		atomic_set(&pm->nomem_stopped, 0);
	}
	if (READ_ONCE(prepage_file_enabled))
		prepage_file_start(pm);
	if (READ_ONCE(prepage_anon_enabled))
		prepage_anon_start(pm);
out:
	mutex_unlock(&pm->lock);
	return ret;
}

/**
 * prepage_window_close() - the app switch to @pm's address space is done
 * @pm:	the prepage state
 *
 * Closes the accounting window: counts the window's hits and misses and
 * updates the tables from what the app used. The caller holds a user of
 * the address space.
 *
 * Return: 0; -EINVAL if no window is open; -EINTR if interrupted by a
 * fatal signal.
 */
int prepage_window_close(struct prepage_mm *pm)
{
	unsigned int nr;

	if (mutex_lock_killable(&pm->lock))
		return -EINTR;
	if (pm->state != PREPAGE_SWITCHING) {
		mutex_unlock(&pm->lock);
		return -EINVAL;
	}
	nr = __prepage_window_close(pm, PREPAGE_CLOSE_END);
	prepage_file_window_close(pm, pm->log, nr);
	prepage_anon_window_close(pm, pm->log, nr);
	mutex_unlock(&pm->lock);
	return 0;
}

/**
 * prepage_reset() - forget what was loaded and learned for @pm
 * @pm:	the prepage state
 *
 * Closes an open window without counting or learning from it (the pages
 * prepaged for it that the app did not use are demoted), and drops the
 * tables. The counters are kept.
 *
 * Return: 0, or -EINTR if interrupted by a fatal signal.
 */
int prepage_reset(struct prepage_mm *pm)
{
	struct prepage_anon_table *anon;
	struct prepage_file_table old;

	if (mutex_lock_killable(&pm->lock))
		return -EINTR;
	if (pm->state == PREPAGE_SWITCHING)
		__prepage_window_close(pm, PREPAGE_CLOSE_RESET);
	prepage_file_window_discard(pm);
	prepage_anon_window_discard(pm);
	prepage_file_table_init(&old);
	prepage_file_table_move(&old, &pm->file_table);
	anon = pm->anon_table;
	pm->anon_table = NULL;
	mutex_unlock(&pm->lock);
	prepage_file_table_free(&old);
	prepage_anon_table_free(anon);
	return 0;
}

/**
 * prepage_load_tables() - replace the tables of @pm
 * @pm:		the prepage state
 * @table:	the new file tables, from prepage_file_table_parse(), or
 *		NULL to keep the current ones; on success they are taken
 *		over and @table holds the old ones, which the caller frees
 * @anon:	the new anonymous table, or NULL to keep the current one;
 *		on success it is taken over and *@anon is the old one,
 *		which the caller frees
 *
 * The prepagers of the old tables stop, and what they prepaged that the
 * app did not use is demoted; an open window stays open.
 *
 * Return: 0; -ESRCH if the address space is gone; -EINTR if interrupted
 * by a fatal signal.
 */
int prepage_load_tables(struct prepage_mm *pm,
			struct prepage_file_table *table,
			struct prepage_anon_table **anon)
{
	struct prepage_file_table old;

	if (mutex_lock_killable(&pm->lock))
		return -EINTR;
	if (READ_ONCE(pm->dead)) {
		mutex_unlock(&pm->lock);
		return -ESRCH;
	}
	prepage_file_table_init(&old);
	if (table) {
		prepage_file_stop(pm);
		prepage_file_window_discard(pm);
		prepage_file_table_move(&old, &pm->file_table);
		prepage_file_attach(pm, table);
		prepage_file_table_move(&pm->file_table, table);
		prepage_stat_add(pm, PREPAGE_STAT_FILE_STALE, table->nr_stale);
	}
	if (*anon) {
		prepage_anon_stop(pm);
		prepage_anon_window_discard(pm);
		swap(pm->anon_table, *anon);
	}
	mutex_unlock(&pm->lock);
	if (table)
		prepage_file_table_move(table, &old);
	return 0;
}

/* ---- access logging ---------------------------------------------------- */

static void prepage_log_add(struct prepage_mm *pm, unsigned int kind,
			    const void *key, unsigned long index,
			    unsigned long nr)
{
	struct prepage_log_entry *e;

	spin_lock(&pm->log_lock);
	if (!pm->logging)
		goto out;
	if (pm->log_nr) {
		e = &pm->log[pm->log_nr - 1];
		if (e->key == key && e->kind == kind && index >= e->index &&
		    index <= e->index + e->nr) {
			unsigned long end = max(e->index + e->nr, index + nr);

			if (end - e->index <= UINT_MAX) {
				e->nr = end - e->index;
				goto out;
			}
		}
	}
	if (pm->log_nr == PREPAGE_LOG_ENTRIES || nr > UINT_MAX) {
		prepage_stat_add(pm, PREPAGE_STAT_LOG_DROPPED, 1);
		pm->log_dropped = true;
		goto out;
	}
	pm->log[pm->log_nr++] = (struct prepage_log_entry){
		.key = key, .index = index, .nr = nr, .kind = kind,
	};
out:
	spin_unlock(&pm->log_lock);
}

/*
 * Log an access of the current task if its address space is in a switch
 * window. Kernel threads that borrow an address space are not the app.
 */
static void prepage_log(unsigned int kind, const void *key,
			unsigned long index, unsigned long nr)
{
	struct mm_struct *mm = current->mm;
	struct prepage_mm *pm;

	if (!atomic_read(&prepage_nr_switching) || !mm ||
	    (current->flags & PF_KTHREAD))
		return;
	rcu_read_lock();
	pm = prepage_mm_find(mm);
	if (pm && READ_ONCE(pm->logging))
		prepage_log_add(pm, kind, key, index, nr);
	rcu_read_unlock();
}

/**
 * __prepage_anon_swapin() - log anonymous pages swapped in by a fault
 * @mm:		the address space of the faulting VMA
 * @address:	address of the first page
 * @nr:		number of pages
 *
 * See prepage_anon_swapin().
 */
void __prepage_anon_swapin(struct mm_struct *mm, unsigned long address,
			   unsigned long nr)
{
	/* Remote faults (ptrace, GUP of another process) are not the app's. */
	if (mm == current->mm && READ_ONCE(prepage_anon_enabled))
		prepage_log(PREPAGE_LOG_ANON_SWAPIN, NULL, address >> PAGE_SHIFT,
			    nr);
}

/**
 * __prepage_file_access() - log file pages the current task accessed
 * @mapping:	the file's page cache
 * @index:	first page
 * @nr:		number of pages
 *
 * See prepage_file_access().
 */
void __prepage_file_access(struct address_space *mapping, pgoff_t index,
			   unsigned long nr)
{
	if (READ_ONCE(prepage_file_enabled))
		prepage_log(PREPAGE_LOG_FILE_ACCESS, mapping, index, nr);
}

/**
 * __prepage_file_added() - log a folio the current task added to the page
 * cache
 * @mapping:	the file's page cache
 * @folio:	the folio, locked, not on the LRU yet
 *
 * See prepage_file_added().
 */
void __prepage_file_added(struct address_space *mapping, struct folio *folio)
{
	/* Nothing to note while no window is open: no prepager runs then. */
	if (!READ_ONCE(prepage_file_enabled) ||
	    !atomic_read(&prepage_nr_switching))
		return;
	if (current->flags & PF_KTHREAD)
		prepage_file_worker_added(mapping, folio);
	else
		prepage_log(PREPAGE_LOG_FILE_ADDED, mapping, folio->index,
			    folio_nr_pages(folio));
}

/**
 * prepage_enable() - enable prepage
 *
 * Starts the prepager threads the first time.
 *
 * Return: 0, or -ENOMEM if prepage could not be initialized.
 */
int prepage_enable(void)
{
	int err;

	if (!prepage_mm_cache)
		return -ENOMEM;
	mutex_lock(&prepage_admin_lock);
	err = prepage_file_workers_init();
	if (!err)
		err = prepage_anon_workers_init();
	if (err) {
		mutex_unlock(&prepage_admin_lock);
		return err;
	}
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
 * Windows are closed without accounting and tables are dropped. State
 * still referenced by a user lives until that user drops it, but no
 * longer belongs to its address space and takes no new switch or table.
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
		prepage_mm_unhash(pm);
		list_add(&pm->slot.mm_node, &dead);
	}
	spin_unlock(&prepage_slots_lock);

	list_for_each_entry_safe(pm, next, &dead, slot.mm_node) {
		prepage_mm_shutdown(pm);
		prepage_mm_put(pm);
	}
	/*
	 * Only once the prepagers of every state shut down here stopped:
	 * while one runs, the hooks must still tell its reads from the
	 * app's. (A state its exiting address space shut down itself is
	 * not waited for.)
	 */
	static_branch_disable(&prepage_key);
	mutex_unlock(&prepage_admin_lock);
}

static int __init prepage_init(void)
{
	prepage_mm_cache = KMEM_CACHE(prepage_mm, SLAB_ACCOUNT);
	if (!prepage_mm_cache)
		pr_warn("cannot allocate its cache; prepage stays disabled\n");
	return 0;
}
subsys_initcall(prepage_init);

#include "tests/core-kunit.h"
