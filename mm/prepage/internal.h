/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prepage internals shared by mm/prepage/ files; not for use elsewhere.
 */
#ifndef _MM_PREPAGE_INTERNAL_H
#define _MM_PREPAGE_INTERNAL_H

#include <linux/atomic.h>
#include <linux/kthread.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pgtable.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/time64.h>
#include <linux/vmstat.h>
#include <linux/xarray.h>
#include <linux/types.h>

#include "../mm_slot.h"
#include "extents.h"
#include "workers.h"

struct address_space;
struct cgroup_subsys_state;
struct cred;
struct mem_cgroup;
struct seq_file;

/**
 * enum prepage_state - where an address space is in the switch cycle
 * @PREPAGE_IDLE:	no switch in progress
 * @PREPAGE_SWITCHING:	between a switch's start and its end: prepaging,
 *			and accounting the app's accesses to the window
 */
enum prepage_state {
	PREPAGE_IDLE,
	PREPAGE_SWITCHING,
};

/**
 * enum prepage_stat_item - per address space counters
 * @PREPAGE_STAT_SWITCHES:	windows opened
 * @PREPAGE_STAT_RESTARTS:	windows restarted by a start while switching
 * @PREPAGE_STAT_FILE_PREPAGED:	file pages the engine inserted into the
 *				page cache
 * @PREPAGE_STAT_FILE_HIT:	of those, pages the app accessed in the window
 * @PREPAGE_STAT_FILE_MISS:	pages the app accessed in a window that it
 *				had to read into the page cache itself
 * @PREPAGE_STAT_FILE_DEMOTED:	prepaged pages the app did not use in the
 *				window, put where reclaim takes them first
 * @PREPAGE_STAT_FILE_EVICTED:	prepaged pages reclaimed before the app used
 *				them in the window
 * @PREPAGE_STAT_FILE_LATE:	of the misses, target pages the engine had
 *				not prepaged: the app reached them first (or
 *				the budget ran out)
 * @PREPAGE_STAT_FILE_STALE:	table lines dropped because the file changed
 * @PREPAGE_STAT_BUDGET_STOPS:	windows whose prepaging stopped because it
 *				had brought in max_switch_kbytes
 * @PREPAGE_STAT_CLOSED_STOPS:	windows that closed (end, reset, exit,
 *				prepage disabled; not a restart) while their
 *				prepagers were queued or running, and had not
 *				stopped for the budget or for memory
 * @PREPAGE_STAT_NOMEM_STOPS:	windows whose prepaging stopped for want of
 *				memory for the engine's own bookkeeping (to
 *				plan the window or to record what it
 *				prepaged)
 * @PREPAGE_STAT_LOG_DROPPED:	accesses not logged because the log was full
 * @PREPAGE_STAT_ANON_PREPAGED:	anonymous pages the engine swapped in and
 *				mapped
 * @PREPAGE_STAT_ANON_HIT:	of those, pages the app accessed in the window
 * @PREPAGE_STAT_ANON_MISS:	pages the app swapped in itself in a window
 * @PREPAGE_STAT_ANON_EVICTED:	prepaged pages swapped out again in the
 *				window before the app used them
 * @PREPAGE_STAT_ANON_DEMOTED:	prepaged pages the app did not use in the
 *				window, deactivated as MADV_COLD does
 * @PREPAGE_STAT_ANON_LATE:	of the misses, pages of the window's plan
 *				that were not prepaged: the app reached them
 *				first (or the budget ran out, or the page was
 *				skipped)
 * @NR_PREPAGE_STAT:		number of counters
 */
enum prepage_stat_item {
	PREPAGE_STAT_SWITCHES,
	PREPAGE_STAT_RESTARTS,
	PREPAGE_STAT_FILE_PREPAGED,
	PREPAGE_STAT_FILE_HIT,
	PREPAGE_STAT_FILE_MISS,
	PREPAGE_STAT_FILE_DEMOTED,
	PREPAGE_STAT_FILE_EVICTED,
	PREPAGE_STAT_FILE_LATE,
	PREPAGE_STAT_FILE_STALE,
	PREPAGE_STAT_BUDGET_STOPS,
	PREPAGE_STAT_CLOSED_STOPS,
	PREPAGE_STAT_NOMEM_STOPS,
	PREPAGE_STAT_LOG_DROPPED,
	PREPAGE_STAT_ANON_PREPAGED,
	PREPAGE_STAT_ANON_HIT,
	PREPAGE_STAT_ANON_MISS,
	PREPAGE_STAT_ANON_EVICTED,
	PREPAGE_STAT_ANON_DEMOTED,
	PREPAGE_STAT_ANON_LATE,
	NR_PREPAGE_STAT,
};

