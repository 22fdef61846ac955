// SPDX-License-Identifier: GPL-2.0-only
/* /proc parsers and readers. Parsers never read files; readers never parse by hand: each is
 * sys_read_file() into a caller's scratch buffer, then the parser. No allocation anywhere. */
#include "linux/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "linux/parse.h"
#include "linux/sys.h"

/*
 * Each key once (parse_kv_buf() rejects a repeat); counters: a wrapped one is -ERANGE.
 * KV_PREFIX adds 4.4's per-zone keys (pgscan_kswapd_normal), not pgscan_direct_throttle.
 */
#define VM(f) offsetof(struct proc_vmstat, f)
static const struct kv_field vmstat_fields[] = {
    {"pgscan_kswapd", VM(pgscan), KV_PREFIX},
    {"pgscan_direct", VM(pgscan), KV_PREFIX},
    {"pgscan_khugepaged", VM(pgscan), KV_PREFIX},
    {"pgsteal_kswapd", VM(pgsteal), KV_PREFIX},
    {"pgsteal_direct", VM(pgsteal), KV_PREFIX},
    {"pgsteal_khugepaged", VM(pgsteal), KV_PREFIX},
    {"allocstall", VM(allocstall), KV_PREFIX},
    {"workingset_refault_file", VM(workingset_refault_file), 0},
    {"workingset_refault", VM(workingset_refault_file), 0},
    {"workingset_refault_anon", VM(workingset_refault_anon), 0},
    {"workingset_activate_file", VM(workingset_activate_file), 0},
    {"workingset_activate", VM(workingset_activate_file), 0},
    {"workingset_restore_file", VM(workingset_restore_file), 0},
    {"pgmajfault", VM(pgmajfault), 0},
    {"pgpgin", VM(pgpgin_kib), 0},
    {"oom_kill", VM(oom_kill), 0},
    {"nr_dirtied", VM(nr_dirtied), 0},
};
#undef VM

/*
 * Return: 0, -EINVAL on malformed input or a repeated key, -ERANGE for a wrapped counter
 * (all_vm_events() and node_page_state() never go below zero: not the kernel's file),
 * -ENODATA without pgscan/pgsteal counters.
 */
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

/* Each key once: a repeat is rejected (meminfo_proc_show() prints each once). */
enum meminfo_key { MI_TOTAL, MI_FREE, MI_AVAILABLE, MI_SWAP_TOTAL, MI_SWAP_FREE };

#define MI(f) offsetof(struct proc_meminfo, f)
static const struct kv_field meminfo_fields[] = {
    [MI_TOTAL] = {"MemTotal", MI(mem_total_kib), 0},
    [MI_FREE] = {"MemFree", MI(mem_free_kib), KV_GAUGE},
    [MI_AVAILABLE] = {"MemAvailable", MI(mem_available_kib), KV_GAUGE},
    [MI_SWAP_TOTAL] = {"SwapTotal", MI(swap_total_kib), KV_GAUGE},
    [MI_SWAP_FREE] = {"SwapFree", MI(swap_free_kib), KV_GAUGE},
};
#undef MI

/**
 * parse_meminfo_buf() - MemTotal, MemFree, MemAvailable, SwapTotal and SwapFree, made
 * consistent: a wrapped size (lxcfs' SwapFree near 2^64) reads as 0; MemFree and MemAvailable
 * are clamped to MemTotal and SwapFree to SwapTotal (lxcfs has printed MemAvailable above
 * MemTotal); without MemAvailable (before 3.14) it is MemFree, what is surely available.
 * Return: 0, -EINVAL on malformed input or a repeated key, -ERANGE for a MemTotal past
 * PROC_MEMINFO_MAX_KIB, -ENODATA without MemTotal (or with 0) or MemFree.
 */
int parse_meminfo_buf(const char *buf, struct proc_meminfo *ret_meminfo)
{
	struct proc_meminfo m;
	uint64_t seen;
	int n = parse_kv_buf_mask(buf, meminfo_fields,
				  sizeof(meminfo_fields) / sizeof(meminfo_fields[0]), &m, &seen);

	if (n < 0)
		return n;
	if (!(seen & (1u << MI_FREE)) || !m.mem_total_kib)
		return -ENODATA;
	if (m.mem_total_kib > PROC_MEMINFO_MAX_KIB)
		return -ERANGE;
	m.mem_free_kib = proc_size_kib(m.mem_free_kib);
	m.mem_available_kib = proc_size_kib(m.mem_available_kib);
	m.swap_total_kib = proc_size_kib(m.swap_total_kib);
	m.swap_free_kib = proc_size_kib(m.swap_free_kib);
	if (m.mem_free_kib > m.mem_total_kib)
		m.mem_free_kib = m.mem_total_kib;
	if (!(seen & (1u << MI_AVAILABLE)))
		m.mem_available_kib = m.mem_free_kib;
	if (m.mem_available_kib > m.mem_total_kib)
		m.mem_available_kib = m.mem_total_kib;
	if (m.swap_free_kib > m.swap_total_kib)
		m.swap_free_kib = m.swap_total_kib;
	*ret_meminfo = m;
	return 0;
}

