/* SPDX-License-Identifier: GPL-2.0-only */
/* The candidates of a scope (its processes, recursively through child cgroups, or every
 * process for the machine), read into a preallocated table with the flags badness.h knows. */
#ifndef OOMGUARD_DAEMON_TASKS_H
#define OOMGUARD_DAEMON_TASKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#include "daemon/config.h"
#include "daemon/scope.h"
#include "linux/procfs.h"
#include "policy/badness.h"

/* task_proc_pid() - the pid whose /proc files show @t's memory and cgroup: a live thread's when
 * its leader has exited (the leader's own show neither: read_pid_live_thread()), else its own. */
static inline int task_proc_pid(const struct oom_task *t)
{
	return t->mm_tid ? t->mm_tid : t->pid;
}

/* task_proc_confirm() - after a read through task_proc_pid(@t): 0 when what it read was @t's
 * (read as itself, or through a thread still among its own), -ESRCH when that thread has gone
 * (its tid may name another process since: pid_has_thread()), -errno. */
static inline int task_proc_confirm(const char *root, const struct oom_task *t)
{
	return t->mm_tid ? pid_has_thread(root, t->pid, t->mm_tid) : 0;
}

#define TASKS_MAX   4096
#define VICTIMS_MAX 64
/* Child cgroups deeper than this below a scope, or whose path is longer than
 * TASKS_GROUP_PATH_MAX, are not walked (bounded work and stack, no recursion without end on a
 * hostile tree); each one left out is counted (task_list.groups_cut) and said. */
#define TASKS_MAX_DEPTH      16
#define TASKS_GROUP_PATH_MAX 4096
#define TASKS_PROCS_FILE     "/cgroup.procs" /* appended in the walks' path buffers */

enum victim_state { VICTIM_FREE, VICTIM_KILLED, VICTIM_DONE, VICTIM_SKIPPED, VICTIM_REFUSED };

/* A process whose SIGKILL was refused (EPERM or EACCES: a security module's policy) this many
 * times is passed over by the verdicts after: the next largest is killed instead of none. */
#define VICTIM_REFUSALS_MAX 3

/* struct victim - a process oomguard killed, or tried to, known by pid and start time (pid
 * reuse safe). */
struct victim {
	int pid;
	unsigned long long start_time;
	enum victim_state state;
	uint64_t kill_usec;    /* when it was killed, or last refused (CLOCK_MONOTONIC) */
	unsigned int refusals; /* VICTIM_REFUSED: how many SIGKILLs were refused */
};

struct victim_table {
	struct victim v[VICTIMS_MAX];
	size_t next;
};

/* victim_record() - remember a kill at @kill_usec (the process's own entry, else the oldest
 * entry is reused). */
void victim_record(struct victim_table *vt, int pid, unsigned long long start_time,
		   uint64_t kill_usec);
/* victim_refused() - the SIGKILL of the process was refused at @now. Return: its refusals so
 * far; from VICTIM_REFUSALS_MAX on, the listings flag it OOM_TASK_SKIP. */
unsigned int victim_refused(struct victim_table *vt, int pid, unsigned long long start_time,
			    uint64_t now);
/*
 * victim_expire() - victims still VICTIM_KILLED @max_age_usec after their kill, which no
 * report settled, are VICTIM_SKIPPED from @now: the next verdict no longer waits for them (the
 * kernel's MMF_OOM_SKIP after its reaper gave up). Return: how many.
 */
size_t victim_expire(struct victim_table *vt, uint64_t now, uint64_t max_age_usec);
/* victim_in_flight() - whether a victim is still VICTIM_KILLED (killed, not yet freed or
 * given up on): in some scope, a kill is still on its way. */
bool victim_in_flight(const struct victim_table *vt);
/* victim_set_state() - the reaper's verdict on @pid. */
void victim_set_state(struct victim_table *vt, int pid, enum victim_state state);
/* victim_flags() - OOM_TASK_VICTIM while the process is on its way out, OOM_TASK_SKIP once it
 * is done, skipped, or refused VICTIM_REFUSALS_MAX times; else 0. */
unsigned int victim_flags(const struct victim_table *vt, int pid, unsigned long long start_time);

/*
 * Listing under memory pressure must not open files: each open of a /proc/PID file allocates
 * in the kernel (a struct file, a seq_file buffer), and at exhaustion each allocation may wait
 * in reclaim (measured in the guest's flood: one listing of ~120 tasks took 17 s). So a
 * listing keeps each process's /proc/PID/stat and oom_score_adj open for the next one, which
 * re-reads them with pread; only processes new since the last listing are opened. Kernel
 * threads keep nothing: a listing that takes new processes reads their stat by path each time
 * (never a candidate, they must not hold a slot, nor a flag a later process with their pid
 * would inherit). Entries of
 * processes that exited are closed after the listing (tasks_fds_sweep(): a group's
 * listing keeps other scopes' processes until TASKS_SWEEP_AGE). /proc/PID/status (swap, page
 * tables) is read, by path, only for the TASKS_DETAIL_TOP candidates that rank first by the
 * victim rules on what the listing read (preferred ones first, then rss and oom_score_adj); on
 * the machine, those also keep their files (tasks_keep_top_files()).
 */
#define TASKS_FD_MAX     1024 /* processes whose files are kept open; more are read by path */
#define TASKS_SWEEP_AGE  32   /* listings of other scopes a process's files outlive */
#define TASKS_FD_SLOTS   2048 /* open addressing, at most half full */
#define TASKS_DETAIL_TOP 8

