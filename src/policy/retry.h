/* SPDX-License-Identifier: GPL-2.0-only */
/* The reclaim retry rules: base (4.3, before the seed patch), rework (the seed patch, 1/3 of v4),
 * rework-v4 (the whole v4 series, 1/3-3/3) and mainline (6.x); and mainline's compaction retry.
 * One entry point, chosen by name; the model and the daemon both call it. */
#ifndef OOMGUARD_POLICY_RETRY_H
#define OOMGUARD_POLICY_RETRY_H

#include <stdbool.h>
#include <stddef.h>

#include "gfp.h"
#include "zone.h"

/* Rounds without progress before the OOM killer is the only way forward (seed patch). */
#define MAX_RECLAIM_RETRIES 16

/* zone_reclaimable(): a zone is "reclaimable" until this many times its reclaimable pages were
 * scanned without a page being freed (4.3 mm/vmscan.c). */
#define ZONE_RECLAIMABLE_SCAN_RATIO 6

#define DIV_ROUND_UP(n, d) (((n) + (d)-1) / (d))

enum retry_rule {
	RETRY_RULE_BASE,
	RETRY_RULE_REWORK,
	RETRY_RULE_REWORK_V4,
	RETRY_RULE_MAINLINE,
	NR_RETRY_RULES
};

/* "base", "rework", "rework-v4", "mainline"; NULL for an out-of-range value. */
const char *retry_rule_name(enum retry_rule rule);
/* Parses a rule name; returns 0 and writes *ret_rule, or -EINVAL. */
int retry_rule_parse(const char *name, enum retry_rule *ret_rule);

/*
 * struct alloc_request - the allocation the slow path is trying to satisfy.
 * @gfp_mask:      what the caller allows
 * @order:         log2 of the pages wanted
 * @alloc_flags:   gfp_to_alloc_flags(gfp_mask) as the slow path computed it
 * @high_zoneidx:  highest usable zone (the classzone)
 * @zones:         the eligible zonelist, preferred zone first
 * @nr_zones:      entries in @zones
 */
struct alloc_request {
	gfp_t gfp_mask;
	unsigned int order;
	unsigned int alloc_flags;
	int high_zoneidx;
	const struct zone_snapshot *zones;
	size_t nr_zones;
};

/*
 * struct retry_state - what the slow path carries from one reclaim round to the next.
 * @no_progress_loops:  reclaim rounds in a row without progress (rework, rework-v4, mainline)
 * @pages_reclaimed:    pages reclaimed over all rounds of this allocation (base, rework)
 */
struct retry_state {
	int no_progress_loops;
	unsigned long pages_reclaimed;
};

/* What the slow path does next. */
enum retry_verdict {
	RETRY_OOM,                 /* reclaim has failed: go to the OOM killer */
	RETRY_RECLAIM,             /* retry the allocation and reclaim again */
	RETRY_UNRESERVE_HIGHATOMIC /* mainline: a highatomic pageblock was given back, retry */
};

/* How the slow path waits before the next round. */
enum retry_wait {
	RETRY_WAIT_NONE,             /* cond_resched() only */
	RETRY_WAIT_IFF_CONGESTED,    /* wait_iff_congested(zone, BLK_RW_ASYNC, HZ/50) */
	RETRY_WAIT_CONGESTION        /* congestion_wait(BLK_RW_ASYNC, HZ/10) */
};

/*
 * struct retry_decision - the outcome of one decision, with the inputs that made it.
 * @verdict:            retry or OOM
 * @wait:               how to wait before retrying
 * @wait_zone:          index in the zonelist of the zone to wait on (-1 if none)
 * @did_some_progress:  progress as the rule saw it (base: faked by zone_reclaimable)
 * @no_progress_loops:  the counter after this round
 * @passing_zone:       first zone whose watermark check passed (-1 if none)
 * @available:          per-zone free + reclaimable after back-off, for the log
 * @reason:             a short fixed string naming the branch taken
 */
struct retry_decision {
	enum retry_verdict verdict;
	enum retry_wait wait;
	int wait_zone;
	unsigned long did_some_progress;
	int no_progress_loops;
	int passing_zone;
	long available[MAX_NR_ZONES];
	const char *reason;
};

