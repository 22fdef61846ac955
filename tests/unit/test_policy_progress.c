// SPDX-License-Identifier: GPL-2.0-only
/* progress_round(), table-driven: every field of the result for each rule, at each bound and
 * one step either side of it. Rows marked measured come from this machine
 * (docs/daemon-design.md "Thrashing"). */
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
						PROGRESS_REFAULT_MIN_PAGES, 0,
						PROGRESS_CPU_STALL_BOUND_PERMILLE};
static const struct progress_params bound500 = {500, PROGRESS_REFAULT_MIN_PAGES, 0,
						PROGRESS_CPU_STALL_BOUND_PERMILLE};
static const struct progress_params min1024 = {PROGRESS_STALL_BOUND_PERMILLE, 1024, 0,
					       PROGRESS_CPU_STALL_BOUND_PERMILLE};
/* Rule 5's exception off: every stall over the bound counts; and a CPU bound of our own. */
static const struct progress_params nocpu = {PROGRESS_STALL_BOUND_PERMILLE,
					     PROGRESS_REFAULT_MIN_PAGES, 0, 0};
static const struct progress_params cpu700 = {PROGRESS_STALL_BOUND_PERMILLE,
					      PROGRESS_REFAULT_MIN_PAGES, 0, 700};
/* A disk reading ahead 8 MiB (2048 pages): rooms under 6144 file pages are small. */
static const struct progress_params ra2048 = {PROGRESS_STALL_BOUND_PERMILLE,
					      PROGRESS_REFAULT_MIN_PAGES, 2048,
					      PROGRESS_CPU_STALL_BOUND_PERMILLE};

/* The reasons, as progress.c words them for the log. */
#define QUIET  "no stalled allocation"
#define PLENTY "free pages over twice the high watermarks"
#define PARKED "tasks parked under_oom"
#define STALL  "stall over bound"
#define THRASH "thrashing: reads are refaults"
#define HELD   "reads partly refaults: count held"
#define WBHELD "refaults beside a writer's dirty pages: count held"
#define RAHELD "refaults of read-ahead in a small room: count held"
#define RAPEND "refaults in a small room, their window not yet read: count pending"
#define STHELD "refaults long past, no task waits for reads: count held"
#define STAYED "reclaim stayed"
#define SPARED "stall over bound, but reclaim stayed and CPUs to spare"
#define UNDONE "reclaim undone by refaults"

/* The read share's verdicts, short. */
#define NO  THRASH_NONE
#define MIX THRASH_MIXED
#define YES THRASH_YES
#define WB  THRASH_WRITEBACK
#define RA  THRASH_READAHEAD
#define PEND THRASH_PENDING
#define STALE THRASH_STALE
#define CHEAP THRASH_CHEAP

struct progress_case {
	const char *name;
	struct round_sample s;
	const struct progress_params *p;
	struct round_result want;
};

/*
 * s:    interval, stall events, stall usec, has stall usec, reclaimed, has reclaimed, refaulted
 *       (the 1 s window), span usec, span refaulted, span read, parked, then (when given) the
 *       writeback peak of the last 3 s: dirty + writeback pages, file pages, pages written
 *       and refaulted in the last 3 s, file pages now, the long share's read and refaulted,
 *       the span's stall events, is_group, counts_writes, free_plenty, then the silence at the
 *       end (usec), the I/O stall over it and whether that is measured, the span's anon
 *       refaults, the window's I/O stall and whether that is measured, the anon + swap
 *       growth and whether that is measured, the last read-ahead window's reads and refaults,
 *       the CPU stall, the time it is over (its span) and whether it is measured
 * p:    the params
 * want: is_round, progress, hold, thrash, net_reclaimed, reclaimed_pages, reason
 * The read share (progress.h): thrashing at refaulted >= read / 2 with refaults per second over
 * the span (at least 1 s) >= refault_min_pages (256); clean under read / 8 or under half that
 * rate, or with fewer than PROGRESS_SPAN_PAGES (512) read; mixed in between.
 */
