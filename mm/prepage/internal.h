/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prepage internals shared by mm/prepage/ files; not for use elsewhere.
 */
#ifndef _MM_PREPAGE_INTERNAL_H
#define _MM_PREPAGE_INTERNAL_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "../mm_slot.h"

/**
 * struct prepage_extent - a run of pages of one file
 * @start:	index of the first page
 * @nr:		number of pages, at least one
 */
struct prepage_extent {
	pgoff_t start;
	pgoff_t nr;
};

/**
 * struct prepage_extents - a set of pages, as extents
 * @ext:	the extents, sorted by @start; no two overlap or touch
 * @nr:		number of extents in @ext
 * @cap:	number of extents @ext has room for
 *
 * A set has no lock of its own: the structure that owns it says what
 * protects it.
 */
struct prepage_extents {
	struct prepage_extent *ext;
	unsigned int nr;
	unsigned int cap;
};

int prepage_extents_add(struct prepage_extents *set, pgoff_t start, pgoff_t nr);
int prepage_extents_remove(struct prepage_extents *set, pgoff_t start,
			   pgoff_t nr);
bool prepage_extents_contains(const struct prepage_extents *set, pgoff_t index);
unsigned long prepage_extents_pages(const struct prepage_extents *set);
bool prepage_extents_next_io(const struct prepage_extents *set,
			     unsigned int *pos, pgoff_t gap,
			     struct prepage_extent *io);
void prepage_extents_destroy(struct prepage_extents *set);
int prepage_parse_ranges(char *s, struct prepage_extents *set,
			 unsigned int max_extents);
unsigned int prepage_permille(u64 part, u64 whole);

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
 * @NR_PREPAGE_STAT:		number of counters
 */
enum prepage_stat_item {
	PREPAGE_STAT_SWITCHES,
	PREPAGE_STAT_RESTARTS,
	NR_PREPAGE_STAT,
};

/**
 * struct prepage_mm - the prepage state of one address space
 * @slot:		hash link and the mm this is for (see mm/mm_slot.h)
 * @kref:		one reference for the hash, one for each user
 * @rcu:		frees the structure after lockless lookups are done
 * @lock:		protects @state, @window_start and @last_window_ns
 * @state:		&enum prepage_state
 * @window_start:	ktime_get_ns() when the current window opened
 * @last_window_ns:	duration of the last window that was closed
 * @stat:		&enum prepage_stat_item counters since creation;
 *			updated without @lock
 *
 * Created on first use for an address space while prepage is enabled,
 * and unhashed when the address space's last user goes away
 * (prepage_exit_mm()) or prepage is disabled; freed with its last
 * reference. Whoever holds a reference may use it, but only the holder of
 * an mm_users reference to @slot.mm (or a task of that mm) may touch the
 * mm itself.
 */
struct prepage_mm {
	struct mm_slot slot;
	struct kref kref;
	struct rcu_head rcu;
	struct mutex lock;	/* protects the window, see above */
	enum prepage_state state;
	u64 window_start;
	u64 last_window_ns;
	atomic_long_t stat[NR_PREPAGE_STAT];
};

struct prepage_mm *prepage_mm_get(struct mm_struct *mm, bool create);
void prepage_mm_put(struct prepage_mm *pm);
int prepage_switch_start(struct prepage_mm *pm);
int prepage_switch_end(struct prepage_mm *pm);
int prepage_enable(void);
void prepage_disable(void);

static inline void prepage_stat_add(struct prepage_mm *pm,
				    enum prepage_stat_item item, long delta)
{
	atomic_long_add(delta, &pm->stat[item]);
}

static inline unsigned long prepage_stat_read(struct prepage_mm *pm,
					      enum prepage_stat_item item)
{
	return atomic_long_read(&pm->stat[item]);
}

#endif /* _MM_PREPAGE_INTERNAL_H */
