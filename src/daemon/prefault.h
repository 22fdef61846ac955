/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Faulting memory in ahead of need. Under mlockall(MCL_ONFAULT) a page is locked when first
 * touched; a page first touched in the kill path, when memory is exhausted, waits in reclaim
 * like everyone else's. So the daemon touches, at start-up, the memory its kill path uses.
 */
#ifndef OOMGUARD_DAEMON_PREFAULT_H
#define OOMGUARD_DAEMON_PREFAULT_H

#include <stddef.h>

/* Stack each thread touches at its start: the deepest paths (task listing, log lines) use
 * about 24 KiB. */
#define PREFAULT_STACK_BYTES (48 * 1024)

/* prefault_stack() - write to @bytes of the calling thread's stack, below the caller's frame. */
void prefault_stack(size_t bytes);

/* prefault_range() - write every page of [@p, @p + @len) with its own content. */
void prefault_range(void *p, size_t len);

#endif
