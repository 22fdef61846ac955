// SPDX-License-Identifier: GPL-2.0-only
/* Listing a scope's candidates: cgroup.procs through the cgroup tree, or /proc for the
 * machine. Directories are read with getdents64 through the syscall table: no allocation. */
#include "daemon/tasks.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "daemon/match.h"
#include "linux/parse.h"
#include "linux/procfs.h"
#include "linux/sys.h"

#define DT_DIR_TYPE 4

/*
 * The prefer/avoid/protect flags of @t by the rules (match.h), from @e's cache when it holds
 * them for this name and config (@e may be NULL: read and matched each time). Return: 0, or
 * -errno when what the rules need could not be read.
 */
static int rule_flags(struct task_list *tl, const char *root, const struct config *c,
		      struct oom_task *t, struct proc_fds *e, char *scratch, size_t size)
{
	unsigned int needs = match_needs(c, tl->mounts);
	struct proc_attrs a;
	uint32_t hash;
	int r;

	if (!c->nr_rules && !needs)
		return 0;
	hash = tasks_name_hash(t->comm);
	if (e && e->re_serial == c->re_serial && e->re_hash == hash) {
		t->flags |= e->re_flags;
		return 0;
	}
	/* A known_only listing opens no file (the machine is out of memory): a process renamed
	 * since keeps the flags it had; one never matched is left out, as a new one is. */
	if (tl->known_only) {
		if (e && e->re_serial) {
			t->flags |= e->re_flags;
			return 0;
		}
		tl->skipped_new++;
		return -EAGAIN;
	}
	memcpy(a.comm, t->comm, sizeof(a.comm));
	r = match_read(root, tl->mounts, task_proc_pid(t), needs, scratch, size, &a);
	/* read through a thread gone since, maybe another process's: at the next listing */
	if (r == 0 && task_proc_confirm(root, t) < 0)
		r = -EBUSY;
	if (r < 0)
		return r;
	t->flags |= match_flags(c, &a, NULL);
	if (e) {
		e->re_serial = c->re_serial;
		e->re_hash = hash;
		e->re_flags = (uint16_t)(t->flags & (OOM_TASK_PROTECTED | OOM_TASK_PREFER |
						     OOM_TASK_AVOID));
	}
	return 0;
}

/*
 * The flags of @t from its name, pid, what the rules look at and the earlier victims; @e: its
 * kept files. Return: 0, or -errno when the rules' reads failed.
 */
static int task_flags(struct task_list *tl, struct oom_task *t, const char *root,
		      const struct config *c, const struct victim_table *vt, int self_pid,
		      struct proc_fds *e, char *scratch, size_t size)
{
	if (t->pid == 1)
		t->flags |= OOM_TASK_INIT;
	if (t->pid == self_pid)
		t->flags |= OOM_TASK_SELF;
	if (t->flags & OOM_TASK_KTHREAD)
		return 0; /* never a candidate: no name, cgroup or victim rule can change that */
	for (size_t i = 0; i < c->nr_protect; i++)
		if (!strcmp(c->protect[i], t->comm))
			t->flags |= OOM_TASK_PROTECTED;
	t->flags |= victim_flags(vt, t->pid, t->start_time);
	return rule_flags(tl, root, c, t, e, scratch, size);
}

/* What /proc/PID/status adds to a task read from its stat: swap, page tables, the mm. */
static void task_add_status(struct oom_task *t, const struct pid_status *ss,
			    unsigned int page_shift)
{
	t->rss_pages = kib_to_pages(ss->rss_kib, page_shift);
	t->swap_pages = kib_to_pages(ss->swap_kib, page_shift);
	t->pgtables_pages = kib_to_pages(ss->pte_kib, page_shift);
	if (ss->kthread == 1)
		t->flags |= OOM_TASK_KTHREAD;
	if (!ss->has_vm)
		t->flags |= OOM_TASK_NO_MM;
	if (ss->sigkill_pending)
		t->flags |= OOM_TASK_DYING;
}

