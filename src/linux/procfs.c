// SPDX-License-Identifier: GPL-2.0-only
/* /proc parsers and readers. Parsers never read files; readers never parse by hand: each is
 * sys_read_file() into a caller's scratch buffer, then the parser. No allocation anywhere. */
#include "linux/procfs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "linux/parse.h"
#include "linux/sys.h"

static int zone_type_of(const char *name)
{
	if (!strcmp(name, "DMA"))
		return ZONE_DMA;
	if (!strcmp(name, "DMA32"))
		return ZONE_DMA32;
	if (!strcmp(name, "Normal"))
		return ZONE_NORMAL;
	return -1;
}

/* "Node 0, zone   Normal": writes node and name; the pointer after the name. NULL if not. */
static const char *parse_zone_header(const char *p, int *ret_node, char *ret_name, size_t size)
{
	uint64_t node;
	size_t len = 0;

	if (strncmp(p, "Node", 4))
		return NULL;
	p += 4;
	if (parse_u64(&p, &node) < 0 || node > 1024 || *p != ',')
		return NULL;
	p = skip_blanks(p + 1);
	if (strncmp(p, "zone", 4))
		return NULL;
	p = skip_blanks(p + 4);
	while (p[len] && p[len] != ' ' && p[len] != '\t' && p[len] != '\n') {
		if (len + 1 >= size)
			return NULL;
		ret_name[len] = p[len];
		len++;
	}
	if (!len)
		return NULL;
	ret_name[len] = '\0';
	*ret_node = (int)node;
	return p + len;
}

/* The value after "key" (no colon: "high:" in pagesets is another thing). -ENOENT if not key. */
static int zone_key(const char *p, const char *key, uint64_t *ret_value)
{
	size_t len = strlen(key);

	if (strncmp(p, key, len) || (p[len] != ' ' && p[len] != '\t'))
		return -ENOENT;
	p += len;
	return parse_u64(&p, ret_value);
}

static int parse_protection(const char *p, struct proc_zone *z)
{
	p = skip_blanks(p + strlen("protection:"));
	if (*p++ != '(')
		return -EINVAL;
	z->nr_protection = 0;
	for (;;) {
		uint64_t v;

		if (parse_u64(&p, &v) < 0)
			return -EINVAL;
		if (z->nr_protection < PROC_MAX_PROTECTION)
			z->protection[z->nr_protection++] = v;
		p = skip_blanks(p);
		if (*p == ')')
			return 0;
		if (*p++ != ',')
			return -EINVAL;
	}
}

struct zone_key_map {
	const char *key;
	size_t offset;
	bool zone_level_only; /* old per-zone LRU keys: ignore inside "per-node stats" */
};

static const struct zone_key_map zone_keys[] = {
    {"pages free", offsetof(struct proc_zone, free_pages), false},
    {"min", offsetof(struct proc_zone, min_pages), false},
    {"low", offsetof(struct proc_zone, low_pages), false},
    {"high", offsetof(struct proc_zone, high_pages), false},
    {"managed", offsetof(struct proc_zone, managed_pages), false},
    {"present", offsetof(struct proc_zone, present_pages), false},
    {"nr_free_cma", offsetof(struct proc_zone, free_cma_pages), false},
    {"nr_zone_inactive_file", offsetof(struct proc_zone, inactive_file), false},
    {"nr_zone_active_file", offsetof(struct proc_zone, active_file), false},
    {"nr_zone_inactive_anon", offsetof(struct proc_zone, inactive_anon), false},
    {"nr_zone_active_anon", offsetof(struct proc_zone, active_anon), false},
    {"nr_zone_write_pending", offsetof(struct proc_zone, write_pending), false},
    /* Before 4.8 the LRUs were per zone and had no nr_zone_ prefix. */
    {"nr_inactive_file", offsetof(struct proc_zone, inactive_file), true},
    {"nr_active_file", offsetof(struct proc_zone, active_file), true},
    {"nr_inactive_anon", offsetof(struct proc_zone, inactive_anon), true},
    {"nr_active_anon", offsetof(struct proc_zone, active_anon), true},
    {"nr_dirty", offsetof(struct proc_zone, write_pending), true},
    {"nr_writeback", offsetof(struct proc_zone, write_pending), true},
};

