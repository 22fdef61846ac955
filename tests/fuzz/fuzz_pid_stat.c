// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: parse_pid_stat_buf() (/proc/PID/stat). */
#include "fuzz.h"
#include "linux/procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *b = fuzz_buf(data, size);
	struct pid_stat st;
	int r = parse_pid_stat_buf(b, &st);

	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r == 0) {
		FUZZ_CHECK(st.pid >= 0 && st.ppid >= 0);
		FUZZ_CHECK(fuzz_terminated(st.comm, sizeof(st.comm)));
		FUZZ_CHECK(st.state && st.state != '\n');
		FUZZ_CHECK(st.start_time < FUZZ_WRAPPED_MIN && st.rss_pages < FUZZ_WRAPPED_MIN);
	}
	free(b);
	return 0;
}
