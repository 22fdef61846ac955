// SPDX-License-Identifier: GPL-2.0-only
/* Listing a scope's candidates: cgroup.procs through the cgroup tree, or /proc for the
 * machine. Directories are read with getdents64 through the syscall table: no allocation. */
#include "daemon/tasks.h"

#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "linux/parse.h"
#include "linux/procfs.h"
#include "linux/sys.h"

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

#define DT_DIR_TYPE 4

void victim_record(struct victim_table *vt, int pid, unsigned long long start_time)
{
	struct victim *v = &vt->v[vt->next % VICTIMS_MAX];

	v->pid = pid;
	v->start_time = start_time;
	v->state = VICTIM_KILLED;
	vt->next++;
}

void victim_set_state(struct victim_table *vt, int pid, enum victim_state state)
{
	for (size_t i = 0; i < VICTIMS_MAX; i++)
		if (vt->v[i].pid == pid && vt->v[i].state == VICTIM_KILLED)
			vt->v[i].state = state;
}

static unsigned int victim_flags(const struct victim_table *vt, int pid,
				 unsigned long long start_time)
{
	for (size_t i = 0; i < VICTIMS_MAX; i++) {
		const struct victim *v = &vt->v[i];

		if (v->state == VICTIM_FREE || v->pid != pid || v->start_time != start_time)
			continue;
		if (v->state == VICTIM_KILLED)
			return OOM_TASK_VICTIM;
		return OOM_TASK_SKIP;
	}
	return 0;
}

static bool cgroup_matches(const char *root, int pid, const char *want, char *scratch, size_t size)
{
	char path[CONFIG_PATH_MAX];
	size_t len = strlen(want);

	if (read_pid_cgroup(root, pid, "memory", scratch, size, path, sizeof(path)) < 0 &&
	    read_pid_cgroup(root, pid, NULL, scratch, size, path, sizeof(path)) < 0)
		return false;
	return !strncmp(path, want, len) && (path[len] == '/' || path[len] == '\0');
}

int tasks_read_one(const char *root, int pid, const struct config *c, const struct victim_table *vt,
		   int self_pid, char *scratch, size_t size, struct oom_task *ret_task)
{
	struct oom_task t;
	struct pid_stat st;
	struct pid_status ss;
	int r;

	memset(&t, 0, sizeof(t));
	r = read_pid_stat(root, pid, scratch, size, &st);
	if (r < 0)
		return r;
	r = read_pid_status(root, pid, scratch, size, &ss);
	if (r < 0)
		return r;
	r = read_pid_oom_score_adj(root, pid, &t.oom_score_adj);
	if (r < 0)
		return r;
	t.pid = pid;
	memcpy(t.comm, st.comm, sizeof(t.comm));
	t.rss_pages = ss.rss_kib / 4;
	t.swap_pages = ss.swap_kib / 4;
	t.pgtables_pages = ss.pte_kib / 4;
	t.start_time = st.start_time;
	if ((st.flags & PF_KTHREAD_FLAG) || ss.kthread == 1)
		t.flags |= OOM_TASK_KTHREAD;
	if (pid == 1)
		t.flags |= OOM_TASK_INIT;
	if (pid == self_pid)
		t.flags |= OOM_TASK_SELF;
	if (!ss.has_vm || st.state == 'Z' || st.state == 'X')
		t.flags |= OOM_TASK_NO_MM;
	for (size_t i = 0; i < c->nr_protect; i++)
		if (!strcmp(c->protect[i], t.comm))
			t.flags |= OOM_TASK_PROTECTED;
	if (c->has_prefer_re && !regexec(&c->prefer_re, t.comm, 0, NULL, 0))
		t.flags |= OOM_TASK_PREFER;
	if (c->has_avoid_re && !regexec(&c->avoid_re, t.comm, 0, NULL, 0))
		t.flags |= OOM_TASK_AVOID;
	if (c->prefer_cgroup[0] && cgroup_matches(root, pid, c->prefer_cgroup, scratch, size))
		t.flags |= OOM_TASK_PREFER;
	if (c->avoid_cgroup[0] && cgroup_matches(root, pid, c->avoid_cgroup, scratch, size))
		t.flags |= OOM_TASK_AVOID;
	t.flags |= victim_flags(vt, pid, t.start_time);
	*ret_task = t;
	return 0;
}

