// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: parse_mountinfo_buf() (/proc/self/mountinfo). */
#include <limits.h>

#include "fuzz.h"
#include "linux/cgroupfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cgroup_mounts m;
	char *b = fuzz_buf(data, size);
	int r = parse_mountinfo_buf(b, &m);

	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r == 0) {
		FUZZ_CHECK(fuzz_terminated(m.v1_memory, sizeof(m.v1_memory)));
		FUZZ_CHECK(fuzz_terminated(m.v2, sizeof(m.v2)));
		FUZZ_CHECK(!m.v2[0] || strstr(b, " - cgroup2 "));
		FUZZ_CHECK(!m.v1_memory[0] || strstr(b, " - cgroup "));
	}
	free(b);
	return 0;
}
