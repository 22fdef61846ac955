// SPDX-License-Identifier: GPL-2.0-only
/* /proc parsers and readers. Parsers never read files; readers never parse by hand: each is
 * sys_read_file() into a caller's scratch buffer, then the parser. No allocation anywhere. */
#include "linux/procfs.h"

#include <ctype.h>
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

/* A size past PROC_MEMINFO_MAX_KIB is a negative one printed unsigned: none. */
static uint64_t meminfo_size(uint64_t kib)
{
	return kib > PROC_MEMINFO_MAX_KIB ? 0 : kib;
}

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
	m.mem_free_kib = meminfo_size(m.mem_free_kib);
	m.mem_available_kib = meminfo_size(m.mem_available_kib);
	m.swap_total_kib = meminfo_size(m.swap_total_kib);
	m.swap_free_kib = meminfo_size(m.swap_free_kib);
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

/* A signed field of /proc/PID/stat, ended by a blank or the end of the line ("1-2" is not 1). */
static int stat_field(const char **p, int64_t *ret_value)
{
	if (parse_s64(p, ret_value) < 0)
		return -EINVAL;
	return **p == ' ' || **p == '\n' || **p == '\0' ? 0 : -EINVAL;
}

/**
 * parse_pid_stat_buf() - /proc/PID/stat. The name may hold spaces and ')': it ends at the
 * last ')'. Return: 0, or -EINVAL (also for a pid, ppid, flags or start time out of range:
 * the kernel prints them unsigned or as pid_t).
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
		if (stat_field(&p, &s) < 0)
			return -EINVAL;
		if (field == 4) {
			if (s < 0 || s > INT32_MAX)
				return -EINVAL;
			st.ppid = (int)s;
		} else if (field == 9) {
			if (s < 0 || s > UINT32_MAX)
				return -EINVAL;
			st.flags = (unsigned int)s;
		} else if (field == 20) {
			if (s < 0 || s > INT32_MAX)
				return -EINVAL;
			st.num_threads = (int)s;
		} else if (field == 22) {
			if (s < 0)
				return -EINVAL;
			st.start_time = (unsigned long long)s;
		} else if (field == 24) {
			st.rss_pages = s < 0 ? 0 : (uint64_t)s; /* get_mm_rss() is signed */
		}
	}
	/* Fields 25 .. 31, unsigned (rsslim is often 2^64 - 1), to the pending signals: optional,
	 * a line cut after the rss is whole for what came before. */
	for (int field = 25; field <= 31 && !at_line_end(p); field++) {
		if (parse_u64(&p, &u) < 0 || (*p != ' ' && !at_line_end(p)))
			return -EINVAL;
		if (field == 31)
			st.signal = u;
	}
	*ret_stat = st;
	return 0;
}

bool pid_stat_dying(const struct pid_stat *st)
{
	if (st->state == 'Z' || st->state == 'X')
		return false;
	if (st->signal & SIGKILL_PENDING_BIT)
		return true;
	return (st->flags & PF_EXITING_FLAG) &&
	       ((st->flags & PF_SIGNALED_FLAG) || st->num_threads == 1);
}

/* Each key once (a repeat is rejected); sizes in KiB: a wrapped one reads as 0. */
struct pid_status_values {
	uint64_t rss_kib, anon_kib, swap_kib, pte_kib, kthread;
};

enum status_key { ST_RSS, ST_ANON, ST_SWAP, ST_PTE, ST_KTHREAD, NR_STATUS_KEYS };

#define ST(f) offsetof(struct pid_status_values, f)
static const struct kv_field status_fields[] = {
    [ST_RSS] = {"VmRSS", ST(rss_kib), KV_GAUGE},
    [ST_ANON] = {"RssAnon", ST(anon_kib), KV_GAUGE},
    [ST_SWAP] = {"VmSwap", ST(swap_kib), KV_GAUGE},
    [ST_PTE] = {"VmPTE", ST(pte_kib), KV_GAUGE},
    [ST_KTHREAD] = {"Kthread", ST(kthread), 0},
};
#undef ST

/*
 * A signal mask line of /proc/PID/status ("SigPnd:\t0000000000000100"): hex digits, the low 64
 * bits kept (an architecture with 128 signals prints 32 digits). Return: 1 and *@ret_mask when
 * the line is there, 0 when it is not, -EINVAL when it is malformed or repeated.
 */
static int status_mask(const char *buf, const char *key, uint64_t *ret_mask)
{
	size_t len = strlen(key);
	int found = 0;

	for (const char *line = buf; line && *line; line = next_line(line)) {
		const char *p;
		uint64_t v = 0;
		int digits = 0;

		if (strncmp(line, key, len) || line[len] != ':')
			continue;
		if (found++)
			return -EINVAL;
		for (p = skip_blanks(line + len + 1); isxdigit((unsigned char)*p); p++, digits++)
			v = v << 4 |
			    (uint64_t)(isdigit((unsigned char)*p) ? *p - '0'
								  : (*p | 0x20) - 'a' + 10);
		if (!digits || !at_line_end(p))
			return -EINVAL;
		*ret_mask = v;
	}
	return found;
}

