/* SPDX-License-Identifier: GPL-2.0-only */
/* cgroupfs parsers (pure, on buffers) and readers (root-relative): the mount table, and the
 * memory controller's files of cgroup v1 and v2. */
#ifndef OOMGUARD_LINUX_CGROUPFS_H
#define OOMGUARD_LINUX_CGROUPFS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where the memory controller lives: the v1 "memory" hierarchy and the v2 unified one; and the
 * v1 "blkio" hierarchy, which counts a group's reads (v1 memory.stat does not). */
#define CGROUP_MOUNT_MAX 512 /* a longer mount point is skipped: no cgroup path fits under it */
struct cgroup_mounts {
	char v1_memory[CGROUP_MOUNT_MAX]; /* "" when not mounted */
	char v2[CGROUP_MOUNT_MAX];        /* "" when not mounted */
	char v1_blkio[CGROUP_MOUNT_MAX];  /* "" when not mounted */
};

/* v1 memory.stat (hierarchical total_* values when present), in pages or bytes as named. */
struct memcg_v1_stat {
	uint64_t cache_bytes, rss_bytes, shmem_bytes;
	uint64_t inactive_file_bytes, active_file_bytes, inactive_anon_bytes, active_anon_bytes;
	uint64_t workingset_refault_file, workingset_refault_anon; /* pages */
	uint64_t pgpgin, pgpgout, pgmajfault;                      /* events */
	uint64_t dirty_bytes, writeback_bytes;
};

/* v1 memory.oom_control. */
struct memcg_v1_oom_control {
	uint64_t oom_kill_disable, under_oom, oom_kill;
};

/* v2 memory.stat, the fields oomguard uses. */
struct memcg_v2_stat {
	uint64_t anon_bytes, file_bytes;
	uint64_t inactive_file_bytes, active_file_bytes, inactive_anon_bytes, active_anon_bytes;
	uint64_t file_dirty_bytes, file_writeback_bytes;
	uint64_t pgscan, pgsteal, pgmajfault;
	uint64_t workingset_refault_file, workingset_refault_anon;
	bool has_pgsteal; /* reclaim counted (4.13 on): without it pgsteal reads 0, not "none" */
};

/* v2 memory.events (hierarchical). */
struct memcg_v2_events {
	uint64_t low, high, max, oom, oom_kill, oom_group_kill;
};

/*
 * parse_mountinfo_buf() - the v1 memory and the v2 mount points in /proc/self/mountinfo.
 * Octal escapes (\040) in mount points are decoded. Several mounts of one hierarchy: the
 * first listed, unless a later one mounts the whole hierarchy (root "/") and it did not.
 * Return: 0 (either may be ""), -EINVAL on a malformed line.
 */
int parse_mountinfo_buf(const char *buf, struct cgroup_mounts *ret_mounts);

/*
 * memory.stat of v1; the total_* (hierarchical) counters win over the local ones. The parsers
 * of memory.stat, memory.oom_control and memory.events reject a repeated key and trailing
 * garbage (-EINVAL) and a wrapped counter (-ERANGE); a wrapped size reads as 0.
 */
int parse_memcg_v1_stat_buf(const char *buf, struct memcg_v1_stat *ret_stat);
int parse_memcg_v1_oom_control_buf(const char *buf, struct memcg_v1_oom_control *ret_oom);
int parse_memcg_v2_stat_buf(const char *buf, struct memcg_v2_stat *ret_stat);
int parse_memcg_v2_events_buf(const char *buf, struct memcg_v2_events *ret_events);

/* struct cgroup_cpu_usage - a v2 group's cpu.stat: CPU time its tasks ran (µs), below too. */
struct cgroup_cpu_usage {
	uint64_t usage_usec;
};
/* parse_cgroup_cpu_usage_buf() - v2 cpu.stat (every group has it, with or without the cpu
 * controller). Return: 0, -ENODATA without usage_usec, -EINVAL, -ERANGE as parse_kv_buf(). */
int parse_cgroup_cpu_usage_buf(const char *buf, struct cgroup_cpu_usage *ret_usage);

/*
 * A single number file; "max" (v2) and 18446744073709551615 (v1's "no limit" before 3.19,
 * RES_COUNTER_MAX) read as UINT64_MAX. Return: 0, -EINVAL (trailing garbage: "12x"), or
 * -ERANGE for any other value past INT64_MAX (a negative number printed unsigned).
 */
int parse_u64_file_buf(const char *buf, uint64_t *ret_value);

struct io_bytes {
	uint64_t read, written;
};

/*
 * Bytes a group read from and wrote to block devices, summed over devices: v1's
 * blkio.throttle.io_service_bytes_recursive ("MAJ:MIN Read N" and "MAJ:MIN Write N" lines; the
 * others, and "Total", skipped; v1 does not charge buffered writeback to the group) and v2's
 * io.stat ("MAJ:MIN rbytes=N wbytes=N ..."; writeback charged to the group that dirtied the
 * pages). Return: 0, -EINVAL on a malformed line, -ERANGE when a sum wraps.
 */
int parse_blkio_io_bytes_buf(const char *buf, struct io_bytes *ret_io);
int parse_io_stat_bytes_buf(const char *buf, struct io_bytes *ret_io);

/* Readers: @dir is the cgroup's directory (absolute, may carry a fixture root prefix). */
int read_mountinfo(const char *root, char *buf, size_t size, struct cgroup_mounts *ret_mounts);
int read_cgroup_u64(const char *dir, const char *file, uint64_t *ret_value);
int read_memcg_v1_stat(const char *dir, char *buf, size_t size, struct memcg_v1_stat *ret_stat);
int read_memcg_v1_oom_control(const char *dir, struct memcg_v1_oom_control *ret_oom);
int read_memcg_v2_stat(const char *dir, char *buf, size_t size, struct memcg_v2_stat *ret_stat);
int read_memcg_v2_events(const char *dir, struct memcg_v2_events *ret_events);
/* A cgroup's boolean xattr (@path: its directory) as systemd's parse_boolean() reads it: "1",
 * "yes", "y", "true", "t", "on" are true. Return: 1, 0 (unset, unsupported, false), or -errno of
 * a failed read. */
int read_cgroup_xattr_bool(const char *path, const char *name);

#endif
