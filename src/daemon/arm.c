// SPDX-License-Identifier: GPL-2.0-only
/* Arming: the victim of a scope chosen ahead while pressure builds, held by a pidfd, so that a
 * verdict under exhaustion kills without a listing (kill.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/daemon.h"
#include "daemon/kill.h"
#include "daemon/log.h"
#include "daemon/match.h"
#include "daemon/unit.h"
#include "linux/sys.h"

void candidate_drop(struct scope *s)
{
	if (s->cand.pidfd >= 0)
		sys->close(s->cand.pidfd);
	s->cand.pidfd = -1;
}

/* The candidate's uid and cgroup, for the helper's hooks and announcements only: read while
 * choosing ahead (the kill path reads nothing). */
static void candidate_identify(struct daemon *d, const struct scope *s, struct candidate *c)
{
	static struct proc_attrs a; /* 2 KiB: the loop's, not the stack's */

	c->uid = -1;
	c->cgroup[0] = '\0';
	if (d->helper.to_fd < 0)
		return;
	memset(&a, 0, sizeof(a));
	match_read(s->root, d->tasks.mounts, task_proc_pid(&c->task),
		   MATCH_NEED(MATCH_UID) | MATCH_NEED(MATCH_CGROUP), d->scratch, sizeof(d->scratch),
		   &a);
	if (a.have & MATCH_NEED(MATCH_UID))
		c->uid = a.uid;
	if (a.have & MATCH_NEED(MATCH_CGROUP))
		snprintf(c->cgroup, sizeof(c->cgroup), "%s", a.cgroup);
}

int daemon_arm(struct daemon *d, struct scope *s, uint64_t now)
{
	struct candidate *c = &s->cand;
	const struct oom_task *t;
	size_t idx = 0;
	long points = 0;
	int pidfd, r;

	candidate_drop(s);
	/*
	 * While the machine makes no progress or stalls on memory more than 10 % of the time, a
	 * process not listed before is left out: opening its files would wait in reclaim (seconds
	 * to over a minute in the guest's flood, mostly for short-lived commands), and it could
	 * not have grown large without allocating. Its files are opened at a verdict's own listing
	 * if no candidate is ready. A group's pressure does not make opens slow: oomguard's
	 * allocations are not charged to it.
	 */
	d->tasks.known_only = listing_known_only(s);
	r = tasks_acquire(&d->tasks, s, &d->cfg, &d->victims, d->self_pid, d->scratch,
			  sizeof(d->scratch));
	if (r >= 0 && d->tasks.known_only &&
	    listing_misses_demand(s, d->tasks.tasks, d->tasks.nr, d->tasks.take.ranked_out_pages)) {
		log_msg(LOG_PRIO_DEBUG,
			"listing scope=%s again in full: the %zu processes known hold under half "
			"of anon + swap in use",
			s->name, d->tasks.nr);
		d->tasks.known_only = false;
		r = tasks_acquire(&d->tasks, s, &d->cfg, &d->victims, d->self_pid, d->scratch,
				  sizeof(d->scratch));
	}
	d->tasks.known_only = false;
	if (r < 0)
		return r;
	switch (
	    select_bad_process(d->tasks.tasks, d->tasks.nr, scope_totalpages(s), &idx, &points)) {
	case OOM_SELECT_NONE:
		return -ENOENT;
	case OOM_SELECT_WAIT:
		return -EBUSY;
	case OOM_SELECT_VICTIM:
	case OOM_SELECT_DYING: /* armed all the same: the verdict reaps it (adopt_dying) */
		break;
	}
	t = &d->tasks.tasks[idx];
	pidfd = kill_open_confirmed(d, s, t);
	if (pidfd < 0)
		return pidfd;
	c->pidfd = pidfd;
	c->task = *t;
	c->points = points;
	c->time_usec = now;
	unit_find(s, d->tasks.mounts, task_proc_pid(t), d->self_pid, now, d->scratch,
		  sizeof(d->scratch), &c->unit);
	candidate_identify(d, s, c);
	if (task_proc_confirm(s->root, t) < 0) { /* the unit read may be another process's */
		candidate_drop(s);
		return -ESTALE;
	}
	return 0;
}