/*
 * Return: 0 or -EINVAL (also for a repeated key, a Kthread other than 0/1 or a malformed signal
 * mask). A kernel thread has no Vm* lines: has_vm false, counts 0.
 */
int parse_pid_status_buf(const char *buf, struct pid_status *ret_status)
{
	struct pid_status_values v;
	struct pid_status st;
	uint64_t seen, pnd = 0, shd = 0;
	int n;

	if (strncmp(buf, "Name:", 5))
		return -EINVAL;
	n = parse_kv_buf_mask(buf, status_fields, NR_STATUS_KEYS, &v, &seen);
	if (n < 0)
		return n == -ERANGE ? -EINVAL : n;
	if (v.kthread > 1)
		return -EINVAL;
	if (status_mask(buf, "SigPnd", &pnd) < 0 || status_mask(buf, "ShdPnd", &shd) < 0)
		return -EINVAL;
	memset(&st, 0, sizeof(st));
	st.sigkill_pending = (pnd | shd) & SIGKILL_PENDING_BIT;
	st.rss_kib = meminfo_size(v.rss_kib);
	st.anon_kib = meminfo_size(v.anon_kib);
	st.swap_kib = meminfo_size(v.swap_kib);
	st.pte_kib = meminfo_size(v.pte_kib);
	st.has_vm = seen & (1u << ST_RSS);
	st.kthread = seen & (1u << ST_KTHREAD) ? (int)v.kthread : -1;
	*ret_status = st;
	return 0;
}

int parse_pid_status_uid_buf(const char *buf, uint32_t *ret_uid)
{
	const char *line;
	int64_t v;

	if (strncmp(buf, "Name:", 5))
		return -EINVAL;
	for (line = buf; line && *line; line = next_line(line)) {
		const char *p = line + 4;

		if (strncmp(line, "Uid:", 4))
			continue;
		p = skip_blanks(p);
		/* Real, effective, saved, filesystem: the real one is who started it. */
		if (parse_s64(&p, &v) < 0 || v < 0 || v >= UINT32_MAX || (*p != '\t' && *p != ' '))
			return -EINVAL;
		*ret_uid = (uint32_t)v;
		return 0;
	}
	return -ENOENT;
}

int parse_oom_score_adj_buf(const char *buf, int *ret_adj)
{
	const char *p = buf;
	int64_t v;

	if (parse_s64(&p, &v) < 0 || v < -1000 || v > 1000)
		return -EINVAL;
	if (!at_line_end(p))
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
	/* Each hierarchy is listed once (proc_cgroup_show()): the first match is the one. */
	for (const char *line = buf; line && *line; line = next_line(line)) {
		const char *end = strchr(line, '\n'), *c1, *c2;
		size_t len;

		if (!end)
			end = line + strlen(line);
		c1 = memchr(line, ':', (size_t)(end - line));
		c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
		if (!c2) /* "ID:controllers:path", both colons on this line */
			return -EINVAL;
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

int read_task_status(const char *root, pid_t pid, pid_t tid, char *buf, size_t size,
		     struct pid_status *ret_status)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	n = sys_read_file(root, path, buf, size);
	return n < 0 ? (int)n : parse_pid_status_buf(buf, ret_status);
}

int read_pid_live_thread(const char *root, pid_t pid, char *buf, size_t size, pid_t *ret_tid,
			 struct pid_stat *ret_stat)
{
	char dents[1024], path[64];
	int fd, r = -ESRCH;
	long n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	fd = sys_open_path(root, path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd;
	while (r == -ESRCH && (n = sys->getdents64(fd, dents, sizeof(dents))) > 0) {
		for (long off = 0; off < n && r == -ESRCH;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(void *)(dents + off);
			const char *p = d->d_name;
			struct pid_stat st;
			uint64_t tid;

			off += d->d_reclen;
			if (parse_u64(&p, &tid) < 0 || *p || tid == (uint64_t)pid ||
			    tid > INT32_MAX)
				continue;
			snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
			if (sys_read_file(root, path, buf, size) < 0 ||
			    parse_pid_stat_buf(buf, &st) < 0 || st.state == 'Z' || st.state == 'X')
				continue; /* exited since the listing, or exiting: the next one */
			*ret_tid = (pid_t)tid;
			*ret_stat = st;
			r = 0;
		}
	}
	sys->close(fd);
	return r == 0 || n >= 0 ? r : (int)n;
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
