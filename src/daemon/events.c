// SPDX-License-Identifier: GPL-2.0-only
/* The event sources: registration (v1 eventfds, v2 memory.events watches), the loop's wait, and
 * the round gate that tells every scope's acquire whether it needs to read. */
#include "daemon/events.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "linux/sys.h"

/* What the wake set says of the reaper's report pipe (scopes are their index). */
#define WAKE_REPORTS UINT64_MAX
/* What the pressure set says of the v1 root group's eventfd (groups are their index). */
#define MACHINE_PRESSURE UINT64_MAX

void event_state_init(struct event_state *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->wake_ep = ev->pressure_ep = -1;
	ev->machine_efd = ev->psi_fd = ev->lru_gen_fd = ev->v1_fd = -1;
}

int scope_v1_eventfd(const char *dir, const char *file, const char *args)
{
	char path[CONFIG_PATH_MAX + 32], line[64];
	int efd, ofd, r;

	efd = sys->eventfd(0, EFD_NONBLOCK);
	if (efd < 0)
		return efd;
	if (sys_join_path(path, sizeof(path), dir, file) < 0) {
		sys->close(efd);
		return -ENAMETOOLONG;
	}
	ofd = sys_open_path(NULL, path, O_RDONLY);
	if (ofd < 0) {
		sys->close(efd);
		return ofd;
	}
	snprintf(line, sizeof(line), "%d %d%s", efd, ofd, args);
	r = sys_join_path(path, sizeof(path), dir, "/cgroup.event_control");
	if (!r)
		r = sys_write_file(NULL, path, line);
	sys->close(ofd);
	if (r < 0) {
		sys->close(efd);
		return r;
	}
	return efd;
}

static int register_v1_event(struct scope *s, const char *file, const char *args, int *ret_efd)
{
	int efd;

	if (s->kind != SCOPE_CGROUP_V1)
		return 0;
	efd = scope_v1_eventfd(s->dir, file, args);
	if (efd < 0)
		return efd;
	*ret_efd = efd;
	return 0;
}

int scope_register_oom_event(struct scope *s)
{
	return register_v1_event(s, "/memory.oom_control", "", &s->oom_efd);
}

int scope_register_pressure_event(struct scope *s)
{
	return register_v1_event(s, "/memory.pressure_level", " low", &s->pressure_efd);
}

int scope_watch_events(struct scope *s)
{
	char path[CONFIG_PATH_MAX + 32];
	int fd;

	if (s->kind != SCOPE_CGROUP_V2)
		return 0;
	if (sys_join_path(path, sizeof(path), s->dir, "/memory.events") < 0)
		return -ENAMETOOLONG;
	fd = sys_open_path(NULL, path, O_RDONLY);
	if (fd < 0)
		return fd;
	s->events_watch_fd = fd;
	return 0;
}

