// SPDX-License-Identifier: GPL-2.0-only
/*
 * oom_badness() and victim choice. The ranked rules, applied in order; each step in the code
 * carries its number:
 *   1. Never a task that cannot be killed or whose memory cannot be freed by killing it: kernel
 *      threads, init, oomguard itself, tasks the administrator protects, tasks without an mm,
 *      tasks already skipped (reaped or given up on), oom_score_adj -1000, and a child that
 *      shares its parent's mm before its exec (vfork, posix_spawn: its memory is the parent's,
 *      which the parent ranks for; the kernel's in_vfork()).
 *   2. If an earlier victim is still exiting (killed, not yet skipped), choose nobody: wait for it
 *      to free its memory, as select_bad_process() aborts its scan.
 *   3. A task the administrator prefers before any other; one the administrator avoids after.
 *   4. The higher oom_badness(): rss + swap + page tables + oom_score_adj * totalpages / 1000.
 *   5. On equal badness, the one with more memory to free (rss + swap).
 *   6. Then the newer one (later start time): it has done the least work.
 *   7. Then the higher pid: a deterministic key, never the order tasks were listed in.
 *   8. A victim so chosen that is dying already (a SIGKILL pending, or exiting, by another's
 *      hand: the kernel's OOM killer, a user) is not killed again but reaped, and waited for
 *      by rule 2 from then on, as oom_kill_process() marks and reaps a victim that is already
 *      exiting. It stays a candidate like any other: one that ranks lower is not waited for
 *      (4.3 waited for any exiting task, and a stream of exiting processes held its kills).
 */
#include "policy/badness.h"

static const unsigned int unkillable_flags = OOM_TASK_KTHREAD | OOM_TASK_INIT | OOM_TASK_SELF |
					     OOM_TASK_PROTECTED | OOM_TASK_NO_MM | OOM_TASK_VFORK;

/* Decides how much the kernel would gain from killing @t, in pages, adjusted by the user. */
long oom_badness(const struct oom_task *t, unsigned long totalpages)
{
	long points, adj;

	/* 1. */
	if (t->flags & (unkillable_flags | OOM_TASK_SKIP))
		return OOM_BADNESS_UNKILLABLE;
	if (t->oom_score_adj <= OOM_SCORE_ADJ_MIN)
		return OOM_BADNESS_UNKILLABLE;

	/* 4. The memory that would be freed, then the user's bias scaled to the constraint. */
	points = (long)(t->rss_pages + t->swap_pages + t->pgtables_pages);
	adj = t->oom_score_adj > OOM_SCORE_ADJ_MAX ? OOM_SCORE_ADJ_MAX : t->oom_score_adj;
	adj *= (long)(totalpages / 1000);
	return points + adj;
}

static int preference_rank(const struct oom_task *t)
{
	if (t->flags & OOM_TASK_PREFER)
		return 2;
	if (t->flags & OOM_TASK_AVOID)
		return 0;
	return 1;
}

bool oom_task_better(const struct oom_task *a, long a_points, const struct oom_task *b,
		     long b_points)
{
	int ra = preference_rank(a), rb = preference_rank(b);
	unsigned long a_mem = a->rss_pages + a->swap_pages, b_mem = b->rss_pages + b->swap_pages;

	if (ra != rb) /* 3. */
		return ra > rb;
	if (a_points != b_points) /* 4. */
		return a_points > b_points;
	if (a_mem != b_mem) /* 5. */
		return a_mem > b_mem;
	if (a->start_time != b->start_time) /* 6. */
		return a->start_time > b->start_time;
	return a->pid > b->pid; /* 7. */
}

enum oom_select_result select_bad_process(const struct oom_task *tasks, size_t nr_tasks,
					  unsigned long totalpages, size_t *ret_index,
					  long *ret_points)
{
	size_t chosen = 0;
	long chosen_points = OOM_BADNESS_UNKILLABLE;
	bool found = false;

	for (size_t i = 0; i < nr_tasks; i++) {
		const struct oom_task *t = &tasks[i];
		long points;

		/* 1. Tasks that cannot free anything are not even waited for. */
		if (t->flags & unkillable_flags)
			continue;
		/* 2. A victim still exiting: the next kill waits until it is skipped. */
		if ((t->flags & OOM_TASK_VICTIM) && !(t->flags & OOM_TASK_SKIP))
			return OOM_SELECT_WAIT;
		points = oom_badness(t, totalpages);
		if (points == OOM_BADNESS_UNKILLABLE) /* 1. */
			continue;
		if (!found || oom_task_better(t, points, &tasks[chosen], chosen_points)) {
			chosen = i;
			chosen_points = points;
			found = true;
		}
	}
	if (!found)
		return OOM_SELECT_NONE;
	*ret_index = chosen;
	*ret_points = chosen_points;
	return tasks[chosen].flags & OOM_TASK_DYING ? OOM_SELECT_DYING : OOM_SELECT_VICTIM; /* 8. */
}
