// SPDX-License-Identifier: GPL-2.0-only
/* The kill path: arm (choose ahead), act on a verdict (re-check, confirm, SIGKILL through a
 * pidfd, hand to the reaper), and the reaper's reports back. Nothing here allocates. */
#include "daemon/kill.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/report.h"
#include "daemon/unit.h"
#include "linux/sys.h"

/* What the verdict of @s came to, for systemd's STATUS= (loop.c says it). */
static void note_verdict(struct daemon *d, const struct scope *s, const char *outcome,
			 const struct oom_task *victim)
{
	struct verdict_note *v = &d->last_verdict;

	v->serial++;
	v->outcome = outcome;
	v->pid = victim ? victim->pid : 0;
	snprintf(v->comm, sizeof(v->comm), "%.15s", victim ? victim->comm : "");
	snprintf(v->scope, sizeof(v->scope), "%s", s->name);
}
/* One kill's facts, handed down the kill path. */
struct kill_ctx {
	const struct oom_task *victim;
	long points;                /* its badness */
	uint64_t usage_before;      /* the scope's usage at the re-check (0: unread) */
	uint64_t detect_usec;       /* when the verdict was read */
	const struct kill_unit *unit; /* what dies with it */
	bool grace;                 /* SIGTERM first when its scope has a grace (not at its end) */
	int64_t uid;                /* the victim's, -1: not read; for the helper */
	const char *cgroup;         /* likewise, NULL: not read */
	bool dying;                 /* dying already (badness.c rule 8): reaped, not signalled */
};

/* Re-check the scope after choosing and before killing. True: resolved (by free memory, or by
 * the kernel's own OOM kill since the verdict's read), kill nothing. The
 * scope's usage as re-read goes to *@ret_usage (0 when it could not be read): it is the
 * "before" of what the kill frees, read through the scope's open files (no open, no kernel
 * allocation, at the moment memory is exhausted). */
static bool recheck_resolved(struct daemon *d, struct scope *s, const struct oom_task *victim,
			     uint64_t *ret_usage)
{
	struct scope recheck = *s;
	char comm[ESCAPED_COMM_LEN];
	int r;

	r = scope_acquire(&recheck, d->scratch, now_usec());
	memcpy(s->fds, recheck.fds, sizeof(s->fds)); /* a failed read may have reopened one */
	*ret_usage = r == 0 ? recheck.cur.usage_bytes : 0;
	if (r < 0)
		return false;
	/* The kernel's own killer acted in the scope since the verdict's read: memory is coming
	 * back, and a second kill now would be one too many. Free memory resolves a verdict of
	 * exhaustion, not one of thrashing: a thrashing scope's free pages come and go with each
	 * read-ahead batch (reclaim frees what the next refaults take), and one read of them says
	 * nothing of its reads. */
	if (!scope_kernel_killed(&recheck, &s->cur) &&
	    (s->round.thrash == THRASH_YES || !scope_resolved(&recheck)))
		return false;
	escape_comm(victim->comm, comm, sizeof(comm));
	log_msg(LOG_PRIO_NOTICE, "resolved before kill scope=%s pid=%d comm=%s%s", s->name,
		victim->pid, comm,
		scope_kernel_killed(&recheck, &s->cur) ? " (the kernel killed)" : "");
	note_verdict(d, s, "resolved before kill", victim);
	scope_oom_progress(s);
	return true;
}

/* What dies with the victim (unit.h), after it: said on its own line. */
static void kill_rest(struct daemon *d, struct scope *s, const struct oom_task *victim,
		      const struct kill_unit *unit)
{
	long n;

	if (d->cfg.dry_run)
		s->last_unit_kill.ino = 0;
	else
		unit_note_kill(&s->last_unit_kill, unit, now_usec());
	if (unit->mode == UNIT_NONE)
		return;
	n = unit_kill(s, unit, victim->pid, d->self_pid, d->cfg.dry_run, d->scratch,
		      sizeof(d->scratch));
	if (n == -ENOENT || n == -ESTALE) /* gone: the victim was its last task; or another */
		log_msg(n == -ENOENT ? LOG_PRIO_INFO : LOG_PRIO_WARNING,
			"kill unit scope=%s cgroup=%s reason=%s: the group %s: nothing more killed",
			s->name, unit_path(unit), unit_mode_name(unit->mode),
			n == -ENOENT ? "is gone" : "is another than the victim's (or unreadable)");
	else if (n < 0)
		log_msg(LOG_PRIO_WARNING, "kill unit scope=%s cgroup=%s reason=%s via=cgroup.kill",
			s->name, unit_path(unit), unit_mode_name(unit->mode));
	else
		log_msg(LOG_PRIO_WARNING, "%skill unit scope=%s cgroup=%s reason=%s tasks=%ld",
			d->cfg.dry_run ? "dry-run: would " : "", s->name, unit_path(unit),
			unit_mode_name(unit->mode), n);
}

