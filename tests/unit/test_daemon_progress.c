// SPDX-License-Identifier: GPL-2.0-only
/* scope_decide(): after how many rounds the seed's rule says OOM for a v1 scope, when counts are
 * held or reset (progress_round() itself: test_policy_progress.c). A thrashing group here reads
 * THRASH pages per 100 ms, every one a refault, and fails THRASH_FAILCNT charges (16 MB/s on
 * this machine's disk moves ~400-600 pages per 100 ms, and the group's failcnt moves by 0-7 in
 * most rounds, by hundreds in some: tests/fixtures/traces/thrash-16mibs-anon90.trace;
 * docs/daemon-design.md "Thrashing"); healthy page-cache reclaim fails ~150 charges per 100 ms,
 * reads 4000 pages and refaults none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "daemon/scope.h"

#define MS100   100000
#define THRASH  600
#define THRASH_FAILCNT 4
#define HEALTHY 4000 /* pages read per round, none refaulted */

/*
 * The I/O stall (the machine's PSI io "some") a round adds: by default a whole round, as the
 * tasks of a thrashing group wait for their reads through the pauses of a slow disk (measured:
 * tests/fixtures/traces/thrash-4mibs-read-io.trace); 0 for a scope whose tasks wait for nothing.
 * The snapshot holds the kernel's total (@io_total), or SCOPE_IO_UNKNOWN while @io_unread (a
 * quiet round that read nothing, a kernel without PSI): the total grows all the same.
 */
static uint64_t io_wait = MS100;
static bool io_unread;
static uint64_t io_total;
/* The machine's busy CPU time a round adds (cpu_busy_usec), read with the I/O stall: by default
 * none (at most one CPU busy: the stall as read); SCOPE_IO_UNKNOWN: /proc/stat not read. */
static uint64_t cpu_busy;
static uint64_t cpu_total;

/* A v1 scope whose counters move by @failcnt, @refault and @read per round. */
static void step_read(struct scope *s, const struct config *c, uint64_t failcnt, uint64_t refault,
		      uint64_t read, bool parked)
{
	s->prev = s->cur; /* as scope_acquire() keeps the last snapshot */
	s->has_prev = true;
	s->cur.time_usec += MS100;
	s->cur.stall_events += failcnt;
	s->cur.refaulted += refault;
	s->cur.read_pages += read;
	s->cur.parked = parked;
	io_total += io_wait; /* the kernel's total, read or not */
	s->cur.io_stall_usec = io_unread ? SCOPE_IO_UNKNOWN : io_total;
	if (cpu_busy != SCOPE_IO_UNKNOWN)
		cpu_total += cpu_busy;
	s->cur.cpu_busy_usec =
	    io_unread || cpu_busy == SCOPE_IO_UNKNOWN ? SCOPE_IO_UNKNOWN : cpu_total;
	scope_push_history(s);
	scope_decide(s, c);
}

/* A round whose reads are its refaults, and as many more as @refault is 0: HEALTHY reads. */
static void step(struct scope *s, const struct config *c, uint64_t failcnt, uint64_t refault,
		 bool parked)
{
	step_read(s, c, failcnt, refault, refault ? refault : failcnt ? HEALTHY : 0, parked);
}

static void v1_scope(struct scope *s, struct config *c, uint64_t free_pages,
		     uint64_t reclaimable_pages)
{
	struct zone_snapshot *z = &s->cur.zones[0];

	config_defaults(c);
	memset(s, 0, sizeof(*s));
	s->kind = SCOPE_CGROUP_V1;
	s->reads = READS_V1_BLKIO; /* its blkio group's, as the bench's groups have */
	s->page_shift = 12;
	s->cur.time_usec = 1;
	s->cur.file_bytes = reclaimable_pages << s->page_shift;
	s->cur.nr_zones = 1;
	z->idx = ZONE_NORMAL;
	z->managed_pages = 131072;
	z->watermark[WMARK_MIN] = 50;
	z->watermark[WMARK_LOW] = 62;
	z->watermark[WMARK_HIGH] = 75;
	z->free_pages = free_pages;
	z->nr_free[0] = free_pages;
	z->free_list_mask[0] = 3;
	z->reclaimable_pages = reclaimable_pages;
	scope_push_history(s);
}

static int rounds_to_oom(struct scope *s, const struct config *c, uint64_t failcnt,
			 uint64_t refault, bool parked, int max)
{
	for (int i = 1; i <= max; i++) {
		step(s, c, failcnt, refault, parked);
		if (s->oom)
			return i;
	}
	return 0;
}

