// SPDX-License-Identifier: GPL-2.0-only
/* The loop's records: a verdict's inputs for the log; for the helper process: pre-kill, killed,
 * metrics. */
#include "daemon/report.h"

#include <stdio.h>
#include <string.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "linux/sys.h"

int report_pre_kill(struct daemon *d, const struct scope *s, const struct oom_task *victim,
		    long points, int64_t uid, const char *cgroup, uint64_t detect_usec)
{
	struct helper_msg m;
	struct helper_victim *v = &m.u.v;

	if (d->helper.to_fd < 0)
		return 0;
	memset(&m, 0, sizeof(m));
	snprintf(m.scope, sizeof(m.scope), "%s", s->name);
	snprintf(m.kind, sizeof(m.kind), "%s", scope_kind_name(s->kind));
	v->pid = victim->pid;
	v->uid = uid;
	snprintf(v->comm, sizeof(v->comm), "%.15s", victim->comm);
	snprintf(v->cgroup, sizeof(v->cgroup), "%s", cgroup);
	v->badness = points;
	v->oom_score_adj = victim->oom_score_adj;
	v->rss_kib = pages_to_kib(victim->rss_pages, s->page_shift);
	v->detect_to_kill_usec = now_usec() - detect_usec;
	snprintf(v->reason, sizeof(v->reason), "%s", s->decision.reason ? s->decision.reason : "");
	return helper_pre_kill(&d->helper, &d->cfg, &m);
}

static const char *result_name(enum reap_result r)
{
	return r == REAP_RELEASED ? "released" : r == REAP_EXITED ? "exited" : "skipped";
}

void report_killed(struct daemon *d, const struct reap_report *rep)
{
	struct helper_msg m;
	struct helper_victim *v = &m.u.v;
	struct scope *s = rep->scope;

	if (s) {
		s->metrics.freed_bytes += rep->freed_bytes;
		if (rep->result != REAP_SKIPPED)
			metrics_observe(&s->metrics.kill_to_freed, rep->kill_to_freed_usec);
	}
	/* Not oomguard's kill: no hook, no announcement of one (its log line says what it was). */
	if (d->helper.to_fd < 0 || rep->dying)
		return;
	memset(&m, 0, sizeof(m));
	m.type = HELPER_KILLED;
	snprintf(m.scope, sizeof(m.scope), "%s", s ? s->name : "?");
	if (s)
		snprintf(m.kind, sizeof(m.kind), "%s", scope_kind_name(s->kind));
	v->pid = rep->pid;
	v->uid = -1;
	snprintf(v->comm, sizeof(v->comm), "%.15s", rep->comm);
	v->rss_kib = rep->rss_kib;
	v->freed_kib = rep->freed_bytes / 1024;
	v->detect_to_kill_usec = rep->kill_usec - rep->detect_usec;
	v->kill_to_freed_usec = rep->kill_to_freed_usec;
	snprintf(v->result, sizeof(v->result), "%s", result_name(rep->result));
	helper_send(&d->helper, &m);
	report_metrics(d, 0, true); /* the kill in the file now, not up to 5 s later */
}

void report_round(struct scope *s, bool verdict)
{
	struct scope_metrics *m = &s->metrics;

	m->rounds++;
	if (s->round.is_round) {
		m->reclaim_rounds++;
		if (!s->round.progress)
			m->no_progress_rounds++;
	}
	if (verdict)
		m->verdicts++;
}

/* The gauges of @s now, into its counters' record. */
static void fill_gauges(const struct scope *s, struct scope_metrics *m)
{
	const struct zone_snapshot *z = s->cur.nr_zones ? &s->cur.zones[0] : NULL;

	m->loops = s->decision.no_progress_loops;
	m->free_bytes = z ? pages_to_bytes(z->free_pages, s->page_shift) : 0;
	m->reclaimable_bytes = z ? pages_to_bytes(z->reclaimable_pages, s->page_shift) : 0;
	m->min_bytes = z ? pages_to_bytes(z->watermark[WMARK_MIN], s->page_shift) : 0;
	m->limit_bytes = s->cur.limit_bytes;
	m->usage_bytes = s->cur.usage_bytes;
}

