// SPDX-License-Identifier: GPL-2.0-only
// The guest's fincore (its busybox has none): prints how much of FILE the page cache holds, in
// KiB, from mincore() over a shared mapping of it (as root, or the file's owner, mincore() reports
// the page cache's pages whoever read them). An empty file holds 0.
// Usage: vm_fincore FILE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *vec;
	uint64_t pages, held = 0;
	struct stat st;
	void *map;
	int fd;

	if (argc != 2 || page <= 0) {
		fprintf(stderr, "usage: vm_fincore FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "vm_fincore: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (st.st_size <= 0) {
		printf("0\n");
		return 0;
	}
	pages = ((uint64_t)st.st_size + (uint64_t)page - 1) / (uint64_t)page;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	vec = malloc((size_t)pages);
	if (map == MAP_FAILED || !vec || mincore(map, (size_t)st.st_size, vec) < 0) {
		fprintf(stderr, "vm_fincore: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (uint64_t i = 0; i < pages; i++)
		held += vec[i] & 1;
	printf("%llu\n", (unsigned long long)(held * (uint64_t)page / 1024));
	return 0;
}