static void test_thrash_reaches_oom(void **state)
{
	struct scope s;
	struct config c;

	(void)state;
	/* 1600 reclaimable, min 50: 1600 - 16ths pass min through 15 rounds, fail at 16. */
	v1_scope(&s, &c, 0, 1600);
	assert_int_equal(rounds_to_oom(&s, &c, THRASH_FAILCNT, THRASH, false, 100), 16);
	assert_int_equal(s.decision.no_progress_loops, 16);
	/* Nothing reclaimable and tasks parked: the first round decides. */
	v1_scope(&s, &c, 0, 0);
	assert_int_equal(rounds_to_oom(&s, &c, 0, 0, true, 100), 1);
}

/* The kernel's own OOM kill in the scope freed memory: the count starts again, as after ours. */
static void test_kernel_kill_is_progress(void **state)
{
	struct scope s;
	struct config c;

	(void)state;
	v1_scope(&s, &c, 0, 1600);
	assert_int_equal(rounds_to_oom(&s, &c, THRASH_FAILCNT, THRASH, false, 10), 0);
	assert_int_equal(s.decision.no_progress_loops, 10);
	s.prev = s.cur; /* the next round's read: the kernel's counter moved */
	s.cur.kernel_oom_kills++;
	s.cur.time_usec += MS100;
	s.cur.refaulted += THRASH;
	s.cur.read_pages += THRASH;
	scope_push_history(&s);
	scope_decide(&s, &c);
	assert_false(s.oom);
	assert_int_equal(s.retry.no_progress_loops, 0);
	assert_string_equal(s.decision.reason, "the kernel killed");
	/* The thrash goes on: the whole count again, as from the start (test_thrash_reaches_oom). */
	assert_int_equal(rounds_to_oom(&s, &c, THRASH_FAILCNT, THRASH, false, 100), 16);
	/* The machine's counter (vmstat) counts every cgroup's kernel kills: no progress of its. */
	v1_scope(&s, &c, 0, 1600);
	s.kind = SCOPE_MACHINE;
	s.cur.counts_reclaim = true;
	assert_int_equal(rounds_to_oom(&s, &c, THRASH_FAILCNT, THRASH, false, 10), 0);
	s.prev = s.cur;
	s.cur.kernel_oom_kills++;
	s.cur.time_usec += MS100;
	s.cur.refaulted += THRASH;
	s.cur.read_pages += THRASH;
	scope_push_history(&s);
	scope_decide(&s, &c);
	assert_true(s.retry.no_progress_loops > 10);
}

/* A machine of two zones: Normal (preferred, high watermark 20,000, @normal_free free) and
 * DMA32 (600,000 free, high 2,000), the rest as v1_scope() sets them. */
static void two_zone_machine(struct scope *s, struct config *c, uint64_t normal_free)
{
	struct zone_snapshot *normal = &s->cur.zones[0], *dma32 = &s->cur.zones[1];

	v1_scope(s, c, normal_free, 1600);
	s->kind = SCOPE_MACHINE;
	s->cur.counts_reclaim = true; /* the machine's vmstat counts reclaim */
	normal->watermark[WMARK_HIGH] = 20000;
	*dma32 = *normal;
	dma32->idx = ZONE_DMA32;
	dma32->free_pages = 600000;
	dma32->watermark[WMARK_HIGH] = 2000;
	s->cur.nr_zones = 2;
}

/* The machine's rounds count only while some zone is short (progress.h: plenty free): a zone
 * that lowmem_reserve keeps free does not hide a Normal zone that thrashes, and refaults with
 * every zone at twice its high watermark are no rounds, however long they go on. */
static void test_machine_free_plenty(void **state)
{
	struct scope s;
	struct config c;

	(void)state;
	two_zone_machine(&s, &c, 30000);
	s.cur.zones[2] = (struct zone_snapshot){.idx = ZONE_DMA}; /* manages nothing */
	s.cur.nr_zones = 3;
	assert_int_not_equal(rounds_to_oom(&s, &c, 0, THRASH, false, 30), 0);
	assert_string_equal(s.round.reason, "thrashing: reads are refaults");

	two_zone_machine(&s, &c, 40000);
	assert_int_equal(rounds_to_oom(&s, &c, 0, THRASH, false, 100), 0);
	assert_false(s.round.is_round);
	assert_string_equal(s.round.reason, "free pages over twice the high watermarks");
	assert_int_equal(s.retry.no_progress_loops, 0);
	/* One page under twice the high watermark of the Normal zone: rounds again. */
	s.cur.zones[0].free_pages = 39999;
	assert_int_not_equal(rounds_to_oom(&s, &c, 0, THRASH, false, 30), 0);
}

static void test_healthy_never_oom(void **state)
{
	struct scope s;
	struct config c;

	(void)state;
	v1_scope(&s, &c, 0, 1600);
	assert_int_equal(rounds_to_oom(&s, &c, 150, 0, false, 1000), 0);
	assert_int_equal(s.decision.no_progress_loops, 0);
	/* Free above min even with nothing reclaimable: retry (the zone can still serve). */
	v1_scope(&s, &c, 5000, 0);
	assert_int_equal(rounds_to_oom(&s, &c, THRASH_FAILCNT, THRASH, false, 15), 0);
}

