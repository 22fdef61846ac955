// SPDX-License-Identifier: GPL-2.0-only
/*
 * The decision on recorded counter traces: every 100 ms of a v1 group on this machine, as
 * bench/record-trace.sh wrote them (tests/fixtures/traces/), replayed through scope_decide()
 * as the daemon's rounds. A trace named thrash-* must reach OOM after the recorded onset of
 * thrashing (the end of the thrasher's first pass) and within 1.9 s of it (the kill itself
 * takes well under 1 ms); a trace named ok-* (a stream, a working set that fits, a build) must
 * never reach it.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "daemon/scope.h"
#include "linux/sys.h"

#define TRACE_DIR "tests/fixtures/traces"
#define GRACE_MS  1900

struct replay {
	long onset_ms;   /* -1: none recorded */
	long oom_ms;     /* the first OOM verdict, -1: none */
	unsigned long samples;
};

/* How a trace is replayed: as recorded; with every sample's I/O stall total the same (as if no
 * task ever waited for a read); without its busy CPU column (as if /proc/stat were unread). */
enum replay_as { AS_RECORDED, FLAT_IO, NO_CPU };

static int replay(const char *path, enum replay_as as, struct replay *ret)
{
	FILE *f = fopen(path, "re");
	char line[256];
	struct scope s;
	struct config c;
	unsigned long long limit = 0;

	if (!f)
		return -1;
	config_defaults(&c);
	memset(&s, 0, sizeof(s));
	s.kind = SCOPE_CGROUP_V1;
	s.reads = READS_V1_BLKIO; /* record-trace.sh reads the group's blkio */
	s.page_shift = 12;
	s.set = c.per_scope;
	ret->onset_ms = ret->oom_ms = -1;
	ret->samples = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long t, fc, rf, rd, us, fb, uo, db = 0;
		long long io = -1, cpu = -1, iow = 0;
		char *p;
		int n;

		if (line[0] == '#') {
			if ((p = strstr(line, "limit_bytes=")))
				limit = strtoull(p + 12, NULL, 10);
			if ((p = strstr(line, "onset_ms=")) && p[9] != '-')
				ret->onset_ms = strtol(p + 9, NULL, 10);
			/* traces recorded before it was: 0, the read-ahead rule off */
			if ((p = strstr(line, "readahead_kb=")))
				s.readahead_pages = strtoull(p + 13, NULL, 10) >> 2;
			continue;
		}
		/* 11 columns since the machine's iowait is recorded, 10 since its busy CPU time is,
		 * 9 since its I/O stall is (-1: not readable), 8 since dirty + writeback is, 7 before */
		n = sscanf(line, "%llu %llu %llu %llu %llu %llu %llu %llu %lld %lld %lld", &t, &fc, &rf,
			   &rd, &us, &fb, &uo, &db, &io, &cpu, &iow);
		if (n < 7 || n > 11) {
			fclose(f);
			return -1;
		}
		s.prev = s.cur;
		s.has_prev = ret->samples > 0;
		s.cur.time_usec = t * 1000 + 1;
		s.cur.stall_events = fc;
		s.cur.refaulted = rf;
		s.cur.read_pages = rd >> 12;
		s.cur.limit_bytes = limit;
		s.cur.usage_bytes = us;
		s.cur.file_bytes = fb;
		s.cur.parked = uo != 0;
		s.cur.io_stall_usec = io < 0 ? SCOPE_IO_UNKNOWN : as == FLAT_IO ? 0 : (uint64_t)io;
		s.cur.cpu_busy_usec = cpu < 0 || as == NO_CPU ? SCOPE_IO_UNKNOWN : (uint64_t)cpu;
		s.cur.cpu_iowait_usec = iow < 0 ? 0 : (uint64_t)iow;
		scope_cgroup_zone(&s.cur, s.set.reserve_permille, db, s.page_shift);
		scope_push_history(&s);
		scope_decide(&s, &c);
		ret->samples++;
		if (s.oom && ret->oom_ms < 0)
			ret->oom_ms = (long)t;
	}
	fclose(f);
	return limit ? 0 : -1;
}

