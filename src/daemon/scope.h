/* SPDX-License-Identifier: GPL-2.0-only */
/* A scope oomguard watches: the machine, or one memory cgroup (v1 or v2). Acquire reads a full
 * snapshot into preallocated structs; decide turns two snapshots into the retry rule's verdict. */
#ifndef OOMGUARD_DAEMON_SCOPE_H
#define OOMGUARD_DAEMON_SCOPE_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/config.h"
#include "daemon/metrics.h"
#include "daemon/unit.h"
#include "linux/cgroupfs.h"
#include "linux/procfs.h"
#include "policy/badness.h"
#include "policy/progress.h"
#include "policy/retry.h"
#include "policy/swap_end.h"

enum scope_kind { SCOPE_MACHINE, SCOPE_CGROUP_V1, SCOPE_CGROUP_V2 };

/*
 * Scratch for reading one /proc or cgroupfs file whole. The largest read whole here are
 * /proc/vmstat and zoneinfo (5-6 KiB each on this machine); a host whose zoneinfo needs more
 * gets its own buffer (scope_size_zones()), and long files (cgroup.procs, mountinfo) are read
 * line by line through it. Resident and locked: its size is part of the daemon's RSS.
 */
#define SCOPE_SCRATCH_SIZE 32768

/* What is read of a file read for its head (/proc/stat's "cpu" line: under 200 bytes). */
#define SCOPE_HEAD_SIZE 512

/* A round without a stalled allocation for this many rounds in a row ends the "allocation":
 * the no-progress count starts again from zero (the kernel's counter lives per allocation). */
#define SCOPE_QUIET_ROUNDS_RESET 10

/*
 * Deltas are taken over a trailing window of this many rounds (1 s at the default interval):
 * refaults and failed charges come in bursts (readahead, blkio throttling) that a single
 * 100 ms interval splits into busy and quiet slices. The rule still runs every round.
 */
#define SCOPE_WINDOW_ROUNDS 10

/* Rounds of counters kept: the window, and the span of the read share (progress.h), whose
 * PROGRESS_SPAN_MAX_USEC is 30 rounds at the default interval. */
#define SCOPE_HISTORY_ROUNDS 32

/*
 * The files a scope keeps open and re-reads with pread (open and close cost more than the read
 * of a small cgroupfs file), named per kind; the tables in scope.c say where each one is, how it
 * is read and what parses it. A v2 group's memory.high is its limit when lower than memory.max:
 * the kernel throttles there and never kills.
 */
enum machine_file {
	MACHINE_ZONEINFO,
	MACHINE_BUDDYINFO,
	MACHINE_VMSTAT,
	MACHINE_MEMINFO,
	MACHINE_PSI,
	MACHINE_IO_PSI,
	MACHINE_CPU_STAT,
	MACHINE_CPU_PSI,
	NR_MACHINE_FILES
};
/* V1_IO_PSI, V1_CPU_STAT: the machine's (v1 groups have no PSI of their own) */
enum v1_file {
	V1_LIMIT,
	V1_USAGE,
	V1_FAILCNT,
	V1_STAT,
	V1_OOM_CONTROL,
	V1_READS,
	V1_IO_PSI,
	V1_CPU_STAT,
	NR_V1_FILES
};
enum v2_file {
	V2_MAX,
	V2_CURRENT,
	V2_EVENTS,
	V2_STAT,
	V2_PRESSURE,
	V2_HIGH,
	V2_READS,
	V2_IO_PRESSURE,
	V2_SWAP_CURRENT,
	V2_CPU_STAT,
	V2_CPU_PRESSURE,
	NR_V2_FILES
};
#define SCOPE_MAX_FILES 11 /* the most of any kind: v2 */

/* Where a scope's pages read are counted (struct scope @reads). */
enum scope_reads { READS_MACHINE, READS_V1_BLKIO, READS_V2_IO_STAT };

