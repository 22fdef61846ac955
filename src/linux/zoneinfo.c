// SPDX-License-Identifier: GPL-2.0-only
/* /proc/zoneinfo and /proc/buddyinfo: the machine's zones, parsed from buffers, and the reader
 * that takes a root directory. No allocation. */
#include "linux/zoneinfo.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "linux/parse.h"
#include "linux/sys.h"

static int zone_type_of(const char *name)
{
	if (!strcmp(name, "DMA"))
		return ZONE_DMA;
	if (!strcmp(name, "DMA32"))
		return ZONE_DMA32;
	if (!strcmp(name, "Normal"))
		return ZONE_NORMAL;
	return -1;
}

/* "Node 0, zone   Normal": writes node and name; the pointer after the name. NULL if not. */
static const char *parse_zone_header(const char *p, int *ret_node, char *ret_name, size_t size)
{
	uint64_t node;
	size_t len = 0;

	if (strncmp(p, "Node", 4))
		return NULL;
	p += 4;
	if (parse_u64(&p, &node) < 0 || node > 1024 || *p != ',')
		return NULL;
	p = skip_blanks(p + 1);
	if (strncmp(p, "zone", 4))
		return NULL;
	p = skip_blanks(p + 4);
	while (p[len] && p[len] != ' ' && p[len] != '\t' && p[len] != '\n') {
		if (len + 1 >= size)
			return NULL;
		ret_name[len] = p[len];
		len++;
	}
	if (!len)
		return NULL;
	ret_name[len] = '\0';
	*ret_node = (int)node;
	return p + len;
}

/* A page count of zoneinfo or buddyinfo: -ERANGE past PROC_ZONE_MAX_PAGES. */
static int zone_pages(const char **p, uint64_t *ret_value)
{
	if (parse_u64(p, ret_value) < 0)
		return -EINVAL;
	return *ret_value > PROC_ZONE_MAX_PAGES ? -ERANGE : 0;
}

/*
 * The value after "key" (no colon: "high:" in pagesets is another thing), alone on its line.
 * Return: 0, -ENOENT if not key, -EINVAL on a missing number or trailing garbage, -ERANGE.
 */
static int zone_key(const char *p, const char *key, uint64_t *ret_value)
{
	size_t len = strlen(key);
	int r;

	if (strncmp(p, key, len) || (p[len] != ' ' && p[len] != '\t'))
		return -ENOENT;
	p += len;
	r = zone_pages(&p, ret_value);
	if (r < 0)
		return r;
	return at_line_end(p) ? 0 : -EINVAL;
}

static int parse_protection(const char *p, struct proc_zone *z)
{
	p = skip_blanks(p + strlen("protection:"));
	if (*p++ != '(')
		return -EINVAL;
	z->nr_protection = 0;
	for (;;) {
		uint64_t v;
		int r = zone_pages(&p, &v);

		if (r < 0)
			return r;
		if (z->nr_protection < PROC_MAX_PROTECTION)
			z->protection[z->nr_protection++] = v;
		p = skip_blanks(p);
		if (*p == ')')
			return at_line_end(p + 1) ? 0 : -EINVAL;
		if (*p++ != ',')
			return -EINVAL;
	}
}

struct zone_key_map {
	const char *key;
	size_t offset;
	bool sum; /* 4.4's write_pending: nr_dirty + nr_writeback */
};

enum zone_key_index {
	ZK_FREE,
	ZK_MIN,
	ZK_LOW,
	ZK_HIGH,
	ZK_MANAGED,
	ZK_PRESENT,
	ZK_FREE_CMA,
	ZK_INACTIVE_FILE,
	ZK_ACTIVE_FILE,
	ZK_INACTIVE_ANON,
	ZK_ACTIVE_ANON,
	ZK_WRITE_PENDING,
	ZK_OLD_INACTIVE_FILE,
	ZK_OLD_ACTIVE_FILE,
	ZK_OLD_INACTIVE_ANON,
	ZK_OLD_ACTIVE_ANON,
	ZK_OLD_DIRTY,
	ZK_OLD_WRITEBACK,
	NR_ZONE_KEYS,
	ZK_PROTECTION = NR_ZONE_KEYS, /* its bit in the per-zone seen mask */
};

