// SPDX-License-Identifier: GPL-2.0-only
/* The prefer, avoid and protect rules on a fixture /proc and cgroupfs: by name, cmdline, real
 * uid, executable path and cgroup, several of each; systemd's user.oomd_omit / user.oomd_avoid
 * on root's cgroups only; the keys and options, their errors; results kept per process until
 * it renames itself or the config is reloaded. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/commands.h"
#include "daemon/config.h"
#include "daemon/daemon.h"
#include "daemon/match.h"
#include "daemon/options.h"
#include "daemon/regex_cost.h"
#include "daemon/scope.h"
#include "daemon/tasks.h"
#include "linux/sys.h"
#include "../lib/proc_fixture.h"

#define FIXTURE_PAGE_SHIFT 12

static char scratch[SCOPE_SCRATCH_SIZE];
static struct task_list tl;
static char root[] = "/tmp/oomguard-test-match-XXXXXX";
static struct cgroup_mounts mounts;

/* Writes @text to the fixture's /proc/@pid/@name; a cmdline with its closing NUL. */
static void put(int pid, const char *name, const char *text)
{
	proc_fixture_put(root, pid, name, text, strlen(text) + (strcmp(name, "cmdline") ? 0 : 1));
}

/* A process: @comm, real @uid (its /proc dir stays root's: the owner is not the uid read),
 * @exe, @cmdline (NUL-separated: '|' in the string), its v1 memory and v2 cgroups. */
