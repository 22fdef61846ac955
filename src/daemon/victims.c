// SPDX-License-Identifier: GPL-2.0-only
/* The victim table: the processes oomguard killed, or whose SIGKILL was refused, by pid and start
 * time, how long a kill is waited for (tasks.h, kill.h), and the reaper's reports on them. */
#include <stdint.h>
#include <string.h>

#include "daemon/daemon.h"
#include "daemon/kill.h"
#include "daemon/log.h"
#include "daemon/report.h"
#include "daemon/tasks.h"
#include "linux/sys.h"

/* The entry of the process, or a new one: one entry per process, so that a refused process later
 * killed is known by its last state. A new entry takes the oldest that is not a victim still on
 * its way out (forgetting one would let the next verdict kill again while it exits); only when
 * all are, the oldest. */
static struct victim *victim_slot(struct victim_table *vt, int pid, unsigned long long start_time)
{
	struct victim *v;

	for (size_t i = 0; i < VICTIMS_MAX; i++) {
		v = &vt->v[i];
		if (v->state != VICTIM_FREE && v->pid == pid && v->start_time == start_time)
			return v;
	}
	for (size_t i = 0; i < VICTIMS_MAX; i++)
		if (vt->v[(vt->next + i) % VICTIMS_MAX].state != VICTIM_KILLED) {
			vt->next += i;
			break;
		}
	v = &vt->v[vt->next++ % VICTIMS_MAX];
	memset(v, 0, sizeof(*v));
	v->pid = pid;
	v->start_time = start_time;
	return v;
}

void victim_record(struct victim_table *vt, int pid, unsigned long long start_time,
		   uint64_t kill_usec)
{
	struct victim *v = victim_slot(vt, pid, start_time);

	v->state = VICTIM_KILLED;
	v->kill_usec = kill_usec;
}

unsigned int victim_refused(struct victim_table *vt, int pid, unsigned long long start_time,
			    uint64_t now)
{
	struct victim *v = victim_slot(vt, pid, start_time);

	if (v->state != VICTIM_REFUSED)
		v->refusals = 0;
	v->state = VICTIM_REFUSED;
	v->kill_usec = now;
	return ++v->refusals;
}

size_t victim_expire(struct victim_table *vt, uint64_t now, uint64_t max_age_usec)
{
	size_t n = 0;

	for (size_t i = 0; i < VICTIMS_MAX; i++) {
		struct victim *v = &vt->v[i];

		if (v->state == VICTIM_KILLED && now - v->kill_usec > max_age_usec) {
			v->state = VICTIM_SKIPPED;
			n++;
		}
	}
	return n;
}

bool victim_in_flight(const struct victim_table *vt)
{
	for (size_t i = 0; i < VICTIMS_MAX; i++)
		if (vt->v[i].state == VICTIM_KILLED)
			return true;
	return false;
}

void victim_set_state(struct victim_table *vt, int pid, enum victim_state state)
{
	for (size_t i = 0; i < VICTIMS_MAX; i++)
		if (vt->v[i].pid == pid && vt->v[i].state == VICTIM_KILLED)
			vt->v[i].state = state;
}

unsigned int victim_flags(const struct victim_table *vt, int pid, unsigned long long start_time)
{
	for (size_t i = 0; i < VICTIMS_MAX; i++) {
		const struct victim *v = &vt->v[i];

		if (v->state == VICTIM_FREE || v->pid != pid || v->start_time != start_time)
			continue;
		if (v->state == VICTIM_KILLED)
			return OOM_TASK_VICTIM;
		if (v->state == VICTIM_REFUSED)
			return v->refusals >= VICTIM_REFUSALS_MAX ? OOM_TASK_SKIP : 0;
		return OOM_TASK_SKIP;
	}
	return 0;
}

uint64_t victim_wait_usec(struct daemon *d)
{
	return VICTIM_WAIT_USEC * (1 + (d->reaper.started ? reaper_queued(&d->reaper) : 0));
}

void kill_overdue(struct daemon *d, struct scope *s, uint64_t now)
{
	/* A kill made after @now (term_pending()'s SIGKILL, this round) is not overdue. */
	if (!s->kill_pending || now <= s->kill_pending_usec ||
	    now - s->kill_pending_usec <= victim_wait_usec(d))
		return;
	log_msg(LOG_PRIO_WARNING,
		"scope=%s: no report from the reaper %llu ms after the kill: it may kill again",
		s->name, (unsigned long long)(now - s->kill_pending_usec) / 1000);
	s->kill_pending = false;
	s->last_unit_kill.ino = 0; /* its memory may be charged still */
}

static const char *result_name(enum reap_result r)
{
	return r == REAP_RELEASED ? "released" : r == REAP_EXITED ? "exited" : "skipped";
}

void daemon_handle_reports(struct daemon *d)
{
	struct reap_report rep;
	char comm[ESCAPED_COMM_LEN];

	while (reaper_read_report(&d->reaper, &rep) == 1) {
		struct scope *s = rep.scope;

		/* The report of this kill: a late one of an earlier kill leaves a later kill's
		 * pending (the memory it freed still counts, below). */
		if (s && rep.kill_usec == s->kill_pending_usec)
			s->kill_pending = false;
		/* Not reaped in time: its memory may still be charged to its unit, which must not
		 * be judged against it. */
		if (s && rep.result == REAP_SKIPPED)
			s->last_unit_kill.ino = 0;
		victim_set_state(&d->victims, rep.pid,
				 rep.result == REAP_SKIPPED ? VICTIM_SKIPPED : VICTIM_DONE);
		if (s && (rep.result != REAP_SKIPPED || rep.freed_bytes))
			scope_oom_progress(s);
		escape_comm(rep.comm, comm, sizeof(comm));
		log_msg(rep.result == REAP_SKIPPED ? LOG_PRIO_WARNING : LOG_PRIO_NOTICE,
			"reap scope=%s pid=%d comm=%s result=%s tries=%d callers=%d rss_kib=%llu "
			"rss_after_kib=%llu freed_kib=%llu detect_to_kill_usec=%llu "
			"kill_to_freed_usec=%llu%s%s%s",
			s ? s->name : "?", rep.pid, comm, result_name(rep.result), rep.tries,
			rep.callers, (unsigned long long)rep.rss_kib,
			(unsigned long long)rep.rss_after_kib,
			(unsigned long long)(rep.freed_bytes / 1024),
			(unsigned long long)(rep.kill_usec - rep.detect_usec),
			(unsigned long long)rep.kill_to_freed_usec, rep.err ? " last_error=" : "",
			rep.err ? sys_errno_name(rep.err) : "",
			rep.dying ? " dying_already=1" : "");
		report_killed(d, &rep);
	}
}
