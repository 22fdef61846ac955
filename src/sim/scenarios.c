// SPDX-License-Identifier: GPL-2.0-only
/* The scenarios, named after the seeds, and the run loop: build the machine, start the tasks,
 * pop events until the work is done or the virtual-time budget is spent, and say how it ended. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/model.h"

struct scenario_desc {
	const char *name;
	const char *help;
};

static const struct scenario_desc scenarios[NR_SIM_SCENARIOS] = {
    [SIM_FLOOD] = {"flood",
		   "2 writers for 10 s, then 100 mem_eaters of 80 MiB (cover letter, test 1)"},
    [SIM_FIT] = {"fit", "2 writers, then 10 mem_eaters of MemFree/10 - margin: smallest margin "
			"without OOM over 3 seeds (test 2)"},
    [SIM_HUGEPAGES] = {"hugepages", "10 mem_eaters of MemTotal/10, one killed, then order-9 "
				    "__GFP_REPEAT allocations; 20 attempts (test 3)"},
    [SIM_CHURN_LIVELOCK] = {"churn-livelock", "a GFP_ATOMIC alloc/free loop keeps a stalled "
					      "allocation retrying (cover letter)"},
    [SIM_STUCK_VICTIM] = {"stuck-victim", "the victim waits on a lock held by a task that "
					  "allocates (the reaper's case)"},
    [SIM_STUCK_VICTIM_MMAP] = {"stuck-victim-mmap", "the same, the victim holding mmap_sem "
						    "for write: the reaper gives up"},
    [SIM_FRAG] = {"frag", "order-2/3 kernel allocations (fork) while eaters fill memory whose page "
			  "cache is pinned by scattered slab pages: everything fits"},
};

static const char *const outcome_names[NR_SIM_OUTCOMES] = {
    [SIM_OUT_COMPLETED] = "completed",
    [SIM_OUT_LIVELOCK] = "livelock",
    [SIM_OUT_STUCK] = "stuck",
    [SIM_OUT_PANIC] = "panic",
};

const char *sim_scenario_name(enum sim_scenario sc)
{
	return (unsigned int)sc < NR_SIM_SCENARIOS ? scenarios[sc].name : NULL;
}

const char *sim_scenario_help(enum sim_scenario sc)
{
	return (unsigned int)sc < NR_SIM_SCENARIOS ? scenarios[sc].help : NULL;
}

const char *sim_outcome_name(enum sim_outcome o)
{
	return (unsigned int)o < NR_SIM_OUTCOMES ? outcome_names[o] : NULL;
}

int sim_scenario_parse(const char *name, enum sim_scenario *ret_sc)
{
	for (int i = 0; i < NR_SIM_SCENARIOS; i++) {
		if (name && !strcmp(name, scenarios[i].name)) {
			*ret_sc = (enum sim_scenario)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* The cover letter's device: about 200 MiB/s at 2 GiB, scaled with memory so that a smaller
 * machine keeps the same time constants. */
#define BDEV_PAGES_PER_SEC_2G 51200ull
#define PAGES_2G              524288ull
#define FLOOD_START_USEC      (10 * USEC_PER_SEC)
#define DEBUG_CHECK_ALL_PAGES 16384ul

/* Running binaries and libraries: file pages mapped and used all the time (boot). */
static void prefill_mapped(struct sim *s, unsigned long pages)
{
	int f = s->nr_files++;

	for (unsigned long i = 0; i < pages; i++) {
		int32_t pfn = boot_page(s, GFP_HIGHUSER_MOVABLE);

		if (pfn == NO_PFN)
			break;
		page_make_file_mapped(s, pfn, f);
	}
}

