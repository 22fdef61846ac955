/* SPDX-License-Identifier: GPL-2.0-only */
/* The prefer, avoid and protect rules: what a process is (read once, match_read()) against the
 * configured rules and systemd's ManagedOOMPreference xattrs (pure, match_flags()). */
#ifndef OOMGUARD_DAEMON_MATCH_H
#define OOMGUARD_DAEMON_MATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "daemon/config.h"
#include "linux/cgroupfs.h"

/* What a process's cmdline is matched on: its first 1 KiB, arguments joined by spaces. */
#define MATCH_CMDLINE_MAX 1024
/* Levels of cgroups walked up for the oomd xattrs: more than any real tree. */
#define MATCH_XATTR_MAX_DEPTH 32

/* systemd's ManagedOOMPreference=, as its xattrs on a root-owned cgroup say. */
#define MATCH_OOMD_AVOID 0x1u
#define MATCH_OOMD_OMIT  0x2u

/* Bits of match_needs(): the attributes the rules look at, read by match_read(). */
#define MATCH_NEED(attr)   (1u << (attr))
#define MATCH_NEED_XATTRS (1u << NR_MATCH_ATTRS)

/*
 * struct proc_attrs - what a process is, as the rules see it.
 * @comm:    its name (set by the process: PR_SET_NAME)
 * @cmdline: its arguments (set by the process), NUL-separated in the kernel, joined by spaces
 * @uid:     the real uid (the first field of Uid: in /proc/PID/status)
 * @exe:     /proc/PID/exe's target, " (deleted)" cut off (a binary replaced by an upgrade)
 * @cgroup:  its cgroup: the v1 memory hierarchy's path, else the v2 one
 * @oomd:    MATCH_OOMD_* from its v2 cgroup or an ancestor
 */
struct proc_attrs {
	char comm[CONFIG_COMM_LEN];
	char cmdline[MATCH_CMDLINE_MAX];
	uint32_t uid;
	char exe[CONFIG_PATH_MAX];
	char cgroup[CONFIG_PATH_MAX];
	unsigned int oomd;
	unsigned int have; /* MATCH_NEED() bits of what was read */
};

/* match_needs() - what @c's rules need read of each process (MATCH_NEED bits); 0: nothing. */
unsigned int match_needs(const struct config *c, const struct cgroup_mounts *mounts);

/*
 * match_read() - read into @a what @needs asks of process @pid (@a->comm is set by the caller):
 * its status (uid), exe, cmdline, cgroup, and the oomd xattrs of its v2 cgroup and the cgroups
 * above it (honoured only on a cgroup owned by root, as systemd-oomd does: a user may set
 * user.* xattrs on a cgroup delegated to them). Return: 0, or -errno of a read that failed
 * (-ESRCH, -ENOENT: the process is gone).
 */
int match_read(const char *root, const struct cgroup_mounts *mounts, int pid, unsigned int needs,
	       char *scratch, size_t size, struct proc_attrs *a);

/*
 * match_flags() - OOM_TASK_PROTECTED, _PREFER and _AVOID for @a under @c's rules and, with
 * oomd_xattrs, its cgroup's ManagedOOMPreference (omit: protected; avoid: avoided). Pure but
 * for regexec (which allocates in musl: callers cache the result). @ret_rules (may be NULL):
 * bit i set when rule i matched.
 */
unsigned int match_flags(const struct config *c, const struct proc_attrs *a,
			 uint32_t *ret_rules);

/* match_action_name() - "protect", "prefer" or "avoid". */
const char *match_action_name(enum match_action action);

#endif
