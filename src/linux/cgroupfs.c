// SPDX-License-Identifier: GPL-2.0-only
/* cgroupfs parsers and readers for the memory controller, v1 and v2. */
#include "linux/cgroupfs.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

#include "linux/parse.h"
#include "linux/sys.h"

/* The end of the space-separated mountinfo field at @p, or NULL if it is empty. */
static const char *field_end(const char *p)
{
	const char *e = p;

	while (*e && *e != ' ' && *e != '\n')
		e++;
	return e > p ? e : NULL;
}

/* The next field of the line after the one at @p, or NULL if there is none. */
static const char *next_field(const char *p)
{
	const char *e = field_end(p);

	if (!e || *e != ' ')
		return NULL;
	while (*e == ' ')
		e++;
	return field_end(e) ? e : NULL;
}

/* Is the field [@p, @end) exactly @word? */
static bool field_eq(const char *p, const char *end, const char *word)
{
	size_t len = strlen(word);

	return (size_t)(end - p) == len && !strncmp(p, word, len);
}

/* Is @want one of the comma-separated options in the field [@p, @end)? */
static bool option_listed(const char *p, const char *end, const char *want)
{
	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *e = comma ? comma : end;

		if (field_eq(p, e, want))
			return true;
		p = e + 1;
	}
	return false;
}

/* Decodes the mount point [@p, @end) (\ooo escapes) into @out. false if it does not fit. */
static bool mount_point(const char *p, const char *end, char *out, size_t size)
{
	size_t len = 0;

	while (p < end) {
		char c = *p++;

		if (c == '\\' && end - p >= 3 && p[0] >= '0' && p[0] <= '3' && p[1] >= '0' &&
		    p[1] <= '7' && p[2] >= '0' && p[2] <= '7') {
			c = (char)((p[0] - '0') * 64 + (p[1] - '0') * 8 + (p[2] - '0'));
			p += 3;
		}
		if (len + 1 >= size)
			return false;
		out[len++] = c;
	}
	out[len] = '\0';
	return true;
}

/*
 * One hierarchy's mount: the first listed wins, except that a mount of the whole hierarchy
 * (root "/") wins over a bind mount of a subtree listed before it. Several are common (bind
 * mounts into containers); the first is the oldest, the one the host's init made.
 */
static void take_mount(char *dst, bool *dst_whole, const char *mnt, bool whole)
{
	if (dst[0] && (*dst_whole || !whole))
		return;
	memcpy(dst, mnt, strlen(mnt) + 1);
	*dst_whole = whole;
}

/**
 * parse_mountinfo_buf() - see cgroupfs.h. Fields: 1 id, 2 parent, 3 major:minor, 4 root,
 * 5 mount point, 6 options, optional fields, "-", fstype, source, super options. Only cgroup
 * lines are read further than their layout: super options of any length (overlayfs lists
 * every layer) and fstypes of any name are fine.
 */
/* What a walk of mountinfo keeps: the mounts so far, and whether each is of the whole tree. */
struct mountinfo_walk {
	struct cgroup_mounts m;
	bool v1_whole, v2_whole, blkio_whole;
	size_t line_max; /* reading by lines: a line this long was cut (skipped); 0: whole buffer */
	int err;
};

