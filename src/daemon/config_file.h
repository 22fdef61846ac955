/* SPDX-License-Identifier: GPL-2.0-only */
/* The configuration file's lines: read whole (config_read_text), split and handed over one by
 * one (config_parse_text, pure). The format is oomguard.conf(5)'s. */
#ifndef OOMGUARD_DAEMON_CONFIG_FILE_H
#define OOMGUARD_DAEMON_CONFIG_FILE_H

#include <stdbool.h>
#include <stddef.h>

#define CONFIG_LINE_MAX 1023      /* bytes of a line, its newline not counted */
#define CONFIG_FILE_MAX (1u << 20) /* bytes of a file: more is no configuration file */

/* Called for each "key = value" line (@line: its number, from 1), @section "" before the first
 * header: nonzero to go on, 0 to stop (the reason is the callback's to keep). */
typedef int (*config_line_fn)(void *user, int line, const char *section, const char *key,
			      const char *value);

/**
 * config_parse_text() - split @text (@len bytes and a NUL after them; edited in place) into its
 * lines and hand each "key = value" to @fn with the section it is in. Keys and values lose the
 * blanks at their ends; nothing else is taken from them (no quotes, no comment after a value).
 * Return: 0, or the number of the first line that is not a setting, a header, a comment or
 * blank (its reason in @err), or that @fn refused (@err left empty by this function).
 */
int config_parse_text(char *text, size_t len, config_line_fn fn, void *user, char *err,
		      size_t errsize);

/**
 * config_read_text() - the whole file @path, NUL-terminated, in *@ret_text (to free()).
 * Return: 0, or -errno with "path: reason" in @err (missing, unreadable, a directory, over
 * CONFIG_FILE_MAX).
 */
int config_read_text(const char *path, char **ret_text, size_t *ret_len, char *err,
		     size_t errsize);

#endif
