/* SPDX-License-Identifier: GPL-2.0-only */
/* What the loop tells the helper process (helper.h): a victim before its kill (the pre-kill
 * hook, which may veto it), a kill once reaped, and each scope's counters. Each is one
 * non-blocking write of a fixed-size record; nothing allocates. And what it tells the log of a
 * verdict's inputs. */
#ifndef OOMGUARD_DAEMON_REPORT_H
#define OOMGUARD_DAEMON_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/reaper.h"
#include "daemon/scope.h"

struct daemon;

/*
 * report_pre_kill() - @victim of @s (badness @points; @uid -1 and @cgroup "" when not known)
 * is about to be killed. Return: 0 to kill, or the pre-kill hook's exit status when it vetoed
 * the kill (pre_kill_wait_msec and pre_kill_veto set).
 */
int report_pre_kill(struct daemon *d, const struct scope *s, const struct oom_task *victim,
		    long points, int64_t uid, const char *cgroup, uint64_t detect_usec);

/* report_killed() - the reaper's report @rep of a kill: counted, and told to the helper. */
void report_killed(struct daemon *d, const struct reap_report *rep);

/* report_round() - count @s's round just judged (and its verdict when @verdict). */
void report_round(struct scope *s, bool verdict);

/* log_decision() - the inputs behind a verdict of @s, on one line, prefixed with @what. */
void log_decision(const struct scope *s, int prio, const char *what);

/* report_metrics() - every scope's counters to the helper, every HELPER_METRICS_USEC (@force:
 * now). */
void report_metrics(struct daemon *d, uint64_t now, bool force);

#endif
