/* SPDX-License-Identifier: GPL-2.0-only */
/* oomguard's settings: defaults, the configuration file (config_file.c) and the command line,
 * which set the same keys; options win over the file. */
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
 * target); the kernel reaper's own retry step is HZ/10 too. Measured cost: docs/daemon-design.md.
 */
#define CONFIG_DEFAULT_INTERVAL_MSEC 100
/* The cgroup scope's min watermark, per mille of its limit (the kernel's min_free_kbytes is
 * about 0.3-1% of RAM on machines of a few GiB to tens of GiB). */
#define CONFIG_DEFAULT_RESERVE_PERMILLE 10

/* The ranges the keys accept, each with its reason. */
/* Under 10 ms a round's own cost (tens of us) becomes a share of a CPU worth noticing; over
 * 10 s the rule's 16 rounds would take minutes, what the seed set out to end. */
#define CONFIG_INTERVAL_MSEC_MIN 10
#define CONFIG_INTERVAL_MSEC_MAX 10000
/* A reserve of half the limit or more leaves no limit to speak of. */
#define CONFIG_RESERVE_PERMILLE_MAX 500
/* A share of a round's time: at most all of it. */
#define CONFIG_STALL_BOUND_PERMILLE_MAX 1000
/* 4 TiB of 4 KiB pages refaulted in one round: no real round comes near. */
#define CONFIG_REFAULT_MIN_PAGES_MAX (1ull << 30)
/* A process name as the kernel keeps it (TASK_COMM_LEN, with its NUL). */
#define CONFIG_COMM_LEN 16
/* A prefer or avoid regex, and any rule's value. */
#define CONFIG_REGEX_MAX 256
/* The longest values, as the usage errors state them (each size less its NUL). */
#define CONFIG_PATH_MAX_LEN  511
#define CONFIG_COMM_MAX_LEN  15
#define CONFIG_REGEX_MAX_LEN 255
_Static_assert(CONFIG_PATH_MAX_LEN + 1 == CONFIG_PATH_MAX, "path length");
_Static_assert(CONFIG_COMM_MAX_LEN + 1 == CONFIG_COMM_LEN, "comm length");
_Static_assert(CONFIG_REGEX_MAX_LEN + 1 == CONFIG_REGEX_MAX, "regex length");
/* The longest SIGTERM grace before SIGKILL: a scope out of memory cannot wait long. */
#define CONFIG_TERM_GRACE_MSEC_MAX 10000
/*
 * Hooks (helper.h). A kill waits for a pre-kill hook at most this long: the scope is out of
 * memory while it waits. A hook, or an announcer, runs at most hook_timeout_msec (default 10 s:
 * a script that logs or pages someone; a hung one is killed then); at least 100 ms, at most 10
 * min.
 */
#define CONFIG_PRE_KILL_WAIT_MSEC_MAX    10000
#define CONFIG_HOOK_TIMEOUT_MSEC_DEFAULT 10000
#define CONFIG_HOOK_TIMEOUT_MSEC_MIN     100
#define CONFIG_HOOK_TIMEOUT_MSEC_MAX     600000
/*
 * Sections [scope NAME] (config_scope.c): the machine and each cgroup may have one. NAME is a
 * short label (a path would make long headers), the section's first key names its scope.
 */
#define CONFIG_MAX_SECTIONS     (CONFIG_MAX_CGROUPS + 1)
#define CONFIG_SECTION_NAME_MAX 41 /* NAME, at most 40 bytes, and its NUL */

/* Rules that choose victims by what a process is (prefer, avoid, protect), all kinds together. */
#define CONFIG_MAX_RULES 32

/* What a rule does with the processes it matches. */
enum match_action { MATCH_PROTECT, MATCH_PREFER, MATCH_AVOID };

/*
 * What a rule looks at. The name and cmdline are the process's to set (PR_SET_NAME, writing
 * its argv): any user can make a process match, or not match, them. The real uid, the
 * executable's path and the cgroup are not: the uid needs privilege to change, the path comes
 * from the kernel's view of the file executed (a user who cannot write under a path cannot put
 * a program there), the cgroup is moved into only with write access to it.
 */
enum match_attr { MATCH_NAME, MATCH_CMDLINE, MATCH_UID, MATCH_EXE, MATCH_CGROUP, NR_MATCH_ATTRS };

