// SPDX-License-Identifier: GPL-2.0-only
/* The page allocator: the fast path at the low watermark, then __alloc_pages_slowpath() in the
 * order of kernel-spec.md section 1, one reclaim round per model event. The retry decision is the
 * policy's reclaim_retry_decide() under the chosen rule: the model has no copy of any rule. */
#include <stdint.h>
#include <string.h>

#include "sim/model.h"

/*
 * get_page_from_freelist() - walk the zonelist from the highest usable zone down and take a
 * block from the first zone whose watermark (by @alloc_flags) allows it. Returns the pfn or
 * NO_PFN. The caller gives the page its state.
 */
int32_t get_page_from_freelist(struct sim *s, gfp_t gfp, unsigned int order,
			       unsigned int alloc_flags, int classzone)
{
	int top = classzone < s->nr_populated - 1 ? classzone : s->nr_populated - 1;
	int mt = gfp_migratetype(gfp);

	for (int i = top; i >= 0; i--) {
		struct sim_zone *z = &s->zones[i];
		int32_t pfn;

		if (!(alloc_flags & ALLOC_NO_WATERMARKS)) {
			unsigned long mark = z->snap.watermark[alloc_flags & ALLOC_WMARK_MASK];

			if (!zone_watermark_ok(&z->snap, order, mark, classzone, alloc_flags))
				continue;
		}
		pfn = buddy_alloc(s, z, order, mt);
		if (pfn != NO_PFN) {
			s->res->page_events++;
			return pfn;
		}
	}
	return NO_PFN;
}

/* A page taken while the machine boots (the scenarios' page cache, the noise's pool): the fast
 * path at the low watermark from the highest zone down; NO_PFN when memory is that low. */
int32_t boot_page(struct sim *s, gfp_t gfp)
{
	return get_page_from_freelist(s, gfp, 0, ALLOC_WMARK_LOW | ALLOC_CPUSET, ZONE_NORMAL);
}

/* The zonelist as the policy sees it: copies of the usable zones, preferred (highest) first. */
void fill_request(struct sim *s, gfp_t gfp, unsigned int order, unsigned int alloc_flags,
		  struct zone_snapshot *zones, struct alloc_request *req)
{
	int classzone = high_zoneidx(gfp);
	int top = classzone < s->nr_populated - 1 ? classzone : s->nr_populated - 1;
	size_t n = 0;

	for (int i = top; i >= 0; i--)
		zones[n++] = s->zones[i].snap;
	req->gfp_mask = gfp;
	req->order = order;
	req->alloc_flags = alloc_flags;
	req->high_zoneidx = classzone;
	req->zones = zones;
	req->nr_zones = n;
}

/* Sleeps until the device is no longer congested, or @timeout_usec, if it is congested now
 * (wait_iff_congested); otherwise only cond_resched(). */
static uint64_t wait_iff_congested(const struct sim *s, uint64_t timeout_usec)
{
	uint64_t t = bdev_uncongested_in(s);

	return t < timeout_usec ? t : timeout_usec;
}

/* congestion_wait(): sleeps @timeout_usec unless the congestion clears earlier. */
static uint64_t congestion_wait(const struct sim *s, uint64_t timeout_usec)
{
	uint64_t t = bdev_congested(s) ? bdev_uncongested_in(s) : timeout_usec;

	return t < timeout_usec ? t : timeout_usec;
}

/* The allocation left the slow path (page, failure, or its task was killed): its stall counts. */
void alloc_end(struct sim *s, struct sim_task *t)
{
	struct alloc_state *a = &t->alloc;
	uint64_t stall = s->now - a->start_usec;

	if (stall > s->res->max_stall_usec) {
		s->res->max_stall_usec = stall;
		s->res->stalled_rounds = a->rounds;
	}
	a->active = false;
}

