// SPDX-License-Identifier: GPL-2.0-only
/* The loop: start-up (scopes, signals, self-protection, the reaper, event sources), rounds
 * every interval or when an OOM eventfd fires, SIGHUP reloads, SIGTERM/SIGINT stop. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/options.h"
#include "daemon/protect.h"
#include "daemon/report.h"
#include "linux/sys.h"

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		daemon_reload_requested = 1;
	else
		daemon_stop_requested = 1;
}

static bool same_scopes(const struct config *a, const struct config *b)
{
	if (a->machine != b->machine || a->nr_cgroups != b->nr_cgroups ||
	    strcmp(a->root, b->root) || a->oom_kill_disable != b->oom_kill_disable)
		return false;
	for (size_t i = 0; i < a->nr_cgroups; i++)
		if (strcmp(a->cgroups[i], b->cgroups[i]))
			return false;
	return true;
}

/*
 * A new scope list, all or nothing: checked first (a scope that cannot be set up keeps the old
 * list running, untouched); then the old one stopped and the new one set up. Should that still
 * fail (a cgroup removed in between), the old list is set up again; a daemon that cannot do
 * that either watches less than it was told to, and stops (exit 1) for its supervisor to start
 * it afresh.
 */
static bool replace_scopes(struct daemon *d, struct config *next)
{
	struct config old = d->cfg;
	char err[512];

	if (daemon_check_scopes(d, next, err, sizeof(err)) < 0) {
		log_msg(LOG_PRIO_ERR, "reload failed, keeping the old config: %s", err);
		config_release(next);
		return false;
	}
	events_stop(d);
	d->cfg = *next;
	if (daemon_setup_scopes(d, err, sizeof(err)) < 0) {
		log_msg(LOG_PRIO_ERR, "reload failed, keeping the old config: %s", err);
		config_release(&d->cfg);
		d->cfg = old;
		if (daemon_setup_scopes(d, err, sizeof(err)) < 0) {
			log_msg(LOG_PRIO_ERR, "cannot restore the old scopes: %s; stopping", err);
			d->exit_code = EXIT_RUNTIME;
			daemon_stop_requested = 1;
			return false;
		}
		events_start(d);
		return false;
	}
	config_release(&old);
	if (d->nr_scopes > d->scopes_faulted) { /* slots no scope used before */
		protect_prefault(&d->scopes[d->scopes_faulted],
				 (d->nr_scopes - d->scopes_faulted) * sizeof(d->scopes[0]));
		d->scopes_faulted = d->nr_scopes;
	}
	events_start(d);
	return true;
}

/*
 * systemd's STATUS=: the scopes watched, the kills, the last verdict and what came of it. Said
 * (with @extra before it: "READY=1\n") when a verdict was noted or a scope came or went since
 * the last one, not every round.
 */
static void say_status(struct daemon *d, const char *extra)
{
	const struct verdict_note *v = &d->last_verdict;
	char text[NOTIFY_STATUS_MAX], comm[ESCAPED_COMM_LEN];
	size_t waiting = 0;
	unsigned long kills;
	int len;

	if (d->notify.fd < 0)
		return;
	for (size_t i = 0; i < d->nr_scopes; i++)
		waiting += d->scopes[i].absent;
	if (!extra && !d->notify.unsent && v->serial == d->said_serial &&
	    waiting == d->said_waiting)
		return;
	d->said_serial = v->serial;
	d->said_waiting = waiting;
	len = snprintf(text, sizeof(text), "watching %zu scope%s", d->nr_scopes - waiting,
		       d->nr_scopes - waiting == 1 ? "" : "s");
	if (waiting)
		len += snprintf(text + len, sizeof(text) - (size_t)len, " (%zu not there yet)",
				waiting);
	kills = d->cfg.dry_run ? d->dry_run_kills : d->kills;
	len += snprintf(text + len, sizeof(text) - (size_t)len, "%s; %lu %skill%s",
			d->cfg.dry_run ? ", dry run" : "", kills, d->cfg.dry_run ? "would-be " : "",
			kills == 1 ? "" : "s");
	if (!v->serial) {
		snprintf(text + len, sizeof(text) - (size_t)len, "; no OOM verdict yet");
	} else {
		escape_comm(v->comm, comm, sizeof(comm));
		len += snprintf(text + len, sizeof(text) - (size_t)len,
				"; last OOM verdict in %s: %s", v->scope, v->outcome);
		if (v->pid && len > 0 && (size_t)len < sizeof(text))
			snprintf(text + len, sizeof(text) - (size_t)len, " pid %d (%s)", v->pid,
				 comm);
	}
	notify_status(&d->notify, extra, text);
}

