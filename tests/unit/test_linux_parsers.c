// SPDX-License-Identifier: GPL-2.0-only
/* The /proc and cgroupfs parsers on fixture files from this kernel (6.18), an older layout
 * (4.4: per-zone LRU counters, per-zone pgsteal), a generated large host and malformed or odd
 * input: repeated keys, wrapped values, trailing garbage, inconsistent meminfo. */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "linux/cgroupfs.h"
#include "linux/procfs.h"
#include "linux/sys.h"

#define FIX "tests/fixtures/"

static char buf[65536];

static const char *load(const char *path)
{
	ssize_t n = sys_read_file(NULL, path, buf, sizeof(buf));

	assert_true(n >= 0);
	return buf;
}

static void test_zoneinfo_618(void **state)
{
	struct proc_zone zones[PROC_MAX_ZONES];
	size_t nr = 0;

	(void)state;
	assert_int_equal(read_zoneinfo(FIX "k6.18", buf, sizeof(buf), zones, PROC_MAX_ZONES, &nr),
			 0);
	/* Movable and Device are listed unpopulated (present 0): left out. */
	assert_int_equal(nr, 3);
	for (size_t i = 0; i < nr; i++)
		assert_true(zones[i].present_pages > 0);
	assert_string_equal(zones[0].name, "DMA");
	assert_int_equal(zones[0].type, ZONE_DMA);
	assert_int_equal(zones[0].free_pages, 3840);
	assert_int_equal(zones[0].managed_pages, 3840);
	/* The per-node stats block inside DMA must not leak into the zone's LRU counts. */
	assert_int_equal(zones[0].inactive_file, 0);
	assert_int_equal(zones[0].nr_protection, 5);
	assert_int_equal(zones[0].protection[2], 6730);
	assert_string_equal(zones[2].name, "Normal");
	assert_int_equal(zones[2].type, ZONE_NORMAL);
	assert_int_equal(zones[2].free_pages, 95440);
	assert_int_equal(zones[2].managed_pages, 950272);
	assert_true(zones[2].min_pages > 0 && zones[2].min_pages < zones[2].low_pages);
	assert_true(zones[2].low_pages < zones[2].high_pages);
	assert_true(zones[2].has_buddy);
	assert_int_equal(zones[2].nr_free[0], 801);
	assert_int_equal(zones[2].nr_free[10], 22);
	assert_int_equal(zones[1].nr_free[10], 752);
}

static void test_zoneinfo_44(void **state)
{
	struct proc_zone zones[PROC_MAX_ZONES];
	size_t nr = 0;

	(void)state;
	assert_int_equal(read_zoneinfo(FIX "k4.4", buf, sizeof(buf), zones, PROC_MAX_ZONES, &nr),
			 0);
	assert_int_equal(nr, 3);
	assert_int_equal(zones[1].type, ZONE_DMA32);
	assert_int_equal(zones[1].min_pages, 6263);
	/* "high:  186" in the pagesets is not the watermark. */
	assert_int_equal(zones[1].high_pages, 9394);
	assert_int_equal(zones[1].inactive_file, 100000);
	assert_int_equal(zones[1].active_file, 200000);
	assert_int_equal(zones[1].write_pending, 10);
	assert_int_equal(zones[2].nr_protection, 4);
	assert_int_equal(zones[2].nr_free[1], 500);
	assert_int_equal(zones[0].nr_free[10], 3);
}

static void test_zoneinfo_small_array(void **state)
{
	struct proc_zone zones[2], zones3[3];
	size_t nr = 0;

	(void)state;
	load(FIX "k6.18/proc/zoneinfo");
	assert_int_equal(parse_zoneinfo_buf(buf, zones, 2, &nr), -ENOSPC);
	/* 3 populated zones fit 3 slots: the empty Movable and Device after them take none */
	assert_int_equal(parse_zoneinfo_buf(buf, zones3, 3, &nr), 0);
	assert_int_equal(nr, 3);
}

static void test_vmstat(void **state)
{
	struct proc_vmstat v;

	(void)state;
	assert_int_equal(read_vmstat(FIX "k4.4", buf, sizeof(buf), &v), 0);
	assert_int_equal(v.pgsteal, 3100);
	assert_int_equal(v.pgscan, 9400);
	assert_int_equal(v.allocstall, 17);
	assert_int_equal(v.workingset_refault_file, 5000);
	assert_int_equal(v.workingset_activate_file, 1200);
	assert_int_equal(v.pgmajfault, 321);

	assert_int_equal(read_vmstat(FIX "k6.18", buf, sizeof(buf), &v), 0);
	assert_int_equal(v.pgpgin_kib, 3459153);
	/* 6.x also has pgsteal_anon/pgsteal_file: they must not be counted twice. */
	load(FIX "k6.18/proc/vmstat");
	{
		const char *k = strstr(buf, "\npgsteal_kswapd ");
		const char *d = strstr(buf, "\npgsteal_direct ");
		unsigned long long a, b;

		assert_non_null(k);
		assert_non_null(d);
		a = strtoull(k + 16, NULL, 10);
		b = strtoull(d + 16, NULL, 10);
		assert_true(v.pgsteal >= a + b);
		assert_true(v.pgsteal <
			    a + b + 1 +
				strtoull(strstr(buf, "\npgsteal_khugepaged ") + 20, NULL, 10));
	}
}

static void test_meminfo_psi(void **state)
{
	struct proc_meminfo m;
	struct psi_stats p;

	(void)state;
	assert_int_equal(read_meminfo(FIX "k6.18", buf, sizeof(buf), &m), 0);
	assert_true(m.mem_total_kib > 20ull * 1024 * 1024);
	assert_true(m.mem_available_kib <= m.mem_total_kib);
	assert_int_equal(m.swap_total_kib, 0);
	assert_int_equal(parse_meminfo_buf("MemFree: 5 kB\n", &m), -ENODATA);

	assert_int_equal(parse_psi_buf("some avg10=1.25 avg60=0.50 avg300=0.00 total=4242\n"
				       "full avg10=0.01 avg60=0.00 avg300=0.00 total=17\n",
				       &p),
			 0);
	assert_int_equal(p.some.avg10, 125);
	assert_int_equal(p.some.total_usec, 4242);
	assert_true(p.has_full);
	assert_int_equal(p.full.total_usec, 17);
	assert_int_equal(read_psi(FIX "k4.4", "/proc/psi-no-full", buf, sizeof(buf), &p), 0);
	assert_false(p.has_full);
	assert_int_equal(read_psi(FIX "k6.18", "/proc/pressure/memory", buf, sizeof(buf), &p), 0);
	assert_true(p.has_full);
}

