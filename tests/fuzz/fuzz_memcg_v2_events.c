// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: parse_memcg_v2_events_buf() (v2 memory.events). */
#include "fuzz.h"
#include "linux/cgroupfs.h"

FUZZ_COUNTERS_HARNESS(struct memcg_v2_events, parse_memcg_v2_events_buf)