/* A machine with 2 GiB, nothing available, whose swap (1.9 GiB) has @left_mib MiB free and
 * fills by @kib_per_round KiB a round while reclaim makes progress (the rounds never count): the
 * round at which the verdict comes, 0 if none in @max. */
static int swap_rounds_to_oom(struct scope *s, struct config *c, enum scope_kind kind,
			      uint64_t left_mib, uint64_t kib_per_round, int growing_rounds, int max)
{
	v1_scope(s, c, 0, 1600);
	s->kind = kind;
	s->cur.counts_reclaim = true;
	s->cur.limit_bytes = s->cur.usage_bytes = 2048ULL << 20;
	s->cur.has_swap = kind == SCOPE_MACHINE;
	s->cur.swap_free = true;
	s->cur.swap_left_bytes = left_mib << 20;
	s->cur.swap_bytes = (1900ULL << 20) - s->cur.swap_left_bytes;
	s->hist_len = s->hist_next = 0; /* v1_scope()'s round had no swap */
	scope_push_history(s);
	for (int i = 1; i <= max; i++) {
		uint64_t grow = i <= growing_rounds ? kib_per_round << 10 : 0;

		if (grow > s->cur.swap_left_bytes)
			grow = s->cur.swap_left_bytes;
		s->cur.reclaimed += 2000; /* each page written to swap freed one: progress */
		s->cur.swap_bytes += grow;
		s->cur.swap_left_bytes -= grow;
		step(s, c, 150, 0, false);
		if (s->oom)
			return i;
	}
	return 0;
}

/* Swap's end (swap_end.h), as bench/machine's fit with zram meets it: a job at 79 MiB/s with
 * 94 MiB of swap left is 1.2 s from full, within the count's 16 rounds; the window needs 5
 * rounds (500 ms) of pace. One that stops growing with 250 MiB left is spared, and so is a
 * group (the rule reads the machine's swap alone). */
static void test_swap_end(void **state)
{
	struct scope s;
	struct config c;

	(void)state;
	assert_int_equal(swap_rounds_to_oom(&s, &c, SCOPE_MACHINE, 94, 7900, 100, 100), 5);
	assert_string_equal(s.decision.reason, "swap full before the count could end");
	assert_int_equal(s.swap_end.span_usec, 500000);
	/* 300 MiB left at 55 MiB/s: the verdict once it is 1.6 s from full (87.5 MiB left) */
	assert_int_equal(swap_rounds_to_oom(&s, &c, SCOPE_MACHINE, 300, 5600, 100, 100), 39);
	assert_int_equal(s.swap_end.horizon_usec, 16 * 100000);
	/* growth that stops 250 MiB from full (at 42 MiB/s it was 6 s away): never */
	assert_int_equal(swap_rounds_to_oom(&s, &c, SCOPE_MACHINE, 500, 4200, 60, 200), 0);
	assert_false(s.swap_end.growing);
	/* the same fill in a group: the seed's count, which progress keeps at 0 */
	assert_int_equal(swap_rounds_to_oom(&s, &c, SCOPE_CGROUP_V2, 94, 7900, 100, 100), 0);
	assert_int_equal(s.decision.no_progress_loops, 0);
}

