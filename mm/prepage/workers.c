// SPDX-License-Identifier: GPL-2.0
/*
 * prepage worker threads: the kthread workers the file and anonymous
 * prepagers run on, created when prepage is enabled and destroyed when it
 * is disabled, each knowing what its current work is for.
 */

#include <linux/bug.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/minmax.h>
#include <linux/prepage.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sprintf.h>
#include <uapi/linux/sched/types.h>

#include "workers.h"

/* Room for a thread's name, as kthread_create() keeps a long one. */
#define PREPAGE_WORKER_NAME_LEN	32

/*
 * A prepage thread: a kthread worker, and what the work it is running is
 * for (prepage_worker_set_context()). Only the thread itself reads or
 * writes @context.
 */
struct prepage_worker {
	struct kthread_worker kw;
	void *context;
};

/*
 * The thread function of every prepage thread: kthread_worker_fn(), under
 * a name of its own, so that kthread_func() tells a prepage thread from
 * any other kernel thread without a list of them.
 */
static int prepage_worker_fn(void *kw)
{
	return kthread_worker_fn(kw);
}

/**
 * __prepage_speculative() - whether the current task is a prepage thread
 *
 * A prepage thread runs prepage_worker_fn(), which kthread_func() tells
 * apart from any other kernel thread's function. Called while prepage
 * is enabled.
 *
 * Return: true in a prepage thread.
 */
bool __prepage_speculative(void)
{
	return (current->flags & PF_KTHREAD) &&
	       kthread_func(current) == prepage_worker_fn;
}

/* The current task as a prepage thread; NULL if it is not one. */
static struct prepage_worker *prepage_worker_current(void)
{
	if (!__prepage_speculative())
		return NULL;
	return container_of(kthread_data(current), struct prepage_worker, kw);
}

/**
 * prepage_worker_set_context() - say what the current work is for
 * @context:	what prepage_worker_context() returns from now on in this
 *		thread; NULL when the work is done with it
 *
 * Context: a work running on a prepage thread.
 */
void prepage_worker_set_context(void *context)
{
	struct prepage_worker *pw = prepage_worker_current();

	if (!WARN_ON_ONCE(!pw))
		pw->context = context;
}

/**
 * prepage_worker_context() - what the current prepage thread works for
 *
 * Any task may ask, in any context: a hook called where a page is added
 * to the page cache asks whether a prepager added it.
 *
 * Return: what the work it is running set, or NULL if the current task
 * is not a prepage thread or its work set nothing.
 */
void *prepage_worker_context(void)
{
	struct prepage_worker *pw = prepage_worker_current();

	return pw ? pw->context : NULL;
}

/*
 * Start a prepage thread of scheduling @policy named @name, freezable as
 * kthread_create_worker(KTW_FREEZABLE) makes one.
 */
static struct kthread_worker *prepage_worker_start(int policy,
						   const char *name)
{
	struct sched_attr attr = { .sched_policy = policy };
	struct prepage_worker *pw;
	struct task_struct *task;

	pw = kzalloc(sizeof(*pw), GFP_KERNEL);
	if (!pw)
		return ERR_PTR(-ENOMEM);
	kthread_init_worker(&pw->kw);
	task = kthread_create(prepage_worker_fn, &pw->kw, "%s", name);
	if (IS_ERR(task)) {
		kfree(pw);
		return ERR_CAST(task);
	}
	sched_setattr_nocheck(task, &attr);
	pw->kw.flags = KTW_FREEZABLE;
	pw->kw.task = task;
	wake_up_process(task);
	return &pw->kw;
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
 * a CPU, and a sleeping one costs little more than its stack). Each
 * is a prepage thread (__prepage_speculative()).
 *
 * Return: the number of workers started, at least one, or the error of
 * starting the first.
 */
int prepage_idle_workers_create(struct kthread_worker **workers,
				unsigned int max, const char *name)
{
	unsigned int i, nr = clamp(num_possible_cpus(), 1U, max);
	char comm[PREPAGE_WORKER_NAME_LEN];

	for (i = 0; i < nr; i++) {
		struct kthread_worker *w;

		snprintf(comm, sizeof(comm), "%s/%u", name, i);
		w = prepage_worker_start(SCHED_IDLE, comm);
		if (IS_ERR(w)) {
			if (!i)
				return PTR_ERR(w);
			break;
		}
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
 * thread (__prepage_speculative()) until it is destroyed. Called with
 * the lock that serializes enabling prepage.
 *
 * Return: the worker, or an ERR_PTR() of the error of starting it.
 */
struct kthread_worker *prepage_worker_create(const char *name)
{
	return prepage_worker_start(SCHED_BATCH, name);
}

/**
 * prepage_workers_destroy() - destroy prepage threads
 * @workers:	the threads' workers, from prepage_idle_workers_create() or
 *		prepage_worker_create(), or NULL; set to NULL
 * @nr:		how many
 *
 * Called when prepage is disabled, with the lock that serializes enabling
 * and disabling it, once no work is queued on them and none can be: every
 * address space's prepage state is shut down, and nothing else reads
 * @workers.
 */
void prepage_workers_destroy(struct kthread_worker **workers, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		struct kthread_worker *w = workers[i];

		workers[i] = NULL;
		if (!w)
			continue;
		kthread_flush_worker(w);
		kthread_stop(w->task);
		WARN_ON(!list_empty(&w->work_list));
		kfree(container_of(w, struct prepage_worker, kw));
	}
}
