// SPDX-License-Identifier: GPL-2.0-only
/* When the loop chooses a victim ahead of the verdict (arm_decide) and when a listing leaves
 * new processes out (listing_known_only): both pure, on hand-made scopes. And when the v1 root
 * group's vmpressure may stand in for PSI (lru_gen_enabled, on a temporary tree). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/daemon.h"

#define MIB (1024ull * 1024)

/* A group of 1000 MiB with @used MiB used, @loops rounds without progress. */
static struct scope group(uint64_t used_mib, int loops)
{
	struct scope s;

	memset(&s, 0, sizeof(s));
	s.kind = SCOPE_CGROUP_V1;
	s.cur.limit_bytes = 1000 * MIB;
	s.cur.usage_bytes = used_mib * MIB;
	s.decision.no_progress_loops = loops;
	return s;
}

/* arm_decide() on scope @s holding candidate @c (a pidfd >= 0: one is held). */
static enum arm_action decide_with(struct scope s, struct candidate c, uint64_t now)
{
	s.cand = c;
	return arm_decide(&s, now);
}

static void test_arm_decide(void **state)
{
	const uint64_t now = 100000000;
	/* The pidfds are never used: any descriptor number says "held". */
	struct candidate none = {.pidfd = -1}, fresh = {.pidfd = 3, .time_usec = now - 10000},
			 old = {.pidfd = 3, .time_usec = now - CANDIDATE_REFRESH_USEC},
			 stale = {.pidfd = 3, .time_usec = now - CANDIDATE_MAX_AGE_USEC - 1};
	struct scope calm = group(500, 0), pressed = group(500, CANDIDATE_ARM_LOOPS),
		     near = group(901, 0), edge = group(899, 0);

	(void)state;
	/* Nothing to fear: nothing chosen, and a candidate is kept until it is stale. */
	assert_int_equal(decide_with(calm, none, now), ARM_KEEP);
	assert_int_equal(decide_with(calm, fresh, now), ARM_KEEP);
	assert_int_equal(decide_with(calm, old, now), ARM_KEEP);
	assert_int_equal(decide_with(calm, stale, now), ARM_DROP);
	/* The first round without progress chooses; a fresh choice is kept, an old one renewed. */
	assert_int_equal(decide_with(pressed, none, now), ARM_CHOOSE);
	assert_int_equal(decide_with(pressed, fresh, now), ARM_KEEP);
	assert_int_equal(decide_with(pressed, old, now), ARM_CHOOSE);
	assert_int_equal(decide_with(pressed, stale, now), ARM_CHOOSE);
	/* Under SCOPE_NEAR_LIMIT_FREE_PERMILLE (10 %) left, even with progress. */
	assert_int_equal(decide_with(near, none, now), ARM_CHOOSE);
	assert_int_equal(decide_with(near, fresh, now), ARM_KEEP);
	assert_int_equal(decide_with(edge, none, now), ARM_KEEP);
	/* A scope never read (limit 0) is not near anything. */
	assert_int_equal(decide_with((struct scope){0}, none, now), ARM_KEEP);
}

static void test_listing_known_only(void **state)
{
	struct scope m = group(0, 0), g = group(999, 5);

	(void)state;
	m.kind = SCOPE_MACHINE;
	m.sample.interval_usec = 100000;
	m.sample.stall_usec = 10000; /* 10 %: not above */
	assert_false(listing_known_only(&m));
	m.sample.stall_usec = 10001;
	assert_true(listing_known_only(&m));
	m.sample.stall_usec = 0;
	m.decision.no_progress_loops = 1;
	assert_true(listing_known_only(&m));
	m.decision.no_progress_loops = 0;
	m.sample.interval_usec = 0; /* no interval measured yet: no stall share */
	m.sample.stall_usec = 5000;
	assert_false(listing_known_only(&m));
	/* A group, however pressed: oomguard's opens are not charged to it. */
	g.sample.interval_usec = 100000;
	g.sample.stall_usec = 100000;
	assert_false(listing_known_only(&g));
	g.kind = SCOPE_CGROUP_V2;
	assert_false(listing_known_only(&g));
}

/* The fit's case: a known_only listing left the job out, and the writer and the daemons it
 * listed hold a sliver of the anon + swap in use: listed again in full. A flood's eaters, all
 * listed, hold most of it: the listing stands. */
static void test_listing_misses_demand(void **state)
{
	struct scope m = group(0, 0);
	struct oom_task t[3] = {{.pid = 327, .rss_pages = 1008}, {.pid = 216, .rss_pages = 400},
				{.pid = 1, .rss_pages = 3000, .swap_pages = 100}};

	(void)state;
	m.kind = SCOPE_MACHINE;
	m.page_shift = 12;
	m.cur.anon_bytes = 1200ULL << 20; /* 307200 pages */
	m.cur.swap_bytes = 600ULL << 20;  /* 153600 */
	assert_true(listing_misses_demand(&m, t, 3, 0));
	t[0].rss_pages = 200000; /* the job listed: 203500 of 460800 pages */
	assert_true(listing_misses_demand(&m, t, 3, 0));
	t[0].swap_pages = 30000; /* 233500: over half */
	assert_false(listing_misses_demand(&m, t, 3, 0));
	assert_true(listing_misses_demand(&m, t, 0, 0)); /* nothing listed, memory in use */
	/* a large host's listing: what it left out by rank holds the rest */
	assert_false(listing_misses_demand(&m, t, 0, 233500));
	assert_true(listing_misses_demand(&m, t, 0, 230399));
	m.cur.anon_bytes = m.cur.swap_bytes = 0; /* nothing in use: nothing missed */
	assert_false(listing_misses_demand(&m, t, 0, 0));
}

/* Read through a kept descriptor: a rewrite of the file is seen by the next call, no reopen. */
static void test_lru_gen_enabled(void **state)
{
	char root[] = "/tmp/oomguard-test-lru-gen-XXXXXX", dir[128], file[160];
	const struct {
		const char *content;
		bool on;
	} cases[] = {
	    {"0x0007\n", true}, {"0x0001\n", true}, {"0x0000\n", false}, {"0x0006\n", false}};
	int fd = -1, kept;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(root));
	assert_false(lru_gen_enabled(&fd, root)); /* not built in: no file */
	assert_int_equal(fd, -1);
	snprintf(dir, sizeof(dir), "%s/sys/kernel/mm/lru_gen", root);
	snprintf(file, sizeof(file), "%s/enabled", dir);
	for (const char *p = dir + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		char part[128];

		snprintf(part, sizeof(part), "%.*s", (int)(p - dir), dir);
		mkdir(part, 0755);
	}
	assert_int_equal(mkdir(dir, 0755), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		f = fopen(file, "w"); /* the same file, truncated: the kept descriptor sees it */
		assert_non_null(f);
		fputs(cases[i].content, f);
		fclose(f);
		kept = fd;
		assert_int_equal(lru_gen_enabled(&fd, root), cases[i].on);
		assert_true(fd >= 0);
		if (i)
			assert_int_equal(fd, kept);
	}
	close(fd);
	unlink(file);
	for (int k = 0; k < 4; k++) { /* lru_gen, mm, kernel, sys */
		rmdir(dir);
		*strrchr(dir, '/') = '\0';
	}
	assert_int_equal(rmdir(root), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_arm_decide),
					   cmocka_unit_test(test_listing_known_only),
					   cmocka_unit_test(test_listing_misses_demand),
					   cmocka_unit_test(test_lru_gen_enabled)};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
