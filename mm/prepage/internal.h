/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prepage internals shared by mm/prepage/ files; not for use elsewhere.
 */
#ifndef _MM_PREPAGE_INTERNAL_H
#define _MM_PREPAGE_INTERNAL_H

#include <linux/atomic.h>
#include <linux/kobject.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/prepage.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "../mm_slot.h"

struct attribute_group;
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

/*
 * PREPAGE_STAT_ITEMS() - the counters of an address space. X(item, key)
 * for each, in the order of &enum prepage_stat_item and of the "key
 * value" lines of /proc/<pid>/prepage_stat and of their sums over the
 * system in /sys/kernel/mm/prepage/stat, which take their keys from here:
 *
 * switches:		windows opened
 * restarts:		windows restarted by a start while switching
 * file_prepaged:	file pages the engine inserted into the page
 *			cache
 * file_hit:		of those, pages the app accessed in the window
 * file_miss:		pages the app accessed in a window that it had
 *			to read into the page cache itself
 * file_demoted:	prepaged pages the app did not use in the
 *			window, put where reclaim takes them first
 * file_evicted:	prepaged pages reclaimed before the app used
 *			them in the window
 * file_late:		of the misses, target pages the engine had not
 *			prepaged: the app reached them first (or the
 *			budget ran out)
 * file_stale:		table lines dropped because the file changed, or is
 *			gone
 * budget_stops:	windows whose prepaging stopped because it had
 *			brought in max_switch_kbytes
 * closed_stops:	windows that closed (end, reset, exit, prepage
 *			disabled; not a restart) while their prepagers
 *			were queued or running, or waited to start, and
 *			had not stopped for the budget or for memory
 * nomem_stops:		windows whose prepaging stopped for want of
 *			memory for the engine's own bookkeeping (to plan
 *			the window or to record what it prepaged)
 * log_dropped:		accesses not logged because the log was full
 * anon_prepaged:	anonymous pages the engine read in from swap (and
 *			mapped, unless the app did first)
 * anon_hit:		of those, pages the app accessed in the window
 * anon_miss:		pages the app swapped in itself in a window,
 *			reading them (not from the swap cache)
 * anon_evicted:	prepaged pages swapped out again in the window
 *			before the app used them
 * anon_demoted:	prepaged pages the app did not use in the
 *			window, deactivated as MADV_COLD does
 * anon_late:		of the misses, pages of the window's plan that
 *			were not prepaged: the app reached them first
 *			(or the budget ran out, or the page was skipped)
 * file_sat_out:	windows the file prepagers sat out, backed off
 *			because their prepaging had not paid
 * anon_sat_out:	windows the anonymous prepagers sat out, backed
 *			off because their prepaging had not paid
 * pressure_stops:	windows whose prepaging stopped because it would
 *			have made the app's memory cgroup, or the memory
 *			of its node, reclaim
 */
#define PREPAGE_STAT_ITEMS(X)						\
	X(PREPAGE_STAT_SWITCHES, "switches")				\
	X(PREPAGE_STAT_RESTARTS, "restarts")				\
	X(PREPAGE_STAT_FILE_PREPAGED, "file_prepaged")			\
	X(PREPAGE_STAT_FILE_HIT, "file_hit")				\
	X(PREPAGE_STAT_FILE_MISS, "file_miss")				\
	X(PREPAGE_STAT_FILE_DEMOTED, "file_demoted")			\
	X(PREPAGE_STAT_FILE_EVICTED, "file_evicted")			\
	X(PREPAGE_STAT_FILE_LATE, "file_late")				\
	X(PREPAGE_STAT_FILE_STALE, "file_stale")			\
	X(PREPAGE_STAT_BUDGET_STOPS, "budget_stops")			\
	X(PREPAGE_STAT_CLOSED_STOPS, "closed_stops")			\
	X(PREPAGE_STAT_NOMEM_STOPS, "nomem_stops")			\
	X(PREPAGE_STAT_LOG_DROPPED, "log_dropped")			\
	X(PREPAGE_STAT_ANON_PREPAGED, "anon_prepaged")			\
	X(PREPAGE_STAT_ANON_HIT, "anon_hit")				\
	X(PREPAGE_STAT_ANON_MISS, "anon_miss")				\
	X(PREPAGE_STAT_ANON_EVICTED, "anon_evicted")			\
	X(PREPAGE_STAT_ANON_DEMOTED, "anon_demoted")			\
	X(PREPAGE_STAT_ANON_LATE, "anon_late")				\
	X(PREPAGE_STAT_FILE_SAT_OUT, "file_sat_out")			\
	X(PREPAGE_STAT_ANON_SAT_OUT, "anon_sat_out")			\
	X(PREPAGE_STAT_PRESSURE_STOPS, "pressure_stops")

