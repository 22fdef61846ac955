// SPDX-License-Identifier: GPL-2.0-only
// mb_probe: what a user feels. Wakes every 100 ms and, every second, runs a fresh command (fork,
// exec, the command reads a file); prints one line per second of its life:
//   "sec=S real_ms=R late_ms=L cmd_ms=C"
// S counts seconds from its start, R is the second's start (CLOCK_REALTIME, ms), L how late the
// latest thing due in that second was done (a wake-up, or the command's end, against when it was
// due), C how long that second's command took (-1: none ran). A second with L > 1000 is a frozen
// second. Wake-ups that a stall made it miss are done, late, when it runs again, so a stall of
// N seconds shows as N late seconds. Stops on SIGTERM or SIGINT after printing what it has.
// Usage: mb_probe [COMMAND [ARG...]]   (default: /bin/cat /etc/os-release)
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#define TICK_NS 100000000LL
#define TICKS_PER_SEC 10
#define MAX_SECS 86400

static volatile sig_atomic_t stop;
static int32_t late_ms[MAX_SECS];
static int32_t cmd_ms[MAX_SECS];

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void note_late(int64_t sec, int64_t late_ns)
{
	int32_t ms = (int32_t)(late_ns / 1000000);

	if (sec >= 0 && sec < MAX_SECS && ms > late_ms[sec])
		late_ms[sec] = ms;
}

/* run_command() - fork, exec @argv with its output thrown away, wait. Return: 0 or -1. */
static int run_command(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, STDOUT_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	static char *def_cmd[] = {"/bin/cat", "/etc/os-release", NULL};
	char **cmd = argc > 1 ? argv + 1 : def_cmd;
	struct sigaction sa = {.sa_handler = on_signal};
	int64_t t0 = now_ns(CLOCK_MONOTONIC);
	int64_t real0_ms = now_ns(CLOCK_REALTIME) / 1000000;
	int64_t tick = 1, printed = 0;

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	memset(cmd_ms, 0xff, sizeof(cmd_ms));
	while (!stop) {
		int64_t due = t0 + tick * TICK_NS;
		struct timespec ts = {.tv_sec = due / 1000000000LL, .tv_nsec = due % 1000000000LL};
		int64_t now, cmd_due = -1;

		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			continue;
		now = now_ns(CLOCK_MONOTONIC);
		/* Every wake-up due by now, served now: the ones a stall skipped count as late. */
		for (; t0 + tick * TICK_NS <= now; tick++) {
			note_late(tick / TICKS_PER_SEC, now - (t0 + tick * TICK_NS));
			if (tick % TICKS_PER_SEC == 0)
				cmd_due = tick;
		}
		if (cmd_due >= 0) {
			int64_t start = now_ns(CLOCK_MONOTONIC), end;
			int rc = run_command(cmd);
			int64_t sec = cmd_due / TICKS_PER_SEC;

			end = now_ns(CLOCK_MONOTONIC);
			note_late(sec, end - (t0 + cmd_due * TICK_NS));
			if (sec < MAX_SECS)
				cmd_ms[sec] = rc == 0 ? (int32_t)((end - start) / 1000000) : -2;
		}
		/* Seconds whose every wake-up is done. */
		for (; printed < tick / TICKS_PER_SEC && printed < MAX_SECS; printed++)
			printf("sec=%" PRId64 " real_ms=%" PRId64 " late_ms=%" PRId32 " cmd_ms=%" PRId32 "\n",
			       printed, real0_ms + printed * 1000, late_ms[printed], cmd_ms[printed]);
		fflush(stdout);
		if (printed >= MAX_SECS)
			break;
	}
	return 0;
}
