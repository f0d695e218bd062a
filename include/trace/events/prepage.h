/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prepage events: the switch windows of an app opening and closing, and
 * what the prepage threads did for each window and why they stopped, so
 * that a recorder can follow an app's switches and anyone can see what
 * the engine did. An address space is identified as in the anon events
 * (mm, printed hashed), and by the pid of the process that owned it when
 * its last window opened.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM prepage

#if !defined(_TRACE_PREPAGE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_PREPAGE_H

#include <linux/fs.h>
#include <linux/prepage.h>
#include <linux/tracepoint.h>
#include <linux/types.h>

#undef EM
#undef EMe
#define EM(a, b)	TRACE_DEFINE_ENUM(a);
#define EMe(a, b)	TRACE_DEFINE_ENUM(a);
PREPAGE_CLOSE_REASONS(EM, EMe)
PREPAGE_STOP_REASONS(EM, EMe)

#undef EM
#undef EMe
#define EM(a, b)	{ a, b },
#define EMe(a, b)	{ a, b }

/**
 * prepage_window_open - a switch window opened ("start")
 * @mm: the app's address space, printed hashed; only an identity
 * @pid: the process that owns it
 * @restart: a window was open, and this one goes on with what was
 *	prepaged for it
 * @lead: the side whose prepagers start first ("file" or "anon"), those
 *	of the other side once they are done or the app waits on it (see
 *	prepage_side_start); "none" if the prepagers of every side start
 *	at once
 */
TRACE_EVENT(prepage_window_open,

	TP_PROTO(struct mm_struct *mm, pid_t pid, bool restart,
		 const char *lead),

	TP_ARGS(mm, pid, restart, lead),

	TP_STRUCT__entry(
		__field(const void *, mm)
		__field(pid_t, pid)
		__field(bool, restart)
		__string(lead, lead)
	),

	TP_fast_assign(
		__entry->mm = mm;
		__entry->pid = pid;
		__entry->restart = restart;
		__assign_str(lead);
	),

	TP_printk("mm=%p pid=%d restart=%d lead=%s",
		__entry->mm, __entry->pid, __entry->restart, __get_str(lead))
);

/**
 * prepage_side_start - the side that waited for the lead's prepagers of a
 * window starts its own
 * @mm: the app's address space, printed hashed; only an identity
 * @pid: the process that owns it
 * @side: the side that waited, "file" or "anon"
 * @why: "done": the lead side's prepagers are done (or had nothing to
 *	do); "reached": the app waited on 16 pages of the side
 *	first (PREPAGE_REACH_PAGES)
 */
TRACE_EVENT(prepage_side_start,

	TP_PROTO(struct mm_struct *mm, pid_t pid, const char *side,
		 const char *why),

	TP_ARGS(mm, pid, side, why),

	TP_STRUCT__entry(
		__field(const void *, mm)
		__field(pid_t, pid)
		__string(side, side)
		__string(why, why)
	),

	TP_fast_assign(
		__entry->mm = mm;
		__entry->pid = pid;
		__assign_str(side);
		__assign_str(why);
	),

	TP_printk("mm=%p pid=%d side=%s why=%s",
		__entry->mm, __entry->pid, __get_str(side), __get_str(why))
);

/**
 * prepage_window_close - a switch window closed
 * @mm: the app's address space, printed hashed; only an identity
 * @pid: the process that owns it
 * @reason: why, &enum prepage_close_reason
 * @duration_ns: how long it was open
 * @logged: the entries of its access log (runs of pages)
 * @dropped: accesses were not logged: the log was full, or the window
 *	was restarted
 * @counts: the window's counts, by &enum prepage_window_count: the pages
 *	prepaged since it opened (first, if it was restarted), and the hits
 *	and misses counted when it closed (with @reason end; none
 *	otherwise)
 */
TRACE_EVENT(prepage_window_close,

	TP_PROTO(struct mm_struct *mm, pid_t pid,
		 enum prepage_close_reason reason, u64 duration_ns,
		 unsigned int logged, bool dropped, const unsigned long *counts),

	TP_ARGS(mm, pid, reason, duration_ns, logged, dropped, counts),

	TP_STRUCT__entry(
		__field(const void *, mm)
		__field(pid_t, pid)
		__field(enum prepage_close_reason, reason)
		__field(u64, duration_ns)
		__field(unsigned int, logged)
		__field(bool, dropped)
		__field(unsigned long, file_prepaged)
		__field(unsigned long, file_hit)
		__field(unsigned long, file_miss)
		__field(unsigned long, anon_prepaged)
		__field(unsigned long, anon_hit)
		__field(unsigned long, anon_miss)
	),

	TP_fast_assign(
		__entry->mm = mm;
		__entry->pid = pid;
		__entry->reason = reason;
		__entry->duration_ns = duration_ns;
		__entry->logged = logged;
		__entry->dropped = dropped;
		__entry->file_prepaged = counts[PREPAGE_WINDOW_FILE_PREPAGED];
		__entry->file_hit = counts[PREPAGE_WINDOW_FILE_HIT];
		__entry->file_miss = counts[PREPAGE_WINDOW_FILE_MISS];
		__entry->anon_prepaged = counts[PREPAGE_WINDOW_ANON_PREPAGED];
		__entry->anon_hit = counts[PREPAGE_WINDOW_ANON_HIT];
		__entry->anon_miss = counts[PREPAGE_WINDOW_ANON_MISS];
	),

	TP_printk("mm=%p pid=%d reason=%s duration_ns=%llu logged=%u dropped=%d file_prepaged=%lu file_hit=%lu file_miss=%lu anon_prepaged=%lu anon_hit=%lu anon_miss=%lu",
		__entry->mm, __entry->pid,
		__print_symbolic(__entry->reason, PREPAGE_CLOSE_REASONS(EM, EMe)),
		__entry->duration_ns, __entry->logged, __entry->dropped,
		__entry->file_prepaged, __entry->file_hit, __entry->file_miss,
		__entry->anon_prepaged, __entry->anon_hit, __entry->anon_miss)
);