/* /proc/stat's "cpu" line: every field but idle is busy, guest and guest_nice are not added
 * again; a 2.6.11 line of 8 fields and one of 4 still parse; the line must come first. */
static void test_cpu_ticks(void **state)
{
	struct cpu_ticks t;

	(void)state;
	assert_int_equal(parse_cpu_ticks_buf("cpu  100 2 30 1000 400 0 5 7 50 1\n"
					     "cpu0 50 1 15 500 200 0 3 4 25 1\nintr 1 2 3",
					     &t),
			 0);
	assert_int_equal(t.busy, 100 + 2 + 30 + 400 + 5 + 7);
	assert_int_equal(t.iowait, 400);
	assert_int_equal(t.total, t.busy + 1000);
	assert_int_equal(parse_cpu_ticks_buf("cpu  10 0 5 90 3 1 1\n", &t), 0);
	assert_int_equal(t.busy, 20);
	assert_int_equal(parse_cpu_ticks_buf("cpu 10 0 5 90", &t), 0); /* a head cut after it */
	assert_int_equal(t.busy, 15);
	assert_int_equal(t.iowait, 0); /* before 2.5.41: no iowait field */
	assert_int_equal(parse_cpu_ticks_buf(load(FIX "k6.18/proc/stat"), &t), 0);
	assert_true(t.busy > 0 && t.total > t.busy);
	assert_int_equal(parse_cpu_ticks_buf("cpu  10 0 5\n", &t), -EINVAL);
	assert_int_equal(parse_cpu_ticks_buf("cpu0 10 0 5 90\n", &t), -EINVAL);
	assert_int_equal(parse_cpu_ticks_buf("intr 1\ncpu  10 0 5 90\n", &t), -EINVAL);
	assert_int_equal(parse_cpu_ticks_buf("cpu  10 0 5x 90\n", &t), -EINVAL);
	assert_int_equal(parse_cpu_ticks_buf("cpu  1 2 3 4 5 6 7 8 9 10 11\n", &t), -EINVAL);
	assert_int_equal(parse_cpu_ticks_buf("cpu  18446744073709551615 1 0 0\n", &t), -ERANGE);
	assert_int_equal(parse_cpu_ticks_buf("", &t), -EINVAL);
}

/* A v2 group's cpu.stat: usage_usec among the other keys, with or without the cpu controller's
 * own lines; without it, no usage. */
static void test_cgroup_cpu_usage(void **state)
{
	struct cgroup_cpu_usage u;

	(void)state;
	assert_int_equal(parse_cgroup_cpu_usage_buf("usage_usec 16517816000\nuser_usec 13132696000\n"
						    "system_usec 3385120000\nnice_usec 280196000\n"
						    "nr_periods 0\nnr_throttled 0\n",
						    &u),
			 0);
	assert_int_equal(u.usage_usec, 16517816000ull);
	assert_int_equal(parse_cgroup_cpu_usage_buf("user_usec 5\n", &u), -ENODATA);
	assert_int_equal(parse_cgroup_cpu_usage_buf("usage_usec 5x\n", &u), -EINVAL);
	assert_int_equal(parse_cgroup_cpu_usage_buf("usage_usec 1\nusage_usec 2\n", &u), -EINVAL);
}

static void test_pid_files(void **state)
{
	struct pid_stat st;
	struct pid_status ss;
	char path[256];
	int adj = 5;

	(void)state;
	assert_int_equal(read_pid_stat(FIX "k4.4", 77, buf, sizeof(buf), &st), 0);
	assert_int_equal(st.pid, 77);
	assert_string_equal(st.comm, "my (weird) name");
	assert_int_equal(st.state, 'R');
	assert_int_equal(st.ppid, 1);
	assert_true(st.flags & PF_KTHREAD_FLAG);
	assert_int_equal(st.start_time, 123456);
	assert_int_equal(st.rss_pages, 42);
	assert_int_equal(read_pid_status(FIX "k4.4", 77, buf, sizeof(buf), &ss), 0);
	assert_false(ss.has_vm);
	assert_int_equal(ss.kthread, -1);

	assert_int_equal(read_pid_stat(FIX "k6.18", 1234, buf, sizeof(buf), &st), 0);
	assert_false(st.flags & PF_KTHREAD_FLAG);
	assert_true(st.start_time > 0);
	assert_int_equal(read_pid_status(FIX "k6.18", 1234, buf, sizeof(buf), &ss), 0);
	assert_true(ss.has_vm);
	assert_int_equal(ss.rss_kib, 2268);
	assert_int_equal(ss.anon_kib, 164); /* RssAnon: what a kill frees of a unit (kill units) */
	assert_int_equal(ss.kthread, 0);
	assert_int_equal(read_pid_oom_score_adj(FIX "k6.18", 1234, &adj), 0);
	assert_int_equal(adj, 0);

	assert_int_equal(
	    read_pid_cgroup(FIX "k4.4", 77, "memory", buf, sizeof(buf), path, sizeof(path)), 0);
	assert_string_equal(path, "/user.slice/a b");
	assert_int_equal(
	    read_pid_cgroup(FIX "k4.4", 77, NULL, buf, sizeof(buf), path, sizeof(path)), -ENOENT);
	assert_int_equal(
	    read_pid_cgroup(FIX "k6.18", 1234, NULL, buf, sizeof(buf), path, sizeof(path)), 0);
	assert_string_equal(path, "/");
	assert_int_equal(read_pid_cgroup(FIX "k6.18", 1234, "memory", buf, sizeof(buf), path, 4),
			 -ENAMETOOLONG);
}

