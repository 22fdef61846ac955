// SPDX-License-Identifier: GPL-2.0-only
/* The /proc files a task list keeps open from one listing to the next (struct task_list says
 * why): their hash table, its sweep, and which processes keep them on a host of more processes
 * than slots. */
#include "daemon/tasks.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "linux/procfs.h"
#include "linux/sys.h"

/* 32-bit FNV-1a: its published offset basis and prime. A collision costs one stale rule
 * result until the next reload, and names are 15 bytes at most. */
#define FNV32_OFFSET_BASIS 2166136261u
#define FNV32_PRIME        16777619u

uint32_t tasks_name_hash(const char *comm)
{
	uint32_t h = FNV32_OFFSET_BASIS;

	for (; *comm; comm++)
		h = (h ^ (unsigned char)*comm) * FNV32_PRIME;
	return h;
}

/* TASKS_FD_SLOTS of them are locked in memory, and TASKS_MAX tasks: the RSS target
 * (daemon-design.md). */
_Static_assert(sizeof(struct proc_fds) <= 32, "struct proc_fds grew past 32 bytes");
_Static_assert(sizeof(struct oom_task) <= 64, "struct oom_task grew past 64 bytes (badness.h)");

uint32_t tasks_scope_tag(const struct scope *s)
{
	return (uint32_t)(uintptr_t)s;
}

/* Knuth's multiplicative hash (2^32 / the golden ratio): spreads consecutive pids. */
#define KNUTH_MULT32 2654435761u

static size_t fds_home(int pid)
{
	return (size_t)(unsigned int)pid * KNUTH_MULT32 % TASKS_FD_SLOTS;
}

struct proc_fds *tasks_fds_find(struct task_list *tl, int pid, bool insert)
{
	size_t h = fds_home(pid);

	for (size_t i = 0; i < TASKS_FD_SLOTS; i++) {
		struct proc_fds *e = &tl->fds[(h + i) % TASKS_FD_SLOTS];

		if (e->pid == pid)
			return e;
		if (e->pid)
			continue;
		if (!insert || tl->nr_fds >= (tl->max_fds ? tl->max_fds : TASKS_FD_MAX))
			return NULL;
		memset(e, 0, sizeof(*e));
		e->pid = pid;
		e->stat_fd = e->adj_fd = -1;
		tl->nr_fds++;
		return e;
	}
	return NULL;
}

/* Closes @e's files and forgets what its process was: files closed are a process gone (or left
 * out), and a new one under the pid must be matched against the rules afresh. */
void tasks_fds_close(struct proc_fds *e)
{
	if (e->stat_fd >= 0)
		sys->close(e->stat_fd);
	if (e->adj_fd >= 0)
		sys->close(e->adj_fd);
	e->stat_fd = e->adj_fd = -1;
	e->re_serial = 0;
}

/*
 * Empties slot @i (its files already closed) in place, without a copy of the table: the
 * entries after it in its run of full slots that could not be found past the hole move back
 * into it, one hole at a time (deletion under linear probing, Knuth's algorithm R). An entry
 * moves only backwards within the run, towards its home slot.
 */
static void fds_remove(struct task_list *tl, size_t i)
{
	size_t j = i;

	tl->fds[i].pid = 0;
	tl->nr_fds--;
	for (;;) {
		size_t home;

		j = (j + 1) % TASKS_FD_SLOTS;
		if (!tl->fds[j].pid)
			return;
		home = fds_home(tl->fds[j].pid);
		/* it stays when its home is cyclically in (i, j]: a search from there meets it
		 * before the hole */
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		tl->fds[i] = tl->fds[j];
		tl->fds[j].pid = 0;
		i = j;
	}
}

void tasks_fds_sweep(struct task_list *tl, const struct scope *s)
{
	for (size_t i = 0; i < TASKS_FD_SLOTS; i++) {
		/* a removal may move a later entry into slot i: look at it again */
		while (tl->fds[i].pid) {
			struct proc_fds *e = &tl->fds[i];
			bool seen = e->gen == tl->gen ||
				    (s->kind != SCOPE_MACHINE && e->seen_by != tasks_scope_tag(s) &&
				     tl->gen - e->gen < TASKS_SWEEP_AGE);

			if (seen)
				break;
			tasks_fds_close(e);
			fds_remove(tl, i);
		}
	}
}

void tasks_close(struct task_list *tl)
{
	for (size_t i = 0; i < TASKS_FD_SLOTS; i++)
		if (tl->fds[i].pid)
			tasks_fds_close(&tl->fds[i]);
	memset(tl->fds, 0, sizeof(tl->fds));
	tl->nr_fds = 0;
}

/* Reads /proc/@pid/@name through *@fd, kept open (sys_read_kept). */
ssize_t tasks_read_kept(const char *root, int pid, const char *name, int *fd, char *buf,
			 size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	return sys_read_kept(fd, root, path, buf, size, SYS_READ_WHOLE);
}

