/* SPDX-License-Identifier: GPL-2.0-only */
/* Kill units: the processes killed with a victim, as its scope's kill_unit says. The kernel's
 * memory.oom.group (v2: the highest group with it set between the victim's cgroup and the
 * scope; kill_unit oom_group, the default, and cgroup), or the victim's whole cgroup (cgroup).
 * Found when the victim is chosen (reads), killed after it (act). Never a process outside the
 * scope, nor oomguard or init. */
#ifndef OOMGUARD_DAEMON_UNIT_H
#define OOMGUARD_DAEMON_UNIT_H

#include <stdbool.h>
#include <stddef.h>

#include "daemon/config.h"
#include "linux/cgroupfs.h"

struct scope;

enum kill_unit_mode {
	UNIT_NONE,      /* the victim alone */
	UNIT_OOM_GROUP, /* memory.oom.group=1: every task but oom_score_adj -1000, as the kernel */
	UNIT_CGROUP /* kill_unit cgroup: the victim's cgroup and below, cgroup.kill where it can */
};

/*
 * struct kill_unit - where the rest of a victim's unit is.
 * @dir:      the group's directory (root prefix included)
 * @path:     the same as /proc/PID/cgroup names it (what a member's path starts with)
 * @v2:       in the v2 hierarchy (cgroup.kill and memory.oom.group exist only there)
 * @has_self: oomguard is in the group: cgroup.kill would kill it; tasks are signalled one by one
 */
struct kill_unit {
	enum kill_unit_mode mode;
	char dir[CONFIG_PATH_MAX];
	char path[CONFIG_PATH_MAX];
	bool v2;
	bool has_self;
};

/*
 * unit_find() - the unit of victim @pid in scope @s, as s->set.kill_unit asks: for oom_group
 * and cgroup, memory.oom.group as the kernel's mem_cgroup_get_oom_group() finds it (the highest
 * ancestor with it set, up to the scope's own group; for the machine, below the hierarchy's
 * root), else for cgroup the victim's cgroup, else UNIT_NONE (and always for process). Never
 * the hierarchy's root, never a group outside @s. Return: 0 (@ret set), or -errno when the
 * victim's cgroup cannot be read (then UNIT_NONE).
 */
int unit_find(const struct scope *s, const struct cgroup_mounts *mounts, int pid, int self_pid,
	      char *scratch, size_t size, struct kill_unit *ret);

/*
 * unit_kill() - SIGKILL the rest of @u (@victim_pid was killed already): cgroup.kill for a
 * UNIT_CGROUP of v2 without oomguard in it; else each process of the group and its children
 * through a pidfd, after checking that it is still in the group (pid reuse), skipping oomguard,
 * init and, for UNIT_OOM_GROUP, oom_score_adj -1000. @dry_run: count, signal nobody.
 * Return: processes signalled (or found, dry run); -1 when cgroup.kill did it (count unknown).
 */
long unit_kill(const struct scope *s, const struct kill_unit *u, int victim_pid, int self_pid,
	       bool dry_run, char *scratch, size_t size);

/* unit_mode_name() - "memory.oom.group" or "cgroup". */
const char *unit_mode_name(enum kill_unit_mode mode);

#endif
