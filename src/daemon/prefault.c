// SPDX-License-Identifier: GPL-2.0-only
/* Faulting memory in ahead of need (prefault.h says why). */
#include "daemon/prefault.h"

/* The smallest page size Linux runs with: stepping by it touches every page, whatever the
 * kernel's page size (on 16 or 64 KiB pages some writes land on a page already touched). */
#define PREFAULT_STEP 4096

__attribute__((noinline)) void prefault_stack(size_t bytes)
{
	volatile char buf[bytes];

	for (size_t i = 0; i < sizeof(buf); i += PREFAULT_STEP)
		buf[i] = 0;
	buf[sizeof(buf) - 1] = 0;
}

void prefault_range(void *p, size_t len)
{
	volatile char *c = p;

	/* A write, not a read: reading a never-written page maps the shared zero page. */
	for (size_t i = 0; i < len; i += PREFAULT_STEP)
		c[i] = c[i];
	if (len)
		c[len - 1] = c[len - 1];
}
