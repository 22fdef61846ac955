// SPDX-License-Identifier: GPL-2.0-only
/* The event queue: a binary min-heap on (virtual time, sequence number). The sequence number
 * makes the order of simultaneous events the order they were queued: no ties left to chance. */
#include <errno.h>
#include <stdlib.h>

#include "sim/model.h"

#define HEAP_INITIAL 1024u

int events_init(struct sim *s)
{
	s->heap_cap = HEAP_INITIAL;
	s->heap_len = 0;
	s->heap = malloc(s->heap_cap * sizeof(*s->heap));
	return s->heap ? 0 : -ENOMEM;
}

void events_free(struct sim *s)
{
	free(s->heap);
	s->heap = NULL;
}

static bool before(const struct sim_event *a, const struct sim_event *b)
{
	return a->when < b->when || (a->when == b->when && a->seq < b->seq);
}

/* Queues an event; the queue only grows with the number of tasks, so failure is fatal. */
void event_push(struct sim *s, uint64_t when, enum event_kind kind, int task, uint32_t gen)
{
	struct sim_event ev = {when, s->seq++, task, gen, (uint8_t)kind};
	size_t i;

	if (s->heap_len == s->heap_cap) {
		struct sim_event *n = realloc(s->heap, 2 * s->heap_cap * sizeof(*n));

		if (!n)
			abort();
		s->heap = n;
		s->heap_cap *= 2;
	}
	i = s->heap_len++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!before(&ev, &s->heap[parent]))
			break;
		s->heap[i] = s->heap[parent];
		i = parent;
	}
	s->heap[i] = ev;
}

bool event_pop(struct sim *s, struct sim_event *ret_ev)
{
	struct sim_event last;
	size_t i = 0;

	if (!s->heap_len)
		return false;
	*ret_ev = s->heap[0];
	last = s->heap[--s->heap_len];
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= s->heap_len)
			break;
		if (c + 1 < s->heap_len && before(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!before(&s->heap[c], &last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->heap_len)
		s->heap[i] = last;
	return true;
}
