// SPDX-License-Identifier: GPL-2.0-only
/* Direct compaction: placeholder until the migrate and free scanners land. */
#include "sim/model.h"

unsigned long compact_zone_order(struct sim *s, struct sim_zone *z, unsigned int order,
				 unsigned long *ret_migrated)
{
	(void)s;
	(void)z;
	(void)order;
	*ret_migrated = 0;
	return 0;
}
