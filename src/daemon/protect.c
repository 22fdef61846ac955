// SPDX-License-Identifier: GPL-2.0-only
/* Self-protection at start-up: what stays resident and locked, oom_score_adj, open files. */
#include "daemon/protect.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "daemon/log.h"
#include "daemon/prefault.h"
#include "daemon/tasks.h"
#include "linux/parse.h"
#include "linux/sys.h"

#if defined(__SANITIZE_ADDRESS__)
#define OOMGUARD_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OOMGUARD_SANITIZED 1
#endif
#endif

/* Open files kept beside the task listings' two per process: the scopes' files (6 each, 33
 * scopes), eventfds, pidfds, epoll sets, the reaper's pipe and the log. */
#define PROTECT_FD_RESERVE 256

#ifndef OOMGUARD_SANITIZED
/*
 * Before mlockall: the text of shared libraries gets MADV_RANDOM (no fault-around: a fault
 * maps one page, not sixteen) and loses the pages start-up faulted in (they come back from the
 * page cache on use), so that what stays resident and locked
 * is what the loop touches; oomguard's own file is locked whole (its kill path too).
 */
static void trim_mappings(char *buf, size_t size)
{
	uintptr_t self = (uintptr_t)(void *)trim_mappings;
	char own[256] = "";

	if (sys_read_file(NULL, "/proc/self/maps", buf, size) < 0)
		return;
	for (int pass = 0; pass < 2; pass++) {
		for (char *line = buf; line && *line; line = (char *)next_line(line)) {
			unsigned long start, end;
			char perms[8] = "", path[256] = "";

			if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255s", &start, &end, perms,
				   path) < 3 ||
			    path[0] != '/')
				continue;
			if (pass == 0) {
				if (self >= start && self < end)
					snprintf(own, sizeof(own), "%s", path);
				continue;
			}
			if (!strcmp(path, own)) {
				mlock((void *)start, end - start);
			} else if (!strcmp(perms, "r-xp")) {
				/* Text only: other private mappings hold relocations and data. */
				madvise((void *)start, end - start, MADV_RANDOM);
				madvise((void *)start, end - start, MADV_DONTNEED);
			}
		}
	}
}
#endif

/* MCL_ONFAULT: lock what the loop touches, without faulting in all of libc. */
static void lock_all(void)
{
	int r;

#ifdef OOMGUARD_SANITIZED
	/* The sanitizers reserve terabytes of shadow memory: the real call is skipped, a test's
	 * table is called (what it injects is what the log line below is for). */
	if (sys->mlockall == sys_ops_real.mlockall) {
		log_msg(LOG_PRIO_DEBUG, "sanitizer build: mlockall skipped");
		return;
	}
#endif
	r = sys->mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT);
	if (r < 0)
		log_errno(r, "mlockall");
}

void protect_prefault(void *p, size_t len)
{
#ifndef OOMGUARD_SANITIZED
	prefault_range(p, len);
#else
	(void)p;
	(void)len;
#endif
}

void protect_self(const struct protect_range *ranges, size_t nr, char *scratch,
		  size_t scratch_size)
{
	int r;

#ifndef OOMGUARD_SANITIZED
	trim_mappings(scratch, scratch_size);
	lock_all();
	/* ... and touch now what the kill path would touch first at the worst moment. */
	for (size_t i = 0; i < nr; i++)
		prefault_range(ranges[i].p, ranges[i].len);
	prefault_stack(PREFAULT_STACK_BYTES);
#else
	(void)ranges;
	(void)nr;
	(void)scratch;
	(void)scratch_size;
	lock_all();
#endif
	r = sys_write_file(NULL, "/proc/self/oom_score_adj", "-1000");
	/* Going below the current value needs CAP_SYS_RESOURCE; oomguard still runs without. */
	if (r < 0)
		log_msg(LOG_PRIO_WARNING,
			"cannot set oom_score_adj -1000: %s (needs CAP_SYS_RESOURCE); the kernel's "
			"OOM killer may choose oomguard",
			strerror(-r));
}

size_t protect_fd_budget(void)
{
	const rlim_t want = 2 * TASKS_FD_MAX + PROTECT_FD_RESERVE;
	struct rlimit rl;
	size_t keep;

	if (sys->getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	if (rl.rlim_cur < want) {
		rl.rlim_cur =
		    rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
		sys->setrlimit(RLIMIT_NOFILE, &rl);
		sys->getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur >= want)
		return 0;
	/* At least one process: 0 would mean the default. */
	keep = rl.rlim_cur > PROTECT_FD_RESERVE + 2 ? (size_t)(rl.rlim_cur - PROTECT_FD_RESERVE) / 2
						     : 1;
	log_msg(LOG_PRIO_WARNING,
		"open files limited to %llu: keeping the files of %zu processes open",
		(unsigned long long)rl.rlim_cur, keep);
	return keep;
}

