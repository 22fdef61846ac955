/* SPDX-License-Identifier: GPL-2.0-only */
/* oomguard's sub-commands. Each takes argv from its own name on and returns the exit code:
 * 0 success, 1 runtime failure, 2 bad usage. */
#ifndef OOMGUARD_CLI_COMMANDS_H
#define OOMGUARD_CLI_COMMANDS_H

#define OOMGUARD_VERSION "0.1.0"

#define EXIT_USAGE 2

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct daemon;
struct scope;

/* json_string() - @in as a JSON string body: quotes, backslashes, control bytes escaped. */
void json_string(const char *in, char *out, size_t size);

/*
 * status_print_tasks() - `status --tasks`: list @s's candidates, print them ranked as the daemon
 * would choose (the first is the victim now), with why; JSON: a "tasks" member. Return: 0, or
 * -errno when the scope could not be listed whole.
 */
int status_print_tasks(struct daemon *d, struct scope *s, FILE *out, bool json);

/*
 * cli_build_daemon() - @d ready for `oomguard @cmd`: daemon_init(), then the options and the
 * config file. Return: 0, -1 when --help printed the usage (exit 0), or EXIT_USAGE after
 * naming the fault on stderr.
 */
int cli_build_daemon(struct daemon *d, int argc, char **argv, const char *cmd);

int cmd_run(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_sim(int argc, char **argv);

#endif
