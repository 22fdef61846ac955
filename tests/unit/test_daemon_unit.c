// SPDX-License-Identifier: GPL-2.0-only
/* Kill units on a v2 fixture tree: memory.oom.group found as the kernel finds it (the highest
 * group with it set, up to the scope), the victim's cgroup when kill_cgroup asks, nothing
 * outside the scope nor the hierarchy's root; the members signalled through a fake syscall
 * table (no real process is touched), oomguard, init and (oom.group) oom_score_adj -1000
 * spared, a pid that left the group spared. kill_unit auto: its decision on rows, its episodes,
 * its reads on the fixture. Then the SIGTERM grace on a child of this test, with what the kill
 * path leaves of auto's episode (noted, forgotten without a reaper, forgotten in a dry run), and
 * what the reaper's reports leave of it (forgotten when skipped or overdue). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/unit.h"
#include "linux/sys.h"

#define FIXTURE_PAGE_SHIFT 12
#define CG                 "/sys/fs/cgroup"

static char scratch[SCOPE_SCRATCH_SIZE];
static char root[] = "/tmp/oomguard-test-unit-XXXXXX";
static struct cgroup_mounts mounts;

/* ---- the fake table: pidfds are /dev/null descriptors, signals are recorded ---- */

#define MAX_FAKE 64
static int fake_fd_pid[1024];
static int signalled[MAX_FAKE], nr_signalled;
static struct sys_ops fake;

static int fake_pidfd_open(pid_t pid, unsigned int flags)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	(void)flags;
	if (fd < 0 || fd >= 1024)
		return -EMFILE;
	fake_fd_pid[fd] = pid;
	return fd;
}

/* The fixture's one delegated unit (systemd's trusted.delegate): dlg.scope. */
static ssize_t fake_getxattr(const char *path, const char *name, void *buf, size_t size)
{
	size_t len = strlen(path);

	if (len < 10 || strcmp(path + len - 10, "/dlg.scope") || strcmp(name, "trusted.delegate"))
		return -ENODATA;
	if (size < 1)
		return -ERANGE;
	memcpy(buf, "1", 1);
	return 1;
}

static int fake_pidfd_send_signal(int pidfd, int sig, siginfo_t *info, unsigned int flags)
{
	(void)info;
	(void)flags;
	assert_int_equal(sig, SIGKILL);
	if (nr_signalled < MAX_FAKE)
		signalled[nr_signalled++] = fake_fd_pid[pidfd];
	return 0;
}