static void test_progress_and_quiet_reset(void **state)
{
	struct scope s;
	struct config c;
	int silent;

	(void)state;
	v1_scope(&s, &c, 0, 1600);
	assert_int_equal(rounds_to_oom(&s, &c, THRASH_FAILCNT, THRASH, false, 5), 0);
	assert_int_equal(s.decision.no_progress_loops, 5);
	/* Healthy rounds read PROGRESS_SPAN_PAGES and more, none refaulted. The span takes two
	 * rounds at least: the first healthy one shares it with the thrash (600 of 4600 pages,
	 * mixed: the count is held), the second is clean: progress resets the count. */
	step(&s, &c, 150, 0, false);
	assert_int_equal(s.round.thrash, THRASH_MIXED);
	assert_int_equal(s.decision.no_progress_loops, 5);
	step(&s, &c, 150, 0, false);
	assert_int_equal(s.round.thrash, THRASH_NONE);
	assert_true(s.round.progress);
	assert_int_equal(s.decision.no_progress_loops, 0);
	for (int i = 0; i < SCOPE_WINDOW_ROUNDS; i++)
		step(&s, &c, 150, 0, false);
	assert_false(s.oom);
	assert_int_equal(s.decision.no_progress_loops, 0);

	/* Silence after thrashing (a slow disk between two readahead batches reads nothing for
	 * seconds): the span reaches back to the thrash, which counts on for as long as it lies
	 * within PROGRESS_SPAN_MAX_USEC (30 rounds here); then the rounds are quiet, and
	 * SCOPE_QUIET_ROUNDS_RESET of them end the "allocation". */
	v1_scope(&s, &c, 0, 1600);
	assert_int_equal(rounds_to_oom(&s, &c, THRASH_FAILCNT, THRASH, false, 1), 0);
	for (int i = 1; i < 30; i++) {
		step(&s, &c, 0, 0, false);
		if (s.oom)
			break;
	}
	assert_true(s.oom); /* 16 rounds: the thrash of the first round still counts */
	assert_int_equal(s.decision.no_progress_loops, MAX_RECLAIM_RETRIES);
	v1_scope(&s, &c, 0, 1600);
	assert_int_equal(rounds_to_oom(&s, &c, THRASH_FAILCNT, THRASH, false, 3), 0);
	silent = 0;
	do {
		step_read(&s, &c, 0, 0, 0, false);
		silent++;
	} while (s.round.is_round && silent < 40);
	/* out of the span once the thrash lies more than 3 s (30 rounds) back */
	assert_int_equal(silent, 30);
	assert_true(s.retry.no_progress_loops > 0);
	for (int i = 0; i < SCOPE_QUIET_ROUNDS_RESET - 2; i++)
		step_read(&s, &c, 0, 0, 0, false);
	assert_true(s.retry.no_progress_loops > 0);
	step_read(&s, &c, 0, 0, 0, false);
	assert_int_equal(s.retry.no_progress_loops, 0);

	/* A span partly refaults (a cold read beside a few rereads) holds the count. */
	v1_scope(&s, &c, 0, 1600);
	assert_int_equal(rounds_to_oom(&s, &c, THRASH_FAILCNT, THRASH, false, 5), 0);
	step_read(&s, &c, 1, 300, 4000, false); /* with the last thrash round: 900 of 4600 */
	assert_true(s.round.hold);
	assert_int_equal(s.retry.no_progress_loops, 5);
	assert_false(s.oom);

	/* 200 refaults a round: the first round's span is under PROGRESS_SPAN_PAGES (no verdict,
	 * the round still counts for its refaults, with progress); the second judges.
	 * Counters that land a round apart (the refaults of a batch, then its reads) are judged
	 * together: no clean round between them. */
	v1_scope(&s, &c, 0, 1600);
	step(&s, &c, THRASH_FAILCNT, 200, false);
	assert_int_equal(s.round.thrash, THRASH_NONE);
	assert_true(s.round.progress);
	assert_int_equal(rounds_to_oom(&s, &c, THRASH_FAILCNT, 200, false, 100), 16);
	v1_scope(&s, &c, 0, 1600);
	assert_int_equal(rounds_to_oom(&s, &c, THRASH_FAILCNT, THRASH, false, 5), 0);
	step_read(&s, &c, THRASH_FAILCNT, 1876, 0, false);
	step_read(&s, &c, 0, 172, 2048, false);
	assert_int_equal(s.round.thrash, THRASH_YES);
	assert_int_equal(s.decision.no_progress_loops, 7);
	/* A slow disk: a batch's 2,048 refaults in one round (4 charges failed), its reads let
	 * through 200 a round for the next 2 s; then the next batch. Every round is a thrashing
	 * one. */
	v1_scope(&s, &c, 0, 1600);
	for (int batch = 0; batch < 2; batch++) {
		step_read(&s, &c, THRASH_FAILCNT, 2048, 0, false);
		for (int i = 0; i < 10; i++) {
			step_read(&s, &c, 0, 0, 200, false);
			if (batch)
				assert_int_equal(s.round.thrash, THRASH_YES);
		}
	}
	assert_int_equal(s.decision.no_progress_loops, 22); /* all 22 rounds */

	/* Refaults that no failed charge of the group's came with: the machine's reclaim took
	 * pages of a group below its limit (measured: one round of 512 refaults of a working set
	 * that fits, 24 MiB free, then none; the span kept them for 1.7 s and the reader was
	 * killed). No thrash, however long the span keeps them; the same burst with its failed
	 * charges is the group's own. */
	v1_scope(&s, &c, 6148, 1600);
	step_read(&s, &c, 0, 512, 512, false);
	for (int i = 0; i < 30; i++) {
		step_read(&s, &c, 0, 0, 0, false);
		assert_int_not_equal(s.round.thrash, THRASH_YES);
	}
	assert_false(s.oom);
	assert_int_equal(s.retry.no_progress_loops, 0);
	v1_scope(&s, &c, 0, 1600);
	step_read(&s, &c, 1, 512, 512, false);
	for (int i = 0; i < 16 && !s.oom; i++)
		step_read(&s, &c, 0, 0, 0, false);
	assert_true(s.oom);

	/* A slow disk at the kernel's default read-ahead (measured at 4 MiB/s, 128 KiB): 128-256
	 * refaults in most rounds, every page read a refault, but the group's charges fail in
	 * bursts, with rounds between that fail none. A span of two rounds can fall between two
	 * bursts: the failed charges of the last second make the refaults the group's own, and every
	 * round is a thrashing one (without the second, a span with none said "no thrash", and the
	 * round counted as progress: the count went back to 0 after 7 rounds). */
	v1_scope(&s, &c, 0, 1600);
	for (int i = 0; i < 20 && !s.oom; i++) {
		step_read(&s, &c, i % 5 ? 0 : 20, 128, 128, false);
		if (i >= 2)
			assert_int_equal(s.round.thrash, THRASH_YES);
	}
	assert_true(s.oom);
	/* One failed charge, then only refaults: past the second, the span has none. */
	v1_scope(&s, &c, 6148, 1600);
	step_read(&s, &c, 1, 128, 128, false);
	for (int i = 0; i < SCOPE_WINDOW_ROUNDS + 5; i++)
		step_read(&s, &c, 0, 128, 128, false);
	assert_int_equal(s.round.thrash, THRASH_NONE);
	assert_false(s.oom);

	/* A kill that freed memory resets the count and the window. */
	v1_scope(&s, &c, 0, 1600);
	assert_int_equal(rounds_to_oom(&s, &c, THRASH_FAILCNT, THRASH, false, 5), 0);
	scope_oom_progress(&s);
	assert_int_equal(s.retry.no_progress_loops, 0);
	assert_int_equal(s.hist_len, 1);
	step(&s, &c, 0, 0, false);
	assert_false(s.round.is_round);
}