#define PREPAGE_STAT_ENUM(item, key)	item,
/* The counters of PREPAGE_STAT_ITEMS(), then their number. */
enum prepage_stat_item {
	PREPAGE_STAT_ITEMS(PREPAGE_STAT_ENUM)
	NR_PREPAGE_STAT,
};

#undef PREPAGE_STAT_ENUM

/**
 * enum prepage_log_kind - what a window log entry records
 * @PREPAGE_LOG_NONE:		no entry has it: the &prepage_ops.wait_kind
 *				of a backend the app never waits on
 * @PREPAGE_LOG_FILE_ACCESS:	the app read file pages or faulted on one
 * @PREPAGE_LOG_FILE_ADDED:	the app added file pages to the page cache,
 *				to read them
 * @PREPAGE_LOG_FILE_MAPPED:	a fault of the app mapped cached file pages
 *				around the one it faulted on
 * @PREPAGE_LOG_ANON_SWAPIN:	the app swapped anonymous pages in, reading
 *				them (a major fault); the index is the
 *				virtual page number
 * @PREPAGE_LOG_ANON_CACHED:	the app swapped anonymous pages in from the
 *				swap cache, without I/O of its own
 * @NR_PREPAGE_LOG_KINDS:	the number of kinds, at most 8 (a mask of
 *				them is a u8, &prepage_mm.reach_kinds)
 */
