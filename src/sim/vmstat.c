// SPDX-License-Identifier: GPL-2.0-only
/* Per-CPU vmstat counters as 4.3 keeps them (mm/vmstat.c): a change goes to the CPU's
 * vm_stat_diff and is folded into the zone's counter only when the diff passes the CPU's
 * stat_threshold (__mod_zone_page_state()), or when vmstat_update() runs refresh_cpu_vm_stats()
 * on that CPU, every sysctl_stat_interval (1 s, round_jiffies_relative()). zone_page_state()
 * reads the folded counter alone, clamped at 0; zone_page_state_snapshot() adds the diffs.
 * The model keeps two such counters per zone: the file LRU (NR_ACTIVE_FILE + NR_INACTIVE_FILE,
 * what zone_reclaimable_pages() sums without swap) and NR_PAGES_SCANNED. */
#include <stdint.h>

#include "sim/model.h"

/* One draw from the vmstat stream, apart from the interleaving's. */
static uint64_t vmstat_rand(struct sim *s)
{
	return splitmix64(&s->drift_prng);
}

/* round_jiffies_relative() puts each CPU's work on a whole second plus 3 jiffies per CPU; where
 * the machine's seconds fall against the load is the boot's, here the seed's. */
void vmstat_init(struct sim *s)
{
	uint64_t phase = vmstat_rand(s) % VMSTAT_INTERVAL_USEC;

	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		s->vmstat_next[cpu] = phase + cpu * 3 * JIFFY_USEC;
	s->vmstat_cpu = 0;
}

/* The CPU the next event runs on: the model does not place tasks on CPUs, a draw stands for it.
 * The disk events worker is bound: its events run on its pool's CPU (workqueue.c), no draw. */
void vmstat_pick_cpu(struct sim *s, const struct sim_event *ev)
{
	if (s->vmstat_off)
		return;
	if (ev->kind == EV_TASK && ev->task == s->kworker) {
		s->vmstat_cpu = s->wq_cpu;
		return;
	}
	s->vmstat_cpu = (unsigned int)(vmstat_rand(s) % NR_CPUS);
}

static void fold_cpu(struct sim *s, unsigned int cpu)
{
	for (int i = 0; i < s->nr_populated; i++) {
		struct vmstat_zone *v = &s->zones[i].vm;

		for (int item = 0; item < NR_VM_ITEMS; item++) {
			v->global[item] += v->diff[cpu][item];
			v->diff[cpu][item] = 0;
		}
	}
}

/* vmstat_update() on @cpu, due since vmstat_next[cpu]: refresh_cpu_vm_stats(), then the work
 * queues itself again round_jiffies_relative(HZ) later, on the same whole-second phase. */
static void vmstat_update(struct sim *s, unsigned int cpu)
{
	fold_cpu(s, cpu);
	s->vmstat_next[cpu] +=
	    ((s->now - s->vmstat_next[cpu]) / VMSTAT_INTERVAL_USEC + 1) * VMSTAT_INTERVAL_USEC;
}

/* vmstat_update() of every CPU whose time has come since the last look. A CPU whose worker pool
 * is held (wq_held: its one running worker loops in the allocator, workqueue.c) runs no work item:
 * its update stays pending, and its vm_stat_diff unfolded, until the pool is released. */
static void vmstat_catch_up(struct sim *s)
{
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		if (s->now < s->vmstat_next[cpu] || (s->wq_held && cpu == s->wq_cpu))
			continue;
		vmstat_update(s, cpu);
	}
}

/*
 * vmstat_pool_hold() - wq_cpu's pool becomes held (@held: its running worker loops in the
 * allocator without sleeping) or is released (the worker slept or finished, and the pool runs
 * what waited on its worklist, vmstat_update() among them if it was due). Returns how long that
 * vmstat_update() waited past its time (0: it was not due).
 */
