// SPDX-License-Identifier: GPL-2.0-only
/* Kill units (unit.h): found when the victim is chosen, killed right after the victim. */
#include "daemon/unit.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "daemon/log.h"
#include "daemon/tasks.h"
#include "linux/parse.h"
#include "linux/procfs.h"
#include "linux/sys.h"

const char *unit_mode_name(enum kill_unit_mode mode)
{
	return mode == UNIT_OOM_GROUP ? "memory.oom.group"
	       : mode == UNIT_CGROUP  ? "cgroup"
	       : mode == UNIT_REGROWN ? "regrown"
				      : "none";
}

/* @path is @dir or below it, at a '/' boundary. */
static bool under(const char *path, const char *dir)
{
	size_t len = strlen(dir);

	return !strncmp(path, dir, len) && (path[len] == '\0' || path[len] == '/');
}

/* The cgroup of @pid in the hierarchy @s is in, and that hierarchy's mount. */
static int victim_cgroup(const struct scope *s, const struct cgroup_mounts *m, int pid,
			 char *scratch, size_t size, char *ret_path, const char **ret_mount,
			 bool *ret_v2)
{
	bool v2 = s->kind == SCOPE_CGROUP_V2 || (s->kind == SCOPE_MACHINE && !m->v1_memory[0]);

	*ret_v2 = v2;
	*ret_mount = v2 ? m->v2 : m->v1_memory;
	if (!(*ret_mount)[0])
		return -ENOENT;
	return read_pid_cgroup(s->root, pid, v2 ? NULL : "memory", scratch, size, ret_path,
			       CONFIG_PATH_MAX);
}

/* The directory of @pid's cgroup (root prefix included) into @ret_dir, the length of its
 * hierarchy's mount point in it, whether v2. Return: 0; 1 when it is the hierarchy's root
 * (@ret_dir is then the mount point); -errno. */
static int cgroup_dir_of(const struct scope *s, const struct cgroup_mounts *m, int pid,
			 char *scratch, size_t size, char ret_dir[CONFIG_PATH_MAX],
			 size_t *ret_base_len, bool *ret_v2)
{
	char path[CONFIG_PATH_MAX];
	const char *mount;
	bool root;
	int r;

	r = victim_cgroup(s, m, pid, scratch, size, path, &mount, ret_v2);
	if (r < 0)
		return r;
	root = !strcmp(path, "/");
	if (sys_join_path(ret_dir, CONFIG_PATH_MAX, s->root, mount) < 0)
		return -ENAMETOOLONG;
	*ret_base_len = strlen(ret_dir);
	if (!root && snprintf(ret_dir + *ret_base_len, CONFIG_PATH_MAX - *ret_base_len, "%s",
			      path) >= (int)(CONFIG_PATH_MAX - *ret_base_len))
		return -ENAMETOOLONG;
	return root;
}

int unit_in_scope(const struct scope *s, const struct cgroup_mounts *mounts, int pid,
		  char *scratch, size_t size)
{
	char dir[CONFIG_PATH_MAX];
	size_t base_len;
	bool v2;
	int r;

	if (s->kind == SCOPE_MACHINE)
		return 1;
	if (!mounts)
		return -ENOENT;
	r = cgroup_dir_of(s, mounts, pid, scratch, size, dir, &base_len, &v2);
	return r < 0 ? r : under(dir, s->dir);
}

bool unit_regrown(const struct unit_kill_record *last, const struct kill_unit *u, uint64_t now)
{
	if (!last->ino || last->ino != u->sd_ino || now < last->usec ||
	    now - last->usec >= UNIT_REGROW_WINDOW_USEC)
		return false;
	return u->sd_bytes + last->victim_bytes / 2 >= last->unit_bytes;
}

void unit_note_kill(struct unit_kill_record *last, const struct kill_unit *u, uint64_t now)
{
	/* A unit killed whole is gone: its name may come back as another unit. */
	if (!u->sd_ino || u->mode != UNIT_NONE) {
		last->ino = 0;
		return;
	}
	if (last->ino != u->sd_ino || now < last->usec ||
	    now - last->usec >= UNIT_REGROW_WINDOW_USEC) {
		last->ino = u->sd_ino;
		last->unit_bytes = u->sd_bytes;
		last->victim_bytes = 0;
	}
	last->usec = now;
	last->victim_bytes += u->sd_victim_bytes;
}

/* @dir's last component names a systemd service or scope. */
static bool systemd_unit_name(const char *dir)
{
	const char *name = strrchr(dir, '/');
	size_t len;

	name = name ? name + 1 : dir;
	len = strlen(name);
	return (len > 6 && !strcmp(name + len - 6, ".scope")) ||
	       (len > 8 && !strcmp(name + len - 8, ".service"));
}

