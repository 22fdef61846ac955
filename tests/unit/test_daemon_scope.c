// SPDX-License-Identifier: GPL-2.0-only
/* Scopes read from fixture trees: the machine (6.18 zoneinfo: the zonelist highest first, the
 * watermarks, MemTotal), a cgroup v2 group (one zone from memory.max/current, pgsteal, the
 * group's PSI), v1 (under the v1 mount), and paths that are not memory cgroups. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/events.h"
#include "daemon/scope.h"
#include "daemon/tasks.h"
#include "linux/sys.h"

/* The fixtures come from x86-64 hosts: 4 KiB pages. */
#define FIXTURE_PAGE_SHIFT 12

static char scratch[SCOPE_SCRATCH_SIZE];

static void mounts_of(const char *root, struct cgroup_mounts *m)
{
	assert_int_equal(read_mountinfo(root, scratch, sizeof(scratch), m), 0);
}

static void test_machine(void **state)
{
	struct scope s;

	(void)state;
	assert_int_equal(
	    scope_init_machine(&s, "tests/fixtures/k6.18", FIXTURE_PAGE_SHIFT, scratch), 0);
	assert_int_equal(scope_acquire(&s, scratch, 1000), 0);
	assert_int_equal(s.cur.nr_zones, 3);
	assert_int_equal(s.cur.zones[0].idx, ZONE_NORMAL);
	assert_int_equal(s.cur.zones[2].idx, ZONE_DMA);
	assert_int_equal(s.cur.zones[0].managed_pages, 950272);
	assert_int_equal(s.cur.zones[0].free_pages, 95440);
	assert_int_equal(s.cur.zones[1].lowmem_reserve[ZONE_NORMAL], 3712);
	assert_int_equal(s.cur.zones[0].nr_free[10], 22);
	assert_true(s.cur.zones[0].free_list_mask[10] != 0);
	assert_true(s.cur.zones[0].reclaimable_pages > 0);
	assert_int_equal(s.cur.limit_bytes, s.mem_total_bytes);
	assert_true(s.cur.usage_bytes < s.cur.limit_bytes);
	assert_true(s.cur.stall_usec > 0); /* /proc/pressure/memory some total */
	assert_int_equal(s.hist_len, 1);
}

/*
 * The re-check before a kill, on the 6.18 machine's zones: the DMA zone has 3840 pages free, far
 * above its high watermark (55) but under its reserve against Normal-classzone requests (6730):
 * it does not make an exhausted machine look resolved; DMA32 or Normal back above high does.
 */
static void test_resolved(void **state)
{
	struct scope s;
	struct zone_snapshot *dma = NULL, *dma32 = NULL, *normal = NULL;

	(void)state;
	assert_int_equal(
	    scope_init_machine(&s, "tests/fixtures/k6.18", FIXTURE_PAGE_SHIFT, scratch), 0);
	assert_int_equal(scope_acquire(&s, scratch, 1000), 0);
	assert_true(scope_resolved(&s)); /* the fixture machine is nearly idle */
	for (size_t i = 0; i < s.cur.nr_zones; i++) {
		struct zone_snapshot *z = &s.cur.zones[i];

		if (z->idx == ZONE_DMA)
			dma = z;
		else if (z->idx == ZONE_DMA32)
			dma32 = z;
		else
			normal = z;
	}
	assert_non_null(dma);
	assert_non_null(dma32);
	assert_non_null(normal);
	assert_int_equal(dma->free_pages, 3840);
	dma32->free_pages = dma32->watermark[WMARK_MIN];
	normal->free_pages = normal->watermark[WMARK_HIGH];
	assert_false(scope_resolved(&s));
	normal->free_pages = normal->watermark[WMARK_HIGH] + 1;
	assert_true(scope_resolved(&s));
	normal->free_pages = 0;
	dma32->free_pages = dma32->watermark[WMARK_HIGH] + dma32->lowmem_reserve[ZONE_NORMAL];
	assert_false(scope_resolved(&s)); /* DMA32 keeps 3712 pages from Normal requests too */
	dma32->free_pages++;
	assert_true(scope_resolved(&s));
	s.cur.parked = true;
	assert_false(scope_resolved(&s));
	/* Near the limit: less than 10 % left. */
	s.cur.limit_bytes = 1000 << 20;
	s.cur.usage_bytes = 899 << 20;
	assert_false(scope_near_limit(&s));
	s.cur.usage_bytes = 901 << 20;
	assert_true(scope_near_limit(&s));
	s.cur.limit_bytes = 0;
	assert_false(scope_near_limit(&s));
	scope_close(&s);
}

