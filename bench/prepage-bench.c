// SPDX-License-Identifier: GPL-2.0
/*
 * prepage-bench: an app-switch benchmark, run in the test VM.
 *
 * N app processes, each with a few big and several small files mapped
 * from a disk file system, a framework file they all map, and an
 * anonymous heap, all filled with a per-page checksum pattern. An
 * activity-manager driver (this process) switches between them in a
 * fixed sequence; on a switch the app "renders": it touches its switch
 * footprint with CPU work in between, checking every page it touches.
 * The footprint model (--footprint, see fp_make()) is calibrated by
 * default to how stable ASAP measured apps' footprints to be, with a
 * use phase after each switch and a GC at each switch-out; --footprint
 * uniform is the earlier, memoryless one. Switch latency is the time
 * from the switch signal to the end of the render. The next switch
 * follows at once,
 * once the last one's prefetching is done: the replay thread's, or, in
 * the prepage modes, the counting of the window after 'end' (a read of
 * prepage_stat waits for it). A background app loses its pages:
 * anonymous ones to (zram) swap, file ones from the page cache, either
 * by real reclaim (default: the driver locks enough memory that the apps
 * get only --budget of it) or by explicit, deterministic page-out
 * (--pageout: MADV_PAGEOUT and FADV_DONTNEED as an app goes background).
 * Each mode runs in a memory cgroup of its own (--no-memcg: all in the
 * root one), so that reclaim's per-cgroup state does not pass from one
 * mode to the next.
 *
 * Three app sequences, round by round in turn (--sequences): cycle (every
 * app once a round, the order rotated), hub (every other switch goes back
 * to one app, as to a launcher or a messenger) and random (a seeded
 * shuffle, no app twice in a row); and zipf, for the scenario "apps"
 * (each switch an app drawn with a chance in proportion to 1 / (id + 1),
 * not the one in front), where an app's footprint follows its own count
 * of switches, not the round.
 *
 * Modes, run side by side with the same seeds, sizes and sequence:
 *   ideal        nothing is paged out
 *   baseline     demand paging
 *   userspace    the driver replays the profile at switch start with
 *                the code of tools/mm/prepagectl replay (linked in):
 *                readahead() on the file ranges and
 *                process_madvise(MADV_WILLNEED) on the anonymous ones
 *   userspace-file  the same, file ranges only
 *   populate     the same with process_madvise(MADV_POPULATE_READ) on
 *                the anonymous ranges (swapped in and mapped, as prepage
 *                does), which needs the bench-only kernel patch
 *                bench/process-madvise-populate.patch: the answer to
 *                "why not populate from userspace?"
 *   prepage-file prepage, file side only (profile loaded as the table)
 *   prepage-anon prepage, anonymous side only (learned online)
 *   prepage      both (file side: the profile; anonymous side: learned)
 *   prepage-profile  prepage with exactly the userspace replay's tables,
 *                file and anonymous, loaded again after every switch
 *                (mechanism against mechanism: nothing learned)
 *   userspace-oracle, populate-oracle, prepage-oracle
 *                userspace, populate and prepage-profile with tables
 *                that hold, instead of the profile, exactly the pages of
 *                the app's next switch (its whole footprint, the part
 *                that changes every round too), set after its switch
 *                before: the mechanisms with a perfect prediction, so
 *                that what a mechanism can do is measured apart from
 *                what the profile can know (which bounds the profile
 *                modes on this benchmark, see the cover letter)
 *   userspace-rerecord  userspace, whose daemon records each app again
 *                with prepagectl record (fault-around off while it
 *                does) over its switches 10-19 of every 20, replaying
 *                on, and replays the new table from the next switch on
 *                (the scenario "drift": online, but not in the kernel)
 *
 * The scenarios of bench/README.md add --drift (a share of the runs
 * moves at each switch), --unprofiled (apps with no table) and --update
 * (an app's files replaced mid-run); bench/scenario.py judges them.
 * The profile is recorded, as a user of prepage would record it: before
 * the modes, `prepagectl record -n 10 -k 8` (found next to this program)
 * follows each app through 10 profiling switches, each after a page-out
 * of the app, with prepage on and both of its sides off (nothing is
 * prepaged, so every access is the app's own) and fault-around off (so
 * that every page the app uses faults on its own), and keeps the pages
 * used in at least 8 of them. A PROFILE line compares it with the footprint
 * generator's pages of those switches (in >= 8 of them too); HIST lines
 * give, per app and side, how many pages were used in exactly k of the
 * 10 switches, as the model expects, as the generator made them and as
 * prepagectl recorded them, and TARGET lines the published shares the
 * calibrated model aims at (--model prints the first two without a
 * kernel).
 *
 * Output: one "key=value ..." line per record (SWITCH, APPSTAT, MODE),
 * parsed by bench/report.py. Any page with unexpected contents fails the
 * run (exit 1).
 *
 * --anatomy N adds N trials per mode, after the measured ones, with task
 * delay accounting on (kernel.task_delayacct): their SWITCH lines
 * (anatomy=1) split each switch's latency, from the app's taskstats
 * before and after it, into time on a CPU, waiting for a CPU, in
 * swap-in, in direct reclaim and waiting for block I/O. Latencies come
 * from the other trials; the report states what the accounting costs.
 * The scheduler's DELAY_DEQUEUE is off in them where the kernel lets it
 * (see delay_dequeue_off()); --no-delay-dequeue turns it off in every
 * trial.
 *
 * The render touches the app's files first, then its heap; SWITCH lines
 * give the heap part's length (heap_us) beside the latency.
 *
 * --overhead LABEL instead runs fault-heavy loops with no app switch (the
 * cost of the hooks when prepage is off or idle): first-touch anonymous
 * faults, swap-in faults, file read faults on cached pages and read() of
 * cached pages, printing OVERHEAD lines tagged with LABEL.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <sys/socket.h>
#include <pthread.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ	22
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open	434
#endif
#ifndef SYS_process_madvise
#define SYS_process_madvise	440
#endif

#define MAX_APPS	16
#define NR_OWN		8	/* files of an app's own: 2 big, 6 small */
#define NR_BIG		2
#define FRAMEWORK	NR_OWN	/* and one file every app maps */
#define NR_FILES	(NR_OWN + 1)
#define SYSFS		"/sys/kernel/mm/prepage/"

static long psz;

#define DEFAULT_MODES	"ideal,baseline,userspace,userspace-file,populate,prepage-file,prepage-anon,prepage,prepage-profile,userspace-oracle,prepage-oracle"
#define DEFAULT_SEQUENCES "cycle,hub,random"

enum { FP_CALIBRATED, FP_UNIFORM };
static const char *const footprint_names[] = { "calibrated", "uniform", NULL };

static struct {
	int apps, warmup, rounds, trials, profile_rounds, anatomy;
	unsigned int seed;
	long big_pages, small_pages, anon_pages;	/* per app */
	long framework_pages;		/* the shared file */
	long file_fp, anon_fp;		/* footprint pages per switch */
	int work;			/* CPU work per touched page */
	int footprint;			/* FP_CALIBRATED or FP_UNIFORM */
	int framework_pct;		/* of the file footprint, calibrated */
	int gc_pct;			/* heap pages moved at switch-out */
	long use_alloc;			/* pages allocated in the use phase */
	int jitter_pct;			/* touch order: adjacent swaps */
	bool pageout;			/* explicit page-out, not reclaim */
	bool memcg;			/* a memory cgroup for each mode */
	bool no_delay_dequeue;		/* DELAY_DEQUEUE off in every trial */
	/* The scenarios (bench/README.md): */
	int drift_pct;			/* runs that move at each switch */
	uint32_t unprofiled;		/* apps with no profile (a mask) */
	int update_app, update_at;	/* its files replaced at that switch */
	long budget_mb;			/* reclaim: memory the apps get */
	const char *dir;
	char modes[256];
	char sequences[64];
} opt = {
	.apps = 6, .warmup = 4, .rounds = 6, .trials = 3,
	.profile_rounds = 10, .seed = 1,
	.big_pages = 3072, .small_pages = 128, .anon_pages = 4096,
	.framework_pages = 4096,
	.file_fp = 1024, .anon_fp = 768, .work = 2000,
	.footprint = FP_CALIBRATED, .framework_pct = 25, .gc_pct = 2,
	.use_alloc = 192, .jitter_pct = 25,
	.dir = "/mnt/disk",
	.memcg = true,
	.update_app = -1,
	.modes = DEFAULT_MODES,
	.sequences = DEFAULT_SEQUENCES,
};

static const char *const mode_names[] = {
	"ideal", "baseline", "userspace", "userspace-file", "populate",
	"prepage-file",
	"prepage-anon", "prepage", "prepage-profile", "userspace-oracle",
	"populate-oracle", "prepage-oracle", "userspace-rerecord", NULL,
};

/* App sequences; sequence_names[] in the same order. */
enum { SEQ_CYCLE, SEQ_HUB, SEQ_RANDOM, SEQ_ZIPF };
static const char *const sequence_names[] = {
	"cycle", "hub", "random", "zipf", NULL,
};

static int name_index(const char *const *names, const char *s)
{
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}


static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "prepage-bench: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* CPU time of the calling thread: what a write itself costs, not waits. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Time the calling thread waited for a CPU while runnable (schedstat's
 * run_delay): how much of a write's wall time it was preempted.
 */
static uint64_t thread_wait_ns(void)
{
	unsigned long long run, wait = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (f) {
		if (fscanf(f, "%llu %llu", &run, &wait) != 2)
			wait = 0;
		fclose(f);
	}
	return wait;
}

/* splitmix64: a small, good, seedable generator. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/*
 * The checksum a page must hold: app, object (file or heap), page; the
 * framework's pages are the same for every app. A heap page's is that
 * of its logical page, wherever the app's GC moved it.
 */
static uint64_t page_sig(int app, int obj, long page)
{
	if (obj == FRAMEWORK)
		app = MAX_APPS;
	return mix(((uint64_t)opt.seed << 48) ^ ((uint64_t)app << 40) ^
		   ((uint64_t)obj << 32) ^ (uint64_t)page);
}

static long file_pages(int f)
{
	return f == FRAMEWORK ? opt.framework_pages :
	       f < NR_BIG ? opt.big_pages : opt.small_pages;
}

/*
 * The heap: opt.anon_pages logical pages (the app's live data), in as
 * many slots of its mapping, then (calibrated model) free slots the GC
 * moves pages to, a quarter as many, then the nursery the use phase
 * allocates in and the switch-out frees.
 */
static long heap_spare(void)
{
	return opt.footprint == FP_CALIBRATED ? opt.anon_pages / 4 : 0;
}

static long heap_nursery(void)
{
	return opt.footprint == FP_CALIBRATED ? opt.use_alloc : 0;
}

static long heap_pages(void)
{
	return opt.anon_pages + heap_spare() + heap_nursery();
}

/* A uniform double in [0, 1) from a 64-bit hash. */
static double unit(uint64_t x)
{
	return (x >> 11) * 0x1.0p-53;
}

/*
 * The switch footprint of an app in a round, as a bitmap per object
 * (files 0..NR_FILES-1, heap = NR_FILES, by slot: the page's address).
 * Rounds below 0 are profiling rounds.
 *
 * --footprint calibrated (the default): each app has runs of 1-8
 * adjacent pages, each with a probability of being used in a switch
 * that stays the same from switch to switch (the footprint has memory:
 * what an app used often it keeps using), in three classes: stable
 * (0.93-1), recurring (0.45-0.8) and rare (0.04-0.3), the probability
 * drawn uniformly in the class for each run. How many pages each class
 * has is solved for (model_class_pages()) so that, over 10 switches, the
 * share of the pages used in any of them that were used in 9-10, 5-8
 * and 1-4 is what ASAP measured on phones (Son et al., ATC'21, and
 * Son's thesis, section 4.1): file 75/15/10%, anonymous 44% in 9-10 and
 * the rest spread evenly over 1-8 (28/28%). A quarter of the file
 * footprint is in a framework file every app maps, at the same pages
 * for every app; of the rest, 90% is in the big files. An app touches
 * its runs in an order of its own, not by address (its files' runs,
 * then its heap's), which each switch jitters (each neighbour pair
 * swapped with a chance of --jitter percent). After each switch the app
 * is used (unmeasured): it touches another draw of its runs and
 * allocates --use-alloc pages; at each switch-out its GC frees those and
 * moves --gc percent of its heap's pages to other slots, as ART's
 * compaction moves objects in the background.
 *
 * --footprint uniform (the earlier model, the adversarial case): per
 * round, 75% of the file footprint (90% of it in the big files) and 44%
 * of the anonymous one fixed, the rest drawn anew each round, with no
 * memory of earlier rounds; address order, no use phase, no GC.
 */
struct footprint {
	uint8_t *map[NR_FILES + 1];
};

#define NR_CLASSES	3
static const double class_p[NR_CLASSES][2] = {
	{ 0.93, 1.00 }, { 0.45, 0.80 }, { 0.04, 0.30 },
};

/* ASAP's shares (%) of the pages of 10 switches used in 9-10, 5-8, 1-4. */
static const double band_target[2][NR_CLASSES] = {
	{ 75, 15, 10 },		/* file */
	{ 44, 28, 28 },		/* anonymous */
};

struct run {
	int obj;		/* a file, or NR_FILES: the heap's logical pages */
	long start, len;
	double p;		/* the chance it is used in a switch */
	int id;			/* what its draws are keyed by */
};

struct model {
	struct run *runs;
	int nr, cap;
	int *order;		/* touch order: file runs, then heap runs */
	int nr_file;		/* file runs (order[0..nr_file)) */
	uint64_t key;
};

static void model_copy(struct model *to, const struct model *from)
{
	free(to->runs);
	free(to->order);
	*to = *from;
	to->cap = from->nr;
	to->runs = malloc((from->nr + 1) * sizeof(*to->runs));
	to->order = malloc((from->nr + 1) * sizeof(*to->order));
	if (!to->runs || !to->order)
		die("out of memory");
	memcpy(to->runs, from->runs, from->nr * sizeof(*to->runs));
	memcpy(to->order, from->order, from->nr * sizeof(*to->order));
}

/* ---- the app ------------------------------------------------------------ */

struct app {
	int id;
	pid_t pid;
	int cmd, reply;			/* pipes, driver side */
	int ctl;			/* /proc/<pid>/prepage, or -1 */
	char path[NR_FILES][256];
	char *map[NR_FILES + 1];	/* in the app */
	/* Profile: pages recorded in >= 8 of 10 profiling switches. */
	uint8_t *profile[NR_FILES + 1];
	/*
	 * The oracle modes: the footprint of the app's next switch, which
	 * its tables hold instead of the profile while @oracle is set.
	 */
	struct footprint next;
	bool oracle;
	char table[64];			/* the profile as a table, for replay */
	uintptr_t heap;			/* heap address, for the anon replay */
	uint64_t stat0[64];
	uint64_t last[64];		/* its counters at its last settle */
	char *peek[NR_FILES];		/* driver's maps of the files (mincore) */
	struct model model;		/* calibrated footprint */
	struct model base;		/* the model of its first version */
	int version;			/* of its files: updates so far */
	int switches;			/* in this mode so far */
	/*
	 * The heap's layout: the slot of each logical page, and the free
	 * slots, oldest first (a ring). The app and the driver keep the same
	 * copy: the moves are a function of the seed and @epoch.
	 */
	long *slot, *free;
	long free_head, nr_free;
	long epoch;			/* switch-outs (GC runs) so far */
	/* What prepagectl record noted: pages used in k of the windows. */
	unsigned long recorded[2][64];
	int recorded_windows;
	char recorded_table[64];	/* the table it wrote */
	/* Real apps: the process started (a->pid: the one switched). */
	pid_t child;
	FILE *rin, *rout;		/* the protocol, driver side */
	long rss_file_kb, rss_anon_kb;	/* the most after a profiling switch */
};

static struct app apps[MAX_APPS];

static long obj_pages(int obj)
{
	return obj == NR_FILES ? heap_pages() : file_pages(obj);
}

/* The checksum of page @p of @a's object @o: its own files' per version. */
static uint64_t app_sig(const struct app *a, int o, long p)
{
	return page_sig(o < NR_OWN ? a->id + 32 * a->version : a->id, o, p);
}

static void fp_alloc(struct footprint *fp)
{
	int o;

	for (o = 0; o <= NR_FILES; o++) {
		fp->map[o] = calloc(obj_pages(o), 1);
		if (!fp->map[o])
			die("out of memory");
	}
}

static void fp_clear(struct footprint *fp)
{
	int o;

	for (o = 0; o <= NR_FILES; o++)
		memset(fp->map[o], 0, obj_pages(o));
}

/* Mark @n pages of object @o, chosen by @key, in runs of 1-8 pages. */
static void fp_pick(struct footprint *fp, int o, long n, uint64_t key)
{
	long pages = obj_pages(o), done = 0, tries = 0;

	while (done < n && tries++ < 100 * n) {
		uint64_t r = mix(key + tries);
		long p = r % pages, len = 1 + (r >> 32) % 8, i;

		for (i = 0; i < len && p + i < pages && done < n; i++) {
			if (!fp->map[o][p + i]) {
				fp->map[o][p + i] = 1;
				done++;
			}
		}
	}
}

static uint64_t app_key(int app)
{
	return mix((uint64_t)opt.seed * 1000003 + app);
}

static void fp_make_uniform(struct footprint *fp, int app, int round)
{
	uint64_t base = app_key(app);
	long big = opt.file_fp * 9 / 10 / NR_BIG;
	long small = (opt.file_fp - big * NR_BIG) / (NR_OWN - NR_BIG);
	int o;

	for (o = 0; o < NR_OWN; o++) {
		long n = o < NR_BIG ? big : small;
		long fixed = n * 3 / 4;

		fp_pick(fp, o, fixed, base ^ mix(o));
		fp_pick(fp, o, n - fixed, mix(base ^ mix(o) ^ mix(round + 1000)));
	}
	fp_pick(fp, NR_FILES, opt.anon_fp * 44 / 100, base ^ mix(99));
	fp_pick(fp, NR_FILES, opt.anon_fp - opt.anon_fp * 44 / 100,
		mix(base ^ mix(99) ^ mix(round + 1000)));
}

/* P(k of @n switches) for a page used with probability @p in each. */
static double binom(int n, int k, double p)
{
	double c = 1;
	int i;

	for (i = 1; i <= k; i++)
		c = c * (n - k + i) / i;
	for (i = 0; i < k; i++)
		c *= p;
	for (i = 0; i < n - k; i++)
		c *= 1 - p;
	return c;
}