uint64_t vmstat_pool_hold(struct sim *s, bool held)
{
	unsigned int cpu = s->wq_cpu;
	uint64_t late;

	if (held == s->wq_held)
		return 0;
	if (!s->vmstat_off)
		vmstat_catch_up(s); /* what was due before the hold ran before it */
	s->wq_held = held;
	if (held || s->vmstat_off || s->now < s->vmstat_next[cpu])
		return 0;
	late = s->now - s->vmstat_next[cpu];
	vmstat_update(s, cpu);
	return late;
}

/* __mod_zone_page_state() on the current CPU. With the remainders off (mainline, which reads
 * snapshots), every change is folded at once. */
void vmstat_mod(struct sim *s, struct sim_zone *z, enum vm_item item, long delta)
{
	struct vmstat_zone *v = &z->vm;
	long t = (long)vmstat_threshold(z), x;

	if (s->vmstat_off) {
		v->global[item] += delta;
		return;
	}
	vmstat_catch_up(s);
	x = v->diff[s->vmstat_cpu][item] + delta;
	if (x > t || x < -t) {
		v->global[item] += x;
		x = 0;
	}
	v->diff[s->vmstat_cpu][item] = x;
}

/* zone_page_state(): the folded counter, without the CPUs' diffs; never below 0. */
unsigned long vmstat_read(struct sim *s, struct sim_zone *z, enum vm_item item)
{
	if (!s->vmstat_off)
		vmstat_catch_up(s);
	return z->vm.global[item] > 0 ? (unsigned long)z->vm.global[item] : 0;
}

/* zone_page_state_snapshot(): the folded counter and every CPU's diff; never below 0. */
unsigned long vmstat_snapshot(const struct sim_zone *z, enum vm_item item)
{
	long x = z->vm.global[item];

	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		x += z->vm.diff[cpu][item];
	return x > 0 ? (unsigned long)x : 0;
}

/*
 * vmstat_pages_scanned_reset() - 4.3's free path (free_one_page(), free_pcppages_bulk()):
 * nr_scanned = zone_page_state(NR_PAGES_SCANNED), then __mod_zone_page_state(-nr_scanned) on
 * this CPU. What other CPUs hold unfolded stays, and a small nr_scanned may stay in this CPU's
 * diff, so the folded counter keeps its value until the next fold.
 */
void vmstat_pages_scanned_reset(struct sim *s, struct sim_zone *z)
{
	unsigned long nr = vmstat_read(s, z, VM_PAGES_SCANNED);

	if (nr)
		vmstat_mod(s, z, VM_PAGES_SCANNED, -(long)nr);
	z->snap.pages_scanned = vmstat_snapshot(z, VM_PAGES_SCANNED);
}

/* Reclaim scanned @nr pages of @z's LRU: NR_PAGES_SCANNED grows by a batch. */
void vmstat_pages_scanned_add(struct sim *s, struct sim_zone *z, unsigned long nr)
{
	vmstat_mod(s, z, VM_PAGES_SCANNED, (long)nr);
	z->snap.pages_scanned = vmstat_snapshot(z, VM_PAGES_SCANNED);
}

/* A file page joined (+1) or left (-1) @z's LRU; inside a reclaim batch, the batch counts. */
void vmstat_lru(struct sim *s, struct sim_zone *z, long delta)
{
	if (s->vmstat_batch) {
		s->vmstat_batch_delta += delta;
		return;
	}
	vmstat_mod(s, z, VM_LRU_FILE, delta);
}

/*
 * vmstat_reads() - the zone counters of @zones as 4.3's zone_reclaimable() and
 * zone_reclaimable_pages() read them (zone_page_state()): the folded LRU and NR_PAGES_SCANNED.
 */
void vmstat_reads(struct sim *s, struct zone_snapshot *zones, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		struct sim_zone *z = &s->zones[zones[i].idx];

		zones[i].pages_scanned = vmstat_read(s, z, VM_PAGES_SCANNED);
		zones[i].reclaimable_pages = vmstat_read(s, z, VM_LRU_FILE);
	}
}
