// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: parse_memcg_v1_stat_buf() (v1 memory.stat). */
#include "fuzz.h"
#include "linux/cgroupfs.h"

FUZZ_COUNTERS_HARNESS(struct memcg_v1_stat, parse_memcg_v1_stat_buf)
