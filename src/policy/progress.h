/* SPDX-License-Identifier: GPL-2.0-only */
/* What one poll interval of a scope means for the retry rule: was it a reclaim round (did
 * allocations stall), and did it make progress that stayed (reclaimed net of refaults)? */
#ifndef OOMGUARD_POLICY_PROGRESS_H
#define OOMGUARD_POLICY_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Thrashing is told by what the scope reads, not by how fast: when most of the pages read into
 * its page cache are refaults (pages it had and lost), its working set does not fit, whatever
 * the disk's speed or the LRU's size; a cold read or a stream reads pages it never had (measured,
 * docs/daemon-design.md "Thrashing"). The share is taken over the shortest trailing span whose
 * reads and refaults both reach PROGRESS_SPAN_PAGES (two rounds on a fast disk; back to the last
 * read-ahead batch on a slow one), at most PROGRESS_SPAN_MAX_USEC back:
 *   refaulted >= read / PROGRESS_THRASH_SHARE_DIV  thrashing (no progress);
 *   refaulted <  read / PROGRESS_CLEAN_SHARE_DIV   clean;
 *   in between                                     mixed (the count is held).
 * Thrashing also needs @refault_min_pages refaults per second over the span (at least 1 s), so
 * that a trickle of rereads on a fast disk is not a verdict, unless the scope's tasks waited for
 * reads at least 1/PROGRESS_IO_SHARE_DIV of the round (its I/O stall measured: the machine's, a
 * v2 group's own; a v1 group reads the machine's).
 *
 * A slow disk's thrash: a rate floor is a disk speed. At 256 refaults a second (1 MiB/s) a disk
 * of 1 MiB/s cannot pass it: measured on this host's grid (bench/thrash-grid.sh --profile
 * slower, 128 KiB read-ahead, 7 December), a loop by mmap rereading at 1 MiB/s refaulted 224-256
 * pages a round, 100 % of its reads, its I/O stall 902 ms of every 1,000, and was killed 5.7-6.6
 * s after its first pass (rounds under the floor held the count); slower disks were never judged
 * thrashing. Where the tasks wait for reads most of the time, their refaults are what costs
 * them the time, and the floor's trickle (rereads a fast disk serves at once) does not wait. The
 * span still needs PROGRESS_SPAN_PAGES read and refaulted within PROGRESS_SPAN_MAX_USEC: about
 * 85 pages (a third of a MiB) a second is the slowest thrash judged.
 *
 * Refaults beside writes are not thrashing either: when, in the last PROGRESS_SPAN_MAX_USEC, the
 * scope wrote at least as many pages as it refaulted (where its writes are counted: v2's
 * io.stat, the machine's nr_dirtied), or in some round dirty + writeback pages made up at least
 * 1/PROGRESS_WRITEBACK_SHARE_DIV of its file pages (v1 counts no writes: this gauge is all it
 * has), a writer is pushing its pages through the cache and reclaim, which cannot take dirty
 * pages, takes the clean ones: a working set that fits is read back because
 * of the writer, not because it does not fit (measured: a rereader of 25 MiB beside 218 MiB of
 * anon in a 256 MiB group is reread at the disk's rate while a writer streams 2 GB/s through
 * the group; dirty + writeback peak at 20-28 MiB of a 34 MiB cache every second, and are 0 in
 * every thrash cell of the grid). The kernel makes the same call: patch 2/3 of the series the
 * retry rule comes from waits for writeback rather than giving up when dirty + writeback
 * exceed half of what is reclaimable. Such a span holds the count; a kill there would take the
 * reader, and the writer would go on.
 *
 * Where writes are counted, the gauge alone misleads: when memory runs out beside writers held
 * to the disk's pace, the file LRU shrinks to the dirty pages that reclaim cannot take (measured
 * in the machine flood of bench/machine: 4,186 of 4,222 file pages dirty or under writeback,
 * 17-37 pages dirtied a round against about 1,100 refaults a span, free under min): every round
 * was held, and the machine froze until the kernel's own OOM killer acted. There the gauge
 * holds only beside a writer that still writes: at least 1/PROGRESS_WRITER_SHARE_DIV as many
 * pages as were refaulted in the last PROGRESS_SPAN_MAX_USEC. A writer slower than the reader
 * churns the cache all the same once its dirty pages fill the room the reader's file needs
 * (measured in the guest, tests/vm daemon-churn-v2 with vm.dirty_ratio 80 and the group's
 * writes at 8 MB/s: 7,142 of 8,784 file pages dirty or under writeback, 2,886 pages written in
 * 3 s against about 10,000 refaulted; without the writer clause each round said thrashing and
 * the reader was killed), while in the machine's flood and fork storm the writers, stalled
 * with everything else, wrote 22-74 pages in 3 s against 1,900-2,200 refaults (bench/machine,
 * s11-g2, 5 December).
 *
 * A group's refaults without a stall event in the span (or in the last second, where the span
 * is shorter) are not its thrashing: reclaim of the machine (kswapd, another task's direct
 * reclaim) evicts the pages of groups far below their limits, and their refaults come back with
 * no charge ever failing (measured: a working set that fits, 24 MiB free in its 256 MiB group,
 * refaulted 512 pages in one round and none after; the span kept that burst for 1.7 s, every
 * round of it said thrashing, and the reader was killed).
 *
 * A machine whose zones all have PROGRESS_FREE_HIGH_MULT times their high watermark free is
 * not out of memory, whatever its counters say: kswapd stops at the high watermark, so nothing
 * is being evicted for want of memory, and refaults are pages evicted earlier coming back
 * (measured in the flood of bench/machine, after the kernel's OOM kill: 466,000 pages free,
 * high watermark about 17,000, 1,200-1,500 refaults per span of 200-800 ms as the survivors
 * read back what they had lost, 49-140 pages dirtied: with the write count alone each such round
 * says thrashing, and 17 of them make a kill with 1.8 GiB free). Such a round is no round. A
 * thrashing machine sits between its zone's low and high watermarks (measured in the guest's
 * machine thrash: 14,300-17,700 pages free). Per zone, not summed: on a large host the DMA32
 * zone, which lowmem_reserve keeps from most allocations, can hold more free pages than twice
 * the high watermarks of all zones while the Normal zone thrashes.
 *
 * Read-ahead larger than the room: where the scope's file pages are fewer than
 * PROGRESS_RA_ROOM_WINDOWS read-ahead windows, pages read ahead are evicted before they are
 * used and the next read-ahead reads them again: a stream read once refaults a whole window at
 * a time, then reads a fresh one (about half of its reads are refaults, in bursts of one
 * window), and a span of one window cannot tell it from a loop. There a span that says
 * thrashing holds the count instead, unless the long share (refaults among the reads, in sums
 * that forget at the pace of PROGRESS_RA_MEMORY_WINDOWS windows read) is at least
 * PROGRESS_RA_SHARE_PERMILLE and the last window's share (below) at least
 * PROGRESS_RA_SPAN_PERMILLE: a loop rereads nothing but refaults once its first pass is over (its
 * spans read 99-100 % refaults at 4 MiB/s and unthrottled), and its long share reaches 3/4 two
 * windows or so into its rereads; a stream at 4 MiB/s alternates a refaulted window and a fresh one
 * (long share about one half); a stream on a fast disk has read-ahead evicted before use all the
 * time, a long share of 67-90 %, but fresh pages in every span (spans of 67-88 % refaults, measured
 * by read() and mmap unthrottled: docs/daemon-design.md "Read-ahead larger than the room").
 * In a room under one window even that is gone: each window is evicted, in part, before it is
 * used, read again, and evicted again, so a stream read once rereads every page several times
 * (measured in the guest's v2 grid at 8 MiB read-ahead, 5 December: an mmap stream beside 57
 * MiB of anon in 64 MiB, 5.7 MiB of file pages, spans of 100 % refaults and a long share of
 * 922 per mille; the anon holder was killed). There a span that says thrashing always holds.
 * A loop in such a room is not caught by its reads; PSI still judges it where demand grows
 * (rule 5), and the kernel's own OOM killer where its charges fail.
 * A reader by mmap meets the same in rooms of more windows: reclaim gives the pages it touched
 * (young in its page tables) a second pass over the LRU and evicts the read-ahead it has not
 * touched yet, just ahead of it, which it then faults in again (traced on this host with the
 * filemap tracepoints, 6 December: a stream by mmap at 4 MiB/s beside 102 MiB of anon in 128,
 * a room of three 8 MiB windows, refaulted 256 to 1,024 pages at a time, each page one it had
 * not reached, and fresh pages in the same or the next batch; a loop's batches are whole
 * windows of refaults). Its spans read up to 100 % refaults where shorter than a window and
 * about half where a window long, over the thrashing share all the same: counted, they killed
 * that stream (4 of 13 runs), or a loop in its cold pass in a room of 3.7 windows (2 of 5). So
 * where the file pages are fewer than PROGRESS_RA_WIDE_WINDOWS windows (where the failures were, 3
 * and 3.75 windows, with room to spare; the streams in rooms of 4.75 to 8 windows never refaulted
 * at 4 MiB/s: a rule that may wait for a window is kept to the rooms that need it), a span that
 * says thrashing also needs the last window of reads (struct read_marks: however long ago it began,
 * since a stalled reader may read nothing for seconds between two bursts) to be at least
 * PROGRESS_RA_SPAN_PERMILLE refaults; a stream's last window holds fresh pages. Until it is, a span
 * with fresh pages of its own holds the count (THRASH_READAHEAD), and one of at least
 * PROGRESS_RA_SPAN_PERMILLE refaults is pending (THRASH_PENDING, held): a loop's first window of
 * rereads comes in batches too, and the daemon counts the pending rounds once the window says
 * thrashing, so that a loop's count loses nothing while it waits (its kill still waits for the
 * window: where reads are counted late, up to one window read at the disk's rate); a round that
 * says anything else forgets them (a stream's burst is followed by fresh pages). Not in rooms
 * under PROGRESS_RA_ROOM_WINDOWS, where the long share must pass its bound too: there a stream
 * rereads its own read-ahead in bursts, window after window, and the first round whose shares
 * both passed would count the burst's rounds with it (measured, 'stream 4 0 90 read' on the
 * host, 8 MiB read-ahead, a room of 1.4 windows, grid-s23d: 13 pending rounds, then a round at a
 * window of 1,327 and a long share of 783 per mille, its one peak, took the count from 0 to 14).
 * There such a span holds (THRASH_READAHEAD).
 *
 * Refaults long past: the span reaches back up to PROGRESS_SPAN_MAX_USEC so that a slow disk's
 * batches, seconds apart, are judged together; it also carries a burst of refaults over the
 * quiet rounds after it. Between a slow disk's batches the thrashing tasks wait for their reads:
 * measured, the machine's PSI io "some" was 90-102 ms of every 100 ms round in the pauses of up
 * to 2 s of a thrash at 4 MiB/s (tests/fixtures/traces/thrash-4mibs-read-io.trace). After a
 * burst nobody waits (measured in bench/machine's leak with zram: 1,107 swap-ins in 0.8 s as
 * the leak reached swap, then nothing; the span carried them over 17 quiet rounds, each said
 * thrashing, and the leak was killed with 1.9 GiB of swap free). So when the scope has read and
 * refaulted nothing for the last PROGRESS_SILENCE_MIN_USEC or more (@silence_usec) and its I/O
 * stall over that silence is under 1/PROGRESS_IO_SHARE_DIV of it, a span that says thrashing
 * holds the count (THRASH_STALE): what it says is old news. Where the I/O stall is not
 * measured (no PSI), the span judges as before.
 *
 * Swap-ins that wait for no I/O: a refault of an anon page is a swap-in, and one from a swap
 * device in memory (zram, zswap) costs a decompression, not a read. Where PSI measures the
 * scope's memory stalls (the machine, v2 groups: @has_stall_usec), a span that says thrashing
 * whose refaults are at least half anon (@span_refaulted_anon_pages), in a window whose I/O
 * stall is measured and under 1/PROGRESS_IO_SHARE_DIV of it, is no thrashing (THRASH_CHEAP):
 * the round is judged by its memory stall (rule 5) and its net reclaim (rule 6), as the time it
 * costs. Measured in bench/machine's leak with zram (s8-b, 5 December): 3,191 refaults in a
 * span of 2.9 s, all anon, I/O stall 0, memory stall 217 ms of the 1 s window, zram 84 % used;
 * every round said thrashing and the leak was killed at 154 s, against 169-191 s for the others
 * and the kernel, whose kills came when zram was full. A swap-in from a disk waits for its read,
 * which is I/O stall; a v1 group has no memory stall to judge by and keeps the share's verdict.
 *
 * The machine's I/O stall on a busy machine: PSI's "some" for the machine averages the CPUs'
 * own "some" times, each weighted by the time that CPU was not idle. One task waiting for its
 * reads the whole time reads as the whole time on a machine whose other CPUs idle, and as 1/N of
 * it where N CPUs are busy: measured, a dd reading through a 1 MB/s blkio throttle gave 994 ms
 * of io "some" a second on this 2-CPU machine idle, and 490 ms with two CPU hogs beside it. The
 * two rules above compare the I/O stall with half the time, so on a busy machine a slow-disk
 * thrash read as old news and was never caught (machine scope, v1 groups: bench/thrash-grid.sh's
 * cells with hogs, 5 December: 3 of 4 missed, one killed 40.9 s late). The machine's stall is
 * therefore multiplied by the number of CPUs busy over the same time (its busy CPU time over
 * the time, from /proc/stat, with iowait busy as PSI counts it), where that is more than one,
 * and capped at the time (progress_io_undilute()). For one waiting task beside busy CPUs this
 * gives its wait back. Where the waiting CPU is itself idle part of the time the product still
 * reads low (a task waiting half the time on an otherwise idle CPU beside one busy CPU: PSI
 * reads 1/6 of the time, the product 1/4); there /proc/stat's iowait, the time CPUs sat idle
 * while a task waited for I/O, is a floor: that time is part of the wait. A v2 group's own
 * io.pressure weights each CPU by the group's own time not idle there (its running and its
 * waiting tasks), so a reader beside busy tasks of its own group reads low the same way; its
 * cpu.stat usage_usec counts the running, and the waiting is solved for
 * (progress_io_undilute_group()).
 */
