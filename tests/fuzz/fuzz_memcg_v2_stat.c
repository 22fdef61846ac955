// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: parse_memcg_v2_stat_buf() (v2 memory.stat). */
#include "fuzz.h"
#include "linux/cgroupfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *b = fuzz_buf(data, size);
	struct memcg_v2_stat s;
	int r = parse_memcg_v2_stat_buf(b, &s);

	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE || r == -ENODATA);
	if (r == 0) {
		const uint64_t *f = (const uint64_t *)&s;

		for (size_t i = 0; i < sizeof(s) / sizeof(*f); i++)
			FUZZ_CHECK(f[i] < FUZZ_WRAPPED_MIN);
	}
	free(b);
	return 0;
}
