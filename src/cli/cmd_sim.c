// SPDX-License-Identifier: GPL-2.0-only
/* oomguard sim: parse the options, run the scenario under one rule or all three (--compare),
 * print the table or JSON, write CSV time series and a gnuplot drawing on request. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/commands.h"
#include "sim/sim.h"

struct sim_opts {
	enum sim_scenario scenario;
	bool have_scenario;
	enum retry_rule rule;
	bool compare;
	uint64_t seed;
	unsigned int mem_mib;
	bool reaper;
	bool wq_stall;
	uint64_t noise_msec;
	bool json;
	const char *csv_dir;
	const char *plot_file;
};

static void sim_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: oomguard sim SCENARIO [--policy base|rework|rework-v4|mainline | --compare]\n"
	    "                    [--seed N] [--mem-mib N] [--no-reaper] [--wq-stall]\n"
	    "                    [--noise MSEC] [--json] [--csv DIR] [--plot FILE.png]\n"
	    "       oomguard sim --list\n\n"
	    "A deterministic model of the kernel's allocator slow path, reclaim, writeback,\n"
	    "OOM killer and OOM reaper. The same scenario, rule and seed give the same bytes.\n\n"
	    "  --policy RULE   the reclaim retry rule (default rework)\n"
	    "  --compare       run every rule; one table side by side\n"
	    "  --seed N        seed of the interleaving (default 1)\n"
	    "  --mem-mib N     RAM, a multiple of 4 in %u..%u (default %u); loads scale\n"
	    "  --no-reaper     no OOM reaper kthread (as 4.3 had none)\n"
	    "  --wq-stall      a CD-ROM's disk events poll (a bound work item, GFP_NOIO) that,\n"
	    "                  looping in the allocator, holds its CPU's vmstat_update()\n"
	    "  --noise MSEC    the rest of the machine gives a page back every MSEC on average\n"
	    "                  (1..%u; slab freed by RCU, daemons); default: nothing does\n"
	    "  --json          one JSON object per run instead of the table\n"
	    "  --csv DIR       time series per run: DIR/SCENARIO-RULE.csv\n"
	    "  --plot FILE     draw the series with gnuplot into FILE (PNG)\n"
	    "  --list          the scenarios\n",
	    SIM_MIN_MEM_MIB, SIM_MAX_MEM_MIB, SIM_DEFAULT_MEM_MIB, SIM_MAX_NOISE_MSEC);
}

static void valid_scenarios(FILE *f)
{
	for (int i = 0; i < NR_SIM_SCENARIOS; i++)
		fprintf(f, "%s%s", i ? ", " : "", sim_scenario_name((enum sim_scenario)i));
}

static int parse_u64(const char *opt, const char *s, uint64_t max, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (!s || !*s || *s == '-' || *s == '+')
		goto bad;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		goto bad;
	*ret = v;
	return 0;
bad:
	fprintf(stderr, "oomguard sim: %s: '%s' is not a number in 0..%" PRIu64 "\n", opt,
		s ? s : "", max);
	return -EINVAL;
}

/* Takes an option's value from "--opt=value" or the next argument. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (*i + 1 < argc)
		return argv[++*i];
	fprintf(stderr, "oomguard sim: %s needs a value\n", name);
	return NULL;
}

/* The value of option @name, a @what that may not be empty, into *@ret. Return: 0, -EINVAL
 * (said). */
static int path_value(int argc, char **argv, int *i, const char *name, const char *what,
		      const char **ret)
{
	*ret = opt_value(argc, argv, i, name);
	if (!*ret)
		return -EINVAL;
	if (!**ret) {
		fprintf(stderr, "oomguard sim: %s needs a %s, not an empty value\n", name, what);
		return -EINVAL;
	}
	return 0;
}

static bool opt_is(const char *arg, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(arg, name, n) && (arg[n] == '\0' || arg[n] == '=');
}

