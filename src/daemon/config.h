/* SPDX-License-Identifier: GPL-2.0-only */
/* oomguard's settings: defaults, the INI file (read with libinih) and the command line, which
 * set the same keys; options win over the file. */
#ifndef OOMGUARD_DAEMON_CONFIG_H
#define OOMGUARD_DAEMON_CONFIG_H

#include <limits.h>
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CONFIG_MAX_CGROUPS  32
#define CONFIG_MAX_PROTECT  16
#define CONFIG_PATH_MAX     512
#define CONFIG_DEFAULT_FILE "/etc/oomguard.conf"

/*
 * Poll interval: 100 ms. The retry rule needs MAX_RECLAIM_RETRIES (16) rounds without progress
 * before OOM, so 100 ms gives a decision about 1.7 s after thrashing starts (under the 3 s
 * target); the kernel reaper's own retry step is HZ/10 too. Measured cost: docs/daemon.md.
 */
#define CONFIG_DEFAULT_INTERVAL_MSEC 100
/* The cgroup scope's min watermark, per mille of its limit (the kernel's min_free_kbytes is
 * about 0.3-1% of RAM on machines of a few GiB to tens of GiB). */
#define CONFIG_DEFAULT_RESERVE_PERMILLE 10

struct config {
	unsigned int interval_msec;
	char cgroups[CONFIG_MAX_CGROUPS][CONFIG_PATH_MAX];
	size_t nr_cgroups;
	int machine; /* -1: default (on when no cgroup is named) */
	bool dry_run;
	bool reap;
	bool oom_kill_disable;
	unsigned int reserve_permille;
	unsigned int stall_bound_permille;
	uint64_t refault_min_pages;
	char protect[CONFIG_MAX_PROTECT][16];
	size_t nr_protect;
	char prefer_regex[256], avoid_regex[256];
	char prefer_cgroup[CONFIG_PATH_MAX], avoid_cgroup[CONFIG_PATH_MAX];
	int log_level;
	bool json;                  /* status: --json (command line only) */
	char root[CONFIG_PATH_MAX]; /* prefix for /proc and cgroupfs (fixture trees); "" normally */
	/* Compiled by config_finish(); freed by config_release(). */
	regex_t prefer_re, avoid_re;
	bool has_prefer_re, has_avoid_re;
	unsigned int re_serial; /* differs for every config_finish(): what regex results cached
				 * under another value are stale */
};

void config_defaults(struct config *c);

/*
 * config_set() - set @key to @value as the file or an option would.
 * Return: 0, or -EINVAL with a reason in @err.
 */
int config_set(struct config *c, const char *key, const char *value, char *err, size_t errsize);

/*
 * config_load_file() - read the INI file @path into @c (section [oomguard] or none).
 * Return: 0, -ENOENT when the file is missing, -EINVAL with "file:line: reason" in @err.
 */
int config_load_file(struct config *c, const char *path, char *err, size_t errsize);

/* config_finish() - compile the regexes and check the whole. Return: 0 or -EINVAL + @err. */
int config_finish(struct config *c, char *err, size_t errsize);

void config_release(struct config *c);

#endif
