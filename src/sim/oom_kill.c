// SPDX-License-Identifier: GPL-2.0-only
/* The OOM killer: out_of_memory() reads the tasks once into struct oom_task, asks the policy's
 * select_bad_process(), and kills; a victim exits over virtual time and frees its memory. */
#include <string.h>

#include "sim/model.h"

static bool is_user_task(const struct sim_task *t)
{
	return t->kind != TK_KSWAPD && t->kind != TK_REAPER && t->kind != TK_KWORKER &&
	       t->kind != TK_NOISE;
}

/*
 * Counts the kill against the request's zones: could reclaim still have met the request? Only the
 * pages reclaim can free count (clean, dirty, under writeback), not the mapped pages of running
 * binaries that the counters call reclaimable but that are referenced on every scan. The test is
 * for an order-0 page: for a higher order the memory was there, only not contiguous (frag).
 */
static void account_kill(struct sim *s, gfp_t gfp, unsigned int order)
{
	struct zone_snapshot zones[MAX_NR_ZONES];
	struct alloc_request req;
	bool premature = false, reclaimable = false;

	fill_request(s, gfp, order, gfp_to_alloc_flags(gfp), zones, &req);
	for (size_t i = 0; i < req.nr_zones; i++) {
		const struct zone_snapshot *z = &zones[i];
		const struct sim_zone *sz = &s->zones[z->idx];
		unsigned long freeable =
		    sz->lists[ZL_FILE_CLEAN].count + sz->nr_dirty + sz->nr_writeback;
		long available = (long)(z->free_pages + freeable);

		if (__zone_watermark_ok(z, 0, min_wmark_pages(z), req.high_zoneidx,
					req.alloc_flags, available))
			premature = true;
		if (zone_reclaimable(z))
			reclaimable = true;
	}
	s->res->premature_kills += premature;
	s->res->reclaimable_kills += reclaimable;
}

/* Wakes a victim that sleeps killably so that it notices SIGKILL. */
void task_kill(struct sim *s, struct sim_task *t)
{
	t->killed = true;
	if (s->cfg->reaper)
		queue_oom_reaper(s, t);
	if (t->run == TR_IDLE || (t->run == TR_RUNNING && !t->runnable))
		task_wake(s, t, 0);
}

/* The SIGKILL: the kill's time is when it is sent ("Killed process" in the log). */
static void oom_kill_now(struct sim *s, int victim)
{
	if (!s->res->first_kill_usec) {
		s->res->first_kill_usec = s->now;
		s->first_victim = victim;
	}
	s->res->last_kill_usec = s->now;
	if (s->res->oom_kills > 1)
		s->res->next_victim_kills++;
	task_kill(s, &s->tasks[victim]);
}

/* The report's end: the victim chosen when it began is killed, oom_lock is released. */
void oom_kill_deferred(struct sim *s)
{
	int victim = s->oom_victim;

	s->oom_victim = NO_TASK;
	if (victim != NO_TASK && s->tasks[victim].run != TR_DEAD)
		oom_kill_now(s, victim);
}

/*
 * How long oom_kill_process()'s report holds oom_lock: the header and a line per process on the
 * serial console, unless the rate limit (10 per 5 s) suppresses it.
 */
static uint64_t oom_report_usec(struct sim *s)
{
	unsigned long tasks = OOM_REPORT_OTHER_TASKS, bytes;

	if (!s->oom_rs_begin || s->now >= s->oom_rs_begin + OOM_RS_INTERVAL_USEC) {
		s->oom_rs_begin = s->now ? s->now : 1;
		s->oom_rs_printed = 0;
	}
	if (s->oom_rs_printed >= OOM_RS_BURST)
		return 0;
	s->oom_rs_printed++;
	s->res->oom_reports++;
	for (int i = 0; i < s->nr_tasks; i++)
		if (is_user_task(&s->tasks[i]) && s->tasks[i].run != TR_DEAD)
			tasks++;
	bytes = OOM_REPORT_HEADER_BYTES + tasks * OOM_REPORT_TASK_BYTES;
	return (uint64_t)bytes * USEC_PER_SEC / CONSOLE_BYTES_PER_SEC;
}

/*
 * out_of_memory() - the kernel's out_of_memory() for a global OOM. Returns true when the caller
 * should retry (a kill was made, an earlier victim is still exiting, or the caller is itself
 * dying); false after a panic (nothing killable). *ret_killed tells whether a task was chosen;
 * with a report to print, the kill comes when it is out (oom_kill_deferred()), and oom_lock is
 * held until then (s->oom_lock_until).
 */
bool out_of_memory(struct sim *s, struct sim_task *current, gfp_t gfp, unsigned int order,
		   bool *ret_killed)
{
	struct oom_task cand[SIM_MAX_TASKS];
	int idx[SIM_MAX_TASKS];
	size_t n = 0, chosen;
	uint64_t report;
	long points;
	enum oom_select_result r;

	*ret_killed = false;
	s->res->oom_calls++;
	s->csv_oom_events++;
	/* task_will_free_mem(current): it is dying already, let it use the reserves. */
	if (current->killed)
		return true;

	for (int i = 0; i < s->nr_tasks; i++) {
		const struct sim_task *t = &s->tasks[i];
		struct oom_task *o = &cand[n];

		if (!is_user_task(t) || t->run == TR_DEAD)
			continue;
		memset(o, 0, sizeof(*o));
		o->pid = t->pid;
		memcpy(o->comm, t->comm, sizeof(o->comm));
		o->rss_pages = t->nr_anon;
		o->start_time = t->start_usec / JIFFY_USEC;
		if (t->killed)
			o->flags |= OOM_TASK_VICTIM;
		if (t->oom_skip)
			o->flags |= OOM_TASK_SKIP;
		idx[n++] = i;
	}
	r = select_bad_process(cand, n, total_managed_pages(s), &chosen, &points);
	if (r == OOM_SELECT_NONE) {
		s->res->outcome = SIM_OUT_PANIC;
		s->stop = true;
		return false;
	}
	if (r == OOM_SELECT_WAIT) {
		s->res->oom_waits++;
		return true;
	}
	account_kill(s, gfp, order);
	s->res->oom_kills++;
	*ret_killed = true;
	if (s->stop_on_kill) {
		oom_kill_now(s, idx[chosen]);
		s->stop = true;
		return true;
	}
	report = oom_report_usec(s);
	if (!report) {
		oom_kill_now(s, idx[chosen]);
		return true;
	}
	/* dump_header() prints under oom_lock before the SIGKILL goes out. */
	s->oom_victim = idx[chosen];
	s->oom_lock_until = s->now + report;
	event_push(s, s->oom_lock_until, EV_OOM_KILL, NO_TASK, 0);
	return true;
}

/* exit_mm(): the victim's memory goes back; the lock it held is released. */
void task_exit_mm(struct sim *s, struct sim_task *t)
{
	task_free_pages(s, (int)(t - s->tasks), false);
	if (t->holds_lock)
		lock_release(s, t);
	t->run = TR_DEAD;
	if (t->killed && (int)(t - s->tasks) == s->first_victim)
		s->res->victim_exit_usec = s->now;
}