static int list_scenarios(void)
{
	for (int i = 0; i < NR_SIM_SCENARIOS; i++)
		printf("%-18s %s\n", sim_scenario_name((enum sim_scenario)i),
		       sim_scenario_help((enum sim_scenario)i));
	return 0;
}

/* The options that take a value, at argv[*i]. Returns 1 when handled, 0 when @a is none of
 * them, or -EINVAL. */
static int parse_valued(int argc, char **argv, int *i, struct sim_opts *o)
{
	const char *a = argv[*i], *v;
	uint64_t n;

	if (opt_is(a, "--policy")) {
		v = opt_value(argc, argv, i, "--policy");
		if (!v)
			return -EINVAL;
		if (retry_rule_parse(v, &o->rule)) {
			fprintf(stderr,
				"oomguard sim: unknown policy '%s' (valid: base, "
				"rework, rework-v4, mainline)\n",
				v);
			return -EINVAL;
		}
	} else if (opt_is(a, "--seed")) {
		v = opt_value(argc, argv, i, "--seed");
		if (!v || parse_u64("--seed", v, UINT32_MAX, &o->seed))
			return -EINVAL;
	} else if (opt_is(a, "--mem-mib")) {
		v = opt_value(argc, argv, i, "--mem-mib");
		if (!v || parse_u64("--mem-mib", v, SIM_MAX_MEM_MIB, &n))
			return -EINVAL;
		if (n < SIM_MIN_MEM_MIB || n % 4) {
			fprintf(stderr,
				"oomguard sim: --mem-mib: '%s' must be a multiple "
				"of 4 in %u..%u\n",
				v, SIM_MIN_MEM_MIB, SIM_MAX_MEM_MIB);
			return -EINVAL;
		}
		o->mem_mib = (unsigned int)n;
	} else if (opt_is(a, "--noise")) {
		v = opt_value(argc, argv, i, "--noise");
		if (!v || parse_u64("--noise", v, SIM_MAX_NOISE_MSEC, &o->noise_msec))
			return -EINVAL;
		if (!o->noise_msec) {
			fprintf(stderr,
				"oomguard sim: --noise: '%s' must be 1..%u ms (leave "
				"it out for none)\n",
				v, SIM_MAX_NOISE_MSEC);
			return -EINVAL;
		}
	} else if (opt_is(a, "--csv")) {
		if (path_value(argc, argv, i, "--csv", "directory", &o->csv_dir) < 0)
			return -EINVAL;
	} else if (opt_is(a, "--plot")) {
		if (path_value(argc, argv, i, "--plot", "file name", &o->plot_file) < 0)
			return -EINVAL;
	} else {
		return 0;
	}
	return 1;
}

/* The one scenario named on the command line. Returns 0 or -EINVAL. */
static int parse_scenario(const char *a, struct sim_opts *o)
{
	if (o->have_scenario) {
		fprintf(stderr, "oomguard sim: one scenario only, got '%s' after '%s'\n", a,
			sim_scenario_name(o->scenario));
		return -EINVAL;
	}
	if (sim_scenario_parse(a, &o->scenario)) {
		fprintf(stderr, "oomguard sim: unknown scenario '%s' (valid: ", a);
		valid_scenarios(stderr);
		fprintf(stderr, ")\n");
		return -EINVAL;
	}
	o->have_scenario = true;
	return 0;
}

