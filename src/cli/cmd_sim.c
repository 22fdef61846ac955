// SPDX-License-Identifier: GPL-2.0-only
/* oomguard sim: not built yet. */
#include <stdio.h>

#include "cli/commands.h"

int cmd_sim(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "oomguard sim: not built yet\n");
	return EXIT_USAGE;
}