/* SIGTERM first (its scope's term_grace_msec): the victim held in s->term until it exits or its
 * grace ends (term_pending()). Return: true when sent. */
static bool send_term(struct scope *s, const struct kill_ctx *k, int pidfd)
{
	struct term_pending *t = &s->term;
	char comm[ESCAPED_COMM_LEN];
	uint64_t now;

	if (sys->pidfd_send_signal(pidfd, SIGTERM, NULL, 0) < 0)
		return false; /* SIGKILL it is (an exited victim is said there) */
	now = now_usec();
	t->pidfd = pidfd;
	t->task = *k->victim;
	t->points = k->points;
	t->unit = *k->unit;
	t->usage_before_bytes = k->usage_before;
	t->detect_usec = k->detect_usec;
	t->term_usec = now;
	t->deadline_usec = now + s->set.term_grace_msec * 1000ull;
	escape_comm(k->victim->comm, comm, sizeof(comm));
	log_msg(LOG_PRIO_WARNING, "term scope=%s pid=%d comm=%s rss_kib=%llu grace_msec=%u",
		s->name, k->victim->pid, comm,
		(unsigned long long)pages_to_kib(k->victim->rss_pages, s->page_shift),
		s->set.term_grace_msec);
	return true;
}

/* The SIGKILL of @victim failed with @err at @now: said, and a refusal counted (passed over from
 * VICTIM_REFUSALS_MAX on, so that a process the kernel will not let oomguard kill does not
 * stand in the way of every verdict after). */
static void signal_failed(struct daemon *d, struct scope *s, const struct oom_task *victim,
			  int err, uint64_t now)
{
	char comm[ESCAPED_COMM_LEN];

	escape_comm(victim->comm, comm, sizeof(comm));
	if (err == -ESRCH)
		log_msg(LOG_PRIO_NOTICE,
			"victim exited before kill scope=%s pid=%d comm=%s: nothing killed", s->name,
			victim->pid, comm);
	else
		log_errno(err, "pidfd_send_signal pid=%d", victim->pid);
	if ((err == -EPERM || err == -EACCES) &&
	    victim_refused(&d->victims, victim->pid, victim->start_time, now) ==
		VICTIM_REFUSALS_MAX)
		log_msg(LOG_PRIO_WARNING,
			"scope=%s pid=%d comm=%s: SIGKILL refused %d times: passed over from now on",
			s->name, victim->pid, comm, VICTIM_REFUSALS_MAX);
	note_verdict(d, s, err == -ESRCH ? "victim exited before kill" : "kill failed", victim);
}

/* The pre-kill hook (helper.h) told of the victim; true when it vetoed the kill. */
static bool vetoed(struct daemon *d, struct scope *s, const struct kill_ctx *k)
{
	char comm[ESCAPED_COMM_LEN];
	int veto = report_pre_kill(d, s, k->victim, k->points, k->uid, k->cgroup ? k->cgroup : "",
				   k->detect_usec);

	if (!veto)
		return false;
	escape_comm(k->victim->comm, comm, sizeof(comm));
	log_msg(LOG_PRIO_NOTICE, "kill vetoed by the pre-kill hook scope=%s pid=%d comm=%s exit=%d",
		s->name, k->victim->pid, comm, veto);
	note_verdict(d, s, "vetoed by the pre-kill hook", k->victim);
	scope_oom_progress(s); /* asked again after another MAX_RECLAIM_RETRIES rounds */
	return true;
}

static void request_fill(struct reap_request *req, struct scope *s, const struct kill_ctx *k)
{
	memset(req, 0, sizeof(*req));
	req->pid = k->victim->pid;
	memcpy(req->comm, k->victim->comm, sizeof(req->comm));
	req->scope = s;
	req->rss_kib = pages_to_kib(k->victim->rss_pages, s->page_shift);
	req->detect_usec = k->detect_usec;
	req->usage_before_bytes = k->usage_before;
	req->dying = k->dying;
}

/* @victim waited for by the verdicts after it, and handed to the reaper with @pidfd in @req: the
 * reaper first (it takes the pidfd), as a log write may itself wait for memory. Return: -1 when
 * the reaper took @pidfd, else @pidfd, still the caller's. */
