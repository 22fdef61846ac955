#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The policy tests must catch a wrong core: build them against mutated copies of src/policy/
# (a changed constant, a flipped comparison) and require at least one test to fail each time.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tests="watermark retry badness progress"

# Builds the policy tests from the tree at $1, the one named $2 first when there is one (a
# mutated file's own test fails soonest); returns 1 if any of them fails, 2 if one fails to build.
run_policy_tests() {
	local root=$1 order=$tests t
	[ -n "${2:-}" ] && [[ " $tests " == *" $2 "* ]] && order="$2 ${tests/$2/}"
	for t in $order; do
		gcc -std=gnu11 -D_GNU_SOURCE -I"$root/src" -O0 -o "$root/t_$t" "$root"/src/policy/*.c \
			tests/unit/test_policy_$t.c -lcmocka || { echo "build failed"; return 2; }
		"$root/t_$t" >/dev/null 2>&1 || return 1
	done
	return 0
}

mkdir -p "$tmp/clean/src"
cp -r src/policy "$tmp/clean/src/"
run_policy_tests "$tmp/clean" || { echo "FAIL: policy tests fail on the unmutated tree"; exit 1; }

missed=0
while IFS=$'\t' read -r file expr name; do
	[ -z "$file" ] && continue
	d="$tmp/m"
	rm -rf "$d" && mkdir -p "$d/src" && cp -r src/policy "$d/src/"
	sed -i "$expr" "$d/src/policy/$file"
	if cmp -s "src/policy/$file" "$d/src/policy/$file"; then
		echo "FAIL: mutation $name did not apply (the source changed?)"
		missed=$((missed + 1))
		continue
	fi
	run_policy_tests "$d" "${file%.*}"
	case $? in
	1) echo "caught: $name" ;;
	*) echo "FAIL: mutation $name not caught by any policy test"; missed=$((missed + 1)) ;;
	esac
done <<'EOF_M'
retry.h	s@define MAX_RECLAIM_RETRIES 16@define MAX_RECLAIM_RETRIES 15@	MAX_RECLAIM_RETRIES 15
retry.h	s@define MAX_RECLAIM_RETRIES 16@define MAX_RECLAIM_RETRIES 17@	MAX_RECLAIM_RETRIES 17
retry.h	s@define ZONE_RECLAIMABLE_SCAN_RATIO 6@define ZONE_RECLAIMABLE_SCAN_RATIO 5@	scan ratio 5
gfp.h	s@define PAGE_ALLOC_COSTLY_ORDER 3@define PAGE_ALLOC_COSTLY_ORDER 4@	PAGE_ALLOC_COSTLY_ORDER 4
watermark.c	s@min -= min / 2;@min -= min / 3;@	ALLOC_HIGH takes a third
watermark.c	s@min -= min / 4;@min -= min / 5;@	ALLOC_HARDER takes a fifth
watermark.c	s@free_pages <= min + reserve@free_pages < min + reserve@	watermark test <= made <
watermark.c	s@(1L << order) - 1@(1L << order)@	unusable pages one more
watermark.c	s@lists & ((1u << MIGRATE_UNMOVABLE) | (1u << MIGRATE_MOVABLE) |@lists \& ((1u << MIGRATE_UNMOVABLE) | (1u << MIGRATE_HIGHATOMIC) |@	highatomic list usable
watermark.c	s@if (!(alloc_flags & ALLOC_HARDER))@if (alloc_flags \& ALLOC_HARDER)@	highatomic reserve inverted
watermark.c	s@reserve = (long)z->lowmem_reserve\[classzone_idx\];@reserve = 0;@	lowmem_reserve ignored
retry.c	s@DIV_ROUND_UP(loops \* reclaimable, MAX_RECLAIM_RETRIES)@loops * reclaimable / MAX_RECLAIM_RETRIES@	back-off rounded down
retry.c	s@if (no_progress_loops > MAX_RECLAIM_RETRIES)@if (no_progress_loops >= MAX_RECLAIM_RETRIES)@	bound off by one
retry.c	s@pages_reclaimed >= (1UL << req->order)@pages_reclaimed > (1UL << req->order)@	costly 1 << order bound
retry.c	s@if (zone_reclaimable(&req->zones\[i\]))@if (0)@	base without the zone_reclaimable fake
retry.c	s@if (nr_reclaimed && !is_costly(req->order))@if (nr_reclaimed)@	mainline costly resets counter
badness.c	s@return a->pid > b->pid;@return a->pid < b->pid;@	pid tie-break
badness.c	s@return a->start_time > b->start_time;@return a->start_time < b->start_time;@	start-time tie-break
badness.c	s@return a_mem > b_mem;@return a_mem < b_mem;@	memory tie-break
badness.c	s@adj \*= (long)(totalpages / 1000);@adj *= (long)(totalpages / 100);@	adj scale
badness.c	s@if (t->oom_score_adj <= OOM_SCORE_ADJ_MIN)@if (t->oom_score_adj < OOM_SCORE_ADJ_MIN)@	adj -1000 killable
badness.c	s@\t\treturn 3;@\t\treturn 1;@	a victim exiting kept as a candidate
badness.c	s@return ca > cb;@return ca < cb;@	kept classes in reverse
badness.c	s@if (ca == 2)@if (ca == 1)@	candidates kept by pid
badness.c	s@return t->flags \& OOM_TASK_VFORK ? 1 : 0;@return t->flags \& OOM_TASK_VFORK ? 3 : 0;@	vfork children kept before candidates
badness.c	s@st->floor = tasks\[keep - 1\];@st->floor = tasks[0];@	floor at the best kept
badness.c	s@if (st->has_floor \&\& !oom_task_keep_before@if (st->has_floor \&\& oom_task_keep_before@	floor test inverted
badness.c	s@st->ranked_out_pages += t->rss_pages + t->swap_pages;@st->ranked_out_pages += t->rss_pages;@	ranked-out swap not counted
badness.c	s@return nr < keep ? nr : keep;@return nr;@	keep count ignored
badness.c	s@if (l < n \&\& oom_task_keep_before@if (l + 1 < n \&\& oom_task_keep_before@	heap left child missed at the end
progress.h	s@define PROGRESS_SPAN_PAGES\( *\)256@define PROGRESS_SPAN_PAGES\1255@	span minimum 255
progress.h	s@define PROGRESS_SPAN_PAGES\( *\)256@define PROGRESS_SPAN_PAGES\1257@	span minimum 257
progress.h	s@define PROGRESS_THRASH_SHARE_DIV\( *\)2@define PROGRESS_THRASH_SHARE_DIV\13@	thrash share a third
progress.h	s@define PROGRESS_CLEAN_SHARE_DIV\( *\)8@define PROGRESS_CLEAN_SHARE_DIV\17@	clean share a seventh
progress.h	s@define PROGRESS_STALL_BOUND_PERMILLE 600@define PROGRESS_STALL_BOUND_PERMILLE 599@	default stall bound 599
progress.h	s@define PROGRESS_STALL_BOUND_PERMILLE 600@define PROGRESS_STALL_BOUND_PERMILLE 601@	default stall bound 601
progress.h	s@define PROGRESS_REFAULT_MIN_PAGES\( *\)256@define PROGRESS_REFAULT_MIN_PAGES\1255@	default refault floor 255
progress.h	s@define PROGRESS_REFAULT_MIN_PAGES\( *\)256@define PROGRESS_REFAULT_MIN_PAGES\1257@	default refault floor 257
progress.c	s@if (s->parked)@if (0)@	parked rule dropped
progress.c	s@s->window_io_stall_usec \* PROGRESS_IO_SHARE_DIV >= s->interval_usec;@s->window_io_stall_usec * PROGRESS_IO_SHARE_DIV > s->interval_usec;@	reads waited for half made over half
progress.c	s@(rate \* 2 < floor \&\& !waited)@(rate * 2 < floor)@	slow disk's clean rate ignores the wait
progress.c	s@(rate >= floor || waited)@(rate >= floor)@	slow disk's thrash needs the rate floor
progress.c	s@r.reason = "tasks parked under_oom";@r.reason = "tasks parked under_oom"; r.is_round = false;@	parked not a round
progress.c	s@s->refaulted_pages < p->refault_min_pages \&\&@s->refaulted_pages <= p->refault_min_pages \&\&@	refault floor < made <=
progress.c	s@!s->stall_events && @@	stalled allocations not a round
progress.c	s@!s->stall_events && s->refaulted_pages@!s->stall_events || s->refaulted_pages@	not-a-round test && made ||
progress.c	s@reclaimed = s->has_reclaimed ? s->reclaimed_pages : 0;@reclaimed = s->reclaimed_pages;@	v1 uses the reclaim figure
progress.c	s@r.reclaimed_pages = reclaimed;@@	reclaim figure not reported
progress.c	s@reclaimed > s->refaulted_pages ? reclaimed - s->refaulted_pages : 0;@reclaimed;@	refaults not taken off
progress.c	s@reclaimed > s->refaulted_pages ? reclaimed - s->refaulted_pages : 0;@reclaimed - s->refaulted_pages;@	net not floored at 0
progress.c	s@s->has_stall_usec && @@	unmeasured stall used
progress.c	s@stalled = stall_over_bound(s, p) \&\& !readahead_reclaim(s, p);@stalled = stall_over_bound(s, p);@	read-ahead room stall counted
progress.c	s@s->stall_usec \* 1000 > s->interval_usec \* p->stall_bound_permille@s->stall_usec * 1000 >= s->interval_usec * p->stall_bound_permille@	stall bound off by one
progress.c	s@small_room(s, p) \&\& s->has_demand \&\&@small_room(s, p) \&\&@	read-ahead room without demand
progress.c	s@if (s->file_pages < p->readahead_pages ||@if (s->file_pages <= p->readahead_pages ||@	one-window room bound off by one
progress.c	s@if (s->file_pages < p->readahead_pages || !read)@if (!read)@	one-window room not held
progress.c	s@s->recent_demand_grown_pages < s->span_read_pages@s->recent_demand_grown_pages <= s->span_read_pages@	read-ahead room demand bound off by one
progress.c	s@s->interval_usec &&@1 \&\&@	empty interval not guarded
progress.c	s@s->stall_usec \* 1000 >@s->stall_usec * 1000 >=@	stall bound > made >=
progress.c	s@s->stall_usec \* 1000 >@s->stall_usec * 100 >@	stall bound read as percent
progress.c	s@s->interval_usec \* p->stall_bound_permille@s->interval_usec * PROGRESS_STALL_BOUND_PERMILLE@	stall bound param ignored
progress.c	s@r.progress = r.net_reclaimed > 0;@r.progress = reclaimed > 0;@	gross reclaim is progress
progress.c	s@s->span_read_pages > s->span_refaulted_pages ? s->span_read_pages@s->span_read_pages > 0 ? s->span_read_pages@	uncounted reads not refaults
progress.c	s@uint64_t span = s->span_usec > 1000000 ? s->span_usec : 1000000;@uint64_t span = s->span_usec;@	short span not 1 s
progress.c	s@uint64_t floor = p->refault_min_pages \* span;@uint64_t floor = PROGRESS_REFAULT_MIN_PAGES * span;@	rate floor param ignored
progress.c	s@if (read < PROGRESS_SPAN_PAGES ||@if (read <= PROGRESS_SPAN_PAGES ||@	span minimum < made <=
progress.c	s@s->span_refaulted_pages \* PROGRESS_CLEAN_SHARE_DIV < read ||@s->span_refaulted_pages * PROGRESS_CLEAN_SHARE_DIV <= read ||@	clean bound < made <=
progress.c	s@(rate \* 2 < floor \&\& !waited)@(rate < floor \&\& !waited)@	half floor made whole
progress.c	s@s->span_refaulted_pages \* PROGRESS_THRASH_SHARE_DIV >= read \&\& (rate@s->span_refaulted_pages * PROGRESS_THRASH_SHARE_DIV > read \&\& (rate@	thrash bound >= made >
progress.c	s@(rate >= floor || waited)@(rate > floor || waited)@	rate floor >= made >
progress.c	s@if (s->file_pages < p->readahead_pages || !read)@if (s->file_pages < p->readahead_pages)@	no read-ahead window yet counted
progress.c	s@(!s->long_read_pages || s->long_refaulted_pages@(s->long_refaulted_pages@	no long share yet counted
progress.c	s@ \&\& (rate >= floor || waited)) {@) {@	rate floor dropped
progress.c	s@(r.thrash == THRASH_NONE || r.thrash == THRASH_CHEAP) \&\& !stuck@(r.thrash != THRASH_YES) \&\& !stuck@	mixed span not a round
progress.c	s@(r.thrash == THRASH_NONE || r.thrash == THRASH_CHEAP) \&\& !stuck@(r.thrash == THRASH_NONE) \&\& !stuck@	cheap swap-ins make a round
progress.c	s@if (swapins_cheap(s))@if (0)@	cheap swap-ins judged thrashing
progress.c	s@s->span_refaulted_anon_pages \* 2 >= s->span_refaulted_pages@s->span_refaulted_anon_pages * 2 > s->span_refaulted_pages@	anon share bound off by one
progress.c	s@s->window_io_stall_usec \* PROGRESS_IO_SHARE_DIV < s->interval_usec@s->window_io_stall_usec * PROGRESS_IO_SHARE_DIV <= s->interval_usec@	window I/O bound off by one
progress.c	s@return s->has_stall_usec \&\& s->has_window_io@return s->has_window_io@	cheap swap-ins judged without PSI memory
progress.c	s@s->has_stall_usec \&\& s->has_window_io \&\& @s->has_stall_usec \&\& @	cheap swap-ins with I/O unmeasured
progress.c	s@if (r.thrash == THRASH_YES) {@if (0) {@	thrash rule dropped
progress.c	s@if (stalled \&\& stall_own_reclaim(s, p)) {@if (0) {@	reclaim's own stall counted
progress.c	s@return p->cpu_stall_bound_permille \&\& s->has_reclaimed@return s->has_reclaimed@	cpu bound 0 not off
progress.c	s@s->has_reclaimed \&\& s->has_cpu_stall \&\&@s->has_cpu_stall \&\&@	reclaim's own stall without reclaim counted
progress.c	s@s->has_cpu_stall \&\&$@1 \&\&@	unmeasured cpu stall used
progress.c	s@s->interval_usec \&\& s->has_window_io \&\&$@s->interval_usec \&\&@	reclaim's own stall with I/O unmeasured
progress.c	s@PROGRESS_IO_SHARE_DIV \* s->window_io_stall_usec < s->interval_usec@PROGRESS_IO_SHARE_DIV * s->window_io_stall_usec <= s->interval_usec@	reclaim's own stall: I/O bound off by one
progress.c	s@s->refaulted_pages \* PROGRESS_CLEAN_SHARE_DIV < s->reclaimed_pages \&\&@1 \&\&@	reclaim's own stall though undone
progress.c	s@s->cpu_stall_usec \* 1000 <=@s->cpu_stall_usec * 1000 <@	cpu bound <= made <
progress.c	s@s->cpu_span_usec \* p->cpu_stall_bound_permille@s->cpu_span_usec * PROGRESS_CPU_STALL_BOUND_PERMILLE@	cpu bound param ignored
progress.c	s@s->cpu_span_usec \* p->cpu_stall_bound_permille@s->interval_usec * p->cpu_stall_bound_permille@	cpu stall over the window, not its span
progress.h	s@define PROGRESS_CPU_STALL_BOUND_PERMILLE 900@define PROGRESS_CPU_STALL_BOUND_PERMILLE 899@	default cpu bound 899
progress.c	s@(r.thrash == THRASH_MIXED || r.thrash == THRASH_STALE ||@(r.thrash == THRASH_STALE ||@	mixed hold dropped
progress.c	s@(r.thrash == THRASH_MIXED || r.thrash == THRASH_STALE ||@(r.thrash == THRASH_MIXED ||@	stale hold dropped
progress.c	s@return THRASH_STALE;@return THRASH_YES;@	stale span judged thrashing
progress.c	s@s->silence_usec >= PROGRESS_SILENCE_MIN_USEC@s->silence_usec > PROGRESS_SILENCE_MIN_USEC@	silence bound off by one
progress.c	s@PROGRESS_IO_SHARE_DIV < s->silence_usec@PROGRESS_IO_SHARE_DIV <= s->silence_usec@	silence I/O bound off by one
progress.c	s@return s->has_silence_io \&\& @return @	unmeasured silence judged stale
progress.c	s@return THRASH_WRITEBACK;@return THRASH_YES;@	writer's churn judged thrashing
progress.c	s@return written >= refaulted ||@return written > refaulted ||@	written bound off by one
progress.c	s@written \* PROGRESS_WRITER_SHARE_DIV >= refaulted@written * PROGRESS_WRITER_SHARE_DIV > refaulted@	slow writer bound off by one
progress.c	s@(!s->counts_writes || written \* PROGRESS_WRITER_SHARE_DIV >= refaulted)@(!s->counts_writes)@	a slow writer's churn judged thrashing
progress.c	s@(!s->counts_writes || written \* PROGRESS_WRITER_SHARE_DIV >= refaulted)@(1)@	the dirty gauge read beside writers that do not write
progress.c	s@PROGRESS_WRITEBACK_SHARE_DIV >= s->span_file_pages@PROGRESS_WRITEBACK_SHARE_DIV > s->span_file_pages@	writeback gauge bound off by one
progress.c	s@r.net_reclaimed = 0;@@	thrash keeps net reclaim
progress.c	s@return readahead_verdict(s, p, read);@return THRASH_YES;@	read-ahead rule dropped
progress.c	s@s->file_pages < windows \* p->readahead_pages@s->file_pages <= windows * p->readahead_pages@	read-ahead room bound off by one
progress.c	s@room_under(s, p, PROGRESS_RA_WIDE_WINDOWS)@room_under(s, p, PROGRESS_RA_ROOM_WINDOWS)@	read-ahead window span only in the smallest rooms
progress.h	s@define PROGRESS_RA_WIDE_WINDOWS   5@define PROGRESS_RA_WIDE_WINDOWS   4@	read-ahead window span rooms one window fewer
progress.c	s@s->ra_span_refaulted_pages \* 1000 <@s->ra_span_refaulted_pages * 1000 <=@	window span share bound off by one
progress.c	s@s->ra_span_refaulted_pages \* 1000 < read@s->span_refaulted_pages * 1000 < read@	window span's refaults taken from the span
progress.c	s@if (small_room(s, p) \&\&@if (1 \&\&@	long share asked in every read-ahead room
progress.c	s@? THRASH_PENDING@? THRASH_READAHEAD@	a loop's first window of rereads held, not pending
progress.c	s@: THRASH_READAHEAD;@: THRASH_PENDING;@	a stream's fresh span pending
progress.c	s@s->span_refaulted_pages \* 1000 >= span_read@s->span_refaulted_pages * 1000 > span_read@	pending span bound off by one
progress.c	s@^\([\t ]*\)!small_room(s, p)$@\11@	pending in rooms under three windows too
progress.c	s@\t\t\t r.thrash == THRASH_PENDING)) {@\t\t\t 0)) {@	pending not held
progress.c	s@s->long_refaulted_pages \* 1000 <@s->long_refaulted_pages * 1000 <=@	long share bound off by one
progress.c	s@(s->is_group \&\& !s->span_stall_events \&\& !s->at_limit)@0@	a group's refaults judged without its stalls
progress.c	s@(s->is_group \&\& !s->span_stall_events \&\& !s->at_limit)@(!s->span_stall_events \&\& !s->at_limit)@	the machine's refaults need stalls too
progress.c	s@ \&\& !s->at_limit)@)@	a group's refaults that filled it judged without stalls
progress.c	s@if (s->free_plenty) {@if (0) {@	a machine with plenty free judged
progress.c	s@ \&\& !stuck_in_reclaim(s, p)) {@) {@	a machine stuck in reclaim not a round
progress.c	s@return !s->is_group \&\& s->has_demand@return s->has_demand@	a group's stall without events a round
progress.c	s@s->recent_demand_grown_pages >= PROGRESS_STUCK_DEMAND_PAGES \&\&@@	stuck in reclaim with anon flat
progress.c	s@(!stalled || (r.thrash == THRASH_WRITEBACK \&\& demand_flat(s)))@(1)@	holds stand against PSI
progress.c	s@(!stalled || (r.thrash == THRASH_WRITEBACK \&\& demand_flat(s)))@(!stalled)@	a writer's churn yields to PSI
progress.c	s@(r.thrash == THRASH_WRITEBACK \&\& demand_flat(s))@(demand_flat(s))@	every hold stands where demand is flat
progress.c	s@recent_demand_grown_pages \* PROGRESS_DEMAND_SHARE_DIV < @recent_demand_grown_pages * PROGRESS_DEMAND_SHARE_DIV <= @	demand bound off by one
progress.c	s@return s->has_demand \&\&@return@	unread demand judged flat
progress.c	s@if (!r.progress \&\& s->refaulted_pages >= p->refault_min_pages \&\& writer_churns(s)) {@if (0) {@	reclaim undone beside a writer counted
progress.c	s@if (!r.progress \&\& s->refaulted_pages >= p->refault_min_pages \&\& @if (s->refaulted_pages >= p->refault_min_pages \&\& @	reclaim that stayed beside a writer held
progress.c	s@s->refaulted_pages >= p->refault_min_pages \&\& writer_churns(s)@writer_churns(s)@	no refault floor for a writer's hold in rule 6
progress.c	s@s->refaulted_pages >= p->refault_min_pages \&\& writer_churns(s)@s->refaulted_pages > p->refault_min_pages \&\& writer_churns(s)@	rule 6 refault floor off by one
progress.c	s@memory_pages + d_read) + d_ref;@memory_pages + d_read) * 0 + ls->refaulted + d_ref;@	long share never forgets refaults
progress.c	s@if (d_ref > d_read)@if (0)@	long share: refaults not reads
progress.c	s@r.hold = true;@r.hold = false;@	hold not reported
progress.c	s@r.progress = true;@r.progress = false;@	v1 clean round no progress
progress.c	s@r.net_reclaimed = 1; /\* the rule@r.net_reclaimed = 0; /* the rule@	v1 net not reported
progress.c	s@r.progress ? "reclaim stayed" : "reclaim undone by refaults"@r.progress ? "reclaim undone by refaults" : "reclaim stayed"@	reasons swapped
EOF_M
[ "$missed" -eq 0 ] || exit 1
