/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel model's shared structures: page frames, zones, tasks, the block device, the event
 * queue. Each role lives in its own file (zone.c, lru.c, blockdev.c, reclaim.c, compaction.c,
 * slowpath.c, oom_kill.c, oom_reaper.c, tasks.c, events.c, scenarios.c); this header ties them. */
#ifndef OOMGUARD_SIM_MODEL_H
#define OOMGUARD_SIM_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "policy/badness.h"
#include "policy/gfp.h"
#include "policy/retry.h"
#include "policy/zone.h"
#include "sim/sim.h"

/* Virtual time: microseconds. HZ 250 as the distribution kernels of the era. */
#define USEC_PER_SEC  1000000ull
#define USEC_PER_MSEC 1000ull
#define HZ            250u
#define JIFFY_USEC    (USEC_PER_SEC / HZ)

#define PAGE_KIB         4u
#define PAGES_PER_MIB    256u
#define PAGEBLOCK_ORDER  9u
#define PAGEBLOCK_PAGES  (1u << PAGEBLOCK_ORDER)
#define SWAP_CLUSTER_MAX 32u
#define DEF_PRIORITY     12
#define NR_CPUS          2u

/* The OOM reaper's retries (mm/oom_kill.c): 10 tries, HZ/10 apart. */
#define MAX_OOM_REAP_RETRIES 10u
#define OOM_REAP_RETRY_USEC  (USEC_PER_SEC / 10)
/* Mainline queues the reap 2 s after the kill (OOM_REAPER_DELAY). */
#define OOM_REAPER_DELAY_USEC (2 * USEC_PER_SEC)

/* CPU cost of the model's operations, calibrated to a 2015 x86 VM: zeroing and faulting in a
 * page about 1 us, scanning an LRU page about 0.1 us, a reclaim round's fixed work 1 ms
 * (docs/sim.md: "a round is 1 ms of CPU"). */
#define FAULT_PAGE_NSEC    1000u
#define WRITE_PAGE_NSEC    800u
#define SCAN_PAGE_NSEC     100u
#define FREE_PAGE_NSEC     50u
#define MIGRATE_PAGE_NSEC  1500u
#define RECLAIM_ROUND_USEC 1000u
#define EXIT_BASE_USEC     1000u

/* The sleeps of the slow path and of reclaim. */
#define WAIT_IFF_CONGESTED_USEC (USEC_PER_SEC / 50) /* wait_iff_congested(HZ/50) */
#define CONGESTION_WAIT_USEC    (USEC_PER_SEC / 10) /* congestion_wait(HZ/10) */
#define RECLAIM_THROTTLE_USEC   (USEC_PER_SEC / 10) /* shrink_inactive_list's throttle */

/* The OOM report (dump_header: the stack, show_mem, dump_tasks) on the cover letter's serial
 * console: 115200 baud 8N1 is 11520 bytes/s. About 6000 bytes of header (the stack, Mem-Info, a
 * line per zone and its buddy counts), then one ~90-byte line per process with an mm, among them
 * the distribution's own (init, journald, udevd, sshd, getty, shells: about 20). oom_kill_process()
 * prints it under oom_lock before the kill, at most 10 reports per 5 s (oom_rs). */
#define CONSOLE_BYTES_PER_SEC   11520u
#define OOM_REPORT_HEADER_BYTES 6000u
#define OOM_REPORT_TASK_BYTES   90u
#define OOM_REPORT_OTHER_TASKS  20u
#define OOM_RS_INTERVAL_USEC    (5 * USEC_PER_SEC)
#define OOM_RS_BURST            10u

#define NO_PFN  (-1)
#define NO_TASK (-1)

/* Where a page frame is; every page is in exactly one of these. */
enum page_state {
	PS_FREE,        /* head of a free buddy block, on free_area[order][mt] */
	PS_FREE_TAIL,   /* inside a free buddy block */
	PS_ANON,        /* private anon page of a task: zone anon list, task's page list */
	PS_FILE_CLEAN,  /* page cache, clean: zone's clean file list, file's page list */
	PS_FILE_DIRTY,  /* page cache, dirty: the dirty list, file's page list */
	PS_FILE_WB,     /* page cache under writeback: the writeback list, file's list or orphan */
	PS_FILE_MAPPED, /* mapped and referenced page cache (binaries): rotated, never freed */
	PS_KERNEL,      /* unmovable kernel page owned by a task (its page list) */
	PS_HUGE,        /* head of a hugetlb page: the pool list */
	PS_HUGE_TAIL,   /* inside a hugetlb page */
	PS_ISOLATED,    /* free page taken by compaction's free scanner */
	NR_PAGE_STATES
};

