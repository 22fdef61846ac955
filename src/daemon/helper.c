// SPDX-License-Identifier: GPL-2.0-only
/* The helper process: forked at start-up, fed fixed-size records by the loop over a
 * non-blocking pipe; it runs the hooks, announces kills and writes the metrics file. */
#include "daemon/helper.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "daemon/log.h"
#include "daemon/match.h"
#include "daemon/options.h"
#include "daemon/reaper.h"
#include "linux/cgroupfs.h"
#include "linux/sys.h"

/* ---- The daemon's side ---- */

bool helper_wanted(const struct config *c)
{
	return c->pre_kill_hook[0] || c->post_kill_hook[0] || c->dbus_signal ||
	       c->desktop_notify || c->metrics_dir[0];
}

void helper_init(struct helper *h)
{
	memset(h, 0, sizeof(*h));
	h->pidfd = h->to_fd = h->from_fd = -1;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		sys->close(*fd);
	*fd = -1;
}

int helper_start(struct helper *h, const struct config *c, int argc, char **argv)
{
	int to[2] = {-1, -1}, from[2] = {-1, -1};
	pid_t parent = getpid(), pid;
	int r;

	helper_init(h);
	if (!helper_wanted(c))
		return 0;
	r = sys->pipe2(to, 0);
	if (r == 0)
		r = sys->pipe2(from, 0);
	if (r == 0)
		r = sys->fcntl(to[1], F_SETFL, O_NONBLOCK);
	if (r == 0)
		r = sys->fcntl(from[0], F_SETFL, O_NONBLOCK);
	if (r < 0)
		goto fail;
	pid = sys->fork();
	if (pid == 0) {
		sys->close(to[1]);
		sys->close(from[0]);
		helper_main(to[0], from[1], parent, argc, argv);
	}
	if (pid < 0) {
		r = pid;
		goto fail;
	}
	h->pid = pid;
	h->to_fd = to[1];
	h->from_fd = from[0];
	sys->close(to[0]);
	sys->close(from[1]);
	h->pidfd = sys->pidfd_open(pid, 0); /* -1: helper_stop() waits by pid */
	return 0;
fail:
	close_fd(&to[0]);
	close_fd(&to[1]);
	close_fd(&from[0]);
	close_fd(&from[1]);
	return r;
}

int helper_send(struct helper *h, struct helper_msg *m)
{
	ssize_t r = -EPIPE;

	if (h->to_fd < 0)
		return 0;
	m->dropped = h->dropped;
	for (int i = 0; i < SYS_EINTR_RETRIES && r != sizeof(*m); i++) {
		r = sys->write(h->to_fd, m, sizeof(*m));
		if (r != -EINTR)
			break;
	}
	if (r == (ssize_t)sizeof(*m)) {
		if (h->last_err)
			log_msg(LOG_PRIO_NOTICE, "helper: records go through again (%llu dropped)",
				(unsigned long long)h->dropped);
		h->dropped = 0;
		h->last_err = 0;
		return 0;
	}
	if (r >= 0)
		r = -EIO; /* a pipe takes a record of at most PIPE_BUF whole, or not at all */
	h->dropped++;
	h->dropped_total++;
	if ((int)r != h->last_err)
		log_msg(LOG_PRIO_WARNING, "helper: cannot hand it a record (%s): dropped",
			sys_errno_name((int)r));
	h->last_err = (int)r;
	return (int)r;
}

/* The answer to pre-kill record @serial, waited for until @deadline. Return: the veto, 0. */
static int wait_answer(struct helper *h, uint32_t serial, uint64_t deadline)
{
	struct helper_answer a;

	for (;;) {
		struct pollfd p = {.fd = h->from_fd, .events = POLLIN};
		uint64_t now = now_usec();
		ssize_t n;

		n = sys->read(h->from_fd, &a, sizeof(a));
		if (n == (ssize_t)sizeof(a) && a.serial == serial)
			return a.veto;
		if (n == (ssize_t)sizeof(a) || n == -EINTR)
			continue; /* an answer the kill no longer waited for */
		if (n != -EAGAIN || now >= deadline)
			return 0;
		sys->poll(&p, 1, (int)((deadline - now + 999) / 1000));
	}
}

