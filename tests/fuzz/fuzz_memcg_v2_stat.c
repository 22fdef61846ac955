// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: parse_memcg_v2_stat_buf() (v2 memory.stat). */
#include "fuzz.h"
#include "linux/cgroupfs.h"

FUZZ_COUNTERS_HARNESS(struct memcg_v2_stat, parse_memcg_v2_stat_buf)
