/* SPDX-License-Identifier: GPL-2.0-only */
/* A model machine for the sim's unit tests: sim_fixture_new() boots one of @mem_mib under @rule,
 * with or without the reaper and the workqueue stall (--wq-stall), and gives back the boot page
 * cache of running binaries (file 0), so that a test starts from a bare machine;
 * sim_fixture_put() frees it. Include after <cmocka.h> and "sim/model.h". */
#ifndef OOMGUARD_TESTS_SIM_FIXTURE_H
#define OOMGUARD_TESTS_SIM_FIXTURE_H

#include <stdbool.h>
#include <stdlib.h>

struct fixture {
	struct sim s;
	struct sim_config cfg;
	struct sim_result res;
};

static inline struct fixture *sim_fixture_new(unsigned int mem_mib, enum retry_rule rule,
					      bool reaper, bool wq_stall)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->cfg.mem_mib = mem_mib;
	f->cfg.rule = rule;
	f->cfg.reaper = reaper;
	f->cfg.wq_stall = wq_stall;
	assert_int_equal(machine_init(&f->s, &f->cfg, &f->res, 1, false), 0);
	assert_true(file_remove(&f->s, 0) > 0);
	return f;
}

static inline void sim_fixture_put(struct fixture *f)
{
	machine_free(&f->s);
	free(f);
}

#endif
