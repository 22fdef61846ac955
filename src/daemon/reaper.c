// SPDX-License-Identifier: GPL-2.0-only
/* The reaper thread (lmkd's shape: bounded queue in, reports out over a pipe), with the
 * kernel reaper's retry rule: MAX_OOM_REAP_RETRIES tries, OOM_REAP_STEP_MSEC apart, all within
 * REAP_DEADLINE_MSEC; its process_mrelease calls are made by caller threads (reaper.h: why). */
#include "daemon/reaper.h"

#include "daemon/prefault.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "daemon/log.h"
#include "linux/procfs.h"
#include "linux/sys.h"

uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* The result of a try so far (1: none back yet) with one more caller's @r: a release wins
 * (callers share the unmapping out), then a gone mm, then the first error. */
static int merge_result(int so_far, int r)
{
	if (so_far == 0 || r == 0)
		return 0;
	if (so_far == -ESRCH || r == -ESRCH)
		return -ESRCH;
	return so_far == 1 ? r : so_far;
}

/* A caller back from @call with @r; p->lock held. */
static void call_back(struct reap_callers *p, struct reap_call *call, int r)
{
	p->calls_made++;
	call->ret = merge_result(call->ret, r);
	if (!call->abandoned) {
		if (--call->out == 0)
			pthread_cond_signal(&p->done);
		return;
	}
	/* The reaper has reported this victim and left the pidfd to us. Close it before the
	 * lost count drops: who sees none lost sees every caller done with the table. */
	if (call->out == 1) {
		sys->close(call->pidfd);
		call->pidfd = -1;
		call->abandoned = false;
		call->busy = false;
	}
	call->out--;
	p->lost--;
}

static void caller_lower_priority(void);

static void *caller_main(void *arg)
{
	struct reap_caller *c = arg;
	struct reap_callers *p = c->pool;

	/* One caller of a team at realtime priority, the rest at normal (reaper.h): the reaper
	 * logs it if FIFO is refused, so would this. A thread may always lower its own. */
	if (c == &p->caller[0] || c >= &p->caller[p->team])
		reaper_raise_priority();
	else
		caller_lower_priority();
	prefault_stack(REAPER_CALLER_PREFAULT_BYTES);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct reap_call *call;
		int pidfd, r;

		while (!c->call && !p->stop)
			pthread_cond_wait(&p->wake, &p->lock);
		if (!c->call)
			break;
		call = c->call;
		pidfd = call->pidfd; /* stays open until we are back: call_back() */
		pthread_mutex_unlock(&p->lock);
		r = sys->process_mrelease(pidfd, 0);
		pthread_mutex_lock(&p->lock);
		c->call = NULL;
		call_back(p, call, r);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

unsigned int reap_callers_wanted(void)
{
	cpu_set_t set;
	int cpus;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	cpus = CPU_COUNT(&set);
	if (cpus <= 1)
		return 1;
	return cpus < REAPER_TEAM_MAX ? (unsigned int)cpus : REAPER_TEAM_MAX;
}

int reap_callers_start(struct reap_callers *p, unsigned int team, unsigned int n)
{
	pthread_condattr_t cattr;
	pthread_attr_t attr;
	int err;

	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < sizeof(p->calls) / sizeof(p->calls[0]); i++)
		p->calls[i].pidfd = -1;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	/* The deadline is on CLOCK_MONOTONIC (now_usec()): a clock set back must not extend it. */
	pthread_condattr_init(&cattr);
	pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
	pthread_cond_init(&p->done, &cattr);
	pthread_condattr_destroy(&cattr);
	if (n > REAPER_CALLERS_MAX)
		n = REAPER_CALLERS_MAX;
	p->team = team < n ? team : n;
	err = -pthread_attr_init(&attr);
	if (err)
		return err;
	err = -pthread_attr_setstacksize(&attr, REAPER_CALLER_STACK_BYTES);
	while (!err && p->n < n) {
		struct reap_caller *c = &p->caller[p->n];

		c->pool = p;
		err = -pthread_create(&c->thread, &attr, caller_main, c);
		if (!err)
			p->n++;
	}
	pthread_attr_destroy(&attr);
	return err;
}