/* Direct compaction over the zonelist until one zone has a block of @order: the best result. */
static enum compact_result compact_zonelist(struct sim *s, unsigned int order, int classzone,
					    bool ignore_defer, uint64_t *cost)
{
	int top = classzone < s->nr_populated - 1 ? classzone : s->nr_populated - 1;
	enum compact_result best = COMPACT_NOT_RUN;

	for (int i = top; i >= 0; i--) {
		unsigned long migrated = 0;
		enum compact_result r =
		    compact_zone(s, &s->zones[i], order, classzone, ignore_defer, &migrated);

		*cost += cpu_time(s, migrated * MIGRATE_PAGE_NSEC);
		if (r > best)
			best = r;
		if (r == COMPACT_SUCCESS)
			break; /* a block of the order is free now */
	}
	return best;
}

/* Mainline ignores compaction deferral at its highest priority (4.9+). */
static bool compact_ignores_defer(const struct sim *s, const struct alloc_state *a)
{
	return s->cfg->rule == RETRY_RULE_MAINLINE && a->crs.priority <= MIN_COMPACT_PRIORITY;
}

/*
 * direct_reclaim() - step 3 of slowpath_round(): direct compaction for a costly order, then
 * direct reclaim, each followed by a try of the freelists (a page: *@ret_pfn, else NO_PFN). CPU
 * time goes to *@cost, a throttle on a congested device to *@sleep. Return: pages reclaimed.
 */
static unsigned long direct_reclaim(struct sim *s, struct sim_task *t, unsigned int alloc_flags,
				    int classzone, uint64_t *cost, uint64_t *sleep,
				    int32_t *ret_pfn)
{
	struct alloc_state *a = &t->alloc;
	struct reclaim_result rr;
	unsigned long nr;

	*cost = cpu_time(s, RECLAIM_ROUND_USEC * 1000ull);
	if (a->order) {
		a->compact_result =
		    compact_zonelist(s, a->order, classzone, compact_ignores_defer(s, a), cost);
		*ret_pfn = get_page_from_freelist(s, a->gfp, a->order, alloc_flags, classzone);
		if (*ret_pfn != NO_PFN)
			return 0;
	}
	nr = try_to_free_pages(s, a->gfp, a->order, classzone, &rr);
	a->rounds++;
	*cost += cpu_time(s, rr.nr_scanned * SCAN_PAGE_NSEC + rr.nr_reclaimed * FREE_PAGE_NSEC);
	if (rr.met_dirty && bdev_congested(s))
		*sleep += wait_iff_congested(s, RECLAIM_THROTTLE_USEC);
	*ret_pfn = get_page_from_freelist(s, a->gfp, a->order, alloc_flags, classzone);
	return nr;
}

enum may_oom { MAY_OOM_PAGE, MAY_OOM_RETRY, MAY_OOM_NOPAGE, MAY_OOM_NORETRY };

/*
 * alloc_may_oom() - steps 7-8 of slowpath_round(), after the rule said OOM: as
 * __alloc_pages_may_oom(), the high watermark once more (a page: *@ret_pfn), then the killer for
 * the requests it serves. A killer that made progress (or will) resets the counter and the
 * round retries, after *@sleep grows by the jiffy the killer's caller sleeps.
 */
static enum may_oom alloc_may_oom(struct sim *s, struct sim_task *t, int classzone,
				  int32_t *ret_pfn, uint64_t *cost, uint64_t *sleep)
{
	struct alloc_state *a = &t->alloc;
	gfp_t gfp = a->gfp;
	unsigned int order = a->order;
	bool killed = false, progress;

	/* mutex_trylock(&oom_lock) failed: somebody else is making progress for us. */
	if (s->now < s->oom_lock_until || s->oom_victim != NO_TASK) {
		s->res->oom_lock_contended++;
		retry_state_oom_progress(&a->rs);
		*sleep += JIFFY_USEC; /* schedule_timeout_uninterruptible(1) */
		return MAY_OOM_RETRY;
	}
	*ret_pfn =
	    get_page_from_freelist(s, gfp, order, ALLOC_WMARK_HIGH | ALLOC_CPUSET, classzone);
	if (*ret_pfn != NO_PFN)
		return MAY_OOM_PAGE;
	if (!(gfp & __GFP_NOFAIL) && !(order <= PAGE_ALLOC_COSTLY_ORDER &&
				       classzone >= ZONE_NORMAL && !(gfp & __GFP_THISNODE)))
		return MAY_OOM_NORETRY;
	if (!(gfp & __GFP_FS)) {
		progress = true; /* the killer does not compensate for IO-less reclaim */
	} else {
		unsigned long waits = s->res->oom_waits;

		if (!s->res->rounds_to_oom)
			s->res->rounds_to_oom = a->rounds;
		progress = out_of_memory(s, t, gfp, order, &killed);
		a->last_oom_wait = s->res->oom_waits != waits;
	}
	if (s->stop)
		return MAY_OOM_NOPAGE;
	if (!progress)
		return MAY_OOM_NORETRY;
	retry_state_oom_progress(&a->rs);
	if (killed) {
		/* the report is printed by this task, on a CPU, before it sleeps a jiffy */
		if (s->oom_lock_until > s->now)
			*cost += s->oom_lock_until - s->now;
		*sleep += JIFFY_USEC; /* schedule_timeout_killable(1) */
	}
	return MAY_OOM_RETRY;
}

