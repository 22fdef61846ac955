// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rest of the machine (--noise MSEC): pages that parts of the kernel outside the scenario give
 * back now and then, slab pages emptied by RCU callbacks and shrinkers, buffers of timers and
 * daemons. The scenarios' machine is otherwise quiet: nothing frees a page unless one of their
 * tasks does (docs/sim.md, "What is simplified").
 *
 * Why it matters: under 4.3 a work item looping in the allocator holds its CPU's vmstat_update()
 * (--wq-stall, workqueue.c), and a stale remainder can make a zone read reclaimable to every
 * allocator; then nobody goes OOM, nothing is freed, the worker never gets its page and never
 * sleeps, and the remainder is never folded. A page given back by the rest of the machine is what
 * can end that on a real machine: when the worker takes it, its check completes, its pool runs
 * the update that waited, and the zones read what they hold.
 *
 * Only the frees are modelled: a pool of unmovable kernel pages taken at boot, one page given
 * back at a time, the intervals uniform in 1 us .. 2 MSEC (their mean
 * MSEC) from a stream of the seed's own. What the same parts of the kernel allocate meanwhile is
 * left out. How often a 2015 machine did this in an OOM flood is not in the sources, so the rate
 * is an option and docs/sim.md gives the results over a range of rates, not at one.
 */
#include <stdint.h>

#include "sim/model.h"

/* The pool: what the longest run (a flood's 10 s and its 600 s budget) gives back at the rate
 * asked, but at most 1/64 of the machine (at 2 GiB 611 pages at 1 s, 6,101 at 100 ms; at 32 MiB
 * 128 pages, 128 s at 1 s). When it is empty the rest of the machine has nothing more to give. */
#define NOISE_HORIZON_USEC (610 * USEC_PER_SEC)
#define NOISE_POOL_MAX_DIV 64u

/* The time to the next page given back: uniform in 1 .. 2 * the mean, from the noise's own
 * stream. */
static uint64_t noise_interval(struct sim *s)
{
	return 1 + splitmix64(&s->noise_prng) % (2 * s->cfg->noise_usec);
}

/* noise_init() - the rest of the machine and its pool, from @seed; nothing without --noise. */
void noise_init(struct sim *s, uint64_t seed)
{
	unsigned long pool;
	int i;

	s->noise = NO_TASK;
	if (!s->cfg->noise_usec)
		return;
	pool = (unsigned long)(NOISE_HORIZON_USEC / s->cfg->noise_usec + 1);
	if (pool > s->nr_pages / NOISE_POOL_MAX_DIV)
		pool = s->nr_pages / NOISE_POOL_MAX_DIV;
	s->noise_prng = seed * 0x8cb92ba72f3d8dd7ull + 0x2f3d8dd7ull;
	i = task_create(s, TK_NOISE, "rcu_sched", 0, 0);
	if (i == NO_TASK)
		return;
	s->noise = i;
	for (unsigned long k = 0; k < pool; k++) {
		int32_t pfn = boot_page(s, GFP_KERNEL);

		if (pfn == NO_PFN)
			break;
		page_make_kernel(s, pfn, i);
	}
	task_set_runnable(s, &s->tasks[i], false);
	task_wake(s, &s->tasks[i], noise_interval(s));
}

/* noise_step() - one page given back to the buddy allocator (a free like any other: it resets
 * the zone's pages_scanned under 4.3), then a sleep off the run queue until the next. */
void noise_step(struct sim *s, struct sim_task *t)
{
	if (t->pages.head == NO_PFN) {
		task_idle(s, t);
		return;
	}
	page_release(s, t->pages.head);
	s->res->noise_frees++;
	task_sleep(s, t, noise_interval(s), false);
}
