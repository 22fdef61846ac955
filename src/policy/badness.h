/* SPDX-License-Identifier: GPL-2.0-only */
/* oom_badness() and the order in which victims are chosen (select_bad_process), shared by the
 * model's OOM killer and the daemon. The ranked rules are written at the top of badness.c. */
#ifndef OOMGUARD_POLICY_BADNESS_H
#define OOMGUARD_POLICY_BADNESS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define OOM_SCORE_ADJ_MIN (-1000)
#define OOM_SCORE_ADJ_MAX 1000

#define OOM_TASK_COMM_LEN 16

/* Flags that make a task unkillable or special (oom_unkillable_task and friends). */
#define OOM_TASK_KTHREAD 0x01u   /* PF_KTHREAD: no user memory to free */
#define OOM_TASK_INIT 0x02u      /* the global init (PID 1) */
#define OOM_TASK_SELF 0x04u      /* oomguard itself */
#define OOM_TASK_PROTECTED 0x08u /* the administrator protects it by name */
#define OOM_TASK_NO_MM 0x10u     /* all threads have released their mm (zombie) */
#define OOM_TASK_SKIP 0x20u      /* MMF_OOM_SKIP: reaped or given up on; never chosen again */
#define OOM_TASK_VICTIM 0x40u    /* already killed and not yet skipped: wait for it */
#define OOM_TASK_PREFER 0x80u    /* the administrator prefers it as a victim */
#define OOM_TASK_AVOID 0x100u    /* the administrator avoids it as a victim */
#define OOM_TASK_DYING 0x200u    /* dying by another's hand (SIGKILL pending, exiting): reaped */
#define OOM_TASK_VFORK 0x400u    /* a child not exec'd sharing its parent's mm (in_vfork()) */

/*
 * struct oom_task - one candidate, as read once before the decision.
 * @pid:             thread-group id
 * @oom_score_adj:   -1000..1000
 * @comm:            name, NUL-terminated (untrusted: escape before printing)
 * @rss_pages:       resident pages (anon + file + shmem)
 * @swap_pages:      swap entries
 * @pgtables_pages:  page-table pages
 * @start_time:      start time in clock ticks since boot (tie-break: newer first)
 * @flags:           OOM_TASK_*
 * @mm_tid:          a live thread that shows the memory, when the leader has exited and its
 *                   other threads run on (0: the leader shows it)
 */
struct oom_task { /* in this order, 64 bytes: the daemon's table holds 4096, locked */
	int pid;
	int oom_score_adj;
	char comm[OOM_TASK_COMM_LEN];
	unsigned long rss_pages;
	unsigned long swap_pages;
	unsigned long pgtables_pages;
	unsigned long long start_time;
	unsigned int flags;
	int mm_tid;
};

/* The value oom_badness() gives a task that must never be chosen. */
#define OOM_BADNESS_UNKILLABLE LONG_MIN

/*
 * oom_badness() - how good a victim @t is: rss + swap + page tables, plus
 * oom_score_adj * (totalpages / 1000). OOM_BADNESS_UNKILLABLE for kernel threads, init, oomguard
 * itself, protected tasks, tasks without an mm, tasks already skipped, and oom_score_adj -1000.
 * @totalpages: what the constraint allows (RAM + swap, or the memory cgroup's limit)
 */
long oom_badness(const struct oom_task *t, unsigned long totalpages);

/* What select_bad_process() concluded. */
enum oom_select_result {
	OOM_SELECT_NONE,   /* no killable task */
	OOM_SELECT_VICTIM, /* *ret_index is the victim */
	OOM_SELECT_WAIT,   /* an earlier victim is still exiting: kill nothing, wait for it */
	OOM_SELECT_DYING   /* *ret_index is the victim, and it is dying already: reap it, signal
			    * nothing (oom_kill_process() on a victim that task_will_free_mem()) */
};

/*
 * select_bad_process() - choose the victim among @tasks by the ranked rules of badness.c.
 * @ret_index:   the chosen entry (only with OOM_SELECT_VICTIM)
 * @ret_points:  its badness (only with OOM_SELECT_VICTIM)
 */
enum oom_select_result select_bad_process(const struct oom_task *tasks, size_t nr_tasks,
					  unsigned long totalpages, size_t *ret_index,
					  long *ret_points);

/*
 * oom_task_better() - true if @a ranks before @b as a victim (both killable), by rules 2-6 of
 * badness.c. A strict total order on distinct pids.
 */
bool oom_task_better(const struct oom_task *a, long a_points, const struct oom_task *b,
		     long b_points);

/*
 * oom_task_waited_for() - @t is an earlier victim still exiting: while it is listed,
 * select_bad_process() chooses nobody (rule 2 of badness.c).
 */
bool oom_task_waited_for(const struct oom_task *t);

/*
 * oom_tasks_keep_best() - when a listing holds more processes than its table (a large host, a
 * fork bomb's group), what it keeps: sorts @tasks in place, the ones to keep first, and
 * returns how many of them to keep (at most @keep). The order, by rank:
 *   1. earlier victims still exiting (rule 2 waits for them, however small);
 *   2. candidates, by the victim rules (oom_task_better());
 *   3. children sharing their parent's memory before their exec (OOM_TASK_VFORK: a kill of
 *      the parent takes them too, so a table should hold them; after the candidates, so that a
 *      crowd of them cannot push the victim out);
 *   4. tasks that can never be chosen, by pid.
 * A task that does not rank before the last one kept (oom_task_keep_before()) could never be
 * chosen from the listing: it need not be taken in. Pure: no allocation, a heapsort.
 */
size_t oom_tasks_keep_best(struct oom_task *tasks, size_t nr, size_t keep,
			   unsigned long totalpages);

/* oom_task_keep_before() - @a ranks before @b by oom_tasks_keep_best()'s order (distinct pids). */
bool oom_task_keep_before(const struct oom_task *a, const struct oom_task *b,
			  unsigned long totalpages);

/* struct oom_take_limits - a listing's table: @cap entries, cut to @keep when full, ranked
 * against @totalpages (what oom_badness() scales by). */
struct oom_take_limits {
	size_t cap, keep;
	unsigned long totalpages;
};

/* struct oom_take_state - what a listing left out so far: @ranked_out tasks holding
 * @ranked_out_pages (rss + swap), and, once the table was cut, the last task it kept (@floor). */
struct oom_take_state {
	size_t ranked_out;
	unsigned long ranked_out_pages;
	bool has_floor;
	struct oom_task floor;
};

/*
 * oom_tasks_take() - @t, the next task a listing read, into @tasks (*@nr of @lim->cap): a full
 * table is cut first to the @lim->keep tasks that rank best (oom_tasks_keep_best()), and a task
 * that ranks after the last one a cut kept is counted out, not taken. Whatever the order tasks
 * come in, select_bad_process() over the table gives what it gives over every task listed, as
 * long as fewer than @lim->keep of them are earlier victims still exiting. Pure.
 */
void oom_tasks_take(struct oom_task *tasks, size_t *nr, const struct oom_take_limits *lim,
		    struct oom_take_state *st, const struct oom_task *t);

#endif
