// SPDX-License-Identifier: GPL-2.0-only
/* The /proc and cgroupfs parsers on fixture files from this kernel (6.18), an older layout
 * (4.4: per-zone LRU counters, per-zone pgsteal) and malformed input. */
#include <errno.h>
#include <setjmp.h>
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
	assert_int_equal(nr, 5);
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
	assert_int_equal(zones[3].type, -1);
	assert_int_equal(zones[3].managed_pages, 0);
	assert_false(zones[3].has_buddy);
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
	struct proc_zone zones[2];
	size_t nr = 0;

	(void)state;
	load(FIX "k6.18/proc/zoneinfo");
	assert_int_equal(parse_zoneinfo_buf(buf, zones, 2, &nr), -ENOSPC);
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
	assert_true(ss.rss_kib > 0);
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
	assert_int_equal(s2.workingset_refault_file, 7);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_zoneinfo_618),         cmocka_unit_test(test_zoneinfo_44),
	    cmocka_unit_test(test_zoneinfo_small_array), cmocka_unit_test(test_vmstat),
	    cmocka_unit_test(test_meminfo_psi),          cmocka_unit_test(test_pid_files),
	    cmocka_unit_test(test_cgroup_files),         cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
