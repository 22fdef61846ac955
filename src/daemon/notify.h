/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * systemd's notification protocol, without libsystemd: one datagram per message to the socket
 * $NOTIFY_SOCKET names (a path, or '@' for an abstract name). READY=1 once the loop runs,
 * STATUS= when the last verdict changes, WATCHDOG=1 from the loop at half of $WATCHDOG_USEC,
 * RELOADING=1 and STOPPING=1. The socket is opened at start-up; a send never blocks (a
 * datagram the socket cannot take now is dropped and counted) and never allocates.
 */
#ifndef OOMGUARD_DAEMON_NOTIFY_H
#define OOMGUARD_DAEMON_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

/* A watchdog ping the socket did not take is tried again this much later (or at half the
 * period, when that is shorter): soon enough for any period systemd allows, without spinning. */
#define NOTIFY_RETRY_USEC 100000ull

/* A STATUS= text: a verdict's scope path (CONFIG_PATH_MAX) and its words. */
#define NOTIFY_STATUS_MAX 768

/*
 * struct notify - the supervisor's socket and the watchdog. A closed descriptor is -1.
 * @fd:             datagram socket, -1 when $NOTIFY_SOCKET is unset or could not be used
 * @watchdog_usec:  $WATCHDOG_USEC when the watchdog is ours ($WATCHDOG_PID unset or ours), or 0
 * @next_ping_usec: when the loop sends the next WATCHDOG=1
 * @status:         the STATUS= text last sent: a new one goes only when it differs
 * @dropped:        datagrams the socket did not take since the last that went through
 * @last_err:       the error of the last send (0: it went through), said once when it changes
 * @unsent:         the last notify_status() did not go through: the next call sends again
 * @unsent_extra:   what it carried before STATUS= ("READY=1\n"), sent again with it
 */
struct notify {
	int fd;
	struct sockaddr_un addr;
	socklen_t addr_len;
	uint64_t watchdog_usec;
	uint64_t next_ping_usec;
	char status[NOTIFY_STATUS_MAX];
	unsigned long dropped;
	int last_err;
	bool unsent;
	const char *unsent_extra;
};

/* notify_init() - @n closed: nothing is sent. */
void notify_init(struct notify *n);

/*
 * notify_open() - read $NOTIFY_SOCKET, $WATCHDOG_USEC and $WATCHDOG_PID (@self_pid: ours) and
 * remove them from the environment (children do not speak for the daemon), open the socket.
 * Return: 0 (also when $NOTIFY_SOCKET is unset), or -errno with the reason in @err: nothing
 * will be sent then, and the daemon runs on.
 */
int notify_open(struct notify *n, int self_pid, char *err, size_t errsize);

/* notify_send() - @msg as one datagram, without waiting. Return: 0 or -errno (counted). */
int notify_send(struct notify *n, const char *msg);

/*
 * notify_status() - "STATUS=@text" (with @extra lines before it, "READY=1\n" or NULL, a static
 * string), sent when @text differs from the last one sent or @extra is given. One the socket
 * did not take (READY=1 above all: systemd waits for it) goes again at the next call, with
 * its @extra if the new call has none (@n->unsent tells the caller to call).
 */
void notify_status(struct notify *n, const char *extra, const char *text);

/*
 * notify_watchdog() - WATCHDOG=1 when it is due at @now (the loop calls it every pass).
 * Return: when the next one is due (UINT64_MAX without a watchdog): the loop wakes by then.
 */
uint64_t notify_watchdog(struct notify *n, uint64_t now);

/* notify_close() - close the socket (after STOPPING=1). */
void notify_close(struct notify *n);

#endif
