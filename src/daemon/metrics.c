// SPDX-License-Identifier: GPL-2.0-only
/* Prometheus text exposition of the scopes' counters, and its atomic write (temp + rename). */
#include "daemon/metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "daemon/config.h"
#include "linux/sys.h"

const uint64_t metrics_bounds_usec[METRICS_NR_BOUNDS] = {
    1000, 5000, 10000, 50000, 100000, 500000, 1000000, 5000000, 10000000,
};

void metrics_observe(struct metrics_hist *h, uint64_t usec)
{
	size_t i = 0;

	while (i < METRICS_NR_BOUNDS && usec > metrics_bounds_usec[i])
		i++;
	h->buckets[i]++;
	h->sum_usec += usec;
}

/* A buffer filled in steps; @over once a step did not fit. */
struct out {
	char *buf;
	size_t size, len;
	bool over;
};

__attribute__((format(printf, 2, 3))) static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->over)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->size - o->len) {
		o->over = true;
		return;
	}
	o->len += (size_t)n;
}

/* A label value as the format wants it: backslash, double quote and newline escaped. */
static void put_label(struct out *o, const char *v)
{
	for (; *v && !o->over; v++) {
		if (*v == '\\' || *v == '"')
			put(o, "\\%c", *v);
		else if (*v == '\n')
			put(o, "\\n");
		else
			put(o, "%c", *v);
	}
}

static void put_sample(struct out *o, const char *metric, const char *scope, const char *extra,
		       const char *value)
{
	put(o, "%s{scope=\"", metric);
	put_label(o, scope);
	put(o, "\"%s} %s\n", extra, value);
}

/* The counters and gauges: one family each, every scope a sample. */
static const struct family {
	const char *name, *type, *help;
	size_t offset;
	bool is_signed;
} families[] = {
#define F(n, t, h, field) {"oomguard_" n, t, h, offsetof(struct scope_metrics, field), false}
    F("rounds_total", "counter", "Rounds the scope was read and judged.", rounds),
    F("reclaim_rounds_total", "counter", "Rounds in which allocations stalled (reclaim rounds).",
      reclaim_rounds),
    F("no_progress_rounds_total", "counter", "Reclaim rounds without progress.",
      no_progress_rounds),
    F("verdicts_total", "counter", "OOM verdicts acted on.", verdicts),
    F("kills_total", "counter", "Victims killed.", kills),
    F("reaped_dying_total", "counter",
      "Victims chosen while dying already (another's kill): reaped, not killed.", reaped_dying),
    F("freed_bytes_total", "counter", "Memory the kills freed, as measured after each reap.",
      freed_bytes),
    {"oomguard_no_progress_loops", "gauge",
     "Rounds without progress in a row (the rule declares OOM after at most 16).",
     offsetof(struct scope_metrics, loops), true},
    F("free_bytes", "gauge", "Free memory of the preferred zone.", free_bytes),
    F("reclaimable_bytes", "gauge", "Reclaimable memory of the preferred zone.", reclaimable_bytes),
    F("min_watermark_bytes", "gauge", "The preferred zone's min watermark.", min_bytes),
    F("limit_bytes", "gauge", "The scope's limit (the machine: MemTotal).", limit_bytes),
    F("usage_bytes", "gauge", "The scope's usage.", usage_bytes),
#undef F
};

