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
	OPT_KILL_UNIT,
	OPT_TERM_GRACE,
	OPT_TASKS,
	OPT_PRE_KILL_HOOK,
	OPT_POST_KILL_HOOK,
	OPT_PRE_KILL_WAIT,
	OPT_PRE_KILL_VETO,
	OPT_HOOK_TIMEOUT,
	OPT_DBUS_SIGNAL,
	OPT_DBUS_ADDRESS,
	OPT_DESKTOP_NOTIFY,
	OPT_METRICS_DIR,
	OPT_NO_REALTIME,
	OPT_CPU_STALL_BOUND,
};

#define STR_(x) #x
#define STR(x)  STR_(x)

/* The commands an option belongs to: one given to a command that does not take it is refused. */
#define FOR_RUN    1u
#define FOR_STATUS 2u
#define FOR_BOTH   (FOR_RUN | FOR_STATUS)

/*
 * struct option_desc - one option.
 * @name, @has_arg, @val:  as getopt_long takes them
 * @key:   the config key it sets (config_set()), NULL for the flags handled by name
 * @arg:   what its value is called in the usage text, NULL for a flag
 * @help:  its line of usage text
 * @cmds:  FOR_RUN, FOR_STATUS or both
 */
struct option_desc {
	const char *name;
	int has_arg;
	int val;
	const char *key;
	const char *arg;
	const char *help;
	unsigned int cmds;
};

