/* SPDX-License-Identifier: GPL-2.0-only */
/* The daemon: start-up (self-protection, scopes, reaper), the main loop (acquire, decide, act
 * per scope per round), signals (TERM/INT stop, HUP reloads) and the status one-shot. */
#ifndef OOMGUARD_DAEMON_DAEMON_H
#define OOMGUARD_DAEMON_DAEMON_H

#include <stdbool.h>
#include <signal.h>
#include <stdio.h>

#include "daemon/config.h"
#include "daemon/reaper.h"
#include "daemon/scope.h"
#include "daemon/tasks.h"

#define DAEMON_MAX_SCOPES (CONFIG_MAX_CGROUPS + 1)

/* Exit codes: 0 clean stop, 1 runtime failure, 2 bad usage or config. */
#define EXIT_RUNTIME 1
#define EXIT_CONFIG  2

/*
 * A scope's victim chosen ahead of its verdict. From its first round without progress, the
 * loop lists a scope's tasks, chooses the victim and opens a pidfd on it (at most every
 * CANDIDATE_REFRESH_USEC), so that the verdict kills at once through that pidfd: no /proc
 * listing at the moment memory is exhausted, when every file read may stall in reclaim. A
 * candidate older than CANDIDATE_MAX_AGE_USEC is not used, and is dropped.
 */
#define CANDIDATE_ARM_LOOPS    1
#define CANDIDATE_REFRESH_USEC 1000000ull
#define CANDIDATE_MAX_AGE_USEC 2000000ull

struct candidate {
	bool armed;
	int pidfd; /* pins the process; its start time matched when opened */
	struct oom_task task;
	long points;
	uint64_t time_usec;
};

enum arm_action { ARM_KEEP, ARM_DROP, ARM_CHOOSE };

/*
 * arm_decide() - what the round does with scope @s's candidate @c at @now: choose one (again)
 * while the scope makes no progress (CANDIDATE_ARM_LOOPS) or is near its limit and no candidate
 * younger than CANDIDATE_REFRESH_USEC is held; drop one older than CANDIDATE_MAX_AGE_USEC once
 * neither holds; else keep what there is (possibly nothing). Pure.
 */
enum arm_action arm_decide(const struct scope *s, const struct candidate *c, uint64_t now);

/*
 * listing_known_only() - a listing for @s leaves out processes not listed before: the machine
 * scope while it makes no progress or stalls on memory more than 10 % of the time (opening a
 * new process's files then waits in reclaim). A group's pressure does not slow oomguard's opens
 * (its allocations are not charged there). Pure.
 */
bool listing_known_only(const struct scope *s);

/*
 * struct daemon - everything the loop touches, sized at start-up (no allocation after).
 * @kill_pending:  per scope: a victim is with the reaper; kill no other in that scope
 * @cand:          per scope: the victim chosen ahead of the verdict (struct candidate)
 */
struct daemon {
	struct config cfg;
	int argc;
	char **argv;
	struct scope scopes[DAEMON_MAX_SCOPES];
	size_t nr_scopes;
	bool kill_pending[DAEMON_MAX_SCOPES];
	struct candidate cand[DAEMON_MAX_SCOPES];
	struct task_list tasks;
	struct victim_table victims;
	struct reaper reaper;
	int self_pid;
	int psi_fd; /* valid when psi_open: /proc/pressure/memory, read once per round for all */
	bool psi_open;
	char v1_root_stat[sizeof(((struct cgroup_mounts *)0)->v1_memory) + 16]; /* the v1 root group's memory.stat, "" if no v1 */
	int v1_fd; /* valid when v1_open: that file, read once per round for the v1 groups' gate */
	bool v1_open;
	bool v1_evented; /* every v1 group has a vmpressure eventfd: the gate needs no v1 refaults */
	/* valid when eps_open: the loop waits on wake_ep (the reaper's reports, the v1 OOM
	 * eventfds); pressure_ep, asked once per round without waiting, holds the v1 groups'
	 * vmpressure eventfds (nr_pressure), the v2 groups' memory.events (nr_v2_watched) and
	 * the v1 root group's vmpressure eventfd (machine_evented) */
	int wake_ep, pressure_ep;
	bool eps_open;
	size_t nr_pressure;
	size_t nr_v2_watched; /* v2 groups whose memory.events is in pressure_ep */
	/* valid when machine_evented: the v1 root group's vmpressure eventfd (in pressure_ep),
	 * which reclaim anywhere on the machine signals; while it stays silent a round reuses
	 * psi_total instead of reading PSI, for at most SCOPE_FULL_READ_ROUNDS (psi_age) */
	int machine_efd;
	bool machine_evented;
	unsigned int psi_age;
	uint64_t psi_total;
	bool lru_gen; /* the multi-gen LRU is on: root vmpressure is silent, read PSI anyway */
	int lru_gen_fd; /* its switch, kept open while machine_evented (-1: not yet or none) */
	unsigned int lru_gen_age; /* rounds since lru_gen was read (every SCOPE_FULL_READ_ROUNDS) */
	char v1_mount[sizeof(((struct cgroup_mounts *)0)->v1_memory)]; /* "" if none */
	unsigned long rounds, kills;
	char scratch[SCOPE_SCRATCH_SIZE];
};