/**
 * parse_zoneinfo_buf() - every zone of /proc/zoneinfo, populated or not, in file order.
 * Understands 4.x (per-zone LRU counters, "scanned") and 4.8+ ("per-node stats" block,
 * nr_zone_* counters) layouts. Values in the per-cpu "pagesets" part are not read.
 * Return: 0, -EINVAL on a malformed header or value, -ENOSPC beyond @max_zones, -ENODATA if
 * no zone has both "pages free" and "managed".
 */
int parse_zoneinfo_buf(const char *buf, struct proc_zone *zones, size_t max_zones,
		       size_t *ret_nr_zones)
{
	struct proc_zone *z = NULL;
	bool in_node_stats = false, in_pagesets = false, has_free = false, complete = false;
	size_t nr = 0;

	for (const char *line = buf; line && *line; line = next_line(line)) {
		const char *p = skip_blanks(line);
		uint64_t v;

		if (!strncmp(p, "Node", 4)) {
			if (nr >= max_zones)
				return -ENOSPC;
			z = &zones[nr++];
			memset(z, 0, sizeof(*z));
			if (!parse_zone_header(p, &z->node, z->name, sizeof(z->name)))
				return -EINVAL;
			z->type = zone_type_of(z->name);
			in_node_stats = in_pagesets = has_free = false;
			continue;
		}
		if (p == line) /* only zone headers start at column 0 */
			return -EINVAL;
		if (!z || in_pagesets)
			continue;
		if (!strncmp(p, "per-node stats", 14)) {
			in_node_stats = true;
			continue;
		}
		if (!strncmp(p, "pagesets", 8)) {
			in_pagesets = true;
			continue;
		}
		if (!strncmp(p, "protection:", 11)) {
			if (parse_protection(p, z) < 0)
				return -EINVAL;
			continue;
		}
		if (!strncmp(p, "pages free", 10))
			in_node_stats = false;
		if (in_node_stats)
			continue;
		for (size_t k = 0; k < sizeof(zone_keys) / sizeof(zone_keys[0]); k++) {
			int r = zone_key(p, zone_keys[k].key, &v);
			uint64_t *dst;

			if (r == -ENOENT)
				continue;
			if (r < 0)
				return -EINVAL;
			dst = (uint64_t *)(void *)((char *)z + zone_keys[k].offset);
			if (zone_keys[k].offset == offsetof(struct proc_zone, write_pending) &&
			    zone_keys[k].zone_level_only)
				*dst += v;
			else
				*dst = v;
			if (k == 0)
				has_free = true;
			if (!strcmp(zone_keys[k].key, "managed") && has_free)
				complete = true;
			break;
		}
	}
	if (!complete)
		return -ENODATA;
	*ret_nr_zones = nr;
	return 0;
}

int parse_buddyinfo_buf(const char *buf, struct proc_zone *zones, size_t nr_zones)
{
	int matched = 0;

	for (const char *line = buf; line && *line; line = next_line(line)) {
		char name[16];
		int node;
		const char *p = parse_zone_header(line, &node, name, sizeof(name));
		struct proc_zone *z = NULL;

		if (!p)
			return -EINVAL;
		for (size_t i = 0; i < nr_zones; i++)
			if (zones[i].node == node && !strcmp(zones[i].name, name))
				z = &zones[i];
		if (!z)
			continue;
		memset(z->nr_free, 0, sizeof(z->nr_free));
		for (unsigned int o = 0;; o++) {
			uint64_t v;

			p = skip_blanks(p);
			if (*p == '\n' || *p == '\0')
				break;
			if (parse_u64(&p, &v) < 0)
				return -EINVAL;
			if (o < MAX_ORDER)
				z->nr_free[o] = v;
		}
		z->has_buddy = true;
		matched++;
	}
	return matched;
}

