// SPDX-License-Identifier: GPL-2.0-only
// The guest's memory eater: maps SIZE_MIB of private anonymous memory, touches every page, then
// marks itself ready (an empty file READY_DIR/PID when a directory is given) and waits for a signal.
// -z RATIO fills each page to compress about RATIO to 1 in zram (tools/tool_util.h, tool_fill;
// default 0: one byte a page).
// Usage: vm_eater [-z RATIO] SIZE_MIB [READY_DIR]
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../tools/tool_util.h"

/**
 * mark_ready() - tell the test script that every page of this eater is populated.
 * @dir: directory where an empty file named after our pid is created
 *
 * Return: 0, or -errno when the file could not be created.
 */
static int mark_ready(const char *dir)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%d", dir, (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long size_mib;
	size_t size_bytes;
	unsigned long ratio = 0;
	uint64_t rng = tool_fill_seed();
	char *end;
	unsigned char *mem;

	if (argc >= 3 && !strcmp(argv[1], "-z")) {
		ratio = tool_parse_ratio("vm_eater", argv[2]);
		argc -= 2;
		argv += 2;
	}
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: vm_eater [-z RATIO] SIZE_MIB [READY_DIR]\n");
		return 2;
	}
	errno = 0;
	size_mib = strtoul(argv[1], &end, 10);
	if (errno || *end || size_mib == 0) {
		fprintf(stderr, "vm_eater: bad size '%s'\n", argv[1]);
		return 2;
	}
	size_bytes = (size_t)size_mib << 20;
	mem = mmap(NULL, size_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		fprintf(stderr, "vm_eater: mmap %lu MiB: %s\n", size_mib, strerror(errno));
		return 1;
	}
	/* Every page written (none stays the shared zero page), as -z asks. */
	tool_fill(mem, 0, size_bytes, ratio, &rng);
	if (argc == 3 && mark_ready(argv[2]) < 0) {
		fprintf(stderr, "vm_eater: cannot mark ready in %s\n", argv[2]);
		return 1;
	}
	for (;;)
		pause();
}
