/* SPDX-License-Identifier: GPL-2.0-only */
/* The one table through which oomguard reaches the kernel: every syscall, every /proc and
 * cgroupfs read. Tests swap the table to inject EINTR, ENOMEM, ESRCH, EAGAIN or ENOSYS
 * (tests/unit/test_daemon_faults.c does, for every entry). */
#ifndef OOMGUARD_LINUX_SYS_H
#define OOMGUARD_LINUX_SYS_H

#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

/* One entry of getdents64(2)'s buffer (the C library declares none for the raw call). */
struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* The kernel's capget()/capset() ABI, version 3 (two data words: capabilities 0-63), written
 * out: linux/capability.h is not in every C library's include path. */
#define SYS_CAP_VERSION_3 0x20080522u
struct sys_cap_header {
	uint32_t version;
	int pid; /* 0: the calling thread */
};
struct sys_cap_data {
	uint32_t effective, permitted, inheritable;
};

/*
 * struct sys_ops - the kernel as oomguard sees it. Every entry returns -errno on failure and a
 * non-negative value on success (never sets errno for the caller to read).
 */
struct sys_ops {
	int (*openat)(int dirfd, const char *path, int flags, mode_t mode);
	ssize_t (*read)(int fd, void *buf, size_t len);
	ssize_t (*pread)(int fd, void *buf, size_t len, off_t off);
	ssize_t (*write)(int fd, const void *buf, size_t len);
	int (*close)(int fd);
	long (*getdents64)(int fd, void *buf, size_t len);
	int (*pidfd_open)(pid_t pid, unsigned int flags);
	int (*pidfd_send_signal)(int pidfd, int sig, siginfo_t *info, unsigned int flags);
	int (*process_mrelease)(int pidfd, unsigned int flags);
	/* kcmp(KCMP_VM): 0 when the two processes share one mm, 1 when not, -errno. */
	int (*kcmp_vm)(pid_t pid1, pid_t pid2);
	int (*poll)(struct pollfd *fds, nfds_t nfds, int timeout_msec);
	int (*eventfd)(unsigned int initval, int flags);
	int (*epoll_create)(void); /* close-on-exec */
	int (*epoll_ctl)(int epfd, int op, int fd, struct epoll_event *event);
	int (*epoll_wait)(int epfd, struct epoll_event *events, int maxevents, int timeout_msec);
	int (*pipe2)(int fds[2], int flags); /* close-on-exec */
	int (*fcntl)(int fd, int cmd, int arg);
	ssize_t (*send)(int fd, const void *buf, size_t len, int flags);
	int (*socket)(int domain, int type, int protocol); /* close-on-exec */
	ssize_t (*sendto)(int fd, const void *buf, size_t len, int flags,
			  const struct sockaddr *addr, socklen_t addrlen);
	int (*mlockall)(int flags);
	/* The calling thread's policy (pthread_setschedparam: musl's sched_setscheduler() is a
	 * stub that returns ENOSYS). */
	int (*sched_setscheduler_self)(int policy, const struct sched_param *param);
	int (*getrlimit)(int resource, struct rlimit *ret_rlim);
	int (*setrlimit)(int resource, const struct rlimit *rlim);
	/* What a process is, for the victim rules: /proc/PID/exe; a cgroup's owner and xattrs. */
	ssize_t (*readlinkat)(int dirfd, const char *path, char *buf, size_t size);
	int (*fstatat)(int dirfd, const char *path, struct stat *ret_st, int flags);
	ssize_t (*getxattr)(const char *path, const char *name, void *buf, size_t size);
	/* The helper process (helper.h): forked at start-up, it runs hooks and announcers. */
	pid_t (*fork)(void);
	int (*execve)(const char *path, char *const argv[], char *const envp[]);
	int (*waitid)(idtype_t idtype, id_t id, siginfo_t *ret_info, int options);
	int (*dup2)(int oldfd, int newfd);
	int (*renameat)(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);
	/* The calling thread's capabilities (raw syscalls, SYS_CAP_VERSION_3) and prctl() with
	 * arg4 and arg5 zero: what is dropped after start-up (protect.c); PR_SET_PDEATHSIG and
	 * PR_SET_NAME for the helper. */
	int (*capget)(struct sys_cap_header *hdr, struct sys_cap_data ret_data[2]);
	int (*capset)(struct sys_cap_header *hdr, const struct sys_cap_data data[2]);
	int (*prctl)(int option, unsigned long arg2, unsigned long arg3);
};

/* The table in use. Points at sys_ops_real unless a test swapped it. */
extern const struct sys_ops *sys;
extern const struct sys_ops sys_ops_real;

/* Reads of /proc and cgroupfs retry EINTR this many times before giving up (bounded). */
#define SYS_EINTR_RETRIES 8

/*
 * sys_read_file() - read all of @root/@path into @buf (NUL-terminated) through the table.
 * @root:  directory prefix ("" or NULL for none); lets tests point at a fixture tree
 * Return: bytes read, -E2BIG if the file does not fit in @size - 1, or -errno.
 */