/* The band of "used in @k of 10": 0 for 9-10, 1 for 5-8, 2 for 1-4. */
static int band_of(int k)
{
	return k >= 9 ? 0 : k >= 5 ? 1 : 2;
}

/*
 * Pages of each class for a footprint of @fp pages a switch: the shares
 * x of the classes among the pages seen in 10 switches solve M x = T,
 * M[b][c] the chance that a page of class c falls in band b (its
 * probability uniform in the class's range), T the target shares; then
 * scaled so that the expected footprint of a switch is @fp.
 */
static void model_class_pages(const double *target, long fp, long *pages)
{
	double m[NR_CLASSES][NR_CLASSES + 1] = { { 0 } };
	double pbar[NR_CLASSES] = { 0 }, used = 0;
	int b, c, k, g, j;

	for (c = 0; c < NR_CLASSES; c++) {
		for (g = 0; g < 64; g++) {
			double p = class_p[c][0] + (class_p[c][1] -
				   class_p[c][0]) * (g + 0.5) / 64;

			pbar[c] += p / 64;
			for (k = 1; k <= 10; k++)
				m[band_of(k)][c] += binom(10, k, p) / 64;
		}
	}
	for (b = 0; b < NR_CLASSES; b++)
		m[b][NR_CLASSES] = target[b] / 100;
	/* Gauss-Jordan; the matrix is diagonally dominant. */
	for (c = 0; c < NR_CLASSES; c++) {
		double piv = m[c][c];

		for (j = 0; j <= NR_CLASSES; j++)
			m[c][j] /= piv;
		for (b = 0; b < NR_CLASSES; b++) {
			double f = m[b][c];

			if (b == c)
				continue;
			for (j = 0; j <= NR_CLASSES; j++)
				m[b][j] -= f * m[c][j];
		}
	}
	for (c = 0; c < NR_CLASSES; c++) {
		if (m[c][NR_CLASSES] < 0)
			die("footprint model: no class sizes give the target shares (with a large --gc, by address)");
		used += m[c][NR_CLASSES] * pbar[c];
	}
	for (c = 0; c < NR_CLASSES; c++)
		pages[c] = (long)(m[c][NR_CLASSES] * fp / used + 0.5);
}

/*
 * Add runs of 1-8 pages to @m, @n pages of object @obj in all, where
 * @taken has none yet, placed by @key, each with a probability drawn in
 * class @c by @pkey.
 */
static void model_place(struct model *m, uint8_t *taken, int obj, long n,
			int c, uint64_t key, uint64_t pkey)
{
	long pages = obj == NR_FILES ? opt.anon_pages : file_pages(obj);
	long done = 0, tries = 0;

	while (done < n && tries++ < 100 * n + 100) {
		uint64_t r = mix(key + tries);
		long p = r % pages, len = 1 + (r >> 32) % 8, i;

		if (len > n - done)
			len = n - done;
		if (p + len > pages)
			continue;
		for (i = 0; i < len && !taken[p + i]; i++)
			;
		if (i < len)
			continue;
		memset(taken + p, 1, len);
		if (m->nr == m->cap) {
			m->cap = m->cap * 2 + 64;
			m->runs = realloc(m->runs, m->cap * sizeof(*m->runs));
			if (!m->runs)
				die("out of memory");
		}
		m->runs[m->nr] = (struct run){
			.obj = obj, .start = p, .len = len,
			.p = class_p[c][0] + (class_p[c][1] - class_p[c][0]) *
			     unit(mix(pkey ^ mix(m->nr))),
			.id = m->nr,
		};
		m->nr++;
		done += len;
	}
}

/* Shuffle @n ints by @key (Fisher-Yates). */
static void shuffle(int *v, int n, uint64_t key)
{
	int i, j, t;

	for (i = n - 1; i > 0; i--) {
		j = mix(key ^ mix(i)) % (i + 1);
		t = v[i];
		v[i] = v[j];
		v[j] = t;
	}
}

/*
 * The calibrated model of app @a: its runs and their touch order; the
 * heap's classes sized for the bands @anon_target (see model_calibrate()).
 */
static void model_build(struct app *a, const double *anon_target)
{
	struct model *m = &a->model;
	long pages[2][NR_CLASSES];
	uint8_t *taken[NR_FILES + 1];
	int o, c, i, k;

	free(m->runs);
	free(m->order);
	memset(m, 0, sizeof(*m));
	m->key = app_key(a->id);
	if (opt.footprint != FP_CALIBRATED)
		return;
	for (o = 0; o <= NR_FILES; o++) {
		taken[o] = calloc(o == NR_FILES ? opt.anon_pages :
				  file_pages(o), 1);
		if (!taken[o])
			die("out of memory");
	}
	model_class_pages(band_target[0], opt.file_fp, pages[0]);
	model_class_pages(anon_target, opt.anon_fp, pages[1]);
	for (c = 0; c < NR_CLASSES; c++) {
		long fw = pages[0][c] * opt.framework_pct / 100;
		long rest = pages[0][c] - fw;
		long big = rest * 9 / 10 / NR_BIG;
		long small = (rest - big * NR_BIG) / (NR_OWN - NR_BIG);
		uint64_t pkey = mix(m->key ^ mix(200 + c));

		/* The framework's runs: at the same pages for every app. */
		model_place(m, taken[FRAMEWORK], FRAMEWORK, fw, c,
			    mix(opt.seed ^ mix(FRAMEWORK) ^ mix(100 + c)), pkey);
		for (o = 0; o < NR_OWN; o++)
			model_place(m, taken[o], o, o < NR_BIG ? big : small, c,
				    mix(m->key ^ mix(o) ^ mix(100 + c)), pkey);
	}
	m->nr_file = m->nr;
	for (c = 0; c < NR_CLASSES; c++)
		model_place(m, taken[NR_FILES], NR_FILES, pages[1][c], c,
			    mix(m->key ^ mix(NR_FILES) ^ mix(100 + c)),
			    mix(m->key ^ mix(300 + c)));
	for (o = 0; o <= NR_FILES; o++)
		free(taken[o]);
	m->order = malloc(m->nr * sizeof(*m->order));
	if (!m->order)
		die("out of memory");
	for (i = 0; i < m->nr; i++)
		m->order[i] = i;
	k = m->nr_file;
	shuffle(m->order, k, mix(m->key ^ 400));
	shuffle(m->order + k, m->nr - k, mix(m->key ^ 401));
}

/*
 * Whether run @i of @a is used in round @round: in its switch (@use 0) or
 * in the use phase after it (@use 1).
 */
static bool run_used(const struct app *a, int i, int round, int use)
{
	uint64_t id = a->model.runs[i].id;
	uint64_t r = mix(a->model.key ^ mix(id << 24 ^
			 (uint64_t)(round + 1000) << 1 ^ use));

	return unit(r) < a->model.runs[i].p;
}

/*
 * Where run @i of @a starts in round @round. With --drift, from the first
 * measured round on (not in the profiling or warm-up ones), each run moves at
 * each switch with a chance of --drift percent to a new place in its
 * object, keeping its class and probability: it is where its last move
 * put it.
 */
static long run_start(const struct app *a, int i, int round)
{
	const struct run *r = &a->model.runs[i];
	long pages = r->obj == NR_FILES ? opt.anon_pages : file_pages(r->obj);
	int k;

	for (k = round; opt.drift_pct && k >= opt.warmup; k--) {
		uint64_t x = mix(a->model.key ^ mix((uint64_t)r->id << 24 ^
				 (uint64_t)k << 1 ^ 0x9000));

		if (unit(x) * 100 < opt.drift_pct)
			return mix(x) % (pages - r->len + 1);
	}
	return r->start;
}

/* The touch order of @a's runs in round @round, into @order. */
static void touch_order(const struct app *a, int round, int *order)
{
	const struct model *m = &a->model;
	int j, t;

	memcpy(order, m->order, m->nr * sizeof(*order));
	for (j = 0; j + 1 < m->nr; j++) {
		if (j + 1 == m->nr_file)
			continue;	/* files before the heap */
		if (mix(m->key ^ mix(round + 5000) ^ mix(j)) % 100 >=
		    (uint64_t)opt.jitter_pct)
			continue;
		t = order[j];
		order[j] = order[j + 1];
		order[j + 1] = t;
	}
}

/* The page of object @o the logical page @p is at. */
static long page_at(const struct app *a, int o, long p)
{
	return o == NR_FILES ? a->slot[p] : p;
}

static void fp_make(struct footprint *fp, const struct app *a, int round)
{
	const struct model *m = &a->model;
	long p;
	int i;

	fp_clear(fp);
	if (opt.footprint == FP_UNIFORM) {
		fp_make_uniform(fp, a->id, round);
		return;
	}
	for (i = 0; i < m->nr; i++) {
		const struct run *r = &m->runs[i];

		long s = run_start(a, i, round);

		if (!run_used(a, i, round, 0))
			continue;
		for (p = s; p < s + r->len; p++)
			fp->map[r->obj][page_at(a, r->obj, p)] = 1;
	}
}

/* ---- the heap's GC -------------------------------------------------------- */

/* The heap as it is when the app starts: no page moved yet. */
static void heap_reset(struct app *a)
{
	long l;

	if (!a->slot) {
		a->slot = malloc(opt.anon_pages * sizeof(*a->slot));
		a->free = malloc((heap_spare() + 1) * sizeof(*a->free));
		if (!a->slot || !a->free)
			die("out of memory");
	}
	for (l = 0; l < opt.anon_pages; l++)
		a->slot[l] = l;
	for (l = 0; l < heap_spare(); l++)
		a->free[l] = opt.anon_pages + l;
	a->free_head = 0;
	a->nr_free = heap_spare();
	a->epoch = 0;
}

/*
 * A switch-out's GC: --gc percent of the live pages, chosen by the seed
 * and the epoch, move to the oldest free slots; their old slots are
 * freed. With @heap (in the app) the pages are copied and the old ones
 * given back (MADV_DONTNEED); the driver keeps the same layout without.
 */
static void heap_gc(struct app *a, char *heap)
{
	long n = opt.anon_pages * opt.gc_pct / 100, k, cap = heap_spare();

	for (k = 0; k < n && a->nr_free; k++) {
		long l = mix(a->model.key ^ mix(a->epoch + 7000) ^ mix(k)) %
			 opt.anon_pages;
		long to = a->free[a->free_head], from = a->slot[l];

		a->free_head = (a->free_head + 1) % cap;
		if (heap) {
			memcpy(heap + to * psz, heap + from * psz, psz);
			madvise(heap + from * psz, psz, MADV_DONTNEED);
		}
		a->slot[l] = to;
		a->free[(a->free_head + a->nr_free - 1) % cap] = from;
	}
	a->epoch++;
}

/*
 * Write @a's files, for its version a->version, each to a new file
 * renamed over the old one (a new inode, as an update installs), and out
 * of the page cache; the framework too if @framework.
 */
static void make_files(struct app *a, bool framework)
{
	char *page = malloc(psz), tmp[280];
	int f;

	for (f = 0; f < NR_FILES; f++) {
		long p;
		int fd;

		if (f == FRAMEWORK)
			snprintf(a->path[f], sizeof(a->path[f]), "%s/framework",
				 opt.dir);
		else
			snprintf(a->path[f], sizeof(a->path[f]), "%s/app%d.%d",
				 opt.dir, a->id, f);
		/* One framework for all: the first app writes it. */
		if (f == FRAMEWORK && (a->id || !framework))
			continue;
		snprintf(tmp, sizeof(tmp), "%s.new", a->path[f]);
		fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			die("cannot create %s: %s", tmp, strerror(errno));
		for (p = 0; p < file_pages(f); p++) {
			uint64_t sig = app_sig(a, f, p);

			memset(page, (int)(sig & 0xff), psz);
			memcpy(page, &sig, sizeof(sig));
			memcpy(page + psz - sizeof(sig), &sig, sizeof(sig));
			if (write(fd, page, psz) != psz)
				die("write %s: %s", tmp, strerror(errno));
		}
		if (fsync(fd) || rename(tmp, a->path[f]))
			die("%s: %s", a->path[f], strerror(errno));
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
	free(page);
}

/*
 * @a's model for the version a->version of its files: its first
 * version's (a->base) for 0; else the same heap and framework runs, and
 * its own files' runs placed anew (an update changes its files, not its
 * data or the framework), with ids no other version uses.
 */
static void model_version(struct app *a)
{
	struct model *m = &a->model, *b = &a->base;
	long pages[NR_CLASSES];
	uint64_t v = a->version;
	uint8_t *taken;
	int o, c, i, first;

	model_copy(m, b);
	if (!v)
		return;
	m->nr = 0;
	for (i = 0; i < b->nr_file; i++)
		if (b->runs[i].obj == FRAMEWORK)
			m->runs[m->nr++] = b->runs[i];
	first = m->nr;
	model_class_pages(band_target[0], opt.file_fp, pages);
	for (o = 0; o < NR_OWN; o++) {
		taken = calloc(file_pages(o), 1);
		if (!taken)
			die("out of memory");
		for (c = 0; c < NR_CLASSES; c++) {
			long rest = pages[c] - pages[c] * opt.framework_pct / 100;
			long big = rest * 9 / 10 / NR_BIG;
			long small = (rest - big * NR_BIG) / (NR_OWN - NR_BIG);

			model_place(m, taken, o, o < NR_BIG ? big : small, c,
				    mix(m->key ^ mix(o) ^ mix(100 + c) ^ mix(v << 32)),
				    mix(m->key ^ mix(200 + c) ^ mix(v << 32 | o)));
		}
		free(taken);
	}
	for (i = first; i < m->nr; i++)
		m->runs[i].id = (int)(v << 20) + i;
	m->nr_file = m->nr;
	for (i = b->nr_file; i < b->nr; i++) {
		if (m->nr == m->cap) {
			m->cap = m->cap * 2 + 64;
			m->runs = realloc(m->runs, m->cap * sizeof(*m->runs));
			if (!m->runs)
				die("out of memory");
		}
		m->runs[m->nr++] = b->runs[i];
	}
	free(m->order);
	m->order = malloc(m->nr * sizeof(*m->order));
	if (!m->order)
		die("out of memory");
	for (i = 0; i < m->nr_file; i++)
		m->order[i] = i;
	shuffle(m->order, m->nr_file, mix(m->key ^ 400 ^ mix(v << 32)));
	for (i = b->nr_file; i < b->nr; i++)
		m->order[m->nr_file + i - b->nr_file] =
			m->nr_file + b->order[i] - b->nr_file;
}

/*
 * Map @a's file @o, in the app; with @again, over its mapping (which
 * drops the app's page table entries of it).
 */
static void map_file(struct app *a, int o, bool again)
{
	int fd = open(a->path[o], O_RDONLY);

	if (fd < 0)
		die("open %s: %s", a->path[o], strerror(errno));
	a->map[o] = mmap(again ? a->map[o] : NULL, file_pages(o) * psz,
			 PROT_READ, MAP_SHARED | (again ? MAP_FIXED : 0), fd, 0);
	if (a->map[o] == MAP_FAILED)
		die("mmap %s: %s", a->path[o], strerror(errno));
	close(fd);
}

static volatile uint64_t sink;

/*
 * Touch logical page @p of object @o, with @work rounds of CPU work (of
 * drawing with it); return how many of its two checksums were wrong.
 */
static long touch(struct app *a, int o, long p, int work)
{
	uint64_t sig, want = app_sig(a, o, p), acc = want;
	const char *pg = a->map[o] + page_at(a, o, p) * psz;
	long bad;
	int w;

	memcpy(&sig, pg, sizeof(sig));
	bad = sig != want;
	memcpy(&sig, pg + psz - sizeof(sig), sizeof(sig));
	bad += sig != want;
	for (w = 0; w < work; w++)
		acc = mix(acc);
	sink += acc;
	return bad;
}

/*
 * The switch: touch the footprint of round @round, checking every page;
 * return pages that were bad. The files first, then the heap: @heap_t is
 * when the heap's part began. The calibrated model touches its runs in
 * the app's order (@order: room for all of them).
 */
static long render(struct app *a, struct footprint *fp, int *order,
		   int round, uint64_t *heap_t)
{
	const struct model *m = &a->model;
	long bad = 0, p;
	int o, j;

	if (opt.footprint == FP_CALIBRATED) {
		touch_order(a, round, order);
		*heap_t = now_ns();
		for (j = 0; j < m->nr; j++) {
			const struct run *r = &m->runs[order[j]];
			long s;

			if (j == m->nr_file)
				*heap_t = now_ns();
			if (!run_used(a, order[j], round, 0))
				continue;
			s = run_start(a, order[j], round);
			for (p = s; p < s + r->len; p++)
				bad += touch(a, r->obj, p, opt.work);
		}
		if (m->nr_file == m->nr)
			*heap_t = now_ns();
		return bad;
	}
	fp_make(fp, a, round);
	for (o = 0; o <= NR_FILES; o++) {
		if (o == NR_FILES)
			*heap_t = now_ns();
		for (p = 0; p < obj_pages(o); p++)
			if (fp->map[o][p])
				bad += touch(a, o, p, opt.work);
	}
	return bad;
}

/*
 * The use phase after a switch (calibrated model; not measured): the
 * user scrolls on, the app touches another draw of its runs (no CPU work:
 * what matters is that the pages are used) and allocates the nursery.
 */
static long use(struct app *a, int round)
{
	const struct model *m = &a->model;
	char *nursery = a->map[NR_FILES] + (opt.anon_pages + heap_spare()) * psz;
	long bad = 0, p;
	int i;

	for (i = 0; i < m->nr; i++) {
		const struct run *r = &m->runs[i];
		long s = run_start(a, i, round);

		if (!run_used(a, i, round, 1))
			continue;
		for (p = s; p < s + r->len; p++)
			bad += touch(a, r->obj, p, 0);
	}
	for (p = 0; p < heap_nursery(); p++)
		memset(nursery + p * psz, (int)(round + p), 64);
	return bad;
}

/*
 * Page @a out: its heap to swap, its files out of the page cache; with
 * @framework the shared file's pages too (the profiling page-out: every
 * page the app then uses is read again).
 */
static void page_out(struct app *a, bool framework)
{
	int o;

	for (o = 0; o <= NR_FILES; o++)
		madvise(a->map[o], obj_pages(o) * psz, MADV_PAGEOUT);
	for (o = 0; o < NR_FILES; o++) {
		int fd;

		if (o == FRAMEWORK && !framework)
			continue;
		fd = open(a->path[o], O_RDONLY);

		if (fd >= 0) {
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
			close(fd);
		}
	}
}

/*
 * Commands: 'S' round -> render, reply end time; 'U' round -> the use
 * phase; 'B' pageout -> the switch-out: the GC (calibrated model), and a
 * page-out if --pageout and @pageout; 'P' -> page out, framework too;
 * 'V' version -> its files were updated to that version: map the new.
 */
struct msg {
	char cmd;
	int round;
	uint64_t t;
	uint64_t heap_t;	/* 'S': when the render reached the heap */
	long bad;
};

static void app_main(struct app *a, int cmd, int reply)
{
	struct footprint fp;
	int *order;
	struct msg m;
	long p;
	int o;

	for (o = 0; o < NR_FILES; o++)
		map_file(a, o, false);
	a->map[NR_FILES] = mmap(NULL, heap_pages() * psz,
				PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a->map[NR_FILES] == MAP_FAILED)
		die("mmap heap: %s", strerror(errno));
	madvise(a->map[NR_FILES], heap_pages() * psz, MADV_NOHUGEPAGE);
	/* Each logical page in its slot (the driver moved them as the GC). */
	for (p = 0; p < opt.anon_pages; p++) {
		uint64_t sig = page_sig(a->id, NR_FILES, p);
		char *pg = a->map[NR_FILES] + a->slot[p] * psz;

		memset(pg, (int)(sig & 0xff), psz);
		memcpy(pg, &sig, sizeof(sig));
		memcpy(pg + psz - sizeof(sig), &sig, sizeof(sig));
	}
	m = (struct msg){ .cmd = 'R', .t = (uintptr_t)a->map[NR_FILES] };
	if (write(reply, &m, sizeof(m)) != sizeof(m))
		_exit(1);
	fp_alloc(&fp);
	order = malloc((a->model.nr + 1) * sizeof(*order));
	if (!order)
		die("out of memory");
	while (read(cmd, &m, sizeof(m)) == sizeof(m)) {
		switch (m.cmd) {
		case 'S':
			m.bad = render(a, &fp, order, m.round, &m.heap_t);
			m.t = now_ns();
			break;
		case 'U':
			m.bad = use(a, m.round);
			break;
		case 'B':
			if (opt.footprint == FP_CALIBRATED) {
				madvise(a->map[NR_FILES] + (opt.anon_pages +
					heap_spare()) * psz,
					heap_nursery() * psz, MADV_DONTNEED);
				heap_gc(a, a->map[NR_FILES]);
			}
			if (opt.pageout && m.round)
				page_out(a, false);
			break;
		case 'P':
			/*
			 * Pages that other apps map too are not paged out
			 * (MADV_PAGEOUT skips them, fadvise cannot drop them):
			 * the framework mapped anew drops this app's mappings
			 * of it, and the last app's page-out its pages.
			 */
			map_file(a, FRAMEWORK, true);
			page_out(a, true);
			break;
		case 'V':	/* its files updated: the new ones mapped */
			a->version = m.round;
			model_version(a);
			for (o = 0; o < NR_OWN; o++)
				map_file(a, o, true);
			free(order);
			order = malloc((a->model.nr + 1) * sizeof(*order));
			if (!order)
				die("out of memory");
			break;
		case 'Q':
			_exit(0);
		}
		if (write(reply, &m, sizeof(m)) != sizeof(m))
			_exit(1);
	}
	_exit(0);
}

/* ---- real programs as apps ----------------------------------------------- */

static int write_str(const char *path, const char *s);
static void table_pages(struct app *a, long *pages);

/*
 * --real-apps ROOT: the apps are real programs staged by
 * bench/stage-apps.sh into ROOT (apps in ROOT/apps/NAME), run chrooted
 * there, speaking the line protocol of bench/README.md ("Apps") on their
 * standard input and output: READY [PID] once loaded (PID: the process
 * the switch signals are for, if not the app's own), then S <round> ->
 * DONE <checksum>, U <round> -> OK, B -> OK, Q or end of input: exit.
 */
static const char *real_root;
static char real_names[MAX_APPS][64];
static int nr_real;

#define SUMS_OFF	64	/* rounds from -SUMS_OFF on have a checksum */
#define MAX_ROUNDS	4096

/* The checksum each round's switch answered first, by app (0: none). */
static struct { bool set; unsigned long long sum; } real_sums[MAX_APPS][SUMS_OFF + MAX_ROUNDS];

/*
 * App @name's command line: ROOT/apps/NAME/COMMAND, which
 * bench/stage-apps.sh wrote from the manifest as the shell read it.
 */
static void real_command(const char *name, char *out, size_t size)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/apps/%s/COMMAND", real_root, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("%s: %s (staged by bench/stage-apps.sh?)", path,
		    strerror(errno));
	n = read(fd, out, size);
	close(fd);
	if (n <= 0 || (size_t)n == size)
		die("%s: empty or longer than %zu bytes", path, size - 1);
	out[n] = 0;
	out[strcspn(out, "\n")] = 0;
}