void reap_callers_stop(struct reap_callers *p)
{
	pthread_t join[REAPER_CALLERS_MAX];
	unsigned int n_join = 0, left = 0;

	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->wake);
	for (unsigned int i = 0; i < p->n; i++) {
		if (p->caller[i].call) {
			/* In the kernel, maybe for good: joining could hang. Once back it sees
			 * stop and leaves, and the C library frees its stack. */
			pthread_detach(p->caller[i].thread);
			left++;
		} else {
			join[n_join++] = p->caller[i].thread;
		}
	}
	p->n = 0;
	pthread_mutex_unlock(&p->lock);
	for (unsigned int i = 0; i < n_join; i++)
		pthread_join(join[i], NULL);
	if (left)
		log_msg(LOG_PRIO_WARNING,
			"reaper: %u callers still in process_mrelease at stop: left in the kernel",
			left);
}

unsigned int reap_callers_lost(struct reap_callers *p)
{
	unsigned int lost;

	pthread_mutex_lock(&p->lock);
	lost = p->lost;
	pthread_mutex_unlock(&p->lock);
	return lost;
}

/* A free slot for the victim's @pidfd: one always is (struct reap_callers). */
static struct reap_call *call_get(struct reap_callers *p, int pidfd)
{
	struct reap_call *call = NULL;

	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; i < sizeof(p->calls) / sizeof(p->calls[0]) && !call; i++) {
		if (!p->calls[i].busy)
			call = &p->calls[i];
	}
	if (call) {
		call->busy = true;
		call->abandoned = false;
		call->pidfd = pidfd;
		call->out = 0;
	}
	pthread_mutex_unlock(&p->lock);
	return call;
}

/*
 * One try: up to p->team free callers call process_mrelease on @call's pidfd at once; wait
 * until all are back, or until @deadline_usec. Return: the callers sent (0: none was free, no
 * call made); *@ret_r the try's result, -ETIMEDOUT when a caller is still out at the deadline.
 */
static unsigned int call_try(struct reap_callers *p, struct reap_call *call, uint64_t deadline_usec,
			     int *ret_r)
{
	struct timespec ts = {.tv_sec = (time_t)(deadline_usec / 1000000u),
			      .tv_nsec = (long)(deadline_usec % 1000000u) * 1000};
	unsigned int sent = 0;

	pthread_mutex_lock(&p->lock);
	call->ret = 1;
	for (unsigned int i = 0; i < p->n && sent < p->team; i++) {
		if (!p->caller[i].call) {
			p->caller[i].call = call;
			sent++;
		}
	}
	call->out = sent;
	if (sent)
		pthread_cond_broadcast(&p->wake);
	while (call->out && pthread_cond_timedwait(&p->done, &p->lock, &ts) != ETIMEDOUT)
		;
	*ret_r = call->out ? -ETIMEDOUT : call->ret;
	pthread_mutex_unlock(&p->lock);
	return sent;
}

/* Done with @call's victim: close its pidfd, or leave it to the callers still out (counted
 * lost). Return: how many were left. */
static unsigned int call_put(struct reap_callers *p, struct reap_call *call)
{
	unsigned int left;
	int pidfd = -1;

	pthread_mutex_lock(&p->lock);
	left = call->out;
	if (left) {
		call->abandoned = true;
		p->lost += left;
	} else {
		pidfd = call->pidfd;
		call->pidfd = -1;
		call->busy = false;
	}
	pthread_mutex_unlock(&p->lock);
	if (pidfd >= 0)
		sys->close(pidfd);
	return left;
}

/* Milliseconds from now to @deadline_usec (0 once past), at most @max_msec. */
static int msec_until(uint64_t deadline_usec, int max_msec)
{
	uint64_t now = now_usec();
	uint64_t msec = now >= deadline_usec ? 0 : (deadline_usec - now + 999) / 1000;

	return msec < (uint64_t)max_msec ? (int)msec : max_msec;
}