int machine_init(struct sim *s, const struct sim_config *cfg, struct sim_result *res, uint64_t seed,
		 bool stalled_device)
{
	unsigned long nr_pages = (unsigned long)cfg->mem_mib * PAGES_PER_MIB;
	uint64_t bw = BDEV_PAGES_PER_SEC_2G * nr_pages / PAGES_2G;
	int err;

	memset(s, 0, sizeof(*s));
	s->cfg = cfg;
	s->res = res;
	s->prng = seed * 0x2545f4914f6cdd1dull + 0x1234567ull;
	err = zones_init(s, nr_pages);
	if (err)
		return err;
	err = events_init(s);
	if (err) {
		zones_free(s);
		return err;
	}
	bdev_init(s, stalled_device ? 0 : (bw ? bw : 1));
	s->dirty_ratio_pct = 20;
	s->dirty_bg_ratio_pct = 10;
	s->lock_holder = s->lock_waiter = NO_TASK;
	s->oom_victim = NO_TASK;
	s->drift_prng = seed * 0x9e3779b97f4a7c15ull + 0x7f4a7c15ull;
	s->vmstat_off = cfg->rule == RETRY_RULE_MAINLINE;
	vmstat_init(s);
	s->kswapd = s->reaper = s->first_victim = s->kworker = s->noise = NO_TASK;
	plist_init(&s->huge_pool);
	for (unsigned int f = 0; f < SIM_MAX_FILES; f++)
		plist_init(&s->files[f].pages);
	s->kswapd = task_create(s, TK_KSWAPD, "kswapd0", 0, 0);
	if (cfg->reaper)
		s->reaper = task_create(s, TK_REAPER, "oom_reaper", 0, 0);
	s->reaper_delay_usec = cfg->rule == RETRY_RULE_MAINLINE ? OOM_REAPER_DELAY_USEC : 0;
	prefill_mapped(s, nr_pages / 128);
	noise_init(s, seed);
	kworker_init(s, seed);
	s->budget_usec = 600 * USEC_PER_SEC;
	s->sample_usec = 100 * USEC_PER_MSEC;
	return 0;
}

void machine_free(struct sim *s)
{
	events_free(s);
	zones_free(s);
}

static int add_task(struct sim *s, enum task_kind kind, const char *comm, unsigned long pages,
		    uint64_t start_usec, bool counts)
{
	int i = task_create(s, kind, comm, pages, start_usec);

	if (i != NO_TASK && counts) {
		s->tasks[i].counts = true;
		s->pending++;
	}
	return i;
}

static void add_writers(struct sim *s, unsigned int nr)
{
	for (unsigned int w = 0; w < nr && s->nr_files < (int)SIM_MAX_FILES; w++) {
		int i = add_task(s, TK_WRITER, "dd", s->nr_pages / 2, jitter_usec(s), false);

		s->tasks[i].file = s->nr_files;
		plist_init(&s->files[s->nr_files].pages);
		s->nr_files++;
	}
}

static void setup_flood(struct sim *s)
{
	unsigned long eater_pages = s->nr_pages * 80 / 2048;

	add_writers(s, 2);
	s->flood_start_usec = FLOOD_START_USEC;
	for (int e = 0; e < 100; e++)
		add_task(s, TK_EATER, "mem_eater", eater_pages,
			 FLOOD_START_USEC + sim_rand_below(s, 50 * USEC_PER_MSEC), true);
	s->budget_usec = FLOOD_START_USEC + 600 * USEC_PER_SEC;
}

static void setup_fit(struct sim *s, unsigned long margin_kib)
{
	unsigned long memfree = total_free_pages(s);
	unsigned long margin_pages = margin_kib / PAGE_KIB;
	unsigned long eater_pages = memfree / 10 > margin_pages ? memfree / 10 - margin_pages : 0;

	add_writers(s, 2);
	s->flood_start_usec = FLOOD_START_USEC;
	for (int e = 0; e < 10; e++)
		add_task(s, TK_EATER, "mem_eater", eater_pages,
			 FLOOD_START_USEC + sim_rand_below(s, 50 * USEC_PER_MSEC), true);
	s->settle_usec = 2 * USEC_PER_SEC;
	s->stop_on_kill = true;
	s->budget_usec = FLOOD_START_USEC + 120 * USEC_PER_SEC;
}

/* hugepages, second phase: echo N > nr_hugepages with N what the free memory could hold. */
static void hugepages_phase(struct sim *s)
{
	unsigned long want = total_free_pages(s) / PAGEBLOCK_PAGES;

	s->phase_hook = NULL;
	s->settle_usec = 0;
	add_task(s, TK_HUGETLB, "hugetlb", want, s->now, true);
}

/* Clean page cache at boot (binaries, libraries, logs): what reclaim can always find. */
static void prefill_clean_cache(struct sim *s, unsigned long pages)
{
	int f = s->nr_files++;

	for (unsigned long i = 0; i < pages; i++) {
		int32_t pfn = boot_page(s, GFP_HIGHUSER_MOVABLE);

		if (pfn == NO_PFN)
			break;
		page_make_file_dirty(s, pfn, f);
		page_file_start_writeback(s, pfn);
		page_file_end_writeback(s, pfn);
	}
}

