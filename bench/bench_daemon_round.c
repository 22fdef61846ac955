// SPDX-License-Identifier: GPL-2.0-only
// bench_daemon_round: CPU time of one daemon round over the machine scope plus 10 v1 memory
// cgroups (created empty as oomguard-test-bench-round-*, removed at exit), and the RSS of a
// running `oomguard run` watching the same scopes. Prints figures beside their targets, and a
// control: the CPU a process that does nothing but wake every 100 ms costs on this machine (the
// wake-up's own floor, which every daemon polling at that interval pays before any work).
// Usage: bench_daemon_round [ROUNDS] [OOMGUARD_BINARY]   (root and cgroup v1 memory needed)
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/options.h"

#define NR_GROUPS 10
#define MEMCG     "/sys/fs/cgroup/memory"

static struct daemon d;
static char groups[NR_GROUPS][128];

static uint64_t cpu_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void remove_groups(void)
{
	for (int i = 0; i < NR_GROUPS; i++)
		if (groups[i][0])
			rmdir(groups[i]);
}

/* The CPU time of @pid's main thread (the one that runs the rounds), in ns. */
static uint64_t main_thread_cpu_ns(pid_t pid)
{
	char path[64];
	unsigned long long ns = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	f = fopen(path, "r");
	if (f && fscanf(f, "%llu", &ns) != 1)
		ns = 0;
	if (f)
		fclose(f);
	return ns;
}

/* The CPU per 100 ms of @pid's main thread from 1 s to 6 s after it started. */
static double cpu_per_interval_usec(pid_t pid, uint64_t *ret_intervals)
{
	uint64_t c0, c1, w0, w1;

	sleep(1);
	c0 = main_thread_cpu_ns(pid);
	w0 = now_usec();
	sleep(5);
	c1 = main_thread_cpu_ns(pid);
	w1 = now_usec();
	*ret_intervals = (w1 - w0) / 100000;
	return (double)(c1 - c0) / 1000.0 / ((double)(w1 - w0) / 100000.0);
}

/* The control: a child that only sleeps in poll() for 100 ms, over and over. */
static double measure_floor(void)
{
	uint64_t n;
	double usec;
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			poll(NULL, 0, 100);
	}
	if (pid < 0)
		return -1;
	usec = cpu_per_interval_usec(pid, &n);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return usec;
}

/*
 * Runs @bin with the same scopes at its default interval: its main thread's CPU per round from
 * 1 s to 6 s after the start (the binary as shipped, its own C library, caches as cold as a
 * daemon that sleeps between rounds finds them), then its VmRSS and VmHWM.
 */
static int measure_rss(const char *bin, char **scope_args, int nargs)
{
	char *argv[6 + 2 * NR_GROUPS + 2];
	char path[64], line[256];
	unsigned long rss = 0, hwm = 0, anon = 0, pss = 0;
	uint64_t intervals;
	double usec, floor_usec;
	FILE *f;
	pid_t pid;
	int n = 0, status;

	argv[n++] = (char *)bin;
	argv[n++] = "run";
	argv[n++] = "--dry-run";
	for (int i = 0; i < nargs; i++)
		argv[n++] = scope_args[i];
	argv[n] = NULL;
	pid = fork();
	if (pid == 0) {
		freopen("/dev/null", "w", stderr);
		execv(bin, argv);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	/* A round every 100 ms plus the round's own time: the count is estimated from the clock. */
	usec = cpu_per_interval_usec(pid, &intervals);
	floor_usec = measure_floor();
	printf("binary_round_cpu_usec=%.1f (target <= 100; %s, default interval, ~%llu rounds, "
	       "wake-up included)\n",
	       usec, bin, (unsigned long long)intervals);
	printf("wakeup_floor_cpu_usec=%.1f (control: a process that only polls 100 ms at a time)\n",
	       floor_usec);
	printf("binary_round_above_floor_cpu_usec=%.1f\n", usec - floor_usec);
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "VmRSS: %lu", &rss);
		sscanf(line, "VmHWM: %lu", &hwm);
		sscanf(line, "RssAnon: %lu", &anon);
	}
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "Pss: %lu", &pss);
	if (f)
		fclose(f);
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	printf("daemon_rss_kib=%lu (target <= 1024) hwm_kib=%lu rss_anon_kib=%lu pss_kib=%lu "
	       "exit=%d\n",
	       rss, hwm, anon, pss, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 2000;
	const char *bin = argc > 2 ? argv[2] : "./oomguard";
	char *args[2 * NR_GROUPS + 1];
	char err[512];
	uint64_t c0, c1, w0, w1;
	int nargs = 0;

	if (geteuid() != 0 || access(MEMCG "/memory.limit_in_bytes", F_OK)) {
		printf("SKIP: needs root and the cgroup v1 memory controller\n");
		return 0;
	}
	atexit(remove_groups);
	args[nargs++] = "--machine";
	for (int i = 0; i < NR_GROUPS; i++) {
		snprintf(groups[i], sizeof(groups[i]), MEMCG "/oomguard-test-bench-round-%d-%d",
			 getpid(), i);
		if (mkdir(groups[i], 0755) < 0) {
			perror(groups[i]);
			groups[i][0] = '\0';
			return 1;
		}
		args[nargs++] = "--cgroup";
		args[nargs++] = groups[i];
	}
	{
		char *cfg_argv[2 * NR_GROUPS + 3];

		cfg_argv[0] = "run";
		memcpy(cfg_argv + 1, args, (size_t)nargs * sizeof(char *));
		cfg_argv[nargs + 1] = NULL;
		daemon_init(&d, nargs + 1, cfg_argv);
		if (options_parse(&d.cfg, nargs + 1, cfg_argv, err, sizeof(err)) != 0 ||
		    daemon_setup_scopes(&d, err, sizeof(err)) < 0 || events_start(&d) < 0) {
			fprintf(stderr, "bench_daemon_round: %s\n", err);
			return 1;
		}
	}
	log_max_prio = LOG_PRIO_ERR;
	daemon_round(&d);
	w0 = now_usec();
	c0 = cpu_usec();
	for (int i = 0; i < rounds; i++)
		daemon_round(&d);
	c1 = cpu_usec();
	w1 = now_usec();
	printf("scopes=%zu rounds=%d round_cpu_usec=%.1f (target <= 100) round_wall_usec=%.1f\n",
	       d.nr_scopes, rounds, (double)(c1 - c0) / rounds, (double)(w1 - w0) / rounds);
	/* The same scopes read in full every round (what a busy round costs). */
	c0 = cpu_usec();
	for (int i = 0; i < rounds; i++) {
		for (size_t k = 0; k < d.nr_scopes; k++) {
			scope_acquire(&d.scopes[k], d.scratch, now_usec());
			scope_decide(&d.scopes[k], &d.cfg);
		}
	}
	c1 = cpu_usec();
	printf("full_read_round_cpu_usec=%.1f\n", (double)(c1 - c0) / rounds);
	/* As the daemon runs them: 50 rounds, 100 ms apart, caches gone cold in between. */
	c1 = 0;
	for (int i = 0; i < 50; i++) {
		usleep(100000);
		c0 = cpu_usec();
		daemon_round(&d);
		c1 += cpu_usec() - c0;
	}
	printf("spaced_round_cpu_usec=%.1f (50 rounds 100 ms apart, in this process)\n",
	       (double)c1 / 50);
	measure_rss(bin, args, nargs);
	return 0;
}