static void test_v2_group(void **state)
{
	struct cgroup_mounts m;
	struct scope s;
	char err[256] = "";
	const struct zone_snapshot *z;

	(void)state;
	mounts_of("tests/fixtures/v2", &m);
	assert_int_equal(scope_init_cgroup(&s, "tests/fixtures/v2", "/sys/fs/cgroup/app", &m,
					   FIXTURE_PAGE_SHIFT, scratch, err, sizeof(err)),
			 0);
	s.set.reserve_permille = 10;
	assert_int_equal(s.kind, SCOPE_CGROUP_V2);
	assert_int_equal(scope_acquire(&s, scratch, 1000), 0);
	assert_int_equal(s.cur.io_stall_usec, 777000); /* its own io.pressure */
	z = &s.cur.zones[0];
	assert_int_equal(s.cur.nr_zones, 1);
	assert_int_equal(z->managed_pages, 65536);
	assert_int_equal(z->free_pages, (268435456 - 266338304) / 4096);
	assert_int_equal(z->watermark[WMARK_MIN], 655);
	assert_int_equal(z->reclaimable_pages, (41943040 + 10485760) / 4096);
	assert_int_equal(z->write_pending, 3);
	assert_int_equal(s.cur.reclaimed, 110000);
	assert_int_equal(s.cur.refaulted, 90000 + 1200); /* file + anon */
	assert_int_equal(s.cur.refaulted_anon, 1200);
	assert_int_equal(s.cur.stall_events, 5310);
	assert_int_equal(s.cur.stall_usec, 9876543);
	assert_false(s.cur.parked);
	/* its reads: io.stat, rbytes of both devices */
	assert_int_equal(s.reads, READS_V2_IO_STAT);
	assert_int_equal(s.cur.read_pages, (8388608 + 4096) / 4096);
	scope_close(&s);

	/*
	 * memory.max "max", memory.high 192 MiB: the kernel throttles there and never kills, so
	 * the zone is 192 MiB, usage past it leaves nothing free, throttled charges are stalls.
	 * (app above has no memory.high file: a missing one is no bound.)
	 */
	assert_int_equal(scope_init_cgroup(&s, "tests/fixtures/v2", "/sys/fs/cgroup/high", &m,
					   FIXTURE_PAGE_SHIFT, scratch, err, sizeof(err)),
			 0);
	s.set.reserve_permille = 10;
	assert_int_equal(scope_acquire(&s, scratch, 1000), 0);
	assert_int_equal(s.cur.limit_bytes, 201326592);
	/* no io.stat (io controller off): the machine's pgpgin, in KiB */
	assert_int_equal(s.reads, READS_MACHINE);
	assert_int_equal(s.cur.read_pages, 3459153 / 4);
	assert_int_equal(s.cur.zones[0].managed_pages, 201326592 / 4096);
	assert_int_equal(s.cur.zones[0].free_pages, 0);
	assert_int_equal(s.cur.stall_events, 4242);
	scope_close(&s);

	assert_int_equal(scope_init_cgroup(&s, "tests/fixtures/v2", "/sys/fs/cgroup/nomem", &m,
					   FIXTURE_PAGE_SHIFT, scratch, err, sizeof(err)),
			 -ENOTDIR);
	assert_non_null(strstr(err, "not a memory cgroup"));
	assert_int_equal(scope_init_cgroup(&s, "tests/fixtures/v2", "/tmp/x", &m,
					   FIXTURE_PAGE_SHIFT, scratch, err, sizeof(err)),
			 -ENOTDIR);
	assert_non_null(strstr(err, "v1 memory hierarchy: none"));
}

/* The 6.18 fixture's v1 group as a scope; @m gets the fixture's mounts. */
static void v1_fixture(struct scope *s, struct cgroup_mounts *m)
{
	char err[256] = "";

	mounts_of("tests/fixtures/k6.18", m);
	assert_int_equal(scope_init_cgroup(s, "tests/fixtures/k6.18",
					   "/sys/fs/cgroup/memory/oomguard-fixture", m,
					   FIXTURE_PAGE_SHIFT, scratch, err, sizeof(err)),
			 0);
	s->set.reserve_permille = 10;
}