#define VM(f) offsetof(struct proc_vmstat, f)
static const struct kv_field vmstat_fields[] = {
    {"pgscan_kswapd", VM(pgscan), true},
    {"pgscan_direct", VM(pgscan), true},
    {"pgscan_khugepaged", VM(pgscan), true},
    {"pgsteal_kswapd", VM(pgsteal), true},
    {"pgsteal_direct", VM(pgsteal), true},
    {"pgsteal_khugepaged", VM(pgsteal), true},
    {"allocstall", VM(allocstall), true},
    {"workingset_refault_file", VM(workingset_refault_file), false},
    {"workingset_refault", VM(workingset_refault_file), false},
    {"workingset_refault_anon", VM(workingset_refault_anon), false},
    {"workingset_activate_file", VM(workingset_activate_file), false},
    {"workingset_activate", VM(workingset_activate_file), false},
    {"workingset_restore_file", VM(workingset_restore_file), false},
    {"pgmajfault", VM(pgmajfault), false},
    {"oom_kill", VM(oom_kill), false},
};
#undef VM

/* Return: 0, -EINVAL on malformed input, -ENODATA without pgscan/pgsteal counters. */
int parse_vmstat_buf(const char *buf, struct proc_vmstat *ret_vmstat)
{
	struct proc_vmstat v;
	int n =
	    parse_kv_buf(buf, vmstat_fields, sizeof(vmstat_fields) / sizeof(vmstat_fields[0]), &v);

	if (n < 0)
		return n;
	if (n < 2)
		return -ENODATA;
	*ret_vmstat = v;
	return 0;
}

#define MI(f) offsetof(struct proc_meminfo, f)
static const struct kv_field meminfo_fields[] = {
    {"MemTotal", MI(mem_total_kib), false},         {"MemFree", MI(mem_free_kib), false},
    {"MemAvailable", MI(mem_available_kib), false}, {"SwapTotal", MI(swap_total_kib), false},
    {"SwapFree", MI(swap_free_kib), false},
};
#undef MI

/* Return: 0, -EINVAL on malformed input, -ENODATA without MemTotal and MemFree. */
int parse_meminfo_buf(const char *buf, struct proc_meminfo *ret_meminfo)
{
	struct proc_meminfo m;
	int n = parse_kv_buf(buf, meminfo_fields,
			     sizeof(meminfo_fields) / sizeof(meminfo_fields[0]), &m);

	if (n < 0)
		return n;
	if (!m.mem_total_kib)
		return -ENODATA;
	*ret_meminfo = m;
	return 0;
}

/* "avg10=1.23": hundredths. */
static int parse_avg(const char **p, const char *key, uint64_t *ret_value)
{
	const char *s = skip_blanks(*p);
	uint64_t whole, frac = 0;
	size_t len = strlen(key);

	if (strncmp(s, key, len) || s[len] != '=')
		return -EINVAL;
	s += len + 1;
	if (parse_u64(&s, &whole) < 0)
		return -EINVAL;
	if (*s == '.') {
		const char *f = ++s;

		if (parse_u64(&s, &frac) < 0 || s - f != 2)
			return -EINVAL;
	}
	*p = s;
	*ret_value = whole * 100 + frac;
	return 0;
}

static int parse_psi_line(const char *p, struct psi_line *ret_line)
{
	struct psi_line l;

	if (parse_avg(&p, "avg10", &l.avg10) < 0 || parse_avg(&p, "avg60", &l.avg60) < 0 ||
	    parse_avg(&p, "avg300", &l.avg300) < 0)
		return -EINVAL;
	p = skip_blanks(p);
	if (strncmp(p, "total=", 6))
		return -EINVAL;
	p += 6;
	if (parse_u64(&p, &l.total_usec) < 0)
		return -EINVAL;
	*ret_line = l;
	return 0;
}

/* Return: 0, -EINVAL on malformed input, -ENODATA without a "some" line. */
int parse_psi_buf(const char *buf, struct psi_stats *ret_psi)
{
	struct psi_stats s;
	bool has_some = false;

	memset(&s, 0, sizeof(s));
	for (const char *line = buf; line && *line; line = next_line(line)) {
		if (!strncmp(line, "some ", 5)) {
			if (parse_psi_line(line + 5, &s.some) < 0)
				return -EINVAL;
			has_some = true;
		} else if (!strncmp(line, "full ", 5)) {
			if (parse_psi_line(line + 5, &s.full) < 0)
				return -EINVAL;
			s.has_full = true;
		} else {
			return -EINVAL;
		}
	}
	if (!has_some)
		return -ENODATA;
	*ret_psi = s;
	return 0;
}

