// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: parse_pid_cgroup_buf() (/proc/PID/cgroup), for the v1 memory hierarchy
 * and for v2, into a path buffer of the daemon's size and into one of 8 bytes. */
#include <limits.h>

#include "fuzz.h"
#include "linux/procfs.h"

static void one(const char *b, const char *controller, char *path, size_t size)
{
	int r = parse_pid_cgroup_buf(b, controller, path, size);

	FUZZ_CHECK(r == 0 || r == -ENOENT || r == -ENAMETOOLONG || r == -EINVAL);
	if (r == 0) {
		FUZZ_CHECK(fuzz_terminated(path, size));
		FUZZ_CHECK(path[0] == '/' && !strchr(path, '\n'));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[PATH_MAX];
	char *b = fuzz_buf(data, size);

	one(b, "memory", path, sizeof(path));
	one(b, NULL, path, sizeof(path));
	one(b, "memory", path, 8);
	one(b, NULL, path, 8);
	free(b);
	return 0;
}