#define PROGRESS_SPAN_PAGES        256
#define PROGRESS_SPAN_MAX_USEC     3000000ull
/* Anon + swap growth over the last PROGRESS_SPAN_MAX_USEC (pages) that makes a machine's memory
 * stall over the bound a round without a new stall event (progress_round(), rule 2). */
#define PROGRESS_STUCK_DEMAND_PAGES 1024
#define PROGRESS_THRASH_SHARE_DIV  2
#define PROGRESS_CLEAN_SHARE_DIV   8
#define PROGRESS_WRITEBACK_SHARE_DIV 4
#define PROGRESS_WRITER_SHARE_DIV  8
#define PROGRESS_DEMAND_SHARE_DIV  8
#define PROGRESS_RA_ROOM_WINDOWS   3
#define PROGRESS_RA_WIDE_WINDOWS   5
#define PROGRESS_RA_MEMORY_WINDOWS 2
#define PROGRESS_RA_SHARE_PERMILLE 750
#define PROGRESS_RA_SPAN_PERMILLE  938
#define PROGRESS_FREE_HIGH_MULT    2
#define PROGRESS_SILENCE_MIN_USEC  200000ull
#define PROGRESS_IO_SHARE_DIV      2 /* I/O stall under 1/this of a time: nobody waited for reads */