int helper_pre_kill(struct helper *h, const struct config *c, struct helper_msg *m)
{
	uint64_t t0 = now_usec();
	int veto;

	if (h->to_fd < 0)
		return 0;
	m->type = HELPER_PRE_KILL;
	m->serial = ++h->serial;
	m->wait = c->pre_kill_hook[0] && c->pre_kill_wait_msec > 0;
	if (helper_send(h, m) < 0 || !m->wait)
		return 0;
	veto = wait_answer(h, m->serial, t0 + c->pre_kill_wait_msec * 1000ull);
	if (!veto && now_usec() - t0 >= c->pre_kill_wait_msec * 1000ull)
		log_msg(LOG_PRIO_WARNING,
			"pre-kill hook: no answer within %u ms scope=%s pid=%d: killing",
			c->pre_kill_wait_msec, m->scope, m->u.v.pid);
	return c->pre_kill_veto ? veto : 0;
}

void helper_stop(struct helper *h)
{
	siginfo_t info;

	if (!h->pid)
		return;
	close_fd(&h->to_fd);
	close_fd(&h->from_fd);
	if (h->pidfd >= 0 && !sys_pidfd_exited(h->pidfd, 1000))
		sys->pidfd_send_signal(h->pidfd, SIGKILL, NULL, 0);
	if (h->pidfd >= 0)
		sys->waitid(P_PIDFD, (id_t)h->pidfd, &info, WEXITED);
	else
		sys->waitid(P_PID, (id_t)h->pid, &info, WEXITED);
	close_fd(&h->pidfd);
	if (h->dropped_total)
		log_msg(LOG_PRIO_NOTICE, "helper: %llu records dropped in all",
			(unsigned long long)h->dropped_total);
	h->pid = 0;
}

/* ---- The helper process ---- */

#define HELPER_MAX_SCOPES (CONFIG_MAX_CGROUPS + 1)
#define HELPER_VICTIMS	  8 /* pre-kill records kept for their post-kill (one per scope busy) */

/* struct helper_state - the helper's own: its config, the scopes' counters, recent victims. */
struct helper_state {
	struct config cfg;
	int argc;
	char **argv;
	struct cgroup_mounts mounts;
	char names[HELPER_MAX_SCOPES][CONFIG_PATH_MAX];
	char kinds[HELPER_MAX_SCOPES][16];
	struct scope_metrics m[HELPER_MAX_SCOPES];
	size_t nr_scopes;
	struct helper_victim victims[HELPER_VICTIMS];
	size_t next_victim;
	uint64_t dropped, failures;
	char scratch[8192];
};

/* The victim's uid and cgroup from /proc when the daemon did not know them (the victim lives
 * while the kill waits; else what can be read). */
static void fill_victim(struct helper_state *st, struct helper_victim *v)
{
	struct proc_attrs a;
	unsigned int needs = 0;

	if (v->uid >= 0 && v->cgroup[0])
		return;
	memset(&a, 0, sizeof(a));
	needs = MATCH_NEED(MATCH_UID) | MATCH_NEED(MATCH_CGROUP);
	match_read(st->cfg.root[0] ? st->cfg.root : NULL, &st->mounts, v->pid, needs, st->scratch,
		   sizeof(st->scratch), &a);
	if (v->uid < 0 && (a.have & MATCH_NEED(MATCH_UID)))
		v->uid = a.uid;
	if (!v->cgroup[0] && (a.have & MATCH_NEED(MATCH_CGROUP)))
		snprintf(v->cgroup, sizeof(v->cgroup), "%s", a.cgroup);
}

