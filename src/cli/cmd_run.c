// SPDX-License-Identifier: GPL-2.0-only
/* oomguard run (the daemon) and oomguard status (one shot: each scope's inputs and the
 * decision the next round would take). Both read the same options and config file. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "daemon/daemon.h"
#include "daemon/log.h"

/* Start-up sized, zeroed, never on the heap. */
static struct daemon the_daemon;

static void usage(FILE *out, const char *cmd)
{
	fprintf(
	    out,
	    "usage: oomguard %s [options]\n"
	    "  --config FILE              INI file (default %s when it exists)\n"
	    "  --cgroup PATH              watch this memory cgroup (v1 or v2; repeatable)\n"
	    "  --machine / --no-machine   watch the whole machine (default: when no cgroup)\n"
	    "  --interval MSEC            poll interval (default %d)\n"
	    "  --dry-run                  decide and log, kill nothing\n"
	    "  --no-reap                  do not call process_mrelease; wait for exit only\n"
	    "  --oom-kill-disable         v1: set oom_kill_disable=1 on the cgroups (the kernel\n"
	    "                             parks tasks, oomguard decides); restored at exit\n"
	    "  --reserve-permille N       cgroup min watermark, per mille of the limit (%d)\n"
	    "  --stall-bound-permille N   PSI some above this share of a round: no progress\n"
	    "  --refault-min-pages N      refaults per round that make a round by themselves\n"
	    "  --protect NAME             never kill a process of this name (repeatable)\n"
	    "  --prefer REGEX / --avoid REGEX                 on the process name\n"
	    "  --prefer-cgroup PATH / --avoid-cgroup PATH     on the process's cgroup\n"
	    "  --log-level LEVEL          error, warning, notice, info, debug\n"
	    "  --json                     status: print JSON\n"
	    "Exit: 0 clean stop, 1 runtime failure, 2 bad usage or config.\n",
	    cmd, CONFIG_DEFAULT_FILE, CONFIG_DEFAULT_INTERVAL_MSEC,
	    CONFIG_DEFAULT_RESERVE_PERMILLE);
}

static int build(int argc, char **argv, const char *cmd)
{
	char err[512];

	/* Static, hence zero: not memset, which would touch (and keep resident) every page. */
	the_daemon.argc = argc;
	the_daemon.argv = argv;
	if (daemon_build_config(&the_daemon.cfg, argc, argv, err, sizeof(err)) < 0) {
		if (!strcmp(err, "help")) {
			usage(stdout, cmd);
			return -1;
		}
		fprintf(stderr, "oomguard %s: %s\n", cmd, err);
		usage(stderr, cmd);
		return EXIT_USAGE;
	}
	return 0;
}

int cmd_run(int argc, char **argv)
{
	int r = build(argc, argv, "run");

	if (r)
		return r < 0 ? 0 : r;
	log_init();
	return daemon_run(&the_daemon);
}

int cmd_status(int argc, char **argv)
{
	int r = build(argc, argv, "status");

	if (r)
		return r < 0 ? 0 : r;
	return daemon_status(&the_daemon, stdout, the_daemon.cfg.json);
}