/* One line of mountinfo (it may run on past a newline: only its first line is read). */
static int mountinfo_line(const char *line, struct mountinfo_walk *w)
{
	char mnt[PATH_MAX];
	const char *p = field_end(line) ? line : NULL, *root, *point, *fstype, *opts, *sep, *nl;
	bool v1, v2, blkio, whole;

	for (int f = 0; f < 3 && p; f++)
		p = next_field(p);
	root = p;
	point = root ? next_field(root) : NULL;
	if (!point)
		return -EINVAL;
	nl = strchr(point, '\n');
	sep = strstr(point, " - ");
	if (!sep || (nl && sep > nl))
		return -EINVAL;
	fstype = sep + 3;
	opts = field_end(fstype) ? next_field(fstype) : NULL; /* the source */
	opts = opts ? next_field(opts) : NULL;
	if (!opts)
		return -EINVAL;
	v2 = field_eq(fstype, field_end(fstype), "cgroup2");
	v1 = field_eq(fstype, field_end(fstype), "cgroup");
	blkio = v1 && option_listed(opts, field_end(opts), "blkio");
	v1 = v1 && option_listed(opts, field_end(opts), "memory");
	if (!v1 && !v2 && !blkio)
		return 0;
	/* a mount point too long for a cgroup path under it (CGROUP_MOUNT_MAX) is no use: skipped */
	if (!mount_point(point, field_end(point), mnt, CGROUP_MOUNT_MAX))
		return 0;
	whole = field_eq(root, field_end(root), "/");
	if (v2)
		take_mount(w->m.v2, &w->v2_whole, mnt, whole);
	if (v1)
		take_mount(w->m.v1_memory, &w->v1_whole, mnt, whole);
	if (blkio)
		take_mount(w->m.v1_blkio, &w->blkio_whole, mnt, whole);
	return 0;
}

int parse_mountinfo_buf(const char *buf, struct cgroup_mounts *ret_mounts)
{
	struct mountinfo_walk w = {0};

	for (const char *line = buf; line && *line; line = next_line(line)) {
		int r = mountinfo_line(line, &w);

		if (r < 0)
			return r;
	}
	*ret_mounts = w.m;
	return 0;
}

static bool mountinfo_line_cb(char *text, void *ctx)
{
	struct mountinfo_walk *w = ctx;

	/* A line the buffer cut (kilobytes of overlay options) is no cgroup mount: skipped. */
	if (!*text || strlen(text) >= w->line_max)
		return true;
	w->err = mountinfo_line(text, w);
	return w->err == 0;
}

/*
 * v1 and v2 memory.stat: each key once (memory_stat_format() prints each once: a repeat is
 * rejected). Sizes (KV_GAUGE) below zero read as 0: 3.10-era kernels printed per-cpu sums
 * caught below zero as 2^64 - x, newer ones clamp them at 0 themselves. Event counters never
 * go below zero: a wrapped one is -ERANGE, no round is judged on it.
 */
#define V1(f) offsetof(struct memcg_v1_stat, f)
static const struct kv_field v1_local_fields[] = {
    {"cache", V1(cache_bytes), KV_GAUGE},
    {"rss", V1(rss_bytes), KV_GAUGE},
    {"shmem", V1(shmem_bytes), KV_GAUGE},
    {"inactive_file", V1(inactive_file_bytes), KV_GAUGE},
    {"active_file", V1(active_file_bytes), KV_GAUGE},
    {"inactive_anon", V1(inactive_anon_bytes), KV_GAUGE},
    {"active_anon", V1(active_anon_bytes), KV_GAUGE},
    {"workingset_refault_file", V1(workingset_refault_file), 0},
    {"workingset_refault", V1(workingset_refault_file), 0},
    {"workingset_refault_anon", V1(workingset_refault_anon), 0},
    {"pgpgin", V1(pgpgin), 0},
    {"pgpgout", V1(pgpgout), 0},
    {"pgmajfault", V1(pgmajfault), 0},
    {"dirty", V1(dirty_bytes), KV_GAUGE},
    {"writeback", V1(writeback_bytes), KV_GAUGE},
};
static const struct kv_field v1_total_fields[] = {
    {"total_cache", V1(cache_bytes), KV_GAUGE},
    {"total_rss", V1(rss_bytes), KV_GAUGE},
    {"total_shmem", V1(shmem_bytes), KV_GAUGE},
    {"total_inactive_file", V1(inactive_file_bytes), KV_GAUGE},
    {"total_active_file", V1(active_file_bytes), KV_GAUGE},
    {"total_inactive_anon", V1(inactive_anon_bytes), KV_GAUGE},
    {"total_active_anon", V1(active_anon_bytes), KV_GAUGE},
    {"total_workingset_refault_file", V1(workingset_refault_file), 0},
    {"total_workingset_refault", V1(workingset_refault_file), 0},
    {"total_workingset_refault_anon", V1(workingset_refault_anon), 0},
    {"total_pgpgin", V1(pgpgin), 0},
    {"total_pgpgout", V1(pgpgout), 0},
    {"total_pgmajfault", V1(pgmajfault), 0},
    {"total_dirty", V1(dirty_bytes), KV_GAUGE},
    {"total_writeback", V1(writeback_bytes), KV_GAUGE},
};
#undef V1

