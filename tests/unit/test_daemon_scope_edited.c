// SPDX-License-Identifier: GPL-2.0-only
/* Scopes read from copies of the fixture trees edited for one case each: large hosts, a group
 * with many tasks or a removed child, a container's MemTotal of 0, the optional files a kernel
 * lacks, the anon + swap in use, a kernel thread under a reused pid, the machine's tasks, a
 * large host's /proc/stat and its busy CPUs. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/events.h"
#include "daemon/options.h"
#include "daemon/scope.h"
#include "daemon/tasks.h"
#include "linux/sys.h"
#include "../lib/proc_fixture.h"

/* The fixtures come from x86-64 hosts: 4 KiB pages. */
#define FIXTURE_PAGE_SHIFT 12

static char scratch[SCOPE_SCRATCH_SIZE];

static void mounts_of(const char *root, struct cgroup_mounts *m)
{
	assert_int_equal(read_mountinfo(root, scratch, sizeof(scratch), m), 0);
}

/* Opens of the optional files, by the end of their path. */
static const char *const optional_files[] = {"/pressure/io", "/pressure/memory",
					     "/memory.swap.current"};
static int opens[3];

static int counting_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	size_t n = strlen(path);

	for (size_t i = 0; i < 3; i++) {
		size_t m = strlen(optional_files[i]);

		if (n >= m && !strcmp(path + n - m, optional_files[i]))
			opens[i]++;
	}
	return sys_ops_real.openat(dirfd, path, flags, mode);
}

/* The machine's candidates come from /proc: a user process is a candidate, a kernel thread
 * (PF_KTHREAD, no Vm* lines) never is; a protected name never is. */
static struct task_list tl;

/* Removes a test's copy of a fixture tree (made with mkdtemp() under /tmp). */
static void fixture_remove(const char *root)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

/*
 * fixture_copy() - a copy of fixture @from's proc and sys in @root (a mkdtemp() template),
 * changed by the shell command @edit (its %s, twice at most: the copy's root).
 */
static void fixture_copy(char *root, const char *from, const char *edit)
{
	char cmd[900], line[600];

	assert_non_null(mkdtemp(root));
	snprintf(line, sizeof(line), edit, root, root);
	snprintf(cmd, sizeof(cmd), "cp -r %s/proc %s/sys %s/ && %s", from, from, root, line);
	assert_int_equal(system(cmd), 0);
}

/* v2_copy_acquired() - fixture_copy() of the v2 fixture, and its group app read once into @s. */
static void v2_copy_acquired(char *root, const char *edit, struct scope *s)
{
	char err[256] = "";
	struct cgroup_mounts m;

	fixture_copy(root, "tests/fixtures/v2", edit);
	mounts_of(root, &m);
	assert_int_equal(scope_init_cgroup(s, root, "/sys/fs/cgroup/app", &m, FIXTURE_PAGE_SHIFT,
					   scratch, err, sizeof(err)),
			 0);
	assert_int_equal(scope_acquire(s, scratch, 1000), 0);
}

/* Writes @text to @root/proc/@pid/@name. */
static void put(const char *root, int pid, const char *name, const char *text)
{
	proc_fixture_put(root, pid, name, text, strlen(text));
}