static void put(const char *rel, const char *text)
{
	char path[4200], cmd[4300]; /* test_kill_deep's paths are over 1 KiB */
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p $(dirname %s)", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A process of the fixture in v2 cgroup @cg with @adj. */
static void proc(int pid, const char *cg, int adj)
{
	char rel[64], text[4200];

	snprintf(rel, sizeof(rel), "/proc/%d/cgroup", pid);
	snprintf(text, sizeof(text), "0::%s\n", cg);
	put(rel, text);
	snprintf(rel, sizeof(rel), "/proc/%d/oom_score_adj", pid);
	snprintf(text, sizeof(text), "%d\n", adj);
	put(rel, text);
}

static int setup(void **state)
{
	char cmd[400];

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(cmd, sizeof(cmd), "cp -r tests/fixtures/v2/proc tests/fixtures/v2/sys %s/", root);
	assert_int_equal(system(cmd), 0);
	/* app (the scope) > svc (oom.group 1) > w (oom.group 1, the victim's) ; app/other */
	put(CG "/app/memory.oom.group", "0\n");
	put(CG "/app/svc/memory.oom.group", "1\n");
	put(CG "/app/svc/cgroup.procs", "3002\n3003\n1\n");
	put(CG "/app/svc/w/memory.oom.group", "1\n");
	snprintf(cmd, sizeof(cmd),
		 "for f in current events max pressure stat; do cp %s" CG "/app/memory.$f %s" CG
		 "/app/svc/w/; done",
		 root, root);
	assert_int_equal(system(cmd), 0);
	put(CG "/app/svc/w/cgroup.procs", "3001\n3004\n3005\n");
	put(CG "/app/other/memory.oom.group", "0\n");
	put(CG "/app/other/cgroup.procs", "3006\n3007\n");
	put(CG "/app/cgroup.procs", "4242\n");
	proc(3001, "/app/svc/w", 0);	  /* the victim */
	proc(3002, "/app/svc", 0);
	proc(3003, "/app/svc", -1000);	  /* spared by an oom.group kill, as the kernel does */
	proc(3004, "/app/svc/w", 0);
	proc(3005, "/app/elsewhere", 0); /* listed, then left the group: never signalled */
	proc(3006, "/app/other", 0);
	proc(3007, "/app/other", 0);
	proc(1, "/app/svc", 0);
	proc(4242, "/app", 0);
	proc(99, "/", 0); /* oomguard itself, outside */
	/* systemd units below the scope: web.service (200 MiB anon, 1 MiB swap), dlg.scope
	 * (delegated); and the scope's own cgroup named as a unit: app/unit.scope. */
	snprintf(cmd, sizeof(cmd),
		 "for d in web.service dlg.scope; do mkdir -p %s" CG "/app/$d; for f in current "
		 "events max pressure stat; do cp %s" CG "/app/memory.$f %s" CG "/app/$d/; done; "
		 "done",
		 root, root, root);
	assert_int_equal(system(cmd), 0);
	put(CG "/app/web.service/memory.swap.current", "1048576\n");
	put(CG "/app/web.service/cgroup.procs", "3010\n3011\n3013\n");
	put(CG "/app/dlg.scope/cgroup.procs", "3012\n");
	proc(3010, "/app/web.service", 0);
	proc(3011, "/app/web.service", 0);
	put("/proc/3010/status", "Name:\tvm_eater\nVmRSS:\t30000 kB\nRssAnon:\t20480 kB\n"
				 "VmSwap:\t1024 kB\n");
	proc(3013, "/app/web.service", -1000);
	proc(3012, "/app/dlg.scope", 0);
	assert_int_equal(read_mountinfo(root, scratch, sizeof(scratch), &mounts), 0);
	fake = sys_ops_real;
	fake.pidfd_open = fake_pidfd_open;
	fake.pidfd_send_signal = fake_pidfd_send_signal;
	fake.getxattr = fake_getxattr;
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static void scope_at(struct scope *s, const char *path)
{
	char err[256];

	assert_int_equal(scope_init_cgroup(s, root, path, &mounts, FIXTURE_PAGE_SHIFT, scratch, err,
					   sizeof(err)),
			 0);
	assert_int_equal(s->kind, SCOPE_CGROUP_V2);
}

static bool was_signalled(int pid)
{
	for (int i = 0; i < nr_signalled; i++)
		if (signalled[i] == pid)
			return true;
	return false;
}

/* The clock of the auto tests: a verdict at T0. */
#define T0  (1000ull * 1000000)
#define MIB (1024ull * 1024)

/* unit_find() in scope @s whose kill_unit is @k, at T0. */
static int find_as(struct scope *s, enum kill_unit_setting k, int pid, int self_pid, char *buf,
		   size_t size, struct kill_unit *ret)
{
	s->set.kill_unit = k;
	return unit_find(s, &mounts, pid, self_pid, T0, buf, size, ret);
}

/* unit_kill() of @u under the fake syscalls, the signals counted from 0. */
static long kill_faked(struct scope *s, const struct kill_unit *u, int victim, int self_pid,
		       bool dry_run)
{
	long n;

	nr_signalled = 0;
	sys = &fake;
	n = unit_kill(s, u, victim, self_pid, dry_run, scratch, sizeof(scratch));
	sys = &sys_ops_real;
	return n;
}

static void test_find(void **state)
{
	struct kill_unit u;
	struct scope s;

	(void)state;
	scope_at(&s, CG "/app");
	/* The highest oom.group up to the scope: svc, not w. */
	assert_int_equal(find_as(&s, KILL_UNIT_OOM_GROUP, 3001, 99, scratch, sizeof(scratch), &u),
			 0);
	assert_int_equal(u.mode, UNIT_OOM_GROUP);
	assert_string_equal(unit_path(&u), "/app/svc");
	assert_true(u.v2);
	assert_false(u.has_self);
	/* kill_unit cgroup finds the same oom.group; process, the victim alone. */
	assert_int_equal(find_as(&s, KILL_UNIT_CGROUP, 3001, 99, scratch, sizeof(scratch), &u), 0);
	assert_int_equal(u.mode, UNIT_OOM_GROUP);
	assert_string_equal(unit_path(&u), "/app/svc");
	assert_int_equal(find_as(&s, KILL_UNIT_PROCESS, 3001, 99, scratch, sizeof(scratch), &u), 0);
	assert_int_equal(u.mode, UNIT_NONE);
	assert_int_equal(find_as(&s, KILL_UNIT_PROCESS, 3006, 99, scratch, sizeof(scratch), &u), 0);
	assert_int_equal(u.mode, UNIT_NONE);
	/* No oom.group where 3006 is: the victim alone, or its cgroup when asked. */
	assert_int_equal(find_as(&s, KILL_UNIT_OOM_GROUP, 3006, 99, scratch, sizeof(scratch), &u),
			 0);
	assert_int_equal(u.mode, UNIT_NONE);
	assert_int_equal(find_as(&s, KILL_UNIT_CGROUP, 3006, 99, scratch, sizeof(scratch), &u), 0);
	assert_int_equal(u.mode, UNIT_CGROUP);
	assert_string_equal(unit_path(&u), "/app/other");
	/* oomguard in the group: cgroup.kill would kill it too. */
	assert_int_equal(find_as(&s, KILL_UNIT_CGROUP, 3006, 3007, scratch, sizeof(scratch), &u),
			 0);
	assert_true(u.has_self);
	/* A victim that left the scope meanwhile: nothing but itself. */
	assert_int_equal(find_as(&s, KILL_UNIT_CGROUP, 99, 1, scratch, sizeof(scratch), &u), 0);
	assert_int_equal(u.mode, UNIT_NONE);
	scope_close(&s);
	/* The scope is w itself: the search stops there (svc is outside it). */
	scope_at(&s, CG "/app/svc/w");
	assert_int_equal(find_as(&s, KILL_UNIT_OOM_GROUP, 3001, 99, scratch, sizeof(scratch), &u),
			 0);
	assert_int_equal(u.mode, UNIT_OOM_GROUP);
	assert_string_equal(unit_path(&u), "/app/svc/w");
	scope_close(&s);
}

static void test_kill(void **state)
{
	struct kill_unit u;
	struct scope s;
	long n;

	(void)state;
	scope_at(&s, CG "/app");
	assert_int_equal(find_as(&s, KILL_UNIT_OOM_GROUP, 3001, 99, scratch, sizeof(scratch), &u),
			 0);
	n = kill_faked(&s, &u, 3001, 99, true);
	assert_int_equal(n, 2); /* dry run: 3002 and 3004 counted */
	assert_int_equal(nr_signalled, 0);
	n = kill_faked(&s, &u, 3001, 99, false);
	assert_int_equal(n, 2);
	assert_int_equal(nr_signalled, 2);
	assert_true(was_signalled(3002) && was_signalled(3004));
	/* never: the victim (killed already), adj -1000, a pid gone elsewhere, init, outside */
	assert_false(was_signalled(3001) || was_signalled(3003) || was_signalled(3005) ||
		     was_signalled(1) || was_signalled(3006) || was_signalled(4242));
	/* kill_cgroup with oomguard inside: one by one (no cgroup.kill), oomguard spared. */
	assert_int_equal(find_as(&s, KILL_UNIT_CGROUP, 3006, 3007, scratch, sizeof(scratch), &u),
			 0);
	n = kill_faked(&s, &u, 3006, 3007, false);
	assert_int_equal(n, 0);
	assert_int_equal(nr_signalled, 0);
	/* Without: cgroup.kill is written (a regular file in the fixture). */
	assert_int_equal(find_as(&s, KILL_UNIT_CGROUP, 3006, 99, scratch, sizeof(scratch), &u), 0);
	put(CG "/app/other/cgroup.kill", "");
	assert_int_equal(unit_kill(&s, &u, 3006, 99, false, scratch, sizeof(scratch)), -1);
	{
		char buf[8] = "", path[512];
		FILE *f;

		snprintf(path, sizeof(path), "%s" CG "/app/other/cgroup.kill", root);
		f = fopen(path, "r");
		assert_non_null(f);
		assert_non_null(fgets(buf, sizeof(buf), f));
		fclose(f);
		assert_string_equal(buf, "1");
	}
	/* The group removed and made again under its path since it was found (a service restarted
	 * during its victim's SIGTERM grace): another group, not killed. */
	assert_int_equal(find_as(&s, KILL_UNIT_CGROUP, 3006, 99, scratch, sizeof(scratch), &u), 0);
	{
		char cmd[1200];

		snprintf(cmd, sizeof(cmd),
			 "mv %s" CG "/app/other %s" CG "/app/other.old && cp -r %s" CG
			 "/app/other.old %s" CG "/app/other && rm -rf %s" CG "/app/other.old",
			 root, root, root, root, root);
		assert_int_equal(system(cmd), 0);
	}
	put(CG "/app/other/cgroup.kill", "");
	n = kill_faked(&s, &u, 3006, 99, false);
	assert_int_equal(n, -ESTALE);
	assert_int_equal(nr_signalled, 0);
	{
		char buf[8] = "", path[512];
		FILE *f;

		snprintf(path, sizeof(path), "%s" CG "/app/other/cgroup.kill", root);
		f = fopen(path, "r");
		assert_non_null(f);
		assert_null(fgets(buf, sizeof(buf), f)); /* not written */
		fclose(f);
	}
	/* The group gone (the victim was its last task; its manager removed it): nothing to kill,
	 * told apart from a group made again. */
	assert_int_equal(find_as(&s, KILL_UNIT_CGROUP, 3006, 99, scratch, sizeof(scratch), &u), 0);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf %s" CG "/app/other", root);
		assert_int_equal(system(cmd), 0);
	}
	n = kill_faked(&s, &u, 3006, 99, false);
	assert_int_equal(n, -ENOENT);
	assert_int_equal(nr_signalled, 0);
	scope_close(&s);
}

/*
 * A unit whose children nest 18 deep under names of 60 bytes: a member 10 levels below it (a
 * path of about 650 bytes) is killed with the unit; one 18 levels down, past TASKS_MAX_DEPTH, is
 * not (the unit kill says so). Before: the walk skipped children whose path was over 511 bytes,
 * and a member's own cgroup path over 511 bytes read as "elsewhere", so neither was killed.
 */
static void test_kill_deep(void **state)
{
	char dir[4096], procs[32];
	struct kill_unit u;
	struct scope s;
	size_t len;
	long n;

	(void)state;
	len = (size_t)snprintf(dir, sizeof(dir), "/app/svc");
	for (int level = 1; level <= 18; level++) {
		int pid = level == 10 ? 3020 : level == 18 ? 3021 : 0;
		char rel[4200];

		len += (size_t)snprintf(dir + len, sizeof(dir) - len, "/g%02d-%057d", level, 0);
		snprintf(rel, sizeof(rel), CG "%s/cgroup.procs", dir);
		snprintf(procs, sizeof(procs), pid ? "%d\n" : "", pid);
		put(rel, procs);
		if (pid)
			proc(pid, dir, 0);
		if (level == 10)
			assert_true(len > CONFIG_PATH_MAX);
	}
	scope_at(&s, CG "/app");
	assert_int_equal(find_as(&s, KILL_UNIT_OOM_GROUP, 3001, 99, scratch, sizeof(scratch), &u),
			 0);
	assert_string_equal(unit_path(&u), "/app/svc");
	n = kill_faked(&s, &u, 3001, 99, false);
	assert_int_equal(n, 3); /* 3002, 3004 and the deep 3020 */
	assert_true(was_signalled(3020));
	assert_false(was_signalled(3021));
	scope_close(&s);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf %s" CG "/app/svc/g01-* %s/proc/3020 %s/proc/3021",
			 root, root, root);
		assert_int_equal(system(cmd), 0);
	}
}

