/* SPDX-License-Identifier: GPL-2.0-only */
/* /proc parsers (pure, on buffers) and thin readers that take a root directory, so that tests
 * can point them at a fixture tree: vmstat, meminfo, pressure/memory and the per-process stat,
 * status, oom_score_adj and cgroup files (zoneinfo and buddyinfo: zoneinfo.h). */
#ifndef OOMGUARD_LINUX_PROCFS_H
#define OOMGUARD_LINUX_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "linux/zoneinfo.h"

/*
 * PROC_MEMINFO_MAX_KIB - the largest size in KiB whose bytes fit in 63 bits. A larger one is
 * a negative count printed unsigned (lxcfs' SwapFree near 2^64 in containers).
 */
#define PROC_MEMINFO_MAX_KIB ((uint64_t)INT64_MAX / 1024)

/* PSI_AVG_MAX - a PSI average in hundredths of a percent: at most 100.00. */
#define PSI_AVG_MAX 10000

/* struct proc_vmstat - cumulative counters of /proc/vmstat; prefixed keys are summed. */
struct proc_vmstat {
	uint64_t pgscan;
	uint64_t pgsteal;
	uint64_t allocstall;
	uint64_t workingset_refault_file; /* also the single pre-5.9 workingset_refault */
	uint64_t workingset_refault_anon;
	uint64_t workingset_activate_file;
	uint64_t workingset_restore_file;
	uint64_t pgmajfault;
	uint64_t pgpgin_kib; /* read from storage (the kernel prints sectors / 2) */
	uint64_t oom_kill;
	uint64_t nr_dirtied; /* pages dirtied since boot (0 before 2.6.37) */
};

/*
 * struct proc_meminfo - the /proc/meminfo lines oomguard uses, in KiB, consistent:
 * mem_free_kib and mem_available_kib <= mem_total_kib, swap_free_kib <= swap_total_kib.
 */
struct proc_meminfo {
	uint64_t mem_total_kib;
	uint64_t mem_free_kib;
	uint64_t mem_available_kib;
	uint64_t swap_total_kib;
	uint64_t swap_free_kib;
};

/* One line of a PSI file: averages in hundredths of a percent, total in microseconds. */
struct psi_line {
	uint64_t avg10, avg60, avg300;
	uint64_t total_usec;
};

struct psi_stats {
	struct psi_line some, full;
	bool has_full;
};

#define PF_KTHREAD_FLAG  0x00200000u
#define PF_EXITING_FLAG  0x00000004u /* the leader is in do_exit() */
#define PF_SIGNALED_FLAG 0x00000400u /* ... because a signal killed it: the whole group exits */
#define PF_FORKNOEXEC_FLAG 0x00000040u /* forked, not exec'd since */

/* The bit of SIGKILL in /proc/PID/status's SigPnd and ShdPnd masks (signal N is bit N - 1). */
#define SIGKILL_PENDING_BIT (1ull << 8)

/* struct pid_stat - /proc/PID/stat: the fields a kill decision needs. */
struct pid_stat {
	int pid;
	char comm[16];
	char state;
	int ppid;
	unsigned int flags;
	int num_threads;               /* field 20 */
	unsigned long long start_time; /* clock ticks since boot */
	uint64_t rss_pages;
	uint64_t signal; /* field 31: the leader's own pending signals (a fatal one is put there) */
};

/* struct pid_status - /proc/PID/status memory lines, in KiB (0 when absent: kernel threads). */
struct pid_status {
	uint64_t rss_kib;
	uint64_t anon_kib; /* RssAnon (4.5) */
	uint64_t swap_kib;
	uint64_t pte_kib;
	bool has_vm; /* VmRSS present: the task has an mm */
	int kthread; /* "Kthread:" line (6.x): 0/1, -1 when absent */
	/* SIGKILL in SigPnd (the leader's own) or ShdPnd (the group's): the process is dying, by
	 * whoever's hand, and has not yet taken the signal (it may be frozen or in D state). */
	bool sigkill_pending;
};

/* proc_size_kib() - a size past PROC_MEMINFO_MAX_KIB is a negative one printed unsigned: none. */
static inline uint64_t proc_size_kib(uint64_t kib)
{
	return kib > PROC_MEMINFO_MAX_KIB ? 0 : kib;
}

int parse_vmstat_buf(const char *buf, struct proc_vmstat *ret_vmstat);
int parse_meminfo_buf(const char *buf, struct proc_meminfo *ret_meminfo);
int parse_psi_buf(const char *buf, struct psi_stats *ret_psi);
/*
 * struct cpu_ticks - /proc/stat's "cpu" line, the sum over online CPUs, in clock ticks
 * (USER_HZ) since boot.
 * @busy:  every field but idle: iowait is busy, as PSI counts a CPU with a task waiting for
 *         I/O as non-idle (guest and guest_nice are already in user and nice)
 * @iowait: the iowait field: time a CPU was idle while a task that last ran there waited for
 *         I/O (part of @busy)
 * @total: every field
 */