/* The system mounts the apps need, bound into the root, once. */
static void real_mounts(void)
{
	static const char *const dirs[] = { "/proc", "/dev", "/sys", "/tmp" };
	char path[PATH_MAX];
	unsigned int i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", real_root, dirs[i]);
		mkdir(path, 0755);
		if (mount(dirs[i], path, NULL, MS_BIND | MS_REC, NULL))
			die("bind %s on %s: %s", dirs[i], path, strerror(errno));
	}
}

/* A line from real app @a into @buf; die if it ends or says ERROR. */
static void real_line(struct app *a, char *buf, size_t size)
{
	if (!fgets(buf, size, a->rin)) {
		int status = 0;

		waitpid(a->child, &status, 0);
		die("app %s ended (%s %d)", real_names[a->id],
		    WIFSIGNALED(status) ? "signal" : "exit",
		    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	}
	if (!strchr(buf, '\n'))
		die("app %s: a line longer than %zu bytes", real_names[a->id],
		    size - 1);
	buf[strcspn(buf, "\n")] = 0;
	if (!strncmp(buf, "ERROR", 5))
		die("app %s: %s", real_names[a->id], buf);
}

/*
 * Start real app @a: chrooted in the root, in its directory, with the
 * address space layout not randomized (apps forked from Android's zygote
 * share one layout, so that an anonymous table recorded in one run of
 * the app names the same addresses in the next).
 */
static void real_start(struct app *a)
{
	char cmd[4096], dir[128], buf[4096];
	int c[2], r[2];
	pid_t pid;

	real_command(real_names[a->id], cmd, sizeof(cmd) - 8);
	if (pipe2(c, O_CLOEXEC) || pipe2(r, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		char sh[sizeof(cmd) + 8];

		dup2(c[0], 0);
		dup2(r[1], 1);
		close(c[0]);
		close(c[1]);
		close(r[0]);
		close(r[1]);
		personality(ADDR_NO_RANDOMIZE);
		/* Not the driver's -1000: out of memory, an app goes. */
		write_str("/proc/self/oom_score_adj", "0");
		snprintf(dir, sizeof(dir), "/apps/%s", real_names[a->id]);
		snprintf(sh, sizeof(sh), "exec %s", cmd);
		if (chroot(real_root) || chdir(dir)) {
			fprintf(stderr, "prepage-bench: %s%s: %s\n", real_root,
				dir, strerror(errno));
			_exit(126);
		}
		execl("/bin/sh", "sh", "-c", sh, (char *)NULL);
		fprintf(stderr, "prepage-bench: %s/bin/sh: %s\n", real_root,
			strerror(errno));
		_exit(127);
	}
	close(c[0]);
	close(r[1]);
	a->child = pid;
	a->pid = pid;
	a->cmd = c[1];
	a->reply = r[0];
	a->ctl = -1;
	a->rout = fdopen(c[1], "w");
	a->rin = fdopen(r[0], "r");
	if (!a->rout || !a->rin)
		die("fdopen: %s", strerror(errno));
	real_line(a, buf, sizeof(buf));
	if (strncmp(buf, "READY", 5))
		die("app %s: not READY: %s", real_names[a->id], buf);
	if (buf[5] == ' ')
		a->pid = atoi(buf + 6);
	if (a->pid <= 0 || kill(a->pid, 0))
		die("app %s: no process %d", real_names[a->id], a->pid);
}

/* Page real app @a's process(es) out: every mapping, then the caches. */
static void real_page_out(struct app *a, bool caches)
{
	pid_t pids[2] = { a->pid, a->child };
	int k;

	for (k = 0; k < 2; k++) {
		unsigned long lo, hi;
		char path[64], line[512];
		struct iovec v;
		int pidfd;
		FILE *f;

		if (k && pids[1] == pids[0])
			break;
		snprintf(path, sizeof(path), "/proc/%d/maps", pids[k]);
		f = fopen(path, "r");
		pidfd = syscall(SYS_pidfd_open, pids[k], 0);
		if (!f || pidfd < 0)
			die("app %s: %s: %s", real_names[a->id], path, strerror(errno));
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%lx-%lx", &lo, &hi) != 2 ||
			    strstr(line, "[vsyscall]") || strstr(line, "[vvar]"))
				continue;
			/*
			 * One mapping a call: process_madvise() stops at the
			 * first range it refuses (a locked or PFN mapping).
			 */
			v = (struct iovec){ (void *)lo, hi - lo };
			syscall(SYS_process_madvise, pidfd, &v, 1, MADV_PAGEOUT, 0);
		}
		fclose(f);
		close(pidfd);
	}
	if (caches && write_str("/proc/sys/vm/drop_caches", "1"))
		die("cannot drop the page cache");
}

/*
 * A command to real app @a, as app_call() to a synthetic one: 'S' checks
 * the answer against the first answer to that round's switch (of any
 * mode: the ideal mode's among them) and counts a mismatch as bad.
 */
static struct msg real_call(struct app *a, char cmd, int round)
{
	struct msg m = { .cmd = cmd, .round = round };
	char buf[4096];

	switch (cmd) {
	case 'S': {
		unsigned long long sum, done_ns;
		int i = round + SUMS_OFF;

		fprintf(a->rout, "S %d\n", round);
		fflush(a->rout);
		real_line(a, buf, sizeof(buf));
		m.t = now_ns();
		m.heap_t = m.t;
		/*
		 * The app's own clock when it was done, if it gives it (the
		 * driver's wake-up after that is not the app's latency).
		 */
		switch (sscanf(buf, "DONE %llx %llu", &sum, &done_ns)) {
		case 2:
			if (done_ns > m.t)
				die("app %s: done at %llu, after now (%llu): not CLOCK_MONOTONIC ns",
				    real_names[a->id], done_ns,
				    (unsigned long long)m.t);
			m.t = done_ns;
			m.heap_t = m.t;
			break;
		case 1:
			break;
		default:
			die("app %s: no DONE: %s", real_names[a->id], buf);
		}
		if (i < 0 || i >= SUMS_OFF + MAX_ROUNDS)
			die("round %d out of range", round);
		if (!real_sums[a->id][i].set) {
			real_sums[a->id][i].set = true;
			real_sums[a->id][i].sum = sum;
		}
		if (real_sums[a->id][i].sum != sum) {
			fprintf(stderr, "prepage-bench: app %s round %d: checksum %llx, first %llx\n",
				real_names[a->id], round, sum,
				real_sums[a->id][i].sum);
			m.bad = 1;
		}
		break;
	}
	case 'U':
	case 'B':
		if (cmd == 'U')
			fprintf(a->rout, "U %d\n", round);
		else
			fprintf(a->rout, "B\n");
		fflush(a->rout);
		real_line(a, buf, sizeof(buf));
		if (strcmp(buf, "OK"))
			die("app %s: not OK: %s", real_names[a->id], buf);
		if (cmd == 'B' && opt.pageout && round)
			real_page_out(a, false);
		break;
	case 'P':
		real_page_out(a, true);
		break;
	}
	return m;
}

/*
 * Memory of real app @a (its processes), kB: resident file, and anon
 * resident or swapped.
 */
static void real_rss(struct app *a, long *file_kb, long *anon_kb)
{
	pid_t pids[2] = { a->pid, a->child };
	char path[64], line[256];
	long v;
	int k;

	*file_kb = *anon_kb = 0;
	for (k = 0; k < 2; k++) {
		FILE *f;

		if (k && pids[1] == pids[0])
			break;
		snprintf(path, sizeof(path), "/proc/%d/status", pids[k]);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "RssFile: %ld", &v) == 1)
				*file_kb += v;
			else if (sscanf(line, "RssAnon: %ld", &v) == 1 ||
				 sscanf(line, "VmSwap: %ld", &v) == 1)
				*anon_kb += v;
		}
		fclose(f);
	}
}

/*
 * Start app @a, its heap laid out as after @epochs switch-outs (the app
 * is forked with the driver's copy of the layout).
 */
static void app_start(struct app *a, long epochs)
{
	int c[2], r[2];
	struct msg m;

	if (real_root) {
		real_start(a);
		return;
	}
	heap_reset(a);
	while (epochs-- > 0)
		heap_gc(a, NULL);
	if (pipe(c) || pipe(r))
		die("pipe: %s", strerror(errno));
	a->pid = fork();
	if (a->pid < 0)
		die("fork: %s", strerror(errno));
	if (!a->pid) {
		close(c[1]);
		close(r[0]);
		app_main(a, c[0], r[1]);
	}
	close(c[0]);
	close(r[1]);
	a->child = a->pid;
	a->cmd = c[1];
	a->reply = r[0];
	a->ctl = -1;
	if (read(a->reply, &m, sizeof(m)) != sizeof(m) || m.cmd != 'R')
		die("app %d did not start", a->id);
	a->heap = m.t;
}

static struct msg app_call(struct app *a, char cmd, int round)
{
	struct msg m = { .cmd = cmd, .round = round };

	if (real_root)
		return real_call(a, cmd, round);
	if (write(a->cmd, &m, sizeof(m)) != sizeof(m) ||
	    read(a->reply, &m, sizeof(m)) != sizeof(m))
		die("app %d does not answer", a->id);
	return m;
}

/*
 * @a goes to the background: its GC (calibrated model), the driver's
 * copy of the heap's layout moved the same, and a page-out if @pageout
 * (with --pageout).
 */
static void app_background(struct app *a, bool pageout)
{
	app_call(a, 'B', pageout);
	if (opt.footprint == FP_CALIBRATED && !real_root)
		heap_gc(a, NULL);
}

/* The use phase after @a's switch of round @round; pages that were bad. */
static long app_use(struct app *a, int round)
{
	if (opt.footprint != FP_CALIBRATED && !real_root)
		return 0;
	return app_call(a, 'U', round).bad;
}

/*
 * @a's files updated to version @v (new files, their runs placed anew),
 * and the app told to map them if it runs; its tables are left as they
 * are.
 */
static void app_update(struct app *a, int v, bool running)
{
	int o;

	a->version = v;
	make_files(a, false);
	model_version(a);
	if (running)
		app_call(a, 'V', v);
	for (o = 0; o < NR_OWN; o++) {
		if (a->peek[o])
			munmap(a->peek[o], file_pages(o) * psz);
		a->peek[o] = NULL;
	}
}

static void app_stop(struct app *a)
{
	struct msg m = { .cmd = 'Q' };

	if (real_root) {
		fprintf(a->rout, "Q\n");
		fclose(a->rout);
		fclose(a->rin);
	} else if (write(a->cmd, &m, sizeof(m)) != sizeof(m)) {
		die("app %d is gone", a->id);
	}
	if (a->ctl >= 0)
		close(a->ctl);
	a->ctl = -1;
}

/* ---- the driver --------------------------------------------------------- */

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

#define SCHED_FEATURES	"/sys/kernel/debug/sched/features"

/*
 * DELAY_DEQUEUE's state among the scheduler's features: 1 on, 0 off,
 * -1 no such feature (or no features file).
 */
static int delay_dequeue_state(void)
{
	char buf[4096] = "";
	ssize_t n;
	int fd = open(SCHED_FEATURES, O_RDONLY);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	/* On: "DELAY_DEQUEUE" among the features; off: "NO_DELAY_DEQUEUE". */
	if (!strncmp(buf, "DELAY_DEQUEUE ", 14) || strstr(buf, " DELAY_DEQUEUE "))
		return 1;
	return strstr(buf, "NO_DELAY_DEQUEUE") ? 0 : -1;
}

/*
 * The scheduler's DELAY_DEQUEUE feature (EEVDF, 6.12): with it, a task
 * that sleeps while it is owed no CPU time stays on the runqueue until
 * it is picked, and the block I/O delay of such a sleep is not counted
 * (__block_task(), which starts it, runs at the later pick, for
 * whichever task is current then): the anatomy's block I/O undercounts,
 * and a switch's counters can add up to more than the switch. Turned
 * off for the anatomy trials. Return: whether it was on; false if this
 * kernel has no such feature to turn (no CONFIG_SCHED_DEBUG, or older).
 */
static bool delay_dequeue_off(void)
{
	if (delay_dequeue_state() != 1)
		return false;
	if (write_str(SCHED_FEATURES, "NO_DELAY_DEQUEUE"))
		die("cannot turn the scheduler's DELAY_DEQUEUE off");
	return true;
}

/*
 * The kernel's preemption model, from its version string (uname -v):
 * "full" (CONFIG_PREEMPT, as Android's), "dynamic", "rt", or "none" (no
 * forced preemption, or voluntary).
 */
static const char *preempt_model(void)
{
	struct utsname u;

	if (uname(&u))
		return "unknown";
	if (strstr(u.version, "PREEMPT_RT"))
		return "rt";
	if (strstr(u.version, "PREEMPT_DYNAMIC"))
		return "dynamic";
	return strstr(u.version, "PREEMPT") ? "full" : "none";
}

/*
 * Whether @s is NAME=VALUE with NAME a tunable of SYSFS: letters, digits
 * and '_', in the directory or in one of its subdirectories (file/,
 * anon/).
 */
static bool setting_ok(const char *s)
{
	const char *eq = strchr(s, '='), *p;
	int slashes = 0;

	if (!eq || eq == s || s[0] == '/' || eq[-1] == '/')
		return false;
	for (p = s; p < eq; p++) {
		if (*p == '/')
			slashes++;
		else if (!isalnum((unsigned char)*p) && *p != '_')
			return false;
	}
	return slashes <= 1;
}

static void knob(const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), SYSFS "%s", name);
	if (write_str(path, val))
		die("cannot set %s to %s", path, val);
}

/*
 * The switch signals go through one open /proc/<pid>/prepage per app,
 * as a caller that switches often keeps it (Android's libprocessgroup
 * keeps the cgroup files it writes at every switch open): each write(2)
 * is one verb. Opened on the first
 * signal, after every app was forked, so that no app inherits it.
 */