/* note() of a victim of @u that held @victim_bytes. */
static void note(struct unit_kill_record *last, const struct kill_unit *u, uint64_t victim_bytes,
		 uint64_t now)
{
	struct kill_unit v = *u;

	v.sd_victim_bytes = victim_bytes;
	unit_note_kill(last, &v, now);
}

/* unit_regrown() for the unit of inode @ino holding @bytes at @now. */
static bool at(const struct unit_kill_record *last, uint64_t ino, uint64_t bytes, uint64_t now)
{
	struct kill_unit u = {.sd_ino = ino, .sd_bytes = bytes};

	return unit_regrown(last, &u, now);
}

/* kill_unit auto's decision alone: the same unit, within the window of the last kill, holding at
 * least what it held at the episode's first verdict less half of what its victims held. */
static void test_regrown(void **state)
{
	const struct unit_kill_record last = {7, T0, 1000 * MIB, 100 * MIB};
	const struct unit_kill_record none = {0, T0, 1000 * MIB, 100 * MIB};
	const uint64_t later = T0 + 2000000;

	(void)state;
	assert_true(at(&last, 7, 1000 * MIB, later));
	assert_true(at(&last, 7, 950 * MIB, later)); /* less half the victims */
	assert_false(at(&last, 7, 950 * MIB - 1, later));
	assert_false(at(&last, 7, 900 * MIB, later)); /* kept what they freed */
	assert_false(at(&last, 8, 1000 * MIB, later)); /* another unit, or the same started again */
	assert_false(at(&none, 0, 1000 * MIB, later)); /* no kill yet */
	assert_true(at(&last, 7, 1000 * MIB, T0));     /* at once: the report came */
	assert_true(at(&last, 7, 1000 * MIB, T0 + UNIT_REGROW_WINDOW_USEC - 1));
	assert_false(at(&last, 7, 1000 * MIB, T0 + UNIT_REGROW_WINDOW_USEC));
	assert_false(at(&last, 7, 1000 * MIB, T0 - 1)); /* a clock gone back */
}

