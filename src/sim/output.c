// SPDX-License-Identifier: GPL-2.0-only
/* The model's output: a readable table (one column per rule), JSON (one object per run), the
 * CSV time series header, and a gnuplot script drawing the series of several rules together. */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>

#include "sim/sim.h"

enum row_fmt { F_OUTCOME, F_COUNT, F_USEC, F_KIB };

#define FL  (1u << SIM_FLOOD)
#define FI  (1u << SIM_FIT)
#define HU  (1u << SIM_HUGEPAGES)
#define CL  (1u << SIM_CHURN_LIVELOCK)
#define SV  ((1u << SIM_STUCK_VICTIM) | (1u << SIM_STUCK_VICTIM_MMAP))
#define FR  (1u << SIM_FRAG)
#define ALL (FL | FI | HU | CL | SV | FR)
#define WQ  (1u << 31) /* only with --wq-stall */
#define NZ  (1u << 30) /* only with --noise */

struct row {
	const char *label;
	const char *key; /* JSON name */
	unsigned int scenarios;
	enum row_fmt fmt;
	size_t off;
};

#define R(label, key, sc, fmt, field)                                                              \
	{                                                                                          \
		label, key, sc, fmt, offsetof(struct sim_result, field)                            \
	}

static const struct row rows[] = {
    R("outcome", "outcome", ALL, F_OUTCOME, outcome),
    R("out_of_memory() calls", "oom_calls", FL | HU | CL | SV | FR, F_COUNT, oom_calls),
    R("OOM kills", "oom_kills", FL | HU | CL | SV | FR, F_COUNT, oom_kills),
    R("OOM reports printed", "oom_reports", FL | HU | CL | SV | FR, F_COUNT, oom_reports),
    R("oom_lock trylocks lost", "oom_lock_contended", FL | HU | CL | SV | FR, F_COUNT,
      oom_lock_contended),
    R("waits for an exiting victim", "oom_waits", FL | SV, F_COUNT, oom_waits),
    R("kills while free+freeable met min", "premature_kills", FL | CL | FR, F_COUNT,
      premature_kills),
    R("kills while zone_reclaimable()", "reclaimable_kills", FL | CL, F_COUNT, reclaimable_kills),
    R("first kill (s after load start)", "first_kill_usec", FL | CL | SV, F_USEC, first_kill_usec),
    R("last kill (s after load start)", "last_kill_usec", FL, F_USEC, last_kill_usec),
    R("reclaim rounds before first OOM", "rounds_to_oom", FL | CL | SV, F_COUNT, rounds_to_oom),
    R("longest allocation stall (s)", "max_stall_usec", FL | HU | CL | SV, F_USEC, max_stall_usec),
    R("rounds in the longest stall", "stalled_rounds", FL | CL | SV, F_COUNT, stalled_rounds),
    R("allocation failures", "alloc_failures", FL | HU | FR, F_COUNT, alloc_failures),
    R("order-2/3 allocations done", "frag_allocs", FR, F_COUNT, frag_allocs),
    R("compaction retries (mainline)", "compact_retries", HU | FR, F_COUNT, compact_retries),
    R("reclaim rounds ended by compaction_ready", "compaction_ready_rounds", HU, F_COUNT,
      compaction_ready_rounds),
    R("pages reaped", "reaped_pages", FL | SV, F_COUNT, reaped_pages),
    R("victims reaped", "reaper_successes", FL | SV, F_COUNT, reaper_successes),
    R("victims the reaper gave up on", "reaper_giveups", FL | SV, F_COUNT, reaper_giveups),
    R("kills after the first", "next_victim_kills", SV, F_COUNT, next_victim_kills),
    R("lock holder's allocation done (s)", "alloc_done_usec", SV, F_USEC, alloc_done_usec),
    R("first victim exited (s)", "victim_exit_usec", SV, F_USEC, victim_exit_usec),
    R("smallest margin without OOM (MiB)", "fit_margin_kib", FI, F_KIB, fit_margin_kib),
    R("huge pages requested (most)", "huge_requested", HU, F_COUNT, huge_requested),
    R("attempts still retrying at the budget", "budget_attempts", HU, F_COUNT, budget_attempts),
    R("vmstat_update()s the poll held", "wq_holds", WQ | FL | HU | CL | SV | FR, F_COUNT, wq_holds),
    R("longest of them (s)", "wq_hold_max_usec", WQ | FL | HU | CL | SV | FR, F_USEC,
      wq_hold_max_usec),
    R("pages the rest of the machine gave back", "noise_frees", NZ | ALL, F_COUNT, noise_frees),
    R("virtual time at end (s)", "end_usec", ALL, F_USEC, end_usec),
};

