// SPDX-License-Identifier: GPL-2.0-only
/* progress_round(): turns a scope's counter deltas into the retry rule's inputs. Pure. */
#include "policy/progress.h"

#include <string.h>

/* The scope's file pages are fewer than @windows read-ahead windows. */
static bool room_under(const struct round_sample *s, const struct progress_params *p,
		       uint64_t windows)
{
	return p->readahead_pages && s->file_pages && s->file_pages < windows * p->readahead_pages;
}

static bool small_room(const struct round_sample *s, const struct progress_params *p)
{
	return room_under(s, p, PROGRESS_RA_ROOM_WINDOWS);
}

/* What a span that says thrashing is in a room of few read-ahead windows (progress.h): held
 * where the room is under one window; where the last window of reads still has fresh pages,
 * pending if the span itself (@span_read pages) has none (a loop's first window of rereads, or
 * a burst of read-ahead evicted before use) and the room is of PROGRESS_RA_ROOM_WINDOWS or more,
 * held if it has some (a stream) or the room is smaller; held under PROGRESS_RA_ROOM_WINDOWS
 * while the long share stays under its bound; thrashing otherwise. */
static enum thrash_state readahead_verdict(const struct round_sample *s,
					   const struct progress_params *p, uint64_t span_read)
{
	uint64_t read = s->ra_span_read_pages > s->ra_span_refaulted_pages
				? s->ra_span_read_pages
				: s->ra_span_refaulted_pages;

	if (!room_under(s, p, PROGRESS_RA_WIDE_WINDOWS))
		return THRASH_YES;
	/* no window of reads yet (the scope's first rounds): nothing says it is no stream */
	if (s->file_pages < p->readahead_pages || !read)
		return THRASH_READAHEAD;
	if (s->ra_span_refaulted_pages * 1000 < read * PROGRESS_RA_SPAN_PERMILLE)
		return s->span_refaulted_pages * 1000 >= span_read * PROGRESS_RA_SPAN_PERMILLE &&
			       !small_room(s, p)
			   ? THRASH_PENDING
			   : THRASH_READAHEAD;
	if (small_room(s, p) && (!s->long_read_pages || s->long_refaulted_pages * 1000 <
							      s->long_read_pages * PROGRESS_RA_SHARE_PERMILLE))
		return THRASH_READAHEAD;
	return THRASH_YES;
}

/* Nothing read or refaulted for a while, and no task waiting for a read meanwhile (progress.h,
 * "Refaults long past"). */
static bool refaults_past(const struct round_sample *s)
{
	return s->has_silence_io && s->silence_usec >= PROGRESS_SILENCE_MIN_USEC &&
	       s->silence_io_stall_usec * PROGRESS_IO_SHARE_DIV < s->silence_usec;
}

/* Mostly swap-ins, no I/O waited for, memory stall measured (progress.h, "Swap-ins that wait
 * for no I/O"). */
static bool swapins_cheap(const struct round_sample *s)
{
	return s->has_stall_usec && s->has_window_io && s->interval_usec &&
	       s->span_refaulted_anon_pages * 2 >= s->span_refaulted_pages &&
	       s->window_io_stall_usec * PROGRESS_IO_SHARE_DIV < s->interval_usec;
}

/* A writer is pushing the scope's pages through its cache (progress.h, "Refaults beside
 * writes"). */
static bool writer_churns(const struct round_sample *s)
{
	bool gauge = s->span_file_pages &&
		     s->span_write_pending_pages * PROGRESS_WRITEBACK_SHARE_DIV >= s->span_file_pages;
	uint64_t written = s->recent_written_pages, refaulted = s->recent_refaulted_pages;

	if (!refaulted) /* no churn to speak of: the gauge alone, where it is all there is */
		return gauge && !s->counts_writes;
	return written >= refaulted ||
	       (gauge && (!s->counts_writes || written * PROGRESS_WRITER_SHARE_DIV >= refaulted));
}

uint64_t progress_io_undilute(uint64_t stall_usec, uint64_t busy_usec, uint64_t iowait_usec,
			      uint64_t span_usec)
{
	uint64_t v = stall_usec, product;

	if (!span_usec || stall_usec >= span_usec)
		return stall_usec;
	if (busy_usec > span_usec && !__builtin_mul_overflow(stall_usec, busy_usec, &product))
		v = product / span_usec;
	if (v < iowait_usec)
		v = iowait_usec;
	return v < stall_usec ? stall_usec : v < span_usec ? v : span_usec;
}

uint64_t progress_io_undilute_group(uint64_t stall_usec, uint64_t usage_usec, uint64_t span_usec)
{
	uint64_t product, v;

	if (!span_usec || stall_usec >= span_usec ||
	    __builtin_mul_overflow(stall_usec, usage_usec, &product))
		return stall_usec;
	v = product / (span_usec - stall_usec);
	return v < stall_usec ? stall_usec : v < span_usec ? v : span_usec;
}