static void setup_hugepages(struct sim *s)
{
	unsigned long eater_pages = total_managed_pages(s) / 10;

	prefill_clean_cache(s, s->nr_pages / 20);
	/* A machine is never quiet: kernel threads allocate and free a page now and then. */
	add_task(s, TK_CHURNER, "kworker", 0, 0, false);
	for (int e = 0; e < 10; e++)
		add_task(s, TK_EATER, "mem_eater", eater_pages,
			 sim_rand_below(s, 50 * USEC_PER_MSEC), true);
	s->phase_hook = hugepages_phase;
	s->settle_usec = 2 * USEC_PER_SEC;
	s->budget_usec = 20 * USEC_PER_SEC;
}

/* Dirty page cache of a file on a device that never completes a write (a dead NFS server). */
static void setup_churn(struct sim *s)
{
	unsigned long dirty = s->nr_pages / 8;
	int f = s->nr_files++;

	plist_init(&s->files[f].pages);
	for (unsigned long i = 0; i < dirty; i++) {
		int32_t pfn = boot_page(s, GFP_HIGHUSER_MOVABLE);

		if (pfn == NO_PFN)
			break;
		page_make_file_dirty(s, pfn, f);
	}
	wakeup_flusher(s, dirty);
	add_task(s, TK_CHURNER, "atomic_churn", 0, 0, false);
	add_task(s, TK_EATER, "mem_eater", s->nr_pages, USEC_PER_MSEC, true);
	s->budget_usec = 60 * USEC_PER_SEC;
}

static void setup_stuck(struct sim *s, bool mmap_write)
{
	int a = add_task(s, TK_EATER, "victim", s->nr_pages * 45 / 100, 0, true);
	int l;

	s->tasks[a].wants_lock = true;
	s->tasks[a].mmap_write = mmap_write;
	add_task(s, TK_EATER, "mem_eater", s->nr_pages * 25 / 100, jitter_usec(s), true);
	l = add_task(s, TK_LOCKER, "lock_holder", s->nr_pages * 40 / 100, USEC_PER_SEC, true);
	s->tasks[l].holds_lock = true;
	s->lock_holder = l;
	s->budget_usec = 10 * USEC_PER_SEC;
}

static void csv_sample(struct sim *s)
{
	unsigned long reclaimable = 0, stalled = 0;
	int loops = 0;

	for (int i = 0; i < MAX_NR_ZONES; i++)
		reclaimable += s->zones[i].snap.reclaimable_pages;
	for (int i = 0; i < s->nr_tasks; i++) {
		const struct alloc_state *a = &s->tasks[i].alloc;

		if (!a->active || s->tasks[i].run == TR_DEAD)
			continue;
		stalled++;
		if (a->rs.no_progress_loops > loops)
			loops = a->rs.no_progress_loops;
	}
	fprintf(s->cfg->csv, "%.3f,%lu,%lu,%lu,%lu,%d,%lu,%lu,%lu\n", (double)s->now / USEC_PER_SEC,
		total_free_pages(s), reclaimable, s->bdev.dirty.count, s->bdev.writeback.count,
		loops, s->res->oom_calls, s->res->oom_kills, stalled);
}

/* The budget is spent: an allocation still in the slow path is a livelock, or, when a victim
 * the OOM killer chose never exited, a stuck machine. */
static void budget_outcome(struct sim *s)
{
	const struct sim_task *worst = NULL;
	bool victim_alive = false;

	for (int i = 0; i < s->nr_tasks; i++) {
		const struct sim_task *t = &s->tasks[i];

		if (t->killed && t->run != TR_DEAD)
			victim_alive = true;

		if (t->alloc.active && t->run != TR_DEAD &&
		    (!worst || t->alloc.start_usec < worst->alloc.start_usec))
			worst = t;
	}
	if (worst) {
		uint64_t stall = s->now - worst->alloc.start_usec;

		s->res->outcome = victim_alive ? SIM_OUT_STUCK : SIM_OUT_LIVELOCK;
		if (stall > s->res->max_stall_usec) {
			s->res->max_stall_usec = stall;
			s->res->stalled_rounds = worst->alloc.rounds;
		}
	} else if (s->pending) {
		s->res->outcome = SIM_OUT_STUCK;
	}
}

