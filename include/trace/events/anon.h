/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Anonymous memory access events: the counterpart of the filemap access
 * events, so that a recorder can capture which anonymous pages a task
 * touches, and which of those had to come back from swap.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM anon

#if !defined(_TRACE_ANON_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_ANON_H

#include <linux/types.h>
#include <linux/tracepoint.h>
#include <linux/mm_types.h>

/*
 * Where a swap-in fault found its data, &enum anon_swapin_source, with
 * the name the events print:
 * ANON_SWAPIN_CACHE: the folio was in the swap cache; no read was issued
 *	by this fault, though it may have waited for one in flight.
 * ANON_SWAPIN_SYNC: read synchronously, bypassing the swap cache (a
 *	SWP_SYNCHRONOUS_IO device such as zram: this is the decompression).
 * ANON_SWAPIN_READAHEAD: read through the swap cache with swap readahead.
 */
#define ANON_SWAPIN_SOURCES					\
	EM(ANON_SWAPIN_CACHE,		"cache")		\
	EM(ANON_SWAPIN_SYNC,		"sync")			\
	EMe(ANON_SWAPIN_READAHEAD,	"readahead")

#ifndef __ANON_SWAPIN_SOURCE_ONCE
#define __ANON_SWAPIN_SOURCE_ONCE
#undef EM
#undef EMe
#define EM(a, b)	a,
#define EMe(a, b)	a
enum anon_swapin_source { ANON_SWAPIN_SOURCES };
#endif

#undef EM
#undef EMe
#define EM(a, b)	TRACE_DEFINE_ENUM(a);
#define EMe(a, b)	TRACE_DEFINE_ENUM(a);
ANON_SWAPIN_SOURCES

#undef EM
#undef EMe
#define EM(a, b)	{ a, b },
#define EMe(a, b)	{ a, b }

/**
 * mm_anon_fault - a first-touch fault mapped fresh anonymous memory
 * @mm: the faulting address space, printed hashed; only an identity
 * @address: the first page the fault mapped: the faulting page, or the
 *	first page of the large folio it mapped
 * @nr_pages: how many pages the fault mapped (more for a large folio)
 * @write: the fault was a write
 * @zero: a read fault that mapped the shared zero page
 *
 * Fired by do_anonymous_page() once the PTEs are set.
 */
TRACE_EVENT(mm_anon_fault,

	TP_PROTO(struct mm_struct *mm, unsigned long address,
		 unsigned int nr_pages, bool write, bool zero),

	TP_ARGS(mm, address, nr_pages, write, zero),

	TP_STRUCT__entry(
		__field(const void *, mm)
		__field(unsigned long, address)
		__field(unsigned int, nr_pages)
		__field(bool, write)
		__field(bool, zero)
	),

	TP_fast_assign(
		__entry->mm = mm;
		__entry->address = address & PAGE_MASK;
		__entry->nr_pages = nr_pages;
		__entry->write = write;
		__entry->zero = zero;
	),

	TP_printk("mm=%p address=0x%lx nr_pages=%u write=%d zero=%d",
		__entry->mm, __entry->address, __entry->nr_pages,
		__entry->write, __entry->zero)
);

/**
 * mm_anon_swapin - a fault mapped anonymous memory back from swap
 * @mm: the faulting address space, printed hashed; only an identity
 * @address: the first page the fault mapped: the faulting page, or the
 *	first page of the large folio it mapped
 * @nr_pages: how many pages the fault mapped (more for a large folio)
 * @type: swap device (swap type) of the entries that were faulted in
 * @offset: swap offset of the entry of the first page mapped
 * @write: the fault was a write
 * @sync: the swap device is SWP_SYNCHRONOUS_IO (e.g. zram)
 * @source: &enum anon_swapin_source, whether this fault had to read
 *
 * Fired by do_swap_page() once the PTEs are set, that is once per
 * swapped-out page (or large folio) the task actually touched.
 */
TRACE_EVENT(mm_anon_swapin,

	TP_PROTO(struct mm_struct *mm, unsigned long address,
		 unsigned int nr_pages, unsigned int type, pgoff_t offset,
		 bool write, bool sync, enum anon_swapin_source source),

	TP_ARGS(mm, address, nr_pages, type, offset, write, sync, source),

	TP_STRUCT__entry(
		__field(const void *, mm)
		__field(unsigned long, address)
		__field(pgoff_t, offset)
		__field(unsigned int, nr_pages)
		__field(unsigned int, type)
		__field(bool, write)
		__field(bool, sync)
		__field(enum anon_swapin_source, source)
	),

	TP_fast_assign(
		__entry->mm = mm;
		__entry->address = address & PAGE_MASK;
		__entry->offset = offset;
		__entry->nr_pages = nr_pages;
		__entry->type = type;
		__entry->write = write;
		__entry->sync = sync;
		__entry->source = source;
	),

	TP_printk("mm=%p address=0x%lx nr_pages=%u swap=%u:0x%lx write=%d sync=%d source=%s",
		__entry->mm, __entry->address, __entry->nr_pages,
		__entry->type, __entry->offset, __entry->write, __entry->sync,
		__print_symbolic(__entry->source, ANON_SWAPIN_SOURCES))
);

#endif /* _TRACE_ANON_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