static void put_hist(struct out *o, const char *name, const char *help, const char *const *names,
		     const struct scope_metrics *m, size_t n, size_t offset)
{
	char value[32], le[48];

	put(o, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
	for (size_t i = 0; i < n; i++) {
		const struct metrics_hist *h = (const void *)((const char *)&m[i] + offset);
		char metric[96];
		uint64_t cum = 0;

		snprintf(metric, sizeof(metric), "%s_bucket", name);
		for (size_t b = 0; b <= METRICS_NR_BOUNDS; b++) {
			cum += h->buckets[b];
			if (b < METRICS_NR_BOUNDS)
				snprintf(le, sizeof(le), ",le=\"%g\"",
					 (double)metrics_bounds_usec[b] / 1e6);
			else
				snprintf(le, sizeof(le), ",le=\"+Inf\"");
			snprintf(value, sizeof(value), "%llu", (unsigned long long)cum);
			put_sample(o, metric, names[i], le, value);
		}
		snprintf(metric, sizeof(metric), "%s_sum", name);
		snprintf(value, sizeof(value), "%.6f", (double)h->sum_usec / 1e6);
		put_sample(o, metric, names[i], "", value);
		snprintf(metric, sizeof(metric), "%s_count", name);
		snprintf(value, sizeof(value), "%llu", (unsigned long long)cum);
		put_sample(o, metric, names[i], "", value);
	}
}

long metrics_format(const char *const *names, const char *const *kinds,
		    const struct scope_metrics *m, size_t n, uint64_t events_dropped,
		    uint64_t hooks_failed, char *buf, size_t size)
{
	struct out o = {buf, size, 0, size == 0};
	char value[32], kind[64];

	put(&o, "# HELP oomguard_scope_info A watched scope and its kind.\n"
		"# TYPE oomguard_scope_info gauge\n");
	for (size_t i = 0; i < n; i++) {
		snprintf(kind, sizeof(kind), ",kind=\"%s\"", kinds[i]);
		put_sample(&o, "oomguard_scope_info", names[i], kind, "1");
	}
	for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		const struct family *fam = &families[f];

		put(&o, "# HELP %s %s\n# TYPE %s %s\n", fam->name, fam->help, fam->name, fam->type);
		for (size_t i = 0; i < n; i++) {
			const char *p = (const char *)&m[i] + fam->offset;

			if (fam->is_signed)
				snprintf(value, sizeof(value), "%lld",
					 (long long)*(const int64_t *)(const void *)p);
			else
				snprintf(value, sizeof(value), "%llu",
					 (unsigned long long)*(const uint64_t *)(const void *)p);
			put_sample(&o, fam->name, names[i], "", value);
		}
	}
	put_hist(&o, "oomguard_detect_to_kill_seconds",
		 "From the round that read the verdict to the SIGKILL.", names, m, n,
		 offsetof(struct scope_metrics, detect_to_kill));
	put_hist(&o, "oomguard_kill_to_freed_seconds", "From the SIGKILL to the end of the reap.",
		 names, m, n, offsetof(struct scope_metrics, kill_to_freed));
	put(&o, "# HELP oomguard_helper_events_dropped_total Events the loop could not hand to "
		"the helper (its pipe full).\n# TYPE oomguard_helper_events_dropped_total counter\n"
		"oomguard_helper_events_dropped_total %llu\n",
	    (unsigned long long)events_dropped);
	put(&o, "# HELP oomguard_hook_failures_total Hooks and announcers that failed, timed out "
		"or could not run.\n# TYPE oomguard_hook_failures_total counter\n"
		"oomguard_hook_failures_total %llu\n",
	    (unsigned long long)hooks_failed);
	return o.over ? -ENOSPC : (long)o.len;
}

int metrics_write_file(const char *dir, const char *text, size_t len)
{
	char tmp[CONFIG_PATH_MAX + 32], dst[CONFIG_PATH_MAX + 32];
	size_t done = 0;
	ssize_t w = 0;
	int fd, r;

	if (sys_join_path(tmp, sizeof(tmp), dir, "/oomguard.prom.tmp") < 0 ||
	    sys_join_path(dst, sizeof(dst), dir, "/oomguard.prom") < 0)
		return -ENAMETOOLONG;
	fd = sys->openat(AT_FDCWD, tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return fd;
	while (done < len && (w = sys->write(fd, text + done, len - done)) > 0)
		done += (size_t)w;
	r = sys->close(fd);
	if (done < len) /* a failed write leaves the temp file, replaced at the next */
		return w < 0 ? (int)w : -EIO;
	if (r < 0)
		return r;
	return sys->renameat(AT_FDCWD, tmp, AT_FDCWD, dst);
}