static void task_from_stat(struct oom_task *t, int pid, const struct pid_stat *st)
{
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	memcpy(t->comm, st->comm, sizeof(t->comm));
	t->rss_pages = st->rss_pages;
	t->start_time = st->start_time;
	if (st->flags & PF_KTHREAD_FLAG)
		t->flags |= OOM_TASK_KTHREAD;
	if (st->state == 'Z' || st->state == 'X')
		t->flags |= OOM_TASK_NO_MM;
	if (pid_stat_dying(st))
		t->flags |= OOM_TASK_DYING;
}

/*
 * One process from its kept stat and oom_score_adj (struct task_list says why). An entry
 * whose stat no longer reads named a process that exited: its pid may name a new one, which is
 * opened afresh once. A process not kept yet is read through a temporary entry and takes a
 * slot only once its stat says it is no kernel thread: kernel threads are never candidates,
 * keep no file and take no slot, so that a pid a kernel thread left is read afresh by whatever
 * process takes it, and the slots go to processes. Return: 0, or -errno when the process is
 * gone.
 */
static int read_kept_task(struct task_list *tl, const struct scope *s, int pid, char *scratch,
			  size_t size, struct oom_task *ret_task, struct proc_fds **ret_entry)
{
	struct proc_fds tmp = {.pid = pid, .stat_fd = -1, .adj_fd = -1};
	struct proc_fds *e = tasks_fds_find(tl, pid, false);
	struct pid_stat st;
	bool fresh;
	ssize_t n;
	int r = -ESRCH;

	*ret_entry = NULL;
	if (!e && tl->known_only) {
		tl->skipped_new++;
		return -EAGAIN;
	}
	if (!e)
		e = &tmp;
	for (int attempt = 0; attempt < 2; attempt++) {
		fresh = e->stat_fd < 0;
		n = tasks_read_kept(s->root, pid, "stat", &e->stat_fd, scratch, size);
		r = n < 0 ? (int)n : parse_pid_stat_buf(scratch, &st);
		/* A kept file that fails names a process that has exited; a new one under the
		 * same pid is opened afresh, unless the listing takes no new process. */
		if (r == 0 || fresh || tl->known_only)
			break;
		tasks_fds_close(e);
	}
	if (r == 0 && (st.flags & PF_KTHREAD_FLAG)) {
		tasks_fds_close(e);
		e->gen = tl->gen - 1; /* a slot it had goes at the sweep after this listing */
		task_from_stat(ret_task, pid, &st);
		ret_task->flags |= OOM_TASK_NO_MM;
		return 0;
	}
	if (r == 0 && e == &tmp) { /* a process: a slot, if there is one, keeps its files */
		struct proc_fds *slot = tasks_fds_find(tl, pid, true);

		if (slot) {
			slot->stat_fd = tmp.stat_fd;
			tmp.stat_fd = -1;
			e = slot;
		} else {
			tl->not_kept++;
		}
	}
	e->gen = tl->gen;
	e->seen_by = tasks_scope_tag(s);
	if (r == 0) {
		int tid = 0;

		if ((st.state == 'Z' || st.state == 'X') && st.num_threads > 1)
			tid = read_pid_through_thread(s->root, pid, scratch, size, &st);
		task_from_stat(ret_task, pid, &st);
		ret_task->mm_tid = tid;
		if (!tid && pid_shares_parent_mm(pid, &st))
			ret_task->flags |= OOM_TASK_VFORK;
		n = tasks_read_kept(s->root, pid, "oom_score_adj", &e->adj_fd, scratch, size);
		r = n < 0 ? (int)n : parse_oom_score_adj_buf(scratch, &ret_task->oom_score_adj);
	}
	if (r < 0 || e == &tmp)
		tasks_fds_close(e);
	if (r < 0)
		e->gen = tl->gen - 1; /* gone: the sweep after this listing drops it */
	*ret_entry = r == 0 && e != &tmp ? e : NULL;
	return r;
}

