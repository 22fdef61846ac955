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
	}
	if (parse_u64(&s, &v) < 0 || v > (uint64_t)INT64_MAX)
		return -EINVAL;
	*p = s;
	*ret_value = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

static bool key_matches(const struct kv_field *f, const char *key, size_t key_len)
{
	size_t len;

	if (f->key[0] != key[0]) /* most lines fail here, before strlen and strncmp */
		return false;
	len = strlen(f->key);
	if (f->prefix)
		return key_len >= len && !strncmp(key, f->key, len);
	return key_len == len && !strncmp(key, f->key, len);
}

int parse_kv_buf(const char *buf, const struct kv_field *fields, size_t nr_fields, void *base)
{
	uint64_t seen = 0;
	int found = 0;

	for (size_t i = 0; i < nr_fields; i++)
		memset((char *)base + fields[i].offset, 0, sizeof(uint64_t));
	for (const char *line = buf; line && *line; line = next_line(line)) {
		const char *key = skip_blanks(line), *end = key;

		while (!is_word_end(*end))
			end++;
		for (size_t i = 0; i < nr_fields; i++) {
			const char *v = end;
			uint64_t value, *dst;

			if (!key_matches(&fields[i], key, (size_t)(end - key)))
				continue;
			if (*v == ':')
				v++;
			if (parse_u64(&v, &value) < 0)
				return -EINVAL;
			dst = (uint64_t *)(void *)((char *)base + fields[i].offset);
			*dst += value;
			if (i < 64 && !(seen & (1ull << i))) {
				seen |= 1ull << i;
				found++;
			}
		}
	}
	return found;
}
