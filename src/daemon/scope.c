// SPDX-License-Identifier: GPL-2.0-only
/* Scopes: acquire (read everything a decision needs into s->cur), decide (pure, on prev and
 * cur), and the zone a memory cgroup looks like to the seed's rule. */
#include "daemon/scope.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>

#include "linux/sys.h"
#include "policy/gfp.h"

#define PAGE_BYTES 4096ull

static int join(char *out, size_t size, const char *a, const char *b)
{
	int n = snprintf(out, size, "%s%s", a ? a : "", b);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

const char *scope_kind_name(enum scope_kind kind)
{
	return kind == SCOPE_MACHINE     ? "machine"
	       : kind == SCOPE_CGROUP_V1 ? "cgroup-v1"
					 : "cgroup-v2";
}

int scope_init_machine(struct scope *s, const char *root, char *scratch)
{
	struct proc_meminfo mi;
	int r;

	memset(s, 0, sizeof(*s));
	s->kind = SCOPE_MACHINE;
	s->root = root;
	s->oom_efd = -1;
	s->pressure_efd = -1;
	s->events_watch_fd = -1;
	for (int i = 0; i < NR_SCOPE_FILES; i++)
		s->fds[i] = -1;
	snprintf(s->name, sizeof(s->name), "machine");
	r = read_meminfo(root, scratch, SCOPE_SCRATCH_SIZE, &mi);
	if (r < 0)
		return r;
	s->mem_total_bytes = mi.mem_total_kib * 1024;
	return 0;
}

static bool under(const char *path, const char *mnt)
{
	size_t len = strlen(mnt);

	return len && !strncmp(path, mnt, len) && (path[len] == '/' || path[len] == '\0');
}

int scope_init_cgroup(struct scope *s, const char *root, const char *path,
		      const struct cgroup_mounts *mounts, char *scratch, char *err, size_t errsize)
{
	uint64_t v;
	int r;

	r = scope_init_machine(s, root, scratch);
	if (r < 0) {
		snprintf(err, errsize, "cannot read meminfo");
		return r;
	}
	snprintf(s->name, sizeof(s->name), "%s", path);
	if (join(s->dir, sizeof(s->dir), root, path) < 0) {
		snprintf(err, errsize, "%s: path too long", path);
		return -ENAMETOOLONG;
	}
	if (under(path, mounts->v1_memory)) {
		s->kind = SCOPE_CGROUP_V1;
		r = read_cgroup_u64(s->dir, "memory.limit_in_bytes", &v);
	} else if (under(path, mounts->v2)) {
		s->kind = SCOPE_CGROUP_V2;
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
	return 0;
}

int scope_v1_eventfd(const char *dir, const char *file, const char *args)
{
	char path[CONFIG_PATH_MAX + 32], line[64];
	int efd, ofd, r;

	efd = sys->eventfd(0, EFD_NONBLOCK);
	if (efd < 0)
		return efd;
	if (join(path, sizeof(path), dir, file) < 0) {
		sys->close(efd);
		return -ENAMETOOLONG;
	}
	ofd = sys_open_path(NULL, path, O_RDONLY);
	if (ofd < 0) {
		sys->close(efd);
		return ofd;
	}
	snprintf(line, sizeof(line), "%d %d%s", efd, ofd, args);
	r = join(path, sizeof(path), dir, "/cgroup.event_control");
	if (!r)
		r = sys_write_file(NULL, path, line);
	sys->close(ofd);
	if (r < 0) {
		sys->close(efd);
		return r;
	}
	return efd;
}

static int register_v1_event(struct scope *s, const char *file, const char *args, int *ret_efd)
{
	int efd;

	if (s->kind != SCOPE_CGROUP_V1)
		return 0;
	efd = scope_v1_eventfd(s->dir, file, args);
	if (efd < 0)
		return efd;
	*ret_efd = efd;
	return 0;
}

int scope_register_oom_event(struct scope *s)
{
	return register_v1_event(s, "/memory.oom_control", "", &s->oom_efd);
}

int scope_register_pressure_event(struct scope *s)
{
	return register_v1_event(s, "/memory.pressure_level", " low", &s->pressure_efd);
}

int scope_watch_events(struct scope *s)
{
	char path[CONFIG_PATH_MAX + 32];
	int fd;

	if (s->kind != SCOPE_CGROUP_V2)
		return 0;
	if (join(path, sizeof(path), s->dir, "/memory.events") < 0)
		return -ENAMETOOLONG;
	fd = sys_open_path(NULL, path, O_RDONLY);
	if (fd < 0)
		return fd;
	s->events_watch_fd = fd;
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
	s->woken = false;
	for (int i = 0; i < NR_SCOPE_FILES; i++) {
		if (s->fds[i] >= 0)
			sys->close(s->fds[i]);
		s->fds[i] = -1;
	}
}

/*
 * Reads file @idx of the scope (opened on first use: @path under the root for the machine,
 * under the cgroup's directory for a cgroup). A failed read closes it; the next reopens.
 */
/*
 * Reads the scope's file @idx (opened from @path on first use) into @buf. @records: the file is
 * generated record by record (/proc/vmstat, zoneinfo, buddyinfo) and is read until a read returns
 * nothing; the others (cgroupfs files, PSI, meminfo) come whole from one read.
 */
static ssize_t scope_read_file(struct scope *s, int idx, const char *path, char *buf, size_t size,
			       bool records)
{
	char full[CONFIG_PATH_MAX + 64];

	if (s->kind == SCOPE_MACHINE)
		return sys_read_kept(&s->fds[idx], s->root, path, buf, size, !records);
	if (join(full, sizeof(full), s->dir, path) < 0)
		return -ENAMETOOLONG;
	return sys_read_kept(&s->fds[idx], NULL, full, buf, size, !records);
}

static ssize_t scope_read(struct scope *s, int idx, const char *path, char *buf, size_t size)
{
	return scope_read_file(s, idx, path, buf, size, false);
}

static ssize_t scope_read_records(struct scope *s, int idx, const char *path, char *buf,
				  size_t size)
{
	return scope_read_file(s, idx, path, buf, size, true);
}

static int scope_read_u64(struct scope *s, int idx, const char *path, uint64_t *ret_value)
{
	char buf[64];
	ssize_t n = scope_read(s, idx, path, buf, sizeof(buf));

	return n < 0 ? (int)n : parse_u64_file_buf(buf, ret_value);
}

/* The zonelist of the machine, highest zone first, as the allocator walks it. */
static void machine_zones(struct scope_snapshot *snap, const struct proc_zone *pz, size_t nr,
			  bool swap_free)
{
	snap->nr_zones = 0;
	for (int type = ZONE_NORMAL; type >= ZONE_DMA; type--) {
		for (size_t i = 0; i < nr; i++) {
			const struct proc_zone *p = &pz[i];
			struct zone_snapshot *z;

			if (p->type != type || !p->managed_pages || snap->nr_zones >= MAX_NR_ZONES)
				continue;
			z = &snap->zones[snap->nr_zones++];
			memset(z, 0, sizeof(*z));
			z->idx = (enum zone_type)type;
			z->managed_pages = p->managed_pages;
			z->watermark[WMARK_MIN] = p->min_pages;
			z->watermark[WMARK_LOW] = p->low_pages;
			z->watermark[WMARK_HIGH] = p->high_pages;
			for (unsigned int k = 0; k < MAX_NR_ZONES && k < p->nr_protection; k++)
				z->lowmem_reserve[k] = p->protection[k];
			z->free_pages = p->free_pages;
			z->free_cma_pages = p->free_cma_pages;
			for (unsigned int o = 0; o < MAX_ORDER; o++) {
				z->nr_free[o] = p->nr_free[o];
				/* buddyinfo has no migratetypes: a non-empty order is usable. */
				if (p->nr_free[o])
					z->free_list_mask[o] = (1u << MIGRATE_UNMOVABLE) |
							       (1u << MIGRATE_MOVABLE) |
							       (1u << MIGRATE_RECLAIMABLE);
			}
			z->reclaimable_pages = p->inactive_file + p->active_file;
			if (swap_free)
				z->reclaimable_pages += p->inactive_anon + p->active_anon;
			z->write_pending = p->write_pending;
		}
	}
}

/* A memory cgroup as one zone: size = limit, free = limit - usage, min = the reserve. */
static void cgroup_zone(struct scope_snapshot *snap, unsigned int reserve_permille,
			uint64_t dirty_bytes)
{
	struct zone_snapshot *z = &snap->zones[0];
	uint64_t limit_pages = snap->limit_bytes / PAGE_BYTES;
	uint64_t free_pages = snap->limit_bytes > snap->usage_bytes
				  ? (snap->limit_bytes - snap->usage_bytes) / PAGE_BYTES
				  : 0;
	uint64_t min = limit_pages * reserve_permille / 1000;

	memset(z, 0, sizeof(*z));
	if (!min)
		min = 1;
	z->idx = ZONE_NORMAL;
	z->managed_pages = limit_pages;
	z->watermark[WMARK_MIN] = min;
	z->watermark[WMARK_LOW] = min + min / 4;
	z->watermark[WMARK_HIGH] = min + min / 2;
	z->free_pages = free_pages;
	z->nr_free[0] = free_pages;
	z->free_list_mask[0] = (1u << MIGRATE_UNMOVABLE) | (1u << MIGRATE_MOVABLE);
	z->reclaimable_pages = snap->file_bytes / PAGE_BYTES;
	if (snap->swap_free)
		z->reclaimable_pages += snap->anon_bytes / PAGE_BYTES;
	z->write_pending = dirty_bytes / PAGE_BYTES;
	snap->nr_zones = 1;
}

/*
 * A gated acquire may read nothing this round: it has a last read, that read is younger than
 * SCOPE_FULL_READ_ROUNDS, no task was parked then and no event woke the scope since. Each kind
 * adds its own "nothing moved" test.
 */
static bool may_skip(const struct scope *s, const struct round_gate *gate)
{
	return gate && s->cur.time_usec && s->full_age + 1 < SCOPE_FULL_READ_ROUNDS &&
	       !s->cur.parked && !s->woken;
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

static int acquire_machine(struct scope *s, char *scratch, struct scope_snapshot *snap,
			   const struct round_gate *gate)
{
	struct proc_zone pz[PROC_MAX_ZONES];
	struct proc_vmstat vm;
	struct proc_meminfo mi;
	struct psi_stats psi;
	size_t nr;
	ssize_t n;
	int r;

	if (gate) {
		snap->stall_usec = gate->stall_usec;
	} else {
		n = scope_read(s, SF_4, "/proc/pressure/memory", scratch, SCOPE_SCRATCH_SIZE);
		snap->stall_usec =
		    n < 0 || parse_psi_buf(scratch, &psi) < 0 ? 0 : psi.some.total_usec;
	}
	/*
	 * Quiet: no task on the machine stalled on memory since the last read. Direct reclaim
	 * and workingset refaults count in PSI, so an unchanged total means no round to judge.
	 */
	if (may_skip(s, gate) && snap->stall_usec == s->cur.stall_usec)
		return skip(s);
	n = scope_read_records(s, SF_2, "/proc/vmstat", scratch, SCOPE_SCRATCH_SIZE);
	if (n < 0)
		return (int)n;
	r = parse_vmstat_buf(scratch, &vm);
	if (r < 0)
		return r;
	snap->stall_events = vm.allocstall;
	snap->reclaimed = vm.pgsteal;
	snap->refaulted = vm.workingset_refault_file + vm.workingset_refault_anon;
	snap->kernel_oom_kills = vm.oom_kill;
	read_all(s);
	n = scope_read(s, SF_3, "/proc/meminfo", scratch, SCOPE_SCRATCH_SIZE);
	if (n < 0)
		return (int)n;
	r = parse_meminfo_buf(scratch, &mi);
	if (r < 0)
		return r;
	snap->limit_bytes = mi.mem_total_kib * 1024;
	snap->usage_bytes = (mi.mem_total_kib - mi.mem_available_kib) * 1024;
	snap->swap_free = mi.swap_free_kib > 0;
	n = scope_read_records(s, SF_0, "/proc/zoneinfo", scratch, SCOPE_SCRATCH_SIZE);
	if (n < 0)
		return (int)n;
	r = parse_zoneinfo_buf(scratch, pz, PROC_MAX_ZONES, &nr);
	if (r < 0)
		return r;
	n = scope_read_records(s, SF_1, "/proc/buddyinfo", scratch, SCOPE_SCRATCH_SIZE);
	if (n < 0)
		return (int)n;
	r = parse_buddyinfo_buf(scratch, pz, nr);
	if (r < 0)
		return r;
	machine_zones(snap, pz, nr, snap->swap_free);
	snap->file_bytes = snap->anon_bytes = 0;
	for (size_t i = 0; i < nr; i++) {
		snap->file_bytes += (pz[i].inactive_file + pz[i].active_file) * PAGE_BYTES;
		snap->anon_bytes += (pz[i].inactive_anon + pz[i].active_anon) * PAGE_BYTES;
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
	ssize_t n;
	int r;

	if (gate && gate->has_refaulted)
		refaulted = gate->refaulted;
	/* drained every round that may have one: an event counts once */
	if (s->pressure_efd >= 0 && !(gate && gate->no_pressure)) {
		uint64_t count;

		pressure = sys->read(s->pressure_efd, &count, sizeof(count)) == sizeof(count);
	}
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
	r = scope_read_u64(s, SF_2, "/memory.failcnt", &snap->stall_events);
	if (r < 0)
		return r;
	/*
	 * Quiet: no failed charge, nobody parked at the last read, no memory stall on the machine
	 * and no refault in the v1 hierarchy since then (struct round_gate says why both). Tasks park
	 * (under_oom) only after a charge fails, and every failure counts in failcnt: a quiet
	 * round needs neither memory.oom_control nor the rest.
	 */
	if (quiet && snap->stall_events == s->cur.stall_events) /* no event fd: failcnt */
		return skip(s);
	read_all(s);
	s->gate_stall_usec = gate ? gate->stall_usec : 0;
	s->gate_refaulted = refaulted;
	n = scope_read(s, SF_4, "/memory.oom_control", scratch, SCOPE_SCRATCH_SIZE);
	if (n < 0)
		return (int)n;
	r = parse_memcg_v1_oom_control_buf(scratch, &oc);
	if (r < 0)
		return r;
	snap->parked = oc.under_oom != 0;
	snap->oom_kill_disable = oc.oom_kill_disable != 0;
	snap->kernel_oom_kills = oc.oom_kill;
	r = scope_read_u64(s, SF_0, "/memory.limit_in_bytes", &snap->limit_bytes);
	if (!r)
		r = scope_read_u64(s, SF_1, "/memory.usage_in_bytes", &snap->usage_bytes);
	if (r < 0)
		return r;
	n = scope_read(s, SF_3, "/memory.stat", scratch, SCOPE_SCRATCH_SIZE);
	if (n < 0)
		return (int)n;
	r = parse_memcg_v1_stat_buf(scratch, &st);
	if (r < 0)
		return r;
	if (snap->limit_bytes > s->mem_total_bytes)
		snap->limit_bytes = s->mem_total_bytes;
	snap->file_bytes = st.inactive_file_bytes + st.active_file_bytes;
	snap->anon_bytes = st.inactive_anon_bytes + st.active_anon_bytes;
	snap->refaulted = st.workingset_refault_file + st.workingset_refault_anon;
	snap->reclaimed = 0;
	snap->stall_usec = 0;
	snap->swap_free = false;
	cgroup_zone(snap, s->reserve_permille, st.dirty_bytes + st.writeback_bytes);
	return 0;
}

static int acquire_v2(struct scope *s, char *scratch, struct scope_snapshot *snap,
		      const struct round_gate *gate)
{
	struct memcg_v2_stat st;
	struct memcg_v2_events ev;
	struct psi_stats psi;
	uint64_t high;
	ssize_t n;
	int r;

	/* memory.events unchanged: no charge failed at memory.max, none was throttled over
	 * memory.high, no OOM, here or below (its counts are hierarchical). */
	if (s->events_watch_fd >= 0 && may_skip(s, gate))
		return skip(s);
	read_all(s);

	r = scope_read_u64(s, SF_0, "/memory.max", &snap->limit_bytes);
	if (!r)
		r = scope_read_u64(s, SF_1, "/memory.current", &snap->usage_bytes);
	if (r < 0)
		return r;
	/*
	 * Past memory.high the kernel reclaims and throttles the charging task but never
	 * OOM-kills: a group bounded there can crawl forever. The lower bound is the limit.
	 */
	r = scope_read_u64(s, SF_5, "/memory.high", &high);
	if (r < 0 && r != -ENOENT)
		return r;
	if (!r && high < snap->limit_bytes)
		snap->limit_bytes = high;
	n = scope_read(s, SF_3, "/memory.stat", scratch, SCOPE_SCRATCH_SIZE);
	if (n < 0)
		return (int)n;
	r = parse_memcg_v2_stat_buf(scratch, &st);
	if (r < 0)
		return r;
	n = scope_read(s, SF_2, "/memory.events", scratch, SCOPE_SCRATCH_SIZE);
	if (n < 0)
		return (int)n;
	r = parse_memcg_v2_events_buf(scratch, &ev);
	if (r < 0)
		return r;
	if (snap->limit_bytes > s->mem_total_bytes)
		snap->limit_bytes = s->mem_total_bytes;
	snap->stall_events = ev.max + ev.high; /* failed charges and throttled ones */
	snap->kernel_oom_kills = ev.oom_kill;
	snap->reclaimed = st.pgsteal;
	snap->refaulted = st.workingset_refault_file + st.workingset_refault_anon;
	snap->file_bytes = st.inactive_file_bytes + st.active_file_bytes;
	snap->anon_bytes = st.inactive_anon_bytes + st.active_anon_bytes;
	n = scope_read(s, SF_4, "/memory.pressure", scratch, SCOPE_SCRATCH_SIZE);
	snap->stall_usec = n < 0 || parse_psi_buf(scratch, &psi) < 0 ? 0 : psi.some.total_usec;
	snap->parked = false;
	snap->swap_free = false;
	cgroup_zone(snap, s->reserve_permille, st.file_dirty_bytes + st.file_writeback_bytes);
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
	if (r < 0)
		return r;
	if (s->cur.time_usec) {
		s->prev = s->cur;
		s->has_prev = true;
	}
	s->cur = snap;
	scope_push_history(s);
	return 0;
}

void scope_push_history(struct scope *s)
{
	struct scope_counters *h = &s->hist[s->hist_next];

	h->time_usec = s->cur.time_usec;
	h->stall_events = s->cur.stall_events;
	h->stall_usec = s->cur.stall_usec;
	h->reclaimed = s->cur.reclaimed;
	h->refaulted = s->cur.refaulted;
	s->hist_next = (s->hist_next + 1) % SCOPE_WINDOW_ROUNDS;
	if (s->hist_len < SCOPE_WINDOW_ROUNDS)
		s->hist_len++;
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

static uint64_t delta(uint64_t cur, uint64_t prev)
{
	return cur >= prev ? cur - prev
			   : 0; /* a counter that went back: the cgroup was recreated */
}

void scope_build_request(const struct scope *s, struct alloc_request *ret_req)
{
	ret_req->gfp_mask = GFP_HIGHUSER_MOVABLE;
	ret_req->order = 0;
	ret_req->alloc_flags = ALLOC_WMARK_MIN | ALLOC_CPUSET;
	ret_req->high_zoneidx = s->cur.nr_zones ? (int)s->cur.zones[0].idx : ZONE_NORMAL;
	ret_req->zones = s->cur.zones;
	ret_req->nr_zones = s->cur.nr_zones;
}

void scope_decide(struct scope *s, const struct config *c)
{
	struct progress_params params = {c->stall_bound_permille, c->refault_min_pages};
	struct round_sample *smp = &s->sample;
	struct alloc_request req;
	const struct scope_counters *old;

	s->oom = false;
	s->decided = false;
	if (s->hist_len < 2)
		return;
	old = &s->hist[s->hist_len < SCOPE_WINDOW_ROUNDS ? 0 : s->hist_next];
	memset(smp, 0, sizeof(*smp));
	smp->interval_usec = delta(s->cur.time_usec, old->time_usec);
	smp->stall_events = delta(s->cur.stall_events, old->stall_events);
	smp->stall_usec = delta(s->cur.stall_usec, old->stall_usec);
	smp->has_stall_usec = s->kind != SCOPE_CGROUP_V1;
	smp->reclaimed_pages = delta(s->cur.reclaimed, old->reclaimed);
	smp->has_reclaimed = s->kind != SCOPE_CGROUP_V1;
	smp->refaulted_pages = delta(s->cur.refaulted, old->refaulted);
	smp->file_pages = s->cur.file_bytes / PAGE_BYTES;
	smp->parked = s->cur.parked;
	progress_round(smp, &params, &s->round);
	s->decided = true;
	if (!s->round.is_round) {
		if (++s->quiet_rounds >= SCOPE_QUIET_ROUNDS_RESET) {
			s->retry.no_progress_loops = 0;
			s->retry.pages_reclaimed = 0;
		}
		memset(&s->decision, 0, sizeof(s->decision));
		s->decision.verdict = RETRY_RECLAIM;
		s->decision.no_progress_loops = s->retry.no_progress_loops;
		s->decision.reason = "not a round";
		return;
	}
	s->quiet_rounds = 0;
	if (s->round.hold) {
		memset(&s->decision, 0, sizeof(s->decision));
		s->decision.verdict = RETRY_RECLAIM;
		s->decision.no_progress_loops = s->retry.no_progress_loops;
		s->decision.reason = "count held";
		return;
	}
	scope_build_request(s, &req);
	reclaim_retry_decide(RETRY_RULE_REWORK, &req,
			     s->round.progress ? (unsigned long)s->round.net_reclaimed : 0,
			     &s->retry, &s->decision);
	s->oom = s->decision.verdict == RETRY_OOM;
}

bool scope_resolved(const struct scope *s)
{
	struct alloc_request req;

	if (s->cur.parked)
		return false;
	/*
	 * As the kernel's last try before its OOM killer: the request at the high watermark,
	 * with the lowmem reserves of its classzone. Without them, the DMA zone, kept free for
	 * lower classzones, would always look "resolved" on a machine.
	 */
	scope_build_request(s, &req);
	for (size_t i = 0; i < req.nr_zones; i++) {
		const struct zone_snapshot *z = &req.zones[i];

		if (zone_watermark_ok(z, req.order, z->watermark[WMARK_HIGH], req.high_zoneidx,
				      ALLOC_WMARK_HIGH | ALLOC_CPUSET))
			return true;
	}
	return false;
}

bool scope_near_limit(const struct scope *s)
{
	uint64_t limit = s->cur.limit_bytes;

	return limit &&
	       s->cur.usage_bytes >= limit - limit / 1000 * SCOPE_NEAR_LIMIT_FREE_PERMILLE;
}

void scope_oom_progress(struct scope *s)
{
	retry_state_oom_progress(&s->retry);
	s->hist_len = 0;
	s->hist_next = 0;
	scope_push_history(s);
}
