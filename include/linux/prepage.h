/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prepage: bring an application's switch footprint into memory when the
 * application is switched to, before it faults on it page by page.
 *
 * This is the only header other parts of the kernel include; everything
 * here costs one static branch when prepage is disabled.
 */
#ifndef _LINUX_PREPAGE_H
#define _LINUX_PREPAGE_H

#include <linux/gfp_types.h>
#include <linux/jump_label.h>
#include <linux/types.h>

struct address_space;
struct cred;
struct folio;
struct mm_struct;
struct seq_file;

/*
 * Why a switch window closed, &enum prepage_close_reason, with the name
 * its events print (include/trace/events/prepage.h), as EM(reason, name)
 * and EMe() for the last:
 * PREPAGE_CLOSE_END: "end" was written: the window is counted and
 *	learned from.
 * PREPAGE_CLOSE_RESTART: "start" was written in the window: its log is
 *	dropped, what was prepaged goes on in the new window.
 * PREPAGE_CLOSE_RESET: "reset" was written in the window: discarded.
 * PREPAGE_CLOSE_EXIT: the address space went away.
 * PREPAGE_CLOSE_DISABLED: prepage was disabled.
 */
#define PREPAGE_CLOSE_REASONS(EM, EMe)				\
	EM(PREPAGE_CLOSE_END,		"end")			\
	EM(PREPAGE_CLOSE_RESTART,	"restart")		\
	EM(PREPAGE_CLOSE_RESET,		"reset")		\
	EM(PREPAGE_CLOSE_EXIT,		"exit")			\
	EMe(PREPAGE_CLOSE_DISABLED,	"disabled")

/*
 * Why prepage threads stopped for a window, &enum prepage_stop_reason,
 * likewise:
 * PREPAGE_STOP_DONE: they covered everything they were to cover.
 * PREPAGE_STOP_BUDGET: the window's max_switch_kbytes was spent.
 * PREPAGE_STOP_PRESSURE: bringing more in would have made the app's
 *	memory cgroup, or the memory of the node, reclaim.
 * PREPAGE_STOP_NOMEM: no memory to plan the window or to record what
 *	they prepaged.
 * PREPAGE_STOP_END, PREPAGE_STOP_RESTART, PREPAGE_STOP_RESET,
 * PREPAGE_STOP_EXIT, PREPAGE_STOP_DISABLED: the window closed first, for
 *	that &enum prepage_close_reason, in its order.
 * PREPAGE_STOP_TABLE: the table they worked from was replaced first.
 * Every reason but PREPAGE_STOP_DONE is non-zero.
 */
#define PREPAGE_STOP_REASONS(EM, EMe)				\
	EM(PREPAGE_STOP_DONE,		"done")			\
	EM(PREPAGE_STOP_BUDGET,		"budget")		\
	EM(PREPAGE_STOP_PRESSURE,	"pressure")		\
	EM(PREPAGE_STOP_NOMEM,		"nomem")		\
	EM(PREPAGE_STOP_END,		"end")			\
	EM(PREPAGE_STOP_RESTART,	"restart")		\
	EM(PREPAGE_STOP_RESET,		"reset")		\
	EM(PREPAGE_STOP_EXIT,		"exit")			\
	EM(PREPAGE_STOP_DISABLED,	"disabled")		\
	EMe(PREPAGE_STOP_TABLE,		"table")

#define PREPAGE_REASON_ENUM(reason, name)	reason,
/* See PREPAGE_CLOSE_REASONS(). */
enum prepage_close_reason {
	PREPAGE_CLOSE_REASONS(PREPAGE_REASON_ENUM, PREPAGE_REASON_ENUM)
};

/* See PREPAGE_STOP_REASONS(). */
enum prepage_stop_reason {
	PREPAGE_STOP_REASONS(PREPAGE_REASON_ENUM, PREPAGE_REASON_ENUM)
};

#undef PREPAGE_REASON_ENUM

/*
 * The counts of a window in its close event, by backend in the order of
 * their sides: pages prepaged, hits and misses of the file side, then of
 * the anonymous side.
 */
enum prepage_window_count {
	PREPAGE_WINDOW_FILE_PREPAGED,
	PREPAGE_WINDOW_FILE_HIT,
	PREPAGE_WINDOW_FILE_MISS,
	PREPAGE_WINDOW_ANON_PREPAGED,
	PREPAGE_WINDOW_ANON_HIT,
	PREPAGE_WINDOW_ANON_MISS,
	PREPAGE_NR_WINDOW_COUNTS,
};

#ifdef CONFIG_PREPAGE

DECLARE_STATIC_KEY_FALSE(prepage_key);

void __prepage_exit_mm(struct mm_struct *mm);
void __prepage_file_access(struct address_space *mapping, pgoff_t index,
			   unsigned long nr);
void __prepage_file_mapped(struct address_space *mapping, pgoff_t index,
			   unsigned long nr);
void __prepage_anon_swapin(struct mm_struct *mm, unsigned long address,
			   unsigned long nr, bool io);
void __prepage_file_added(struct address_space *mapping,
			  struct folio *folio);
bool __prepage_speculative(void);