/**
 * parse_pid_stat_buf() - /proc/PID/stat. The name may hold spaces and ')': it ends at the
 * last ')'. Return: 0 or -EINVAL.
 */
int parse_pid_stat_buf(const char *buf, struct pid_stat *ret_stat)
{
	struct pid_stat st;
	const char *p = buf, *open, *close;
	uint64_t u;
	int64_t s;
	size_t len;

	memset(&st, 0, sizeof(st));
	if (parse_u64(&p, &u) < 0 || u > INT32_MAX)
		return -EINVAL;
	st.pid = (int)u;
	open = strchr(p, '(');
	close = strrchr(p, ')');
	if (!open || !close || close < open || open != skip_blanks(p))
		return -EINVAL;
	len = (size_t)(close - open - 1);
	if (len >= sizeof(st.comm))
		len = sizeof(st.comm) - 1;
	memcpy(st.comm, open + 1, len);
	p = skip_blanks(close + 1);
	if (!*p || *p == '\n')
		return -EINVAL;
	st.state = *p++;
	/* Fields 4 .. 24; 3 was the state. Some are signed (tty_nr, priority, nice, cutime). */
	for (int field = 4; field <= 24; field++) {
		if (parse_s64(&p, &s) < 0)
			return -EINVAL;
		if (field == 4)
			st.ppid = (int)s;
		else if (field == 9)
			st.flags = (unsigned int)s;
		else if (field == 22)
			st.start_time = (unsigned long long)s;
		else if (field == 24)
			st.rss_pages = s < 0 ? 0 : (uint64_t)s;
	}
	*ret_stat = st;
	return 0;
}

#define ST(f) offsetof(struct pid_status, f)
static const struct kv_field status_fields[] = {
    {"VmRSS", ST(rss_kib), false},
    {"VmSwap", ST(swap_kib), false},
    {"VmPTE", ST(pte_kib), false},
};
#undef ST

/* Return: 0 or -EINVAL. A kernel thread has no Vm* lines: has_vm false, counts 0. */
int parse_pid_status_buf(const char *buf, struct pid_status *ret_status)
{
	struct pid_status st;
	const char *k;
	int n;

	memset(&st, 0, sizeof(st));
	n = parse_kv_buf(buf, status_fields, 3, &st);
	if (n < 0)
		return n;
	if (strncmp(buf, "Name:", 5))
		return -EINVAL;
	st.has_vm = strstr(buf, "\nVmRSS:") != NULL;
	st.kthread = -1;
	k = strstr(buf, "\nKthread:");
	if (k) {
		uint64_t v;

		k += strlen("\nKthread:");
		if (parse_u64(&k, &v) < 0 || v > 1)
			return -EINVAL;
		st.kthread = (int)v;
	}
	*ret_status = st;
	return 0;
}

int parse_oom_score_adj_buf(const char *buf, int *ret_adj)
{
	const char *p = buf;
	int64_t v;

	if (parse_s64(&p, &v) < 0 || v < -1000 || v > 1000)
		return -EINVAL;
	p = skip_blanks(p);
	if (*p && *p != '\n')
		return -EINVAL;
	*ret_adj = (int)v;
	return 0;
}

static bool has_controller(const char *list, size_t len, const char *controller)
{
	size_t clen = strlen(controller);

	for (const char *p = list; p < list + len;) {
		const char *comma = memchr(p, ',', (size_t)(list + len - p));
		size_t wlen = comma ? (size_t)(comma - p) : (size_t)(list + len - p);

		if (wlen == clen && !strncmp(p, controller, clen))
			return true;
		p += wlen + 1;
	}
	return false;
}

