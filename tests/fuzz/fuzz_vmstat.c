// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: parse_vmstat_buf() (/proc/vmstat). */
#include "fuzz.h"
#include "linux/procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *b = fuzz_buf(data, size);
	struct proc_vmstat v;
	int r = parse_vmstat_buf(b, &v);

	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE || r == -ENODATA);
	if (r == 0) {
		const uint64_t *f = (const uint64_t *)&v;

		for (size_t i = 0; i < sizeof(v) / sizeof(*f); i++)
			FUZZ_CHECK(f[i] < FUZZ_WRAPPED_MIN);
	}
	free(b);
	return 0;
}
