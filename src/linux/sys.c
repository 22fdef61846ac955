// SPDX-License-Identifier: GPL-2.0-only
/* The real syscall table and the file helpers built on it. Each wrapper turns the libc
 * convention (-1 and errno) into -errno so that fake tables need not touch errno. */
#include "linux/sys.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_process_mrelease
#define SYS_process_mrelease 448
#endif

static int real_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	int fd = openat(dirfd, path, flags | O_CLOEXEC, mode);

	return fd < 0 ? -errno : fd;
}

static ssize_t real_read(int fd, void *buf, size_t len)
{
	ssize_t n = read(fd, buf, len);

	return n < 0 ? -errno : n;
}

static ssize_t real_pread(int fd, void *buf, size_t len, off_t off)
{
	ssize_t n = pread(fd, buf, len, off);

	return n < 0 ? -errno : n;
}

static ssize_t real_write(int fd, const void *buf, size_t len)
{
	ssize_t n = write(fd, buf, len);

	return n < 0 ? -errno : n;
}

static int real_close(int fd)
{
	return close(fd) < 0 ? -errno : 0;
}

static long real_getdents64(int fd, void *buf, size_t len)
{
	long n = syscall(SYS_getdents64, fd, buf, len);

	return n < 0 ? -errno : n;
}

static int real_pidfd_open(pid_t pid, unsigned int flags)
{
	long fd = syscall(SYS_pidfd_open, pid, flags);

	return fd < 0 ? -errno : (int)fd;
}

static int real_pidfd_send_signal(int pidfd, int sig, siginfo_t *info, unsigned int flags)
{
	return syscall(SYS_pidfd_send_signal, pidfd, sig, info, flags) < 0 ? -errno : 0;
}

static int real_process_mrelease(int pidfd, unsigned int flags)
{
	return syscall(SYS_process_mrelease, pidfd, flags) < 0 ? -errno : 0;
}

#define KCMP_VM_TYPE 1 /* linux/kcmp.h's KCMP_VM */

static int real_kcmp_vm(pid_t pid1, pid_t pid2)
{
	long r = syscall(SYS_kcmp, pid1, pid2, KCMP_VM_TYPE, 0, 0);

	return r < 0 ? -errno : r != 0;
}

static int real_poll(struct pollfd *fds, nfds_t nfds, int timeout_msec)
{
	int n = poll(fds, nfds, timeout_msec);

	return n < 0 ? -errno : n;
}

