// SPDX-License-Identifier: GPL-2.0
/*
 * prepage core: per address space state and the switch window.
 *
 * The state of an address space lives in a hash keyed by its mm, as KSM
 * and khugepaged keep theirs, so that no field is added to mm_struct.
 */

/**
 * DOC: Lock order
 *
 * Outermost first::
 *
 *   prepage_admin_lock		enabling and disabling prepage; held
 *				while disabling shuts every state down
 *     prepage_slots_lock	the hash (a spinlock: nothing nests in it)
 *     prepage_mm.lock		one address space's window and tables
 *       mmap_lock, VMA lock	of that address space (the backends)
 *         page table locks
 *           prepage_mm.log_lock
 *
 * prepage_slots_lock is a leaf: the release of a state shut down reads
 * prepage_on under it, with prepage_mm.lock held.
 *
 * Nothing sleeps on another lock, or on the app, with prepage_mm.lock
 * held: the app's mmap lock is only ever tried under it
 * (mmap_read_trylock(), as MGLRU's walk_mm() does), and a window whose
 * settle finds it contended is settled later by its settle work, or
 * forgotten; the waits for prepagers to stop (a reset, a table load, a
 * reader) drop it; the LRU batches of every CPU are drained
 * (lru_add_drain_all()) without it; the exit of an address space and
 * prepage_disable() only try it, and leave the shutdown of the state to
 * its settle work when it is held.
 *
 * prepage_mm.log_lock is innermost: the access hooks take it in fault and
 * read paths, under any of the others, and nothing is taken under it but
 * what queue_work() takes (the workqueue's and the scheduler's locks), to
 * queue a state's lead work once a window.
 * The prepage threads never take prepage_mm.lock, and nothing waits for
 * them: stopping them only tells them to stop (they may be blocked in
 * I/O, or wait for a CPU at idle priority while the app runs). What they
 * read (the tables, the plan) and what they write (what they prepaged)
 * stays until the last of a side is done (prepage_mm.running): only then
 * are a window's pages counted, a table replaced, a state's sides freed
 * or a side started again, by whoever finds it so under prepage_mm.lock,
 * else by the state's settle work, which the last prepager queues. Only
 * a reset, a table load and a reader of the procfs files wait for the
 * prepagers they need done, for at most %PREPAGE_STOP_WAIT, killably,
 * without prepage_mm.lock. The settle and lead works take
 * prepage_mm.lock; nothing waits for them, and a user of the address
 * space dropped under the lock is dropped with mmput_async().
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
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/swap.h>

#include "../internal.h"
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
/* Address spaces with prepagers queued or running (prepage_mm.running). */
static atomic_t prepage_nr_running = ATOMIC_INIT(0);
/*
 * States unhashed and not yet released (shut down, or to be by their
 * settle work, and waiting for their prepagers): prepage is turned off
 * (its static key, its threads) once there are none.
 */
static atomic_t prepage_draining = ATOMIC_INIT(0);
static void prepage_teardown_fn(struct work_struct *work);
static DECLARE_WORK(prepage_teardown_work, prepage_teardown_fn);
/* Woken when the last prepager of a state is done. */
static DECLARE_WAIT_QUEUE_HEAD(prepage_stopped_wq);
/* How long a reset or a table load waits for the prepagers they stop. */
#define PREPAGE_STOP_WAIT	(HZ / 5)
/*
 * A window whose settle finds the app's mmap lock contended is tried
 * again this much later, up to %PREPAGE_SETTLE_TRIES times; then, or at
 * once if the next window waits for it, it is forgotten.
 */
#define PREPAGE_SETTLE_RETRY	(HZ / 20)
#define PREPAGE_SETTLE_TRIES	10

DEFINE_PER_CPU(struct prepage_events, prepage_events);

/**
 * prepage_events_sum() - a counter of every address space, since boot
 * @item:	the counter
 *
 * Return: its sum over the CPUs (of &struct prepage_events).
 */
unsigned long prepage_events_sum(enum prepage_stat_item item)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(prepage_events, cpu).count[item];
	return sum;
}

/*
 * Kilobytes one window may bring in, file and anonymous pages together.
 * Default: 262144 (256 MiB).
 */
unsigned int prepage_max_switch_kbytes __read_mostly = 262144;

/*
 * Start first the prepagers of the side the app waited on first in its
 * last windows, and those of the other side once they are done or the
 * app waits on it. Default: on.
 */
bool prepage_order_sides __read_mostly = true;

/* The backends, by &enum prepage_side; registered at boot, never removed. */
const struct prepage_ops *prepage_backends[PREPAGE_NR_SIDES];

/**
 * prepage_register_ops() - register a backend
 * @ops:	the backend; it must stay valid for good
 *
 * Context: an initcall, before prepage can be enabled.
 * Return: 0, or -EINVAL if its side is taken or out of range, or its
 * &prepage_ops.wait_kind is not a log kind.
 */
int __init prepage_register_ops(const struct prepage_ops *ops)
{
	/* They are bits of a u8: &prepage_mm.reach_kinds. */
	static_assert(NR_PREPAGE_LOG_KINDS <= 8);

	if (ops->side >= PREPAGE_NR_SIDES || prepage_backends[ops->side] ||
	    WARN_ON_ONCE(ops->wait_kind >= NR_PREPAGE_LOG_KINDS))
		return -EINVAL;
	prepage_backends[ops->side] = ops;
	return 0;
}

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

/* What a settle does when the app's mmap lock is contended. */
enum prepage_settle_how {
	PREPAGE_SETTLE_TRY,	/* leave the window to settle later */
	PREPAGE_SETTLE_NOW,	/* forget it */
	PREPAGE_SETTLE_FORGET,	/* forget it, whether or not */
};

static void prepage_settle_fn(struct work_struct *work);
static void prepage_lead_fn(struct work_struct *work);
static bool prepage_window_settle(struct prepage_mm *pm,
				  enum prepage_settle_how how);

/*
 * A new state, idle, with no address space and one reference; the
 * caller sets slot.mm, with a reference of its own to it, before its
 * last prepage_mm_put(). Return: the state, or NULL.
 */
static struct prepage_mm *prepage_mm_alloc(void)
{
	struct prepage_mm *pm;

	pm = kmem_cache_zalloc(prepage_mm_cache, GFP_KERNEL_ACCOUNT);
	if (!pm)
		return NULL;
	kref_init(&pm->kref);
	mutex_init(&pm->lock);
	pm->state = PREPAGE_IDLE;
	INIT_DELAYED_WORK(&pm->settle_work, prepage_settle_fn);
	pm->lead = PREPAGE_NR_SIDES;
	INIT_WORK(&pm->lead_work, prepage_lead_fn);
	spin_lock_init(&pm->log_lock);
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

	new = prepage_mm_alloc();
	if (!new)
		return ERR_PTR(-ENOMEM);
	kref_get(&new->kref);		/* the caller's; the first is the hash's */

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
		/* The exit and access hooks look for state only if it is set. */
		set_bit(MMF_PREPAGE, &mm->flags);
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
#ifdef CONFIG_MEMCG
	/*
	 * A charge past memory.high leaves its reclaim to the return to
	 * user space, which a kernel thread never takes: the next blocking
	 * charge of the thread, for another app, would do it.
	 */
	if (current->flags & PF_KTHREAD)
		current->memcg_nr_pages_over_high = 0;
#endif
}

/* Whether prepagers of backend @i of @pm are queued or running. */
static bool prepage_side_prepaging(struct prepage_mm *pm, unsigned int i)
{
	return READ_ONCE(pm->running) & BIT(i);
}

/*
 * Queue @pm's settle work to run at once, or after @delay if it is not
 * queued already; it holds a reference until it is done.
 */
static void prepage_settle_queue_delayed(struct prepage_mm *pm,
					 unsigned long delay)
{
	bool pending;

	kref_get(&pm->kref);
	if (delay)
		pending = !queue_delayed_work(system_unbound_wq,
					      &pm->settle_work, delay);
	else
		pending = mod_delayed_work(system_unbound_wq, &pm->settle_work,
					   0);
	if (pending)
		prepage_mm_put(pm);
}

static void prepage_settle_queue(struct prepage_mm *pm)
{
	prepage_settle_queue_delayed(pm, 0);
}

/*
 * Queue @pm's lead work, likewise. The caller holds a reference, or
 * @pm->log_lock with the window logging (the hash's reference is dropped
 * only once the window closed).
 */
static void prepage_lead_queue(struct prepage_mm *pm)
{
	kref_get(&pm->kref);
	if (!queue_work(system_unbound_wq, &pm->lead_work))
		prepage_mm_put(pm);
}

/**
 * prepage_prepaging() - whether prepagers of a window are queued or running
 * @pm:	the prepage state
 *
 * Return: true if a prepager of any backend is, or waits to start: for
 * those of the window's lead side, or of an earlier stop, to be done.
 */
bool prepage_prepaging(struct prepage_mm *pm)
{
	return READ_ONCE(pm->deferred) || READ_ONCE(pm->running) ||
	       READ_ONCE(pm->start_mask);
}

