// SPDX-License-Identifier: GPL-2.0-only
/* Scopes, decide: the zone a memory cgroup looks like to the seed's rule, the trailing window,
 * the rule's verdict on it, and the re-check before a kill. Pure: no clock, no file. */
#include "daemon/scope.h"

#include <string.h>

#include "linux/sys.h"
#include "policy/gfp.h"

/* Adds @p, one node's zone of a type, to @z, the machine's zone of that type. */
static void add_node_zone(struct zone_snapshot *z, const struct proc_zone *p, bool swap_free)
{
	z->managed_pages += p->managed_pages;
	z->watermark[WMARK_MIN] += p->min_pages;
	z->watermark[WMARK_LOW] += p->low_pages;
	z->watermark[WMARK_HIGH] += p->high_pages;
	for (unsigned int k = 0; k < MAX_NR_ZONES && k < p->nr_protection; k++)
		z->lowmem_reserve[k] += p->protection[k];
	z->free_pages += p->free_pages;
	z->free_cma_pages += p->free_cma_pages;
	for (unsigned int o = 0; o < MAX_ORDER; o++) {
		z->nr_free[o] += p->nr_free[o];
		/* buddyinfo has no migratetypes: a non-empty order is usable. */
		if (p->nr_free[o])
			z->free_list_mask[o] = (1u << MIGRATE_UNMOVABLE) | (1u << MIGRATE_MOVABLE) |
					       (1u << MIGRATE_RECLAIMABLE);
	}
	z->reclaimable_pages += p->inactive_file + p->active_file;
	if (swap_free)
		z->reclaimable_pages += p->inactive_anon + p->active_anon;
	z->write_pending += p->write_pending;
}

/*
 * The zonelist of the machine, highest zone first, as the allocator walks it. A host with
 * several NUMA nodes has a zone of each type per node; the allocator's zonelist falls back
 * across all of them, so each type is one zone here with the nodes' counts summed (free pages,
 * watermarks, reserves, reclaimable pages), not the first MAX_NR_ZONES zones listed.
 */
void scope_machine_zones(struct scope_snapshot *snap, const struct proc_zone *pz, size_t nr,
			  bool swap_free)
{
	snap->nr_zones = 0;
	for (int type = ZONE_NORMAL; type >= ZONE_DMA; type--) {
		struct zone_snapshot *z = &snap->zones[snap->nr_zones];
		bool any = false;

		for (size_t i = 0; i < nr; i++) {
			if (pz[i].type != type || !pz[i].managed_pages)
				continue;
			if (!any) {
				memset(z, 0, sizeof(*z));
				z->idx = (enum zone_type)type;
				any = true;
			}
			add_node_zone(z, &pz[i], swap_free);
		}
		snap->nr_zones += any;
	}
}

/* What @snap has left under its limit: a group's room, the machine's MemAvailable (0 when over). */
static uint64_t room_left_pages(const struct scope_snapshot *snap, unsigned int page_shift)
{
	return snap->limit_bytes > snap->usage_bytes
		   ? bytes_to_pages(snap->limit_bytes - snap->usage_bytes, page_shift)
		   : 0;
}

void scope_cgroup_zone(struct scope_snapshot *snap, unsigned int reserve_permille,
		       uint64_t dirty_bytes, unsigned int page_shift)
{
	struct zone_snapshot *z = &snap->zones[0];
	uint64_t limit_pages = bytes_to_pages(snap->limit_bytes, page_shift);
	uint64_t free_pages = room_left_pages(snap, page_shift);
	uint64_t min = limit_pages * reserve_permille / 1000;

	memset(z, 0, sizeof(*z));
	if (!min)
		min = 1;
	z->idx = ZONE_NORMAL;
	z->managed_pages = limit_pages;
	z->watermark[WMARK_MIN] = min;
	z->watermark[WMARK_LOW] = min + (min >> WMARK_LOW_SHIFT);
	z->watermark[WMARK_HIGH] = min + (min >> WMARK_HIGH_SHIFT);
	z->free_pages = free_pages;
	z->nr_free[0] = free_pages;
	z->free_list_mask[0] = (1u << MIGRATE_UNMOVABLE) | (1u << MIGRATE_MOVABLE);
	z->reclaimable_pages = bytes_to_pages(snap->file_bytes, page_shift);
	if (snap->swap_free)
		z->reclaimable_pages += bytes_to_pages(snap->anon_bytes, page_shift);
	z->write_pending = bytes_to_pages(dirty_bytes, page_shift);
	snap->nr_zones = 1;
}

