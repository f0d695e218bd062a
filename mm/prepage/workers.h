/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prepage worker threads, shared by the file and anonymous prepagers. A
 * leaf: it calls nothing else of prepage.
 */
#ifndef _MM_PREPAGE_WORKERS_H
#define _MM_PREPAGE_WORKERS_H

struct kthread_worker;

int prepage_idle_workers_create(struct kthread_worker **workers,
				unsigned int max, const char *name);
struct kthread_worker *prepage_worker_create(const char *name);
void prepage_workers_destroy(struct kthread_worker **workers, unsigned int nr);
void prepage_worker_set_context(void *context);
void *prepage_worker_context(void);

#endif /* _MM_PREPAGE_WORKERS_H */
