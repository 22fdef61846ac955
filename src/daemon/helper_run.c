// SPDX-License-Identifier: GPL-2.0-only
/* In the helper process: run a hook or an announcer without a shell, bounded by a timeout,
 * its output logged; the environment and arguments that tell it of a kill. */
#include "daemon/helper.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/log.h"
#include "daemon/reaper.h"
#include "linux/sys.h"

/* The child between fork and exec: output to @out, stdin from /dev/null, dies with the
 * helper; an exec that fails writes its errno to @err. Only the table's calls: no allocation. */
_Noreturn static void child_exec(char *const argv[], char *const envp[], int out, int err)
{
	int null = sys->openat(AT_FDCWD, "/dev/null", O_RDONLY, 0);
	int r;

	sys->prctl(PR_SET_PDEATHSIG, SIGKILL, 0);
	r = null < 0 ? null : sys->dup2(null, STDIN_FILENO);
	if (r >= 0)
		r = sys->dup2(out, STDOUT_FILENO);
	if (r >= 0)
		r = sys->dup2(out, STDERR_FILENO);
	if (r >= 0)
		r = sys->execve(argv[0], argv, envp);
	sys->write(err, &r, sizeof(r));
	_exit(127);
}

/* Log what the child wrote since the last call, line by line; @flush: the rest too. */
static void log_output(const char *what, pid_t pid, char *buf, size_t *len, bool flush)
{
	char *start = buf, *nl;

	while ((nl = memchr(start, '\n', *len - (size_t)(start - buf))) || (flush && *len)) {
		size_t n = nl ? (size_t)(nl - start) : *len - (size_t)(start - buf);

		if (!nl && !n)
			break;
		log_msg(LOG_PRIO_INFO, "%s pid=%d: %.*s", what, pid, (int)n, start);
		start += n + (nl ? 1 : 0);
		if (!nl)
			break;
	}
	*len -= (size_t)(start - buf);
	memmove(buf, start, *len);
}

/* Wait for the child (@pidfd) until @deadline, logging its output from @out. Return: true
 * when it exited, false when its time ran out. */
static bool wait_child(const char *what, pid_t pid, int pidfd, int out, uint64_t deadline)
{
	char buf[1024];
	size_t len = 0;
	bool open = true;

	for (;;) {
		struct pollfd p[2] = {{.fd = pidfd, .events = POLLIN}, {.fd = out, .events = POLLIN}};
		uint64_t now = now_usec();
		ssize_t n;
		int r;

		if (now >= deadline)
			break;
		r = sys->poll(p, open ? 2 : 1, (int)((deadline - now + 999) / 1000));
		if (r < 0 && r != -EINTR)
			break;
		if (open && (p[1].revents & (POLLIN | POLLHUP))) {
			if (len == sizeof(buf)) /* a line longer than the buffer: said in pieces */
				log_output(what, pid, buf, &len, true);
			n = sys->read(out, buf + len, sizeof(buf) - len);
			if (n > 0)
				len += (size_t)n;
			else if (n != -EINTR && n != -EAGAIN)
				open = false; /* end of file: the child and its children closed it */
			log_output(what, pid, buf, &len, false);
		}
		if (!open && (p[0].revents & POLLIN))
			break;
		if (open && (p[0].revents & POLLIN) && !(p[1].revents & POLLIN))
			open = false; /* exited; what it left behind still holding the pipe is ignored */
	}
	log_output(what, pid, buf, &len, true);
	return sys_pidfd_exited(pidfd, 0);
}

/* The exit status of the reaped child: 0-255, 128 + signal. */
static int exit_status(const siginfo_t *info)
{
	return info->si_code == CLD_EXITED ? info->si_status : 128 + info->si_status;
}

