// SPDX-License-Identifier: GPL-2.0-only
/* Page reclaim: shrink_zone() over the file LRU by priority, direct reclaim
 * (try_to_free_pages) and kswapd. Without swap, anon pages are never scanned. A scan meets the
 * clean pages first (written back, thus older), then the dirty and writeback ones, which it skips
 * and hands to the flusher: so one batch is counted in O(1), not page by page. */
#include <stdint.h>

#include "sim/model.h"

/* do_try_to_free_pages(): wake the flusher once this much was scanned (1.5 * nr_to_reclaim). */
#define WRITEBACK_THRESHOLD (SWAP_CLUSTER_MAX + SWAP_CLUSTER_MAX / 2)

/*
 * shrink_zone() - scan the zone's file LRU at @priority (size >> priority pages, in
 * SWAP_CLUSTER_MAX batches) until @nr_to_reclaim in @rr is met. Clean pages are freed; dirty and
 * writeback pages are skipped (direct reclaim does not write file pages). Adds to @rr; the zone's
 * pages_scanned grows by what was scanned and is reset by the frees, as in 4.3.
 */
void shrink_zone(struct sim *s, struct sim_zone *z, int priority, unsigned long nr_to_reclaim,
		 struct reclaim_result *rr)
{
	unsigned long size = z->snap.reclaimable_pages;
	unsigned long clean = z->lists[ZL_FILE_CLEAN].count;
	unsigned long nr_to_scan = size >> priority;
	unsigned long need, reclaim, scanned;

	if (!nr_to_scan || rr->nr_reclaimed >= nr_to_reclaim)
		return;
	need = nr_to_reclaim - rr->nr_reclaimed;
	need = DIV_ROUND_UP(need, SWAP_CLUSTER_MAX) * SWAP_CLUSTER_MAX;
	reclaim = need < clean ? need : clean;
	if (reclaim > nr_to_scan)
		reclaim = nr_to_scan;
	/* The target met within the clean pages: the scan stopped there. */
	scanned = (reclaim == need) ? reclaim : nr_to_scan;
	if (scanned > reclaim)
		rr->met_dirty = true;

	vmstat_pages_scanned_add(s, z, scanned);
	/* isolate_lru_pages(): the batch leaves the LRU counter at once (update_lru_size()) */
	s->vmstat_batch = true;
	s->vmstat_batch_delta = 0;
	for (unsigned long i = 0; i < reclaim; i++)
		page_release(s, z->lists[ZL_FILE_CLEAN].head);
	s->vmstat_batch = false;
	if (s->vmstat_batch_delta)
		vmstat_mod(s, z, VM_LRU_FILE, s->vmstat_batch_delta);
	rr->nr_scanned += scanned;
	rr->nr_reclaimed += reclaim;
}

/* zone_reclaimable() as 4.3's reclaim reads it: zone_page_state(), without the CPUs' diffs. */
static bool zone_reclaimable_read(struct sim *s, struct sim_zone *z)
{
	struct zone_snapshot zs = z->snap;

	vmstat_reads(s, &zs, 1);
	return zone_reclaimable(&zs);
}

/* The zones an allocation may use, highest first (the zonelist). */
static int zonelist_top(const struct sim *s, int classzone)
{
	int top = classzone < s->nr_populated - 1 ? classzone : s->nr_populated - 1;

	return top;
}

/*
 * compaction_ready() of 4.3: a costly-order reclaim stops in a zone that has enough free memory
 * for compaction to make the block: order-0 pages above high + the balance gap + 2 << order.
 * 4.3 tests without the lowmem reserve; mainline (6.x) tests as compaction_suitable() does, for
 * the request's @classzone, so that a zone it calls ready is one compaction does not skip.
 */
static bool compaction_ready(const struct sim *s, const struct sim_zone *z, unsigned int order,
			     int classzone)
{
	const struct zone_snapshot *zs = &z->snap;
	unsigned long gap = DIV_ROUND_UP(zs->managed_pages, 100);
	unsigned long mark;

	if (gap > zs->watermark[WMARK_LOW])
		gap = zs->watermark[WMARK_LOW];
	mark = zs->watermark[WMARK_HIGH] + gap + (2ul << order);
	if (s->cfg->rule == RETRY_RULE_MAINLINE)
		return zs->managed_pages && zone_watermark_ok(zs, 0, mark, classzone, ALLOC_CPUSET);
	return zs->managed_pages && zone_watermark_ok(zs, 0, mark, 0, 0);
}

