/* SPDX-License-Identifier: GPL-2.0-only */
/* The reaper thread: takes a killed victim's pidfd from a bounded queue, has its caller threads
 * call process_mrelease (or waits on the pidfd), measures what was freed, and reports to the
 * main loop over a pipe within REAP_DEADLINE_MSEC, whatever the kernel does. Started at
 * start-up; never allocates. */
#ifndef OOMGUARD_DAEMON_REAPER_H
#define OOMGUARD_DAEMON_REAPER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "daemon/scope.h"

/* The kernel reaper's MAX_OOM_REAP_RETRIES and its HZ/10 step. */
#define MAX_OOM_REAP_RETRIES 10
#define OOM_REAP_STEP_MSEC   100
/* After a reap or an exit, how long and how often the scope's usage is re-read until the
 * victim's memory shows freed (reaper.c, freed_settled()). */
#define REAP_SETTLE_MSEC      100
#define REAP_SETTLE_STEP_MSEC 10
/*
 * The reaper reports on a victim at most this long after taking it, even when a
 * process_mrelease call has not come back. The call can wait without bound: it takes the
 * victim's mmap lock with mmap_read_lock_killable(), where the kernel's own reaper only tries
 * the lock (MAX_OOM_REAP_RETRIES times, HZ/10 apart, about 1 s, then MMF_OOM_SKIP), and a victim
 * stuck in the kernel holding that lock for write holds it as long as it is stuck. So: the
 * retry rule's 10 tries (1 s) and 5 steps of grace for the calls' own time and scheduling
 * delays. A call that is working is not what the deadline cuts: one caller unmaps 1 GiB of
 * 4 KiB pages in 83-88 ms here, so a first call that has the lock finishes well within it on
 * any victim under ~15 GiB. A victim not done by then is reported skipped, as the kernel's
 * MMF_OOM_SKIP; a call cut short while it was freeing memory shows in freed_bytes, which the
 * loop counts as progress, so it does not kill again at once.
 */
#define REAP_GRACE_STEPS   5
#define REAP_DEADLINE_MSEC ((MAX_OOM_REAP_RETRIES + REAP_GRACE_STEPS) * OOM_REAP_STEP_MSEC)
/*
 * The reaper and the first caller of a team run SCHED_FIFO at this priority: process_mrelease
 * does the unmapping in the caller's context, and on a loaded machine a normal-priority caller
 * waits for a CPU (measured: 1 GiB in 74-117 ms at nice 0, 50-58 ms at FIFO 1 under a load
 * average of 6 on 2 CPUs). Their work is bounded (MAX_OOM_REAP_RETRIES tries, sleeping between,
 * within REAP_DEADLINE_MSEC). The team's other callers run at normal priority: they share the
 * work out when a CPU is free and leave it to the machine when none is. A team all at realtime
 * priority holds every CPU for as long as the release lasts, and a victim whose memory is mostly
 * in zram takes long: measured in bench/machine's leak with zram, two realtime callers took
 * 1.16 s to free a victim's 1.27 GB (713 MB resident, the rest in zram), and the probe was late
 * by 1.09 s, a frozen second, in the middle of it.
 */
#define REAPER_RT_PRIORITY 1

/* The reaper thread's stack: its deepest path (log line, /proc reads) uses a few KiB. */
#define REAPER_STACK_BYTES (128 * 1024)

/*
 * Callers: the threads that make the process_mrelease calls; the reaper thread makes none
 * itself, so that it never waits on the kernel without a bound and always reports in time.
 * Each try is made by a team of callers at the same moment on the same pidfd: the kernel
 * unmaps in the callers' context and concurrent callers share the work out: two callers free a
 * frozen victim in about half the time one does, and three or four callers on 2 CPUs do no
 * better than two (docs/daemon-design.md has the figures). So a team has one caller per CPU the
 * daemon may run on, at most REAPER_TEAM_MAX; the first (caller 0) at realtime priority, the
 * others at normal, and the spares at realtime (the free callers are sent lowest first: after a
 * whole team is lost, the next is the spare alone; after a part of one, it may be caller 0 and
 * the spare, both realtime).
 *
 * A call that is not back at the deadline is left in the kernel: a thread waiting in
 * mmap_read_lock_killable() cannot be interrupted short of killing the daemon, nor joined. Its
 * callers are counted lost until they come back (the last one back closes the victim's pidfd);
 * every caller of a try waits on the same lock, so a stuck victim loses a whole team. The
 * REAPER_SPARE_CALLERS beyond the team let the next victim still be reaped while that lasts
 * (by fewer callers); with every caller lost, the reaper only waits for victims to exit, and
 * still reports in time. At most REAPER_CALLERS_MAX threads can be lost: all are made at
 * start-up, none is added later. One spare, not a second team: each thread costs about 12 KiB
 * of locked memory, and a second stuck victim at once is rarer still.
 */