enum prepage_log_kind {
	PREPAGE_LOG_NONE,
	PREPAGE_LOG_FILE_ACCESS,
	PREPAGE_LOG_FILE_ADDED,
	PREPAGE_LOG_FILE_MAPPED,
	PREPAGE_LOG_ANON_SWAPIN,
	PREPAGE_LOG_ANON_CACHED,
	NR_PREPAGE_LOG_KINDS,
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

/*
 * Pages of the side that waits for the lead's prepagers that the app
 * waits on before that side starts anyway: a few are incidental (a
 * stack page, a buffer), this many mean the app is into that side.
 */
#define PREPAGE_REACH_PAGES	16

/**
 * enum prepage_side - the backends: what kind of memory each prepages
 * @PREPAGE_SIDE_FILE:	file pages, in the page cache (file.c)
 * @PREPAGE_SIDE_ANON:	anonymous pages, from swap (anon.c)
 * @PREPAGE_NR_SIDES:	number of backends
 */
enum prepage_side {
	PREPAGE_SIDE_FILE,
	PREPAGE_SIDE_ANON,
	PREPAGE_NR_SIDES,
};

/* The close event's counts are by side (prepage_window_closed()). */
static_assert(PREPAGE_WINDOW_FILE_PREPAGED == 3 * PREPAGE_SIDE_FILE &&
	      PREPAGE_WINDOW_ANON_PREPAGED == 3 * PREPAGE_SIDE_ANON &&
	      PREPAGE_NR_WINDOW_COUNTS == 3 * PREPAGE_NR_SIDES);

/**
 * struct prepage_outcome - what a closed window came to for one backend
 * @prepaged:	pages its prepagers brought in for the window
 * @hit:	of those, pages the app used in the window
 * @miss:	pages the app brought in itself in the window
 * @refetched:	pages it prepaged that were reclaimed before the app used
 *		them and that the app then brought in itself (counted in
 *		@hit, and in @miss)
 * @waits:	the app's waits on the backend in the window's log: entries
 *		of its &prepage_ops.wait_kind
 * @wait_pos:	the sum of their positions in the log, in the order the
 *		accesses happened
 *
 * The backend's &prepage_ops.window_close returns the first four; the
 * core reads @waits and @wait_pos from the log before it, as they are in
 * the order of the accesses, which the backend may change. What the core
 * makes of a window (the back-off, the side that leads, its close event)
 * reads only these.
 */
struct prepage_outcome {
	unsigned long prepaged;
	unsigned long hit;
	unsigned long miss;
	unsigned long refetched;
	unsigned long waits;
	u64 wait_pos;
};

/**
 * struct prepage_backoff - whether a backend's prepaging pays for an
 * address space
 * @level:	its last windows that did not pay, in a row, at most
 *		%PREPAGE_BACKOFF_MAX: it sits out 2^@level - 1 windows
 *		before it tries again
 * @skip:	windows it still sits out
 * @out:	it sits out the current window (or the last one)
 * @unjudged:	its table was replaced in the current window: what was
 *		prepaged and used in it tells nothing of the new table
 * @targets:	the target pages its prepagers started the window with
 *		(&prepage_ops.targets), at most the window's budget; 0 if
 *		they did not start
 */
struct prepage_backoff {
	u8 level;
	u8 skip;
	bool out;
	bool unjudged;
	unsigned long targets;
};

/* The longest back-off: 2^4 - 1 = 15 windows sat out between tries. */
#define PREPAGE_BACKOFF_MAX	4
/* A window that prepaged fewer pages of a backend does not judge it. */
#define PREPAGE_BACKOFF_PAGES	32
/* Nor one that prepaged less than this fraction (1/N) of its targets. */
#define PREPAGE_BACKOFF_SHARE	8

/**
 * struct prepage_mm - the prepage state of one address space
 * @slot:		hash link and the mm this is for (see mm/mm_slot.h)
 * @kref:		one reference for the hash, one for each user, one for
 *			@settle_work and one for @lead_work from their
 *			queueing until their function is done, and one
 *			for each side in @running
 * @rcu:		frees the structure after lockless lookups are done
 * @lock:		protects @state, @dead, @window_start,
 *			@last_window_ns, @settling, @settle_nr, @settle_log,
 *			@settle_discard, @settle_tries, @switched_out,
 *			@start_mask, @shut, @shut_reason (but as its
 *			shutdown found it held) and @side
 * @state:		&enum prepage_state
 * @dead:		the address space went away or prepage was disabled:
 *			no new switch, no new table. Set when the state is
 *			unhashed, under prepage_slots_lock; read under @lock
 * @window_start:	ktime_get_ns() when the current window opened
 * @pid:		the process that owned the address space when the
 *			last window opened, for the events
 * @stop_reason:	why the prepagers were last stopped, &enum
 *			prepage_stop_reason, for their events; set under
 *			@lock before a backend's &prepage_ops.stop
 * @window_stat:	@stat when the current window opened (first, if it
 *			was restarted), for the window's counts in its
 *			close event
 * @last_window_ns:	duration of the last window that was closed
 * @settling:		the last window ended and is still to be counted and
 *			learned from (prepage_window_settle()); under @lock
 * @settle_nr:		entries in @settle_log
 * @settle_log:		the log of that window, taken from @log at its end
 *			and freed once it is settled
 * @settle_discard:	that window is to be forgotten, not counted: the
 *			next window opened while its prepagers were still
 *			stopping
 * @settle_work:	settles it, off the path of the "end" write, once no
 *			prepager of it runs, again later while the app's
 *			mmap lock is contended; and does what waits for the
 *			prepagers to stop: the starts in @start_mask, and
 *			the release of a state that was shut down; and the
 *			shutdown of a state whose lock its shutdown found
 *			held (@shut_pending)
 * @settle_tries:	times the settle work found the app's mmap lock
 *			contended, settling the window that ended or
 *			forgetting what the app used since (@switched_out)
 * @switched_out:	the app left the foreground ("background"): what it
 *			used since its last window is to be forgotten
 *			(&prepage_ops.switch_out) by @settle_work once that
 *			window is settled, or by the next window's start
 * @running:		the sides, by bit, whose prepagers are queued or
 *			running, stopped or not: set by the core as it
 *			starts them, cleared by the last of them
 *			(prepage_prepagers_done()). Written under
 *			@log_lock; nothing waits for it to clear but a
 *			reset, a table load or a reader of the procfs
 *			files, for at most %PREPAGE_STOP_WAIT
 * @start_mask:		sides of the open window whose prepagers start once
 *			no prepager of an earlier stop runs (@running)
 * @shut:		the state was shut down while prepagers ran: its
 *			sides and logs are freed once they are done
 * @shut_pending:	the state is to be shut down, by its settle work,
 *			for @shut_reason (&enum prepage_close_reason)
 * @shut_reason:	why it is shut down
 * @side:		each backend's state for this address space, by
 *			&enum prepage_side, or NULL: made the first time
 *			the backend is used (a window opens with it
 *			enabled, or a table of it is loaded), freed when
 *			the tables are reset or the state shut down
 * @backoff:		each backend's back-off, by &enum prepage_side;
 *			under @lock
 * @lead:		the side the app wants first: whose waits (pages it
 *			brought in itself) came earliest in the last window
 *			that told (prepage_lead_learn()), &enum
 *			prepage_side; %PREPAGE_NR_SIDES if none did yet.
 *			Under @lock
 * @deferred:		the sides, by bit, whose prepagers wait, in the open
 *			window, until those of @lead are done or the app
 *			reaches one of them; 0 if none does. Written under
 *			@lock and @log_lock; read without a lock by the
 *			prepagers, to queue @lead_work
 * @reach_kinds:	the log kinds, by bit, of the app's waits on the
 *			sides in @deferred (their &prepage_ops.wait_kind);
 *			under @log_lock
 * @window_budget:	the window's budget when it opened (first, if it
 *			was restarted), for the back-off
 * @lead_work:		starts @deferred's prepagers (prepage_lead_fn()),
 *			holding a reference: queued by the last prepager of
 *			a side, or by an access hook under @log_lock while
 *			@logging is set; it does nothing once the window
 *			closed
 * @log_lock:		protects @logging, @reached, @reach_kinds,
 *			@reach_pages, @running,
 *			@log_nr, @log_dropped and the entries of @log
 * @logging:		accesses of the app's tasks are logged
 * @reached:		the app reached @deferred in the window: it waited on
 *			%PREPAGE_REACH_PAGES of their pages, and @lead_work
 *			was queued to start their prepagers
 * @reach_pages:	pages of @deferred the app waited on in the window,
 *			until it reached them
 * @lead_ordered:	a side of the window waited for @lead's prepagers,
 *			which had something to prepage: then the window tells
 *			which side the app wants first only if the app
 *			reached that side. Under @lock
 * @log_nr:		entries used in @log
 * @log_dropped:	accesses of the window were not logged (its log was
 *			full, or it was restarted): what looks unused in it
 *			may have been used
 * @log:		the window's access log, %PREPAGE_LOG_ENTRIES entries;
 *			allocated when a window opens without one (@lock and
 *			@log_lock), handed to @settle_log at its end
 * @budget:		pages the window's prepagers may still bring in
 * @budget_spent:	the window's budget ran out (0 or 1)
 * @pressure_stopped:	the window's prepaging stopped under memory
 *			pressure (0 or 1): no page is taken from its budget
 *			any more
 * @nomem_stopped:	a prepager of the window stopped for want of memory
 *			(0 or 1); like @budget_spent and @pressure_stopped,
 *			reset when a window opens, not when it restarts
 * @prepage_start:	ktime_get_ns() when the window's prepagers started
 * @last_prepage_ns:	how long the last prepagers took to finish, all
 *			backends together
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
 * Locking: see the lock order at the top of core.c.
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
	u8 stop_reason;
	unsigned long window_stat[NR_PREPAGE_STAT];
	u64 last_window_ns;
	bool settling;
	bool settle_discard;
	unsigned int settle_nr;
	struct prepage_log_entry *settle_log;
	struct delayed_work settle_work;
	u8 settle_tries;
	bool switched_out;
	bool shut_pending;
	u8 shut_reason;
	u8 running;
	u8 start_mask;
	bool shut;
	void *side[PREPAGE_NR_SIDES];
	struct prepage_backoff backoff[PREPAGE_NR_SIDES];
	u8 lead;
	u8 deferred;
	u8 reach_kinds;
	unsigned long window_budget;
	struct work_struct lead_work;
	spinlock_t log_lock;	/* protects the log, see above */
	bool logging;
	bool reached;
	unsigned int reach_pages;
	bool lead_ordered;
	bool log_dropped;
	unsigned int log_nr;
	struct prepage_log_entry *log;
	atomic_long_t budget;
	atomic_t budget_spent;
	atomic_t pressure_stopped;
	atomic_t nomem_stopped;
	u64 prepage_start;
	u64 last_prepage_ns;
	atomic_long_t stat[NR_PREPAGE_STAT];
};

