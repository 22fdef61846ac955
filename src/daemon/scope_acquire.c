// SPDX-License-Identifier: GPL-2.0-only
/* Scopes, acquire: read everything a decision needs into s->cur, each round, or nothing when
 * the scope's events say nothing moved (the gate). Files are read through scope_load()
 * (scope.c); the decisions on what was read are in scope_decide.c. */
#include <errno.h>
#include <string.h>

#include "daemon/scope.h"
#include "linux/sys.h"

/*
 * A gated acquire may read nothing this round: it has a last read, that read is younger than
 * SCOPE_FULL_READ_ROUNDS, no task was parked then, no event woke the scope since, and the rule is
 * not counting rounds without progress. Each kind adds its own "nothing moved" test. A scope
 * that counts is read every round: a round that read nothing repeats the last counters, and its
 * verdict would be made on what was not read (measured in bench/machine's thrash, 5 December:
 * after two kills the machine's PSI memory total stood still, as file refaults are no memory
 * stall; the rounds read nothing for 2.1 s, the span kept the last refaults, each round said
 * thrashing, and a third tab was killed).
 */
static bool may_skip(const struct scope *s, const struct round_gate *gate)
{
	return gate && s->cur.time_usec && s->full_age + 1 < SCOPE_FULL_READ_ROUNDS &&
	       !s->cur.parked && !s->woken && !s->warm && !s->retry.no_progress_loops;
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

/* A group's pages read and written (file @f of its kind: V1_READS, V2_READS). */
static int read_pages(struct scope *s, unsigned int f, char *scratch, struct scope_snapshot *snap)
{
	struct io_bytes io;
	int r = scope_load(s, f, scratch, &io);

	if (r < 0)
		return r;
	snap->read_pages = bytes_to_pages(io.read, s->page_shift);
	snap->written_pages = bytes_to_pages(io.written, s->page_shift);
	return 0;
}

/*
 * The I/O stall total (file @f of the kind's: MACHINE_IO_PSI, V1_IO_PSI, V2_IO_PRESSURE), read
 * in the rounds that read all: it tells a slow disk's pause from silence (progress.h, "Refaults
 * long past"). A kernel without PSI (looked for once), or a file that cannot be read, leaves it
 * unknown: the rule then judges as without it, and the scope is watched as before. With it, the
 * CPU time that undoes PSI's weighting by busy CPUs (progress.h, "The I/O stall on a busy
 * machine"): the machine's busy and iowait time from the head of /proc/stat (@cpu_f:
 * MACHINE_CPU_STAT, V1_CPU_STAT), a v2 group's own usage_usec from its cpu.stat (V2_CPU_STAT);
 * unknown where that cannot be read.
 */
static void read_io_stall(struct scope *s, unsigned int f, unsigned int cpu_f, char *scratch,
			  struct scope_snapshot *snap)
{
	struct psi_stats psi;
	struct cpu_ticks t;
	struct cgroup_cpu_usage u;
	uint64_t busy;

	if (scope_load_optional(s, f, scratch, &psi) < 0)
		return;
	snap->io_stall_usec = psi.some.total_usec;
	if (s->kind == SCOPE_CGROUP_V2) {
		if (scope_load_optional(s, cpu_f, scratch, &u) == 0) {
			snap->cpu_busy_usec = u.usage_usec; /* under 2^63: parse_kv_buf() */
			snap->cpu_iowait_usec = 0;
		}
	} else if (scope_load_optional(s, cpu_f, scratch, &t) == 0 &&
		   !__builtin_mul_overflow(t.busy, s->cpu_tick_usec, &busy) &&
		   busy != SCOPE_IO_UNKNOWN) {
		snap->cpu_busy_usec = busy;
		snap->cpu_iowait_usec = t.iowait * s->cpu_tick_usec; /* no more than busy */
	}
}

/* The CPU stall total (file @f: MACHINE_CPU_PSI, V2_CPU_PRESSURE), read with the I/O stall:
 * whether the tasks beside a reclaiming allocator wait for a CPU (progress.h, rule 5). Unknown
 * where it cannot be read. */
static void read_cpu_stall(struct scope *s, unsigned int f, char *scratch,
			   struct scope_snapshot *snap)
{
	struct psi_stats psi;

	if (scope_load_optional(s, f, scratch, &psi) == 0)
		snap->cpu_stall_usec = psi.some.total_usec;
}

uint64_t scope_meminfo_wait_usec(uint64_t total_bytes, uint64_t avail_bytes, uint64_t drain_bps)
{
	uint64_t arm = total_bytes / 1000 * SCOPE_NEAR_LIMIT_FREE_PERMILLE;
	uint64_t margin, usec;

	if (drain_bps < SCOPE_DRAIN_FLOOR_BPS)
		drain_bps = SCOPE_DRAIN_FLOOR_BPS;
	if (avail_bytes <= 2 * arm)
		return 0;
	margin = avail_bytes - 2 * arm;
	/* margin / drain in us, without overflow: margin < 2^64 / 10^6 for any RAM there is */
	usec = margin / (drain_bps / 1000000);
	return usec < SCOPE_MEMINFO_MAX_WAIT_USEC ? usec : SCOPE_MEMINFO_MAX_WAIT_USEC;
}

/* What /proc/meminfo said into @snap, and when a quiet round reads it next: the fall since the
 * last reading, twice over, is the drain to plan for; a faster one seen before fades by half at
 * each reading. */
static void machine_available(struct scope *s, const struct proc_meminfo *mi,
			      struct scope_snapshot *snap)
{
	uint64_t avail = mi->mem_available_kib * 1024, fall = 0, dt;

	if (s->cur.limit_bytes && snap->time_usec > s->meminfo_read_usec) {
		uint64_t before = s->cur.limit_bytes - s->cur.usage_bytes;

		dt = snap->time_usec - s->meminfo_read_usec;
		if (before > avail && (before - avail) / dt < UINT64_MAX / 2000000)
			fall = (before - avail) / dt * 2000000; /* twice the fall, B/s */
	}
	s->drain_bps = fall > s->drain_bps / 2 ? fall : s->drain_bps / 2;
	s->meminfo_read_usec = snap->time_usec;
	s->meminfo_due_usec =
	    snap->time_usec + scope_meminfo_wait_usec(mi->mem_total_kib * 1024, avail, s->drain_bps);
	snap->limit_bytes = mi->mem_total_kib * 1024;
	snap->usage_bytes = (mi->mem_total_kib - mi->mem_available_kib) * 1024;
	snap->swap_free = mi->swap_free_kib > 0;
	snap->swap_left_bytes = mi->swap_free_kib * 1024;
	snap->has_swap = mi->swap_total_kib > 0;
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
	bool quiet;
	int r;

	if (gate)
		snap->stall_usec = gate->stall_usec;
	else if (scope_load_optional(s, MACHINE_PSI, scratch, &psi) == 0)
		snap->stall_usec = psi.some.total_usec;
	else
		snap->stall_usec = 0;
	/*
	 * Quiet: no task on the machine stalled on memory since the last read. Direct reclaim
	 * and workingset refaults count in PSI, so an unchanged total means no round to judge.
	 */
	if (s->cur.time_usec && snap->stall_usec != s->cur.stall_usec)
		s->warm = SCOPE_WARM_ROUNDS;
	quiet = may_skip(s, gate) && snap->stall_usec == s->cur.stall_usec;
	/*
	 * MemAvailable in quiet rounds too, as often as scope_meminfo_wait_usec() says: a flood
	 * takes a 2 GiB machine from 80 % available to none in 3 s, before any task stalls
	 * (bench/machine), and a read every SCOPE_FULL_READ_ROUNDS would see it too late for
	 * scope_near_limit(), which arms a victim while opening /proc files is still cheap.
	 */
	if (!quiet || snap->time_usec >= s->meminfo_due_usec) {
		r = scope_load(s, MACHINE_MEMINFO, scratch, &mi);
		if (r < 0)
			return r;
		machine_available(s, &mi, snap);
	}
	if (quiet)
		return skip(s);
	/* with the anon of the same full read (zoneinfo, below) */
	snap->swap_bytes = (mi.swap_total_kib - mi.swap_free_kib) * 1024;
	r = scope_load(s, MACHINE_VMSTAT, scratch, &vm);
	if (r < 0)
		return r;
	snap->stall_events = vm.allocstall;
	snap->reclaimed = vm.pgsteal;
	snap->counts_reclaim = true;
	snap->refaulted = vm.workingset_refault_file + vm.workingset_refault_anon;
	snap->refaulted_anon = vm.workingset_refault_anon;
	snap->read_pages = kib_to_pages(vm.pgpgin_kib, s->page_shift);
	snap->written_pages = vm.nr_dirtied;
	snap->kernel_oom_kills = vm.oom_kill;
	read_all(s);
	read_io_stall(s, MACHINE_IO_PSI, MACHINE_CPU_STAT, scratch, snap);
	read_cpu_stall(s, MACHINE_CPU_PSI, scratch, snap);
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
	read_io_stall(s, V1_IO_PSI, V1_CPU_STAT, scratch, snap);
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
	snap->refaulted_anon = st.workingset_refault_anon;
	r = read_pages(s, V1_READS, scratch, snap);
	if (r < 0)
		return r;
	snap->reclaimed = 0;
	snap->stall_usec = 0;
	snap->swap_free = false;
	scope_cgroup_zone(snap, s->set.reserve_permille, st.dirty_bytes + st.writeback_bytes,
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
	snap->counts_reclaim = st.has_pgsteal;
	snap->refaulted = st.workingset_refault_file + st.workingset_refault_anon;
	snap->refaulted_anon = st.workingset_refault_anon;
	r = read_pages(s, V2_READS, scratch, snap);
	if (r < 0)
		return r;
	snap->file_bytes = st.inactive_file_bytes + st.active_file_bytes;
	snap->anon_bytes = st.inactive_anon_bytes + st.active_anon_bytes;
	/* Not every kernel has per-group PSI: without it, no stall time. */
	snap->stall_usec =
	    scope_load_optional(s, V2_PRESSURE, scratch, &psi) < 0 ? 0 : psi.some.total_usec;
	read_io_stall(s, V2_IO_PRESSURE, V2_CPU_STAT, scratch, snap);
	read_cpu_stall(s, V2_CPU_PRESSURE, scratch, snap);
	/* no swap accounting (swapaccount=0, no swap controller): none counted */
	if (scope_load_optional(s, V2_SWAP_CURRENT, scratch, &snap->swap_bytes) < 0)
		snap->swap_bytes = 0;
	snap->parked = false;
	snap->swap_free = false;
	scope_cgroup_zone(snap, s->set.reserve_permille,
			  st.file_dirty_bytes + st.file_writeback_bytes, s->page_shift);
	snap->dirty_bytes = st.file_dirty_bytes;
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
	/* until a round that reads all reads them */
	snap.io_stall_usec = snap.cpu_busy_usec = snap.cpu_stall_usec = SCOPE_IO_UNKNOWN;
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

