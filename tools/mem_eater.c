// SPDX-License-Identifier: GPL-2.0-only
// mem_eater: maps SIZE of private anonymous memory, touches every page (at once or in steps),
// reports "ready", then holds the memory until a signal. A workload for tests and the bench.
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/mman.h>

#include "tool_util.h"

/* How often a gated eater looks for its gate: short next to any scenario's time scale. */
#define GATE_POLL_MSEC 5

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: mem_eater [-s STEP] [-i MSEC] [-r FD] [-t SEC] [-x] [-z RATIO] [-G PATH] [-L|-V] "
	    "[-F N] SIZE\n"
	    "  SIZE      memory to take: 64, 64M, 2G, 512K (a bare number is MiB)\n"
	    "  -s STEP   take it in steps of STEP, sleeping -i MSEC (default 100) between steps\n"
	    "  -r FD     write one byte to FD once all memory is touched, then close it\n"
	    "  -t SEC    hold the memory at most SEC seconds (default: until a signal)\n"
	    "  -x        exit as soon as the memory is touched\n"
	    "  -z RATIO  fill each page to compress about RATIO to 1 in zram (default 0: one byte\n"
	    "            a page, which compresses to almost nothing)\n"
	    "  -G PATH   wait until PATH exists before taking any memory\n"
	    "  -L        once ready, the main thread leaves (pthread_exit) and a second one holds\n"
	    "            the memory: the process lives on with its leader a zombie\n"
	    "  -V        once ready, vfork() a child that never execs: it shares the memory, and\n"
	    "            this process waits for it (until it is killed)\n"
	    "  -F N      first fork N children that take nothing and wait for a signal (a crowd of\n"
	    "            small processes; each dies with this one), then take SIZE\n"
	    "Prints 'ready size_kib=N rss_kib=N pid=N' once the memory is touched; exits 0 on\n"
	    "SIGTERM, SIGINT or SIGUSR1.\n");
}

/* The hold: until a signal, or @deadline_usec (0: none). */
static void hold(uint64_t deadline_usec)
{
	while (!tool_stop) {
		if (deadline_usec && tool_now_usec() >= deadline_usec)
			break;
		tool_sleep_msec(deadline_usec ? 100 : 1000);
	}
}

/*
 * @n children forked before any memory is taken: each only waits, and dies with this process
 * (PR_SET_PDEATHSIG) or by a signal. Return: 0, or -1 when a fork failed (the ones forked live
 * on until this process exits).
 */
static int fork_crowd(unsigned long n)
{
	pid_t parent = getpid();

	for (unsigned long i = 0; i < n; i++) {
		pid_t child = fork();

		if (child == 0) {
			if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
				_exit(1);
			while (!tool_stop)
				pause();
			_exit(0);
		}
		if (child < 0) {
			fprintf(stderr, "mem_eater: fork after %lu children: %s\n", i,
				strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* A vfork() child that borrows this process's memory and stack until it dies: it only waits
 * for a signal, and this process resumes then. Its own function, so that nothing of main() is
 * live across the vfork(). */
static __attribute__((noinline)) int vfork_waiter(void)
{
	pid_t child = vfork();

	if (child == 0) {
		while (!tool_stop)
			pause();
		_exit(0);
	}
	if (child < 0)
		perror("mem_eater: vfork");
	return child < 0 ? -1 : 0;
}

static void *hold_thread(void *arg)
{
	hold(*(uint64_t *)arg);
	exit(0); /* the whole process, whose leader is gone */
}

int main(int argc, char **argv)
{
	uint64_t size_kib = 0, step_kib = 0;
	unsigned long interval_msec = 100, hold_sec = 0, ratio = 0;
	uint64_t rng = tool_fill_seed();
	int ready_fd = -1, exit_early = 0, leader_leaves = 0, vfork_child = 0, opt;
	unsigned long crowd = 0;
	const char *gate = NULL;
	unsigned char *mem;
	size_t size_bytes, step_bytes, done = 0;
	uint64_t deadline_usec = 0;

	while ((opt = getopt(argc, argv, "s:i:r:t:xz:G:LVF:h")) != -1) {
		switch (opt) {
		case 's':
			if (tool_parse_size_kib(optarg, &step_kib) < 0) {
				fprintf(stderr, "mem_eater: bad step '%s'\n", optarg);
				return 2;
			}
			break;
		case 'i':
			interval_msec = tool_parse_ulong("mem_eater", "-i", optarg);
			break;
		case 'r':
			ready_fd = (int)tool_parse_ulong("mem_eater", "-r", optarg);
			break;
		case 't':
			hold_sec = tool_parse_ulong("mem_eater", "-t", optarg);
			break;
		case 'x':
			exit_early = 1;
			break;
		case 'z':
			ratio = tool_parse_ratio("mem_eater", optarg);
			break;
		case 'G':
			gate = optarg;
			break;
		case 'L':
			leader_leaves = 1;
			break;
		case 'V':
			vfork_child = 1;
			break;
		case 'F':
			crowd = tool_parse_ulong("mem_eater", "-F", optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || tool_parse_size_kib(argv[optind], &size_kib) < 0) {
		usage(stderr);
		return 2;
	}
	if (tool_install_stop_handlers() < 0) {
		perror("mem_eater: sigaction");
		return 1;
	}
	if (crowd && fork_crowd(crowd) < 0)
		return 1;
	while (gate && access(gate, F_OK) < 0 && !tool_stop)
		tool_sleep_msec(GATE_POLL_MSEC);
	size_bytes = (size_t)size_kib * 1024;
	step_bytes = step_kib ? (size_t)step_kib * 1024 : size_bytes;
	mem = mmap(NULL, size_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("mem_eater: mmap");
		return 1;
	}
	while (done < size_bytes && !tool_stop) {
		size_t len = size_bytes - done < step_bytes ? size_bytes - done : step_bytes;

		tool_fill(mem, done, len, ratio, &rng);
		done += len;
		if (done < size_bytes && interval_msec)
			tool_sleep_msec((unsigned int)interval_msec);
	}
	if (tool_stop)
		return 0;
	printf("ready size_kib=%" PRIu64 " rss_kib=%" PRIu64 " pid=%d\n", size_kib, tool_rss_kib(),
	       (int)getpid());
	fflush(stdout);
	if (tool_signal_ready(ready_fd) < 0)
		perror("mem_eater: ready fd");
	if (exit_early)
		return 0;
	if (hold_sec)
		deadline_usec = tool_now_usec() + (uint64_t)hold_sec * 1000000ULL;
	if (vfork_child && vfork_waiter() < 0)
		return 1;
	if (leader_leaves) {
		static uint64_t deadline;
		pthread_t t;
		int err;

		deadline = deadline_usec;
		err = pthread_create(&t, NULL, hold_thread, &deadline);
		if (err) {
			fprintf(stderr, "mem_eater: pthread_create: %s\n", strerror(err));
			return 1;
		}
		pthread_exit(NULL);
	}
	hold(deadline_usec);
	return 0;
}