/**
 * struct prepage_ops - a backend: one kind of memory prepage learns and
 * prepages
 * @name:		its name, the prefix of its counters' ratios
 * @side:		its slot in &prepage_mm.side
 * @enabled:		its on/off tunable: a window opens its prepagers
 *			only while it is set
 * @stat_prepaged:	its counter of pages prepaged, for the precision
 * @stat_hit:		its counter of prepaged pages the app used; 0 if it
 *			has none (then no precision or recall is shown)
 * @stat_miss:		its counter of pages the app brought in itself
 * @wait_kind:		the &enum prepage_log_kind of the accesses in which
 *			the app waits on it: brings its pages in itself;
 *			%PREPAGE_LOG_NONE if it never does
 * @stat_sat_out:	its counter of windows it sat out, backed off
 * @min_precision:	its min_precision_permille tunable: a window in
 *			which its precision was lower did not pay (see
 *			prepage_backoff_judge()); NULL if it never backs off (then
 *			it needs no @stat_hit or @stat_sat_out)
 * @hits_logged:	its hits are counted from the access log, so a
 *			window whose log lacks accesses undercounts them
 * @walks_mm:		its @window_close walks the app's page tables: it
 *			is called with the app's mmap lock held for reading
 *			(taken with mmap_read_trylock(): a window whose lock
 *			is contended is settled later, or forgotten), before
 *			those of the backends that do not, called without it
 * @targets:		the target pages its prepagers just started with,
 *			resident or not (see prepage_backoff_judge()); NULL if it
 *			never backs off
 * @attrs:		its tunables, in /sys/kernel/mm/prepage/, or NULL
 * @workers_init:	create its prepager threads, when prepage is
 *			enabled; may be called again, and then does nothing
 * @workers_exit:	destroy them, when prepage is disabled and no
 *			address space has prepage state, or enabling it
 *			failed; may find none
 * @state_new:		allocate its state for @pm, or return NULL
 * @state_free:		free its state of @pm and everything it holds (the
 *			tables, the plan); its prepagers are stopped
 * @start:		a window opened (or restarted), or the side's turn
 *			came, and none of its prepagers runs: start them.
 *			Return: whether it queued one; if so, the last of
 *			them calls prepage_prepagers_done() once, when it
 *			is done
 * @stop:		tell its prepagers to stop, without waiting for
 *			them: they stop at their next check, and what they
 *			use stays until they are done (&prepage_mm.running)
 * @window_close:	a window ended: count it and learn from the log,
 *			@nr entries of every backend's kind, which it may
 *			reorder; its prepagers are done. It returns what
 *			the window came to in @out, whose @waits and
 *			@wait_pos the core set (&struct prepage_outcome)
 * @window_discard:	a window was reset or its tables replaced, or is
 *			not to be counted: forget what was prepaged for it,
 *			without counting; its prepagers are done
 * @switch_out:		the app left the foreground, and its last window is
 *			settled: forget what it used since, so that its next
 *			window counts only what that switch uses. Only for
 *			a backend that @walks_mm: called with the app's
 *			mmap lock held for reading (tried, as for
 *			@window_close), no window open and no prepager
 *			running; NULL if it learns from its log only
 * @table_owns:		whether a table line is one of its lines
 * @table_new:		an empty table, to parse lines into, or NULL
 * @table_parse:	parse one of its lines into a table from
 *			@table_new; the files it names are opened with
 *			@cred. Return: 0 or a negative error
 * @table_swap:		make a parsed table @pm's, its prepagers done:
 *			forget the window's prepaged pages, and return the
 *			table it replaces, for @table_free
 * @table_free:		free a table from @table_new or @table_swap
 * @table_show:		print @pm's tables as table lines
 * @sizes_show:		print the sizes of @pm's tables; @pm may be NULL,
 *			or have no state of the backend: all zero then
 *
 * All but @workers_init, @workers_exit, @table_owns, @table_new,
 * @table_parse and @table_free are called with &prepage_mm.lock held and
 * the backend's state made, but @sizes_show, which may find no state. A
 * backend without prepagers leaves @workers_init, @workers_exit, @start,
 * @stop and @window_discard NULL; one without tables of its own, the
 * @table_ callbacks; @sizes_show may be NULL. What a backend's prepagers
 * use is freed or changed only once they are done: by the callbacks that
 * say so, which the core calls only then.
 *
 * Modelled on &struct damon_operations: the core knows each backend only
 * by these.
 */
