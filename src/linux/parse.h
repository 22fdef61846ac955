/* SPDX-License-Identifier: GPL-2.0-only */
/* Small parsing helpers shared by the /proc and cgroupfs parsers: numbers, lines and
 * "key value" files. Pure functions of their buffers. */
#ifndef OOMGUARD_LINUX_PARSE_H
#define OOMGUARD_LINUX_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * KV_WRAPPED_MIN - the smallest value that is a negative number printed unsigned: a sum of
 * per-cpu deltas caught below zero (memcg stats of 3.10-era kernels), or lxcfs subtracting
 * past zero (SwapFree in containers). No real count reaches 2^63: 8 EiB, or 292 years of
 * 10^9 events a second.
 */
#define KV_WRAPPED_MIN ((uint64_t)INT64_MAX + 1)

/* struct kv_field flags. */
#define KV_PREFIX 0x1u /* also "key_<zone>" (pgscan_kswapd_normal, ...): the values are summed */
#define KV_GAUGE  0x2u /* a size: a wrapped value reads as 0 (else it is -ERANGE) */

/* The most fields one parse_kv_buf() call takes (duplicate keys are tracked per field). */
#define KV_MAX_FIELDS 32

/*
 * struct kv_field - one key of a "key value" file and where its value goes.
 * @key:     exact key ("pgmajfault")
 * @offset:  offsetof() a uint64_t in the destination struct
 * @flags:   KV_PREFIX, KV_GAUGE
 */
struct kv_field {
	const char *key;
	size_t offset;
	unsigned int flags;
};

/*
 * parse_kv_buf() - fill the fields of @base named in @fields from a "key value" buffer.
 * Lines are "key value", "key: value" or "key: value kB"; unknown keys are skipped. A known
 * key must be followed by a number and nothing else ("12abc" is not 12), and may appear once.
 * Return: how many of @fields were found, -EINVAL when a known key has no number, has trailing
 * garbage or repeats, -ERANGE for a wrapped value of a field that is not KV_GAUGE (a counter)
 * or for a KV_PREFIX sum past INT64_MAX.
 */
int parse_kv_buf(const char *buf, const struct kv_field *fields, size_t nr_fields, void *base);

/* parse_kv_buf_mask() - as parse_kv_buf(); bit i of *@ret_seen is set when @fields[i] was. */
int parse_kv_buf_mask(const char *buf, const struct kv_field *fields, size_t nr_fields, void *base,
		      uint64_t *ret_seen);

/* parse_u64() - a decimal number at *@p, skipping leading blanks; advances *@p. 0 or -EINVAL. */
int parse_u64(const char **p, uint64_t *ret_value);

/* parse_s64() - as parse_u64() with an optional sign. */
int parse_s64(const char **p, int64_t *ret_value);

/* next_line() - the start of the line after the one at @p, or NULL at the end of the buffer. */
const char *next_line(const char *p);

/* skip_blanks() - past spaces and tabs. */
const char *skip_blanks(const char *p);

/* at_line_end() - is @p, past blanks, at the end of its line (newline or end of buffer)? */
bool at_line_end(const char *p);

/* word_eq() - does the word at @p (up to a blank, ':' or end of line) equal @word? */
bool word_eq(const char *p, const char *word);

#endif