/**
 * enum prepage_log_kind - what a window log entry records
 * @PREPAGE_LOG_FILE_ACCESS:	the app read, faulted on or mapped file pages
 * @PREPAGE_LOG_FILE_ADDED:	the app added file pages to the page cache,
 *				to read them
 * @PREPAGE_LOG_ANON_SWAPIN:	the app swapped anonymous pages in; the index
 *				is the virtual page number
 */
enum prepage_log_kind {
	PREPAGE_LOG_FILE_ACCESS,
	PREPAGE_LOG_FILE_ADDED,
	PREPAGE_LOG_ANON_SWAPIN,
};

/**
 * struct prepage_log_entry - a run of pages an app touched in its window
 * @key:	the &struct address_space, NULL for anonymous pages; only
 *		compared, never dereferenced through the log
 * @index:	first page
 * @nr:		number of pages
 * @kind:	&enum prepage_log_kind
 */
struct prepage_log_entry {
	const void *key;
	unsigned long index;
	unsigned int nr;
	unsigned int kind;
};

/* Entries in the access log of one window; adjacent runs share one. */
#define PREPAGE_LOG_ENTRIES	4096

/**
 * struct prepage_file - the tables of one file of an app
 * @node:	link in &prepage_file_table.files
 * @file:	the file, opened with the credentials of the table's writer
 * @path:	the path the table named it by
 * @ino:	inode number when the table was loaded
 * @size:	size in bytes when the table was loaded
 * @ctime:	inode change time when the table was loaded
 * @candidates:	the offline candidate table: pages the profile expects
 * @target:	the target table: candidates the app confirmed by using
 *		them; what is prepaged at a switch
 * @prepaged:	pages the engine added to the page cache in this window
 * @nr_prepaged:	number of pages added to @prepaged
 * @pm:		the prepage state whose table this is in, once loaded
 * @work:	the file prepager's work for this file
 * @worker:	the prepager thread that does @work, always the same one
 * @pass:	where @work is: 0 reading metadata, 1 data, 2 done
 * @next:	the page @work resumes its pass at when it queued itself
 *		again to give other works a turn
 * @nomem:	@work stopped for want of memory to record its pages
 *
 * Owned by the &struct prepage_mm whose table it is in, and protected
 * by its lock, except that @target is read and @prepaged, @pass, @next
 * and @nomem written by the file prepager of the window without it: none
 * of them changes under the lock while a prepager runs.
 */
struct prepage_file {
	struct list_head node;
	struct file *file;
	char *path;
	u64 ino;
	loff_t size;
	struct timespec64 ctime;
	struct prepage_extents candidates;
	struct prepage_extents target;
	struct prepage_extents prepaged;
	unsigned long nr_prepaged;
	struct prepage_mm *pm;
	struct kthread_work work;
	struct kthread_worker *worker;
	unsigned int pass;
	pgoff_t next;
	bool nomem;
};

/**
 * struct prepage_file_table - the file tables of an address space
 * @files:	&struct prepage_file entries, one per file
 * @nr_files:	number of entries in @files
 * @nr_stale:	lines dropped while the table was loaded (stale files)
 */
struct prepage_file_table {
	struct list_head files;
	unsigned int nr_files;
	unsigned int nr_stale;
};

/**
 * struct prepage_anon_table - the anonymous tables of an address space
 * @pages:		virtual page number -> xa_mk_value() of the entry: bit 0
 *			set for a target page (clear: a candidate), the
 *			windows left before the entry times out above it
 * @nr_candidates:	candidate entries
 * @nr_targets:		target entries
 * @nr_chunks:		XArray chunks (XA_CHUNK_SIZE pages) with an entry
 */
