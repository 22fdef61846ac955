// SPDX-License-Identifier: GPL-2.0-only
/* swap_end_near() on the counters of bench/machine's fit with zram (s39, 7 December 2026:
 * mb_sample's SwapFree, KiB, a second apart) and at its edges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "policy/swap_end.h"

#define HORIZON_USEC 1600000ULL /* 16 rounds of 100 ms */

/* SwapFree @before and @now KiB a second apart, nothing else available, growing */
static struct swap_end kib_second(uint64_t before, uint64_t now)
{
	return (struct swap_end){.has_swap = true,
				 .left_pages = now / 4,
				 .avail_pages = 0,
				 .grown_pages = (before - now) / 4,
				 .span_usec = 1000000,
				 .growing = true,
				 .horizon_usec = HORIZON_USEC};
}

/* The 3072 MiB job, which does not fit: 1.2 s from full at 79 MiB/s, 3.6 s before the
 * kernel's kill; a second earlier 3.3 s from full, not yet. */
static void test_job_that_cannot_fit(void **state)
{
	struct swap_end at24 = kib_second(175356, 95996), at23 = kib_second(228860, 175356);

	(void)state;
	assert_true(swap_end_near(&at24));
	assert_false(swap_end_near(&at23));
}

/* The 2816 MiB job, which fits: at its last second of growth 6.3 s from full (42 MiB/s), and
 * then it stops growing (253 MiB left) */
static void test_job_that_fits(void **state)
{
	struct swap_end at26 = kib_second(307196, 265212), at27 = kib_second(265212, 253692);

	(void)state;
	assert_false(swap_end_near(&at26));
	assert_false(swap_end_near(&at27));
	at27.growing = false;
	at27.left_pages = 100; /* even a step from full: a job that stopped is no pace */
	assert_false(swap_end_near(&at27));
}

static void test_what_is_available_counts(void **state)
{
	struct swap_end e = kib_second(175356, 95996);

	(void)state;
	e.avail_pages = 200 * 256; /* 200 MiB of MemAvailable: 4.2 s at that pace */
	assert_false(swap_end_near(&e));
	e.avail_pages = 5 * 256;
	assert_true(swap_end_near(&e));
}

static void test_no_swap_short_span_trickle(void **state)
{
	struct swap_end e = kib_second(175356, 95996);

	(void)state;
	e.has_swap = false;
	assert_false(swap_end_near(&e));
	e = kib_second(175356, 95996);
	e.span_usec = SWAP_END_MIN_SPAN_USEC - 1;
	assert_false(swap_end_near(&e));
	e.span_usec = SWAP_END_MIN_SPAN_USEC;
	assert_true(swap_end_near(&e));
	/* 100 pages a second, 50 pages left: a trickle, whatever is left */
	e = (struct swap_end){true, 50, 0, 100, 1000000, true, HORIZON_USEC};
	assert_false(swap_end_near(&e));
	e.grown_pages = SWAP_END_MIN_RATE_PAGES; /* 1 MiB/s: 0.2 s from full */
	assert_true(swap_end_near(&e));
	e.grown_pages = 0; /* full and still: the seed's count has it, not this rule */
	e.left_pages = 0;
	assert_false(swap_end_near(&e));
}

/* Exactly at the horizon is not within it; products past 64 bits */
static void test_bounds(void **state)
{
	struct swap_end e = {true, 1600, 0, 1000, 1000000, true, HORIZON_USEC};

	(void)state;
	assert_false(swap_end_near(&e)); /* 1.6 s left of a 1.6 s horizon */
	e.left_pages = 1599;
	assert_true(swap_end_near(&e));
	e.grown_pages = UINT64_MAX / 2; /* a pace past any disk */
	assert_true(swap_end_near(&e));
	e.left_pages = UINT64_MAX / 2; /* more swap than any host */
	e.grown_pages = 1000;
	assert_false(swap_end_near(&e));
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job_that_cannot_fit),
		cmocka_unit_test(test_job_that_fits),
		cmocka_unit_test(test_what_is_available_counts),
		cmocka_unit_test(test_no_swap_short_span_trickle),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