/*
 * reclaim_retry_decide() - after a direct-reclaim round that did not yield a page, retry or OOM?
 * @rule:           which kernel's rule
 * @req:            the allocation and its zonelist as they are after the round
 * @nr_reclaimed:   pages the round reclaimed (sc.nr_reclaimed)
 * @state:          carried between rounds; updated as the rule's caller updates it
 * @ret_decision:   the verdict and the inputs behind it
 *
 * base:     pages_reclaimed += progress; retry if progress and order <= COSTLY, or
 *           __GFP_REPEAT and pages_reclaimed < 1 << order. Progress is faked to 1 when
 *           nr_reclaimed is 0 but some zone is zone_reclaimable().
 * rework:   the caller's counter (reset on progress, +1 otherwise), then should_reclaim_retry()
 *           of the seed patch: give up after MAX_RECLAIM_RETRIES, costly orders only with
 *           __GFP_REPEAT, then the min watermark on free + reclaimable less the back-off.
 * rework-v4: the series as posted (15 Dec 2015). 3/3 ("use watermark checks for __GFP_REPEAT
 *           high order allocations"): no pages_reclaimed, costly orders never reset the counter
 *           and retry on the watermark check alone. 2/3 ("throttle on IO only when there are too
 *           many dirty and writeback pages"): after a round without progress, congestion_wait
 *           (HZ/10) when the passing zone's dirty + writeback exceed half its reclaimable pages;
 *           otherwise only cond_resched(), no wait_iff_congested().
 * mainline: counter inside, costly orders never reset it, no back-off, highatomic unreserved
 *           before OOM.
 * The caller handles __GFP_NORETRY before it gets here, as the slow path does. A costly order
 * without __GFP_REPEAT gets RETRY_OOM under every rule; __alloc_pages_may_oom() then fails it
 * without a kill (order > PAGE_ALLOC_COSTLY_ORDER), which is the kernel's outcome too.
 */
void reclaim_retry_decide(enum retry_rule rule, const struct alloc_request *req,
			  unsigned long nr_reclaimed, struct retry_state *state,
			  struct retry_decision *ret_decision);

/*
 * should_reclaim_retry() - the seed patch's heuristic alone (rework rule), for tests and logs.
 * Returns true if a retry is viable; writes the zone that passed and the available counts.
 */
bool should_reclaim_retry(const struct alloc_request *req, bool did_some_progress,
			  unsigned long pages_reclaimed, int no_progress_loops,
			  struct retry_decision *ret_decision);

/*
 * retry_state_oom_progress() - the OOM killer freed memory (or will): every rule's slow path
 * resets no_progress_loops and retries.
 */
void retry_state_oom_progress(struct retry_state *state);

/* Compaction priorities of 4.9+ (lower is harder); the model's mainline starts async. */
enum compact_priority {
	COMPACT_PRIO_SYNC_FULL,
	COMPACT_PRIO_SYNC_LIGHT,
	COMPACT_PRIO_ASYNC,
};
#define MIN_COMPACT_PRIORITY        COMPACT_PRIO_SYNC_FULL
#define MIN_COMPACT_COSTLY_PRIORITY COMPACT_PRIO_SYNC_LIGHT
#define MAX_COMPACT_RETRIES         16

/* What the last direct compaction of an allocation did. */
enum compact_result {
	COMPACT_NOT_RUN,  /* order 0, or no compaction this round */
	COMPACT_SKIPPED,  /* too few free order-0 pages to migrate into */
	COMPACT_DEFERRED, /* skipped: compaction_deferred() (the kernel's order: above SKIPPED) */
	COMPACT_COMPLETE, /* the scanners met without a block of the order: failed */
	COMPACT_SUCCESS,  /* a block of the order was made */
};

/*
 * struct compact_retry_state - mainline's compaction feedback, carried between rounds.
 * @priority:  compact_priority (starts at COMPACT_PRIO_ASYNC)
 * @retries:   compaction_retries: rounds whose compaction made progress
 */
struct compact_retry_state {
	int priority;
	int retries;
};

/*
 * should_compact_retry() - mainline (4.9+, "mm, oom: protect !costly allocations some more" and
 * the compaction priorities): after reclaim retries are exhausted, retry while compaction could
 * still make a block. Order 0 never; a success counts a retry (at most MAX_COMPACT_RETRIES, a
 * quarter for costly orders); a failure or a deferral, or retries used up, raises the priority
 * (down to MIN_COMPACT_PRIORITY, MIN_COMPACT_COSTLY_PRIORITY for costly orders) and resets the
 * count;
 * skipped for want of free pages: retry if @zonelist_suitable (reclaim could give compaction
 * its free pages). The caller asks only when the last reclaim round made progress.
 */
bool should_compact_retry(unsigned int order, enum compact_result result, bool zonelist_suitable,
			  struct compact_retry_state *state);

/*
 * reclaimable_after_backoff() - reclaimable less DIV_ROUND_UP(loops * reclaimable, 16).
 * At 0 loops all counts; at 8 half; at 16 none.
 */
unsigned long reclaimable_after_backoff(unsigned long reclaimable, int no_progress_loops);

#endif
