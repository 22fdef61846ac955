/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared by the libFuzzer harnesses, one per parser of kernel text: the input handed over as
 * the readers hand a file (a copy ending in NUL, as sys_read_file() leaves it) and a check of
 * each parser's promises that aborts, so that a broken promise is a crash the fuzzer keeps. */
#ifndef OOMGUARD_FUZZ_H
#define OOMGUARD_FUZZ_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* FUZZ_WRAPPED_MIN - no counter the parsers return reaches it (parse.h: KV_WRAPPED_MIN). */
#define FUZZ_WRAPPED_MIN ((uint64_t)INT64_MAX + 1)

#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: broken promise: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* The input as a NUL-terminated buffer of its own (ASan sees any read past the NUL). */
static inline char *fuzz_buf(const uint8_t *data, size_t size)
{
	char *b = malloc(size + 1);

	if (!b)
		abort();
	memcpy(b, data, size);
	b[size] = '\0';
	return b;
}

/* Is @s NUL-terminated within @size bytes? */
static inline int fuzz_terminated(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

/* FUZZ_ACCEPTED(r) - the errors a parser of kernel text may give: malformed, wrapped, missing. */
#define FUZZ_ACCEPTED(r) ((r) == 0 || (r) == -EINVAL || (r) == -ERANGE || (r) == -ENODATA)

/*
 * FUZZ_COUNTERS_HARNESS(type, parse) - the whole harness of a parser that fills a struct of
 * uint64_t counters and sizes: it returns only FUZZ_ACCEPTED errors, and no value it accepts
 * is a wrapped (negative) one.
 */
#define FUZZ_COUNTERS_HARNESS(type, parse)                                                         \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                               \
	{                                                                                          \
		char *b = fuzz_buf(data, size);                                                    \
		type s;                                                                            \
		int r = parse(b, &s);                                                              \
                                                                                                   \
		FUZZ_CHECK(FUZZ_ACCEPTED(r));                                                      \
		if (r == 0) {                                                                      \
			const uint64_t *f = (const uint64_t *)&s;                                  \
                                                                                                   \
			for (size_t i = 0; i < sizeof(s) / sizeof(*f); i++)                        \
				FUZZ_CHECK(f[i] < FUZZ_WRAPPED_MIN);                               \
		}                                                                                  \
		free(b);                                                                           \
		return 0;                                                                          \
	}

#endif