/* The tries, until the victim is released or gone, or the tries or the time are up. */
static void reap_tries(const struct reap_request *req, struct reap_callers *p,
		       struct reap_call *call, uint64_t deadline_usec, struct reap_report *rep)
{
	bool mrelease = call != NULL, told = false;

	for (rep->tries = 1; rep->tries <= MAX_OOM_REAP_RETRIES; rep->tries++) {
		int r = 0;
		unsigned int sent = mrelease ? call_try(p, call, deadline_usec, &r) : 0;

		if (sent) {
			rep->callers = (int)sent;
			if (r == 0) {
				rep->result = REAP_RELEASED;
				return;
			}
			rep->err = -r;
			if (r == -ETIMEDOUT) /* left in the kernel: reported skipped */
				return;
			if (r == -ESRCH) {
				/* All threads are past exit_mm: the exit is freeing the memory.
				 * Wait for it to finish (bounded) so the measure is after. */
				int left = MAX_OOM_REAP_RETRIES - rep->tries + 1;

				sys_pidfd_exited(req->pidfd, msec_until(deadline_usec,
									left * OOM_REAP_STEP_MSEC));
				rep->result = REAP_EXITED;
				return;
			}
			if (r == -ENOSYS) /* no process_mrelease: wait on the pidfd instead */
				mrelease = false;
			/* EAGAIN (mmap lock busy), EINTR, EINVAL (not dying yet): retry. */
		} else if (mrelease && !told) {
			log_msg(
			    LOG_PRIO_WARNING,
			    "reaper: no free caller for pid=%d (%u left in the kernel): waiting "
			    "for it to exit",
			    req->pid, reap_callers_lost(p));
			told = true;
		}
		if (sys_pidfd_exited(req->pidfd, msec_until(deadline_usec, OOM_REAP_STEP_MSEC))) {
			rep->result = REAP_EXITED;
			return;
		}
		/* Less than a step left: a try now could not be waited for (its callers would be
		 * left out for nothing). */
		if (msec_until(deadline_usec, OOM_REAP_STEP_MSEC) < OOM_REAP_STEP_MSEC)
			return;
	}
	rep->tries = MAX_OOM_REAP_RETRIES;
}

/* The scope's usage before the kill minus now (0 if it rose or cannot be read). */
static uint64_t freed_now(const struct reap_request *req, char *scratch, size_t size)
{
	uint64_t after;

	if (scope_usage_bytes(req->scope, scratch, size, &after) < 0 ||
	    after >= req->usage_before_bytes)
		return 0;
	return req->usage_before_bytes - after;
}

/*
 * What the victim gave back, once it shows. A victim reaped or exited has freed its pages, but
 * the scope's usage may say so a little later: the exit's last mmput() can fall to a reader
 * of its /proc files that held the mm (that reader's thread then frees it), and pages wait in
 * per-CPU batches. Measured once at once, a victim that exited 187 us after its kill showed
 * 0 freed. So re-read every REAP_SETTLE_STEP_MSEC while less than half its RSS shows freed,
 * for at most REAP_SETTLE_MSEC and never past the deadline; a victim left alive is read once.
 */
static uint64_t freed_settled(const struct reap_request *req, const struct reap_report *rep,
			      uint64_t deadline_usec, char *scratch, size_t size)
{
	uint64_t until = now_usec() + REAP_SETTLE_MSEC * 1000ull;
	uint64_t freed = freed_now(req, scratch, size);

	if (rep->result == REAP_SKIPPED)
		return freed;
	if (until > deadline_usec)
		until = deadline_usec;
	while (freed < req->rss_kib * 1024 / 2 && now_usec() < until) {
		sys->poll(NULL, 0, msec_until(until, REAP_SETTLE_STEP_MSEC));
		freed = freed_now(req, scratch, size);
	}
	return freed;
}