struct prepage_ops {
	const char *name;
	enum prepage_side side;
	bool *enabled;
	enum prepage_stat_item stat_prepaged;
	enum prepage_stat_item stat_hit;
	enum prepage_stat_item stat_miss;
	enum prepage_log_kind wait_kind;
	enum prepage_stat_item stat_sat_out;
	unsigned int *min_precision;
	bool hits_logged;
	bool walks_mm;
	unsigned long (*targets)(struct prepage_mm *pm);
	const struct attribute_group *attrs;
	int (*workers_init)(void);
	void (*workers_exit)(void);
	void *(*state_new)(struct prepage_mm *pm);
	void (*state_free)(struct prepage_mm *pm);
	bool (*start)(struct prepage_mm *pm);
	void (*stop)(struct prepage_mm *pm);
	void (*window_close)(struct prepage_mm *pm,
			     struct prepage_log_entry *log, unsigned int nr,
			     struct prepage_outcome *out);
	void (*window_discard)(struct prepage_mm *pm);
	void (*switch_out)(struct prepage_mm *pm);
	bool (*table_owns)(const char *line);
	void *(*table_new)(void);
	int (*table_parse)(void *table, char *line, const struct cred *cred);
	void *(*table_swap)(struct prepage_mm *pm, void *table);
	void (*table_free)(void *table);
	void (*table_show)(struct seq_file *m, struct prepage_mm *pm);
	void (*sizes_show)(struct seq_file *m, struct prepage_mm *pm);
};

