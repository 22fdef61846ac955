/* SPDX-License-Identifier: GPL-2.0-only */
/* oomguard sim's public face: a scenario, a retry rule and a seed in; the run's figures out.
 * The model itself is described in model.h; the CLI (src/cli/cmd_sim.c) only calls what is here. */
#ifndef OOMGUARD_SIM_SIM_H
#define OOMGUARD_SIM_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "policy/retry.h"

enum sim_scenario {
	SIM_FLOOD,
	SIM_FIT,
	SIM_HUGEPAGES,
	SIM_CHURN_LIVELOCK,
	SIM_STUCK_VICTIM,
	SIM_STUCK_VICTIM_MMAP,
	SIM_FRAG,
	NR_SIM_SCENARIOS
};

/* Default machine: the cover letter's 2 GiB virtual machine. */
#define SIM_DEFAULT_MEM_MIB 2048u
#define SIM_MIN_MEM_MIB     32u
#define SIM_MAX_MEM_MIB     65536u

/* --noise: a page given back every 10 minutes at the most. */
#define SIM_MAX_NOISE_MSEC 600000u

/* Huge page histogram buckets: pages obtained, 0..this-1. */
#define SIM_HUGE_MAX      1024u
#define SIM_HUGE_ATTEMPTS 20u

/*
 * struct sim_config - one run.
 * @scenario:  which of the scenarios
 * @rule:      which reclaim retry rule the slow path uses
 * @seed:      seeds the PRNG that varies the interleaving
 * @mem_mib:   RAM of the machine; workloads scale with it
 * @reaper:    run the OOM reaper kthread
 * @wq_stall:  the machine polls a CD-ROM from a bound work item whose allocations can hold its
 *             CPU's vmstat_update() (workqueue.c)
 * @noise_usec: the rest of the machine gives a page back every this long on average (noise.c);
 *             0: nothing frees a page but the scenario's tasks
 * @csv:       when set, time series rows are written here (free, reclaimable, loops, OOM events)
 */
struct sim_config {
	enum sim_scenario scenario;
	enum retry_rule rule;
	uint64_t seed;
	unsigned int mem_mib;
	bool reaper;
	bool wq_stall;
	uint64_t noise_usec;
	FILE *csv;
};

/* How a run ended. */
enum sim_outcome {
	SIM_OUT_COMPLETED, /* every workload finished or was killed */
	SIM_OUT_LIVELOCK,  /* an allocation kept retrying without OOM until the budget ran out */
	SIM_OUT_STUCK, /* the OOM killer waited on a victim that never exited, until the budget */
	SIM_OUT_PANIC, /* nothing left to kill */
	NR_SIM_OUTCOMES
};