static int real_eventfd(unsigned int initval, int flags)
{
	int fd = eventfd(initval, flags | EFD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int real_epoll_create(void)
{
	int fd = epoll_create1(EPOLL_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int real_epoll_ctl(int epfd, int op, int fd, struct epoll_event *event)
{
	return epoll_ctl(epfd, op, fd, event) < 0 ? -errno : 0;
}

static int real_epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout_msec)
{
	int n = epoll_wait(epfd, events, maxevents, timeout_msec);

	return n < 0 ? -errno : n;
}

static int real_pipe2(int fds[2], int flags)
{
	return pipe2(fds, flags | O_CLOEXEC) < 0 ? -errno : 0;
}

static int real_fcntl(int fd, int cmd, int arg)
{
	int r = fcntl(fd, cmd, arg);

	return r < 0 ? -errno : r;
}

static ssize_t real_send(int fd, const void *buf, size_t len, int flags)
{
	ssize_t n = send(fd, buf, len, flags);

	return n < 0 ? -errno : n;
}

static int real_socket(int domain, int type, int protocol)
{
	int fd = socket(domain, type | SOCK_CLOEXEC, protocol);

	return fd < 0 ? -errno : fd;
}

static ssize_t real_sendto(int fd, const void *buf, size_t len, int flags,
			   const struct sockaddr *addr, socklen_t addrlen)
{
	ssize_t n = sendto(fd, buf, len, flags, addr, addrlen);

	return n < 0 ? -errno : n;
}

static int real_mlockall(int flags)
{
	return mlockall(flags) < 0 ? -errno : 0;
}

static int real_sched_setscheduler_self(int policy, const struct sched_param *param)
{
	return -pthread_setschedparam(pthread_self(), policy, param);
}

/* glibc declares the resource as an enum, musl as int: the table takes an int for both. */
#ifdef __GLIBC__
typedef __rlimit_resource_t rlimit_resource;
#else
typedef int rlimit_resource;
#endif

static int real_getrlimit(int resource, struct rlimit *ret_rlim)
{
	return getrlimit((rlimit_resource)resource, ret_rlim) < 0 ? -errno : 0;
}

static int real_setrlimit(int resource, const struct rlimit *rlim)
{
	return setrlimit((rlimit_resource)resource, rlim) < 0 ? -errno : 0;
}

static ssize_t real_readlinkat(int dirfd, const char *path, char *buf, size_t size)
{
	ssize_t n = readlinkat(dirfd, path, buf, size);

	return n < 0 ? -errno : n;
}

static int real_fstatat(int dirfd, const char *path, struct stat *ret_st, int flags)
{
	return fstatat(dirfd, path, ret_st, flags) < 0 ? -errno : 0;
}

static ssize_t real_getxattr(const char *path, const char *name, void *buf, size_t size)
{
	ssize_t n = getxattr(path, name, buf, size);

	return n < 0 ? -errno : n;
}

static pid_t real_fork(void)
{
	pid_t pid = fork();

	return pid < 0 ? -errno : pid;
}

static int real_execve(const char *path, char *const argv[], char *const envp[])
{
	execve(path, argv, envp);
	return -errno; /* only when it failed */
}

static int real_waitid(idtype_t idtype, id_t id, siginfo_t *ret_info, int options)
{
	return waitid(idtype, id, ret_info, options) < 0 ? -errno : 0;
}

static int real_dup2(int oldfd, int newfd)
{
	int fd = dup2(oldfd, newfd);

	return fd < 0 ? -errno : fd;
}

static int real_renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)
{
	return renameat(olddirfd, oldpath, newdirfd, newpath) < 0 ? -errno : 0;
}

static int real_capget(struct sys_cap_header *hdr, struct sys_cap_data ret_data[2])
{
	return syscall(SYS_capget, hdr, ret_data) < 0 ? -errno : 0;
}

static int real_capset(struct sys_cap_header *hdr, const struct sys_cap_data data[2])
{
	return syscall(SYS_capset, hdr, data) < 0 ? -errno : 0;
}

static int real_prctl(int option, unsigned long arg2, unsigned long arg3)
{
	long r = syscall(SYS_prctl, option, arg2, arg3, 0ul, 0ul);

	return r < 0 ? -errno : (int)r;
}

const struct sys_ops sys_ops_real = {
    .openat = real_openat,
    .read = real_read,
    .pread = real_pread,
    .write = real_write,
    .close = real_close,
    .getdents64 = real_getdents64,
    .pidfd_open = real_pidfd_open,
    .pidfd_send_signal = real_pidfd_send_signal,
    .process_mrelease = real_process_mrelease,
    .kcmp_vm = real_kcmp_vm,
    .poll = real_poll,
    .eventfd = real_eventfd,
    .epoll_create = real_epoll_create,
    .epoll_ctl = real_epoll_ctl,
    .epoll_wait = real_epoll_wait,
    .pipe2 = real_pipe2,
    .fcntl = real_fcntl,
    .send = real_send,
    .socket = real_socket,
    .sendto = real_sendto,
    .mlockall = real_mlockall,
    .sched_setscheduler_self = real_sched_setscheduler_self,
    .getrlimit = real_getrlimit,
    .setrlimit = real_setrlimit,
    .readlinkat = real_readlinkat,
    .fstatat = real_fstatat,
    .getxattr = real_getxattr,
    .fork = real_fork,
    .execve = real_execve,
    .waitid = real_waitid,
    .dup2 = real_dup2,
    .renameat = real_renameat,
    .capget = real_capget,
    .capset = real_capset,
    .prctl = real_prctl,
};

const struct sys_ops *sys = &sys_ops_real;

ssize_t sys_read_kept(int *fd, const char *root, const char *path, char *buf, size_t size,
		      enum sys_read_mode mode)
{
	ssize_t n;

	if (*fd < 0) {
		int r = sys_open_path(root, path, O_RDONLY);

		if (r < 0)
			return r;
		*fd = r;
	}
	n = mode == SYS_READ_WHOLE   ? sys_pread_whole(*fd, buf, size)
	    : mode == SYS_READ_HEAD ? sys_pread_head(*fd, buf, size)
				    : sys_pread_file(*fd, buf, size);
	if (n < 0) {
		sys->close(*fd);
		*fd = -1;
	}
	return n;
}

static int64_t monotonic_msec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool sys_pidfd_exited(int pidfd, int msec)
{
	struct pollfd p = {.fd = pidfd, .events = POLLIN};
	int64_t end = monotonic_msec() + msec;
	int n, eintr = 0;

	/* A signal that cuts the wait short is waited out: the reaper's tries are counted in these
	 * waits, and one cut short would end them before their time. */
	while ((n = sys->poll(&p, 1, msec)) == -EINTR && ++eintr < SYS_EINTR_RETRIES) {
		int64_t left = end - monotonic_msec();

		if (msec > 0) /* < 0: no end */
			msec = left > 0 ? (int)left : 0;
	}
	return n > 0 && (p.revents & (POLLIN | POLLHUP));
}

/* The complete lines in @buf[0..*@len): each to @line; what is left of a partial line moves to
 * the front. A line that fills @buf alone is cut (*@cut counts it; *@skip drops its rest). */
static bool feed_lines(char *buf, size_t size, size_t *len, bool *skip, ssize_t *cut,
		       bool (*line)(char *text, void *ctx), void *ctx)
{
	char *p = buf, *end = buf + *len, *nl;

	while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
		*nl = '\0';
		if (!*skip && !line(p, ctx))
			return false;
		*skip = false;
		p = nl + 1;
	}
	*len = (size_t)(end - p);
	memmove(buf, p, *len);
	if (*len == size - 1) { /* one line larger than the buffer */
		buf[*len] = '\0';
		if (!*skip) {
			(*cut)++;
			if (!line(buf, ctx))
				return false;
		}
		*skip = true;
		*len = 0;
	}
	return true;
}

ssize_t sys_read_lines(const char *root, const char *path, char *buf, size_t size,
		       bool (*line)(char *text, void *ctx), void *ctx)
{
	size_t len = 0;
	ssize_t cut = 0, ret = 0;
	bool skip = false, go = true;
	int fd, eintr = 0;

	if (size < 2)
		return -EINVAL;
	fd = sys_open_path(root, path, O_RDONLY);
	if (fd < 0)
		return fd;
	while (go) {
		ssize_t n = sys->read(fd, buf + len, size - 1 - len);

		if (n == -EINTR && ++eintr < SYS_EINTR_RETRIES)
			continue;
		if (n < 0) {
			ret = n;
			break;
		}
		if (n == 0) {
			buf[len] = '\0';
			if (len && !skip)
				line(buf, ctx); /* a last line without its newline */
			break;
		}
		len += (size_t)n;
		go = feed_lines(buf, size, &len, &skip, &cut, line, ctx);
	}
	sys->close(fd);
	return ret < 0 ? ret : cut;
}

int sys_join_path(char *out, size_t size, const char *a, const char *b)
{
	int n = snprintf(out, size, "%s%s", a ? a : "", b);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

unsigned int sys_page_shift(void)
{
	long bytes = sysconf(_SC_PAGESIZE);
	unsigned int shift = 10;

	if (bytes <= 0)
		return 12; /* never seen (the C library reads it from the auxiliary vector) */
	while ((1l << shift) < bytes && shift < 30)
		shift++;
	return shift;
}

uint64_t sys_clock_tick_usec(void)
{
	long hz = sysconf(_SC_CLK_TCK);

	return hz > 0 && hz <= 1000000 ? 1000000 / (uint64_t)hz : 10000;
}

const char *sys_errno_name(int err)
{
	static const struct {
		int err;
		const char *name;
	} names[] = {
	    {EPERM, "EPERM"},   {ENOENT, "ENOENT"},       {ESRCH, "ESRCH"},   {EINTR, "EINTR"},
	    {EIO, "EIO"},       {EBADF, "EBADF"},         {EAGAIN, "EAGAIN"}, {ENOMEM, "ENOMEM"},
	    {EACCES, "EACCES"}, {EFAULT, "EFAULT"},       {EBUSY, "EBUSY"},   {EINVAL, "EINVAL"},
	    {ENOSYS, "ENOSYS"}, {ETIMEDOUT, "ETIMEDOUT"}, {EMFILE, "EMFILE"}, {ENFILE, "ENFILE"},
	    {ENOSPC, "ENOSPC"}, {E2BIG, "E2BIG"},         {ESTALE, "ESTALE"}, {EPIPE, "EPIPE"},
	    {ENOBUFS, "ENOBUFS"}, {ECONNREFUSED, "ECONNREFUSED"}, {ENOTDIR, "ENOTDIR"},
	};

	if (err < 0)
		err = -err;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].err == err)
			return names[i].name;
	return "E?";
}

