// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: parse_buddyinfo_buf() (/proc/buddyinfo) against 2 nodes of 4 zones. */
#include "fuzz.h"
#include "linux/procfs.h"

static const char *const names[] = {"DMA", "DMA32", "Normal", "Movable"};
#define NR_ZONES 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *b = fuzz_buf(data, size);
	struct proc_zone zones[NR_ZONES];
	int r, with_buddy = 0;

	memset(zones, 0, sizeof(zones));
	for (int i = 0; i < NR_ZONES; i++) {
		zones[i].node = i / 4;
		strcpy(zones[i].name, names[i % 4]);
	}
	r = parse_buddyinfo_buf(b, zones, NR_ZONES);
	FUZZ_CHECK((r >= 0 && r <= NR_ZONES) || r == -EINVAL || r == -ERANGE);
	if (r >= 0) {
		for (int i = 0; i < NR_ZONES; i++) {
			with_buddy += zones[i].has_buddy;
			for (unsigned int o = 0; o < MAX_ORDER; o++)
				FUZZ_CHECK(zones[i].nr_free[o] <= PROC_ZONE_MAX_PAGES);
			if (!zones[i].has_buddy)
				for (unsigned int o = 0; o < MAX_ORDER; o++)
					FUZZ_CHECK(!zones[i].nr_free[o]);
		}
		FUZZ_CHECK(with_buddy == r);
	}
	free(b);
	return 0;
}
