// SPDX-License-Identifier: GPL-2.0-only
/* The reclaim retry rules: base (4.3), rework (the seed patch, 1/3 of v4), rework-v4 (the whole v4
 * series), mainline (6.x), and mainline's compaction retry.
 * Pure: the inputs are the request, the zones as they are after the round, and the carried
 * state. */
#include <errno.h>
#include <string.h>

#include "policy/retry.h"

static const char *const rule_names[NR_RETRY_RULES] = {
	[RETRY_RULE_BASE] = "base",
	[RETRY_RULE_REWORK] = "rework",
	[RETRY_RULE_REWORK_V4] = "rework-v4",
	[RETRY_RULE_MAINLINE] = "mainline",
};

const char *retry_rule_name(enum retry_rule rule)
{
	if ((unsigned int)rule >= NR_RETRY_RULES)
		return NULL;
	return rule_names[rule];
}

int retry_rule_parse(const char *name, enum retry_rule *ret_rule)
{
	for (int r = 0; r < NR_RETRY_RULES; r++) {
		if (name && !strcmp(name, rule_names[r])) {
			*ret_rule = (enum retry_rule)r;
			return 0;
		}
	}
	return -EINVAL;
}

static bool is_costly(unsigned int order)
{
	return order > PAGE_ALLOC_COSTLY_ORDER;
}

static void decision_init(struct retry_decision *d, const struct retry_state *state)
{
	memset(d, 0, sizeof(*d));
	d->verdict = RETRY_OOM;
	d->wait = RETRY_WAIT_NONE;
	d->wait_zone = -1;
	d->passing_zone = -1;
	d->no_progress_loops = state->no_progress_loops;
	for (int i = 0; i < MAX_NR_ZONES; i++)
		d->available[i] = -1;
}

/* Decides the linear back-off of the seed patch: each round without progress takes 1/16 of the
 * reclaimable pages out of the estimate, rounding the part taken out up. */
unsigned long reclaimable_after_backoff(unsigned long reclaimable, int no_progress_loops)
{
	unsigned long loops = no_progress_loops > 0 ? (unsigned long)no_progress_loops : 0;
	unsigned long cut;

	if (loops >= MAX_RECLAIM_RETRIES)
		return 0;
	cut = DIV_ROUND_UP(loops * reclaimable, MAX_RECLAIM_RETRIES);
	return reclaimable - cut;
}

/*
 * Decides whether any eligible zone could meet its min watermark if the estimate of reclaimable
 * memory were reclaimed: free + reclaimable (less the back-off when @backoff). Writes the first
 * passing zone and every zone's available count to @d.
 */
static bool any_zone_could_succeed(const struct alloc_request *req, int no_progress_loops,
				   bool backoff, struct retry_decision *d)
{
	for (size_t i = 0; i < req->nr_zones && i < MAX_NR_ZONES; i++) {
		const struct zone_snapshot *zone = &req->zones[i];
		unsigned long available = zone->reclaimable_pages;

		if (backoff)
			available = reclaimable_after_backoff(available, no_progress_loops);
		available += zone->free_pages;
		d->available[i] = (long)available;
		if (__zone_watermark_ok(zone, req->order, min_wmark_pages(zone), req->high_zoneidx,
					req->alloc_flags, (long)available)) {
			d->passing_zone = (int)i;
			return true;
		}
	}
	return false;
}

/* The seed patch's should_reclaim_retry(), with its branches in its order. */
bool should_reclaim_retry(const struct alloc_request *req, bool did_some_progress,
			  unsigned long pages_reclaimed, int no_progress_loops,
			  struct retry_decision *d)
{
	d->no_progress_loops = no_progress_loops;

	/* Converge to OOM when several rounds in a row made no progress. */
	if (no_progress_loops > MAX_RECLAIM_RETRIES) {
		d->reason = "no progress for more than MAX_RECLAIM_RETRIES rounds";
		return false;
	}