/* The fixture's v1 group in the tree at @root into @s, its tasks listed into tl. */
static void list_fixture_group(const char *root, struct scope *s)
{
	struct victim_table vt = {0};
	struct cgroup_mounts m;
	struct config c;
	char err[256] = "";

	config_defaults(&c);
	mounts_of(root, &m);
	assert_int_equal(scope_init_cgroup(s, root, "/sys/fs/cgroup/memory/oomguard-fixture", &m,
					   FIXTURE_PAGE_SHIFT, scratch, err, sizeof(err)),
			 0);
	assert_int_equal(tasks_acquire(&tl, s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
}

/* A group of 30,000 tasks (a fork bomb's): its cgroup.procs is read whole, so a process listed
 * last is found (a 16 KiB read of the file listed nobody). */
static void test_v1_group_many_tasks(void **state)
{
	char root[] = "/tmp/oomguard-test-procs-XXXXXX", cmd[700], path[600];
	struct scope s;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(cmd, sizeof(cmd), "cp -r tests/fixtures/k6.18/proc tests/fixtures/k6.18/sys %s/",
		 root);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/sys/fs/cgroup/memory/oomguard-fixture/cgroup.procs", root);
	f = fopen(path, "w");
	assert_non_null(f);
	for (int pid = 100000; pid < 130000; pid++) /* gone, as most of a fork bomb soon is */
		fprintf(f, "%d\n", pid);
	fprintf(f, "1234\n");
	fclose(f);
	list_fixture_group(root, &s);
	assert_int_equal(tl.nr, 1);
	assert_int_equal(tl.tasks[0].pid, 1234);
	assert_int_equal(tl.take.ranked_out, 0);
	tasks_close(&tl);
	scope_close(&s);
	fixture_remove(root);
}

/* A child group removed while a listing walks its parent (its cgroup.procs gone): the parent's
 * tasks are listed and the listing is whole (it failed with ENOENT, and no victim was chosen). */
static void test_child_group_removed(void **state)
{
	char root[] = "/tmp/oomguard-test-child-XXXXXX";
	struct scope s;

	(void)state;
	fixture_copy(root, "tests/fixtures/k6.18",
		     "mkdir %s/sys/fs/cgroup/memory/oomguard-fixture/gone");
	list_fixture_group(root, &s);
	assert_int_equal(tl.nr, 1);
	tasks_close(&tl);
	scope_close(&s);
	fixture_remove(root);
}

/*
 * A container whose /proc/meminfo reads MemTotal 0 (an lxcfs view gone wrong): a group needs
 * meminfo only to bound its limit by the machine's, so it is watched with its own limit (it
 * was refused, and start-up with it); the machine scope cannot be, and says so.
 */
static void test_container_memtotal_zero(void **state)
{
	char root[] = "/tmp/oomguard-test-lxc-XXXXXX";
	struct scope s;

	(void)state;
	v2_copy_acquired(root, "sed -i 's/^MemTotal:.*/MemTotal:              0 kB/' %s/proc/meminfo",
			 &s);
	assert_true(s.cur.limit_bytes > 0);
	scope_close(&s);
	assert_true(scope_init_machine(&s, root, FIXTURE_PAGE_SHIFT, scratch) < 0);
	scope_close(&s);
	fixture_remove(root);
}

/* The sums over nodes of the Normal zones of @root's zoneinfo: managed, free, min. */
static void normal_sums(const char *root, uint64_t ret_sum[3])
{
	char path[300];
	size_t size = 1 << 20, nr = 0;
	char *buf = malloc(size);
	struct proc_zone *pz = calloc(256, sizeof(*pz));
	FILE *f;
	size_t n;

	assert_non_null(buf);
	assert_non_null(pz);
	snprintf(path, sizeof(path), "%s/proc/zoneinfo", root);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_int_equal(parse_zoneinfo_buf(buf, pz, 256, &nr), 0);
	ret_sum[0] = ret_sum[1] = ret_sum[2] = 0;
	for (size_t i = 0; i < nr; i++) {
		if (pz[i].type != ZONE_NORMAL || !pz[i].managed_pages)
			continue;
		ret_sum[0] += pz[i].managed_pages;
		ret_sum[1] += pz[i].free_pages;
		ret_sum[2] += pz[i].min_pages;
	}
	free(pz);
	free(buf);
}

/*
 * Large hosts, generated (tests/fuzz/gen_corpus.sh): 4 nodes x 5 zones with 256 CPUs of
 * pagesets (a zoneinfo of 280 KiB, past the 64 KiB scratch) and 8 nodes with 17 populated
 * zones (past PROC_MAX_ZONES). Unsized, the machine scope cannot read them (E2BIG, ENOSPC:
 * it never read again while the service looked healthy); sized from the host at set-up, it
 * reads the zonelist, highest zone first, each type summed over the nodes (the first three
 * zones listed alone, as before, left nodes 1-3's Normal zones out).
 */
static void test_machine_large_hosts(void **state)
{
	static const char *const hosts[][2] = {
	    {"gen-6x-4nodes-5zones-256cpus", "gen-6x-4nodes-5zones"},
	    {"gen-6x-8nodes-movable-17-populated", "gen-6x-8nodes-movable"},
	};
	char root[] = "/tmp/oomguard-test-hosts-XXXXXX", cmd[1200];
	struct scope s;
	uint64_t sum[3];

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(
	    cmd, sizeof(cmd),
	    "cp -r tests/fixtures/k6.18/proc %s/ && sh tests/fuzz/gen_corpus.sh %s/gen >/dev/null",
	    root, root);
	assert_int_equal(system(cmd), 0);
	for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		snprintf(cmd, sizeof(cmd),
			 "cp %s/gen/zoneinfo/%s %s/proc/zoneinfo && cp %s/gen/buddyinfo/%s "
			 "%s/proc/buddyinfo",
			 root, hosts[i][0], root, root, hosts[i][1], root);
		assert_int_equal(system(cmd), 0);
		assert_int_equal(scope_init_machine(&s, root, FIXTURE_PAGE_SHIFT, scratch), 0);
		if (scope_acquire(&s, scratch, 1000) == 0)
			fail_msg("%s: read without sizing", hosts[i][0]);
		scope_close(&s);
		assert_int_equal(scope_init_machine(&s, root, FIXTURE_PAGE_SHIFT, scratch), 0);
		assert_int_equal(scope_size_zones(&s, scratch), 0);
		if (scope_acquire(&s, scratch, 1000) != 0)
			fail_msg("%s: not read once sized", hosts[i][0]);
		assert_int_equal(s.cur.nr_zones, MAX_NR_ZONES);
		assert_int_equal(s.cur.zones[0].idx, ZONE_NORMAL);
		/* Every node's Normal zone in the machine's one: the allocator falls back to all */
		normal_sums(root, sum);
		assert_true(sum[0] > 0);
		assert_int_equal(s.cur.zones[0].managed_pages, sum[0]);
		assert_int_equal(s.cur.zones[0].free_pages, sum[1]);
		assert_int_equal(s.cur.zones[0].watermark[WMARK_MIN], sum[2]);
		assert_true(s.cur.file_bytes > 0);
		scope_close(&s);
		assert_null(s.zone_text);
	}
	fixture_remove(root);
}

/*
 * A file the kernel does not have is looked for once: a machine without PSI (4.4), read in full
 * three times, opens /proc/pressure/io and /proc/pressure/memory once each; the stalls stay
 * unknown. A v2 group without memory.swap.current likewise.
 */
static void test_optional_missing(void **state)
{
	static struct sys_ops fake;
	char root[] = "/tmp/oomguard-test-noswap-XXXXXX";
	struct scope s;

	(void)state;
	fake = sys_ops_real;
	fake.openat = counting_openat;
	sys = &fake;
	memset(opens, 0, sizeof(opens));
	assert_int_equal(scope_init_machine(&s, "tests/fixtures/k4.4", FIXTURE_PAGE_SHIFT, scratch),
			 0);
	for (int i = 1; i <= 3; i++)
		assert_int_equal(scope_acquire(&s, scratch, 1000 * (uint64_t)i), 0);
	assert_int_equal(s.cur.io_stall_usec, SCOPE_IO_UNKNOWN);
	assert_int_equal(s.cur.stall_usec, 0);
	assert_int_equal(opens[0], 1);
	assert_int_equal(opens[1], 1);
	scope_close(&s);

	v2_copy_acquired(root, "rm %s/sys/fs/cgroup/app/memory.swap.current", &s);
	for (int i = 2; i <= 3; i++)
		assert_int_equal(scope_acquire(&s, scratch, 1000 * (uint64_t)i), 0);
	assert_int_equal(opens[2], 1);
	scope_close(&s);
	fixture_remove(root);
	sys = &sys_ops_real;
}

/*
 * A v2 group of 4.5-4.12 has no reclaim counters in its memory.stat: its reclaim is not read as
 * 0 pages a round (every stalled round would be "no progress"), it is not counted, as a v1
 * group's is not; with them, it is.
 */
/* Whether a copy of the v2 fixture changed by @edit, read three rounds, counts its reclaim
 * (its snapshot and its round agree). */
static bool v2_counts_reclaim(char *root, const char *edit)
{
	struct config c;
	struct scope s;
	bool counted;

	config_defaults(&c);
	v2_copy_acquired(root, edit, &s);
	for (int i = 2; i <= 3; i++)
		assert_int_equal(scope_acquire(&s, scratch, 1000 * (uint64_t)i), 0);
	scope_decide(&s, &c);
	counted = s.cur.counts_reclaim;
	assert_int_equal(s.sample.has_reclaimed, counted);
	scope_close(&s);
	fixture_remove(root);
	return counted;
}

/* Writes @root/proc/stat as a host of 256 CPUs whose interrupt line alone outgrows the
 * scratch: its "cpu" line busy for @busy ticks, @iowait of them iowait (idle 100000); and the
 * io "some" total. */
static void put_stat(const char *root, unsigned int busy, unsigned int iowait,
		     unsigned long io_usec)
{
	char cmd[700];

	snprintf(cmd, sizeof(cmd),
		 "awk -v b=%u -v w=%u 'BEGIN {"
		 " printf \"cpu  %%u 0 0 100000 %%u 0 0 0 0 0\\n\", b - w, w;"
		 " for (i = 0; i < 256; i++) printf \"cpu%%d 1 0 0 390 0 0 0 0 0 0\\n\", i;"
		 " printf \"intr 1\"; for (i = 0; i < 12000; i++) printf \" %%d\", i; print \"\" }'"
		 " >%s/proc/stat && printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=%lu\\n"
		 "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\\n' >%s/proc/pressure/io",
		 busy, iowait, root, io_usec, root);
	assert_int_equal(system(cmd), 0);
}

/* A copy of the v2 fixture's group app: its cpu.stat's usage_usec @usage (0: left as it is) and
 * its io "some" total @io_usec, each rewritten in place (the scope keeps its files open). */
static void put_group_cpu(const char *root, unsigned long usage, unsigned long io_usec)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd),
		 "d=%s/sys/fs/cgroup/app; [ %lu = 0 ] || "
		 "printf 'usage_usec %lu\\n' >$d/cpu.stat; "
		 "printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=%lu\\n"
		 "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\\n' >$d/io.pressure",
		 root, usage, usage, io_usec);
	assert_int_equal(system(cmd), 0);
}