/* An episode: kills in one unit, each within the window of the one before, sum their victims
 * against the unit as it was at the first; another unit, or a kill after the window, begins a
 * new one; a unit killed whole, a victim in no unit, end it. */
static void test_episode(void **state)
{
	struct unit_kill_record r = {0, 0, 0, 0};
	struct kill_unit a = {.sd_ino = 11, .sd_bytes = 500 * MIB};
	struct kill_unit b = {.sd_ino = 12, .sd_bytes = 300 * MIB};

	(void)state;
	note(&r, &a, 16 * MIB, T0);
	assert_int_equal(r.ino, 11);
	assert_int_equal(r.unit_bytes, 500 * MIB);
	assert_int_equal(r.victim_bytes, 16 * MIB);
	/* The unit took back 6 of the 16 MiB: not yet (it must hold 492 MiB). */
	assert_false(at(&r, 11, 490 * MIB, T0 + 100000));
	a.sd_bytes = 490 * MIB;
	note(&r, &a, 16 * MIB, T0 + 100000);
	assert_int_equal(r.unit_bytes, 500 * MIB); /* the episode's first */
	assert_int_equal(r.victim_bytes, 32 * MIB);
	/* Back at 490 MiB after 32 MiB of kills: it took back more than half. */
	assert_true(at(&r, 11, 490 * MIB, T0 + 200000));
	/* Another directory (the unit started again under its name): a new episode. */
	a.sd_ino = 9;
	note(&r, &a, 16 * MIB, T0 + 300000);
	assert_int_equal(r.ino, 9);
	assert_int_equal(r.victim_bytes, 16 * MIB);
	a.sd_ino = 11;
	/* A kill past the window: a new episode from that verdict's unit. */
	note(&r, &a, 16 * MIB, T0 + 100000 + UNIT_REGROW_WINDOW_USEC);
	assert_int_equal(r.unit_bytes, 490 * MIB);
	assert_int_equal(r.victim_bytes, 16 * MIB);
	/* Another unit: a new episode. */
	note(&r, &b, 8 * MIB, T0 + 200000 + UNIT_REGROW_WINDOW_USEC);
	assert_int_equal(r.ino, 12);
	assert_int_equal(r.unit_bytes, 300 * MIB);
	assert_int_equal(r.victim_bytes, 8 * MIB);
	/* Killed whole, or a victim in no unit: forgotten. */
	b.mode = UNIT_REGROWN;
	note(&r, &b, 8 * MIB, T0 + 300000 + UNIT_REGROW_WINDOW_USEC);
	assert_int_equal(r.ino, 0);
	note(&r, &a, 16 * MIB, T0);
	note(&r, &(struct kill_unit){.sd_ino = 0}, 16 * MIB, T0 + 1);
	assert_int_equal(r.ino, 0);
}