/*
 * A scope that an event woke is read every round for this many rounds after (5 s at the
 * default interval), events or not: vmpressure signals per 512 pages scanned, from a work
 * item, and skips windows; measured, a group's first refaults of a thrash came 200-450 ms
 * before its first event, and a slow disk's readahead batches 2 s apart. A quiet scope never
 * woken reads nothing.
 */
#define SCOPE_WARM_ROUNDS 50

/* A quiet scope re-reads its expensive files (zoneinfo; memory.stat) at least this often. */
#define SCOPE_FULL_READ_ROUNDS 50

/* A snapshot's I/O stall total that was not read (a quiet round, no PSI): not comparable. */
#define SCOPE_IO_UNKNOWN UINT64_MAX

/* The cumulative counters of one snapshot, kept for the window. */
struct scope_counters {
	uint64_t time_usec, stall_events, stall_usec, reclaimed, refaulted, read_pages;
	uint64_t io_stall_usec;		    /* the snapshot's @io_stall_usec */
	uint64_t cpu_busy_usec;		    /* the snapshot's @cpu_busy_usec */
	uint64_t cpu_iowait_usec;	    /* the snapshot's @cpu_iowait_usec */
	uint64_t cpu_stall_usec;	    /* the snapshot's @cpu_stall_usec */
	uint64_t refaulted_anon;	    /* the snapshot's @refaulted_anon */
	uint64_t written;		    /* the snapshot's @written_pages */
	uint64_t write_pending, file_pages; /* gauges: dirty + writeback, file LRU pages */
	uint64_t demand_pages;		    /* gauge: anon LRU + swap in use */
	uint64_t swap_pages;		    /* gauge: swap in use (the snapshot's @swap_bytes) */
	uint64_t dirty_pages;		    /* gauge: dirty, not under writeback (v2 only) */
};

/*
 * struct scope_snapshot - what one acquire read.
 * @time_usec:     CLOCK_MONOTONIC when read
 * @stall_events, @stall_usec, @reclaimed, @refaulted:  cumulative counters (see round_sample)
 * @refaulted_anon: the anon part of @refaulted (swap-ins)
 * @io_stall_usec: PSI io "some" total: the machine's (machine, v1 group), the group's (v2);
 *                 SCOPE_IO_UNKNOWN when this snapshot did not read it
 * @cpu_busy_usec: read with @io_stall_usec, whose dilution it undoes: the machine's CPU time
 *                 not idle (iowait counts as busy), summed over its CPUs (machine, v1 group:
 *                 progress_io_undilute()); a v2 group's own CPU time, cpu.stat's usage_usec
 *                 (progress_io_undilute_group()); SCOPE_IO_UNKNOWN when this snapshot did not
 *                 read it
 * @cpu_iowait_usec: the iowait part of the machine's @cpu_busy_usec (CPUs idle while a task
 *                 waited for I/O), read with it; 0 for a v2 group
 * @cpu_stall_usec: PSI cpu "some" total, read with @io_stall_usec: the machine's, a v2 group's
 *                 own (cpu.pressure); SCOPE_IO_UNKNOWN when this snapshot did not read it, or
 *                 for a v1 group (rule 5 needs a memory stall, which v1 has not)
 * @read_pages:    pages read from block devices (struct scope's @reads says whose)
 * @written_pages: pages written: a v2 group's io.stat wbytes, the machine's nr_dirtied, a v1
 *                 group's blkio writes (direct and sync only: v1 charges no writeback); 0
 *                 when the group's reads are the machine's
 * @zones:         the zonelist, preferred (highest) zone first
 * @limit_bytes, @usage_bytes:  cgroup limit and usage; machine: MemTotal and MemTotal -
 * MemAvailable
 * @file_bytes, @anon_bytes:    LRU contents
 * @swap_bytes:    swap in use: the machine's SwapTotal - SwapFree, a v2 group's
 *                 memory.swap.current (0 without it), a v1 group's 0
 * @swap_left_bytes, @has_swap:  the machine's SwapFree, and whether it has swap at all
 *                 (SwapTotal > 0); a group's 0 and false (swap_end.h reads the machine's alone)
 * @dirty_bytes:   a v2 group's file_dirty (0 for the others)
 * @parked:        v1 under_oom
 * @oom_kill_disable:  v1 memory.oom_control
 * @kernel_oom_kills:  oom_kill counter (vmstat, v1 oom_control, v2 events)
 * @counts_reclaim: @reclaimed is counted: the machine's, a v2 group's with pgsteal in its
 *                 memory.stat (4.13 on); a v1 group's is not read
 */
