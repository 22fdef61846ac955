// SPDX-License-Identifier: GPL-2.0-only
/* progress_round(), table-driven: every field of the result for each rule, at each bound and
 * one step either side of it. The v1 deltas are measurements on this machine
 * (docs/daemon-design.md): a thrashing v1 group refaults ~200 pages per 100 ms with failcnt 0-1;
 * healthy page-cache reclaim fails ~150 charges per 100 ms and refaults none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "policy/progress.h"

#define SEC 1000000

/* The defaults, and bounds of our own to show that the params are used. */
static const struct progress_params defaults = {PROGRESS_STALL_BOUND_PERMILLE,
						PROGRESS_REFAULT_MIN_PAGES};
static const struct progress_params bound500 = {500, PROGRESS_REFAULT_MIN_PAGES};
static const struct progress_params min1024 = {PROGRESS_STALL_BOUND_PERMILLE, 1024};

/* The reasons, as progress.c words them for the log. */
#define QUIET  "no stalled allocation"
#define PARKED "tasks parked under_oom"
#define STALL  "stall over bound"
#define HELD   "refaults near the bound: count held"
#define STAYED "reclaim stayed"
#define UNDONE "reclaim undone by refaults"

struct progress_case {
	const char *name;
	struct round_sample s;
	const struct progress_params *p;
	struct round_result want;
};

/*
 * s:    interval, stall events, stall usec, has stall usec, reclaimed, has reclaimed, refaulted,
 *       file pages, parked
 * p:    the params
 * want: is_round, progress, hold, net_reclaimed, reclaimed_pages, reason
 * v1 bounds: file 13825 pages -> bound 1728, half 864; file 38000 -> bound 4750, half 2375;
 * file 0 -> the floor, refault_min_pages (256, half 128).
 */