/* kill_unit auto on the fixture: a systemd unit below the scope is remembered at a kill and
 * dies whole at the next verdict once it regrew; a delegated unit, a cgroup that names no unit
 * and the scope's own cgroup never do; a unit killed whole is forgotten. */
static void test_auto(void **state)
{
	struct kill_unit u;
	struct scope s;
	uint64_t web_ino;

	(void)state;
	scope_at(&s, CG "/app");
	memset(&s.last_unit_kill, 0, sizeof(s.last_unit_kill));
	/* First verdict in web.service: the victim alone, the unit's anon + swap noted. */
	assert_int_equal(find_as(&s, KILL_UNIT_AUTO, 3010, 99, scratch, sizeof(scratch), &u), 0);
	assert_int_equal(u.mode, UNIT_NONE);
		assert_int_equal(u.sd_bytes, 200 * MIB + MIB);
	assert_true(u.sd_ino != 0);
	web_ino = u.sd_ino;
	assert_int_equal(u.sd_victim_bytes, 21 * MIB); /* its RssAnon + VmSwap, not its VmRSS */
	unit_note_kill(&s.last_unit_kill, &u, T0 - 2000000);
	assert_int_equal(s.last_unit_kill.victim_bytes, 21 * MIB);
	assert_int_equal(s.last_unit_kill.ino, web_ino);
	/* Two seconds later the unit holds as much again: it dies whole, process by process, but
	 * for oom_score_adj -1000 (3013) as in an oom.group kill, never through cgroup.kill. */
	assert_int_equal(find_as(&s, KILL_UNIT_AUTO, 3011, 99, scratch, sizeof(scratch), &u), 0);
	assert_int_equal(u.mode, UNIT_REGROWN);
	assert_string_equal(unit_path(&u), "/app/web.service");
	assert_string_equal(unit_mode_name(u.mode), "regrown");
	put(CG "/app/web.service/cgroup.kill", "");
	assert_int_equal(kill_faked(&s, &u, 3011, 99, false), 1);
	assert_true(was_signalled(3010));
	assert_false(was_signalled(3011) || was_signalled(3013));
	{
		char path[512];
		struct stat st;

		snprintf(path, sizeof(path), "%s" CG "/app/web.service/cgroup.kill", root);
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_size, 0); /* not written */
	}
	note(&s.last_unit_kill, &u, 20 * MIB, T0);
	assert_int_equal(s.last_unit_kill.ino, 0); /* killed whole: forgotten */
	/* A unit that kept what its kill freed (the record says it held 300 MiB): one more. */
	memset(&s.last_unit_kill, 0, sizeof(s.last_unit_kill));
	note(&s.last_unit_kill, &(struct kill_unit){.sd_ino = web_ino, .sd_bytes = 300 * MIB},
	     100 * MIB, T0 - 2000000);
	assert_int_equal(find_as(&s, KILL_UNIT_AUTO, 3011, 99, scratch, sizeof(scratch), &u), 0);
	assert_int_equal(u.mode, UNIT_NONE);
	/* The other settings never look: oom_group and process stay the victim alone. */
	memset(&s.last_unit_kill, 0, sizeof(s.last_unit_kill));
	note(&s.last_unit_kill, &(struct kill_unit){.sd_ino = web_ino, .sd_bytes = 201 * MIB},
	     20 * MIB, T0 - 2000000);
	assert_int_equal(find_as(&s, KILL_UNIT_OOM_GROUP, 3011, 99, scratch, sizeof(scratch), &u),
			 0);
	assert_int_equal(u.mode, UNIT_NONE);
	assert_int_equal(u.sd_ino, 0);
	/* Delegated (systemd's OOMPolicy default there is continue): never a unit. */
	sys = &fake;
	assert_int_equal(find_as(&s, KILL_UNIT_AUTO, 3012, 99, scratch, sizeof(scratch), &u), 0);
	sys = &sys_ops_real;
	assert_int_equal(u.mode, UNIT_NONE);
	assert_int_equal(u.sd_ino, 0);
	/* No unit's name (app/other): nothing noted. */
	assert_int_equal(find_as(&s, KILL_UNIT_AUTO, 3006, 99, scratch, sizeof(scratch), &u), 0);
	assert_int_equal(u.mode, UNIT_NONE);
	assert_int_equal(u.sd_ino, 0);
	scope_close(&s);
	/* The scope's own cgroup is no unit of it, whatever its name. */
	scope_at(&s, CG "/app/web.service");
	memset(&s.last_unit_kill, 0, sizeof(s.last_unit_kill));
	assert_int_equal(find_as(&s, KILL_UNIT_AUTO, 3010, 99, scratch, sizeof(scratch), &u), 0);
	assert_int_equal(u.sd_ino, 0);
	scope_close(&s);
}

