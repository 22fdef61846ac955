/* SPDX-License-Identifier: GPL-2.0-only */
/* Small parsing helpers shared by the /proc and cgroupfs parsers: numbers, lines and
 * "key value" files. Pure functions of their buffers. */
#ifndef OOMGUARD_LINUX_PARSE_H
#define OOMGUARD_LINUX_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * struct kv_field - one key of a "key value" file and where its value goes.
 * @key:     exact key ("pgmajfault"), or a prefix when @prefix is set
 * @offset:  offsetof() a uint64_t in the destination struct
 * @prefix:  add the values of every key that starts with @key (pgsteal_kswapd_dma, ...)
 */
struct kv_field {
	const char *key;
	size_t offset;
	bool prefix;
};

/*
 * parse_kv_buf() - fill the fields of @base named in @fields from a "key value" buffer.
 * Lines are "key value", "key: value" or "key: value kB"; unknown keys are skipped.
 * Return: how many of @fields were found, or -EINVAL when a known key has no number.
 */
int parse_kv_buf(const char *buf, const struct kv_field *fields, size_t nr_fields, void *base);

/* parse_u64() - a decimal number at *@p, skipping leading blanks; advances *@p. 0 or -EINVAL. */
int parse_u64(const char **p, uint64_t *ret_value);

/* parse_s64() - as parse_u64() with an optional sign. */
int parse_s64(const char **p, int64_t *ret_value);

/* next_line() - the start of the line after the one at @p, or NULL at the end of the buffer. */
const char *next_line(const char *p);

/* skip_blanks() - past spaces and tabs. */
const char *skip_blanks(const char *p);

/* word_eq() - does the word at @p (up to a blank, ':' or end of line) equal @word? */
bool word_eq(const char *p, const char *word);

#endif
