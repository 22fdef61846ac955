/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon: its state (struct daemon), the scopes it watches, one round (acquire every
 * scope, decide, act) and the loop around the rounds. The rooms: options.c (the command line),
 * daemon.c (scopes set up and torn down, the round), loop.c (start-up, the loop, signals,
 * reload), events.c (event sources and the round gate), kill.c (arm, kill, reports),
 * protect.c (self-protection), scope*.c, tasks.c, reaper.c.
 */
#ifndef OOMGUARD_DAEMON_DAEMON_H
#define OOMGUARD_DAEMON_DAEMON_H

#include <signal.h>
#include <stdbool.h>

#include "daemon/config.h"
#include "daemon/events.h"
#include "daemon/helper.h"
#include "daemon/kill.h"
#include "daemon/notify.h"
#include "daemon/reaper.h"
#include "daemon/scope.h"
#include "daemon/tasks.h"

#define DAEMON_MAX_SCOPES (CONFIG_MAX_CGROUPS + 1)

/* Exit codes: 0 clean stop, 1 runtime failure, 2 bad usage or config. */
#define EXIT_RUNTIME 1
#define EXIT_CONFIG  2

/*
 * struct daemon - everything the loop touches, sized at start-up (no allocation after).
 * Per-scope state lives in each struct scope; a closed descriptor is -1.
 * @argc, @argv:   the command line, parsed again at each reload
 * @page_shift:    the kernel's page size (sys_page_shift()), read at start-up
 * @ev:            the event sources and the round gate's state
 * @notify:        systemd's notification socket and watchdog (notify.h)
 * @last_verdict:  the last OOM verdict and its outcome, said in STATUS=
 * @said_serial, @said_waiting: what the last STATUS= said (a new one goes when they change)
 * @scratch:       the one buffer every file of the loop is read into
 */
struct daemon {
	struct config cfg;
	int argc;
	char **argv;
	unsigned int page_shift;
	struct scope scopes[DAEMON_MAX_SCOPES];
	size_t nr_scopes;
	size_t scopes_faulted; /* slots faulted in at start-up or by a reload (loop.c) */
	struct task_list tasks;
	struct victim_table victims;
	struct reaper reaper;
	int self_pid;
	struct event_state ev;
	struct cgroup_mounts mounts; /* as read at set-up: where an absent scope will appear */
	uint64_t readahead_pages;    /* the disks' largest read-ahead window at set-up (0: unknown) */
	unsigned long rounds, kills, dry_run_kills;
	int exit_code; /* what daemon_run() returns once stopped: 0, or EXIT_RUNTIME */
	struct notify notify;
	struct helper helper; /* the helper process: hooks, announcements, metrics */
	struct verdict_note last_verdict;
	unsigned long said_serial;
	size_t said_waiting;
	char scratch[SCOPE_SCRATCH_SIZE];
};

/* Signal flags, set by the handlers only. */
extern volatile sig_atomic_t daemon_stop_requested, daemon_reload_requested;

/*
 * daemon_init() - ready @d for daemon_setup_scopes() after options_parse() filled @d->cfg:
 * every descriptor closed (-1), the page size read.
 */
void daemon_init(struct daemon *d, int argc, char **argv);

/* daemon_setup_scopes() - the scopes @d->cfg names. Return: 0 or -errno with @err. */
int daemon_setup_scopes(struct daemon *d, char *err, size_t errsize);

/*
 * daemon_check_scopes() - every scope @c names could be set up now (the machine's meminfo
 * reads, each cgroup is a memory cgroup), checked on a probe: the running scopes are not
 * touched. Return: 0 or -errno with @err.
 */
int daemon_check_scopes(struct daemon *d, const struct config *c, char *err, size_t errsize);

/* daemon_scope_path() - what the config calls scope @s: NULL for the machine, else its path
 * (config_scope_settings() takes it). */
const char *daemon_scope_path(const struct scope *s);

/* daemon_round() - one pass: acquire and decide every scope; act on OOM verdicts. */
void daemon_round(struct daemon *d);

/* daemon_run() - start-up, the loop until SIGTERM/SIGINT, shutdown. Returns the exit code. */
int daemon_run(struct daemon *d);

/* daemon_teardown() - stop the reaper, close every scope and event source, restore
 * oom_kill_disable, release the config. */
void daemon_teardown(struct daemon *d);

#endif