void machine_loop(struct sim *s)
{
	struct sim_event ev;
#ifdef OOMGUARD_DEBUG
	uint64_t checked_events = UINT64_MAX;
#endif

	if (s->cfg->csv)
		event_push(s, 0, EV_SAMPLE, NO_TASK, 0);
	while (!s->stop) {
		if (!event_pop(s, &ev)) {
			budget_outcome(s); /* nothing left to run: whoever waits, waits forever */
			break;
		}
		if (s->stop_at && ev.when > s->stop_at) {
			s->now = s->stop_at;
			break;
		}
		if (ev.when > s->budget_usec) {
			s->now = s->budget_usec;
			budget_outcome(s);
			break;
		}
		s->now = ev.when;
		vmstat_pick_cpu(s, &ev);
		switch (ev.kind) {
		case EV_TASK:
			if (ev.gen != s->tasks[ev.task].gen || s->tasks[ev.task].run == TR_DEAD)
				continue;
			task_step(s, &s->tasks[ev.task]);
			break;
		case EV_WB_DONE:
			bdev_wb_done(s);
			break;
		case EV_SAMPLE:
			csv_sample(s);
			event_push(s, s->now + s->sample_usec, EV_SAMPLE, NO_TASK, 0);
			continue;
		case EV_PHASE:
			if (s->phase_hook)
				s->phase_hook(s);
			break;
		case EV_OOM_KILL:
			oom_kill_deferred(s);
			break;
		default:
			break;
		}
		s->steps++;
#ifdef OOMGUARD_DEBUG
		/* Every step that moved a page, at the sizes tests use; every 64th on big
		 * machines. A step that moved no page cannot have broken a page invariant. */
		if (s->res->page_events != checked_events &&
		    (s->nr_pages <= DEBUG_CHECK_ALL_PAGES || !(s->steps % 64))) {
			sim_check(s);
			checked_events = s->res->page_events;
		}
#endif
	}
	s->res->end_usec = s->now;
}

