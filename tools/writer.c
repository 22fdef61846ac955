// SPDX-License-Identifier: GPL-2.0-only
// writer: a dd-like loop that writes a file in blocks up to a size, optionally fsyncs it, removes
// it and starts over, so that the page cache holds dirty and written-back pages all the time.
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>

#include "tool_util.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: writer [-b BLOCK] [-f] [-n LOOPS] [-v] PATH SIZE\n"
		     "  PATH      the file to write (removed after each loop and on exit)\n"
		     "  SIZE      bytes per loop: 64, 64M, 1G (a bare number is MiB)\n"
		     "  -b BLOCK  write() size (default 1M)\n"
		     "  -f        fsync the file before removing it\n"
		     "  -n LOOPS  stop after LOOPS loops (default 0: until a signal)\n"
		     "  -v        print one line per loop: 'loop N mib=M mib_per_s=R'\n"
		     "Ends with 'done loops=N written_mib=M'.\n");
}

/**
 * write_all() - write @len bytes of @buf to @fd, retrying short writes and EINTR.
 * Return: 0 or -errno.
 */
static int write_all(int fd, const unsigned char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR && !tool_stop)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t size_kib = 0, block_kib = 1024, written_kib = 0;
	unsigned long loops = 0, loop;
	int do_fsync = 0, verbose = 0, opt, rc = 0;
	unsigned char *buf;
	const char *path;

	while ((opt = getopt(argc, argv, "b:fn:vh")) != -1) {
		switch (opt) {
		case 'b':
			if (tool_parse_size_kib(optarg, &block_kib) < 0) {
				fprintf(stderr, "writer: bad block '%s'\n", optarg);
				return 2;
			}
			break;
		case 'f':
			do_fsync = 1;
			break;
		case 'n':
			loops = tool_parse_ulong("writer", "-n", optarg);
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 2 || tool_parse_size_kib(argv[optind + 1], &size_kib) < 0) {
		usage(stderr);
		return 2;
	}
	path = argv[optind];
	if (tool_install_stop_handlers() < 0) {
		perror("writer: sigaction");
		return 1;
	}
	buf = malloc((size_t)block_kib * 1024);
	if (!buf) {
		perror("writer: malloc");
		return 1;
	}
	for (size_t i = 0; i < (size_t)block_kib * 1024; i++)
		buf[i] = (unsigned char)(i * 31 + 7);
	for (loop = 0; !tool_stop && (!loops || loop < loops); loop++) {
		uint64_t start_usec = tool_now_usec(), loop_kib = 0;
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (fd < 0) {
			fprintf(stderr, "writer: open %s: %s\n", path, strerror(errno));
			rc = 1;
			break;
		}
		while (loop_kib < size_kib && !tool_stop) {
			uint64_t chunk_kib =
			    size_kib - loop_kib < block_kib ? size_kib - loop_kib : block_kib;
			int err = write_all(fd, buf, (size_t)chunk_kib * 1024);

			if (err < 0) {
				if (!tool_stop) {
					fprintf(stderr, "writer: write %s: %s\n", path,
						strerror(-err));
					rc = 1;
				}
				break;
			}
			loop_kib += chunk_kib;
		}
		if (do_fsync && !tool_stop && !rc && fsync(fd) < 0) {
			fprintf(stderr, "writer: fsync %s: %s\n", path, strerror(errno));
			rc = 1;
		}
		close(fd);
		unlink(path);
		written_kib += loop_kib;
		if (verbose) {
			uint64_t usec = tool_now_usec() - start_usec;

			printf("loop %lu mib=%" PRIu64 " mib_per_s=%.1f\n", loop + 1,
			       loop_kib / 1024,
			       usec ? (double)loop_kib / 1024.0 / ((double)usec / 1e6) : 0.0);
			fflush(stdout);
		}
		if (rc)
			break;
	}
	unlink(path);
	printf("done loops=%lu written_mib=%" PRIu64 "\n", loop, written_kib / 1024);
	free(buf);
	return rc;
}