void scope_push_history(struct scope *s)
{
	struct scope_counters *h = &s->hist[s->hist_next];

	h->time_usec = s->cur.time_usec;
	h->stall_events = s->cur.stall_events;
	h->stall_usec = s->cur.stall_usec;
	h->reclaimed = s->cur.reclaimed;
	h->refaulted = s->cur.refaulted;
	h->read_pages = s->cur.read_pages;
	h->io_stall_usec = s->cur.io_stall_usec;
	h->cpu_busy_usec = s->cur.cpu_busy_usec;
	h->cpu_iowait_usec = s->cur.cpu_iowait_usec;
	h->cpu_stall_usec = s->cur.cpu_stall_usec;
	h->refaulted_anon = s->cur.refaulted_anon;
	h->written = s->cur.written_pages;
	h->write_pending = 0;
	for (size_t i = 0; i < s->cur.nr_zones; i++)
		h->write_pending += s->cur.zones[i].write_pending;
	h->file_pages = bytes_to_pages(s->cur.file_bytes, s->page_shift);
	h->demand_pages = bytes_to_pages(s->cur.anon_bytes + s->cur.swap_bytes, s->page_shift);
	h->swap_pages = bytes_to_pages(s->cur.swap_bytes, s->page_shift);
	h->dirty_pages = bytes_to_pages(s->cur.dirty_bytes, s->page_shift);
	s->hist_next = (s->hist_next + 1) % SCOPE_HISTORY_ROUNDS;
	if (s->hist_len < SCOPE_HISTORY_ROUNDS)
		s->hist_len++;
}

/* The counters @back rounds before the newest (0: the newest), or the oldest kept. */
static const struct scope_counters *hist_back(const struct scope *s, unsigned int back)
{
	if (back >= s->hist_len)
		back = s->hist_len - 1;
	return &s->hist[(s->hist_next + SCOPE_HISTORY_ROUNDS - 1 - back) % SCOPE_HISTORY_ROUNDS];
}

static uint64_t delta(uint64_t cur, uint64_t prev)
{
	return cur >= prev ? cur - prev
			   : 0; /* a counter that went back: the cgroup was recreated */
}

/*
 * The span of the read share (progress.h): back from the newest round until both the pages
 * read and the pages refaulted since reach PROGRESS_SPAN_PAGES, at most PROGRESS_SPAN_MAX_USEC
 * back, and at least SCOPE_SPAN_MIN_ROUNDS. Both, because the two counters of one read-ahead
 * batch do not move together: a refault counts when its page enters the page cache, the read
 * when blk-throttle lets its bio through, up to a batch's time on the disk later (measured at
 * 4 MiB/s: 2,048 refaults in one round, their reads over the next 2 s). A span that stops at
 * enough reads alone judges the reads of a batch whose refaults lie before it as clean. And
 * where a group's reads are its own (counted when the throttle lets the bio through), a span
 * that stops under the strictest share a span is judged by (PROGRESS_RA_SPAN_PERMILLE, the
 * read-ahead rule's) takes in the rounds just before it that refaulted file pages and read
 * nothing, as long as its refaults stay within its reads: the refaults of a batch whose reads it
 * holds (docs/daemon-design.md, the thrash grid's slowest cell). The machine's
 * pgpgin counts a read at submission, with its refaults; swap-ins (anon refaults) read no file.
 */
#define SCOPE_SPAN_MIN_ROUNDS 2

/* The span from @old back over such rounds (above); @back: the first round before it. */
static const struct scope_counters *span_extend(const struct scope *s,
						const struct scope_counters *old,
						unsigned int back)
{
	const struct scope_counters *now = hist_back(s, 0);

	if (s->kind == SCOPE_MACHINE || s->reads == READS_MACHINE)
		return old;
	for (; back < s->hist_len; back++) {
		const struct scope_counters *h = hist_back(s, back);
		uint64_t read = delta(now->read_pages, old->read_pages);

		if (delta(now->refaulted, old->refaulted) * 1000 >=
		    read * PROGRESS_RA_SPAN_PERMILLE)
			break; /* the strictest share that judges a span: nothing to pair */
		if (delta(now->time_usec, h->time_usec) > PROGRESS_SPAN_MAX_USEC ||
		    h->read_pages != old->read_pages || h->refaulted >= old->refaulted ||
		    h->refaulted_anon != old->refaulted_anon ||
		    delta(now->refaulted, h->refaulted) > read)
			break;
		old = h;
	}
	return old;
}