ssize_t sys_read_file(const char *root, const char *path, char *buf, size_t size);

/*
 * sys_pread_file() - read all of the open file @fd from offset 0 into @buf (NUL-terminated):
 * the way to re-read a /proc or cgroupfs file kept open, without open() and close().
 * Return: bytes read, -E2BIG if it does not fit in @size - 1, or -errno.
 */
ssize_t sys_pread_file(int fd, char *buf, size_t size);

/*
 * sys_pread_whole() - sys_pread_file() in one call, for files the kernel generates in a single
 * seq_file record (cgroupfs files, /proc/pressure/\*, /proc/meminfo): their first read returns
 * all of the content, so a read shorter than @size - 1 is the end and needs no second read.
 * Not for multi-record files (/proc/vmstat, zoneinfo): their reads stop at the kernel's buffer.
 * Return: as sys_pread_file().
 */
ssize_t sys_pread_whole(int fd, char *buf, size_t size);

/*
 * sys_read_lines() - read @root/@path as a stream, whatever its size, through @buf (@size bytes:
 * the longest line it takes whole) and call @line(@text, @ctx) for each line, NUL-terminated
 * without its newline. A longer line is cut at @size - 1 bytes (the rest of it skipped) and
 * counted. @line returns false to stop early. Return: the number of lines cut, or -errno.
 */
ssize_t sys_read_lines(const char *root, const char *path, char *buf, size_t size,
		       bool (*line)(char *text, void *ctx), void *ctx);

/*
 * sys_write_file() - write @str to @root/@path in one write() (cgroupfs control files).
 * Return: 0 or -errno.
 */
int sys_write_file(const char *root, const char *path, const char *str);

/* sys_join_path() - @a (NULL: none) then @b into @out. Return: 0 or -ENAMETOOLONG. */
int sys_join_path(char *out, size_t size, const char *a, const char *b);

/* sys_open_path() - open @root/@path with @flags. Return: fd or -errno. */
int sys_open_path(const char *root, const char *path, int flags);

/*
 * sys_pread_head() - the head of the open file @fd: one read of at most @size - 1 bytes from
 * offset 0 (NUL-terminated), for a file whose first line is all that is wanted (/proc/stat,
 * whose per-CPU and interrupt lines run to tens of KiB on a large host). Return: bytes read, or
 * -errno.
 */
ssize_t sys_pread_head(int fd, char *buf, size_t size);

/* How sys_read_kept() reads: sys_pread_file(), sys_pread_whole(), sys_pread_head(). */
enum sys_read_mode { SYS_READ_RECORDS, SYS_READ_WHOLE, SYS_READ_HEAD };

/*
 * sys_read_kept() - read @root/@path through *@fd, opening it first when *@fd is -1. The file
 * stays open for the next read: a pread, no open, so no kernel allocation for a seq_file whose
 * buffer is kept (what matters when memory is exhausted). @mode: SYS_READ_WHOLE, the file comes
 * whole from one read (sys_pread_whole); SYS_READ_RECORDS, it is read until a read returns
 * nothing (sys_pread_file); SYS_READ_HEAD, its head only (sys_pread_head). A failed read closes
 * it (*@fd back to -1). Return: as sys_pread_file().
 */
ssize_t sys_read_kept(int *fd, const char *root, const char *path, char *buf, size_t size,
		      enum sys_read_mode mode);

/*
 * The kernel's page size as a shift: 12 on x86-64 (4 KiB pages), 14 or 16 on arm64 and ppc64
 * kernels built with 16 or 64 KiB pages. sys_page_shift() asks once, at start-up; whoever
 * converts keeps the shift (a scope does) and converts through the functions below, which name
 * their units. A page is at least 1 KiB on every architecture Linux runs on.
 */
unsigned int sys_page_shift(void);

/*
 * sys_clock_tick_usec() - one clock tick of /proc/stat's CPU times (USER_HZ) in microseconds:
 * 10000 wherever Linux runs today (USER_HZ 100).
 */
uint64_t sys_clock_tick_usec(void);

static inline uint64_t pages_to_bytes(uint64_t pages, unsigned int shift)
{
	return pages << shift;
}

static inline uint64_t bytes_to_pages(uint64_t bytes, unsigned int shift)
{
	return bytes >> shift;
}

static inline uint64_t pages_to_kib(uint64_t pages, unsigned int shift)
{
	return pages << (shift - 10);
}

static inline uint64_t kib_to_pages(uint64_t kib, unsigned int shift)
{
	return kib >> (shift - 10);
}

/* sys_pidfd_exited() - wait up to @msec (0: do not wait) for @pidfd's process to exit; a wait
 * a signal cuts short (EINTR) goes on for what is left of @msec (SYS_EINTR_RETRIES times). */
bool sys_pidfd_exited(int pidfd, int msec);

/*
 * sys_errno_name() - the symbolic name of @err ("ESRCH") for the errors the table's calls
 * return, "E?" for others. A static string: no allocation, any C library, any thread.
 */
const char *sys_errno_name(int err);

#endif
