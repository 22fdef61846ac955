// SPDX-License-Identifier: GPL-2.0-only
/*
 * The victim rules by what a process is. Read (match_read: status, exe, cmdline, cgroup, the
 * cgroup's xattrs, only what the rules need), then match (match_flags: pure but for regexec).
 * Which attributes a user can forge is said in config.h (enum match_attr) and docs/daemon.md.
 */
#include "daemon/match.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "linux/procfs.h"
#include "linux/sys.h"
#include "policy/badness.h"

const char *match_action_name(enum match_action action)
{
	return action == MATCH_PROTECT ? "protect" : action == MATCH_PREFER ? "prefer" : "avoid";
}

unsigned int match_needs(const struct config *c, const struct cgroup_mounts *mounts)
{
	unsigned int needs = 0;

	for (size_t i = 0; i < c->nr_rules; i++)
		needs |= MATCH_NEED(c->rules[i].attr);
	if (c->oomd_xattrs && mounts && mounts->v2[0])
		needs |= MATCH_NEED_XATTRS;
	return needs;
}

/*
 * The ManagedOOMPreference= of the v2 cgroup @cg (as /proc/PID/cgroup names it) and the cgroups
 * above it, up to the hierarchy's root: systemd sets it on the unit's cgroup, the process may be
 * in a cgroup below. Honoured only on a cgroup owned by root (systemd-oomd's rule: a user may set
 * user.* xattrs on a cgroup delegated to them, and must not omit their own processes). omit wins.
 * Return: MATCH_OOMD_* bits, or -errno of a read that failed other than for a cgroup gone.
 */
static int oomd_preference(const char *root, const char *mount, const char *cg)
{
	char dir[CONFIG_PATH_MAX * 2], full[CONFIG_PATH_MAX * 3];
	size_t base = strlen(mount);
	struct stat st;
	int pref = 0, r;

	if (snprintf(dir, sizeof(dir), "%s%s", mount, strcmp(cg, "/") ? cg : "") >=
	    (int)sizeof(dir))
		return 0;
	for (int depth = 0; depth < MATCH_XATTR_MAX_DEPTH; depth++) {
		char *slash;

		if (sys_join_path(full, sizeof(full), root, dir) < 0)
			return 0;
		r = sys->fstatat(AT_FDCWD, full, &st, 0);
		if (r < 0 && r != -ENOENT && r != -ENOTDIR)
			return r;
		if (r == 0 && st.st_uid == 0) {
			r = read_cgroup_xattr_bool(full, "user.oomd_omit");
			if (r < 0)
				return r;
			pref |= r ? (int)MATCH_OOMD_OMIT : 0;
			r = read_cgroup_xattr_bool(full, "user.oomd_avoid");
			if (r < 0)
				return r;
			pref |= r ? (int)MATCH_OOMD_AVOID : 0;
		}
		slash = strrchr(dir, '/');
		if (!slash || (size_t)(slash - dir) < base)
			break; /* the hierarchy's root was the last */
		*slash = '\0';
	}
	return pref;
}

static int read_exe(const char *root, int pid, char *out, size_t size)
{
	static const char deleted[] = " (deleted)";
	char path[CONFIG_PATH_MAX + 64];
	ssize_t n;
	size_t dl = sizeof(deleted) - 1;

	snprintf(path, sizeof(path), "%s/proc/%d/exe", root ? root : "", pid);
	n = sys->readlinkat(AT_FDCWD, path, out, size - 1);
	if (n < 0)
		return (int)n;
	if ((size_t)n >= size - 1)
		return -ENAMETOOLONG;
	out[n] = '\0';
	/* A binary replaced by an upgrade: the path it was run from is still what it is. */
	if ((size_t)n > dl && !strcmp(out + (size_t)n - dl, deleted))
		out[(size_t)n - dl] = '\0';
	return 0;
}

static int read_cmdline(const char *root, int pid, char *out, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	fd = sys_open_path(root, path, O_RDONLY);
	if (fd < 0)
		return fd;
	n = sys->read(fd, out, size - 1); /* the first MATCH_CMDLINE_MAX bytes are enough */
	sys->close(fd);
	if (n < 0)
		return (int)n;
	while (n > 0 && out[n - 1] == '\0')
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (out[i] == '\0')
			out[i] = ' ';
	out[n] = '\0';
	return 0;
}

