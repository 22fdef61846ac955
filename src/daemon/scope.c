// SPDX-License-Identifier: GPL-2.0-only
/* Scopes, set up and files: where each scope kind's files are, the one reader of them
 * (scope_load()), and a scope's set-up and tear-down. Reading a round: scope_acquire.c; the
 * decisions on what was read: scope_decide.c. */
#include "daemon/scope.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/sys.h"


/* The parsers behind one signature, for the tables below. */
typedef int (*scope_parse_fn)(const char *buf, void *ret);

static int parse_zoneinfo(const char *buf, void *ret)
{
	struct machine_zone_list *z = ret;

	return parse_zoneinfo_buf(buf, z->pz, z->max, &z->nr);
}

static int parse_buddyinfo(const char *buf, void *ret)
{
	struct machine_zone_list *z = ret;

	return parse_buddyinfo_buf(buf, z->pz, z->nr);
}

static int parse_vmstat(const char *buf, void *ret)
{
	return parse_vmstat_buf(buf, ret);
}

static int parse_meminfo(const char *buf, void *ret)
{
	return parse_meminfo_buf(buf, ret);
}

static int parse_psi(const char *buf, void *ret)
{
	return parse_psi_buf(buf, ret);
}

static int parse_u64(const char *buf, void *ret)
{
	return parse_u64_file_buf(buf, ret);
}

static int parse_v1_stat(const char *buf, void *ret)
{
	return parse_memcg_v1_stat_buf(buf, ret);
}

static int parse_v1_oom_control(const char *buf, void *ret)
{
	return parse_memcg_v1_oom_control_buf(buf, ret);
}

static int parse_cpu_ticks(const char *buf, void *ret)
{
	return parse_cpu_ticks_buf(buf, ret);
}

static int parse_cpu_usage(const char *buf, void *ret)
{
	return parse_cgroup_cpu_usage_buf(buf, ret);
}

static int parse_v2_stat(const char *buf, void *ret)
{
	return parse_memcg_v2_stat_buf(buf, ret);
}

static int parse_v2_events(const char *buf, void *ret)
{
	return parse_memcg_v2_events_buf(buf, ret);
}

/*
 * struct scope_file - one file of a scope kind.
 * @path:    the machine's: under the root (fixture trees); a group's: under its directory
 * @mode:    SYS_READ_RECORDS, the kernel generates it record by record (/proc/vmstat, zoneinfo,
 *           buddyinfo): read until a read returns nothing; SYS_READ_WHOLE, it comes whole from
 *           one read (cgroupfs files, PSI, meminfo); SYS_READ_HEAD, its first line is all
 *           that is read (/proc/stat)
 * @parse:   fills the struct the acquire passes (see each kind's acquire for which)
 * @machine: a group's file that is the machine's: under the root, as the machine's are
 */
struct scope_file {
	const char *path;
	enum sys_read_mode mode;
	scope_parse_fn parse;
	bool machine;
};

static const struct scope_file machine_files[NR_MACHINE_FILES] = {
    [MACHINE_ZONEINFO] = {"/proc/zoneinfo", SYS_READ_RECORDS, parse_zoneinfo},
    [MACHINE_BUDDYINFO] = {"/proc/buddyinfo", SYS_READ_RECORDS, parse_buddyinfo},
    [MACHINE_VMSTAT] = {"/proc/vmstat", SYS_READ_RECORDS, parse_vmstat},
    [MACHINE_MEMINFO] = {"/proc/meminfo", SYS_READ_WHOLE, parse_meminfo},
    [MACHINE_PSI] = {"/proc/pressure/memory", SYS_READ_WHOLE, parse_psi},
    [MACHINE_IO_PSI] = {"/proc/pressure/io", SYS_READ_WHOLE, parse_psi},
    [MACHINE_CPU_STAT] = {"/proc/stat", SYS_READ_HEAD, parse_cpu_ticks},
    [MACHINE_CPU_PSI] = {"/proc/pressure/cpu", SYS_READ_WHOLE, parse_psi},
};

static const struct scope_file v1_files[NR_V1_FILES] = {
    [V1_LIMIT] = {"/memory.limit_in_bytes", SYS_READ_WHOLE, parse_u64},
    [V1_USAGE] = {"/memory.usage_in_bytes", SYS_READ_WHOLE, parse_u64},
    [V1_FAILCNT] = {"/memory.failcnt", SYS_READ_WHOLE, parse_u64},
    [V1_STAT] = {"/memory.stat", SYS_READ_WHOLE, parse_v1_stat},
    [V1_OOM_CONTROL] = {"/memory.oom_control", SYS_READ_WHOLE, parse_v1_oom_control},
    [V1_READS] = {NULL, SYS_READ_WHOLE, NULL}, /* reads_files[] */
    [V1_IO_PSI] = {"/proc/pressure/io", SYS_READ_WHOLE, parse_psi, true},
    [V1_CPU_STAT] = {"/proc/stat", SYS_READ_HEAD, parse_cpu_ticks, true},
};