int sys_open_path(const char *root, const char *path, int flags)
{
	char full[PATH_MAX];
	int n, fd = -EINTR;

	n = snprintf(full, sizeof(full), "%s%s", root ? root : "", path);
	if (n < 0 || (size_t)n >= sizeof(full))
		return -ENAMETOOLONG;
	for (int i = 0; i < SYS_EINTR_RETRIES && fd == -EINTR; i++)
		fd = sys->openat(AT_FDCWD, full, flags, 0);
	return fd;
}

ssize_t sys_read_file(const char *root, const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t ret = 0;
	int fd, eintr = 0;

	if (size < 2)
		return -EINVAL;
	fd = sys_open_path(root, path, O_RDONLY);
	if (fd < 0)
		return fd;
	for (;;) {
		ssize_t n = sys->read(fd, buf + len, size - 1 - len);

		if (n == -EINTR && ++eintr < SYS_EINTR_RETRIES)
			continue;
		if (n < 0) {
			ret = n;
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == size - 1) {
			char probe;

			n = sys->read(fd, &probe, 1);
			ret = n == 0 ? 0 : -E2BIG;
			if (ret)
				goto out;
			break;
		}
	}
	ret = (ssize_t)len;
out:
	buf[ret < 0 ? 0 : len] = '\0';
	sys->close(fd);
	return ret;
}