/* What /proc/<pid>/prepage, prepage_table and prepage_stat do. */
int prepage_show_state(struct seq_file *m, struct mm_struct *mm);
int prepage_show_tables(struct seq_file *m, struct mm_struct *mm);
int prepage_show_stat(struct seq_file *m, struct mm_struct *mm);
int prepage_signal(struct mm_struct *mm, const char *s);
int prepage_load(struct mm_struct *mm, const struct cred *cred,
		 const char __user *ubuf, size_t count);

/**
 * prepage_exit_mm() - release the prepage state of an address space
 * @mm: the address space whose last user is going away
 *
 * Called from __mmput() before exit_mmap(). While prepage is disabled no
 * address space has prepage state, and this is one static branch.
 */
static __always_inline void prepage_exit_mm(struct mm_struct *mm)
{
	if (static_branch_unlikely(&prepage_key))
		__prepage_exit_mm(mm);
}

/**
 * prepage_file_access() - note that the current task accessed file pages
 * @mapping:	the file's page cache
 * @index:	first page
 * @nr:		number of pages
 *
 * Called where a task reads file pages or faults on one. If the task's
 * address space is in a switch window the access is logged, to count
 * prepage hits and misses and to learn the app's target table.
 */
static __always_inline void prepage_file_access(struct address_space *mapping,
						pgoff_t index, unsigned long nr)
{
	if (static_branch_unlikely(&prepage_key))
		__prepage_file_access(mapping, index, nr);
}

/**
 * prepage_file_mapped() - note that file pages were mapped around a fault
 * @mapping:	the file's page cache
 * @index:	first page
 * @nr:		number of pages
 *
 * Called where a fault of the current task maps cached pages next to the
 * one it faulted on (fault-around). The task may never touch them, or
 * touch them without another fault: they are no access, but a prepaged
 * one of them is not known to be unused either.
 */
static __always_inline void prepage_file_mapped(struct address_space *mapping,
						pgoff_t index, unsigned long nr)
{
	if (static_branch_unlikely(&prepage_key))
		__prepage_file_mapped(mapping, index, nr);
}

/**
 * prepage_file_added() - note that the current task added a folio to the
 * page cache
 * @mapping:	the file's page cache
 * @folio:	the folio, locked, not on the LRU yet
 * @gfp:	the allocation flags; pages added to be written are not noted
 *
 * Pages a task in a switch window adds to be read, and then accesses, are
 * the misses of the window. A folio a prepage thread adds for a window is
 * made active, as workingset_refault() does, before it goes on the LRU.
 */
static __always_inline void prepage_file_added(struct address_space *mapping,
					       struct folio *folio, gfp_t gfp)
{
	if (static_branch_unlikely(&prepage_key) && !(gfp & __GFP_WRITE))
		__prepage_file_added(mapping, folio);
}

/**
 * prepage_speculative() - whether the current task prepages for an app
 *
 * A page a prepage thread brings back in is not a refault: nobody waits
 * for it, and the app may not use it. workingset_refault() does nothing
 * in a prepage thread: speculation is neither counted as refaults (the
 * workingset_* counters of the app's memory cgroup) nor as memory stalls
 * (PSI, delay accounting: the folio is not marked workingset), which
 * read as thrashing, nor fed back into reclaim's balance between anon
 * and file pages and between MGLRU's tiers. Such a folio goes on the LRU
 * active instead, kept while its window is open.
 *
 * Return: true in a prepage thread.
 */
static __always_inline bool prepage_speculative(void)
{
	return static_branch_unlikely(&prepage_key) && __prepage_speculative();
}

/**
 * prepage_anon_swapin() - note that a fault swapped anonymous pages in
 * @mm:		the address space of the faulting VMA
 * @address:	address of the first page mapped
 * @nr:		number of pages mapped
 * @io:		the fault read them (VM_FAULT_MAJOR), rather than finding
 *		them in the swap cache
 *
 * Swap-in faults that the tasks of an address space in a switch window
 * take themselves are its new anonymous candidates; those that read
 * their pages, and waited for it, are its anonymous misses. A fault
 * that reads notes the page as it starts the read (@io), as the retry
 * that maps it, once read, finds it in the swap cache; and notes the
 * pages it maps.
 */
static __always_inline void prepage_anon_swapin(struct mm_struct *mm,
						unsigned long address,
						unsigned long nr, bool io)
{
	if (static_branch_unlikely(&prepage_key))
		__prepage_anon_swapin(mm, address, nr, io);
}

#else /* CONFIG_PREPAGE */

static inline void prepage_exit_mm(struct mm_struct *mm) {}
static inline void prepage_file_access(struct address_space *mapping,
				       pgoff_t index, unsigned long nr) {}
static inline void prepage_file_mapped(struct address_space *mapping,
				       pgoff_t index, unsigned long nr) {}
static inline void prepage_file_added(struct address_space *mapping,
				      struct folio *folio, gfp_t gfp) {}
static inline bool prepage_speculative(void) { return false; }
static inline void prepage_anon_swapin(struct mm_struct *mm,
				       unsigned long address, unsigned long nr,
				       bool io) {}

#endif /* CONFIG_PREPAGE */
#endif /* _LINUX_PREPAGE_H */