static void test_v1_group(void **state)
{
	struct cgroup_mounts m;
	struct scope s;
	char err[256] = "";

	(void)state;
	v1_fixture(&s, &m);
	assert_int_equal(s.kind, SCOPE_CGROUP_V1);
	assert_int_equal(scope_acquire(&s, scratch, 1000), 0);
	assert_int_equal(s.cur.limit_bytes, 536870912);
	assert_int_equal(s.cur.zones[0].free_pages, (536870912 - 530579456) / 4096);
	assert_int_equal(s.cur.reclaimed, 0); /* v1 has no pgsteal */
	/* its reads: the blkio group of the same path */
	assert_int_equal(s.reads, READS_V1_BLKIO);
	assert_int_equal(s.cur.read_pages, 41943040 / 4096);
	/* Under the v2 mount of this machine, which has no memory controller: refused. */
	assert_int_equal(scope_init_cgroup(&s, "tests/fixtures/k6.18", "/sys/fs/cgroup/unified/x",
					   &m, FIXTURE_PAGE_SHIFT, scratch, err, sizeof(err)),
			 -ENOTDIR);
}

/* After an event: the scope is read in full every round while warm (SCOPE_WARM_ROUNDS), events
 * or not; the files age from the last of those reads. */
static void cool_down(struct scope *s, const struct round_gate *g, uint64_t *t)
{
	while (s->warm > 1) { /* the acquire that takes it to 0 reads nothing */
		assert_int_equal(scope_acquire_gated(s, scratch, *t += 100000, g), 0);
		assert_int_equal(s->full_age, 0);
	}
}

/* From a full read, quiet rounds (nothing moves in @g) age the files until a read in full
 * comes SCOPE_FULL_READ_ROUNDS later, whatever the kind of scope. */
static void assert_full_read_every(struct scope *s, const struct round_gate *g, uint64_t *t)
{
	cool_down(s, g, t);
	assert_int_equal(s->full_age, 0);
	for (int i = 1; i < SCOPE_FULL_READ_ROUNDS; i++) {
		assert_int_equal(scope_acquire_gated(s, scratch, *t += 100000, g), 0);
		assert_int_equal(s->full_age, i);
	}
	assert_int_equal(scope_acquire_gated(s, scratch, *t += 100000, g), 0);
	assert_int_equal(s->full_age, 0);
}

/*
 * The gate of a v1 group: a round re-reads oom_control and memory.stat (full_age back to 0) when
 * the machine's stall total or its refaults moved, and only then; a group thrashing on its page
 * cache may move neither its failcnt nor the stall total, only the refaults.
 */
static void test_v1_gate(void **state)
{
	struct cgroup_mounts m;
	struct round_gate g = {.stall_usec = 1000, .has_refaulted = true};
	struct scope s;
	uint64_t t = 1000;

	(void)state;
	v1_fixture(&s, &m);
	g.refaulted = 500;
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	assert_int_equal(s.full_age, 0); /* the first read is full */
	assert_int_equal(s.cur.io_stall_usec, 4321000); /* the machine's: v1 has no PSI */
	assert_int_equal(s.cur.refaulted_anon, 55); /* the group's, not the machine's */
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	assert_int_equal(s.full_age, 1); /* nothing moved: quiet */
	assert_int_equal(s.cur.io_stall_usec, SCOPE_IO_UNKNOWN); /* this round did not read it */
	/* A scope whose rule counts rounds without progress is read in full, moved or not. */
	s.retry.no_progress_loops = 1;
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	assert_int_equal(s.full_age, 0);
	s.retry.no_progress_loops = 0;
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	assert_int_equal(s.full_age, 1);
	g.refaulted++;
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	assert_int_equal(s.full_age, 0);
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	assert_int_equal(s.full_age, 1);
	g.stall_usec++;
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	assert_int_equal(s.full_age, 0);
	assert_full_read_every(&s, &g, &t);
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, NULL), 0);
	assert_int_equal(s.full_age, 0); /* no gate: always in full */
	scope_close(&s);
}

/* The machine scope re-reads zoneinfo and the rest only when the machine's stall total moved. */
static int preads;

static ssize_t counting_pread(int fd, void *buf, size_t len, off_t off)
{
	preads++;
	return sys_ops_real.pread(fd, buf, len, off);
}

static bool readable(int efd)
{
	uint64_t v;

	if (read(efd, &v, sizeof(v)) != sizeof(v))
		return false;
	assert_int_equal(write(efd, &v, sizeof(v)), sizeof(v)); /* put it back */
	return true;
}

