// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: parse_oom_score_adj_buf() (/proc/PID/oom_score_adj). */
#include "fuzz.h"
#include "linux/procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *b = fuzz_buf(data, size);
	int adj = 0, r = parse_oom_score_adj_buf(b, &adj);

	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r == 0)
		FUZZ_CHECK(adj >= -1000 && adj <= 1000);
	free(b);
	return 0;
}