int tasks_read_stat(struct task_list *tl, const char *root, int pid, char *scratch, size_t size,
		    struct pid_stat *ret_stat)
{
	struct proc_fds *e = tasks_fds_find(tl, pid, false);

	if (e && e->stat_fd >= 0 && sys_pread_whole(e->stat_fd, scratch, size) >= 0)
		return parse_pid_stat_buf(scratch, ret_stat);
	return read_pid_stat(root, pid, scratch, size, ret_stat);
}

int tasks_read_adj(struct task_list *tl, const char *root, int pid, char *scratch, size_t size,
		   int *ret_adj)
{
	struct proc_fds *e = tasks_fds_find(tl, pid, false);

	if (e && e->adj_fd >= 0 && sys_pread_whole(e->adj_fd, scratch, size) >= 0)
		return parse_oom_score_adj_buf(scratch, ret_adj);
	return read_pid_oom_score_adj(root, pid, ret_adj);
}

/* The lowest-ranked process of the table whose files are kept, other than the @nr_top of @top
 * (NULL: none ranks after @t). */
static struct proc_fds *weakest_kept(struct task_list *tl, const struct oom_task *t,
				     const size_t *top, size_t nr_top, unsigned long totalpages)
{
	const struct oom_task *weakest = t;
	struct proc_fds *found = NULL;

	for (size_t i = 0; i < tl->nr; i++) {
		const struct oom_task *k = &tl->tasks[i];
		struct proc_fds *e;
		bool is_top = false;

		for (size_t j = 0; j < nr_top; j++)
			is_top |= top[j] == i;
		if (is_top || !oom_task_keep_before(weakest, k, totalpages))
			continue;
		e = tasks_fds_find(tl, k->pid, false);
		if (e && e->stat_fd >= 0) {
			weakest = k;
			found = e;
		}
	}
	return found;
}

/*
 * Gives @t (listed now, its rules' flags read under @c) a slot and its files, the slot of
 * @evict (NULL: a free one) if need be. A process whose stat no longer reads as @t (exited, or
 * its pid reused since) keeps none.
 */
static void keep_files(struct task_list *tl, const struct scope *s, const struct config *c,
		       const struct oom_task *t, struct proc_fds *evict, char *scratch,
		       size_t size)
{
	struct proc_fds *e;
	struct pid_stat st;
	ssize_t n;

	if (evict) {
		tasks_fds_close(evict);
		fds_remove(tl, (size_t)(evict - tl->fds));
	}
	e = tasks_fds_find(tl, t->pid, true);
	if (!e)
		return;
	e->gen = tl->gen;
	e->seen_by = tasks_scope_tag(s);
	n = tasks_read_kept(s->root, t->pid, "stat", &e->stat_fd, scratch, size);
	if (n < 0 || parse_pid_stat_buf(scratch, &st) < 0 || st.start_time != t->start_time ||
	    tasks_read_kept(s->root, t->pid, "oom_score_adj", &e->adj_fd, scratch, size) < 0) {
		tasks_fds_close(e);
		fds_remove(tl, (size_t)(e - tl->fds));
		return;
	}
	e->re_serial = c->re_serial;
	e->re_hash = tasks_name_hash(t->comm);
	e->re_flags = (uint16_t)(t->flags & (OOM_TASK_PROTECTED | OOM_TASK_PREFER | OOM_TASK_AVOID));
}

/*
 * After a full listing of the machine: the @nr_top processes @top that rank first (the ones whose
 * status the listing read) keep their files, taking the slots of the lowest-ranked kept processes of the table when no slot
 * is free. A listing under pressure (known_only) sees only processes whose files are kept; on a
 * host of more processes than slots, the slots went to the first listed and stayed theirs, and
 * a process that grew large later was left out of every such listing (its memory then decided
 * only through listing_misses_demand(): a full listing again, which opens files under
 * pressure).
 */
void tasks_keep_top_files(struct task_list *tl, const struct scope *s, const struct config *c,
			  const size_t *top, size_t nr_top, char *scratch, size_t size)
{
	unsigned long totalpages = scope_totalpages(s);

	if (!tl->not_kept)
		return;
	for (size_t i = 0; i < nr_top; i++) {
		const struct oom_task *t = &tl->tasks[top[i]];
		struct proc_fds *e = tasks_fds_find(tl, t->pid, false), *evict = NULL;

		if (e && e->stat_fd >= 0)
			continue;
		if (!e && tl->nr_fds >= (tl->max_fds ? tl->max_fds : TASKS_FD_MAX)) {
			evict = weakest_kept(tl, t, top, nr_top, totalpages);
			if (!evict)
				return;
		}
		keep_files(tl, s, c, t, evict, scratch, size);
	}
}