void report_metrics(struct daemon *d, uint64_t now, bool force)
{
	struct helper_msg m;

	if (d->helper.to_fd < 0 || !d->cfg.metrics_dir[0] ||
	    (!force && now < d->helper.next_metrics_usec))
		return;
	d->helper.next_metrics_usec = now_usec() + HELPER_METRICS_USEC;
	for (size_t i = 0; i < d->nr_scopes; i++) {
		const struct scope *s = &d->scopes[i];

		memset(&m, 0, sizeof(m));
		m.type = HELPER_METRICS;
		snprintf(m.scope, sizeof(m.scope), "%s", s->name);
		snprintf(m.kind, sizeof(m.kind), "%s", scope_kind_name(s->kind));
		m.u.m = s->metrics;
		fill_gauges(s, &m.u.m);
		helper_send(&d->helper, &m);
	}
}

void log_decision(const struct scope *s, int prio, const char *what)
{
	const struct zone_snapshot *z = s->cur.nr_zones ? &s->cur.zones[0] : NULL;
	int zi = s->decision.passing_zone >= 0 ? s->decision.passing_zone : 0;

	log_msg(
	    prio,
	    "%s scope=%s loops=%d available_pages=%ld min_pages=%lu free_pages=%lu "
	    "reclaimable_pages=%lu stall_events=%llu stall_usec=%llu reclaimed_pages=%llu "
	    "refaulted_pages=%llu span_ms=%llu span_read_pages=%llu span_refaulted_pages=%llu "
	    "span_refaulted_anon_pages=%llu write_pending_pages=%llu file_pages=%llu "
	    "written_pages=%llu recent_refaulted_pages=%llu demand_grown_pages=%lld io_ms=%lld "
	    "cpu_ms=%lld cpu_span_ms=%llu silence_ms=%llu silence_io_ms=%lld "
	    "long_share_permille=%llu room_pages=%llu "
	    "window_read_pages=%llu window_refaulted_pages=%llu parked=%d "
	    "swap_left_pages=%lld swap_grown_pages=%llu "
	    "round=\"%s\" rule=\"%s\"",
	    what, s->name, s->decision.no_progress_loops, s->decision.available[zi],
	    z ? z->watermark[WMARK_MIN] : 0, z ? z->free_pages : 0, z ? z->reclaimable_pages : 0,
	    (unsigned long long)s->sample.stall_events, (unsigned long long)s->sample.stall_usec,
	    (unsigned long long)s->round.reclaimed_pages,
	    (unsigned long long)s->sample.refaulted_pages,
	    (unsigned long long)(s->sample.span_usec / 1000),
	    (unsigned long long)s->sample.span_read_pages,
	    (unsigned long long)s->sample.span_refaulted_pages,
	    (unsigned long long)s->sample.span_refaulted_anon_pages,
	    (unsigned long long)s->sample.span_write_pending_pages,
	    (unsigned long long)s->sample.span_file_pages,
	    (unsigned long long)s->sample.recent_written_pages,
	    (unsigned long long)s->sample.recent_refaulted_pages,
	    s->sample.has_demand ? (long long)s->sample.recent_demand_grown_pages : -1LL,
	    s->sample.has_window_io ? (long long)(s->sample.window_io_stall_usec / 1000) : -1LL,
	    s->sample.has_cpu_stall ? (long long)(s->sample.cpu_stall_usec / 1000) : -1LL,
	    (unsigned long long)(s->sample.cpu_span_usec / 1000),
	    (unsigned long long)(s->sample.silence_usec / 1000),
	    s->sample.has_silence_io ? (long long)(s->sample.silence_io_stall_usec / 1000) : -1LL,
	    s->sample.long_read_pages ? (unsigned long long)(s->sample.long_refaulted_pages * 1000 /
							     s->sample.long_read_pages)
				      : 0ULL,
	    (unsigned long long)s->sample.file_pages,
	    (unsigned long long)s->sample.ra_span_read_pages,
	    (unsigned long long)s->sample.ra_span_refaulted_pages, s->cur.parked,
	    s->swap_end.has_swap ? (long long)s->swap_end.left_pages : -1LL,
	    (unsigned long long)s->swap_end.grown_pages, s->round.reason ? s->round.reason : "",
	    s->decision.reason ? s->decision.reason : "");
}