struct prepage_anon_table {
	struct xarray pages;
	unsigned long nr_candidates;
	unsigned long nr_targets;
	unsigned long nr_chunks;
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
 *			faults: flush the TLB entries of the pages cleared
 *			(once per VMA of the walk), and do not hand the bit
 *			to the folio
 * @flush_start:	address of the first page whose entry to flush
 * @flush_end:		end of the last one; 0 if there is none
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
 *
 * The bitmaps have PTRS_PER_PTE bits each, which is not a constant on
 * every architecture, and are allocated by whoever walks, for the walk.
 */
struct prepage_anon_walk {
	unsigned long base;
	bool clear_young;
	const unsigned long *only;
	bool own;
	unsigned long flush_start;
	unsigned long flush_end;
	bool demote;
	unsigned long demoted;
	unsigned long *present;
	unsigned long *young;
	unsigned long *swapped;
	unsigned long *added;
	unsigned long *faulted;
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
 * struct prepage_mm - the prepage state of one address space
 * @slot:		hash link and the mm this is for (see mm/mm_slot.h)
 * @kref:		one reference for the hash, one for each user
 * @rcu:		frees the structure after lockless lookups are done
 * @lock:		protects @state, @dead, @window_start,
 *			@last_window_ns and @file_table
 * @state:		&enum prepage_state
 * @dead:		the address space went away or prepage was disabled:
 *			no new switch, no new table. Set when the state is
 *			unhashed, under prepage_slots_lock; read under @lock
 * @window_start:	ktime_get_ns() when the current window opened
 * @pid:		the process that owned the address space when the
 *			last window opened, for the events
 * @last_window_ns:	duration of the last window that was closed
 * @file_table:		the file tables
 * @log_lock:		protects @logging, @log_nr, @log_dropped and the
 *			entries of @log
 * @logging:		accesses of the app's tasks are logged
 * @log_nr:		entries used in @log
 * @log_dropped:	accesses of the window were not logged (its log was
 *			full, or it was restarted): what looks unused in it
 *			may have been used
 * @log:		the window's access log, %PREPAGE_LOG_ENTRIES entries;
 *			allocated at the first start (@lock and @log_lock)
 * @file_stop:		tells the file prepagers to stop (written under @lock)
 * @file_prepaging:	file prepager works queued or running
 * @budget:		pages the window's prepagers may still bring in
 * @budget_spent:	the window's budget ran out (0 or 1)
 * @nomem_stopped:	a prepager of the window stopped for want of memory
 *			(0 or 1); like @budget_spent, reset when a window
 *			opens, not when it restarts
 * @prepage_start:	ktime_get_ns() when the window's prepagers started
 * @last_prepage_ns:	how long the last prepagers took to finish
 * @anon_table:		the anonymous tables, or NULL (@lock; read without
 *			it by the first anonymous prepager, which every
 *			writer stops first)
 * @anon_plan:		the target pages of the window, by address: made by
 *			its first anonymous prepager, freed under @lock with
 *			the prepagers stopped
 * @anon_plan_nr:	entries in @anon_plan (as @anon_plan)
 * @anon_cursor:	the next entry of @anon_plan a prepager takes
 * @anon_prepaging:	anonymous prepager works queued or running
 * @anon_stop:		tells the anonymous prepagers to stop (@lock)
 * @anon_work:		the anonymous prepagers' works
 * @stat:		&enum prepage_stat_item counters since creation;
 *			updated without @lock
 *
 * Created on first use for an address space while prepage is enabled,
 * and unhashed when the address space's last user goes away
 * (prepage_exit_mm()) or prepage is disabled; freed with its last
 * reference. The state holds an mm_count reference (mmgrab()) on
 * @slot.mm, so the mm_struct outlives it even when it was unhashed by
 * prepage_disable() before its address space exited; its pages and page
 * tables are only touched under an mm_users reference (mmget_not_zero()).
 * Whoever holds a reference may use it. The access hooks find it under
 * RCU and only take @log_lock.
 *
 * Locking, outermost first: prepage_admin_lock (enabling and disabling
 * prepage; held while disabling shuts every state down), then
 * prepage_slots_lock (the hash) or @lock, then the mmap lock or a VMA
 * lock of the address space, then the page table locks; @log_lock
 * innermost: the access hooks take it in fault and read paths, under any
 * of the others, and nothing is taken under it. The prepage threads
 * never take @lock: every writer of what they read (the tables, the
 * plan) stops them and waits for them under @lock first. So whoever
 * holds @lock also waits for the prepage threads' work, and what they
 * wait for (I/O, memory, the app's mmap lock) must never wait for @lock.
 */
struct prepage_mm {
	struct mm_slot slot;
	struct kref kref;
	struct rcu_head rcu;
	struct mutex lock;	/* protects the window and tables, see above */
	enum prepage_state state;
	bool dead;
	u64 window_start;
	pid_t pid;
	u64 last_window_ns;
	struct prepage_file_table file_table;
	spinlock_t log_lock;	/* protects the log, see above */
	bool logging;
	bool log_dropped;
	unsigned int log_nr;
	struct prepage_log_entry *log;
	bool file_stop;
	atomic_t file_prepaging;
	atomic_long_t budget;
	atomic_t budget_spent;
	atomic_t nomem_stopped;
	u64 prepage_start;
	u64 last_prepage_ns;
	struct prepage_anon_table *anon_table;
	struct prepage_anon_plan *anon_plan;
	unsigned int anon_plan_nr;
	atomic_t anon_cursor;
	atomic_t anon_prepaging;
	bool anon_stop;
	struct prepage_anon_work anon_work[PREPAGE_MAX_ANON_WORKERS];
	atomic_long_t stat[NR_PREPAGE_STAT];
};

/* Tunables; see Documentation/admin-guide/mm/prepage.rst. */
extern unsigned int prepage_max_switch_kbytes;
extern bool prepage_file_enabled;
extern unsigned int prepage_merge_gap_pages;
extern unsigned int prepage_max_file_extents;
extern unsigned int prepage_big_file_pages;
extern unsigned int prepage_metadata_stride_pages;
extern bool prepage_anon_enabled;
extern unsigned int prepage_anon_timeout;
extern unsigned int prepage_batch_pages;
extern unsigned int prepage_max_anon_pages;

struct prepage_mm *prepage_mm_lookup(struct mm_struct *mm);
struct prepage_mm *prepage_mm_enter(struct mm_struct *mm);
void prepage_mm_put(struct prepage_mm *pm);
int prepage_window_open(struct prepage_mm *pm);
int prepage_window_close(struct prepage_mm *pm);
int prepage_reset(struct prepage_mm *pm);
int prepage_load_tables(struct prepage_mm *pm,
			struct prepage_file_table *table,
			struct prepage_anon_table **anon);
int prepage_enable(void);
void prepage_disable(void);

/**
 * struct prepage_charge - whom the current thread's work is charged to
 * @memcg:	the app's memory cgroup, referenced
 * @old_memcg:	the active memory cgroup before
 * @blkcg:	the app's block cgroup, referenced, if a kernel thread took it
 */
struct prepage_charge {
	struct mem_cgroup *memcg;
	struct mem_cgroup *old_memcg;
	struct cgroup_subsys_state *blkcg;
};

void prepage_charge_begin(struct mm_struct *mm, struct prepage_charge *c);
void prepage_charge_end(struct prepage_charge *c);
unsigned long prepage_budget_take(struct prepage_mm *pm, unsigned long nr);
void prepage_budget_give(struct prepage_mm *pm, unsigned long nr);
void prepage_nomem_stop(struct prepage_mm *pm);

/* Whether prepagers of @pm's window are queued or running. */
static inline bool prepage_prepaging(struct prepage_mm *pm)
{
	return atomic_read(&pm->file_prepaging) > 0 ||
	       atomic_read(&pm->anon_prepaging) > 0;
}

/*
 * Every counter of an address space is also summed over the whole system in
 * /proc/vmstat, where the prepage_* events are in the order of this enum.
 */
static_assert(PREPAGE_ANON_LATE - PREPAGE_SWITCHES == NR_PREPAGE_STAT - 1);

static inline void prepage_stat_add(struct prepage_mm *pm,
				    enum prepage_stat_item item, long delta)
{
	atomic_long_add(delta, &pm->stat[item]);
	count_vm_events(PREPAGE_SWITCHES + item, delta);
}

static inline unsigned long prepage_stat_read(struct prepage_mm *pm,
					      enum prepage_stat_item item)
{
	return atomic_long_read(&pm->stat[item]);
}

/* file.c: the file tables; the caller holds pm->lock unless stated */
void prepage_file_table_init(struct prepage_file_table *table);
void prepage_file_table_move(struct prepage_file_table *dst,
			     struct prepage_file_table *src);
int prepage_file_table_parse(char *buf, const struct cred *cred,
			     struct prepage_file_table *table);
void prepage_file_table_free(struct prepage_file_table *table);
void prepage_file_window_discard(struct prepage_mm *pm);
void prepage_file_window_close(struct prepage_mm *pm,
			       struct prepage_log_entry *log, unsigned int nr);
void prepage_file_table_show(struct seq_file *m, struct prepage_mm *pm);
int prepage_file_workers_init(void);
void prepage_file_worker_added(struct address_space *mapping,
			       struct folio *folio);
void prepage_file_attach(struct prepage_mm *pm,
			 struct prepage_file_table *table);
void prepage_file_start(struct prepage_mm *pm);
void prepage_file_stop(struct prepage_mm *pm);
void prepage_file_table_sizes(struct prepage_mm *pm, unsigned long *files,
			      unsigned long *candidate_pages,
			      unsigned long *target_pages);

/* anon.c: the anonymous tables; the caller holds pm->lock unless stated */
struct prepage_anon_table *prepage_anon_table_new(void);
void prepage_anon_table_free(struct prepage_anon_table *t);
int prepage_anon_table_parse(char *buf, struct prepage_anon_table **tp);
void prepage_anon_table_show(struct seq_file *m, struct prepage_mm *pm);
void prepage_anon_init(struct prepage_mm *pm);
void prepage_anon_window_discard(struct prepage_mm *pm);
void prepage_anon_window_close(struct prepage_mm *pm,
			       struct prepage_log_entry *log, unsigned int nr);
int prepage_anon_workers_init(void);
void prepage_anon_start(struct prepage_mm *pm);
void prepage_anon_stop(struct prepage_mm *pm);

#endif /* _MM_PREPAGE_INTERNAL_H */