/* clang-format off */
static const struct option_desc options[] = {
    {"config", required_argument, 'c', NULL, "FILE",
     "INI file (default " CONFIG_DEFAULT_FILE " when it exists)", FOR_BOTH},
    {"cgroup", required_argument, 'g', "cgroup", "PATH",
     "watch this memory cgroup (v1 or v2; repeatable)", FOR_BOTH},
    {"machine", no_argument, 'm', NULL, NULL, "watch the whole machine (default: when no cgroup)",
     FOR_BOTH},
    {"no-machine", no_argument, 'M', NULL, NULL, "do not watch the whole machine", FOR_BOTH},
    {"interval", required_argument, 'i', "interval_msec", "MSEC",
     "poll interval (default " STR(CONFIG_DEFAULT_INTERVAL_MSEC) ")", FOR_BOTH},
    {"dry-run", no_argument, 'n', NULL, NULL, "decide and log, kill nothing", FOR_RUN},
    {"no-reap", no_argument, 'R', NULL, NULL, "do not call process_mrelease; wait for exit only",
     FOR_RUN},
    {"oom-kill-disable", no_argument, 'D', NULL, NULL,
     "v1: set oom_kill_disable=1 on the cgroups (the kernel parks tasks, oomguard decides); "
     "restored at exit", FOR_RUN},
    {"no-realtime", no_argument, OPT_NO_REALTIME, NULL, NULL,
     "run the loop and the reaper at normal priority, not SCHED_FIFO", FOR_RUN},
    {"reserve-permille", required_argument, 'r', "reserve_permille", "N",
     "cgroup min watermark, per mille of the limit (default "
     STR(CONFIG_DEFAULT_RESERVE_PERMILLE) ")", FOR_BOTH},
    {"stall-bound-permille", required_argument, 's', "stall_bound_permille", "N",
     "PSI some above this share of a round: no progress", FOR_BOTH},
    {"cpu-stall-bound-permille", required_argument, OPT_CPU_STALL_BOUND,
     "cpu_stall_bound_permille", "N",
     "PSI cpu some at or under this share of the last 3 s: a memory stall of reclaim that "
     "stays, with no reads waited for, does not count (0: it always does)", FOR_BOTH},
    {"refault-min-pages", required_argument, 'f', "refault_min_pages", "N",
     "refaults per round that make a round by themselves", FOR_BOTH},
    {"protect", required_argument, 'p', "protect", "NAME",
     "never kill a process of this name (repeatable)", FOR_BOTH},
    {"prefer", required_argument, 'P', "prefer_regex", "REGEX",
     "prefer processes whose name matches (repeatable; forgeable)", FOR_BOTH},
    {"avoid", required_argument, 'A', "avoid_regex", "REGEX",
     "avoid processes whose name matches (repeatable; forgeable)", FOR_BOTH},
    {"prefer-cgroup", required_argument, 'G', "prefer_cgroup", "PATH",
     "prefer processes in this cgroup or below (repeatable)", FOR_BOTH},
    {"avoid-cgroup", required_argument, 'H', "avoid_cgroup", "PATH",
     "avoid processes in this cgroup or below (repeatable)", FOR_BOTH},
    {"protect-cgroup", required_argument, OPT_PROTECT_CGROUP, "protect_cgroup", "PATH",
     "never kill a process in this cgroup or below (repeatable)", FOR_BOTH},
    {"prefer-uid", required_argument, OPT_PREFER_UID, "prefer_uid", "UID[-UID]",
     "prefer processes of these real uids (repeatable)", FOR_BOTH},
    {"avoid-uid", required_argument, OPT_AVOID_UID, "avoid_uid", "UID[-UID]",
     "avoid processes of these real uids (repeatable)", FOR_BOTH},
    {"protect-uid", required_argument, OPT_PROTECT_UID, "protect_uid", "UID[-UID]",
     "never kill a process of these real uids (repeatable)", FOR_BOTH},
    {"prefer-exe", required_argument, OPT_PREFER_EXE, "prefer_exe", "PATH",
     "prefer processes running this executable (a PATH/ ending in /: below it; repeatable)",
     FOR_BOTH},
    {"avoid-exe", required_argument, OPT_AVOID_EXE, "avoid_exe", "PATH",
     "avoid processes running this executable (repeatable)", FOR_BOTH},
    {"protect-exe", required_argument, OPT_PROTECT_EXE, "protect_exe", "PATH",
     "never kill a process running this executable (repeatable)", FOR_BOTH},
    {"prefer-cmdline", required_argument, OPT_PREFER_CMDLINE, "prefer_cmdline", "REGEX",
     "prefer processes whose command line matches (repeatable; forgeable)", FOR_BOTH},
    {"avoid-cmdline", required_argument, OPT_AVOID_CMDLINE, "avoid_cmdline", "REGEX",
     "avoid processes whose command line matches (repeatable; forgeable)", FOR_BOTH},
    {"no-oomd-xattrs", no_argument, OPT_NO_OOMD_XATTRS, NULL, NULL,
     "ignore systemd's ManagedOOMPreference= (user.oomd_avoid, user.oomd_omit xattrs)", FOR_BOTH},
    {"kill-unit", required_argument, OPT_KILL_UNIT, "kill_unit", "UNIT",
     "what dies with the victim: process, oom_group (its memory.oom.group as the kernel's), "
     "cgroup (its whole cgroup), auto (default: oom_group, and its systemd unit once the unit "
     "took back at least half of what the kills in it freed)", FOR_RUN},
    {"kill-cgroup", no_argument, OPT_KILL_CGROUP, "kill_cgroup", NULL,
     "kill the victim's whole cgroup with it (v2: cgroup.kill): --kill-unit cgroup", FOR_RUN},
    {"term-grace", required_argument, OPT_TERM_GRACE, "term_grace_msec", "MSEC",
     "SIGTERM the victim, SIGKILL it MSEC later unless it exited (0-" STR(
	 CONFIG_TERM_GRACE_MSEC_MAX) "; default 0: SIGKILL at once)", FOR_RUN},
    {"pre-kill-hook", required_argument, OPT_PRE_KILL_HOOK, "pre_kill_hook", "CMD",
     "run CMD (an absolute path and arguments, no shell) before each kill", FOR_RUN},
    {"pre-kill-wait", required_argument, OPT_PRE_KILL_WAIT, "pre_kill_wait_msec", "MSEC",
     "the kill waits up to MSEC for the pre-kill hook (0-" STR(CONFIG_PRE_KILL_WAIT_MSEC_MAX)
     "; default 0: it does not wait)", FOR_RUN},
    {"pre-kill-veto", no_argument, OPT_PRE_KILL_VETO, "pre_kill_veto", NULL,
     "a pre-kill hook that exits non-zero within that wait vetoes the kill", FOR_RUN},
    {"post-kill-hook", required_argument, OPT_POST_KILL_HOOK, "post_kill_hook", "CMD",
     "run CMD after each kill, once its memory is freed", FOR_RUN},
    {"hook-timeout", required_argument, OPT_HOOK_TIMEOUT, "hook_timeout_msec", "MSEC",
     "kill a hook still running after MSEC (default " STR(CONFIG_HOOK_TIMEOUT_MSEC_DEFAULT) ")",
     FOR_RUN},
    {"dbus-signal", no_argument, OPT_DBUS_SIGNAL, "dbus_signal", NULL,
     "announce each kill with a D-Bus signal org.oomguard.Killed (dbus-send)", FOR_RUN},
    {"dbus-address", required_argument, OPT_DBUS_ADDRESS, "dbus_address", "ADDRESS",
     "the bus of that signal (default: the system bus)", FOR_RUN},
    {"desktop-notify", no_argument, OPT_DESKTOP_NOTIFY, "desktop_notify", NULL,
     "tell logged-in users of each kill (notify-send, as each user)", FOR_RUN},
    {"metrics-textfile-dir", required_argument, OPT_METRICS_DIR, "metrics_textfile_dir", "DIR",
     "write Prometheus metrics to DIR/oomguard.prom (node_exporter's textfile directory)",
     FOR_RUN},
    {"log-level", required_argument, 'l', "log_level", "LEVEL",
     "error, warning, notice, info, debug", FOR_BOTH},
    {"root", required_argument, 'O', "root", "DIR",
     "read /proc, /sys and cgroupfs under DIR (fixture trees)", FOR_BOTH},
    {"json", no_argument, 'j', NULL, NULL, "print JSON", FOR_STATUS},
    {"tasks", no_argument, OPT_TASKS, NULL, NULL,
     "each scope's candidates, ranked, and why (badness, rules, uid, exe)", FOR_STATUS},
    {"help", no_argument, 'h', NULL, NULL, "this text", FOR_BOTH},
};
/* clang-format on */

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