/* The helper reads the new config too; one wanted now but not started cannot be forked now
 * (the daemon has threads and locked memory): a restart starts it. */
static void reload_helper(struct daemon *d)
{
	struct helper_msg m;

	if (d->helper.to_fd < 0) {
		if (helper_wanted(&d->cfg))
			log_msg(LOG_PRIO_WARNING, "reload: hooks, announcements and metrics need "
						  "the helper, started at start-up only: restart");
		return;
	}
	memset(&m, 0, sizeof(m));
	m.type = HELPER_RELOAD;
	helper_send(&d->helper, &m);
	d->helper.next_metrics_usec = 0; /* the scopes as they are now, at the next round */
}

/*
 * Each scope that has a [scope NAME] section, with what it resolved to (start-up, reload); a
 * section whose scope is not watched (--cgroup options replaced the file's list, --no-machine)
 * said as unused.
 */
static void log_sections(const struct daemon *d)
{
	const struct config *c = &d->cfg;

	for (size_t k = 0; k < c->nr_sections; k++) {
		const struct scope_section *sec = &c->sections[k];
		const struct scope *s = NULL;

		struct scope_settings set;

		for (size_t i = 0; i < d->nr_scopes && !s; i++)
			if (config_scope_settings(c, daemon_scope_path(&d->scopes[i]), &set) == sec)
				s = &d->scopes[i];
		if (!s) {
			log_msg(LOG_PRIO_WARNING,
				"[scope %s] (%s): not watched, its settings unused", sec->name,
				sec->machine ? "the machine" : sec->path);
			continue;
		}
		log_msg(LOG_PRIO_INFO,
			"scope %s: [scope %s]: reserve_permille=%u term_grace_msec=%u kill_unit=%s",
			s->name, sec->name, s->set.reserve_permille, s->set.term_grace_msec,
			config_kill_unit_name(s->set.kill_unit));
	}
}

/* Whether a scope holds a SIGTERMed victim whose SIGKILL is still due (term_pending()). */
static bool term_in_grace(const struct daemon *d)
{
	for (size_t i = 0; i < d->nr_scopes; i++)
		if (d->scopes[i].term.pidfd >= 0)
			return true;
	return false;
}

/* SIGHUP: a bad config keeps the old one; a new scope list is set up afresh. */
static void reload_config(struct daemon *d)
{
	static struct config next; /* static: start-up sized, not on the stack */
	char err[512];
	int r;

	r = options_parse(&next, d->argc, d->argv, err, sizeof(err));
	if (r) {
		log_msg(LOG_PRIO_ERR, "reload failed, keeping the old config: %s",
			r == OPTIONS_HELP ? "--help given" : err);
		return;
	}
	if (d->cfg.default_file_read && !next.default_file_read) {
		log_msg(LOG_PRIO_ERR, "reload failed, keeping the old config: %s is gone",
			CONFIG_DEFAULT_FILE);
		config_release(&next);
		return;
	}
	if (!same_scopes(&d->cfg, &next)) {
		bool grace = term_in_grace(d);

		if (grace || reaper_busy(&d->reaper)) {
			log_msg(LOG_PRIO_WARNING,
				"reload: scopes changed while a victim is being %s; keeping the "
				"old config, send SIGHUP again",
				grace ? "given its SIGTERM grace" : "reaped");
			config_release(&next);
			return;
		}
		/* Idle, so every report is in the pipe: they name scopes, take them first. */
		daemon_handle_reports(d);
		if (!replace_scopes(d, &next))
			return;
	} else {
		config_release(&d->cfg);
		d->cfg = next;
		for (size_t i = 0; i < d->nr_scopes; i++) {
			config_scope_settings(&d->cfg, daemon_scope_path(&d->scopes[i]),
					      &d->scopes[i].set);
			candidate_drop(&d->scopes[i]); /* chosen under the old rules */
		}
	}
	log_max_prio = d->cfg.log_level;
	reaper_set_reap(&d->reaper, d->cfg.reap);
	reload_helper(d);
	log_msg(LOG_PRIO_NOTICE, "config reloaded: %zu scopes, interval %u ms%s", d->nr_scopes,
		d->cfg.interval_msec, d->cfg.dry_run ? ", dry run" : "");
	log_sections(d);
}