/* The scope's tasks waited for reads at least half of the round (progress.h, "A slow disk's
 * thrash"): its refaults cost time, however few a second. */
static bool reads_waited_for(const struct round_sample *s)
{
	return s->has_window_io && s->interval_usec &&
	       s->window_io_stall_usec * PROGRESS_IO_SHARE_DIV >= s->interval_usec;
}

enum thrash_state progress_thrash(const struct round_sample *s, const struct progress_params *p)
{
	/* A read without a pgpgin count (NFS, FUSE) still refaults: refaults are reads too. */
	uint64_t read = s->span_read_pages > s->span_refaulted_pages ? s->span_read_pages
								   : s->span_refaulted_pages;
	uint64_t span = s->span_usec > 1000000 ? s->span_usec : 1000000;
	/* refaults per second over the span against the floor, as products (no division) */
	uint64_t rate = s->span_refaulted_pages * 1000000;
	uint64_t floor = p->refault_min_pages * span;
	bool waited = reads_waited_for(s);

	if (read < PROGRESS_SPAN_PAGES || s->span_refaulted_pages * PROGRESS_CLEAN_SHARE_DIV < read ||
	    (rate * 2 < floor && !waited) ||
	    (s->is_group && !s->span_stall_events && !s->at_limit))
		return THRASH_NONE;
	if (writer_churns(s))
		return THRASH_WRITEBACK;
	if (s->span_refaulted_pages * PROGRESS_THRASH_SHARE_DIV >= read && (rate >= floor || waited)) {
		if (refaults_past(s))
			return THRASH_STALE;
		if (swapins_cheap(s))
			return THRASH_CHEAP;
		return readahead_verdict(s, p, read);
	}
	return THRASH_MIXED;
}

/* v * num / den. A sum stays under memory + the largest round's reads and memory (two windows)
 * under 2^20 pages: the product fits unless a round reads 2^44 pages (64 PiB). */
static uint64_t scale(uint64_t v, uint64_t num, uint64_t den)
{
	return den ? v * num / den : 0;
}

void progress_long_share_add(struct long_share *ls, uint64_t read, uint64_t refaulted,
			     uint64_t memory_pages)
{
	uint64_t d_read, d_ref;

	if (!memory_pages || !ls->primed || read < ls->last_read || refaulted < ls->last_refaulted) {
		ls->read = ls->refaulted = 0;
		ls->last_read = read;
		ls->last_refaulted = refaulted;
		ls->primed = memory_pages != 0;
		return;
	}
	d_read = read - ls->last_read;
	d_ref = refaulted - ls->last_refaulted;
	ls->last_read = read;
	ls->last_refaulted = refaulted;
	/* A read without a pgpgin count still refaults (progress_thrash()): refaults are reads. */
	if (d_ref > d_read)
		d_read = d_ref;
	ls->read = scale(ls->read, memory_pages, memory_pages + d_read) + d_read;
	ls->refaulted = scale(ls->refaulted, memory_pages, memory_pages + d_read) + d_ref;
}

void progress_marks_add(struct read_marks *m, uint64_t read, uint64_t refaulted,
			uint64_t window_pages)
{
	unsigned int last = (m->next + PROGRESS_MARKS - 1) % PROGRESS_MARKS;

	if (!window_pages || (m->len && (read < m->read[last] || refaulted < m->refaulted[last]))) {
		m->len = m->next = 0;
		if (!window_pages)
			return;
	}
	if (m->len && (read - m->read[last]) * PROGRESS_MARK_STEPS < window_pages)
		return;
	m->read[m->next] = read;
	m->refaulted[m->next] = refaulted;
	m->next = (m->next + 1) % PROGRESS_MARKS;
	if (m->len < PROGRESS_MARKS)
		m->len++;
}

void progress_marks_window(const struct read_marks *m, uint64_t read, uint64_t refaulted,
			   uint64_t window_pages, uint64_t *ret_read, uint64_t *ret_refaulted)
{
	unsigned int i, at = m->next;

	*ret_read = *ret_refaulted = 0;
	for (i = 1; i <= m->len; i++) {
		at = (m->next + PROGRESS_MARKS - i) % PROGRESS_MARKS;
		if (read >= m->read[at] && read - m->read[at] >= window_pages)
			break;
	}
	if (!m->len || read < m->read[at] || refaulted < m->refaulted[at])
		return;
	*ret_read = read - m->read[at];
	*ret_refaulted = refaulted - m->refaulted[at];
}

/* Nothing but the page cache takes memory: anon + swap in use grew by less than a share of what
 * was refaulted (progress.h rule 4). */
static bool demand_flat(const struct round_sample *s)
{
	return s->has_demand &&
	       s->recent_demand_grown_pages * PROGRESS_DEMAND_SHARE_DIV < s->recent_refaulted_pages;
}