static void app_ctl(struct app *a, const char *verb)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/prepage", a->pid);
	if (a->ctl < 0) {
		a->ctl = open(path, O_WRONLY | O_CLOEXEC);
		if (a->ctl < 0)
			die("open %s: %s", path, strerror(errno));
	}
	if (write(a->ctl, verb, strlen(verb)) != (ssize_t)strlen(verb))
		die("%s to %s: %s", verb, path, strerror(errno));
}

/* ---- the profile, recorded with prepagectl ------------------------------ */

/* Whether @a is never profiled (--unprofiled): no table, no replay. */
static bool unprofiled(const struct app *a)
{
	return opt.unprofiled >> a->id & 1;
}

/*
 * userspace-rerecord: the table recorded in period @period, replayed
 * from now on, unless it holds no page (then the one before stays).
 */
static void rerecorded(struct app *a, int period)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/tmp/prepage-bench.%d.rerecord.%d",
		 a->id, period);
	if (stat(path, &st))
		die("%s: %s", path, strerror(errno));
	printf("RERECORD app=%d period=%d windows=%d bytes=%lld%s\n", a->id,
	       period, a->recorded_windows, (long long)st.st_size,
	       st.st_size ? "" : " kept=1");
	if (st.st_size)
		snprintf(a->table, sizeof(a->table), "%s", path);
}

#define PROFILE_MIN	8	/* of opt.profile_rounds switches */

static char prepagectl[PATH_MAX];	/* next to this program */

/*
 * What the footprint generator made of the profiling switches, per app:
 * how many of them used each page, by the page's address (@slot: what a
 * recorder sees) and by its logical page (@logical: where the GC did not
 * move it), and the overlap of consecutive switches (@overlap[side]: the
 * sum over switches of the share of one switch's pages the next used).
 */
struct gen_counts {
	uint8_t *slot[NR_FILES + 1], *logical[NR_FILES + 1];
	uint8_t *prev[NR_FILES + 1];
	double overlap[2];
};

static void gen_alloc(struct gen_counts *g)
{
	int o;

	memset(g, 0, sizeof(*g));
	for (o = 0; o <= NR_FILES; o++) {
		g->slot[o] = calloc(obj_pages(o), 1);
		g->logical[o] = calloc(obj_pages(o), 1);
		g->prev[o] = calloc(obj_pages(o), 1);
		if (!g->slot[o] || !g->logical[o] || !g->prev[o])
			die("out of memory");
	}
}

static void gen_free(struct gen_counts *g)
{
	int o;

	for (o = 0; o <= NR_FILES; o++) {
		free(g->slot[o]);
		free(g->logical[o]);
		free(g->prev[o]);
	}
}

/* Count profiling switch @round of @a (its heap as it is now) into @g. */
static void gen_count(struct app *a, int round, struct footprint *fp,
		      struct gen_counts *g)
{
	long both[2] = { 0 }, prev[2] = { 0 }, p;
	const struct model *m = &a->model;
	int o, i;

	fp_make(fp, a, round);
	for (o = 0; o <= NR_FILES; o++)
		for (p = 0; p < obj_pages(o); p++)
			g->slot[o][p] += fp->map[o][p];
	/* By logical page: the uniform model moves nothing. */
	if (opt.footprint == FP_CALIBRATED) {
		fp_clear(fp);
		for (i = 0; i < m->nr; i++) {
			const struct run *r = &m->runs[i];

			if (run_used(a, i, round, 0))
				memset(fp->map[r->obj] + run_start(a, i, round),
				       1, r->len);
		}
	}
	for (o = 0; o <= NR_FILES; o++) {
		int anon = o == NR_FILES;

		for (p = 0; p < obj_pages(o); p++) {
			g->logical[o][p] += fp->map[o][p];
			prev[anon] += g->prev[o][p];
			both[anon] += g->prev[o][p] && fp->map[o][p];
		}
		memcpy(g->prev[o], fp->map[o], obj_pages(o));
	}
	for (i = 0; i < 2; i++)
		if (prev[i])
			g->overlap[i] += (double)both[i] / prev[i];
}

/*
 * Build @a's calibrated model so that its anonymous bands come out as
 * ASAP's by address, the way ASAP (and prepagectl record) counted pages:
 * the GC's moves split a page's uses between two addresses, so the bands
 * by logical page must be more stable than the target. The logical
 * targets are corrected by what the profiling switches give by address,
 * a few times over (the heap laid out anew after).
 */
static void model_calibrate(struct app *a)
{
	double t[NR_CLASSES], sum;
	struct footprint fp;
	struct gen_counts g;
	int it, r, b;
	long p;

	memcpy(t, band_target[1], sizeof(t));
	for (it = 0; ; it++) {
		double got[NR_CLASSES] = { 0 }, seen = 0;

		model_build(a, t);
		if (opt.footprint != FP_CALIBRATED || !opt.gc_pct || it == 4)
			break;
		heap_reset(a);
		fp_alloc(&fp);
		gen_alloc(&g);
		for (r = 0; r < opt.profile_rounds; r++) {
			gen_count(a, -1 - r, &fp, &g);
			heap_gc(a, NULL);
		}
		for (p = 0; p < heap_pages(); p++) {
			int k = g.slot[NR_FILES][p];

			if (k) {
				got[band_of(k * 10 / opt.profile_rounds)]++;
				seen++;
			}
		}
		gen_free(&g);
		for (b = 0; b <= NR_FILES; b++)
			free(fp.map[b]);
		sum = 0;
		for (b = 0; b < NR_CLASSES; b++) {
			t[b] += band_target[1][b] - 100 * got[b] / seen;
			if (t[b] < 1)
				t[b] = 1;
			sum += t[b];
		}
		for (b = 0; b < NR_CLASSES; b++)
			t[b] = t[b] * 100 / sum;
	}
	heap_reset(a);
}

/*
 * prepagectl's note of how many pages were used in 1, 2, ... of the
 * windows, from line @line, into a->recorded.
 */
static void parse_recorded(struct app *a, const char *line)
{
	const char *p = strstr(line, "used in, 1 to ");
	int side, k, n, w;

	if (!p || sscanf(p, "used in, 1 to %d: file%n", &w, &n) != 1 ||
	    w < 1 || w >= 64)
		return;
	p += n;
	for (side = 0; side < 2; side++) {
		if (side) {
			p = strstr(p, "; anon");
			if (!p)
				return;
			p += 6;
		}
		for (k = 1; k <= w; k++) {
			char *end;

			a->recorded[side][k] = strtoul(p, &end, 10);
			if (end == p)
				return;
			p = end;
		}
	}
	a->recorded_windows = w;
}

/*
 * prepagectl record -p <app> over its opt.profile_rounds profiling
 * switches, into a->table: each switch after a page-out, so that every
 * page the app uses is read or swapped in again, and recorded; then the
 * use phase and the switch-out, as in every mode. What the generator
 * made of those switches goes into @g.
 */
/*
 * Start prepagectl record -p <app> over @windows windows into @out; once
 * it says it records, return its standard error (@pid: the process).
 */
static FILE *rec_spawn(struct app *a, int windows, const char *out,
		       pid_t *pid, bool may_fail)
{
	char arg[3][16], *line = NULL;
	bool ready = false;
	size_t cap = 0;
	int err[2];
	FILE *f;

	snprintf(arg[0], sizeof(arg[0]), "%d", a->pid);
	snprintf(arg[1], sizeof(arg[1]), "%d", windows);
	snprintf(arg[2], sizeof(arg[2]), "%d", PROFILE_MIN * windows / 10);
	if (pipe(err))
		die("pipe: %s", strerror(errno));
	*pid = fork();
	if (*pid < 0)
		die("fork: %s", strerror(errno));
	if (!*pid) {
		dup2(err[1], 2);
		close(err[0]);
		close(err[1]);
		execl(prepagectl, "prepagectl", "record", "-p", arg[0], "-n",
		      arg[1], "-k", arg[2], "-o", out, (char *)NULL);
		fprintf(stderr, "exec %s: %s\n", prepagectl, strerror(errno));
		_exit(127);
	}
	close(err[1]);
	f = fdopen(err[0], "r");
	if (!f)
		die("fdopen: %s", strerror(errno));
	/* It says when it is recording; the windows must not start before. */
	while (!ready && getline(&line, &cap, f) > 0) {
		fprintf(stderr, "%s", line);
		ready = strstr(line, "recording process");
	}
	free(line);
	if (!ready && may_fail) {
		/* It exits when it cannot start; the caller tries again. */
		fclose(f);
		waitpid(*pid, NULL, 0);
		return NULL;
	}
	if (!ready)
		die("prepagectl record of app %d did not start", a->id);
	return f;
}

/*
 * The rest of what the prepagectl record of @a (@f, @pid from
 * rec_spawn()) says, its histogram noted; once it exited.
 */
static void rec_finish(struct app *a, FILE *f, pid_t pid)
{
	char *line = NULL;
	size_t cap = 0;
	int status;

	while (getline(&line, &cap, f) > 0) {
		fprintf(stderr, "%s", line);
		parse_recorded(a, line);
	}
	fclose(f);
	free(line);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("prepagectl record of app %d failed", a->id);
}

static void record_profile(struct app *a, struct gen_counts *g)
{
	struct footprint fp;
	struct msg m;
	pid_t pid;
	FILE *f;
	int r;

	snprintf(a->table, sizeof(a->table), "/tmp/prepage-bench.%d.recorded",
		 a->id);
	f = rec_spawn(a, opt.profile_rounds, a->table, &pid, false);
	fp_alloc(&fp);
	for (r = 0; r < opt.profile_rounds; r++) {
		int j;

		/*
		 * Every app's mappings of the framework go too (the model's:
		 * a real app's shared libraries stay mapped by the others),
		 * so that the app faults on all of its pages again.
		 */
		for (j = 0; j < opt.apps && !real_root; j++)
			if (j != a->id)
				app_call(&apps[j], 'P', 0);
		app_call(a, 'P', 0);
		app_ctl(a, "start");
		m = app_call(a, 'S', -1 - r);
		app_ctl(a, "end");
		if (m.bad || app_use(a, -1 - r))
			die("app %d: pages with wrong contents while profiling",
			    a->id);
		if (real_root) {
			long file_kb, anon_kb;

			real_rss(a, &file_kb, &anon_kb);
			if (file_kb + anon_kb > a->rss_file_kb + a->rss_anon_kb) {
				a->rss_file_kb = file_kb;
				a->rss_anon_kb = anon_kb;
			}
		} else {
			gen_count(a, -1 - r, &fp, g);
		}
		app_background(a, false);
	}
	for (r = 0; r <= NR_FILES; r++)
		free(fp.map[r]);
	rec_finish(a, f, pid);
	if (a->recorded_windows != opt.profile_rounds)
		die("prepagectl record of app %d noted no histogram of %d windows",
		    a->id, opt.profile_rounds);
	snprintf(a->recorded_table, sizeof(a->recorded_table), "%s", a->table);
}

/* The profile of @a: the pages of the table prepagectl recorded. */
static void profile_parse(struct app *a)
{
	char *line = NULL, *sp, *tok, *save;
	unsigned long long addr, off, len;
	size_t cap = 0;
	long n, p;
	FILE *f;
	int o;

	f = fopen(a->table, "r");
	if (!f)
		die("%s: %s", a->table, strerror(errno));
	for (o = 0; o <= NR_FILES; o++) {
		a->profile[o] = calloc(obj_pages(o), 1);
		if (!a->profile[o])
			die("out of memory");
	}
	while (getline(&line, &cap, f) > 0) {
		sp = strchr(line, ' ');
		if (!sp)
			die("%s: no table line: %s", a->table, line);
		*sp++ = 0;
		if (!strcmp(line, "anon")) {
			if (sscanf(sp, "%llx:%ld", &addr, &n) != 2)
				die("%s: bad anon line", a->table);
			for (; n > 0; n--, addr += psz) {
				p = (long)((addr - a->heap) / psz);
				if (addr < a->heap || p >= heap_pages())
					die("%s: 0x%llx is not in the heap of app %d",
					    a->table, addr, a->id);
				a->profile[NR_FILES][p] = 1;
			}
			continue;
		}
		for (o = 0; o < NR_FILES && strcmp(line, a->path[o]); o++)
			;
		if (o == NR_FILES)
			die("%s: %s is no file of app %d", a->table, line, a->id);
		sp[strcspn(sp, " \n")] = 0;	/* the ranges, not ino= etc. */
		for (tok = strtok_r(sp, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			if (sscanf(tok, "%llu:%llu", &off, &len) != 2)
				die("%s: bad range %s", a->table, tok);
			for (p = off / psz; p < (long)((off + len + psz - 1) / psz) &&
			     p < obj_pages(o); p++)
				a->profile[o][p] = 1;
		}
	}
	free(line);
	fclose(f);
}

/*
 * HIST lines of @a, per side: pages used in exactly k of the profiling
 * switches, as the model expects (calibrated), as the generator made
 * them (by logical page: where the GC did not move them) and as
 * prepagectl recorded them (by address).
 */
static void print_hist(struct app *a, struct gen_counts *g)
{
	int n = opt.profile_rounds, side, k, i, o;
	double model[2][64] = { { 0 } }, ov[2] = { 0 }, pw[2] = { 0 };
	long gen[2][64] = { { 0 } }, p;

	for (i = 0; i < a->model.nr; i++) {
		const struct run *r = &a->model.runs[i];

		side = r->obj == NR_FILES;
		for (k = 1; k <= n && n < 64; k++)
			model[side][k] += r->len * binom(n, k, r->p);
		ov[side] += r->len * r->p * r->p;
		pw[side] += r->len * r->p;
	}
	/* By address, as ASAP and prepagectl counted pages. */
	for (o = 0; o <= NR_FILES; o++)
		for (p = 0; p < obj_pages(o); p++)
			if (g->slot[o][p] && g->slot[o][p] < 64)
				gen[o == NR_FILES][g->slot[o][p]]++;
	for (side = 0; side < 2; side++) {
		const char *name = side ? "anon" : "file";

		if (opt.footprint == FP_CALIBRATED && !real_root) {
			printf("HIST app=%d side=%s source=model windows=%d",
			       a->id, name, n);
			for (k = 1; k <= n; k++)
				printf(" k%d=%.1f", k, model[side][k]);
			printf(" overlap=%.3f\n", pw[side] ? ov[side] / pw[side] : -1);
		}
		if (!real_root) {
			printf("HIST app=%d side=%s source=generated windows=%d",
			       a->id, name, n);
			for (k = 1; k <= n; k++)
				printf(" k%d=%ld", k, gen[side][k]);
			printf(" overlap=%.3f\n",
			       n > 1 ? g->overlap[side] / (n - 1) : -1);
		}
		if (a->recorded_windows != n)
			continue;
		printf("HIST app=%d side=%s source=recorded windows=%d", a->id,
		       name, n);
		for (k = 1; k <= n; k++)
			printf(" k%d=%lu", k, a->recorded[side][k]);
		printf(" overlap=-1\n");
	}
}

/*
 * Hold the trace events prepagectl record enables enabled, in a tracefs
 * instance of our own with tracing off (nothing is recorded in it), while
 * the apps run for their profiles (@on), or let them go. Enabling an
 * event patches code (a static key, a jump label), and QEMU 7.2's
 * multi-threaded TCG, which the benchmark runs on, mishandles code that
 * is patched while another vCPU runs it: the guest Oopses on an int3
 * (README, "The test VM runs single-threaded TCG"). prepagectl enables
 * its events with the apps running. Each instance adds a probe to an
 * event's tracepoint, and going from none to one probe flips its static
 * key, and from one to two (or back) updates its static call: both
 * patch code. Held in two instances from before the apps start,
 * prepagectl's third probe patches nothing. The same goes for every
 * other static key the benchmark flips (prepage's enabled, task delay
 * accounting, scheduler features): with no app running.
 */
static void trace_hold(bool on)
{
	static const char *const events[] = {
		"prepage/prepage_window_open", "prepage/prepage_window_close",
		"filemap/mm_filemap_get_pages", "filemap/mm_filemap_map_pages",
		"filemap/mm_filemap_fault", "anon/mm_anon_swapin",
	};
	char inst[128], path[256];
	unsigned int i;
	int k;

	for (k = 0; k < 2; k++) {
		snprintf(inst, sizeof(inst),
			 "/sys/kernel/tracing/instances/prepage-bench%d", k);
		if (on && mkdir(inst, 0700) && errno != EEXIST)
			die("%s: %s (tracefs mounted?)", inst, strerror(errno));
		snprintf(path, sizeof(path), "%s/tracing_on", inst);
		if (on && write_str(path, "0"))
			die("cannot turn tracing off in %s", inst);
		for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
			snprintf(path, sizeof(path), "%s/events/%s/enable",
				 inst, events[i]);
			if (write_str(path, on ? "1" : "0"))
				die("cannot %s %s", on ? "enable" : "disable",
				    path);
		}
		if (!on && rmdir(inst))
			die("%s: %s", inst, strerror(errno));
	}
}

/*
 * The published shares the calibrated model aims at (band_target), and
 * the consecutive-switch overlap Ariadne measured for anonymous memory
 * (HPCA'25: ~70%), which the model is not fitted to.
 */
static void print_target(void)
{
	printf("TARGET side=file band_9_10=%g band_5_8=%g band_1_4=%g overlap=-1 source=ASAP\n",
	       band_target[0][0], band_target[0][1], band_target[0][2]);
	printf("TARGET side=anon band_9_10=%g band_5_8=%g band_1_4=%g overlap=0.70 source=ASAP+Ariadne\n",
	       band_target[1][0], band_target[1][1], band_target[1][2]);
}

/*
 * --model: the footprint model's histograms over the profiling switches
 * (expected and generated, with the use phase's GC between switches),
 * without a kernel: no files, no processes, no recording.
 */
static int model_only(void)
{
	struct footprint fp;
	struct gen_counts g;
	int i, r;

	print_target();
	fp_alloc(&fp);
	for (i = 0; i < opt.apps; i++) {
		struct app *a = &apps[i];

		a->id = i;
		model_calibrate(a);
		gen_alloc(&g);
		for (r = 0; r < opt.profile_rounds; r++) {
			gen_count(a, -1 - r, &fp, &g);
			heap_gc(a, NULL);
		}
		a->recorded_windows = 0;
		print_hist(a, &g);
		gen_free(&g);
	}
	for (i = 0; i <= NR_FILES; i++)
		free(fp.map[i]);
	return 0;
}

/*
 * Record the profile of every app (prepage on, both sides off: nothing is
 * prepaged or learned), and print how far it is from the generator's,
 * and how stable the footprints were.
 */
/*
 * Fault-around off (@off) while recording, or back as it was: a page it
 * maps makes no fault when the app first uses it, so the recorder would
 * have to count every page of the range mapped around a fault (3.6 times
 * the footprint here), or miss those the app uses. With it off, every
 * first access to a page is a fault of its own.
 */