/* What a listing of @s could not take in, said each time it happens. */
void log_listing_limits(const struct daemon *d, const struct scope *s)
{
	if (d->tasks.not_kept)
		log_msg(LOG_PRIO_WARNING,
			"scope=%s: the files of %zu processes found no slot (%zu kept): while the "
			"machine is under pressure they are no candidates",
			s->name, d->tasks.not_kept, d->tasks.nr_fds);
	if (d->tasks.groups_cut)
		log_msg(LOG_PRIO_WARNING,
			"scope=%s: %zu child groups not listed (more than %d levels below it, or a "
			"path over %d bytes): their processes, and those below them, are no "
			"candidates",
			s->name, d->tasks.groups_cut, TASKS_MAX_DEPTH, TASKS_GROUP_PATH_MAX - 1);
	if (d->tasks.take.ranked_out)
		log_msg(LOG_PRIO_DEBUG,
			"scope=%s: %zu processes listed, the %zu that rank first kept for the verdict "
			"(the table holds %d)",
			s->name, d->tasks.nr + d->tasks.take.ranked_out, d->tasks.nr, TASKS_MAX);
}

enum arm_action arm_decide(const struct scope *s, uint64_t now)
{
	const struct candidate *c = &s->cand;
	bool pressed = s->decision.no_progress_loops >= CANDIDATE_ARM_LOOPS;

	if (!pressed && !scope_near_limit(s))
		/* Kept through a progress round in the middle of pressure; dropped once stale. */
		return c->pidfd >= 0 && now - c->time_usec > CANDIDATE_MAX_AGE_USEC ? ARM_DROP
										    : ARM_KEEP;
	if (c->pidfd >= 0 && now - c->time_usec < CANDIDATE_REFRESH_USEC)
		return ARM_KEEP;
	return ARM_CHOOSE;
}

bool listing_known_only(const struct scope *s)
{
	return s->kind == SCOPE_MACHINE &&
	       (s->decision.no_progress_loops > 0 ||
		(s->sample.interval_usec && s->sample.stall_usec * 10 > s->sample.interval_usec));
}

bool listing_misses_demand(const struct scope *s, const struct oom_task *tasks, size_t nr,
			   uint64_t ranked_out_pages)
{
	uint64_t demand = bytes_to_pages(s->cur.anon_bytes + s->cur.swap_bytes, s->page_shift);
	uint64_t held = ranked_out_pages;

	for (size_t i = 0; i < nr; i++)
		held += tasks[i].rss_pages + tasks[i].swap_pages;
	return held < demand / 2;
}

void arm_scope(struct daemon *d, struct scope *s, uint64_t now)
{
	const struct candidate *c = &s->cand;
	char comm[ESCAPED_COMM_LEN];
	uint64_t t0;
	int r;

	switch (arm_decide(s, now)) {
	case ARM_KEEP:
		return;
	case ARM_DROP:
		candidate_drop(s);
		return;
	case ARM_CHOOSE:
		break;
	}
	t0 = now_usec();
	r = daemon_arm(d, s, now);
	if (r < 0) {
		log_msg(LOG_PRIO_DEBUG, "cannot arm scope=%s: %s", s->name, sys_errno_name(r));
		return;
	}
	/*
	 * At debug, pressure or not: a line costs the machine most when it is short of memory,
	 * and a choice ahead is not an act (the kill line says it all when it comes). In the
	 * machine bench's fit (a 1792 MiB job held 5 s in 2 GiB), journald refaulted 5,688 to
	 * 20,071 pages during the job in each boot where this line went out at info, once to
	 * five times, and none in the boots where it did not.
	 */
	escape_comm(c->task.comm, comm, sizeof(comm));
	log_msg(LOG_PRIO_DEBUG,
		"armed scope=%s pid=%d comm=%s rss_kib=%llu badness=%ld loops=%d tasks=%zu "
		"new_left_out=%zu not_kept=%zu listing_usec=%llu",
		s->name, c->task.pid, comm,
		(unsigned long long)pages_to_kib(c->task.rss_pages, s->page_shift), c->points,
		s->decision.no_progress_loops, d->tasks.nr, d->tasks.skipped_new, d->tasks.not_kept,
		(unsigned long long)(now_usec() - t0));
	log_listing_limits(d, s);
}
