// SPDX-License-Identifier: GPL-2.0-only
/* The OOM killer: out_of_memory() reads the tasks once into struct oom_task, asks the policy's
 * select_bad_process(), and kills; a victim exits over virtual time and frees its memory. */
#include <string.h>

#include "sim/model.h"

static bool is_user_task(const struct sim_task *t)
{
	return t->kind != TK_KSWAPD && t->kind != TK_REAPER;
}

/*
 * Counts the kill against the request's zones: could reclaim still have met the request? Only the
 * pages reclaim can free count (clean, dirty, under writeback), not the mapped pages of running
 * binaries that the counters call reclaimable but that are referenced on every scan.
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

		if (__zone_watermark_ok(z, order, min_wmark_pages(z), req.high_zoneidx,
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

/*
 * out_of_memory() - the kernel's out_of_memory() for a global OOM. Returns true when the caller
 * should retry (a kill was made, an earlier victim is still exiting, or the caller is itself
 * dying); false after a panic (nothing killable). *ret_killed tells whether a task was killed.
 */
bool out_of_memory(struct sim *s, struct sim_task *current, gfp_t gfp, unsigned int order,
		   bool *ret_killed)
{
	struct oom_task cand[SIM_MAX_TASKS];
	int idx[SIM_MAX_TASKS];
	size_t n = 0, chosen;
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
	if (!s->res->first_kill_usec) {
		s->res->first_kill_usec = s->now;
		s->first_victim = idx[chosen];
	}
	s->res->last_kill_usec = s->now;
	if (s->res->oom_kills > 1)
		s->res->next_victim_kills++;
	task_kill(s, &s->tasks[idx[chosen]]);
	*ret_killed = true;
	if (s->stop_on_kill)
		s->stop = true;
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
