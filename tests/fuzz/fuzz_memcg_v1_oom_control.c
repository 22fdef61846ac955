// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: parse_memcg_v1_oom_control_buf() (v1 memory.oom_control). */
#include "fuzz.h"
#include "linux/cgroupfs.h"

FUZZ_COUNTERS_HARNESS(struct memcg_v1_oom_control, parse_memcg_v1_oom_control_buf)