	/* Costly orders retry only with __GFP_REPEAT, and only until they reclaimed 1 << order. */
	if (is_costly(req->order)) {
		if (!(req->gfp_mask & __GFP_REPEAT)) {
			d->reason = "costly order without __GFP_REPEAT";
			return false;
		}
		if (pages_reclaimed >= (1UL << req->order)) {
			d->reason = "costly order reclaimed 1 << order already";
			return false;
		}
		if (did_some_progress) {
			d->reason = "costly __GFP_REPEAT order made progress";
			return true;
		}
	}

	/* Retry while free + reclaimable (backed off) could meet the min watermark somewhere. */
	if (any_zone_could_succeed(req, no_progress_loops, true, d)) {
		d->wait = RETRY_WAIT_IFF_CONGESTED;
		d->wait_zone = d->passing_zone;
		d->reason = "a zone could meet min with free + reclaimable after back-off";
		return true;
	}
	d->reason = "no zone can meet min even if all reclaimable after back-off were freed";
	return false;
}

/* base: 4.3's __alloc_pages_slowpath tail with do_try_to_free_pages' zone_reclaimable() fake. */
static void decide_base(const struct alloc_request *req, unsigned long nr_reclaimed,
			struct retry_state *state, struct retry_decision *d)
{
	unsigned long progress = nr_reclaimed;

	/* shrink_zones(): a zone still zone_reclaimable() counts as progress. */
	if (!progress) {
		for (size_t i = 0; i < req->nr_zones; i++) {
			if (zone_reclaimable(&req->zones[i])) {
				progress = 1;
				break;
			}
		}
	}
	d->did_some_progress = progress;
	state->pages_reclaimed += progress;

	if (progress && !is_costly(req->order)) {
		d->reason = nr_reclaimed ? "reclaim made progress"
					 : "zone_reclaimable() faked progress";
	} else if ((req->gfp_mask & __GFP_REPEAT) &&
		   state->pages_reclaimed < (1UL << req->order)) {
		d->reason = "__GFP_REPEAT and pages_reclaimed < 1 << order";
	} else {
		d->reason = is_costly(req->order) && !(req->gfp_mask & __GFP_REPEAT)
				    ? "costly order without __GFP_REPEAT"
				    : "no progress";
		return;
	}
	d->verdict = RETRY_RECLAIM;
	d->wait = RETRY_WAIT_IFF_CONGESTED;
	d->wait_zone = req->nr_zones ? 0 : -1; /* ac->preferred_zone */
}

/* rework: the seed patch's caller-side counter, then should_reclaim_retry(). */
static void decide_rework(const struct alloc_request *req, unsigned long nr_reclaimed,
			  struct retry_state *state, struct retry_decision *d)
{
	if (nr_reclaimed) {
		state->no_progress_loops = 0;
		state->pages_reclaimed += nr_reclaimed;
	} else {
		state->no_progress_loops++;
	}
	d->did_some_progress = nr_reclaimed;
	if (should_reclaim_retry(req, nr_reclaimed > 0, state->pages_reclaimed,
				 state->no_progress_loops, d))
		d->verdict = RETRY_RECLAIM;
}

/*
 * rework-v4: the v4 series as posted. 3/3: the counter is reset only by progress of a !costly
 * order and pages_reclaimed is gone; 2/3: the wait after a passing watermark check depends on
 * the zone's dirty and writeback pages, not on the device's congestion.
 */
/* The series' and 6.x's count: reclaim progress resets it, but never for a costly order
 * (progress does not make its contiguous block). */
static void count_round(const struct alloc_request *req, unsigned long nr_reclaimed,
			struct retry_state *state, struct retry_decision *d)
{
	if (nr_reclaimed && !is_costly(req->order))
		state->no_progress_loops = 0;
	else
		state->no_progress_loops++;
	d->no_progress_loops = state->no_progress_loops;
}

static void decide_rework_v4(const struct alloc_request *req, unsigned long nr_reclaimed,
			     struct retry_state *state, struct retry_decision *d)
{
	const struct zone_snapshot *zone;

	d->did_some_progress = nr_reclaimed;
	count_round(req, nr_reclaimed, state, d);

