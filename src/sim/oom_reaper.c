// SPDX-License-Identifier: GPL-2.0-only
/* The OOM reaper kthread: victims queued by the killer; mmap_sem read trylock, up to
 * MAX_OOM_REAP_RETRIES tries HZ/10 apart; reaps the victim's anon pages and sets MMF_OOM_SKIP
 * after success or after giving up, so that the killer may choose the next victim. */
#include "sim/model.h"

void queue_oom_reaper(struct sim *s, struct sim_task *victim)
{
	unsigned int slot;
	struct sim_task *r;

	if (s->reaper == NO_TASK || s->reap_len >= SIM_REAPER_QUEUE)
		return;
	slot = (s->reap_head + s->reap_len) % SIM_REAPER_QUEUE;
	s->reap_queue[slot] = (int)(victim - s->tasks);
	s->reap_at[slot] = s->now + s->reaper_delay_usec;
	s->reap_len++;
	r = &s->tasks[s->reaper];
	if (r->run == TR_IDLE)
		task_wake(s, r, s->reaper_delay_usec);
}

static void reap_pop(struct sim *s)
{
	s->reap_head = (s->reap_head + 1) % SIM_REAPER_QUEUE;
	s->reap_len--;
}

/*
 * oom_reaper_step() - one attempt on the victim at the head of the queue. Returns the time until
 * the reaper runs again, or 0 when the queue is empty (it sleeps until a victim is queued).
 */
uint64_t oom_reaper_step(struct sim *s, struct sim_task *reaper)
{
	(void)reaper;
	while (s->reap_len) {
		struct sim_task *v = &s->tasks[s->reap_queue[s->reap_head]];
		unsigned long freed;

		if (s->now < s->reap_at[s->reap_head])
			return s->reap_at[s->reap_head] - s->now;
		/* Exited on its own, or already skipped: nothing to do. */
		if (v->run == TR_DEAD || v->oom_skip) {
			reap_pop(s);
			continue;
		}
		/* down_read_trylock(&mm->mmap_sem) */
		if (v->mmap_write) {
			if (++v->reap_tries < MAX_OOM_REAP_RETRIES)
				return OOM_REAP_RETRY_USEC;
			/* "oom_reaper: unable to reap": give up, let the next victim be chosen. */
			v->oom_skip = true;
			s->res->reaper_giveups++;
			reap_pop(s);
			return OOM_REAP_RETRY_USEC;
		}
		freed = task_free_pages(s, (int)(v - s->tasks), true);
		s->res->reaped_pages += freed;
		s->res->reaper_successes++;
		v->oom_skip = true;
		reap_pop(s);
		return 1 + freed * FREE_PAGE_NSEC / 1000;
	}
	return 0;
}