int match_read(const char *root, const struct cgroup_mounts *mounts, int pid, unsigned int needs,
	       char *scratch, size_t size, struct proc_attrs *a)
{
	char v2[CONFIG_PATH_MAX];
	ssize_t n;
	int r;

	a->have = MATCH_NEED(MATCH_NAME);
	a->exe[0] = a->cmdline[0] = a->cgroup[0] = '\0';
	a->oomd = 0;
	if (needs & MATCH_NEED(MATCH_UID)) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/status", pid);
		n = sys_read_file(root, path, scratch, size);
		r = n < 0 ? (int)n : parse_pid_status_uid_buf(scratch, &a->uid);
		if (r < 0)
			return r;
	}
	if (needs & MATCH_NEED(MATCH_EXE)) {
		r = read_exe(root, pid, a->exe, sizeof(a->exe));
		if (r < 0 && r != -ENOENT)
			return r;
		if (r < 0) /* a zombie's: no exe, no exe rule matches */
			a->exe[0] = '\0';
	}
	if (needs & MATCH_NEED(MATCH_CMDLINE)) {
		r = read_cmdline(root, pid, a->cmdline, sizeof(a->cmdline));
		if (r < 0)
			return r;
	}
	if ((needs & MATCH_NEED(MATCH_CGROUP)) &&
	    read_pid_cgroup(root, pid, "memory", scratch, size, a->cgroup, sizeof(a->cgroup)) < 0) {
		r = read_pid_cgroup(root, pid, NULL, scratch, size, a->cgroup, sizeof(a->cgroup));
		if (r < 0)
			return r;
	}
	if ((needs & MATCH_NEED_XATTRS) &&
	    read_pid_cgroup(root, pid, NULL, scratch, size, v2, sizeof(v2)) == 0) {
		r = oomd_preference(root, mounts->v2, v2);
		if (r < 0)
			return r;
		a->oomd = (unsigned int)r;
	}
	a->have = needs | MATCH_NEED(MATCH_NAME);
	return 0;
}

/* @path is @want, or below it when @want is a directory (cgroup; exe when it ends in '/'). */
static bool path_under(const char *path, const char *want, bool dir)
{
	size_t len = strlen(want);

	if (strncmp(path, want, len))
		return false;
	if (!dir)
		return path[len] == '\0';
	return want[len - 1] == '/' || path[len] == '/' || path[len] == '\0';
}

static bool rule_matches(const struct match_rule *m, const struct proc_attrs *a)
{
	if (!(a->have & MATCH_NEED(m->attr)))
		return false;
	switch (m->attr) {
	case MATCH_NAME:
		return m->has_re && !regexec(&m->re, a->comm, 0, NULL, 0);
	case MATCH_CMDLINE:
		return m->has_re && !regexec(&m->re, a->cmdline, 0, NULL, 0);
	case MATCH_UID:
		return a->uid >= m->uid_min && a->uid <= m->uid_max;
	case MATCH_EXE:
		return a->exe[0] && path_under(a->exe, m->value, m->value[strlen(m->value) - 1] == '/');
	case MATCH_CGROUP:
		return a->cgroup[0] && path_under(a->cgroup, m->value, true);
	default:
		return false;
	}
}

unsigned int match_flags(const struct config *c, const struct proc_attrs *a, uint32_t *ret_rules)
{
	static const unsigned int action_flag[] = {
	    [MATCH_PROTECT] = OOM_TASK_PROTECTED,
	    [MATCH_PREFER] = OOM_TASK_PREFER,
	    [MATCH_AVOID] = OOM_TASK_AVOID,
	};
	unsigned int flags = 0;
	uint32_t rules = 0;

	for (size_t i = 0; i < c->nr_rules && i < 32; i++) {
		if (!rule_matches(&c->rules[i], a))
			continue;
		flags |= action_flag[c->rules[i].action];
		rules |= 1u << i;
	}
	if (c->oomd_xattrs && (a->have & MATCH_NEED_XATTRS)) {
		if (a->oomd & MATCH_OOMD_OMIT)
			flags |= OOM_TASK_PROTECTED;
		else if (a->oomd & MATCH_OOMD_AVOID)
			flags |= OOM_TASK_AVOID;
	}
	if (ret_rules)
		*ret_rules = rules;
	return flags;
}
