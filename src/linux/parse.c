// SPDX-License-Identifier: GPL-2.0-only
/* Parsing helpers for the /proc and cgroupfs parsers: no allocation, no locale, no errno. */
#include "linux/parse.h"

#include <errno.h>
#include <string.h>

const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

const char *next_line(const char *p)
{
	const char *nl = strchr(p, '\n');

	return nl && nl[1] ? nl + 1 : NULL;
}

bool at_line_end(const char *p)
{
	p = skip_blanks(p);
	return *p == '\n' || *p == '\0';
}

static bool is_word_end(char c)
{
	return c == '\0' || c == ' ' || c == '\t' || c == '\n' || c == ':';
}

bool word_eq(const char *p, const char *word)
{
	size_t len = strlen(word);

	return !strncmp(p, word, len) && is_word_end(p[len]);
}

int parse_u64(const char **p, uint64_t *ret_value)
{
	const char *s = skip_blanks(*p);
	uint64_t v = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		uint64_t d = (uint64_t)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*p = s;
	*ret_value = v;
	return 0;
}

int parse_s64(const char **p, int64_t *ret_value)
{
	const char *s = skip_blanks(*p);
	bool neg = false;
	uint64_t v;

	if (*s == '-' || *s == '+') {
		neg = *s == '-';
		s++;
		if (*s < '0' || *s > '9') /* "- 5" is not -5 */
			return -EINVAL;
	}
	if (parse_u64(&s, &v) < 0 || v > (uint64_t)INT64_MAX)
		return -EINVAL;
	*p = s;
	*ret_value = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* The zone names vmstat's per-zone events end in (TEXTS_FOR_ZONES in mm/vmstat.c). */
static const char *const zone_suffixes[] = {"_dma",  "_dma32",   "_normal",
					    "_high", "_movable", "_device"};
#define NR_ZONE_SUFFIXES (sizeof(zone_suffixes) / sizeof(zone_suffixes[0]))

/*
 * Does @key (@key_len bytes) name field @f? Return: 0 for the key itself, 1 + i for the key
 * with zone_suffixes[i] (KV_PREFIX only), -1 if not: "pgscan_direct_throttle" counts
 * throttling, not pages, and is not "pgscan_direct".
 */
static int key_match(const struct kv_field *f, const char *key, size_t key_len)
{
	size_t len;

	if (f->key[0] != key[0]) /* most lines fail here, before strlen and strncmp */
		return -1;
	len = strlen(f->key);
	if (key_len < len || strncmp(key, f->key, len))
		return -1;
	if (key_len == len)
		return 0;
	if (!(f->flags & KV_PREFIX))
		return -1;
	for (size_t i = 0; i < NR_ZONE_SUFFIXES; i++) {
		size_t slen = strlen(zone_suffixes[i]);

		if (key_len - len == slen && !strncmp(key + len, zone_suffixes[i], slen))
			return (int)i + 1;
	}
	return -1;
}

/* The value of a line after its key: a number, an optional "kB", the end of the line. */
static int kv_value(const char *v, uint64_t *ret_value)
{
	if (*v == ':')
		v++;
	if (parse_u64(&v, ret_value) < 0)
		return -EINVAL;
	v = skip_blanks(v);
	if (v[0] == 'k' && v[1] == 'B')
		v += 2;
	return at_line_end(v) ? 0 : -EINVAL;
}

int parse_kv_buf_mask(const char *buf, const struct kv_field *fields, size_t nr_fields, void *base,
		      uint64_t *ret_seen)
{
	/* Which keys were seen, per field: bit 0 the key, bit 1 + i with zone_suffixes[i]. */
	uint8_t seen[KV_MAX_FIELDS] = {0};
	uint64_t mask = 0;
	int found = 0;

	if (nr_fields > KV_MAX_FIELDS)
		return -E2BIG;
	for (size_t i = 0; i < nr_fields; i++)
		memset((char *)base + fields[i].offset, 0, sizeof(uint64_t));
	for (const char *line = buf; line && *line; line = next_line(line)) {
		const char *key = skip_blanks(line), *end = key;

		while (!is_word_end(*end))
			end++;
		for (size_t i = 0; i < nr_fields; i++) {
			int m = key_match(&fields[i], key, (size_t)(end - key));
			uint64_t value, *dst;

			if (m < 0)
				continue;
			if (kv_value(end, &value) < 0)
				return -EINVAL;
			/* The kernel prints each key once: a repeat is not its file. */
			if (seen[i] & (1u << m))
				return -EINVAL;
			if (value >= KV_WRAPPED_MIN) {
				if (!(fields[i].flags & KV_GAUGE))
					return -ERANGE;
				value = 0; /* a size below zero: none (what newer kernels print) */
			}
			dst = (uint64_t *)(void *)((char *)base + fields[i].offset);
			if (*dst + value >= KV_WRAPPED_MIN) /* a KV_PREFIX sum */
				return -ERANGE;
			*dst += value;
			if (!seen[i]) {
				found++;
				if (i < 64)
					mask |= 1ull << i;
			}
			seen[i] |= (uint8_t)(1u << m);
			break;
		}
	}
	if (ret_seen)
		*ret_seen = mask;
	return found;
}

int parse_kv_buf(const char *buf, const struct kv_field *fields, size_t nr_fields, void *base)
{
	return parse_kv_buf_mask(buf, fields, nr_fields, base, NULL);
}