/* ---- SIGTERM first: a child that exits on it, one that ignores it ---- */

static struct daemon d;

static pid_t child(bool ignore_term)
{
	int p[2];
	char c;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		if (ignore_term)
			signal(SIGTERM, SIG_IGN);
		if (write(p[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	return pid;
}

static void test_grace(void **state)
{
	struct scope *s = &d.scopes[0];
	const struct kill_unit term_unit = {
	    .sd_ino = 5, .sd_bytes = 100 * MIB, .sd_victim_bytes = 10 * MIB};
	int status;

	(void)state;
	config_defaults(&d.cfg);
	d.cfg.per_scope.term_grace_msec = 200;
	assert_int_equal(scope_init_machine(s, "tests/fixtures/k6.18", FIXTURE_PAGE_SHIFT, scratch),
			 0);
	s->set = d.cfg.per_scope;
	for (int ignore = 0; ignore < 2; ignore++) {
		pid_t pid = child(ignore);
		uint64_t t0 = now_usec();

		s->term.pidfd = sys->pidfd_open(pid, 0);
		assert_true(s->term.pidfd >= 0);
		s->term.task.pid = pid;
		s->term.unit = term_unit;
		memset(&s->last_unit_kill, 0, sizeof(s->last_unit_kill));
		s->term.term_usec = t0;
		s->term.deadline_usec = t0 + 200000;
		kill(pid, SIGTERM); /* as send_term() does */
		while (term_pending(&d, s, now_usec()) && s->term.pidfd >= 0)
			usleep(10000);
		assert_int_equal(s->term.pidfd, -1);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status));
		/* exits on SIGTERM at once; ignores it: SIGKILL after the grace, not before */
		assert_int_equal(WTERMSIG(status), ignore ? SIGKILL : SIGTERM);
		if (ignore)
			assert_true(now_usec() - t0 >= 200000);
		else
			assert_true(now_usec() - t0 < 200000);
		/* kill_unit auto's episode: the exit after SIGTERM is the kill, noted with its
		 * unit; a SIGKILL with no reaper here (no report will say its memory is gone)
		 * leaves no episode to judge the unit against. */
		assert_int_equal(s->last_unit_kill.ino, ignore ? 0 : 5);
		if (!ignore)
			assert_int_equal(s->last_unit_kill.victim_bytes, 10 * MIB);
	}
	/* A dry run kills nothing, so no unit can take anything back: the episode is forgotten. */
	{
		pid_t pid = child(true);
		uint64_t t0 = now_usec();

		d.cfg.dry_run = true;
		s->term.pidfd = sys->pidfd_open(pid, 0);
		assert_true(s->term.pidfd >= 0);
		s->term.task.pid = pid;
		s->term.unit = term_unit;
		s->term.term_usec = t0;
		s->term.deadline_usec = t0;
		unit_note_kill(&s->last_unit_kill, &term_unit, t0);
		assert_int_equal(s->last_unit_kill.ino, 5);
		assert_true(term_pending(&d, s, t0 + 1));
		assert_int_equal(s->last_unit_kill.ino, 0);
		d.cfg.dry_run = false;
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &status, 0), pid);
	}
	scope_close(s);
}

