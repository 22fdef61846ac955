/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Counting the heap allocations a piece of code makes, for the tests that hold the daemon to no
 * allocation after start-up: malloc_count_install() once, then mallocs = 0; counting = 1; the
 * code; counting = 0. Tests build with -fsanitize=address, whose runtime has the hooks.
 */
#ifndef OOMGUARD_TESTS_MALLOC_COUNT_H
#define OOMGUARD_TESTS_MALLOC_COUNT_H

#include <stddef.h>

/* From the sanitizer runtime (libasan); its header is not always installed. */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
					      void (*free_hook)(const volatile void *));

static volatile unsigned long mallocs;
static volatile int counting;

static void on_malloc(const volatile void *ptr, size_t size)
{
	(void)ptr;
	(void)size;
	if (counting)
		mallocs++;
}

static void on_free(const volatile void *ptr)
{
	(void)ptr;
}

static inline void malloc_count_install(void)
{
	__sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
}

#endif
