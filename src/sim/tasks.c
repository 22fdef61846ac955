// SPDX-License-Identifier: GPL-2.0-only
/* The model's tasks, each a small state machine run by events: mem_eater, writer (dd loop),
 * atomic churner, hugetlb allocator, lock holder, and the kthreads kswapd and oom_reaper. Work is
 * done in batches; a batch's CPU time is stretched by the run queue over NR_CPUS CPUs. */
#include <stdio.h>
#include <string.h>

#include "sim/model.h"

#define EATER_BATCH_PAGES  256u
#define WRITER_BATCH_PAGES 256u
#define LOCKER_BATCH_PAGES 64u
#define CHURN_PERIOD_USEC  10000u
/* balance_dirty_pages(): pauses between 1 jiffy and MAX_PAUSE (HZ/5). */
#define DIRTY_PAUSE_MIN_USEC JIFFY_USEC
#define DIRTY_PAUSE_MAX_USEC (USEC_PER_SEC / 5)
/* A failed page fault allocation is retried after one jiffy (pagefault_out_of_memory). */
#define FAULT_RETRY_USEC JIFFY_USEC

void task_set_runnable(struct sim *s, struct sim_task *t, bool runnable)
{
	if (t->runnable == runnable)
		return;
	t->runnable = runnable;
	if (runnable)
		s->nr_runnable++;
	else
		s->nr_runnable--;
}

/* CPU time of @nsec of work for one task when nr_runnable tasks share NR_CPUS CPUs (usec, >=1). */
uint64_t cpu_time(const struct sim *s, uint64_t nsec)
{
	uint64_t share = s->nr_runnable > NR_CPUS ? s->nr_runnable : NR_CPUS;
	uint64_t usec = nsec * share / NR_CPUS / 1000;

	s->res->cpu_work_nsec += nsec;
	return usec ? usec : 1;
}

int task_create(struct sim *s, enum task_kind kind, const char *comm, unsigned long target_pages,
		uint64_t start_usec)
{
	struct sim_task *t;
	int i = s->nr_tasks;

	if (i >= (int)SIM_MAX_TASKS)
		return NO_TASK;
	s->nr_tasks++;
	t = &s->tasks[i];
	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->pid = kind == TK_KSWAPD    ? 30
		 : kind == TK_REAPER  ? 31
		 : kind == TK_KWORKER ? 32
		 : kind == TK_NOISE   ? 33
				      : 1000 + i;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	t->start_usec = start_usec;
	plist_init(&t->pages);
	t->target_pages = target_pages;
	t->file = -1;
	if (kind == TK_KSWAPD || kind == TK_REAPER) {
		t->run = TR_IDLE;
	} else {
		t->run = TR_RUNNING;
		task_set_runnable(s, t, true);
		t->gen++;
		event_push(s, start_usec, EV_TASK, i, t->gen);
	}
	return i;
}

void task_wake(struct sim *s, struct sim_task *t, uint64_t delay_usec)
{
	t->then_sleep_usec = 0; /* a wake-up (a kill's) ends a sleep to come as well */
	t->gen++;
	t->run = TR_RUNNING;
	event_push(s, s->now + delay_usec, EV_TASK, (int)(t - s->tasks), t->gen);
}

/* Runs @t again after @delay_usec; @cpu says whether it spends them on a CPU. */
void task_sleep(struct sim *s, struct sim_task *t, uint64_t delay_usec, bool cpu)
{
	task_set_runnable(s, t, cpu);
	task_wake(s, t, delay_usec ? delay_usec : 1);
}

/* @t runs on a CPU for @run_usec (it counts in the run queue), then sleeps @sleep_usec (it does
 * not), then runs its next step: a reclaim round's CPU time, then its throttle or its jiffy. */
