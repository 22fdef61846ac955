// SPDX-License-Identifier: GPL-2.0-only
/* oomguard: dispatch to a sub-command. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static int cmd_version(int argc, char **argv);

static const struct command commands[] = {
	{"run", cmd_run, "the daemon: watch scopes, kill and reap when one is truly out of memory"},
	{"status", cmd_status, "one shot: each scope's inputs and what the next round would decide"},
	{"sim", cmd_sim, "the kernel model: OOM detection and reaper under four retry rules"},
	{"version", cmd_version, "print the version (as --version does)"},
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* `oomguard version` and `oomguard --version`: the one line both print. */
static int cmd_version(int argc, char **argv)
{
	if (argc > 1) {
		fprintf(stderr, "oomguard version: unexpected argument '%s' (it takes none)\n",
			argv[1]);
		return EXIT_USAGE;
	}
	printf("oomguard %s\n", OOMGUARD_VERSION);
	return 0;
}

static void valid_commands(FILE *f)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "%s%s", i ? ", " : "", commands[i].name);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: oomguard <command> [options]\n       oomguard --help | --version\n\n"
		   "commands:\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'oomguard <command> --help' describes a command's options.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "oomguard: no command given (valid: ");
		valid_commands(stderr);
		fprintf(stderr, "; oomguard --help describes them)\n");
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version"))
		return cmd_version(argc - 1, argv + 1);
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "oomguard: unknown %s '%s' (valid commands: ",
		argv[1][0] == '-' ? "option" : "command", argv[1]);
	valid_commands(stderr);
	fprintf(stderr, "; options: --help, --version)\n");
	return EXIT_USAGE;
}
