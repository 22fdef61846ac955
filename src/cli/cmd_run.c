// SPDX-License-Identifier: GPL-2.0-only
/* oomguard run and status: not built yet. */
#include <stdio.h>

#include "cli/commands.h"

int cmd_run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "oomguard run: not built yet\n");
	return EXIT_USAGE;
}

int cmd_status(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "oomguard status: not built yet\n");
	return EXIT_USAGE;
}