/*
 * Refaults long past (progress.h): a burst of refaults, then silence in which no task waits
 * for a read (measured in bench/machine's leak with zram: 1,107 swap-ins in 0.8 s, then
 * nothing; every quiet round said thrashing until the count reached 16 and the leak was killed
 * with 1.9 GiB of swap free). The rounds of the burst count; once the silence reaches
 * PROGRESS_SILENCE_MIN_USEC the count is held, and once the burst leaves the span the rounds are
 * quiet and SCOPE_QUIET_ROUNDS_RESET of them end the "allocation". The same silence with the
 * tasks waiting for reads is a slow disk's pause: it counts (test_progress_and_quiet_reset);
 * unmeasured, it counts as before.
 */
/* What the span says after 8 rounds of thrash and 200 ms of silence with @io of I/O stall a
 * round. */
static enum thrash_state after_silence(uint64_t io)
{
	struct scope s;
	struct config c;

	v1_scope(&s, &c, 0, 1600);
	io_wait = MS100;
	assert_int_equal(rounds_to_oom(&s, &c, THRASH_FAILCNT, THRASH, false, 8), 0);
	io_wait = io;
	step_read(&s, &c, 0, 0, 0, false);
	step_read(&s, &c, 0, 0, 0, false);
	io_wait = MS100;
	return s.round.thrash;
}

/* After 8 rounds of thrash: 4 rounds of silence with @io of I/O stall each, only the last of
 * them read; what the span says. */
static enum thrash_state silence_read_at_ends(uint64_t io)
{
	struct scope s;
	struct config c;

	v1_scope(&s, &c, 0, 1600);
	io_wait = MS100;
	io_unread = false;
	assert_int_equal(rounds_to_oom(&s, &c, THRASH_FAILCNT, THRASH, false, 8), 0);
	io_wait = io;
	io_unread = true;
	for (int i = 0; i < 3; i++)
		step_read(&s, &c, 0, 0, 0, false);
	io_unread = false;
	step_read(&s, &c, 0, 0, 0, false);
	assert_true(s.sample.has_silence_io);
	assert_int_equal(s.sample.silence_usec, 4 * MS100);
	assert_int_equal(s.sample.silence_io_stall_usec, 4 * io);
	io_wait = MS100;
	return s.round.thrash;
}