/* A hook: @cmd with @m in its environment. Return: as helper_run(), -errno if not run. */
static int run_hook(struct helper_state *st, const char *what, const char *cmd, const char *event,
		    const struct helper_msg *m)
{
	char words[CONFIG_PATH_MAX], store[4096];
	char *argv[32], *envp[32];
	int r;

	r = helper_split(cmd, words, sizeof(words), argv, sizeof(argv) / sizeof(argv[0]));
	if (r > 0)
		r = helper_env(m, event, store, sizeof(store), envp, sizeof(envp) / sizeof(envp[0]));
	if (r < 0) {
		log_msg(LOG_PRIO_ERR, "%s: cannot run %s: %s", what, cmd, sys_errno_name(r));
		st->failures++;
		return r;
	}
	r = helper_run(what, argv, envp, st->cfg.hook_timeout_msec);
	if (r != 0)
		st->failures++;
	return r;
}

static void on_pre_kill(struct helper_state *st, struct helper_msg *m, int answer_fd)
{
	struct helper_answer a = {m->serial, 0};
	int r = 0;

	fill_victim(st, &m->u.v);
	st->victims[st->next_victim++ % HELPER_VICTIMS] = m->u.v;
	if (st->cfg.pre_kill_hook[0])
		r = run_hook(st, "pre-kill hook", st->cfg.pre_kill_hook, "pre_kill", m);
	if (!m->wait)
		return;
	a.veto = r > 0 ? r : 0;
	if (a.veto && st->cfg.pre_kill_veto)
		log_msg(LOG_PRIO_NOTICE, "pre-kill hook vetoes the kill scope=%s pid=%d: exit %d",
			m->scope, m->u.v.pid, r);
	if (sys->write(answer_fd, &a, sizeof(a)) != sizeof(a))
		log_msg(LOG_PRIO_WARNING, "helper: cannot answer the daemon");
}

/* D-Bus and desktop announcements of a kill. */
static void announce(struct helper_state *st, const struct helper_msg *m)
{
	char store[4096];
	char *argv[24];
	int r;

	if (st->cfg.dbus_signal) {
		r = helper_dbus_argv(m, st->cfg.dbus_address, store, sizeof(store), argv,
				     sizeof(argv) / sizeof(argv[0]));
		if (r > 0) {
			char *envp[] = {"PATH=/usr/bin:/bin", NULL};

			r = helper_run("dbus-send", argv, envp, HELPER_ANNOUNCE_TIMEOUT_MSEC);
		}
		if (r != 0) {
			st->failures++;
			log_msg(LOG_PRIO_WARNING, "helper: D-Bus signal not sent (%d)", r);
		}
	}
	if (st->cfg.desktop_notify &&
	    helper_desktop(m, st->cfg.root, HELPER_ANNOUNCE_TIMEOUT_MSEC) < 0)
		st->failures++;
}

static void on_killed(struct helper_state *st, struct helper_msg *m)
{
	struct helper_victim *v = &m->u.v;

	for (size_t i = 0; i < HELPER_VICTIMS; i++) {
		const struct helper_victim *p = &st->victims[i];

		if (p->pid != v->pid)
			continue;
		v->uid = p->uid;
		memcpy(v->cgroup, p->cgroup, sizeof(v->cgroup));
		memcpy(v->reason, p->reason, sizeof(v->reason));
		v->badness = p->badness;
		v->oom_score_adj = p->oom_score_adj;
	}
	if (st->cfg.post_kill_hook[0])
		run_hook(st, "post-kill hook", st->cfg.post_kill_hook, "post_kill", m);
	announce(st, m);
}