static void format_cell(char *buf, size_t len, const struct row *r, const struct sim_result *res)
{
	const char *p = (const char *)res + r->off;

	switch (r->fmt) {
	case F_OUTCOME:
		snprintf(buf, len, "%s",
			 sim_outcome_name(*(const enum sim_outcome *)(const void *)p));
		break;
	case F_COUNT:
		if (r->off == offsetof(struct sim_result, huge_requested) ||
		    r->off == offsetof(struct sim_result, budget_attempts))
			snprintf(buf, len, "%u", *(const unsigned int *)(const void *)p);
		else
			snprintf(buf, len, "%lu", *(const unsigned long *)(const void *)p);
		break;
	case F_USEC:
		snprintf(buf, len, "%.3f", (double)*(const uint64_t *)(const void *)p / 1000000.0);
		break;
	case F_KIB:
		snprintf(buf, len, "%.2f",
			 (double)*(const unsigned long *)(const void *)p / 1024.0);
		break;
	}
}

/* Rows of an option's (--wq-stall, --noise) are shown only when it is on. */
static bool row_shown(const struct row *r, const struct sim_result *res)
{
	return !((r->scenarios & WQ) && !res->wq_stall) &&
	       !((r->scenarios & NZ) && !res->noise_usec);
}

/* The table: one column per result (the rules side by side with --compare). */
void sim_print_table(FILE *f, const struct sim_result *res, size_t nr)
{
	unsigned int mask = 1u << res[0].scenario;
	char cell[64];

	fprintf(f, "scenario %s: %u MiB, seed %" PRIu64 ", reaper %s%s",
		sim_scenario_name(res[0].scenario), res[0].mem_mib, res[0].seed,
		res[0].reaper ? "on" : "off", res[0].wq_stall ? ", wq stall on" : "");
	if (res[0].noise_usec)
		fprintf(f, ", noise every %" PRIu64 " ms", res[0].noise_usec / 1000);
	fputc('\n', f);
	fprintf(f, "%-38s", "");
	for (size_t i = 0; i < nr; i++)
		fprintf(f, " %12s", retry_rule_name(res[i].rule));
	fputc('\n', f);
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		if (!(rows[k].scenarios & mask) || !row_shown(&rows[k], &res[0]))
			continue;
		fprintf(f, "%-38s", rows[k].label);
		for (size_t i = 0; i < nr; i++) {
			format_cell(cell, sizeof(cell), &rows[k], &res[i]);
			fprintf(f, " %12s", cell);
		}
		fputc('\n', f);
	}
	if (res[0].scenario != SIM_HUGEPAGES)
		return;
	for (unsigned int n = 0; n < SIM_HUGE_MAX; n++) {
		bool any = false;

		for (size_t i = 0; i < nr; i++)
			any |= res[i].huge_hist[n] != 0;
		if (!any)
			continue;
		snprintf(cell, sizeof(cell), "attempts that obtained %u", n);
		fprintf(f, "%-38s", cell);
		for (size_t i = 0; i < nr; i++)
			fprintf(f, " %12u", res[i].huge_hist[n]);
		fputc('\n', f);
	}
}