static void test_silence_without_io_wait(void **state)
{
	struct scope s;
	struct config c;
	int i, held = 0, stale = 0;

	(void)state;
	v1_scope(&s, &c, 0, 1600);
	assert_int_equal(rounds_to_oom(&s, &c, THRASH_FAILCNT, THRASH, false, 8), 0);
	assert_int_equal(s.decision.no_progress_loops, 8);
	io_wait = 0;
	for (i = 0; i < 60 && !s.oom; i++) {
		step_read(&s, &c, 0, 0, 0, false);
		if (i == 0) /* 100 ms of silence: too short to tell from a pause between reads */
			assert_int_equal(s.round.thrash, THRASH_YES);
		if (s.round.thrash == THRASH_STALE) {
			assert_true(s.round.hold);
			assert_string_equal(s.decision.reason, "count held");
			stale++;
		}
		held += s.round.hold;
	}
	assert_false(s.oom);
	assert_int_equal(s.retry.no_progress_loops, 0); /* the quiet rounds reset it */
	assert_int_equal(s.sample.silence_usec, 31 * MS100); /* the history: 32 rounds */
	assert_true(s.sample.has_silence_io);
	assert_int_equal(s.sample.silence_io_stall_usec, 0);
	/* Held from 200 ms of silence until the burst leaves the span at 3 s; stale until the
	 * last round's 600 refaults over the span fall under 256 a second (2.3 s), mixed after. */
	assert_int_equal(held, 28);
	assert_int_equal(stale, 21);
	assert_int_equal(s.decision.no_progress_loops, 0);

	/* I/O waits under half the silence still say "nobody waits"; half or more do not. */
	assert_int_equal(after_silence(MS100 / 2 - 1), THRASH_STALE);
	assert_int_equal(after_silence(MS100 / 2), THRASH_YES);

	/* A busy machine (two CPUs busy every moment): PSI halves one task's wait, and the busy
	 * CPU time gives it back; without /proc/stat the half reads as nobody waiting. */
	cpu_busy = 2 * MS100;
	assert_int_equal(after_silence(MS100 / 2 - 1), THRASH_YES);
	assert_int_equal(after_silence(MS100 / 4 - 1), THRASH_STALE);
	cpu_busy = SCOPE_IO_UNKNOWN;
	assert_int_equal(after_silence(MS100 / 2 - 1), THRASH_STALE);
	cpu_busy = 0;

	/* Unmeasured (no PSI, or a quiet round that read nothing): judged as before. */
	v1_scope(&s, &c, 0, 1600);
	io_wait = MS100;
	assert_int_equal(rounds_to_oom(&s, &c, THRASH_FAILCNT, THRASH, false, 8), 0);
	io_wait = 0;
	io_unread = true;
	for (i = 0; i < 8; i++)
		step_read(&s, &c, 0, 0, 0, false);
	assert_true(s.oom);
	assert_false(s.sample.has_silence_io);

	/* Read at its two ends only (quiet rounds between): the total tells what the rounds
	 * between waited, nothing or every moment. */
	assert_int_equal(silence_read_at_ends(0), THRASH_STALE);
	assert_int_equal(silence_read_at_ends(MS100), THRASH_YES);
	io_wait = MS100;
}

/*
 * A read-ahead batch whose refaults count a round before its reads (the thrash grid at 4 MiB/s,
 * +50 % anon, 90 % read, 8 MiB read-ahead, grid-s10): 1,504 refaults, then 2,048 reads and 544
 * refaults, then 18 rounds waiting for the next batch. The span pairs the batch's refaults with
 * its reads: thrashing through the wait, OOM within 2 s of the first batch (without, every
 * wait was held as mixed: not in 4 batches here; the grid cell was killed 4.18 s after its
 * onset). @lead: the refaults of the round before the reads.
 */
static int rounds_to_oom_in_batches(uint64_t lead)
{
	struct scope s;
	struct config c;
	int rounds = 0;

	v1_scope(&s, &c, 0, 1600);
	io_wait = MS100;
	for (int batch = 0; batch < 4 && !s.oom; batch++) {
		step_read(&s, &c, THRASH_FAILCNT, lead, 0, false);
		step_read(&s, &c, THRASH_FAILCNT, 2048 - lead, 2048, false);
		rounds += 2;
		for (int i = 0; i < 18 && !s.oom; i++, rounds++)
			step_read(&s, &c, 0, 0, 0, false);
	}
	return s.oom ? rounds : -1;
}

/* The span's refaults a round after @lead refaults (@anon of them swap-ins) without reads,
 * then 2,048 reads with @with refaults, then a quiet round; the group's reads are @reads'. */
static uint64_t span_after(uint64_t lead, uint64_t anon, uint64_t with, enum scope_reads reads)
{
	struct scope s;
	struct config c;

	v1_scope(&s, &c, 0, 1600);
	s.reads = reads;
	step_read(&s, &c, 0, 0, 0, false);
	s.cur.refaulted_anon += anon;
	step_read(&s, &c, THRASH_FAILCNT, lead, 0, false);
	step_read(&s, &c, THRASH_FAILCNT, with, 2048, false);
	step_read(&s, &c, 0, 0, 0, false);
	return s.sample.span_refaulted_pages;
}