/*
 * try_to_free_pages() - one direct reclaim: priorities DEF_PRIORITY down to 0 over the zonelist
 * until SWAP_CLUSTER_MAX pages are reclaimed. Zones that are not zone_reclaimable() get only
 * the first, light pass (shrink_zones() of 4.3, kept by the seed patch). For a costly @order a
 * zone where compaction_ready() is skipped and ends the reclaim; with nothing reclaimed that
 * returns 1 ("Aborted reclaim to try compaction? don't OOM, then"). Returns nr_reclaimed
 * (did_some_progress before the rules interpret it).
 * The caller throttles on congestion (see slowpath.c).
 */
unsigned long try_to_free_pages(struct sim *s, gfp_t gfp, unsigned int order, int classzone,
				struct reclaim_result *rr)
{
	int top = zonelist_top(s, classzone);
	bool ready = false;

	(void)gfp;
	rr->nr_scanned = rr->nr_reclaimed = 0;
	rr->met_dirty = false;
	for (int prio = DEF_PRIORITY; prio >= 0 && !ready; prio--) {
		for (int i = top; i >= 0; i--) {
			struct sim_zone *z = &s->zones[i];

			if (prio != DEF_PRIORITY && !zone_reclaimable_read(s, z))
				continue;
			if (order > PAGE_ALLOC_COSTLY_ORDER && compaction_ready(s, z, order, classzone)) {
				ready = true;
				continue;
			}
			shrink_zone(s, z, prio, SWAP_CLUSTER_MAX, rr);
		}
		if (rr->nr_reclaimed >= SWAP_CLUSTER_MAX)
			break;
	}
	if (rr->nr_scanned > WRITEBACK_THRESHOLD && rr->met_dirty)
		wakeup_flusher(s, rr->nr_scanned);
	if (!rr->nr_reclaimed && ready) {
		s->res->compaction_ready_rounds++;
		return 1;
	}
	return rr->nr_reclaimed;
}

/* wakeup_kswapd(): a zone of the zonelist is below its low watermark. */
void wakeup_kswapd(struct sim *s, unsigned int order, int classzone)
{
	struct sim_task *k;
	int top = zonelist_top(s, classzone);
	bool low = false;

	(void)order;
	if (s->kswapd == NO_TASK)
		return;
	for (int i = top; i >= 0; i--) {
		const struct zone_snapshot *zs = &s->zones[i].snap;

		if (zs->managed_pages && !zone_watermark_ok(zs, 0, zs->watermark[WMARK_LOW], 0, 0))
			low = true;
	}
	k = &s->tasks[s->kswapd];
	if (low && k->run == TR_IDLE)
		task_wake(s, k, 0);
}

static bool zone_needs_kswapd(struct sim *s, struct sim_zone *z)
{
	const struct zone_snapshot *zs = &z->snap;

	return zs->managed_pages && zs->free_pages < zs->watermark[WMARK_HIGH] &&
	       zone_reclaimable_read(s, z);
}

/*
 * kswapd_step() - one pass of balance_pgdat(): reclaim each zone below its high watermark,
 * priority by priority, until it is above it. Returns the time the pass took, with a
 * congestion_wait(HZ/10) when it got nothing; 0 when every zone is balanced or unreclaimable
 * (kswapd sleeps until woken).
 */
uint64_t kswapd_step(struct sim *s, struct sim_task *t)
{
	struct reclaim_result rr = {0, 0, false};
	unsigned long total = 0;
	bool work = false;

	(void)t;
	for (int i = 0; i < s->nr_populated; i++)
		work |= zone_needs_kswapd(s, &s->zones[i]);
	if (!work)
		return 0;
	for (int prio = DEF_PRIORITY; prio >= 0; prio--) {
		bool pending = false;

		for (int i = s->nr_populated - 1; i >= 0; i--) {
			struct sim_zone *z = &s->zones[i];
			unsigned long target;

			if (!zone_needs_kswapd(s, z))
				continue;
			target = z->snap.watermark[WMARK_HIGH] - z->snap.free_pages;
			rr.nr_reclaimed = 0;
			shrink_zone(s, z, prio, target, &rr);
			total += rr.nr_reclaimed;
			pending |= zone_needs_kswapd(s, z);
		}
		if (!pending)
			break;
	}
	if (rr.met_dirty)
		wakeup_flusher(s, rr.nr_scanned);
	if (!total)
		return RECLAIM_ROUND_USEC + CONGESTION_WAIT_USEC;
	return RECLAIM_ROUND_USEC + cpu_time(s, rr.nr_scanned * SCAN_PAGE_NSEC);
}