/*
 * kill_unit auto: when @dir (the victim's v2 cgroup) is a systemd unit below the scope, not
 * delegated (a delegated unit runs its own manager below: systemd's OOMPolicy defaults to
 * continue there), its inode, its anon + swap and victim @pid's share in @ret; then the unit
 * whole when unit_regrown() says so.
 */
static void auto_unit(const struct scope *s, const char *dir, int pid, uint64_t now,
		      char *scratch, size_t size, struct kill_unit *ret)
{
	struct memcg_v2_stat st;
	struct pid_status ps;
	struct stat dst;
	uint64_t swap = 0;

	if ((s->kind != SCOPE_MACHINE && !strcmp(dir, s->dir)) || !systemd_unit_name(dir) ||
	    read_cgroup_xattr_bool(dir, "trusted.delegate") != 0 ||
	    read_cgroup_xattr_bool(dir, "user.delegate") != 0 ||
	    sys->fstatat(AT_FDCWD, dir, &dst, 0) < 0 ||
	    read_memcg_v2_stat(dir, scratch, size, &st) < 0)
		return;
	if (read_cgroup_u64(dir, "memory.swap.current", &swap) < 0)
		swap = 0; /* no swap accounting: anon alone */
	ret->sd_ino = dst.st_ino;
	ret->sd_bytes = st.anon_bytes + swap;
	if (read_pid_status(s->root, pid, scratch, size, &ps) == 0)
		ret->sd_victim_bytes = (ps.anon_kib + ps.swap_kib) * 1024;
	if (unit_regrown(&s->last_unit_kill, ret, now)) {
		ret->mode = UNIT_REGROWN;
		memcpy(ret->dir, dir, sizeof(ret->dir));
	}
}

int unit_find(const struct scope *s, const struct cgroup_mounts *mounts, int pid, int self_pid,
	      uint64_t now, char *scratch, size_t size, struct kill_unit *ret)
{
	char dir[CONFIG_PATH_MAX], victim_dir[CONFIG_PATH_MAX], self[CONFIG_PATH_MAX];
	struct stat st;
	size_t base_len;
	uint64_t v;
	bool v2;
	int r;

	memset(ret, 0, sizeof(*ret));
	if (!mounts || s->set.kill_unit == KILL_UNIT_PROCESS)
		return 0;
	r = cgroup_dir_of(s, mounts, pid, scratch, size, dir, &base_len, &v2);
	if (r == -ENAMETOOLONG || r == 1)
		return 0; /* the hierarchy's root is no unit: it holds the whole machine */
	if (r < 0)
		return r;
	if (s->kind != SCOPE_MACHINE && !under(dir, s->dir))
		return 0; /* moved out of the scope since it was listed */
	memcpy(victim_dir, dir, sizeof(dir));
	/* 1. memory.oom.group, the highest group with it set, from the victim's up to the scope's
	 *    (for the machine, up to but not the hierarchy's root). */
	for (size_t len = strlen(dir); v2 && len > base_len;) {
		dir[len] = '\0';
		if (read_cgroup_u64(dir, "memory.oom.group", &v) == 0 && v == 1) {
			ret->mode = UNIT_OOM_GROUP;
			memcpy(ret->dir, dir, sizeof(ret->dir));
		}
		if (s->kind != SCOPE_MACHINE && !strcmp(dir, s->dir))
			break;
		while (len > base_len && dir[len - 1] != '/')
			len--;
		len = len > base_len ? len - 1 : len;
	}
	/* 2. The victim's whole cgroup, when asked; its systemd unit once it regrew (auto). */
	if (ret->mode == UNIT_NONE && s->set.kill_unit == KILL_UNIT_CGROUP) {
		ret->mode = UNIT_CGROUP;
		memcpy(ret->dir, victim_dir, sizeof(ret->dir));
	} else if (ret->mode == UNIT_NONE && s->set.kill_unit == KILL_UNIT_AUTO && v2) {
		auto_unit(s, victim_dir, pid, now, scratch, size, ret);
	}
	if (ret->mode == UNIT_NONE)
		return 0;
	ret->v2 = v2;
	ret->path_off = (uint16_t)base_len;
	ret->has_self = read_pid_cgroup(s->root, self_pid, v2 ? NULL : "memory", scratch, size,
					self, sizeof(self)) < 0 ||
			under(self, unit_path(ret));
	ret->dir_ino = sys->fstatat(AT_FDCWD, ret->dir, &st, 0) == 0 ? st.st_ino : 0;
	return 0;
}