/*
 * struct match_rule - one prefer, avoid or protect rule.
 * @key:     the configuration key that set it (what status and the docs call it)
 * @value:   as given: a regex (name, cmdline), "UID" or "MIN-MAX" (uid), an absolute path
 *           (exe: the path exactly, or everything under it when it ends in '/'; cgroup: that
 *           cgroup and below, as /proc/PID/cgroup names it)
 */
struct match_rule {
	const char *key;
	enum match_action action;
	enum match_attr attr;
	char value[CONFIG_REGEX_MAX];
	uint32_t uid_min, uid_max;
	regex_t re; /* name, cmdline: compiled by config_finish() */
	bool has_re;
};

/*
 * What dies with a victim (unit.h): the victim alone; the victim, or the cgroup v2
 * memory.oom.group it is in, as the kernel kills; the victim's whole cgroup; oom_group, and the
 * victim's systemd unit once the unit took back at least half of what the kills in it freed (auto,
 * the default).
 */
enum kill_unit_setting { KILL_UNIT_PROCESS, KILL_UNIT_OOM_GROUP, KILL_UNIT_CGROUP, KILL_UNIT_AUTO };

/* The keys a scope may set for itself ([scope NAME]), one bit each in scope_section @set. */
enum scope_key { SCOPE_KEY_RESERVE, SCOPE_KEY_TERM_GRACE, SCOPE_KEY_KILL_UNIT, NR_SCOPE_KEYS };

/*
 * struct scope_settings - what one scope decides and kills with. The global keys give every
 * scope its values; a scope's section overrides those it sets. Resolved into each scope at
 * set-up and at each reload (config_scope_settings()): the kill path reads its scope's copy.
 * @reserve_permille: a cgroup scope's min watermark, per mille of its limit
 * @term_grace_msec:  SIGTERM first, SIGKILL this long after (0: SIGKILL at once)
 * @kill_unit:        what dies with the victim
 */
struct scope_settings {
	unsigned int reserve_permille;
	unsigned int term_grace_msec;
	enum kill_unit_setting kill_unit;
};

/*
 * struct scope_section - one [scope NAME] section.
 * @machine, @path:  the scope it names: the machine, or the cgroup of that path (the section's
 *                   cgroup key, which also watches it)
 * @set:             bit (1 << enum scope_key) per key the section sets; an option of the same
 *                   key clears it (options win)
 */
struct scope_section {
	char name[CONFIG_SECTION_NAME_MAX];
	bool machine;
	char path[CONFIG_PATH_MAX];
	unsigned int set;
	struct scope_settings val;
};

struct config {
	unsigned int interval_msec;
	char cgroups[CONFIG_MAX_CGROUPS][CONFIG_PATH_MAX];
	size_t nr_cgroups;
	int machine; /* -1: default (on when no cgroup is named) */
	bool dry_run;
	bool reap;
	bool oom_kill_disable;
	bool realtime; /* the loop and the reaper run SCHED_FIFO (read at start only) */
	struct scope_settings per_scope; /* the global values of the per-scope keys */
	/* The file's [scope NAME] sections: allocated as the parser meets them (a daemon without
	 * any keeps no room for them locked), freed by config_release(). */
	struct scope_section *sections;
	size_t nr_sections;
	unsigned int stall_bound_permille;
	unsigned int cpu_stall_bound_permille; /* 0: every stall over the bound counts */
	uint64_t refault_min_pages;
	char protect[CONFIG_MAX_PROTECT][CONFIG_COMM_LEN];
	size_t nr_protect;
	struct match_rule rules[CONFIG_MAX_RULES];
	size_t nr_rules;
	/* The helper's work (helper.h): a command before and after each kill, a D-Bus signal,
	 * desktop notifications, the metrics file. */
	char pre_kill_hook[CONFIG_PATH_MAX], post_kill_hook[CONFIG_PATH_MAX];
	unsigned int pre_kill_wait_msec; /* the kill waits this long for the pre-kill hook */
	bool pre_kill_veto;		 /* its non-zero exit, within that wait, vetoes the kill */
	unsigned int hook_timeout_msec;
	bool dbus_signal, desktop_notify;
	char dbus_address[CONFIG_PATH_MAX]; /* "": the system bus */
	char metrics_dir[CONFIG_PATH_MAX];  /* node_exporter's textfile directory; "": none */
	bool oomd_xattrs; /* honour systemd's user.oomd_avoid / user.oomd_omit on root's cgroups */
	int log_level;
	bool json;                  /* status: --json (command line only) */
	bool status_tasks;          /* status: --tasks (command line only) */
	char root[CONFIG_PATH_MAX]; /* prefix for /proc and cgroupfs (fixture trees); "" normally */
	bool default_file_read;     /* CONFIG_DEFAULT_FILE was read (not --config): a reload that
				     * finds it gone keeps the running config */
	unsigned int re_serial; /* differs for every config_finish(): what rule results cached
				 * under another value are stale */
};