extern const struct prepage_ops *prepage_backends[PREPAGE_NR_SIDES];

/* The first registered backend from side @i on; PREPAGE_NR_SIDES if none. */
static inline unsigned int prepage_next_side(unsigned int i)
{
	while (i < PREPAGE_NR_SIDES && !prepage_backends[i])
		i++;
	return i;
}

/* Iterate @ops over the registered backends, @i being its side. */
#define for_each_prepage_ops(ops, i)					\
	for ((i) = prepage_next_side(0);				\
	     (i) < PREPAGE_NR_SIDES && ((ops) = prepage_backends[i]);	\
	     (i) = prepage_next_side((i) + 1))

int prepage_register_ops(const struct prepage_ops *ops);

/* Kilobytes one window may bring in; see prepage_budget_take(). */
extern unsigned int prepage_max_switch_kbytes;
/* Start the side the app waited on first before the other. */
extern bool prepage_order_sides;

struct prepage_mm *prepage_mm_lookup(struct mm_struct *mm);
struct prepage_mm *prepage_mm_enter(struct mm_struct *mm);
void prepage_mm_put(struct prepage_mm *pm);
int prepage_window_open(struct prepage_mm *pm);
int prepage_window_close(struct prepage_mm *pm);
int prepage_switch_out(struct prepage_mm *pm);
void prepage_window_counts(struct prepage_mm *pm,
			   const struct prepage_ops *ops,
			   struct prepage_outcome *out);
