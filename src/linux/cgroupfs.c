// SPDX-License-Identifier: GPL-2.0-only
/* cgroupfs parsers and readers for the memory controller, v1 and v2. */
#include "linux/cgroupfs.h"

#include <errno.h>
#include <string.h>

#include "linux/parse.h"
#include "linux/sys.h"

/* Copies one space-separated mountinfo field, decoding \ooo escapes. Returns the next field. */
static const char *mountinfo_field(const char *p, char *out, size_t size)
{
	size_t len = 0;

	p = skip_blanks(p);
	while (*p && *p != ' ' && *p != '\n') {
		char c = *p++;

		if (c == '\\' && p[0] >= '0' && p[0] <= '3' && p[1] >= '0' && p[1] <= '7' &&
		    p[2] >= '0' && p[2] <= '7') {
			c = (char)((p[0] - '0') * 64 + (p[1] - '0') * 8 + (p[2] - '0'));
			p += 3;
		}
		if (out && len + 1 < size)
			out[len] = c;
		len++;
	}
	if (out) {
		if (len >= size)
			return NULL;
		out[len] = '\0';
	}
	return len ? p : NULL;
}

static bool option_listed(const char *opts, const char *want)
{
	size_t wlen = strlen(want);

	for (const char *p = opts; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len == wlen && !strncmp(p, want, wlen))
			return true;
		if (!comma)
			break;
		p = comma + 1;
	}
	return false;
}

int parse_mountinfo_buf(const char *buf, struct cgroup_mounts *ret_mounts)
{
	struct cgroup_mounts m;

	m.v1_memory[0] = m.v2[0] = '\0';
	for (const char *line = buf; line && *line; line = next_line(line)) {
		char mnt[PATH_MAX], fstype[32], opts[512];
		const char *p = line, *sep;

		/* 1 id, 2 parent, 3 major:minor, 4 root, 5 mount point, ... " - " fstype src opts
		 */
		for (int f = 0; f < 4 && p; f++)
			p = mountinfo_field(p, NULL, 0);
		if (!p || !(p = mountinfo_field(p, mnt, sizeof(mnt))))
			return -EINVAL;
		sep = strstr(p, " - ");
		if (!sep || (strchr(p, '\n') && sep > strchr(p, '\n')))
			return -EINVAL;
		p = mountinfo_field(sep + 3, fstype, sizeof(fstype));
		if (!p || !(p = mountinfo_field(p, NULL, 0)) ||
		    !mountinfo_field(p, opts, sizeof(opts)))
			return -EINVAL;
		if (!strcmp(fstype, "cgroup2") && !m.v2[0])
			memcpy(m.v2, mnt, sizeof(mnt));
		else if (!strcmp(fstype, "cgroup") && option_listed(opts, "memory") &&
			 !m.v1_memory[0])
			memcpy(m.v1_memory, mnt, sizeof(mnt));
	}
	*ret_mounts = m;
	return 0;
}

#define V1(f) offsetof(struct memcg_v1_stat, f)
static const struct kv_field v1_local_fields[] = {
    {"cache", V1(cache_bytes), false},
    {"rss", V1(rss_bytes), false},
    {"shmem", V1(shmem_bytes), false},
    {"inactive_file", V1(inactive_file_bytes), false},
    {"active_file", V1(active_file_bytes), false},
    {"inactive_anon", V1(inactive_anon_bytes), false},
    {"active_anon", V1(active_anon_bytes), false},
    {"workingset_refault_file", V1(workingset_refault_file), false},
    {"workingset_refault", V1(workingset_refault_file), false},
    {"workingset_refault_anon", V1(workingset_refault_anon), false},
    {"pgpgin", V1(pgpgin), false},
    {"pgpgout", V1(pgpgout), false},
    {"pgmajfault", V1(pgmajfault), false},
    {"dirty", V1(dirty_bytes), false},
    {"writeback", V1(writeback_bytes), false},
};
static const struct kv_field v1_total_fields[] = {
    {"total_cache", V1(cache_bytes), false},
    {"total_rss", V1(rss_bytes), false},
    {"total_shmem", V1(shmem_bytes), false},
    {"total_inactive_file", V1(inactive_file_bytes), false},
    {"total_active_file", V1(active_file_bytes), false},
    {"total_inactive_anon", V1(inactive_anon_bytes), false},
    {"total_active_anon", V1(active_anon_bytes), false},
    {"total_workingset_refault_file", V1(workingset_refault_file), false},
    {"total_workingset_refault", V1(workingset_refault_file), false},
    {"total_workingset_refault_anon", V1(workingset_refault_anon), false},
    {"total_pgpgin", V1(pgpgin), false},
    {"total_pgpgout", V1(pgpgout), false},
    {"total_pgmajfault", V1(pgmajfault), false},
    {"total_dirty", V1(dirty_bytes), false},
    {"total_writeback", V1(writeback_bytes), false},
};
#undef V1

/* Return: 0, -EINVAL on malformed input, -ENODATA without the LRU counters. */
int parse_memcg_v1_stat_buf(const char *buf, struct memcg_v1_stat *ret_stat)
{
	struct memcg_v1_stat s;
	int n = parse_kv_buf(buf, v1_total_fields,
			     sizeof(v1_total_fields) / sizeof(v1_total_fields[0]), &s);

	if (n < 0)
		return n;
	if (n < 4) { /* a kernel without hierarchical totals */
		n = parse_kv_buf(buf, v1_local_fields,
				 sizeof(v1_local_fields) / sizeof(v1_local_fields[0]), &s);
		if (n < 0)
			return n;
		if (n < 4)
			return -ENODATA;
	}
	*ret_stat = s;
	return 0;
}