static int hand_to_reaper(struct daemon *d, struct scope *s, const struct oom_task *victim,
			  struct reap_request *req, int pidfd)
{
	victim_record(&d->victims, victim->pid, victim->start_time, req->kill_usec);
	req->pidfd = pidfd;
	if (!d->reaper.started || reaper_submit(&d->reaper, req) < 0)
		return pidfd;
	s->kill_pending = true;
	s->kill_pending_usec = req->kill_usec;
	return -1;
}

/*
 * @k->victim is dying already (badness.c rule 8): another's SIGKILL (the kernel's OOM killer, a
 * user's) is pending, or it is in do_exit(). It is not signalled, not counted as a kill, and its
 * unit is left alone (its death was not this verdict's doing); the verdicts after wait for it,
 * and the reaper frees its memory now: a task that cannot run (frozen, in D state) frees
 * nothing by itself, and the kernel's reaper waits OOM_REAPER_DELAY (2 s) for its own victims.
 * Owns @pidfd.
 */
static int adopt_dying(struct daemon *d, struct scope *s, const struct kill_ctx *k, int pidfd)
{
	const struct oom_task *victim = k->victim;
	unsigned long long rss_kib = pages_to_kib(victim->rss_pages, s->page_shift);
	struct reap_request req;
	char comm[ESCAPED_COMM_LEN];

	escape_comm(victim->comm, comm, sizeof(comm));
	if (d->cfg.dry_run) {
		log_msg(LOG_PRIO_NOTICE,
			"dry-run: would reap dying scope=%s pid=%d comm=%s rss_kib=%llu", s->name,
			victim->pid, comm, rss_kib);
		sys->close(pidfd);
		note_verdict(d, s, "would reap a dying victim", victim);
		scope_oom_progress(s);
		return 0;
	}
	request_fill(&req, s, k);
	req.kill_usec = now_usec();
	s->metrics.reaped_dying++;
	note_verdict(d, s, "reaped a dying victim", victim);
	pidfd = hand_to_reaper(d, s, victim, &req, pidfd);
	log_msg(
	    LOG_PRIO_WARNING,
	    "adopt scope=%s pid=%d comm=%s rss_kib=%llu oom_score_adj=%d detect_to_kill_usec=%llu: "
	    "dying already, by another's kill or its own exit: reaped, not signalled",
	    s->name, victim->pid, comm, rss_kib, victim->oom_score_adj,
	    (unsigned long long)(req.kill_usec - k->detect_usec));
	if (pidfd >= 0) {
		log_msg(LOG_PRIO_WARNING, "reaper unavailable for pid=%d: not reaped", victim->pid);
		sys->close(pidfd);
	}
	return 0;
}

/* The processes of the last listing that share the victim's memory, pidfds held. */
#define SHARERS_MAX 4
struct sharers {
	size_t n;
	int pidfd[SHARERS_MAX];
	const struct oom_task *task[SHARERS_MAX];
	bool killed[SHARERS_MAX];
};

/*
 * The processes of the last listing that share @victim's mm without having exec'd
 * (OOM_TASK_VFORK: one mm with their parent), each confirmed through a pidfd: the start time
 * listed, one mm with @victim (kcmp, which needs the victim's mm: asked before its SIGKILL).
 * Its vfork children, and theirs in turn (a child's child shares its parent's mm, so the
 * victim's too). Killing the victim alone frees nothing while one of them holds the mm, so they
 * die with it, as oom_kill_process() kills every process that shares the victim's mm.
 */
static void sharers_find(struct daemon *d, const struct scope *s, const struct oom_task *victim,
			 struct sharers *sh)
{
	sh->n = 0;
	for (size_t i = 0; i < d->tasks.nr && sh->n < SHARERS_MAX; i++) {
		const struct oom_task *t = &d->tasks.tasks[i];
		struct pid_stat st;
		int fd;

		if (!(t->flags & OOM_TASK_VFORK) || t->pid == victim->pid)
			continue;
		fd = sys->pidfd_open(t->pid, 0);
		if (fd < 0)
			continue;
		if (tasks_read_stat(&d->tasks, s->root, t->pid, d->scratch, sizeof(d->scratch),
				    &st) ||
		    st.start_time != t->start_time || sys->kcmp_vm(t->pid, victim->pid) != 0) {
			sys->close(fd);
			continue;
		}
		sh->pidfd[sh->n] = fd;
		sh->killed[sh->n] = false;
		sh->task[sh->n++] = t;
	}
}