static const struct scope_file v2_files[NR_V2_FILES] = {
    [V2_MAX] = {"/memory.max", SYS_READ_WHOLE, parse_u64},
    [V2_CURRENT] = {"/memory.current", SYS_READ_WHOLE, parse_u64},
    [V2_EVENTS] = {"/memory.events", SYS_READ_WHOLE, parse_v2_events},
    [V2_STAT] = {"/memory.stat", SYS_READ_WHOLE, parse_v2_stat},
    [V2_PRESSURE] = {"/memory.pressure", SYS_READ_WHOLE, parse_psi},
    [V2_HIGH] = {"/memory.high", SYS_READ_WHOLE, parse_u64},
    [V2_READS] = {NULL, SYS_READ_WHOLE, NULL}, /* reads_files[] */
    [V2_IO_PRESSURE] = {"/io.pressure", SYS_READ_WHOLE, parse_psi},
    [V2_SWAP_CURRENT] = {"/memory.swap.current", SYS_READ_WHOLE, parse_u64},
    [V2_CPU_STAT] = {"/cpu.stat", SYS_READ_WHOLE, parse_cpu_usage},
    [V2_CPU_PRESSURE] = {"/cpu.pressure", SYS_READ_WHOLE, parse_psi},
};

/* The machine's reads for a group that has no counter of its own; its writes are unknown (the
 * machine's would be everyone's): 0. */
static int parse_vmstat_read_pages(const char *buf, void *ret)
{
	struct proc_vmstat vm;
	struct io_bytes *io = ret;
	int r = parse_vmstat_buf(buf, &vm);

	io->read = vm.pgpgin_kib * 1024; /* as bytes, like the others */
	io->written = 0;
	return r;
}

static int parse_blkio_io_bytes(const char *buf, void *ret)
{
	return parse_blkio_io_bytes_buf(buf, ret);
}

static int parse_io_stat_bytes(const char *buf, void *ret)
{
	return parse_io_stat_bytes_buf(buf, ret);
}

/* A group's V1_READS / V2_READS, by its @reads: bytes read and written (struct io_bytes). The
 * path of the last two: reads_path(). */
static const struct scope_file reads_files[] = {
    [READS_MACHINE] = {"/proc/vmstat", SYS_READ_RECORDS, parse_vmstat_read_pages},
    [READS_V1_BLKIO] = {NULL, SYS_READ_WHOLE, parse_blkio_io_bytes},
    [READS_V2_IO_STAT] = {NULL, SYS_READ_WHOLE, parse_io_stat_bytes},
};

static const struct scope_file *const scope_files[] = {
    [SCOPE_MACHINE] = machine_files,
    [SCOPE_CGROUP_V1] = v1_files,
    [SCOPE_CGROUP_V2] = v2_files,
};

_Static_assert(NR_MACHINE_FILES <= SCOPE_MAX_FILES && NR_V1_FILES <= SCOPE_MAX_FILES &&
		   NR_V2_FILES <= SCOPE_MAX_FILES,
	       "SCOPE_MAX_FILES is the most files of any scope kind");

static int reads_path(const struct scope *s, char *buf, size_t size);

/* scope_load(): scope.h. */
int scope_load(struct scope *s, unsigned int f, char *scratch, void *ret)
{
	const struct scope_file *sf = &scope_files[s->kind][f];
	char full[CONFIG_PATH_MAX + 64];
	const char *root = s->root, *path = sf->path;
	size_t size = SCOPE_SCRATCH_SIZE;
	ssize_t n;

	if (!sf->path) { /* a group's reads */
		sf = &reads_files[s->reads];
		path = sf->path;
		if (!path) {
			if (reads_path(s, full, sizeof(full)) < 0)
				return -ENAMETOOLONG;
			root = NULL;
			path = full;
		}
	} else if (s->kind != SCOPE_MACHINE && !sf->machine) {
		if (sys_join_path(full, sizeof(full), s->dir, sf->path) < 0)
			return -ENAMETOOLONG;
		root = NULL;
		path = full;
	}
	if (s->zone_text && (f == MACHINE_ZONEINFO || f == MACHINE_BUDDYINFO)) {
		scratch = s->zone_text; /* a host whose zoneinfo outgrows the scratch */
		size = s->zone_text_size;
	}
	if (sf->mode == SYS_READ_HEAD && size > SCOPE_HEAD_SIZE)
		size = SCOPE_HEAD_SIZE;
	n = sys_read_kept(&s->fds[f], root, path, scratch, size, sf->mode);
	return n < 0 ? (int)n : sf->parse(scratch, ret);
}

