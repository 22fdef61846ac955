/* SPDX-License-Identifier: GPL-2.0-only */
/* Allocation request flags (gfp) and allocator flags (ALLOC_*), with the kernel's names and the
 * meaning they had in 4.3-4.12, the era of the seed patch. Values are our own, not the kernel's. */
#ifndef OOMGUARD_POLICY_GFP_H
#define OOMGUARD_POLICY_GFP_H

typedef unsigned int gfp_t;

/* What the caller allows the allocator to do. */
#define __GFP_HIGH 0x0001u           /* may dip into the min reserve (ALLOC_HIGH) */
#define __GFP_ATOMIC 0x0002u         /* cannot sleep, high priority (ALLOC_HARDER) */
#define __GFP_IO 0x0004u             /* may start physical I/O */
#define __GFP_FS 0x0008u             /* may call into the file system */
#define __GFP_DIRECT_RECLAIM 0x0010u /* may enter direct reclaim */
#define __GFP_KSWAPD_RECLAIM 0x0020u /* may wake kswapd */
#define __GFP_REPEAT 0x0040u         /* try hard for costly orders (4.13+: __GFP_RETRY_MAYFAIL) */
#define __GFP_NOFAIL 0x0080u         /* never fails */
#define __GFP_NORETRY 0x0100u        /* one reclaim round at most, never OOM */
#define __GFP_MOVABLE 0x0200u        /* the page can be migrated by compaction */
#define __GFP_THISNODE 0x0400u       /* no fallback to other nodes */

#define __GFP_RECLAIM (__GFP_DIRECT_RECLAIM | __GFP_KSWAPD_RECLAIM)
#define GFP_ATOMIC (__GFP_HIGH | __GFP_ATOMIC | __GFP_KSWAPD_RECLAIM)
#define GFP_NOIO (__GFP_RECLAIM)
#define GFP_NOFS (__GFP_RECLAIM | __GFP_IO)
#define GFP_KERNEL (__GFP_RECLAIM | __GFP_IO | __GFP_FS)
#define GFP_USER GFP_KERNEL
#define GFP_HIGHUSER_MOVABLE (GFP_USER | __GFP_MOVABLE)

/* How the allocator may use a zone's reserves (mm/internal.h). */
#define ALLOC_WMARK_MIN 0x00u
#define ALLOC_WMARK_LOW 0x01u
#define ALLOC_WMARK_HIGH 0x02u
#define ALLOC_NO_WATERMARKS 0x04u /* TIF_MEMDIE / PF_MEMALLOC: ignore watermarks */
#define ALLOC_WMARK_MASK (ALLOC_NO_WATERMARKS - 1)
#define ALLOC_HARDER 0x10u /* try to alloc harder: min -= min/4, may use highatomic */
#define ALLOC_HIGH 0x20u   /* __GFP_HIGH set: min -= min/2 */
#define ALLOC_CPUSET 0x40u /* check for correct cpuset */
#define ALLOC_CMA 0x80u    /* may allocate from CMA areas */

/* Orders above this are "costly": reclaim is not expected to produce them. */
#define PAGE_ALLOC_COSTLY_ORDER 3

/* gfp_to_alloc_flags() of 4.4-4.12, minus cpuset and NUMA details. */
unsigned int gfp_to_alloc_flags(gfp_t gfp_mask);

#endif