/* Signal flags, set by the handlers only. */
extern volatile sig_atomic_t daemon_stop_requested, daemon_reload_requested;

/*
 * daemon_build_config() - defaults, then the config file (--config, or /etc/oomguard.conf when
 * it exists), then the options in @argv. Return: 0, or -EINVAL with a reason in @err.
 */
int daemon_build_config(struct config *c, int argc, char **argv, char *err, size_t errsize);

/* daemon_setup_scopes() - the scopes @d->cfg names. Return: 0 or -errno with @err. */
int daemon_setup_scopes(struct daemon *d, char *err, size_t errsize);

/*
 * daemon_start_events() - the loop's epoll sets, and the scopes' event sources: v1 OOM and
 * vmpressure eventfds (and oom_kill_disable=1 when the config asks). Return: 0 or -errno when
 * the epoll sets cannot be made (a scope without its eventfds is logged and polled instead).
 */
int daemon_start_events(struct daemon *d);

/*
 * lru_gen_enabled() - the multi-gen LRU is on (@root/sys/kernel/mm/lru_gen/enabled, bit 0). It
 * reclaims the machine without telling v1 vmpressure listeners (its per-group step reports
 * "not for userspace", and the step that would is skipped for the root): while it is on, the
 * root group's silence says nothing and the round reads PSI anyway. Read through *@fd, opened
 * at the first call and kept (sys_read_kept(): the loop opens nothing); -1 stays when there is
 * no such file.
 */
bool lru_gen_enabled(int *fd, const char *root);

/* daemon_round() - one pass: acquire and decide every scope; act on OOM verdicts. */
void daemon_round(struct daemon *d);

/* daemon_handle_reports() - read the reaper's reports and log them. */
void daemon_handle_reports(struct daemon *d);

/*
 * daemon_kill() - act on a chosen victim: re-check, pidfd_open, confirm identity, SIGKILL,
 * hand a dup'ed pidfd to the reaper. Return: 0 when killed, -ESRCH when the victim was gone
 * (nothing else is killed), -errno otherwise.
 */
int daemon_kill(struct daemon *d, size_t scope_idx, const struct oom_task *victim,
		uint64_t detect_usec);

/*
 * daemon_act() - the OOM verdict of scope @scope_idx: kill its armed candidate through the
 * held pidfd when it is fresh and alive, else list the scope's tasks, choose and daemon_kill().
 * Both re-check the scope first. @detect_usec: when the verdict was read.
 */
void daemon_act(struct daemon *d, size_t scope_idx, uint64_t detect_usec);

/*
 * daemon_arm() - choose @scope_idx's victim now and hold a pidfd on it (see struct candidate).
 * Return: 0 when armed, -ENOENT when there is no killable task, -errno otherwise.
 */
int daemon_arm(struct daemon *d, size_t scope_idx, uint64_t now_usec);

/* daemon_disarm() - drop @scope_idx's candidate. */
void daemon_disarm(struct daemon *d, size_t scope_idx);

/* daemon_run() - start-up, the loop until SIGTERM/SIGINT, shutdown. Returns the exit code. */
int daemon_run(struct daemon *d);

/* daemon_status() - one shot: print each scope's inputs and the next round's decision. */
int daemon_status(struct daemon *d, FILE *out, bool json);

/* daemon_teardown() - close scopes, stop the reaper, restore oom_kill_disable. */
void daemon_teardown(struct daemon *d);

#endif