/* Note how long the window's prepagers took, if they are all done. */
static void prepage_prepagers_idle(struct prepage_mm *pm)
{
	if (!prepage_prepaging(pm))
		WRITE_ONCE(pm->last_prepage_ns,
			   ktime_get_ns() - pm->prepage_start);
}

/**
 * prepage_prepagers_done() - the last prepager of a backend is done
 * @pm:		the prepage state
 * @side:	the backend
 *
 * Called once for each start of a backend (&prepage_ops.start): by the
 * last prepager it queued, stopped or not, when it no longer uses anything
 * of the backend's state; by the core if it queued none. Starts the side
 * that waits for the lead's, if one does (its lead work checks that the
 * lead's prepagers are done); else notes how long the window's prepagers
 * took, once those of every backend are done. The last prepager of the
 * state queues its settle work if something waited for them to stop.
 *
 * Context: a prepage thread, or the start of a side, with the state's
 * lock held. Drops the reference the core took for the side.
 */
void prepage_prepagers_done(struct prepage_mm *pm, enum prepage_side side)
{
	bool idle, pending;
	unsigned int deferred;

	spin_lock(&pm->log_lock);
	WRITE_ONCE(pm->running, pm->running & ~BIT(side));
	idle = !pm->running;
	if (idle)
		atomic_dec(&prepage_nr_running);
	deferred = pm->deferred;
	/* Set under the state's lock before its holder looks at @running. */
	pending = READ_ONCE(pm->settling) || READ_ONCE(pm->start_mask) ||
		  READ_ONCE(pm->shut) || READ_ONCE(pm->switched_out);
	spin_unlock(&pm->log_lock);
	/* The work checks again whether they are done, under the lock. */
	if (deferred)
		prepage_lead_queue(pm);
	else if (idle)
		prepage_prepagers_idle(pm);
	if (idle && pending)
		prepage_settle_queue(pm);
	if (wq_has_sleeper(&prepage_stopped_wq))
		wake_up_all(&prepage_stopped_wq);
	prepage_mm_put(pm);
}

/*
 * Whether prepagers of @pm, of any side, are queued or running; read
 * under @pm->log_lock, after what the caller set under @pm->lock for the
 * last of them to see (prepage_prepagers_done()).
 */
static bool prepage_running(struct prepage_mm *pm)
{
	bool running;

	lockdep_assert_held(&pm->lock);
	spin_lock(&pm->log_lock);
	running = pm->running;
	spin_unlock(&pm->log_lock);
	return running;
}

/*
 * Wait until the prepagers of the sides in @mask, told to stop, are done:
 * for a reset or a table load, which change what they use, and a reader.
 * Context: @pm->lock held, and dropped while waiting: the caller checks
 * again what it looked at before. Return: 0; -EBUSY if they were not
 * done within %PREPAGE_STOP_WAIT (or were started again meanwhile),
 * with @pm->lock held; -EINTR on a fatal signal, with @pm->lock dropped.
 */
static int prepage_stop_wait(struct prepage_mm *pm, unsigned int mask)
{
	long left;

	lockdep_assert_held(&pm->lock);
	if (!(READ_ONCE(pm->running) & mask))
		return 0;
	mutex_unlock(&pm->lock);
	left = wait_event_killable_timeout(prepage_stopped_wq,
					   !(READ_ONCE(pm->running) & mask),
					   PREPAGE_STOP_WAIT);
	if (left < 0 || mutex_lock_killable(&pm->lock))
		return -EINTR;
	return READ_ONCE(pm->running) & mask ? -EBUSY : 0;
}

/*
 * Make the state of backend @ops for @pm, if it has none yet; @pm's lock
 * is held. Return: 0 or -ENOMEM.
 */
static int prepage_side_make(struct prepage_mm *pm,
			     const struct prepage_ops *ops)
{
	void *state;

	lockdep_assert_held(&pm->lock);

	if (pm->side[ops->side])
		return 0;
	state = ops->state_new(pm);
	if (!state)
		return -ENOMEM;
	pm->side[ops->side] = state;
	return 0;
}

/* Drop the state of backend @ops for @pm, its prepagers stopped. */
static void prepage_side_free(struct prepage_mm *pm,
			      const struct prepage_ops *ops)
{
	lockdep_assert_held(&pm->lock);

	if (!pm->side[ops->side])
		return;
	ops->state_free(pm);
	pm->side[ops->side] = NULL;
}

/* Count @item for the window once, the first time @flag is set. */
static void prepage_stop_once(struct prepage_mm *pm, atomic_t *flag,
			      enum prepage_stat_item item)
{
	if (!atomic_cmpxchg(flag, 0, 1))
		prepage_stat_add(pm, item, 1);
}

#ifdef CONFIG_MEMCG
/*
 * Whether charging @nr more pages to the memory cgroup the current thread
 * charges (the app's, prepage_charge_begin()) would take its usage, or an
 * ancestor's, past memory.high or memory.max (memory.limit_in_bytes in
 * cgroup v1): the cgroup would reclaim, taking the app's own pages. A
 * charge takes a batch of MEMCG_CHARGE_BATCH pages from the counters
 * at once.
 */
static bool prepage_memcg_full(unsigned long nr)
{
	struct mem_cgroup *memcg = current->active_memcg;
	struct page_counter *pc;

	if (!memcg || mem_cgroup_disabled())
		return false;
	for (pc = &memcg->memory; pc; pc = pc->parent)
		if (page_counter_read(pc) + nr + MEMCG_CHARGE_BATCH >
		    min(READ_ONCE(pc->high), READ_ONCE(pc->max)))
			return true;
	return false;
}
#else
static bool prepage_memcg_full(unsigned long nr)
{
	return false;
}
#endif

/*
 * Whether @zone has room for @nr more movable user pages, of an
 * allocation that may use the zones up to @highest, above its low
 * watermark (watermark boost included): below it, the allocator wakes
 * kswapd, which would reclaim other pages, another app's, for them.
 */
static bool prepage_zone_has_room(struct zone *zone, unsigned long nr,
				  enum zone_type highest)
{
	return zone_watermark_ok(zone, 0, low_wmark_pages(zone) + nr, highest,
				 ALLOC_CMA);
}

/*
 * Whether the current thread bringing in @nr more pages would make memory
 * be reclaimed for them: from the memory cgroup it charges
 * (prepage_memcg_full()), or by the allocator, no zone it may take movable
 * user pages from (those of the current node, then of the others it falls
 * back to) having room for them above its low watermark, so that the
 * allocations would wake kswapd (prepage_zone_has_room()). Either way the
 * prepaging would take what the app, or another, needs, at the app's cost.
 * Once it is, the window takes nothing more (prepage_budget_take()).
 */
static bool prepage_under_pressure(unsigned long nr)
{
	enum zone_type highest = gfp_zone(GFP_HIGHUSER_MOVABLE);
	struct zonelist *zonelist;
	struct zoneref *z;
	struct zone *zone;

	if (prepage_memcg_full(nr))
		return true;
	zonelist = node_zonelist(numa_mem_id(), GFP_HIGHUSER_MOVABLE);
	for_each_zone_zonelist(zone, z, zonelist, highest)
		if (prepage_zone_has_room(zone, nr, highest))
			return false;
	return true;
}

/**
 * prepage_budget_take() - take pages from the budget of a window
 * @pm:	the prepage state, in a window
 * @nr:	pages a prepager is about to bring in
 *
 * The work of a window is bounded: its prepagers bring in at most
 * max_switch_kbytes, taken before each read or fault and given back
 * for the pages that were not brought in after all. It stops, and takes
 * nothing more, as soon as bringing pages in would make memory be
 * reclaimed for them (prepage_under_pressure()).
 *
 * Context: a prepager, its work charged (prepage_charge_begin()).
 * Return: the pages granted, at most @nr; 0 when the budget is spent or
 * the window stopped under pressure.
 */