/* Page flags. */
#define PGF_ORPHAN 0x01u /* its file was removed while under writeback: free on completion */

/*
 * struct page - one page frame (24 bytes: the model's arrays must stay small).
 * @next, @prev:    link A: free list, zone LRU list, dirty/writeback list or hugetlb pool
 * @onext, @oprev:  link B: owner's page list (a task's mm or kernel pages, a file)
 * @owner:          task or file index, NO_TASK
 * @state:          enum page_state
 * @order:          buddy order of a free head (or of a hugetlb head)
 * @flags:          PGF_*
 * @zone:           zone index
 */
struct page {
	int32_t next, prev;
	int32_t onext, oprev;
	int32_t owner;
	uint8_t state;
	uint8_t order;
	uint8_t flags;
	uint8_t zone;
};

/* An intrusive list of pages linked through link A or link B. */
struct plist {
	int32_t head, tail;
	unsigned long count;
};

/* Zone LRU-ish lists (link A). File pages split by state: reclaim meets the clean ones first. */
enum zone_list { ZL_ANON, ZL_FILE_CLEAN, ZL_FILE_MAPPED, NR_ZONE_LISTS };

/*
 * struct sim_zone - one zone.
 * @snap:        the counters the policy reads (free, nr_free, watermarks, reclaimable...)
 * @start_pfn:   first page frame
 * @nr_pages:    page frames (all managed)
 * @free_area:   free lists by order and migratetype (movable, unmovable only)
 * @lists:       anon and clean file pages
 * @nr_dirty:    dirty file pages in the zone
 * @nr_writeback: file pages under writeback in the zone
 * @nr_kernel:   unmovable kernel pages
 * @nr_huge:     pages in hugetlb pages
 * @nr_isolated: free pages held by compaction
 */
/* The per-CPU vmstat counters the model keeps (vmstat.c). */
enum vm_item { VM_LRU_FILE, VM_PAGES_SCANNED, NR_VM_ITEMS };

struct vmstat_zone {
	long global[NR_VM_ITEMS];         /* zone->vm_stat[]: what zone_page_state() reads */
	long diff[NR_CPUS][NR_VM_ITEMS]; /* each CPU's vm_stat_diff[], not folded yet */
};

/* sysctl_stat_interval: vmstat_update() runs on each CPU once a second (HZ). */
#define VMSTAT_INTERVAL_USEC USEC_PER_SEC

struct sim_zone {
	struct zone_snapshot snap;
	struct vmstat_zone vm;
	int32_t start_pfn;
	unsigned long nr_pages;
	struct plist free_area[MAX_ORDER][2];
	struct plist lists[NR_ZONE_LISTS];
	unsigned long nr_dirty;
	unsigned long nr_writeback;
	unsigned long nr_kernel;
	unsigned long nr_huge;
	unsigned long nr_isolated;
	uint64_t nr_frees;                /* pages freed to the zone, ever */
	unsigned int compact_considered;  /* defer_compaction(): attempts skipped so far */
	unsigned int compact_defer_shift; /* skip 1 << this many attempts after a failure */
};

/* Migratetypes the model keeps free lists for (index into free_area[][]). */
#define MT_UNMOVABLE 0
#define MT_MOVABLE   1

enum task_kind {
	TK_EATER,   /* populates a private anon mapping of a size, then waits */
	TK_WRITER,  /* dd loop: writes a file in blocks, removes it, starts over */
	TK_CHURNER, /* GFP_ATOMIC alloc/free loop */
	TK_HUGETLB, /* allocates order-9 __GFP_REPEAT pages until one fails */
	TK_LOCKER,  /* holds the lock a victim needs while it allocates kernel memory */
	TK_FORKER,  /* forks: order-2/3 kernel allocations (stacks), the oldest freed (frag.c) */
	TK_KWORKER, /* a bound workqueue worker running the disk events poll (workqueue.c) */
	TK_NOISE,   /* the rest of the machine: gives pages back now and then (noise.c) */
	TK_KSWAPD,
	TK_REAPER,
	NR_TASK_KINDS
};