	if (state->no_progress_loops > MAX_RECLAIM_RETRIES) {
		d->reason = "no progress for more than MAX_RECLAIM_RETRIES rounds";
		return;
	}
	if (is_costly(req->order) && !(req->gfp_mask & __GFP_REPEAT)) {
		d->reason = "costly order without __GFP_REPEAT";
		return;
	}
	if (!any_zone_could_succeed(req, state->no_progress_loops, true, d)) {
		d->reason = "no zone can meet min even if all reclaimable after back-off were freed";
		return;
	}
	d->verdict = RETRY_RECLAIM;
	zone = &req->zones[d->passing_zone];
	if (!nr_reclaimed && 2 * zone->write_pending > zone->reclaimable_pages) {
		d->wait = RETRY_WAIT_CONGESTION;
		d->wait_zone = d->passing_zone;
		d->reason = "no progress, dirty + writeback above half of reclaimable: congestion_wait";
	} else {
		d->reason = "a zone could meet min with free + reclaimable after back-off";
	}
}

/* mainline: 6.x should_reclaim_retry() with the counter inside and no back-off. */
static void decide_mainline(const struct alloc_request *req, unsigned long nr_reclaimed,
			    struct retry_state *state, struct retry_decision *d)
{
	d->did_some_progress = nr_reclaimed;
	/* The slow path fails costly orders without __GFP_RETRY_MAYFAIL before reclaim retries. */
	if (is_costly(req->order) && !(req->gfp_mask & __GFP_REPEAT)) {
		d->reason = "costly order without __GFP_RETRY_MAYFAIL";
		return;
	}
	count_round(req, nr_reclaimed, state, d);

	if (state->no_progress_loops > MAX_RECLAIM_RETRIES) {
		d->reason = "no progress for more than MAX_RECLAIM_RETRIES rounds";
	} else if (any_zone_could_succeed(req, 0, false, d)) {
		d->verdict = RETRY_RECLAIM;
		d->reason = "a zone could meet min with free + reclaimable";
		return;
	} else {
		d->reason = "no zone can meet min even if all reclaimable were freed";
	}

	/* Before OOM, exhaust the highatomic reserve (unreserve_highatomic_pageblock(ac, true)). */
	for (size_t i = 0; i < req->nr_zones; i++) {
		if (req->zones[i].nr_reserved_highatomic) {
			d->verdict = RETRY_UNRESERVE_HIGHATOMIC;
			d->wait_zone = (int)i;
			d->reason = "highatomic reserve given back before OOM";
			return;
		}
	}
}

void reclaim_retry_decide(enum retry_rule rule, const struct alloc_request *req,
			  unsigned long nr_reclaimed, struct retry_state *state,
			  struct retry_decision *ret_decision)
{
	decision_init(ret_decision, state);
	switch (rule) {
	case RETRY_RULE_BASE:
		decide_base(req, nr_reclaimed, state, ret_decision);
		break;
	case RETRY_RULE_REWORK:
		decide_rework(req, nr_reclaimed, state, ret_decision);
		break;
	case RETRY_RULE_REWORK_V4:
		decide_rework_v4(req, nr_reclaimed, state, ret_decision);
		break;
	case RETRY_RULE_MAINLINE:
		decide_mainline(req, nr_reclaimed, state, ret_decision);
		break;
	default:
		ret_decision->reason = "unknown retry rule";
		break;
	}
	ret_decision->no_progress_loops = state->no_progress_loops;
}

void retry_state_oom_progress(struct retry_state *state)
{
	state->no_progress_loops = 0;
}

bool should_compact_retry(unsigned int order, enum compact_result result, bool zonelist_suitable,
			  struct compact_retry_state *state)
{
	int max_retries = MAX_COMPACT_RETRIES;
	int min_priority;

	if (!order)
		return false;
	if (result == COMPACT_SKIPPED)
		return zonelist_suitable;
	/* A block was made but taken by a racer: retry some. */
	if (result == COMPACT_SUCCESS) {
		if (is_costly(order))
			max_retries /= 4;
		if (++state->retries <= max_retries)
			return true;
	}
	/* Failed or deferred, or retried enough at this priority: try harder once more. */
	min_priority = is_costly(order) ? MIN_COMPACT_COSTLY_PRIORITY : MIN_COMPACT_PRIORITY;
	if (state->priority > min_priority) {
		state->priority--;
		state->retries = 0;
		return true;
	}
	return false;
}