/*
 * struct sim_result - what a run measured. Times are virtual, in microseconds.
 * @oom_calls:          out_of_memory() invocations
 * @oom_kills:          victims killed ("invoked oom-killer" in the kernel log)
 * @oom_waits:          invocations that found an earlier victim still exiting and killed nobody
 * @premature_kills:    kills made while free + reclaimable could still meet the min watermark
 * @reclaimable_kills:  kills made while a zone was still zone_reclaimable() ("all_unreclaimable?
 * no")
 * @first_kill_usec:    time of the first kill (0 if none)
 * @last_kill_usec:     time of the last kill, from the start of the load that floods (0 if none)
 * @max_stall_usec:     longest time one allocation spent in the slow path
 * @alloc_failures:     allocations that returned no page
 * @rounds_to_oom:      reclaim rounds the allocation that first went OOM spent (0 if none)
 * @stalled_rounds:     rounds of the longest-stalled allocation
 * @reaped_pages:       pages the reaper freed
 * @reaper_successes:   victims reaped
 * @reaper_giveups:     victims given up on after MAX_OOM_REAP_RETRIES tries
 * @victim_exit_usec:   time the first victim finished exiting (0 if it never did)
 * @alloc_done_usec:    stuck-victim: time the lock holder's allocation completed (0 if never)
 * @next_victim_kills:  kills after the first (stuck-victim: the next victim chosen)
 * @fit_margin_kib:     fit: smallest margin that passed every seed (KiB per eater)
 * @huge_hist:          hugepages: how many attempts obtained each count
 * @huge_requested:     hugepages: pages requested (the most over the attempts)
 * @huge_obtained:      hugepages: pages obtained in one attempt
 * @budget_attempts:    hugepages: attempts still allocating when the time budget ran out
 * @oom_reports:        OOM reports printed (the rate limit let them through)
 * @oom_lock_contended: __alloc_pages_may_oom() calls that lost the oom_lock trylock
 * @compaction_ready_rounds: costly-order reclaim rounds that returned 1 for compaction_ready()
 * @compact_retries:    mainline: retries should_compact_retry() granted
 * @frag_allocs:        frag: order-2/3 allocations that succeeded
 * @wq_holds:           times the disk events worker looped in the allocator without sleeping
 *                      while its CPU's vmstat_update() was due (it waited behind it)
 * @wq_hold_max_usec:   the longest such wait of vmstat_update()
 * @noise_frees:        pages the rest of the machine gave back (--noise)
 * @page_events:        page allocations, frees, state changes (for the benchmark)
 * @cpu_work_nsec:      CPU time of the tasks' work before the run queue stretched it: what the
 *                      model's CPUs did, so at most NR_CPUS times @end_usec
 * @end_usec:           virtual time at the end
 */
struct sim_result {
	enum sim_scenario scenario;
	enum retry_rule rule;
	uint64_t seed;
	unsigned int mem_mib;
	bool reaper;
	bool wq_stall;
	uint64_t noise_usec;
	enum sim_outcome outcome;
	unsigned long oom_calls;
	unsigned long oom_kills;
	unsigned long oom_waits;
	unsigned long premature_kills;
	unsigned long reclaimable_kills;
	uint64_t first_kill_usec;
	uint64_t last_kill_usec;
	uint64_t max_stall_usec;
	unsigned long alloc_failures;
	unsigned long rounds_to_oom;
	unsigned long stalled_rounds;
	unsigned long reaped_pages;
	unsigned long reaper_successes;
	unsigned long reaper_giveups;
	uint64_t victim_exit_usec;
	uint64_t alloc_done_usec;
	unsigned long next_victim_kills;
	unsigned long fit_margin_kib;
	unsigned int huge_hist[SIM_HUGE_MAX];
	unsigned int huge_requested;
	unsigned int huge_obtained;
	unsigned int budget_attempts;
	unsigned long oom_reports;
	unsigned long oom_lock_contended;
	unsigned long compaction_ready_rounds;
	unsigned long compact_retries;
	unsigned long frag_allocs;
	unsigned long wq_holds;
	uint64_t wq_hold_max_usec;
	unsigned long noise_frees;
	uint64_t page_events;
	uint64_t cpu_work_nsec;
	uint64_t end_usec;
};

/* Scenario names as --list prints them, and a one-line description. */
const char *sim_scenario_name(enum sim_scenario sc);
const char *sim_scenario_help(enum sim_scenario sc);
/* Parses a scenario name; returns 0 and writes *ret_sc, or -EINVAL. */
int sim_scenario_parse(const char *name, enum sim_scenario *ret_sc);
const char *sim_outcome_name(enum sim_outcome o);

/*
 * sim_run() - run @cfg's scenario to its end and fill @ret_result.
 * Returns 0, or -ENOMEM when the machine's arrays cannot be allocated.
 */
int sim_run(const struct sim_config *cfg, struct sim_result *ret_result);

/* Output (output.c). */
void sim_print_table(FILE *f, const struct sim_result *res, size_t nr);
void sim_print_json(FILE *f, const struct sim_result *res);
void sim_csv_header(FILE *f);
/* Writes a gnuplot script drawing the CSV files in @csv_dir for @res's rules into @png_path. */
int sim_write_plot(const char *script_path, const char *png_path, const char *csv_dir,
		   const struct sim_result *res, size_t nr);

#endif