void reap_one(const struct reap_request *req, bool reap, struct reap_callers *callers,
	      char *scratch, size_t size, struct reap_report *ret_report)
{
	uint64_t deadline_usec = now_usec() + REAP_DEADLINE_MSEC * 1000ull;
	struct reap_call *call = reap && callers ? call_get(callers, req->pidfd) : NULL;
	struct reap_report rep;
	struct pid_status ss;
	unsigned int left = 0;

	memset(&rep, 0, sizeof(rep));
	rep.pid = req->pid;
	memcpy(rep.comm, req->comm, sizeof(rep.comm));
	rep.scope = req->scope;
	rep.rss_kib = req->rss_kib;
	rep.detect_usec = req->detect_usec;
	rep.kill_usec = req->kill_usec;
	rep.dying = req->dying;
	rep.result = REAP_SKIPPED;
	reap_tries(req, callers, call, deadline_usec, &rep);
	rep.kill_to_freed_usec = now_usec() - req->kill_usec;
	rep.freed_bytes = freed_settled(req, &rep, deadline_usec, scratch, size);
	if (read_pid_status(req->scope->root, req->pid, scratch, size, &ss) == 0)
		rep.rss_after_kib = ss.rss_kib;
	if (call)
		left = call_put(callers, call);
	else
		sys->close(req->pidfd);
	if (left)
		log_msg(LOG_PRIO_WARNING,
			"reaper: process_mrelease on pid=%d not back after %d ms: %u callers left "
			"in the kernel, %u of %u lost",
			req->pid, REAP_DEADLINE_MSEC, left, reap_callers_lost(callers), callers->n);
	*ret_report = rep;
}

/* Process-wide, like the scheduling class it chooses: set once before the threads start. */
static bool realtime_wanted = true;

void reaper_set_realtime(bool on)
{
	realtime_wanted = on;
}

/* A caller of a team beyond its first: normal priority, unless realtime is not wanted at all
 * (then nothing is asked for, as reaper_raise_priority() asks for nothing). */
static void caller_lower_priority(void)
{
	struct sched_param sp = {.sched_priority = 0};

	if (realtime_wanted)
		sys->sched_setscheduler_self(SCHED_OTHER, &sp);
}

int reaper_raise_priority(void)
{
	struct sched_param sp = {.sched_priority = REAPER_RT_PRIORITY};

	if (!realtime_wanted)
		return 0;
	return sys->sched_setscheduler_self(SCHED_FIFO, &sp);
}

/*
 * The report to the loop, which holds the victim's scope back until it comes (kill_pending): a
 * report lost would keep that scope from ever killing again. A report is one pipe write of less
 * than PIPE_BUF bytes, all or nothing; it fails on a signal (EINTR), or with ENOMEM when the
 * pipe needs a page and memory is exhausted, the moment the reaper works in: tried again, at
 * once after a signal, OOM_REAP_STEP_MSEC later after ENOMEM, MAX_OOM_REAP_RETRIES times.
 */
static void report_send(struct reaper *r, const struct reap_report *rep)
{
	ssize_t n = -EINTR;

	for (int i = 0; i < MAX_OOM_REAP_RETRIES; i++) {
		n = sys->write(r->report_wr, rep, sizeof(*rep));
		if (n != -EINTR && n != -ENOMEM && n != -EAGAIN)
			break;
		if (n != -EINTR)
			sys->poll(NULL, 0, OOM_REAP_STEP_MSEC);
	}
	if (n != (ssize_t)sizeof(*rep))
		log_errno(n < 0 ? (int)n : -EIO,
			  "reaper: report on pid=%d lost: scope=%s waits for it, and kills no more",
			  rep->pid, rep->scope ? rep->scope->name : "?");
}

static void *reaper_main(void *arg)
{
	struct reaper *r = arg;
	int err = reaper_raise_priority();

	prefault_stack(
	    PREFAULT_STACK_BYTES); /* locked now (mlockall MCL_FUTURE), not at the first reap */

	if (err)
		log_errno(err, "reaper: cannot run SCHED_FIFO (reaping at normal priority)");

	for (;;) {
		struct reap_request req;
		struct reap_report rep;
		bool reap;

		pthread_mutex_lock(&r->lock);
		while (!r->count && !r->stop)
			pthread_cond_wait(&r->wake, &r->lock);
		if (r->stop) {
			pthread_mutex_unlock(&r->lock);
			break;
		}
		req = r->queue[r->head];
		reap = r->reap;
		pthread_mutex_unlock(&r->lock);

		reap_one(&req, reap, &r->callers, r->scratch, sizeof(r->scratch), &rep);
		report_send(r, &rep);

		pthread_mutex_lock(&r->lock);
		r->head = (r->head + 1) % REAPER_QUEUE_LEN;
		r->count--;
		pthread_mutex_unlock(&r->lock);
	}
	return NULL;
}

