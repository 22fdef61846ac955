// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: parse_u64_file_buf() (memory.max, memory.current, limit_in_bytes, ...). */
#include "fuzz.h"
#include "linux/cgroupfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *b = fuzz_buf(data, size);
	uint64_t v = 0;
	int r = parse_u64_file_buf(b, &v);

	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
	if (r == 0)
		FUZZ_CHECK(v < FUZZ_WRAPPED_MIN || v == UINT64_MAX);
	free(b);
	return 0;
}
