// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: a group's bytes read and written, v1 blkio (parse_blkio_io_bytes_buf())
 * and v2 io.stat (parse_io_stat_bytes_buf()); the input's first byte picks the parser (even:
 * blkio, odd: io.stat), the rest is the file. */
#include "fuzz.h"
#include "linux/cgroupfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct io_bytes io = {UINT64_MAX - 1, UINT64_MAX - 1};
	char *b;
	int r;

	if (!size)
		return 0;
	b = fuzz_buf(data + 1, size - 1);
	r = data[0] & 1 ? parse_io_stat_bytes_buf(b, &io) : parse_blkio_io_bytes_buf(b, &io);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
	/* the result is written only on success: a failed read leaves the caller's values */
	if (r < 0)
		FUZZ_CHECK(io.read == UINT64_MAX - 1 && io.written == UINT64_MAX - 1);
	free(b);
	return 0;
}