/*
 * The machine's busy CPU time is read with its I/O stall, from the head of /proc/stat (a large
 * host's whole file is over the scratch), and undoes PSI's dilution over the window: 500 ms of
 * io "some" in a second with two CPUs busy is 1 s; with one, 500 ms; 167 ms with 1.5 CPUs busy,
 * 500 ms of it iowait, is 500 ms. A v2 group's own io.pressure is undone by its own CPU time
 * (cpu.stat usage_usec): 500 ms of stall in a second beside 1 s of its tasks' CPU is 1 s; a
 * group without cpu.stat has its stall as read.
 */
static void test_machine_busy_cpus(void **state)
{
	char root[] = "/tmp/oomguard-test-busy-XXXXXX";
	char root2[] = "/tmp/oomguard-test-busyv2-XXXXXX", root3[] = "/tmp/oomguard-test-busyv2-XXXXXX";
	const unsigned int busy_ticks[] = {200, 100, 150}, iowait_ticks[] = {0, 0, 50};
	const unsigned long io[] = {500000, 500000, 166667};
	const uint64_t want_io[] = {1000000, 500000, 500000};
	struct config c;
	struct scope s;

	(void)state;
	config_defaults(&c);
	fixture_copy(root, "tests/fixtures/k6.18", "true");
	for (size_t i = 0; i < 3; i++) {
		put_stat(root, 5000, 0, 4000000);
		assert_int_equal(scope_init_machine(&s, root, FIXTURE_PAGE_SHIFT, scratch), 0);
		assert_int_equal(scope_acquire(&s, scratch, 1000000), 0);
		assert_int_equal(s.cur.cpu_busy_usec, 5000 * s.cpu_tick_usec);
		put_stat(root, 5000 + busy_ticks[i] * (unsigned int)(10000 / s.cpu_tick_usec),
			 iowait_ticks[i] * (unsigned int)(10000 / s.cpu_tick_usec), 4000000 + io[i]);
		assert_int_equal(scope_acquire(&s, scratch, 2000000), 0);
		scope_decide(&s, &c);
		assert_true(s.sample.has_window_io);
		assert_int_equal(s.sample.window_io_stall_usec, want_io[i]);
		scope_close(&s);
	}
	fixture_remove(root);

	v2_copy_acquired(root2,
			 "printf 'usage_usec 7000000\\nuser_usec 1\\n' >%s/sys/fs/cgroup/app/cpu.stat", &s);
	assert_int_equal(s.cur.cpu_busy_usec, 7000000);
	put_group_cpu(root2, 8000000, 1277000);
	assert_int_equal(scope_acquire(&s, scratch, 1001000), 0);
	scope_decide(&s, &c);
	assert_true(s.sample.has_window_io);
	assert_int_equal(s.sample.window_io_stall_usec, 1000000);
	scope_close(&s);
	fixture_remove(root2);

	v2_copy_acquired(root3, "true", &s);
	assert_int_equal(s.cur.cpu_busy_usec, SCOPE_IO_UNKNOWN);
	put_group_cpu(root3, 0, 1277000);
	assert_int_equal(scope_acquire(&s, scratch, 1001000), 0);
	scope_decide(&s, &c);
	assert_int_equal(s.sample.window_io_stall_usec, 500000);
	scope_close(&s);
	fixture_remove(root3);
}