/*
 * struct round_sample - the deltas of one poll interval of one scope.
 * @interval_usec:      wall time the deltas cover
 * @stall_events:       allocations that had to reclaim: allocstall (machine), failcnt (v1),
 *                      memory.events max (v2)
 * @stall_usec:         PSI "some" time in the interval; 0 when the scope has no PSI
 * @has_stall_usec:     @stall_usec is measured
 * @reclaimed_pages:    pgsteal delta; ignored unless @has_reclaimed
 * @has_reclaimed:      the scope counts reclaim (machine, v2); v1 does not
 * @refaulted_pages:    workingset_refault (file + anon) delta: reclaim undone
 * @span_usec:          the trailing span the read share is taken over (see above)
 * @span_refaulted_pages, @span_read_pages:  refaults and pages read (pgpgin) in that span; a
 *                      scope whose tasks' reads are not counted apart reads the machine's, which
 *                      can only lower the share
 * @parked:             v1 under_oom: tasks sleep on the OOM wait queue
 * @recent_written_pages, @recent_refaulted_pages:  pages written (dirtied: a v2 group's
 *                      written back plus its dirty + writeback growth) and refaulted in the
 *                      last PROGRESS_SPAN_MAX_USEC (written: 0 where not counted)
 * @span_write_pending_pages, @span_file_pages:  the round of the last PROGRESS_SPAN_MAX_USEC
 *                      with the largest share of dirty + writeback pages among the file pages:
 *                      those two gauges then (0, 0: none seen)
 * @file_pages:         the scope's file pages now (0: not known)
 * @long_read_pages, @long_refaulted_pages:  the long share's sums (struct long_share)
 * @span_stall_events:  the stall events of the read share's span, or of the last second where
 *                      the span is shorter
 * @is_group:           a memory cgroup: its refaults are its own thrashing only where its
 *                      allocations met its limit in the span (@span_stall_events) or its
 *                      refaults filled it (@at_limit); the machine's reclaim is always its own
 *                      (kswapd alone can make it thrash)
 * @counts_writes:      the scope counts the pages it writes (machine nr_dirtied, v2 io.stat):
 *                      the dirty gauge then holds only beside a writer that writes (above)
 * @free_plenty:        the machine: every zone it allocates from has at least
 *                      PROGRESS_FREE_HIGH_MULT times its high watermark free (groups: false)
 * @span_refaulted_anon_pages:  the anon part of @span_refaulted_pages (swap-ins)
 * @window_io_stall_usec:  PSI io "some" time in the interval; ignored unless @has_window_io
 * @recent_demand_grown_pages:  how much the scope's anon + swap in use grew in the last
 *                      PROGRESS_SPAN_MAX_USEC (0 when it shrank); ignored unless @has_demand
 * @silence_usec:       how long the scope has read and refaulted nothing, up to now
 * @silence_io_stall_usec:  PSI io "some" time over that silence; ignored unless
 *                      @has_silence_io (read at both of its ends)
 * @ra_span_read_pages, @ra_span_refaulted_pages:  pages read and refaulted in the last
 *                      read-ahead window of reads (progress_marks_window())
 * @cpu_stall_usec, @cpu_span_usec:  PSI cpu "some" time (the machine's, a v2 group's own)
 *                      over the last @cpu_span_usec: PROGRESS_SPAN_MAX_USEC or the interval,
 *                      the longer, as far as the rounds read it (shorter where the history
 *                      is), and never less than the interval; ignored unless @has_cpu_stall
 * @at_limit:           a group whose room left under its limit is now smaller than the span's
 *                      refaults: they took it to its limit, whether or not a charge failed yet
 */
