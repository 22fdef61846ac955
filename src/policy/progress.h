/* SPDX-License-Identifier: GPL-2.0-only */
/* What one poll interval of a scope means for the retry rule: was it a reclaim round (did
 * allocations stall), and did it make progress that stayed (reclaimed net of refaults)? */
#ifndef OOMGUARD_POLICY_PROGRESS_H
#define OOMGUARD_POLICY_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A scope without a reclaim counter (cgroup v1) makes no progress when the refaults of the
 * window reach 1/PROGRESS_REFAULT_FILE_DIV of its file LRU: its page cache is being read back
 * as fast as it is reclaimed. Measured (docs/daemon-design.md): a thrashing 256 MiB group refaults
 * ~30% of its file LRU per second, healthy reclaim 0-10%.
 */
#define PROGRESS_REFAULT_FILE_DIV 8

/*
 * struct round_sample - the deltas of one poll interval of one scope.
 * @interval_usec:      wall time the deltas cover
 * @stall_events:       allocations that had to reclaim: allocstall (machine), failcnt (v1),
 *                      memory.events max (v2)
 * @stall_usec:         PSI "some" time in the interval; 0 when the scope has no PSI
 * @has_stall_usec:     @stall_usec is measured
 * @reclaimed_pages:    pgsteal delta; ignored unless @has_reclaimed
 * @has_reclaimed:      the scope counts reclaim (machine, v2); v1 does not
 * @refaulted_pages:    workingset_refault (file + anon) delta: reclaim undone
 * @file_pages:         the scope's file LRU now (the v1 refault bound is relative to it)
 * @parked:             v1 under_oom: tasks sleep on the OOM wait queue
 */
struct round_sample {
	uint64_t interval_usec;
	uint64_t stall_events;
	uint64_t stall_usec;
	bool has_stall_usec;
	uint64_t reclaimed_pages;
	bool has_reclaimed;
	uint64_t refaulted_pages;
	uint64_t file_pages;
	bool parked;
};

/*
 * struct progress_params - the bounds a round is judged by.
 * @stall_bound_permille:  PSI some above this share of the interval means no progress
 * @refault_min_pages:     refaults per window below this are noise, not a round by themselves
 */
struct progress_params {
	unsigned int stall_bound_permille;
	uint64_t refault_min_pages;
};

/* Defaults; docs/daemon-design.md gives the measurements behind them. */
#define PROGRESS_STALL_BOUND_PERMILLE 600
#define PROGRESS_REFAULT_MIN_PAGES    256

/*
 * struct round_result - the judgement and the inputs behind it, for the log.
 * @is_round:          allocations stalled in the interval: the retry rule runs
 * @progress:          the round freed pages that stayed free
 * @hold:              v1: refaults between half the bound and the bound: too close to call;
 *                     the no-progress count neither grows nor resets (the rule does not run)
 * @net_reclaimed:     reclaimed minus refaulted, floored at 0 (v1: 0, not measured)
 * @reclaimed_pages:   the reclaim figure used (v1: 0, not measured)
 * @reason:            fixed string naming the rule that decided
 */
struct round_result {
	bool is_round;
	bool progress;
	bool hold;
	uint64_t net_reclaimed;
	uint64_t reclaimed_pages;
	const char *reason;
};

/*
 * progress_round() - judge one poll interval. Rules, in order:
 *   1. Tasks parked under_oom: a round without progress (the kernel gave up reclaiming).
 *   2. No stalled allocation and refaults under @refault_min_pages: not a round.
 *   3. PSI some over @stall_bound_permille of the interval: no progress, whatever was freed.
 *   4. With a reclaim counter (machine, v2): reclaimed minus refaulted, progress when positive.
 *      Without (v1): no progress when the refaults reach max(@refault_min_pages,
 *      file_pages / PROGRESS_REFAULT_FILE_DIV); progress below half of that; in between, hold
 *      (blk-throttled rereads dip under the bound for a window now and then: such a dip must
 *      not restart the count). Failed charges (failcnt) are not counted as reclaim: a charge
 *      that keeps failing bumps failcnt on every retry.
 */
void progress_round(const struct round_sample *s, const struct progress_params *p,
		    struct round_result *ret_result);

#endif
