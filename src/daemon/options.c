// SPDX-License-Identifier: GPL-2.0-only
/* The option table of `oomguard run` and `status`, the parser built on it and the usage text
 * printed from it. */
#include "daemon/options.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* Long-only options: values past any character. */
enum {
	OPT_PROTECT_CGROUP = 0x100,
	OPT_PREFER_UID,
	OPT_AVOID_UID,
	OPT_PROTECT_UID,
	OPT_PREFER_EXE,
	OPT_AVOID_EXE,
	OPT_PROTECT_EXE,
	OPT_PREFER_CMDLINE,
	OPT_AVOID_CMDLINE,
	OPT_NO_OOMD_XATTRS,
	OPT_KILL_CGROUP,
	OPT_TERM_GRACE,
	OPT_TASKS,
};

#define STR_(x) #x
#define STR(x)  STR_(x)

/*
 * struct option_desc - one option.
 * @name, @has_arg, @val:  as getopt_long takes them
 * @key:   the config key it sets (config_set()), NULL for the flags handled by name
 * @arg:   what its value is called in the usage text, NULL for a flag
 * @help:  its line of usage text
 */
struct option_desc {
	const char *name;
	int has_arg;
	int val;
	const char *key;
	const char *arg;
	const char *help;
};

static const struct option_desc options[] = {
    {"config", required_argument, 'c', NULL, "FILE",
     "INI file (default " CONFIG_DEFAULT_FILE " when it exists)"},
    {"cgroup", required_argument, 'g', "cgroup", "PATH",
     "watch this memory cgroup (v1 or v2; repeatable)"},
    {"machine", no_argument, 'm', NULL, NULL, "watch the whole machine (default: when no cgroup)"},
    {"no-machine", no_argument, 'M', NULL, NULL, "do not watch the whole machine"},
    {"interval", required_argument, 'i', "interval_msec", "MSEC",
     "poll interval (default " STR(CONFIG_DEFAULT_INTERVAL_MSEC) ")"},
    {"dry-run", no_argument, 'n', NULL, NULL, "decide and log, kill nothing"},
    {"no-reap", no_argument, 'R', NULL, NULL, "do not call process_mrelease; wait for exit only"},
    {"oom-kill-disable", no_argument, 'D', NULL, NULL,
     "v1: set oom_kill_disable=1 on the cgroups (the kernel parks tasks, oomguard decides); "
     "restored at exit"},
    {"reserve-permille", required_argument, 'r', "reserve_permille", "N",
     "cgroup min watermark, per mille of the limit (default " STR(
	 CONFIG_DEFAULT_RESERVE_PERMILLE) ")"},
    {"stall-bound-permille", required_argument, 's', "stall_bound_permille", "N",
     "PSI some above this share of a round: no progress"},
    {"refault-min-pages", required_argument, 'f', "refault_min_pages", "N",
     "refaults per round that make a round by themselves"},
    {"protect", required_argument, 'p', "protect", "NAME",
     "never kill a process of this name (repeatable)"},
    {"prefer", required_argument, 'P', "prefer_regex", "REGEX",
     "prefer processes whose name matches (repeatable; forgeable)"},
    {"avoid", required_argument, 'A', "avoid_regex", "REGEX",
     "avoid processes whose name matches (repeatable; forgeable)"},
    {"prefer-cgroup", required_argument, 'G', "prefer_cgroup", "PATH",
     "prefer processes in this cgroup or below (repeatable)"},
    {"avoid-cgroup", required_argument, 'H', "avoid_cgroup", "PATH",
     "avoid processes in this cgroup or below (repeatable)"},
    {"protect-cgroup", required_argument, OPT_PROTECT_CGROUP, "protect_cgroup", "PATH",
     "never kill a process in this cgroup or below (repeatable)"},
    {"prefer-uid", required_argument, OPT_PREFER_UID, "prefer_uid", "UID[-UID]",
     "prefer processes of these real uids (repeatable)"},
    {"avoid-uid", required_argument, OPT_AVOID_UID, "avoid_uid", "UID[-UID]",
     "avoid processes of these real uids (repeatable)"},
    {"protect-uid", required_argument, OPT_PROTECT_UID, "protect_uid", "UID[-UID]",
     "never kill a process of these real uids (repeatable)"},
    {"prefer-exe", required_argument, OPT_PREFER_EXE, "prefer_exe", "PATH",
     "prefer processes running this executable (a PATH/ ending in /: below it; repeatable)"},
    {"avoid-exe", required_argument, OPT_AVOID_EXE, "avoid_exe", "PATH",
     "avoid processes running this executable (repeatable)"},
    {"protect-exe", required_argument, OPT_PROTECT_EXE, "protect_exe", "PATH",
     "never kill a process running this executable (repeatable)"},
    {"prefer-cmdline", required_argument, OPT_PREFER_CMDLINE, "prefer_cmdline", "REGEX",
     "prefer processes whose command line matches (repeatable; forgeable)"},
    {"avoid-cmdline", required_argument, OPT_AVOID_CMDLINE, "avoid_cmdline", "REGEX",
     "avoid processes whose command line matches (repeatable; forgeable)"},
    {"no-oomd-xattrs", no_argument, OPT_NO_OOMD_XATTRS, NULL, NULL,
     "ignore systemd's ManagedOOMPreference= (user.oomd_avoid, user.oomd_omit xattrs)"},
    {"kill-cgroup", no_argument, OPT_KILL_CGROUP, NULL, NULL,
     "kill the victim's whole cgroup with it (v2: cgroup.kill)"},
    {"term-grace", required_argument, OPT_TERM_GRACE, "term_grace_msec", "MSEC",
     "SIGTERM the victim, SIGKILL it MSEC later unless it exited (0-" STR(
	 CONFIG_TERM_GRACE_MSEC_MAX) "; default 0: SIGKILL at once)"},
    {"log-level", required_argument, 'l', "log_level", "LEVEL",
     "error, warning, notice, info, debug"},
    {"root", required_argument, 'O', "root", "DIR",
     "read /proc, /sys and cgroupfs under DIR (fixture trees)"},
    {"json", no_argument, 'j', NULL, NULL, "status: print JSON"},
    {"tasks", no_argument, OPT_TASKS, NULL, NULL,
     "status: each scope's candidates, ranked, and why (badness, rules, uid, exe)"},
    {"help", no_argument, 'h', NULL, NULL, "this text"},
};