/* Returns 0, 1 when --list or --help was handled, or -EINVAL. */
static int parse_opts(int argc, char **argv, struct sim_opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int r;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			sim_usage(stdout);
			return 1;
		} else if (!strcmp(a, "--list")) {
			list_scenarios();
			return 1;
		} else if (!strcmp(a, "--compare")) {
			o->compare = true;
		} else if (!strcmp(a, "--no-reaper")) {
			o->reaper = false;
		} else if (!strcmp(a, "--wq-stall")) {
			o->wq_stall = true;
		} else if (!strcmp(a, "--json")) {
			o->json = true;
		} else if ((r = parse_valued(argc, argv, &i, o)) != 0) {
			if (r < 0)
				return r;
		} else if (a[0] == '-') {
			fprintf(
			    stderr,
			    "oomguard sim: unknown option '%s' (valid: --policy, --compare, "
			    "--seed, --mem-mib, --no-reaper, --wq-stall, --noise, --json, --csv, "
			    "--plot, --list, --help)\n",
			    a);
			return -EINVAL;
		} else if (parse_scenario(a, o) < 0) {
			return -EINVAL;
		}
	}
	if (!o->have_scenario) {
		fprintf(stderr, "oomguard sim: no scenario given (valid: ");
		valid_scenarios(stderr);
		fprintf(stderr, ")\n");
		return -EINVAL;
	}
	return 0;
}

static int run_gnuplot(const char *script)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -errno;
	if (!pid) {
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return -EIO;
	return 0;
}

static int do_plot(const struct sim_opts *o, const char *csv_dir, const struct sim_result *res,
		   size_t nr)
{
	char script[PATH_MAX];
	int err;

	snprintf(script, sizeof(script), "%s.gp", o->plot_file);
	err = sim_write_plot(script, o->plot_file, csv_dir, res, nr);
	if (!err)
		err = run_gnuplot(script);
	if (err)
		fprintf(stderr, "oomguard sim: --plot: drawing %s with gnuplot failed: %s\n",
			o->plot_file, strerror(-err));
	return err;
}

int cmd_sim(int argc, char **argv)
{
	struct sim_opts o = {
	    .rule = RETRY_RULE_REWORK, .seed = 1, .mem_mib = SIM_DEFAULT_MEM_MIB, .reaper = true};
	struct sim_result res[NR_RETRY_RULES];
	char csv_dir[PATH_MAX] = "";
	size_t nr = 0;
	int r = parse_opts(argc, argv, &o);

	if (r)
		return r > 0 ? 0 : EXIT_USAGE;
	if (o.csv_dir)
		snprintf(csv_dir, sizeof(csv_dir), "%s", o.csv_dir);
	else if (o.plot_file)
		snprintf(csv_dir, sizeof(csv_dir), "%s.data", o.plot_file);
	if (*csv_dir && mkdir(csv_dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "oomguard sim: cannot create %s: %s\n", csv_dir, strerror(errno));
		return 1;
	}
	for (int rule = 0; rule < NR_RETRY_RULES; rule++) {
		struct sim_config cfg = {.scenario = o.scenario,
					 .seed = o.seed,
					 .mem_mib = o.mem_mib,
					 .reaper = o.reaper,
					 .wq_stall = o.wq_stall,
					 .noise_usec = o.noise_msec * 1000};
		char path[PATH_MAX + 64];
		int err;

		if (!o.compare && rule != (int)o.rule)
			continue;
		cfg.rule = (enum retry_rule)rule;
		if (*csv_dir) {
			snprintf(path, sizeof(path), "%s/%s-%s.csv", csv_dir,
				 sim_scenario_name(o.scenario), retry_rule_name(cfg.rule));
			cfg.csv = fopen(path, "w");
			if (!cfg.csv) {
				fprintf(stderr, "oomguard sim: cannot write %s: %s\n", path,
					strerror(errno));
				return 1;
			}
		}
		err = sim_run(&cfg, &res[nr]);
		if (cfg.csv && fclose(cfg.csv) && !err)
			err = -errno;
		if (err) {
			fprintf(stderr, "oomguard sim: %s: %s\n", sim_scenario_name(o.scenario),
				strerror(-err));
			return 1;
		}
		nr++;
	}
	if (o.json) {
		for (size_t i = 0; i < nr; i++)
			sim_print_json(stdout, &res[i]);
	} else {
		sim_print_table(stdout, res, nr);
	}
	if (o.plot_file && do_plot(&o, csv_dir, res, nr))
		return 1;
	return 0;
}
