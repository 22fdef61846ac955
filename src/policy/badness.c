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

bool oom_task_waited_for(const struct oom_task *t)
{
	return !(t->flags & unkillable_flags) && (t->flags & OOM_TASK_VICTIM) &&
	       !(t->flags & OOM_TASK_SKIP);
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
		if (oom_task_waited_for(t))
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

/* The class of @t in oom_tasks_keep_best()'s order: the higher, the sooner kept. */
static int keep_class(const struct oom_task *t, long points)
{
	if (oom_task_waited_for(t))
		return 3;
	if (points != OOM_BADNESS_UNKILLABLE)
		return 2;
	return t->flags & OOM_TASK_VFORK ? 1 : 0;
}

bool oom_task_keep_before(const struct oom_task *a, const struct oom_task *b,
			  unsigned long totalpages)
{
	long pa = oom_badness(a, totalpages), pb = oom_badness(b, totalpages);
	int ca = keep_class(a, pa), cb = keep_class(b, pb);

	if (ca != cb)
		return ca > cb;
	if (ca == 2)
		return oom_task_better(a, pa, b, pb);
	return a->pid > b->pid;
}

static void swap_tasks(struct oom_task *a, struct oom_task *b)
{
	struct oom_task t = *a;

	*a = *b;
	*b = t;
}

/* Sifts @tasks[@i] down a heap of @n whose root ranks last (the kept order reversed). */
static void sift_down(struct oom_task *tasks, size_t i, size_t n, unsigned long totalpages)
{
	for (;;) {
		size_t last = i, l = 2 * i + 1, r = l + 1;

		if (l < n && oom_task_keep_before(&tasks[last], &tasks[l], totalpages))
			last = l;
		if (r < n && oom_task_keep_before(&tasks[last], &tasks[r], totalpages))
			last = r;
		if (last == i)
			return;
		swap_tasks(&tasks[i], &tasks[last]);
		i = last;
	}
}

size_t oom_tasks_keep_best(struct oom_task *tasks, size_t nr, size_t keep,
			   unsigned long totalpages)
{
	/* A heap whose root is the task kept last; each one taken off goes to the end, so the
	 * array ends sorted with the task kept first at index 0. */
	for (size_t i = nr / 2; i-- > 0;)
		sift_down(tasks, i, nr, totalpages);
	for (size_t n = nr; n > 1; n--) {
		swap_tasks(&tasks[0], &tasks[n - 1]);
		sift_down(tasks, 0, n - 1, totalpages);
	}
	return nr < keep ? nr : keep;
}

void oom_tasks_take(struct oom_task *tasks, size_t *nr, const struct oom_take_limits *lim,
		    struct oom_take_state *st, const struct oom_task *t)
{
	if (*nr == lim->cap) {
		size_t keep = oom_tasks_keep_best(tasks, *nr, lim->keep, lim->totalpages);

		for (size_t i = keep; i < *nr; i++) {
			st->ranked_out++;
			st->ranked_out_pages += tasks[i].rss_pages + tasks[i].swap_pages;
		}
		*nr = keep;
		st->floor = tasks[keep - 1];
		st->has_floor = true;
	}
	if (st->has_floor && !oom_task_keep_before(t, &st->floor, lim->totalpages)) {
		st->ranked_out++;
		st->ranked_out_pages += t->rss_pages + t->swap_pages;
		return;
	}
	tasks[(*nr)++] = *t;
}