/* Writes the cpu "some" total @usec to @path under @root, in place (the scope keeps it open). */
static void put_cpu_psi(const char *root, const char *path, unsigned long usec)
{
	char cmd[500];

	snprintf(cmd, sizeof(cmd),
		 "printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=%lu\\n"
		 "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\\n' >%s%s",
		 usec, root, path);
	assert_int_equal(system(cmd), 0);
}

/*
 * The CPU stall (progress.h rule 5's exception) is read with the I/O stall: the machine's from
 * /proc/pressure/cpu, a v2 group's from its own cpu.pressure. A round's is the difference of
 * the ends of the last 3 s, as far as the rounds read it: 700 ms in the one second there is;
 * then, at the default 100 ms rounds (each 1 us late, as the loop's are), 30 ms a round over
 * the 29 rounds within 3 s. A total that went back (PSI restarted: not seen, but a counter) is
 * not measured, nor is a file the kernel does not have; rule 5 then counts every stall over
 * its bound as before.
 */
static void test_cpu_stall(void **state)
{
	char root[] = "/tmp/oomguard-test-cpupsi-XXXXXX",
	     root2[] = "/tmp/oomguard-test-cpupsi2-XXXXXX";
	char root3[] = "/tmp/oomguard-test-cpupsi3-XXXXXX";
	struct config c;
	struct scope s;
	uint64_t t = 2000000;

	(void)state;
	config_defaults(&c);
	fixture_copy(root, "tests/fixtures/k6.18", "true");
	put_cpu_psi(root, "/proc/pressure/cpu", 9000000);
	assert_int_equal(scope_init_machine(&s, root, FIXTURE_PAGE_SHIFT, scratch), 0);
	assert_int_equal(scope_acquire(&s, scratch, 1000000), 0);
	assert_int_equal(s.cur.cpu_stall_usec, 9000000);
	put_cpu_psi(root, "/proc/pressure/cpu", 9700000);
	assert_int_equal(scope_acquire(&s, scratch, t), 0);
	scope_decide(&s, &c);
	assert_true(s.sample.has_cpu_stall);
	assert_int_equal(s.sample.cpu_stall_usec, 700000);
	assert_int_equal(s.sample.cpu_span_usec, 1000000);
	for (unsigned long i = 1; i <= 40; i++) {
		t += 100001;
		put_cpu_psi(root, "/proc/pressure/cpu", 9700000 + i * 30000);
		assert_int_equal(scope_acquire(&s, scratch, t), 0);
	}
	scope_decide(&s, &c);
	assert_true(s.sample.has_cpu_stall);
	assert_int_equal(s.sample.cpu_stall_usec, 29 * 30000);
	assert_int_equal(s.sample.cpu_span_usec, 29 * 100001);
	put_cpu_psi(root, "/proc/pressure/cpu", 5000000);
	assert_int_equal(scope_acquire(&s, scratch, t + 100001), 0);
	scope_decide(&s, &c);
	assert_false(s.sample.has_cpu_stall);
	assert_int_equal(s.sample.cpu_span_usec, 0);
	scope_close(&s);
	fixture_remove(root);

	fixture_copy(root2, "tests/fixtures/k6.18", "test ! -e %s/proc/pressure/cpu");
	assert_int_equal(scope_init_machine(&s, root2, FIXTURE_PAGE_SHIFT, scratch), 0);
	assert_int_equal(scope_acquire(&s, scratch, 1000000), 0);
	assert_int_equal(scope_acquire(&s, scratch, 2000000), 0);
	assert_int_equal(s.cur.cpu_stall_usec, SCOPE_IO_UNKNOWN);
	scope_decide(&s, &c);
	assert_false(s.sample.has_cpu_stall);
	scope_close(&s);
	fixture_remove(root2);

	v2_copy_acquired(root3,
			 "printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=5000000\\n' "
			 ">%s/sys/fs/cgroup/app/cpu.pressure",
			 &s);
	assert_int_equal(s.cur.cpu_stall_usec, 5000000);
	put_cpu_psi(root3, "/sys/fs/cgroup/app/cpu.pressure", 5700000);
	assert_int_equal(scope_acquire(&s, scratch, 1001000), 0);
	scope_decide(&s, &c);
	assert_true(s.sample.has_cpu_stall);
	assert_int_equal(s.sample.cpu_stall_usec, 700000);
	assert_int_equal(s.sample.cpu_span_usec, 1000000);
	scope_close(&s);
	fixture_remove(root3);
}

static void test_v2_without_reclaim_counters(void **state)
{
	char root[] = "/tmp/oomguard-test-v2old-XXXXXX", root2[] = "/tmp/oomguard-test-v2new-XXXXXX";

	(void)state;
	assert_false(v2_counts_reclaim(
	    root, "sed -i '/^pg\\(scan\\|steal\\)/d' %s/sys/fs/cgroup/app/memory.stat"));
	assert_true(v2_counts_reclaim(root2, "true"));
}

