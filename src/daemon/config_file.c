// SPDX-License-Identifier: GPL-2.0-only
/*
 * The configuration file's lines (oomguard.conf(5)): "[section]", "key = value", comments from
 * '#' or ';' at the start of a line, blank lines. Read whole, then split: a line is never
 * continued on the next, cut at a length or read past a NUL, and a file that cannot be read is
 * an error, not an empty file (a protect rule silently lost is a process killed by mistake).
 */
#include "daemon/config_file.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Blanks off both ends of @s, in place. */
static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* A value wrapped in quotes: the file takes values as they are, so the quotes would be part of
 * the value ("sshd" protects no process named sshd). */
static bool quoted(const char *v)
{
	size_t n = strlen(v);

	return n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0];
}

/* Line @nr, NUL-terminated, of @n bytes before its end. Return: 0, or -EINVAL with the reason in
 * @err; the callback's failure is 1 (its reason is its own). */
static int parse_line(char *line, size_t n, int nr, const char **section, config_line_fn fn,
		      void *user, char *err, size_t errsize)
{
	char *s, *eq, *key, *value;

	if (n > CONFIG_LINE_MAX) {
		snprintf(err, errsize, "a line of %zu bytes (at most %d)", n, CONFIG_LINE_MAX);
		return -EINVAL;
	}
	if (strlen(line) != n) {
		snprintf(err, errsize, "a NUL byte in the line: not a text file");
		return -EINVAL;
	}
	s = trim(line);
	if (!*s || *s == '#' || *s == ';')
		return 0;
	if (*s == '[') {
		char *close = strchr(s, ']');

		if (!close) {
			snprintf(err, errsize, "syntax error: '[' without ']'");
			return -EINVAL;
		}
		if (*trim(close + 1)) {
			snprintf(err, errsize, "syntax error: text after ']'");
			return -EINVAL;
		}
		*close = '\0';
		*section = s + 1;
		return 0;
	}
	eq = strchr(s, '=');
	if (!eq) {
		snprintf(err, errsize, "syntax error: '%.60s' is no 'key = value', [section] or comment",
			 s);
		return -EINVAL;
	}
	*eq = '\0';
	key = trim(s);
	value = trim(eq + 1);
	if (!*key) {
		snprintf(err, errsize, "syntax error: no key before '='");
		return -EINVAL;
	}
	if (strstr(value, " #") || strstr(value, " ;") || strstr(value, "\t#") ||
	    strstr(value, "\t;")) {
		snprintf(err, errsize,
			 "a comment after the value of %s: put it on a line of its own", key);
		return -EINVAL;
	}
	if (quoted(value)) {
		snprintf(err, errsize, "value %.60s for %s in quotes: give it without them", value,
			 key);
		return -EINVAL;
	}
	return fn(user, nr, *section, key, value) ? 0 : 1;
}

int config_parse_text(char *text, size_t len, config_line_fn fn, void *user, char *err,
		      size_t errsize)
{
	const char *section = "";
	char *p = text, *end = text + len;
	int line = 0;

	err[0] = '\0';
	if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) /* a UTF-8 byte order mark */
		p += 3;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		line++;
		p[n] = '\0'; /* the newline, or text[len]: the caller's NUL */
		if (parse_line(p, n, line, &section, fn, user, err, errsize))
			return line;
		p += n + 1;
	}
	return 0;
}

int config_read_text(const char *path, char **ret_text, size_t *ret_len, char *err,
		     size_t errsize)
{
	FILE *f = fopen(path, "re");
	size_t size = 4096, len = 0;
	char *text = NULL;
	int r = 0;

	if (!f) {
		r = -errno;
		snprintf(err, errsize, "%s: %s", path, strerror(errno));
		return r;
	}
	for (;;) {
		char *grown = realloc(text, size);
		size_t n;

		if (!grown) {
			r = -ENOMEM;
			snprintf(err, errsize, "%s: %s", path, strerror(ENOMEM));
			break;
		}
		text = grown;
		n = fread(text + len, 1, size - 1 - len, f);
		len += n;
		if (ferror(f)) {
			r = errno ? -errno : -EIO;
			snprintf(err, errsize, "%s: %s", path, strerror(-r));
			break;
		}
		if (len > CONFIG_FILE_MAX) {
			r = -EFBIG;
			snprintf(err, errsize, "%s: over 1 MiB: not a configuration file", path);
			break;
		}
		if (feof(f))
			break;
		/* one byte past the cap, to tell a file of CONFIG_FILE_MAX from a larger one */
		size = size * 2 < CONFIG_FILE_MAX + 2 ? size * 2 : CONFIG_FILE_MAX + 2;
	}
	fclose(f);
	if (r < 0) {
		free(text);
		return r;
	}
	text[len] = '\0';
	*ret_text = text;
	*ret_len = len;
	return 0;
}
