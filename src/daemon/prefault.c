// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/prefault.h"

#define PREFAULT_PAGE 4096

__attribute__((noinline)) void prefault_stack(size_t bytes)
{
	volatile char buf[bytes];

	for (size_t i = 0; i < sizeof(buf); i += PREFAULT_PAGE)
		buf[i] = 0;
	buf[sizeof(buf) - 1] = 0;
}

void prefault_range(void *p, size_t len)
{
	volatile char *c = p;

	/* A write, not a read: reading a never-written page maps the shared zero page. */
	for (size_t i = 0; i < len; i += PREFAULT_PAGE)
		c[i] = c[i];
	if (len)
		c[len - 1] = c[len - 1];
}