struct unit_walk {
	const struct scope *s;
	const struct kill_unit *u;
	int victim_pid, self_pid;
	bool dry_run;
	char *scratch;
	size_t size;
	long killed;
	size_t cut; /* child groups not walked (TASKS_MAX_DEPTH, TASKS_GROUP_PATH_MAX) */
};

/* One member of the unit: pinned by a pidfd, then checked to be in the unit still. */
static void kill_member(struct unit_walk *w, int pid)
{
	char path[TASKS_GROUP_PATH_MAX]; /* as deep as kill_dir() walks */
	int pidfd, adj = 0;

	if (pid == w->victim_pid || pid == w->self_pid || pid == 1)
		return;
	pidfd = sys->pidfd_open(pid, 0);
	if (pidfd < 0)
		return; /* exited */
	if (read_pid_cgroup(w->s->root, pid, w->u->v2 ? NULL : "memory", w->scratch, w->size, path,
			    sizeof(path)) < 0 ||
	    !under(path, unit_path(w->u)))
		goto out; /* the pid now names a process elsewhere */
	if ((w->u->mode == UNIT_OOM_GROUP || w->u->mode == UNIT_REGROWN) &&
	    (read_pid_oom_score_adj(w->s->root, pid, &adj) < 0 || adj == OOM_SCORE_ADJ_MIN))
		goto out; /* the kernel spares these in an oom.group kill too */
	if (w->dry_run || sys->pidfd_send_signal(pidfd, SIGKILL, NULL, 0) == 0)
		w->killed++;
out:
	sys->close(pidfd);
}

static bool member_line(char *text, void *ctx)
{
	const char *q = text;
	uint64_t pid;

	if (parse_u64(&q, &pid) == 0 && pid > 0 && pid <= INT32_MAX)
		kill_member(ctx, (int)pid);
	return true;
}

static void kill_dir(struct unit_walk *w, char *dir, size_t dir_size, int depth)
{
	char line[64], dents[2048];
	size_t len = strlen(dir);
	long n;
	int fd;

	/* room kept by the caller */
	memcpy(dir + len, TASKS_PROCS_FILE, sizeof(TASKS_PROCS_FILE));
	sys_read_lines(NULL, dir, line, sizeof(line), member_line, w);
	dir[len] = '\0';
	fd = sys_open_path(NULL, dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return;
	while ((n = sys->getdents64(fd, dents, sizeof(dents))) > 0) {
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(void *)(dents + off);
			size_t nlen = strlen(d->d_name);

			off += d->d_reclen;
			if (d->d_type != 4 /* DT_DIR */ || d->d_name[0] == '.')
				continue;
			if (depth >= TASKS_MAX_DEPTH ||
			    len + 1 + nlen + sizeof(TASKS_PROCS_FILE) > dir_size) {
				w->cut++;
				continue;
			}
			dir[len] = '/';
			memcpy(dir + len + 1, d->d_name, nlen + 1);
			kill_dir(w, dir, dir_size, depth + 1);
			dir[len] = '\0';
		}
	}
	sys->close(fd);
}

long unit_kill(const struct scope *s, const struct kill_unit *u, int victim_pid, int self_pid,
	       bool dry_run, char *scratch, size_t size)
{
	struct unit_walk w = {s, u, victim_pid, self_pid, dry_run, scratch, size, 0, 0};
	char dir[TASKS_GROUP_PATH_MAX]; /* a child's path may be longer than the unit's */
	struct stat st;
	int r;

	if (u->mode == UNIT_NONE)
		return 0;
	r = sys->fstatat(AT_FDCWD, u->dir, &st, 0);
	if (r < 0)
		return r == -ENOENT ? -ENOENT : -ESTALE;
	if (st.st_ino != u->dir_ino)
		return -ESTALE;
	/* cgroup.kill (5.14) kills the group and below at once, oom_score_adj -1000 included, as
	 * systemd-oomd kills a unit; a kernel without it is walked instead. */
	if (u->mode == UNIT_CGROUP && u->v2 && !u->has_self && !dry_run) {
		char path[CONFIG_PATH_MAX + 16];

		snprintf(path, sizeof(path), "%s/cgroup.kill", u->dir);
		if (sys_write_file(NULL, path, "1") == 0)
			return -1;
	}
	snprintf(dir, sizeof(dir), "%s", u->dir);
	kill_dir(&w, dir, sizeof(dir), 0);
	if (w.cut)
		log_msg(LOG_PRIO_WARNING,
			"unit %s: %zu child groups not walked (more than %d levels below it, or a "
			"path over %d bytes): the processes in them were not killed",
			u->dir, w.cut, TASKS_MAX_DEPTH, TASKS_GROUP_PATH_MAX - 1);
	return w.killed;
}