ssize_t sys_pread_whole(int fd, char *buf, size_t size)
{
	ssize_t n = sys_pread_head(fd, buf, size);

	if (n >= 0 && (size_t)n == size - 1) /* perhaps more: read it all the long way */
		return sys_pread_file(fd, buf, size);
	return n;
}

ssize_t sys_pread_head(int fd, char *buf, size_t size)
{
	ssize_t n;
	int eintr = 0;

	if (size < 2)
		return -EINVAL;
	do
		n = sys->pread(fd, buf, size - 1, 0);
	while (n == -EINTR && ++eintr < SYS_EINTR_RETRIES);
	buf[n < 0 ? 0 : n] = '\0';
	return n;
}

ssize_t sys_pread_file(int fd, char *buf, size_t size)
{
	size_t len = 0;
	int eintr = 0;

	if (size < 2)
		return -EINVAL;
	buf[0] = '\0';
	for (;;) {
		ssize_t n = sys->pread(fd, buf + len, size - 1 - len, (off_t)len);

		if (n == -EINTR && ++eintr < SYS_EINTR_RETRIES)
			continue;
		if (n < 0) {
			buf[0] = '\0';
			return n;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == size - 1) {
			char probe;

			if (sys->pread(fd, &probe, 1, (off_t)len) != 0) {
				buf[0] = '\0';
				return -E2BIG;
			}
			break;
		}
	}
	buf[len] = '\0';
	return (ssize_t)len;
}

int sys_write_file(const char *root, const char *path, const char *str)
{
	size_t len = strlen(str);
	ssize_t n = -EINTR;
	int fd;

	fd = sys_open_path(root, path, O_WRONLY);
	if (fd < 0)
		return fd;
	for (int i = 0; i < SYS_EINTR_RETRIES && n == -EINTR; i++)
		n = sys->write(fd, str, len);
	sys->close(fd);
	if (n < 0)
		return (int)n;
	return (size_t)n == len ? 0 : -EIO;
}