static void test_batch_refaults_before_reads(void **state)
{
	(void)state;
	assert_int_equal(rounds_to_oom_in_batches(1504), 16);
	assert_int_equal(rounds_to_oom_in_batches(0), 17); /* the two counters together */
	assert_int_equal(span_after(1504, 0, 544, READS_V1_BLKIO), 2048); /* the batch's */
	assert_int_equal(span_after(1504, 0, 544, READS_V2_IO_STAT), 2048);
	/* Not taken in: more refaults than the reads they would be paired with; swap-ins, which
	 * read no file; reads counted at submission with their refaults (the machine's pgpgin);
	 * a span at the strictest share a span is judged by already, the read-ahead rule's 15/16
	 * (1,922 of 2,048; its rate is not spread over more time). Under it, a span at the
	 * thrashing share is taken in too: 904 of 1,024 reads, 120 refaults the round before,
	 * held the count in a room of four windows (thrash-4mibs-read-room4-skew.trace). */
	assert_int_equal(span_after(1505, 0, 544, READS_V1_BLKIO), 544);
	assert_int_equal(span_after(1504, 1, 544, READS_V1_BLKIO), 544);
	assert_int_equal(span_after(1504, 0, 544, READS_MACHINE), 544);
	assert_int_equal(span_after(100, 0, 1922, READS_V1_BLKIO), 1922);
	assert_int_equal(span_after(100, 0, 1921, READS_V1_BLKIO), 2021);
	assert_int_equal(span_after(500, 0, 1024, READS_V1_BLKIO), 1524);
}

/*
 * A room of 3.75 read-ahead windows of 2048 pages (progress.h, "Read-ahead larger than the
 * room"): after a cold pass of fresh reads, rounds whose span is all refaults but whose last
 * window of reads still has fresh pages are held as pending. A loop fills the window with
 * refaults, and the pending rounds count then: it reaches OOM one round later than where no
 * read-ahead is known (its first round's span still has fresh pages: held, not pending). A
 * stream's burst is followed by fresh reads, and its pending rounds are forgotten.
 */
static int pending_case(uint64_t readahead, int refault_rounds, uint64_t *ret_pending)
{
	struct scope s;
	struct config c;
	int i;

	v1_scope(&s, &c, 0, 7680);
	s.readahead_pages = readahead;
	for (i = 0; i < 20; i++)
		step_read(&s, &c, THRASH_FAILCNT, 0, 256, false);
	for (i = 1; i <= refault_rounds; i++) {
		step_read(&s, &c, THRASH_FAILCNT, 256, 256, false);
		if (s.oom)
			return i;
	}
	*ret_pending = s.pending_rounds;
	for (i = 0; i < 4; i++) /* fresh reads again */
		step_read(&s, &c, THRASH_FAILCNT, 0, 256, false);
	return -s.decision.no_progress_loops;
}

static void test_pending_window(void **state)
{
	uint64_t pending = 0;
	int plain;

	(void)state;
	plain = pending_case(0, 100, &pending);
	assert_true(plain > 8);
	/* one round later: the first round's span (two rounds) has the last fresh pages */
	assert_int_equal(pending_case(2048, 100, &pending), plain + 1);
	/* a burst of four rounds of refaults, then fresh reads: held, then forgotten */
	assert_int_equal(pending_case(2048, 4, &pending), 0);
	assert_int_equal(pending, 3);
	assert_true(pending_case(0, 4, &pending) < 0); /* counted where no read-ahead is known */
}

/* A stream whose rounds alternate refaults and fresh pages has fresh pages in every span: held,
 * never pending; a run of refaults after it counts its own pending rounds only. */
static void test_pending_stream_never_pends(void **state)
{
	struct scope s;
	struct config c;
	int i;

	(void)state;
	v1_scope(&s, &c, 0, 7680);
	s.readahead_pages = 2048;
	for (i = 0; i < 20; i++)
		step_read(&s, &c, THRASH_FAILCNT, 0, 256, false);
	for (i = 0; i < 20; i++)
		step_read(&s, &c, THRASH_FAILCNT, i % 2 ? 0 : 256, 256, false);
	assert_int_equal(s.decision.no_progress_loops, 0);
	assert_int_equal(s.pending_rounds, 0);
	for (i = 0; i < 8; i++)
		step_read(&s, &c, THRASH_FAILCNT, 256, 256, false);
	assert_false(s.oom);
	assert_int_equal(s.decision.no_progress_loops, 7);
}

/* In a room under three read-ahead windows a burst of refaults does not pend: a stream there
 * rereads its own read-ahead (long share over its bound, 78 % here), and its burst's rounds are
 * held, so the first round whose window is all refaults counts one, not the burst's six
 * (progress.h, "Read-ahead larger than the room"). */