#define REAPER_TEAM_MAX      4
#define REAPER_SPARE_CALLERS 1
#define REAPER_CALLERS_MAX   (REAPER_TEAM_MAX + REAPER_SPARE_CALLERS)
/* A caller only waits and makes one system call: a small stack, a few pages of it locked
 * (room left for the sanitizers' builds). */
#define REAPER_CALLER_STACK_BYTES    (64 * 1024)
#define REAPER_CALLER_PREFAULT_BYTES (8 * 1024)

/* Victims in flight at once; a kill beyond it waits for the next round. */
#define REAPER_QUEUE_LEN 16

enum reap_result {
	REAP_RELEASED, /* process_mrelease freed the address space */
	REAP_EXITED,   /* the victim exited (or its mm was gone) before or while we reaped */
	REAP_SKIPPED   /* neither reaped nor exited after all tries or by the deadline */
};

/*
 * struct reap_request - one victim.
 * @pidfd:            the reaper's own (dup'ed) pidfd; reap_one() closes it, or leaves it to
 *                    the callers still in a call at the deadline (the last one back closes it)
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
	bool dying; /* not killed by oomguard: dying already when chosen (kill.c, adopt_dying) */
};

/*
 * struct reap_report - what the reaper saw; written to the pipe in one write (< PIPE_BUF).
 * @freed_bytes:         scope usage before the kill minus after the reap (0 if it rose),
 *                       re-read for up to REAP_SETTLE_MSEC until half the RSS shows
 * @rss_after_kib:       the victim's RSS after (0 once its mm is gone)
 * @kill_to_freed_usec:  from the SIGKILL to the reap or exit
 * @err:                 the last process_mrelease error, 0 if none; ETIMEDOUT when a call was
 *                       not back by the deadline (its callers were left in the kernel)
 * @callers:             threads that made the last process_mrelease try together (0 if none
 *                       was made: reaping off, or every caller lost)
 * @kill_usec:           the SIGKILL, or for a victim @dying already, when it was taken
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
	bool dying; /* the request's */
};

/*
 * struct reap_call - one victim's pidfd while its tries are made, and the try under way.
 * @pidfd:     owned by the call from reap_one() until the last caller is back
 * @out:       callers sent on the try and not back yet
 * @ret:       the try's result so far: 0 if any caller released, else -ESRCH if any found
 *             the mm gone, else the first error back
 * @abandoned: the reaper stopped waiting (the deadline): the last caller back closes @pidfd
 *             and frees the slot
 */
struct reap_call {
	bool busy;
	bool abandoned;
	int pidfd;
	unsigned int out;
	int ret;
};

struct reap_callers;

/* struct reap_caller - one caller thread; @call is the try it is sent on, NULL when free. */
struct reap_caller {
	pthread_t thread;
	struct reap_callers *pool;
	struct reap_call *call;
};

/*
 * struct reap_callers - the caller threads and the calls they are on. One reap_one() at a time
 * uses a pool. A slot of @calls is held by the victim being reaped and by each abandoned call
 * with a caller still in it: at most REAPER_CALLERS_MAX of those, so one is always free.
 * @team:  callers sent on each try (fewer when fewer are free)
 * @lost:  callers still in a call whose victim was reported at the deadline
 * @calls: process_mrelease calls made since start (tests, the log)
 */
struct reap_callers {
	struct reap_caller caller[REAPER_CALLERS_MAX];
	struct reap_call calls[REAPER_CALLERS_MAX + 1];
	unsigned int n, team, lost;
	pthread_mutex_t lock;
	pthread_cond_t wake, done; /* done: on CLOCK_MONOTONIC, for the deadline */
	unsigned long calls_made;
	bool stop;
};

