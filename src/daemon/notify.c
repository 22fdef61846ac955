// SPDX-License-Identifier: GPL-2.0-only
/* systemd's notification protocol in a few datagrams (sd_notify(3) without libsystemd): the
 * socket opened at start-up, then sends that neither block nor allocate. */
#include "daemon/notify.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/log.h"
#include "linux/sys.h"

void notify_init(struct notify *n)
{
	memset(n, 0, sizeof(*n));
	n->fd = -1;
}

/* $NOTIFY_SOCKET as a socket address: an absolute path, or '@' for an abstract name. */
static int notify_address(struct notify *n, const char *path)
{
	size_t len = strlen(path);

	if ((path[0] != '/' && path[0] != '@') || len < 2 || len >= sizeof(n->addr.sun_path))
		return -EINVAL;
	memset(&n->addr, 0, sizeof(n->addr));
	n->addr.sun_family = AF_UNIX;
	memcpy(n->addr.sun_path, path, len);
	if (path[0] == '@')
		n->addr.sun_path[0] = '\0'; /* abstract: the length says where the name ends */
	n->addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
				  (path[0] == '/')); /* a path's NUL too */
	return 0;
}

/* $WATCHDOG_USEC when the watchdog is this process's ($WATCHDOG_PID unset or @self_pid). */
static uint64_t notify_watchdog_usec(int self_pid)
{
	const char *usec = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
	unsigned long long v;
	char *end;

	if (!usec || !*usec)
		return 0;
	if (pid && *pid && strtol(pid, &end, 10) != self_pid)
		return 0; /* another process's (a parent that kept it in the environment) */
	errno = 0;
	v = strtoull(usec, &end, 10);
	if (errno || *end || usec[0] < '0' || usec[0] > '9' || v == 0) {
		log_msg(LOG_PRIO_WARNING, "WATCHDOG_USEC=%s is no number of microseconds: no "
					  "watchdog pings", usec);
		return 0;
	}
	return v;
}

int notify_open(struct notify *n, int self_pid, char *err, size_t errsize)
{
	const char *path = getenv("NOTIFY_SOCKET");
	int r;

	notify_init(n);
	if (!path || !*path)
		return 0;
	r = notify_address(n, path);
	if (r < 0) {
		snprintf(err, errsize, "NOTIFY_SOCKET=%s: not an absolute path or @name", path);
		goto out;
	}
	r = sys->socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	if (r < 0) {
		snprintf(err, errsize, "NOTIFY_SOCKET=%s: socket: %s", path, strerror(-r));
		goto out;
	}
	n->fd = r;
	n->watchdog_usec = notify_watchdog_usec(self_pid);
	r = 0;
out:
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	return r;
}

int notify_send(struct notify *n, const char *msg)
{
	ssize_t r;

	if (n->fd < 0)
		return 0;
	r = sys->sendto(n->fd, msg, strlen(msg), MSG_DONTWAIT | MSG_NOSIGNAL,
			(const struct sockaddr *)&n->addr, n->addr_len);
	if (r >= 0) {
		if (n->last_err)
			log_msg(LOG_PRIO_NOTICE, "systemd notifications go through again (%lu lost)",
				n->dropped);
		n->last_err = 0;
		n->dropped = 0;
		return 0;
	}
	n->dropped++;
	if ((int)r != n->last_err) /* said when it changes, not for every datagram */
		log_msg(LOG_PRIO_WARNING, "cannot notify systemd (%s): datagrams dropped",
			sys_errno_name((int)r));
	n->last_err = (int)r;
	return (int)r;
}

void notify_status(struct notify *n, const char *extra, const char *text)
{
	char msg[NOTIFY_STATUS_MAX + 32];

	if (n->unsent && !extra)
		extra = n->unsent_extra;
	if (n->fd < 0 || (!n->unsent && !extra && !strcmp(text, n->status)))
		return;
	snprintf(msg, sizeof(msg), "%sSTATUS=%s", extra ? extra : "", text);
	n->unsent = notify_send(n, msg) < 0;
	n->unsent_extra = n->unsent ? extra : NULL;
	if (!n->unsent)
		snprintf(n->status, sizeof(n->status), "%s", text);
}

uint64_t notify_watchdog(struct notify *n, uint64_t now)
{
	if (n->fd < 0 || !n->watchdog_usec)
		return UINT64_MAX;
	if (now >= n->next_ping_usec) {
		/* Half the period, as sd_watchdog_enabled(3) advises: one late wake-up is no
		 * restart. A ping the socket did not take is tried again soon, not at once (the
		 * loop would spin while systemd is busy). */
		uint64_t half = n->watchdog_usec / 2;

		if (notify_send(n, "WATCHDOG=1") == 0)
			n->next_ping_usec = now + half;
		else
			n->next_ping_usec =
			    now + (half < NOTIFY_RETRY_USEC ? half : NOTIFY_RETRY_USEC);
	}
	return n->next_ping_usec;
}

void notify_close(struct notify *n)
{
	if (n->fd >= 0)
		sys->close(n->fd);
	n->fd = -1;
}