void task_run_sleep(struct sim *s, struct sim_task *t, uint64_t run_usec, uint64_t sleep_usec)
{
	if (!sleep_usec || !run_usec) {
		task_sleep(s, t, run_usec + sleep_usec, !sleep_usec);
		return;
	}
	task_sleep(s, t, run_usec, true);
	t->then_sleep_usec = sleep_usec;
}

/* After an allocation that returned ALLOC_WAIT with @delay_usec: @run_usec of the task's own
 * work and the round's CPU time on a CPU, then what the round slept. */
void task_alloc_wait(struct sim *s, struct sim_task *t, uint64_t run_usec, uint64_t delay_usec)
{
	uint64_t slept = t->alloc.sleep_usec < delay_usec ? t->alloc.sleep_usec : delay_usec;

	task_run_sleep(s, t, run_usec + delay_usec - slept, slept);
}

/* The wait after an allocation batch: @run_usec of work on a CPU, then the allocation's wait:
 * a slow path round's (above), a failed fault's retry (asleep), a page's last round (on a CPU). */
static void batch_wait(struct sim *s, struct sim_task *t, uint64_t run_usec, uint64_t delay_usec,
		       enum alloc_status st)
{
	if (st == ALLOC_WAIT)
		task_alloc_wait(s, t, run_usec, delay_usec);
	else if (st == ALLOC_FAIL)
		task_sleep(s, t, run_usec + FAULT_RETRY_USEC, false);
	else
		task_sleep(s, t, run_usec + delay_usec, true);
}

void task_finish(struct sim *s, struct sim_task *t)
{
	if (t->counts && !t->finished) {
		t->finished = true;
		s->pending--;
		if (s->pending)
			return;
		if (s->phase_hook)
			event_push(s, s->now + s->settle_usec, EV_PHASE, NO_TASK, 0);
		else if (!s->stop_at)
			s->stop_at = s->now + s->settle_usec;
	}
}

void task_idle(struct sim *s, struct sim_task *t)
{
	task_set_runnable(s, t, false);
	t->run = TR_IDLE;
	t->gen++;
}

/* The lock a victim needs (the stuck-victim scenario): one holder, one waiter. */
static bool lock_try(struct sim *s, struct sim_task *t)
{
	if (s->lock_holder == NO_TASK) {
		s->lock_holder = (int)(t - s->tasks);
		t->holds_lock = true;
		return true;
	}
	s->lock_waiter = (int)(t - s->tasks);
	return false;
}

void lock_release(struct sim *s, struct sim_task *t)
{
	t->holds_lock = false;
	s->lock_holder = NO_TASK;
	if (s->lock_waiter != NO_TASK) {
		struct sim_task *w = &s->tasks[s->lock_waiter];

		s->lock_waiter = NO_TASK;
		if (w->run == TR_BLOCKED)
			task_wake(s, w, 0);
	}
}

/* SIGKILL noticed: exit takes time in proportion to the memory to unmap. */
static void task_begin_exit(struct sim *s, struct sim_task *t)
{
	uint64_t cost = EXIT_BASE_USEC + t->pages.count * FREE_PAGE_NSEC / 1000;

	if (t->alloc.active)
		alloc_end(s, t);
	t->run = TR_EXITING;
	task_set_runnable(s, t, true);
	t->gen++;
	event_push(s, s->now + cost, EV_TASK, (int)(t - s->tasks), t->gen);
}

/*
 * Allocates up to @batch pages of @order for @t, giving each to @use. Returns the pages
 * obtained; *ret_delay is when to run again (CPU time of the batch, or the slow path's wait),
 * *ret_status the last allocation's status.
 */
static unsigned long alloc_batch(struct sim *s, struct sim_task *t, gfp_t gfp, unsigned long batch,
				 void (*use)(struct sim *, struct sim_task *, int32_t),
				 uint64_t *ret_delay, enum alloc_status *ret_status)
{
	unsigned long n = 0;
	uint64_t delay = 0;
	enum alloc_status st = ALLOC_OK;

	while (n < batch) {
		int32_t pfn;

		st = alloc_pages_step(s, t, gfp, 0, &pfn, &delay);
		if (st != ALLOC_OK)
			break;
		use(s, t, pfn);
		n++;
		if (delay)
			break; /* the page came out of the slow path: account its time */
	}
	*ret_delay = delay;
	*ret_status = st;
	return n;
}