struct scope_snapshot {
	uint64_t time_usec;
	uint64_t stall_events, stall_usec, reclaimed, refaulted, read_pages, written_pages;
	uint64_t io_stall_usec, refaulted_anon, cpu_busy_usec, cpu_iowait_usec, cpu_stall_usec;
	struct zone_snapshot zones[MAX_NR_ZONES];
	size_t nr_zones;
	uint64_t limit_bytes, usage_bytes, file_bytes, anon_bytes, swap_bytes, dirty_bytes;
	uint64_t swap_left_bytes;
	bool parked, oom_kill_disable, swap_free, counts_reclaim, has_swap;
	uint64_t kernel_oom_kills;
};

/*
 * A scope's victim chosen ahead of its verdict. From its first round without progress, the
 * loop lists a scope's tasks, chooses the victim and opens a pidfd on it (at most every
 * CANDIDATE_REFRESH_USEC), so that the verdict kills at once through that pidfd: no /proc
 * listing at the moment memory is exhausted, when every file read may stall in reclaim. A
 * candidate older than CANDIDATE_MAX_AGE_USEC is not used, and is dropped.
 */
#define CANDIDATE_ARM_LOOPS    1
#define CANDIDATE_REFRESH_USEC 1000000ull
#define CANDIDATE_MAX_AGE_USEC 2000000ull

/* struct candidate - held while @pidfd >= 0; the pidfd pins the process, whose start time
 * matched @task when it was opened. */
struct candidate {
	int pidfd;
	struct oom_task task;
	long points;
	uint64_t time_usec;
	struct kill_unit unit; /* what dies with it (unit.h) */
	int64_t uid;	       /* its real uid, -1: not read (read only for the helper) */
	char cgroup[CONFIG_PATH_MAX]; /* its cgroup, "": not read (likewise) */
};

/*
 * struct term_pending - a victim sent SIGTERM (term_grace_msec), held while @pidfd >= 0: it is
 * sent SIGKILL at @deadline_usec unless it exits first. The scope kills nothing else meanwhile.
 */
struct term_pending {
	int pidfd;
	struct oom_task task;
	long points;
	struct kill_unit unit;
	uint64_t usage_before_bytes, detect_usec, term_usec, deadline_usec;
};

/*
 * struct scope - one watched scope and the retry rule's state for it.
 * @dir:          the cgroup's directory (with the root prefix); "" for the machine
 * @name:         what the log calls it ("machine" or the cgroup path)
 * @oom_efd:      v1 OOM notification eventfd, or -1
 * @pressure_efd: v1 vmpressure eventfd (memory.pressure_level, level low, hierarchical), or -1
 * @woken:        the OOM eventfd fired, or (v2) memory.events changed, since the last read (the
 *                loop sets it)
 * @events_watch_fd: v2: memory.events opened for the loop's epoll set (kernfs signals a change
 *                with EPOLLPRI), or -1
 * @fds:          the kind's files (enum machine_file, v1_file, v2_file), -1 until first read
 * @reads:        where a group's reads are counted, for the read share (progress.h): its v1
 *                blkio twin, its v2 io.stat, or (neither) the machine's pgpgin, which can only
 *                lower the share
 * @reads_mount, @reads_rel:  a v1 group's blkio twin: the blkio mount (in the mounts given
 *                to scope_init_cgroup(), which must outlive the scope: the daemon's) and where
 *                the group's path below the memory mount starts in @name
 * @page_shift:   the kernel's page size (sys_page_shift()), for its byte and page counts
 * @cand:         the victim chosen ahead of the verdict
 * @kill_pending: a victim is with the reaper: kill no other in this scope until it reports
 */