/* Refaults beside writes (progress.h), over the last PROGRESS_SPAN_MAX_USEC: the pages written
 * and refaulted, and the round whose dirty + writeback pages were the largest share of its file
 * pages (compared as products). A v2 group's io.stat counts pages once their writeback is
 * submitted: what it dirtied is that and what its dirty pages grew by (a writer that has just
 * started has dirtied its share of the cache before writeback begins). The machine's nr_dirtied
 * counts the dirtying itself. The demand (anon + swap) is known where swap in use is: the
 * machine, a v2 group with memory.swap.current; not a v1 group (no PSI to stand against). */
static void writeback_peak(const struct scope *s, struct round_sample *smp)
{
	const struct scope_counters *now = hist_back(s, 0);
	bool add_dirty = s->kind != SCOPE_MACHINE && s->reads == READS_V2_IO_STAT;

	smp->span_write_pending_pages = smp->span_file_pages = 0;
	smp->recent_written_pages = smp->recent_refaulted_pages = 0;
	smp->recent_demand_grown_pages = 0;
	smp->has_demand = s->kind == SCOPE_MACHINE ||
			  (s->kind == SCOPE_CGROUP_V2 && !(s->missing & (1u << V2_SWAP_CURRENT)));
	for (unsigned int back = 0; back < s->hist_len; back++) {
		const struct scope_counters *h = hist_back(s, back);

		if (delta(now->time_usec, h->time_usec) > PROGRESS_SPAN_MAX_USEC)
			break;
		smp->recent_written_pages = delta(now->written, h->written);
		if (add_dirty)
			smp->recent_written_pages += delta(now->dirty_pages, h->dirty_pages);
		smp->recent_refaulted_pages = delta(now->refaulted, h->refaulted);
		smp->recent_demand_grown_pages = delta(now->demand_pages, h->demand_pages);
		if (!h->file_pages || !h->write_pending)
			continue;
		if (!smp->span_file_pages || h->write_pending * smp->span_file_pages >
						 smp->span_write_pending_pages * h->file_pages) {
			smp->span_write_pending_pages = h->write_pending;
			smp->span_file_pages = h->file_pages;
		}
	}
}

/* Every zone that manages pages has PROGRESS_FREE_HIGH_MULT times its high watermark free
 * (progress.h). False without zones. */
static bool free_plenty(const struct scope_snapshot *snap)
{
	size_t used = 0;

	for (size_t i = 0; i < snap->nr_zones; i++) {
		const struct zone_snapshot *z = &snap->zones[i];

		if (!z->managed_pages)
			continue;
		if (z->free_pages < PROGRESS_FREE_HIGH_MULT * z->watermark[WMARK_HIGH])
			return false;
		used++;
	}
	return used > 0;
}

/* The I/O stall from snapshot @from to @to of scope @s, undiluted where both read its CPU time
 * (progress_io_undilute(), progress_io_undilute_group()): false when either did not read the
 * stall, or the total went back. */
static bool io_between(const struct scope *s, const struct scope_counters *from,
		       const struct scope_counters *to, uint64_t *ret_usec)
{
	bool known = from->io_stall_usec != SCOPE_IO_UNKNOWN &&
		     to->io_stall_usec != SCOPE_IO_UNKNOWN &&
		     to->io_stall_usec >= from->io_stall_usec;
	uint64_t span = delta(to->time_usec, from->time_usec), busy;

	*ret_usec = known ? to->io_stall_usec - from->io_stall_usec : 0;
	if (!known || from->cpu_busy_usec == SCOPE_IO_UNKNOWN ||
	    to->cpu_busy_usec == SCOPE_IO_UNKNOWN || to->cpu_busy_usec < from->cpu_busy_usec)
		return known;
	busy = to->cpu_busy_usec - from->cpu_busy_usec;
	*ret_usec = s->kind == SCOPE_CGROUP_V2
			? progress_io_undilute_group(*ret_usec, busy, span)
			: progress_io_undilute(*ret_usec, busy,
					       delta(to->cpu_iowait_usec, from->cpu_iowait_usec), span);
	return known;
}