enum task_run {
	TR_RUNNING, /* has a pending event */
	TR_BLOCKED, /* waits on the lock; no event */
	TR_IDLE,    /* done, waits for a signal; no event */
	TR_EXITING, /* killed, freeing its memory */
	TR_DEAD
};

/*
 * struct alloc_state - the slow path of one allocation, carried between rounds.
 * @active:     in the slow path
 * @gfp, @order: the request
 * @rs:         the retry rule's carried state
 * @rounds:     reclaim rounds so far
 * @start_usec: entry into the slow path
 * @sleep_usec: of the last round's time (ALLOC_WAIT), what it slept after its CPU time
 */
struct alloc_state {
	bool active;
	gfp_t gfp;
	unsigned int order;
	struct retry_state rs;
	unsigned long rounds;
	uint64_t start_usec;
	uint64_t sleep_usec;
	bool last_oom_wait; /* the last round's OOM killer waited on an earlier victim */
	enum compact_result compact_result; /* the last direct compaction's result */
	struct compact_retry_state crs;     /* mainline's compaction feedback */
};

/*
 * struct sim_task - a process or kernel thread of the model.
 * @kind, @run:      what it is and whether it has an event pending
 * @pid, @comm:      for the OOM killer and the log
 * @start_usec:      creation time (badness tie-break)
 * @pages:           anon and kernel pages it owns (link B)
 * @target_pages:    eater: mapping size; writer: file size; locker: pages to allocate
 * @done_pages:      progress towards @target_pages
 * @killed:          SIGKILL received (TIF_MEMDIE)
 * @oom_skip:        MMF_OOM_SKIP: reaped or given up on
 * @mmap_write:      holds mmap_sem for write (the reaper's trylock fails)
 * @wants_lock:      eater: takes the lock after populating
 * @holds_lock:      holds the lock
 * @reap_tries:      reaper attempts so far
 * @gen:             generation: events of an older generation are stale
 * @alloc:           the allocation in progress
 * @file:            writer: its current file index
 * @stop_usec:       writer: stop writing at this time (0: never)
 * @result:          hugetlb: pages obtained; locker: allocation-complete time
 * @then_sleep_usec: the event pending ends a run on a CPU; then it sleeps this long (0: none)
 */
struct sim_task {
	enum task_kind kind;
	enum task_run run;
	int pid;
	char comm[OOM_TASK_COMM_LEN];
	uint64_t start_usec;
	struct plist pages;
	unsigned long nr_anon;
	unsigned long target_pages;
	unsigned long done_pages;
	bool killed;
	bool oom_skip;
	bool mmap_write;
	bool wants_lock;
	bool holds_lock;
	bool runnable;
	bool counts;   /* the scenario ends when every counting task is done */
	bool finished; /* done with its work (populated, allocated, or dead) */
	unsigned int reap_tries;
	uint32_t gen;
	struct alloc_state alloc;
	int file;
	uint64_t stop_usec;
	unsigned long result;
	uint64_t then_sleep_usec;
};

/* A writer's file: its page cache pages (link B). */
struct sim_file {
	struct plist pages;
	bool removed;
};

/* Writeback requests in flight (a ring), each a run of pages from the writeback list's head. */
#define BDEV_NR_REQUESTS   128u
#define BDEV_REQUEST_PAGES 128u

/*
 * struct sim_bdev - the block device and the flusher.
 * @bw_pages_per_sec:  bandwidth (0: stalled, nothing ever completes)
 * @dirty:             dirty page cache, oldest first (link A)
 * @writeback:         pages under writeback, in submission order (link A)
 * @req_pages:         ring of in-flight requests' sizes
 * @req_head, @nr_req: ring position and fill
 * @busy_until:        when the device finishes the request at the head
 * @flush_pages:       pages reclaim asked the flusher to write beyond the background threshold
 */
struct sim_bdev {
	uint64_t bw_pages_per_sec;
	struct plist dirty;
	struct plist writeback;
	unsigned int req_pages[BDEV_NR_REQUESTS];
	unsigned int req_head, nr_req;
	unsigned int request_pages;
	uint64_t busy_until;
	bool completion_pending;
	unsigned long flush_pages;
};

