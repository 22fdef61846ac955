// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: parse_psi_buf() (/proc/pressure/memory, memory.pressure). */
#include "fuzz.h"
#include "linux/procfs.h"

static void check_line(const struct psi_line *l)
{
	FUZZ_CHECK(l->avg10 <= PSI_AVG_MAX && l->avg60 <= PSI_AVG_MAX && l->avg300 <= PSI_AVG_MAX);
	FUZZ_CHECK(l->total_usec < FUZZ_WRAPPED_MIN);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *b = fuzz_buf(data, size);
	struct psi_stats s;
	int r = parse_psi_buf(b, &s);

	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE || r == -ENODATA);
	if (r == 0) {
		check_line(&s.some);
		if (s.has_full)
			check_line(&s.full);
		else
			FUZZ_CHECK(!s.full.total_usec && !s.full.avg10);
	}
	free(b);
	return 0;
}