static const struct progress_case cases[] = {
    /* 1. Parked tasks: a round without progress, whatever else the counters say. */
    {"parked",
     {SEC, 0, 0, false, 0, false, 0, 0, true},
     &defaults,
     {true, false, false, 0, 0, PARKED}},
    {"parked beside reclaim and stall",
     {SEC, 3, 900000, true, 5000, true, 0, 0, true},
     &defaults,
     {true, false, false, 0, 0, PARKED}},
    {"parked beside v1 refaults",
     {SEC, 7, 0, false, 0, false, 3680, 38000, true},
     &defaults,
     {true, false, false, 0, 0, PARKED}},

    /* 2. No stalled allocation and refaults under the floor: not a round. */
    {"quiet",
     {SEC, 0, 0, true, 0, true, 0, 0, false},
     &defaults,
     {false, false, false, 0, 0, QUIET}},
    {"quiet, reclaim without stall",
     {SEC, 0, 0, true, 5000, true, 0, 0, false},
     &defaults,
     {false, false, false, 0, 0, QUIET}},
    {"refault trickle",
     {SEC, 0, 0, false, 0, false, 255, 13825, false},
     &defaults,
     {false, false, false, 0, 0, QUIET}},
    {"refaults at the floor",
     {SEC, 0, 0, false, 0, false, 256, 13825, false},
     &defaults,
     {true, true, false, 1, 0, STAYED}},
    {"refault floor from params",
     {SEC, 0, 0, false, 0, false, 1023, 13825, false},
     &min1024,
     {false, false, false, 0, 0, QUIET}},
    {"one stall, no refault",
     {SEC, 1, 0, false, 0, false, 0, 13825, false},
     &defaults,
     {true, true, false, 1, 0, STAYED}},

    /* 3. PSI some over the bound: no progress, whatever was freed. */
    {"machine stall over bound",
     {SEC, 3, 600001, true, 5000, true, 0, 0, false},
     &defaults,
     {true, false, false, 5000, 5000, STALL}},
    {"machine stall at bound",
     {SEC, 3, 600000, true, 5000, true, 0, 0, false},
     &defaults,
     {true, true, false, 5000, 5000, STAYED}},
    {"stall bound from params",
     {SEC, 3, 500001, true, 5000, true, 0, 0, false},
     &bound500,
     {true, false, false, 5000, 5000, STALL}},
    {"stall at params' bound",
     {SEC, 3, 500000, true, 5000, true, 0, 0, false},
     &bound500,
     {true, true, false, 5000, 5000, STAYED}},
    {"stall not measured",
     {SEC, 3, 900000, false, 5000, true, 0, 0, false},
     &defaults,
     {true, true, false, 5000, 5000, STAYED}},
    {"stall over an empty interval",
     {0, 3, 5, true, 5000, true, 0, 0, false},
     &defaults,
     {true, true, false, 5000, 5000, STAYED}},
    {"100 ms interval, stall over bound",
     {100000, 3, 60001, true, 5000, true, 4000, 0, false},
     &defaults,
     {true, false, false, 1000, 5000, STALL}},
    {"v1 stall over bound",
     {SEC, 5, 700000, true, 0, false, 3000, 38000, false},
     &defaults,
     {true, false, false, 0, 0, STALL}},

    /* 4. With a reclaim counter: reclaimed minus refaulted, progress when positive. */
    {"machine healthy",
     {SEC, 3, 20000, true, 5000, true, 100, 0, false},
     &defaults,
     {true, true, false, 4900, 5000, STAYED}},
    {"machine one page stays",
     {SEC, 3, 20000, true, 5001, true, 5000, 0, false},
     &defaults,
     {true, true, false, 1, 5001, STAYED}},
    {"machine refaults all",
     {SEC, 3, 20000, true, 5000, true, 5000, 0, false},
     &defaults,
     {true, false, false, 0, 5000, UNDONE}},
    {"machine refaults more than reclaimed",
     {SEC, 3, 20000, true, 100, true, 5000, 0, false},
     &defaults,
     {true, false, false, 0, 100, UNDONE}},
    {"machine stalls, nothing reclaimed",
     {SEC, 40, 20000, true, 0, true, 0, 0, false},
     &defaults,
     {true, false, false, 0, 0, UNDONE}},

    /* 4. Without (v1): refaults against max(floor, file / PROGRESS_REFAULT_FILE_DIV). */
    /* Measured: 256 MiB group, 200 MiB anon, a 64 MiB file reread at 16 MB/s. */
    {"v1 thrash",
     {SEC, 7, 0, false, 0, false, 3584, 13825, false},
     &defaults,
     {true, false, false, 0, 0, UNDONE}},
    {"v1 thrash, no failcnt",
     {SEC, 0, 0, false, 0, false, 2048, 13825, false},
     &defaults,
     {true, false, false, 0, 0, UNDONE}},
    /* A failcnt burst (charges retried while reclaim fails) is no reclaim to count. */
    {"v1 thrash, failcnt burst",
     {SEC, 886, 0, false, 0, false, 5632, 13825, false},
     &defaults,
     {true, false, false, 0, 0, UNDONE}},
    /* Measured: writer + streaming reader + 100 MiB anon in 256 MiB. */
    {"v1 healthy",
     {SEC, 1500, 0, false, 0, false, 0, 38000, false},
     &defaults,
     {true, true, false, 1, 0, STAYED}},
    /* Healthy with stale shadow entries (a file evicted long before is read again): held. */
    {"v1 stale refaults",
     {SEC, 1860, 0, false, 0, false, 3680, 38000, false},
     &defaults,
     {true, false, true, 0, 0, HELD}},
    {"v1 under half the bound",
     {SEC, 5, 0, false, 0, false, 2374, 38000, false},
     &defaults,
     {true, true, false, 1, 0, STAYED}},
    {"v1 at half the bound",
     {SEC, 5, 0, false, 0, false, 2375, 38000, false},
     &defaults,
     {true, false, true, 0, 0, HELD}},
    {"v1 under the bound",
     {SEC, 5, 0, false, 0, false, 4749, 38000, false},
     &defaults,
     {true, false, true, 0, 0, HELD}},
    {"v1 at the bound",
     {SEC, 5, 0, false, 0, false, 4750, 38000, false},
     &defaults,
     {true, false, false, 0, 0, UNDONE}},
    /* A v1 scope has no reclaim counter: a figure in the sample is not used. */
    {"v1 reclaim figure ignored",
     {SEC, 5, 0, false, 9000, false, 0, 38000, false},
     &defaults,
     {true, true, false, 1, 0, STAYED}},
    {"v1 reclaim figure ignored, refaults",
     {SEC, 5, 0, false, 9000, false, 4750, 38000, false},
     &defaults,
     {true, false, false, 0, 0, UNDONE}},
    /* A small file LRU: the floor is the bound (file / 8 alone would be 0). */
    {"v1 small file, under half the floor",
     {SEC, 5, 0, false, 0, false, 127, 0, false},
     &defaults,
     {true, true, false, 1, 0, STAYED}},
    {"v1 small file, at half the floor",
     {SEC, 5, 0, false, 0, false, 128, 0, false},
     &defaults,
     {true, false, true, 0, 0, HELD}},
    {"v1 small file, at the floor",
     {SEC, 5, 0, false, 0, false, 256, 2047, false},
     &defaults,
     {true, false, false, 0, 0, UNDONE}},
    {"v1 floor from params",
     {SEC, 5, 0, false, 0, false, 600, 0, false},
     &min1024,
     {true, false, true, 0, 0, HELD}},
};

#define NR_CASES (sizeof(cases) / sizeof(cases[0]))

/* One cmocka test per row: the row arrives as the test's state. */
static void test_progress_case(void **state)
{
	const struct progress_case *c = *state;
	const struct round_result *w = &c->want;
	struct round_result r;

	memset(&r, 0xa5, sizeof(r)); /* a field progress_round() forgets shows */
	progress_round(&c->s, c->p, &r);
	if (r.is_round != w->is_round || r.progress != w->progress || r.hold != w->hold ||
	    r.net_reclaimed != w->net_reclaimed || r.reclaimed_pages != w->reclaimed_pages ||
	    !r.reason || strcmp(r.reason, w->reason))
		fail_msg("case '%s': got round %d progress %d hold %d net %lu reclaimed %lu (%s), "
			 "want round %d progress %d hold %d net %lu reclaimed %lu (%s)",
			 c->name, r.is_round, r.progress, r.hold, (unsigned long)r.net_reclaimed,
			 (unsigned long)r.reclaimed_pages, r.reason ? r.reason : "no reason",
			 w->is_round, w->progress, w->hold, (unsigned long)w->net_reclaimed,
			 (unsigned long)w->reclaimed_pages, w->reason);
}

int main(void)
{
	struct CMUnitTest tests[NR_CASES];

	for (size_t i = 0; i < NR_CASES; i++)
		tests[i] = (struct CMUnitTest){.name = cases[i].name,
					       .test_func = test_progress_case,
					       .initial_state = (void *)&cases[i]};
	return _cmocka_run_group_tests("progress", tests, NR_CASES, NULL, NULL);
}