struct scope {
	enum scope_kind kind;
	char dir[CONFIG_PATH_MAX];
	const char *name; /* "machine", or the cgroup's path: the end of @dir */
	const char *root;
	int oom_efd;
	int pressure_efd;
	bool woken;
	int events_watch_fd;
	int fds[SCOPE_MAX_FILES];
	enum scope_reads reads;
	const char *reads_mount;
	unsigned int reads_rel;
	unsigned int page_shift;
	uint64_t cpu_tick_usec;  /* a clock tick of /proc/stat (sys_clock_tick_usec()) */
	unsigned int full_age;   /* acquires since the expensive files were last read */
	unsigned int warm;       /* rounds left of reading every round (SCOPE_WARM_ROUNDS) */
	uint64_t meminfo_read_usec; /* the machine: when MemAvailable was read last */
	uint64_t meminfo_due_usec;  /* the machine: when a quiet round reads it next */
	uint64_t drain_bps;        /* the machine: MemAvailable's fastest fall seen lately, B/s */
	uint64_t gate_stall_usec; /* the machine's PSI some total at that read */
	uint64_t gate_refaulted;  /* the machine's refault counter at that read */
	uint64_t mem_total_bytes;
	struct scope_settings set; /* its reserve, grace and kill unit (config_scope_settings()) */
	struct scope_snapshot prev, cur;
	bool has_prev;
	struct scope_counters hist[SCOPE_HISTORY_ROUNDS];
	unsigned int hist_len, hist_next;
	struct retry_state retry;
	unsigned int quiet_rounds;
	struct round_sample sample;
	struct swap_end swap_end;     /* the machine's swap as the last verdict read it (swap_end.h) */
	uint64_t readahead_pages;     /* the machine's largest read-ahead window (0: unknown) */
	struct long_share long_share; /* refaults among reads, over a few windows (progress.h) */
	struct read_marks read_marks; /* the last read-ahead window of reads (progress.h) */
	unsigned int pending_rounds;  /* rounds held for a window of reads to come (scope_decide) */
	struct round_result round;
	struct retry_decision decision;
	bool decided;
	bool oom;
	bool restore_oom_kill_disable; /* we set oom_kill_disable=1; put 0 back at exit */
	struct candidate cand;
	struct term_pending term;
	struct unit_kill_record last_unit_kill; /* kill_unit auto (unit.h) */
	bool kill_pending;
	uint64_t kill_pending_usec; /* when that kill was made */
	struct scope_metrics metrics; /* counted since set-up, for the metrics file (report.h) */
	bool absent; /* a cgroup that does not exist (yet, or any more): waited for */
	unsigned int missing; /* optional files found missing, by bit (scope_load_optional()) */
	int read_err; /* the last acquire's error (0: read): logged when it changes */
	/* machine: where zoneinfo and buddyinfo are read and parsed when the host's outgrow the
	 * scratch or PROC_MAX_ZONES (sized at scope_init_machine(), freed at scope_close());
	 * NULL on most hosts */
	char *zone_text;
	size_t zone_text_size;
	struct proc_zone *zones;
	size_t max_zones;
};

/* "machine", "cgroup-v1" or "cgroup-v2". */
const char *scope_kind_name(enum scope_kind kind);

/* The zones of the machine as zoneinfo lists them (@max of room); buddyinfo adds their free
 * lists. */
struct machine_zone_list {
	struct proc_zone *pz;
	size_t max, nr;
};

/*
 * scope_load() - the one way a scope reads a file: file @f of its kind's table (enum
 * machine_file, v1_file, v2_file), through the descriptor kept in s->fds[@f] (opened on first
 * use; a failed read closes it and the next reopens), into @scratch (SCOPE_SCRATCH_SIZE),
 * parsed into @ret (struct machine_zone_list for zoneinfo and buddyinfo, struct proc_vmstat,
 * proc_meminfo, psi_stats, memcg_v1_stat, ... as scope.c's tables say). Return: 0 or -errno.
 */