struct round_sample {
	uint64_t interval_usec;
	uint64_t stall_events;
	uint64_t stall_usec;
	bool has_stall_usec;
	uint64_t reclaimed_pages;
	bool has_reclaimed;
	uint64_t refaulted_pages;
	uint64_t span_usec;
	uint64_t span_refaulted_pages;
	uint64_t span_read_pages;
	bool parked;
	uint64_t span_write_pending_pages;
	uint64_t span_file_pages;
	uint64_t recent_written_pages;
	uint64_t recent_refaulted_pages;
	uint64_t file_pages;
	uint64_t long_read_pages;
	uint64_t long_refaulted_pages;
	uint64_t span_stall_events;
	bool is_group;
	bool counts_writes;
	bool free_plenty;
	uint64_t silence_usec;
	uint64_t silence_io_stall_usec;
	bool has_silence_io;
	uint64_t span_refaulted_anon_pages;
	uint64_t window_io_stall_usec;
	bool has_window_io;
	uint64_t recent_demand_grown_pages;
	bool has_demand;
	uint64_t ra_span_read_pages;
	uint64_t ra_span_refaulted_pages;
	uint64_t cpu_stall_usec;
	uint64_t cpu_span_usec;
	bool has_cpu_stall;
	bool at_limit;
};

/*
 * struct long_share - pages read and refaulted, summed with a memory of @memory_pages read: each
 * round's reads scale both sums down by memory / (memory + read) before they are added. The
 * cumulative counters last seen (@last_*) give the round's deltas; @primed: they are set.
 */
