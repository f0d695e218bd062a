/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prepage extent sets: the sets of pages the file tables, the access log
 * and the anonymous side are made of, and the parsers of the numbers and
 * byte ranges of table lines. A leaf: it calls nothing else of prepage.
 */
#ifndef _MM_PREPAGE_EXTENTS_H
#define _MM_PREPAGE_EXTENTS_H

#include <linux/types.h>

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

int prepage_extents_reserve(struct prepage_extents *set, unsigned int nr);
int prepage_extents_add(struct prepage_extents *set, pgoff_t start, pgoff_t nr);
int prepage_extents_add_reserved(struct prepage_extents *set, pgoff_t start,
				 pgoff_t nr);
int prepage_extents_remove(struct prepage_extents *set, pgoff_t start,
			   pgoff_t nr);
bool prepage_extents_contains(const struct prepage_extents *set, pgoff_t index);
bool prepage_extents_overlaps(const struct prepage_extents *set,
			      pgoff_t start, pgoff_t nr);
void prepage_extents_truncate(struct prepage_extents *set, pgoff_t end);
unsigned long prepage_extents_pages(const struct prepage_extents *set);
bool prepage_extents_next_io(const struct prepage_extents *set,
			     unsigned int *pos, pgoff_t gap,
			     struct prepage_extent *io);
int prepage_extents_copy(struct prepage_extents *dst,
			 const struct prepage_extents *src);
int prepage_extents_intersect(struct prepage_extents *dst,
			      const struct prepage_extents *a,
			      const struct prepage_extents *b);
int prepage_extents_subtract(struct prepage_extents *set,
			     const struct prepage_extents *b);
void prepage_extents_destroy(struct prepage_extents *set);
int prepage_parse_u64(const char *s, u64 *val);
int prepage_parse_ranges(char *s, struct prepage_extents *set,
			 unsigned int max_extents);
unsigned int prepage_permille(u64 part, u64 whole);

#endif /* _MM_PREPAGE_EXTENTS_H */