static void add_pid(struct task_list *tl, const struct scope *s, const struct config *c,
		    const struct victim_table *vt, int self_pid, int pid, char *scratch,
		    size_t size)
{
	if (tl->nr >= TASKS_MAX) {
		tl->truncated = true;
		return;
	}
	for (size_t i = 0; i < tl->nr; i++) /* a pid listed twice (moved during the walk) */
		if (tl->tasks[i].pid == pid)
			return;
	if (tasks_read_one(s->root, pid, c, vt, self_pid, scratch, size, &tl->tasks[tl->nr]) == 0)
		tl->nr++;
}

static int list_procs_file(struct task_list *tl, const struct scope *s, const struct config *c,
			   const struct victim_table *vt, int self_pid, const char *dir,
			   char *scratch, size_t size)
{
	char path[CONFIG_PATH_MAX + 32];
	char pids[16384];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	n = sys_read_file(NULL, path, pids, sizeof(pids));
	if (n == -E2BIG)
		tl->truncated = true;
	else if (n < 0)
		return (int)n;
	for (const char *p = pids; p && *p; p = next_line(p)) {
		uint64_t pid;
		const char *q = p;

		if (parse_u64(&q, &pid) == 0 && pid > 0 && pid <= INT32_MAX)
			add_pid(tl, s, c, vt, self_pid, (int)pid, scratch, size);
	}
	return 0;
}

static int walk_cgroup(struct task_list *tl, const struct scope *s, const struct config *c,
		       const struct victim_table *vt, int self_pid, char *dir, size_t dir_size,
		       int depth, char *scratch, size_t size)
{
	char dents[4096];
	size_t len = strlen(dir);
	int fd, r;
	long n;

	r = list_procs_file(tl, s, c, vt, self_pid, dir, scratch, size);
	if (r < 0 || depth >= TASKS_MAX_DEPTH)
		return r;
	fd = sys_open_path(NULL, dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return depth ? 0 : fd; /* a child removed during the walk is not an error */
	while ((n = sys->getdents64(fd, dents, sizeof(dents))) > 0) {
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(void *)(dents + off);
			size_t nlen = strlen(d->d_name);

			off += d->d_reclen;
			if (d->d_type != DT_DIR_TYPE || d->d_name[0] == '.')
				continue;
			if (len + 1 + nlen + 1 > dir_size)
				continue;
			dir[len] = '/';
			memcpy(dir + len + 1, d->d_name, nlen + 1);
			walk_cgroup(tl, s, c, vt, self_pid, dir, dir_size, depth + 1, scratch,
				    size);
			dir[len] = '\0';
		}
	}
	sys->close(fd);
	return 0;
}

static int walk_proc(struct task_list *tl, const struct scope *s, const struct config *c,
		     const struct victim_table *vt, int self_pid, char *scratch, size_t size)
{
	char dents[4096];
	int fd;
	long n;

	fd = sys_open_path(s->root, "/proc", O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd;
	while ((n = sys->getdents64(fd, dents, sizeof(dents))) > 0) {
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(void *)(dents + off);
			const char *p = d->d_name;
			uint64_t pid;

			off += d->d_reclen;
			if (parse_u64(&p, &pid) == 0 && !*p && pid > 0 && pid <= INT32_MAX)
				add_pid(tl, s, c, vt, self_pid, (int)pid, scratch, size);
		}
	}
	sys->close(fd);
	return n < 0 ? (int)n : 0;
}

int tasks_acquire(struct task_list *tl, const struct scope *s, const struct config *c,
		  const struct victim_table *vt, int self_pid, char *scratch, size_t size)
{
	char dir[CONFIG_PATH_MAX];

	tl->nr = 0;
	tl->truncated = false;
	if (s->kind == SCOPE_MACHINE)
		return walk_proc(tl, s, c, vt, self_pid, scratch, size);
	snprintf(dir, sizeof(dir), "%s", s->dir);
	return walk_cgroup(tl, s, c, vt, self_pid, dir, sizeof(dir), 0, scratch, size);
}
