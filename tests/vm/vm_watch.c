// SPDX-License-Identifier: GPL-2.0-only
// The guest's flood watcher: every 100 ms, locked in memory and exempt from the OOM killer, counts
// the kernel's OOM kills (/proc/vmstat oom_kill) and the eaters of a cgroup that are alive and
// populated, and appends a line "UPTIME_CS OOM_KILL LIVE READY" to OUTFILE whenever one changes.
// A shell loop that forks to measure is itself stalled for tens of seconds in a flood; this is not.
// Usage: vm_watch CGROUP_DIR READY_DIR OUTFILE   (stops on SIGTERM)
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* read_small() - up to @size - 1 bytes of @path into @buf, NUL-terminated. Return: bytes or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

/* oom_kills() - the oom_kill counter of /proc/vmstat, or -1 when it cannot be read. */
static long oom_kills(void)
{
	static char buf[16384];
	const char *p;

	if (read_small("/proc/vmstat", buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "\noom_kill ");
	return p ? strtol(p + 10, NULL, 10) : -1;
}

/**
 * count_eaters() - how many tasks of the cgroup are live eaters, and how many of those are ready.
 * @cg: the cgroup directory
 * @ready_dir: where each populated eater left a file named after its pid
 * @ret_live: eaters alive (comm "vm_eater", not a zombie)
 * @ret_ready: of those, the ones that are populated
 *
 * Return: 0, or -errno when cgroup.procs cannot be read.
 */
static int count_eaters(const char *cg, const char *ready_dir, int *ret_live, int *ret_ready)
{
	static char procs[65536];
	char path[512], stat[512];
	int live = 0, ready = 0;
	ssize_t n;
	char *p, *end;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	n = read_small(path, procs, sizeof(procs));
	if (n < 0)
		return (int)n;
	for (p = procs; *p; p = end) {
		long pid = strtol(p, &end, 10);
		const char *close_paren;

		if (end == p)
			break;
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		if (read_small(path, stat, sizeof(stat)) < 0)
			continue;
		close_paren = strrchr(stat, ')');
		if (!strstr(stat, "(vm_eater)") || !close_paren || close_paren[2] == 'Z')
			continue;
		live++;
		snprintf(path, sizeof(path), "%s/%ld", ready_dir, pid);
		if (access(path, F_OK) == 0)
			ready++;
	}
	*ret_live = live;
	*ret_ready = ready;
	return 0;
}

int main(int argc, char **argv)
{
	const struct timespec period = {.tv_sec = 0, .tv_nsec = 100 * 1000 * 1000};
	long last_kills = -2;
	int last_live = -1, last_ready = -1;
	struct sigaction sa;
	FILE *out;

	if (argc != 4) {
		fprintf(stderr, "usage: vm_watch CGROUP_DIR READY_DIR OUTFILE\n");
		return 2;
	}
	out = fopen(argv[3], "a");
	if (!out) {
		fprintf(stderr, "vm_watch: %s: %s\n", argv[3], strerror(errno));
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
		fprintf(stderr, "vm_watch: mlockall: %s\n", strerror(errno));
	while (!stop) {
		struct timespec now;
		long kills = oom_kills();
		int live = 0, ready = 0;

		if (count_eaters(argv[1], argv[2], &live, &ready) < 0)
			live = ready = -1;
		if (kills != last_kills || live != last_live || ready != last_ready) {
			clock_gettime(CLOCK_BOOTTIME, &now);
			fprintf(out, "%lld %ld %d %d\n",
				(long long)now.tv_sec * 100 + now.tv_nsec / 10000000, kills, live, ready);
			fflush(out);
			last_kills = kills;
			last_live = live;
			last_ready = ready;
		}
		nanosleep(&period, NULL);
	}
	fclose(out);
	return 0;
}