static void process(int pid, const char *comm, int uid, const char *exe, const char *cmdline,
		    const char *v1, const char *v2)
{
	char buf[1024], path[512];

	snprintf(buf, sizeof(buf),
		 "%d (%s) R 1 %d %d 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 %d 400000000 %d "
		 "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		 pid, comm, pid, pid, 900 + pid, 10000 + pid);
	put(pid, "stat", buf);
	put(pid, "oom_score_adj", "0\n");
	snprintf(buf, sizeof(buf),
		 "Name:\t%s\nUmask:\t0022\nState:\tR (running)\nUid:\t%d\t0\t%d\t%d\n"
		 "Gid:\t0\t0\t0\t0\nVmRSS:\t%d kB\nVmSwap:\t0 kB\nVmPTE:\t100 kB\nKthread:\t0\n",
		 comm, uid, uid, uid, 4 * (10000 + pid));
	put(pid, "status", buf);
	snprintf(buf, sizeof(buf), "4:memory:%s\n0::%s\n", v1, v2);
	put(pid, "cgroup", buf);
	snprintf(buf, sizeof(buf), "%s", cmdline);
	for (char *p = buf; *p; p++)
		if (*p == '|')
			*p = '\0';
	snprintf(path, sizeof(path), "%s/proc/%d/cmdline", root, pid);
	{
		FILE *f = fopen(path, "w");
		size_t len = strlen(cmdline) + 1;

		assert_non_null(f);
		fwrite(buf, 1, len, f);
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/proc/%d/exe", root, pid);
	assert_int_equal(symlink(exe, path), 0);
}

/* A v2 cgroup of the fixture, owned by @uid, with @xattr set to "1" (NULL: none). */
static void cgroup2(const char *path, int uid, const char *xattr)
{
	char dir[512], cmd[600];

	snprintf(dir, sizeof(dir), "%s/sys/fs/cgroup/unified%s", root, path);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s", dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(chown(dir, (uid_t)uid, 0), 0);
	if (xattr)
		assert_int_equal(setxattr(dir, xattr, "1", 1, 0), 0);
}

static int setup(void **state)
{
	char cmd[400];

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(cmd, sizeof(cmd), "cp -r tests/fixtures/k6.18/proc tests/fixtures/k6.18/sys %s/",
		 root);
	assert_int_equal(system(cmd), 0);
	process(2001, "hog", 1000, "/usr/bin/hog", "hog|--big", "/batch/job1",
		"/user.slice/user-1000.slice/session-1.scope");
	process(2002, "postgres", 113, "/usr/lib/postgresql/15/bin/postgres (deleted)",
		"postgres: writer", "/", "/system.slice/postgresql.service");
	/* A user's process named as a protected daemon, in a cgroup of their own that they
	 * marked omit: neither the name... nor their xattr can be trusted. */
	process(2003, "sshd", 1000, "/home/u/sshd", "/usr/sbin/sshd|-D", "/",
		"/user.slice/user-1000.slice/user@1000.service/evil");
	process(2004, "keep", 0, "/usr/bin/keep", "keep", "/", "/system.slice/important.service");
	process(2005, "worker", 0, "/usr/bin/worker", "worker", "/",
		"/system.slice/batch.service/payload");
	put(1234, "cmdline", "cp");
	{
		char path[512];

		snprintf(path, sizeof(path), "%s/proc/1234/exe", root);
		assert_int_equal(symlink("/usr/bin/cp", path), 0);
	}
	cgroup2("/user.slice/user-1000.slice/user@1000.service/evil", 1000, "user.oomd_omit");
	cgroup2("/system.slice/important.service", 0, "user.oomd_omit");
	cgroup2("/system.slice/batch.service", 0, "user.oomd_avoid");
	cgroup2("/system.slice/batch.service/payload", 0, NULL);
	cgroup2("/system.slice/postgresql.service", 0, NULL);
	cgroup2("/user.slice/user-1000.slice/session-1.scope", 0, NULL);
	assert_int_equal(read_mountinfo(root, scratch, sizeof(scratch), &mounts), 0);
	assert_string_equal(mounts.v2, "/sys/fs/cgroup/unified");
	tl.mounts = &mounts;
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	tasks_close(&tl);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* Config from a file's text, then options, as the daemon builds it. */
static int build(struct config *c, const char *file, char **opts, char *err, size_t errsize)
{
	char path[512], *argv[32] = {"run", "--config", path};
	int argc = 3;
	FILE *f;

	snprintf(path, sizeof(path), "%s/oomguard.conf", root);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(file, f);
	fclose(f);
	for (; opts && *opts; opts++)
		argv[argc++] = *opts;
	argv[argc] = NULL;
	return options_parse(c, argc, argv, err, errsize);
}

/* The flags of each fixture process (2001-2005) under @file and @opts, on a fresh listing. */
static void flags_of(const char *file, char **opts, unsigned int ret[6])
{
	struct victim_table vt = {0};
	struct config c;
	struct scope s;
	char err[256] = "";

	assert_int_equal(build(&c, file, opts, err, sizeof(err)), 0);
	assert_int_equal(scope_init_machine(&s, root, FIXTURE_PAGE_SHIFT, scratch), 0);
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	memset(ret, 0, 6 * sizeof(ret[0]));
	for (size_t i = 0; i < tl.nr; i++)
		if (tl.tasks[i].pid > 2000 && tl.tasks[i].pid <= 2005)
			ret[tl.tasks[i].pid - 2000] = tl.tasks[i].flags &
						      (OOM_TASK_PROTECTED | OOM_TASK_PREFER |
						       OOM_TASK_AVOID);
	if (tl.nr != 6) {
		for (size_t i = 0; i < tl.nr; i++)
			print_error("listed %d\n", tl.tasks[i].pid);
		fail_msg("%zu listed, want 6 (1234 and the five)", tl.nr);
	}
	scope_close(&s);
	config_release(&c);
}

#define P OOM_TASK_PROTECTED
#define F OOM_TASK_PREFER
#define A OOM_TASK_AVOID

static void test_rules(void **state)
{
	static const struct {
		const char *name, *file;
		char *opts[6];
		unsigned int want[6]; /* [1..5]: pids 2001..2005 */
	} cases[] = {
	    /* systemd's xattrs, on by default: root's important.service omitted, batch.service's
	     * child avoided (the unit's cgroup is an ancestor); the user's own omit ignored. */
	    {"oomd xattrs", "", {NULL}, {0, 0, 0, 0, P, A}},
	    {"oomd xattrs off", "oomd_xattrs = no\n", {NULL}, {0, 0, 0, 0, 0, 0}},
	    {"oomd xattrs off by option", "", {"--no-oomd-xattrs", NULL}, {0, 0, 0, 0, 0, 0}},
	    /* The name is the process's to choose: the user's "sshd" is protected by name, not by
	     * the path of the real sshd. */
	    {"protect by name: forged", "oomd_xattrs = no\nprotect = sshd\n", {NULL},
	     {0, 0, 0, P, 0, 0}},
	    {"protect by exe", "oomd_xattrs = no\nprotect_exe = /usr/sbin/sshd\n", {NULL},
	     {0, 0, 0, 0, 0, 0}},
	    /* A directory (ends in '/'); " (deleted)" (an upgraded binary) cut off. */
	    {"protect by exe dir", "oomd_xattrs = no\nprotect_exe = /usr/lib/postgresql/\n", {NULL},
	     {0, 0, P, 0, 0, 0}},
	    {"exe exact, not a prefix", "oomd_xattrs = no\nprefer_exe = /usr/bin/ho\n", {NULL},
	     {0, 0, 0, 0, 0, 0}},
	    {"uid: the real one from status, not the /proc dir's owner",
	     "oomd_xattrs = no\nprotect_uid = 113\nprefer_uid = 1000-1999\n", {NULL},
	     {0, F, P, F, 0, 0}},
	    {"several rules of a kind", "oomd_xattrs = no\navoid_uid = 0\navoid_uid = 113\n",
	     {NULL}, {0, 0, A, 0, A, A}},
	    {"cmdline (forgeable)", "oomd_xattrs = no\nprefer_cmdline = --big$\n"
	     "avoid_cmdline = ^/usr/sbin/sshd -D$\n", {NULL}, {0, F, 0, A, 0, 0}},
	    {"cgroup: v1 memory path, prefix at a /", "oomd_xattrs = no\nprefer_cgroup = /batch\n"
	     "prefer_cgroup = /bat\nprotect_cgroup = /process_api\n", {NULL}, {0, F, 0, 0, 0, 0}},
	    {"cgroup: v2 path when no v1 memory line", "oomd_xattrs = no\n"
	     "avoid_cgroup = /system.slice\n", {NULL}, {0, 0, 0, 0, 0, 0}},
	    {"names by regex, several", "oomd_xattrs = no\nprefer_regex = ^hog$\n"
	     "prefer_regex = ^work\n", {NULL}, {0, F, 0, 0, 0, F}},
	    /* Options replace the file's rules of the same key, and add to the others. */
	    {"options replace the file's key", "oomd_xattrs = no\nprefer_uid = 1000\n"
	     "avoid_uid = 113\n", {"--prefer-uid", "0", NULL}, {0, 0, A, 0, F, F}},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned int got[6];

		flags_of(cases[i].file, (char **)cases[i].opts, got);
		for (int k = 1; k <= 5; k++)
			if (got[k] != cases[i].want[k])
				fail_msg("%s: pid %d flags %#x, want %#x", cases[i].name, 2000 + k,
					 got[k], cases[i].want[k]);
	}
}

/* The v1 memory line wins for cgroup rules; a v2-only system uses the 0:: path. */
static void test_cgroup_v2_only(void **state)
{
	unsigned int got[6];

	(void)state;
	put(2004, "cgroup", "0::/system.slice/important.service\n");
	flags_of("oomd_xattrs = no\navoid_cgroup = /system.slice\n", NULL, got);
	assert_int_equal(got[4], A);
	put(2004, "cgroup", "4:memory:/\n0::/system.slice/important.service\n");
}

static void test_bad_values(void **state)
{
	static const struct {
		const char *file, *want;
	} cases[] = {
	    {"prefer_uid = abc\n", "bad value 'abc' for prefer_uid (valid: a uid or MIN-MAX"},
	    {"avoid_uid = 5-2\n", "bad value '5-2' for avoid_uid"},
	    {"protect_uid = 4294967295\n", "below 4294967295"},
	    {"protect_uid = 1-\n", "bad value '1-' for protect_uid"},
	    {"protect_exe = usr/bin/x\n",
	     "bad value 'usr/bin/x' for protect_exe (valid: an absolute path"},
	    {"prefer_cgroup = batch\n", "for prefer_cgroup (valid: an absolute cgroup path"},
	    {"avoid_cmdline = (\n", "bad value '(' for avoid_cmdline (valid: a POSIX extended regex, "
				   "at most 255 bytes, repeating to at most 1024 copies)"},
	    /* refused before regcomp() is asked: 65,536 copies (37 MiB in musl's), a bound over
	     * 255, a range whose optional copies nest 254 deep (4-8 MiB) */
	    {"prefer_regex = (((x{16}){16}){16}){16}\n",
	     "bad value '(((x{16}){16}){16}){16}' for prefer_regex (valid: a POSIX extended regex, "
	     "at most 255 bytes, repeating to at most 1024 copies)"},
	    {"avoid_regex = x{256}\n", "bad value 'x{256}' for avoid_regex"},
	    {"prefer_cmdline = --x{1,255}\n", "bad value '--x{1,255}' for prefer_cmdline"},
	    {"prefer_regex =\n", "bad value '' for prefer_regex"},
	    {"oomd_xattrs = maybe\n", "bad value 'maybe' for oomd_xattrs"},
	};
	char file[64 * 40] = "";
	struct config c;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		assert_int_equal(build(&c, cases[i].file, NULL, err, sizeof(err)), -EINVAL);
		if (!strstr(err, cases[i].want))
			fail_msg("%s: got \"%s\", want \"%s\"", cases[i].file, err, cases[i].want);
	}
	for (int i = 0; i <= CONFIG_MAX_RULES; i++)
		strcat(file, "avoid_uid = 7\n");
	assert_int_equal(build(&c, file, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "more than 32 prefer, avoid and protect rules"));
}

/*
 * What a process is, read once: a second listing under the same config reads no status (its
 * uid changed meanwhile: the result kept is used), a reload or a rename reads it again.
 */
static void test_cached(void **state)
{
	struct victim_table vt = {0};
	struct config c;
	struct scope s;
	char err[256];

	(void)state;
	tasks_close(&tl);
	assert_int_equal(build(&c, "oomd_xattrs = no\nprefer_uid = 1000\n", NULL, err, sizeof(err)),
			 0);
	assert_int_equal(scope_init_machine(&s, root, FIXTURE_PAGE_SHIFT, scratch), 0);
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	put(2001, "status", "Name:\thog\nUid:\t0\t0\t0\t0\nVmRSS:\t4 kB\nKthread:\t0\n");
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	for (size_t i = 0; i < tl.nr; i++)
		if (tl.tasks[i].pid == 2001)
			assert_true(tl.tasks[i].flags & OOM_TASK_PREFER); /* kept */
	/* execve renames it: read again */
	put(2001, "stat",
	    "2001 (hog2) R 1 2001 2001 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 2901 400000000 "
	    "12001 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	for (size_t i = 0; i < tl.nr; i++)
		if (tl.tasks[i].pid == 2001)
			assert_false(tl.tasks[i].flags & OOM_TASK_PREFER);
	config_release(&c);
	scope_close(&s);
}

/* A pread that fails once with ESRCH on the first descriptor open on /proc/2001/stat: the
 * process a kept file named has exited. */
static int exited_fd = -1;

static ssize_t pread_exited(int fd, void *buf, size_t len, off_t off)
{
	char link[64], target[600];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (exited_fd < 0 && n > 0 && (target[n] = '\0', strstr(target, "/proc/2001/stat"))) {
		exited_fd = fd;
		return -ESRCH;
	}
	return sys_ops_real.pread(fd, buf, len, off);
}

/*
 * A pid taken by a new process under the same name (a uid-1000 "hog2" exits, a root "hog2"
 * gets its pid): the rules' result kept for the old one is not the new one's. Its kept stat
 * fails, it is read afresh, and so is what the rules look at.
 */
static void test_cached_pid_reused(void **state)
{
	struct sys_ops fake = sys_ops_real;
	struct victim_table vt = {0};
	bool seen = false;
	struct config c;
	struct scope s;
	char err[256];

	(void)state;
	tasks_close(&tl);
	/* test_cached left 2001 named "hog2", uid 0: uid 1000 again, and listed */
	put(2001, "status", "Name:\thog2\nUid:\t1000\t0\t0\t0\nVmRSS:\t4 kB\nKthread:\t0\n");
	assert_int_equal(build(&c, "oomd_xattrs = no\nprefer_uid = 1000\n", NULL, err, sizeof(err)),
			 0);
	assert_int_equal(scope_init_machine(&s, root, FIXTURE_PAGE_SHIFT, scratch), 0);
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	for (size_t i = 0; i < tl.nr; i++)
		if (tl.tasks[i].pid == 2001)
			seen = tl.tasks[i].flags & OOM_TASK_PREFER;
	assert_true(seen);
	seen = false;
	/* 2001 exits; a root "hog2" started later takes its pid */
	put(2001, "status", "Name:\thog2\nUid:\t0\t0\t0\t0\nVmRSS:\t4 kB\nKthread:\t0\n");
	put(2001, "stat",
	    "2001 (hog2) R 1 2001 2001 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 98765 400000000 "
	    "12001 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	exited_fd = -1;
	fake.pread = pread_exited;
	sys = &fake;
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	sys = &sys_ops_real;
	assert_true(exited_fd >= 0); /* the kept file was read, and failed */
	for (size_t i = 0; i < tl.nr; i++) {
		if (tl.tasks[i].pid != 2001)
			continue;
		seen = true;
		assert_int_equal(tl.tasks[i].start_time, 98765);
		assert_false(tl.tasks[i].flags & OOM_TASK_PREFER);
	}
	assert_true(seen);
	config_release(&c);
	scope_close(&s);
}

/*
 * status --tasks: the candidates in the order the daemon would take them, the first marked, with
 * the rules that matched, the uid and exe; the excluded ones with why.
 */
static void test_status_tasks(void **state)
{
	static struct daemon d;
	char err[256], *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	const char *p1, *p2, *p3;

	(void)state;
	assert_non_null(out);
	assert_int_equal(build(&d.cfg, "prefer_uid = 1000\navoid_exe = /usr/bin/hog\n"
				      "protect_exe = /usr/lib/postgresql/\n",
			       NULL, err, sizeof(err)),
			 0);
	d.self_pid = 1;
	d.tasks.mounts = &mounts;
	assert_int_equal(scope_init_machine(&d.scopes[0], root, FIXTURE_PAGE_SHIFT, scratch), 0);
	assert_int_equal(status_print_tasks(&d, &d.scopes[0], out, false), 0);
	fclose(out);
	/* 2003 (preferred, uid 1000) first; 1234; then the avoided ones by badness: 2005
	 * (oomd_avoid), 2001 (avoid_exe; test_cached left it renamed "hog2" with uid 0); 2002 and
	 * 2004 excluded. */
	p1 = strstr(text, "  1* pid=2003 comm=sshd ");
	p2 = strstr(text, "  3  pid=2005 comm=worker ");
	p3 = strstr(text, "  4  pid=2001 comm=hog2 ");
	if (!p1 || !p2 || !p3 || !strstr(text, "  2  pid=1234 comm=cp "))
		fail_msg("order:\n%s", text);
	assert_non_null(strstr(p1, "uid=1000 exe=/home/u/sshd preferred rules=prefer_uid=1000\n"));
	assert_non_null(strstr(p2, "avoided rules=oomd_avoid\n"));
	assert_non_null(strstr(p3, "uid=0 exe=/usr/bin/hog avoided rules=avoid_exe=/usr/bin/hog\n"));
	assert_non_null(strstr(text, "pid=2002 comm=postgres badness=0"));
	assert_non_null(strstr(text, "rules=protect_exe=/usr/lib/postgresql/ excluded=\"protected\""));
	assert_non_null(strstr(text, "rules=oomd_omit excluded=\"protected\""));
	free(text);
	scope_close(&d.scopes[0]);
	tasks_close(&d.tasks);
	config_release(&d.cfg);
}

/*
 * What a regex expands to (regex_cost.h): the counts of patterns a rule is made of, the
 * repetitions each way, and the bombs: stacked repetitions (glibc's regcomp took over 4 GiB for
 * a hundred '+', and over 12 s for seventy '?': found by fuzz_config), nested bounds, a bound
 * past 255. Those within
 * REGEX_COPIES_MAX are accepted as rules; those past it are not.
 */
static void test_regex_copies(void **state)
{
	static const struct {
		const char *re;
		uint32_t copies;
	} cases[] = {
	    {"^(chrome|firefox)$", 15},
	    {"[[:alpha:]_-]+\\.service$", 11},
	    {"java|python[0-9.]*", 11},
	    {"[]a]+", 2},
	    {"\\(a\\)", 3},
	    {"x{255}", 255},
	    {"x{0,}", 1},
	    {"x{3,}", 4},
	    {"x{1,44}", 947},
	    {"(ab){4}", 8},
	    {"((x{8}){8}){8}", 512},
	    {"(x{32}){32}", 1024},
	    {"(((a+)+)+)+", 16},
	    {"(((((((((((a+)+)+)+)+)+)+)+)+)+)+)+", 4096}, /* twelve +: 1.3 MiB in glibc */
	    {"a++", UINT32_MAX},
	    {"a??????????????????????????????????????????????????????????????????????", UINT32_MAX},
	    {"a*?", UINT32_MAX},
	    {"a{2}{3}", UINT32_MAX},
	    {"a{2}+", UINT32_MAX},
	    {"(a*)*\\1b", UINT32_MAX}, /* glibc's regexec: over 10 s on 1,000 'a' */
	    {"[\\1]", 1},               /* in a bracket: a '\' and a '1' */
	    {"(((x{16}){16}){16}){16}", 65536},
	    {"x{1,255}", 32386},
	    {"x{256}", UINT32_MAX},
	    {"x{1,256}", UINT32_MAX},
	    {"a{,3}", 5}, /* no bound: '{' ',' '3' '}' as themselves */
	};
	struct config c;
	char err[256], file[128];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t got = regex_copies(cases[i].re);
		int want = cases[i].copies <= REGEX_COPIES_MAX ? 0 : -EINVAL;

		if (got != cases[i].copies)
			fail_msg("%s: %u copies, want %u", cases[i].re, got, cases[i].copies);
		snprintf(file, sizeof(file), "avoid_regex = %s\n", cases[i].re);
		err[0] = '\0';
		if (build(&c, file, NULL, err, sizeof(err)) != want)
			fail_msg("%s: %s, want %s", cases[i].re, err[0] ? err : "accepted",
				 want ? "refused" : "accepted");
		if (!want)
			config_release(&c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rules),
	    cmocka_unit_test(test_cgroup_v2_only),
	    cmocka_unit_test(test_bad_values),
	    cmocka_unit_test(test_regex_copies),
	    cmocka_unit_test(test_cached),
	    cmocka_unit_test(test_cached_pid_reused),
	    cmocka_unit_test(test_status_tasks),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