#define NR_OPTIONS (sizeof(options) / sizeof(options[0]))

/* The getopt_long table from options[]: @table holds NR_OPTIONS + 1 (the terminator). */
static void long_options(struct option *table)
{
	for (size_t i = 0; i < NR_OPTIONS; i++)
		table[i] =
		    (struct option){options[i].name, options[i].has_arg, NULL, options[i].val};
	table[NR_OPTIONS] = (struct option){NULL, 0, NULL, 0};
}

static const struct option_desc *option_by_val(int val)
{
	for (size_t i = 0; i < NR_OPTIONS; i++)
		if (options[i].val == val)
			return &options[i];
	return NULL;
}

void options_usage(FILE *out, const char *cmd)
{
	fprintf(out, "usage: oomguard %s [options]\n", cmd);
	for (size_t i = 0; i < NR_OPTIONS; i++) {
		const struct option_desc *o = &options[i];
		char left[48];

		snprintf(left, sizeof(left), "--%s%s%s", o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
		fprintf(out, "  %-26s %s\n", left, o->help);
	}
	fprintf(out, "Exit: 0 clean stop, 1 runtime failure, 2 bad usage or config.\n");
}

/* The first pass: --help, --config and stray words, before the file is read. */
static int scan(const struct option *table, int argc, char **argv, const char **ret_file,
		char *err, size_t errsize)
{
	int opt;

	opterr = 0;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "+h", table, NULL)) != -1) {
		if (opt == '?' || opt == ':') {
			snprintf(err, errsize, "unknown option or missing value: %s",
				 argv[optind - 1]);
			return -EINVAL;
		}
		if (opt == 'h')
			return OPTIONS_HELP;
		if (opt == 'c')
			*ret_file = optarg;
	}
	if (optind < argc) {
		snprintf(err, errsize, "unexpected argument '%s'", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

int options_parse(struct config *c, int argc, char **argv, char *err, size_t errsize)
{
	struct option table[NR_OPTIONS + 1];
	const char *file = NULL;
	bool cli_cgroups = false, cli_protect = false;
	uint64_t cli_rules = 0; /* rule keys given as options: they replace the file's */
	int opt, r;

	config_defaults(c);
	long_options(table);
	r = scan(table, argc, argv, &file, err, errsize);
	if (r)
		return r;
	if (file || access(CONFIG_DEFAULT_FILE, R_OK) == 0) {
		r = config_load_file(c, file ? file : CONFIG_DEFAULT_FILE, err, errsize);
		if (r < 0)
			return -EINVAL;
		c->default_file_read = !file;
	}
	optind = 0;
	while ((opt = getopt_long(argc, argv, "+h", table, NULL)) != -1) {
		const struct option_desc *o = option_by_val(opt);

		switch (opt) {
		case 'm':
			c->machine = 1;
			continue;
		case 'M':
			c->machine = 0;
			continue;
		case 'n':
			c->dry_run = true;
			continue;
		case 'R':
			c->reap = false;
			continue;
		case 'D':
			c->oom_kill_disable = true;
			continue;
		case 'j':
			c->json = true;
			continue;
		case OPT_NO_OOMD_XATTRS:
			c->oomd_xattrs = false;
			continue;
		case OPT_KILL_CGROUP:
			c->kill_cgroup = true;
			continue;
		case OPT_TASKS:
			c->status_tasks = true;
			continue;
		case 'g':
			if (!cli_cgroups)
				c->nr_cgroups = 0; /* options replace the file's list */
			cli_cgroups = true;
			break;
		case 'p':
			if (!cli_protect)
				c->nr_protect = 0;
			cli_protect = true;
			break;
		default:
			break;
		}
		if (o && o->key && config_rule_key(o->key) >= 0 &&
		    !(cli_rules & (1ull << config_rule_key(o->key)))) {
			config_clear_rules(c, o->key);
			cli_rules |= 1ull << config_rule_key(o->key);
		}
		if (o && o->key && config_set(c, o->key, optarg, err, errsize) < 0)
			return -EINVAL;
	}
	return config_finish(c, err, errsize);
}