struct long_share {
	uint64_t read, refaulted;
	uint64_t last_read, last_refaulted;
	bool primed;
};

/*
 * progress_long_share_add() - count the scope's cumulative @read and @refaulted counters into
 * @ls with a memory of @memory_pages (0: the sums are cleared). A counter that went back (the
 * group was made again) starts the sums again.
 */
void progress_long_share_add(struct long_share *ls, uint64_t read, uint64_t refaulted,
			     uint64_t memory_pages);

/*
 * struct read_marks - the scope's cumulative reads and refaults as they stood at the last
 * PROGRESS_MARKS points, a point taken once reads have gone 1/PROGRESS_MARK_STEPS of a
 * read-ahead window past the one before: the last window of reads, however long ago it began
 * (above, "Read-ahead larger than the room"). @len points, the newest at @next - 1.
 */
#define PROGRESS_MARK_STEPS 16
#define PROGRESS_MARKS      (PROGRESS_MARK_STEPS + 2)
struct read_marks {
	uint64_t read[PROGRESS_MARKS], refaulted[PROGRESS_MARKS];
	unsigned int len, next;
};

/*
 * progress_marks_add() - note the scope's cumulative @read and @refaulted counters into @m for a
 * read-ahead window of @window_pages (0: nothing kept). A counter that went back (the group was
 * made again) starts the marks again.
 */