/*
 * The silence at the end of the history (progress.h, "Refaults long past"): back from the
 * newest round over the rounds that read and refaulted nothing, and the I/O stall over them,
 * known when its two ends read it (the total is cumulative: the rounds between may be quiet
 * rounds that read nothing).
 */
static void silence_sample(const struct scope *s, struct round_sample *smp)
{
	const struct scope_counters *now = hist_back(s, 0), *start = now;

	for (unsigned int back = 1; back < s->hist_len; back++) {
		const struct scope_counters *h = hist_back(s, back);

		if (h->read_pages != now->read_pages || h->refaulted != now->refaulted)
			break;
		start = h;
	}
	smp->silence_usec = delta(now->time_usec, start->time_usec);
	smp->has_silence_io = io_between(s, start, now, &smp->silence_io_stall_usec);
}

/* The stall events of the read share's span, or of the round's window where that reaches
 * further back: a span of two rounds can fall between two failed charges of a thrashing group
 * (measured at 4 MiB/s and 128 KiB read-ahead: 256 refaults in 200 ms, no failed charge in them,
 * 27 in the second before), and a group with a failed charge in its last second is at its limit.
 * The window still keeps out the refaults of a group far below its limit (progress.h). */
static uint64_t span_stalls(const struct scope *s, const struct scope_counters *old)
{
	const struct scope_counters *win = hist_back(s, SCOPE_WINDOW_ROUNDS - 1);

	if (win->time_usec < old->time_usec)
		old = win;
	return delta(hist_back(s, 0)->stall_events, old->stall_events);
}

/*
 * The CPU stall over the last PROGRESS_SPAN_MAX_USEC, or over the window where that is longer
 * (progress.h, rule 5's exception): from the oldest round of that time that read it to the
 * newest (the total is cumulative: quiet rounds between read nothing), known when that covers
 * at least the window. At intervals under 100 ms the history (SCOPE_HISTORY_ROUNDS) ends
 * sooner, and the span with it.
 */
static void cpu_sample(const struct scope *s, struct round_sample *smp)
{
	const struct scope_counters *now = hist_back(s, 0), *old = NULL;
	uint64_t reach = smp->interval_usec > PROGRESS_SPAN_MAX_USEC ? smp->interval_usec
								     : PROGRESS_SPAN_MAX_USEC;

	for (unsigned int back = 1; back < s->hist_len; back++) {
		const struct scope_counters *h = hist_back(s, back);

		if (delta(now->time_usec, h->time_usec) > reach)
			break;
		if (h->cpu_stall_usec != SCOPE_IO_UNKNOWN)
			old = h;
	}
	smp->has_cpu_stall = now->cpu_stall_usec != SCOPE_IO_UNKNOWN && old &&
			     now->cpu_stall_usec >= old->cpu_stall_usec &&
			     delta(now->time_usec, old->time_usec) >= smp->interval_usec;
	smp->cpu_stall_usec = smp->has_cpu_stall ? now->cpu_stall_usec - old->cpu_stall_usec : 0;
	smp->cpu_span_usec = smp->has_cpu_stall ? now->time_usec - old->time_usec : 0;
}

static void span_sample(const struct scope *s, struct round_sample *smp)
{
	const struct scope_counters *now = hist_back(s, 0), *old = now;
	unsigned int back;
	bool enough = false;

	for (back = 1; back < s->hist_len && !enough; back++) {
		const struct scope_counters *h = hist_back(s, back);

		if (delta(now->time_usec, h->time_usec) > PROGRESS_SPAN_MAX_USEC)
			break;
		old = h;
		enough = back >= SCOPE_SPAN_MIN_ROUNDS &&
			 delta(now->read_pages, h->read_pages) >= PROGRESS_SPAN_PAGES &&
			 delta(now->refaulted, h->refaulted) >= PROGRESS_SPAN_PAGES;
	}
	if (enough)
		old = span_extend(s, old, back);
	smp->span_usec = delta(now->time_usec, old->time_usec);
	smp->span_read_pages = delta(now->read_pages, old->read_pages);
	smp->span_refaulted_pages = delta(now->refaulted, old->refaulted);
	smp->span_refaulted_anon_pages = delta(now->refaulted_anon, old->refaulted_anon);
	smp->span_stall_events = span_stalls(s, old);
	smp->is_group = s->kind != SCOPE_MACHINE;
	smp->at_limit = smp->is_group && s->cur.limit_bytes &&
			room_left_pages(&s->cur, s->page_shift) < smp->span_refaulted_pages;
	smp->counts_writes = s->kind == SCOPE_MACHINE || s->reads == READS_V2_IO_STAT;
	smp->free_plenty = s->kind == SCOPE_MACHINE && free_plenty(&s->cur);
	writeback_peak(s, smp);
	silence_sample(s, smp);
}

