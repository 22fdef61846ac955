// SPDX-License-Identifier: GPL-2.0-only
/* The reaper thread (lmkd's shape: bounded queue in, reports out over a pipe), with the
 * kernel reaper's retry rule: MAX_OOM_REAP_RETRIES tries, OOM_REAP_STEP_MSEC apart. */
#include "daemon/reaper.h"

#include "daemon/prefault.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/log.h"
#include "linux/procfs.h"
#include "linux/sys.h"

uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void *helper_main(void *arg)
{
	struct reap_helpers *h = arg;
	unsigned long seen = 0; /* the job count at start: a job posted before we wait is new */

	reaper_raise_priority(); /* the reaper logs it if FIFO is refused: so would this */
	prefault_stack(REAPER_HELPER_PREFAULT_BYTES);
	pthread_mutex_lock(&h->lock);
	for (;;) {
		int pidfd;

		while (h->job == seen && !h->stop)
			pthread_cond_wait(&h->wake, &h->lock);
		if (h->stop)
			break;
		seen = h->job;
		pidfd = h->pidfd;
		pthread_mutex_unlock(&h->lock);
		/* Its result is the reaper's to judge: it calls too, and after us its call
		 * returns at once if the address space is already released. */
		sys->process_mrelease(pidfd, 0);
		pthread_mutex_lock(&h->lock);
		h->calls++;
		if (--h->working == 0)
			pthread_cond_signal(&h->done);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

unsigned int reap_helpers_wanted(void)
{
	cpu_set_t set;
	int cpus;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 0;
	cpus = CPU_COUNT(&set);
	if (cpus <= 1)
		return 0;
	return cpus - 1 < REAPER_HELPERS_MAX ? (unsigned int)cpus - 1 : REAPER_HELPERS_MAX;
}

int reap_helpers_start(struct reap_helpers *h, unsigned int n)
{
	pthread_attr_t attr;
	int err;

	memset(h, 0, sizeof(*h));
	h->pidfd = -1;
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->wake, NULL);
	pthread_cond_init(&h->done, NULL);
	if (n > REAPER_HELPERS_MAX)
		n = REAPER_HELPERS_MAX;
	err = -pthread_attr_init(&attr);
	if (err)
		return err;
	err = -pthread_attr_setstacksize(&attr, REAPER_HELPER_STACK_BYTES);
	while (!err && h->n < n) {
		err = -pthread_create(&h->thread[h->n], &attr, helper_main, h);
		if (!err)
			h->n++;
	}
	pthread_attr_destroy(&attr);
	return err;
}

void reap_helpers_stop(struct reap_helpers *h)
{
	pthread_mutex_lock(&h->lock);
	h->stop = true;
	pthread_cond_broadcast(&h->wake);
	pthread_mutex_unlock(&h->lock);
	for (unsigned int i = 0; i < h->n; i++)
		pthread_join(h->thread[i], NULL);
	h->n = 0;
}

/* One process_mrelease call on @pidfd, shared with the helpers. Return: the reaper's own. */
static int mrelease_shared(struct reap_helpers *h, int pidfd)
{
	int r;

	if (!h || !h->n)
		return sys->process_mrelease(pidfd, 0);
	pthread_mutex_lock(&h->lock);
	h->pidfd = pidfd;
	h->working = h->n;
	h->job++;
	pthread_cond_broadcast(&h->wake);
	pthread_mutex_unlock(&h->lock);
	r = sys->process_mrelease(pidfd, 0);
	/* The pidfd is closed after we return: wait for every helper to be done with it. Each
	 * does one call, as bounded as ours. */
	pthread_mutex_lock(&h->lock);
	while (h->working)
		pthread_cond_wait(&h->done, &h->lock);
	pthread_mutex_unlock(&h->lock);
	return r;
}

void reap_one(const struct reap_request *req, bool reap, struct reap_helpers *helpers,
	      char *scratch, size_t size, struct reap_report *ret_report)
{
	struct reap_report rep;
	struct pid_status ss;
	uint64_t usage_after = 0;
	bool mrelease = reap;

	memset(&rep, 0, sizeof(rep));
	rep.pid = req->pid;
	memcpy(rep.comm, req->comm, sizeof(rep.comm));
	rep.scope = req->scope;
	rep.rss_kib = req->rss_kib;
	rep.detect_usec = req->detect_usec;
	rep.kill_usec = req->kill_usec;
	rep.result = REAP_SKIPPED;
	for (rep.tries = 1; rep.tries <= MAX_OOM_REAP_RETRIES; rep.tries++) {
		if (mrelease) {
			int r = mrelease_shared(helpers, req->pidfd);

			rep.callers = 1 + (helpers ? (int)helpers->n : 0);
			if (r == 0) {
				rep.result = REAP_RELEASED;
				break;
			}
			rep.err = -r;
			if (r == -ESRCH) {
				/* All threads are past exit_mm: the exit is freeing the memory.
				 * Wait for it to finish (bounded) so the measure is after. */
				sys_pidfd_exited(req->pidfd, OOM_REAP_STEP_MSEC *
							  (MAX_OOM_REAP_RETRIES - rep.tries + 1));
				rep.result = REAP_EXITED;
				break;
			}
			if (r == -ENOSYS) /* no process_mrelease: wait on the pidfd instead */
				mrelease = false;
			/* EAGAIN (mmap lock busy), EINTR, EINVAL (not dying yet): retry. */
		}
		if (sys_pidfd_exited(req->pidfd, OOM_REAP_STEP_MSEC)) {
			rep.result = REAP_EXITED;
			break;
		}
	}
	if (rep.tries > MAX_OOM_REAP_RETRIES)
		rep.tries = MAX_OOM_REAP_RETRIES;
	rep.kill_to_freed_usec = now_usec() - req->kill_usec;
	if (scope_usage_bytes(req->scope, scratch, size, &usage_after) == 0 &&
	    req->usage_before_bytes > usage_after)
		rep.freed_bytes = req->usage_before_bytes - usage_after;
	if (read_pid_status(req->scope->root, req->pid, scratch, size, &ss) == 0)
		rep.rss_after_kib = ss.rss_kib;
	*ret_report = rep;
}

int reaper_raise_priority(void)
{
	struct sched_param sp = {.sched_priority = REAPER_RT_PRIORITY};

	return -pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
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

		reap_one(&req, reap, &r->helpers, r->scratch, sizeof(r->scratch), &rep);
		sys->close(req.pidfd);
		sys->write(r->report_wr, &rep, sizeof(rep));

		pthread_mutex_lock(&r->lock);
		r->head = (r->head + 1) % REAPER_QUEUE_LEN;
		r->count--;
		pthread_mutex_unlock(&r->lock);
	}
	return NULL;
}