/* compaction_zonelist_suitable(): would compaction run in some zone if what reclaim can free
 * were free? Mainline's answer to a compaction skipped for want of free pages. */
static bool compaction_zonelist_suitable(const struct sim *s, unsigned int order,
					 const struct alloc_request *req)
{
	for (size_t i = 0; i < req->nr_zones; i++) {
		const struct zone_snapshot *z = &req->zones[i];
		long available = (long)(z->free_pages + z->reclaimable_pages);

		if (compaction_suitable(s, z, order, req->high_zoneidx, available))
			return true;
	}
	return false;
}

/*
 * slowpath_round() - one pass of __alloc_pages_slowpath() from its retry label: kswapd, the
 * freelist at min, direct compaction (order > 0), direct reclaim, the rule's retry decision, the
 * OOM killer. Returns ALLOC_OK with *ret_pfn, ALLOC_WAIT with the time until the next pass in
 * *ret_cost_usec (CPU time plus sleeps), or ALLOC_FAIL.
 */
/*
 * Steps 5-6 of a round: the rule's verdict after reclaim freed @nr pages, with its waits added
 * to *@sleep; mainline's compaction feedback. Return: true to retry.
 */
static bool rule_retries(struct sim *s, struct sim_task *t, unsigned int alloc_flags,
			 unsigned long nr, uint64_t *sleep)
{
	struct alloc_state *a = &t->alloc;
	struct zone_snapshot zones[MAX_NR_ZONES];
	struct alloc_request req;
	struct retry_decision d;

	fill_request(s, a->gfp, a->order, alloc_flags, zones, &req);
	/* 4.3's zone_reclaimable() and zone_reclaimable_pages() read zone_page_state() */
	vmstat_reads(s, zones, req.nr_zones);
	reclaim_retry_decide(s->cfg->rule, &req, nr, &a->rs, &d);
	s->last_no_progress_loops = d.no_progress_loops;
	/* Mainline's should_reclaim_retry() ends in schedule_timeout_uninterruptible(1) for a
	 * PF_WQ_WORKER, whatever it decides, so that the worker's pool runs its other work items
	 * (2018). The reworks' schedule_timeout(1) (373ccbe5, moved by 2/3) ran in TASK_RUNNING and
	 * did not sleep; 4.3 had neither (workqueue.c). */
	if (s->cfg->rule == RETRY_RULE_MAINLINE && t->kind == TK_KWORKER)
		*sleep += JIFFY_USEC;
	if (d.verdict == RETRY_RECLAIM || d.verdict == RETRY_UNRESERVE_HIGHATOMIC) {
		if (d.wait == RETRY_WAIT_IFF_CONGESTED)
			*sleep += wait_iff_congested(s, WAIT_IFF_CONGESTED_USEC);
		else if (d.wait == RETRY_WAIT_CONGESTION)
			*sleep += congestion_wait(s, CONGESTION_WAIT_USEC);
		a->last_oom_wait = false;
		return true;
	}
	/* Mainline: compaction feedback, when the last reclaim round made progress. */
	if (s->cfg->rule == RETRY_RULE_MAINLINE && nr &&
	    should_compact_retry(a->order, a->compact_result,
				 compaction_zonelist_suitable(s, a->order, &req), &a->crs)) {
		s->res->compact_retries++;
		a->last_oom_wait = false;
		return true;
	}
	return false;
}