struct proc_fds {
	int pid; /* 0: empty slot */
	int stat_fd, adj_fd;
	unsigned int gen; /* the listing that last saw it */
	uint32_t seen_by; /* the scope of that listing: the low half of its address (scopes live
			   * in one array; compared, never followed) */
	/* the flags of the prefer/avoid/protect rules (match.h) for the name hashed re_hash
	 * (FNV-1a) under config re_serial (0: none): what a process is, read and matched when it
	 * is first listed (a new process under a kept pid too: fds_close() forgets it), renames
	 * itself (execve does) or the config is reloaded, not at every listing (musl's regexec
	 * allocates; and a listing under pressure opens no new file).
	 * 32 bytes an entry: the table is locked in memory whole. */
	uint32_t re_serial, re_hash;
	uint16_t re_flags;
};

/*
 * A scope of more than TASKS_MAX processes (a large host, a fork bomb's group) is listed whole
 * all the same: when the table is full, it keeps the TASKS_KEEP_CUT processes that rank best
 * for the verdict (oom_tasks_take(), oom_tasks_keep_best(): earlier victims still exiting, the
 * candidates by the victim rules, then vfork children), and from then on takes in only a
 * process that ranks before the last of those (take.floor). The victim is the one a table of every process would
 * give: each process left out ranks below TASKS_KEEP_CUT others.
 */
#define TASKS_KEEP_CUT (TASKS_MAX / 2)

struct task_list {
	struct oom_task tasks[TASKS_MAX];
	size_t nr;
	struct oom_take_state take; /* what the listing left out by rank (above) */
	struct proc_fds fds[TASKS_FD_SLOTS];
	size_t nr_fds;
	size_t
	    max_fds; /* processes kept; 0: TASKS_FD_MAX (the daemon sets it from RLIMIT_NOFILE) */
	bool known_only; /* set by the caller: list only processes whose files are kept open, and
			  * read no status file (rss from stat; swap and page tables left 0) */
	size_t skipped_new; /* processes a known_only listing left out (a machine's walks the
			     * table, not /proc: it sees no new process to count) */
	size_t not_kept; /* processes listed whose files found no slot (max_fds): a known_only
			  * listing will not see them */
	size_t groups_cut; /* child groups not walked (TASKS_MAX_DEPTH, TASKS_GROUP_PATH_MAX): the
			    * processes in them, and below, are not listed */
	int err; /* the first read that failed for want of a resource (-errno): the listing may
		  * miss a process, and tasks_acquire() returns the error */
	unsigned int gen;
	const struct cgroup_mounts *mounts; /* where the v2 hierarchy is (the oomd xattrs); set by
					     * the daemon, NULL: none */
};

/*
 * tasks_read_stat() - /proc/@pid/stat through the file the last listing kept open, else by
 * path. A kept file reads only the process it was opened on (-ESRCH once it exited).
 */
int tasks_read_stat(struct task_list *tl, const char *root, int pid, char *scratch, size_t size,
		    struct pid_stat *ret_stat);

/* tasks_read_adj() - /proc/@pid/oom_score_adj, as tasks_read_stat() reads the stat. */
int tasks_read_adj(struct task_list *tl, const char *root, int pid, char *scratch, size_t size,
		   int *ret_adj);

/* tasks_close() - close the files a task list keeps open. */
void tasks_close(struct task_list *tl);

/*
 * tasks_fds_find() - the kept files of @pid, a new empty entry (no file) when @insert and fewer
 * than max_fds are kept, else NULL. Open addressing, linear probing from the pid's hash.
 */
struct proc_fds *tasks_fds_find(struct task_list *tl, int pid, bool insert);

/* What tasks.c and tasks_fds.c share. tasks_name_hash(): FNV-1a of a process name, the key of
 * its cached rule result; tasks_scope_tag(): the scope a kept entry was last seen by;
 * tasks_fds_close(): close an entry's files and forget what its process was; tasks_read_kept():
 * /proc/@pid/@name through *@fd, kept open (sys_read_kept()). */
uint32_t tasks_name_hash(const char *comm);
uint32_t tasks_scope_tag(const struct scope *s);
void tasks_fds_close(struct proc_fds *e);
ssize_t tasks_read_kept(const char *root, int pid, const char *name, int *fd, char *buf,
			size_t size);

/*
 * tasks_keep_top_files() - after a full listing of the machine @s (rules read under @c): the
 * @nr_top processes of the table at @top, those that rank first, keep their files (tasks_fds.c
 * says why).
 */
void tasks_keep_top_files(struct task_list *tl, const struct scope *s, const struct config *c,
			  const size_t *top, size_t nr_top, char *scratch, size_t size);

/*
 * tasks_fds_sweep() - after a listing of @s: close the files of processes it did not see, keep
 * the others, in place. A listing of the whole machine sees every process: one it missed has
 * exited. A group's sees only its own: one it saw last time and missed now has exited (or
 * left), while those another scope's listing saw stay until no listing saw them for
 * TASKS_SWEEP_AGE.
 */
void tasks_fds_sweep(struct task_list *tl, const struct scope *s);

/*
 * tasks_acquire() - read every candidate of @s. Processes that exit while being read are left
 * out. The flags: kernel thread, init, oomguard itself (@self_pid), protected names, prefer and
 * avoid rules of @c, no mm (zombie), and the state of earlier victims from @vt.
 * Return: 0, or -errno when the scope cannot be listed whole (its directory, a child group,
 * or a process that is there but could not be read for want of memory or descriptors).
 */
int tasks_acquire(struct task_list *tl, const struct scope *s, const struct config *c,
		  const struct victim_table *vt, int self_pid, char *scratch, size_t size);

#endif
