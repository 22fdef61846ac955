// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: parse_zoneinfo_buf() (/proc/zoneinfo), with the daemon's PROC_MAX_ZONES
 * slots and with 2: whatever fits in 2 must come out the same. */
#include "fuzz.h"
#include "linux/procfs.h"

static int type_of(const char *name)
{
	return !strcmp(name, "DMA")      ? ZONE_DMA
	       : !strcmp(name, "DMA32")  ? ZONE_DMA32
	       : !strcmp(name, "Normal") ? ZONE_NORMAL
					 : -1;
}

static void check_zone(const struct proc_zone *z)
{
	FUZZ_CHECK(fuzz_terminated(z->name, sizeof(z->name)) && z->name[0]);
	FUZZ_CHECK(z->type == type_of(z->name));
	FUZZ_CHECK(z->node >= 0 && z->node <= 1024);
	FUZZ_CHECK(z->present_pages || z->managed_pages);
	FUZZ_CHECK(z->free_pages <= PROC_ZONE_MAX_PAGES && z->min_pages <= PROC_ZONE_MAX_PAGES);
	FUZZ_CHECK(z->low_pages <= PROC_ZONE_MAX_PAGES && z->high_pages <= PROC_ZONE_MAX_PAGES);
	FUZZ_CHECK(z->managed_pages <= PROC_ZONE_MAX_PAGES);
	FUZZ_CHECK(z->present_pages <= PROC_ZONE_MAX_PAGES);
	FUZZ_CHECK(z->free_cma_pages <= PROC_ZONE_MAX_PAGES);
	FUZZ_CHECK(z->inactive_file <= PROC_ZONE_MAX_PAGES &&
		   z->active_file <= PROC_ZONE_MAX_PAGES);
	FUZZ_CHECK(z->inactive_anon <= PROC_ZONE_MAX_PAGES &&
		   z->active_anon <= PROC_ZONE_MAX_PAGES);
	FUZZ_CHECK(z->write_pending <= 2 * PROC_ZONE_MAX_PAGES); /* 4.4: dirty + writeback */
	FUZZ_CHECK(z->nr_protection <= PROC_MAX_PROTECTION);
	for (unsigned int i = 0; i < z->nr_protection; i++)
		FUZZ_CHECK(z->protection[i] <= PROC_ZONE_MAX_PAGES);
	FUZZ_CHECK(!z->has_buddy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *b = fuzz_buf(data, size);
	struct proc_zone zones[PROC_MAX_ZONES], few[2];
	size_t nr = 0, nr_few = 0;
	int r = parse_zoneinfo_buf(b, zones, PROC_MAX_ZONES, &nr);
	int r_few = parse_zoneinfo_buf(b, few, 2, &nr_few);

	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE || r == -ENOSPC || r == -ENODATA);
	if (r == 0) {
		FUZZ_CHECK(nr >= 1 && nr <= PROC_MAX_ZONES);
		for (size_t i = 0; i < nr; i++) {
			check_zone(&zones[i]);
			for (size_t j = 0; j < i; j++)
				FUZZ_CHECK(zones[i].node != zones[j].node ||
					   strcmp(zones[i].name, zones[j].name));
		}
		if (nr <= 2) {
			FUZZ_CHECK(r_few == 0 && nr_few == nr);
			for (size_t i = 0; i < nr; i++)
				FUZZ_CHECK(!memcmp(&few[i], &zones[i], sizeof(few[i])));
		} else {
			FUZZ_CHECK(r_few == -ENOSPC);
		}
	} else if (r != -ENOSPC) {
		FUZZ_CHECK(r_few == r || r_few == -ENOSPC);
	}
	free(b);
	return 0;
}