void scope_build_request(const struct scope *s, struct alloc_request *ret_req)
{
	ret_req->gfp_mask = GFP_HIGHUSER_MOVABLE;
	ret_req->order = 0;
	ret_req->alloc_flags = ALLOC_WMARK_MIN | ALLOC_CPUSET;
	ret_req->high_zoneidx = s->cur.nr_zones ? (int)s->cur.zones[0].idx : ZONE_NORMAL;
	ret_req->zones = s->cur.zones;
	ret_req->nr_zones = s->cur.nr_zones;
}

bool scope_kernel_killed(const struct scope *s, const struct scope_snapshot *before)
{
	/* The machine's oom_kill (vmstat) counts every memory cgroup's kills too: a container at
	 * its own limit is no progress of the machine's. A group's counts its own (and below). */
	return s->kind != SCOPE_MACHINE && before->time_usec &&
	       s->cur.kernel_oom_kills > before->kernel_oom_kills;
}

/* Rounds whose verdict waits for a window of reads (THRASH_PENDING, held) are counted once the
 * window says thrashing, and forgotten at the first round whose reads say anything else
 * (progress.h, "Read-ahead larger than the room"). A pending round that PSI's stall counted
 * already (rule 5: not held) is not added, and the ones before it wait on. */
static void pending_rounds(struct scope *s)
{
	if (s->round.thrash == THRASH_PENDING) {
		if (s->round.hold && s->pending_rounds < MAX_RECLAIM_RETRIES + 1)
			s->pending_rounds++;
		return;
	}
	if (s->round.thrash == THRASH_YES && s->round.is_round)
		s->retry.no_progress_loops += (int)s->pending_rounds;
	s->pending_rounds = 0;
}

/* Swap's end in sight (swap_end.h): the machine's swap, its pace over the window (at least
 * SWAP_END_MIN_SPAN_USEC of it), and the horizon of the count: MAX_RECLAIM_RETRIES rounds of
 * the configured interval. Into @ret for the log. */
static bool swap_end_sample(const struct scope *s, const struct config *c, struct swap_end *ret)
{
	const struct scope_counters *now = hist_back(s, 0), *prev = hist_back(s, 1);
	const struct scope_counters *old = hist_back(s, SCOPE_WINDOW_ROUNDS - 1);

	*ret = (struct swap_end){
	    .has_swap = s->kind == SCOPE_MACHINE && s->cur.has_swap,
	    .left_pages = bytes_to_pages(s->cur.swap_left_bytes, s->page_shift),
	    .avail_pages = room_left_pages(&s->cur, s->page_shift),
	    .grown_pages = delta(now->swap_pages, old->swap_pages),
	    .span_usec = delta(now->time_usec, old->time_usec),
	    .growing = now->swap_pages > prev->swap_pages,
	    .horizon_usec = (uint64_t)MAX_RECLAIM_RETRIES * c->interval_msec * 1000,
	};
	return swap_end_near(ret);
}

