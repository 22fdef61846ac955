/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kill path of a scope: choose the victim ahead while pressure builds (arm), act on the
 * rule's OOM verdict (re-check the scope, confirm the victim, SIGKILL through its pidfd, hand it
 * to the reaper), and take the reaper's reports back.
 */
#ifndef OOMGUARD_DAEMON_KILL_H
#define OOMGUARD_DAEMON_KILL_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/reaper.h"
#include "daemon/scope.h"

struct daemon;

/*
 * struct verdict_note - the last OOM verdict and what came of it (systemd's STATUS=).
 * @serial:  bumped at each verdict noted (0: none yet)
 * @outcome: "killed", "would kill", "resolved before kill", "no killable task", ...
 * @pid:     the victim (0: none), @comm its name
 * @scope:   the scope's name
 */
struct verdict_note {
	unsigned long serial;
	const char *outcome;
	int pid;
	char comm[16];
	char scope[CONFIG_PATH_MAX];
};

/*
 * How long a verdict waits for a victim killed before that no report settled (the reaper
 * could not take it, or its report was lost), and how long a scope's kill stays pending
 * without a report: twice the reaper's own bound (REAP_DEADLINE_MSEC) for each request the
 * reaper still has (it works one at a time), by which any report would have come.
 */
#define VICTIM_WAIT_USEC (2ull * REAP_DEADLINE_MSEC * 1000)

/* victim_wait_usec() - VICTIM_WAIT_USEC for each request with the reaper, and one more. */
uint64_t victim_wait_usec(struct daemon *d);

/*
 * kill_overdue() - @s's kill had no report from the reaper within victim_wait_usec() of @now:
 * said, the scope free to kill again, and kill_unit auto's episode forgotten (the victim's
 * memory may still be charged to its unit).
 */
void kill_overdue(struct daemon *d, struct scope *s, uint64_t now);

enum arm_action { ARM_KEEP, ARM_DROP, ARM_CHOOSE };

/*
 * arm_decide() - what the round does with scope @s's candidate at @now: choose one (again)
 * while the scope makes no progress (CANDIDATE_ARM_LOOPS) or is near its limit and no candidate
 * younger than CANDIDATE_REFRESH_USEC is held; drop one older than CANDIDATE_MAX_AGE_USEC once
 * neither holds; else keep what there is (possibly nothing). Pure.
 */
enum arm_action arm_decide(const struct scope *s, uint64_t now);

/*
 * listing_known_only() - a listing for @s leaves out processes not listed before: the machine
 * scope while it makes no progress or stalls on memory more than 10 % of the time (opening a
 * new process's files then waits in reclaim). A group's pressure does not slow oomguard's opens
 * (its allocations are not charged there). Pure.
 */
bool listing_known_only(const struct scope *s);

/*
 * listing_misses_demand() - a known_only listing of @s whose @nr @tasks hold (rss + swap) less
 * than half of the scope's anon + swap in use: the process taking the memory is one it did not
 * list (one that started under pressure and grew there: bench/machine's fit with zram, a 2304
 * MiB job started 160 ms after the one before it exited, the machine still stalled, in no
 * listing; the 4 MiB writer and then the probe beside it were chosen and killed). Such a
 * listing walks the kept files only, so it cannot count what it left out: the memory it
 * accounts for is the test, with what the processes it left out by rank hold
 * (@ranked_out_pages: struct task_list). Such a listing is done again in full. Pure.
 */
bool listing_misses_demand(const struct scope *s, const struct oom_task *tasks, size_t nr,
			   uint64_t ranked_out_pages);

/* arm_scope() - the round's arming for @s: arm_decide(), then choose or drop. */
void arm_scope(struct daemon *d, struct scope *s, uint64_t now);

/*
 * daemon_arm() - choose @s's victim now and hold a pidfd on it (struct candidate).
 * Return: 0 when armed, -ENOENT when there is no killable task, -errno otherwise.
 */
int daemon_arm(struct daemon *d, struct scope *s, uint64_t now_usec);

/*
 * kill_open_confirmed() - a pidfd on @victim, confirmed to be the process that was listed and
 * still in @s's group. Return: the pidfd, -ESRCH when it exited, -ESTALE when its pid now names
 * another process, -EXDEV when it left the scope, -errno.
 */
int kill_open_confirmed(struct daemon *d, const struct scope *s, const struct oom_task *victim);

/* log_listing_limits() - what the last listing of @s could not take in, said each time. */
void log_listing_limits(const struct daemon *d, const struct scope *s);

/* candidate_drop() - close @s's candidate's pidfd, if one is held. */
void candidate_drop(struct scope *s);

/*
 * daemon_act() - the OOM verdict of scope @s: kill its candidate through the held pidfd when it
 * is fresh, alive and its oom_score_adj unchanged, else list the scope's tasks, choose and
 * daemon_kill(). Both re-check the scope first; a dry run walks the same path up to the
 * signal. @detect_usec: when the verdict was read.
 */
void daemon_act(struct daemon *d, struct scope *s, uint64_t detect_usec);

/*
 * daemon_kill() - act on a chosen victim (@points: its badness): re-check, pidfd_open, confirm
 * identity and that it is still in the scope, SIGKILL (SIGTERM first with term_grace_msec),
 * hand a dup'ed pidfd to the reaper, then kill @unit (a dry run stops before the signals).
 * Return: 0 when killed, -EAGAIN when the re-check found the scope resolved, -ESRCH when the
 * victim was gone (exited, its pid reused, or out of the scope: nothing else is killed), -errno.
 */
int daemon_kill(struct daemon *d, struct scope *s, const struct oom_task *victim, long points,
		uint64_t detect_usec, const struct kill_unit *unit);

/*
 * term_pending() - the victim @s sent SIGTERM (term_grace_msec): SIGKILL it once its grace is
 * over, or take its exit as the kill's; then kill its unit. Return: true while the scope is
 * busy with it (this round acts on nothing else).
 */
bool term_pending(struct daemon *d, struct scope *s, uint64_t now);

/* daemon_handle_reports() - read the reaper's reports, release their scopes, log them. */
void daemon_handle_reports(struct daemon *d);

#endif