enum event_kind { EV_TASK, EV_WB_DONE, EV_SAMPLE, EV_PHASE, EV_OOM_KILL };

struct sim_event {
	uint64_t when;
	uint64_t seq;
	int32_t task;
	uint32_t gen;
	uint8_t kind;
};

#define SIM_MAX_TASKS    128u
#define SIM_MAX_FILES    8u
#define SIM_REAPER_QUEUE SIM_MAX_TASKS
#define SIM_FRAG_STACKS  2048u /* frag: live children at most (2048 at 2 GiB) */

/*
 * struct sim - the whole machine.
 */
struct sim {
	const struct sim_config *cfg;
	struct sim_result *res;
	uint64_t now;
	uint64_t prng;
	uint64_t seq;

	struct page *pages;
	unsigned long nr_pages;
	uint8_t *pageblock_mt;
	struct sim_zone zones[MAX_NR_ZONES];
	int nr_populated; /* populated zones, from ZONE_DMA up */

	struct sim_task tasks[SIM_MAX_TASKS];
	int nr_tasks;
	int kswapd, reaper;
	struct sim_file files[SIM_MAX_FILES];
	int nr_files;
	struct plist huge_pool;
	int lock_holder; /* the lock a victim needs: holder task or NO_TASK */

	struct sim_bdev bdev;
	unsigned long dirty_ratio_pct, dirty_bg_ratio_pct;

	struct sim_event *heap;
	size_t heap_len, heap_cap;

	int reap_queue[SIM_REAPER_QUEUE];
	uint64_t reap_at[SIM_REAPER_QUEUE];
	unsigned int reap_head, reap_len;
	uint64_t reaper_delay_usec;
	int lock_waiter;
	unsigned int pending; /* counting tasks not yet finished */
	uint64_t settle_usec; /* after the last counting task finished, run this long */
	uint64_t stop_at;     /* 0, or when the run ends */
	void (*phase_hook)(struct sim *s); /* runs once every counting task is done, if set */
	bool stop_on_kill;
	int first_victim;
	int32_t stacks[SIM_FRAG_STACKS]; /* frag: the forker's live order-2/3 blocks, a ring */
	uint8_t stack_order[SIM_FRAG_STACKS];
	unsigned int stacks_head, stacks_len;

	unsigned int nr_runnable;
	uint64_t flood_start_usec; /* when the load that floods starts (eaters) */
	uint64_t budget_usec;      /* stop: livelock or stuck is declared past this */
	uint64_t sample_usec;      /* CSV sampling period */
	int last_no_progress_loops;
	uint64_t oom_lock_until; /* oom_lock is held (the report prints) until then */
	int oom_victim;          /* chosen, to be killed when the report is out (NO_TASK) */
	uint64_t oom_rs_begin;   /* the report rate limit's interval start */
	unsigned int oom_rs_printed;
	uint64_t drift_prng; /* per-CPU vmstat remainders: a stream apart from the interleaving */
	uint64_t vmstat_next[NR_CPUS]; /* each CPU's next vmstat_update() */
	unsigned int vmstat_cpu;       /* the CPU the current event runs on */
	bool vmstat_off;               /* mainline: counters read exact (snapshots) */
	bool vmstat_batch;             /* a reclaim batch: LRU changes add up, then count once */
	long vmstat_batch_delta;
	int kworker;                   /* the disk events poll's worker (workqueue.c), NO_TASK */
	unsigned int wq_cpu;           /* the CPU whose worker pool it runs on */
	bool wq_held;                  /* it loops in the allocator without sleeping: its pool
					* runs nothing else, vmstat_update() of wq_cpu waits */
	int noise;                     /* the rest of the machine (noise.c), NO_TASK */
	uint64_t noise_prng;           /* its intervals: a stream apart from the interleaving */
	bool stop;
	unsigned long csv_oom_events;
	unsigned long steps;
};

/* The next value of the splitmix64 stream whose state is *@state. The model keeps a stream per
 * source of chance (the interleaving, the vmstat CPUs, the noise), so that one draws without
 * moving the others. */
static inline uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The interleaving's stream. */
static inline uint64_t sim_rand(struct sim *s)
{
	return splitmix64(&s->prng);
}