static void test_cgroup_files(void **state)
{
	struct cgroup_mounts m;
	struct memcg_v1_stat s1;
	struct memcg_v1_oom_control oc;
	struct memcg_v2_stat s2;
	struct memcg_v2_events ev;
	uint64_t v = 0;

	(void)state;
	assert_int_equal(read_mountinfo(FIX "k6.18", buf, sizeof(buf), &m), 0);
	assert_string_equal(m.v1_memory, "/sys/fs/cgroup/memory");
	assert_string_equal(m.v1_blkio, "/sys/fs/cgroup/blkio");
	assert_string_equal(m.v2, "/sys/fs/cgroup/unified");
	assert_int_equal(parse_mountinfo_buf("30 1 0:1 / /a\\040b rw - cgroup cg rw,memory\n", &m),
			 0);
	assert_string_equal(m.v1_memory, "/a b");
	assert_string_equal(m.v2, "");

	assert_int_equal(read_memcg_v1_stat(FIX "k6.18/sys/fs/cgroup/memory/oomguard-fixture", buf,
					    sizeof(buf), &s1),
			 0);
	assert_true(s1.pgpgin > 0);
	assert_int_equal(parse_memcg_v1_stat_buf("cache 4096\nrss 8192\ninactive_file 1\n"
						 "active_file 2\npgpgin 3\npgpgout 4\n",
						 &s1),
			 0);
	assert_int_equal(s1.rss_bytes, 8192);
	assert_int_equal(s1.workingset_refault_file, 0);
	assert_int_equal(
	    read_memcg_v1_oom_control(FIX "k6.18/sys/fs/cgroup/memory/oomguard-fixture", &oc), 0);
	assert_int_equal(oc.under_oom, 0);
	assert_int_equal(parse_memcg_v1_oom_control_buf("oom_kill_disable 1\nunder_oom 1\n", &oc),
			 0);
	assert_int_equal(oc.oom_kill_disable, 1);
	assert_int_equal(oc.under_oom, 1);
	assert_int_equal(read_cgroup_u64(FIX "k6.18/sys/fs/cgroup/memory/oomguard-fixture",
					 "memory.limit_in_bytes", &v),
			 0);
	assert_true(v > 0);

	assert_int_equal(parse_memcg_v2_stat_buf("anon 10\nfile 20\ninactive_file 5\n"
						 "active_file 15\npgscan 100\npgsteal 90\n"
						 "workingset_refault_file 7\n",
						 &s2),
			 0);
	assert_int_equal(s2.pgsteal, 90);
	assert_true(s2.has_pgsteal);
	assert_int_equal(s2.workingset_refault_file, 7);
	/* 4.5-4.12: no reclaim counters in a v2 group's memory.stat; pgsteal is unknown, not 0 */
	assert_int_equal(parse_memcg_v2_stat_buf("anon 10\nfile 20\ninactive_file 5\n"
						 "active_file 15\nworkingset_refault 3\n",
						 &s2),
			 0);
	assert_false(s2.has_pgsteal);
	assert_int_equal(s2.pgsteal, 0);
	assert_int_equal(parse_memcg_v2_events_buf("low 0\nhigh 0\nmax 12\noom 3\noom_kill 2\n"
						   "oom_group_kill 0\n",
						   &ev),
			 0);
	assert_int_equal(ev.max, 12);
	assert_int_equal(ev.oom_kill, 2);
	assert_int_equal(parse_u64_file_buf("max\n", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(parse_u64_file_buf("536870912\n", &v), 0);
	assert_int_equal(v, 536870912);
}

struct bad_case {
	const char *file;
	int (*parse)(const char *buf);
	int want;
};

static int p_zone(const char *b)
{
	struct proc_zone z[4];
	size_t nr;

	return parse_zoneinfo_buf(b, z, 4, &nr);
}

static int p_buddy(const char *b)
{
	struct proc_zone z[1] = {{.node = 0, .name = "Normal"}};

	return parse_buddyinfo_buf(b, z, 1);
}

static int p_psi(const char *b)
{
	struct psi_stats s;

	return parse_psi_buf(b, &s);
}

static int p_stat(const char *b)
{
	struct pid_stat s;

	return parse_pid_stat_buf(b, &s);
}

static int p_adj(const char *b)
{
	int a;

	return parse_oom_score_adj_buf(b, &a);
}

static int p_v1stat(const char *b)
{
	struct memcg_v1_stat s;

	return parse_memcg_v1_stat_buf(b, &s);
}

static int p_mountinfo(const char *b)
{
	struct cgroup_mounts m;

	return parse_mountinfo_buf(b, &m);
}

static int p_u64(const char *b)
{
	uint64_t v;

	return parse_u64_file_buf(b, &v);
}

static int p_cpu(const char *b)
{
	struct cpu_ticks t;

	return parse_cpu_ticks_buf(b, &t);
}

static const struct bad_case bad_cases[] = {
    {"zoneinfo-bad-number", p_zone, -EINVAL},
    {"zoneinfo-bad-header", p_zone, -EINVAL},
    {"zoneinfo-truncated", p_zone, -ENODATA},
    {"buddyinfo-bad", p_buddy, -EINVAL},
    {"psi-bad-avg", p_psi, -EINVAL},
    {"psi-missing", p_psi, -EINVAL},
    {"stat-no-paren", p_stat, -EINVAL},
    {"stat-short", p_stat, -EINVAL},
    {"oom_score_adj-range", p_adj, -EINVAL},
    {"oom_score_adj-junk", p_adj, -EINVAL},
    {"memory.stat-bad", p_v1stat, -EINVAL},
    {"mountinfo-bad", p_mountinfo, -EINVAL},
    {"u64-bad", p_u64, -EINVAL},
    {"stat-cpu-bad", p_cpu, -EINVAL},
};

static void test_malformed(void **state)
{
	char path[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		snprintf(path, sizeof(path), FIX "malformed/%s", bad_cases[i].file);
		load(path);
		if (bad_cases[i].parse(buf) != bad_cases[i].want)
			fail_msg("%s: got %d, want %d", bad_cases[i].file, bad_cases[i].parse(buf),
				 bad_cases[i].want);
	}
	/* Empty input is never a valid snapshot. */
	assert_int_equal(p_zone(""), -ENODATA);
	assert_int_equal(p_psi(""), -ENODATA);
	assert_int_equal(p_stat(""), -EINVAL);
}

static int p_meminfo(const char *b)
{
	struct proc_meminfo m;

	return parse_meminfo_buf(b, &m);
}

static int p_vmstat(const char *b)
{
	struct proc_vmstat v;

	return parse_vmstat_buf(b, &v);
}

static int p_status(const char *b)
{
	struct pid_status s;

	return parse_pid_status_buf(b, &s);
}

static int p_oomctl(const char *b)
{
	struct memcg_v1_oom_control o;

	return parse_memcg_v1_oom_control_buf(b, &o);
}

static int p_v2stat(const char *b)
{
	struct memcg_v2_stat s;

	return parse_memcg_v2_stat_buf(b, &s);
}

static int p_events(const char *b)
{
	struct memcg_v2_events e;

	return parse_memcg_v2_events_buf(b, &e);
}

static int p_cgroup_memory(const char *b)
{
	char path[64];

	return parse_pid_cgroup_buf(b, "memory", path, sizeof(path));
}

/* Minimal valid inputs the cases below change one line of. */
#define MEMINFO  "MemTotal: 1000 kB\nMemFree: 100 kB\nMemAvailable: 500 kB\n"
#define VMSTAT   "pgscan_kswapd 10\npgsteal_kswapd 5\n"
#define V1STAT   "cache 1\nrss 2\ninactive_file 3\nactive_file 4\n"
#define V2STAT   "anon 1\nfile 2\ninactive_file 3\nactive_file 4\n"
#define EVENTS   "low 0\nhigh 0\nmax 0\noom 0\n"
#define OOMCTL   "oom_kill_disable 0\nunder_oom 0\n"
#define STATUS   "Name:\tcat\nVmRSS:\t    2268 kB\n"
#define PSI_SOME "some avg10=0.00 avg60=0.00 avg300=0.00 total=1\n"
#define ZHDR     "Node 0, zone   Normal\n"
#define ZBODY                                                                                      \
	"  pages free     100\n        min      10\n        low      12\n        high     14\n"    \
	"        present  1000\n        managed  900\n"
#define ZPROT   "        protection: (0, 0, 0)\n"
#define STAT_AT "1 (cat) R 1 1 1 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 100 4096 "
#define WRAPPED "18446744073709551612" /* -4 printed unsigned */
#define U64_MAX "18446744073709551615"

struct parse_case {
	int (*parse)(const char *buf);
	const char *buf;
	int want;
};

/* Runs every case; fails after printing each one that went wrong. */
static void run_cases(const struct parse_case *c, size_t n)
{
	int failed = 0;

	for (size_t i = 0; i < n; i++) {
		int got = c[i].parse(c[i].buf);

		if (got != c[i].want) {
			print_error("case %zu: got %d, want %d on:\n%s", i, got, c[i].want,
				    c[i].buf);
			failed++;
		}
	}
	if (failed)
		fail_msg("%d of %zu cases failed", failed, n);
}

/* The kernel prints each key, zone and PSI line once: a repeat is rejected, not summed. */
static void test_repeated_keys(void **state)
{
	static const struct parse_case cases[] = {
	    /* the inputs themselves are fine */
	    {p_meminfo, MEMINFO, 0},
	    {p_vmstat, VMSTAT, 0},
	    {p_v1stat, V1STAT, 0},
	    {p_v2stat, V2STAT, 0},
	    {p_events, EVENTS, 0},
	    {p_oomctl, OOMCTL, 0},
	    {p_status, STATUS, 0},
	    {p_psi, PSI_SOME, 0},
	    {p_zone, ZHDR ZBODY ZPROT, 0},
	    /* per-zone counters of 4.4 are distinct keys, summed */
	    {p_vmstat, "pgscan_kswapd_dma 1\npgscan_kswapd_normal 2\npgsteal_kswapd 1\n", 0},
	    /* repeats */
	    {p_meminfo, MEMINFO "MemTotal: 1000 kB\n", -EINVAL},
	    {p_meminfo, MEMINFO "MemAvailable: 9223372036854775807 kB\n", -EINVAL},
	    {p_vmstat, VMSTAT "pgsteal_kswapd 5\n", -EINVAL},
	    {p_vmstat, VMSTAT "pgscan_kswapd_normal 1\npgscan_kswapd_normal 1\n", -EINVAL},
	    /* summed, these two wrapped to 0 */
	    {p_vmstat, VMSTAT "pgmajfault 9223372036854775807\npgmajfault 9223372036854775809\n",
	     -EINVAL},
	    {p_v1stat, V1STAT "rss 2\n", -EINVAL},
	    {p_v2stat, V2STAT "anon 1\n", -EINVAL},
	    {p_events, EVENTS "oom 1\n", -EINVAL},
	    {p_oomctl, OOMCTL "under_oom 1\n", -EINVAL},
	    {p_status, STATUS "VmRSS:\t    2268 kB\n", -EINVAL},
	    {p_status, STATUS "Kthread:\t0\nKthread:\t1\n", -EINVAL},
	    {p_status, STATUS "SigPnd:\t0\nSigPnd:\t0\n", -EINVAL},
	    {p_status, STATUS "ShdPnd:\t\n", -EINVAL},
	    {p_status, STATUS "SigPnd:\t00000g00\n", -EINVAL},
	    {p_status, STATUS "ShdPnd:\t0000000000000100 1\n", -EINVAL},
	    {p_psi, PSI_SOME PSI_SOME, -EINVAL},
	    {p_zone, ZHDR ZBODY "        min      11\n" ZPROT, -EINVAL},
	    {p_zone, ZHDR ZBODY ZPROT ZPROT, -EINVAL},
	    {p_zone, ZHDR ZBODY ZPROT ZHDR ZBODY ZPROT, -EINVAL},
	    {p_buddy, "Node 0, zone   Normal 1 2\nNode 0, zone   Normal 3 4\n", -EINVAL},
	};

	(void)state;
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

/* A number followed by anything but blanks, "kB" or the end of its line is not a number. */
static void test_trailing_garbage(void **state)
{
	static const struct parse_case cases[] = {
	    {p_meminfo, "MemTotal: 12abc kB\nMemFree: 1 kB\n", -EINVAL},
	    {p_meminfo, "MemTotal: 12 kB junk\nMemFree: 1 kB\n", -EINVAL},
	    {p_vmstat, VMSTAT "pgmajfault 12abc\n", -EINVAL},
	    {p_v1stat, V1STAT "pgpgin 12abc\n", -EINVAL},
	    {p_v2stat, V2STAT "pgscan 12abc\n", -EINVAL},
	    {p_events, EVENTS "oom_kill 12abc\n", -EINVAL},
	    {p_oomctl, OOMCTL "oom_kill 12abc\n", -EINVAL},
	    {p_status, "Name:\tcat\nVmRSS:\t    12abc kB\n", -EINVAL},
	    {p_status, "Name:\tcat\nKthread:\t0abc\n", -EINVAL},
	    {p_psi, "some avg10=0.00 avg60=0.00 avg300=0.00 total=12abc\n", -EINVAL},
	    {p_zone, ZHDR "  pages free     100abc\n        managed  900\n", -EINVAL},
	    {p_zone, ZHDR ZBODY "        protection: (0, 0, 0)abc\n", -EINVAL},
	    {p_zone, "Node 0, zone   Normal abc\n" ZBODY ZPROT, -EINVAL},
	    /* /proc/PID/stat: each field ends at a blank; "1-2" is not two fields */
	    {p_stat, STAT_AT "558 18446744073709551615\n", 0},
	    {p_stat, STAT_AT "558abc 18446744073709551615\n", -EINVAL},
	    {p_stat, "1 (cat) R 1 1-1 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 100 4096 558\n",
	     -EINVAL},
	    {p_adj, "- 5\n", -EINVAL},
	    {p_adj, "-5\n", 0},
	};

	(void)state;
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

/*
 * Values near 2^64 are negative numbers printed unsigned. Counters: rejected (-ERANGE), no round
 * is judged on them. Sizes: read as 0, what newer kernels print for a sum caught below zero.
 */
static void test_wrapped_values(void **state)
{
	static const struct parse_case cases[] = {
	    {p_meminfo, "MemTotal: " U64_MAX " kB\nMemFree: 1 kB\n", -ERANGE},
	    {p_meminfo, "MemTotal: 36028797018963968 kB\nMemFree: 1 kB\n", -ERANGE}, /* 2^55 */
	    {p_vmstat, VMSTAT "pgmajfault " WRAPPED "\n", -ERANGE},
	    /* three counts below 2^63 that sum past 2^64 */
	    {p_vmstat,
	     "pgscan_kswapd_dma 9223372036854775807\npgscan_kswapd_normal 9223372036854775807\n"
	     "pgscan_direct 9223372036854775807\npgsteal_kswapd 1\n",
	     -ERANGE},
	    {p_v1stat, V1STAT "pgmajfault " WRAPPED "\n", -ERANGE},
	    {p_v2stat, V2STAT "workingset_refault_file " WRAPPED "\n", -ERANGE},
	    {p_events, EVENTS "oom_kill " U64_MAX "\n", -ERANGE},
	    {p_oomctl, OOMCTL "oom_kill " WRAPPED "\n", -ERANGE},
	    {p_psi, "some avg10=0.00 avg60=0.00 avg300=0.00 total=" U64_MAX "\n", -ERANGE},
	    /* whole * 100 wrapped to 15 */
	    {p_psi, "some avg10=184467440737095516.00 avg60=0.00 avg300=0.00 total=1\n", -EINVAL},
	    {p_psi, "some avg10=100.01 avg60=0.00 avg300=0.00 total=1\n", -EINVAL},
	    {p_psi, "some avg10=100.00 avg60=0.00 avg300=0.00 total=1\n", 0},
	    {p_zone, ZHDR "  pages free     " U64_MAX "\n        managed  900\n", -ERANGE},
	    {p_zone, ZHDR ZBODY "        protection: (0, " WRAPPED ", 0)\n", -ERANGE},
	    {p_buddy, "Node 0, zone   Normal 1 " WRAPPED "\n", -ERANGE},
	    /* v1 "no limit" before 3.19 is 2^64 - 1: kept; anything else that large is not */
	    {p_u64, U64_MAX "\n", 0},
	    {p_u64, "9223372036854771712\n", 0},
	    {p_u64, WRAPPED "\n", -ERANGE},
	    /* pid_t and unsigned fields of /proc/PID/stat */
	    {p_stat, "1 (cat) R 4294967296 1 1 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 100 4096 5\n",
	     -EINVAL},
	    {p_stat, "1 (cat) R -1 1 1 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 100 4096 5\n",
	     -EINVAL},
	    {p_stat, "1 (cat) R 1 1 1 0 -1 -4194304 0 0 0 0 0 0 0 0 20 0 1 0 100 4096 5\n",
	     -EINVAL},
	    {p_stat, "1 (cat) R 1 1 1 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 -100 4096 5\n",
	     -EINVAL},
	};
	struct memcg_v1_stat s1;
	struct pid_status st;
	uint64_t v = 0;

	(void)state;
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	/* 3.10-era kernels printed per-cpu sums below zero (total_rss 18446744073709543424). */
	assert_int_equal(parse_memcg_v1_stat_buf(V1STAT
						 "total_cache 1\ntotal_rss "
						 "18446744073709543424\ntotal_inactive_file 3\n"
						 "total_active_file 4\n",
						 &s1),
			 0);
	assert_int_equal(s1.rss_bytes, 0);
	assert_int_equal(s1.cache_bytes, 1);
	assert_int_equal(
	    parse_pid_status_buf("Name:\tx\nVmRSS:\t" WRAPPED " kB\nVmSwap:\t 7 kB\n", &st), 0);
	assert_int_equal(st.rss_kib, 0);
	assert_int_equal(st.swap_kib, 7);
	assert_true(st.has_vm);
	assert_int_equal(parse_u64_file_buf(U64_MAX "\n", &v), 0);
	assert_true(v == UINT64_MAX);
}

/*
 * meminfo comes out consistent: lxcfs in a container has printed SwapFree near 2^64 and
 * MemAvailable above MemTotal; kernels before 3.14 have no MemAvailable.
 */
static void test_meminfo_consistent(void **state)
{
	struct proc_meminfo m;

	(void)state;
	/* lxcfs: SwapFree = SwapTotal - swap used, gone below zero */
	assert_int_equal(
	    parse_meminfo_buf(MEMINFO "SwapTotal: 1048576 kB\nSwapFree: " WRAPPED " kB\n", &m), 0);
	assert_int_equal(m.swap_total_kib, 1048576);
	assert_int_equal(m.swap_free_kib, 0);
	assert_int_equal(
	    parse_meminfo_buf(MEMINFO "SwapTotal: 0 kB\nSwapFree: " U64_MAX " kB\n", &m), 0);
	assert_int_equal(m.swap_free_kib, 0);
	assert_int_equal(parse_meminfo_buf(MEMINFO "SwapTotal: 10 kB\nSwapFree: 20 kB\n", &m), 0);
	assert_int_equal(m.swap_free_kib, 10);
	/* MemAvailable (and MemFree) above MemTotal: clamped to MemTotal */
	assert_int_equal(
	    parse_meminfo_buf("MemTotal: 1000 kB\nMemFree: 2000 kB\nMemAvailable: 3000 kB\n", &m),
	    0);
	assert_int_equal(m.mem_total_kib, 1000);
	assert_int_equal(m.mem_available_kib, 1000);
	assert_int_equal(m.mem_free_kib, 1000);
	/* no MemAvailable (before 3.14): MemFree, what is surely available */
	assert_int_equal(parse_meminfo_buf("MemTotal: 1000 kB\nMemFree: 100 kB\n", &m), 0);
	assert_int_equal(m.mem_available_kib, 100);
	/* MemAvailable wrapped: 0 */
	assert_int_equal(
	    parse_meminfo_buf("MemTotal: 1000 kB\nMemFree: 100 kB\nMemAvailable: " WRAPPED " kB\n",
			      &m),
	    0);
	assert_int_equal(m.mem_available_kib, 0);
	/* MemTotal 0 or missing, MemFree missing: no snapshot */
	assert_int_equal(parse_meminfo_buf("MemTotal: 0 kB\nMemFree: 0 kB\n", &m), -ENODATA);
	assert_int_equal(parse_meminfo_buf("MemTotal: 1000 kB\nMemAvailable: 10 kB\n", &m),
			 -ENODATA);
}

/* "pgscan_direct_throttle" counts throttled reclaimers, not pages: not part of pgscan. */
static void test_vmstat_per_zone_keys(void **state)
{
	struct proc_vmstat v;

	(void)state;
	assert_int_equal(parse_vmstat_buf("pgscan_direct 10\npgscan_direct_throttle 5\n"
					  "pgsteal_direct 3\nallocstall_normal 2\n"
					  "allocstall_movable 1\n",
					  &v),
			 0);
	assert_int_equal(v.pgscan, 10);
	assert_int_equal(v.allocstall, 3);
}

/* Appends to @out (of @size, at *@len) like snprintf; the test fails when it does not fit. */
static void __attribute__((format(printf, 4, 5)))
put(char *out, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out + *len, size - *len, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < size - *len);
	*len += (size_t)n;
}

static const char *const large_zone_names[] = {"DMA", "DMA32", "Normal", "Movable", "Device"};

/* Node 0 has DMA, DMA32 and Normal; the others Normal only; Movable and Device are empty. */
static bool large_populated(int node, int zone)
{
	return node == 0 ? zone <= 2 : zone == 2;
}

/*
 * A 6.x zoneinfo of @nodes nodes of 5 zones each, with @cpus CPUs of pagesets in every
 * populated zone; and its buddyinfo. Zone z of node n has n * 1000 + z * 100 + 1 pages free.
 */
static void gen_large_host(char *zi, char *bi, size_t size, int nodes, int cpus)
{
	size_t zl = 0, bl = 0;

	for (int n = 0; n < nodes; n++) {
		bool first = true;

		for (int z = 0; z < 5; z++) {
			bool pop = large_populated(n, z);
			unsigned long free = pop ? (unsigned long)(n * 1000 + z * 100 + 1) : 0;

			put(zi, size, &zl, "Node %d, zone %8s\n", n, large_zone_names[z]);
			if (pop && first) {
				put(zi, size, &zl,
				    "  per-node stats\n      nr_inactive_anon 5\n"
				    "      nr_inactive_file 7\n      nr_dirty     3\n");
				first = false;
			}
			put(zi, size, &zl,
			    "  pages free     %lu\n        boost    0\n        min      %d\n"
			    "        low      %d\n        high     %d\n        promo    %d\n"
			    "        spanned  %d\n        present  %d\n        managed  %d\n"
			    "        cma      0\n        protection: (0, 0, 0, 0, 0)\n",
			    free, pop ? 10 : 0, pop ? 12 : 0, pop ? 14 : 0, pop ? 16 : 0,
			    pop ? 262144 : 0, pop ? 262144 : 0, pop ? 260000 : 0);
			if (!pop)
				continue;
			put(zi, size, &zl,
			    "      nr_free_pages %lu\n      nr_zone_inactive_file 40\n"
			    "      nr_zone_active_file 2\n  pagesets\n",
			    free);
			for (int c = 0; c < cpus; c++)
				put(zi, size, &zl,
				    "    cpu: %d\n              count:    %d\n"
				    "              high:     4725\n              batch:    63\n"
				    "              high_min: 4725\n              high_max: 48301\n"
				    "  vm stats threshold: 24\n",
				    c, c % 63);
			put(zi, size, &zl, "  node_unreclaimable:  0\n  start_pfn:           1\n");
			put(bi, size, &bl, "Node %d, zone %8s %6d %6d %6d\n", n,
			    large_zone_names[z], n, z, 1);
		}
	}
}

/*
 * A large host: 4 nodes of 5 zones (20 headers, more than PROC_MAX_ZONES) and 256 CPUs of
 * pagesets (zoneinfo far beyond 64 KiB). The 14 empty zones are left out.
 */
static void test_zoneinfo_large_host(void **state)
{
	static char zi[1 << 20], bi[1 << 20];
	struct proc_zone zones[16];
	size_t nr = 0;

	(void)state;
	gen_large_host(zi, bi, sizeof(zi), 4, 256);
	assert_true(strlen(zi) > 65536);
	assert_int_equal(parse_zoneinfo_buf(zi, zones, 16, &nr), 0);
	assert_int_equal(nr, 6);
	assert_int_equal(parse_buddyinfo_buf(bi, zones, nr), 6);
	for (size_t i = 0; i < nr; i++) {
		int z = zones[i].node ? 2 : (int)i;

		assert_int_equal(zones[i].node, i < 3 ? 0 : (int)i - 2);
		assert_string_equal(zones[i].name, large_zone_names[z]);
		assert_int_equal(zones[i].free_pages, zones[i].node * 1000 + z * 100 + 1);
		assert_int_equal(zones[i].managed_pages, 260000);
		assert_int_equal(zones[i].high_pages, 14); /* not a pageset's "high:" */
		assert_int_equal(zones[i].inactive_file, 40);
		assert_true(zones[i].has_buddy);
		assert_int_equal(zones[i].nr_free[0], zones[i].node);
		assert_int_equal(zones[i].nr_free[1], z);
	}
}

/*
 * mountinfo on Docker hosts: overlayfs lists every layer in its super options (far beyond
 * 512 bytes), FUSE fstypes carry long subtypes; neither is a reason to fail. Several mounts
 * of one hierarchy: the whole one (root "/") wins over a subtree bind mount listed first.
 */
/* A group's bytes read and written: v1 blkio (Read and Write lines of every device, "Total"
 * skipped) and v2 io.stat (rbytes and wbytes, the first two keys). */
static void test_group_reads(void **state)
{
	struct io_bytes io = {7, 7};

	(void)state;
	assert_int_equal(parse_blkio_io_bytes_buf("254:0 Read 8388608\n254:0 Write 4096\n"
						  "254:0 Sync 0\n254:0 Async 8392704\n"
						  "254:0 Discard 0\n254:0 Total 8392704\n"
						  "11:0 Read 4096\n11:0 Write 8192\n11:0 Total 12288\n"
						  "Total 8396800\n",
						  &io),
			 0);
	assert_int_equal(io.read, 8388608 + 4096);
	assert_int_equal(io.written, 4096 + 8192);
	assert_int_equal(parse_blkio_io_bytes_buf("Total 0\n", &io), 0); /* no I/O yet */
	assert_int_equal(io.read, 0);
	assert_int_equal(io.written, 0);
	assert_int_equal(parse_blkio_io_bytes_buf("254:0 Read 12abc\n", &io), -EINVAL);
	assert_int_equal(parse_blkio_io_bytes_buf("254:0 Write 12abc\n", &io), -EINVAL);
	assert_int_equal(parse_blkio_io_bytes_buf("sda Read 1\n", &io), -EINVAL);
	assert_int_equal(
	    parse_blkio_io_bytes_buf("1:0 Read 18446744073709551615\n2:0 Read 1\n", &io), -ERANGE);
	assert_int_equal(
	    parse_blkio_io_bytes_buf("1:0 Write 18446744073709551615\n2:0 Write 1\n", &io), -ERANGE);
	assert_int_equal(parse_io_stat_bytes_buf("254:0 rbytes=8388608 wbytes=4096 rios=64 wios=1 "
						 "dbytes=0 dios=0\n11:0 rbytes=4096 wbytes=12288\n",
						 &io),
			 0);
	assert_int_equal(io.read, 8388608 + 4096);
	assert_int_equal(io.written, 4096 + 12288);
	assert_int_equal(parse_io_stat_bytes_buf("", &io), 0);
	assert_int_equal(io.read, 0);
	assert_int_equal(io.written, 0);
	assert_int_equal(parse_io_stat_bytes_buf("254:0 wbytes=1 rbytes=2\n", &io), -EINVAL);
	assert_int_equal(parse_io_stat_bytes_buf("254:0 rbytes=2\n", &io), -EINVAL);
	assert_int_equal(parse_io_stat_bytes_buf("254:0 rbytes=2 rios=1\n", &io), -EINVAL);
	assert_int_equal(parse_io_stat_bytes_buf("254:0 rbytes=-1 wbytes=0\n", &io), -EINVAL);
	assert_int_equal(parse_io_stat_bytes_buf("254:0 rbytes=1 wbytes=x\n", &io), -EINVAL);
	assert_int_equal(
	    parse_io_stat_bytes_buf("254:0 rbytes=99999999999999999999 wbytes=0\n", &io), -ERANGE);
	assert_int_equal(
	    parse_io_stat_bytes_buf("254:0 rbytes=0 wbytes=99999999999999999999\n", &io), -ERANGE);
}

static void test_mountinfo_odd_hosts(void **state)
{
	static char mi[8192];
	struct cgroup_mounts m;
	size_t len = 0;

	(void)state;
	put(mi, sizeof(mi), &len, "1 0 0:40 / / rw,relatime - overlay overlay rw,lowerdir=");
	for (int i = 0; i < 40; i++)
		put(mi, sizeof(mi), &len,
		    "/var/lib/docker/overlay2/l/LAYER%02dABCDEFGHIJKLMNOP:", i);
	put(mi, sizeof(mi), &len, ",upperdir=/u,workdir=/w\n");
	put(mi, sizeof(mi), &len,
	    "2 1 0:50 / /run/user/1000/doc rw - fuse.a-document-portal-with-a-long-name portal "
	    "rw,user_id=1000\n");
	put(mi, sizeof(mi), &len, "3 1 0:26 /docker/abc /mnt/cg rw - cgroup2 cgroup2 rw\n");
	put(mi, sizeof(mi), &len, "4 1 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
	put(mi, sizeof(mi), &len, "5 1 0:26 / /mnt/again rw - cgroup2 cgroup2 rw\n");
	put(mi, sizeof(mi), &len,
	    "6 1 0:27 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n");
	assert_true(len > 512);
	assert_int_equal(parse_mountinfo_buf(mi, &m), 0);
	assert_string_equal(m.v2, "/sys/fs/cgroup");
	assert_string_equal(m.v1_memory, "/sys/fs/cgroup/memory");
}

/*
 * Found by fuzz_pid_status: has_vm came from a search for "\nVmRSS:" while the value came from
 * the key parser, which also takes an indented key or one without a colon: a task with an RSS
 * and no mm. Both now come from the one parse.
 */
static void test_pid_status_has_vm(void **state)
{
	static const char *const bufs[] = {
	    "Name:\tx\n VmRSS:\t5 kB\n",
	    "Name:\tx\nVmRSS 5 kB\n",
	};
	struct pid_status st;

	(void)state;
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++) {
		assert_int_equal(parse_pid_status_buf(bufs[i], &st), 0);
		assert_int_equal(st.rss_kib, 5);
		assert_true(st.has_vm);
	}
}

/* A SIGKILL pending for the leader (SigPnd) or the group (ShdPnd), and nothing else, makes a
 * process dying; so do a leader in do_exit() because a signal killed it, or alone. */
static void test_pid_dying(void **state)
{
	static const struct {
		const char *buf;
		bool dying;
	} cases[] = {
	    {"Name:\tx\nSigPnd:\t0000000000000100\nShdPnd:\t0000000000000000\n", true},
	    {"Name:\tx\nSigPnd:\t0000000000000000\nShdPnd:\t0000000000000100\n", true},
	    {"Name:\tx\nSigPnd:\t0000000000004100\n", true},
	    {"Name:\tx\nSigPnd:\t00000000000000000000000000000100\n", true}, /* 128 signals */
	    {"Name:\tx\nSigPnd:\t00000000000000000000000000000000\n", false},
	    {"Name:\tx\nSigPnd:\t0000000000004000\nShdPnd:\t0000000000000080\n", false},
	    {"Name:\tx\nSigPnd:\t00000000000001FF\n", true},
	    {"Name:\tx\nSigPndX:\t0000000000000100\n", false}, /* another key */
	    {"Name:\tx\n", false},                             /* no masks at all */
	};
	struct pid_status ss;
	struct pid_stat st;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse_pid_status_buf(cases[i].buf, &ss), 0);
		if (ss.sigkill_pending != cases[i].dying)
			fail_msg("case %zu: sigkill_pending %d", i, ss.sigkill_pending);
	}
	assert_int_equal(read_pid_status(FIX "k6.18", 1234, buf, sizeof(buf), &ss), 0);
	assert_false(ss.sigkill_pending);
	/* field 9 flags (PF_EXITING 0x4, PF_SIGNALED 0x400), field 20 threads */
	memset(&st, 0, sizeof(st));
	st.state = 'R';
	st.num_threads = 1;
	assert_false(pid_stat_dying(&st));
	st.flags = PF_EXITING_FLAG;
	assert_true(pid_stat_dying(&st));
	st.num_threads = 4; /* the leader leaving alone by pthread_exit() */
	assert_false(pid_stat_dying(&st));
	st.flags |= PF_SIGNALED_FLAG;
	assert_true(pid_stat_dying(&st));
	st.state = 'Z'; /* a zombie has no memory to reap: not dying, gone */
	assert_false(pid_stat_dying(&st));
	assert_int_equal(
	    parse_pid_stat_buf("5 (x) R 1 1 1 0 -1 4194308 0 0 0 0 0 0 0 0 20 0 3 0 77 0 9", &st),
	    0);
	assert_int_equal(st.num_threads, 3);
	assert_int_equal(st.flags, 4194308);
	assert_false(pid_stat_dying(&st)); /* exiting, not by a signal, with 3 threads */
	assert_int_equal(st.signal, 0);
	/* field 31, the leader's pending signals: SIGKILL (256) however it runs (frozen here) */
	assert_int_equal(
	    parse_pid_stat_buf("5 (x) D 1 1 1 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 77 "
			       "0 9 18446744073709551615 1 1 0 0 0 16640\n",
			       &st),
	    0);
	assert_int_equal(st.signal, 16640);
	assert_true(pid_stat_dying(&st));
	st.signal = 16384; /* SIGTERM alone */
	assert_false(pid_stat_dying(&st));
	assert_int_equal(parse_pid_stat_buf("5 (x) D 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 77 0 9 "
					    "18446744073709551615 1 1 0 0 0 2x56\n",
					    &st),
			 -EINVAL);
	assert_int_equal(read_pid_stat(FIX "k6.18", 1234, buf, sizeof(buf), &st), 0);
	assert_int_equal(st.signal, 0);
	assert_false(pid_stat_dying(&st));
}

/* /proc/PID/cgroup: "ID:controllers:path" with both colons on the line itself. */
static void test_pid_cgroup_lines(void **state)
{
	static const struct parse_case cases[] = {
	    {p_cgroup_memory, "5:memory:/a\n0::/b\n", 0},
	    {p_cgroup_memory, "5:memory\n0::/a\n", -EINVAL},
	    {p_cgroup_memory, "5:cpu\n4:memory:/a\n", -EINVAL},
	};
	char path[64];

	(void)state;
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	assert_int_equal(
	    parse_pid_cgroup_buf("7:cpu:/x:y\n4:memory:/a:b\n", "memory", path, sizeof(path)), 0);
	assert_string_equal(path, "/a:b");
}

/* Writes @text to ROOT/@rel, making the directories on the way. */
static void put_file(const char *root, const char *rel, const char *text)
{
	char cmd[512];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s/%s')\"", root, rel);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/%s", root, rel);
	f = fopen(cmd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The largest read_ahead_kb of /sys/block's disks; a disk without a queue or a number is
 * skipped; no /sys/block is an error with 0. */
static void test_max_readahead(void **state)
{
	char root[] = "/tmp/oomguard-test-ra-XXXXXX", cmd[300];
	uint64_t kb = 7;

	(void)state;
	assert_non_null(mkdtemp(root));
	assert_int_equal(read_max_readahead_kb(root, buf, sizeof(buf), &kb), -ENOENT);
	assert_int_equal(kb, 0);
	put_file(root, "sys/block/loop0/queue/read_ahead_kb", "128\n");
	put_file(root, "sys/block/vda/queue/read_ahead_kb", "8192\n");
	put_file(root, "sys/block/sda/queue/read_ahead_kb", "4096\n");
	put_file(root, "sys/block/odd/queue/read_ahead_kb", "lots\n");
	put_file(root, "sys/block/noqueue/dev", "253:0\n");
	assert_int_equal(read_max_readahead_kb(root, buf, sizeof(buf), &kb), 0);
	assert_int_equal(kb, 8192);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_max_readahead),
	    cmocka_unit_test(test_zoneinfo_618),
	    cmocka_unit_test(test_zoneinfo_44),
	    cmocka_unit_test(test_zoneinfo_small_array),
	    cmocka_unit_test(test_vmstat),
	    cmocka_unit_test(test_group_reads),
	    cmocka_unit_test(test_meminfo_psi),
	    cmocka_unit_test(test_pid_files),
	    cmocka_unit_test(test_cgroup_files),
	    cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_repeated_keys),
	    cmocka_unit_test(test_trailing_garbage),
	    cmocka_unit_test(test_wrapped_values),
	    cmocka_unit_test(test_meminfo_consistent),
	    cmocka_unit_test(test_vmstat_per_zone_keys),
	    cmocka_unit_test(test_zoneinfo_large_host),
	    cmocka_unit_test(test_mountinfo_odd_hosts),
	    cmocka_unit_test(test_pid_cgroup_lines),
	    cmocka_unit_test(test_pid_status_has_vm),
	    cmocka_unit_test(test_pid_dying),
	    cmocka_unit_test(test_cpu_ticks),
	    cmocka_unit_test(test_cgroup_cpu_usage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