int scope_load_optional(struct scope *s, unsigned int f, char *scratch, void *ret)
{
	int r;

	if (s->missing & (1u << f))
		return -ENOENT;
	r = scope_load(s, f, scratch, ret);
	if (r == -ENOENT)
		s->missing |= 1u << f;
	return r;
}

const char *scope_kind_name(enum scope_kind kind)
{
	return kind == SCOPE_MACHINE     ? "machine"
	       : kind == SCOPE_CGROUP_V1 ? "cgroup-v1"
					 : "cgroup-v2";
}

int scope_init_machine(struct scope *s, const char *root, unsigned int page_shift, char *scratch)
{
	struct proc_meminfo mi;
	int r;

	memset(s, 0, sizeof(*s));
	s->kind = SCOPE_MACHINE;
	s->root = root;
	s->page_shift = page_shift;
	s->cpu_tick_usec = sys_clock_tick_usec();
	s->oom_efd = -1;
	s->pressure_efd = -1;
	s->events_watch_fd = -1;
	s->cand.pidfd = -1;
	s->term.pidfd = -1;
	for (int i = 0; i < SCOPE_MAX_FILES; i++)
		s->fds[i] = -1;
	s->name = "machine";
	r = read_meminfo(root, scratch, SCOPE_SCRATCH_SIZE, &mi);
	if (r < 0)
		return r;
	s->mem_total_bytes = mi.mem_total_kib * 1024;
	return 0;
}

int scope_size_zones(struct scope *s, char *scratch)
{
	size_t bytes, zones;
	int r = zoneinfo_measure(s->root, scratch, SCOPE_SCRATCH_SIZE, &bytes, &zones);

	if (r < 0)
		return r;
	/* Twice what is there now: CPUs and memory come online. */
	if (2 * bytes > SCOPE_SCRATCH_SIZE) {
		s->zone_text_size = 2 * bytes;
		s->zone_text = malloc(s->zone_text_size);
	}
	if (zones > PROC_MAX_ZONES) {
		s->max_zones = 2 * zones;
		s->zones = calloc(s->max_zones, sizeof(*s->zones));
	}
	return (s->zone_text_size && !s->zone_text) || (s->max_zones && !s->zones) ? -ENOMEM : 0;
}

static bool under(const char *path, const char *mnt)
{
	size_t len = strlen(mnt);

	return len && !strncmp(path, mnt, len) && (path[len] == '/' || path[len] == '\0');
}

/* @dir exists (a directory that can be opened). */
static bool exists(const char *dir)
{
	int fd = sys_open_path(NULL, dir, O_RDONLY | O_DIRECTORY);

	if (fd >= 0)
		sys->close(fd);
	return fd != -ENOENT;
}

/* The v2 hierarchy at @mnt (under @root) offers the memory controller to its groups. */
static bool v2_has_memory(const char *root, const char *mnt)
{
	char path[CONFIG_PATH_MAX + 32], buf[256];

	if (sys_join_path(path, sizeof(path), mnt, "/cgroup.subtree_control") < 0 ||
	    sys_read_file(root, path, buf, sizeof(buf)) < 0)
		return false;
	for (const char *p = strstr(buf, "memory"); p; p = strstr(p + 1, "memory"))
		if ((p == buf || p[-1] == ' ') && (p[6] == ' ' || p[6] == '\n' || !p[6]))
			return true;
	return false;
}