void progress_marks_add(struct read_marks *m, uint64_t read, uint64_t refaulted,
			uint64_t window_pages);

/*
 * progress_marks_window() - the pages read and refaulted from the newest mark at least
 * @window_pages of reads before @read (the oldest mark where none is) up to @read and
 * @refaulted, the counters now.
 */
void progress_marks_window(const struct read_marks *m, uint64_t read, uint64_t refaulted,
			   uint64_t window_pages, uint64_t *ret_read, uint64_t *ret_refaulted);

/*
 * struct progress_params - the bounds a round is judged by.
 * @stall_bound_permille:  PSI some above this share of the interval means no progress
 * @refault_min_pages:     refaults per window (per second for thrashing) below this are noise
 * @readahead_pages:       the largest read-ahead window of the machine's disks (0: unknown)
 * @cpu_stall_bound_permille:  PSI cpu some at or under this share of its span (@cpu_span_usec):
 *                         CPUs to spare (rule 5's exception); 0: no exception
 */
struct progress_params {
	unsigned int stall_bound_permille;
	uint64_t refault_min_pages;
	uint64_t readahead_pages;
	unsigned int cpu_stall_bound_permille;
};

/* Defaults; docs/daemon-design.md gives the measurements behind them. */
#define PROGRESS_STALL_BOUND_PERMILLE 600
#define PROGRESS_CPU_STALL_BOUND_PERMILLE 900
#define PROGRESS_REFAULT_MIN_PAGES    256

/* What the read share of the span says (above); WRITEBACK: a share that says thrashing or mixed,
 * beside a writer's dirty pages; READAHEAD: a span that says thrashing in a room under one
 * read-ahead window, or under three whose long share does not, or under five whose span and
 * last window of reads both have fresh pages; PENDING: a span of no fresh page in a room under
 * five windows whose last window of reads still has some (a verdict to come: the daemon counts
 * these rounds once that window says thrashing); STALE: a span
 * that says thrashing, its refaults long past (silence, and no task waits for reads); CHEAP: a
 * span that says thrashing, its refaults swap-ins that waited for no I/O (judged by stall and
 * reclaim). */
enum thrash_state {
	THRASH_NONE,
	THRASH_MIXED,
	THRASH_YES,
	THRASH_WRITEBACK,
	THRASH_READAHEAD,
	THRASH_PENDING,
	THRASH_STALE,
	THRASH_CHEAP
};

/*
 * struct round_result - the judgement and the inputs behind it, for the log.
 * @is_round:          allocations stalled in the interval: the retry rule runs
 * @progress:          the round freed pages that stayed free
 * @hold:              the read share is mixed: too close to call; the no-progress count
 *                     neither grows nor resets (the rule does not run)
 * @thrash:            what the read share says
 * @net_reclaimed:     reclaimed minus refaulted, floored at 0 (v1: 0, not measured)
 * @reclaimed_pages:   the reclaim figure used (v1: 0, not measured)
 * @reason:            fixed string naming the rule that decided
 */
struct round_result {
	bool is_round;
	bool progress;
	bool hold;
	enum thrash_state thrash;
	uint64_t net_reclaimed;
	uint64_t reclaimed_pages;
	const char *reason;
};

/*
 * progress_thrash() - what the span's read share says (above), alone.
 */
enum thrash_state progress_thrash(const struct round_sample *s, const struct progress_params *p);