/* Send @result for the kill pending in @s through a report pipe of @d's (as the reaper does). */
static void report(struct scope *s, enum reap_result result)
{
	struct reap_report rep = {
	    .pid = 3010, .scope = s, .result = result, .kill_usec = s->kill_pending_usec};

	assert_int_equal(write(d.reaper.report_wr, &rep, sizeof(rep)), (ssize_t)sizeof(rep));
	daemon_handle_reports(&d);
}

/* Where the reaper cannot say that the victim's memory left its unit (its report says
 * skipped, or none comes in time), kill_unit auto's episode is forgotten; a reaped or exited
 * victim's report leaves it, and only the overdue bound (not a report within it) forgets. */
static void test_reports(void **state)
{
	struct scope *s = &d.scopes[0];
	const struct kill_unit u = {.sd_ino = 7, .sd_bytes = 100 * MIB, .sd_victim_bytes = MIB};
	int p[2];
	uint64_t t0 = now_usec();

	(void)state;
	config_defaults(&d.cfg);
	d.helper.to_fd = -1;
	assert_int_equal(pipe2(p, O_NONBLOCK | O_CLOEXEC), 0);
	d.reaper.report_rd = p[0];
	d.reaper.report_wr = p[1];
	assert_int_equal(scope_init_machine(s, "tests/fixtures/k6.18", FIXTURE_PAGE_SHIFT, scratch),
			 0);
	for (enum reap_result r = REAP_RELEASED; r <= REAP_SKIPPED; r++) {
		memset(&s->last_unit_kill, 0, sizeof(s->last_unit_kill));
		unit_note_kill(&s->last_unit_kill, &u, t0);
		s->kill_pending = true;
		s->kill_pending_usec = t0;
		report(s, r);
		assert_false(s->kill_pending);
		assert_int_equal(s->last_unit_kill.ino, r == REAP_SKIPPED ? 0 : 7);
	}
	/* No report: kept within the bound, forgotten after it (and the scope free again). */
	unit_note_kill(&s->last_unit_kill, &u, t0);
	s->kill_pending = true;
	s->kill_pending_usec = t0;
	kill_overdue(&d, s, t0 - 1); /* a kill made after the round's clock was read */
	assert_true(s->kill_pending);
	kill_overdue(&d, s, t0 + victim_wait_usec(&d));
	assert_true(s->kill_pending);
	assert_int_equal(s->last_unit_kill.ino, 7);
	kill_overdue(&d, s, t0 + victim_wait_usec(&d) + 1);
	assert_false(s->kill_pending);
	assert_int_equal(s->last_unit_kill.ino, 0);
	close(p[0]);
	close(p[1]);
	d.reaper.report_rd = d.reaper.report_wr = -1;
	scope_close(s);
}