/* SIGKILL each of @sh, just after the victim: the reaper's first try needs them dying too. */
static void sharers_kill(struct sharers *sh)
{
	for (size_t i = 0; i < sh->n; i++)
		sh->killed[i] = sys->pidfd_send_signal(sh->pidfd[i], SIGKILL, NULL, 0) == 0;
}

/* Said after the victim's line; the pidfds closed. */
static void sharers_done(const struct scope *s, const struct oom_task *victim, struct sharers *sh)
{
	char comm[ESCAPED_COMM_LEN];

	for (size_t i = 0; i < sh->n; i++) {
		escape_comm(sh->task[i]->comm, comm, sizeof(comm));
		if (sh->killed[i])
			log_msg(LOG_PRIO_WARNING,
				"kill sharer scope=%s pid=%d comm=%s: shares the memory of pid=%d",
				s->name, sh->task[i]->pid, comm, victim->pid);
		sys->close(sh->pidfd[i]);
	}
	sh->n = 0;
}

/*
 * SIGKILL @k->victim through @pidfd (which pins it and whose identity was confirmed; owned: it is
 * closed, or a dup goes to the reaper) and hand it to the reaper, then its unit. With
 * term_grace_msec and @k->grace, SIGTERM instead (send_term). A dry run stops before the signal.
 */
static int signal_and_hand(struct daemon *d, struct scope *s, const struct kill_ctx *k, int pidfd)
{
	const struct oom_task *victim = k->victim;
	struct reap_request req;
	struct sharers sh;
	char comm[ESCAPED_COMM_LEN];
	int r;

	if (k->dying)
		return adopt_dying(d, s, k, pidfd);
	escape_comm(victim->comm, comm, sizeof(comm));
	if (d->cfg.dry_run) {
		/* The whole path but the signal: a dry run reports what a real run would kill. */
		d->dry_run_kills++;
		log_msg(LOG_PRIO_NOTICE,
			"dry-run: would kill scope=%s pid=%d comm=%s rss_kib=%llu badness=%ld "
			"oom_score_adj=%d",
			s->name, victim->pid, comm,
			(unsigned long long)pages_to_kib(victim->rss_pages, s->page_shift), k->points,
			victim->oom_score_adj);
		kill_rest(d, s, victim, k->unit);
		sys->close(pidfd);
		note_verdict(d, s, "would kill", victim);
		scope_oom_progress(s);
		return 0;
	}
	if (k->grace && vetoed(d, s, k)) {
		sys->close(pidfd);
		return -ECANCELED;
	}
	if (k->grace && s->set.term_grace_msec && send_term(s, k, pidfd))
		return 0;
	request_fill(&req, s, k);
	sharers_find(d, s, victim, &sh);
	r = sys->pidfd_send_signal(pidfd, SIGKILL, NULL, 0);
	req.kill_usec = now_usec();
	if (r < 0) {
		sharers_done(s, victim, &sh);
		signal_failed(d, s, victim, r, req.kill_usec);
		sys->close(pidfd);
		return r;
	}
	sharers_kill(&sh);
	d->kills++;
	s->metrics.kills++;
	metrics_observe(&s->metrics.detect_to_kill, req.kill_usec - k->detect_usec);
	note_verdict(d, s, "killed", victim);
	pidfd = hand_to_reaper(d, s, victim, &req, pidfd);
	log_msg(
	    LOG_PRIO_WARNING,
	    "kill scope=%s pid=%d comm=%s rss_kib=%llu oom_score_adj=%d detect_to_kill_usec=%llu",
	    s->name, victim->pid, comm, (unsigned long long)req.rss_kib, victim->oom_score_adj,
	    (unsigned long long)(req.kill_usec - k->detect_usec));
	sharers_done(s, victim, &sh);
	if (pidfd >= 0) /* waited for as a victim still (victim_expire() bounds it), not reaped */
		log_msg(LOG_PRIO_WARNING, "reaper unavailable for pid=%d: not reaped", victim->pid);
	kill_rest(d, s, victim, k->unit);
	if (pidfd >= 0) { /* no report will say its memory is gone: no unit judged against it */
		s->last_unit_kill.ino = 0;
		sys->close(pidfd);
	}
	return 0;
}