int parse_pid_cgroup_buf(const char *buf, const char *controller, char *ret_path, size_t size)
{
	for (const char *line = buf; line && *line; line = next_line(line)) {
		const char *c1 = strchr(line, ':'), *c2, *end;
		size_t len;

		if (!c1)
			return -EINVAL;
		c2 = strchr(c1 + 1, ':');
		if (!c2)
			return -EINVAL;
		end = strchr(c2, '\n');
		if (!end)
			end = c2 + strlen(c2);
		if (controller ? !has_controller(c1 + 1, (size_t)(c2 - c1 - 1), controller)
			       : (c2 != c1 + 1 || strncmp(line, "0:", 2)))
			continue;
		len = (size_t)(end - c2 - 1);
		if (len == 0 || c2[1] != '/')
			return -EINVAL;
		if (len >= size)
			return -ENAMETOOLONG;
		memcpy(ret_path, c2 + 1, len);
		ret_path[len] = '\0';
		return 0;
	}
	return -ENOENT;
}

int read_zoneinfo(const char *root, char *buf, size_t size, struct proc_zone *zones,
		  size_t max_zones, size_t *ret_nr_zones)
{
	ssize_t n = sys_read_file(root, "/proc/zoneinfo", buf, size);
	size_t nr;
	int r;

	if (n < 0)
		return (int)n;
	r = parse_zoneinfo_buf(buf, zones, max_zones, &nr);
	if (r < 0)
		return r;
	n = sys_read_file(root, "/proc/buddyinfo", buf, size);
	if (n < 0)
		return (int)n;
	r = parse_buddyinfo_buf(buf, zones, nr);
	if (r < 0)
		return r;
	*ret_nr_zones = nr;
	return 0;
}

int read_vmstat(const char *root, char *buf, size_t size, struct proc_vmstat *ret_vmstat)
{
	ssize_t n = sys_read_file(root, "/proc/vmstat", buf, size);

	return n < 0 ? (int)n : parse_vmstat_buf(buf, ret_vmstat);
}

int read_meminfo(const char *root, char *buf, size_t size, struct proc_meminfo *ret_meminfo)
{
	ssize_t n = sys_read_file(root, "/proc/meminfo", buf, size);

	return n < 0 ? (int)n : parse_meminfo_buf(buf, ret_meminfo);
}

int read_psi(const char *root, const char *path, char *buf, size_t size, struct psi_stats *ret_psi)
{
	ssize_t n = sys_read_file(root, path, buf, size);

	return n < 0 ? (int)n : parse_psi_buf(buf, ret_psi);
}

static int pid_path(char *out, size_t size, pid_t pid, const char *file)
{
	int n = snprintf(out, size, "/proc/%d/%s", (int)pid, file);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int read_pid_stat(const char *root, pid_t pid, char *buf, size_t size, struct pid_stat *ret_stat)
{
	char path[64];
	ssize_t n;

	if (pid_path(path, sizeof(path), pid, "stat") < 0)
		return -ENAMETOOLONG;
	n = sys_read_file(root, path, buf, size);
	return n < 0 ? (int)n : parse_pid_stat_buf(buf, ret_stat);
}

int read_pid_status(const char *root, pid_t pid, char *buf, size_t size,
		    struct pid_status *ret_status)
{
	char path[64];
	ssize_t n;

	if (pid_path(path, sizeof(path), pid, "status") < 0)
		return -ENAMETOOLONG;
	n = sys_read_file(root, path, buf, size);
	return n < 0 ? (int)n : parse_pid_status_buf(buf, ret_status);
}

int read_pid_oom_score_adj(const char *root, pid_t pid, int *ret_adj)
{
	char path[64], buf[32];
	ssize_t n;

	if (pid_path(path, sizeof(path), pid, "oom_score_adj") < 0)
		return -ENAMETOOLONG;
	n = sys_read_file(root, path, buf, sizeof(buf));
	return n < 0 ? (int)n : parse_oom_score_adj_buf(buf, ret_adj);
}

int read_pid_cgroup(const char *root, pid_t pid, const char *controller, char *buf, size_t size,
		    char *ret_path, size_t path_size)
{
	char path[64];
	ssize_t n;

	if (pid_path(path, sizeof(path), pid, "cgroup") < 0)
		return -ENAMETOOLONG;
	n = sys_read_file(root, path, buf, size);
	return n < 0 ? (int)n : parse_pid_cgroup_buf(buf, controller, ret_path, path_size);
}