/*
 * progress_io_undilute() - the machine's PSI io "some" time @stall_usec over @span_usec, on a
 * machine whose CPUs were busy (not idle, iowait included) for @busy_usec of CPU time in that
 * span, @iowait_usec of it iowait: @stall_usec times the CPUs busy (@busy_usec / @span_usec)
 * where they are more than one, at least @iowait_usec, never less than @stall_usec and never
 * more than @span_usec ("Refaults long past", above). As read where @span_usec is 0; the
 * product left out where it would wrap.
 */
uint64_t progress_io_undilute(uint64_t stall_usec, uint64_t busy_usec, uint64_t iowait_usec,
			      uint64_t span_usec);

/*
 * progress_io_undilute_group() - a v2 group's own io "some" time @stall_usec over @span_usec,
 * its tasks having run @usage_usec of CPU time in that span (cpu.stat usage_usec). PSI weights
 * each CPU by the group's time not idle there, which its waiting tasks count as well as its
 * running ones; usage counts the running only. With the waiting taken as the stall undiluted,
 * x = @stall_usec * (@usage_usec + x) / @span_usec, so x = @stall_usec * @usage_usec /
 * (@span_usec - @stall_usec): a reader waiting the whole time beside one busy task of its group
 * reads half the time, and is the whole time. At least @stall_usec, at most @span_usec; as read
 * where @span_usec is 0 or a product would wrap.
 */
uint64_t progress_io_undilute_group(uint64_t stall_usec, uint64_t usage_usec,
				    uint64_t span_usec);