int helper_run(const char *what, char *const argv[], char *const envp[],
	       unsigned int timeout_msec)
{
	int out[2] = {-1, -1}, err[2] = {-1, -1}, pidfd = -1, exec_err = 0, r;
	uint64_t t0 = now_usec();
	siginfo_t info;
	pid_t pid;
	bool exited;

	r = sys->pipe2(out, 0);
	if (r == 0)
		r = sys->pipe2(err, 0);
	if (r < 0)
		goto out;
	pid = sys->fork();
	if (pid == 0)
		child_exec(argv, envp, out[1], err[1]);
	if (pid < 0) {
		r = pid;
		goto out;
	}
	sys->close(out[1]);
	sys->close(err[1]);
	out[1] = err[1] = -1;
	pidfd = sys->pidfd_open(pid, 0);
	if (pidfd < 0) { /* cannot time it: wait for it as it is */
		sys->waitid(P_PID, (id_t)pid, &info, WEXITED);
		r = pidfd;
		goto out;
	}
	exited = wait_child(what, pid, pidfd, out[0], t0 + timeout_msec * 1000ull);
	if (!exited) {
		sys->pidfd_send_signal(pidfd, SIGKILL, NULL, 0);
		log_msg(LOG_PRIO_WARNING, "%s pid=%d: still running after %u ms: killed", what, pid,
			timeout_msec);
	}
	r = -EINTR;
	for (int i = 0; i < SYS_EINTR_RETRIES && r == -EINTR; i++)
		r = sys->waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED);
	if (sys->read(err[0], &exec_err, sizeof(exec_err)) == sizeof(exec_err) && exec_err < 0) {
		log_msg(LOG_PRIO_ERR, "%s: cannot run %s: %s", what, argv[0],
			sys_errno_name(exec_err));
		r = exec_err;
	} else if (r == 0) {
		r = exited ? exit_status(&info) : -ETIMEDOUT;
		log_msg(r ? LOG_PRIO_WARNING : LOG_PRIO_INFO,
			"%s pid=%d: %s %d after %llu ms", what, pid,
			r >= 0 && info.si_code == CLD_EXITED ? "exit" : "killed by signal",
			r >= 0 ? (info.si_code == CLD_EXITED ? r : r - 128) : SIGKILL,
			(unsigned long long)(now_usec() - t0) / 1000);
	}
out:
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			sys->close(out[i]);
		if (err[i] >= 0)
			sys->close(err[i]);
	}
	if (pidfd >= 0)
		sys->close(pidfd);
	return r;
}

int helper_split(const char *cmd, char *buf, size_t size, char **argv, size_t max)
{
	size_t n = 0;
	char *p;

	if (snprintf(buf, size, "%s", cmd) >= (int)size)
		return -E2BIG;
	for (p = strtok(buf, " \t"); p; p = strtok(NULL, " \t")) {
		if (n + 1 >= max)
			return -E2BIG;
		argv[n++] = p;
	}
	argv[n] = NULL;
	return (int)n;
}

/* Entries "KEY=VALUE" into a store, their pointers into a NULL-terminated array. */
struct strv {
	char *store;
	size_t size, used;
	char **v;
	size_t max, n;
	bool over;
};

__attribute__((format(printf, 2, 3))) static void add(struct strv *s, const char *fmt, ...)
{
	va_list ap;
	int len;

	if (s->over || s->n + 1 >= s->max) {
		s->over = true;
		return;
	}
	va_start(ap, fmt);
	len = vsnprintf(s->store + s->used, s->size - s->used, fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= s->size - s->used) {
		s->over = true;
		return;
	}
	s->v[s->n++] = s->store + s->used;
	s->v[s->n] = NULL;
	s->used += (size_t)len + 1;
}