void sim_print_json(FILE *f, const struct sim_result *res)
{
	char cell[64];
	bool first = true;

	fprintf(f,
		"{\"scenario\":\"%s\",\"rule\":\"%s\",\"seed\":%" PRIu64
		",\"mem_mib\":%u,\"reaper\":%s",
		sim_scenario_name(res->scenario), retry_rule_name(res->rule), res->seed,
		res->mem_mib, res->reaper ? "true" : "false");
	if (res->wq_stall)
		fprintf(f, ",\"wq_stall\":true");
	if (res->noise_usec)
		fprintf(f, ",\"noise_msec\":%" PRIu64, res->noise_usec / 1000);
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		if (!row_shown(&rows[k], res))
			continue;
		format_cell(cell, sizeof(cell), &rows[k], res);
		if (rows[k].fmt == F_OUTCOME)
			fprintf(f, ",\"%s\":\"%s\"", rows[k].key, cell);
		else if (rows[k].fmt == F_USEC)
			fprintf(f, ",\"%s\":%" PRIu64, rows[k].key,
				*(const uint64_t *)(const void *)((const char *)res + rows[k].off));
		else if (rows[k].fmt == F_KIB)
			fprintf(f, ",\"%s\":%lu", rows[k].key,
				*(const unsigned long *)(const void *)((const char *)res +
								       rows[k].off));
		else
			fprintf(f, ",\"%s\":%s", rows[k].key, cell);
	}
	fprintf(f, ",\"page_events\":%" PRIu64 ",\"cpu_work_usec\":%" PRIu64 ",\"huge_hist\":{",
		res->page_events, res->cpu_work_nsec / 1000);
	for (unsigned int n = 0; n < SIM_HUGE_MAX; n++) {
		if (!res->huge_hist[n])
			continue;
		fprintf(f, "%s\"%u\":%u", first ? "" : ",", n, res->huge_hist[n]);
		first = false;
	}
	fprintf(f, "}}\n");
}

void sim_csv_header(FILE *f)
{
	fprintf(f, "time_s,free_pages,reclaimable_pages,dirty_pages,writeback_pages,"
		   "no_progress_loops,oom_calls,oom_kills,stalled_tasks\n");
}

/*
 * sim_write_plot() - a gnuplot script that draws, for each run in @res, free memory, the
 * no-progress counter and the OOM kills over time from @csv_dir/<scenario>-<rule>.csv into the
 * PNG @png_path. Returns 0 or -errno.
 */
int sim_write_plot(const char *script_path, const char *png_path, const char *csv_dir,
		   const struct sim_result *res, size_t nr)
{
	static const struct {
		const char *label;
		const char *expr;
	} panels[] = {
	    {"free MiB", "1:($2/256.0)"},
	    {"reclaimable MiB", "1:($3/256.0)"},
	    {"no_progress_loops", "1:6"},
	    {"OOM kills", "1:8"},
	};
	FILE *f = fopen(script_path, "w");

	if (!f)
		return -errno;
	fprintf(f, "set datafile separator ','\nset terminal png size 1200,1100 noenhanced\n");
	fprintf(f, "set output '%s'\nset key top right\nset xlabel 'virtual time (s)'\n", png_path);
	fprintf(f,
		"set multiplot layout %zu,1 title 'oomguard sim: %s (%u MiB, seed %" PRIu64 ")'\n",
		sizeof(panels) / sizeof(panels[0]), sim_scenario_name(res[0].scenario),
		res[0].mem_mib, res[0].seed);
	for (size_t p = 0; p < sizeof(panels) / sizeof(panels[0]); p++) {
		fprintf(f, "set ylabel '%s'\nplot ", panels[p].label);
		for (size_t i = 0; i < nr; i++)
			fprintf(f, "%s'%s/%s-%s.csv' using %s with lines lw 2 title '%s'",
				i ? ", " : "", csv_dir, sim_scenario_name(res[i].scenario),
				retry_rule_name(res[i].rule), panels[p].expr,
				retry_rule_name(res[i].rule));
		fputc('\n', f);
	}
	fprintf(f, "unset multiplot\n");
	if (fclose(f))
		return -errno;
	return 0;
}