struct cpu_ticks {
	uint64_t busy, iowait, total;
};
/*
 * parse_cpu_ticks_buf() - the first line of /proc/stat ("cpu" and at least user, nice,
 * system and idle; the kernel added iowait, irq, softirq, steal, guest, guest_nice over time).
 * What follows the line is not read: the caller may pass only the file's head.
 * Return: 0, -EINVAL when the first line is not that, -ERANGE when the sum reaches
 * KV_WRAPPED_MIN (a counter gone wrong).
 */
int parse_cpu_ticks_buf(const char *buf, struct cpu_ticks *ret_ticks);
int parse_pid_stat_buf(const char *buf, struct pid_stat *ret_stat);
/* pid_stat_dying() - the process is dying as a whole, not yet a zombie: a SIGKILL is pending
 * (the kernel puts a fatal signal in each thread's own set, field 31), or its leader is in
 * do_exit() because a signal killed it, or has no other thread (a leader that leaves by
 * pthread_exit() alone is not the process dying). */
bool pid_stat_dying(const struct pid_stat *st);
int parse_pid_status_buf(const char *buf, struct pid_status *ret_status);
/* parse_pid_status_uid_buf() - the real uid of /proc/PID/status (the first of Uid:'s four).
 * Return: 0, -ENOENT without a Uid: line, -EINVAL when malformed. */
int parse_pid_status_uid_buf(const char *buf, uint32_t *ret_uid);
int parse_oom_score_adj_buf(const char *buf, int *ret_adj);
/*
 * parse_pid_cgroup_buf() - the cgroup path of a process for a v1 @controller ("memory"), or
 * the v2 path ("0::/path") when @controller is NULL.
 * Return: 0, -ENOENT if the hierarchy is not listed, -ENAMETOOLONG, -EINVAL on malformed input.
 */
int parse_pid_cgroup_buf(const char *buf, const char *controller, char *ret_path, size_t size);

/* Readers: read @root + the /proc path into @buf (scratch of @size bytes) and parse it. */
int read_vmstat(const char *root, char *buf, size_t size, struct proc_vmstat *ret_vmstat);
int read_meminfo(const char *root, char *buf, size_t size, struct proc_meminfo *ret_meminfo);
int read_psi(const char *root, const char *path, char *buf, size_t size, struct psi_stats *ret_psi);

/*
 * read_max_readahead_kb() - the largest read_ahead_kb of the disks in /sys/block (under @root):
 * the longest window a read-ahead brings into the page cache at once. Return: 0 (@ret_kb 0 when
 * no disk says), or -errno when /sys/block cannot be listed.
 */
int read_max_readahead_kb(const char *root, char *buf, size_t size, uint64_t *ret_kb);
int read_pid_stat(const char *root, pid_t pid, char *buf, size_t size, struct pid_stat *ret_stat);
int read_pid_status(const char *root, pid_t pid, char *buf, size_t size,
		    struct pid_status *ret_status);
/*
 * pid_has_thread() - whether @tid is still a thread of process @pid (/proc/@pid/task/@tid is
 * there). A read through /proc/@tid, done before, was the process's if so: a tid that exited and
 * was given to another process since is not among @pid's threads. Return: 0, -ESRCH, -errno.
 */
int pid_has_thread(const char *root, pid_t pid, pid_t tid);
/* read_task_status() - /proc/@pid/task/@tid/status: what one thread shows of the process. */
int read_task_status(const char *root, pid_t pid, pid_t tid, char *buf, size_t size,
		     struct pid_status *ret_status);
/*
 * read_pid_live_thread() - a process whose leader has exited while its other threads run on
 * (the main thread left by pthread_exit()) shows a zombie and no memory in its own stat and
 * status, while the kernel's OOM killer still counts its memory (find_lock_task_mm()); any
 * live thread shows the process's. Return: 0, the first live thread's id in *@ret_tid and its
 * stat in *@ret_stat; -ESRCH when no thread lives; -errno.
 */
int read_pid_live_thread(const char *root, pid_t pid, char *buf, size_t size, pid_t *ret_tid,
			 struct pid_stat *ret_stat);
/*
 * read_pid_through_thread() - @st, a zombie leader's stat with more than one thread, made the
 * process's as its first live thread shows it (memory, flags, pending signals); its pid, name
 * and start time stay the leader's. Return: that thread's id, 0 when none lives.
 */
int read_pid_through_thread(const char *root, pid_t pid, char *scratch, size_t size,
			    struct pid_stat *st);
/*
 * pid_shares_parent_mm() - @pid (@st its stat) has not exec'd and shares its parent's mm
 * (vfork(), posix_spawn(), clone() with CLONE_VM): its RSS is its parent's memory, and killing
 * it frees none (the kernel's in_vfork()). Asked of the kernel (kcmp); a refusal is a no.
 */
bool pid_shares_parent_mm(pid_t pid, const struct pid_stat *st);
int read_pid_oom_score_adj(const char *root, pid_t pid, int *ret_adj);
int read_pid_cgroup(const char *root, pid_t pid, const char *controller, char *buf, size_t size,
		    char *ret_path, size_t path_size);

#endif
