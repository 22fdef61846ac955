/* SPDX-License-Identifier: GPL-2.0-only */
/* The reaper thread: takes a killed victim's pidfd from a bounded queue, calls
 * process_mrelease (or waits on the pidfd), measures what was freed, and reports to the main
 * loop over a pipe. Started at start-up; never allocates. */
#ifndef OOMGUARD_DAEMON_REAPER_H
#define OOMGUARD_DAEMON_REAPER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "daemon/scope.h"

/* The kernel reaper's MAX_OOM_REAP_RETRIES and its HZ/10 step. */
#define MAX_OOM_REAP_RETRIES 10
#define OOM_REAP_STEP_MSEC   100
/*
 * The reaper thread runs SCHED_FIFO at this priority: process_mrelease does the unmapping in
 * the caller's context, and on a loaded machine a normal-priority caller waits for a CPU
 * (measured: 1 GiB in 74-117 ms at nice 0, 50-58 ms at FIFO 1 under a load average of 6 on
 * 2 CPUs). Its work is bounded (MAX_OOM_REAP_RETRIES calls, sleeping between).
 */
#define REAPER_RT_PRIORITY 1

/* The reaper thread's stack: its deepest path (log line, /proc reads) uses a few KiB. */
#define REAPER_STACK_BYTES (128 * 1024)

/*
 * Helpers: threads that call process_mrelease on the reaper's victim at the same time as the
 * reaper. The kernel unmaps in the callers' context and concurrent callers share the work out:
 * two callers free a frozen victim in about half the time one does, and three or four callers
 * on 2 CPUs do no better than two (docs/daemon-design.md has the figures). So one helper per
 * CPU the daemon may run on beyond the first, at most REAPER_HELPERS_MAX.
 */
#define REAPER_HELPERS_MAX 3
/* A helper only waits and makes one system call: a small stack, a few pages of it locked
 * (room left for the sanitizers' builds). */
#define REAPER_HELPER_STACK_BYTES    (64 * 1024)
#define REAPER_HELPER_PREFAULT_BYTES (8 * 1024)

/* Victims in flight at once; a kill beyond it waits for the next round. */
#define REAPER_QUEUE_LEN 16

enum reap_result {
	REAP_RELEASED, /* process_mrelease freed the address space */
	REAP_EXITED,   /* the victim exited (or its mm was gone) before or while we reaped */
	REAP_SKIPPED   /* neither reaped nor exited after all tries: choose another */
};

/*
 * struct reap_request - one victim.
 * @pidfd:            the reaper's own (dup'ed) pidfd; it closes it
 * @scope:            the scope whose usage is measured before and after; it comes back in
 *                    the report (scopes are not replaced while a victim is with the reaper).
 *                    The reaper reads only what does not change after set-up: kind, root, dir
 */
struct reap_request {
	int pidfd;
	int pid;
	char comm[16];
	struct scope *scope;
	uint64_t rss_kib;
	uint64_t usage_before_bytes;
	uint64_t detect_usec, kill_usec;
};

/*
 * struct reap_report - what the reaper saw; written to the pipe in one write (< PIPE_BUF).
 * @freed_bytes:         scope usage before the kill minus after the reap (0 if it rose)
 * @rss_after_kib:       the victim's RSS after (0 once its mm is gone)
 * @kill_to_freed_usec:  from the SIGKILL to the reap or exit
 * @err:                 the last process_mrelease error, 0 if none
 * @callers:             threads that called process_mrelease together (1 + helpers; 0 if
 *                       it was not called)
 */
struct reap_report {
	int pid;
	char comm[16];
	struct scope *scope;
	enum reap_result result;
	int tries;
	int err;
	int callers;
	uint64_t rss_kib, rss_after_kib;
	uint64_t freed_bytes;
	uint64_t detect_usec, kill_usec, kill_to_freed_usec;
};

/*
 * struct reap_helpers - the helper threads and the one job they share.
 * @pidfd:   the victim of the current job (owned by the reaper; kept open until all are done)
 * @job:     bumped for each job; a helper works once per value
 * @working: helpers not yet back from the current job's call
 * @calls:   process_mrelease calls made by helpers since start (tests, the log)
 */
struct reap_helpers {
	pthread_t thread[REAPER_HELPERS_MAX];
	unsigned int n;
	pthread_mutex_t lock;
	pthread_cond_t wake, done;
	int pidfd;
	unsigned long job;
	unsigned int working;
	unsigned long calls;
	bool stop;
};

/* reap_helpers_wanted() - helpers for the CPUs this thread may run on (0 on one CPU). */
unsigned int reap_helpers_wanted(void);
/* reap_helpers_start() - start up to @n (at most REAPER_HELPERS_MAX) helpers, SCHED_FIFO like
 * the reaper. h->n says how many started. Return: 0 or -errno of the first that failed. */
int reap_helpers_start(struct reap_helpers *h, unsigned int n);
void reap_helpers_stop(struct reap_helpers *h);

struct reaper {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct reap_request queue[REAPER_QUEUE_LEN];
	unsigned int head, count;
	bool stop, started;
	bool reap; /* false: only wait for the victim to exit (reaping off) */
	int report_rd, report_wr;
	struct reap_helpers helpers;
	char scratch[4096];
};

/* reaper_start() - the pipe, the thread and its helpers (reap_helpers_wanted()); a helper
 * that cannot start is logged and the reaper works with fewer. Return: 0 or -errno. */
int reaper_start(struct reaper *r, bool reap);
/* reaper_submit() - queue @req (the reaper owns req->pidfd from here). -EAGAIN when full. */
int reaper_submit(struct reaper *r, const struct reap_request *req);
/* reaper_read_report() - one report from the pipe. 1 when read, 0 when none, -errno. */
int reaper_read_report(struct reaper *r, struct reap_report *ret_report);
/* reaper_set_reap() - turn process_mrelease on or off for the next requests (SIGHUP). */
void reaper_set_reap(struct reaper *r, bool reap);
/* reaper_busy() - requests queued or being worked on. */
bool reaper_busy(struct reaper *r);
void reaper_stop(struct reaper *r);

/* reap_one() - the reaper's work on one request, synchronously (the thread and tests). Each
 * process_mrelease call is shared with @helpers (NULL or none started: alone); it returns only
 * once every helper is back from the victim's pidfd. */
void reap_one(const struct reap_request *req, bool reap, struct reap_helpers *helpers,
	      char *scratch, size_t size, struct reap_report *ret_report);

/* reaper_raise_priority() - make the calling thread SCHED_FIFO REAPER_RT_PRIORITY. 0 or -errno. */
int reaper_raise_priority(void);

/* now_usec() - CLOCK_MONOTONIC in microseconds. */
uint64_t now_usec(void);

#endif