unsigned long prepage_budget_take(struct prepage_mm *pm, unsigned long nr)
{
	long old, take;

	if (atomic_read(&pm->pressure_stopped))
		return 0;
	old = atomic_long_read(&pm->budget);
	/* A spent budget is a budget stop, whatever the pressure. */
	if (old > 0 && prepage_under_pressure(min_t(long, old, nr))) {
		prepage_stop_once(pm, &pm->pressure_stopped,
				  PREPAGE_STAT_PRESSURE_STOPS);
		return 0;
	}
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
 * prepage_budget_stop_reason() - why prepage_budget_take() granted less
 * @pm:	the prepage state, in a window
 *
 * Return: PREPAGE_STOP_PRESSURE if the window stopped under pressure,
 * else PREPAGE_STOP_BUDGET.
 */
enum prepage_stop_reason prepage_budget_stop_reason(struct prepage_mm *pm)
{
	return atomic_read(&pm->pressure_stopped) ? PREPAGE_STOP_PRESSURE :
						    PREPAGE_STOP_BUDGET;
}

/**
 * prepage_nomem_stop() - a prepager stops for want of memory
 * @pm:	the prepage state, in a window
 *
 * Counts the window once in nomem_stops, however many of its prepagers
 * stop so.
 *
 * Context: a prepage thread, or a backend starting the prepagers of a
 * window, with the state's lock held.
 */
void prepage_nomem_stop(struct prepage_mm *pm)
{
	prepage_stop_once(pm, &pm->nomem_stopped, PREPAGE_STAT_NOMEM_STOPS);
}

/**
 * prepage_mm_dying() - whether an address space is being killed or torn
 * down
 * @mm:	the address space; the caller keeps the mm_struct from being freed
 *
 * Speculation for it stops at once: its last user is gone, the OOM
 * reaper or process_mrelease() is taking its memory, or (with memory
 * cgroups, which keep the owner) its owner got a fatal signal, such as
 * a low-memory killer's SIGKILL, or is exiting, or no task uses it any
 * more (the references of the prepagers themselves, or of a GUP user,
 * keep mm_users up). Bringing its pages in would only delay the return
 * of its memory, at the cost of others.
 *
 * Context: a prepager. Takes only rcu_read_lock().
 * Return: true if it is.
 */
bool prepage_mm_dying(struct mm_struct *mm)
{
	bool dying = false;

	if (!atomic_read(&mm->mm_users) || test_bit(MMF_OOM_SKIP, &mm->flags) ||
	    test_bit(MMF_UNSTABLE, &mm->flags))
		return true;
#ifdef CONFIG_MEMCG
	{
		struct task_struct *owner;

		rcu_read_lock();
		owner = rcu_dereference(mm->owner);
		dying = !owner || fatal_signal_pending(owner) ||
			(owner->flags & PF_EXITING);
		rcu_read_unlock();
	}
#endif
	return dying;
}

/*
 * Take @pm out of the hash (the caller holds prepage_slots_lock). From
 * here on it takes no new window or table, even from a holder of a
 * reference taken before, and it is shut down by whoever unhashed it
 * (prepage_mm_shutdown()); prepage stays on until it is released.
 */
static void prepage_mm_unhash(struct prepage_mm *pm)
{
	lockdep_assert_held(&prepage_slots_lock);
	clear_bit(MMF_PREPAGE, &pm->slot.mm->flags);
	hash_del_rcu(&pm->slot.hash);
	WRITE_ONCE(pm->dead, true);
	atomic_inc(&prepage_draining);
}

/* The stop reason of prepagers whose window closes for @reason. */
static enum prepage_stop_reason
prepage_stop_reason_of(enum prepage_close_reason reason)
{
	static_assert(PREPAGE_STOP_DISABLED - PREPAGE_STOP_END ==
		      PREPAGE_CLOSE_DISABLED - PREPAGE_CLOSE_END);
	return PREPAGE_STOP_END + (reason - PREPAGE_CLOSE_END);
}

/*
 * Stop logging and close @pm's window (caller holds @pm->lock), for
 * @reason, telling its prepagers to stop (without waiting). A window that
 * closes while its prepagers are queued or running, or wait to start,
 * other than to restart, counts as a closed stop, unless it counted as a
 * budget, a pressure or a memory stop already: each window is counted for
 * one reason at most (but for a memory stop with one of the other two, or
 * a pressure stop racing the prepager that spends the budget).
 * Return: the number of entries the window logged.
 */
static unsigned int __prepage_window_close(struct prepage_mm *pm,
					   enum prepage_close_reason reason)
{
	bool busy = reason != PREPAGE_CLOSE_RESTART && prepage_prepaging(pm);
	const struct prepage_ops *ops;
	unsigned int nr, i;

	lockdep_assert_held(&pm->lock);

	pm->stop_reason = prepage_stop_reason_of(reason);
	/* A side still waiting for the lead's prepagers does not start. */
	spin_lock(&pm->log_lock);
	WRITE_ONCE(pm->deferred, 0);
	pm->reach_kinds = 0;
	spin_unlock(&pm->log_lock);
	/* Nor does one waiting for those of an earlier stop. */
	WRITE_ONCE(pm->start_mask, 0);
	for_each_prepage_ops(ops, i)
		if (pm->side[i] && ops->stop)
			ops->stop(pm);
	spin_lock(&pm->log_lock);
	pm->logging = false;
	nr = pm->log_nr;
	pm->log_nr = 0;
	spin_unlock(&pm->log_lock);
	atomic_dec(&prepage_nr_switching);
	pm->last_window_ns = ktime_get_ns() - pm->window_start;
	if (busy && !atomic_read(&pm->budget_spent) &&
	    !atomic_read(&pm->pressure_stopped) &&
	    !atomic_read(&pm->nomem_stopped))
		prepage_stat_add(pm, PREPAGE_STAT_CLOSED_STOPS, 1);
	pm->state = PREPAGE_IDLE;
	return nr;
}

/**
 * prepage_window_counts() - what a backend's counters gained in a window
 * @pm:		the prepage state
 * @ops:	the backend
 * @out:	its outcome of the window
 *
 * Sets @out's pages prepaged, hits and misses from the backend's counters,
 * since the window opened (first, if it was restarted): for the backend
 * to return from &prepage_ops.window_close once it counted the window.
 */
void prepage_window_counts(struct prepage_mm *pm,
			   const struct prepage_ops *ops,
			   struct prepage_outcome *out)
{
	out->prepaged = prepage_stat_read(pm, ops->stat_prepaged) -
			pm->window_stat[ops->stat_prepaged];
	if (ops->stat_hit)
		out->hit = prepage_stat_read(pm, ops->stat_hit) -
			   pm->window_stat[ops->stat_hit];
	out->miss = prepage_stat_read(pm, ops->stat_miss) -
		    pm->window_stat[ops->stat_miss];
}

/*
 * Fire the close event of @pm's window, closed for @reason with @logged
 * entries in its log: with each backend's outcome @out of it, once it was
 * counted; NULL if it was not, and then with what their counters gained
 * since it opened.
 */
static void prepage_window_closed(struct prepage_mm *pm,
				  enum prepage_close_reason reason,
				  unsigned int logged,
				  const struct prepage_outcome *out)
{
	struct prepage_outcome uncounted[PREPAGE_NR_SIDES] = {};
	unsigned long counts[PREPAGE_NR_WINDOW_COUNTS] = {};
	const struct prepage_ops *ops;
	unsigned int i;

	if (!trace_prepage_window_close_enabled())
		return;
	if (!out) {
		for_each_prepage_ops(ops, i)
			prepage_window_counts(pm, ops, &uncounted[i]);
		out = uncounted;
	}
	BUILD_BUG_ON(PREPAGE_NR_WINDOW_COUNTS != 3 * PREPAGE_NR_SIDES);
	for (i = 0; i < PREPAGE_NR_SIDES; i++) {
		counts[3 * i] = out[i].prepaged;
		counts[3 * i + 1] = out[i].hit;
		counts[3 * i + 2] = out[i].miss;
	}
	trace_prepage_window_close(pm->slot.mm, pm->pid, reason,
				   pm->last_window_ns, logged, pm->log_dropped,
				   counts);
}

/*
 * Whether prepage is disabled, read under prepage_slots_lock: the release
 * of the last draining state then sees the disable, or prepage_disable()
 * sees it released and turns prepage off itself.
 */
static bool prepage_is_off(void)
{
	bool off;

	spin_lock(&prepage_slots_lock);
	off = !prepage_on;
	spin_unlock(&prepage_slots_lock);
	return off;
}

/*
 * Free @pm's sides and logs, its prepagers done; a state that was shut
 * down is then released. Context: @pm->lock held.
 */
static void prepage_mm_release(struct prepage_mm *pm)
{
	const struct prepage_ops *ops;
	struct prepage_log_entry *log, *settle_log;
	unsigned int i;

	lockdep_assert_held(&pm->lock);

	for_each_prepage_ops(ops, i)
		prepage_side_free(pm, ops);
	spin_lock(&pm->log_lock);
	log = pm->log;
	pm->log = NULL;
	spin_unlock(&pm->log_lock);
	settle_log = pm->settle_log;
	pm->settle_log = NULL;
	pm->settling = false;
	WRITE_ONCE(pm->switched_out, false);
	kvfree(log);
	kvfree(settle_log);
	/* Counted in prepage_draining when it was unhashed (@dead). */
	if (pm->shut) {
		WRITE_ONCE(pm->shut, false);
		if (READ_ONCE(pm->dead) &&
		    atomic_dec_and_test(&prepage_draining) && prepage_is_off())
			queue_work(system_unbound_wq, &prepage_teardown_work);
	}
}

/*
 * Shut @pm down, for @pm->shut_reason; see prepage_mm_shutdown().
 * Context: @pm->lock held.
 */
static void __prepage_mm_shutdown(struct prepage_mm *pm)
{
	enum prepage_close_reason reason = pm->shut_reason;

	lockdep_assert_held(&pm->lock);

	pm->shut_pending = false;
	/* An ended window is forgotten, without a walk of the app's pages. */
	prepage_window_settle(pm, PREPAGE_SETTLE_FORGET);
	if (pm->state == PREPAGE_SWITCHING)
		prepage_window_closed(pm, reason,
				      __prepage_window_close(pm, reason), NULL);
	WRITE_ONCE(pm->shut, true);
	if (!prepage_running(pm))
		prepage_mm_release(pm);
}

/*
 * Drop @pm's window and tables for good, for @reason: its address space
 * is going away or prepage is being disabled. It must be unhashed
 * already. Waits for nothing: not for the state's lock, which, if it is
 * held, leaves the shutdown to the state's settle work; not for a
 * prepager: if some still run, the state is released once they are
 * done, by its settle work (prepage_after_stop()).
 */
static void prepage_mm_shutdown(struct prepage_mm *pm,
				enum prepage_close_reason reason)
{
	if (!mutex_trylock(&pm->lock)) {
		/* Read by the settle work under the lock, after its queueing. */
		pm->shut_reason = reason;
		WRITE_ONCE(pm->shut_pending, true);
		prepage_settle_queue(pm);
		return;
	}
	pm->shut_reason = reason;
	__prepage_mm_shutdown(pm);
	mutex_unlock(&pm->lock);
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
	 * Most address spaces never had prepage state: their flag is clear.
	 * Nobody can create state for @mm any more, since that takes a user
	 * of @mm and the last one is gone.
	 */
	if (!test_bit(MMF_PREPAGE, &mm->flags))
		return;

	spin_lock(&prepage_slots_lock);
	pm = prepage_mm_find(mm);
	if (pm)
		prepage_mm_unhash(pm);
	spin_unlock(&prepage_slots_lock);
	if (pm) {
		prepage_mm_shutdown(pm, PREPAGE_CLOSE_EXIT);
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

/*
 * Whether each backend of @pm sits out the window that opens (not on a
 * restart: a restarted window keeps its first start's choice): the one
 * whose prepaging did not pay in its last windows sits out the next
 * 2^level - 1 of them, and prepages again in the window after, to see
 * whether it pays now. A backend that would not have prepaged anyway
 * (disabled, or with no state yet) does not sit out, and keeps its
 * windows to sit out for when it prepages.
 */
static void prepage_backoff_open(struct prepage_mm *pm)
{
	const struct prepage_ops *ops;
	unsigned int i;

	for_each_prepage_ops(ops, i) {
		struct prepage_backoff *b = &pm->backoff[i];

		if (!ops->min_precision || !READ_ONCE(*ops->min_precision))
			*b = (struct prepage_backoff){};
		b->out = false;
		b->unjudged = false;
		b->targets = 0;
		if (!b->skip || !pm->side[i] || !ops->start ||
		    !READ_ONCE(*ops->enabled))
			continue;
		b->skip--;
		b->out = true;
		prepage_stat_add(pm, ops->stat_sat_out, 1);
	}
}

/**
 * prepage_backoff_judge() - judge whether the prepaging of a window paid
 * @b:		a backend's back-off, its window just closed and counted
 * @out:	the backend's outcome of the window
 * @permille:	its min_precision_permille
 * @unlogged:	it counts its hits from the log, and the window's log
 *		lacks accesses
 *
 * A window paid for a backend if, of the pages the backend prepaged for
 * it, the app used at least @permille thousandths (0 never backs off). A
 * page reclaimed before the app used it was not used, even if the app
 * then brought it back in itself, which counts it as a hit (and a miss):
 * it cost its read or swap-in, and what it took from reclaim, for
 * nothing. One that did not pay raises the backend's back-off level, and
 * the backend sits out the next 2^level - 1 windows; one that paid ends
 * the back-off. A window in which the backend prepaged fewer than
 * %PREPAGE_BACKOFF_PAGES pages, or less than 1/%PREPAGE_BACKOFF_SHARE of
 * the target pages it started with, or of the window's budget if
 * smaller (the rest was resident: the few it read, say stale entries of
 * the table, tell little of whether it pays when the app's pages are
 * cold), or sat out, or had its table replaced, or is @unlogged (uses
 * would look like waste) tells nothing and changes nothing.
 *
 * It reads only @b and @out: the core judges every backend alike.
 */
static void prepage_backoff_judge(struct prepage_backoff *b,
				  const struct prepage_outcome *out,
				  unsigned int permille, bool unlogged)
{
	unsigned long used;

	if (b->out || b->unjudged || unlogged)
		return;
	if (out->prepaged < max_t(unsigned long, PREPAGE_BACKOFF_PAGES,
				  b->targets / PREPAGE_BACKOFF_SHARE))
		return;
	used = out->hit - min(out->hit, out->refetched);
	if ((u64)used * 1000 >= (u64)permille * out->prepaged) {
		b->level = 0;
		return;
	}
	b->level = min_t(unsigned int, b->level + 1, PREPAGE_BACKOFF_MAX);
	b->skip = (1U << b->level) - 1;
}

/*
 * Count the waits of each of @nr_sides backends in a window's log, @nr
 * entries in the order the accesses happened, into their outcomes @out:
 * the entries of the kind @wait_kind[side] (%PREPAGE_LOG_NONE for none),
 * and the sum of their positions.
 */
static void prepage_log_waits(const struct prepage_log_entry *log,
			      unsigned int nr, const u8 *wait_kind,
			      unsigned int nr_sides,
			      struct prepage_outcome *out)
{
	unsigned int i, side;

	for (i = 0; i < nr; i++) {
		for (side = 0; side < nr_sides; side++) {
			if (log[i].kind != wait_kind[side])
				continue;
			out[side].waits++;
			out[side].wait_pos += i;
			break;
		}
	}
}

/*
 * The side an app wants first, from the outcomes @out of @nr_sides
 * backends in a window that tells (see prepage_window_settle()). The app
 * waits on a side where it brings pages in itself (&prepage_ops.wait_kind:
 * file pages it adds to the page cache, anonymous pages it swaps in).
 * Where it waited on more than one side, the side whose waits come
 * earliest in the log, on average, leads: a few incidental waits at the
 * start of a switch (a stack page, a buffer) do not decide, and a tie for
 * the earliest keeps @lead. A window in which it waited on one side only,
 * or on none, tells nothing of the order (another side may have been
 * prepaged in time): @lead, the side learned before (&enum prepage_side,
 * or @nr_sides or more for none), stays. Return: the side that leads from
 * now on.
 */
static unsigned int prepage_lead_learn(const struct prepage_outcome *out,
				       unsigned int nr_sides, unsigned int lead)
{
	unsigned int i, best = nr_sides, told = 0;
	bool tie = false;

	for (i = 0; i < nr_sides; i++) {
		u64 mine, theirs;

		if (!out[i].waits)
			continue;
		told++;
		if (best == nr_sides) {
			best = i;
			continue;
		}
		/* Earlier on average: sum / count, without a division. */
		mine = out[i].wait_pos * out[best].waits;
		theirs = out[best].wait_pos * out[i].waits;
		if (mine < theirs) {
			best = i;
			tie = false;
		} else if (mine == theirs) {
			tie = true;
		}
	}
	return told < 2 || tie ? lead : best;
}

/*
 * The sides whose prepagers wait for those of side @lead, by bit, of the
 * sides in @starting (a bit each), if the sides are ordered (@order): all
 * the others, when the lead starts with them; else none (0).
 */
static unsigned int prepage_lead_defer(unsigned int lead,
				       unsigned int starting, bool order)
{
	if (!order || lead >= BITS_PER_TYPE(starting) ||
	    !(starting & BIT(lead)))
		return 0;
	return starting & ~BIT(lead);
}

/*
 * Start the prepagers of backend @i for @pm's open window. The back-off
 * judges a window by the targets of the side's first start in it (a
 * restarted window by those of its first start). Return: whether a
 * prepager was queued, or will be once those told to stop before are
 * done (&prepage_mm.start_mask).
 */
static bool prepage_side_start(struct prepage_mm *pm, unsigned int i)
{
	const struct prepage_ops *ops = prepage_backends[i];
	struct prepage_backoff *b = &pm->backoff[i];
	bool queued;

	lockdep_assert_held(&pm->lock);
	/*
	 * Prepagers of the side told to stop are still running, or those of
	 * the window before are, which is still to be settled: start once
	 * they are done.
	 */
	if (pm->settling || prepage_side_prepaging(pm, i)) {
		WRITE_ONCE(pm->start_mask, pm->start_mask | BIT(i));
		if (!prepage_running(pm))
			prepage_settle_queue(pm);
		return true;
	}
	/* The prepagers' reference, dropped by prepage_prepagers_done(). */
	kref_get(&pm->kref);
	spin_lock(&pm->log_lock);
	if (!pm->running)
		atomic_inc(&prepage_nr_running);
	WRITE_ONCE(pm->running, pm->running | BIT(i));
	spin_unlock(&pm->log_lock);
	queued = ops->start(pm);
	/*
	 * Then none will say it is done: the core does, as the last of them
	 * would, in case the other side's last ended meanwhile.
	 */
	if (!queued)
		prepage_prepagers_done(pm, i);
	/* A side can bring in no more than the window's budget. */
	if (!b->targets && ops->targets)
		b->targets = min(ops->targets(pm), pm->window_budget);
	return queued;
}

/*
 * Start the prepagers of the sides that wait in @pm's open window, as
 * @why says: the lead's are "done", or the app "reached" them. Unless a
 * side was turned off since the window opened.
 */
static void prepage_deferred_start(struct prepage_mm *pm, const char *why)
{
	unsigned int i, deferred = pm->deferred;
	const struct prepage_ops *ops;

	lockdep_assert_held(&pm->lock);
	spin_lock(&pm->log_lock);
	WRITE_ONCE(pm->deferred, 0);
	pm->reach_kinds = 0;
	spin_unlock(&pm->log_lock);
	for_each_prepage_ops(ops, i) {
		if (!(deferred & BIT(i)) || !READ_ONCE(*ops->enabled))
			continue;
		trace_prepage_side_start(pm->slot.mm, pm->pid, ops->name, why);
		prepage_side_start(pm, i);
	}
	/* They may have had nothing to prepage either. */
	prepage_prepagers_idle(pm);
}

/*
 * Start the prepagers of the sides in @starting of @pm's open window,
 * but those that wait for the lead's; those too if the lead has nothing
 * to prepage. Context: @pm->lock held.
 */
static void prepage_sides_start(struct prepage_mm *pm, unsigned int starting)
{
	unsigned int i, deferred = pm->deferred;
	const struct prepage_ops *ops;

	lockdep_assert_held(&pm->lock);
	for_each_prepage_ops(ops, i) {
		if (!(starting & BIT(i)) || (deferred & BIT(i)) ||
		    prepage_side_start(pm, i) || !deferred)
			continue;
		/*
		 * A lead with nothing to prepage does not make the others
		 * wait; the window then teaches as one whose sides started
		 * at once.
		 */
		prepage_deferred_start(pm, "done");
		pm->lead_ordered = false;
	}
}

/*
 * The lead work of a state: start the side that waits, once the lead
 * side's prepagers are done or the app waited on the waiting side. It
 * may find the window closed, or another window open whose lead is not
 * done: then it does nothing.
 */
static void prepage_lead_fn(struct work_struct *work)
{
	struct prepage_mm *pm = container_of(work, struct prepage_mm,
					     lead_work);
	struct mm_struct *mm = pm->slot.mm;
	struct prepage_charge charge;

	mutex_lock(&pm->lock);
	if (pm->state != PREPAGE_SWITCHING ||
	    !pm->deferred ||
	    (!READ_ONCE(pm->reached) &&
	     (prepage_side_prepaging(pm, pm->lead) ||
	      (pm->start_mask & BIT(pm->lead)))))
		goto out;
	/* The window's prepagers' memory is the app's. */
	if (!mmget_not_zero(mm))
		goto out;
	prepage_charge_begin(mm, &charge);
	prepage_deferred_start(pm, READ_ONCE(pm->reached) ? "reached" : "done");
	prepage_charge_end(&charge);
	mmput_async(mm);
out:
	mutex_unlock(&pm->lock);
	prepage_mm_put(pm);
}

/*
 * Forget what @pm's app used since its last window, if it left the
 * foreground since (&prepage_mm.switched_out) and that window is
 * settled: the backends that walk its page tables clear what they read
 * at the end of the next window, under its mmap lock, which is only
 * tried. If it is contended, with @retry the work is left to be tried
 * again; else it is not done, and the next window counts what the app
 * used before it, as if the app never said it left. Context: @pm->lock
 * held, no window open. Return: false if it is left to be tried again.
 */
static bool prepage_forget_background(struct prepage_mm *pm, bool retry)
{
	struct mm_struct *mm = pm->slot.mm;
	const struct prepage_ops *ops;
	struct prepage_charge charge;
	bool locked = false;
	unsigned int i;

	lockdep_assert_held(&pm->lock);

	if (!pm->switched_out || pm->settling || pm->shut)
		return true;
	/* Its prepagers read the tables: after them (they queue the work). */
	if (prepage_running(pm))
		return false;
	for_each_prepage_ops(ops, i)
		if (pm->side[i] && ops->switch_out)
			break;
	/* Nothing to walk. */
	if (i == PREPAGE_NR_SIDES)
		goto done;
	if (mmget_not_zero(mm)) {
		locked = mmap_read_trylock(mm);
		if (!locked && retry) {
			mmput_async(mm);
			return false;
		}
		if (locked) {
			/* The walks' bookkeeping is the app's. */
			prepage_charge_begin(mm, &charge);
			for_each_prepage_ops(ops, i)
				if (pm->side[i] && ops->switch_out)
					ops->switch_out(pm);
			prepage_charge_end(&charge);
			mmap_read_unlock(mm);
		}
		mmput_async(mm);
	}
done:
	WRITE_ONCE(pm->switched_out, false);
	pm->settle_tries = 0;
	return true;
}

/**
 * prepage_window_open() - an app switch to @pm's address space begins
 * @pm:	the prepage state
 *
 * Opens the accounting window: from now on the app's accesses are logged,
 * the file prepagers start reading the target tables and the anonymous
 * prepagers start swapping the target pages in: both at once, or, if the
 * app is known to want one side first (prepage_lead_learn()), that side's,
 * and the other's once they are done or the app waits on that side. The
 * caller holds a user of the address space.
 *
 * A start while a window is open restarts it: the log of the window so far
 * is neither counted nor learned from (the accessed bits its accesses set
 * count in the new window), but what was prepaged for it is carried over
 * and the prepagers go on with the same plan: the new window wants the
 * same pages, within the budget of the window it restarts; a side that
 * still waited for the lead's prepagers waits on. As the new log lacks the
 * accesses before the restart, no prepaged file page leaves the target at
 * the new end (anonymous use is read from the accessed bits, which span
 * the restart).
 *
 * A window that ended before and that its settle work has not settled
 * yet is settled here, as far as that waits for nothing
 * (prepage_window_settle() with %PREPAGE_SETTLE_NOW): it is judged by
 * what this window resets.
 *
 * Return: 0; -ESRCH if the address space is gone; -ENOMEM; -EINTR if
 * interrupted by a fatal signal.
 */
int prepage_window_open(struct prepage_mm *pm)
{
	unsigned int i, deferred, waiting, reach_kinds = 0, starting = 0;
	bool restart = false;
	const struct prepage_ops *ops;
	int ret = 0;

	if (mutex_lock_killable(&pm->lock))
		return -EINTR;
	if (READ_ONCE(pm->dead)) {
		ret = -ESRCH;
		goto out;
	}
	/*
	 * The last window is counted, and learned from, before the next
	 * resets what it is judged by, if its settle work did not yet: only
	 * if that waits for nothing. Else (its prepagers are still stopping)
	 * it is forgotten below, once they are done; or (the app's mmap lock
	 * is contended) now.
	 */
	prepage_window_settle(pm, PREPAGE_SETTLE_NOW);
	/*
	 * What the app used since it left the foreground, if the settle
	 * work has not forgotten it yet, counts in this window: the walk
	 * would race with the app's first accesses in it, and lengthen the
	 * writer's path.
	 */
	if (pm->switched_out) {
		WRITE_ONCE(pm->switched_out, false);
		if (!pm->settling)
			pm->settle_tries = 0;
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
	/* The backends the window prepages for learn from it. */
	for_each_prepage_ops(ops, i) {
		if (READ_ONCE(*ops->enabled))
			ret = prepage_side_make(pm, ops);
		if (ret)
			goto out;
	}
	/* The last window is forgotten only once this one opens. */
	if (pm->settling && !pm->settle_discard) {
		pm->settle_discard = true;
		prepage_window_closed(pm, PREPAGE_CLOSE_END, pm->settle_nr,
				      NULL);
	}
	/* A restart goes on with the side that still waits, if one does. */
	waiting = pm->deferred;
	if (pm->state == PREPAGE_SWITCHING) {
		prepage_window_closed(pm, PREPAGE_CLOSE_RESTART,
				      __prepage_window_close(pm,
							     PREPAGE_CLOSE_RESTART),
				      NULL);
		prepage_stat_add(pm, PREPAGE_STAT_RESTARTS, 1);
		restart = true;
	}
	pm->state = PREPAGE_SWITCHING;
	pm->window_start = ktime_get_ns();
	atomic_inc(&prepage_nr_switching);
	pm->pid = prepage_owner_pid(pm->slot.mm);
	prepage_stat_add(pm, PREPAGE_STAT_SWITCHES, 1);
	/* A restarted window goes on with what is left of its budget. */
	if (!restart) {
		atomic_long_set(&pm->budget, (unsigned long)
				READ_ONCE(prepage_max_switch_kbytes) >>
				(PAGE_SHIFT - 10));
		atomic_set(&pm->budget_spent, 0);
		atomic_set(&pm->pressure_stopped, 0);
		atomic_set(&pm->nomem_stopped, 0);
	}
	/* A restarted window counts from its first start, as its budget. */
	for (i = 0; !restart && i < NR_PREPAGE_STAT; i++)
		pm->window_stat[i] = prepage_stat_read(pm, i);
	pm->prepage_start = ktime_get_ns();
	WRITE_ONCE(pm->last_prepage_ns, 0);
	if (!restart) {
		prepage_backoff_open(pm);
		/* Read before any prepager takes from it. */
		pm->window_budget = atomic_long_read(&pm->budget);
	}
	for_each_prepage_ops(ops, i)
		if (pm->side[i] && ops->start && READ_ONCE(*ops->enabled) &&
		    !pm->backoff[i].out)
			starting |= BIT(i);
	deferred = prepage_lead_defer(pm->lead, starting,
				      READ_ONCE(prepage_order_sides));
	if (restart && deferred != waiting)
		deferred = 0;
	for_each_prepage_ops(ops, i)
		if (deferred & BIT(i))
			reach_kinds |= BIT(ops->wait_kind);
	spin_lock(&pm->log_lock);
	pm->logging = true;
	/* A restarted window's log lacks the accesses before the restart. */
	pm->log_dropped = restart;
	WRITE_ONCE(pm->deferred, deferred);
	pm->reach_kinds = reach_kinds;
	/* The same switch: its lead work, if queued, starts the sides. */
	if (!restart || !deferred) {
		WRITE_ONCE(pm->reached, false);
		pm->reach_pages = 0;
	}
	pm->lead_ordered = deferred;
	spin_unlock(&pm->log_lock);
	trace_prepage_window_open(pm->slot.mm, pm->pid, restart,
				  deferred ?
				  prepage_backends[pm->lead]->name : "none");
	prepage_sides_start(pm, starting);
out:
	mutex_unlock(&pm->lock);
	return ret;
}

/*
 * Count @pm's window that ended, with its log @log, and learn from it,
 * in the backends that walk the app's page tables (@walks_mm) or in the
 * others; judge their back-offs. Each backend's outcome goes to @out.
 */
static void prepage_sides_close(struct prepage_mm *pm,
				struct prepage_log_entry *log,
				struct prepage_outcome *out, bool walks_mm)
{
	const struct prepage_ops *ops;
	unsigned int i;

	for_each_prepage_ops(ops, i) {
		if (!pm->side[i] || ops->walks_mm != walks_mm)
			continue;
		ops->window_close(pm, log, pm->settle_nr, &out[i]);
		if (ops->min_precision)
			prepage_backoff_judge(&pm->backoff[i], &out[i],
					      READ_ONCE(*ops->min_precision),
					      ops->hits_logged &&
					      pm->log_dropped);
	}
}

/**
 * prepage_window_settle() - count an ended window and learn from it
 * @pm:		the prepage state
 * @how:	what to do if the app's mmap lock is contended
 *
 * Does what the end of a window left to do, if it is still to be done
 * and its prepagers are done: counts its hits and misses, updates the
 * tables from what the app used, judges whether each backend's
 * prepaging paid (prepage_backoff_judge()) and fires the close event; then
 * frees its log. Its settle work does it as soon as the prepagers are
 * done; whoever needs the window counted first tries it itself: a reset,
 * a table load, a reader of /proc/<pid>/prepage, prepage_stat or
 * prepage_table. The backends walk the page tables under the app's mmap
 * lock, which is only tried: with %PREPAGE_SETTLE_TRY a window whose
 * lock is contended is left to settle later; with %PREPAGE_SETTLE_NOW it
 * is forgotten, as one the shutdown of the state settles
 * (%PREPAGE_SETTLE_FORGET) always is. A window whose address space
 * exited first stays uncounted, and closes as the exit's. A window the
 * next opened before its prepagers were done is forgotten instead, as a
 * reset forgets one (&prepage_mm.settle_discard). A forgotten window is
 * not counted or learned from; what was prepaged for it is demoted as
 * far as the lock allows.
 *
 * Context: @pm->lock held.
 * Return: false if the window is left to settle later (its prepagers
 * run, or @how is %PREPAGE_SETTLE_TRY and the lock is contended).
 */
static bool prepage_window_settle(struct prepage_mm *pm,
				  enum prepage_settle_how how)
{
	struct mm_struct *mm = pm->slot.mm;
	struct prepage_log_entry *log = pm->settle_log;
	bool discard = pm->settle_discard, mapped, walks = false;
	bool locked = false;
	const struct prepage_ops *ops;
	struct prepage_charge charge;
	unsigned int i;

	lockdep_assert_held(&pm->lock);

	if (!pm->settling)
		return true;
	if (prepage_running(pm))
		return false;
	mapped = how != PREPAGE_SETTLE_FORGET && mmget_not_zero(mm);
	for_each_prepage_ops(ops, i)
		walks |= pm->side[i] && ops->walks_mm;
	/* Never wait for the app's lock: a slow fault may hold it. */
	if (mapped && !discard && walks) {
		locked = mmap_read_trylock(mm);
		if (!locked && how == PREPAGE_SETTLE_TRY) {
			mmput_async(mm);
			return false;
		}
	}
	pm->settling = false;
	pm->settle_log = NULL;
	pm->settle_discard = false;
	pm->settle_tries = 0;
	if (discard || (mapped && walks && !locked)) {
		/*
		 * Closed already, or its walk would wait: what it prepaged
		 * goes as a reset's, demoted where the lock is free.
		 */
		if (!discard)
			prepage_window_closed(pm, PREPAGE_CLOSE_END,
					      pm->settle_nr, NULL);
		for_each_prepage_ops(ops, i)
			if (mapped && pm->side[i] && ops->window_discard)
				ops->window_discard(pm);
	} else if (!mapped) {
		prepage_window_closed(pm, how == PREPAGE_SETTLE_FORGET ?
				      pm->shut_reason : PREPAGE_CLOSE_EXIT,
				      pm->settle_nr, NULL);
	} else {
		struct prepage_outcome out[PREPAGE_NR_SIDES] = {};
		u8 wait_kind[PREPAGE_NR_SIDES];

		/* What the window learns is the app's, whoever settles it. */
		prepage_charge_begin(mm, &charge);
		/* In the order of the accesses: before a backend reorders it. */
		for (i = 0; i < PREPAGE_NR_SIDES; i++)
			wait_kind[i] = prepage_backends[i] ?
				       prepage_backends[i]->wait_kind :
				       PREPAGE_LOG_NONE;
		prepage_log_waits(log, pm->settle_nr, wait_kind,
				  PREPAGE_NR_SIDES, out);
		/*
		 * The backends that walk the app's page tables first, under
		 * its mmap lock; then the others, without it.
		 */
		prepage_sides_close(pm, log, out, true);
		if (locked)
			mmap_read_unlock(mm);
		prepage_sides_close(pm, log, out, false);
		/*
		 * A window tells which side the app wants first if its sides
		 * started at once, or if the app reached the sides that
		 * waited; not if its log lacks accesses.
		 */
		if (!pm->log_dropped && (!pm->lead_ordered || pm->reached))
			pm->lead = prepage_lead_learn(out, PREPAGE_NR_SIDES,
						      pm->lead);
		prepage_window_closed(pm, PREPAGE_CLOSE_END, pm->settle_nr,
				      out);
		prepage_charge_end(&charge);
	}
	/* The last user's exit would take @pm->lock. */
	if (mapped)
		mmput_async(mm);
	kvfree(log);
	return true;
}

/**
 * prepage_window_settle_wait() - settle an ended window for a reader
 * @pm:	the prepage state
 *
 * As prepage_window_settle() with %PREPAGE_SETTLE_TRY, but waits first
 * for the window's prepagers to be done, for at most %PREPAGE_STOP_WAIT,
 * without @pm->lock: what a reader of /proc/<pid>/prepage, prepage_stat
 * or prepage_table is shown counts the window that ended, unless its
 * prepagers are stuck or the app's mmap lock is contended.
 *
 * Context: @pm->lock held; dropped while waiting.
 * Return: 0 with @pm->lock held; -EINTR on a fatal signal, without it.
 */
int prepage_window_settle_wait(struct prepage_mm *pm)
{
	lockdep_assert_held(&pm->lock);

	if (pm->settling && !pm->settle_discard &&
	    prepage_stop_wait(pm, BIT(PREPAGE_NR_SIDES) - 1) == -EINTR)
		return -EINTR;
	prepage_window_settle(pm, PREPAGE_SETTLE_TRY);
	/* And what "background" is to forget, if the lock is free. */
	if (pm->state != PREPAGE_SWITCHING)
		prepage_forget_background(pm, true);
	return 0;
}

/**
 * prepage_window_prepaged() - whether the last window's prepagers brought
 * pages in
 * @pm:	the prepage state
 *
 * Only then may its settle demote, and the LRU batches of every CPU
 * matter to it (lru_add_drain_all() is drained only then).
 *
 * Context: any; reads the counters without @pm->lock.
 * Return: true if they did.
 */
bool prepage_window_prepaged(struct prepage_mm *pm)
{
	const struct prepage_ops *ops;
	unsigned int i;

	for_each_prepage_ops(ops, i)
		if (prepage_stat_read(pm, ops->stat_prepaged) !=
		    READ_ONCE(pm->window_stat[ops->stat_prepaged]))
			return true;
	return false;
}

/* What prepage_after_stop() did, by bit. */
#define PREPAGE_SETTLE_AGAIN	BIT(0)	/* the settle is to be tried later */
#define PREPAGE_SETTLED		BIT(1)	/* a window was settled */

/*
 * What waited for the prepagers of @pm to be done, once they are: the
 * settle of the window that ended, the release of a state shut down, the
 * start of the prepagers of the open window; and a shutdown that found
 * @pm->lock held. A settle whose mmap lock is contended is tried again
 * later, up to %PREPAGE_SETTLE_TRIES times, unless the prepagers of the
 * open window wait for it: then it is forgotten. Context: @pm->lock
 * held. Return: %PREPAGE_SETTLE_AGAIN and %PREPAGE_SETTLED, or 0.
 */
static unsigned int prepage_after_stop(struct prepage_mm *pm)
{
	enum prepage_settle_how how = PREPAGE_SETTLE_NOW;
	struct mm_struct *mm = pm->slot.mm;
	struct prepage_charge charge;
	unsigned int starting, done = 0;

	lockdep_assert_held(&pm->lock);

	if (pm->shut_pending)
		__prepage_mm_shutdown(pm);
	if (prepage_running(pm))
		return 0;
	/* A state shut down forgets its window without a walk. */
	if (pm->shut)
		how = PREPAGE_SETTLE_FORGET;
	else if (pm->settling && !pm->start_mask &&
		 ++pm->settle_tries < PREPAGE_SETTLE_TRIES)
		how = PREPAGE_SETTLE_TRY;
	if (pm->settling)
		done = PREPAGE_SETTLED;
	if (!prepage_window_settle(pm, how))
		return PREPAGE_SETTLE_AGAIN;
	if (pm->shut) {
		prepage_mm_release(pm);
		return done;
	}
	if (pm->switched_out && pm->state != PREPAGE_SWITCHING &&
	    !prepage_forget_background(pm, ++pm->settle_tries <
					   PREPAGE_SETTLE_TRIES))
		return done | PREPAGE_SETTLE_AGAIN;
	starting = pm->start_mask;
	if (!starting)
		return done;
	WRITE_ONCE(pm->start_mask, 0);
	/* The window's prepagers' memory is the app's. */
	if (pm->state != PREPAGE_SWITCHING || !mmget_not_zero(mm))
		return done;
	prepage_charge_begin(mm, &charge);
	prepage_sides_start(pm, starting);
	prepage_prepagers_idle(pm);
	prepage_charge_end(&charge);
	mmput_async(mm);
	return done;
}

/* The settle work of a state: see prepage_window_close(). */
static void prepage_settle_fn(struct work_struct *work)
{
	struct prepage_mm *pm = container_of(to_delayed_work(work),
					     struct prepage_mm, settle_work);
	unsigned int done;

	/*
	 * Every CPU's LRU batches, without the state's lock, around a
	 * settle: before, for the folios prepagers left in them to be on
	 * the LRU when the window's unused pages are demoted (once a
	 * window); after, for the demotions to take effect now, not when
	 * each CPU's batch fills.
	 */
	if (READ_ONCE(pm->settling) && !READ_ONCE(pm->settle_tries) &&
	    prepage_window_prepaged(pm))
		lru_add_drain_all();
	mutex_lock(&pm->lock);
	done = prepage_after_stop(pm);
	mutex_unlock(&pm->lock);
	if ((done & PREPAGE_SETTLED) && prepage_window_prepaged(pm))
		lru_add_drain_all();
	if (done & PREPAGE_SETTLE_AGAIN)
		prepage_settle_queue_delayed(pm, PREPAGE_SETTLE_RETRY);
	prepage_mm_put(pm);
}

/**
 * prepage_window_close() - the app switch to @pm's address space is done
 * @pm:	the prepage state
 *
 * Closes the accounting window: stops its logging, tells its prepagers
 * to stop, and leaves the rest, whose cost grows with the tables
 * (prepage_window_settle()), to a worker of normal priority, once the
 * prepagers are done: the caller's path stays short whatever the size
 * of the tables, and never waits for a prepager. Accesses of the app
 * before the settle work runs may count as uses in the window. The
 * caller holds a user of the address space.
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
	if (pm->settling) {
		/*
		 * The prepagers of a window before are still stopping: this
		 * one, whose own never started, is not learned from, and
		 * its log stays for the next.
		 */
		prepage_window_closed(pm, PREPAGE_CLOSE_END, nr, NULL);
	} else {
		spin_lock(&pm->log_lock);
		pm->settle_log = pm->log;
		pm->log = NULL;
		spin_unlock(&pm->log_lock);
		pm->settle_nr = nr;
		pm->settle_tries = 0;
		WRITE_ONCE(pm->settling, true);
		/* Now, or by the last prepager once they are done. */
		if (!prepage_running(pm))
			prepage_settle_queue(pm);
	}
	mutex_unlock(&pm->lock);
	return 0;
}

/**
 * prepage_switch_out() - the app of @pm left the foreground
 * @pm:	the prepage state
 *
 * Written once the app's own work on leaving the foreground is done (a
 * garbage collection that touches its whole heap, say): the accessed
 * bits of its table pages are cleared again, so that its next window
 * counts what that switch uses, not what the app did between the two.
 * Without it, a window counts every access since the last one was
 * settled. The clearing is left to the state's settle work, after the
 * last window is settled, and it never waits for the app's mmap lock: a
 * lock still contended after %PREPAGE_SETTLE_TRIES tries, or when the
 * next window opens, leaves the accesses to count in that window (the
 * next window's start never walks: that would race with the app's first
 * accesses). A reader of the procfs files that comes first does it
 * itself, as it settles a window. The caller holds a user of the
 * address space.
 *
 * Return: 0; -EBUSY if a window is open; -ESRCH if the address space is
 * gone; -EINTR if interrupted by a fatal signal.
 */
int prepage_switch_out(struct prepage_mm *pm)
{
	int err = 0;

	if (mutex_lock_killable(&pm->lock))
		return -EINTR;
	if (READ_ONCE(pm->dead)) {
		err = -ESRCH;
	} else if (pm->state == PREPAGE_SWITCHING) {
		err = -EBUSY;
	} else if (!pm->switched_out) {
		WRITE_ONCE(pm->switched_out, true);
		if (!pm->settling)
			pm->settle_tries = 0;
		/* Now, or once the window that ended is settled. */
		if (!prepage_running(pm))
			prepage_settle_queue(pm);
	}
	mutex_unlock(&pm->lock);
	return err;
}

/*
 * Forget @pm's window, closed, once its prepagers are done: its settle
 * work discards what they prepaged for it, as a reset does, together with
 * an ended window still waiting for them. Context: @pm->lock held.
 */
static void prepage_settle_discard(struct prepage_mm *pm)
{
	lockdep_assert_held(&pm->lock);

	if (!pm->settling) {
		spin_lock(&pm->log_lock);
		pm->settle_log = pm->log;
		pm->log = NULL;
		spin_unlock(&pm->log_lock);
		pm->settle_nr = 0;
		WRITE_ONCE(pm->settling, true);
	}
	pm->settle_discard = true;
	if (!prepage_running(pm))
		prepage_settle_queue(pm);
}

/**
 * prepage_reset() - forget what was loaded and learned for @pm
 * @pm:	the prepage state
 *
 * Closes an open window without counting or learning from it (the pages
 * prepaged for it that the app did not use are demoted), and drops the
 * tables and the back-offs, once the window's prepagers are done. The
 * counters are kept.
 *
 * The wait for the prepagers drops the state's lock: a window opened
 * meanwhile keeps the tables too.
 *
 * Return: 0; -EBUSY if the prepagers were not done within
 * %PREPAGE_STOP_WAIT, or a window opened meanwhile (the window is
 * closed, and forgotten once they are done; the tables are kept); -EINTR
 * if interrupted by a fatal signal.
 */
int prepage_reset(struct prepage_mm *pm)
{
	const struct prepage_ops *ops;
	unsigned int i;
	int err;

	/* For the demotions below; see prepage_settle_fn(). */
	lru_add_drain_all();
	if (mutex_lock_killable(&pm->lock))
		return -EINTR;
	/*
	 * The window that ended is counted, the counters being kept, unless
	 * the app's mmap lock is contended.
	 */
	prepage_window_settle(pm, PREPAGE_SETTLE_NOW);
	if (pm->state == PREPAGE_SWITCHING) {
		prepage_window_closed(pm, PREPAGE_CLOSE_RESET,
				      __prepage_window_close(pm,
							     PREPAGE_CLOSE_RESET),
				      NULL);
		/* Forgotten once they are done, if the wait below fails. */
		prepage_settle_discard(pm);
	}
	err = prepage_stop_wait(pm, BIT(PREPAGE_NR_SIDES) - 1);
	if (err == -EINTR)
		return err;
	/* A window opened while the lock was dropped keeps the tables. */
	if (!err && pm->state == PREPAGE_SWITCHING)
		err = -EBUSY;
	if (err)
		goto out;
	/* That window, and one that ended while they ran, if one did. */
	prepage_window_settle(pm, PREPAGE_SETTLE_NOW);
	for_each_prepage_ops(ops, i) {
		if (!pm->side[i])
			continue;
		if (ops->window_discard)
			ops->window_discard(pm);
		prepage_side_free(pm, ops);
	}
	memset(pm->backoff, 0, sizeof(pm->backoff));
	pm->lead = PREPAGE_NR_SIDES;
out:
	mutex_unlock(&pm->lock);
	/* The demotions take effect now. */
	lru_add_drain_all();
	return err;
}

/**
 * prepage_load_tables() - replace the tables of @pm
 * @pm:		the prepage state
 * @tables:	by &enum prepage_side, a backend's new table from its
 *		&prepage_ops.table_new, or NULL to keep its current one; on
 *		success each is taken over and replaced by the old one, or
 *		NULL, which the caller frees with &prepage_ops.table_free
 *
 * The prepagers of the old tables stop, and once they are done what they
 * prepaged that the app did not use is demoted; an open window stays
 * open. The backends of the new tables no longer back off.
 *
 * Return: 0; -ESRCH if the address space is gone; -ENOMEM; -EBUSY if
 * the prepagers were not done within %PREPAGE_STOP_WAIT (the wait drops
 * the state's lock); -EINTR if interrupted by a fatal signal. On error no
 * table changed (but the prepagers of those to be replaced were stopped).
 */
int prepage_load_tables(struct prepage_mm *pm, void *tables[PREPAGE_NR_SIDES])
{
	const struct prepage_ops *ops;
	unsigned int i, mask = 0;
	int err = 0;

	/* For the demotions below; see prepage_settle_fn(). */
	lru_add_drain_all();
	if (mutex_lock_killable(&pm->lock))
		return -EINTR;
	if (READ_ONCE(pm->dead)) {
		err = -ESRCH;
		goto out;
	}
	/*
	 * The window that ended learns into the tables it used, unless the
	 * app's mmap lock is contended.
	 */
	prepage_window_settle(pm, PREPAGE_SETTLE_NOW);
	/*
	 * The prepagers of the tables replaced stop, and of all sides if a
	 * window that ended still waits for them to be settled.
	 */
	pm->stop_reason = PREPAGE_STOP_TABLE;
	for_each_prepage_ops(ops, i) {
		if (tables[i] || pm->settling)
			mask |= BIT(i);
		if (tables[i] && pm->side[i] && ops->stop)
			ops->stop(pm);
	}
	err = prepage_stop_wait(pm, mask);
	if (err == -EINTR)
		return err;
	if (err)
		goto out;
	/* The wait dropped the lock: the state may have been shut down. */
	if (READ_ONCE(pm->dead)) {
		err = -ESRCH;
		goto out;
	}
	for_each_prepage_ops(ops, i) {
		if (tables[i])
			err = prepage_side_make(pm, ops);
		if (err)
			goto out;
	}
	prepage_window_settle(pm, PREPAGE_SETTLE_NOW);
	/* A new table is given its chance: its backend's back-off ends. */
	for_each_prepage_ops(ops, i) {
		if (!tables[i])
			continue;
		tables[i] = ops->table_swap(pm, tables[i]);
		pm->backoff[i].level = 0;
		pm->backoff[i].skip = 0;
		pm->backoff[i].unjudged = pm->state == PREPAGE_SWITCHING;
	}
out:
	mutex_unlock(&pm->lock);
	/* The demotions take effect now. */
	lru_add_drain_all();
	return err;
}

/* ---- access logging ---------------------------------------------------- */

static void prepage_log_add(struct prepage_mm *pm, enum prepage_log_kind kind,
			    const void *key, unsigned long index,
			    unsigned long nr)
{
	struct prepage_log_entry *e;
	unsigned int i;

	spin_lock(&pm->log_lock);
	if (!pm->logging)
		goto out;
	/* The app waits on sides that wait: start them once it is into them. */
	if ((pm->reach_kinds & BIT(kind)) && !pm->reached) {
		pm->reach_pages += min_t(unsigned long, nr, PREPAGE_REACH_PAGES);
		if (pm->reach_pages >= PREPAGE_REACH_PAGES) {
			WRITE_ONCE(pm->reached, true);
			prepage_lead_queue(pm);
		}
	}
	/*
	 * A run extends the last entry of its kind, or the one before it
	 * past an entry of another kind: a fault notes the pages mapped
	 * around it and the page faulted on, and a read the pages it reads
	 * and the pages it added, so that runs alternate.
	 */
	for (i = 1; i <= min(pm->log_nr, 2U); i++) {
		e = &pm->log[pm->log_nr - i];
		if (e->key == key && e->kind == kind && index >= e->index &&
		    index <= e->index + e->nr) {
			unsigned long end = max(e->index + e->nr, index + nr);

			if (end - e->index <= UINT_MAX) {
				e->nr = end - e->index;
				goto out;
			}
		}
		if (e->key != key || e->kind == kind)
			break;
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

/**
 * prepage_log() - log an access of the current task to its window
 * @kind:	what the access was
 * @key:	whose pages, for the backend (NULL for anonymous pages)
 * @index:	first page
 * @nr:		number of pages
 *
 * Nothing is logged unless the current task's address space is in a
 * switch window. Kernel threads that borrow an address space are not
 * the app.
 */
void prepage_log(enum prepage_log_kind kind, const void *key,
		 unsigned long index, unsigned long nr)
{
	struct mm_struct *mm = current->mm;
	struct prepage_mm *pm;

	if (!atomic_read(&prepage_nr_switching) || !mm ||
	    !test_bit(MMF_PREPAGE, &mm->flags) || (current->flags & PF_KTHREAD))
		return;
	rcu_read_lock();
	pm = prepage_mm_find(mm);
	if (pm && READ_ONCE(pm->logging))
		prepage_log_add(pm, kind, key, index, nr);
	rcu_read_unlock();
}

/**
 * prepage_windows_open() - whether any address space is in a window, or
 * has prepagers still running
 *
 * A window's prepagers may run on after it closed, told to stop: what
 * they bring in until they are done is still theirs.
 *
 * Return: false if no window is open anywhere and no prepager runs:
 * no access is logged, and no page brought in is a prepager's.
 */
bool prepage_windows_open(void)
{
	return atomic_read(&prepage_nr_switching) ||
	       atomic_read(&prepage_nr_running);
}

/* Destroy the prepagers of every backend; prepage_admin_lock is held. */
static void prepage_workers_exit(void)
{
	const struct prepage_ops *ops;
	unsigned int i;

	lockdep_assert_held(&prepage_admin_lock);

	for_each_prepage_ops(ops, i)
		if (ops->workers_exit)
			ops->workers_exit();
}

/**
 * prepage_enable() - enable prepage
 *
 * Starts the prepager threads.
 *
 * Return: 0, or -ENOMEM if prepage could not be initialized.
 */
int prepage_enable(void)
{
	const struct prepage_ops *ops;
	unsigned int i;
	int err;

	if (!prepage_mm_cache)
		return -ENOMEM;
	mutex_lock(&prepage_admin_lock);
	for_each_prepage_ops(ops, i) {
		err = ops->workers_init ? ops->workers_init() : 0;
		if (err) {
			/* Those of the backends before, unless it was on. */
			if (!static_key_enabled(&prepage_key))
				prepage_workers_exit();
			mutex_unlock(&prepage_admin_lock);
			return err;
		}
	}
	static_branch_enable(&prepage_key);
	spin_lock(&prepage_slots_lock);
	prepage_on = true;
	spin_unlock(&prepage_slots_lock);
	mutex_unlock(&prepage_admin_lock);
	return 0;
}

/*
 * Turn prepage off, if it is disabled and no state waits for prepagers
 * to be done: only then, since while one runs the hooks must still tell
 * its reads from the app's. Then no work is queued on the prepager
 * threads, and none can be. Context: prepage_admin_lock held.
 */
static void prepage_teardown(void)
{
	lockdep_assert_held(&prepage_admin_lock);

	if (prepage_on || atomic_read(&prepage_draining) ||
	    !static_key_enabled(&prepage_key))
		return;
	static_branch_disable(&prepage_key);
	prepage_workers_exit();
}

/* Queued by the release of the last state that waited for prepagers. */
static void prepage_teardown_fn(struct work_struct *work)
{
	mutex_lock(&prepage_admin_lock);
	prepage_teardown();
	mutex_unlock(&prepage_admin_lock);
}

/**
 * prepage_disable() - disable prepage and drop all prepage state
 *
 * Windows are closed without accounting and tables are dropped. State
 * still referenced by a user lives until that user drops it, but no
 * longer belongs to its address space and takes no new switch or table.
 * Then the prepager threads are destroyed: at once, or once the last
 * prepager that was told to stop is done, or the last state whose lock
 * was held is shut down by its settle work; nothing waits for them.
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
		prepage_mm_shutdown(pm, PREPAGE_CLOSE_DISABLED);
		prepage_mm_put(pm);
	}
	/*
	 * Now, if every state unhashed is released (those of exiting
	 * address spaces too); else the release of the last does it.
	 */
	prepage_teardown();
	mutex_unlock(&prepage_admin_lock);
}

static int __init prepage_init(void)
{
	BUILD_BUG_ON(MMF_PREPAGE >= BITS_PER_LONG);
	prepage_mm_cache = KMEM_CACHE(prepage_mm, SLAB_ACCOUNT);
	if (!prepage_mm_cache)
		pr_warn("cannot allocate its cache; prepage stays disabled\n");
	return 0;
}
subsys_initcall(prepage_init);

#include "tests/core-kunit.h"
