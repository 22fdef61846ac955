// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: parse_vmstat_buf() (/proc/vmstat). */
#include "fuzz.h"
#include "linux/procfs.h"

FUZZ_COUNTERS_HARNESS(struct proc_vmstat, parse_vmstat_buf)