/* The command @argv[0] names: FOR_STATUS for "status", FOR_RUN for anything else. */
static unsigned int command_of(char **argv)
{
	return argv[0] && !strcmp(argv[0], "status") ? FOR_STATUS : FOR_RUN;
}

void options_usage(FILE *out, const char *cmd)
{
	unsigned int for_cmd = strcmp(cmd, "status") ? FOR_RUN : FOR_STATUS;

	fprintf(out, "usage: oomguard %s [options]\n", cmd);
	for (size_t i = 0; i < NR_OPTIONS; i++) {
		const struct option_desc *o = &options[i];
		char left[48];

		if (!(o->cmds & for_cmd))
			continue;
		snprintf(left, sizeof(left), "--%s%s%s", o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
		fprintf(out, "  %-26s %s\n", left, o->help);
	}
	fprintf(out, "Exit: 0 clean stop, 1 runtime failure, 2 bad usage or config.\n");
}

/* What getopt refused at argv[optind - 1], named: an unknown option, or one without its value. */
static void explain_refused(int opt, char **argv, unsigned int cmd, char *err, size_t errsize)
{
	const struct option_desc *o = opt == ':' ? option_by_val(optopt) : NULL;
	const char *word = argv[optind - 1];
	char valid[96];

	for (size_t i = 0; !o && i < NR_OPTIONS && !strncmp(word, "--", 2); i++) {
		size_t len = strlen(options[i].name);

		if (!strncmp(word + 2, options[i].name, len) && word[2 + len] == '=') {
			snprintf(err, errsize, "--%s takes no value, got '%s'", options[i].name,
				 word);
			return;
		}
	}
	if (!o) {
		snprintf(err, errsize, "unknown option '%s' (the options: oomguard %s --help)", word,
			 cmd == FOR_STATUS ? "status" : "run");
		return;
	}
	if (o->key)
		config_valid(o->key, valid, sizeof(valid));
	else
		snprintf(valid, sizeof(valid), "a path");
	snprintf(err, errsize, "--%s needs a value %s (valid: %s)", o->name, o->arg, valid);
}

/* The first pass: --help, --config, options the command does not take and stray words, before
 * the file is read. */
static int scan(const struct option *table, int argc, char **argv, const char **ret_file,
		char *err, size_t errsize)
{
	unsigned int cmd = command_of(argv);
	int opt;

	opterr = 0;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "+:h", table, NULL)) != -1) {
		const struct option_desc *o = option_by_val(opt);

		if (opt == '?' || opt == ':') {
			explain_refused(opt, argv, cmd, err, errsize);
			return -EINVAL;
		}
		if (o && !(o->cmds & cmd)) {
			snprintf(err, errsize, "--%s is an option of 'oomguard %s' only", o->name,
				 cmd == FOR_STATUS ? "run" : "status");
			return -EINVAL;
		}
		if (opt == 'h')
			return OPTIONS_HELP;
		if (opt == 'c')
			*ret_file = optarg;
	}
	if (optind < argc) {
		snprintf(err, errsize, "unexpected argument '%s' (oomguard %s takes options only)",
			 argv[optind], cmd == FOR_STATUS ? "status" : "run");
		return -EINVAL;
	}
	return 0;
}

/* options_parse(), but for what a failure leaves allocated. */
static int parse(struct config *c, int argc, char **argv, char *err, size_t errsize)
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
	while ((opt = getopt_long(argc, argv, "+:h", table, NULL)) != -1) {
		const struct option_desc *o = option_by_val(opt);
		char name[40];

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
		case OPT_NO_REALTIME:
			c->realtime = false;
			continue;
		case 'j':
			c->json = true;
			continue;
		case OPT_NO_OOMD_XATTRS:
			c->oomd_xattrs = false;
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
		if (!o || !o->key)
			continue;
		if (config_rule_key(o->key) >= 0 &&
		    !(cli_rules & (1ull << config_rule_key(o->key)))) {
			config_clear_rules(c, o->key);
			cli_rules |= 1ull << config_rule_key(o->key);
		}
		snprintf(name, sizeof(name), "--%s", o->name);
		/* A flag that sets a truth key (--dbus-signal) sets it to yes. */
		if (config_set_named(c, o->key, name, o->has_arg ? optarg : "yes", err,
				     errsize) < 0)
			return -EINVAL;
		config_clear_scoped(c, o->key); /* and over the file's [scope] sections */
	}
	return config_finish(c, err, errsize);
}

int options_parse(struct config *c, int argc, char **argv, char *err, size_t errsize)
{
	int r = parse(c, argc, argv, err, errsize);

	if (r < 0)
		config_release(c); /* what the file's parse allocated */
	return r;
}