int reaper_start(struct reaper *r, bool reap)
{
	unsigned int team = reap_callers_wanted();
	pthread_attr_t attr;
	int fds[2], err;

	memset(r, 0, sizeof(*r));
	r->reap = reap;
	r->report_rd = r->report_wr = -1;
	err = sys->pipe2(fds, 0);
	if (err < 0)
		return err;
	r->report_rd = fds[0];
	r->report_wr = fds[1];
	err = sys->fcntl(r->report_rd, F_SETFL, O_NONBLOCK);
	if (err < 0)
		goto fail;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->wake, NULL);
	err = reap_callers_start(&r->callers, team, team + REAPER_SPARE_CALLERS);
	if (!r->callers.n) {
		err = err ? err : -EAGAIN;
		goto fail;
	}
	if (err)
		log_errno(err, "reaper: %u of %u caller threads started", r->callers.n,
			  team + REAPER_SPARE_CALLERS);
	/* A stack of known size under any C library (glibc's default is 8 MiB, musl's 128 KiB). */
	err = -pthread_attr_init(&attr);
	if (!err) {
		err = -pthread_attr_setstacksize(&attr, REAPER_STACK_BYTES);
		if (!err)
			err = -pthread_create(&r->thread, &attr, reaper_main, r);
		pthread_attr_destroy(&attr);
	}
	if (err) {
		reap_callers_stop(&r->callers);
		goto fail;
	}
	r->started = true;
	return 0;
fail:
	sys->close(fds[0]);
	sys->close(fds[1]);
	r->report_rd = r->report_wr = -1;
	return err;
}

int reaper_submit(struct reaper *r, const struct reap_request *req)
{
	int ret = 0;

	pthread_mutex_lock(&r->lock);
	if (r->count >= REAPER_QUEUE_LEN) {
		ret = -EAGAIN;
	} else {
		r->queue[(r->head + r->count) % REAPER_QUEUE_LEN] = *req;
		r->count++;
		pthread_cond_signal(&r->wake);
	}
	pthread_mutex_unlock(&r->lock);
	return ret;
}

void reaper_set_reap(struct reaper *r, bool reap)
{
	pthread_mutex_lock(&r->lock);
	r->reap = reap;
	pthread_mutex_unlock(&r->lock);
}

bool reaper_busy(struct reaper *r)
{
	return reaper_queued(r) > 0;
}

unsigned int reaper_queued(struct reaper *r)
{
	unsigned int n;

	pthread_mutex_lock(&r->lock);
	n = r->count;
	pthread_mutex_unlock(&r->lock);
	return n;
}

int reaper_read_report(struct reaper *r, struct reap_report *ret_report)
{
	ssize_t n = sys->read(r->report_rd, ret_report, sizeof(*ret_report));

	if (n == -EAGAIN)
		return 0;
	if (n < 0)
		return (int)n;
	return n == (ssize_t)sizeof(*ret_report) ? 1 : -EIO;
}

void reaper_stop(struct reaper *r)
{
	if (!r->started)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->thread, NULL); /* bounded: it makes no call, and reports in time */
	reap_callers_stop(&r->callers);
	/* Requests never worked on still own their pidfds. */
	for (unsigned int i = 0; i < r->count; i++)
		sys->close(r->queue[(r->head + i) % REAPER_QUEUE_LEN].pidfd);
	sys->close(r->report_wr);
	r->report_wr = -1;
	r->started = false;
}

void reaper_release(struct reaper *r)
{
	if (r->report_rd >= 0)
		sys->close(r->report_rd);
	r->report_rd = -1;
}