static void write_metrics(struct helper_state *st)
{
	const char *names[HELPER_MAX_SCOPES], *kinds[HELPER_MAX_SCOPES];
	static char *text;
	static const size_t size = 1u << 20; /* 33 scopes take about 150 KiB */
	long len;
	int r;

	if (!st->cfg.metrics_dir[0])
		return;
	if (!text && !(text = malloc(size)))
		return;
	for (size_t i = 0; i < st->nr_scopes; i++) {
		names[i] = st->names[i];
		kinds[i] = st->kinds[i];
	}
	len = metrics_format(names, kinds, st->m, st->nr_scopes, st->dropped, st->failures, text,
			     size);
	r = len < 0 ? (int)len : metrics_write_file(st->cfg.metrics_dir, text, (size_t)len);
	if (r < 0)
		log_msg(LOG_PRIO_WARNING, "helper: cannot write %s/oomguard.prom: %s",
			st->cfg.metrics_dir, sys_errno_name(r));
}

static void on_metrics(struct helper_state *st, const struct helper_msg *m, int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	size_t i = 0;

	while (i < st->nr_scopes && strcmp(st->names[i], m->scope))
		i++;
	if (i == HELPER_MAX_SCOPES)
		return;
	if (i == st->nr_scopes) {
		snprintf(st->names[i], sizeof(st->names[i]), "%s", m->scope);
		st->nr_scopes++;
	}
	snprintf(st->kinds[i], sizeof(st->kinds[i]), "%s", m->kind);
	st->m[i] = m->u.m;
	/* The last of the batch (nothing more to read; a hang-up is no more records): the file
	 * once, not per scope. */
	if (sys->poll(&p, 1, 0) <= 0 || !(p.revents & POLLIN))
		write_metrics(st);
}

static void on_reload(struct helper_state *st)
{
	static struct config next;
	char err[512];

	if (options_parse(&next, st->argc, st->argv, err, sizeof(err)) != 0)
		return; /* the daemon said why, and keeps its config: so does the helper */
	config_release(&st->cfg);
	st->cfg = next;
	log_max_prio = st->cfg.log_level;
	st->nr_scopes = 0; /* the scopes may have changed: the next batch says which */
}

static void helper_setup(struct helper_state *st, pid_t parent)
{
	struct sigaction sa;

	/* Dies with the daemon; a daemon gone before this line is seen by the check after. */
	sys->prctl(PR_SET_PDEATHSIG, SIGKILL, 0);
	if (getppid() != parent)
		_exit(0);
	sys->prctl(PR_SET_NAME, (unsigned long)"oomguard-helper", 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGHUP, &sa, NULL); /* the daemon's reload reaches it as a record */
	sigaction(SIGINT, &sa, NULL); /* a terminal's ^C: the daemon stops, then the pipe ends */
	sigaction(SIGPIPE, &sa, NULL);
	if (read_mountinfo(st->cfg.root[0] ? st->cfg.root : NULL, st->scratch, sizeof(st->scratch),
			   &st->mounts) < 0)
		memset(&st->mounts, 0, sizeof(st->mounts));
}

_Noreturn void helper_main(int fd, int answer_fd, pid_t parent, int argc, char **argv)
{
	static struct helper_state st;
	static struct helper_msg m;
	char err[512];

	st.argc = argc;
	st.argv = argv;
	if (options_parse(&st.cfg, argc, argv, err, sizeof(err)) != 0)
		_exit(2); /* the daemon parsed the same a moment ago */
	helper_setup(&st, parent);
	for (;;) {
		ssize_t n = sys->read(fd, &m, sizeof(m));

		if (n == 0)
			_exit(0); /* the daemon closed its end, or died */
		if (n == -EINTR)
			continue;
		if (n != (ssize_t)sizeof(m))
			_exit(1);
		st.dropped += m.dropped;
		switch (m.type) {
		case HELPER_PRE_KILL:
			on_pre_kill(&st, &m, answer_fd);
			break;
		case HELPER_KILLED:
			on_killed(&st, &m);
			break;
		case HELPER_METRICS:
			on_metrics(&st, &m, fd);
			break;
		case HELPER_RELOAD:
			on_reload(&st);
			break;
		}
	}
}
