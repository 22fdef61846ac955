// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: parse_cgroup_cpu_usage_buf() (v2 cpu.stat). */
#include "fuzz.h"
#include "linux/cgroupfs.h"

FUZZ_COUNTERS_HARNESS(struct cgroup_cpu_usage, parse_cgroup_cpu_usage_buf)
