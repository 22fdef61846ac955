// SPDX-License-Identifier: GPL-2.0-only
/* The block device, the flusher and the dirty limits: dirty pages are written in requests of
 * BDEV_REQUEST_PAGES at a fixed bandwidth; the request queue's fill is the congestion state that
 * wait_iff_congested() and congestion_wait() sleep on. */
#include <stdint.h>

#include "sim/model.h"

/* blk_queue_congestion_threshold(): on at 7/8 of the requests, off below 13/16. */
#define CONGESTION_ON_REQS  (BDEV_NR_REQUESTS - BDEV_NR_REQUESTS / 8)
#define CONGESTION_OFF_REQS (BDEV_NR_REQUESTS - BDEV_NR_REQUESTS / 8 - BDEV_NR_REQUESTS / 16)

void bdev_init(struct sim *s, uint64_t bw_pages_per_sec)
{
	struct sim_bdev *b = &s->bdev;

	b->bw_pages_per_sec = bw_pages_per_sec;
	plist_init(&b->dirty);
	plist_init(&b->writeback);
	b->req_head = b->nr_req = 0;
	b->busy_until = 0;
	b->completion_pending = false;
	b->flush_pages = 0;
	/* Requests scale with the machine so that the queue holds the same share of memory. */
	b->request_pages = (unsigned int)(s->nr_pages / 4096);
	if (b->request_pages < 8)
		b->request_pages = 8;
	if (b->request_pages > BDEV_REQUEST_PAGES)
		b->request_pages = BDEV_REQUEST_PAGES;
}

static uint64_t request_usec(const struct sim *s, unsigned int nr_pages)
{
	uint64_t bw = s->bdev.bw_pages_per_sec;

	return (nr_pages * USEC_PER_SEC + bw - 1) / bw;
}

/*
 * dirty_limits() - global_dirty_limits() simplified: the background and the throttling
 * thresholds are dirty_background_ratio and dirty_ratio of the dirtyable memory (free + file
 * pages less the high watermarks).
 */
void dirty_limits(const struct sim *s, unsigned long *ret_bg, unsigned long *ret_thresh)
{
	unsigned long dirtyable = 0, reserve = 0;

	for (int i = 0; i < MAX_NR_ZONES; i++) {
		const struct sim_zone *z = &s->zones[i];

		dirtyable += z->snap.free_pages + z->snap.reclaimable_pages;
		reserve += z->snap.watermark[WMARK_HIGH];
	}
	dirtyable = dirtyable > reserve ? dirtyable - reserve : 0;
	*ret_bg = dirtyable * s->dirty_bg_ratio_pct / 100;
	*ret_thresh = dirtyable * s->dirty_ratio_pct / 100;
}

bool bdev_congested(const struct sim *s)
{
	return s->bdev.nr_req >= CONGESTION_ON_REQS;
}

/* How long until the queue drops below the congestion-off mark (UINT64_MAX: never). */
uint64_t bdev_uncongested_in(const struct sim *s)
{
	const struct sim_bdev *b = &s->bdev;
	uint64_t t;

	if (!bdev_congested(s))
		return 0;
	if (!b->bw_pages_per_sec)
		return UINT64_MAX;
	t = b->busy_until > s->now ? b->busy_until - s->now : 0;
	for (unsigned int k = 1; k + CONGESTION_OFF_REQS <= b->nr_req; k++)
		t += request_usec(s, b->req_pages[(b->req_head + k) % BDEV_NR_REQUESTS]);
	return t;
}

static void schedule_completion(struct sim *s)
{
	struct sim_bdev *b = &s->bdev;

	if (b->completion_pending || !b->nr_req || !b->bw_pages_per_sec)
		return;
	b->busy_until = s->now + request_usec(s, b->req_pages[b->req_head]);
	b->completion_pending = true;
	event_push(s, b->busy_until, EV_WB_DONE, NO_TASK, 0);
}

/*
 * bdev_kick() - the flusher: while dirty pages are above the background threshold, or reclaim
 * asked for some, submit requests from the oldest dirty page on. A full queue is refilled only
 * once it has drained below the congestion-off mark, as writers blocked in get_request() are.
 */
void bdev_kick(struct sim *s)
{
	struct sim_bdev *b = &s->bdev;
	unsigned long bg, thresh;

	if (b->nr_req >= CONGESTION_OFF_REQS)
		return;
	dirty_limits(s, &bg, &thresh);
	while (b->nr_req < BDEV_NR_REQUESTS && b->dirty.count &&
	       (b->dirty.count > bg || b->flush_pages)) {
		unsigned int n = 0;

		while (n < b->request_pages && b->dirty.count) {
			page_file_start_writeback(s, b->dirty.head);
			n++;
		}
		s->res->page_events += n;
		b->req_pages[(b->req_head + b->nr_req) % BDEV_NR_REQUESTS] = n;
		b->nr_req++;
		b->flush_pages = b->flush_pages > n ? b->flush_pages - n : 0;
	}
	schedule_completion(s);
}

/* The request at the head of the queue completed: its pages are clean (or freed). */
void bdev_wb_done(struct sim *s)
{
	struct sim_bdev *b = &s->bdev;
	unsigned int n = b->req_pages[b->req_head];

	b->completion_pending = false;
	for (unsigned int i = 0; i < n; i++)
		page_file_end_writeback(s, b->writeback.head);
	s->res->page_events += n;
	b->req_head = (b->req_head + 1) % BDEV_NR_REQUESTS;
	b->nr_req--;
	bdev_kick(s);
	schedule_completion(s);
}

/* wakeup_flusher_threads() from reclaim: write @nr_pages even below the background mark. */
void wakeup_flusher(struct sim *s, unsigned long nr_pages)
{
	s->bdev.flush_pages += nr_pages;
	if (s->bdev.flush_pages > s->bdev.dirty.count)
		s->bdev.flush_pages = s->bdev.dirty.count;
	bdev_kick(s);
}