/* One machine from boot to the end of its scenario. */
static int machine_run(const struct sim_config *cfg, uint64_t seed, unsigned long margin_kib,
		       struct sim_result *res)
{
	struct sim *s = malloc(sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	err = machine_init(s, cfg, res, seed, cfg->scenario == SIM_CHURN_LIVELOCK);
	if (err) {
		free(s);
		return err;
	}
	switch (cfg->scenario) {
	case SIM_FLOOD:
		setup_flood(s);
		break;
	case SIM_FIT:
		setup_fit(s, margin_kib);
		break;
	case SIM_HUGEPAGES:
		setup_hugepages(s);
		break;
	case SIM_CHURN_LIVELOCK:
		setup_churn(s);
		break;
	case SIM_STUCK_VICTIM:
	case SIM_STUCK_VICTIM_MMAP:
		setup_stuck(s, cfg->scenario == SIM_STUCK_VICTIM_MMAP);
		break;
	case SIM_FRAG:
		setup_frag(s);
		break;
	default:
		break;
	}
	machine_loop(s);
	kworker_hold(s, false); /* a hold still on at the end counts */
	if (s->flood_start_usec) {
		if (res->first_kill_usec)
			res->first_kill_usec -= s->flood_start_usec;
		if (res->last_kill_usec)
			res->last_kill_usec -= s->flood_start_usec;
	}
	for (int i = 0; i < s->nr_tasks; i++) {
		if (s->tasks[i].kind == TK_HUGETLB) {
			res->huge_requested = (unsigned int)s->tasks[i].target_pages;
			res->huge_obtained = (unsigned int)s->tasks[i].done_pages;
		}
	}
	machine_free(s);
	free(s);
	return 0;
}

static void result_init(const struct sim_config *cfg, struct sim_result *res)
{
	memset(res, 0, sizeof(*res));
	res->scenario = cfg->scenario;
	res->rule = cfg->rule;
	res->seed = cfg->seed;
	res->mem_mib = cfg->mem_mib;
	res->reaper = cfg->reaper;
	res->wq_stall = cfg->wq_stall;
	res->noise_usec = cfg->noise_usec;
	res->outcome = SIM_OUT_COMPLETED;
}

/* Adds one run's counters to the scenario's total. */
static void result_add(struct sim_result *sum, const struct sim_result *r)
{
	sum->oom_calls += r->oom_calls;
	sum->oom_kills += r->oom_kills;
	sum->oom_waits += r->oom_waits;
	sum->premature_kills += r->premature_kills;
	sum->reclaimable_kills += r->reclaimable_kills;
	sum->alloc_failures += r->alloc_failures;
	sum->reaped_pages += r->reaped_pages;
	sum->reaper_successes += r->reaper_successes;
	sum->reaper_giveups += r->reaper_giveups;
	sum->page_events += r->page_events;
	sum->cpu_work_nsec += r->cpu_work_nsec;
	sum->oom_reports += r->oom_reports;
	sum->oom_lock_contended += r->oom_lock_contended;
	sum->compaction_ready_rounds += r->compaction_ready_rounds;
	sum->compact_retries += r->compact_retries;
	sum->wq_holds += r->wq_holds;
	sum->noise_frees += r->noise_frees;
	if (r->wq_hold_max_usec > sum->wq_hold_max_usec)
		sum->wq_hold_max_usec = r->wq_hold_max_usec;
	sum->end_usec += r->end_usec;
	if (r->max_stall_usec > sum->max_stall_usec) {
		sum->max_stall_usec = r->max_stall_usec;
		sum->stalled_rounds = r->stalled_rounds;
	}
}

#define FIT_SEEDS    3u
#define FIT_STEP_KIB 256ul

/* Passes when no seed of three gets an OOM kill with @margin_kib per eater. */
static int fit_passes(const struct sim_config *cfg, unsigned long margin_kib,
		      struct sim_result *sum, bool *ret_pass)
{
	*ret_pass = true;
	for (unsigned int k = 0; k < FIT_SEEDS; k++) {
		struct sim_result r;
		int err;

		result_init(cfg, &r);
		err = machine_run(cfg, cfg->seed + k, margin_kib, &r);
		if (err)
			return err;
		result_add(sum, &r);
		if (r.oom_kills) {
			*ret_pass = false;
			break;
		}
	}
	return 0;
}

/*
 * The smallest margin (in FIT_STEP_KIB steps) that passes, by bisection between 0 and a sixteenth
 * of memory: the model's outcome is taken to be monotone in the margin.
 */
static int run_fit(const struct sim_config *cfg, struct sim_result *res)
{
	struct sim_config c = *cfg;
	unsigned long lo = 0, hi = (unsigned long)cfg->mem_mib * 1024 / 16 / FIT_STEP_KIB;
	bool pass;
	int err;

	c.csv = NULL;
	err = fit_passes(&c, 0, res, &pass);
	if (err || pass) {
		res->fit_margin_kib = 0;
		return err;
	}
	while (hi - lo > 1) {
		unsigned long mid = (lo + hi) / 2;

		err = fit_passes(&c, mid * FIT_STEP_KIB, res, &pass);
		if (err)
			return err;
		if (pass)
			hi = mid;
		else
			lo = mid;
	}
	res->fit_margin_kib = hi * FIT_STEP_KIB;
	return 0;
}

static int run_hugepages(const struct sim_config *cfg, struct sim_result *res)
{
	struct sim_config c = *cfg;

	for (unsigned int a = 0; a < SIM_HUGE_ATTEMPTS; a++) {
		struct sim_result r;
		unsigned long got;
		int err;

		result_init(cfg, &r);
		err = machine_run(&c, cfg->seed * 1000 + a, 0, &r);
		if (err)
			return err;
		c.csv = NULL;
		got = r.huge_obtained;
		result_add(res, &r);
		if (r.outcome != SIM_OUT_COMPLETED) {
			res->outcome = r.outcome;
			res->budget_attempts++;
		}
		res->huge_hist[got < SIM_HUGE_MAX ? got : SIM_HUGE_MAX - 1]++;
		if (r.huge_requested > res->huge_requested)
			res->huge_requested = r.huge_requested;
	}
	return 0;
}

int sim_run(const struct sim_config *cfg, struct sim_result *ret_result)
{
	result_init(cfg, ret_result);
	if (cfg->csv)
		sim_csv_header(cfg->csv);
	switch (cfg->scenario) {
	case SIM_FIT:
		return run_fit(cfg, ret_result);
	case SIM_HUGEPAGES:
		return run_hugepages(cfg, ret_result);
	default:
		return machine_run(cfg, cfg->seed, 0, ret_result);
	}
}