void scope_decide(struct scope *s, const struct config *c)
{
	struct progress_params params = {c->stall_bound_permille, c->refault_min_pages,
					 s->readahead_pages, c->cpu_stall_bound_permille};
	struct round_sample *smp = &s->sample;
	struct alloc_request req;
	const struct scope_counters *old;

	s->oom = false;
	s->decided = false;
	if (scope_kernel_killed(s, &s->prev)) {
		/* The kernel's killer freed memory in the scope: progress, as a kill of ours is. */
		scope_oom_progress(s);
		memset(&s->decision, 0, sizeof(s->decision));
		s->decision.verdict = RETRY_RECLAIM;
		s->decision.reason = "the kernel killed";
		s->decided = true;
		return;
	}
	if (s->hist_len < 2)
		return;
	old = hist_back(s, SCOPE_WINDOW_ROUNDS - 1);
	memset(smp, 0, sizeof(*smp));
	smp->interval_usec = delta(s->cur.time_usec, old->time_usec);
	smp->stall_events = delta(s->cur.stall_events, old->stall_events);
	smp->stall_usec = delta(s->cur.stall_usec, old->stall_usec);
	smp->has_stall_usec = s->kind != SCOPE_CGROUP_V1;
	smp->reclaimed_pages = delta(s->cur.reclaimed, old->reclaimed);
	smp->has_reclaimed = s->cur.counts_reclaim;
	smp->refaulted_pages = delta(s->cur.refaulted, old->refaulted);
	smp->has_window_io = io_between(s, old, hist_back(s, 0), &smp->window_io_stall_usec);
	cpu_sample(s, smp);
	span_sample(s, smp);
	progress_long_share_add(&s->long_share, s->cur.read_pages, s->cur.refaulted,
				PROGRESS_RA_MEMORY_WINDOWS * s->readahead_pages);
	progress_marks_add(&s->read_marks, s->cur.read_pages, s->cur.refaulted, s->readahead_pages);
	progress_marks_window(&s->read_marks, s->cur.read_pages, s->cur.refaulted,
			      s->readahead_pages, &smp->ra_span_read_pages,
			      &smp->ra_span_refaulted_pages);
	smp->file_pages = bytes_to_pages(s->cur.file_bytes, s->page_shift);
	smp->long_read_pages = s->long_share.read;
	smp->long_refaulted_pages = s->long_share.refaulted;
	smp->parked = s->cur.parked;
	progress_round(smp, &params, &s->round);
	s->decided = true;
	pending_rounds(s);
	if (swap_end_sample(s, c, &s->swap_end)) {
		memset(&s->decision, 0, sizeof(s->decision));
		s->decision.verdict = RETRY_OOM;
		s->decision.no_progress_loops = s->retry.no_progress_loops;
		s->decision.reason = "swap full before the count could end";
		s->oom = true;
		return;
	}
	if (!s->round.is_round) {
		if (++s->quiet_rounds >= SCOPE_QUIET_ROUNDS_RESET) {
			s->retry.no_progress_loops = 0;
			s->retry.pages_reclaimed = 0;
		}
		memset(&s->decision, 0, sizeof(s->decision));
		s->decision.verdict = RETRY_RECLAIM;
		s->decision.no_progress_loops = s->retry.no_progress_loops;
		s->decision.reason = "not a round";
		return;
	}
	s->quiet_rounds = 0;
	if (s->round.hold) {
		memset(&s->decision, 0, sizeof(s->decision));
		s->decision.verdict = RETRY_RECLAIM;
		s->decision.no_progress_loops = s->retry.no_progress_loops;
		s->decision.reason = "count held";
		return;
	}
	scope_build_request(s, &req);
	reclaim_retry_decide(RETRY_RULE_REWORK, &req,
			     s->round.progress ? (unsigned long)s->round.net_reclaimed : 0,
			     &s->retry, &s->decision);
	s->oom = s->decision.verdict == RETRY_OOM;
}

bool scope_resolved(const struct scope *s)
{
	struct alloc_request req;

	if (s->cur.parked)
		return false;
	/*
	 * As the kernel's last try before its OOM killer: the request at the high watermark,
	 * with the lowmem reserves of its classzone. Without them, the DMA zone, kept free for
	 * lower classzones, would always look "resolved" on a machine.
	 */
	scope_build_request(s, &req);
	for (size_t i = 0; i < req.nr_zones; i++) {
		const struct zone_snapshot *z = &req.zones[i];

		if (zone_watermark_ok(z, req.order, z->watermark[WMARK_HIGH], req.high_zoneidx,
				      ALLOC_WMARK_HIGH | ALLOC_CPUSET))
			return true;
	}
	return false;
}

bool scope_near_limit(const struct scope *s)
{
	uint64_t limit = s->cur.limit_bytes;

	return limit &&
	       s->cur.usage_bytes >= limit - limit / 1000 * SCOPE_NEAR_LIMIT_FREE_PERMILLE;
}

void scope_oom_progress(struct scope *s)
{
	retry_state_oom_progress(&s->retry);
	s->pending_rounds = 0;
	s->hist_len = 0;
	s->hist_next = 0;
	scope_push_history(s);
}

unsigned long scope_totalpages(const struct scope *s)
{
	return (unsigned long)bytes_to_pages(s->cur.limit_bytes, s->page_shift);
}