/* A room of few read-ahead windows where reads take more memory than anything else (anon +
 * swap grew by fewer pages than the span read): its memory stall is the reclaim its own
 * read-ahead needs, no sign of thrashing (progress.h, rule 5). */
static bool readahead_reclaim(const struct round_sample *s, const struct progress_params *p)
{
	return small_room(s, p) && s->has_demand &&
	       s->recent_demand_grown_pages < s->span_read_pages;
}

/* Rule 5's exception: the stall is reclaim's own work, not waiting. Reclaim stays (refaults under
 * 1/PROGRESS_CLEAN_SHARE_DIV of it), nobody waits for reads (the window's I/O stall under
 * 1/PROGRESS_IO_SHARE_DIV of it, measured), and the tasks stalled on nothing else find CPUs:
 * the CPU stall is measured and not over @cpu_stall_bound_permille of its span (progress.h). */
static bool stall_own_reclaim(const struct round_sample *s, const struct progress_params *p)
{
	return p->cpu_stall_bound_permille && s->has_reclaimed && s->has_cpu_stall &&
	       s->interval_usec && s->has_window_io &&
	       s->refaulted_pages * PROGRESS_CLEAN_SHARE_DIV < s->reclaimed_pages &&
	       PROGRESS_IO_SHARE_DIV * s->window_io_stall_usec < s->interval_usec &&
	       s->cpu_stall_usec * 1000 <= s->cpu_span_usec * p->cpu_stall_bound_permille;
}

/* PSI "some" over @stall_bound_permille of the window (rules 2 and 5). */
static bool stall_over_bound(const struct round_sample *s, const struct progress_params *p)
{
	return s->has_stall_usec && s->interval_usec &&
	       s->stall_usec * 1000 > s->interval_usec * p->stall_bound_permille;
}

/* Rule 2's stall without an event: the machine's memory stall over the bound while its anon +
 * swap grew (progress.h). */
static bool stuck_in_reclaim(const struct round_sample *s, const struct progress_params *p)
{
	return !s->is_group && s->has_demand &&
	       s->recent_demand_grown_pages >= PROGRESS_STUCK_DEMAND_PAGES && stall_over_bound(s, p);
}

static const char *hold_reason(enum thrash_state t)
{
	switch (t) {
	case THRASH_WRITEBACK:
		return "refaults beside a writer's dirty pages: count held";
	case THRASH_READAHEAD:
		return "refaults of read-ahead in a small room: count held";
	case THRASH_PENDING:
		return "refaults in a small room, their window not yet read: count pending";
	case THRASH_STALE:
		return "refaults long past, no task waits for reads: count held";
	default:
		return "reads partly refaults: count held";
	}
}

void progress_round(const struct round_sample *s, const struct progress_params *p,
		    struct round_result *ret_result)
{
	struct round_result r;
	uint64_t reclaimed;
	bool stalled, spared = false;

	memset(&r, 0, sizeof(r));
	/* 1. */
	if (s->parked) {
		r.is_round = true;
		r.reason = "tasks parked under_oom";
		goto out;
	}
	/* 2. */
	if (s->free_plenty) {
		r.reason = "free pages over twice the high watermarks";
		goto out;
	}
	r.thrash = progress_thrash(s, p);
	/* swap-ins that waited for no I/O are no reason for a round by themselves */
	if (!s->stall_events && s->refaulted_pages < p->refault_min_pages &&
	    (r.thrash == THRASH_NONE || r.thrash == THRASH_CHEAP) && !stuck_in_reclaim(s, p)) {
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
	stalled = stall_over_bound(s, p) && !readahead_reclaim(s, p);
	if (stalled && stall_own_reclaim(s, p)) {
		stalled = false;
		spared = true;
	}
	/* 4. */
	if ((!stalled || (r.thrash == THRASH_WRITEBACK && demand_flat(s))) &&
	    (r.thrash == THRASH_MIXED || r.thrash == THRASH_STALE ||
			 r.thrash == THRASH_WRITEBACK || r.thrash == THRASH_READAHEAD ||
			 r.thrash == THRASH_PENDING)) {
		r.hold = true;
		r.reason = hold_reason(r.thrash);
		goto out;
	}
	/* 5. */
	if (stalled) {
		r.reason = "stall over bound";
		goto out;
	}
	/* 6. */
	if (s->has_reclaimed) {
		r.progress = r.net_reclaimed > 0;
		if (!r.progress && s->refaulted_pages >= p->refault_min_pages && writer_churns(s)) {
			r.hold = true;
			r.reason = hold_reason(THRASH_WRITEBACK);
			goto out;
		}
	} else {
		r.progress = true;
		r.net_reclaimed = 1; /* the rule only asks "any progress?" */
	}
	r.reason = r.progress ? "reclaim stayed" : "reclaim undone by refaults";
	if (spared) /* progress: reclaim stayed */
		r.reason = "stall over bound, but reclaim stayed and CPUs to spare";
out:
	*ret_result = r;
}
