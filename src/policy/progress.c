// SPDX-License-Identifier: GPL-2.0-only
/* progress_round(): turns a scope's counter deltas into the retry rule's inputs. Pure. */
#include "policy/progress.h"

#include <string.h>

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
	/* 2. */
	if (!s->stall_events && s->refaulted_pages < p->refault_min_pages) {
		r.reason = "no stalled allocation";
		goto out;
	}
	r.is_round = true;
	reclaimed = s->has_reclaimed ? s->reclaimed_pages : 0;
	r.reclaimed_pages = reclaimed;
	r.net_reclaimed = reclaimed > s->refaulted_pages ? reclaimed - s->refaulted_pages : 0;
	/* 3. */
	if (s->has_stall_usec && s->interval_usec &&
	    s->stall_usec * 1000 > s->interval_usec * p->stall_bound_permille) {
		r.reason = "stall over bound";
		goto out;
	}
	/* 4. */
	if (s->has_reclaimed) {
		r.progress = r.net_reclaimed > 0;
	} else {
		uint64_t bound = s->file_pages / PROGRESS_REFAULT_FILE_DIV;

		if (bound < p->refault_min_pages)
			bound = p->refault_min_pages;
		r.progress = s->refaulted_pages < bound / 2;
		r.net_reclaimed = r.progress ? 1 : 0; /* the rule only asks "any progress?" */
		if (!r.progress && s->refaulted_pages < bound) {
			r.hold = true;
			r.reason = "refaults near the bound: count held";
			goto out;
		}
	}
	r.reason = r.progress ? "reclaim stayed" : "reclaim undone by refaults";
out:
	*ret_result = r;
}