static void fault_around_off(bool off)
{
	static const char fa[] = "/sys/kernel/debug/fault_around_bytes";
	static char fa_old[32];
	char fa_one[32];
	ssize_t n;
	int fd;

	if (!off) {
		if (write_str(fa, fa_old))
			die("cannot restore %s", fa);
		return;
	}
	fd = open(fa, O_RDONLY);
	if (fd < 0 || (n = read(fd, fa_old, sizeof(fa_old) - 1)) <= 0)
		die("%s: %s (debugfs mounted?)", fa, strerror(errno));
	fa_old[n] = 0;
	close(fd);
	snprintf(fa_one, sizeof(fa_one), "%ld", psz);
	if (write_str(fa, fa_one))
		die("cannot set %s", fa);
}

static void record_profiles(void)
{
	struct gen_counts g;
	long p, real_kb = 0;
	int i, o;

	fault_around_off(true);

	if (readlink("/proc/self/exe", prepagectl, sizeof(prepagectl) - 16) < 0)
		die("/proc/self/exe: %s", strerror(errno));
	snprintf(strrchr(prepagectl, '/') + 1, 16, "prepagectl");
	knob("enabled", "1");
	knob("file/enabled", "0");
	knob("anon/enabled", "0");
	trace_hold(true);
	for (i = 0; i < opt.apps; i++) {
		apps[i].id = i;
		app_start(&apps[i], 0);
	}
	print_target();
	for (i = 0; i < opt.apps; i++) {
		struct app *a = &apps[i];
		long rec[2] = { 0 }, both[2] = { 0 }, gp[2] = { 0 };

		/* Never profiled (--unprofiled): an empty profile. */
		if (unprofiled(a)) {
			for (o = 0; o <= NR_FILES; o++) {
				a->profile[o] = calloc(obj_pages(o), 1);
				if (!a->profile[o])
					die("out of memory");
			}
			printf("PROFILE app=%d unprofiled=1\n", i);
			continue;
		}
		gen_alloc(&g);
		record_profile(a, &g);
		if (real_root) {
			table_pages(a, rec);
			print_hist(a, &g);
			gen_free(&g);
			printf("PROFILE app=%d file_recorded=%ld anon_recorded=%ld\n",
			       i, rec[0], rec[1]);
			printf("APPINFO app=%d name=%s rss_file_kb=%ld rss_anon_kb=%ld\n",
			       i, real_names[i], a->rss_file_kb, a->rss_anon_kb);
			real_kb += a->rss_file_kb + a->rss_anon_kb;
			continue;
		}
		profile_parse(a);
		print_hist(a, &g);
		/*
		 * A generator-made profile, by address as the recorder sees
		 * pages: in >= PROFILE_MIN of the switches.
		 */
		for (o = 0; o <= NR_FILES; o++) {
			int anon = o == NR_FILES;

			for (p = 0; p < obj_pages(o); p++) {
				bool gen = g.slot[o][p] >= PROFILE_MIN;

				rec[anon] += a->profile[o][p];
				gp[anon] += gen;
				both[anon] += a->profile[o][p] && gen;
			}
		}
		gen_free(&g);
		printf("PROFILE app=%d file_recorded=%ld file_generated=%ld file_common=%ld anon_recorded=%ld anon_generated=%ld anon_common=%ld\n",
		       i, rec[0], gp[0], both[0], rec[1], gp[1], both[1]);
	}
	for (i = 0; i < opt.apps; i++) {
		app_stop(&apps[i]);
		waitpid(apps[i].child, NULL, 0);
		if (!real_root) {
			close(apps[i].cmd);
			close(apps[i].reply);
		}
	}
	trace_hold(false);
	/*
	 * Real apps: half their memory (file resident, anon resident or
	 * swapped, the most after a profiling switch and use phase): their
	 * heaps compress less than the model's pages, and zram's pool comes
	 * out of the budget too.
	 */
	if (real_root && !opt.budget_mb)
		opt.budget_mb = real_kb / 2 / 1024;
	knob("enabled", "0");
	fault_around_off(false);
}

/*
 * Call @fn for each run of profile pages of object @o (in an oracle mode,
 * of the pages of the app's next switch).
 */
static void profile_runs(struct app *a, int o,
			 void (*fn)(struct app *a, int o, long start, long nr,
				    void *arg), void *arg)
{
	const uint8_t *map = a->oracle ? a->next.map[o] : a->profile[o];
	long p = 0, n = obj_pages(o);

	while (p < n) {
		long start;

		while (p < n && !map[p])
			p++;
		start = p;
		while (p < n && map[p])
			p++;
		if (p > start)
			fn(a, o, start, p - start, arg);
	}
}

struct strbuf {
	char *s;
	size_t len, cap;
};

static void sb_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < b->cap - b->len)
			break;
		b->cap = b->cap * 2 + n + 64;
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			die("out of memory");
	}
	b->len += n;
}

static void table_range(struct app *a, int o, long start, long nr, void *arg)
{
	struct strbuf *b = arg;

	sb_printf(b, "%s%ld:%ld", b->s[b->len - 1] == ' ' ? "" : ",",
		  start * psz, nr * psz);
}

static void table_anon_range(struct app *a, int o, long start, long nr,
			     void *arg)
{
	struct strbuf *b = arg;

	sb_printf(b, "anon 0x%lx:%ld target=1 timeout=1\n",
		  (unsigned long)(a->heap + start * psz), nr);
}

/* Whether [@lo, @hi) of process @pid is within one of its mappings. */
static bool mapped(pid_t pid, unsigned long lo, unsigned long hi)
{
	unsigned long s, e;
	char path[64], line[512];
	bool in = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!in && fgets(line, sizeof(line), f))
		in = sscanf(line, "%lx-%lx", &s, &e) == 2 && s <= lo && hi <= e;
	fclose(f);
	return in;
}

/*
 * Whether @line of a real app's table is an anonymous range that this
 * run of app @a has mapped (a runtime that places its heap itself, as V8
 * does, moves it from run to run whatever the layout): its start and
 * pages into @addr and @n.
 */
static bool real_anon_line(struct app *a, const char *line,
			   unsigned long long *addr, long *n)
{
	return sscanf(line, "anon %llx:%ld", addr, n) == 2 &&
	       mapped(a->pid, *addr, *addr + *n * psz);
}

/*
 * Real app @a's recorded table (file lines; with @anon, the anonymous
 * ranges it has mapped too), appended to @b.
 */
static void real_table(struct app *a, bool anon, struct strbuf *b)
{
	unsigned long long addr;
	char *line = NULL;
	size_t cap = 0;
	long n;
	FILE *f = fopen(a->recorded_table, "r");

	if (!f)
		die("%s: %s", a->recorded_table, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, "anon ", 5)) {
			sb_printf(b, "%s", line);
			continue;
		}
		if (anon && real_anon_line(a, line, &addr, &n))
			sb_printf(b, "%s", line);
	}
	free(line);
	fclose(f);
}

/* Pages of real app @a's recorded table, file ([0]) and anonymous ([1]). */
static void table_pages(struct app *a, long *pages)
{
	char *line = NULL, *sp, *tok, *save;
	unsigned long long off, len;
	size_t cap = 0;
	long n;
	FILE *f = fopen(a->recorded_table, "r");

	pages[0] = pages[1] = 0;
	if (!f)
		die("%s: %s", a->recorded_table, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		sp = strchr(line, ' ');
		if (!sp)
			continue;
		*sp++ = 0;
		if (!strcmp(line, "anon")) {
			if (sscanf(sp, "%*[0-9a-fx]:%ld", &n) == 1)
				pages[1] += n;
			continue;
		}
		sp[strcspn(sp, " \n")] = 0;
		for (tok = strtok_r(sp, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save))
			if (sscanf(tok, "%llu:%llu", &off, &len) == 2)
				pages[0] += (len + psz - 1) / psz;
	}
	free(line);
	fclose(f);
}

/*
 * The file profile of @a as table lines, and with @anon the anonymous
 * profile too, as targets (at the heap address of this run of the app).
 */
static void table_text(struct app *a, bool anon, struct strbuf *b)
{
	int o;

	b->cap = 4096;
	b->len = 0;
	b->s = malloc(b->cap);
	if (!b->s)
		die("out of memory");
	b->s[0] = 0;
	if (real_root) {
		real_table(a, anon, b);
		return;
	}
	for (o = 0; o < NR_FILES; o++) {
		size_t len = b->len;

		sb_printf(b, "%s ", a->path[o]);
		profile_runs(a, o, table_range, b);
		if (b->s[b->len - 1] == ' ')
			b->len = len;	/* nothing of this file in the profile */
		else
			sb_printf(b, "\n");
	}
	if (anon)
		profile_runs(a, NR_FILES, table_anon_range, b);
}

/* Load the table_text() of @a as its prepage table. */
static void load_table(struct app *a, bool anon)
{
	struct strbuf b;
	char path[64];
	int fd;

	table_text(a, anon, &b);
	snprintf(path, sizeof(path), "/proc/%d/prepage_table", a->pid);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, b.s, b.len) != (ssize_t)b.len)
		die("cannot load the table of app %d: %s", a->id, strerror(errno));
	close(fd);
	free(b.s);
}

/* Write the table_text() of @a to a->table, for prepagectl's replay. */
static void write_table(struct app *a, bool anon)
{
	struct strbuf b;
	int fd;

	table_text(a, anon, &b);
	snprintf(a->table, sizeof(a->table), "/tmp/prepage-bench.%d.table",
		 a->id);
	fd = open(a->table, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, b.s, b.len) != (ssize_t)b.len || close(fd))
		die("cannot write %s: %s", a->table, strerror(errno));
	free(b.s);
}

struct iovs {
	struct iovec v[1024];
	int n, pidfd, advice;
};

static void iov_flush(struct iovs *v)
{
	if (v->n && syscall(SYS_process_madvise, v->pidfd, v->v, v->n,
			    v->advice, 0) < 0) {
		if (errno == EINVAL && v->advice == MADV_POPULATE_READ)
			die("process_madvise(MADV_POPULATE_READ): %s: the populate mode needs a kernel with bench/process-madvise-populate.patch (make bench builds one)",
			    strerror(errno));
		die("process_madvise: %s", strerror(errno));
	}
	v->n = 0;
}

static void anon_range(struct app *a, int o, long start, long nr, void *arg)
{
	struct iovs *v = arg;

	v->v[v->n++] = (struct iovec){
		.iov_base = (void *)(a->heap + start * psz),
		.iov_len = nr * psz,
	};
	if (v->n == 1024)
		iov_flush(v);
}

/*
 * The populate mode's anonymous replay (its file ranges go through
 * prepagectl's replay, as the other modes'): process_madvise() with
 * MADV_POPULATE_READ, which prepagectl does not use (it needs the
 * bench-only kernel patch).
 */
static void populate_replay(struct app *a)
{
	struct iovs v = { .n = 0, .advice = MADV_POPULATE_READ };

	v.pidfd = syscall(SYS_pidfd_open, a->pid, 0);
	if (v.pidfd < 0)
		die("pidfd_open: %s", strerror(errno));
	if (real_root) {
		char *line = NULL;
		unsigned long long addr;
		size_t cap = 0;
		long n;
		FILE *f = fopen(a->recorded_table, "r");

		if (!f)
			die("%s: %s", a->recorded_table, strerror(errno));
		while (getline(&line, &cap, f) > 0) {
			if (!real_anon_line(a, line, &addr, &n))
				continue;
			v.v[v.n++] = (struct iovec){
				.iov_base = (void *)(uintptr_t)addr,
				.iov_len = n * psz,
			};
			if (v.n == 1024)
				iov_flush(&v);
		}
		free(line);
		fclose(f);
	} else {
		profile_runs(a, NR_FILES, anon_range, &v);
	}
	iov_flush(&v);
	close(v.pidfd);
}

/* prepage_stat of @a as "key value" pairs into @val, by @keys order. */
static const char *stat_keys[] = {
	"file_prepaged", "file_hit", "file_miss", "anon_prepaged", "anon_hit",
	"anon_miss", "switches", "log_dropped", "file_stale", "file_evicted",
	"file_demoted", "anon_evicted", "anon_demoted", "file_late", "anon_late",
	"budget_stops", "closed_stops", "nomem_stops", "file_sat_out",
	"anon_sat_out", "pressure_stops", NULL,
};

/* Indices in stat_keys of the counters each switch record gives. */
enum { K_FILE_HIT = 1, K_FILE_MISS = 2, K_ANON_HIT = 4, K_ANON_MISS = 5 };

/* Room for the values of stat_keys (and table_keys). */
#define NR_KEYS	32

/* The table sizes, from /proc/<pid>/prepage, at the end of a mode. */
static const char *table_keys[] = {
	"file_target_pages", "anon_target_pages", "anon_candidate_pages", NULL,
};

/* /proc/<pid>/@file of @a into @buf, a string; false if unreadable. */
static bool read_proc(struct app *a, const char *file, char *buf,
		      size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", a->pid, file);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	return true;
}

/* "key value" lines of /proc/<pid>/@file into @val, by @keys order. */
static void read_keys(struct app *a, const char *file, const char **keys,
		      uint64_t *val)
{
	char buf[4096], *p;
	int i;

	memset(val, 0, sizeof(uint64_t) * NR_KEYS);
	if (!read_proc(a, file, buf, sizeof(buf)))
		return;
	for (i = 0; keys[i]; i++) {
		size_t l = strlen(keys[i]);

		for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
			if (!strncmp(p, keys[i], l) && p[l] == ' ')
				val[i] = strtoull(p + l + 1, NULL, 10);
	}
}

/*
 * The side the engine starts first for @a ("lead" in /proc/<pid>/prepage):
 * 'f' file, 'a' anonymous, 0 none or not known.
 */
static int app_lead(struct app *a)
{
	char buf[4096], *p;

	if (!read_proc(a, "prepage", buf, sizeof(buf)))
		return 0;
	p = strstr(buf, "\nlead ");
	if (!p)
		return 0;
	return !strncmp(p + 6, "file", 4) ? 'f' :
	       !strncmp(p + 6, "anon", 4) ? 'a' : 0;
}

static void read_stat(struct app *a, uint64_t *val)
{
	read_keys(a, "prepage_stat", stat_keys, val);
}

/*
 * Wait until @a's last window is counted: a read of its counters does.
 * Its counters into @val.
 */
static void app_settle(struct app *a, uint64_t *val)
{
	read_stat(a, val);
}

/*
 * TLB shootdown IPIs received so far, all CPUs (the "TLB:" line of
 * /proc/interrupts, x86); -1 where there is no such line.
 */
static long long tlb_ipis(void)
{
	long long total = -1, v;
	char line[4096], *p, *end;
	FILE *f = fopen("/proc/interrupts", "r");

	while (f && fgets(line, sizeof(line), f)) {
		p = line + strspn(line, " ");
		if (strncmp(p, "TLB:", 4))
			continue;
		total = 0;
		for (p += 4; (v = strtoll(p, &end, 10)), end != p; p = end)
			total += v;
		break;
	}
	if (f)
		fclose(f);
	return total;
}

/*
 * CPU time (ns) of the tasks whose name starts with @comm ("kprepaged":
 * the prepage threads; "kswapd"), from /proc/<pid>/stat.
 */
static uint64_t comm_cpu_ns(const char *comm)
{
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t total = 0;
	struct dirent *d;
	DIR *dir = opendir("/proc");

	while (dir && (d = readdir(dir))) {
		char path[300], buf[512], *p;
		unsigned long ut, st;
		ssize_t n;
		int fd;

		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", d->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = 0;
		p = strchr(buf, '(');
		if (!p || strncmp(p + 1, comm, strlen(comm)))
			continue;
		p = strrchr(buf, ')');
		/* fields after ") ": state ppid ... utime(14) stime(15) */
		if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
				&ut, &st) == 2)
			total += (ut + st) * (1000000000ULL / hz);
	}
	if (dir)
		closedir(dir);
	return total;
}

/*
 * A userspace daemon replays in parallel with the app's render, not
 * before it: one thread takes replay requests (an app index) from a pipe.
 */
/* bench/prepagectl-replay.c: tools/mm/prepagectl's replay. */
int prepagectl_replay(int pid, const char *table);

static int replay_pipe[2], replay_done[2];
static int replay_advice;
static volatile uint64_t replay_cpu;	/* ns, the replay thread's CPU time */

static void *replay_thread(void *arg)
{
	int i;

	while (read(replay_pipe[0], &i, sizeof(i)) == sizeof(i)) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
		/* userspace-file and populate: file lines only */
		/* A real app's heap may have moved or shrunk since: skips. */
		if (prepagectl_replay(apps[i].pid, apps[i].table) && !real_root)
			die("prepagectl replay of app %d skipped a range", i);
		if (replay_advice == MADV_POPULATE_READ)
			populate_replay(&apps[i]);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
		replay_cpu += (t1.tv_sec - t0.tv_sec) * 1000000000ULL +
			      t1.tv_nsec - t0.tv_nsec;
		if (write(replay_done[1], &i, sizeof(i)) != sizeof(i))
			break;
	}
	return NULL;
}

/*
 * Switch @i of round @r of the zipf sequence: an app drawn with a chance
 * in proportion to 1 / (its id + 1) (a Zipf distribution of exponent 1:
 * a few apps take most of the switches), not @prev again.
 */
static int zipf_app(int r, int i, int prev)
{
	double h = 0, u, c = 0;
	int k, t;

	for (k = 0; k < opt.apps; k++)
		h += 1.0 / (k + 1);
	for (t = 0; t < 64; t++) {
		u = unit(mix(((uint64_t)opt.seed << 40) ^ ((uint64_t)r << 16) ^
			     ((uint64_t)i << 6) ^ t ^ 0x21f0000000000000ULL)) * h;
		for (k = 0, c = 0; k < opt.apps - 1; k++) {
			c += 1.0 / (k + 1);
			if (u < c)
				break;
		}
		if (k != prev || opt.apps == 1)
			return k;
	}
	return (prev + 1) % opt.apps;
}

/*
 * The apps of round @r of sequence @seq, into @order (opt.apps switches);
 * @prev is the app in front before the round.
 */
