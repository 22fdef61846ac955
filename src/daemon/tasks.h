/* SPDX-License-Identifier: GPL-2.0-only */
/* The candidates of a scope (its processes, recursively through child cgroups, or every
 * process for the machine), read into a preallocated table with the flags badness.h knows. */
#ifndef OOMGUARD_DAEMON_TASKS_H
#define OOMGUARD_DAEMON_TASKS_H

#include <stdbool.h>
#include <stddef.h>

#include "daemon/config.h"
#include "daemon/scope.h"
#include "policy/badness.h"

#define TASKS_MAX   4096
#define VICTIMS_MAX 64
/* Child cgroups deeper than this below a scope are not walked (bounded work, no recursion
 * without end on a hostile tree). */
#define TASKS_MAX_DEPTH 16

enum victim_state { VICTIM_FREE, VICTIM_KILLED, VICTIM_DONE, VICTIM_SKIPPED };

/* struct victim - a process oomguard killed, known by pid and start time (pid reuse safe). */
struct victim {
	int pid;
	unsigned long long start_time;
	enum victim_state state;
};

struct victim_table {
	struct victim v[VICTIMS_MAX];
	size_t next;
};

/* victim_record() - remember a kill (the oldest entry is reused). */
void victim_record(struct victim_table *vt, int pid, unsigned long long start_time);
/* victim_set_state() - the reaper's verdict on @pid. */
void victim_set_state(struct victim_table *vt, int pid, enum victim_state state);

struct task_list {
	struct oom_task tasks[TASKS_MAX];
	size_t nr;
	bool truncated;
};

/*
 * tasks_acquire() - read every candidate of @s. Processes that exit while being read are left
 * out. The flags: kernel thread, init, oomguard itself (@self_pid), protected names, prefer and
 * avoid rules of @c, no mm (zombie), and the state of earlier victims from @vt.
 * Return: 0 or -errno when the scope itself cannot be listed.
 */
int tasks_acquire(struct task_list *tl, const struct scope *s, const struct config *c,
		  const struct victim_table *vt, int self_pid, char *scratch, size_t size);

/* tasks_read_one() - one process (as tasks_acquire() reads it). -ESRCH/-ENOENT: gone. */
int tasks_read_one(const char *root, int pid, const struct config *c, const struct victim_table *vt,
		   int self_pid, char *scratch, size_t size, struct oom_task *ret_task);

#endif