void config_defaults(struct config *c);

/*
 * config_set() - set @key to @value as the file or an option would.
 * Return: 0, or -EINVAL with a reason in @err.
 */
int config_set(struct config *c, const char *key, const char *value, char *err, size_t errsize);

/*
 * config_set_named() - config_set(), with the setting called @name in @err ("--interval" for
 * an option, the key for the file): "bad value 'V' for NAME (valid: ...)".
 */
int config_set_named(struct config *c, const char *key, const char *name, const char *value,
		     char *err, size_t errsize);

/* config_valid() - what @key accepts, in words ("a number in 10..10000"), into @buf. */
void config_valid(const char *key, char *buf, size_t size);

/* config_same_path() - whether @a and @b name the same cgroup: equal but for trailing slashes. */
bool config_same_path(const char *a, const char *b);
/* config_section_path() - whether a [scope] section names cgroup @path. */
bool config_section_path(const struct config *c, const char *path);

/*
 * config_load_file() - read the INI file @path into @c (section [oomguard] or none).
 * Return: 0, -ENOENT when the file is missing, -EINVAL with "file:line: reason" in @err.
 */
int config_load_file(struct config *c, const char *path, char *err, size_t errsize);
/* config_load_text() - the same from @text (@len bytes and a NUL after them; edited in place),
 * its errors named "@name:line: reason". */
int config_load_text(struct config *c, const char *name, char *text, size_t len, char *err,
		     size_t errsize);

/*
 * config_rule_key() - whether @key sets a rule (prefer_*, avoid_*, protect_*): its index among
 * the rule keys, or -1. config_clear_rules() drops the rules a key set (options replace the
 * file's).
 */
int config_rule_key(const char *key);
void config_clear_rules(struct config *c, const char *key);

/*
 * config_set_scope_key() - set per-scope key @key ([scope NAME] keys: reserve_permille,
 * term_grace_msec, kill_unit, kill_cgroup) in @v. Return: its enum scope_key, -ENOENT when
 * @key is no per-scope key, -EINVAL for a bad value.
 */
int config_set_scope_key(struct scope_settings *v, const char *key, const char *value);

/* config_kill_unit_name() - "process", "oom_group", "cgroup" or "auto". */
const char *config_kill_unit_name(enum kill_unit_setting u);

/*
 * config_section_set() - key @key = @value of the file's section [@section] ("scope NAME"):
 * its first key (@opened: the line before was in another section, or none) names its scope
 * (cgroup = PATH, which also watches it, or machine = yes), the others are per-scope keys.
 * Return: 0, or -EINVAL (-ENOMEM) with a reason in @err.
 */
int config_section_set(struct config *c, const char *section, bool opened, const char *key,
		       const char *value, char *err, size_t errsize);

/* config_clear_scoped() - an option of per-scope key @key wins over every section's. */
void config_clear_scoped(struct config *c, const char *key);

/*
 * config_scope_settings() - the settings of the machine (@path NULL) or of the cgroup @path:
 * the global values, then its section's. Return: its section, or NULL when it has none.
 */
const struct scope_section *config_scope_settings(const struct config *c, const char *path,
						  struct scope_settings *ret);

/* config_finish() - compile the regexes and check the whole. Return: 0 or -EINVAL + @err. */
int config_finish(struct config *c, char *err, size_t errsize);

/* config_release() - free what the parse allocated: the compiled regexes, the sections. A
 * struct config copied by value hands them over: release one copy only. */
void config_release(struct config *c);

#endif