/* A verdict that kills nothing (the scope resolved on the re-check, the victim gone) leaves
 * kill_unit auto's episode as it was: nothing was freed for the unit to take back. */
static void test_no_kill_keeps_episode(void **state)
{
	struct scope *s = &d.scopes[0];
	const struct kill_unit u = {.sd_ino = 9, .sd_bytes = 100 * MIB, .sd_victim_bytes = MIB};
	struct oom_task victim = {.pid = 0, .comm = "gone"};
	pid_t pid = fork();
	int r;

	(void)state;
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid); /* reaped: its pid names nobody now */
	victim.pid = pid;
	config_defaults(&d.cfg);
	d.helper.to_fd = -1;
	assert_int_equal(scope_init_machine(s, "tests/fixtures/k6.18", FIXTURE_PAGE_SHIFT, scratch),
			 0);
	s->set = d.cfg.per_scope;
	memset(&s->last_unit_kill, 0, sizeof(s->last_unit_kill));
	unit_note_kill(&s->last_unit_kill, &u, now_usec());
	for (int thrash = 0; thrash < 2; thrash++) { /* resolved on the re-check; then gone */
		s->round.thrash = thrash ? THRASH_YES : THRASH_NONE;
		r = daemon_kill(&d, s, &victim, 1, now_usec(), &u);
		assert_true(r == -EAGAIN || r == -ESRCH);
		/* the fixture's machine has memory free: resolved, unless the verdict is a
		 * thrash, which free pages do not resolve; then the victim is gone */
		assert_int_equal(r, thrash ? -ESRCH : -EAGAIN);
		assert_int_equal(s->last_unit_kill.ino, 9);
		assert_int_equal(s->last_unit_kill.victim_bytes, MIB);
	}
	scope_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_find),
	    cmocka_unit_test(test_kill),
	    cmocka_unit_test(test_kill_deep),
	    cmocka_unit_test(test_regrown),
	    cmocka_unit_test(test_episode),
	    cmocka_unit_test(test_auto),
	    cmocka_unit_test(test_grace),
	    cmocka_unit_test(test_reports),
	    cmocka_unit_test(test_no_kill_keeps_episode),
	};

	log_max_prio = LOG_PRIO_ERR;
	return cmocka_run_group_tests(tests, setup, teardown);
}