#define OC(f) offsetof(struct memcg_v1_oom_control, f)
static const struct kv_field oom_control_fields[] = {
    {"oom_kill_disable", OC(oom_kill_disable), false},
    {"under_oom", OC(under_oom), false},
    {"oom_kill", OC(oom_kill), false},
};
#undef OC

int parse_memcg_v1_oom_control_buf(const char *buf, struct memcg_v1_oom_control *ret_oom)
{
	struct memcg_v1_oom_control o;
	int n = parse_kv_buf(buf, oom_control_fields, 3, &o);

	if (n < 0)
		return n;
	if (n < 2)
		return -ENODATA;
	*ret_oom = o;
	return 0;
}

#define V2(f) offsetof(struct memcg_v2_stat, f)
static const struct kv_field v2_stat_fields[] = {
    {"anon", V2(anon_bytes), false},
    {"file", V2(file_bytes), false},
    {"inactive_file", V2(inactive_file_bytes), false},
    {"active_file", V2(active_file_bytes), false},
    {"inactive_anon", V2(inactive_anon_bytes), false},
    {"active_anon", V2(active_anon_bytes), false},
    {"file_dirty", V2(file_dirty_bytes), false},
    {"file_writeback", V2(file_writeback_bytes), false},
    {"pgscan", V2(pgscan), false},
    {"pgsteal", V2(pgsteal), false},
    {"pgmajfault", V2(pgmajfault), false},
    {"workingset_refault_file", V2(workingset_refault_file), false},
    {"workingset_refault", V2(workingset_refault_file), false},
    {"workingset_refault_anon", V2(workingset_refault_anon), false},
};
#undef V2

int parse_memcg_v2_stat_buf(const char *buf, struct memcg_v2_stat *ret_stat)
{
	struct memcg_v2_stat s;
	int n = parse_kv_buf(buf, v2_stat_fields,
			     sizeof(v2_stat_fields) / sizeof(v2_stat_fields[0]), &s);

	if (n < 0)
		return n;
	if (n < 4)
		return -ENODATA;
	*ret_stat = s;
	return 0;
}

#define EV(f) offsetof(struct memcg_v2_events, f)
static const struct kv_field v2_events_fields[] = {
    {"low", EV(low), false},           {"high", EV(high), false},
    {"max", EV(max), false},           {"oom", EV(oom), false},
    {"oom_kill", EV(oom_kill), false}, {"oom_group_kill", EV(oom_group_kill), false},
};
#undef EV

int parse_memcg_v2_events_buf(const char *buf, struct memcg_v2_events *ret_events)
{
	struct memcg_v2_events e;
	int n = parse_kv_buf(buf, v2_events_fields, 6, &e);

	if (n < 0)
		return n;
	if (n < 4)
		return -ENODATA;
	*ret_events = e;
	return 0;
}

int parse_u64_file_buf(const char *buf, uint64_t *ret_value)
{
	const char *p = buf;
	uint64_t v;

	if (!strncmp(p, "max", 3)) {
		v = UINT64_MAX;
		p += 3;
	} else if (parse_u64(&p, &v) < 0) {
		return -EINVAL;
	}
	if (*p == '\n')
		p++;
	if (*p)
		return -EINVAL;
	*ret_value = v;
	return 0;
}

int read_mountinfo(const char *root, char *buf, size_t size, struct cgroup_mounts *ret_mounts)
{
	ssize_t n = sys_read_file(root, "/proc/self/mountinfo", buf, size);

	return n < 0 ? (int)n : parse_mountinfo_buf(buf, ret_mounts);
}

static ssize_t read_in(const char *dir, const char *file, char *buf, size_t size)
{
	char path[PATH_MAX];
	size_t dlen = strlen(dir), flen = strlen(file);

	if (dlen + 1 + flen + 1 > sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, dir, dlen);
	path[dlen] = '/';
	memcpy(path + dlen + 1, file, flen + 1);
	return sys_read_file(NULL, path, buf, size);
}

int read_cgroup_u64(const char *dir, const char *file, uint64_t *ret_value)
{
	char buf[64];
	ssize_t n = read_in(dir, file, buf, sizeof(buf));

	return n < 0 ? (int)n : parse_u64_file_buf(buf, ret_value);
}

int read_memcg_v1_stat(const char *dir, char *buf, size_t size, struct memcg_v1_stat *ret_stat)
{
	ssize_t n = read_in(dir, "memory.stat", buf, size);

	return n < 0 ? (int)n : parse_memcg_v1_stat_buf(buf, ret_stat);
}

int read_memcg_v1_oom_control(const char *dir, struct memcg_v1_oom_control *ret_oom)
{
	char buf[256];
	ssize_t n = read_in(dir, "memory.oom_control", buf, sizeof(buf));

	return n < 0 ? (int)n : parse_memcg_v1_oom_control_buf(buf, ret_oom);
}

int read_memcg_v2_stat(const char *dir, char *buf, size_t size, struct memcg_v2_stat *ret_stat)
{
	ssize_t n = read_in(dir, "memory.stat", buf, size);

	return n < 0 ? (int)n : parse_memcg_v2_stat_buf(buf, ret_stat);
}

int read_memcg_v2_events(const char *dir, struct memcg_v2_events *ret_events)
{
	char buf[512];
	ssize_t n = read_in(dir, "memory.events", buf, sizeof(buf));

	return n < 0 ? (int)n : parse_memcg_v2_events_buf(buf, ret_events);
}