int scope_load(struct scope *s, unsigned int f, char *scratch, void *ret);

/*
 * scope_load_optional() - scope_load() of a file the kernel may not have (PSI's memory and io
 * files, a v2 group's memory.swap.current): once it is found missing (-ENOENT) it is not looked
 * for again in the life of the scope (s->missing). Return: as scope_load().
 */
int scope_load_optional(struct scope *s, unsigned int f, char *scratch, void *ret);
/* scope_reads_name() - where the scope's reads are counted, for the log: "blkio", "io.stat",
 * "machine pgpgin". */
const char *scope_reads_name(const struct scope *s);

/* The machine scope, with pages of 1 << @page_shift bytes. Return: 0 or -errno. */
int scope_init_machine(struct scope *s, const char *root, unsigned int page_shift, char *scratch);

/*
 * scope_size_zones() - the machine scope's room for zoneinfo and its zones, from this host's:
 * the scratch and PROC_MAX_ZONES serve most hosts; a larger one (hundreds of CPUs, several
 * nodes) gets buffers of twice its present size, allocated now, at set-up. Return: 0, -ENOMEM,
 * or -errno when zoneinfo cannot be read.
 */
int scope_size_zones(struct scope *s, char *scratch);

/*
 * scope_init_cgroup() - a memory cgroup given by its path. v1 or v2 is read from the mount
 * table; a path outside both memory hierarchies, or without the memory files, is -ENOTDIR
 * with a reason in @err. A path in a memory hierarchy that does not exist is -ENOENT, with the
 * scope's kind, name and directory set: the caller may wait for it.
 */
int scope_init_cgroup(struct scope *s, const char *root, const char *path,
		      const struct cgroup_mounts *mounts, unsigned int page_shift, char *scratch,
		      char *err, size_t errsize);

void scope_close(struct scope *s);

/* scope_acquire() - read the whole scope now into s->cur (s->prev keeps the last one). */
int scope_acquire(struct scope *s, char *scratch, uint64_t now_usec);

/*
 * What every scope's acquire shares in one round: the machine's PSI memory "some" total and,
 * when v1 groups are watched, the refaults of the whole v1 hierarchy (@has_refaulted; the root
 * group's memory.stat, hierarchical totals): v1 has no per-group PSI, and a group that thrashes
 * on its page cache need not move its failcnt nor the machine's PSI (its rereads wait in the
 * block layer, not in a memstall; measured, docs/daemon-design.md), but it moves the refault
 * counters.
 * @no_pressure: no v1 group's vmpressure eventfd is readable (one epoll_wait for all of them
 * said so): the groups need not read theirs.
 */
struct round_gate {
	uint64_t stall_usec;
	bool has_refaulted;
	uint64_t refaulted;
	bool no_pressure;
};

/*
 * scope_acquire_gated() - as scope_acquire(), but skip the expensive files while the scope is
 * quiet. @gate: read once this round for every scope. The machine scope re-reads vmstat,
 * meminfo, zoneinfo and buddyinfo only when the stall total moved; a v1 group re-reads
 * oom_control and memory.stat only when its failcnt, the stall total or the hierarchy's refaults
 * moved or tasks are parked. A v1 group with a pressure eventfd does not even read its failcnt
 * while neither that eventfd nor its OOM eventfd fired: a charge that fails reclaims (and a
 * reclaim that scans signals vmpressure) or, finding nothing to scan, goes OOM (and the OOM
 * eventfd is signalled). A v2 group with an events watch reads nothing while its memory.events
 * did not change (failed and throttled charges, OOMs; @woken says it did), else all. All
 * re-read all every SCOPE_FULL_READ_ROUNDS, and every round while the rule counts rounds
 * without progress (a verdict is not made on counters a round did not read).
 * NULL (no PSI here): read all.
 */