static void round_order(int seq, int r, int prev, int *order)
{
	int n = opt.apps, i, j, t;

	for (i = 0; i < n; i++) {
		long g = (long)r * n + i;	/* switches so far */

		switch (seq) {
		case SEQ_CYCLE:
			order[i] = (i + r) % n;
			break;
		case SEQ_HUB:		/* every other switch to app 0 */
			order[i] = g % 2 && n > 1 ? 1 + g / 2 % (n - 1) : 0;
			break;
		case SEQ_RANDOM:
			order[i] = i;
			break;
		case SEQ_ZIPF:
			order[i] = zipf_app(r, i, i ? order[i - 1] : prev);
			break;
		}
	}
	if (seq != SEQ_RANDOM)
		return;
	/* A seeded Fisher-Yates shuffle, no app twice in a row. */
	for (i = n - 1; i > 0; i--) {
		j = mix(((uint64_t)opt.seed << 32) ^ ((uint64_t)r << 8) ^ i) %
		    (i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	if (n > 1 && order[0] == prev) {
		order[0] = order[1];
		order[1] = prev;
	}
}

static int sequences[8], nr_sequences;
static bool app_rounds;		/* the zipf sequence: per-app rounds */

/* --set NAME=VALUE: tunables of /sys/kernel/mm/prepage for prepage modes. */
static char *sets[16];
static int nr_sets;

/*
 * Real reclaim: lock all the memory but --budget MiB for the apps, so that
 * bringing one app in pushes the others out. Return: the locked area.
 */
/* MemAvailable, in MiB. */
static long mem_available_mb(void)
{
	char line[128];
	long avail = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &avail) == 1)
			break;
	if (f)
		fclose(f);
	if (avail < 0)
		die("no MemAvailable in /proc/meminfo");
	return avail / 1024;
}

#define BALLOON_CHUNKS	128
#define REC_SLACK_MB	16

/* What prepagectl record's tracefs buffers take: 4 MiB a CPU. */
static long rec_mb(void)
{
	return 4 * sysconf(_SC_NPROCESSORS_ONLN);
}

static struct {
	void *p[BALLOON_CHUNKS];
	size_t len[BALLOON_CHUNKS];
	int n;
} balloon;

/* Lock @mb MiB more. */
static void balloon_grow(long mb)
{
	size_t len = (size_t)mb << 20;
	void *p;

	if (balloon.n == BALLOON_CHUNKS)
		die("balloon: more than %d steps to reach --budget", BALLOON_CHUNKS);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE | MAP_LOCKED, -1, 0);
	if (p == MAP_FAILED)
		die("cannot lock %zu MiB: %s", len >> 20, strerror(errno));
	/*
	 * Not in the apps forked after it: each would copy its page tables
	 * (2 MiB a GiB) out of the budget, and hold its pages when the
	 * balloon shrinks.
	 */
	if (madvise(p, len, MADV_DONTFORK))
		die("balloon: MADV_DONTFORK: %s", strerror(errno));
	balloon.p[balloon.n] = p;
	balloon.len[balloon.n++] = len;
}

/* Unlock @mb MiB, from the last chunks locked. */
static void balloon_shrink(long mb)
{
	size_t len = (size_t)mb << 20;

	while (len && balloon.n) {
		size_t *last = &balloon.len[balloon.n - 1];
		size_t d = len < *last ? len : *last;

		munmap((char *)balloon.p[balloon.n - 1] + *last - d, d);
		*last -= d;
		len -= d;
		if (!*last)
			balloon.n--;
	}
}

/* MemAvailable, once it stops moving (two readings 1 MiB apart at most). */
static long mem_available_settled(void)
{
	long last = -1, now = 0;
	int i, stable = 0;

	for (i = 0; i < 60 && stable < 3; i++) {
		usleep(250000);
		now = mem_available_mb();
		stable = labs(now - last) <= 1 ? stable + 1 : 0;
		last = now;
	}
	return now;
}

/*
 * Lock all memory but --budget, so that the apps get the same memory in
 * every mode. The benchmark runs where a few MiB decide how much of the
 * apps stays resident (one run: baseline 87 ms with 101-107 MiB, 179 ms
 * with 96-97 MiB), so the budget is met to within 1 MiB, from both sides:
 * MemAvailable right after an earlier mode's apps exit can be short of
 * what is free a few seconds later (by ~40 MiB here, after the ideal
 * mode), and locking a chunk can take more than the chunk (page tables,
 * lazily freed memory showing up late). Return: the MiB locked.
 */
static long balloon_inflate(void)
{
	long total = 0, diff;
	int i;

	/* Same start for every mode: no page cache of an earlier one. */
	sync();
	if (write_str("/proc/sys/vm/drop_caches", "3"))
		die("cannot drop caches");
	write_str("/proc/sys/vm/compact_memory", "1");
	balloon.n = 0;
	diff = mem_available_settled() - opt.budget_mb;
	if (diff <= 32)
		die("%ld MiB available, cannot leave the apps --budget %ld MiB and keep 32 MiB for the kernel",
		    diff + opt.budget_mb, opt.budget_mb);
	for (i = 0; i < 20 && labs(diff) > 1; i++) {
		if (diff > 0) {
			balloon_grow(diff);
			total += diff;
		} else {
			balloon_shrink(-diff);
			total += diff;
		}
		diff = mem_available_settled() - opt.budget_mb;
	}
	/* The report gives the range each mode had. */
	if (labs(diff) > 1)
		fprintf(stderr, "prepage-bench: balloon: MemAvailable stays %ld MiB off --budget %ld MiB\n",
			diff, opt.budget_mb);
	return total;
}

static void balloon_deflate(void)
{
	while (balloon.n--)
		munmap(balloon.p[balloon.n], balloon.len[balloon.n]);
	balloon.n = 0;
}

/* ---- a memory cgroup for each mode ------------------------------------- */

#define CGROOT	"/sys/fs/cgroup"

static char mode_cg[128];

/*
 * Run a mode (its apps and this driver, the balloon aside) in a memory
 * cgroup of its own, made for it and removed after it. Reclaim keeps
 * state per cgroup (MGLRU's generations and refault statistics, the
 * balance between anonymous and file pages) that would otherwise pass
 * from one mode's apps to the next mode's: in the runs before this, a
 * mode's trial was slower after some modes than after others (baseline
 * 76-124 ms right after prepage-profile, 54-89 ms first or right after
 * ideal).
 */
static void mode_cgroup_enter(const char *mode, int trial, bool anatomy)
{
	char path[160];

	if (!opt.memcg)
		return;
	if (access(CGROOT "/cgroup.procs", F_OK) &&
	    mount("cgroup2", CGROOT, "cgroup2", 0, NULL))
		die("--memcg: cannot mount cgroup2 on " CGROOT ": %s",
		    strerror(errno));
	if (write_str(CGROOT "/cgroup.subtree_control", "+memory"))
		die("--memcg: no memory controller (CONFIG_MEMCG)");
	snprintf(mode_cg, sizeof(mode_cg), CGROOT "/prepage-bench.%s.%d%s",
		 mode, trial, anatomy ? ".anatomy" : "");
	if (mkdir(mode_cg, 0755))
		die("--memcg: mkdir %s: %s", mode_cg, strerror(errno));
	snprintf(path, sizeof(path), "%s/cgroup.procs", mode_cg);
	/* "0": the writer itself; the apps it forks inherit the cgroup. */
	if (write_str(path, "0"))
		die("--memcg: cannot enter %s", mode_cg);
}

/* Back to the root cgroup, once the mode's apps are gone; remove its own. */
static void mode_cgroup_leave(void)
{
	int i;

	if (!opt.memcg)
		return;
	if (write_str(CGROOT "/cgroup.procs", "0"))
		die("--memcg: cannot go back to " CGROOT);
	/* Its last tasks may take a moment to leave it after they exit. */
	for (i = 0; rmdir(mode_cg) && errno == EBUSY && i < 100; i++)
		usleep(10000);
}

/* ---- anatomy: taskstats of the app over a switch ---------------------- */

static int ts_sock = -1;
static unsigned short ts_family;

struct nl_req {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char buf[256];
};

/* Send a generic netlink request with one attribute; 0 or -errno. */
static int nl_request(unsigned short family, unsigned char cmd,
		      unsigned short type, const void *data, int len)
{
	struct nl_req r = {};
	struct nlattr *na;
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };

	r.n.nlmsg_type = family;
	r.n.nlmsg_flags = NLM_F_REQUEST;
	r.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r.g.cmd = cmd;
	r.g.version = 1;
	na = (struct nlattr *)((char *)&r + r.n.nlmsg_len);
	na->nla_type = type;
	na->nla_len = NLA_HDRLEN + len;
	memcpy((char *)na + NLA_HDRLEN, data, len);
	r.n.nlmsg_len += NLA_ALIGN(na->nla_len);
	if (sendto(ts_sock, &r, r.n.nlmsg_len, 0, (struct sockaddr *)&to,
		   sizeof(to)) < 0)
		return -errno;
	return 0;
}

/*
 * Receive the answer and return the attribute @type (nested in @outer if
 * not 0) into @out, at most @len bytes; its length, or -errno.
 */
static int nl_answer(unsigned short outer, unsigned short type, void *out,
		     int len)
{
	static char buf[4096];
	struct nlmsghdr *n = (struct nlmsghdr *)buf;
	struct nlattr *na;
	int left, got;

	got = recv(ts_sock, buf, sizeof(buf), 0);
	if (got < 0)
		return -errno;
	if (!NLMSG_OK(n, (unsigned int)got))
		return -EIO;
	if (n->nlmsg_type == NLMSG_ERROR)
		return ((struct nlmsgerr *)NLMSG_DATA(n))->error ?: -EIO;
	na = (struct nlattr *)((char *)NLMSG_DATA(n) + GENL_HDRLEN);
	left = NLMSG_PAYLOAD(n, 0) - GENL_HDRLEN;
	while (left >= NLA_HDRLEN && na->nla_len >= NLA_HDRLEN &&
	       na->nla_len <= left) {
		int alen = na->nla_len - NLA_HDRLEN;
		char *data = (char *)na + NLA_HDRLEN;

		if (outer && na->nla_type == outer) {
			/* Go inside: the attributes of the nest. */
			outer = 0;
			na = (struct nlattr *)data;
			left = alen;
			continue;
		}
		if (!outer && na->nla_type == type) {
			memcpy(out, data, alen < len ? alen : len);
			return alen;
		}
		left -= NLA_ALIGN(na->nla_len);
		na = (struct nlattr *)((char *)na + NLA_ALIGN(na->nla_len));
	}
	return -ENOENT;
}

static void ts_open(void)
{
	struct sockaddr_nl me = { .nl_family = AF_NETLINK };
	int err;

	ts_sock = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	if (ts_sock < 0 || bind(ts_sock, (struct sockaddr *)&me, sizeof(me)))
		die("--anatomy: no generic netlink socket: %s", strerror(errno));
	err = nl_request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
			 CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME,
			 sizeof(TASKSTATS_GENL_NAME));
	if (!err)
		err = nl_answer(0, CTRL_ATTR_FAMILY_ID, &ts_family,
				sizeof(ts_family));
	if (err < 0)
		die("--anatomy: no taskstats in this kernel (CONFIG_TASKSTATS, CONFIG_TASK_DELAY_ACCT): %s",
		    strerror(-err));
	if (write_str("/proc/sys/kernel/task_delayacct", "0"))
		die("--anatomy: no /proc/sys/kernel/task_delayacct (CONFIG_TASK_DELAY_ACCT)");
}

/* The delay accounting of task @pid, in ns. */
struct anat {
	uint64_t run, cpu_wait, swapin, reclaim, blkio, thrash;
	uint64_t minflt, majflt;	/* faults, from /proc/<pid>/stat */
};

/* The minor and major fault counts of @pid. */
static void faults_get(pid_t pid, struct anat *an)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	p = n > 0 ? (buf[n] = 0, strrchr(buf, ')')) : NULL;
	/* after ") ": state ppid pgrp session tty tpgid flags minflt cminflt majflt */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %llu %*u %llu",
			 (unsigned long long *)&an->minflt,
			 (unsigned long long *)&an->majflt) != 2)
		die("cannot read %s", path);
}

static void ts_get(pid_t pid, struct anat *an)
{
	struct taskstats ts;
	uint32_t p = pid;
	int err;

	memset(&ts, 0, sizeof(ts));
	err = nl_request(ts_family, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_PID,
			 &p, sizeof(p));
	if (!err)
		err = nl_answer(TASKSTATS_TYPE_AGGR_PID, TASKSTATS_TYPE_STATS,
				&ts, sizeof(ts));
	if (err < 0)
		die("taskstats of %d: %s", pid, strerror(-err));
	*an = (struct anat){
		/* In ns; cpu_run_real_total counts in ticks. */
		.run = ts.cpu_run_virtual_total, .cpu_wait = ts.cpu_delay_total,
		.swapin = ts.swapin_delay_total,
		.reclaim = ts.freepages_delay_total,
		.blkio = ts.blkio_delay_total,
		.thrash = ts.thrashing_delay_total,
	};
	faults_get(pid, an);
}

/*
 * What the switch of @a in round @round will have to bring in: the pages
 * of its footprint that are not resident when it starts (file: not in
 * the page cache, by mincore(); anonymous: swapped out, by
 * /proc/<pid>/pagemap), split into those in the profile (what a
 * profile-driven prefetcher can know of) and the others.
 */
struct cold {
	long file_prof, file_other, anon_prof, anon_other;
};

static void cold_pages(struct app *a, int round, struct footprint *fp,
		       struct cold *c)
{
	long n = heap_pages(), most = n, p;
	unsigned char *vec;
	uint64_t *pm = malloc(n * sizeof(*pm));
	char path[64];
	int o, fd;

	memset(c, 0, sizeof(*c));
	if (real_root) {
		free(pm);
		return;		/* no footprint known: nothing counted */
	}
	for (o = 0; o < NR_FILES; o++)
		if (file_pages(o) > most)
			most = file_pages(o);
	vec = malloc(most);
	if (!vec || !pm)
		die("out of memory");
	memset(c, 0, sizeof(*c));
	fp_make(fp, a, round);
	for (o = 0; o < NR_FILES; o++) {
		if (!a->peek[o]) {
			fd = open(a->path[o], O_RDONLY);
			a->peek[o] = fd < 0 ? MAP_FAILED :
				mmap(NULL, file_pages(o) * psz, PROT_READ,
				     MAP_SHARED, fd, 0);
			if (a->peek[o] == MAP_FAILED)
				die("cannot map %s: %s", a->path[o],
				    strerror(errno));
			close(fd);
		}
		if (mincore(a->peek[o], file_pages(o) * psz, vec))
			die("mincore: %s", strerror(errno));
		for (p = 0; p < file_pages(o); p++)
			if (fp->map[o][p] && !(vec[p] & 1)) {
				if (a->profile[o][p])
					c->file_prof++;
				else
					c->file_other++;
			}
	}
	snprintf(path, sizeof(path), "/proc/%d/pagemap", a->pid);
	fd = open(path, O_RDONLY);
	if (fd < 0 || pread(fd, pm, n * sizeof(*pm),
			    a->heap / psz * sizeof(*pm)) != (ssize_t)(n * sizeof(*pm)))
		die("cannot read %s: %s", path, strerror(errno));
	close(fd);
	for (p = 0; p < n; p++)
		if (fp->map[NR_FILES][p] && (pm[p] >> 62 & 1)) {
			if (a->profile[NR_FILES][p])
				c->anon_prof++;
			else
				c->anon_other++;
		}
	free(vec);
	free(pm);
}

static bool mode_prepage(const char *mode)
{
	return !strncmp(mode, "prepage", 7);
}

/*
 * A mode may carry settings of its own: MODE@NAME=VALUE[+NAME=VALUE...]
 * sets the tunables of SYSFS for that mode alone (after --set), so that
 * one run compares a prepage mode under two settings side by side, each
 * against the same baseline. Copy MODE into @mode (at most @size bytes).
 */
static const char *mode_base(const char *name, char *mode, size_t size)
{
	const char *at = strchr(name, '@');

	snprintf(mode, size, "%.*s", at ? (int)(at - name) : (int)strlen(name),
		 name);
	return at ? at + 1 : NULL;
}

/* Set the settings of a mode's @list, saving the old values into @old. */
static int mode_settings(const char *list, char old[][32], bool restore)
{
	char buf[256], *tok, *save, path[128];
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, "+", &save); tok && n < 8;
	     tok = strtok_r(NULL, "+", &save), n++) {
		char *eq = strchr(tok, '=');
		int fd;
		ssize_t len;

		*eq = '\0';
		if (restore) {
			knob(tok, old[n]);
			continue;
		}
		snprintf(path, sizeof(path), SYSFS "%s", tok);
		fd = open(path, O_RDONLY);
		len = fd < 0 ? -1 : read(fd, old[n], 31);
		if (fd >= 0)
			close(fd);
		if (len <= 0)
			die("cannot read %s", path);
		old[n][len] = '\0';
		old[n][strcspn(old[n], "\n")] = '\0';
		knob(tok, eq + 1);
	}
	return n;
}

/*
 * The oracle modes: set @a's tables to the footprint of its next switch
 * after switch @k of @sched (-1: before the first), as the profile modes
 * set theirs to the profile. Return: whether it has a next switch.
 */
static bool oracle_next(struct app *a, const int *sched, int k)
{
	int n = (opt.warmup + opt.rounds) * opt.apps;

	for (k++; k < n && sched[k] != a->id; k++)
		;
	if (k >= n)
		return false;
	fp_make(&a->next, a, k / opt.apps);
	return true;
}

/*
 * The apps in switch order, round by round ((warmup + rounds) * apps
 * entries), as every mode switches them; the oracle modes look ahead in
 * it. Freed by the caller.
 */
static int *switch_schedule(void)
{
	int r, prev = -1, *sched;

	sched = calloc((opt.warmup + opt.rounds) * opt.apps, sizeof(*sched));
	if (!sched)
		die("out of memory");
	for (r = 0; r < opt.warmup + opt.rounds; r++) {
		round_order(sequences[r % nr_sequences], r, prev,
			    sched + r * opt.apps);
		prev = sched[r * opt.apps + opt.apps - 1];
	}
	return sched;
}

/*
 * An oracle mode runs as its base mode (prepage-oracle as
 * prepage-profile), with other tables: turn @mode (room for @size bytes)
 * into its base. Return: whether it was an oracle mode.
 */
static bool mode_oracle(char *mode, size_t size)
{
	size_t len = strlen(mode);

	if (len <= 7 || strcmp(mode + len - 7, "-oracle"))
		return false;
	if (!strcmp(mode, "prepage-oracle"))
		snprintf(mode, size, "prepage-profile");
	else
		mode[len - 7] = '\0';
	return true;
}

