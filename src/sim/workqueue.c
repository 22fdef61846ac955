// SPDX-License-Identifier: GPL-2.0-only
/*
 * A work item that allocates in the flood, and what its loop holds up: the disk events poll of
 * the machine's CD-ROM drive (disk_events_workfn(), block/genhd.c), the work item found looping in
 * the allocator in the reports behind 373ccbe5927034b5 ("mm, vmstat: allow WQ concurrency to
 * discover memory reclaim doesn't make any progress", 4.4).
 *
 * What the model takes from the sources:
 * - The poll is a delayed work on system_freezable_power_efficient_wq, a per-CPU workqueue (the
 *   power-efficient ones are unbound only with wq_power_efficient set), requeued after each check
 *   by disk_check_events() with the poll interval: block.events_dfl_poll_msecs, which udev's
 *   60-block.rules sets from 0 to 2000 ms. The work is queued from the CPU it runs on, so it
 *   stays on one CPU's worker pool; which CPU is the boot's, here the seed's.
 * - Each check sends a SCSI command (sr_check_events(), scsi_execute_req()) whose buffer
 *   blk_rq_map_kern() bounces through a page from bio_copy_kern(): an order-0 allocation with
 *   __GFP_WAIT alone, GFP_NOIO; the page is freed when the command completes.
 * - A GFP_NOIO request never invokes the OOM killer (__alloc_pages_may_oom(): "The OOM killer does
 *   not compensate for IO-less reclaim", *did_some_progress = 1) and loops in the slow path until
 *   it gets a page. Under 4.3 a retry sleeps only in wait_iff_congested() when a congested zone
 *   waits on a congested device, otherwise cond_resched(); a fake progress from
 *   zone_reclaimable() keeps it in that loop without reaching the OOM path (where a lost
 *   oom_lock trylock would sleep a jiffy).
 * - A worker that does not sleep keeps its pool's nr_running at 1: concurrency management
 *   (wq_worker_sleeping()) starts another worker only when the running one sleeps, and the
 *   rescuer of a WQ_MEM_RECLAIM workqueue runs only when a new worker cannot be created. So the
 *   work items queued behind it on that CPU wait, vmstat_update() among them (4.3 queues it with
 *   schedule_delayed_work_on() on system_wq, the same per-CPU pool): that CPU's vm_stat_diff
 *   stays unfolded, except what passes stat_threshold, while the loop lasts.
 *
 * What each rule's kernel did about it (the sleep that releases the pool is in slowpath.c):
 * - base (4.3): nothing; the loop above.
 * - rework, rework-v4: the series was rebased on mmotm-2015-11-25, which held 373ccbe5: its own
 *   vmstat workqueue (WQ_MEM_RECLAIM, still a per-CPU workqueue on the same pools) and a
 *   schedule_timeout(1) for PF_WQ_WORKER in wait_iff_congested(), which 2/3 moved into
 *   should_reclaim_retry(). Called in TASK_RUNNING, schedule_timeout() does not sleep (fixed in
 *   4.5 by "mm, vmstat: fix wrong WQ sleep when memory reclaim doesn't make any progress"), so
 *   the worker loops as under 4.3. What differs is the rule: its count of rounds without progress
 *   does not read zone_reclaimable(), and after MAX_RECLAIM_RETRIES it reaches
 *   __alloc_pages_may_oom(), whose lost trylock sleeps a jiffy while another task reports.
 * - mainline: should_reclaim_retry() ends in schedule_timeout_uninterruptible(1) for a
 *   PF_WQ_WORKER every round (2018), vmstat_update() runs on mm_percpu_wq, and the model reads
 *   exact counters under mainline anyway.
 */
#include <stdint.h>

#include "sim/model.h"

/* One value of a stream of the seed's own, so that the other streams stay as they were. */
static uint64_t wq_rand(uint64_t seed, uint64_t k)
{
	uint64_t z = seed * 0xd1342543de82ef95ull + k * 0x9e3779b97f4a7c15ull + 0x5851f42dull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* kworker_init() - the poll's worker (--wq-stall): its CPU and the phase of its first check, from
 * @seed. Without it the machine has no such work item. */
void kworker_init(struct sim *s, uint64_t seed)
{
	uint64_t first = wq_rand(seed, 1) % DISK_EVENTS_POLL_USEC;
	int i;

	if (!s->cfg->wq_stall)
		return;
	s->wq_cpu = (unsigned int)(wq_rand(seed, 2) % NR_CPUS);
	i = task_create(s, TK_KWORKER, s->wq_cpu ? "kworker/1:1" : "kworker/0:1", 0, first);
	s->kworker = i;
	if (i != NO_TASK)
		task_set_runnable(s, &s->tasks[i], false); /* an idle worker until its timer fires */
}

/* kworker_hold() - the worker loops on without sleeping (@held), or slept or finished. */
void kworker_hold(struct sim *s, bool held)
{
	uint64_t late = vmstat_pool_hold(s, held);

	if (!late)
		return;
	s->res->wq_holds++;
	if (late > s->res->wq_hold_max_usec)
		s->res->wq_hold_max_usec = late;
}

/*
 * kworker_step() - one event of disk_events_workfn(): the check's allocation (a slow path round
 * when the fast path fails); when it has its page, the command completes and frees it, and the
 * work is queued again DISK_EVENTS_POLL_USEC later. A round that ends without a sleep keeps the
 * pool held until the next one.
 */
void kworker_step(struct sim *s, struct sim_task *t)
{
	int32_t pfn;
	uint64_t delay;
	enum alloc_status st = alloc_pages_step(s, t, GFP_NOIO, 0, &pfn, &delay);

	if (st == ALLOC_WAIT) {
		kworker_hold(s, !t->alloc.sleep_usec); /* the round did not sleep */
		task_alloc_wait(s, t, 0, delay);
		return;
	}
	if (st == ALLOC_OK) {
		page_make_kernel(s, pfn, (int)(t - s->tasks));
		page_release(s, pfn);
		t->done_pages++;
	}
	kworker_hold(s, false);
	task_sleep(s, t, delay + DISK_EVENTS_POLL_USEC, false);
}