static int set_oom_kill_disable(struct scope *s, const char *value)
{
	char path[CONFIG_PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/memory.oom_control", s->dir);
	return sys_write_file(NULL, path, value);
}

/* @fd into the epoll set @ep for @events, with @data back when they come. */
static int watch_fd(int ep, int fd, uint32_t events, uint64_t data)
{
	struct epoll_event ev = {.events = events, .data.u64 = data};

	return sys->epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

/*
 * An event source just registered (@r: 0 or -errno, *@fd the descriptor) into the epoll set
 * @ep. On any failure the descriptor is closed (*@fd back to -1). Return: 0 or -errno.
 */
static int watch_new(int ep, int r, int *fd, uint32_t events, uint64_t data)
{
	if (!r)
		r = watch_fd(ep, *fd, events, data);
	if (r < 0 && *fd >= 0) {
		sys->close(*fd);
		*fd = -1;
	}
	return r;
}

/* sys_read_kept() into d->scratch, for a file of the gate's own (a whole-read file). */
static ssize_t read_kept(struct daemon *d, const char *path, int *fd)
{
	return sys_read_kept(fd, d->cfg.root[0] ? d->cfg.root : NULL, path, d->scratch,
			     sizeof(d->scratch), SYS_READ_WHOLE);
}

bool lru_gen_enabled(int *fd, const char *root)
{
	char buf[32];

	if (sys_read_kept(fd, root, "/sys/kernel/mm/lru_gen/enabled", buf, sizeof(buf),
			  SYS_READ_WHOLE) < 0)
		return false; /* not built in */
	return strtoul(buf, NULL, 0) & 1;
}

/*
 * The machine's event source: reclaim anywhere signals the v1 root group. The kernel's own
 * (kswapd, direct reclaim outside any limit) is accounted to it, and in "hierarchy" mode every
 * group's reclaim is passed up to it even when a listener below took it (in the default mode it
 * is not: measured, a group's 22 events reached the root 0 times). So a silent root means no
 * memory stall to read.
 */
static void start_machine(struct event_state *ev, const char *root)
{
	char dir[sizeof(ev->v1_mount) + CONFIG_PATH_MAX];
	int r = sys_join_path(dir, sizeof(dir), root, ev->v1_mount);

	/* under --root's tree, not the host's (a fixture run must not register on the host) */
	if (!r)
		r = scope_v1_eventfd(dir, "/memory.pressure_level", " low,hierarchy");
	ev->machine_efd = r < 0 ? -1 : r;
	r = watch_new(ev->pressure_ep, r < 0 ? r : 0, &ev->machine_efd, EPOLLIN, MACHINE_PRESSURE);
	if (r < 0)
		log_errno(r, "no vmpressure eventfd on %s (PSI is read every round)", ev->v1_mount);
}

/* A v1 group's event sources: its OOM eventfd wakes the loop, its vmpressure eventfd gates its
 * reads; with --oom-kill-disable the kernel parks its tasks instead of killing. */
static void start_v1(struct daemon *d, struct scope *s, uint64_t data)
{
	struct event_state *ev = &d->ev;
	int r;

	if (d->cfg.oom_kill_disable) {
		struct memcg_v1_oom_control oc;

		if (read_memcg_v1_oom_control(s->dir, &oc) == 0 && !oc.oom_kill_disable) {
			r = set_oom_kill_disable(s, "1");
			if (r < 0)
				log_errno(r, "cannot set oom_kill_disable in %s", s->name);
			else
				s->restore_oom_kill_disable = true;
		}
	}
	r = watch_new(ev->wake_ep, scope_register_oom_event(s), &s->oom_efd, EPOLLIN, data);
	if (r < 0)
		log_errno(r, "no OOM eventfd for %s (polling only)", s->name);
	r = watch_new(ev->pressure_ep, scope_register_pressure_event(s), &s->pressure_efd,
		      EPOLLIN, data);
	if (r < 0) {
		log_errno(r, "no vmpressure eventfd for %s (its failcnt is read every round)",
			  s->name);
		ev->v1_evented = false;
	} else {
		ev->nr_pressure++;
	}
}

void events_start_scope(struct daemon *d, struct scope *s, size_t i)
{
	struct event_state *ev = &d->ev;
	int r;

	if (s->kind == SCOPE_CGROUP_V1)
		start_v1(d, s, i);
	if (s->kind != SCOPE_CGROUP_V2)
		return;
	/* kernfs signals a changed memory.events as EPOLLPRI; edge-triggered, as the loop reads
	 * the file through another descriptor */
	r = watch_new(ev->pressure_ep, scope_watch_events(s), &s->events_watch_fd,
		      EPOLLPRI | EPOLLET, i);
	if (r < 0)
		log_errno(r, "cannot watch memory.events of %s (read every round)", s->name);
	else
		ev->nr_v2_watched++;
}

/* After the epoll sets are made. Closing an eventfd (scope_close) takes it out of them. */
static void scopes_start(struct daemon *d)
{
	struct event_state *ev = &d->ev;

	ev->v1_evented = true;
	ev->nr_pressure = 0;
	ev->nr_v2_watched = 0;
	ev->psi_age = SCOPE_FULL_READ_ROUNDS; /* the next round reads PSI */
	ev->psi_missing = false;		  /* looked for again: the root may be another */
	if (ev->psi_fd >= 0) {
		sys->close(ev->psi_fd);
		ev->psi_fd = -1;
	}
	ev->lru_gen_age = SCOPE_FULL_READ_ROUNDS; /* and whether the multi-gen LRU is on */
	if (d->nr_scopes && d->scopes[0].kind == SCOPE_MACHINE && ev->v1_mount[0])
		start_machine(ev, d->cfg.root[0] ? d->cfg.root : NULL);
	for (size_t i = 0; i < d->nr_scopes; i++)
		if (!d->scopes[i].absent)
			events_start_scope(d, &d->scopes[i], i);
}
int events_start(struct daemon *d)
{
	struct event_state *ev = &d->ev;
	int r;

	if (ev->wake_ep < 0) {
		r = sys->epoll_create();
		if (r < 0)
			return r;
		ev->wake_ep = r;
	}
	if (ev->pressure_ep < 0) {
		r = sys->epoll_create();
		if (r < 0)
			return r;
		ev->pressure_ep = r;
	}
	scopes_start(d);
	return 0;
}

void events_stop(struct daemon *d)
{
	struct event_state *ev = &d->ev;

	if (ev->machine_efd >= 0)
		sys->close(ev->machine_efd);
	if (ev->lru_gen_fd >= 0)
		sys->close(ev->lru_gen_fd);
	ev->machine_efd = ev->lru_gen_fd = -1;
	for (size_t i = 0; i < d->nr_scopes; i++) {
		struct scope *s = &d->scopes[i];

		if (s->restore_oom_kill_disable)
			set_oom_kill_disable(s, "0");
		s->restore_oom_kill_disable = false;
		scope_close(s);
	}
}

void events_close(struct event_state *ev)
{
	int *fds[] = {&ev->wake_ep, &ev->pressure_ep, &ev->psi_fd, &ev->v1_fd};

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			sys->close(*fds[i]);
		*fds[i] = -1;
	}
}

int events_watch_reports(struct event_state *ev, int fd)
{
	return watch_fd(ev->wake_ep, fd, EPOLLIN, WAKE_REPORTS);
}

int events_wait(struct daemon *d, int timeout_msec)
{
	struct epoll_event evs[DAEMON_MAX_SCOPES + 1];
	int woken = 0;
	int r = sys->epoll_wait(d->ev.wake_ep, evs, (int)(sizeof(evs) / sizeof(evs[0])),
				timeout_msec);

	for (int k = 0; k < r; k++) {
		uint64_t i = evs[k].data.u64, count;
		struct scope *s = i < d->nr_scopes ? &d->scopes[i] : NULL;

		if (i == WAKE_REPORTS) {
			daemon_handle_reports(d);
		} else if (s && s->oom_efd >= 0) {
			sys->read(s->oom_efd, &count, sizeof(count));
			log_msg(LOG_PRIO_DEBUG, "OOM event scope=%s", s->name);
			s->woken = true;
			woken = 1;
		}
	}
	return r < 0 ? r : woken;
}

/* The pressure set, once per round without waiting: which sources fired since the last. A v2
 * group's watch marks it woken (edge-triggered: once per change). */
static void read_pressure_set(struct daemon *d, bool *machine_pressed, bool *groups_pressed)
{
	struct event_state *ev = &d->ev;
	struct epoll_event evs[DAEMON_MAX_SCOPES + 1];
	int n;

	if (ev->pressure_ep < 0 ||
	    !(ev->nr_pressure || ev->nr_v2_watched || ev->machine_efd >= 0))
		return;
	n = sys->epoll_wait(ev->pressure_ep, evs, (int)(sizeof(evs) / sizeof(evs[0])), 0);
	if (n >= 0)
		*machine_pressed = *groups_pressed = false;
	else /* cannot tell: every v2 group reads all too */
		for (size_t i = 0; i < d->nr_scopes; i++)
			d->scopes[i].woken |= d->scopes[i].kind == SCOPE_CGROUP_V2;
	for (int k = 0; k < n; k++) {
		uint64_t i = evs[k].data.u64;

		if (i == MACHINE_PRESSURE)
			*machine_pressed = true;
		else if (i < d->nr_scopes && d->scopes[i].kind == SCOPE_CGROUP_V2)
			d->scopes[i].woken = true;
		else
			*groups_pressed = true;
	}
}

/*
 * The machine's stall total: PSI, unless the v1 root group's eventfd stayed silent (no reclaim
 * anywhere, so no memory stall either) and the last read is younger than SCOPE_FULL_READ_ROUNDS.
 * Cost measured: PSI 22 us after 100 ms idle. A kernel without PSI (no file) is looked for once
 * per set-up, as the machine scope looks for it. Return: 0, or -errno when PSI cannot be read.
 */
static int read_stall(struct daemon *d, bool machine_pressed)
{
	struct event_state *ev = &d->ev;
	struct psi_stats psi;
	ssize_t n;

	if (ev->machine_efd >= 0 && ++ev->lru_gen_age >= SCOPE_FULL_READ_ROUNDS) {
		ev->lru_gen_age = 0; /* it can be switched at run time */
		ev->lru_gen = lru_gen_enabled(&ev->lru_gen_fd, d->cfg.root[0] ? d->cfg.root : NULL);
	}
	if (ev->machine_efd >= 0 && machine_pressed) {
		uint64_t count;

		sys->read(ev->machine_efd, &count, sizeof(count)); /* drained: counted once */
	}
	if (ev->machine_efd >= 0 && !machine_pressed &&
	    ev->psi_age + 1 < SCOPE_FULL_READ_ROUNDS && !ev->lru_gen) {
		ev->psi_age++;
		return 0;
	}
	if (ev->psi_missing)
		return -ENOENT;
	n = read_kept(d, "/proc/pressure/memory", &ev->psi_fd);
	ev->psi_missing = n == -ENOENT;
	if (n < 0 || parse_psi_buf(d->scratch, &psi) < 0)
		return -EIO;
	ev->psi_total = psi.some.total_usec;
	ev->psi_age = 0;
	return 0;
}

const struct round_gate *events_read_gate(struct daemon *d, struct round_gate *gate)
{
	struct event_state *ev = &d->ev;
	struct memcg_v1_stat st;
	bool machine_pressed = true, groups_pressed = true;

	read_pressure_set(d, &machine_pressed, &groups_pressed);
	gate->no_pressure = !groups_pressed;
	if (read_stall(d, machine_pressed) < 0)
		return NULL;
	gate->stall_usec = ev->psi_total;
	gate->has_refaulted = false;
	if (!ev->v1_root_stat[0] || ev->v1_evented)
		return gate;
	/* The v1 hierarchy's refaults: 10 us here, 40 us after 100 ms idle (/proc/vmstat 23, 50).
	 */
	if (read_kept(d, ev->v1_root_stat, &ev->v1_fd) < 0 ||
	    parse_memcg_v1_stat_buf(d->scratch, &st) < 0)
		return NULL; /* without the refaults a v1 group cannot tell quiet: read all */
	gate->has_refaulted = true;
	gate->refaulted = st.workingset_refault_file + st.workingset_refault_anon;
	return gate;
}
