/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Metrics: what each scope's rounds, verdicts and kills came to (counted by the loop into
 * struct scope_metrics, no allocation), and the Prometheus text exposition of them that the
 * helper process writes into a node_exporter textfile directory (helper.h).
 */
#ifndef OOMGUARD_DAEMON_METRICS_H
#define OOMGUARD_DAEMON_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Histogram bounds, in microseconds. Detection to kill is 0.3-15 ms for a victim chosen ahead
 * and up to seconds for one listed at the verdict under machine-wide pressure; kill to freed is
 * a few ms for a reap, tens to hundreds of ms for a large victim's exit (docs/daemon-design.md):
 * one set of bounds from 1 ms to 10 s covers both.
 */
#define METRICS_NR_BOUNDS 9
extern const uint64_t metrics_bounds_usec[METRICS_NR_BOUNDS];

/* struct metrics_hist - a histogram: @buckets[i] counts values <= bound i (not cumulative;
 * the last is +Inf), @sum_usec their sum. */
struct metrics_hist {
	uint64_t buckets[METRICS_NR_BOUNDS + 1];
	uint64_t sum_usec;
};

/*
 * struct scope_metrics - one scope's counters (since it was set up) and the rule's inputs at
 * its last round.
 * @rounds:              rounds the scope was read and judged
 * @reclaim_rounds:      of those, reclaim rounds (allocations stalled)
 * @no_progress_rounds:  reclaim rounds without progress
 * @verdicts:            OOM verdicts acted on
 * @kills:               victims killed (SIGKILL sent)
 * @reaped_dying:        victims chosen while dying already by another's kill: reaped, not
 *                       signalled (not in @kills)
 * @freed_bytes:         memory the kills freed, as the reaper measured it
 * @loops:               no_progress_loops now
 * @free_bytes, @reclaimable_bytes, @min_bytes: the preferred zone's, now
 * @limit_bytes, @usage_bytes: the scope's
 */
struct scope_metrics {
	uint64_t rounds, reclaim_rounds, no_progress_rounds, verdicts, kills, reaped_dying;
	uint64_t freed_bytes;
	struct metrics_hist detect_to_kill, kill_to_freed;
	int64_t loops;
	uint64_t free_bytes, reclaimable_bytes, min_bytes, limit_bytes, usage_bytes;
};

/* metrics_observe() - one value into @h. */
void metrics_observe(struct metrics_hist *h, uint64_t usec);

/*
 * metrics_format() - the exposition of @n scopes (@names[i], @kinds[i], @m[i]) and the helper's
 * own counters (@events_dropped: records the loop could not hand over; @hooks_failed) into
 * @buf, NUL-terminated. Pure. Return: its length, or -ENOSPC when @size is too small.
 */
long metrics_format(const char *const *names, const char *const *kinds,
		    const struct scope_metrics *m, size_t n, uint64_t events_dropped,
		    uint64_t hooks_failed, char *buf, size_t size);

/*
 * metrics_write_file() - @text into @dir/oomguard.prom, atomically: written to
 * @dir/oomguard.prom.tmp (which node_exporter ignores), then renamed over it.
 * Return: 0 or -errno.
 */
int metrics_write_file(const char *dir, const char *text, size_t len);

#endif
