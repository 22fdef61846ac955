// SPDX-License-Identifier: GPL-2.0-only
// thrasher: holds anonymous memory and rereads a file in a loop, printing its read rate at a fixed
// interval. When anon + file exceed the memory cgroup's limit, the rereads miss the page cache and
// the rate shows the task crawling.
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "tool_util.h"

#define CHUNK_BYTES (1024UL * 1024UL)

static void usage(FILE *out)
{
	fprintf(out,
		"usage: thrasher [-a ANON] [-f FILE_SIZE] [-i MSEC] [-d SEC] [-p PASSES] [-r FD] [-k]\n"
		"                [-m] [-z RATIO] [-w GO] PATH\n"
		"  PATH          the file to reread; written first (FILE_SIZE), removed at exit\n"
		"  -a ANON       anonymous memory to hold (default 0)\n"
		"  -z RATIO      fill the anonymous memory to compress about RATIO to 1 in zram\n"
		"                (default 0: one byte a page, which compresses to almost nothing)\n"
		"  -f FILE_SIZE  size of the file (default 64M)\n"
		"  -k            use PATH as it is (do not write it, do not remove it)\n"
		"  -m            read the file through a shared mapping (one byte per page) instead of\n"
		"                read()\n"
		"  -i MSEC       print progress every MSEC (default 1000)\n"
		"  -d SEC        stop after SEC seconds (default: until a signal)\n"
		"  -p PASSES     stop after PASSES passes (1: a stream, each page read once)\n"
		"  -r FD         write one byte to FD when the loop starts, then close it\n"
		"  -w GO         after the first pass, wait until the file GO exists, then go on\n"
		"                (a driver sets the room left for the file meanwhile)\n"
		"Prints 'ready anon_kib=N file_kib=N', then per interval\n"
		"'progress t_ms=T read_mib_s=R passes=P', at the end of each pass 'pass P t_ms=T "
		"real_ms=W' (W: CLOCK_REALTIME in ms), with -w 'resume t_ms=T real_ms=W' when GO\n"
		"appeared, and at the end 'done read_mib=M passes=P'.\n");
}

/**
 * make_file() - write @size_kib of data to @path, fsync it and drop it from the page cache, so
 * that the first pass reads from the disk like the later ones.
 * Return: 0 or -errno.
 */
static int make_file(const char *path, uint64_t size_kib, unsigned char *chunk)
{
	uint64_t done_kib = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int err = 0;

	if (fd < 0)
		return -errno;
	while (done_kib < size_kib && !tool_stop) {
		uint64_t len_kib = size_kib - done_kib < CHUNK_BYTES / 1024 ? size_kib - done_kib
									    : CHUNK_BYTES / 1024;
		ssize_t n = write(fd, chunk, (size_t)len_kib * 1024);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		done_kib += (uint64_t)n / 1024;
	}
	if (!err && fsync(fd) < 0)
		err = -errno;
	if (!err)
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	return err;
}

/* A line stamped with the time since the start and the wall clock, said at once, so that a
 * driver can time what follows (a thrash starts when the first pass ends). */
static void print_stamped(const char *what, uint64_t start_usec)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	printf("%s t_ms=%" PRIu64 " real_ms=%" PRIu64 "\n", what,
	       (tool_now_usec() - start_usec) / 1000,
	       (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000);
	fflush(stdout);
}

static void print_pass(unsigned long passes, uint64_t start_usec)
{
	char what[32];

	snprintf(what, sizeof(what), "pass %lu", passes);
	print_stamped(what, start_usec);
}

/* -w: the first pass is over; wait (10 ms polls) until @go exists or a signal stops the task. */
static void wait_for_go(const char *go, uint64_t start_usec)
{
	const struct timespec nap = {0, 10 * 1000 * 1000};

	while (!tool_stop && access(go, F_OK) < 0)
		nanosleep(&nap, NULL);
	if (!tool_stop)
		print_stamped("resume", start_usec);
}

/* Where the mapped read's bytes go, so that the compiler keeps the reads. */
static volatile unsigned int map_sink;

/* One step of the mapped read: a byte of each page of the next chunk. Return: bytes covered,
 * 0 at the end of the file. */
static ssize_t map_step(const unsigned char *map, uint64_t size, off_t off, unsigned int *sum)
{
	uint64_t end = (uint64_t)off + CHUNK_BYTES < size ? (uint64_t)off + CHUNK_BYTES : size;

	for (uint64_t o = (uint64_t)off; o < end; o += TOOL_PAGE_SIZE)
		*sum += map[o];
	return (ssize_t)(end - (uint64_t)off);
}