static void use_anon(struct sim *s, struct sim_task *t, int32_t pfn)
{
	page_make_anon(s, pfn, (int)(t - s->tasks));
}

static void use_kernel(struct sim *s, struct sim_task *t, int32_t pfn)
{
	page_make_kernel(s, pfn, (int)(t - s->tasks));
}

static void use_file(struct sim *s, struct sim_task *t, int32_t pfn)
{
	page_make_file_dirty(s, pfn, t->file);
}

/* mem_eater: populate the mapping, then (stuck-victim) take the lock, then wait for a signal. */
static void eater_step(struct sim *s, struct sim_task *t)
{
	unsigned long batch, n;
	uint64_t delay;
	enum alloc_status st;

	if (t->done_pages >= t->target_pages) {
		if (t->wants_lock && !t->holds_lock) {
			if (!lock_try(s, t)) {
				task_set_runnable(s, t, false);
				t->run = TR_BLOCKED;
				return;
			}
			lock_release(s, t);
			t->mmap_write = false;
		}
		task_finish(s, t);
		task_idle(s, t);
		return;
	}
	batch = EATER_BATCH_PAGES / 2 + sim_rand_below(s, EATER_BATCH_PAGES);
	if (batch > t->target_pages - t->done_pages)
		batch = t->target_pages - t->done_pages;
	n = alloc_batch(s, t, GFP_HIGHUSER_MOVABLE, batch, use_anon, &delay, &st);
	t->done_pages += n;
	batch_wait(s, t, cpu_time(s, n * FAULT_PAGE_NSEC), delay, st);
}

/* writer: dd with 4 MiB blocks into a file of target_pages, rm, start over; dirty throttling. */
static void writer_step(struct sim *s, struct sim_task *t)
{
	unsigned long bg, thresh, dirty, n;
	uint64_t delay;
	enum alloc_status st;

	if (t->stop_usec && s->now >= t->stop_usec) {
		task_idle(s, t);
		return;
	}
	dirty_limits(s, &bg, &thresh);
	dirty = s->bdev.dirty.count + s->bdev.writeback.count;
	if (dirty > thresh) {
		uint64_t bw = s->bdev.bw_pages_per_sec ? s->bdev.bw_pages_per_sec : 1;
		uint64_t pause = (dirty - thresh) * USEC_PER_SEC / bw;

		if (pause < DIRTY_PAUSE_MIN_USEC)
			pause = DIRTY_PAUSE_MIN_USEC;
		if (pause > DIRTY_PAUSE_MAX_USEC)
			pause = DIRTY_PAUSE_MAX_USEC;
		bdev_kick(s);
		task_sleep(s, t, pause, false);
		return;
	}
	n = alloc_batch(s, t, GFP_HIGHUSER_MOVABLE, WRITER_BATCH_PAGES, use_file, &delay, &st);
	t->done_pages += n;
	if (t->done_pages >= t->target_pages) {
		file_remove(s, t->file);
		t->done_pages = 0;
	}
	bdev_kick(s);
	batch_wait(s, t, cpu_time(s, n * WRITE_PAGE_NSEC), delay, st);
}

/* GFP_ATOMIC alloc and free, every CHURN_PERIOD_USEC: each free resets pages_scanned. */
static void churner_step(struct sim *s, struct sim_task *t)
{
	int32_t pfn;
	uint64_t delay;

	if (alloc_pages_step(s, t, GFP_ATOMIC, 0, &pfn, &delay) == ALLOC_OK) {
		page_make_kernel(s, pfn, (int)(t - s->tasks));
		page_release(s, pfn);
		t->done_pages++;
	}
	task_sleep(s, t, CHURN_PERIOD_USEC + jitter_usec(s), false);
}