/* A value in [0, n). */
static inline uint64_t sim_rand_below(struct sim *s, uint64_t n)
{
	return n ? sim_rand(s) % n : 0;
}

/* A small random delay that varies the interleaving with the seed. */
static inline uint64_t jitter_usec(struct sim *s)
{
	return sim_rand_below(s, 100);
}

/* lists.c-style helpers (lru.c) */
void plist_init(struct plist *l);
void la_add_tail(struct sim *s, struct plist *l, int32_t pfn);
void la_del(struct sim *s, struct plist *l, int32_t pfn);
void lb_add_tail(struct sim *s, struct plist *l, int32_t pfn);
void lb_del(struct sim *s, struct plist *l, int32_t pfn);
void la_replace(struct sim *s, struct plist *l, int32_t old_pfn, int32_t new_pfn);
void lb_replace(struct sim *s, struct plist *l, int32_t old_pfn, int32_t new_pfn);

/* zone.c: zones, watermarks, buddy allocator */
int zones_init(struct sim *s, unsigned long nr_pages);
void zones_free(struct sim *s);
struct sim_zone *page_zone(struct sim *s, int32_t pfn);
int32_t buddy_alloc(struct sim *s, struct sim_zone *z, unsigned int order, int mt);
void buddy_free(struct sim *s, int32_t pfn, unsigned int order);
void buddy_take(struct sim *s, struct sim_zone *z, int32_t pfn);
int gfp_migratetype(gfp_t gfp);
int high_zoneidx(gfp_t gfp);
unsigned long total_free_pages(const struct sim *s);
unsigned long total_managed_pages(const struct sim *s);

/* lru.c: page states and owners */
void page_make_anon(struct sim *s, int32_t pfn, int task);
void page_make_kernel(struct sim *s, int32_t pfn, int task);
void page_make_file_dirty(struct sim *s, int32_t pfn, int file);
void page_file_start_writeback(struct sim *s, int32_t pfn);
void page_file_end_writeback(struct sim *s, int32_t pfn);
void page_make_file_mapped(struct sim *s, int32_t pfn, int file);
void page_release(struct sim *s, int32_t pfn);
unsigned long task_free_pages(struct sim *s, int task, bool anon_only);
unsigned long file_remove(struct sim *s, int file);
unsigned long task_rss_pages(const struct sim *s, int task);

/* blockdev.c */
void bdev_init(struct sim *s, uint64_t bw_pages_per_sec);
void bdev_kick(struct sim *s);
void bdev_wb_done(struct sim *s);
bool bdev_congested(const struct sim *s);
uint64_t bdev_uncongested_in(const struct sim *s);
void dirty_limits(const struct sim *s, unsigned long *ret_bg, unsigned long *ret_thresh);
void wakeup_flusher(struct sim *s, unsigned long nr_pages);

/* reclaim.c */
struct reclaim_result {
	unsigned long nr_scanned;
	unsigned long nr_reclaimed;
	bool met_dirty;
};
void shrink_zone(struct sim *s, struct sim_zone *z, int priority, unsigned long nr_to_reclaim,
		 struct reclaim_result *rr);
unsigned long try_to_free_pages(struct sim *s, gfp_t gfp, unsigned int order, int classzone,
				struct reclaim_result *rr);
void wakeup_kswapd(struct sim *s, unsigned int order, int classzone);
uint64_t kswapd_step(struct sim *s, struct sim_task *t);

/* compaction.c */
enum compact_result compact_zone(struct sim *s, struct sim_zone *z, unsigned int order,
				 int classzone, bool ignore_defer, unsigned long *ret_migrated);
bool compaction_suitable(const struct sim *s, const struct zone_snapshot *z, unsigned int order,
			 int classzone, long free_pages);
bool compact_zone_order(struct sim *s, struct sim_zone *z, unsigned int order,
			unsigned long *ret_migrated);

/* zone.c: the per-CPU vmstat threshold of 4.3 (calculate_normal_threshold) */
unsigned long vmstat_threshold(const struct sim_zone *z);