/*
 * What a writer's churn is told from a flood by (progress.h rule 4): the scope's anon + swap in
 * use, kept per round in the history. The machine's swap is SwapTotal - SwapFree; a v2 group's
 * is memory.swap.current, and a group without it counts none.
 */
static void test_demand(void **state)
{
	char root[] = "/tmp/oomguard-test-demand-XXXXXX", root2[] = "/tmp/oomguard-test-demand2-XXXXXX";
	struct cgroup_mounts m;
	struct scope s;
	char err[256] = "", cmd[300];
	struct round_gate g = {.stall_usec = 1000};
	uint64_t anon;

	(void)state;
	fixture_copy(root, "tests/fixtures/k6.18",
		     "sed -i -e 's/^SwapTotal:.*/SwapTotal: 1048576 kB/' "
		     "-e 's/^SwapFree:.*/SwapFree: 524288 kB/' %s/proc/meminfo");
	assert_int_equal(scope_init_machine(&s, root, FIXTURE_PAGE_SHIFT, scratch), 0);
	assert_int_equal(scope_acquire_gated(&s, scratch, 100000, &g), 0);
	assert_int_equal(s.full_age, 0);
	assert_int_equal(s.cur.swap_bytes, 512ull << 20);
	anon = s.cur.anon_bytes >> FIXTURE_PAGE_SHIFT;
	assert_true(anon > 0);
	assert_int_equal(s.hist[0].demand_pages, anon + (512 << 20 >> FIXTURE_PAGE_SHIFT));
	/* A quiet round (the gate's stall unchanged) skips zoneinfo, and so the anon: the swap
	 * stays that of the same full read; the next full read takes both. */
	snprintf(cmd, sizeof(cmd), /* in place: the scope keeps the file open */
		 "sed 's/^SwapFree:.*/SwapFree: 262144 kB/' %s/proc/meminfo >%s/m && "
		 "cat %s/m >%s/proc/meminfo",
		 root, root, root, root);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(scope_acquire_gated(&s, scratch, 300000, &g), 0);
	assert_int_equal(s.full_age, 1);
	assert_int_equal(s.cur.swap_bytes, 512ull << 20);
	s.retry.no_progress_loops = 1; /* counting: read in full */
	assert_int_equal(scope_acquire_gated(&s, scratch, 400000, &g), 0);
	assert_int_equal(s.full_age, 0);
	assert_int_equal(s.cur.swap_bytes, 768ull << 20);
	scope_close(&s);
	fixture_remove(root);

	mounts_of("tests/fixtures/v2", &m);
	assert_int_equal(scope_init_cgroup(&s, "tests/fixtures/v2", "/sys/fs/cgroup/app", &m,
					   FIXTURE_PAGE_SHIFT, scratch, err, sizeof(err)),
			 0);
	assert_int_equal(scope_acquire(&s, scratch, 1000), 0);
	assert_int_equal(s.cur.swap_bytes, 8388608);
	assert_int_equal(s.hist[0].demand_pages, (209715200 + 8388608) >> FIXTURE_PAGE_SHIFT);
	scope_close(&s);
	v2_copy_acquired(root2, "rm %s/sys/fs/cgroup/app/memory.swap.current", &s);
	assert_int_equal(s.cur.swap_bytes, 0); /* no swap accounting: none counted */
	assert_int_equal(s.hist[0].demand_pages, 209715200 >> FIXTURE_PAGE_SHIFT);
	scope_close(&s);
	fixture_remove(root2);
}

/*
 * A container host's mount table: thousands of overlay mounts with kilobytes of options each
 * (well past the 64 KiB scratch), the cgroup mounts last. Read line by line, the v1 memory and
 * v2 mounts are found (a whole-file read failed with E2BIG, and start-up with it).
 */
static void test_mountinfo_large_host(void **state)
{
	char root[] = "/tmp/oomguard-test-mounts-XXXXXX", path[300], lower[3000];
	struct cgroup_mounts m;
	FILE *f;
	size_t n = 0;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/proc", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/proc/self", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/proc/self/mountinfo", root);
	for (int l = 0; l < 40; l++) /* lowerdir of 40 layers, about 2.7 KiB */
		n += (size_t)snprintf(
		    lower + n, sizeof(lower) - n,
		    "%s/var/lib/docker/overlay2/l/LAYER%04dABCDEFGHIJKLMNOPQRSTUVWXYZ012345",
		    l ? ":" : "", l);
	f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < 2000; i++)
		fprintf(f,
			"%d 30 0:%d / /var/lib/docker/overlay2/%d/merged rw,relatime shared:%d - "
			"overlay overlay rw,lowerdir=%s,upperdir=/u/%d,workdir=/w/%d\n",
			100 + i, 60 + i, i, i, lower, i, i);
	fprintf(f, "40 30 0:36 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:17 - "
		   "cgroup cgroup rw,memory\n");
	fprintf(f, "41 30 0:27 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:9 - "
		   "cgroup2 cgroup2 rw\n");
	fclose(f);
	assert_int_equal(read_mountinfo(root, scratch, sizeof(scratch), &m), 0);
	assert_string_equal(m.v1_memory, "/sys/fs/cgroup/memory");
	assert_string_equal(m.v2, "/sys/fs/cgroup/unified");
	fixture_remove(root);
}

/* The machine scope of a copy of the k6.18 fixture's /proc in @root (a mkdtemp template). */
static void machine_copy(char *root, struct config *c, struct scope *s)
{
	char cmd[600];

	assert_non_null(mkdtemp(root));
	snprintf(cmd, sizeof(cmd), "cp -r tests/fixtures/k6.18/proc %s/", root);
	assert_int_equal(system(cmd), 0);
	config_defaults(c);
	assert_int_equal(scope_init_machine(s, root, FIXTURE_PAGE_SHIFT, scratch), 0);
}