static int run_mode(const char *name, int trial, bool anatomy)
{
	char mode[32], old[8][32];
	const char *settings = mode_base(name, mode, sizeof(mode));
	bool oracle = mode_oracle(mode, sizeof(mode));
	bool pre = mode_prepage(mode);
	bool ideal = !strcmp(mode, "ideal");
	bool user = !strncmp(mode, "userspace", 9) || !strcmp(mode, "populate");
	bool profile = !strcmp(mode, "prepage-profile");
	bool rerecord = !strcmp(mode, "userspace-rerecord");
	/* userspace-rerecord: a recorder per app, while it records */
	FILE *rec_f[MAX_APPS] = { NULL };
	pid_t rec_pid[MAX_APPS];
	int nr_rec = 0;
	/*
	 * The calibrated model's switch-out moves heap pages, which the
	 * oracle's next tables must see: it comes before the tables are set
	 * (real apps' too, alike); the uniform model's after, as it did.
	 */
	bool gc_first = opt.footprint == FP_CALIBRATED || real_root;
	int *sched = switch_schedule(), *order;
	bool reclaim = !opt.pageout && !ideal;
	uint64_t cpu0, kswapd0, replay0, t0, val[NR_KEYS];
	long long tlb0, tlb1;
	int i, r, c;
	long balloon_mb = 0, avail_mb = 0;
	bool delay_dequeue = false;
	struct footprint fp;
	long bad = 0;

	/* A real app's next footprint is not known. */
	if (real_root && oracle) {
		free(sched);
		return 0;
	}
	/*
	 * userspace-rerecord records with prepagectl (trace_hold()): the
	 * events' buffers made before the balloon leaves the apps their
	 * budget, not out of it.
	 */
	if (rerecord)
		trace_hold(true);
	if (reclaim) {
		balloon_mb = balloon_inflate();
		avail_mb = mem_available_mb();
	}
	mode_cgroup_enter(name, trial, anatomy);
	replay_advice = !strcmp(mode, "userspace") || rerecord ? MADV_WILLNEED :
			!strcmp(mode, "populate") ? MADV_POPULATE_READ : 0;
	if (anatomy)
		fp_alloc(&fp);
	/* Before the apps fork: a task gets its delay counters at fork. */
	if (anatomy && write_str("/proc/sys/kernel/task_delayacct", "1"))
		die("cannot turn task delay accounting on");
	delay_dequeue = (anatomy || opt.no_delay_dequeue) &&
			delay_dequeue_off();
	if (opt.no_delay_dequeue && !delay_dequeue && delay_dequeue_state())
		die("--no-delay-dequeue: cannot turn DELAY_DEQUEUE off in "
		    SCHED_FEATURES);
	/*
	 * userspace-rerecord records with prepagectl, which follows the
	 * switch windows: prepage on, both sides off, as for the profile.
	 */
	knob("enabled", pre || rerecord ? "1" : "0");
	if (rerecord) {
		knob("file/enabled", "0");
		knob("anon/enabled", "0");
	}
	for (i = 0; pre && i < nr_sets; i++) {
		char name[64], *eq = strchr(sets[i], '=');

		snprintf(name, sizeof(name), "%.*s", (int)(eq - sets[i]), sets[i]);
		knob(name, eq + 1);
	}
	if (pre) {
		knob("file/enabled", strcmp(mode, "prepage-anon") ? "1" : "0");
		knob("anon/enabled", strcmp(mode, "prepage-file") ? "1" : "0");
	}
	if (settings)
		mode_settings(settings, old, false);
	/*
	 * Everyone starts in the background, the heap as the profiling
	 * switches left it once this switch-out is done (the profile's
	 * addresses are those).
	 */
	for (i = 0; i < opt.apps; i++) {
		apps[i].id = i;
		apps[i].switches = 0;
		app_start(&apps[i], opt.profile_rounds - 1);
		if (gc_first && (!ideal || opt.footprint == FP_CALIBRATED))
			app_background(&apps[i], !ideal);
		if (oracle) {
			if (!apps[i].next.map[0])
				fp_alloc(&apps[i].next);
			apps[i].oracle = oracle_next(&apps[i], sched, -1);
		}
		if (unprofiled(&apps[i]))
			continue;
		if (pre && strcmp(mode, "prepage-anon"))
			load_table(&apps[i], profile);
		if (user)
			write_table(&apps[i], replay_advice == MADV_WILLNEED);
	}
	/* The uniform model's order, as it always was: tables, then out. */
	for (i = 0; i < opt.apps && !gc_first && !ideal; i++)
		app_background(&apps[i], true);
	cpu0 = comm_cpu_ns("kprepaged");
	kswapd0 = comm_cpu_ns("kswapd");
	tlb0 = tlb_ipis();
	replay0 = replay_cpu;
	t0 = now_ns();
	for (r = 0; r < opt.warmup + opt.rounds; r++) {
		bool measured = r >= opt.warmup;

		if (r == opt.warmup) {
			for (i = 0; i < opt.apps; i++) {
				read_stat(&apps[i], apps[i].stat0);
				memcpy(apps[i].last, apps[i].stat0,
				       sizeof(apps[i].last));
			}
			cpu0 = comm_cpu_ns("kprepaged");
			kswapd0 = comm_cpu_ns("kswapd");
			tlb0 = tlb_ipis();
			replay0 = replay_cpu;
			t0 = now_ns();
		}
		int seq = sequences[r % nr_sequences];

		order = sched + r * opt.apps;
		for (i = 0; i < opt.apps; i++) {
			struct app *a = &apps[order[i]];
			uint64_t start, start_ns = 0, end_ns = 0, start_cpu = 0;
			uint64_t settle_ns = 0, off_cpu;
			uint64_t start_wait = 0;
			uint64_t sv[NR_KEYS], wv[NR_KEYS] = {};
			struct anat an0, an1;
			struct cold cold;
			struct msg m;
			/*
			 * The app's own count of switches is its round with
			 * the zipf sequence (an app can come more than once a
			 * round), the round itself with the others.
			 */
			int fr = app_rounds ? a->switches : r;
			bool replay = user && !unprofiled(a);

			a->switches++;
			if (r * opt.apps + i == opt.update_at &&
			    opt.update_app >= 0)
				app_update(&apps[opt.update_app], 1, true);
			/*
			 * userspace-rerecord: prepagectl record over the app's
			 * switches 10-19 of every 20 (the replay goes on), its
			 * table replayed from the next one on.
			 */
			if (rerecord && replay && fr % 20 == 10 &&
			    fr + 10 <= opt.warmup + opt.rounds) {
				char out[64];

				if (!nr_rec++)
					fault_around_off(true);
				/* Not over the table the replay reads. */
				snprintf(out, sizeof(out),
					 "/tmp/prepage-bench.%d.rerecord.%d",
					 a->id, fr / 20);
				/*
				 * Its tracefs instance's buffers (4 MiB a CPU)
				 * do not come out of the apps' budget: the
				 * balloon makes room for them while it runs.
				 * They are not made unless MemAvailable,
				 * less the reserves, holds them: room for
				 * that while they are made.
				 */
				if (reclaim)
					balloon_shrink(rec_mb());
				/*
				 * Under reclaim the free pages the balloon
				 * gives back may go to the reserves first:
				 * a start that found too little tries again
				 * with twice the room, up to 8 times the
				 * first.
				 */
				for (long slack = REC_SLACK_MB;; slack *= 2) {
					if (reclaim)
						balloon_shrink(slack);
					rec_f[a->id] = rec_spawn(a, 10, out,
						&rec_pid[a->id],
						reclaim && slack < 8 * REC_SLACK_MB);
					if (reclaim)
						balloon_grow(slack);
					if (rec_f[a->id])
						break;
				}
			}
			if (rec_f[a->id])
				app_ctl(a, "start");
			if (anatomy && measured)
				cold_pages(a, fr, &fp, &cold);
			if (anatomy)
				ts_get(a->pid, &an0);
			if (pre)
				start_wait = thread_wait_ns();
			start = now_ns();
			if (pre) {
				uint64_t cpu0 = thread_cpu_ns();

				app_ctl(a, "start");
				start_ns = now_ns() - start;
				start_cpu = thread_cpu_ns() - cpu0;
				start_wait = thread_wait_ns() - start_wait;
				/*
				 * The run delay is read by syscalls around the
				 * write, which can be preempted too: count no
				 * more than the write's time off a CPU.
				 */
				off_cpu = start_ns > start_cpu ?
					  start_ns - start_cpu : 0;
				if (start_wait > off_cpu)
					start_wait = off_cpu;
			}
			if (replay && write(replay_pipe[1], &a->id, sizeof(int)) !=
				      sizeof(int))
				die("replay thread gone");
			m = app_call(a, 'S', fr);
			/* The app waits for its next command: nothing accrues. */
			if (anatomy)
				ts_get(a->pid, &an1);
			if (replay && read(replay_done[0], &c, sizeof(c)) != sizeof(c))
				die("replay thread gone");
			if (rec_f[a->id]) {
				app_ctl(a, "end");
				if (fr % 20 == 19) {
					rec_finish(a, rec_f[a->id], rec_pid[a->id]);
					rec_f[a->id] = NULL;
					if (reclaim)
						balloon_grow(rec_mb());
					rerecorded(a, fr / 20);
					if (!--nr_rec)
						fault_around_off(false);
				}
			}
			if (pre) {
				uint64_t e = now_ns();

				app_ctl(a, "end");
				end_ns = now_ns() - e;
				/*
				 * A kernel worker counts the window, and learns
				 * from it, after the write; a read of the
				 * counters waits for that. The next switch
				 * waits for it as it waits for the replay
				 * thread: here switches follow one another at
				 * once, on a phone the next comes when the user
				 * asks for it.
				 */
				e = now_ns();
				app_settle(a, sv);
				settle_ns = now_ns() - e;
				/* What this window counted. */
				for (int k = 0; k < NR_KEYS; k++) {
					wv[k] = sv[k] - a->last[k];
					a->last[k] = sv[k];
				}
			}
			/* Used on (unmeasured), then to the background. */
			bad += app_use(a, fr);
			if (gc_first && (!ideal || opt.footprint == FP_CALIBRATED))
				app_background(a, !ideal);
			/*
			 * The same tables as the replay's at every switch: put
			 * back once the window learned from, not just before the
			 * next 'start', whose latency would then include the
			 * load's CPU (the driver's time slice running out in the
			 * 'start' write, to the prepagers it wakes).
			 * The oracle modes': the pages of the app's next switch,
			 * where its GC left them.
			 */
			if (!oracle || oracle_next(a, sched, r * opt.apps + i)) {
				if (profile) {
					if (!unprofiled(a))
						load_table(a, true);
				} else if (oracle) {
					write_table(a, replay_advice == MADV_WILLNEED);
				}
			}
			bad += m.bad;
			if (measured && !anatomy)
				printf("SWITCH mode=%s trial=%d seq=%s app=%d round=%d app_sw=%d sw=%d latency_us=%.1f heap_us=%.1f start_us=%.1f start_cpu_us=%.1f start_wait_us=%.1f end_us=%.1f settle_us=%.1f fh=%llu fm=%llu ah=%llu am=%llu bad=%ld\n",
				       name, trial, sequence_names[seq], a->id,
				       r - opt.warmup, fr, r * opt.apps + i,
				       (m.t - start) / 1e3, (m.t - m.heap_t) / 1e3,
				       start_ns / 1e3,
				       start_cpu / 1e3, start_wait / 1e3,
				       end_ns / 1e3, settle_ns / 1e3,
				       (unsigned long long)wv[K_FILE_HIT],
				       (unsigned long long)wv[K_FILE_MISS],
				       (unsigned long long)wv[K_ANON_HIT],
				       (unsigned long long)wv[K_ANON_MISS], m.bad);
			if (measured && anatomy)
				printf("SWITCH mode=%s trial=%d anatomy=1 seq=%s app=%d round=%d latency_us=%.1f heap_us=%.1f start_us=%.1f start_cpu_us=%.1f start_wait_us=%.1f end_us=%.1f settle_us=%.1f run_us=%.1f cpu_wait_us=%.1f swapin_us=%.1f reclaim_us=%.1f blkio_us=%.1f thrash_us=%.1f minflt=%llu majflt=%llu cold_file_prof=%ld cold_file_other=%ld cold_anon_prof=%ld cold_anon_other=%ld bad=%ld\n",
				       name, trial, sequence_names[seq], a->id,
				       r - opt.warmup,
				       (m.t - start) / 1e3, (m.t - m.heap_t) / 1e3,
				       start_ns / 1e3,
				       start_cpu / 1e3, start_wait / 1e3,
				       end_ns / 1e3, settle_ns / 1e3,
				       (an1.run - an0.run) / 1e3,
				       (an1.cpu_wait - an0.cpu_wait) / 1e3,
				       (an1.swapin - an0.swapin) / 1e3,
				       (an1.reclaim - an0.reclaim) / 1e3,
				       (an1.blkio - an0.blkio) / 1e3,
				       (an1.thrash - an0.thrash) / 1e3,
				       (unsigned long long)(an1.minflt - an0.minflt),
				       (unsigned long long)(an1.majflt - an0.majflt),
				       cold.file_prof, cold.file_other,
				       cold.anon_prof, cold.anon_other, m.bad);
			if (!gc_first && !ideal)
				app_background(a, true);
		}
	}
	for (i = 0; i < opt.apps; i++) {
		int k, lead;

		read_stat(&apps[i], val);
		printf("APPSTAT mode=%s trial=%d%s app=%d", name, trial,
		       anatomy ? " anatomy=1" : "", i);
		for (k = 0; stat_keys[k]; k++)
			printf(" %s=%llu", stat_keys[k],
			       (unsigned long long)(val[k] - apps[i].stat0[k]));
		read_keys(&apps[i], "prepage", table_keys, val);
		for (k = 0; table_keys[k]; k++)
			printf(" %s=%llu", table_keys[k],
			       (unsigned long long)val[k]);
		lead = app_lead(&apps[i]);
		printf(" lead_file=%d lead_anon=%d\n", lead == 'f', lead == 'a');
	}
	tlb1 = tlb_ipis();
	printf("MODE mode=%s trial=%d%s%s balloon_mb=%ld avail_mb=%ld prepager_cpu_ms=%.1f replay_cpu_ms=%.1f kswapd_cpu_ms=%.1f tlb_ipis=%lld wall_ms=%.1f bad=%ld\n",
	       name, trial, anatomy ? " anatomy=1" : "",
	       delay_dequeue ? " delay_dequeue_off=1" : "", balloon_mb, avail_mb,
	       (comm_cpu_ns("kprepaged") - cpu0) / 1e6,
	       (replay_cpu - replay0) / 1e6,
	       (comm_cpu_ns("kswapd") - kswapd0) / 1e6,
	       tlb0 < 0 || tlb1 < 0 ? -1 : tlb1 - tlb0,
	       (now_ns() - t0) / 1e6, bad);
	fflush(stdout);
	for (i = 0; i < opt.apps; i++) {
		int status;

		app_stop(&apps[i]);
		waitpid(apps[i].child, &status, 0);
		if (!real_root) {
			close(apps[i].cmd);
			close(apps[i].reply);
		}
	}
	/* A recorder left (none with cycle and random): stopped. */
	for (i = 0; i < opt.apps; i++) {
		if (!rec_f[i])
			continue;
		kill(rec_pid[i], SIGTERM);
		waitpid(rec_pid[i], NULL, 0);
		fclose(rec_f[i]);
		if (!--nr_rec)
			fault_around_off(false);
	}
	/* The updated app's files as they were, for the next mode. */
	for (i = 0; i < opt.apps; i++)
		if (apps[i].version)
			app_update(&apps[i], 0, false);
	/* Static keys flip: with no app running (see trace_hold()). */
	if (anatomy && write_str("/proc/sys/kernel/task_delayacct", "0"))
		die("cannot turn task delay accounting off");
	if (delay_dequeue && write_str(SCHED_FEATURES, "DELAY_DEQUEUE"))
		die("cannot turn the scheduler's DELAY_DEQUEUE back on");
	mode_cgroup_leave();
	if (settings)
		mode_settings(settings, old, true);
	knob("enabled", "0");
	for (i = 0; anatomy && i <= NR_FILES; i++)
		free(fp.map[i]);
	for (i = 0; i < opt.apps; i++)
		apps[i].oracle = false;
	free(sched);
	balloon_deflate();
	if (rerecord)
		trace_hold(false);
	return bad ? -1 : 0;
}

/* ---- overhead: fault-heavy loops, no switch ---------------------------- */

#define OH_PAGES	8192

