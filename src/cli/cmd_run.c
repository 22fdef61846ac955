// SPDX-License-Identifier: GPL-2.0-only
/* oomguard run: the daemon, with the options and config file that `status` reads too. */
#include <stdio.h>

#include "cli/commands.h"
#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/options.h"

/* Start-up sized, zeroed, never on the heap. */
static struct daemon the_daemon;

int cli_build_daemon(struct daemon *d, int argc, char **argv, const char *cmd)
{
	char err[512];
	int r;

	/* Static, hence zero: not memset, which would touch (and keep resident) every page. */
	daemon_init(d, argc, argv);
	r = options_parse(&d->cfg, argc, argv, err, sizeof(err));
	if (r == OPTIONS_HELP) {
		options_usage(stdout, cmd);
		return -1;
	}
	if (r < 0) {
		fprintf(stderr, "oomguard %s: %s\n", cmd, err);
		return EXIT_USAGE;
	}
	return 0;
}

int cmd_run(int argc, char **argv)
{
	int r = cli_build_daemon(&the_daemon, argc, argv, "run");

	if (r)
		return r < 0 ? 0 : r;
	log_init();
	return daemon_run(&the_daemon);
}
