// SPDX-License-Identifier: GPL-2.0
/*
 * prepage worker threads: the kthread workers the file and anonymous
 * prepagers run on, created when prepage is enabled and destroyed when it
 * is disabled, and the registry of them that prepage_speculative() looks
 * in. See workers.h.
 */

#include <linux/bug.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/minmax.h>
#include <linux/prepage.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <uapi/linux/sched/types.h>

#include "workers.h"

/*
 * Every prepage thread, file and anonymous, for __prepage_speculative().
 * Entries are added and cleared under the lock that serializes enabling
 * and disabling prepage; readers take no lock, only rcu_read_lock(), so
 * that a task they compare with was not freed and reused (task_structs
 * are freed after a grace period).
 */
#define PREPAGE_MAX_THREADS	32
static struct task_struct *prepage_threads[PREPAGE_MAX_THREADS];
static unsigned int prepage_nr_threads;

static void prepage_thread_add(struct task_struct *task)
{
	unsigned int i, nr = prepage_nr_threads;

	/* A slot left by a destroyed worker first. */
	for (i = 0; i < nr; i++) {
		if (!prepage_threads[i]) {
			WRITE_ONCE(prepage_threads[i], task);
			return;
		}
	}
	if (WARN_ON_ONCE(nr >= PREPAGE_MAX_THREADS))
		return;
	WRITE_ONCE(prepage_threads[nr], task);
	/* The entry before the count. */
	smp_store_release(&prepage_nr_threads, nr + 1);
}

/**
 * __prepage_speculative() - whether the current task is a prepage thread
 *
 * See prepage_speculative(). Called where a page comes back in from a
 * shadow entry, while prepage is enabled.
 *
 * Return: true in a prepage thread.
 */
bool __prepage_speculative(void)
{
	unsigned int i, nr;
	bool found = false;

	if (!(current->flags & PF_KTHREAD))
		return false;
	rcu_read_lock();
	/* Pairs with the release in prepage_thread_add(). */
	nr = smp_load_acquire(&prepage_nr_threads);
	for (i = 0; i < nr && !found; i++)
		found = READ_ONCE(prepage_threads[i]) == current;
	rcu_read_unlock();
	return found;
}

/**
 * prepage_idle_workers_create() - start SCHED_IDLE kthread workers
 * @workers:	where to put them
 * @max:	room in @workers
 * @name:	name prefix: the workers are "@name/0", "@name/1", ...
 *
 * Starts one worker per possible CPU, up to @max: prepaging uses the
 * CPUs that would otherwise be idle, and never competes with the app;
 * CPUs brought online later are used too (the workers are not bound to
 * a CPU, and a sleeping one costs little more than its stack). What
 * the workers read back in is not a refault (see prepage_speculative()).
 *
 * Return: the number of workers started, at least one, or the error of
 * starting the first.
 */
int prepage_idle_workers_create(struct kthread_worker **workers,
				unsigned int max, const char *name)
{
	struct sched_attr idle = { .sched_policy = SCHED_IDLE };
	unsigned int i, nr = clamp(num_possible_cpus(), 1U, max);

	for (i = 0; i < nr; i++) {
		struct kthread_worker *w;

		w = kthread_create_worker(KTW_FREEZABLE, "%s/%u", name, i);
		if (IS_ERR(w)) {
			if (!i)
				return PTR_ERR(w);
			break;
		}
		sched_setattr_nocheck(w->task, &idle);
		prepage_thread_add(w->task);
		workers[i] = w;
	}
	return i;
}

/**
 * prepage_worker_create() - start a kthread worker of normal weight
 * @name:	its name
 *
 * For work the app waits for, such as the files its render thread reads
 * first: it gets its fair share of a CPU, as the app does. It is
 * SCHED_BATCH, so that it does not preempt on wakeup: the caller of the
 * 'start' write that queues its work goes on to wake the app, and the
 * worker runs on a CPU that is free, or when the caller's slice ends.
 * Like the SCHED_IDLE workers, it is freezable and counts as a prepage
 * thread (see prepage_speculative()) until it is destroyed. Called with
 * the lock that serializes enabling prepage.
 *
 * Return: the worker, or an ERR_PTR() of the error of starting it.
 */
struct kthread_worker *prepage_worker_create(const char *name)
{
	struct sched_attr batch = { .sched_policy = SCHED_BATCH };
	struct kthread_worker *w;

	w = kthread_create_worker(KTW_FREEZABLE, "%s", name);
	if (IS_ERR(w))
		return w;
	sched_setattr_nocheck(w->task, &batch);
	prepage_thread_add(w->task);
	return w;
}

/**
 * prepage_workers_destroy() - destroy kthread workers
 * @workers:	the workers, from prepage_idle_workers_create() or
 *		prepage_worker_create(), or NULL; set to NULL
 * @nr:		how many, at most %PREPAGE_MAX_THREADS
 *
 * The pointers in @workers and the registry of prepage threads are
 * cleared first: whoever looks at them under rcu_read_lock() finds the
 * workers alive, or not at all. Called when prepage is disabled, with
 * the lock that serializes enabling and disabling it, once no work is
 * queued on them and none can be: every address space's prepage state is
 * shut down.
 */
void prepage_workers_destroy(struct kthread_worker **workers, unsigned int nr)
{
	struct kthread_worker *gone[PREPAGE_MAX_THREADS];
	unsigned int i, j;

	if (WARN_ON_ONCE(nr > PREPAGE_MAX_THREADS))
		nr = PREPAGE_MAX_THREADS;
	for (i = 0; i < nr; i++) {
		gone[i] = workers[i];
		WRITE_ONCE(workers[i], NULL);
		for (j = 0; gone[i] && j < prepage_nr_threads; j++)
			if (prepage_threads[j] == gone[i]->task)
				WRITE_ONCE(prepage_threads[j], NULL);
	}
	if (!nr)
		return;
	synchronize_rcu();
	for (i = 0; i < nr; i++)
		if (gone[i])
			kthread_destroy_worker(gone[i]);
}
