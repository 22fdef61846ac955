// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: parse_cpu_ticks_buf() (/proc/stat's "cpu" line). */
#include "fuzz.h"
#include "linux/procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *b = fuzz_buf(data, size);
	struct cpu_ticks t = {7, 7, 7};
	int r = parse_cpu_ticks_buf(b, &t);

	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
	if (r == 0)
		FUZZ_CHECK(t.iowait <= t.busy && t.busy <= t.total && t.total < FUZZ_WRAPPED_MIN);
	else
		FUZZ_CHECK(t.busy == 7 && t.iowait == 7 && t.total == 7); /* untouched on error */
	free(b);
	return 0;
}