/*
 * A pid a kernel thread held, taken by a process: listed as the process, whatever the listing
 * before saw (a kernel thread's flag was trusted without reading, so a memory hog under a
 * recycled kernel-thread pid was never a candidate). Kernel threads take no slot.
 */
static void test_kthread_pid_reused(void **state)
{
	char root[] = "/tmp/oomguard-test-kthread-XXXXXX";
	struct victim_table vt = {0};
	struct config c;
	struct scope s;
	size_t idx = 0;
	long points = 0;
	bool found = false;

	(void)state;
	machine_copy(root, &c, &s);
	/* pid 4321: a kernel thread (PF_KTHREAD in field 9, no memory) */
	put(root, 4321, "stat",
	    "4321 (kworker/0:1) I 2 0 0 0 -1 69238880 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0 "
	    "18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	for (size_t i = 0; i < tl.nr; i++)
		if (tl.tasks[i].pid == 4321) {
			assert_true(tl.tasks[i].flags & OOM_TASK_KTHREAD);
			found = true;
		}
	assert_true(found);
	assert_int_equal(tl.nr_fds, 1); /* 1234's files; the kernel thread keeps none */
	/* The kernel thread exits; a 4 GiB process takes its pid. */
	put(root, 4321, "stat",
	    "4321 (hog) R 1 4321 4321 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 900 4400000000 "
	    "1048576 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	put(root, 4321, "oom_score_adj", "0\n");
	put(root, 4321, "status", "Name:\thog\nVmRSS:\t4194304 kB\nVmSwap:\t0 kB\nVmPTE:\t8192 kB\n"
				  "Kthread:\t0\n");
	put(root, 4321, "cgroup", "0::/\n");
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	assert_int_equal(select_bad_process(tl.tasks, tl.nr, 1u << 22, &idx, &points),
			 OOM_SELECT_VICTIM);
	assert_int_equal(tl.tasks[idx].pid, 4321);
	assert_false(tl.tasks[idx].flags & OOM_TASK_KTHREAD);
	tasks_close(&tl);
	scope_close(&s);
	fixture_remove(root);
}

/* A fresh listing of @s, then the choice: @want, and the chosen entry's index. */
static size_t choose(struct scope *s, const struct config *c, const struct victim_table *vt,
		     enum oom_select_result want, int want_pid)
{
	size_t idx = 0;
	long points = 0;

	assert_int_equal(tasks_acquire(&tl, s, c, vt, 1, scratch, sizeof(scratch)), 0);
	assert_int_equal(select_bad_process(tl.tasks, tl.nr, 1u << 22, &idx, &points), want);
	assert_int_equal(tl.tasks[idx].pid, want_pid);
	return idx;
}

/*
 * A process whose leader left by pthread_exit() while a thread holds its memory: the leader's
 * stat is a zombie's with no memory, which the listing once took for a process without any (a
 * 2 GiB hog never a candidate); the live thread's files show the process. A SIGKILL pending in
 * the thread's own set makes it dying; a leader gone with no live thread has no memory.
 */
static void test_leader_gone(void **state)
{
	char root[] = "/tmp/oomguard-test-leader-XXXXXX", dir[600];
	static const char zombie[] =
	    "4400 (hog) Z 1 4400 4400 0 -1 4227084 0 0 0 0 0 0 0 0 20 0 2 0 900 0 0 "
	    "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
	/* the live thread: state, then its pending signals (field 31) */
	static const char thread[] =
	    "4401 (hog) %c 1 4400 4400 0 -1 4194368 0 0 0 0 0 0 0 0 20 0 2 0 901 2200000000 "
	    "524288 18446744073709551615 1 1 0 0 0 %d 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
	static const char *const dirs[] = {"task", "task/4400", "task/4401"};
	struct victim_table vt = {0};
	char line[256];
	struct config c;
	struct scope s;
	size_t idx;

	(void)state;
	machine_copy(root, &c, &s);
	put(root, 4400, "stat", zombie);
	put(root, 4400, "oom_score_adj", "0\n");
	put(root, 4400, "status", "Name:\thog\nState:\tZ (zombie)\nThreads:\t2\n");
	put(root, 4400, "cgroup", "0::/\n");
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/proc/4400/%s", root, dirs[i]);
		assert_int_equal(mkdir(dir, 0755), 0);
	}
	put(root, 4400, "task/4400/stat", zombie);
	snprintf(line, sizeof(line), thread, 'S', 0);
	put(root, 4400, "task/4401/stat", line);
	put(root, 4400, "task/4401/status",
	    "Name:\thog\nState:\tS (sleeping)\nVmRSS:\t2097152 kB\nVmSwap:\t0 kB\n"
	    "VmPTE:\t4096 kB\nThreads:\t2\nSigPnd:\t0000000000000000\n");
	idx = choose(&s, &c, &vt, OOM_SELECT_VICTIM, 4400);
	assert_int_equal(tl.tasks[idx].mm_tid, 4401);
	assert_int_equal(task_proc_pid(&tl.tasks[idx]), 4401);
	assert_int_equal(tl.tasks[idx].rss_pages, 524288);
	assert_int_equal(tl.tasks[idx].pgtables_pages, 1024); /* from the thread's status */
	assert_int_equal(tl.tasks[idx].start_time, 900);     /* known by the leader */
	/* What was read through /proc/4401 was the process's while 4401 is one of its threads. */
	assert_int_equal(task_proc_confirm(root, &tl.tasks[idx]), 0);
	/* The thread exits and its tid goes to another process, in another cgroup: /proc/4401 is
	 * that one's, and a read through it (the unit, the rules) must not count as the hog's. */
	snprintf(dir, sizeof(dir), "mv %s/proc/4400/task/4401 %s/gone-4401", root, root);
	assert_int_equal(system(dir), 0);
	put(root, 4401, "cgroup", "0::/other.slice/other.service\n");
	assert_int_equal(task_proc_confirm(root, &tl.tasks[idx]), -ESRCH);
	assert_int_equal(pid_has_thread(root, 4400, 4401), -ESRCH);
	snprintf(dir, sizeof(dir), "rm -r %s/proc/4401 && mv %s/gone-4401 %s/proc/4400/task/4401",
		 root, root, root);
	assert_int_equal(system(dir), 0);
	assert_int_equal(pid_has_thread(root, 4400, 4401), 0);
	/* The thread has a SIGKILL pending (field 31): the process is dying, reaped if chosen. */
	snprintf(line, sizeof(line), thread, 'D', 256);
	put(root, 4400, "task/4401/stat", line);
	choose(&s, &c, &vt, OOM_SELECT_DYING, 4400);
	/* The thread exits too (a zombie now): no memory anywhere, 1234 is the victim. */
	put(root, 4400, "task/4401/stat", zombie);
	choose(&s, &c, &vt, OOM_SELECT_VICTIM, 1234);
	tasks_close(&tl);
	scope_close(&s);
	fixture_remove(root);
}

/* The race of test_tid_reused: when the listing opens /proc/4401/cgroup (the live thread's), the
 * thread has just exited and its tid is another process's, in another cgroup. */
static char race_root[64];

static int tid_reused_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	char cmd[300];

	if (strstr(path, "/proc/4401/cgroup") && race_root[0]) {
		snprintf(cmd, sizeof(cmd), "mv %s/proc/4400/task/4401 %s/gone-4401", race_root,
			 race_root);
		assert_int_equal(system(cmd), 0);
		race_root[0] = '\0';
	}
	return sys_ops_real.openat(dirfd, path, flags, mode);
}