/* SIGHUP, told to systemd: reloading, then ready again (whether the new config took or not). */
static void reload(struct daemon *d)
{
	char msg[64];

	snprintf(msg, sizeof(msg), "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)now_usec());
	notify_send(&d->notify, msg);
	reload_config(d);
	say_status(d, "READY=1\n");
}

static void log_started(const struct daemon *d)
{
	log_msg(LOG_PRIO_NOTICE, "started: %zu scopes, interval %u ms, reaping %s%s", d->nr_scopes,
		d->cfg.interval_msec, d->cfg.reap ? "on" : "off",
		d->cfg.dry_run ? ", dry run" : "");
	if (d->helper.pid)
		log_msg(LOG_PRIO_INFO, "helper pid=%d:%s%s%s%s%s%s", (int)d->helper.pid,
			d->cfg.pre_kill_hook[0] ? " pre-kill hook" : "",
			d->cfg.pre_kill_hook[0] && d->cfg.pre_kill_wait_msec ? " (waited for)" : "",
			d->cfg.post_kill_hook[0] ? " post-kill hook" : "",
			d->cfg.dbus_signal ? " D-Bus signal" : "",
			d->cfg.desktop_notify ? " desktop notifications" : "",
			d->cfg.metrics_dir[0] ? " metrics" : "");
	for (size_t i = 0; i < d->nr_scopes; i++) {
		const struct scope *s = &d->scopes[i];

		log_msg(LOG_PRIO_INFO, "scope %s (%s)%s%s, reads %s, read-ahead %llu KiB", s->name,
			scope_kind_name(s->kind), s->oom_efd >= 0 ? ", OOM eventfd" : "",
			s->pressure_efd >= 0 ||
				(s->kind == SCOPE_MACHINE && d->ev.machine_efd >= 0)
			    ? ", vmpressure eventfd"
			: s->events_watch_fd >= 0 ? ", memory.events watched"
						  : "",
			scope_reads_name(s),
			(unsigned long long)pages_to_kib(s->readahead_pages, s->page_shift));
	}
	log_sections(d);
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: epoll_wait() returns EINTR at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* A log reader that went away must cost a dropped line (log.c), not the daemon. */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

/* Everything before the first round. Return: 0, or the exit code to stop with. */
static int start(struct daemon *d)
{
	char err[512];
	size_t keep;
	int r;

	log_max_prio = d->cfg.log_level;
	d->self_pid = getpid();
	/* First: the helper is forked while the daemon is one thread, before it opens its scopes'
	 * files and locks its memory, so that it carries none of them. */
	r = helper_start(&d->helper, &d->cfg, d->argc, d->argv);
	if (r < 0)
		log_errno(r, "cannot start the helper: no hooks, announcements or metrics");
	r = daemon_setup_scopes(d, err, sizeof(err));
	if (r < 0) {
		log_msg(LOG_PRIO_ERR, "%s", err);
		helper_stop(&d->helper);
		/* A path that is no memory cgroup is the configuration's fault; a file of the
		 * kernel that cannot be read is the machine's, which a restart may see mended. */
		return r == -ENOTDIR || r == -ENAMETOOLONG ? EXIT_CONFIG : EXIT_RUNTIME;
	}
	install_signals();
	/* Before mlockall: the socket is the loop's, opened once; its sends never block. */
	if (notify_open(&d->notify, d->self_pid, err, sizeof(err)) < 0)
		log_msg(LOG_PRIO_WARNING, "%s: systemd is not notified", err);
	{
		/* all but the scope slots beyond the configured ones (7.5 KiB each; a reload that
		 * adds scopes faults theirs in: reload()) */
		char *used = (char *)&d->scopes[d->nr_scopes];
		char *tail = (char *)&d->scopes[DAEMON_MAX_SCOPES];
		const struct protect_range ranges[] = {
		    {d, (size_t)(used - (char *)d)},
		    {tail, (size_t)((char *)(d + 1) - tail)},
		};

		protect_self(ranges, 2, d->scratch, sizeof(d->scratch));
		d->scopes_faulted = d->nr_scopes;
	}
	keep = protect_fd_budget();
	if (keep)
		d->tasks.max_fds = keep;
	reaper_set_realtime(d->cfg.realtime);
	/*
	 * The loop runs SCHED_FIFO too: the rule counts rounds, and under thrashing a loop at
	 * normal priority loses most of its 10 rounds a second (docs/daemon-design.md). Its work
	 * per round is bounded and small. Set before the reaper's threads exist: they inherit it,
	 * and so need no CAP_SYS_NICE of their own. `realtime = no` leaves the loop and the
	 * reaper at the priority they were started with.
	 */
	r = reaper_raise_priority();
	if (r < 0)
		log_errno(r, "cannot run the loop SCHED_FIFO (it runs at normal priority)");
	/* Start-up's privileges go before any other thread exists: threads inherit the rest. */
	protect_drop_privileges();
	r = reaper_start(&d->reaper, d->cfg.reap);
	if (r < 0) {
		log_errno(r, "cannot start the reaper thread");
		helper_stop(&d->helper);
		return EXIT_RUNTIME;
	}
	r = events_start(d);
	if (!r)
		r = events_watch_reports(&d->ev, d->reaper.report_rd);
	if (r < 0) {
		log_errno(r, "cannot set up the event loop (epoll)");
		daemon_teardown(d);
		return EXIT_RUNTIME;
	}
	log_started(d);
	return 0;
}

int daemon_run(struct daemon *d)
{
	uint64_t next_round;
	int r = start(d);

	if (r)
		return r;
	daemon_round(d); /* first snapshot; also faults in (and locks) the loop's pages */
	say_status(d, "READY=1\n");
	next_round = now_usec() + d->cfg.interval_msec * 1000ull;
	while (!daemon_stop_requested) {
		uint64_t now = now_usec();
		/* The watchdog's ping comes from here: a loop that stalls is restarted. */
		uint64_t ping = notify_watchdog(&d->notify, now);
		uint64_t wake = ping < next_round ? ping : next_round;
		int timeout = wake > now ? (int)((wake - now + 999) / 1000) : 0;

		r = events_wait(d, timeout);
		if (r < 0 && r != -EINTR) {
			log_errno(r, "epoll_wait");
			d->exit_code = EXIT_RUNTIME; /* the loop cannot wait: no clean stop */
			break;
		}
		if (daemon_stop_requested)
			break;
		if (daemon_reload_requested) {
			daemon_reload_requested = 0;
			reload(d);
			continue;
		}
		now = now_usec();
		if (r > 0 || now >= next_round) {
			daemon_round(d);
			next_round = now + d->cfg.interval_msec * 1000ull;
			say_status(d, NULL);
			report_metrics(d, now, false);
		}
	}
	notify_send(&d->notify, "STOPPING=1");
	log_msg(LOG_PRIO_NOTICE, "stopping: %lu rounds, %lu kills%s", d->rounds,
		d->cfg.dry_run ? d->dry_run_kills : d->kills, d->cfg.dry_run ? " (dry run)" : "");
	daemon_teardown(d);
	return d->exit_code;
}