/*
 * progress_round() - judge one poll interval. Rules, in order:
 *   1. Tasks parked under_oom: a round without progress (the kernel gave up reclaiming).
 *   2. A machine with plenty free (@free_plenty), or no stalled allocation, refaults under
 *      @refault_min_pages and no thrashing or mixed share (a share of cheap swap-ins is
 *      neither): not a round. On the machine, PSI some over @stall_bound_permille of the
 *      window while anon + swap in use grew by PROGRESS_STUCK_DEMAND_PAGES or more in the last
 *      PROGRESS_SPAN_MAX_USEC is a stalled allocation without a new event: allocstall counts
 *      entries into direct reclaim, and tasks that stay inside one (throttled on writeback,
 *      waiting for a slow disk) make none for seconds. Measured in bench/machine's flood
 *      without swap (s45-trace3, 7 December): windows of 1.2-1.3 s of memory stall a second
 *      with 0 allocstall, 20,000-356,000 pages of anon growth in 3 s; about two rounds in
 *      three were "no stalled allocation", and the 16 rounds of the count took 5.3 s. A
 *      stream read beside flat anon, or kswapd's own reclaim, grows no anon: still not a
 *      round there. Groups are left as they were: a charge that meets a v2 group's limit
 *      counts memory.events max on each retry, and a stall at memory.high is the throttle
 *      their owner asked for, no OOM.
 *   3. Thrashing (progress_thrash()): no progress, whatever was reclaimed: the scope reads back
 *      what reclaim took (a loop over a file larger than the room left for it refaults every
 *      page it reads; the kernel's own thrash accounting, PSI and delay accounting, sees only
 *      refaults of pages that were active, which such a loop never makes).
 *   4. Mixed, stale, refaults beside a writer's dirty pages, read-ahead over the room, or
 *      pending, unless PSI says stalled (5.): hold (blk-throttled rereads interleave with cold
 *      reads now and then: such a span must not restart the count; a writer's churn, or a stream's
 *      read-ahead, must not advance it). A share's doubt is no reason to doubt PSI: cold reads
 *      and a stream's refaults are no memstall (measured in bench/machine's flood: 2 s of mixed
 *      rounds with PSI some at 94-127 % of the window, the probe frozen, each round held), and
 *      neither is a writer's churn: in the flood with zram (s8-dbg, 5 December) rounds held
 *      for the writers' pages with PSI some at 95-100 % of the window put 4.5 s between the
 *      first kill and the second, and the probe froze 12 s; in the flood without swap, 8 rounds
 *      held at 83-110 %. A v1 group has no PSI: there the holds stand as they are. The one
 *      hold that stands against PSI is a writer's churn where nothing else takes memory
 *      (@has_demand: anon + swap in use, known for the machine and a v2 group with
 *      memory.swap.current, grew by less than 1/PROGRESS_DEMAND_SHARE_DIV of the pages
 *      refaulted in the last PROGRESS_SPAN_MAX_USEC).
 *      Then the stall is the reader's wait for what the writer's dirty pages pushed out, and a
 *      kill would take the reader while the writer goes on (measured in the guest's v2 churn,
 *      tests/vm daemon-churn-v2, 5 December: PSI some at 53-60 % of the window, anon flat,
 *      11,000-12,000 refaults in 3 s; the reader was killed on rounds over the bound). In the
 *      floods the eaters' anon (or the swap it went to) grows by thousands of pages a second.
 *   5. PSI some over @stall_bound_permille of the interval: no progress, whatever was freed.
 *      Except in a room of fewer than PROGRESS_RA_ROOM_WINDOWS read-ahead windows where reads
 *      take more memory than anything else (@has_demand, and anon + swap grew by fewer pages
 *      than @span_read_pages): there each read-ahead batch must first reclaim the room, the
 *      reader stalls in that reclaim whether it loops or streams, and the stall says nothing
 *      (rules 4 and 6 judge the round, as in a v1 group, which has no PSI). Measured in the
 *      guest's v2 grid at 8 MiB read-ahead (tests/vm thrash-grid, 5 December): a 640 MiB file
 *      read once by dd at 4 MiB/s beside 57 MiB of anon in 64 MiB (6 MiB of file pages)
 *      stalled 882-902 ms of every 1,000 with 79-91 refaults among 1,605-1,984 pages read
 *      (dd's own 1 MiB buffer: 256 pages of demand), and was killed; the cold first pass of a
 *      48 MiB file beside 48 of anon in 64 MiB stalled 745 ms a second and was killed 1.1 s
 *      into it. In the floods the eaters' anon grows by thousands of pages a second.
 *      Nor where the stall is reclaim's own work and nobody else pays for it: reclaim that stays
 *      (refaults under 1/PROGRESS_CLEAN_SHARE_DIV of the pages reclaimed), nobody waiting for
 *      reads (the window's I/O stall measured and under 1/PROGRESS_IO_SHARE_DIV of it) and CPUs
 *      to spare (PSI cpu "some" measured over the last PROGRESS_SPAN_MAX_USEC, @cpu_span_usec,
 *      and at most @cpu_stall_bound_permille of it): rules 4 and 6 judge the round (a share in
 *      doubt holds the count, reclaim that stayed is progress). That is an
 *      allocator putting pages into a swap device in memory (zram); its own reclaim is its
 *      stall, kswapd's too (the machine's PSI counts kswapd), and the tasks beside it run. Where
 *      the allocators are many, their reclaim takes every CPU and the others wait for one: that
 *      stall is everyone's. Measured in bench/machine with zram (s28-g1, 6 December; 1 s windows
 *      of memory "some" over 600 ms): a job growing to 2,048-2,816 MiB of a 2 GiB guest with 2
 *      GiB of zram, which the kernel and every other daemon let finish, stalled 630-960 ms a
 *      second for up to 36 s, the probe at most 0.74 s late, with cpu "some" over the last 3 s
 *      at 470-847 (90th percentile 812-846); the flood and the fork storm, whose probe froze, at
 *      710-996 (10th percentile 710-917, median 903-955), over 900 through their first 1.6 s of
 *      memory stall. Over 1 s the two overlap (the fit's peaks reach 873, the floods dip to 820):
 *      a dip under the bound would be a round of progress, which starts the count again. On one CPU
 *      the job's own reclaim would keep the others from it, and its stall would count.
 *   6. With a reclaim counter (machine, v2): reclaimed minus refaulted, progress when positive;
 *      undone by at least @refault_min_pages refaults beside a writer's churn (the writer test
 *      of progress_thrash(), whatever the share says), the count is held (measured in the
 *      guest's v2 churn over 90 s: when the span had no stall event of the group the share
 *      said nothing, and 6 rounds of reclaim undone by the reader's refaults, beside 6,814 of
 *      8,521 file pages dirty and 5,900 pages written in 3 s against 10,484 refaulted, took the
 *      count from 10 to 16: the reader was killed). Reclaim that took nothing and refaults
 *      under the floor are no churn: an anon leak at its end, whose last file pages are dirty,
 *      still counts.
 *      Without (v1): progress (what reclaim took stays taken). Failed charges (failcnt) are not
 *      counted as reclaim: a charge that keeps failing bumps failcnt on every retry.
 */
void progress_round(const struct round_sample *s, const struct progress_params *p,
		    struct round_result *ret_result);

#endif