static void test_traces(void **state)
{
	DIR *dir = opendir(TRACE_DIR);
	struct dirent *e;
	int thrash = 0, ok = 0, failed = 0;

	(void)state;
	assert_non_null(dir);
	/* Every trace is replayed and each one that fails is named; the test fails after the
	 * directory is closed (a fail_msg() inside the loop would leave it open). */
	while ((e = readdir(dir))) {
		char path[512];
		struct replay r;
		bool want_oom = !strncmp(e->d_name, "thrash-", 7);

		if (!strstr(e->d_name, ".trace"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", TRACE_DIR, e->d_name);
		if (replay(path, AS_RECORDED, &r) < 0) {
			print_error("%s: unreadable trace\n", path);
			failed++;
			continue;
		}
		print_message("%s: %lu samples, onset %ld ms, OOM %ld ms\n", e->d_name, r.samples,
			      r.onset_ms, r.oom_ms);
		if (want_oom) {
			thrash++;
			if (r.onset_ms < 0) {
				print_error("%s: no onset recorded\n", e->d_name);
				failed++;
			} else if (r.oom_ms < r.onset_ms || r.oom_ms > r.onset_ms + GRACE_MS) {
				print_error("%s: OOM at %ld ms, want within %d ms after the onset "
					    "at %ld\n",
					    e->d_name, r.oom_ms, GRACE_MS, r.onset_ms);
				failed++;
			}
		} else {
			ok++;
			if (r.oom_ms >= 0) {
				print_error("%s: OOM at %ld ms, want none\n", e->d_name, r.oom_ms);
				failed++;
			}
		}
	}
	closedir(dir);
	if (failed)
		fail_msg("%d trace(s) failed (above)", failed);
	assert_true(thrash >= 2 && ok >= 2); /* the slow and fast ends, and what must not be */
}

/*
 * The I/O column is what tells a slow disk's pauses from silence (progress.h, "Refaults long
 * past"): the 4 MiB/s thrash recorded with it is caught within the grace; the same trace with
 * the column flat (nobody waited, by its account) has its pauses held, and is not.
 */
static void test_trace_io_column(void **state)
{
	const char *path = TRACE_DIR "/thrash-4mibs-read-io.trace";
	struct replay r, flat;

	(void)state;
	assert_int_equal(replay(path, AS_RECORDED, &r), 0);
	assert_int_equal(replay(path, FLAT_IO, &flat), 0);
	assert_true(r.oom_ms >= r.onset_ms && r.oom_ms <= r.onset_ms + GRACE_MS);
	assert_true(flat.oom_ms < 0 || flat.oom_ms > flat.onset_ms + GRACE_MS);
}

/*
 * The busy CPU column undoes PSI's division of one waiting task's I/O stall among busy CPUs
 * (progress.h): the 4 MiB/s thrashes by mmap and by read() recorded beside two CPU hogs (io
 * "some" 50 ms of each 100 ms round in their pauses, 2 CPUs busy) are caught within the grace;
 * without the column their pauses read as silence nobody waited through, and they are not.
 */
static void test_trace_cpu_column(void **state)
{
	static const char *const busy[] = {TRACE_DIR "/thrash-4mibs-mmap-busy.trace",
					   TRACE_DIR "/thrash-4mibs-read-busy.trace"};
	struct replay r, blind;

	(void)state;
	for (size_t i = 0; i < sizeof(busy) / sizeof(busy[0]); i++) {
		assert_int_equal(replay(busy[i], AS_RECORDED, &r), 0);
		assert_int_equal(replay(busy[i], NO_CPU, &blind), 0);
		if (r.oom_ms < r.onset_ms || r.oom_ms > r.onset_ms + GRACE_MS)
			fail_msg("%s: OOM at %ld ms, onset %ld", busy[i], r.oom_ms, r.onset_ms);
		if (blind.oom_ms >= 0 && blind.oom_ms <= blind.onset_ms + GRACE_MS)
			fail_msg("%s without its CPU column: OOM at %ld ms, in time", busy[i],
				 blind.oom_ms);
		print_message("%s without its CPU column: OOM %ld ms\n", busy[i], blind.oom_ms);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_traces),
	    cmocka_unit_test(test_trace_io_column),
	    cmocka_unit_test(test_trace_cpu_column),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