/*
 * Return: 0, -EINVAL on malformed input or a repeated key, -ERANGE for a wrapped counter,
 * -ENODATA without the LRU counters.
 */
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

/* Each key once (a repeat is rejected); flags and a counter: a wrapped value is -ERANGE. */
#define OC(f) offsetof(struct memcg_v1_oom_control, f)
static const struct kv_field oom_control_fields[] = {
    {"oom_kill_disable", OC(oom_kill_disable), 0},
    {"under_oom", OC(under_oom), 0},
    {"oom_kill", OC(oom_kill), 0},
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
    {"anon", V2(anon_bytes), KV_GAUGE},
    {"file", V2(file_bytes), KV_GAUGE},
    {"inactive_file", V2(inactive_file_bytes), KV_GAUGE},
    {"active_file", V2(active_file_bytes), KV_GAUGE},
    {"inactive_anon", V2(inactive_anon_bytes), KV_GAUGE},
    {"active_anon", V2(active_anon_bytes), KV_GAUGE},
    {"file_dirty", V2(file_dirty_bytes), KV_GAUGE},
    {"file_writeback", V2(file_writeback_bytes), KV_GAUGE},
    {"pgscan", V2(pgscan), 0},
    {"pgsteal", V2(pgsteal), 0},
    {"pgmajfault", V2(pgmajfault), 0},
    {"workingset_refault_file", V2(workingset_refault_file), 0},
    {"workingset_refault", V2(workingset_refault_file), 0},
    {"workingset_refault_anon", V2(workingset_refault_anon), 0},
};
#define V2_PGSTEAL V2(pgsteal)

int parse_memcg_v2_stat_buf(const char *buf, struct memcg_v2_stat *ret_stat)
{
	const size_t nr = sizeof(v2_stat_fields) / sizeof(v2_stat_fields[0]);
	struct memcg_v2_stat s;
	uint64_t seen = 0;
	int n = parse_kv_buf_mask(buf, v2_stat_fields, nr, &s, &seen);

	if (n < 0)
		return n;
	if (n < 4)
		return -ENODATA;
	s.has_pgsteal = false;
	for (size_t i = 0; i < nr; i++)
		if (v2_stat_fields[i].offset == V2_PGSTEAL && (seen & (1ull << i)))
			s.has_pgsteal = true;
	*ret_stat = s;
	return 0;
}
#undef V2_PGSTEAL
#undef V2