static double oh_anon_faults(void)
{
	uint64_t t0, total = 0;
	int rep;

	for (rep = 0; rep < 8; rep++) {
		char *p = mmap(NULL, OH_PAGES * psz, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		long i;

		if (p == MAP_FAILED)
			die("mmap: %s", strerror(errno));
		madvise(p, OH_PAGES * psz, MADV_NOHUGEPAGE);
		t0 = now_ns();
		for (i = 0; i < OH_PAGES; i++)
			p[i * psz] = 1;
		total += now_ns() - t0;
		munmap(p, OH_PAGES * psz);
	}
	return (double)total / (8 * OH_PAGES);
}

static double oh_swapin_faults(void)
{
	char *p = mmap(NULL, OH_PAGES * psz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t t0, total = 0;
	int rep;
	long i;

	if (p == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	madvise(p, OH_PAGES * psz, MADV_NOHUGEPAGE);
	for (i = 0; i < OH_PAGES; i++)
		p[i * psz] = (char)i;
	for (rep = 0; rep < 4; rep++) {
		madvise(p, OH_PAGES * psz, MADV_PAGEOUT);
		t0 = now_ns();
		for (i = 0; i < OH_PAGES; i++)
			sink += p[i * psz];
		total += now_ns() - t0;
	}
	munmap(p, OH_PAGES * psz);
	return (double)total / (4 * OH_PAGES);
}

/*
 * Faults on a cached file, per page touched. MADV_RANDOM does not turn
 * fault-around off: a fault maps its neighbours too, so the cost per page
 * is mostly filemap_map_pages()'s.
 */
static double oh_file_faults(int fd)
{
	uint64_t t0, total = 0;
	int rep;
	long i;

	for (rep = 0; rep < 8; rep++) {
		char *p = mmap(NULL, OH_PAGES * psz, PROT_READ, MAP_SHARED, fd, 0);

		if (p == MAP_FAILED)
			die("mmap: %s", strerror(errno));
		madvise(p, OH_PAGES * psz, MADV_RANDOM);
		t0 = now_ns();
		for (i = 0; i < OH_PAGES; i++)
			sink += p[i * psz];
		total += now_ns() - t0;
		munmap(p, OH_PAGES * psz);
	}
	return (double)total / (8 * OH_PAGES);
}

static double oh_file_reads(int fd)
{
	char *buf = malloc(psz);
	uint64_t t0, total = 0;
	int rep;
	long i;

	for (rep = 0; rep < 8; rep++) {
		t0 = now_ns();
		for (i = 0; i < OH_PAGES; i++)
			if (pread(fd, buf, psz, i * psz) != psz)
				die("pread: %s", strerror(errno));
		total += now_ns() - t0;
	}
	free(buf);
	return (double)total / (8 * OH_PAGES);
}

static int overhead(const char *label)
{
	char path[300], *page = malloc(psz);
	int fd, i;
	long p;

	snprintf(path, sizeof(path), "%s/overhead", opt.dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("cannot create %s: %s", path, strerror(errno));
	memset(page, 1, psz);
	for (p = 0; p < OH_PAGES; p++)
		if (write(fd, page, psz) != psz)
			die("write %s: %s", path, strerror(errno));
	fsync(fd);
	free(page);
	/* Warm up, then three rounds of each. */
	oh_file_reads(fd);
	for (i = 0; i < 3; i++) {
		printf("OVERHEAD kernel=%s test=anon_fault ns_per_op=%.1f\n",
		       label, oh_anon_faults());
		printf("OVERHEAD kernel=%s test=swapin_fault ns_per_op=%.1f\n",
		       label, oh_swapin_faults());
		printf("OVERHEAD kernel=%s test=file_fault ns_per_op=%.1f\n",
		       label, oh_file_faults(fd));
		printf("OVERHEAD kernel=%s test=file_read ns_per_op=%.1f\n",
		       label, oh_file_reads(fd));
	}
	close(fd);
	unlink(path);
	return 0;
}

static double oh_anon_faults(void);

/*
 * --calibrate: a fixed CPU loop (the render's own work), best of five, in
 * ns, and the first-touch anonymous fault loop of --overhead, in ns per
 * fault. run.sh runs both on the host and in the guest: the ratio of the
 * fault loops is how much slower the guest runs the kernel's own paths
 * (a switch is mostly those, see the anatomy), by which the dilated
 * storage profiles slow the disk down too; the CPU loop's ratio is
 * reported beside it (TCG runs plain user code nearly at host speed).
 */
static int calibrate(void)
{
	uint64_t best = UINT64_MAX, acc = 1;
	int rep;
	long i;

	for (rep = 0; rep < 5; rep++) {
		uint64_t t0 = now_ns(), t;

		for (i = 0; i < 20000000; i++)
			acc = mix(acc);
		t = now_ns() - t0;
		if (t < best)
			best = t;
	}
	sink += acc;
	printf("CALIBRATE loop_ns=%llu fault_ns=%.1f\n", (unsigned long long)best,
	       oh_anon_faults());
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: prepage-bench [options]\n"
		"  --apps N           app processes (%d)\n"
		"  --warmup N         unmeasured switch rounds per mode (%d)\n"
		"  --rounds N         measured switch rounds per mode (%d)\n"
		"  --trials N         repetitions of all modes, interleaved (%d)\n"
		"  --anatomy N        extra trials with task delay accounting,\n"
		"                     splitting each switch's latency (0)\n"
		"  --seed N           seed of contents and footprints (%u)\n"
		"  --footprint MODEL  calibrated (default: calibrated to ASAP's\n"
		"                     measurements, with a use phase, GC moves,\n"
		"                     a shared framework file, app touch orders)\n"
		"                     or uniform (the earlier, adversarial model)\n"
		"  --gc PCT           calibrated: heap pages the GC moves at\n"
		"                     each switch-out (%d)\n"
		"  --use-alloc N      calibrated: pages the use phase after a\n"
		"                     switch allocates (%ld)\n"
		"  --framework-pct PCT  calibrated: share of the file footprint\n"
		"                     in the shared framework file (%d)\n"
		"  --jitter PCT       calibrated: chance that two runs next in\n"
		"                     the touch order swap in a switch (%d)\n"
		"  --modes LIST       comma-separated (%s); a prepage mode\n"
		"                     may be MODE@NAME=VALUE[+NAME=VALUE]:\n"
		"                     tunables of " SYSFS " for it alone\n"
		"  --dir DIR          where the app files go (%s)\n"
		"  --work N           CPU work per touched page (%d)\n"
		"  --sequences LIST   app sequences, a round each in turn (%s)\n"
		"  --budget MIB       memory the apps get; real reclaim does the\n"
		"                     rest (default: 40%% of what they map)\n"
		"  --pageout          page background apps out explicitly\n"
		"                     (MADV_PAGEOUT, FADV_DONTNEED) instead\n"
		"  --no-memcg         run all modes in the root memory cgroup\n"
		"                     (default: a memory cgroup for each mode)\n"
		"  --no-delay-dequeue the scheduler's DELAY_DEQUEUE off in every\n"
		"                     trial (default: in anatomy trials only)\n"
		"  --overhead LABEL   fault loops only, no switches (hook cost)\n"
		"  --calibrate        time a fixed CPU loop only (storage dilation)\n"
		"  --real-apps ROOT   the apps are the real programs staged in ROOT\n"
		"                     (bench/stage-apps.sh; ROOT/apps/NAME)\n"
		"  --app-list LIST    of those, these (comma-separated; default all)\n"
		"  --model            print the footprint model's histograms over\n"
		"                     the profiling switches and exit (no kernel)\n"
		"  --set NAME=VALUE   set a tunable of " SYSFS " in the\n"
		"                     prepage modes (repeatable)\n"
		"  The scenarios (bench/README.md), calibrated model only:\n"
		"  --drift PCT        from the first measured switch on, each run\n"
		"                     of an app's footprint moves to a new place\n"
		"                     at each switch with this chance (0)\n"
		"  --unprofiled LIST  these apps (ids) are never profiled: no\n"
		"                     table is loaded or replayed for them\n"
		"  --update APP@N     before switch N of each mode (counted from\n"
		"                     0, warm-up included), app APP's files are\n"
		"                     replaced by new ones (new inodes, contents\n"
		"                     and runs); its tables are left as they are\n",
		opt.apps, opt.warmup, opt.rounds, opt.trials, opt.seed,
		opt.gc_pct, opt.use_alloc, opt.framework_pct, opt.jitter_pct,
		DEFAULT_MODES, opt.dir, opt.work, DEFAULT_SEQUENCES);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "apps", 1, NULL, 'a' }, { "warmup", 1, NULL, 'w' },
		{ "rounds", 1, NULL, 'r' }, { "trials", 1, NULL, 't' },
		{ "seed", 1, NULL, 's' }, { "modes", 1, NULL, 'm' },
		{ "dir", 1, NULL, 'd' }, { "work", 1, NULL, 'k' },
		{ "pageout", 0, NULL, 'P' }, { "no-memcg", 0, NULL, 'M' }, { "budget", 1, NULL, 'b' },
		{ "sequences", 1, NULL, 'S' }, { "help", 0, NULL, 'h' },
		{ "overhead", 1, NULL, 'O' }, { "anatomy", 1, NULL, 'A' },
		{ "calibrate", 0, NULL, 'C' }, { "set", 1, NULL, 'T' },
		{ "no-delay-dequeue", 0, NULL, 'D' },
		{ "footprint", 1, NULL, 'F' }, { "gc", 1, NULL, 'G' },
		{ "use-alloc", 1, NULL, 'U' }, { "framework-pct", 1, NULL, 'W' },
		{ "jitter", 1, NULL, 'J' }, { "model", 0, NULL, 'X' },
		{ "real-apps", 1, NULL, 'R' }, { "app-list", 1, NULL, 'L' },
		{ "drift", 1, NULL, 'd' + 256 }, { "unprofiled", 1, NULL, 'u' + 256 },
		{ "update", 1, NULL, 'v' + 256 },
		{ NULL, 0, NULL, 0 },
	};
	char *modes[16], *m, *save, *oh = NULL, seqlist[64], *app_list = NULL;
	int c, i, t, nr_modes = 0, failed = 0;
	bool model = false;

	psz = sysconf(_SC_PAGESIZE);
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'a': opt.apps = atoi(optarg); break;
		case 'w': opt.warmup = atoi(optarg); break;
		case 'r': opt.rounds = atoi(optarg); break;
		case 't': opt.trials = atoi(optarg); break;
		case 's': opt.seed = strtoul(optarg, NULL, 0); break;
		case 'm': snprintf(opt.modes, sizeof(opt.modes), "%s", optarg); break;
		case 'd': opt.dir = optarg; break;
		case 'k': opt.work = atoi(optarg); break;
		case 'P': opt.pageout = true; break;
		case 'M': opt.memcg = false; break;
		case 'D': opt.no_delay_dequeue = true; break;
		case 'b': opt.budget_mb = atol(optarg); if (opt.budget_mb < 1) usage(); break;
		case 'S': snprintf(opt.sequences, sizeof(opt.sequences), "%s", optarg); break;
		case 'O': oh = optarg; break;
		case 'A': opt.anatomy = atoi(optarg); break;
		case 'F':
			opt.footprint = name_index(footprint_names, optarg);
			if (opt.footprint < 0) {
				fprintf(stderr, "prepage-bench: unknown footprint model %s\n", optarg);
				usage();
			}
			break;
		case 'G': opt.gc_pct = atoi(optarg); break;
		case 'U': opt.use_alloc = atol(optarg); break;
		case 'W': opt.framework_pct = atoi(optarg); break;
		case 'J': opt.jitter_pct = atoi(optarg); break;
		case 'X': model = true; break;
		case 'R': real_root = optarg; break;
		case 'L': app_list = optarg; break;
		case 'd' + 256:
			opt.drift_pct = atoi(optarg);
			if (opt.drift_pct < 0 || opt.drift_pct > 100)
				usage();
			break;
		case 'u' + 256:
			for (m = strtok_r(optarg, ",", &save); m;
			     m = strtok_r(NULL, ",", &save)) {
				i = atoi(m);
				if (i < 0 || i >= MAX_APPS)
					usage();
				opt.unprofiled |= 1U << i;
			}
			break;
		case 'v' + 256:
			if (sscanf(optarg, "%d@%d", &opt.update_app,
				   &opt.update_at) != 2 || opt.update_app < 0 ||
			    opt.update_at < 0)
				usage();
			break;
		case 'C': return calibrate();
		case 'T':
			if (!setting_ok(optarg) || nr_sets == 16)
				usage();
			sets[nr_sets++] = optarg;
			break;
		default: usage();
		}
	}
	if (opt.apps < 1 || opt.apps > MAX_APPS || opt.rounds < 1 ||
	    opt.trials < 1 || opt.warmup < 0 || opt.anatomy < 0 ||
	    opt.gc_pct < 0 || opt.gc_pct > 20 || opt.use_alloc < 0 ||
	    opt.use_alloc > opt.anon_pages || opt.framework_pct < 0 ||
	    opt.framework_pct > 100 || opt.jitter_pct < 0 ||
	    opt.jitter_pct > 100)
		usage();
	for (m = strtok_r(opt.modes, ",", &save); m && nr_modes < 16;
	     m = strtok_r(NULL, ",", &save)) {
		char base[32], *tok, *save2, list[256];
		const char *settings = mode_base(m, base, sizeof(base));

		if (name_index(mode_names, base) < 0) {
			fprintf(stderr, "prepage-bench: unknown mode %s\n", m);
			usage();
		}
		if (settings && (!mode_prepage(base) || !*settings)) {
			fprintf(stderr, "prepage-bench: %s: settings are for prepage modes\n", m);
			usage();
		}
		snprintf(list, sizeof(list), "%s", settings ? settings : "");
		for (tok = strtok_r(list, "+", &save2); tok;
		     tok = strtok_r(NULL, "+", &save2))
			if (!setting_ok(tok)) {
				fprintf(stderr, "prepage-bench: %s: not NAME=VALUE: %s\n", m, tok);
				usage();
			}
		modes[nr_modes++] = m;
	}
	snprintf(seqlist, sizeof(seqlist), "%s", opt.sequences);
	for (m = strtok_r(opt.sequences, ",", &save); m && nr_sequences < 8;
	     m = strtok_r(NULL, ",", &save)) {
		sequences[nr_sequences] = name_index(sequence_names, m);
		if (sequences[nr_sequences++] < 0) {
			fprintf(stderr, "prepage-bench: unknown sequence %s\n", m);
			usage();
		}
	}
	if (!nr_modes || !nr_sequences)
		usage();
	if (app_list && !real_root)
		usage();
	for (i = 0; i < nr_sequences; i++)
		app_rounds |= sequences[i] == SEQ_ZIPF;
	for (i = 0; i < nr_modes; i++) {
		char base[32];

		mode_base(modes[i], base, sizeof(base));
		if (app_rounds && strstr(base, "-oracle"))
			die("%s: not with the zipf sequence (it needs an app's switches at known rounds)",
			    modes[i]);
		for (t = 0; t < nr_sequences; t++)
			if (!strcmp(base, "userspace-rerecord") &&
			    sequences[t] != SEQ_CYCLE &&
			    sequences[t] != SEQ_RANDOM)
				die("%s: with the sequences cycle and random only (each app once a round)",
				    modes[i]);
	}
	if ((opt.drift_pct || opt.unprofiled || opt.update_app >= 0) &&
	    (real_root || opt.footprint != FP_CALIBRATED))
		die("--drift, --unprofiled and --update are for the calibrated model");
	if (opt.unprofiled >> opt.apps ||
	    (opt.update_app >= 0 && opt.update_app >= opt.apps))
		die("--unprofiled, --update: there are %d apps", opt.apps);
	if (real_root) {
		char path[PATH_MAX];
		struct dirent *de;
		DIR *d;

		if (app_list) {
			for (m = strtok_r(app_list, ",", &save); m;
			     m = strtok_r(NULL, ",", &save)) {
				if (nr_real == MAX_APPS)
					die("--app-list: more than %d apps", MAX_APPS);
				snprintf(real_names[nr_real++], 64, "%s", m);
			}
		} else {
			snprintf(path, sizeof(path), "%s/apps", real_root);
			d = opendir(path);
			if (!d)
				die("%s: %s", path, strerror(errno));
			while ((de = readdir(d)) && nr_real < MAX_APPS)
				if (de->d_name[0] != '.')
					snprintf(real_names[nr_real++], 64, "%.63s",
						 de->d_name);
			closedir(d);
			qsort(real_names, nr_real, sizeof(real_names[0]),
			      (int (*)(const void *, const void *))strcmp);
		}
		for (i = 0; i < nr_real; i++) {
			snprintf(path, sizeof(path), "%s/apps/%s/COMMAND",
				 real_root, real_names[i]);
			if (access(path, R_OK))
				die("%s: %s", path, strerror(errno));
		}
		if (!nr_real)
			die("%s/apps: no apps", real_root);
		opt.apps = nr_real;
	}
	/*
	 * 40% of what the apps map: over its rounds the uniform model's app
	 * touches nearly all of it. The calibrated model's below.
	 */
	if (!opt.budget_mb && !real_root && opt.footprint == FP_UNIFORM)
		opt.budget_mb = opt.apps * (NR_BIG * opt.big_pages +
			(NR_OWN - NR_BIG) * opt.small_pages + opt.anon_pages) *
			psz * 4 / 10 >> 20;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (oh)
		return overhead(oh);
	if (model)
		return model_only();
	{
		pthread_t th;

		if (pipe(replay_pipe) || pipe(replay_done) ||
		    pthread_create(&th, NULL, replay_thread, NULL))
			die("cannot start the replay thread");
	}
	if (opt.anatomy)
		ts_open();
	if (real_root) {
		/*
		 * Out of memory, an app goes, not the balloon's holder; and
		 * the driver learns of it from the pipe's end, not SIGPIPE.
		 */
		write_str("/proc/self/oom_score_adj", "-1000");
		signal(SIGPIPE, SIG_IGN);
		real_mounts();
		printf("WORKLOAD real apps=");
		for (i = 0; i < nr_real; i++)
			printf("%s%s", i ? "," : "", real_names[i]);
		printf("\n");
	}
	for (i = 0; i < opt.apps && !real_root; i++) {
		apps[i].id = i;
		make_files(&apps[i], true);
		model_calibrate(&apps[i]);
		model_copy(&apps[i].base, &apps[i].model);
	}
	/*
	 * The calibrated model's app touches only its runs (and the use
	 * phase's nursery), whatever it maps: 40% of those, the framework's
	 * once (they are at the same pages for every app).
	 */
	if (!opt.budget_mb && !real_root && opt.footprint == FP_CALIBRATED) {
		long pages = opt.apps * heap_nursery();
		int k;

		for (i = 0; i < opt.apps; i++)
			for (k = 0; k < apps[i].model.nr; k++)
				if (apps[i].model.runs[k].obj != FRAMEWORK || !i)
					pages += apps[i].model.runs[k].len;
		opt.budget_mb = pages * psz * 4 / 10 >> 20;
	}
	record_profiles();
	/* After the profiles: a real app's budget comes from them. */
	printf("CONFIG apps=%d warmup=%d rounds=%d trials=%d anatomy=%d seed=%u work=%d footprint=%s gc_pct=%d use_alloc=%ld framework_pages=%ld framework_pct=%d jitter_pct=%d file_fp=%ld anon_fp=%ld big_pages=%ld small_pages=%ld anon_pages=%ld memory=%s budget_mb=%ld sequences=%s memcg=%d preempt=%s no_delay_dequeue=%d drift_pct=%d unprofiled=0x%x update_app=%d update_at=%d\n",
	       opt.apps, opt.warmup, opt.rounds, opt.trials, opt.anatomy,
	       opt.seed, opt.work, footprint_names[opt.footprint],
	       opt.gc_pct, opt.use_alloc, opt.framework_pages,
	       opt.framework_pct, opt.jitter_pct,
	       opt.file_fp, opt.anon_fp, opt.big_pages, opt.small_pages,
	       opt.anon_pages, opt.pageout ? "pageout" : "reclaim",
	       opt.pageout ? 0 : opt.budget_mb, seqlist, opt.memcg,
	       preempt_model(), opt.no_delay_dequeue, opt.drift_pct,
	       opt.unprofiled, opt.update_app, opt.update_at);
	/* Modes interleaved, the order rotated each trial. */
	for (t = 0; t < opt.trials; t++)
		for (i = 0; i < nr_modes; i++)
			failed |= run_mode(modes[(i + t) % nr_modes], t, false);
	/* The anatomy trials after the measured ones, in the same order. */
	for (t = opt.trials; t < opt.trials + opt.anatomy; t++)
		for (i = 0; i < nr_modes; i++)
			failed |= run_mode(modes[(i + t) % nr_modes], t, true);
	if (failed)
		fprintf(stderr, "prepage-bench: pages with wrong contents\n");
	return failed ? 1 : 0;
}