bool term_pending(struct daemon *d, struct scope *s, uint64_t now)
{
	struct term_pending *t = &s->term;
	struct kill_ctx k = {.victim = &t->task,
			     .points = t->points,
			     .usage_before = t->usage_before_bytes,
			     .detect_usec = t->detect_usec,
			     .unit = &t->unit,
			     .uid = -1}; /* its grace is over: SIGKILL */
	char comm[ESCAPED_COMM_LEN];
	int pidfd = t->pidfd;

	if (pidfd < 0)
		return false;
	if (!sys_pidfd_exited(pidfd, 0) && now < t->deadline_usec)
		return true; /* its grace goes on: the scope kills nothing else meanwhile */
	t->pidfd = -1;
	if (now >= t->deadline_usec && !sys_pidfd_exited(pidfd, 0)) {
		if (signal_and_hand(d, s, &k, pidfd) == -ESRCH) { /* it exited just before */
			kill_rest(d, s, &t->task, &t->unit);
			scope_oom_progress(s);
		}
		return true;
	}
	escape_comm(t->task.comm, comm, sizeof(comm));
	log_msg(LOG_PRIO_NOTICE, "exited after term scope=%s pid=%d comm=%s term_to_exit_usec=%llu",
		s->name, t->task.pid, comm, (unsigned long long)(now - t->term_usec));
	sys->close(pidfd);
	kill_rest(d, s, &t->task, &t->unit);
	scope_oom_progress(s);
	return true;
}

/*
 * A pidfd on @victim, confirmed to be the process that was listed: the pidfd pins the pid, so a
 * start time that still matches is the same process; and still in the scope's group, which it
 * may have left since the listing (a move to another group). Where its group cannot be read,
 * the listing's word stands. Return: the pidfd, -ESRCH when it exited, -ESTALE when its pid now
 * names another process, -EXDEV when it left the scope, -errno.
 */
int kill_open_confirmed(struct daemon *d, const struct scope *s, const struct oom_task *victim)
{
	struct pid_stat st;
	int pidfd = sys->pidfd_open(victim->pid, 0);
	int r;

	if (pidfd < 0)
		return pidfd;
	r = tasks_read_stat(&d->tasks, s->root, victim->pid, d->scratch, sizeof(d->scratch), &st);
	if (r < 0 || st.start_time != victim->start_time) {
		sys->close(pidfd);
		return r < 0 ? -ESRCH : -ESTALE;
	}
	if (unit_in_scope(s, d->tasks.mounts, task_proc_pid(victim), d->scratch,
			  sizeof(d->scratch)) == 0) {
		sys->close(pidfd);
		return -EXDEV;
	}
	/* Read through a thread of a process whose leader is gone: that thread still its own, or
	 * its tid, and what the reads above and the unit's saw, may be another process's. */
	if (task_proc_confirm(s->root, victim) < 0) {
		sys->close(pidfd);
		return -ESTALE;
	}
	return pidfd;
}

static const char *gone_why(int r)
{
	return r == -ESRCH ? "exited" : r == -ESTALE ? "pid reused" : "left the scope";
}

int daemon_kill(struct daemon *d, struct scope *s, const struct oom_task *victim, long points,
		uint64_t detect_usec, const struct kill_unit *unit)
{
	struct kill_ctx k = {.victim = victim,
			     .points = points,
			     .detect_usec = detect_usec,
			     .unit = unit,
			     .grace = true,
			     .uid = -1,
			     .dying = (victim->flags & OOM_TASK_DYING) != 0};
	char comm[ESCAPED_COMM_LEN];
	bool gone;
	int pidfd;

	if (recheck_resolved(d, s, victim, &k.usage_before))
		return -EAGAIN;
	pidfd = kill_open_confirmed(d, s, victim);
	if (pidfd >= 0)
		return signal_and_hand(d, s, &k, pidfd);
	gone = pidfd == -ESRCH || pidfd == -ESTALE || pidfd == -EXDEV;
	escape_comm(victim->comm, comm, sizeof(comm));
	if (gone)
		log_msg(LOG_PRIO_NOTICE,
			"victim gone before kill scope=%s pid=%d comm=%s (%s): nothing killed",
			s->name, victim->pid, comm, gone_why(pidfd));
	else
		log_errno(pidfd, "pidfd_open pid=%d", victim->pid);
	note_verdict(d, s, gone ? "victim gone before kill" : "kill failed", victim);
	return gone ? -ESRCH : pidfd;
}

