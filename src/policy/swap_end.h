/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef OOMGUARD_POLICY_SWAP_END_H
#define OOMGUARD_POLICY_SWAP_END_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Swap's end in sight (docs/daemon-design.md, "Swap's end"). Reclaim into swap is progress up
 * to the last free slot: each page written out frees one, so the seed's count of rounds
 * without progress is reset round after round while swap fills, and starts only once it is
 * full. The kernel's own count runs in the allocating tasks, many rounds to one of ours, and
 * ends in its OOM killer soon after: in bench/machine's fit with zram, 1.7 s after SwapFree
 * reached 0, and the probe froze from that moment (a 3072 MiB job on 2 GiB and 1.9 GiB of
 * zram). So when swap fills at a pace that leaves it full, with what is still available,
 * before our count could end (@horizon_usec: MAX_RECLAIM_RETRIES rounds), the count cannot
 * win that race, and the verdict is given now. A job that stops growing short of the end
 * (the fit's 2816 MiB job: its swap 248 MiB from full at 55 MiB/s, 4.5 s away) is spared.
 */

/* A pace is read over at least this much time ... */
#define SWAP_END_MIN_SPAN_USEC 500000ULL
/* ... and is no pace under this many pages a second (1 MiB/s of 4 KiB pages) */
#define SWAP_END_MIN_RATE_PAGES 256ULL

/*
 * struct swap_end - a scope's swap, as one verdict reads it.
 * @has_swap:     the scope has swap at all (the machine's SwapTotal > 0)
 * @left_pages:   swap free (SwapFree)
 * @avail_pages:  memory still available besides swap (MemAvailable)
 * @grown_pages:  how much swap in use grew over @span_usec (0 when it shrank)
 * @span_usec:    the time @grown_pages covers
 * @growing:      swap in use grew in the newest round too (a job that stopped is no pace)
 * @horizon_usec: how long the count would need from now (MAX_RECLAIM_RETRIES rounds)
 */
struct swap_end {
	bool has_swap;
	uint64_t left_pages;
	uint64_t avail_pages;
	uint64_t grown_pages;
	uint64_t span_usec;
	bool growing;
	uint64_t horizon_usec;
};

/*
 * swap_end_near() - true when, at the pace swap in use grew over @e->span_usec, swap and what
 * is still available are gone within @e->horizon_usec; false without swap, with a span under
 * SWAP_END_MIN_SPAN_USEC, a pace under SWAP_END_MIN_RATE_PAGES a second, or no growth in the
 * newest round.
 */
bool swap_end_near(const struct swap_end *e);

#endif
