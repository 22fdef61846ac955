// SPDX-License-Identifier: GPL-2.0-only
/* regex_copies(): a pattern's expanded size, estimated from its text alone. Pure. */
#include "daemon/regex_cost.h"

#include <stdbool.h>
#include <stddef.h>

#define DEPTH_MAX 64 /* groups nested deeper: counted as too costly */

static uint64_t cap(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : v;
}

static uint64_t mul(uint64_t a, uint64_t b)
{
	return b && a > UINT32_MAX / b ? UINT32_MAX : cap(a * b);
}

/* A bracket expression from its '[': the index after its closing ']' (or the end). */
static size_t bracket_end(const char *re, size_t i)
{
	i++;
	if (re[i] == '^')
		i++;
	if (re[i] == ']') /* a ']' first is a member */
		i++;
	while (re[i] && re[i] != ']') {
		if (re[i] == '[' && (re[i + 1] == ':' || re[i + 1] == '.' || re[i + 1] == '=')) {
			char kind = re[i + 1];

			for (i += 2; re[i] && !(re[i] == kind && re[i + 1] == ']'); i++)
				;
			if (re[i])
				i += 2;
			continue;
		}
		i++;
	}
	return re[i] ? i + 1 : i;
}

/* A decimal number at @re[*i] (moved past it), saturated; false when there is none. */
static bool number(const char *re, size_t *i, uint64_t *ret)
{
	size_t start = *i;

	*ret = 0;
	for (; re[*i] >= '0' && re[*i] <= '9'; (*i)++)
		*ret = cap(*ret * 10 + (uint64_t)(re[*i] - '0'));
	return *i > start;
}

/* A "{n}", "{n,}" or "{n,m}" at @re[i]: its factor, *ret_next after it; false when it is no
 * bound (a '{' glibc then reads as itself). A bound over REGEX_DUP_MAX: factor UINT32_MAX. */
static bool bound_factor(const char *re, size_t i, uint64_t *ret_factor, size_t *ret_next)
{
	uint64_t n, m;

	i++;
	if (!number(re, &i, &n))
		return false;
	m = n;
	if (re[i] == ',') {
		i++;
		if (!number(re, &i, &m))
			m = n + 1; /* {n,}: n copies and a starred one */
		else if (m > REGEX_DUP_MAX)
			n = m; /* over the bound: refused below */
	}
	if (re[i] != '}')
		return false;
	*ret_next = i + 1;
	if (n > REGEX_DUP_MAX)
		*ret_factor = UINT32_MAX;
	else if (m > n)
		*ret_factor = n + (m - n) * (m - n + 1) / 2;
	else
		*ret_factor = n ? n : 1;
	return true;
}

uint32_t regex_copies(const char *re)
{
	uint64_t sum[DEPTH_MAX], last[DEPTH_MAX], factor;
	size_t i = 0, next;
	bool dup = false; /* the last token was a repetition */
	int depth = 0;

	sum[0] = last[0] = 0;
	while (re[i]) {
		char ch = re[i];
		bool was_dup = dup;

		dup = ch == '*' || ch == '?' || ch == '+' ||
		      (ch == '{' && bound_factor(re, i, &factor, &next));
		if (dup && was_dup)
			return UINT32_MAX; /* "x++", "x*?", "x{2}{3}": see regex_cost.h */
		if (ch == '*' || ch == '?') {
			i++;
		} else if (ch == '+') {
			last[depth] = mul(last[depth], 2);
			i++;
		} else if (dup) { /* a bound */
			last[depth] = mul(last[depth], factor);
			i = next;
		} else if (ch == '(') {
			if (depth + 1 >= DEPTH_MAX)
				return UINT32_MAX;
			sum[depth] = cap(sum[depth] + last[depth]);
			last[depth] = 0;
			depth++;
			sum[depth] = last[depth] = 0;
			i++;
		} else if (ch == ')' && depth > 0) {
			uint64_t group = cap(sum[depth] + last[depth]);

			depth--;
			sum[depth] = cap(sum[depth] + last[depth]);
			last[depth] = group ? group : 1;
			i++;
		} else if (ch == '|') {
			sum[depth] = cap(sum[depth] + last[depth]);
			last[depth] = 0;
			i++;
		} else {
			if (ch == '\\' && re[i + 1] >= '1' && re[i + 1] <= '9')
				return UINT32_MAX; /* a backreference: see regex_cost.h */
			sum[depth] = cap(sum[depth] + last[depth]);
			last[depth] = 1;
			if (ch == '[')
				i = bracket_end(re, i);
			else
				i += ch == '\\' && re[i + 1] ? 2 : 1;
		}
	}
	while (depth > 0) { /* unclosed: regcomp() refuses it; counted all the same */
		uint64_t group = cap(sum[depth] + last[depth]);

		depth--;
		sum[depth] = cap(sum[depth] + group);
	}
	return (uint32_t)cap(sum[0] + last[0]);
}