/**
 * prepage_file_done - a file prepage thread is done with a file for a
 * window
 * @mm: the app's address space, printed hashed; only an identity
 * @pid: the process that owns it
 * @inode: the file
 * @prepaged: the pages it added to the page cache for the window
 * @reason: why it stopped, &enum prepage_stop_reason
 */
TRACE_EVENT(prepage_file_done,

	TP_PROTO(struct mm_struct *mm, pid_t pid, struct inode *inode,
		 unsigned long prepaged, enum prepage_stop_reason reason),

	TP_ARGS(mm, pid, inode, prepaged, reason),

	TP_STRUCT__entry(
		__field(const void *, mm)
		__field(pid_t, pid)
		__field(dev_t, s_dev)
		__field(unsigned long, i_ino)
		__field(unsigned long, prepaged)
		__field(enum prepage_stop_reason, reason)
	),

	TP_fast_assign(
		__entry->mm = mm;
		__entry->pid = pid;
		__entry->s_dev = inode->i_sb->s_dev;
		__entry->i_ino = inode->i_ino;
		__entry->prepaged = prepaged;
		__entry->reason = reason;
	),

	TP_printk("mm=%p pid=%d dev=%d:%d ino=%lx prepaged=%lu reason=%s",
		__entry->mm, __entry->pid, MAJOR(__entry->s_dev),
		MINOR(__entry->s_dev), __entry->i_ino, __entry->prepaged,
		__print_symbolic(__entry->reason, PREPAGE_STOP_REASONS(EM, EMe)))
);

/**
 * prepage_anon_done - the anonymous prepage threads are done with a
 * window
 * @mm: the app's address space, printed hashed; only an identity
 * @pid: the process that owns it
 * @prepaged: the pages they swapped in and mapped for the window
 * @reason: why they stopped, &enum prepage_stop_reason
 */
TRACE_EVENT(prepage_anon_done,

	TP_PROTO(struct mm_struct *mm, pid_t pid, unsigned long prepaged,
		 enum prepage_stop_reason reason),

	TP_ARGS(mm, pid, prepaged, reason),

	TP_STRUCT__entry(
		__field(const void *, mm)
		__field(pid_t, pid)
		__field(unsigned long, prepaged)
		__field(enum prepage_stop_reason, reason)
	),

	TP_fast_assign(
		__entry->mm = mm;
		__entry->pid = pid;
		__entry->prepaged = prepaged;
		__entry->reason = reason;
	),

	TP_printk("mm=%p pid=%d prepaged=%lu reason=%s",
		__entry->mm, __entry->pid, __entry->prepaged,
		__print_symbolic(__entry->reason, PREPAGE_STOP_REASONS(EM, EMe)))
);

/**
 * prepage_file_extent - a file prepage thread read a range of a file
 * @mm: the app's address space, printed hashed; only an identity
 * @pid: the process that owns it
 * @inode: the file
 * @index: the first page of the range
 * @nr: its pages: as many as the window's budget granted, less what a
 *	stop left unread
 * @added: of those, the pages that were not cached and were added to the
 *	page cache (the read of the others was not issued)
 */
TRACE_EVENT(prepage_file_extent,

	TP_PROTO(struct mm_struct *mm, pid_t pid, struct inode *inode,
		 pgoff_t index, unsigned long nr, unsigned long added),

	TP_ARGS(mm, pid, inode, index, nr, added),

	TP_STRUCT__entry(
		__field(const void *, mm)
		__field(pid_t, pid)
		__field(dev_t, s_dev)
		__field(unsigned long, i_ino)
		__field(pgoff_t, index)
		__field(unsigned long, nr)
		__field(unsigned long, added)
	),

	TP_fast_assign(
		__entry->mm = mm;
		__entry->pid = pid;
		__entry->s_dev = inode->i_sb->s_dev;
		__entry->i_ino = inode->i_ino;
		__entry->index = index;
		__entry->nr = nr;
		__entry->added = added;
	),

	TP_printk("mm=%p pid=%d dev=%d:%d ino=%lx index=%lu nr=%lu added=%lu",
		__entry->mm, __entry->pid, MAJOR(__entry->s_dev),
		MINOR(__entry->s_dev), __entry->i_ino, __entry->index,
		__entry->nr, __entry->added)
);

