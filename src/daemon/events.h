/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The event sources that tell the loop when to read: the v1 groups' OOM and vmpressure
 * eventfds, the v2 groups' memory.events watches, the v1 root group's vmpressure eventfd for
 * the machine, the reaper's reports; and the round gate, what every scope's acquire shares in
 * one round (PSI, the v1 hierarchy's refaults, which pressure events fired).
 */
#ifndef OOMGUARD_DAEMON_EVENTS_H
#define OOMGUARD_DAEMON_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/scope.h"

struct daemon;

/*
 * struct event_state - the daemon's event sources and what the round gate keeps between rounds.
 * Every descriptor is -1 while closed.
 * @wake_ep:       the loop waits here: the reaper's reports, the v1 OOM eventfds
 * @pressure_ep:   asked once per round without waiting: the v1 groups' vmpressure eventfds
 *                 (@nr_pressure), the v2 groups' memory.events (@nr_v2_watched) and the v1
 *                 root group's vmpressure eventfd (@machine_efd)
 * @v1_evented:    every v1 group has a vmpressure eventfd: the gate needs no v1 refaults
 * @machine_efd:   the v1 root group's vmpressure eventfd, which reclaim anywhere on the machine
 *                 signals; while it stays silent a round reuses @psi_total instead of reading
 *                 PSI, for at most SCOPE_FULL_READ_ROUNDS (@psi_age)
 * @psi_fd:        /proc/pressure/memory, read once per round for all scopes; @psi_missing: the
 *                 kernel has none (looked for once)
 * @lru_gen:       the multi-gen LRU is on: the root's vmpressure is silent, read PSI anyway
 * @lru_gen_fd:    its switch, kept open while @machine_efd is (read every
 *                 SCOPE_FULL_READ_ROUNDS, @lru_gen_age)
 * @v1_root_stat:  the v1 root group's memory.stat, "" without v1 groups; @v1_fd keeps it open
 * @v1_mount:      where the v1 memory hierarchy is mounted, "" if it is not
 */
struct event_state {
	int wake_ep, pressure_ep;
	size_t nr_pressure, nr_v2_watched;
	bool v1_evented;
	int machine_efd;
	int psi_fd;
	bool psi_missing;
	unsigned int psi_age;
	uint64_t psi_total;
	bool lru_gen;
	int lru_gen_fd;
	unsigned int lru_gen_age;
	char v1_root_stat[sizeof(((struct cgroup_mounts *)0)->v1_memory) + 16];
	int v1_fd;
	char v1_mount[sizeof(((struct cgroup_mounts *)0)->v1_memory)];
};

/* event_state_init() - nothing open yet. */
void event_state_init(struct event_state *ev);

/*
 * events_start() - the loop's epoll sets (made once), then every scope's event sources: v1 OOM
 * and vmpressure eventfds (and oom_kill_disable=1 when the config asks), v2 memory.events
 * watches, the v1 root group's vmpressure eventfd for the machine. A scope without its event
 * sources is logged and read every round instead. Return: 0, or -errno when the epoll sets
 * cannot be made.
 */
int events_start(struct daemon *d);

/* events_start_scope() - the event sources of scope @s (index @i), as events_start() starts
 * them for each scope: for one that appeared after it. */
void events_start_scope(struct daemon *d, struct scope *s, size_t i);

/* events_stop() - close every scope (and its event sources and candidate), restore
 * oom_kill_disable where oomguard set it; the epoll sets stay for events_start(). */
void events_stop(struct daemon *d);

/* events_close() - close the epoll sets and the gate's files. */
void events_close(struct event_state *ev);

/* events_watch_reports() - the reaper's report pipe @fd into the wake set. Return: 0/-errno. */
int events_watch_reports(struct event_state *ev, int fd);

/*
 * events_wait() - wait up to @timeout_msec in the wake set; handle the reaper's reports, mark
 * the scopes whose OOM eventfd fired (s->woken). Return: 1 when a scope was woken, 0 when
 * none, -EINTR on a signal, -errno when the wait failed.
 */
int events_wait(struct daemon *d, int timeout_msec);

/*
 * events_read_gate() - once per round for every scope (struct round_gate): whether any
 * pressure event fired (one epoll_wait), /proc/pressure/memory unless the v1 root group stayed
 * silent, and the v1 root group's memory.stat while v1 groups without a vmpressure eventfd are
 * watched. Return: @gate, or NULL when it could not be read (every scope then reads all).
 */
const struct round_gate *events_read_gate(struct daemon *d, struct round_gate *gate);

/*
 * lru_gen_enabled() - the multi-gen LRU is on (@root/sys/kernel/mm/lru_gen/enabled, bit 0). It
 * reclaims the machine without telling v1 vmpressure listeners (its per-group step reports
 * "not for userspace", and the step that would is skipped for the root): while it is on, the
 * root group's silence says nothing and the round reads PSI anyway. Read through *@fd, opened
 * at the first call and kept (sys_read_kept(): the loop opens nothing); -1 stays when there is
 * no such file.
 */
bool lru_gen_enabled(int *fd, const char *root);

/* scope_v1_eventfd() - an eventfd for @file of the v1 group @dir, registered through its
 * cgroup.event_control with @args after the two fds. Return: the eventfd or -errno. */
int scope_v1_eventfd(const char *dir, const char *file, const char *args);

/* scope_register_oom_event() - v1: an eventfd signalled on OOM (cgroup.event_control). */
int scope_register_oom_event(struct scope *s);

/*
 * scope_register_pressure_event() - v1: an eventfd signalled by vmpressure, at every level, for
 * reclaim in the group or below it (the kernel signals once per 512 pages scanned). A quiet
 * round of a group with it reads no file at all (see scope_acquire_gated()).
 */
int scope_register_pressure_event(struct scope *s);

/*
 * scope_watch_events() - v2: open memory.events for the loop to watch. A v2 group whose
 * memory.events did not change since its last read reads no file (see scope_acquire_gated()).
 * Return: 0 or -errno.
 */
int scope_watch_events(struct scope *s);

#endif