static void test_pending_not_in_small_room(void **state)
{
	struct scope s;
	struct config c;
	int i;

	(void)state;
	v1_scope(&s, &c, 0, 2880); /* 1.4 windows */
	s.readahead_pages = 2048;
	for (i = 0; i < 20; i++)
		step_read(&s, &c, THRASH_FAILCNT, 200, 256, false);
	assert_int_equal(s.decision.no_progress_loops, 0);
	for (i = 0; i < 5; i++) {
		step_read(&s, &c, THRASH_FAILCNT, 256, 256, false);
		assert_int_equal(s.round.thrash, THRASH_READAHEAD);
	}
	assert_int_equal(s.pending_rounds, 0);
	step_read(&s, &c, THRASH_FAILCNT, 256, 256, false); /* the window: 1,936 of 2,048 */
	assert_int_equal(s.round.thrash, THRASH_YES);
	assert_int_equal(s.decision.no_progress_loops, 1);
}

/* A pending round in a group whose PSI stall is over the bound is counted by the stall (rule 5),
 * not added to the pending ones; those before it are kept for the window's verdict. */
static void test_pending_psi_counted(void **state)
{
	struct scope s;
	struct config c;
	int i, loops;

	(void)state;
	v1_scope(&s, &c, 0, 7680);
	s.kind = SCOPE_CGROUP_V2; /* PSI measured */
	s.readahead_pages = 2048;
	for (i = 0; i < 20; i++)
		step_read(&s, &c, THRASH_FAILCNT, 0, 256, false);
	for (i = 0; i < 3; i++)
		step_read(&s, &c, THRASH_FAILCNT, 256, 256, false);
	assert_int_equal(s.round.thrash, THRASH_PENDING);
	assert_int_equal(s.pending_rounds, 2);
	loops = s.decision.no_progress_loops;
	s.cur.stall_usec += 700000; /* 0.7 s of memory stall in the round: over the bound */
	step_read(&s, &c, THRASH_FAILCNT, 256, 256, false);
	assert_int_equal(s.round.thrash, THRASH_PENDING);
	assert_false(s.round.hold);
	assert_int_equal(s.decision.no_progress_loops, loops + 1);
	assert_int_equal(s.pending_rounds, 2);
}

/*
 * What a writer dirtied (progress.h "Refaults beside writes"): a v2 group's io.stat counts pages
 * once their writeback is submitted, so the growth of its dirty pages (not of those under
 * writeback, counted already) is added; the machine's nr_dirtied counts the dirtying, and is
 * taken as it is. And the demand (anon + swap) growth over the same 3 s, known for the machine
 * and a v2 group that has memory.swap.current.
 */
static void test_writer_dirtied(void **state)
{
	struct scope s;
	struct config c;

	(void)state;
	for (int kind = 0; kind < 2; kind++) {
		v1_scope(&s, &c, 0, 8000);
		s.kind = kind ? SCOPE_MACHINE : SCOPE_CGROUP_V2;
		s.reads = kind ? READS_MACHINE : READS_V2_IO_STAT;
		s.cur.counts_reclaim = true; /* vmstat's and a v2 memory.stat's pgsteal */
		for (int i = 0; i < 10; i++) {
			s.cur.zones[0].write_pending += 700; /* dirty + writeback: 7,000 in 1 s */
			s.cur.dirty_bytes += 500ull << 12;   /* of which dirty: 5,000 */
			s.cur.written_pages += 10;
			s.cur.anon_bytes += 100ull << 12;
			s.cur.swap_bytes += 50ull << 12;
			step(&s, &c, THRASH_FAILCNT, THRASH, false);
		}
		assert_int_equal(s.sample.recent_written_pages, kind ? 100 : 100 + 5000);
		assert_true(s.sample.has_demand);
		assert_int_equal(s.sample.recent_demand_grown_pages, 1500);
	}
	/* a v2 group without memory.swap.current, and a v1 group: the demand is not known */
	s.kind = SCOPE_CGROUP_V2;
	s.missing |= 1u << V2_SWAP_CURRENT;
	step(&s, &c, THRASH_FAILCNT, THRASH, false);
	assert_false(s.sample.has_demand);
	s.kind = SCOPE_CGROUP_V1;
	s.missing = 0;
	step(&s, &c, THRASH_FAILCNT, THRASH, false);
	assert_false(s.sample.has_demand);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kernel_kill_is_progress),
	    cmocka_unit_test(test_thrash_reaches_oom),
	    cmocka_unit_test(test_healthy_never_oom),
	    cmocka_unit_test(test_machine_free_plenty),
	    cmocka_unit_test(test_progress_and_quiet_reset),
	    cmocka_unit_test(test_silence_without_io_wait),
	    cmocka_unit_test(test_batch_refaults_before_reads),
	    cmocka_unit_test(test_pending_window),
	    cmocka_unit_test(test_pending_stream_never_pends),
	    cmocka_unit_test(test_pending_psi_counted),
	    cmocka_unit_test(test_pending_not_in_small_room),
	    cmocka_unit_test(test_writer_dirtied),
	    cmocka_unit_test(test_swap_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