/**
 * prepage_anon_batch - an anonymous prepage thread did a batch of a
 * window's plan
 * @mm: the app's address space, printed hashed; only an identity
 * @pid: the process that owns it
 * @address: the first page of the batch
 * @last: the last page of the batch
 * @nr_pages: the target pages in the batch (anon/batch_pages, or fewer at the
 *	end of the plan)
 * @prepaged: of those, the pages it swapped in and mapped (the others
 *	were not swapped out, were swapped in before a restart, or it was
 *	stopped)
 */
TRACE_EVENT(prepage_anon_batch,

	TP_PROTO(struct mm_struct *mm, pid_t pid, unsigned long address,
		 unsigned long last, unsigned int nr_pages,
		 unsigned int prepaged),

	TP_ARGS(mm, pid, address, last, nr_pages, prepaged),

	TP_STRUCT__entry(
		__field(const void *, mm)
		__field(pid_t, pid)
		__field(unsigned long, address)
		__field(unsigned long, last)
		__field(unsigned int, nr_pages)
		__field(unsigned int, prepaged)
	),

	TP_fast_assign(
		__entry->mm = mm;
		__entry->pid = pid;
		__entry->address = address;
		__entry->last = last;
		__entry->nr_pages = nr_pages;
		__entry->prepaged = prepaged;
	),

	TP_printk("mm=%p pid=%d address=0x%lx last=0x%lx nr_pages=%u prepaged=%u",
		__entry->mm, __entry->pid, __entry->address, __entry->last,
		__entry->nr_pages, __entry->prepaged)
);

/*
 * A change of a file target table at the close of a window: a range of
 * pages of a file joined it (promote: candidates the app used) or left it
 * (evict: pages prepaged for the window that the app did not use).
 */
DECLARE_EVENT_CLASS(prepage_file_table,

	TP_PROTO(struct mm_struct *mm, pid_t pid, struct inode *inode,
		 pgoff_t index, unsigned long nr),

	TP_ARGS(mm, pid, inode, index, nr),

	TP_STRUCT__entry(
		__field(const void *, mm)
		__field(pid_t, pid)
		__field(dev_t, s_dev)
		__field(unsigned long, i_ino)
		__field(pgoff_t, index)
		__field(unsigned long, nr)
	),

	TP_fast_assign(
		__entry->mm = mm;
		__entry->pid = pid;
		__entry->s_dev = inode->i_sb->s_dev;
		__entry->i_ino = inode->i_ino;
		__entry->index = index;
		__entry->nr = nr;
	),

	TP_printk("mm=%p pid=%d dev=%d:%d ino=%lx index=%lu nr=%lu",
		__entry->mm, __entry->pid, MAJOR(__entry->s_dev),
		MINOR(__entry->s_dev), __entry->i_ino, __entry->index,
		__entry->nr)
);

DEFINE_EVENT(prepage_file_table, prepage_file_promote,
	TP_PROTO(struct mm_struct *mm, pid_t pid, struct inode *inode,
		 pgoff_t index, unsigned long nr),
	TP_ARGS(mm, pid, inode, index, nr)
);

DEFINE_EVENT(prepage_file_table, prepage_file_evict,
	TP_PROTO(struct mm_struct *mm, pid_t pid, struct inode *inode,
		 pgoff_t index, unsigned long nr),
	TP_ARGS(mm, pid, inode, index, nr)
);

/*
 * A change of the anonymous table at the close of a window, page by page:
 * promote (a candidate the app used in its anon/promote_windows-th window
 * of use becomes a target), demote (a target it did not use goes back to
 * being a candidate) and evict (an entry unused for anon/timeout windows
 * leaves the table).
 */
DECLARE_EVENT_CLASS(prepage_anon_table,

	TP_PROTO(struct mm_struct *mm, pid_t pid, unsigned long address),

	TP_ARGS(mm, pid, address),

	TP_STRUCT__entry(
		__field(const void *, mm)
		__field(pid_t, pid)
		__field(unsigned long, address)
	),

	TP_fast_assign(
		__entry->mm = mm;
		__entry->pid = pid;
		__entry->address = address;
	),

	TP_printk("mm=%p pid=%d address=0x%lx",
		__entry->mm, __entry->pid, __entry->address)
);

DEFINE_EVENT(prepage_anon_table, prepage_anon_promote,
	TP_PROTO(struct mm_struct *mm, pid_t pid, unsigned long address),
	TP_ARGS(mm, pid, address)
);

DEFINE_EVENT(prepage_anon_table, prepage_anon_demote,
	TP_PROTO(struct mm_struct *mm, pid_t pid, unsigned long address),
	TP_ARGS(mm, pid, address)
);

DEFINE_EVENT(prepage_anon_table, prepage_anon_evict,
	TP_PROTO(struct mm_struct *mm, pid_t pid, unsigned long address),
	TP_ARGS(mm, pid, address)
);

#endif /* _TRACE_PREPAGE_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
