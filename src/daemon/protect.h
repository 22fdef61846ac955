/* SPDX-License-Identifier: GPL-2.0-only */
/* The daemon's self-protection at start-up: its memory resident and locked (what the kill path
 * touches faulted in ahead), oom_score_adj -1000, and enough open files for its listings. */
#ifndef OOMGUARD_DAEMON_PROTECT_H
#define OOMGUARD_DAEMON_PROTECT_H

#include <stddef.h>

/* A part of the daemon's state to fault in. */
struct protect_range {
	void *p;
	size_t len;
};

/*
 * protect_self() - lock the daemon in memory (mlockall, MCL_ONFAULT), fault in the @nr
 * @ranges of its state that the loop and the kill path use and the stack the kill path uses,
 * and ask for oom_score_adj -1000. Failures are logged: oomguard still runs without.
 * @scratch: a buffer for /proc/self/maps. What is never faulted in (scope slots no scope uses)
 * takes no memory.
 */
void protect_self(const struct protect_range *ranges, size_t nr, char *scratch,
		  size_t scratch_size);

/* protect_prefault() - fault in (locked, after protect_self()) state that came into use later. */
void protect_prefault(void *p, size_t len);

/*
 * protect_fd_budget() - raise the soft RLIMIT_NOFILE toward what task listings keep open (two
 * files per process, TASKS_FD_MAX processes) plus room for the scopes' files, pidfds and the
 * log, and grow the file table to that size now, while one thread runs. Return: how many
 * processes' files to keep open where the limit allows fewer than TASKS_FD_MAX (logged), else 0
 * (the default).
 */
size_t protect_fd_budget(void);

/*
 * protect_drop_privileges() - once start-up is done (memory locked, oom_score_adj, open files,
 * the loop's SCHED_FIFO) and before any other thread exists (capabilities are per thread; new
 * ones inherit the caller's): drop every capability but those the loop and a reload use from
 * the permitted, effective, inheritable, ambient and (with CAP_SETPCAP) bounding sets, and set
 * no_new_privs. Logs what it kept; a failure is logged and oomguard runs on.
 */
void protect_drop_privileges(void);

#endif
