// SPDX-License-Identifier: GPL-2.0-only
// bench_probe: a bystander. It runs outside the pressured group at normal priority, wakes every
// PERIOD on an absolute timer and logs how late each wake-up came: what the work outside the
// group pays for what happens inside it (CPU taken by the workload, by a daemon running
// SCHED_FIFO, by reclaim). Logs "P t_ms late_usec" (t_ms: CLOCK_REALTIME, the bench's clock).
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define DEFAULT_PERIOD_MSEC 100
#define NSEC_PER_SEC        1000000000LL

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static int64_t ts_nsec(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: bench_probe [-i MSEC] [-o FILE]\n"
		     "Wakes every MSEC (default 100) until SIGTERM/SIGINT; logs per wake-up\n"
		     "  P t_ms late_usec   (t_ms: CLOCK_REALTIME; late: past the timer's deadline)\n");
}

int main(int argc, char **argv)
{
	unsigned long period_msec = DEFAULT_PERIOD_MSEC;
	struct timespec next, now, real;
	struct sigaction sa;
	FILE *out = stdout;
	char *end;
	int opt;

	while ((opt = getopt(argc, argv, "i:o:h")) != -1) {
		switch (opt) {
		case 'i':
			errno = 0;
			period_msec = strtoul(optarg, &end, 10);
			if (errno || *end || !period_msec || period_msec > 10000) {
				fprintf(stderr, "bench_probe: bad -i '%s' (1..10000)\n", optarg);
				return 2;
			}
			break;
		case 'o':
			out = fopen(optarg, "we");
			if (!out) {
				fprintf(stderr, "bench_probe: %s: %s\n", optarg, strerror(errno));
				return 1;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* Its own page faults are not what it measures. */
	mlockall(MCL_CURRENT | MCL_FUTURE);
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!stop_requested) {
		int64_t late;

		next.tv_nsec += (long)(period_msec * 1000000UL);
		while (next.tv_nsec >= NSEC_PER_SEC) {
			next.tv_nsec -= NSEC_PER_SEC;
			next.tv_sec++;
		}
		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &now);
		clock_gettime(CLOCK_REALTIME, &real);
		late = (ts_nsec(&now) - ts_nsec(&next)) / 1000;
		fprintf(out, "P %" PRId64 " %" PRId64 "\n", ts_nsec(&real) / 1000000, late);
		fflush(out);
		/* After a long stall, start afresh rather than catch up with a burst of wake-ups. */
		if (late > (int64_t)period_msec * 1000)
			next = now;
	}
	if (out != stdout)
		fclose(out);
	return 0;
}
