// SPDX-License-Identifier: GPL-2.0-only
/* The files of one process, /proc/PID/...: parsers (pure functions of their buffers) and
 * readers (sys_read_file() into a caller's scratch buffer, then the parser). No allocation. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "linux/parse.h"
#include "linux/procfs.h"
#include "linux/sys.h"

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
    [ST_RSS] = {"VmRSS", ST(rss_kib), KV_GAUGE},    [ST_ANON] = {"RssAnon", ST(anon_kib), KV_GAUGE},
    [ST_SWAP] = {"VmSwap", ST(swap_kib), KV_GAUGE}, [ST_PTE] = {"VmPTE", ST(pte_kib), KV_GAUGE},
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
	st.rss_kib = proc_size_kib(v.rss_kib);
	st.anon_kib = proc_size_kib(v.anon_kib);
	st.swap_kib = proc_size_kib(v.swap_kib);
	st.pte_kib = proc_size_kib(v.pte_kib);
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

/* /proc/@pid/@file, @file a name ("stat") or a path below it ("task/TID/stat"), into @buf. */
static ssize_t read_pid_file(const char *root, pid_t pid, const char *file, char *buf, size_t size)
{
	char path[96];
	int n = snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);

	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	return sys_read_file(root, path, buf, size);
}

int read_pid_stat(const char *root, pid_t pid, char *buf, size_t size, struct pid_stat *ret_stat)
{
	ssize_t n = read_pid_file(root, pid, "stat", buf, size);

	return n < 0 ? (int)n : parse_pid_stat_buf(buf, ret_stat);
}

int read_pid_status(const char *root, pid_t pid, char *buf, size_t size,
		    struct pid_status *ret_status)
{
	ssize_t n = read_pid_file(root, pid, "status", buf, size);

	return n < 0 ? (int)n : parse_pid_status_buf(buf, ret_status);
}

int read_task_status(const char *root, pid_t pid, pid_t tid, char *buf, size_t size,
		     struct pid_status *ret_status)
{
	char file[32];
	ssize_t n;

	snprintf(file, sizeof(file), "task/%d/status", (int)tid);
	n = read_pid_file(root, pid, file, buf, size);
	return n < 0 ? (int)n : parse_pid_status_buf(buf, ret_status);
}

int pid_has_thread(const char *root, pid_t pid, pid_t tid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, (int)tid);
	fd = sys_open_path(root, path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd == -ENOENT ? -ESRCH : fd;
	sys->close(fd);
	return 0;
}

int read_pid_live_thread(const char *root, pid_t pid, char *buf, size_t size, pid_t *ret_tid,
			 struct pid_stat *ret_stat)
{
	char dents[1024], path[64], file[32];
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
			snprintf(file, sizeof(file), "task/%d/stat", (int)tid);
			if (read_pid_file(root, pid, file, buf, size) < 0 ||
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
	char buf[32];
	ssize_t n = read_pid_file(root, pid, "oom_score_adj", buf, sizeof(buf));

	return n < 0 ? (int)n : parse_oom_score_adj_buf(buf, ret_adj);
}

int read_pid_cgroup(const char *root, pid_t pid, const char *controller, char *buf, size_t size,
		    char *ret_path, size_t path_size)
{
	ssize_t n = read_pid_file(root, pid, "cgroup", buf, size);

	return n < 0 ? (int)n : parse_pid_cgroup_buf(buf, controller, ret_path, path_size);
}

/* The leader's identity kept, the rest as its first live thread shows it (procfs.h). */
int read_pid_through_thread(const char *root, pid_t pid, char *scratch, size_t size,
			    struct pid_stat *st)
{
	struct pid_stat t;
	pid_t tid;

	if (read_pid_live_thread(root, pid, scratch, size, &tid, &t) < 0)
		return 0;
	st->state = t.state;
	st->flags = t.flags;
	st->signal = t.signal;
	st->rss_pages = t.rss_pages;
	return tid;
}

/* Once its parent is gone it is reparented (its ppid another's, or 1) and no longer one. */
bool pid_shares_parent_mm(pid_t pid, const struct pid_stat *st)
{
	if (!(st->flags & PF_FORKNOEXEC_FLAG) || st->ppid <= 1)
		return false;
	return sys->kcmp_vm(pid, st->ppid) == 0;
}