/*
 * A v1 group with a vmpressure eventfd: a quiet round reads no file at all, whatever the
 * machine's stalls and refaults do; an event (vmpressure, or the OOM eventfd: woken) makes it
 * read all, and is drained; the gate's "no pressure anywhere" spares the eventfd read; and
 * every SCOPE_FULL_READ_ROUNDS all is read anyway.
 */
static void test_v1_pressure_events(void **state)
{
	static struct sys_ops fake;
	struct cgroup_mounts m;
	struct round_gate g = {.stall_usec = 1000, .has_refaulted = true, .refaulted = 7};
	struct scope s;
	uint64_t t = 1000, one = 1;

	(void)state;
	v1_fixture(&s, &m);
	s.pressure_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	assert_true(s.pressure_efd >= 0);
	fake = sys_ops_real;
	fake.pread = counting_pread;
	sys = &fake;
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	assert_int_equal(s.full_age, 0); /* the first read is full */
	preads = 0;
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	assert_int_equal(s.full_age, 1);
	assert_int_equal(preads, 0); /* quiet: not even failcnt */
	g.stall_usec += 500;
	g.refaulted += 500;
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	assert_int_equal(s.full_age, 2); /* the machine's stalls and refaults are not the group's */
	assert_int_equal(preads, 0);
	assert_int_equal(write(s.pressure_efd, &one, sizeof(one)), sizeof(one));
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	assert_int_equal(s.full_age, 0); /* reclaim scanned it: all read */
	assert_true(preads >= 5);        /* failcnt, oom_control, limit, usage, stat */
	assert_false(readable(s.pressure_efd)); /* drained: counted once */
	/* Warm: read every round for SCOPE_WARM_ROUNDS after the event, then quiet again. */
	assert_int_equal(s.warm, SCOPE_WARM_ROUNDS);
	cool_down(&s, &g, &t);
	preads = 0;
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	assert_int_equal(s.full_age, 1);
	assert_int_equal(preads, 0);
	s.woken = true; /* the loop saw the OOM eventfd */
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	assert_int_equal(s.full_age, 0);
	assert_false(s.woken);
	cool_down(&s, &g, &t);
	/* The round's one epoll_wait said no group has an event: the eventfd is not read. */
	assert_int_equal(write(s.pressure_efd, &one, sizeof(one)), sizeof(one));
	g.no_pressure = true;
	preads = 0;
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	assert_int_equal(s.full_age, 1);
	assert_true(readable(s.pressure_efd));
	g.no_pressure = false;
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	assert_int_equal(s.full_age, 0);
	assert_full_read_every(&s, &g, &t);
	sys = &sys_ops_real;
	scope_close(&s);
	assert_int_equal(s.pressure_efd, -1);
}

/* A v2 group whose memory.events the loop watches: quiet while it did not change (woken),
 * all read when it did, and every SCOPE_FULL_READ_ROUNDS; no gate: always all. */
static void test_v2_events_watch(void **state)
{
	static struct sys_ops fake;
	struct cgroup_mounts m;
	struct round_gate g = {.stall_usec = 1000};
	struct scope s;
	char err[256] = "";
	uint64_t t = 1000;

	(void)state;
	mounts_of("tests/fixtures/v2", &m);
	assert_int_equal(scope_init_cgroup(&s, "tests/fixtures/v2", "/sys/fs/cgroup/app", &m,
					   FIXTURE_PAGE_SHIFT, scratch, err, sizeof(err)),
			 0);
	assert_int_equal(scope_watch_events(&s), 0);
	assert_true(s.events_watch_fd >= 0);
	fake = sys_ops_real;
	fake.pread = counting_pread;
	sys = &fake;
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	assert_int_equal(s.full_age, 0);
	preads = 0;
	g.stall_usec += 1000; /* the machine's stalls are not the group's */
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	assert_int_equal(s.full_age, 1);
	assert_int_equal(preads, 0);
	s.woken = true; /* the loop saw memory.events change */
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	assert_int_equal(s.full_age, 0);
	assert_true(preads >= 5); /* max, current, high, stat, events (and pressure) */
	assert_false(s.woken);
	assert_full_read_every(&s, &g, &t);
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, NULL), 0);
	assert_int_equal(s.full_age, 0); /* no gate: all */
	sys = &sys_ops_real;
	scope_close(&s);
	assert_int_equal(s.events_watch_fd, -1);
}