int prepage_window_settle_wait(struct prepage_mm *pm);
bool prepage_window_prepaged(struct prepage_mm *pm);
int prepage_reset(struct prepage_mm *pm);
int prepage_load_tables(struct prepage_mm *pm,
			void *tables[PREPAGE_NR_SIDES]);
bool prepage_prepaging(struct prepage_mm *pm);
void prepage_prepagers_done(struct prepage_mm *pm, enum prepage_side side);
bool prepage_windows_open(void);
void prepage_log(enum prepage_log_kind kind, const void *key,
		 unsigned long index, unsigned long nr);
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
enum prepage_stop_reason prepage_budget_stop_reason(struct prepage_mm *pm);
void prepage_nomem_stop(struct prepage_mm *pm);
bool prepage_mm_dying(struct mm_struct *mm);

/**
 * struct prepage_events - the counters of every address space, summed
 * @count:	by &enum prepage_stat_item, since boot
 *
 * Per CPU; /sys/kernel/mm/prepage/stat shows their sums. prepage's own,
 * not vmstat events: those are a type of the kernel's frozen module ABI
 * on Android (struct vm_event_state of vm_event_states).
 */
struct prepage_events {
	unsigned long count[NR_PREPAGE_STAT];
};

DECLARE_PER_CPU(struct prepage_events, prepage_events);

unsigned long prepage_events_sum(enum prepage_stat_item item);
/* proc.c */
const char *prepage_stat_name(enum prepage_stat_item item);

static inline void prepage_stat_add(struct prepage_mm *pm,
				    enum prepage_stat_item item, long delta)
{
	atomic_long_add(delta, &pm->stat[item]);
	this_cpu_add(prepage_events.count[item], delta);
}

static inline unsigned long prepage_stat_read(struct prepage_mm *pm,
					      enum prepage_stat_item item)
{
	return atomic_long_read(&pm->stat[item]);
}

/* sysfs.c: the tunables' files, for the backends' attribute groups */

/**
 * struct prepage_switch - an on/off tunable
 * @attr:	its sysfs file
 * @val:	the variable it sets
 */
struct prepage_switch {
	struct kobj_attribute attr;
	bool *val;
};

/**
 * struct prepage_knob - a numeric tunable
 * @attr:	its sysfs file
 * @val:	the variable it sets
 * @min:	the smallest value it takes
 * @max:	the largest value it takes
 */
struct prepage_knob {
	struct kobj_attribute attr;
	unsigned int *val;
	unsigned int min;
	unsigned int max;
};

ssize_t prepage_switch_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf);
ssize_t prepage_switch_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count);
ssize_t prepage_knob_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf);
ssize_t prepage_knob_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count);

/*
 * The switch prepage_VAR, as the file NAME of its group of
 * /sys/kernel/mm/prepage (the core's files, or its backend's directory).
 */
#define PREPAGE_SWITCH(_var, _name)					\
	static struct prepage_switch _var##_switch = {			\
		.attr = __ATTR(_name, 0644, prepage_switch_show,	\
			       prepage_switch_store),			\
		.val = &prepage_##_var,					\
	}

/* The numeric tunable prepage_VAR, in [min, max], as the file NAME. */
#define PREPAGE_KNOB(_var, _name, _min, _max)				\
	static struct prepage_knob _var##_knob = {			\
		.attr = __ATTR(_name, 0644, prepage_knob_show,		\
			       prepage_knob_store),			\
		.val = &prepage_##_var,					\
		.min = _min,						\
		.max = _max,						\
	}

#endif /* _MM_PREPAGE_INTERNAL_H */