/* reap_callers_wanted() - a team for the CPUs this thread may run on: one per CPU, at most
 * REAPER_TEAM_MAX. */
unsigned int reap_callers_wanted(void);
/*
 * reap_callers_start() - start @n callers (at most REAPER_CALLERS_MAX), of which @team (at most
 * @n) are sent on each try: caller 0 and the spares SCHED_FIFO like the reaper, the team's
 * others at normal priority (with `realtime = no`, all as started). p->n says how many started.
 * Return: 0 or -errno of the first that failed.
 */
int reap_callers_start(struct reap_callers *p, unsigned int team, unsigned int n);
/*
 * reap_callers_stop() - stop the callers, with no reap_one() running: the free ones are
 * joined, the lost ones detached (they leave once back from the kernel; that may be never,
 * until the process exits, which ends them). So it returns at once. With a caller left, @p must
 * stay allocated, and not be started again.
 */
void reap_callers_stop(struct reap_callers *p);
/* reap_callers_lost() - callers still in a call past its deadline. */
unsigned int reap_callers_lost(struct reap_callers *p);

struct reaper {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct reap_request queue[REAPER_QUEUE_LEN];
	unsigned int head, count;
	bool stop, started;
	bool reap; /* false: only wait for the victim to exit (reaping off) */
	int report_rd, report_wr;
	struct reap_callers callers;
	char scratch[4096];
};

/* reaper_start() - the pipe, the callers (a team of reap_callers_wanted() and
 * REAPER_SPARE_CALLERS more) and the thread. Callers that cannot start are logged and the
 * reaper works with fewer; with none it does not start. Return: 0 or -errno. */
int reaper_start(struct reaper *r, bool reap);
/* reaper_submit() - queue @req (the reaper owns req->pidfd from here). -EAGAIN when full. */
int reaper_submit(struct reaper *r, const struct reap_request *req);
/* reaper_read_report() - one report from the pipe. 1 when read, 0 when none, -errno. */
int reaper_read_report(struct reaper *r, struct reap_report *ret_report);
/* reaper_set_reap() - turn process_mrelease on or off for the next requests (SIGHUP). */
void reaper_set_reap(struct reaper *r, bool reap);
/* reaper_busy() - requests queued or being worked on. */
bool reaper_busy(struct reaper *r);
/* reaper_queued() - how many: each may take REAP_DEADLINE_MSEC before the next is started. */
unsigned int reaper_queued(struct reaper *r);
/*
 * reaper_stop() - let the reaper finish the victim in progress (so within REAP_DEADLINE_MSEC
 * and a measure), drop the queued ones, stop the callers (reap_callers_stop(): lost ones are
 * left in the kernel, detached). With a caller left, @r must stay allocated, and not be
 * started again. The reports it wrote stay readable until reaper_release().
 */
void reaper_stop(struct reaper *r);

/* reaper_release() - after reaper_stop() and the last reports read: close the report pipe. */
void reaper_release(struct reaper *r);

/*
 * reap_one() - the reaper's work on one request, synchronously (the thread, tests, the bench):
 * up to MAX_OOM_REAP_RETRIES tries, each a process_mrelease call by a team of @callers on the
 * victim's pidfd, and all within REAP_DEADLINE_MSEC. A try whose callers are all back before
 * the deadline is judged; one with a caller still out at the deadline is left, and the victim
 * reported skipped (err ETIMEDOUT). Closes req->pidfd, or leaves it to the lost callers.
 * @reap:     false: make no call, only wait for the victim to exit
 * @callers:  a started pool (none free, or NULL: no call is made, as with @reap false)
 */
void reap_one(const struct reap_request *req, bool reap, struct reap_callers *callers,
	      char *scratch, size_t size, struct reap_report *ret_report);

/* reaper_raise_priority() - make the calling thread SCHED_FIFO REAPER_RT_PRIORITY, unless
 * reaper_set_realtime(false) said not to (then it does nothing). 0 or -errno. */
int reaper_raise_priority(void);
/* reaper_set_realtime() - whether reaper_raise_priority() raises (the `realtime` key); called
 * before reaper_start(). */
void reaper_set_realtime(bool on);

/* now_usec() - CLOCK_MONOTONIC in microseconds. */
uint64_t now_usec(void);

#endif
