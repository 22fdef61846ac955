// SPDX-License-Identifier: GPL-2.0-only
/* The daemon's scopes, set up from the config and torn down, and one round over them: acquire
 * every scope, decide (the seed's rule on net progress), act (kill.c). Nothing here allocates
 * after start-up. */
#include "daemon/daemon.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/log.h"
#include "daemon/report.h"
#include "linux/procfs.h"
#include "linux/sys.h"

volatile sig_atomic_t daemon_stop_requested, daemon_reload_requested;

void daemon_init(struct daemon *d, int argc, char **argv)
{
	d->argc = argc;
	d->argv = argv;
	d->page_shift = sys_page_shift();
	d->nr_scopes = 0;
	d->reaper.report_rd = d->reaper.report_wr = -1; /* not started yet */
	event_state_init(&d->ev);
	notify_init(&d->notify);
	helper_init(&d->helper);
}

const char *daemon_scope_path(const struct scope *s)
{
	return s->kind == SCOPE_MACHINE ? NULL : s->name;
}

static int setup_scopes(struct daemon *d, char *err, size_t errsize)
{
	struct config *c = &d->cfg;
	struct cgroup_mounts mounts;
	const char *root = c->root[0] ? c->root : NULL;
	int r;

	d->nr_scopes = 0;
	d->ev.v1_root_stat[0] = '\0';
	d->ev.v1_mount[0] = '\0';
	if (d->ev.v1_fd >= 0)
		sys->close(d->ev.v1_fd);
	d->ev.v1_fd = -1;
	if (c->machine == 1 || (c->machine == -1 && !c->nr_cgroups)) {
		r = scope_init_machine(&d->scopes[0], root, d->page_shift, d->scratch);
		if (r < 0) {
			snprintf(err, errsize, "cannot read /proc/meminfo: %s", strerror(-r));
			return r;
		}
		r = scope_size_zones(&d->scopes[0], d->scratch);
		if (r < 0) {
			snprintf(err, errsize, "cannot size the machine's zones: %s", strerror(-r));
			scope_close(&d->scopes[0]);
			return r;
		}
		config_scope_settings(c, NULL, &d->scopes[0].set);
		d->nr_scopes = 1;
	}
	r = read_mountinfo(root, d->scratch, sizeof(d->scratch), &mounts);
	if (r < 0 && !c->nr_cgroups)
		return 0; /* the machine alone: the v1 root's events are a saving, not a need */
	if (r < 0) {
		snprintf(err, errsize, "cannot read the mount table: %s", strerror(-r));
		for (size_t k = 0; k < d->nr_scopes; k++)
			scope_close(&d->scopes[k]); /* the machine's zone buffers with it */
		d->nr_scopes = 0;
		return r;
	}
	snprintf(d->ev.v1_mount, sizeof(d->ev.v1_mount), "%s", mounts.v1_memory);
	d->mounts = mounts;
	d->tasks.mounts = &d->mounts; /* the oomd xattrs, kill units */
	if (!c->nr_cgroups)
		return 0;
	for (size_t i = 0; i < c->nr_cgroups; i++) {
		struct scope *s = &d->scopes[d->nr_scopes];

		r = scope_init_cgroup(s, root, c->cgroups[i], &d->mounts, d->page_shift, d->scratch,
				      err, errsize);
		if (r == -ENOENT) { /* not yet (a unit not started): watched once it is there */
			log_msg(LOG_PRIO_WARNING, "%s: waiting for it", err);
			s->absent = true;
			r = 0;
		}
		if (r < 0) {
			for (size_t k = 0; k < d->nr_scopes; k++)
				scope_close(&d->scopes[k]);
			d->nr_scopes = 0;
			return r;
		}
		config_scope_settings(c, s->name, &s->set);
		if (s->kind == SCOPE_CGROUP_V1)
			snprintf(d->ev.v1_root_stat, sizeof(d->ev.v1_root_stat), "%s/memory.stat",
				 mounts.v1_memory);
		d->nr_scopes++;
	}
	return 0;
}

/* The read share's read-ahead rule (progress.h) reads the largest window of the machine's disks,
 * once per set-up for every scope; no /sys/block: the rule is off. */
static void setup_readahead(struct daemon *d)
{
	const char *root = d->cfg.root[0] ? d->cfg.root : NULL;
	uint64_t kb;

	d->readahead_pages = 0;
	if (d->nr_scopes && read_max_readahead_kb(root, d->scratch, sizeof(d->scratch), &kb) == 0)
		d->readahead_pages = kib_to_pages(kb, d->page_shift);
	for (size_t i = 0; i < d->nr_scopes; i++)
		d->scopes[i].readahead_pages = d->readahead_pages;
}

int daemon_setup_scopes(struct daemon *d, char *err, size_t errsize)
{
	int r = setup_scopes(d, err, errsize);

	if (r == 0)
		setup_readahead(d);
	return r;
}