/*
 * A read that failed for want of a resource (memory, descriptors) or by a signal, not because
 * the process exited (ESRCH, ENOENT), was left out by the listing (EAGAIN) or is not readable
 * to us (EACCES): the process may be the largest, so the listing is incomplete.
 */
static bool transient(int err)
{
	return err == -ENOMEM || err == -EMFILE || err == -ENFILE || err == -EINTR ||
	       err == -EIO || err == -EBUSY;
}

static void add_pid(struct task_list *tl, const struct scope *s, const struct config *c,
		    const struct victim_table *vt, int self_pid, int pid, char *scratch,
		    size_t size)
{
	struct proc_fds *e = NULL;
	struct oom_task t;
	int r;

	for (size_t i = 0; i < tl->nr; i++) /* a pid listed twice (moved during the walk) */
		if (tl->tasks[i].pid == pid)
			return;
	r = read_kept_task(tl, s, pid, scratch, size, &t, &e);
	if (r < 0) {
		if (transient(r) && !tl->err)
			tl->err = r; /* not gone: a listing without it must choose nothing */
		return;
	}
	r = task_flags(tl, &t, s->root, c, vt, self_pid, e, scratch, size);
	if (r < 0) {
		if (transient(r) && !tl->err)
			tl->err = r; /* what the rules need unread: it may be protected */
		return;
	}
	oom_tasks_take(tl->tasks, &tl->nr,
		       &(struct oom_take_limits){TASKS_MAX, TASKS_KEEP_CUT, scope_totalpages(s)},
		       &tl->take, &t);
}

/*
 * The TASKS_DETAIL_TOP candidates of the table that rank first by the victim rules (badness.c,
 * rules 3-7, on what the listing read), best first, into @ret_top. Return: how many.
 */
static size_t top_candidates(const struct task_list *tl, unsigned long totalpages,
			     size_t ret_top[TASKS_DETAIL_TOP])
{
	size_t n = 0;

	while (n < TASKS_DETAIL_TOP) {
		size_t best = tl->nr;
		long best_points = OOM_BADNESS_UNKILLABLE;

		for (size_t i = 0; i < tl->nr; i++) {
			long p = oom_badness(&tl->tasks[i], totalpages);
			bool seen = false;

			for (size_t k = 0; k < n; k++)
				seen |= ret_top[k] == i;
			if (!seen && p != OOM_BADNESS_UNKILLABLE &&
			    (best == tl->nr ||
			     oom_task_better(&tl->tasks[i], p, &tl->tasks[best], best_points))) {
				best_points = p;
				best = i;
			}
		}
		if (best == tl->nr)
			break;
		ret_top[n++] = best;
	}
	return n;
}

/*
 * The status of the @nr_top tasks @top that rank first without it, so that the choice among
 * them counts swap and page tables as the kernel does.
 */
static void add_details(struct task_list *tl, const struct scope *s, const size_t *top,
			size_t nr_top, char *scratch, size_t size)
{
	for (size_t i = 0; i < nr_top; i++) {
		struct oom_task *t = &tl->tasks[top[i]];
		struct pid_status ss;
		int r = t->mm_tid ? read_task_status(s->root, t->pid, t->mm_tid, scratch, size, &ss)
				  : read_pid_status(s->root, t->pid, scratch, size, &ss);

		if (r == 0)
			task_add_status(t, &ss, s->page_shift);
	}
}

struct procs_walk {
	struct task_list *tl;
	const struct scope *s;
	const struct config *c;
	const struct victim_table *vt;
	int self_pid;
	char *scratch;
	size_t size;
};

static bool add_procs_line(char *text, void *ctx)
{
	struct procs_walk *w = ctx;
	const char *q = text;
	uint64_t pid;

	if (parse_u64(&q, &pid) == 0 && pid > 0 && pid <= INT32_MAX)
		add_pid(w->tl, w->s, w->c, w->vt, w->self_pid, (int)pid, w->scratch, w->size);
	return true;
}