/*
 * A leader-gone process is read through its live thread's /proc/TID, cgroup included. When that
 * thread exits between the scan of the task directory and the read, the tid may already name
 * another process: the rules would judge the hog by the other's cgroup (here protected, so the
 * hog would be passed over and a smaller process killed). The read is confirmed afterwards
 * (/proc/4400/task/4401 still there): the listing chooses nothing this time.
 */
static void test_tid_reused(void **state)
{
	char root[] = "/tmp/oomguard-test-tidreuse-XXXXXX";
	static const char zombie[] =
	    "4400 (hog) Z 1 4400 4400 0 -1 4227084 0 0 0 0 0 0 0 0 20 0 2 0 900 0 0 "
	    "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
	static const char thread[] =
	    "4401 (hog) S 1 4400 4400 0 -1 4194368 0 0 0 0 0 0 0 0 20 0 2 0 901 2200000000 "
	    "524288 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
	char *argv[] = {"run", "--protect-cgroup", "/other.slice", NULL};
	static struct sys_ops fake;
	struct victim_table vt = {0};
	char err[256] = "", dir[600];
	struct config c;
	struct scope s;

	(void)state;
	machine_copy(root, &c, &s);
	assert_int_equal(options_parse(&c, 3, argv, err, sizeof(err)), 0);
	put(root, 4400, "stat", zombie);
	put(root, 4400, "oom_score_adj", "0\n");
	put(root, 4400, "status", "Name:\thog\nState:\tZ (zombie)\nThreads:\t2\n");
	put(root, 4400, "cgroup", "0::/\n");
	snprintf(dir, sizeof(dir), "mkdir -p %s/proc/4400/task/4400 %s/proc/4400/task/4401", root,
		 root);
	assert_int_equal(system(dir), 0);
	put(root, 4400, "task/4400/stat", zombie);
	put(root, 4400, "task/4401/stat", thread);
	put(root, 4400, "task/4401/status",
	    "Name:\thog\nState:\tS (sleeping)\nVmRSS:\t2097152 kB\nVmSwap:\t0 kB\n"
	    "VmPTE:\t4096 kB\nThreads:\t2\nSigPnd:\t0000000000000000\n");
	/* /proc/4401 is the thread while it lives, another process's tid once it is gone */
	put(root, 4401, "cgroup", "0::/other.slice/other.service\n");
	snprintf(race_root, sizeof(race_root), "%s", root);
	fake = sys_ops_real;
	fake.openat = tid_reused_openat;
	sys = &fake;
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), -EBUSY);
	sys = &sys_ops_real;
	assert_int_equal(race_root[0], '\0'); /* the race was run */
	tasks_close(&tl);
	scope_close(&s);
	fixture_remove(root);
}

