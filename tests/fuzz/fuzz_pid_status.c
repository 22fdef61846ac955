// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: parse_pid_status_buf() (/proc/PID/status). */
#include "fuzz.h"
#include "linux/procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *b = fuzz_buf(data, size);
	struct pid_status st;
	int r = parse_pid_status_buf(b, &st);

	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r == 0) {
		FUZZ_CHECK(st.kthread >= -1 && st.kthread <= 1);
		FUZZ_CHECK(st.rss_kib <= PROC_MEMINFO_MAX_KIB);
		FUZZ_CHECK(st.swap_kib <= PROC_MEMINFO_MAX_KIB);
		FUZZ_CHECK(st.pte_kib <= PROC_MEMINFO_MAX_KIB);
		FUZZ_CHECK(st.has_vm || !st.rss_kib);
	}
	free(b);
	return 0;
}