/* vmstat.c: per-CPU counters, folded as 4.3 folds them */
void vmstat_init(struct sim *s);
void vmstat_pick_cpu(struct sim *s, const struct sim_event *ev);
uint64_t vmstat_pool_hold(struct sim *s, bool held);
void vmstat_mod(struct sim *s, struct sim_zone *z, enum vm_item item, long delta);
unsigned long vmstat_read(struct sim *s, struct sim_zone *z, enum vm_item item);
unsigned long vmstat_snapshot(const struct sim_zone *z, enum vm_item item);
void vmstat_pages_scanned_reset(struct sim *s, struct sim_zone *z);
void vmstat_pages_scanned_add(struct sim *s, struct sim_zone *z, unsigned long nr);
void vmstat_lru(struct sim *s, struct sim_zone *z, long delta);
void vmstat_reads(struct sim *s, struct zone_snapshot *zones, size_t nr);

/* slowpath.c */
enum alloc_status { ALLOC_OK, ALLOC_WAIT, ALLOC_FAIL };
int32_t get_page_from_freelist(struct sim *s, gfp_t gfp, unsigned int order,
			       unsigned int alloc_flags, int classzone);
int32_t boot_page(struct sim *s, gfp_t gfp);
enum alloc_status alloc_pages_step(struct sim *s, struct sim_task *t, gfp_t gfp, unsigned int order,
				   int32_t *ret_pfn, uint64_t *ret_cost_usec);
void alloc_end(struct sim *s, struct sim_task *t);
void fill_request(struct sim *s, gfp_t gfp, unsigned int order, unsigned int alloc_flags,
		  struct zone_snapshot *zones, struct alloc_request *req);

/* oom_kill.c */
bool out_of_memory(struct sim *s, struct sim_task *current, gfp_t gfp, unsigned int order,
		   bool *ret_killed);
void oom_kill_deferred(struct sim *s);
void task_exit_mm(struct sim *s, struct sim_task *t);
void task_kill(struct sim *s, struct sim_task *t);

/* oom_reaper.c */
void queue_oom_reaper(struct sim *s, struct sim_task *victim);
uint64_t oom_reaper_step(struct sim *s, struct sim_task *reaper);

/* tasks.c */
int task_create(struct sim *s, enum task_kind kind, const char *comm, unsigned long target_pages,
		uint64_t start_usec);
void task_step(struct sim *s, struct sim_task *t);
void task_wake(struct sim *s, struct sim_task *t, uint64_t delay_usec);
void task_set_runnable(struct sim *s, struct sim_task *t, bool runnable);
void task_sleep(struct sim *s, struct sim_task *t, uint64_t delay_usec, bool cpu);
void task_run_sleep(struct sim *s, struct sim_task *t, uint64_t run_usec, uint64_t sleep_usec);
void task_alloc_wait(struct sim *s, struct sim_task *t, uint64_t run_usec, uint64_t delay_usec);
void task_finish(struct sim *s, struct sim_task *t);
void task_idle(struct sim *s, struct sim_task *t);
uint64_t cpu_time(const struct sim *s, uint64_t nsec);
void lock_release(struct sim *s, struct sim_task *t);

/* events.c */
int events_init(struct sim *s);
void events_free(struct sim *s);
void event_push(struct sim *s, uint64_t when, enum event_kind kind, int task, uint32_t gen);
bool event_pop(struct sim *s, struct sim_event *ret_ev);

/* workqueue.c: the disk events poll on a bound worker pool, and what its allocations hold */
#define DISK_EVENTS_POLL_USEC (2 * USEC_PER_SEC) /* block.events_dfl_poll_msecs=2000 (udev) */
void kworker_init(struct sim *s, uint64_t seed);
void kworker_step(struct sim *s, struct sim_task *t);
void kworker_hold(struct sim *s, bool held);

/* noise.c: the rest of the machine, which gives a page back now and then (--noise) */
void noise_init(struct sim *s, uint64_t seed);
void noise_step(struct sim *s, struct sim_task *t);

/* frag.c: the fragmented machine and its forker */
void setup_frag(struct sim *s);
void forker_step(struct sim *s, struct sim_task *t);

/* scenarios.c: a bare machine (kswapd, the reaper if configured), for scenarios and tests */
int machine_init(struct sim *s, const struct sim_config *cfg, struct sim_result *res, uint64_t seed,
		 bool stalled_device);
void machine_loop(struct sim *s);
void machine_free(struct sim *s);

/* check.c: invariants (debug builds run them every step) */
void sim_check(const struct sim *s);

#endif