int daemon_check_scopes(struct daemon *d, const struct config *c, char *err, size_t errsize)
{
	const char *root = c->root[0] ? c->root : NULL;
	struct cgroup_mounts mounts;
	struct scope probe;
	int r;

	if (c->machine == 1 || (c->machine == -1 && !c->nr_cgroups)) {
		r = scope_init_machine(&probe, root, d->page_shift, d->scratch);
		scope_close(&probe);
		if (r < 0) {
			snprintf(err, errsize, "cannot read /proc/meminfo: %s", strerror(-r));
			return r;
		}
	}
	if (!c->nr_cgroups)
		return 0;
	r = read_mountinfo(root, d->scratch, sizeof(d->scratch), &mounts);
	if (r < 0) {
		snprintf(err, errsize, "cannot read the mount table: %s", strerror(-r));
		return r;
	}
	for (size_t i = 0; i < c->nr_cgroups; i++) {
		r = scope_init_cgroup(&probe, root, c->cgroups[i], &mounts, d->page_shift, d->scratch,
				      err, errsize);
		scope_close(&probe);
		if (r < 0 && r != -ENOENT) /* one that does not exist yet is waited for */
			return r;
	}
	return 0;
}

/*
 * A configured cgroup that does not exist (not yet, or not any more): looked for again every
 * SCOPE_FULL_READ_ROUNDS rounds; once it is there it is watched like the others.
 */
static void retry_absent(struct daemon *d, struct scope *s, size_t i)
{
	const char *root = d->cfg.root[0] ? d->cfg.root : NULL;
	struct scope_settings set = s->set;
	char name[CONFIG_PATH_MAX], err[CONFIG_PATH_MAX + 64];

	/* Not while the reaper may read the scope's kind and directory (its victim's report). */
	if (d->rounds % SCOPE_FULL_READ_ROUNDS || s->kill_pending ||
	    (d->reaper.started && reaper_busy(&d->reaper)))
		return;
	snprintf(name, sizeof(name), "%s", s->name);
	if (scope_init_cgroup(s, root, name, &d->mounts, d->page_shift, d->scratch, err,
			      sizeof(err)) < 0) {
		s->absent = true; /* still waiting (or it came back as something else: said once) */
		s->set = set;
		return;
	}
	s->set = set;
	s->readahead_pages = d->readahead_pages;
	log_msg(LOG_PRIO_NOTICE, "scope=%s is there: watching it", s->name);
	events_start_scope(d, s, i);
}

void daemon_round(struct daemon *d)
{
	struct round_gate g;
	const struct round_gate *gate;

	d->rounds++;
	log_tick(); /* counts of repeated lines held back, once their window is over */
	gate = events_read_gate(d, &g);
	for (size_t i = 0; i < d->nr_scopes; i++) {
		struct scope *s = &d->scopes[i];
		uint64_t now = now_usec();
		bool term;
		int r;

		if (s->absent) {
			/* a report lost while it was gone would keep it from being looked for */
			kill_overdue(d, s, now);
			retry_absent(d, s, i);
			continue;
		}
		term = term_pending(d, s, now); /* a SIGTERMed victim: its SIGKILL is due */
		r = scope_acquire_gated(s, d->scratch, now, gate);
		if ((r == -ENODEV || r == -ENOENT) && s->kind != SCOPE_MACHINE) {
			log_msg(LOG_PRIO_WARNING, "scope=%s is gone: waiting for it", s->name);
			scope_close(s);
			s->absent = true;
			continue;
		}
		if (r != s->read_err) { /* said each time it changes, not each round */
			if (r < 0)
				log_msg(LOG_PRIO_ERR, "cannot read scope=%s: %s: it is not watched",
					s->name, sys_errno_name(r));
			else
				log_msg(LOG_PRIO_NOTICE, "scope=%s is readable again", s->name);
			s->read_err = r;
		}
		if (r < 0)
			continue;
		scope_decide(s, &d->cfg);
		if (log_max_prio >= LOG_PRIO_DEBUG && s->round.is_round)
			log_decision(s, LOG_PRIO_DEBUG, s->oom ? "round, oom" : "round, retry");
		kill_overdue(d, s, now);
		report_round(s, s->oom && !s->kill_pending && !term);
		if (s->kill_pending || term)
			continue;
		if (s->oom)
			daemon_act(d, s, now);
		else
			arm_scope(d, s, now);
	}
}

void daemon_teardown(struct daemon *d)
{
	reaper_stop(&d->reaper);
	daemon_handle_reports(d); /* the reap that was in progress */
	reaper_release(&d->reaper);
	report_metrics(d, 0, true); /* the last counts into the file */
	helper_stop(&d->helper);
	events_stop(d);
	events_close(&d->ev);
	tasks_close(&d->tasks);
	notify_close(&d->notify);
	config_release(&d->cfg);
}
