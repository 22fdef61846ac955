// SPDX-License-Identifier: GPL-2.0-only
/* progress_round(): turns a scope's counter deltas into the retry rule's inputs. Pure. */
#include "policy/progress.h"

#include <string.h>

enum thrash_state progress_thrash(const struct round_sample *s, const struct progress_params *p)
{
	/* A read without a pgpgin count (NFS, FUSE) still refaults: refaults are reads too. */
	uint64_t read = s->span_read_pages > s->span_refaulted_pages ? s->span_read_pages
								   : s->span_refaulted_pages;
	uint64_t span = s->span_usec > 1000000 ? s->span_usec : 1000000;
	/* refaults per second over the span against the floor, as products (no division) */
	uint64_t rate = s->span_refaulted_pages * 1000000;
	uint64_t floor = p->refault_min_pages * span;

	if (read < PROGRESS_SPAN_PAGES || s->span_refaulted_pages * PROGRESS_CLEAN_SHARE_DIV < read ||
	    rate * 2 < floor)
		return THRASH_NONE;
	if ((s->span_file_pages &&
	     s->span_write_pending_pages * PROGRESS_WRITEBACK_SHARE_DIV >= s->span_file_pages) ||
	    (s->recent_refaulted_pages && s->recent_written_pages >= s->recent_refaulted_pages))
		return THRASH_WRITEBACK;
	if (s->span_refaulted_pages * PROGRESS_THRASH_SHARE_DIV >= read && rate >= floor)
		return THRASH_YES;
	return THRASH_MIXED;
}

void progress_round(const struct round_sample *s, const struct progress_params *p,
		    struct round_result *ret_result)
{
	struct round_result r;
	uint64_t reclaimed;

	memset(&r, 0, sizeof(r));
	/* 1. */
	if (s->parked) {
		r.is_round = true;
		r.reason = "tasks parked under_oom";
		goto out;
	}
	r.thrash = progress_thrash(s, p);
	/* 2. */
	if (!s->stall_events && s->refaulted_pages < p->refault_min_pages &&
	    r.thrash == THRASH_NONE) {
		r.reason = "no stalled allocation";
		goto out;
	}
	r.is_round = true;
	reclaimed = s->has_reclaimed ? s->reclaimed_pages : 0;
	r.reclaimed_pages = reclaimed;
	r.net_reclaimed = reclaimed > s->refaulted_pages ? reclaimed - s->refaulted_pages : 0;
	/* 3. */
	if (r.thrash == THRASH_YES) {
		r.net_reclaimed = 0;
		r.reason = "thrashing: reads are refaults";
		goto out;
	}
	/* 4. */
	if (r.thrash == THRASH_MIXED || r.thrash == THRASH_WRITEBACK) {
		r.hold = true;
		r.reason = r.thrash == THRASH_MIXED ? "reads partly refaults: count held"
						    : "refaults beside a writer's dirty pages: count held";
		goto out;
	}
	/* 5. */
	if (s->has_stall_usec && s->interval_usec &&
	    s->stall_usec * 1000 > s->interval_usec * p->stall_bound_permille) {
		r.reason = "stall over bound";
		goto out;
	}
	/* 6. */
	if (s->has_reclaimed) {
		r.progress = r.net_reclaimed > 0;
	} else {
		r.progress = true;
		r.net_reclaimed = 1; /* the rule only asks "any progress?" */
	}
	r.reason = r.progress ? "reclaim stayed" : "reclaim undone by refaults";
out:
	*ret_result = r;
}