#define PZ(f) offsetof(struct proc_zone, f)
static const struct zone_key_map zone_keys[NR_ZONE_KEYS] = {
    [ZK_FREE] = {"pages free", PZ(free_pages), false},
    [ZK_MIN] = {"min", PZ(min_pages), false},
    [ZK_LOW] = {"low", PZ(low_pages), false},
    [ZK_HIGH] = {"high", PZ(high_pages), false},
    [ZK_MANAGED] = {"managed", PZ(managed_pages), false},
    [ZK_PRESENT] = {"present", PZ(present_pages), false},
    [ZK_FREE_CMA] = {"nr_free_cma", PZ(free_cma_pages), false},
    [ZK_INACTIVE_FILE] = {"nr_zone_inactive_file", PZ(inactive_file), false},
    [ZK_ACTIVE_FILE] = {"nr_zone_active_file", PZ(active_file), false},
    [ZK_INACTIVE_ANON] = {"nr_zone_inactive_anon", PZ(inactive_anon), false},
    [ZK_ACTIVE_ANON] = {"nr_zone_active_anon", PZ(active_anon), false},
    [ZK_WRITE_PENDING] = {"nr_zone_write_pending", PZ(write_pending), false},
    /* Before 4.8 the LRUs were per zone and had no nr_zone_ prefix. */
    [ZK_OLD_INACTIVE_FILE] = {"nr_inactive_file", PZ(inactive_file), false},
    [ZK_OLD_ACTIVE_FILE] = {"nr_active_file", PZ(active_file), false},
    [ZK_OLD_INACTIVE_ANON] = {"nr_inactive_anon", PZ(inactive_anon), false},
    [ZK_OLD_ACTIVE_ANON] = {"nr_active_anon", PZ(active_anon), false},
    [ZK_OLD_DIRTY] = {"nr_dirty", PZ(write_pending), true},
    [ZK_OLD_WRITEBACK] = {"nr_writeback", PZ(write_pending), true},
};
#undef PZ

/*
 * Ends zone @z, whose keys in @seen (bit per zone_key_index) were read. Return: false if the
 * kernel printed it unpopulated (4.12+ list every zone type of every node: present and
 * managed 0, no pagesets, no buddyinfo line), so that its slot is reused and a host of 4
 * nodes of 5 zones fits PROC_MAX_ZONES. Sets *@complete for a zone with free and managed.
 */
static bool zone_end(const struct proc_zone *z, uint32_t seen, bool *complete)
{
	if (!z->present_pages && !z->managed_pages)
		return false;
	if ((seen & (1u << ZK_FREE)) && (seen & (1u << ZK_MANAGED)))
		*complete = true;
	return true;
}

/*
 * Ends the zone being read, @z (NULL before the first), in @zones or @spare: an unpopulated
 * zone gives its slot back (*@nr); a populated one read into @spare did not fit (-ENOSPC).
 */
static int zoneinfo_end(const struct proc_zone *z, const struct proc_zone *spare, uint32_t seen,
			bool *complete, size_t *nr)
{
	if (!z)
		return 0;
	if (!zone_end(z, seen, complete)) {
		if (z != spare)
			(*nr)--;
		return 0;
	}
	return z == spare ? -ENOSPC : 0;
}

/* One line inside zone @z (not a header, not pagesets); @seen: its keys read so far. */
static int zone_line(const char *p, struct proc_zone *z, uint32_t *seen)
{
	for (unsigned int k = 0; k < NR_ZONE_KEYS; k++) {
		uint64_t v, *dst;
		int r = zone_key(p, zone_keys[k].key, &v);

		if (r == -ENOENT)
			continue;
		if (r < 0)
			return r;
		/* The kernel prints each key once per zone: a repeat is not its file. */
		if (*seen & (1u << k))
			return -EINVAL;
		*seen |= 1u << k;
		dst = (uint64_t *)(void *)((char *)z + zone_keys[k].offset);
		if (zone_keys[k].sum)
			*dst += v;
		else
			*dst = v;
		return 0;
	}
	return 0;
}

/**
 * parse_zoneinfo_buf() - the populated zones of /proc/zoneinfo, in file order.
 * Understands 4.x (per-zone LRU counters, "scanned") and 4.8+ ("per-node stats" block,
 * nr_zone_* counters) layouts. Values in the per-cpu "pagesets" part are not read. A zone
 * with present and managed 0 is left out (4.12+ print them; 4.4 did not).
 * Return: 0, -EINVAL on a malformed header or value, a key or a zone listed twice, -ERANGE
 * for a page count past PROC_ZONE_MAX_PAGES, -ENOSPC beyond @max_zones, -ENODATA if no zone
 * has both "pages free" and "managed".
 */
