// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: parse_meminfo_buf() (/proc/meminfo, lxcfs' too). */
#include "fuzz.h"
#include "linux/procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *b = fuzz_buf(data, size);
	struct proc_meminfo m;
	int r = parse_meminfo_buf(b, &m);

	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE || r == -ENODATA);
	if (r == 0) {
		FUZZ_CHECK(m.mem_total_kib > 0 && m.mem_total_kib <= PROC_MEMINFO_MAX_KIB);
		FUZZ_CHECK(m.mem_free_kib <= m.mem_total_kib);
		FUZZ_CHECK(m.mem_available_kib <= m.mem_total_kib);
		FUZZ_CHECK(m.swap_total_kib <= PROC_MEMINFO_MAX_KIB);
		FUZZ_CHECK(m.swap_free_kib <= m.swap_total_kib);
	}
	free(b);
	return 0;
}