int scope_acquire_gated(struct scope *s, char *scratch, uint64_t now_usec,
			const struct round_gate *gate);

/* scope_usage_bytes() - the usage figure alone (reaper's before/after). */
int scope_usage_bytes(const struct scope *s, char *scratch, size_t size, uint64_t *ret_bytes);

/* scope_push_history() - remember s->cur's counters for the window (scope_acquire does it). */
void scope_push_history(struct scope *s);

/*
 * scope_decide() - judge the window that ends at cur (up to SCOPE_WINDOW_ROUNDS back), then run the
 * seed's rule when it was a round. Sets s->oom when the rule says OOM. Pure: reads only @s and @c.
 */
void scope_decide(struct scope *s, const struct config *c);

/* scope_machine_zones() - the machine's zonelist from zoneinfo's @nr zones @pz, highest zone
 * first, as the allocator walks it (at most MAX_NR_ZONES). */
void scope_machine_zones(struct scope_snapshot *snap, const struct proc_zone *pz, size_t nr,
			 bool swap_free);

/*
 * scope_cgroup_zone() - a memory cgroup as one zone for the seed's rule: size = limit, free =
 * limit - usage, min = @reserve_permille of the limit (at least a page), low and high spaced
 * above min as the kernel spaces them, reclaimable = the file LRU (+ anon with swap free).
 */
void scope_cgroup_zone(struct scope_snapshot *snap, unsigned int reserve_permille,
		       uint64_t dirty_bytes, unsigned int page_shift);

/* scope_totalpages() - the scope's size in pages, what oom_badness() scales against. */
unsigned long scope_totalpages(const struct scope *s);

/* scope_build_request() - the order-0 user allocation the rule is asked about. */
void scope_build_request(const struct scope *s, struct alloc_request *ret_req);

/*
 * scope_resolved() - re-check before a kill: an order-0 request of the scope would pass the
 * high watermark in some zone of its zonelist, lowmem reserves counted (the kernel's last
 * get_page_from_freelist before it kills); never while a v1 scope has tasks parked.
 */
bool scope_resolved(const struct scope *s);

/* scope_kernel_killed() - the kernel's own OOM killer acted in @s (a group) since @before. */
bool scope_kernel_killed(const struct scope *s, const struct scope_snapshot *before);

/* scope_oom_progress() - a kill freed memory: the no-progress count and the window start
 * again (refaults from before the kill say nothing of the memory after it). */
void scope_oom_progress(struct scope *s);

/*
 * scope_near_limit() - less than SCOPE_NEAR_LIMIT_FREE_PERMILLE of the scope is left (machine:
 * MemAvailable; group: limit - usage, page cache counted as used) at its last full read. The
 * loop then keeps a victim chosen ahead, while opening /proc files is still cheap.
 */
#define SCOPE_NEAR_LIMIT_FREE_PERMILLE 100
bool scope_near_limit(const struct scope *s);

/*
 * scope_meminfo_wait_usec() - how long a quiet machine may go without reading MemAvailable
 * (/proc/meminfo, the dearest file of a quiet round: about half its CPU, cold): the time a drain
 * of @drain_bps, or SCOPE_DRAIN_FLOOR_BPS if more, takes to bring @avail_bytes of @total_bytes
 * down to twice the share at which scope_near_limit() arms, at most SCOPE_MEMINFO_MAX_WAIT_USEC;
 * 0 (every round) from there on. The floor is eight times the fastest fall measured (a flood
 * took a 2 GiB guest from 80 % available to none in 3 s: 0.55 GB/s): a small machine reads
 * nearly every round, a large one idle every fifth.
 */
#define SCOPE_DRAIN_FLOOR_BPS       (4ULL << 30)
#define SCOPE_MEMINFO_MAX_WAIT_USEC 500000
uint64_t scope_meminfo_wait_usec(uint64_t total_bytes, uint64_t avail_bytes, uint64_t drain_bps);

#endif