int parse_zoneinfo_buf(const char *buf, struct proc_zone *zones, size_t max_zones,
		       size_t *ret_nr_zones)
{
	struct proc_zone *z = NULL, spare; /* spare: a zone past @max_zones, may be empty */
	bool in_node_stats = false, in_pagesets = false, complete = false;
	uint32_t seen = 0;
	size_t nr = 0;
	int r;

	for (const char *line = buf; line && *line; line = next_line(line)) {
		const char *p = skip_blanks(line), *end;

		if (!strncmp(p, "Node", 4)) {
			r = zoneinfo_end(z, &spare, seen, &complete, &nr);
			if (r < 0)
				return r;
			z = nr < max_zones ? &zones[nr++] : &spare;
			memset(z, 0, sizeof(*z));
			end = parse_zone_header(p, &z->node, z->name, sizeof(z->name));
			if (!end || !at_line_end(end))
				return -EINVAL;
			for (size_t i = 0; i < nr; i++)
				if (&zones[i] != z && zones[i].node == z->node &&
				    !strcmp(zones[i].name, z->name))
					return -EINVAL; /* each zone once */
			z->type = zone_type_of(z->name);
			in_node_stats = in_pagesets = false;
			seen = 0;
			continue;
		}
		if (p == line) /* only zone headers start at column 0 */
			return -EINVAL;
		if (!z || in_pagesets)
			continue;
		if (!strncmp(p, "per-node stats", 14)) {
			in_node_stats = true;
			continue;
		}
		if (!strncmp(p, "pagesets", 8)) {
			in_pagesets = true;
			continue;
		}
		if (!strncmp(p, "protection:", 11)) {
			if (seen & (1u << ZK_PROTECTION))
				return -EINVAL;
			seen |= 1u << ZK_PROTECTION;
			r = parse_protection(p, z);
			if (r < 0)
				return r;
			continue;
		}
		if (!strncmp(p, "pages free", 10))
			in_node_stats = false;
		if (in_node_stats)
			continue;
		r = zone_line(p, z, &seen);
		if (r < 0)
			return r;
	}
	r = zoneinfo_end(z, &spare, seen, &complete, &nr);
	if (r < 0)
		return r;
	if (!complete)
		return -ENODATA;
	*ret_nr_zones = nr;
	return 0;
}

/* Return: how many of @zones got their line, -EINVAL on a malformed or repeated line, -ERANGE. */
int parse_buddyinfo_buf(const char *buf, struct proc_zone *zones, size_t nr_zones)
{
	int matched = 0;

	for (const char *line = buf; line && *line; line = next_line(line)) {
		char name[16];
		int node;
		const char *p = parse_zone_header(line, &node, name, sizeof(name));
		struct proc_zone *z = NULL;

		if (!p)
			return -EINVAL;
		for (size_t i = 0; i < nr_zones; i++)
			if (zones[i].node == node && !strcmp(zones[i].name, name))
				z = &zones[i];
		if (!z)
			continue;
		if (z->has_buddy) /* the kernel prints each zone once */
			return -EINVAL;
		memset(z->nr_free, 0, sizeof(z->nr_free));
		for (unsigned int o = 0;; o++) {
			uint64_t v;
			int r;

			p = skip_blanks(p);
			if (*p == '\n' || *p == '\0')
				break;
			r = zone_pages(&p, &v);
			if (r < 0)
				return r;
			if (o < MAX_ORDER)
				z->nr_free[o] = v;
		}
		z->has_buddy = true;
		matched++;
	}
	return matched;
}

int read_zoneinfo(const char *root, char *buf, size_t size, struct proc_zone *zones,
		  size_t max_zones, size_t *ret_nr_zones)
{
	ssize_t n = sys_read_file(root, "/proc/zoneinfo", buf, size);
	size_t nr;
	int r;

	if (n < 0)
		return (int)n;
	r = parse_zoneinfo_buf(buf, zones, max_zones, &nr);
	if (r < 0)
		return r;
	n = sys_read_file(root, "/proc/buddyinfo", buf, size);
	if (n < 0)
		return (int)n;
	r = parse_buddyinfo_buf(buf, zones, nr);
	if (r < 0)
		return r;
	*ret_nr_zones = nr;
	return 0;
}


struct zoneinfo_size {
	size_t bytes, zones;
};

static bool count_zone_line(char *text, void *ctx)
{
	struct zoneinfo_size *z = ctx;

	z->bytes += strlen(text) + 1;
	z->zones += !strncmp(text, "Node ", 5);
	return true;
}

int zoneinfo_measure(const char *root, char *buf, size_t size, size_t *ret_bytes,
		     size_t *ret_zones)
{
	struct zoneinfo_size z = {0, 0};
	ssize_t n = sys_read_lines(root, "/proc/zoneinfo", buf, size, count_zone_line, &z);

	if (n < 0)
		return (int)n;
	*ret_bytes = z.bytes;
	*ret_zones = z.zones;
	return 0;
}