int helper_env(const struct helper_msg *m, const char *event, char *store, size_t size,
	       char **envp, size_t max)
{
	const struct helper_victim *v = &m->u.v;
	struct strv s = {store, size, 0, envp, max, 0, false};

	add(&s, "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	add(&s, "OOMGUARD_EVENT=%s", event);
	add(&s, "OOMGUARD_SCOPE=%s", m->scope);
	add(&s, "OOMGUARD_PID=%d", v->pid);
	if (v->uid >= 0)
		add(&s, "OOMGUARD_UID=%lld", (long long)v->uid);
	add(&s, "OOMGUARD_COMM=%s", v->comm);
	add(&s, "OOMGUARD_CGROUP=%s", v->cgroup);
	add(&s, "OOMGUARD_RSS_KIB=%llu", (unsigned long long)v->rss_kib);
	add(&s, "OOMGUARD_BADNESS=%lld", (long long)v->badness);
	add(&s, "OOMGUARD_OOM_SCORE_ADJ=%d", v->oom_score_adj);
	add(&s, "OOMGUARD_REASON=%s", v->reason);
	add(&s, "OOMGUARD_DETECT_TO_KILL_USEC=%llu", (unsigned long long)v->detect_to_kill_usec);
	if (m->type == HELPER_KILLED) {
		add(&s, "OOMGUARD_RESULT=%s", v->result);
		add(&s, "OOMGUARD_FREED_KIB=%llu", (unsigned long long)v->freed_kib);
		add(&s, "OOMGUARD_KILL_TO_FREED_USEC=%llu",
		    (unsigned long long)v->kill_to_freed_usec);
	}
	return s.over ? -E2BIG : (int)s.n;
}

int helper_dbus_argv(const struct helper_msg *m, const char *address, char *store, size_t size,
		     char **argv, size_t max)
{
	const struct helper_victim *v = &m->u.v;
	struct strv s = {store, size, 0, argv, max, 0, false};

	add(&s, "/usr/bin/dbus-send");
	if (address[0])
		add(&s, "--address=%s", address);
	else
		add(&s, "--system");
	add(&s, "--type=signal");
	add(&s, "/org/oomguard");
	add(&s, "org.oomguard.Killed");
	add(&s, "int32:%d", v->pid);
	add(&s, "string:%s", v->comm);
	add(&s, "uint32:%lld", (long long)(v->uid >= 0 ? v->uid : 4294967295ll));
	add(&s, "string:%s", m->scope);
	add(&s, "string:%s", v->cgroup);
	add(&s, "string:%s", v->reason);
	add(&s, "uint64:%llu", (unsigned long long)v->freed_kib * 1024);
	return s.over ? -E2BIG : (int)s.n;
}

/* notify-send as user @uid (group @gid) on the session bus @bus. */
static int notify_user(const struct helper_msg *m, unsigned int uid, unsigned int gid,
		       const char *bus, unsigned int timeout_msec)
{
	char store[2048], estore[1024];
	char *argv[20], *envp[8];
	struct strv a = {store, sizeof(store), 0, argv, 20, 0, false};
	struct strv e = {estore, sizeof(estore), 0, envp, 8, 0, false};

	add(&a, "/usr/bin/setpriv");
	add(&a, "--reuid=%u", uid);
	add(&a, "--regid=%u", gid);
	add(&a, "--clear-groups");
	add(&a, "/usr/bin/notify-send");
	add(&a, "--urgency=critical");
	add(&a, "--app-name=oomguard");
	add(&a, "Out of memory: %s (pid %d) was killed", m->u.v.comm, m->u.v.pid);
	add(&a, "oomguard killed it in %s to free memory: %llu MiB freed.", m->scope,
	    (unsigned long long)m->u.v.freed_kib / 1024);
	add(&e, "PATH=/usr/bin:/bin");
	add(&e, "DBUS_SESSION_BUS_ADDRESS=unix:path=%s", bus);
	if (a.over || e.over)
		return -E2BIG;
	return helper_run("notify-send", argv, envp, timeout_msec);
}

int helper_desktop(const struct helper_msg *m, const char *root, unsigned int timeout_msec)
{
	char dir[CONFIG_PATH_MAX + 16], bus[CONFIG_PATH_MAX + 64];
	char buf[4096];
	int fd, done = 0;
	long n;

	if (access("/usr/bin/notify-send", X_OK) || access("/usr/bin/setpriv", X_OK))
		return 0; /* no desktop to tell (libnotify-bin not installed): nothing to do */
	snprintf(dir, sizeof(dir), "%s/run/user", root);
	fd = sys->openat(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	while ((n = sys->getdents64(fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64 *de = (struct dirent64 *)(void *)(buf + off);
			struct stat st;

			off += de->d_reclen;
			if (de->d_name[0] < '1' || de->d_name[0] > '9')
				continue; /* uid 0 has no desktop to tell; ".", ".." */
			if (snprintf(bus, sizeof(bus), "%s/%.32s/bus", dir, de->d_name) >=
			    (int)sizeof(bus))
				continue;
			if (sys->fstatat(AT_FDCWD, bus, &st, 0) < 0 || !S_ISSOCK(st.st_mode))
				continue;
			if (notify_user(m, st.st_uid, st.st_gid, bus, timeout_msec) == 0)
				done++;
		}
	}
	sys->close(fd);
	return done;
}