int main(int argc, char **argv)
{
	uint64_t anon_kib = 0, file_kib = 64 * 1024, read_bytes = 0, interval_bytes = 0;
	unsigned long interval_msec = 1000, duration_sec = 0, passes = 0, max_passes = 0, ratio = 0;
	uint64_t rng = tool_fill_seed();
	int keep = 0, mapped = 0, ready_fd = -1, opt, fd, rc = 0;
	unsigned char *anon = NULL, *chunk, *map = NULL;
	unsigned int sum = 0;
	uint64_t map_size = 0;
	uint64_t start_usec, last_usec, end_usec = 0;
	size_t anon_bytes, anon_off = 0;
	const char *path, *go = NULL;
	off_t off = 0;

	while ((opt = getopt(argc, argv, "a:f:i:d:p:r:kmz:w:h")) != -1) {
		switch (opt) {
		case 'a':
			if (tool_parse_size_kib(optarg, &anon_kib) < 0) {
				fprintf(stderr, "thrasher: bad anon size '%s'\n", optarg);
				return 2;
			}
			break;
		case 'f':
			if (tool_parse_size_kib(optarg, &file_kib) < 0) {
				fprintf(stderr, "thrasher: bad file size '%s'\n", optarg);
				return 2;
			}
			break;
		case 'i':
			interval_msec = tool_parse_ulong("thrasher", "-i", optarg);
			break;
		case 'd':
			duration_sec = tool_parse_ulong("thrasher", "-d", optarg);
			break;
		case 'p':
			max_passes = tool_parse_ulong("thrasher", "-p", optarg);
			break;
		case 'r':
			ready_fd = (int)tool_parse_ulong("thrasher", "-r", optarg);
			break;
		case 'k':
			keep = 1;
			break;
		case 'z':
			ratio = tool_parse_ratio("thrasher", optarg);
			break;
		case 'm':
			mapped = 1;
			break;
		case 'w':
			go = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || interval_msec == 0) {
		usage(stderr);
		return 2;
	}
	path = argv[optind];
	if (tool_install_stop_handlers() < 0) {
		perror("thrasher: sigaction");
		return 1;
	}
	chunk = malloc(CHUNK_BYTES);
	if (!chunk) {
		perror("thrasher: malloc");
		return 1;
	}
	for (size_t i = 0; i < CHUNK_BYTES; i++)
		chunk[i] = (unsigned char)(i * 13 + 1);
	/* The file first: written beside the anon memory, its dirty pages could push a small
	 * group into an OOM before the loop even starts. */
	if (!keep) {
		int err = make_file(path, file_kib, chunk);

		if (err < 0) {
			fprintf(stderr, "thrasher: write %s: %s\n", path, strerror(-err));
			rc = 1;
			goto out;
		}
	}
	anon_bytes = (size_t)anon_kib * 1024;
	if (anon_bytes) {
		anon = mmap(NULL, anon_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			    -1, 0);
		if (anon == MAP_FAILED) {
			perror("thrasher: mmap");
			anon = NULL;
			rc = 1;
			goto out;
		}
		tool_fill(anon, 0, anon_bytes, ratio, &rng);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "thrasher: open %s: %s\n", path, strerror(errno));
		rc = 1;
		goto out;
	}
	if (mapped) {
		struct stat st;

		if (fstat(fd, &st) < 0 || st.st_size <= 0) {
			fprintf(stderr, "thrasher: %s: empty or unreadable\n", path);
			rc = 1;
			close(fd);
			goto out;
		}
		map_size = (uint64_t)st.st_size;
		map = mmap(NULL, map_size, PROT_READ, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED) {
			perror("thrasher: mmap file");
			map = NULL;
			rc = 1;
			close(fd);
			goto out;
		}
	}
	printf("ready anon_kib=%" PRIu64 " file_kib=%" PRIu64 "\n", anon_kib, file_kib);
	fflush(stdout);
	tool_signal_ready(ready_fd);
	start_usec = last_usec = tool_now_usec();
	if (duration_sec)
		end_usec = start_usec + (uint64_t)duration_sec * 1000000ULL;
	while (!tool_stop) {
		ssize_t n = map ? map_step(map, map_size, off, &sum) : pread(fd, chunk, CHUNK_BYTES, off);
		uint64_t now;

		if (n < 0 && errno != EINTR) {
			fprintf(stderr, "thrasher: read %s: %s\n", path, strerror(errno));
			rc = 1;
			break;
		}
		if (n == 0) {
			off = 0;
			passes++;
			print_pass(passes, start_usec);
			if (max_passes && passes >= max_passes)
				break;
			if (go && passes == 1) {
				wait_for_go(go, start_usec);
				last_usec = tool_now_usec(); /* the pause is not in a rate */
				interval_bytes = 0;
			}
		} else if (n > 0) {
			off += n;
			read_bytes += (uint64_t)n;
			interval_bytes += (uint64_t)n;
		}
		/* Keep the anonymous working set in use: one page per chunk read. */
		if (anon_bytes) {
			anon[anon_off]++;
			anon_off = (anon_off + TOOL_PAGE_SIZE) % anon_bytes;
		}
		now = tool_now_usec();
		if (now - last_usec >= interval_msec * 1000ULL) {
			printf("progress t_ms=%" PRIu64 " read_mib_s=%.2f passes=%lu\n",
			       (now - start_usec) / 1000,
			       (double)interval_bytes / (1024.0 * 1024.0) /
				   ((double)(now - last_usec) / 1e6),
			       passes);
			fflush(stdout);
			last_usec = now;
			interval_bytes = 0;
		}
		if (end_usec && now >= end_usec)
			break;
	}
	if (map)
		munmap(map, map_size);
	close(fd);
	map_sink = sum;
	printf("done read_mib=%" PRIu64 " passes=%lu\n", read_bytes / (1024 * 1024), passes);
out:
	if (!keep)
		unlink(path);
	if (anon)
		munmap(anon, anon_bytes);
	free(chunk);
	return rc;
}