/* The lock holder: allocates kernel memory under the lock, then releases it. */
static void locker_step(struct sim *s, struct sim_task *t)
{
	unsigned long n;
	uint64_t delay;
	enum alloc_status st;

	if (t->done_pages >= t->target_pages) {
		if (!s->res->alloc_done_usec)
			s->res->alloc_done_usec = s->now;
		if (t->holds_lock)
			lock_release(s, t);
		task_finish(s, t);
		task_idle(s, t);
		return;
	}
	n = alloc_batch(s, t, GFP_KERNEL, LOCKER_BATCH_PAGES, use_kernel, &delay, &st);
	t->done_pages += n;
	batch_wait(s, t, cpu_time(s, n * FAULT_PAGE_NSEC), delay, st);
}

/* alloc_fresh_huge_page() until the pool has target_pages or an allocation fails. */
static void hugetlb_step(struct sim *s, struct sim_task *t)
{
	const gfp_t gfp = GFP_HIGHUSER_MOVABLE & ~__GFP_MOVABLE;
	int32_t pfn;
	uint64_t delay;
	enum alloc_status st;

	if (t->done_pages >= t->target_pages) {
		task_finish(s, t);
		task_idle(s, t);
		return;
	}
	st = alloc_pages_step(s, t, gfp | __GFP_REPEAT | __GFP_THISNODE, PAGEBLOCK_ORDER, &pfn,
			      &delay);
	if (st == ALLOC_FAIL) {
		task_finish(s, t);
		task_idle(s, t);
		return;
	}
	if (st == ALLOC_OK) {
		s->pages[pfn].state = PS_HUGE;
		s->pages[pfn].order = PAGEBLOCK_ORDER;
		for (int32_t q = pfn + 1; q < pfn + (int32_t)PAGEBLOCK_PAGES; q++)
			s->pages[q].state = PS_HUGE_TAIL;
		la_add_tail(s, &s->huge_pool, pfn);
		page_zone(s, pfn)->nr_huge += PAGEBLOCK_PAGES;
		t->done_pages++;
	}
	batch_wait(s, t, cpu_time(s, PAGEBLOCK_PAGES * 200ull), delay, st);
}

void task_step(struct sim *s, struct sim_task *t)
{
	uint64_t d;

	/* Its run on a CPU is over: now the sleep, unless SIGKILL came during the run (the round's
	 * own throttle came before its OOM call, and the jiffy after a kill is killable). */
	if (t->then_sleep_usec && !t->killed) {
		task_sleep(s, t, t->then_sleep_usec, false);
		return;
	}
	t->then_sleep_usec = 0;
	if (t->run == TR_EXITING) {
		task_set_runnable(s, t, false);
		task_exit_mm(s, t);
		task_finish(s, t);
		return;
	}
	if (t->killed && t->kind != TK_KSWAPD && t->kind != TK_REAPER) {
		task_begin_exit(s, t);
		return;
	}
	switch (t->kind) {
	case TK_EATER:
		eater_step(s, t);
		break;
	case TK_WRITER:
		writer_step(s, t);
		break;
	case TK_CHURNER:
		churner_step(s, t);
		break;
	case TK_LOCKER:
		locker_step(s, t);
		break;
	case TK_HUGETLB:
		hugetlb_step(s, t);
		break;
	case TK_FORKER:
		forker_step(s, t);
		break;
	case TK_KWORKER:
		kworker_step(s, t);
		break;
	case TK_NOISE:
		noise_step(s, t);
		break;
	case TK_KSWAPD:
		d = kswapd_step(s, t);
		if (d)
			task_sleep(s, t, d, true);
		else
			task_idle(s, t);
		break;
	case TK_REAPER:
		d = oom_reaper_step(s, t);
		if (d)
			task_sleep(s, t, d, false);
		else
			task_idle(s, t);
		break;
	default:
		break;
	}
}