/* The path of a group's reads file (@s->reads) into @buf. Return: 0, -ENAMETOOLONG. */
static int reads_path(const struct scope *s, char *buf, size_t size)
{
	char dir[CONFIG_PATH_MAX + 64];

	if (s->reads == READS_V2_IO_STAT)
		return sys_join_path(buf, size, s->dir, "/io.stat");
	/* v1: the blkio mount, then the group's path below the memory mount */
	if (snprintf(dir, sizeof(dir), "%s%s/blkio.throttle.io_service_bytes_recursive",
		     s->reads_mount, s->name + s->reads_rel) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	return sys_join_path(buf, size, s->root, dir);
}

/*
 * Where a group's reads are counted: v1, the blkio group of the same path when the blkio
 * hierarchy is mounted and it exists; v2, the group's io.stat when the io controller is on for
 * it. Else the machine's pgpgin.
 */
static void find_reads(struct scope *s, const struct cgroup_mounts *mounts)
{
	char path[CONFIG_PATH_MAX + 64];
	int fd = -ENOENT;

	s->reads = s->kind == SCOPE_CGROUP_V1 ? READS_V1_BLKIO : READS_V2_IO_STAT;
	s->reads_mount = mounts->v1_blkio;
	s->reads_rel = (unsigned int)strlen(mounts->v1_memory);
	if ((s->reads == READS_V2_IO_STAT || mounts->v1_blkio[0]) &&
	    reads_path(s, path, sizeof(path)) == 0)
		fd = sys_open_path(NULL, path, O_RDONLY);
	if (fd >= 0)
		sys->close(fd);
	else
		s->reads = READS_MACHINE;
}

const char *scope_reads_name(const struct scope *s)
{
	return s->reads == READS_V1_BLKIO     ? "blkio"
	       : s->reads == READS_V2_IO_STAT ? "io.stat"
					      : "machine pgpgin";
}

int scope_init_cgroup(struct scope *s, const char *root, const char *path,
		      const struct cgroup_mounts *mounts, unsigned int page_shift, char *scratch,
		      char *err, size_t errsize)
{
	uint64_t v;
	int r;

	/* A group needs meminfo only to bound a limit above the machine: a container's that
	 * reads MemTotal 0 (or none) leaves the limit as the group's own files give it. */
	if (scope_init_machine(s, root, page_shift, scratch) < 0)
		s->mem_total_bytes = 0;
	if (sys_join_path(s->dir, sizeof(s->dir), root, path) < 0) {
		snprintf(err, errsize, "%s: path too long", path);
		return -ENAMETOOLONG;
	}
	/* what the log calls it: the path as configured, the end of the directory */
	s->name = s->dir + strlen(s->dir) - strnlen(path, strlen(s->dir));
	if (under(path, mounts->v1_memory)) {
		s->kind = SCOPE_CGROUP_V1;
		if (!exists(s->dir)) {
			snprintf(err, errsize, "%s: does not exist (yet)", path);
			return -ENOENT;
		}
		r = read_cgroup_u64(s->dir, "memory.limit_in_bytes", &v);
	} else if (under(path, mounts->v2)) {
		s->kind = SCOPE_CGROUP_V2;
		if (!exists(s->dir) && v2_has_memory(root, mounts->v2)) {
			snprintf(err, errsize, "%s: does not exist (yet)", path);
			return -ENOENT;
		}
		r = read_cgroup_u64(s->dir, "memory.current", &v);
		if (r == -ENOENT) {
			snprintf(err, errsize,
				 "%s: not a memory cgroup (the v2 hierarchy at %s has no memory "
				 "controller here)",
				 path, mounts->v2);
			return -ENOTDIR;
		}
	} else {
		snprintf(err, errsize, "%s: not a memory cgroup (v1 memory hierarchy: %s, v2: %s)",
			 path, mounts->v1_memory[0] ? mounts->v1_memory : "none",
			 mounts->v2[0] ? mounts->v2 : "none");
		return -ENOTDIR;
	}
	if (r < 0) {
		snprintf(err, errsize, "%s: not a memory cgroup (%s)", path, strerror(-r));
		return -ENOTDIR;
	}
	find_reads(s, mounts);
	return 0;
}

void scope_close(struct scope *s)
{
	if (s->oom_efd >= 0)
		sys->close(s->oom_efd);
	s->oom_efd = -1;
	if (s->pressure_efd >= 0)
		sys->close(s->pressure_efd);
	s->pressure_efd = -1;
	if (s->events_watch_fd >= 0)
		sys->close(s->events_watch_fd);
	s->events_watch_fd = -1;
	if (s->cand.pidfd >= 0)
		sys->close(s->cand.pidfd);
	s->cand.pidfd = -1;
	if (s->term.pidfd >= 0)
		sys->close(s->term.pidfd);
	s->term.pidfd = -1;
	s->woken = false;
	free(s->zone_text);
	free(s->zones);
	s->zone_text = NULL;
	s->zones = NULL;
	for (int i = 0; i < SCOPE_MAX_FILES; i++) {
		if (s->fds[i] >= 0)
			sys->close(s->fds[i]);
		s->fds[i] = -1;
	}
}

