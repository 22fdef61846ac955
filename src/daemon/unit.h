/* SPDX-License-Identifier: GPL-2.0-only */
/* Kill units: the processes killed with a victim, as its scope's kill_unit says. The kernel's
 * memory.oom.group (v2: the highest group with it set between the victim's cgroup and the
 * scope; kill_unit oom_group, cgroup and auto), the victim's whole cgroup (cgroup), or its
 * systemd unit once it took back half of what the kills in it freed (auto, the default).
 * Found when the victim is chosen (reads), killed after it (act). Never a process outside the
 * scope, nor oomguard or init. */
#ifndef OOMGUARD_DAEMON_UNIT_H
#define OOMGUARD_DAEMON_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/config.h"
#include "linux/cgroupfs.h"

struct scope;

enum kill_unit_mode {
	UNIT_NONE,      /* the victim alone */
	UNIT_OOM_GROUP, /* memory.oom.group=1: every task but oom_score_adj -1000, as the kernel */
	UNIT_CGROUP,    /* kill_unit cgroup: the victim's cgroup and below, cgroup.kill where it can */
	UNIT_REGROWN /* kill_unit auto: the victim's systemd unit, every task but -1000 (as oom.group) */
};

/*
 * kill_unit auto. Kills in a systemd unit (a v2 cgroup *.service or *.scope below the scope, not
 * delegated, the same directory) are remembered as an episode while each comes within
 * UNIT_REGROW_WINDOW_USEC of the one before: the unit's anon + swap when the first victim was
 * chosen, and what the victims held of it (RssAnon + VmSwap), summed. A verdict in the same unit
 * within that window kills the unit whole when it holds at least what it held at the first less
 * half of what its victims held: its other processes took back what the kills freed (a fork
 * storm, a pool of workers, a build), and one more of them would be taken back the same way. A
 * unit that kept what its kills freed (a browser that lost a tab) loses one process per verdict.
 * The unit is read when a victim is chosen (or armed, up to 2 s ahead), which the loop does only
 * after the reaper's report of the last kill (kill_pending): the victim's memory is gone from it
 * by then; where it may not be (reap skipped, no report in time, no reaper), the episode is
 * forgotten. systemd, by its default OOMPolicy=stop, stops a service after the kernel's first
 * kill in it; auto waits for the unit to show that it regrew.
 */
#define UNIT_REGROW_WINDOW_USEC (30ull * 1000000)

/*
 * struct unit_kill_record - a scope's last episode of kills in a systemd unit (kill_unit auto).
 * @ino:          the unit's cgroup directory's inode (0: none; a unit started again under the
 *                same name is another)
 * @usec:         when its last victim was killed
 * @unit_bytes:   the unit's anon + swap when the episode's first victim was chosen
 * @victim_bytes: what the episode's victims held of it (RssAnon + VmSwap), summed
 */
struct unit_kill_record {
	uint64_t ino, usec, unit_bytes, victim_bytes;
};

/*
 * struct kill_unit - where the rest of a victim's unit is.
 * @dir:      the group's directory (root prefix included)
 * @path_off: where in @dir the group's path as /proc/PID/cgroup names it begins (what a
 *            member's path starts with; unit_path() gives it)
 * @v2:       in the v2 hierarchy (cgroup.kill and memory.oom.group exist only there)
 * @has_self: oomguard is in the group: cgroup.kill would kill it; tasks are signalled one by one
 * @sd_ino:   kill_unit auto: the inode of the victim's cgroup when it is a systemd unit's (0:
 *            it is not)
 * @sd_bytes: that unit's anon + swap, read when the victim was chosen
 * @sd_victim_bytes: the victim's RssAnon + VmSwap then: what its kill takes from the unit (0
 *            when unread: the unit must then regrow past its first reading to die whole)
 * @dir_ino:  @dir's inode when the unit was found: a group removed and made again under the same
 *            path since (a service restarted while its victim had its SIGTERM grace) is another,
 *            and is not killed
 */
struct kill_unit {
	enum kill_unit_mode mode;
	char dir[CONFIG_PATH_MAX];
	uint16_t path_off;
	bool v2;
	bool has_self;
	uint64_t sd_ino, sd_bytes, sd_victim_bytes;
	uint64_t dir_ino;
};

/* unit_path() - @u's cgroup as the hierarchy names it ("/" for its root): the end of its dir. */
static inline const char *unit_path(const struct kill_unit *u)
{
	return u->dir[u->path_off] ? u->dir + u->path_off : "/";
}

/**
 * unit_in_scope() - whether @pid's cgroup is still @s's or one below it (the machine holds every
 * process), read from /proc/PID/cgroup.
 * Return: 1, 0 (moved out), or -errno (gone, or the hierarchy not known).
 */
int unit_in_scope(const struct scope *s, const struct cgroup_mounts *mounts, int pid,
		  char *scratch, size_t size);

/*
 * unit_find() - the unit of victim @pid in scope @s, as s->set.kill_unit asks: for oom_group
 * and cgroup, memory.oom.group as the kernel's mem_cgroup_get_oom_group() finds it (the highest
 * ancestor with it set, up to the scope's own group; for the machine, below the hierarchy's
 * root), else for cgroup the victim's cgroup, else UNIT_NONE (and always for process). Never
 * the hierarchy's root, never a group outside @s; for auto, the victim's systemd unit when
 * unit_regrown() says so at @now. Return: 0 (@ret set), or -errno when the victim's cgroup
 * cannot be read (then UNIT_NONE).
 */
int unit_find(const struct scope *s, const struct cgroup_mounts *mounts, int pid, int self_pid,
	      uint64_t now, char *scratch, size_t size, struct kill_unit *ret);

/*
 * unit_regrown() - kill_unit auto's decision (pure): whether the systemd unit of @u (sd_ino,
 * sd_bytes as read at @now) dies whole, after the scope's episode @last.
 */
bool unit_regrown(const struct unit_kill_record *last, const struct kill_unit *u, uint64_t now);

/*
 * unit_note_kill() - the victim of @u (holding @u->sd_victim_bytes) was killed at @now: added
 * to @last's episode when it is in the same unit within the window, else a new episode begins;
 * forgotten when it was in no systemd unit or its unit died whole (and by the caller in a dry
 * run, where nothing is freed for a unit to take back).
 */
void unit_note_kill(struct unit_kill_record *last, const struct kill_unit *u, uint64_t now);

/*
 * unit_kill() - SIGKILL the rest of @u (@victim_pid was killed already): cgroup.kill for a
 * UNIT_CGROUP of v2 without oomguard in it; else each process of the group and its children
 * through a pidfd, after checking that it is still in the group (pid reuse), skipping oomguard,
 * init and, for UNIT_OOM_GROUP and UNIT_REGROWN, oom_score_adj -1000. @dry_run: count, signal
 * nobody.
 * Nothing when @u's directory is gone or is another since unit_find() (@dir_ino).
 * Return: processes signalled (or found, dry run); -1 when cgroup.kill did it (count unknown);
 * -ENOENT for a group gone (its tasks exited, its manager removed it); -ESTALE for one made
 * again under its path (another group).
 */
long unit_kill(const struct scope *s, const struct kill_unit *u, int victim_pid, int self_pid,
	       bool dry_run, char *scratch, size_t size);

/* unit_mode_name() - "memory.oom.group", "cgroup" or "regrown". */
const char *unit_mode_name(enum kill_unit_mode mode);

#endif
