// SPDX-License-Identifier: GPL-2.0-only
// bench_sim: how fast `oomguard sim` runs. The flood scenario (100 eaters of 80 MiB per 2 GiB, 2
// writers) at 2, 4 and 8 GiB under each rule: CPU seconds per run and simulated page events per
// second; then every scenario at 2 GiB. Targets: flood at 2 GiB under 1 s, 8 GiB under 4 s.
// Usage: bench_sim [REPEATS]   (best of REPEATS runs, default 3)
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sim/sim.h"

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Best CPU time of @repeats runs; the result of the last run in @res. */
static double time_run(const struct sim_config *cfg, int repeats, struct sim_result *res)
{
	double best = 1e9;

	for (int i = 0; i < repeats; i++) {
		double t0 = cpu_seconds(), dt;

		if (sim_run(cfg, res)) {
			fprintf(stderr, "bench_sim: %s failed\n", sim_scenario_name(cfg->scenario));
			exit(1);
		}
		dt = cpu_seconds() - t0;
		if (dt < best)
			best = dt;
	}
	return best;
}

int main(int argc, char **argv)
{
	static const unsigned int sizes_mib[] = {2048, 4096, 8192};
	int repeats = argc > 1 ? atoi(argv[1]) : 3;
	double flood_2g[NR_RETRY_RULES] = {0};

	if (repeats < 1)
		repeats = 1;
	printf("flood: best of %d runs, CPU time (target: 2 GiB < 1 s, 8 GiB < 4 s)\n", repeats);
	printf("%-9s %-9s %10s %14s %16s %8s\n", "mem", "rule", "seconds", "page events",
	       "page events/s", "vs 2G");
	for (size_t m = 0; m < sizeof(sizes_mib) / sizeof(sizes_mib[0]); m++) {
		for (int rule = 0; rule < NR_RETRY_RULES; rule++) {
			struct sim_config cfg = {.scenario = SIM_FLOOD,
						 .rule = (enum retry_rule)rule,
						 .seed = 1,
						 .mem_mib = sizes_mib[m],
						 .reaper = true};
			struct sim_result res;
			double t = time_run(&cfg, repeats, &res);

			if (m == 0)
				flood_2g[rule] = t;
			printf("%-9s %-9s %10.3f %14" PRIu64 " %16.0f %7.2fx\n",
			       sizes_mib[m] == 2048   ? "2 GiB"
			       : sizes_mib[m] == 4096 ? "4 GiB"
						      : "8 GiB",
			       retry_rule_name(cfg.rule), t, res.page_events,
			       (double)res.page_events / t, t / flood_2g[rule]);
		}
	}
	printf(
	    "\nevery scenario at 2 GiB, rework, one run (fit and hugepages run many machines)\n");
	for (int sc = 0; sc < NR_SIM_SCENARIOS; sc++) {
		struct sim_config cfg = {.scenario = (enum sim_scenario)sc,
					 .rule = RETRY_RULE_REWORK,
					 .seed = 1,
					 .mem_mib = 2048,
					 .reaper = true};
		struct sim_result res;
		double t = time_run(&cfg, 1, &res);

		printf("%-18s %8.3f s %14" PRIu64 " page events %12.0f /s\n",
		       sim_scenario_name(cfg.scenario), t, res.page_events,
		       (double)res.page_events / t);
	}
	return 0;
}