/* "avg10=1.23": hundredths, at most 100.00 (psi.c clamps each sample to its period). */
static int parse_avg(const char **p, const char *key, uint64_t *ret_value)
{
	const char *s = skip_blanks(*p);
	uint64_t whole, frac = 0;
	size_t len = strlen(key);

	if (strncmp(s, key, len) || s[len] != '=')
		return -EINVAL;
	s += len + 1;
	if (parse_u64(&s, &whole) < 0 || whole > 100)
		return -EINVAL;
	if (*s == '.') {
		const char *f = ++s;

		if (parse_u64(&s, &frac) < 0 || s - f != 2)
			return -EINVAL;
	}
	if (whole * 100 + frac > PSI_AVG_MAX)
		return -EINVAL;
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
	if (parse_u64(&p, &l.total_usec) < 0 || !at_line_end(p))
		return -EINVAL;
	if (l.total_usec >= KV_WRAPPED_MIN) /* 292 000 years of stall */
		return -ERANGE;
	*ret_line = l;
	return 0;
}

/*
 * Return: 0, -EINVAL on malformed input or a line listed twice (psi_show() prints "some" and
 * "full" once each), -ERANGE for a wrapped total, -ENODATA without a "some" line.
 */
int parse_psi_buf(const char *buf, struct psi_stats *ret_psi)
{
	struct psi_stats s;
	bool has_some = false;

	memset(&s, 0, sizeof(s));
	for (const char *line = buf; line && *line; line = next_line(line)) {
		bool some = !strncmp(line, "some ", 5);
		int r;

		if (!some && strncmp(line, "full ", 5))
			return -EINVAL;
		if (some ? has_some : s.has_full)
			return -EINVAL;
		r = parse_psi_line(line + 5, some ? &s.some : &s.full);
		if (r < 0)
			return r;
		if (some)
			has_some = true;
		else
			s.has_full = true;
	}
	if (!has_some)
		return -ENODATA;
	*ret_psi = s;
	return 0;
}

/* /proc/stat's idle field (the fourth), and the most fields the "cpu" line has (6.x: 10). */
#define CPU_IDLE_FIELD	3
#define CPU_IOWAIT_FIELD 4
#define CPU_MAX_FIELDS	10
#define CPU_GUEST_FIELD 8 /* guest and guest_nice: counted in user and nice already */

int parse_cpu_ticks_buf(const char *buf, struct cpu_ticks *ret_ticks)
{
	struct cpu_ticks t = {0, 0, 0};
	const char *p = buf;
	int n = 0;

	if (strncmp(p, "cpu ", 4))
		return -EINVAL;
	for (p += 4; !at_line_end(p); n++) {
		uint64_t v;

		if (n == CPU_MAX_FIELDS || parse_u64(&p, &v) < 0 || (*p != ' ' && !at_line_end(p)))
			return -EINVAL;
		if (n >= CPU_GUEST_FIELD)
			continue;
		if (n == CPU_IOWAIT_FIELD)
			t.iowait = v;
		if (__builtin_add_overflow(t.total, v, &t.total) ||
		    (n != CPU_IDLE_FIELD && __builtin_add_overflow(t.busy, v, &t.busy)))
			return -ERANGE;
	}
	if (n <= CPU_IDLE_FIELD)
		return -EINVAL;
	if (t.total >= KV_WRAPPED_MIN)
		return -ERANGE;
	*ret_ticks = t;
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

int read_max_readahead_kb(const char *root, char *buf, size_t size, uint64_t *ret_kb)
{
	char dents[2048], path[128];
	int fd = sys_open_path(root, "/sys/block", O_RDONLY | O_DIRECTORY);
	long n;

	*ret_kb = 0;
	if (fd < 0)
		return fd;
	while ((n = sys->getdents64(fd, dents, sizeof(dents))) > 0) {
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(void *)(dents + off);
			const char *p = buf;
			uint64_t kb;

			off += d->d_reclen;
			if (d->d_name[0] == '.' ||
			    snprintf(path, sizeof(path), "/sys/block/%s/queue/read_ahead_kb",
				     d->d_name) >= (int)sizeof(path))
				continue;
			if (sys_read_file(root, path, buf, size) < 0 || parse_u64(&p, &kb) < 0)
				continue; /* a disk without a queue (or gone): no window */
			if (kb > *ret_kb)
				*ret_kb = kb;
		}
	}
	sys->close(fd);
	return n < 0 ? (int)n : 0;
}
