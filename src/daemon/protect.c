// SPDX-License-Identifier: GPL-2.0-only
/* Self-protection at start-up: what stays resident and locked, oom_score_adj, open files; and
 * the privileges start-up needed, dropped once it is done. */
#include "daemon/protect.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/prefault.h"
#include "daemon/scope.h"
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

/* Open files kept beside the task listings' two per process: each scope's files (at most
 * SCOPE_MAX_FILES) and four more (its eventfds, its candidate's pidfd, its reads' file), and 64
 * for the reaper's pidfds, the epoll sets, the reaper's pipe, the log and the notifiers. */
#define PROTECT_FD_RESERVE (DAEMON_MAX_SCOPES * (SCOPE_MAX_FILES + 4) + 64)

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

/*
 * Grow the file table now to hold @nr descriptors: one duplicate at the highest of them, closed
 * again (the kernel never shrinks the table). Opened one by one under pressure instead, a
 * listing's files would grow it by doubling, and each step in a process with more than one
 * thread waits for an RCU grace period (expand_files(): synchronize_rcu()), 175 ms twice in a
 * traced flood (bench/machine/README.md, "Where the daemon waits"). Best effort: a table that
 * cannot grow now grows later.
 */
static void grow_fd_table(rlim_t nr)
{
	static const int any[] = {2, 1, 0};

	if (nr < 2 || nr > INT_MAX)
		return;
	for (size_t i = 0; i < sizeof(any) / sizeof(any[0]); i++) {
		int fd = sys->fcntl(any[i], F_DUPFD_CLOEXEC, (int)(nr - 1));

		if (fd >= 0) {
			sys->close(fd);
			return;
		}
		if (fd != -EBADF)
			return;
	}
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
	grow_fd_table(rl.rlim_cur < want ? rl.rlim_cur : want);
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

#define CAP_BIT(cap) (1ull << (cap))
/* linux/capability.h's numbers (not in every C library's include path) */
enum {
	OG_CAP_DAC_OVERRIDE = 1,
	OG_CAP_KILL = 5,
	OG_CAP_IPC_LOCK = 14,
	OG_CAP_SYS_PTRACE = 19,
};

/*
 * The capabilities the loop and a reload still use, each for a check the kernel makes
 * (docs/daemon.md, "Privileges"). Start-up's own (CAP_SYS_NICE for SCHED_FIFO,
 * CAP_SYS_RESOURCE for oom_score_adj -1000 and RLIMIT_NOFILE) go with all the others.
 */
static const struct {
	unsigned int cap;
	const char *name;
} kept_caps[] = {
    /* pidfd_send_signal() to another user's process: kill_ok_by_cred() */
    {OG_CAP_KILL, "cap_kill"},
    /* readlink of /proc/PID/exe (the exe rules) of another user's process or of one with
     * capabilities oomguard lacks, and /proc/PID under hidepid=: ptrace_may_access() */
    {OG_CAP_SYS_PTRACE, "cap_sys_ptrace"},
    /* cgroup.kill, cgroup.event_control and memory.oom_control of a cgroup another user owns
     * (a delegated subtree), opened for writing */
    {OG_CAP_DAC_OVERRIDE, "cap_dac_override"},
    /* after mlockall(MCL_FUTURE) every new mapping is locked: one that takes the locked total
     * past RLIMIT_MEMLOCK (a reload's allocations) fails without it */
    {OG_CAP_IPC_LOCK, "cap_ipc_lock"},
};

#define NR_KEPT_CAPS (sizeof(kept_caps) / sizeof(kept_caps[0]))

/* Every capability but @keep out of the bounding set. Return: 0, or the first -errno (EPERM
 * without CAP_SETPCAP: the set it was given, a unit's CapabilityBoundingSet=, stays). */
static int drop_bounding(uint64_t keep)
{
	int err = 0;

	for (unsigned long cap = 0; cap < 64; cap++) {
		int r;

		if (keep & CAP_BIT(cap))
			continue;
		r = sys->prctl(PR_CAPBSET_READ, cap, 0);
		if (r == -EINVAL)
			break; /* past the kernel's last capability */
		if (r > 0)
			r = sys->prctl(PR_CAPBSET_DROP, cap, 0);
		if (r < 0 && !err)
			err = r;
	}
	return err;
}

/* Permitted and effective down to @keep, inheritable empty. Return: the permitted set before,
 * or -errno. */
static int64_t drop_permitted(uint64_t keep)
{
	struct sys_cap_header hdr = {.version = SYS_CAP_VERSION_3, .pid = 0};
	struct sys_cap_data data[2];
	uint64_t had;
	int r;

	r = sys->capget(&hdr, data);
	if (r < 0)
		return r;
	had = data[0].permitted | (uint64_t)data[1].permitted << 32;
	for (int i = 0; i < 2; i++) {
		uint32_t word = (uint32_t)((had & keep) >> (32 * i));

		data[i].permitted = word;
		data[i].effective &= word;
		data[i].inheritable = 0;
	}
	r = sys->capset(&hdr, data);
	return r < 0 ? r : (int64_t)(had & (CAP_BIT(63) - 1));
}

void protect_drop_privileges(void)
{
	char kept[80] = "", lacking[80] = "";
	uint64_t keep = 0;
	int64_t had;
	int r;

	for (size_t i = 0; i < NR_KEPT_CAPS; i++)
		keep |= CAP_BIT(kept_caps[i].cap);
	/* The bounding set first: dropping from it takes CAP_SETPCAP, which goes next. */
	r = drop_bounding(keep);
	if (r == -EPERM)
		log_msg(LOG_PRIO_INFO, "capability bounding set left as given (no CAP_SETPCAP)");
	else if (r < 0)
		log_msg(LOG_PRIO_WARNING, "cannot drop from the capability bounding set: %s",
			strerror(-r));
	r = sys->prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0);
	if (r < 0 && r != -EINVAL) /* EINVAL: a kernel before 4.3, without ambient capabilities */
		log_msg(LOG_PRIO_WARNING, "cannot clear the ambient capabilities: %s",
			strerror(-r));
	had = drop_permitted(keep);
	/* It executes nothing; should anything make it, it gains no privilege from it. */
	r = sys->prctl(PR_SET_NO_NEW_PRIVS, 1, 0);
	if (r < 0)
		log_msg(LOG_PRIO_WARNING, "cannot set no_new_privs: %s", strerror(-r));
	if (had < 0) {
		log_msg(LOG_PRIO_WARNING, "cannot drop capabilities: %s; running with those it has",
			strerror((int)-had));
		return;
	}
	for (size_t i = 0; i < NR_KEPT_CAPS; i++) {
		char *list = (uint64_t)had & CAP_BIT(kept_caps[i].cap) ? kept : lacking;
		size_t len = strlen(list);

		snprintf(list + len, sizeof(kept) - len, "%s%s", len ? "," : "", kept_caps[i].name);
	}
	log_msg(LOG_PRIO_INFO, "capabilities kept: %s%s%s%s", kept[0] ? kept : "none",
		lacking[0] ? " (without " : "", lacking, lacking[0] ? ")" : "");
}