static void test_machine_gate(void **state)
{
	static struct sys_ops fake;
	struct round_gate g = {.stall_usec = 1000};
	struct scope s;
	uint64_t t = 1000;

	(void)state;
	assert_int_equal(
	    scope_init_machine(&s, "tests/fixtures/k6.18", FIXTURE_PAGE_SHIFT, scratch), 0);
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	assert_int_equal(s.full_age, 0);
	assert_int_equal(s.cur.stall_usec, 1000); /* the gate's total, not the file's */
	/*
	 * A quiet round reads nothing while MemAvailable (21 of 23.5 GiB) is far from the arming
	 * share, then meminfo alone, once SCOPE_MEMINFO_MAX_WAIT_USEC passed since the last read:
	 * MemAvailable stays fresh enough for scope_near_limit().
	 */
	fake = sys_ops_real;
	fake.pread = counting_pread;
	sys = &fake;
	preads = 0;
	s.cur.usage_bytes = 0;
	for (int i = 0; i < 4; i++) {
		assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
		assert_int_equal(s.full_age, i + 1);
	}
	assert_int_equal(preads, 0);
	assert_int_equal(s.cur.usage_bytes, 0);
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	assert_int_equal(s.full_age, 5);
	assert_int_equal(preads, 1);
	assert_true(s.cur.usage_bytes > 0);
	assert_int_equal(s.cur.io_stall_usec, SCOPE_IO_UNKNOWN);
	/* Counting rounds without progress: read in full, the I/O stall with the rest. */
	s.retry.no_progress_loops = 2;
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	assert_int_equal(s.full_age, 0);
	assert_int_equal(s.cur.io_stall_usec, 4321000);
	assert_int_equal(s.cur.refaulted_anon, 4321);
	s.retry.no_progress_loops = 0;
	sys = &sys_ops_real;
	g.stall_usec += 10;
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	assert_int_equal(s.full_age, 0);
	assert_true(s.cur.nr_zones > 0);
	scope_close(&s);
}

/*
 * How long a quiet machine goes without reading MemAvailable: until the floor's drain could
 * bring it to twice the arming share, at most SCOPE_MEMINFO_MAX_WAIT_USEC; every round from
 * there on, and sooner where a faster fall was seen.
 */
static void test_meminfo_wait(void **state)
{
	const uint64_t gib = 1ULL << 30;

	(void)state;
	/* 24 GiB, 21 available: (21 - 4.8) GiB at 4 GiB/s is over 4 s: the cap */
	assert_int_equal(scope_meminfo_wait_usec(24 * gib, 21 * gib, 0),
			 SCOPE_MEMINFO_MAX_WAIT_USEC);
	/* 2 GiB, 1.6 available: 1.2 GiB at 4 GiB/s, 0.3 s */
	assert_int_equal(scope_meminfo_wait_usec(2 * gib, 16 * gib / 10, 0) / 1000, 300);
	/* a fall of 16 GiB/s seen: a quarter of that */
	assert_int_equal(scope_meminfo_wait_usec(2 * gib, 16 * gib / 10, 16 * gib) / 1000, 75);
	/* at twice the arming share or under: every round */
	assert_int_equal(scope_meminfo_wait_usec(24 * gib, 24 * gib / 5, 0), 0);
	assert_int_equal(scope_meminfo_wait_usec(24 * gib, 0, 0), 0);
	assert_true(scope_meminfo_wait_usec(24 * gib, 24 * gib / 5 + 4096, 0) < 10);
	/* a host of 64 TiB, all of it available: no overflow; the cap, or next to nothing at the
	 * largest drain there is */
	assert_int_equal(scope_meminfo_wait_usec(64ULL << 40, 64ULL << 40, 0),
			 SCOPE_MEMINFO_MAX_WAIT_USEC);
	assert_true(scope_meminfo_wait_usec(64ULL << 40, 64ULL << 40, UINT64_MAX) < 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_machine),
	    cmocka_unit_test(test_resolved),
	    cmocka_unit_test(test_v2_group),
	    cmocka_unit_test(test_v1_group),
	    cmocka_unit_test(test_v1_gate),
	    cmocka_unit_test(test_v1_pressure_events),
	    cmocka_unit_test(test_v2_events_watch),
	    cmocka_unit_test(test_machine_gate),
	    cmocka_unit_test(test_meminfo_wait),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
