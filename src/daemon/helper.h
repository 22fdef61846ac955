/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The helper process: what the locked daemon leaves to another process because it may block,
 * allocate or take long. It runs the pre-kill and post-kill hooks, sends the D-Bus signal and
 * desktop notifications of each kill, and writes the metrics file. It is forked at start-up,
 * before the daemon locks its memory or starts a thread, and execs nothing of its own (hooks
 * and announcers are its children). The loop hands it fixed-size records over a pipe, with a
 * non-blocking write that never waits (a full pipe drops the record and counts it); a pre-kill
 * hook that may veto is answered over a second pipe, for which the kill waits a bounded time.
 * The helper dies with the daemon (PR_SET_PDEATHSIG, and the pipe's end of file).
 */
#ifndef OOMGUARD_DAEMON_HELPER_H
#define OOMGUARD_DAEMON_HELPER_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/config.h"
#include "daemon/metrics.h"

enum helper_msg_type {
	HELPER_PRE_KILL = 1, /* a victim about to be killed: the pre-kill hook */
	HELPER_KILLED,	     /* a victim killed and reaped: post-kill hook, D-Bus, desktop */
	HELPER_METRICS,	     /* one scope's counters: the metrics file */
	HELPER_RELOAD,	     /* SIGHUP: the helper reads the configuration again */
};

#define HELPER_REASON_MAX 128

/*
 * struct helper_victim - a victim and the decision, as hooks and announcers are told.
 * @uid:    its real uid, -1 when not known (the helper then reads it while the victim lives)
 * @cgroup: its cgroup as /proc/PID/cgroup names it, "" when not known (likewise)
 * @reason: the rule's branch that made the verdict
 * @result: "released", "exited", "skipped" (HELPER_KILLED), "" before the kill
 */
struct helper_victim {
	int32_t pid;
	int64_t uid;
	char comm[16];
	char cgroup[CONFIG_PATH_MAX];
	int64_t badness;
	int32_t oom_score_adj;
	uint64_t rss_kib, freed_kib, detect_to_kill_usec, kill_to_freed_usec;
	char result[16];
	char reason[HELPER_REASON_MAX];
};

/*
 * struct helper_msg - one record on the pipe, whole in one write (at most PIPE_BUF bytes: the
 * kernel never splits nor interleaves it).
 * @serial:  a pre-kill record's number, which its answer names
 * @wait:    the daemon waits for the answer (pre_kill_wait_msec)
 * @dropped: records the daemon could not hand over before this one
 */
struct helper_msg {
	uint32_t type;
	uint32_t serial;
	uint32_t wait;
	uint64_t dropped;
	char scope[CONFIG_PATH_MAX];
	char kind[16];
	union {
		struct helper_victim v;
		struct scope_metrics m;
	} u;
};
_Static_assert(sizeof(struct helper_msg) <= PIPE_BUF, "a record is written whole");

/* struct helper_answer - the pre-kill hook's result: 0 go on, else the kill is vetoed. */
struct helper_answer {
	uint32_t serial;
	int32_t veto; /* the hook's exit status when it vetoes, 0 otherwise */
};

/*
 * struct helper - the daemon's side of it. A closed descriptor is -1; @pid 0: not running.
 * @to_fd:    the records' pipe, write end, non-blocking
 * @from_fd:  the answers' pipe, read end, non-blocking
 * @pidfd:    the helper process
 * @dropped:  records not handed over since the last that went
 * @dropped_total: all of them (said at stop)
 * @last_err: the error of the last write (0: it went), said when it changes
 */
struct helper {
	pid_t pid;
	int pidfd, to_fd, from_fd;
	uint32_t serial;
	uint64_t dropped, dropped_total;
	int last_err;
	uint64_t next_metrics_usec;
};

/* How often the loop sends each scope's counters: node_exporter reads the file when scraped
 * (every 15 s by default); every 5 s keeps it fresh at a cost of one write per scope. */
#define HELPER_METRICS_USEC 5000000ull
/* An announcer (dbus-send, notify-send) gets this long before it is killed. */
#define HELPER_ANNOUNCE_TIMEOUT_MSEC 5000

/* helper_wanted() - whether @c asks for anything the helper does. */
bool helper_wanted(const struct config *c);

/* helper_init() - @h not running: every descriptor -1. */
void helper_init(struct helper *h);

/*
 * helper_start() - fork the helper when @c wants it (else do nothing), with @argc, @argv (the
 * command line, which it parses again at a reload). Call before mlockall and before any thread
 * starts. Return: 0, or -errno (the daemon runs on without hooks, announcements and metrics).
 */
int helper_start(struct helper *h, const struct config *c, int argc, char **argv);

/* helper_send() - hand @m over without waiting. Return: 0, or -errno (dropped and counted). */
int helper_send(struct helper *h, struct helper_msg *m);

/*
 * helper_pre_kill() - tell the helper of a victim about to be killed; with pre_kill_wait_msec,
 * wait that long at most for the hook's answer. Return: 0 to kill, or the hook's exit status
 * (> 0) when it vetoed the kill.
 */
int helper_pre_kill(struct helper *h, const struct config *c, struct helper_msg *m);

/* helper_stop() - close the pipes (the helper exits at their end), wait 1 s for it, then
 * SIGKILL it and reap it. */
void helper_stop(struct helper *h);

/*
 * helper_main() - the helper process's loop (after the fork): read records from @fd until its
 * end, answer pre-kill records on @answer_fd. Never returns.
 */
_Noreturn void helper_main(int fd, int answer_fd, pid_t parent, int argc, char **argv);

/* ---- helper_run.c: in the helper process ---- */

/*
 * helper_run() - run @argv (argv[0] an absolute path; no shell) with @envp, for at most
 * @timeout_msec (then SIGKILL); each line of its stdout and stderr logged as "@what pid=N:
 * LINE". Return: its exit status (0-255, 128 + signal when a signal ended it), or -ETIMEDOUT,
 * or -errno when it could not be run.
 */
int helper_run(const char *what, char *const argv[], char *const envp[],
	       unsigned int timeout_msec);

/*
 * helper_split() - @cmd split at spaces into @argv (at most @max - 1 words, NULL-terminated),
 * in place in @buf (a copy of @cmd of @size bytes). Return: the number of words, or -E2BIG.
 */
int helper_split(const char *cmd, char *buf, size_t size, char **argv, size_t max);

/*
 * helper_env() - the hook's environment from @m into @store (@size bytes) and @envp (at most
 * @max entries, NULL-terminated): OOMGUARD_EVENT, _SCOPE, _PID, _UID, _COMM, _CGROUP, ... and
 * PATH. Return: the number of entries, or -E2BIG.
 */
int helper_env(const struct helper_msg *m, const char *event, char *store, size_t size,
	       char **envp, size_t max);

/* helper_dbus_argv() - dbus-send's arguments for @m's Killed signal on @address ("": the
 * system bus), into @store and @argv (NULL-terminated). Return: the count, or -E2BIG. */
int helper_dbus_argv(const struct helper_msg *m, const char *address, char *store, size_t size,
		     char **argv, size_t max);

/* helper_desktop() - notify each user with a session bus under @root/run/user of @m's kill.
 * Return: the number of users notified, or -errno when none could be listed. */
int helper_desktop(const struct helper_msg *m, const char *root, unsigned int timeout_msec);

#endif