static const struct progress_case cases[] = {
    /* 1. Parked tasks: a round without progress, whatever else the counters say. */
    {"parked",
     {SEC, 0, 0, false, 0, false, 0, 0, 0, 0, true, 0, 0, 0, 0, 0, 0, 0, 0, false, false, false,
      0, 0, false, 0, 0, false, 0, false, 0, 0, 0, 0, false, false},
     &defaults,
     {true, false, false, NO, 0, 0, PARKED}},
    {"parked beside reclaim and stall",
     {SEC, 3, 900000, true, 5000, true, 0, 0, 0, 0, true, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 0, 0, 0, 0, false, false},
     &defaults,
     {true, false, false, NO, 0, 0, PARKED}},
    {"parked beside thrashing",
     {SEC, 7, 0, false, 0, false, 3680, SEC, 3680, 3680, true, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 3680, 3680, 0, 0, false, false},
     &defaults,
     {true, false, false, NO, 0, 0, PARKED}},

    /* 2. A machine with plenty free: not a round, whatever the counters say. Measured: the
     * machine flood after the kernel's kill, 466,216 pages free: 1,188 refaults in 200 ms,
     * nothing reclaimed, 49 pages dirtied; without the flag the span says thrashing. */
    {"machine after a kill, measured: plenty free",
     {SEC, 0, 812, true, 0, true, 1188, 200000, 1188, 1941, false, 69064, 100009, 49, 1188,
      100009, 0, 0, 0, false, true, true, 0, 0, false, 0, 0, false, 0, false, 1941, 1188, 0, 0, false, false},
     &defaults,
     {false, false, false, NO, 0, 0, PLENTY}},
    {"the same round without plenty free: thrashing",
     {SEC, 0, 812, true, 0, true, 1188, 200000, 1188, 1941, false, 69064, 100009, 49, 1188,
      100009, 0, 0, 0, false, true, false, 0, 0, false, 0, 0, false, 0, false, 1941, 1188, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    {"plenty free beside stalls: not a round",
     {SEC, 40, 700000, true, 0, true, 0, 0, 0, 0, false, 0, 0, 0, 0, 0, 0, 0, 0, false, true,
      true, 0, 0, false, 0, 0, false, 0, false, 0, 0, 0, 0, false, false},
     &defaults,
     {false, false, false, NO, 0, 0, PLENTY}},

    /* 2. No stalled allocation, refaults under the floor, no thrashing: not a round. */
    {"quiet",
     {SEC, 0, 0, true, 0, true, 0, 0, 0, 0, false, 0, 0, 0, 0, 0, 0, 0, 0, false, false, false,
      0, 0, false, 0, 0, false, 0, false, 0, 0, 0, 0, false, false},
     &defaults,
     {false, false, false, NO, 0, 0, QUIET}},
    {"quiet, reclaim without stall",
     {SEC, 0, 0, true, 5000, true, 0, 0, 0, 0, false, 0, 0, 0, 0, 0, 0, 0, 0, false, false,
      false, 0, 0, false, 0, 0, false, 0, false, 0, 0, 0, 0, false, false},
     &defaults,
     {false, false, false, NO, 0, 0, QUIET}},
    /* 2. Stalled with no new stall event: tasks inside one long direct reclaim (throttled on
     * writeback) count no allocstall, PSI counts their time. Measured in the machine's flood
     * without swap (s45-trace3): 1.2-1.3 s of memory stall a window, 0 allocstall, anon grown
     * by 20,000 pages and more in 3 s. On the machine, with anon growing: a round. */
    {"machine stuck in reclaim: stall, anon growing, no allocstall",
     {SEC, 0, 1281595, true, 8333, true, 120, 3 * SEC, 120, 300, false, 0, 0, 0, 360, 0, 0, 0, 0,
      false, true, false, 0, 0, false, 0, 0, false, 20806, true, 0, 0, 0, 0, false, false},
     &defaults,
     {true, false, false, NO, 8213, 8333, STALL}},
    {"the same at the growth's floor",
     {SEC, 0, 1281595, true, 8333, true, 120, 3 * SEC, 120, 300, false, 0, 0, 0, 360, 0, 0, 0, 0,
      false, true, false, 0, 0, false, 0, 0, false, 1024, true, 0, 0, 0, 0, false, false},
     &defaults,
     {true, false, false, NO, 8213, 8333, STALL}},
    {"the same under the growth's floor: not a round",
     {SEC, 0, 1281595, true, 8333, true, 120, 3 * SEC, 120, 300, false, 0, 0, 0, 360, 0, 0, 0, 0,
      false, true, false, 0, 0, false, 0, 0, false, 1023, true, 0, 0, 0, 0, false, false},
     &defaults,
     {false, false, false, NO, 0, 0, QUIET}},
    {"the same with anon flat (a stream, kswapd): not a round",
     {SEC, 0, 1281595, true, 8333, true, 120, 3 * SEC, 120, 300, false, 0, 0, 0, 360, 0, 0, 0, 0,
      false, true, false, 0, 0, false, 0, 0, false, 0, true, 0, 0, 0, 0, false, false},
     &defaults,
     {false, false, false, NO, 0, 0, QUIET}},
    {"the same stall under the bound: not a round",
     {SEC, 0, 600000, true, 8333, true, 120, 3 * SEC, 120, 300, false, 0, 0, 0, 360, 0, 0, 0, 0,
      false, true, false, 0, 0, false, 0, 0, false, 20806, true, 0, 0, 0, 0, false, false},
     &defaults,
     {false, false, false, NO, 0, 0, QUIET}},
    {"the same stall over the bound by a microsecond: a round",
     {SEC, 0, 600001, true, 8333, true, 120, 3 * SEC, 120, 300, false, 0, 0, 0, 360, 0, 0, 0, 0,
      false, true, false, 0, 0, false, 0, 0, false, 20806, true, 0, 0, 0, 0, false, false},
     &defaults,
     {true, false, false, NO, 8213, 8333, STALL}},
    {"the same in a group: not a round",
     {SEC, 0, 1281595, true, 8333, true, 120, 3 * SEC, 120, 300, false, 0, 0, 0, 360, 0, 0, 0, 0,
      true, true, false, 0, 0, false, 0, 0, false, 20806, true, 0, 0, 0, 0, false, false},
     &defaults,
     {false, false, false, NO, 0, 0, QUIET}},
    {"refault trickle",
     {SEC, 0, 0, false, 0, false, 255, 3 * SEC, 255, 40000, false, 0, 0, 0, 0, 0, 0, 0, 0,
      false, false, false, 0, 0, false, 0, 0, false, 0, false, 40000, 255, 0, 0, false, false},
     &defaults,
     {false, false, false, NO, 0, 0, QUIET}},
    {"refaults at the floor, clean share",
     {SEC, 0, 0, false, 0, false, 256, SEC, 256, 40000, false, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 40000, 256, 0, 0, false, false},
     &defaults,
     {true, true, false, NO, 1, 0, STAYED}},
    {"refault floor from params",
     {SEC, 0, 0, false, 0, false, 1023, SEC, 1023, 40000, false, 0, 0, 0, 0, 0, 0, 0, 0,
      false, false, false, 0, 0, false, 0, 0, false, 0, false, 40000, 1023, 0, 0, false, false},
     &min1024,
     {false, false, false, NO, 0, 0, QUIET}},
    {"one stall, no refault",
     {SEC, 1, 0, false, 0, false, 0, SEC, 0, 9000, false, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 9000, 0, 0, 0, false, false},
     &defaults,
     {true, true, false, NO, 1, 0, STAYED}},
    /* A slow disk between two readahead batches: no refault in the window, the span's share
     * still says thrashing: a round, without progress. */
    {"thrash between batches",
     {SEC, 0, 0, false, 0, false, 0, 2 * SEC, 2048, 2048, false, 0, 0, 0, 0, 0, 0, 0, 0,
      false, false, false, 0, 0, false, 0, 0, false, 0, false, 2048, 2048, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    /* The same, measured between batches: 1.5 s without a read or a refault, the tasks
     * waiting for reads all of it (PSI io 1.5 s): still thrashing. */
    {"thrash between batches, tasks wait for reads",
     {SEC, 0, 0, false, 0, false, 0, 2 * SEC, 2048, 2048, false, 0, 0, 0, 0, 0, 0, 0, 0,
      false, false, false, 1500000, 1500000, true, 0, 0, false, 0, false, 2048, 2048, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    /* Refaults long past (progress.h): silence of PROGRESS_SILENCE_MIN_USEC or more with I/O
     * stall under half of it holds a share that says thrashing; shorter, more I/O stall, or
     * unmeasured, it is thrashing. */
    {"silence, nobody waits for reads: held",
     {SEC, 0, 0, false, 0, false, 0, 2 * SEC, 2048, 2048, false, 0, 0, 0, 0, 0, 0, 0, 0,
      false, false, false, 200000, 0, true, 0, 0, false, 0, false, 2048, 2048, 0, 0, false, false},
     &defaults,
     {true, false, true, STALE, 0, 0, STHELD}},
    {"silence one step too short",
     {SEC, 0, 0, false, 0, false, 0, 2 * SEC, 2048, 2048, false, 0, 0, 0, 0, 0, 0, 0, 0,
      false, false, false, 199999, 0, true, 0, 0, false, 0, false, 2048, 2048, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    {"silence, I/O stall one step under half",
     {SEC, 0, 0, false, 0, false, 0, 2 * SEC, 2048, 2048, false, 0, 0, 0, 0, 0, 0, 0, 0,
      false, false, false, 1000000, 499999, true, 0, 0, false, 0, false, 2048, 2048, 0, 0, false, false},
     &defaults,
     {true, false, true, STALE, 0, 0, STHELD}},
    {"silence, I/O stall half of it",
     {SEC, 0, 0, false, 0, false, 0, 2 * SEC, 2048, 2048, false, 0, 0, 0, 0, 0, 0, 0, 0,
      false, false, false, 1000000, 500000, true, 0, 0, false, 0, false, 2048, 2048, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    {"silence, I/O stall unmeasured",
     {SEC, 0, 0, false, 0, false, 0, 2 * SEC, 2048, 2048, false, 0, 0, 0, 0, 0, 0, 0, 0,
      false, false, false, 1000000, 0, false, 0, 0, false, 0, false, 2048, 2048, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    /* Measured (bench/machine, leak with zram, the round before the kill): 1,107 swap-ins in
     * a span of 1.8 s, the last 0.9 s silent; PSI memory 69 us in the window. */
    {"machine: swap-ins long past",
     {SEC, 0, 69, true, 0, true, 36, 1819000, 1107, 1107, false, 0, 0, 0, 1107, 0, 0, 0, 0,
      false, true, false, 900000, 0, true, 0, 0, false, 0, false, 1107, 1107, 0, 0, false, false},
     &defaults,
     {true, false, true, STALE, 0, 0, STHELD}},
    /* A memory stall over the bound is no silence to hold on. */
    {"machine: stale share, memory stalled",
     {SEC, 0, 700000, true, 0, true, 36, 1819000, 1107, 1107, false, 0, 0, 0, 1107, 0, 0, 0, 0,
      false, true, false, 900000, 0, true, 0, 0, false, 0, false, 1107, 1107, 0, 0, false, false},
     &defaults,
     {true, false, false, STALE, 0, 0, STALL}},
    /* Swap-ins that wait for no I/O (progress.h): measured (bench/machine, leak with zram,
     * s8-b): 3,191 refaults in 2.9 s, all anon, I/O stall 0, memory stall 217 ms. Judged by
     * stall and net reclaim; at half anon or more and I/O stall under half the window. */
    {"machine: swap-ins that wait for no I/O",
     {SEC, 0, 217069, true, 7700, true, 585, 2898000, 3191, 0, false, 512, 73275, 0, 3191, 0, 0, 0,
      0, false, true, false, 0, 0, true, 3191, 0, true, 0, false, 0, 3191, 0, 0, false, false},
     &defaults,
     {true, true, false, CHEAP, 7115, 7700, STAYED}},
    {"swap-ins, I/O stall one step under half",
     {SEC, 0, 217069, true, 7700, true, 585, 2898000, 3191, 0, false, 512, 73275, 0, 3191, 0, 0, 0,
      0, false, true, false, 0, 0, true, 3191, 499999, true, 0, false, 0, 3191, 0, 0, false, false},
     &defaults,
     {true, true, false, CHEAP, 7115, 7700, STAYED}},
    {"swap-ins, I/O stall half the window",
     {SEC, 0, 217069, true, 7700, true, 585, 2898000, 3191, 0, false, 512, 73275, 0, 3191, 0, 0, 0,
      0, false, true, false, 0, 0, true, 3191, 500000, true, 0, false, 0, 3191, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 7700, THRASH}},
    {"refaults half anon",
     {SEC, 0, 217069, true, 7700, true, 585, 2898000, 3190, 0, false, 512, 73275, 0, 3190, 0, 0, 0,
      0, false, true, false, 0, 0, true, 1595, 0, true, 0, false, 0, 3190, 0, 0, false, false},
     &defaults,
     {true, true, false, CHEAP, 7115, 7700, STAYED}},
    {"refaults one page under half anon",
     {SEC, 0, 217069, true, 7700, true, 585, 2898000, 3190, 0, false, 512, 73275, 0, 3190, 0, 0, 0,
      0, false, true, false, 0, 0, true, 1594, 0, true, 0, false, 0, 3190, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 7700, THRASH}},
    {"swap-ins, I/O stall unmeasured",
     {SEC, 0, 217069, true, 7700, true, 585, 2898000, 3191, 0, false, 512, 73275, 0, 3191, 0, 0, 0,
      0, false, true, false, 0, 0, true, 3191, 0, false, 0, false, 0, 3191, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 7700, THRASH}},
    {"v1 group: swap-ins, no memory stall to judge by",
     {SEC, 0, 217069, false, 7700, false, 585, 2898000, 3191, 0, false, 512, 73275, 0, 3191, 0,
      0, 0, 4, true, false, false, 0, 0, true, 3191, 0, true, 0, false, 0, 3191, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    {"swap-ins, memory stalled over the bound",
     {SEC, 0, 700000, true, 7700, true, 585, 2898000, 3191, 0, false, 512, 73275, 0, 3191, 0, 0, 0,
      0, false, true, false, 0, 0, true, 3191, 0, true, 0, false, 0, 3191, 0, 0, false, false},
     &defaults,
     {true, false, false, CHEAP, 7115, 7700, STALL}},
    /* No stalled allocation, refaults under the floor: swap-ins that waited for no I/O
     * make no round by themselves. */
    {"swap-ins alone are no round",
     {SEC, 0, 217069, true, 7700, true, 100, 2898000, 3191, 0, false, 512, 73275, 0, 3191, 0, 0, 0,
      0, false, true, false, 0, 0, true, 3191, 0, true, 0, false, 0, 3191, 0, 0, false, false},
     &defaults,
     {false, false, false, CHEAP, 0, 0, QUIET}},
    /* Only a share that says thrashing is made stale: a clean one stays clean. */
    {"silence after clean reads",
     {SEC, 1, 0, false, 0, false, 0, SEC, 0, 9000, false, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 1000000, 0, true, 0, 0, false, 0, false, 9000, 0, 0, 0, false, false},
     &defaults,
     {true, true, false, NO, 1, 0, STAYED}},

    /* 3. Thrashing: no progress, whatever was reclaimed or stalled. Measured on this machine
     * (docs/daemon-design.md): 128 MiB group, 60 MiB anon, a 96 MiB file reread. */
    {"v1 thrash at 4 MiB/s",
     {SEC, 4, 0, false, 0, false, 2048, 1200000, 2048, 2048, false, 0, 0, 0, 0, 0, 0, 0, 0,
      false, false, false, 0, 0, false, 0, 0, false, 0, false, 2048, 2048, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    {"v1 thrash unthrottled",
     {SEC, 2900, 0, false, 0, false, 730000, 100000, 73000, 73100, false, 0, 0, 0, 0, 0, 0, 0,
      0, false, false, false, 0, 0, false, 0, 0, false, 0, false, 73100, 73000, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    {"machine thrash, reclaim ahead of refaults",
     {SEC, 40, 20000, true, 9000, true, 5000, 500000, 5000, 6000, false, 0, 0, 0, 0, 0, 0, 0,
      0, false, false, false, 0, 0, false, 0, 0, false, 0, false, 6000, 5000, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 9000, THRASH}},
    /* A group's refaults with no stall event in the span: the machine's reclaim evicted a group
     * below its limit (measured: one burst of 512 refaults of a working set that fits, 24 MiB
     * free, then none): no thrash (a round for its refaults, v1 counts no reclaim: progress,
     * as step 6 has it). One stall event in the span makes them the group's. */
    {"group: refaults, no stall in the span",
     {SEC, 0, 0, false, 0, false, 512, 200000, 512, 512, false, 0, 0, 0, 0, 0, 0, 0, 0, true,
      false, false, 0, 0, false, 0, 0, false, 0, false, 512, 512, 0, 0, false, false},
     &defaults,
     {true, true, false, NO, 1, 0, STAYED}},
    {"group: no refault in the round, none of the span's stalls",
     {SEC, 0, 0, false, 0, false, 0, 1700000, 512, 512, false, 0, 0, 0, 0, 0, 0, 0, 0, true,
      false, false, 0, 0, false, 0, 0, false, 0, false, 512, 512, 0, 0, false, false},
     &defaults,
     {false, false, false, NO, 0, 0, QUIET}},
    {"group: the same with one stall in the span",
     {SEC, 0, 0, false, 0, false, 512, 200000, 512, 512, false, 0, 0, 0, 0, 0, 0, 0, 1, true,
      false, false, 0, 0, false, 0, 0, false, 0, false, 512, 512, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    /* Or refaults that took the group to its limit, no charge failed yet (measured at 4 MiB/s,
     * 8 MiB read-ahead: the loop's first 512 refaults at its onset filled the 2.4 MiB its 80
     * MiB group had left, and its failed charges came 0.5 s later). */
    {"group: refaults, no stall in the span, but they filled the room left",
     {SEC, 0, 0, false, 0, false, 512, 200000, 512, 512, false, 0, 0, 0, 0, 0, 0, 0, 0, true,
      false, false, 0, 0, false, 0, 0, false, 0, false, 512, 512, 0, 0, false, true},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    {"group: slow disk between batches, the burst's stalls in the span",
     {SEC, 0, 0, false, 0, false, 0, 2 * SEC, 2048, 2048, false, 0, 0, 0, 0, 0, 0, 0, 4, true,
      false, false, 0, 0, false, 0, 0, false, 0, false, 2048, 2048, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    {"machine: refaults with no stall in the span are its own",
     {SEC, 0, 0, false, 0, false, 512, 200000, 512, 512, false, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 512, 512, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    {"share at the thrash bound",
     {SEC, 5, 0, false, 0, false, 500, SEC, 500, 1000, false, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 1000, 500, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    {"share under the thrash bound",
     {SEC, 5, 0, false, 0, false, 499, SEC, 499, 1000, false, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 1000, 499, 0, 0, false, false},
     &defaults,
     {true, false, true, MIX, 0, 0, HELD}},
    {"span at its minimum",
     {SEC, 0, 0, false, 0, false, 256, SEC, 256, 256, false, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 256, 256, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    {"span under its minimum",
     {SEC, 0, 0, false, 0, false, 200, SEC, 255, 255, false, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 255, 255, 0, 0, false, false},
     &defaults,
     {false, false, false, NO, 0, 0, QUIET}},
    {"refaults without counted reads (NFS)",
     {SEC, 0, 0, false, 0, false, 600, SEC, 600, 0, false, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 0, 600, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    {"rate at the floor over 2 s",
     {SEC, 0, 0, false, 0, false, 256, 2 * SEC, 512, 600, false, 0, 0, 0, 0, 0, 0, 0, 0,
      false, false, false, 0, 0, false, 0, 0, false, 0, false, 600, 512, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    {"rate under the floor over 2 s",
     {SEC, 0, 0, false, 0, false, 256, 2 * SEC, 511, 600, false, 0, 0, 0, 0, 0, 0, 0, 0,
      false, false, false, 0, 0, false, 0, 0, false, 0, false, 600, 511, 0, 0, false, false},
     &defaults,
     {true, false, true, MIX, 0, 0, HELD}},
    {"short span counts as 1 s",
     {SEC, 0, 0, false, 0, false, 5120, 100000, 512, 512, false, 0, 0, 0, 0, 0, 0, 0, 0,
      false, false, false, 0, 0, false, 0, 0, false, 0, false, 512, 512, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    {"refaults beyond counted reads",
     {SEC, 0, 0, false, 0, false, 600, SEC, 600, 100, false, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 100, 600, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    {"half a second counts as 1 s",
     {SEC, 0, 0, false, 0, false, 600, 500000, 600, 600, false, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 600, 600, 0, 0, false, false},
     &min1024,
     {true, false, true, MIX, 0, 0, HELD}},
    {"rate floor from params",
     {SEC, 0, 0, false, 0, false, 1000, SEC, 1000, 1000, false, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 1000, 1000, 0, 0, false, false},
     &min1024,
     {true, false, true, MIX, 0, 0, HELD}},

    /* 4. Mixed: held. Clean at refaulted < read / 8 or under half the rate floor. */
    {"share at the clean bound",
     {SEC, 5, 0, false, 0, false, 500, SEC, 500, 4000, false, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 4000, 500, 0, 0, false, false},
     &defaults,
     {true, false, true, MIX, 0, 0, HELD}},
    {"share under the clean bound",
     {SEC, 5, 0, false, 0, false, 499, SEC, 499, 4000, false, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 4000, 499, 0, 0, false, false},
     &defaults,
     {true, true, false, NO, 1, 0, STAYED}},
    {"rate at half the floor over 3 s",
     {SEC, 5, 0, false, 0, false, 128, 3 * SEC, 384, 512, false, 0, 0, 0, 0, 0, 0, 0, 0,
      false, false, false, 0, 0, false, 0, 0, false, 0, false, 512, 384, 0, 0, false, false},
     &defaults,
     {true, false, true, MIX, 0, 0, HELD}},
    {"rate under half the floor over 3 s",
     {SEC, 5, 0, false, 0, false, 128, 3 * SEC, 383, 512, false, 0, 0, 0, 0, 0, 0, 0, 0,
      false, false, false, 0, 0, false, 0, 0, false, 0, false, 512, 383, 0, 0, false, false},
     &defaults,
     {true, true, false, NO, 1, 0, STAYED}},
    {"machine mixed, reclaim held too",
     {SEC, 5, 0, true, 9000, true, 300, SEC, 300, 1000, false, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 1000, 300, 0, 0, false, false},
     &defaults,
     {true, false, true, MIX, 8700, 9000, HELD}},
    /* A mixed share does not hold against PSI over the bound. Measured: the machine flood
     * (bench/machine), a round of the 2 s before the first kill: PSI some 938 ms of the last
     * second, 512 refaults of 485 pages read over 2.9 s, 232 pages dirtied. */
    {"machine flood, measured: mixed, PSI over bound: no progress",
     {SEC, 53, 937796, true, 43663, true, 512, 2944000, 512, 485, false, 0, 0, 232, 512, 0, 0,
      0, 53, false, true, false, 0, 0, false, 0, 0, false, 0, false, 485, 512, 0, 0, false, false},
     &defaults,
     {true, false, false, MIX, 43151, 43663, STALL}},
    {"mixed, PSI at the bound: held",
     {SEC, 53, 600000, true, 43663, true, 512, 2944000, 512, 485, false, 0, 0, 232, 512, 0, 0,
      0, 53, false, true, false, 0, 0, false, 0, 0, false, 0, false, 485, 512, 0, 0, false, false},
     &defaults,
     {true, false, true, MIX, 43151, 43663, HELD}},
    /* Nor does a writer's churn (progress.h rule 4): measured in bench/machine's flood with
     * zram (s8-dbg), rounds held for the writers' pages with PSI some at 95-100 % put 4.5 s
     * between two kills and the probe froze 12 s. */
    {"writes as many as refaults, PSI over the bound: no progress",
     {SEC, 53, 937796, true, 43663, true, 512, 2944000, 512, 485, false, 0, 0, 512, 512, 0, 0,
      0, 53, false, true, false, 0, 0, false, 0, 0, false, 0, false, 485, 512, 0, 0, false, false},
     &defaults,
     {true, false, false, WB, 43151, 43663, STALL}},
    {"writes as many as refaults, PSI at the bound: held",
     {SEC, 53, 600000, true, 43663, true, 512, 2944000, 512, 485, false, 0, 0, 512, 512, 0, 0,
      0, 53, false, true, false, 0, 0, false, 0, 0, false, 0, false, 485, 512, 0, 0, false, false},
     &defaults,
     {true, false, true, WB, 43151, 43663, WBHELD}},

    /* 4b. Refaults beside a writer's dirty pages (dirty + writeback >= file / 4 in some round
     * of the last 3 s): held, whatever the share. Measured: a 25 MiB rereader beside 218 MiB
     * of anon in a 256 MiB group, a writer streaming through it: 8704 file pages, 7168 dirty
     * + writeback at the peak, 10,000 refaults and reads per 2.5 s. */
    {"v1 churn, measured",
     {SEC, 9, 0, false, 0, false, 4000, 200000, 3758, 3758, false, 7168, 8704, 0, 0, 0, 0, 0,
      0, false, false, false, 0, 0, false, 0, 0, false, 0, false, 3758, 3758, 0, 0, false, false},
     &defaults,
     {true, false, true, WB, 0, 0, WBHELD}},
    {"writeback at a quarter of the file pages",
     {SEC, 4, 0, false, 0, false, 2048, 1200000, 2048, 2048, false, 1000, 4000, 0, 0, 0, 0, 0,
      0, false, false, false, 0, 0, false, 0, 0, false, 0, false, 2048, 2048, 0, 0, false, false},
     &defaults,
     {true, false, true, WB, 0, 0, WBHELD}},
    {"writeback under a quarter: thrashing",
     {SEC, 4, 0, false, 0, false, 2048, 1200000, 2048, 2048, false, 999, 4000, 0, 0, 0, 0, 0,
      0, false, false, false, 0, 0, false, 0, 0, false, 0, false, 2048, 2048, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    {"writeback beside a mixed share: held as writeback",
     {SEC, 5, 0, false, 0, false, 500, SEC, 500, 4000, false, 3000, 4000, 0, 0, 0, 0, 0, 0,
      false, false, false, 0, 0, false, 0, 0, false, 0, false, 4000, 500, 0, 0, false, false},
     &defaults,
     {true, false, true, WB, 0, 0, WBHELD}},
    {"writeback beside a clean share: the rule runs",
     {SEC, 5, 0, false, 0, false, 499, SEC, 499, 4000, false, 3000, 4000, 0, 0, 0, 0, 0, 0,
      false, false, false, 0, 0, false, 0, 0, false, 0, false, 4000, 499, 0, 0, false, false},
     &defaults,
     {true, true, false, NO, 1, 0, STAYED}},
    {"writeback beside a stream: clean",
     {SEC, 0, 0, false, 0, false, 0, SEC, 0, 40000, false, 4000, 4000, 0, 0, 0, 0, 0, 0,
      false, false, false, 0, 0, false, 0, 0, false, 0, false, 40000, 0, 0, 0, false, false},
     &defaults,
     {false, false, false, NO, 0, 0, QUIET}},
    /* Where writes are counted (v2 io.stat, machine nr_dirtied): written >= refaulted in the
     * last 3 s. */
    {"v2 churn: written as many as refaulted",
     {SEC, 9, 0, false, 0, false, 4000, 200000, 3758, 3758, false, 0, 8704, 12000, 12000, 0,
      0, 0, 0, false, false, false, 0, 0, false, 0, 0, false, 0, false, 3758, 3758, 0, 0, false, false},
     &defaults,
     {true, false, true, WB, 0, 0, WBHELD}},
    {"v2 thrash beside a logger: written under refaulted",
     {SEC, 9, 0, false, 0, false, 4000, 200000, 3758, 3758, false, 0, 8704, 11999, 12000, 0,
      0, 0, 0, false, false, false, 0, 0, false, 0, 0, false, 0, false, 3758, 3758, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    {"writes without refaults: the share decides",
     {SEC, 5, 0, false, 0, false, 0, SEC, 0, 40000, false, 0, 0, 90000, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 40000, 0, 0, 0, false, false},
     &defaults,
     {true, true, false, NO, 1, 0, STAYED}},
    {"v2 without io.stat: writeback holds what reclaim would count",
     {SEC, 40, 20000, true, 9000, true, 5000, 500000, 5000, 6000, false, 30000, 100000, 0, 0,
      0, 0, 0, 0, false, false, false, 0, 0, false, 0, 0, false, 0, false, 6000, 5000, 0, 0, false, false},
     &defaults,
     {true, false, true, WB, 4000, 9000, WBHELD}},
    /* Where writes are counted, the dirty gauge holds only beside a writer that still writes
     * (rows above). Measured: the machine flood (bench/machine, 2 GiB guest): the file LRU
     * shrunk to 4,222 pages, 4,186 of them dirty or under writeback, 37 pages dirtied in 3 s
     * against 2,044 refaults (under an eighth), free under min. */
    {"machine flood, measured: a dirty LRU, writes counted under refaults: thrashing",
     {SEC, 660, 1102000, true, 2525, true, 1141, 1118000, 1141, 1130, false, 4186, 4222, 37,
      2044, 4222, 0, 0, 660, false, true, false, 0, 0, false, 0, 0, false, 0, false, 1130, 1141, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 2525, THRASH}},
    {"the same round where writes are not counted (no PSI either, as v1): held",
     {SEC, 660, 1102000, false, 2525, true, 1141, 1118000, 1141, 1130, false, 4186, 4222, 37,
      2044, 4222, 0, 0, 660, false, false, false, 0, 0, false, 0, 0, false, 0, false, 1130, 1141, 0, 0, false, false},
     &defaults,
     {true, false, true, WB, 1384, 2525, WBHELD}},
    {"writes counted, as many as refaults, PSI under the bound: held",
     {SEC, 660, 502000, true, 2525, true, 1141, 1118000, 1141, 1130, false, 4186, 4222, 2044,
      2044, 4222, 0, 0, 660, false, true, false, 0, 0, false, 0, 0, false, 0, false, 1130, 1141, 0, 0, false, false},
     &defaults,
     {true, false, true, WB, 1384, 2525, WBHELD}},

    /* Where writes are counted the gauge holds beside a writer that writes at least 1/8 of
     * what is refaulted in 3 s (progress.h). Measured: tests/vm daemon-churn-v2 with
     * vm.dirty_ratio 80 and the group's writes at 8 MB/s (5 December). */
    {"v2 churn, measured: a slow writer's dirty pages fill the room: held",
     {SEC, 141, 481196, true, 5736, true, 3242, 202000, 1231, 962, false, 7142, 8784, 2886,
      10000, 8809, 0, 0, 141, true, true, false, 0, 0, false, 0, 354000, true, 0, false, 962, 1231, 0, 0, false, false},
     &defaults,
     {true, false, true, WB, 2494, 5736, WBHELD}},
    {"writes counted: dirty at a quarter, written at an eighth of the refaults: held",
     {SEC, 9, 0, false, 0, false, 4000, 200000, 3758, 3758, false, 2176, 8704, 1500, 12000, 0,
      0, 0, 9, true, true, false, 0, 0, false, 0, 0, false, 0, false, 3758, 3758, 0, 0, false, false},
     &defaults,
     {true, false, true, WB, 0, 0, WBHELD}},
    {"writes counted: written one under an eighth: thrashing",
     {SEC, 9, 0, false, 0, false, 4000, 200000, 3758, 3758, false, 2176, 8704, 1499, 12000, 0,
      0, 0, 9, true, true, false, 0, 0, false, 0, 0, false, 0, false, 3758, 3758, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    {"writes counted: dirty one under a quarter: thrashing",
     {SEC, 9, 0, false, 0, false, 4000, 200000, 3758, 3758, false, 2175, 8704, 1500, 12000, 0,
      0, 0, 9, true, true, false, 0, 0, false, 0, 0, false, 0, false, 3758, 3758, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    {"writes counted, a slow writer, PSI over the bound, demand not read: no progress",
     {SEC, 141, 600001, true, 5736, true, 3242, 202000, 1231, 962, false, 7142, 8784, 2886,
      10000, 8809, 0, 0, 141, true, true, false, 0, 0, false, 0, 354000, true, 0, false, 962, 1231, 0, 0, false, false},
     &defaults,
     {true, false, false, WB, 2494, 5736, STALL}},
    /* Rule 6 beside a writer's churn: reclaim undone by refaults holds the count. Measured: the
     * same churn over 90 s, a round whose span had no stall event of the group (the share
     * says nothing), 5,900 pages written in 3 s against 10,484 refaulted. */
    {"v2 churn, measured: reclaim undone beside a writer: held",
     {SEC, 24, 4071, true, 992, true, 2036, 605000, 756, 1268, false, 6814, 8521, 5900,
      10484, 8521, 0, 0, 0, true, true, false, 302000, 250000, true, 0, 813000, true, 0, true,
      1268, 756, 0, 0, false, false},
     &defaults,
     {true, false, true, NO, 0, 992, WBHELD}},
    {"reclaim undone beside a writer at one page under an eighth: no progress",
     {SEC, 24, 4071, true, 992, true, 2036, 605000, 756, 1268, false, 6814, 8521, 1310,
      10484, 8521, 0, 0, 0, true, true, false, 302000, 250000, true, 0, 813000, true, 0, true,
      1268, 756, 0, 0, false, false},
     &defaults,
     {true, false, false, NO, 0, 992, UNDONE}},
    {"reclaim undone by refaults at the floor beside a writer: held",
     {SEC, 24, 4071, true, 0, true, 256, 605000, 0, 1268, false, 6814, 8521, 5900,
      10484, 8521, 0, 0, 0, true, true, false, 0, 0, false, 0, 813000, true, 0, true, 1268, 0, 0, 0, false, false},
     &defaults,
     {true, false, true, NO, 0, 0, WBHELD}},
    {"reclaim undone by refaults one under the floor beside a writer: no progress",
     {SEC, 24, 4071, true, 0, true, 255, 605000, 0, 1268, false, 6814, 8521, 5900,
      10484, 8521, 0, 0, 0, true, true, false, 0, 0, false, 0, 813000, true, 0, true, 1268, 0, 0, 0, false, false},
     &defaults,
     {true, false, false, NO, 0, 0, UNDONE}},
    /* An anon leak at its end: reclaim takes nothing, the last file pages are dirty, nothing
     * is written or refaulted (a review's case): no churn, the round counts. */
    {"nothing reclaimed or refaulted, the file LRU dirty, writes counted: no progress",
     {SEC, 40, 20000, true, 0, true, 0, SEC, 0, 0, false, 4186, 4222, 0, 0, 4222, 0, 0, 40,
      false, true, false, 0, 0, false, 0, 0, false, 0, true, 0, 0, 0, 0, false, false},
     &defaults,
     {true, false, false, NO, 0, 0, UNDONE}},
    {"reclaim that stayed beside a writer: progress",
     {SEC, 24, 4071, true, 3000, true, 2036, 605000, 756, 1268, false, 6814, 8521, 5900,
      10484, 8521, 0, 0, 0, true, true, false, 302000, 250000, true, 0, 813000, true, 0, true,
      1268, 756, 0, 0, false, false},
     &defaults,
     {true, true, false, NO, 964, 3000, STAYED}},

    /* The one hold that stands against PSI: a writer's churn where anon + swap do not grow
     * (rule 4). Measured: the same churn, PSI some at 572 ms of the window, 12,267 pages
     * refaulted in 3 s, anon held by the test. */
    {"v2 churn, measured, PSI over the bound, anon + swap flat: held",
     {SEC, 108, 571862, true, 4243, true, 3563, 201000, 1404, 1024, false, 6997, 8632, 5924,
      12267, 8632, 0, 0, 108, true, true, false, 0, 0, false, 0, 615000, true, 0, true, 1024, 1404, 0, 0, false, false},
     &bound500,
     {true, false, true, WB, 680, 4243, WBHELD}},
    {"the churn at the default bound, PSI over it, anon + swap flat: held",
     {SEC, 108, 600001, true, 4243, true, 3563, 201000, 1404, 1024, false, 6997, 8632, 5924,
      12267, 8632, 0, 0, 108, true, true, false, 0, 0, false, 0, 615000, true, 0, true, 1024, 1404, 0, 0, false, false},
     &defaults,
     {true, false, true, WB, 680, 4243, WBHELD}},
    {"the churn, anon + swap grown by an eighth of the refaults: no progress",
     {SEC, 108, 571862, true, 4243, true, 3563, 201000, 1404, 1024, false, 6997, 8632, 5924,
      12264, 8632, 0, 0, 108, true, true, false, 0, 0, false, 0, 615000, true, 1533, true, 1024,
      1404, 0, 0, false, false},
     &bound500,
     {true, false, false, WB, 680, 4243, STALL}},
    {"the churn, anon + swap grown one page under an eighth: held",
     {SEC, 108, 571862, true, 4243, true, 3563, 201000, 1404, 1024, false, 6997, 8632, 5924,
      12264, 8632, 0, 0, 108, true, true, false, 0, 0, false, 0, 615000, true, 1532, true, 1024,
      1404, 0, 0, false, false},
     &bound500,
     {true, false, true, WB, 680, 4243, WBHELD}},
    {"a flood beside writers, PSI over the bound, anon + swap growing: no progress",
     {SEC, 53, 937796, true, 43663, true, 512, 2944000, 512, 485, false, 0, 0, 512, 512, 0, 0,
      0, 53, false, true, false, 0, 0, false, 0, 0, false, 90000, true, 485, 512, 0, 0, false, false},
     &defaults,
     {true, false, false, WB, 43151, 43663, STALL}},
    {"a mixed share at PSI over the bound, anon + swap flat: no progress (only a writer's "
     "hold stands)",
     {SEC, 53, 937796, true, 43663, true, 512, 2944000, 512, 485, false, 0, 0, 232, 512, 0, 0,
      0, 53, false, true, false, 0, 0, false, 0, 0, false, 0, true, 485, 512, 0, 0, false, false},
     &defaults,
     {true, false, false, MIX, 43151, 43663, STALL}},

    /* 4c. Read-ahead over a small room (file pages < 3 windows): a span that says thrashing
     * holds unless the long share is >= 750 per mille. The span of the stream in a 13 MiB
     * room on an 8 MiB read-ahead disk (bench/thrash-grid.sh 'stream 4 0 90'): 512 of 512 read
     * were refaults in 200 ms, 2898 file pages; its long share about one half. */
    {"read-ahead room: a stream's share held",
     {SEC, 9, 0, false, 0, false, 1408, 200000, 512, 512, false, 0, 0, 0, 0, 2898, 6000, 3000,
      0, false, false, false, 0, 0, false, 0, 0, false, 0, false, 512, 512, 0, 0, false, false},
     &ra2048,
     {true, false, true, RA, 0, 0, RAHELD}},
    {"read-ahead room: long share at the bound",
     {SEC, 9, 0, false, 0, false, 1408, 200000, 512, 512, false, 0, 0, 0, 0, 2898, 6000, 4500,
      0, false, false, false, 0, 0, false, 0, 0, false, 0, false, 512, 512, 0, 0, false, false},
     &ra2048,
     {true, false, false, YES, 0, 0, THRASH}},
    {"read-ahead room: long share under the bound",
     {SEC, 9, 0, false, 0, false, 1408, 200000, 512, 512, false, 0, 0, 0, 0, 2898, 6000, 4499,
      0, false, false, false, 0, 0, false, 0, 0, false, 0, false, 512, 512, 0, 0, false, false},
     &ra2048,
     {true, false, true, RA, 0, 0, RAHELD}},
    /* The scope's first rounds: no window of reads marked yet, no long share summed: nothing
     * says it is not a stream rereading its read-ahead. Held (it was thrashing: a first round
     * counted in test_pending_not_in_small_room once a slow round waived the refault floor). */
    {"read-ahead room: no window marked yet, held",
     {SEC, 9, 0, false, 0, false, 1408, 200000, 512, 512, false, 0, 0, 0, 0, 2898, 6000, 4500,
      0, false, false, false, 0, 0, false, 0, 0, false, 0, false, 0, 0, 0, 0, false, false},
     &ra2048,
     {true, false, true, RA, 0, 0, RAHELD}},
    {"read-ahead room: no long share summed yet, held",
     {SEC, 9, 0, false, 0, false, 1408, 200000, 512, 512, false, 0, 0, 0, 0, 2898, 0, 0, 0,
      false, false, false, 0, 0, false, 0, 0, false, 0, false, 512, 512, 0, 0, false, false},
     &ra2048,
     {true, false, true, RA, 0, 0, RAHELD}},
    /* ... and unless its last window of reads has no fresh page: at least 938 per mille
     * refaults; until then a span with fresh pages holds, and one without is pending (counted
     * if the window fills with refaults).
     * The stream of 'stream 0 0 90 mmap' (unthrottled, grid-s16a): 62,358 of 70,563 pages read
     * were refaults in 200 ms, long share 897 per mille; a loop's span is 99-100 %. */
    {"read-ahead room: a fast stream's span has fresh pages, held",
     {SEC, 9, 0, false, 0, false, 276248, 200000, 62358, 70563, false, 0, 0, 0, 0, 2660, 6000,
      5382, 0, false, false, false, 0, 0, false, 0, 0, false, 0, false, 70563, 62358, 0, 0, false, false},
     &ra2048,
     {true, false, true, RA, 0, 0, RAHELD}},
    {"read-ahead room: span share at the bound",
     {SEC, 9, 0, false, 0, false, 1408, 200000, 938, 1000, false, 0, 0, 0, 0, 2898, 6000, 4500,
      0, false, false, false, 0, 0, false, 0, 0, false, 0, false, 1000, 938, 0, 0, false, false},
     &ra2048,
     {true, false, false, YES, 0, 0, THRASH}},
    {"read-ahead room: span and window share under the bound, held",
     {SEC, 9, 0, false, 0, false, 1408, 200000, 937, 1000, false, 0, 0, 0, 0, 2898, 6000, 4500,
      0, false, false, false, 0, 0, false, 0, 0, false, 0, false, 1000, 937, 0, 0, false, false},
     &ra2048,
     {true, false, true, RA, 0, 0, RAHELD}},
    {"read-ahead room at three windows: thrashing",
     {SEC, 9, 0, false, 0, false, 1408, 200000, 512, 512, false, 0, 0, 0, 0, 6144, 6000, 3000,
      0, false, false, false, 0, 0, false, 0, 0, false, 0, false, 512, 512, 0, 0, false, false},
     &ra2048,
     {true, false, false, YES, 0, 0, THRASH}},
    {"read-ahead room under three windows",
     {SEC, 9, 0, false, 0, false, 1408, 200000, 512, 512, false, 0, 0, 0, 0, 6143, 6000, 3000,
      0, false, false, false, 0, 0, false, 0, 0, false, 0, false, 512, 512, 0, 0, false, false},
     &ra2048,
     {true, false, true, RA, 0, 0, RAHELD}},
    /* 4d. Rooms under five windows: a span that says thrashing also needs its last window of
     * reads at 938 per mille refaults or more. A stream by mmap at 4 MiB/s beside 102 MiB of
     * anon in 128 (bench/thrash-grid.sh 'stream 4 0 80 mmap', 6 December): reclaim evicted
     * the read-ahead it had not touched yet, and it refaulted 1,056 of the 2,096 pages of a
     * window; the round counted, and 16 such rounds killed it. */
    {"mmap stream in a room of three windows, measured: half its window fresh, held",
     {SEC, 1168, 0, false, 0, false, 1056, 200000, 1056, 2096, false, 1, 6148, 0, 1056, 6148,
      1000, 326, 1168, true, false, false, 0, 0, true, 0, 902000, true, 0, false, 2096, 1056, 0, 0, false, false},
     &ra2048,
     {true, false, true, RA, 0, 0, RAHELD}},
    {"the same at four windows: held",
     {SEC, 1168, 0, false, 0, false, 1056, 200000, 1056, 2096, false, 1, 6148, 0, 1056, 8192,
      1000, 326, 1168, true, false, false, 0, 0, true, 0, 902000, true, 0, false, 2096, 1056, 0, 0, false, false},
     &ra2048,
     {true, false, true, RA, 0, 0, RAHELD}},
    {"the same at five windows: thrashing",
     {SEC, 1168, 0, false, 0, false, 1056, 200000, 1056, 2096, false, 1, 6148, 0, 1056, 10240,
      1000, 326, 1168, true, false, false, 0, 0, true, 0, 902000, true, 0, false, 2096, 1056, 0, 0, false, false},
     &ra2048,
     {true, false, false, YES, 0, 0, THRASH}},
    /* A loop by mmap at its onset, 48 MiB reread beside 48 of anon in 80 ('thrash 4 50 50
     * mmap'): a whole window of refaults in a room of 3.75 windows; its long share, 272 per
     * mille, is still the cold pass's, and is not asked above three windows. */
    {"mmap loop at its onset, measured: a window of refaults, thrashing",
     {SEC, 2003, 0, false, 0, false, 2048, 200000, 2048, 2048, false, 1, 7680, 0, 2048, 7680,
      1000, 272, 2003, true, false, false, 0, 0, true, 0, 848000, true, 0, false, 2048, 2048, 0, 0, false, false},
     &ra2048,
     {true, false, false, YES, 0, 0, THRASH}},
    /* The same loop in its cold pass (grid-idle-s22): a span of 1,792 refaults and reads that
     * killed it 2 s before its onset. Its last window reaches 256 reads further back, into the
     * pass's fresh pages: a verdict to come (the daemon counts the round if the window fills
     * with refaults, and forgets it if fresh pages come first). */
    {"mmap loop's cold pass: the span all refaults, its window not: pending",
     {SEC, 170, 0, false, 0, false, 1792, 200000, 1792, 1792, false, 1, 7651, 0, 2816, 7651,
      1000, 346, 170, true, false, false, 0, 0, true, 0, 797000, true, 0, false, 2048, 1792, 0, 0, false, false},
     &ra2048,
     {true, false, true, PEND, 0, 0, RAPEND}},
    {"the window's own refaults count, not the span's: pending",
     {SEC, 9, 0, false, 0, false, 2048, 200000, 2048, 2048, false, 0, 0, 0, 0, 7680, 1000, 1000,
      0, false, false, false, 0, 0, false, 0, 0, false, 0, false, 2048, 1900, 0, 0, false, false},
     &ra2048,
     {true, false, true, PEND, 0, 0, RAPEND}},
    {"a span at 938 per mille, its window under: pending",
     {SEC, 9, 0, false, 0, false, 938, 200000, 938, 1000, false, 0, 0, 0, 0, 7680, 1000, 1000,
      0, false, false, false, 0, 0, false, 0, 0, false, 0, false, 2048, 1900, 0, 0, false, false},
     &ra2048,
     {true, false, true, PEND, 0, 0, RAPEND}},
    {"a span with fresh pages and a window with fresh pages: held",
     {SEC, 9, 0, false, 0, false, 937, 200000, 937, 1000, false, 0, 0, 0, 0, 7680, 1000, 1000,
      0, false, false, false, 0, 0, false, 0, 0, false, 0, false, 2048, 1900, 0, 0, false, false},
     &ra2048,
     {true, false, true, RA, 0, 0, RAHELD}},
    /* Not in a room under three windows, where the long share must pass too: a stream that
     * rereads its read-ahead ('stream 4 0 90 read', the host, a room of 1.4 windows, grid-s23d):
     * 13 such rounds, then one round over both bounds, took the count from 0 to 14. */
    {"stream in a room of 1.4 windows, measured: a burst of refaults held, not pending",
     {SEC, 9, 0, false, 0, false, 707, 200000, 707, 707, false, 0, 0, 0, 0, 2864, 1000, 660, 0,
      false, false, false, 0, 0, false, 0, 0, false, 0, false, 2059, 1310, 0, 0, false, false},
     &ra2048,
     {true, false, true, RA, 0, 0, RAHELD}},
    {"the same at three windows: pending",
     {SEC, 9, 0, false, 0, false, 707, 200000, 707, 707, false, 0, 0, 0, 0, 6144, 1000, 660, 0,
      false, false, false, 0, 0, false, 0, 0, false, 0, false, 2059, 1310, 0, 0, false, false},
     &ra2048,
     {true, false, true, PEND, 0, 0, RAPEND}},
    {"pending, PSI over the bound: no progress",
     {SEC, 9, 700000, true, 0, true, 2048, 200000, 2048, 2048, false, 0, 0, 0, 0, 7680, 1000,
      1000, 0, false, false, false, 0, 0, false, 0, 0, false, 0, false, 2048, 1900, 0, 0, false, false},
     &ra2048,
     {true, false, false, PEND, 0, 0, STALL}},

    /* Under one window: held whatever the shares say. Measured in the guest (v2, 8 MiB
     * read-ahead, 5 December): an mmap stream unthrottled beside 57 MiB of anon in 64. */
    {"read-ahead room under one window, measured: an mmap stream held",
     {SEC, 1265, 430209, true, 62813, true, 62292, 202000, 13430, 13304, false, 0, 0, 0,
      208390, 990, 100000, 92200, 1265, true, true, false, 0, 0, true, 0, 1000, true, 0, true,
      13304, 13430, 0, 0, false, false},
     &ra2048,
     {true, false, true, RA, 521, 62813, RAHELD}},
    {"read-ahead room of one window, the same shares: thrashing",
     {SEC, 1265, 430209, true, 62813, true, 62292, 202000, 13430, 13304, false, 0, 0, 0,
      208390, 2048, 100000, 92200, 1265, true, true, false, 0, 0, true, 0, 1000, true, 0, true,
      13304, 13430, 0, 0, false, false},
     &ra2048,
     {true, false, false, YES, 0, 62813, THRASH}},
    {"read-ahead room, file pages unknown: thrashing",
     {SEC, 9, 0, false, 0, false, 1408, 200000, 512, 512, false, 0, 0, 0, 0, 0, 6000, 3000, 0,
      false, false, false, 0, 0, false, 0, 0, false, 0, false, 512, 512, 0, 0, false, false},
     &ra2048,
     {true, false, false, YES, 0, 0, THRASH}},
    {"read-ahead unknown: thrashing",
     {SEC, 9, 0, false, 0, false, 1408, 200000, 512, 512, false, 0, 0, 0, 0, 2898, 6000, 3000,
      0, false, false, false, 0, 0, false, 0, 0, false, 0, false, 512, 512, 0, 0, false, false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    {"read-ahead room, mixed span: mixed",
     {SEC, 9, 0, false, 0, false, 300, SEC, 300, 1000, false, 0, 0, 0, 0, 2898, 6000, 0, 0,
      false, false, false, 0, 0, false, 0, 0, false, 0, false, 1000, 300, 0, 0, false, false},
     &ra2048,
     {true, false, true, MIX, 0, 0, HELD}},

    /* 5. PSI some over the bound: no progress, whatever was freed. */
    {"machine stall over bound",
     {SEC, 3, 600001, true, 5000, true, 0, 0, 0, 0, false, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 0, 0, 0, 0, false, false},
     &defaults,
     {true, false, false, NO, 5000, 5000, STALL}},
    {"machine stall at bound",
     {SEC, 3, 600000, true, 5000, true, 0, 0, 0, 0, false, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 0, 0, 0, 0, false, false},
     &defaults,
     {true, true, false, NO, 5000, 5000, STAYED}},
    {"stall bound from params",
     {SEC, 3, 500001, true, 5000, true, 0, 0, 0, 0, false, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 0, 0, 0, 0, false, false},
     &bound500,
     {true, false, false, NO, 5000, 5000, STALL}},
    {"stall at params' bound",
     {SEC, 3, 500000, true, 5000, true, 0, 0, 0, 0, false, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 0, 0, 0, 0, false, false},
     &bound500,
     {true, true, false, NO, 5000, 5000, STAYED}},
    {"stall not measured",
     {SEC, 3, 900000, false, 5000, true, 0, 0, 0, 0, false, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 0, 0, 0, 0, false, false},
     &defaults,
     {true, true, false, NO, 5000, 5000, STAYED}},
    {"stall over an empty interval",
     {0, 3, 5, true, 5000, true, 0, 0, 0, 0, false, 0, 0, 0, 0, 0, 0, 0, 0, false, false, false,
      0, 0, false, 0, 0, false, 0, false, 0, 0, 0, 0, false, false},
     &defaults,
     {true, true, false, NO, 5000, 5000, STAYED}},
    /* 5, not where the stall is reclaim that stays, nobody waits for reads and CPUs are to
     * spare. Measured in the guest's zram fit (bench/machine s28-g1, 6 December): a round of the
     * 2048 MiB job at 1.65 GiB, 23,980 pages reclaimed into zram against 126 refaults, 35 ms of
     * I/O stall; the machine's cpu "some" was 766 ms a second (here over the last 3 s). */
    {"zram fit, measured: reclaim's own stall, CPUs to spare",
     {SEC, 6, 673312, true, 23980, true, 126, 2936000, 126, 145, false, 21613, 27840, 37740, 126,
      27840, 1000, 889, 6, false, true, false, 0, 0, false, 0, 35000, true, 367109, true, 54, 63,
      2298000, 3 * SEC, true, false},
     &defaults,
     {true, true, false, NO, 23854, 23980, SPARED}},
    {"the same, cpu stall over its bound",
     {SEC, 6, 673312, true, 23980, true, 126, 2936000, 126, 145, false, 21613, 27840, 37740, 126,
      27840, 1000, 889, 6, false, true, false, 0, 0, false, 0, 35000, true, 367109, true, 54, 63,
      2700003, 3 * SEC, true, false},
     &defaults,
     {true, false, false, NO, 23854, 23980, STALL}},
    {"the same, cpu stall at its bound",
     {SEC, 6, 673312, true, 23980, true, 126, 2936000, 126, 145, false, 21613, 27840, 37740, 126,
      27840, 1000, 889, 6, false, true, false, 0, 0, false, 0, 35000, true, 367109, true, 54, 63,
      2700000, 3 * SEC, true, false},
     &defaults,
     {true, true, false, NO, 23854, 23980, SPARED}},
    {"the same, cpu stall not measured",
     {SEC, 6, 673312, true, 23980, true, 126, 2936000, 126, 145, false, 21613, 27840, 37740, 126,
      27840, 1000, 889, 6, false, true, false, 0, 0, false, 0, 35000, true, 367109, true, 54, 63,
      0, 0, false, false},
     &defaults,
     {true, false, false, NO, 23854, 23980, STALL}},
    {"the same, cpu bound 0: every stall counts",
     {SEC, 6, 673312, true, 23980, true, 126, 2936000, 126, 145, false, 21613, 27840, 37740, 126,
      27840, 1000, 889, 6, false, true, false, 0, 0, false, 0, 35000, true, 367109, true, 54, 63,
      0, 3 * SEC, true, false},
     &nocpu,
     {true, false, false, NO, 23854, 23980, STALL}},
    {"the same, cpu bound from params (700)",
     {SEC, 6, 673312, true, 23980, true, 126, 2936000, 126, 145, false, 21613, 27840, 37740, 126,
      27840, 1000, 889, 6, false, true, false, 0, 0, false, 0, 35000, true, 367109, true, 54, 63,
      2298000, 3 * SEC, true, false},
     &cpu700,
     {true, false, false, NO, 23854, 23980, STALL}},
    {"the same, readers wait (I/O stall half the window)",
     {SEC, 6, 673312, true, 23980, true, 126, 2936000, 126, 145, false, 21613, 27840, 37740, 126,
      27840, 1000, 889, 6, false, true, false, 0, 0, false, 0, 500000, true, 367109, true, 54, 63,
      2298000, 3 * SEC, true, false},
     &defaults,
     {true, false, false, NO, 23854, 23980, STALL}},
    {"the same, I/O stall not measured",
     {SEC, 6, 673312, true, 23980, true, 126, 2936000, 126, 145, false, 21613, 27840, 37740, 126,
      27840, 1000, 889, 6, false, true, false, 0, 0, false, 0, 0, false, 367109, true, 54, 63,
      2298000, 3 * SEC, true, false},
     &defaults,
     {true, false, false, NO, 23854, 23980, STALL}},
    {"the same, reclaim undone by an eighth",
     {SEC, 6, 673312, true, 23980, true, 2998, 2936000, 126, 145, false, 21613, 27840, 37740,
      126, 27840, 1000, 889, 6, false, true, false, 0, 0, false, 0, 35000, true, 367109, true,
      54, 63, 2298000, 3 * SEC, true, false},
     &defaults,
     {true, false, false, NO, 20982, 23980, STALL}},
    {"the same, reclaim not counted (v1)",
     {SEC, 6, 673312, true, 23980, false, 126, 2936000, 126, 145, false, 21613, 27840, 37740, 126,
      27840, 1000, 889, 6, false, true, false, 0, 0, false, 0, 35000, true, 367109, true, 54, 63,
      2298000, 3 * SEC, true, false},
     &defaults,
     {true, false, false, NO, 0, 0, STALL}},
    /* The zram flood's round at its kill (s28-g1): 34,043 reclaimed, 222 refaults, 15 ms of I/O
     * stall, and the machine's cpu "some" 979 ms a second: the others wait for a CPU. With CPUs to spare
     * its share (mixed, beside the writers' dirty pages) would hold the count. */
    {"zram flood, measured: CPUs taken",
     {SEC, 19, 975360, true, 34043, true, 222, 1211000, 264, 448, false, 16409, 21435, 511, 341,
      21435, 1000, 392, 19, false, true, false, 0, 0, false, 0, 15000, true, 188336, true, 39, 21,
      2937000, 3 * SEC, true, false},
     &defaults,
     {true, false, false, WB, 33821, 34043, STALL}},
    {"the same, CPUs to spare: a writer's churn, held",
     {SEC, 19, 975360, true, 34043, true, 222, 1211000, 264, 448, false, 16409, 21435, 511, 341,
      21435, 1000, 392, 19, false, true, false, 0, 0, false, 0, 15000, true, 188336, true, 39, 21,
      2100000, 3 * SEC, true, false},
     &defaults,
     {true, false, true, WB, 33821, 34043, WBHELD}},
    /* 5, not in a small read-ahead room where nothing but reads takes memory. Measured in the
     * guest (v2, 8 MiB read-ahead): a stream by dd at 4 MiB/s beside 57 MiB of anon in 64. */
    {"read-ahead room, measured: a stream's stall is its own reclaim",
     {SEC, 300, 882164, true, 1474, true, 91, 1616000, 91, 1605, false, 0, 0, 0, 91, 1471, 0, 0,
      300, true, true, false, 101000, 0, true, 0, 0, true, 0, true, 1605, 91, 0, 0, false, false},
     &ra2048,
     {true, true, false, NO, 1383, 1474, STAYED}},
    {"read-ahead room, measured: dd's buffer is no demand",
     {SEC, 290, 901901, true, 449, true, 79, 2525000, 79, 1984, false, 0, 0, 0, 79, 1471, 0, 0,
      290, true, true, false, 606000, 0, true, 0, 0, true, 256, true, 1984, 79, 0, 0, false, false},
     &ra2048,
     {true, true, false, NO, 370, 449, STAYED}},
    {"read-ahead room: demand as large as the reads, stall over bound",
     {SEC, 300, 882164, true, 1474, true, 91, 1616000, 91, 1605, false, 0, 0, 0, 91, 1471, 0, 0,
      300, true, true, false, 101000, 0, true, 0, 0, true, 1605, true, 1605, 91, 0, 0, false, false},
     &ra2048,
     {true, false, false, NO, 1383, 1474, STALL}},
    {"read-ahead room: demand a page under the reads",
     {SEC, 300, 882164, true, 1474, true, 91, 1616000, 91, 1605, false, 0, 0, 0, 91, 1471, 0, 0,
      300, true, true, false, 101000, 0, true, 0, 0, true, 1604, true, 1605, 91, 0, 0, false, false},
     &ra2048,
     {true, true, false, NO, 1383, 1474, STAYED}},
    {"read-ahead room: demand not measured, stall over bound",
     {SEC, 300, 882164, true, 1474, true, 91, 1616000, 91, 1605, false, 0, 0, 0, 91, 1471, 0, 0,
      300, true, true, false, 101000, 0, true, 0, 0, true, 0, false, 1605, 91, 0, 0, false, false},
     &ra2048,
     {true, false, false, NO, 1383, 1474, STALL}},
    {"three read-ahead windows of file pages: stall over bound",
     {SEC, 300, 882164, true, 1474, true, 91, 1616000, 91, 1605, false, 0, 0, 0, 91, 6144, 0, 0,
      300, true, true, false, 101000, 0, true, 0, 0, true, 0, true, 1605, 91, 0, 0, false, false},
     &ra2048,
     {true, false, false, NO, 1383, 1474, STALL}},
    {"read-ahead not known: stall over bound",
     {SEC, 300, 882164, true, 1474, true, 91, 1616000, 91, 1605, false, 0, 0, 0, 91, 1471, 0, 0,
      300, true, true, false, 101000, 0, true, 0, 0, true, 0, true, 1605, 91, 0, 0, false, false},
     &defaults,
     {true, false, false, NO, 1383, 1474, STALL}},
    /* Measured there too: a cold first pass, 48 MiB beside 48 of anon in 64, killed 1.1 s in
     * before; its span mixed: held now. */
    {"read-ahead room, measured: a cold pass's mixed span held",
     {SEC, 178, 744554, true, 103, true, 101, 1718000, 339, 2048, false, 0, 0, 0, 339, 3770, 0, 0,
      178, true, true, false, 101000, 101000, true, 0, 163000, true, 0, true, 2048, 339, 0, 0, false, false},
     &ra2048,
     {true, false, true, MIX, 2, 103, HELD}},
    {"100 ms interval, stall over bound",
     {100000, 3, 60001, true, 5000, true, 4000, SEC, 4000, 90000, false, 0, 0, 0, 0, 0, 0, 0,
      0, false, false, false, 0, 0, false, 0, 0, false, 0, false, 90000, 4000, 0, 0, false, false},
     &defaults,
     {true, false, false, NO, 1000, 5000, STALL}},

    /* 6. With a reclaim counter: reclaimed minus refaulted, progress when positive. */
    {"machine healthy",
     {SEC, 3, 20000, true, 5000, true, 100, SEC, 100, 9000, false, 0, 0, 0, 0, 0, 0, 0, 0,
      false, false, false, 0, 0, false, 0, 0, false, 0, false, 9000, 100, 0, 0, false, false},
     &defaults,
     {true, true, false, NO, 4900, 5000, STAYED}},
    {"machine one page stays",
     {SEC, 3, 20000, true, 5001, true, 5000, SEC, 5000, 90000, false, 0, 0, 0, 0, 0, 0, 0, 0,
      false, false, false, 0, 0, false, 0, 0, false, 0, false, 90000, 5000, 0, 0, false, false},
     &defaults,
     {true, true, false, NO, 1, 5001, STAYED}},
    {"machine refaults all",
     {SEC, 3, 20000, true, 5000, true, 5000, SEC, 5000, 90000, false, 0, 0, 0, 0, 0, 0, 0, 0,
      false, false, false, 0, 0, false, 0, 0, false, 0, false, 90000, 5000, 0, 0, false, false},
     &defaults,
     {true, false, false, NO, 0, 5000, UNDONE}},
    {"machine stalls, nothing reclaimed",
     {SEC, 40, 20000, true, 0, true, 0, 0, 0, 0, false, 0, 0, 0, 0, 0, 0, 0, 0, false, false,
      false, 0, 0, false, 0, 0, false, 0, false, 0, 0, 0, 0, false, false},
     &defaults,
     {true, false, false, NO, 0, 0, UNDONE}},

    /* 6. Without (v1): progress unless the read share says otherwise. */
    /* Measured: a fresh 1.25 GiB file streamed through a 128 MiB group: 12 refaults. */
    {"v1 stream",
     {SEC, 575, 0, false, 0, false, 12, 100000, 12, 327680, false, 0, 0, 0, 0, 0, 0, 0, 0,
      false, false, false, 0, 0, false, 0, 0, false, 0, false, 327680, 12, 0, 0, false, false},
     &defaults,
     {true, true, false, NO, 1, 0, STAYED}},
    /* A failcnt burst (charges retried while reclaim fails) is no reclaim to count. */
    /* A slow disk's thrash (progress.h): measured, a v1 group rereading by mmap at 1 MiB/s
     * (bench/thrash-grid.sh --profile slower, 128 KiB read-ahead): 256 refaults of 256 read in
     * a span of 1,002 ms, just under the floor of 256 a second, the machine's I/O stall 902 ms
     * of the round. Its tasks wait for reads: thrashing. */
    {"slow disk: 1 MiB/s, reads waited for",
     {SEC, 14, 0, false, 0, false, 224, 1002000, 256, 256, false, 1, 5537, 0, 736, 5537, 10000,
      9790, 14, true, false, false, 0, 0, true, 0, 902000, true, 0, false, 256, 256, 0, 0, false,
      false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    {"slow disk: 1 MiB/s, the I/O stall unmeasured: under the floor, held",
     {SEC, 14, 0, false, 0, false, 224, 1002000, 256, 256, false, 1, 5537, 0, 736, 5537, 10000,
      9790, 14, true, false, false, 0, 0, false, 0, 0, false, 0, false, 256, 256, 0, 0, false,
      false},
     &defaults,
     {true, false, true, MIX, 0, 0, HELD}},
    {"slow disk: 1 MiB/s, reads waited for under half the round: held",
     {SEC, 14, 0, false, 0, false, 224, 1002000, 256, 256, false, 1, 5537, 0, 736, 5537, 10000,
      9790, 14, true, false, false, 0, 0, true, 0, 499999, true, 0, false, 256, 256, 0, 0, false,
      false},
     &defaults,
     {true, false, true, MIX, 0, 0, HELD}},
    {"slow disk: 1 MiB/s, reads waited for half the round",
     {SEC, 14, 0, false, 0, false, 224, 1002000, 256, 256, false, 1, 5537, 0, 736, 5537, 10000,
      9790, 14, true, false, false, 0, 0, true, 0, 500000, true, 0, false, 256, 256, 0, 0, false,
      false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    /* At 0.34 MiB/s the span reaches back 3 s for its 256: a rate under half the floor, clean
     * before; its tasks waiting for reads, thrashing; a trickle nobody waits for, no verdict. */
    {"slower disk: 256 refaults in 3 s, reads waited for",
     {SEC, 14, 0, false, 0, false, 86, 3 * SEC, 256, 256, false, 1, 5537, 0, 256, 5537, 10000,
      9790, 14, true, false, false, 0, 0, true, 0, 950000, true, 0, false, 256, 256, 0, 0, false,
      false},
     &defaults,
     {true, false, false, YES, 0, 0, THRASH}},
    {"trickle: 256 refaults in 3 s, no task waits",
     {SEC, 14, 0, false, 0, false, 86, 3 * SEC, 256, 256, false, 1, 5537, 0, 256, 5537, 10000,
      9790, 14, true, false, false, 0, 0, true, 0, 20000, true, 0, false, 256, 256, 0, 0, false,
      false},
     &defaults,
     {true, true, false, NO, 1, 0, STAYED}},
    {"v1 healthy, failcnt burst",
     {SEC, 1500, 0, false, 0, false, 0, 200000, 0, 4096, false, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 4096, 0, 0, 0, false, false},
     &defaults,
     {true, true, false, NO, 1, 0, STAYED}},
    {"v1 reclaim figure ignored",
     {SEC, 5, 0, false, 9000, false, 0, SEC, 0, 4000, false, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 4000, 0, 0, 0, false, false},
     &defaults,
     {true, true, false, NO, 1, 0, STAYED}},
    {"v1 stall time ignored",
     {SEC, 5, 700000, false, 0, false, 0, SEC, 0, 4000, false, 0, 0, 0, 0, 0, 0, 0, 0, false,
      false, false, 0, 0, false, 0, 0, false, 0, false, 4000, 0, 0, 0, false, false},
     &defaults,
     {true, true, false, NO, 1, 0, STAYED}},
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
	    r.thrash != w->thrash || r.net_reclaimed != w->net_reclaimed ||
	    r.reclaimed_pages != w->reclaimed_pages ||
	    !r.reason || strcmp(r.reason, w->reason))

		fail_msg("case '%s': got round %d progress %d hold %d thrash %d net %lu reclaimed %lu "
			 "(%s), want round %d progress %d hold %d thrash %d net %lu reclaimed %lu (%s)",
			 c->name, r.is_round, r.progress, r.hold, r.thrash,
			 (unsigned long)r.net_reclaimed, (unsigned long)r.reclaimed_pages,
			 r.reason ? r.reason : "no reason", w->is_round, w->progress, w->hold, w->thrash,
			 (unsigned long)w->net_reclaimed,
			 (unsigned long)w->reclaimed_pages, w->reason);
}

/* The long share in per mille (progress_thrash() compares products; this is for asserts). */
static uint64_t share_permille(const struct long_share *ls)
{
	return ls->read ? ls->refaulted * 1000 / ls->read : 0;
}

/* Feed @pages read in rounds of 256, each page a refault when @refault; cumulative counters. */
static void feed(struct long_share *ls, uint64_t *read, uint64_t *ref, uint64_t pages,
		 bool refault, uint64_t memory, uint64_t *ret_min, uint64_t *ret_max)
{
	for (uint64_t done = 0; done < pages; done += 256) {
		*read += 256;
		*ref += refault ? 256 : 0;
		progress_long_share_add(ls, *read, *ref, memory);
		if (ret_min && share_permille(ls) < *ret_min)
			*ret_min = share_permille(ls);
		if (ret_max && share_permille(ls) > *ret_max)
			*ret_max = share_permille(ls);
	}
}

/* A stream whose read-ahead windows (2048 pages) are read alternately fresh and again never
 * reaches the bound; a loop after its cold pass reaches it within three windows, not one. */
static void test_long_share_stream_and_loop(void **state)
{
	struct long_share ls = {0};
	uint64_t read = 100000, ref = 5000, lo = 1000, hi = 0, memory = 2 * 2048;

	(void)state;
	progress_long_share_add(&ls, read, ref, memory); /* primes: counts nothing */
	assert_int_equal(ls.read, 0);
	feed(&ls, &read, &ref, 8 * 2048, false, memory, NULL, NULL); /* the cold part */
	for (int w = 0; w < 20; w++)
		feed(&ls, &read, &ref, 2048, w % 2, memory, w > 4 ? &lo : NULL, w > 4 ? &hi : NULL);
	assert_true(hi < PROGRESS_RA_SHARE_PERMILLE);
	assert_true(lo > 250);

	memset(&ls, 0, sizeof(ls));
	progress_long_share_add(&ls, read, ref, memory);
	feed(&ls, &read, &ref, 8 * 2048, false, memory, NULL, NULL);
	feed(&ls, &read, &ref, 2048, true, memory, NULL, NULL);
	assert_true(share_permille(&ls) < PROGRESS_RA_SHARE_PERMILLE);
	feed(&ls, &read, &ref, 2 * 2048, true, memory, NULL, NULL);
	assert_true(share_permille(&ls) >= PROGRESS_RA_SHARE_PERMILLE);
}

/* Refaults without reads count as reads; a counter that goes back, or no memory, starts over. */
static void test_long_share_edges(void **state)
{
	struct long_share ls = {0};

	(void)state;
	progress_long_share_add(&ls, 1000, 1000, 4096);
	progress_long_share_add(&ls, 1000, 3000, 4096); /* NFS: refaults, no pgpgin */
	assert_int_equal(ls.read, 2000);
	assert_int_equal(ls.refaulted, 2000);
	progress_long_share_add(&ls, 3000, 3000, 4096); /* forgets at memory / (memory + read) */
	assert_int_equal(ls.read, 2000 * 4096 / 6096 + 2000);
	assert_int_equal(ls.refaulted, 2000 * 4096 / 6096);
	progress_long_share_add(&ls, 10, 3000, 4096); /* the group was made again */
	assert_int_equal(ls.read, 0);
	progress_long_share_add(&ls, 500, 3000, 4096);
	assert_int_equal(ls.read, 490);
	progress_long_share_add(&ls, 900, 3100, 0); /* no read-ahead known */
	assert_int_equal(ls.read, 0);
	assert_false(ls.primed);
}

/*
 * The machine's I/O stall undiluted (progress.h): as read on a machine with at most one CPU
 * busy; times the CPUs busy beyond that (one task waiting the whole second beside two busy CPUs
 * reads 500 ms and is 1 s); at least the iowait (a task waiting half the time on an idle CPU
 * beside one busy CPU reads 1/6 s, the product 1/4 s, the iowait 1/2 s); never past the span;
 * as read where the span is 0; without the product where it wraps.
 */
static void test_io_undilute(void **state)
{
	(void)state;
	assert_int_equal(progress_io_undilute(994000, 1000000, 994000, 1000000), 994000);
	assert_int_equal(progress_io_undilute(300000, 400000, 0, 1000000), 300000);
	assert_int_equal(progress_io_undilute(490000, 2000000, 0, 1000000), 980000);
	assert_int_equal(progress_io_undilute(250000, 1500000, 0, 1000000), 375000);
	assert_int_equal(progress_io_undilute(166666, 1500000, 500000, 1000000), 500000);
	assert_int_equal(progress_io_undilute(600000, 2000000, 0, 1000000), 1000000);
	assert_int_equal(progress_io_undilute(20000, 64000000, 0, 1000000), 1000000); /* 64 CPUs */
	assert_int_equal(progress_io_undilute(0, 64000000, 0, 1000000), 0);
	assert_int_equal(progress_io_undilute(100000, 500000, 1800000, 1000000), 1000000);
	assert_int_equal(progress_io_undilute(1000100, 2000000, 0, 1000000), 1000100); /* rounding */
	assert_int_equal(progress_io_undilute(5000, 9000, 7000, 0), 5000);
	assert_int_equal(progress_io_undilute(UINT64_MAX / 4, 4, 0, UINT64_MAX / 2), UINT64_MAX / 4);
	assert_int_equal(progress_io_undilute(3, 8, 0, 4), 4);
	assert_int_equal(progress_io_undilute(3, UINT64_MAX / 2, 0, UINT64_MAX / 4), 3);
}

/*
 * A v2 group's own I/O stall undone by its own CPU time (progress.h): a reader waiting the
 * whole second beside one busy task of its group reads 500 ms and is 1 s; waiting 10 % of the
 * time on a CPU of 64 busy ones, 1/640 s: 100 ms; alone, as read; never under the stall read,
 * never past the span; as read where the span is 0 or a product wraps.
 */
static void test_io_undilute_group(void **state)
{
	(void)state;
	assert_int_equal(progress_io_undilute_group(500000, 1000000, 1000000), 1000000);
	assert_int_equal(progress_io_undilute_group(1563, 64000000, 1000000), 100188);
	assert_int_equal(progress_io_undilute_group(990000, 10000, 1000000), 990000);
	assert_int_equal(progress_io_undilute_group(400000, 300000, 1000000), 400000);
	assert_int_equal(progress_io_undilute_group(500000, 2000000, 1000000), 1000000);
	assert_int_equal(progress_io_undilute_group(0, 2000000, 1000000), 0);
	assert_int_equal(progress_io_undilute_group(1000000, 2000000, 1000000), 1000000);
	assert_int_equal(progress_io_undilute_group(5000, 9000, 0), 5000);
	assert_int_equal(progress_io_undilute_group(3, UINT64_MAX / 2, 4), 3);
}

/* The last window of reads, however long ago it began: a stream's burst of refaults after a
 * quiet spell still sees the fresh pages before it; a loop's window fills with refaults. */
static void test_read_marks(void **state)
{
	struct read_marks m = {0};
	uint64_t read = 0, ref = 0, rd, rf;

	(void)state;
	progress_marks_window(&m, 0, 0, 2048, &rd, &rf);
	assert_int_equal(rd, 0);
	/* a cold pass: 4096 fresh pages, 128 a round */
	for (int i = 0; i < 32; i++) {
		read += 128;
		progress_marks_add(&m, read, ref, 2048);
	}
	assert_int_equal(m.len, PROGRESS_MARKS);
	progress_marks_window(&m, read, ref, 2048, &rd, &rf);
	assert_int_equal(rd, 2048);
	assert_int_equal(rf, 0);
	/* a burst of 1,024 refaults, read at once: half the window is still the fresh pages */
	read += 1024;
	ref += 1024;
	progress_marks_add(&m, read, ref, 2048);
	progress_marks_window(&m, read, ref, 2048, &rd, &rf);
	assert_int_equal(rd, 2048);
	assert_int_equal(rf, 1024);
	/* a second burst: the window is all refaults now */
	read += 1024;
	ref += 1024;
	progress_marks_add(&m, read, ref, 2048);
	progress_marks_window(&m, read, ref, 2048, &rd, &rf);
	assert_int_equal(rd, 2048);
	assert_int_equal(rf, 2048);
	/* a step under a sixteenth of a window adds no mark; one at it does */
	progress_marks_add(&m, read + 127, ref, 2048);
	assert_int_equal(m.read[(m.next + PROGRESS_MARKS - 1) % PROGRESS_MARKS], read);
	progress_marks_add(&m, read + 128, ref, 2048);
	assert_int_equal(m.read[(m.next + PROGRESS_MARKS - 1) % PROGRESS_MARKS], read + 128);
	/* fewer reads than a window in all: from the oldest mark */
	memset(&m, 0, sizeof(m));
	progress_marks_add(&m, 100, 0, 2048);
	progress_marks_add(&m, 900, 800, 2048);
	progress_marks_window(&m, 900, 800, 2048, &rd, &rf);
	assert_int_equal(rd, 800);
	assert_int_equal(rf, 800);
	/* a counter that went back starts again; no window: nothing kept */
	progress_marks_add(&m, 50, 0, 2048);
	assert_int_equal(m.len, 1);
	progress_marks_add(&m, 5000, 0, 0);
	assert_int_equal(m.len, 0);
}

int main(void)
{
	struct CMUnitTest tests[NR_CASES + 5];

	for (size_t i = 0; i < NR_CASES; i++)
		tests[i] = (struct CMUnitTest){.name = cases[i].name,
					       .test_func = test_progress_case,
					       .initial_state = (void *)&cases[i]};
	tests[NR_CASES] = (struct CMUnitTest)cmocka_unit_test(test_long_share_stream_and_loop);
	tests[NR_CASES + 1] = (struct CMUnitTest)cmocka_unit_test(test_long_share_edges);
	tests[NR_CASES + 2] = (struct CMUnitTest)cmocka_unit_test(test_io_undilute);
	tests[NR_CASES + 3] = (struct CMUnitTest)cmocka_unit_test(test_io_undilute_group);
	tests[NR_CASES + 4] = (struct CMUnitTest)cmocka_unit_test(test_read_marks);
	return _cmocka_run_group_tests("progress", tests, NR_CASES + 5, NULL, NULL);
}
