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
#include <linux/tracepoint.h>
#include <linux/types.h>

#ifndef __PREPAGE_TRACE_ONCE
#define __PREPAGE_TRACE_ONCE
/**
 * enum prepage_close_reason - why a switch window closed
 * @PREPAGE_CLOSE_END: "end" was written: the window is counted and
 *	learned from
 * @PREPAGE_CLOSE_RESTART: "start" was written in the window: its log is
 *	dropped, what was prepaged goes on in the new window
 * @PREPAGE_CLOSE_RESET: "reset" was written in the window: discarded
 * @PREPAGE_CLOSE_GONE: the address space went away, or prepage was
 *	disabled
 */
enum prepage_close_reason {
	PREPAGE_CLOSE_END,
	PREPAGE_CLOSE_RESTART,
	PREPAGE_CLOSE_RESET,
	PREPAGE_CLOSE_GONE,
};

/**
 * enum prepage_stop_reason - why prepage threads stopped for a window
 * @PREPAGE_STOP_DONE: they covered everything they were to cover
 * @PREPAGE_STOP_BUDGET: the window's max_switch_kbytes was spent
 * @PREPAGE_STOP_CLOSED: the window closed, or its table was replaced,
 *	before they were done
 * @PREPAGE_STOP_NOMEM: no memory to plan the window or to record what
 *	they prepaged
 */
enum prepage_stop_reason {
	PREPAGE_STOP_DONE,
	PREPAGE_STOP_BUDGET,
	PREPAGE_STOP_CLOSED,
	PREPAGE_STOP_NOMEM,
};

#endif /* __PREPAGE_TRACE_ONCE */

TRACE_DEFINE_ENUM(PREPAGE_CLOSE_END);
TRACE_DEFINE_ENUM(PREPAGE_CLOSE_RESTART);
TRACE_DEFINE_ENUM(PREPAGE_CLOSE_RESET);
TRACE_DEFINE_ENUM(PREPAGE_CLOSE_GONE);
TRACE_DEFINE_ENUM(PREPAGE_STOP_DONE);
TRACE_DEFINE_ENUM(PREPAGE_STOP_BUDGET);
TRACE_DEFINE_ENUM(PREPAGE_STOP_CLOSED);
TRACE_DEFINE_ENUM(PREPAGE_STOP_NOMEM);

#define show_prepage_close_reason(reason)				\
	__print_symbolic(reason,					\
		{ PREPAGE_CLOSE_END,		"end" },		\
		{ PREPAGE_CLOSE_RESTART,	"restart" },		\
		{ PREPAGE_CLOSE_RESET,		"reset" },		\
		{ PREPAGE_CLOSE_GONE,		"gone" })

#define show_prepage_stop_reason(reason)				\
	__print_symbolic(reason,					\
		{ PREPAGE_STOP_DONE,		"done" },		\
		{ PREPAGE_STOP_BUDGET,		"budget" },		\
		{ PREPAGE_STOP_CLOSED,		"closed" },		\
		{ PREPAGE_STOP_NOMEM,		"nomem" })

/**
 * prepage_window_open - a switch window opened ("start")
 * @mm: the app's address space, printed hashed; only an identity
 * @pid: the process that owns it
 * @restart: a window was open, and this one goes on with what was
 *	prepaged for it
 */
TRACE_EVENT(prepage_window_open,

	TP_PROTO(struct mm_struct *mm, pid_t pid, bool restart),

	TP_ARGS(mm, pid, restart),

	TP_STRUCT__entry(
		__field(const void *, mm)
		__field(pid_t, pid)
		__field(bool, restart)
	),

	TP_fast_assign(
		__entry->mm = mm;
		__entry->pid = pid;
		__entry->restart = restart;
	),

	TP_printk("mm=%p pid=%d restart=%d",
		__entry->mm, __entry->pid, __entry->restart)
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
 */
TRACE_EVENT(prepage_window_close,

	TP_PROTO(struct mm_struct *mm, pid_t pid,
		 enum prepage_close_reason reason, u64 duration_ns,
		 unsigned int logged, bool dropped),

	TP_ARGS(mm, pid, reason, duration_ns, logged, dropped),

	TP_STRUCT__entry(
		__field(const void *, mm)
		__field(pid_t, pid)
		__field(enum prepage_close_reason, reason)
		__field(u64, duration_ns)
		__field(unsigned int, logged)
		__field(bool, dropped)
	),

	TP_fast_assign(
		__entry->mm = mm;
		__entry->pid = pid;
		__entry->reason = reason;
		__entry->duration_ns = duration_ns;
		__entry->logged = logged;
		__entry->dropped = dropped;
	),

	TP_printk("mm=%p pid=%d reason=%s duration_ns=%llu logged=%u dropped=%d",
		__entry->mm, __entry->pid,
		show_prepage_close_reason(__entry->reason),
		__entry->duration_ns, __entry->logged, __entry->dropped)
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
		show_prepage_stop_reason(__entry->reason))
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
		show_prepage_stop_reason(__entry->reason))
);

#endif /* _TRACE_PREPAGE_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
