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

#include <linux/jump_label.h>

struct mm_struct;

#ifdef CONFIG_PREPAGE

DECLARE_STATIC_KEY_FALSE(prepage_key);

void __prepage_exit_mm(struct mm_struct *mm);

/**
 * prepage_exit_mm() - release the prepage state of an address space
 * @mm: the address space whose last user is going away
 *
 * Called from __mmput() before exit_mmap(). While prepage is disabled no
 * address space has prepage state, and this is one static branch.
 */
static inline void prepage_exit_mm(struct mm_struct *mm)
{
	if (static_branch_unlikely(&prepage_key))
		__prepage_exit_mm(mm);
}

#else /* CONFIG_PREPAGE */

static inline void prepage_exit_mm(struct mm_struct *mm) {}

#endif /* CONFIG_PREPAGE */
#endif /* _LINUX_PREPAGE_H */