int reaper_start(struct reaper *r, bool reap)
{
	pthread_attr_t attr;
	int fds[2], err;

	memset(r, 0, sizeof(*r));
	r->reap = reap;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	r->report_rd = fds[0];
	r->report_wr = fds[1];
	if (fcntl(r->report_rd, F_SETFL, O_NONBLOCK) < 0) {
		err = -errno;
		goto fail;
	}
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->wake, NULL);
	/* A stack of known size under any C library (glibc's default is 8 MiB, musl's 128 KiB). */
	err = -pthread_attr_init(&attr);
	if (err)
		goto fail;
	err = -pthread_attr_setstacksize(&attr, REAPER_STACK_BYTES);
	if (!err)
		err = -pthread_create(&r->thread, &attr, reaper_main, r);
	pthread_attr_destroy(&attr);
	if (err)
		goto fail;
	r->started = true;
	err = reap_helpers_start(&r->helpers, reap_helpers_wanted());
	if (err)
		log_errno(err, "reaper: %u helper threads started, fewer than the CPUs allow",
			  r->helpers.n);
	return 0;
fail:
	close(fds[0]);
	close(fds[1]);
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
	bool busy;

	pthread_mutex_lock(&r->lock);
	busy = r->count > 0;
	pthread_mutex_unlock(&r->lock);
	return busy;
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
	pthread_join(r->thread, NULL);
	reap_helpers_stop(&r->helpers);
	/* Requests never worked on still own their pidfds. */
	for (unsigned int i = 0; i < r->count; i++)
		sys->close(r->queue[(r->head + i) % REAPER_QUEUE_LEN].pidfd);
	close(r->report_rd);
	close(r->report_wr);
	r->started = false;
}
