// SPDX-License-Identifier: GPL-2.0-only
// notify_recv: binds a datagram socket where systemd's NOTIFY_SOCKET would be and prints each
// datagram that comes on it as one line (its newlines as '|'), with the sender's pid, until
// STOPPING=1 comes or SEC seconds pass. The supervisor's side of sd_notify(3), for tests.
#include <poll.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "tool_util.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: notify_recv PATH SEC\n"
		     "  PATH   socket path to bind, or @NAME for an abstract name\n"
		     "  SEC    give up after this many seconds\n"
		     "Prints 'bound' once the socket is bound, then 'pid=N MESSAGE' per datagram.\n");
}

/* Print one datagram, newlines as '|', with the pid the kernel says sent it. */
static void print_datagram(int fd)
{
	char buf[4096], ctl[CMSG_SPACE(sizeof(struct ucred))];
	struct iovec iov = {buf, sizeof(buf) - 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			    .msg_controllen = sizeof(ctl)};
	struct cmsghdr *c;
	pid_t pid = 0;
	ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);

	if (n < 0)
		return;
	buf[n] = '\0';
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS)
			pid = ((struct ucred *)(void *)CMSG_DATA(c))->pid;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\n')
			buf[i] = '|';
	printf("pid=%d %s\n", (int)pid, buf);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	socklen_t len;
	int fd, one = 1;
	long sec;

	if (argc != 3 || strlen(argv[1]) < 2 || strlen(argv[1]) >= sizeof(a.sun_path) ||
	    (sec = strtol(argv[2], NULL, 10)) <= 0) {
		usage(stderr);
		return 2;
	}
	memcpy(a.sun_path, argv[1], strlen(argv[1]));
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(argv[1]));
	if (argv[1][0] == '@')
		a.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&a, len)) {
		perror("notify_recv");
		return 1;
	}
	printf("bound\n");
	fflush(stdout);
	for (long t = 0; t < sec * 10; t++) {
		struct pollfd p = {fd, POLLIN, 0};
		char peek[16];

		if (poll(&p, 1, 100) <= 0)
			continue;
		if (recv(fd, peek, sizeof(peek), MSG_PEEK | MSG_DONTWAIT) >= 10 &&
		    !strncmp(peek, "STOPPING=1", 10)) {
			print_datagram(fd);
			return 0;
		}
		print_datagram(fd);
	}
	return 1;
}