/*
 * The verdict's kill through the candidate chosen ahead, when it is fresh and still what it was
 * when chosen: alive, with the oom_score_adj it had (a process that protected itself, or was
 * made a preferred victim, since then is chosen again), the same program (no execve into
 * another name since) and still in the scope's group (the kernel's memcg OOM killer picks only
 * tasks still charged there); and when no victim is still on its way
 * out (killed by this scope or another: the candidate was chosen without knowing whether it is
 * in this scope, and a listing waits for it if it is, as the kernel waits for an exiting
 * victim). Return: true when the verdict was handled (killed, or the re-check found the scope
 * resolved), false to choose afresh.
 */
static bool act_armed(struct daemon *d, struct scope *s, uint64_t detect_usec)
{
	struct candidate *c = &s->cand;
	struct kill_ctx k = {.victim = &c->task,
			     .points = c->points,
			     .detect_usec = detect_usec,
			     .unit = &c->unit,
			     .grace = true,
			     .uid = c->uid,
			     .cgroup = c->cgroup,
			     .dying = (c->task.flags & OOM_TASK_DYING) != 0};
	struct pid_stat st;
	int pidfd, adj, r;

	if (c->pidfd < 0 || detect_usec - c->time_usec > CANDIDATE_MAX_AGE_USEC ||
	    victim_in_flight(&d->victims))
		return false;
	/* A pidfd polls readable once its process has exited (a zombie too): the kernel may have
	 * killed it since. */
	if (sys_pidfd_exited(c->pidfd, 0))
		return false;
	r = tasks_read_adj(&d->tasks, s->root, c->task.pid, d->scratch, sizeof(d->scratch), &adj);
	if (r < 0 || adj != c->task.oom_score_adj)
		return false;
	/* What cannot be read for want of memory is taken as it was when chosen (the kill is
	 * what gives memory back); what was read and differs is not. */
	r = tasks_read_stat(&d->tasks, s->root, c->task.pid, d->scratch, sizeof(d->scratch), &st);
	if (r == -ESRCH || r == -ENOENT ||
	    (r == 0 && (st.start_time != c->task.start_time || strcmp(st.comm, c->task.comm))))
		return false;
	if (r == 0 && pid_stat_dying(&st)) /* the kernel's OOM killer took it since it was armed */
		k.dying = true;
	r = unit_in_scope(s, d->tasks.mounts, task_proc_pid(&c->task), d->scratch,
			  sizeof(d->scratch));
	if (r == 0 || r == -ESRCH || r == -ENOENT || task_proc_confirm(s->root, &c->task) < 0)
		return false;
	if (recheck_resolved(d, s, &c->task, &k.usage_before))
		return true;
	pidfd = c->pidfd; /* it goes to signal_and_hand */
	c->pidfd = -1;
	r = signal_and_hand(d, s, &k, pidfd);
	if (r == -ESRCH)
		return false; /* gone since it was chosen: choose again now */
	if (r == -ECANCELED)
		return true; /* vetoed */
	log_decision(s, LOG_PRIO_NOTICE, "oom");
	return true;
}

void daemon_act(struct daemon *d, struct scope *s, uint64_t detect_usec)
{
	struct kill_unit unit;
	size_t idx = 0;
	long points = 0;
	int r;

	victim_expire(&d->victims, detect_usec, victim_wait_usec(d));
	if (act_armed(d, s, detect_usec))
		return;
	candidate_drop(s);
	r = tasks_acquire(&d->tasks, s, &d->cfg, &d->victims, d->self_pid, d->scratch,
			  sizeof(d->scratch));
	if (r < 0) {
		log_errno(r, "cannot list tasks of scope=%s", s->name);
		return;
	}
	log_listing_limits(d, s);
	switch (
	    select_bad_process(d->tasks.tasks, d->tasks.nr, scope_totalpages(s), &idx, &points)) {
	case OOM_SELECT_NONE:
		log_decision(s, LOG_PRIO_WARNING, "oom, no killable task:");
		note_verdict(d, s, "no killable task", NULL);
		scope_oom_progress(s); /* say it once per MAX_RECLAIM_RETRIES rounds, not each */
		return;
	case OOM_SELECT_WAIT:
		return;
	case OOM_SELECT_VICTIM:
	case OOM_SELECT_DYING: /* daemon_kill() reaps it, signals nothing (adopt_dying) */
		break;
	}
	log_decision(s, LOG_PRIO_NOTICE, "oom");
	unit_find(s, d->tasks.mounts, task_proc_pid(&d->tasks.tasks[idx]), d->self_pid, now_usec(),
		  d->scratch, sizeof(d->scratch), &unit);
	daemon_kill(d, s, &d->tasks.tasks[idx], points, detect_usec, &unit);
}
