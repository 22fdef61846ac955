// SPDX-License-Identifier: GPL-2.0-only
/* Swap's end in sight: the verdict the seed's count cannot reach in time (swap_end.h). */
#include "policy/swap_end.h"

bool swap_end_near(const struct swap_end *e)
{
	uint64_t floor, left, pace;

	if (!e->has_swap || !e->growing || e->span_usec < SWAP_END_MIN_SPAN_USEC)
		return false;
	/* grown / span under the floor rate, compared as products */
	if (!__builtin_mul_overflow(e->grown_pages, 1000000ULL, &pace) &&
	    !__builtin_mul_overflow(SWAP_END_MIN_RATE_PAGES, e->span_usec, &floor) && pace < floor)
		return false;
	/* (left + avail) / (grown / span) < horizon, as products; a product past 64 bits is the
	 * larger side (no host has that much swap, nor fills it that fast) */
	if (__builtin_mul_overflow(e->left_pages + e->avail_pages, e->span_usec, &left))
		return false;
	if (__builtin_mul_overflow(e->grown_pages, e->horizon_usec, &pace))
		return true;
	return left < pace;
}