static enum alloc_status slowpath_round(struct sim *s, struct sim_task *t, int32_t *ret_pfn,
					uint64_t *ret_cost_usec)
{
	struct alloc_state *a = &t->alloc;
	gfp_t gfp = a->gfp;
	unsigned int order = a->order;
	int classzone = high_zoneidx(gfp);
	unsigned int alloc_flags = gfp_to_alloc_flags(gfp);
	uint64_t cost = 0, sleep = 0;
	unsigned long nr;
	int32_t pfn;

	/* 1. Wake kswapd; TIF_MEMDIE may use every reserve. */
	if (t->killed)
		alloc_flags |= ALLOC_NO_WATERMARKS;
	if (gfp & __GFP_KSWAPD_RECLAIM)
		wakeup_kswapd(s, order, classzone);
	pfn = get_page_from_freelist(s, gfp, order, alloc_flags, classzone);
	if (pfn != NO_PFN)
		goto got_pg;

	/* 2. Atomic requests and the victim itself give up here. */
	if (!(gfp & __GFP_DIRECT_RECLAIM) || (t->killed && !(gfp & __GFP_NOFAIL)))
		goto nopage;

	/* 3. */
	nr = direct_reclaim(s, t, alloc_flags, classzone, &cost, &sleep, &pfn);
	if (pfn != NO_PFN)
		goto got_pg;

	/* 4. */
	if (gfp & __GFP_NORETRY)
		goto noretry;

	/* 5-6. The rule decides: retry, or go OOM. */
	if (rule_retries(s, t, alloc_flags, nr, &sleep))
		goto retry;

	/* 7-8. */
	switch (alloc_may_oom(s, t, classzone, &pfn, &cost, &sleep)) {
	case MAY_OOM_PAGE:
		goto got_pg;
	case MAY_OOM_RETRY:
		goto retry;
	case MAY_OOM_NOPAGE:
		goto nopage;
	case MAY_OOM_NORETRY:
		break;
	}

noretry:
	if (order) {
		compact_zonelist(s, order, classzone, compact_ignores_defer(s, a), &cost);
		pfn = get_page_from_freelist(s, gfp, order, alloc_flags, classzone);
		if (pfn != NO_PFN)
			goto got_pg;
	}
nopage:
	s->res->alloc_failures++;
	alloc_end(s, t);
	*ret_cost_usec = cost;
	return ALLOC_FAIL;
got_pg:
	alloc_end(s, t);
	*ret_pfn = pfn;
	*ret_cost_usec = cost;
	return ALLOC_OK;
retry:
	*ret_cost_usec = cost + sleep;
	a->sleep_usec = sleep; /* the caller runs the CPU time, then sleeps this */
	return ALLOC_WAIT;
}

/*
 * alloc_pages_step() - __alloc_pages_nodemask() for @t, resumable: the fast path at the low
 * watermark; on failure the slow path, one round per call. A task that got ALLOC_WAIT calls again
 * after *ret_cost_usec with the same request.
 */
enum alloc_status alloc_pages_step(struct sim *s, struct sim_task *t, gfp_t gfp, unsigned int order,
				   int32_t *ret_pfn, uint64_t *ret_cost_usec)
{
	struct alloc_state *a = &t->alloc;

	if (!a->active) {
		int32_t pfn = get_page_from_freelist(s, gfp, order, ALLOC_WMARK_LOW | ALLOC_CPUSET,
						     high_zoneidx(gfp));

		if (pfn != NO_PFN) {
			*ret_pfn = pfn;
			*ret_cost_usec = 0;
			return ALLOC_OK;
		}
		memset(a, 0, sizeof(*a));
		a->active = true;
		a->gfp = gfp;
		a->order = order;
		a->start_usec = s->now;
		a->crs.priority = COMPACT_PRIO_ASYNC;
	}
	task_set_runnable(s, t, true);
	return slowpath_round(s, t, ret_pfn, ret_cost_usec);
}