/* Each key once (a repeat is rejected); event counters: a wrapped one is -ERANGE. */
#define EV(f) offsetof(struct memcg_v2_events, f)
static const struct kv_field v2_events_fields[] = {
    {"low", EV(low), 0}, {"high", EV(high), 0},         {"max", EV(max), 0},
    {"oom", EV(oom), 0}, {"oom_kill", EV(oom_kill), 0}, {"oom_group_kill", EV(oom_group_kill), 0},
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

static const struct kv_field cpu_usage_fields[] = {
    {"usage_usec", offsetof(struct cgroup_cpu_usage, usage_usec), 0},
};

int parse_cgroup_cpu_usage_buf(const char *buf, struct cgroup_cpu_usage *ret_usage)
{
	struct cgroup_cpu_usage u = {0};
	int n = parse_kv_buf(buf, cpu_usage_fields, 1, &u);

	if (n < 0)
		return n;
	if (n < 1)
		return -ENODATA;
	*ret_usage = u;
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
	} else if (v >= KV_WRAPPED_MIN && v != UINT64_MAX) {
		return -ERANGE; /* page counters stop at PAGE_COUNTER_MAX, below 2^63 bytes */
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
	/* Read line by line: a container host's table runs to hundreds of KiB. */
	struct mountinfo_walk w = {.line_max = size - 1};
	ssize_t n = sys_read_lines(root, "/proc/self/mountinfo", buf, size, mountinfo_line_cb, &w);

	if (n < 0)
		return (int)n;
	if (w.err < 0)
		return w.err;
	*ret_mounts = w.m;
	return 0;
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

/* "MAJ:MIN" at @p, followed by a space: the rest of the line after it, or NULL. */
static const char *device_field(const char *p)
{
	const char *q = p;

	while (*q >= '0' && *q <= '9')
		q++;
	if (q == p || *q++ != ':')
		return NULL;
	p = q;
	while (*q >= '0' && *q <= '9')
		q++;
	return q > p && *q == ' ' ? q + 1 : NULL;
}

/* The decimal at @p, ending at a space, a newline or the end: 0 or -EINVAL / -ERANGE. */
static int add_decimal(const char *p, uint64_t *sum)
{
	uint64_t v = 0;
	const char *q = p;

	for (; *q >= '0' && *q <= '9'; q++) {
		if (v > (UINT64_MAX - (uint64_t)(*q - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*q - '0');
	}
	if (q == p || (*q && *q != ' ' && *q != '\n'))
		return -EINVAL;
	if (*sum > UINT64_MAX - v)
		return -ERANGE;
	*sum += v;
	return 0;
}

int parse_blkio_io_bytes_buf(const char *buf, struct io_bytes *ret_io)
{
	struct io_bytes io = {0, 0};

	for (const char *line = buf; line && *line; line = next_line(line)) {
		const char *p = device_field(line);
		int r = 0;

		if (!p) {
			if (!strncmp(line, "Total ", 6)) /* the last line: all devices, all ops */
				continue;
			return -EINVAL;
		}
		if (!strncmp(p, "Read ", 5))
			r = add_decimal(p + 5, &io.read);
		else if (!strncmp(p, "Write ", 6))
			r = add_decimal(p + 6, &io.written);
		if (r < 0)
			return r;
	}
	*ret_io = io;
	return 0;
}

int parse_io_stat_bytes_buf(const char *buf, struct io_bytes *ret_io)
{
	struct io_bytes io = {0, 0};

	for (const char *line = buf; line && *line; line = next_line(line)) {
		const char *p = device_field(line), *w;
		int r;

		/* rbytes and wbytes are the first two keys (blkcg_print_one_stat()) */
		if (!p || strncmp(p, "rbytes=", 7))
			return -EINVAL;
		w = strchr(p, ' ');
		if (!w || strncmp(w + 1, "wbytes=", 7))
			return -EINVAL;
		r = add_decimal(p + 7, &io.read);
		if (r < 0)
			return r;
		r = add_decimal(w + 8, &io.written);
		if (r < 0)
			return r;
	}
	*ret_io = io;
	return 0;
}

int read_cgroup_u64(const char *dir, const char *file, uint64_t *ret_value)
{
	char buf[64];
	ssize_t n = read_in(dir, file, buf, sizeof(buf));

	return n < 0 ? (int)n : parse_u64_file_buf(buf, ret_value);
}

int read_cgroup_xattr_bool(const char *path, const char *name)
{
	static const char *const yes[] = {"1", "yes", "y", "true", "t", "on"};
	char v[8];
	ssize_t n = sys->getxattr(path, name, v, sizeof(v) - 1);

	if (n == -ENODATA || n == -ENOTSUP || n == -EOPNOTSUPP || n == -ERANGE || n == 0)
		return 0; /* unset, a filesystem without them, a value too long to be a boolean */
	if (n < 0)
		return (int)n;
	v[n] = '\0';
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!strcasecmp(v, yes[i]))
			return 1;
	return 0;
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
