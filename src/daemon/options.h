/* SPDX-License-Identifier: GPL-2.0-only */
/* The options of `oomguard run` and `oomguard status`: one table gives what getopt accepts, the
 * config key each one sets and the usage text, so that help cannot drift from what is taken. */
#ifndef OOMGUARD_DAEMON_OPTIONS_H
#define OOMGUARD_DAEMON_OPTIONS_H

#include <stdio.h>

#include "daemon/config.h"

/* options_parse(): --help was given; the caller prints options_usage() and exits 0. */
#define OPTIONS_HELP 1

/*
 * options_parse() - defaults, then the config file (--config, or CONFIG_DEFAULT_FILE when it
 * exists), then the options in @argv, which win. Return: 0, OPTIONS_HELP, or -EINVAL with the
 * reason in @err.
 */
int options_parse(struct config *c, int argc, char **argv, char *err, size_t errsize);

/* options_usage() - the usage text of `oomguard @cmd`, from the option table. */
void options_usage(FILE *out, const char *cmd);

#endif