static void test_machine_tasks(void **state)
{
	struct victim_table vt;
	struct config c;
	struct scope s;
	size_t idx = 0;
	long points = 0;

	(void)state;
	memset(&vt, 0, sizeof(vt));
	config_defaults(&c);
	assert_int_equal(
	    scope_init_machine(&s, "tests/fixtures/k6.18", FIXTURE_PAGE_SHIFT, scratch), 0);
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	assert_int_equal(tl.nr, 1);
	assert_int_equal(tl.tasks[0].pid, 1234);
	assert_int_equal(tl.tasks[0].flags, 0);
	assert_true(tl.tasks[0].rss_pages > 0);
	assert_int_equal(select_bad_process(tl.tasks, tl.nr, 1u << 20, &idx, &points),
			 OOM_SELECT_VICTIM);
	/* The same task, protected by name, or already a victim being reaped. */
	snprintf(c.protect[0], sizeof(c.protect[0]), "%s", tl.tasks[0].comm);
	c.nr_protect = 1;
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	assert_true(tl.tasks[0].flags & OOM_TASK_PROTECTED);
	assert_int_equal(select_bad_process(tl.tasks, tl.nr, 1u << 20, &idx, &points),
			 OOM_SELECT_NONE);
	c.nr_protect = 0;
	victim_record(&vt, 1234, tl.tasks[0].start_time, 1);
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	assert_int_equal(select_bad_process(tl.tasks, tl.nr, 1u << 20, &idx, &points),
			 OOM_SELECT_WAIT);
	victim_set_state(&vt, 1234, VICTIM_SKIPPED);
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	assert_true(tl.tasks[0].flags & OOM_TASK_SKIP);
	/* Prefer by cgroup (the fixture's memory cgroup is /process_api/...), avoid by name. */
	{
		char err[128], avoid[64];

		snprintf(avoid, sizeof(avoid), "^%s$", tl.tasks[0].comm);
		assert_int_equal(config_set(&c, "prefer_cgroup", "/process_api", err, sizeof(err)),
				 0);
		assert_int_equal(config_set(&c, "avoid_regex", avoid, err, sizeof(err)), 0);
		assert_int_equal(config_finish(&c, err, sizeof(err)), 0);
		assert_int_equal(tasks_acquire(&tl, &s, &c, &(struct victim_table){0}, 1, scratch,
					       sizeof(scratch)),
				 0);
		assert_true(tl.tasks[0].flags & OOM_TASK_PREFER);
		assert_true(tl.tasks[0].flags & OOM_TASK_AVOID);
		config_release(&c);
		config_clear_rules(&c, "prefer_cgroup");
		/* not a prefix path; a new config (a reload) is matched afresh */
		assert_int_equal(config_set(&c, "prefer_cgroup", "/process_ap", err, sizeof(err)),
				 0);
		assert_int_equal(config_finish(&c, err, sizeof(err)), 0);
		assert_int_equal(tasks_acquire(&tl, &s, &c, &(struct victim_table){0}, 1, scratch,
					       sizeof(scratch)),
				 0);
		assert_false(tl.tasks[0].flags & OOM_TASK_PREFER);
		config_release(&c);
		c.nr_rules = 0;
	}
	/* oomguard itself. */
	assert_int_equal(
	    tasks_acquire(&tl, &s, &c, &(struct victim_table){0}, 1234, scratch, sizeof(scratch)),
	    0);
	assert_true(tl.tasks[0].flags & OOM_TASK_SELF);
	scope_close(&s);

	assert_int_equal(scope_init_machine(&s, "tests/fixtures/k4.4", FIXTURE_PAGE_SHIFT, scratch),
			 0);
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	assert_int_equal(tl.nr, 1);
	assert_int_equal(tl.tasks[0].pid, 77);
	assert_true(tl.tasks[0].flags & OOM_TASK_KTHREAD);
	assert_true(tl.tasks[0].flags & OOM_TASK_NO_MM);
	assert_int_equal(select_bad_process(tl.tasks, tl.nr, 1u << 20, &idx, &points),
			 OOM_SELECT_NONE);
	scope_close(&s);
}
/*
 * A quiet machine reads MemAvailable as often as its last fall asks: from 21 GiB available, a
 * read 0.5 s later finds 10 GiB less (20 GiB/s, planned for as 40): the next comes within
 * (11 - 4.7) GiB / 40 GiB/s, about 159 ms, not 500.
 */
static void test_machine_meminfo_drain(void **state)
{
	char root[] = "/tmp/oomguard-test-drain-XXXXXX", path[600];
	struct round_gate g = {.stall_usec = 1000};
	uint64_t t = 1000, usage;
	struct scope s;
	FILE *f;

	(void)state;
	fixture_copy(root, "tests/fixtures/k6.18", "true");
	assert_int_equal(scope_init_machine(&s, root, FIXTURE_PAGE_SHIFT, scratch), 0);
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	usage = s.cur.usage_bytes;
	snprintf(path, sizeof(path), "%s/proc/meminfo", root);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "MemTotal:       24683664 kB\nMemFree:        10778524 kB\n"
		   "MemAvailable:   11599672 kB\nSwapTotal:             0 kB\n"
		   "SwapFree:              0 kB\n");
	fclose(f);
	for (int i = 0; i < 4; i++) { /* quiet, MemAvailable not due */
		assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
		assert_int_equal(s.cur.usage_bytes, usage);
	}
	assert_int_equal(scope_acquire_gated(&s, scratch, t += 100000, &g), 0);
	assert_int_equal(s.cur.usage_bytes, usage + 10485760ULL * 1024);
	assert_in_range(s.meminfo_due_usec - t, 155000, 160000);
	scope_close(&s);
	fixture_remove(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_machine_tasks),
	    cmocka_unit_test(test_kthread_pid_reused),
	    cmocka_unit_test(test_leader_gone),
	    cmocka_unit_test(test_tid_reused),
	    cmocka_unit_test(test_v1_group_many_tasks),
	    cmocka_unit_test(test_mountinfo_large_host),
	    cmocka_unit_test(test_demand),
	    cmocka_unit_test(test_v2_without_reclaim_counters),
	    cmocka_unit_test(test_optional_missing),
	    cmocka_unit_test(test_machine_large_hosts),
	    cmocka_unit_test(test_machine_busy_cpus),
	    cmocka_unit_test(test_cpu_stall),
	    cmocka_unit_test(test_container_memtotal_zero),
	    cmocka_unit_test(test_child_group_removed),
	    cmocka_unit_test(test_machine_meminfo_drain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
