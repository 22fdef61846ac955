// SPDX-License-Identifier: GPL-2.0-only
/* Scopes, acquire: read everything a decision needs into s->cur, through one table of files
 * per scope kind and one reader. The decisions on what was read are in scope_decide.c. */
#include "daemon/scope.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/sys.h"

/* The zones of the machine as zoneinfo lists them (@max of room); buddyinfo adds their free
 * lists. */
struct machine_zone_list {
	struct proc_zone *pz;
	size_t max, nr;
};

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
 * @records: the kernel generates it record by record (/proc/vmstat, zoneinfo, buddyinfo): read
 *           until a read returns nothing; the others (cgroupfs files, PSI, meminfo) come whole
 *           from one read
 * @parse:   fills the struct the acquire passes (see each kind's acquire for which)
 */
struct scope_file {
	const char *path;
	bool records;
	scope_parse_fn parse;
};

static const struct scope_file machine_files[NR_MACHINE_FILES] = {
    [MACHINE_ZONEINFO] = {"/proc/zoneinfo", true, parse_zoneinfo},
    [MACHINE_BUDDYINFO] = {"/proc/buddyinfo", true, parse_buddyinfo},
    [MACHINE_VMSTAT] = {"/proc/vmstat", true, parse_vmstat},
    [MACHINE_MEMINFO] = {"/proc/meminfo", false, parse_meminfo},
    [MACHINE_PSI] = {"/proc/pressure/memory", false, parse_psi},
};

static const struct scope_file v1_files[NR_V1_FILES] = {
    [V1_LIMIT] = {"/memory.limit_in_bytes", false, parse_u64},
    [V1_USAGE] = {"/memory.usage_in_bytes", false, parse_u64},
    [V1_FAILCNT] = {"/memory.failcnt", false, parse_u64},
    [V1_STAT] = {"/memory.stat", false, parse_v1_stat},
    [V1_OOM_CONTROL] = {"/memory.oom_control", false, parse_v1_oom_control},
    [V1_READS] = {NULL, false, NULL}, /* reads_files[] */
};

static const struct scope_file v2_files[NR_V2_FILES] = {
    [V2_MAX] = {"/memory.max", false, parse_u64},
    [V2_CURRENT] = {"/memory.current", false, parse_u64},
    [V2_EVENTS] = {"/memory.events", false, parse_v2_events},
    [V2_STAT] = {"/memory.stat", false, parse_v2_stat},
    [V2_PRESSURE] = {"/memory.pressure", false, parse_psi},
    [V2_HIGH] = {"/memory.high", false, parse_u64},
    [V2_READS] = {NULL, false, NULL}, /* reads_files[] */
};

static int parse_vmstat_read_pages(const char *buf, void *ret)
{
	struct proc_vmstat vm;
	int r = parse_vmstat_buf(buf, &vm);

	*(uint64_t *)ret = vm.pgpgin_kib * 1024; /* as bytes, like the others */
	return r;
}

static int parse_blkio_read_bytes(const char *buf, void *ret)
{
	return parse_blkio_read_bytes_buf(buf, ret);
}

static int parse_io_stat_rbytes(const char *buf, void *ret)
{
	return parse_io_stat_rbytes_buf(buf, ret);
}

/* A group's V1_READS / V2_READS, by its @reads: bytes read. The path of the last two:
 * reads_path(). */
static const struct scope_file reads_files[] = {
    [READS_MACHINE] = {"/proc/vmstat", true, parse_vmstat_read_pages},
    [READS_V1_BLKIO] = {NULL, false, parse_blkio_read_bytes},
    [READS_V2_IO_STAT] = {NULL, false, parse_io_stat_rbytes},
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

/*
 * scope_load() - the one way a scope reads a file: file @f of its kind's table, through the
 * descriptor kept in s->fds[@f] (opened on first use; a failed read closes it and the next
 * reopens), into @scratch (SCOPE_SCRATCH_SIZE), parsed into @ret. Return: 0 or -errno, the
 * read's or the parser's.
 */
static int scope_load(struct scope *s, unsigned int f, char *scratch, void *ret)
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
	} else if (s->kind != SCOPE_MACHINE) {
		if (sys_join_path(full, sizeof(full), s->dir, sf->path) < 0)
			return -ENAMETOOLONG;
		root = NULL;
		path = full;
	}
	if (s->zone_text && (f == MACHINE_ZONEINFO || f == MACHINE_BUDDYINFO)) {
		scratch = s->zone_text; /* a host whose zoneinfo outgrows the scratch */
		size = s->zone_text_size;
	}
	n = sys_read_kept(&s->fds[f], root, path, scratch, size, !sf->records);
	return n < 0 ? (int)n : sf->parse(scratch, ret);
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

/*
 * A gated acquire may read nothing this round: it has a last read, that read is younger than
 * SCOPE_FULL_READ_ROUNDS, no task was parked then and no event woke the scope since. Each kind
 * adds its own "nothing moved" test.
 */
static bool may_skip(const struct scope *s, const struct round_gate *gate)
{
	return gate && s->cur.time_usec && s->full_age + 1 < SCOPE_FULL_READ_ROUNDS &&
	       !s->cur.parked && !s->woken && !s->warm;
}

/* This round reads nothing: the files age. */
static int skip(struct scope *s)
{
	s->full_age++;
	return 0;
}

/* This round reads the scope in full: the files are fresh, the events taken. */
static void read_all(struct scope *s)
{
	s->full_age = 0;
	s->woken = false;
}

/* A group's pages read (file @f of its kind: V1_READS, V2_READS). */
static int read_pages(struct scope *s, unsigned int f, char *scratch, uint64_t *ret_pages)
{
	uint64_t bytes;
	int r = scope_load(s, f, scratch, &bytes);

	if (r < 0)
		return r;
	*ret_pages = bytes_to_pages(bytes, s->page_shift);
	return 0;
}

static int acquire_machine(struct scope *s, char *scratch, struct scope_snapshot *snap,
			   const struct round_gate *gate)
{
	struct proc_zone pz[PROC_MAX_ZONES];
	struct machine_zone_list zl = {s->zones ? s->zones : pz,
				       s->zones ? s->max_zones : PROC_MAX_ZONES, 0};
	struct proc_vmstat vm;
	struct proc_meminfo mi;
	struct psi_stats psi;
	int r;

	if (gate)
		snap->stall_usec = gate->stall_usec;
	else
		snap->stall_usec =
		    scope_load(s, MACHINE_PSI, scratch, &psi) < 0 ? 0 : psi.some.total_usec;
	/*
	 * Quiet: no task on the machine stalled on memory since the last read. Direct reclaim
	 * and workingset refaults count in PSI, so an unchanged total means no round to judge.
	 */
	if (s->cur.time_usec && snap->stall_usec != s->cur.stall_usec)
		s->warm = SCOPE_WARM_ROUNDS;
	if (may_skip(s, gate) && snap->stall_usec == s->cur.stall_usec)
		return skip(s);
	r = scope_load(s, MACHINE_VMSTAT, scratch, &vm);
	if (r < 0)
		return r;
	snap->stall_events = vm.allocstall;
	snap->reclaimed = vm.pgsteal;
	snap->refaulted = vm.workingset_refault_file + vm.workingset_refault_anon;
	snap->read_pages = kib_to_pages(vm.pgpgin_kib, s->page_shift);
	snap->kernel_oom_kills = vm.oom_kill;
	read_all(s);
	r = scope_load(s, MACHINE_MEMINFO, scratch, &mi);
	if (r < 0)
		return r;
	snap->limit_bytes = mi.mem_total_kib * 1024;
	snap->usage_bytes = (mi.mem_total_kib - mi.mem_available_kib) * 1024;
	snap->swap_free = mi.swap_free_kib > 0;
	r = scope_load(s, MACHINE_ZONEINFO, scratch, &zl);
	if (!r)
		r = scope_load(s, MACHINE_BUDDYINFO, scratch, &zl);
	if (r < 0)
		return r;
	scope_machine_zones(snap, zl.pz, zl.nr, snap->swap_free);
	snap->file_bytes = snap->anon_bytes = 0;
	for (size_t i = 0; i < zl.nr; i++) {
		snap->file_bytes +=
		    pages_to_bytes(zl.pz[i].inactive_file + zl.pz[i].active_file, s->page_shift);
		snap->anon_bytes +=
		    pages_to_bytes(zl.pz[i].inactive_anon + zl.pz[i].active_anon, s->page_shift);
	}
	return 0;
}

static int acquire_v1(struct scope *s, char *scratch, struct scope_snapshot *snap,
		      const struct round_gate *gate)
{
	struct memcg_v1_stat st;
	struct memcg_v1_oom_control oc;
	uint64_t refaulted = 0;
	bool quiet, pressure = false;
	int r;

	if (gate && gate->has_refaulted)
		refaulted = gate->refaulted;
	/* drained every round that may have one: an event counts once */
	if (s->pressure_efd >= 0 && !(gate && gate->no_pressure)) {
		uint64_t count;

		pressure = sys->read(s->pressure_efd, &count, sizeof(count)) == sizeof(count);
	}
	if (pressure || s->woken)
		s->warm = SCOPE_WARM_ROUNDS;
	quiet = may_skip(s, gate);
	if (s->pressure_efd >= 0) {
		/*
		 * The group's own events say it all: no reclaim scanned it or below it and no OOM
		 * since the last round, so no charge has failed in a way that can lead to a verdict
		 * (scope_acquire_gated()); a thrashing group reclaims what it refaults. Else read
		 * all. The machine's stalls and refaults are not the group's.
		 */
		if (quiet && !pressure)
			return skip(s);
		quiet = false;
	} else {
		quiet = quiet && gate->stall_usec == s->gate_stall_usec &&
			refaulted == s->gate_refaulted;
	}
	r = scope_load(s, V1_FAILCNT, scratch, &snap->stall_events);
	if (r < 0)
		return r;
	/*
	 * Quiet: no failed charge, nobody parked at the last read, no memory stall on the machine
	 * and no refault in the v1 hierarchy since then (struct round_gate says why both). Tasks
	 * park (under_oom) only after a charge fails, and every failure counts in failcnt: a quiet
	 * round needs neither memory.oom_control nor the rest.
	 */
	if (quiet && snap->stall_events == s->cur.stall_events) /* no event fd: failcnt */
		return skip(s);
	read_all(s);
	s->gate_stall_usec = gate ? gate->stall_usec : 0;
	s->gate_refaulted = refaulted;
	r = scope_load(s, V1_OOM_CONTROL, scratch, &oc);
	if (r < 0)
		return r;
	snap->parked = oc.under_oom != 0;
	snap->oom_kill_disable = oc.oom_kill_disable != 0;
	snap->kernel_oom_kills = oc.oom_kill;
	r = scope_load(s, V1_LIMIT, scratch, &snap->limit_bytes);
	if (!r)
		r = scope_load(s, V1_USAGE, scratch, &snap->usage_bytes);
	if (!r)
		r = scope_load(s, V1_STAT, scratch, &st);
	if (r < 0)
		return r;
	if (s->mem_total_bytes && snap->limit_bytes > s->mem_total_bytes)
		snap->limit_bytes = s->mem_total_bytes;
	snap->file_bytes = st.inactive_file_bytes + st.active_file_bytes;
	snap->anon_bytes = st.inactive_anon_bytes + st.active_anon_bytes;
	snap->refaulted = st.workingset_refault_file + st.workingset_refault_anon;
	r = read_pages(s, V1_READS, scratch, &snap->read_pages);
	if (r < 0)
		return r;
	snap->reclaimed = 0;
	snap->stall_usec = 0;
	snap->swap_free = false;
	scope_cgroup_zone(snap, s->reserve_permille, st.dirty_bytes + st.writeback_bytes,
			  s->page_shift);
	return 0;
}

static int acquire_v2(struct scope *s, char *scratch, struct scope_snapshot *snap,
		      const struct round_gate *gate)
{
	struct memcg_v2_stat st;
	struct memcg_v2_events ev;
	struct psi_stats psi;
	uint64_t high;
	int r;

	/* memory.events unchanged: no charge failed at memory.max, none was throttled over
	 * memory.high, no OOM, here or below (its counts are hierarchical). */
	if (s->woken)
		s->warm = SCOPE_WARM_ROUNDS;
	if (s->events_watch_fd >= 0 && may_skip(s, gate))
		return skip(s);
	read_all(s);

	r = scope_load(s, V2_MAX, scratch, &snap->limit_bytes);
	if (!r)
		r = scope_load(s, V2_CURRENT, scratch, &snap->usage_bytes);
	if (r < 0)
		return r;
	/*
	 * Past memory.high the kernel reclaims and throttles the charging task but never
	 * OOM-kills: a group bounded there can crawl forever. The lower bound is the limit.
	 */
	r = scope_load(s, V2_HIGH, scratch, &high);
	if (r < 0 && r != -ENOENT)
		return r;
	if (!r && high < snap->limit_bytes)
		snap->limit_bytes = high;
	r = scope_load(s, V2_STAT, scratch, &st);
	if (!r)
		r = scope_load(s, V2_EVENTS, scratch, &ev);
	if (r < 0)
		return r;
	if (s->mem_total_bytes && snap->limit_bytes > s->mem_total_bytes)
		snap->limit_bytes = s->mem_total_bytes;
	snap->stall_events = ev.max + ev.high; /* failed charges and throttled ones */
	snap->kernel_oom_kills = ev.oom_kill;
	snap->reclaimed = st.pgsteal;
	snap->refaulted = st.workingset_refault_file + st.workingset_refault_anon;
	r = read_pages(s, V2_READS, scratch, &snap->read_pages);
	if (r < 0)
		return r;
	snap->file_bytes = st.inactive_file_bytes + st.active_file_bytes;
	snap->anon_bytes = st.inactive_anon_bytes + st.active_anon_bytes;
	/* Not every kernel has per-group PSI: without it, no stall time. */
	snap->stall_usec = scope_load(s, V2_PRESSURE, scratch, &psi) < 0 ? 0 : psi.some.total_usec;
	snap->parked = false;
	snap->swap_free = false;
	scope_cgroup_zone(snap, s->reserve_permille,
			  st.file_dirty_bytes + st.file_writeback_bytes, s->page_shift);
	return 0;
}

int scope_acquire(struct scope *s, char *scratch, uint64_t now_usec)
{
	return scope_acquire_gated(s, scratch, now_usec, NULL);
}

int scope_acquire_gated(struct scope *s, char *scratch, uint64_t now_usec,
			const struct round_gate *gate)
{
	struct scope_snapshot snap = s->cur; /* what a quiet acquire does not re-read stays */
	int r;

	snap.time_usec = now_usec;
	if (s->warm)
		s->warm--;
	switch (s->kind) {
	case SCOPE_MACHINE:
		r = acquire_machine(s, scratch, &snap, gate);
		break;
	case SCOPE_CGROUP_V1:
		r = acquire_v1(s, scratch, &snap, gate);
		break;
	default:
		r = acquire_v2(s, scratch, &snap, gate);
		break;
	}
	if (r < 0) {
		s->full_age = SCOPE_FULL_READ_ROUNDS; /* what a failed read left is no base to skip on */
		return r;
	}
	if (s->cur.time_usec) {
		s->prev = s->cur;
		s->has_prev = true;
	}
	s->cur = snap;
	scope_push_history(s);
	return 0;
}

int scope_usage_bytes(const struct scope *s, char *scratch, size_t size, uint64_t *ret_bytes)
{
	struct proc_meminfo mi;
	int r;

	switch (s->kind) {
	case SCOPE_MACHINE:
		r = read_meminfo(s->root, scratch, size, &mi);
		if (r < 0)
			return r;
		*ret_bytes = (mi.mem_total_kib - mi.mem_available_kib) * 1024;
		return 0;
	case SCOPE_CGROUP_V1:
		return read_cgroup_u64(s->dir, "memory.usage_in_bytes", ret_bytes);
	default:
		return read_cgroup_u64(s->dir, "memory.current", ret_bytes);
	}
}