/* The processes of the group @dir, its cgroup.procs read as a stream whatever its length (a
 * fork bomb's group holds thousands). */
static int list_procs_file(struct task_list *tl, const struct scope *s, const struct config *c,
			   const struct victim_table *vt, int self_pid, char *dir, char *scratch,
			   size_t size)
{
	struct procs_walk w = {tl, s, c, vt, self_pid, scratch, size};
	size_t len = strlen(dir);
	char line[64];
	ssize_t n;

	/* room kept by the caller */
	memcpy(dir + len, TASKS_PROCS_FILE, sizeof(TASKS_PROCS_FILE));
	n = sys_read_lines(NULL, dir, line, sizeof(line), add_procs_line, &w);
	dir[len] = '\0';
	return n < 0 ? (int)n : 0;
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
	if (depth && (r == -ENOENT || r == -ENODEV))
		return 0; /* a child removed during the walk is not an error */
	if (r < 0)
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
			if (depth >= TASKS_MAX_DEPTH ||
			    len + 1 + nlen + sizeof(TASKS_PROCS_FILE) > dir_size) {
				tl->groups_cut++; /* said, not hidden (log_listing_limits()) */
				continue;
			}
			dir[len] = '/';
			memcpy(dir + len + 1, d->d_name, nlen + 1);
			r = walk_cgroup(tl, s, c, vt, self_pid, dir, dir_size, depth + 1, scratch,
					size);
			dir[len] = '\0';
			if (r < 0 && !tl->err)
				tl->err = r; /* a child group not listed: its tasks are missing */
		}
	}
	sys->close(fd);
	if (n < 0 && !tl->err)
		tl->err = (int)n;
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

/*
 * The machine's processes whose files are kept (a known_only listing): from the table, without
 * reading /proc's directory (under exhaustion its dentries are allocated and wait in reclaim).
 */
static int walk_known(struct task_list *tl, const struct scope *s, const struct config *c,
		      const struct victim_table *vt, int self_pid, char *scratch, size_t size)
{
	for (size_t i = 0; i < TASKS_FD_SLOTS; i++)
		if (tl->fds[i].pid) /* no insertion under known_only: the table holds still */
			add_pid(tl, s, c, vt, self_pid, tl->fds[i].pid, scratch, size);
	return 0;
}

int tasks_acquire(struct task_list *tl, const struct scope *s, const struct config *c,
		  const struct victim_table *vt, int self_pid, char *scratch, size_t size)
{
	char dir[TASKS_GROUP_PATH_MAX]; /* a child's path may be longer than the scope's */

	int r;

	tl->nr = 0;
	memset(&tl->take, 0, sizeof(tl->take));
	tl->skipped_new = 0;
	tl->not_kept = 0;
	tl->err = 0;
	tl->groups_cut = 0;
	tl->gen++;
	if (s->kind == SCOPE_MACHINE && tl->known_only && tl->nr_fds) {
		r = walk_known(tl, s, c, vt, self_pid, scratch, size);
	} else if (s->kind == SCOPE_MACHINE) {
		r = walk_proc(tl, s, c, vt, self_pid, scratch, size);
	} else {
		snprintf(dir, sizeof(dir), "%s", s->dir);
		r = walk_cgroup(tl, s, c, vt, self_pid, dir, sizeof(dir), 0, scratch, size);
	}
	tasks_fds_sweep(tl, s);
	if (r == 0 && tl->err) /* a listing that may miss a process chooses nothing */
		r = tl->err;
	if (r == 0 && !tl->known_only) { /* opening files is what known_only avoids */
		unsigned long totalpages = scope_totalpages(s);
		size_t top[TASKS_DETAIL_TOP];
		size_t nr_top = top_candidates(tl, totalpages ? totalpages : 1, top);

		add_details(tl, s, top, nr_top, scratch, size);
		if (s->kind == SCOPE_MACHINE) /* the one scope listed known_only */
			tasks_keep_top_files(tl, s, c, top, nr_top, scratch, size);
	}
	return r;
}
