// SPDX-License-Identifier: GPL-2.0-only
/* Page states and the lists that hold them: intrusive, index-linked, O(1) per operation. A page
 * moves between free, anon, kernel, file clean/dirty/writeback; the counters follow it. */
#include "sim/model.h"

void plist_init(struct plist *l)
{
	l->head = l->tail = NO_PFN;
	l->count = 0;
}

/* Link A and link B differ only in the fields they use; two copies keep each one plain. */
void la_add_tail(struct sim *s, struct plist *l, int32_t pfn)
{
	struct page *p = &s->pages[pfn];

	p->next = NO_PFN;
	p->prev = l->tail;
	if (l->tail != NO_PFN)
		s->pages[l->tail].next = pfn;
	else
		l->head = pfn;
	l->tail = pfn;
	l->count++;
}

void la_del(struct sim *s, struct plist *l, int32_t pfn)
{
	struct page *p = &s->pages[pfn];

	if (p->prev != NO_PFN)
		s->pages[p->prev].next = p->next;
	else
		l->head = p->next;
	if (p->next != NO_PFN)
		s->pages[p->next].prev = p->prev;
	else
		l->tail = p->prev;
	p->next = p->prev = NO_PFN;
	l->count--;
}

void lb_add_tail(struct sim *s, struct plist *l, int32_t pfn)
{
	struct page *p = &s->pages[pfn];

	p->onext = NO_PFN;
	p->oprev = l->tail;
	if (l->tail != NO_PFN)
		s->pages[l->tail].onext = pfn;
	else
		l->head = pfn;
	l->tail = pfn;
	l->count++;
}

void lb_del(struct sim *s, struct plist *l, int32_t pfn)
{
	struct page *p = &s->pages[pfn];

	if (p->oprev != NO_PFN)
		s->pages[p->oprev].onext = p->onext;
	else
		l->head = p->onext;
	if (p->onext != NO_PFN)
		s->pages[p->onext].oprev = p->oprev;
	else
		l->tail = p->oprev;
	p->onext = p->oprev = NO_PFN;
	l->count--;
}

/* Puts @new_pfn where @old_pfn was in a link A list (migration keeps list order). */
void la_replace(struct sim *s, struct plist *l, int32_t old_pfn, int32_t new_pfn)
{
	struct page *o = &s->pages[old_pfn], *n = &s->pages[new_pfn];

	n->next = o->next;
	n->prev = o->prev;
	if (o->prev != NO_PFN)
		s->pages[o->prev].next = new_pfn;
	else
		l->head = new_pfn;
	if (o->next != NO_PFN)
		s->pages[o->next].prev = new_pfn;
	else
		l->tail = new_pfn;
	o->next = o->prev = NO_PFN;
}

void lb_replace(struct sim *s, struct plist *l, int32_t old_pfn, int32_t new_pfn)
{
	struct page *o = &s->pages[old_pfn], *n = &s->pages[new_pfn];

	n->onext = o->onext;
	n->oprev = o->oprev;
	if (o->oprev != NO_PFN)
		s->pages[o->oprev].onext = new_pfn;
	else
		l->head = new_pfn;
	if (o->onext != NO_PFN)
		s->pages[o->onext].oprev = new_pfn;
	else
		l->tail = new_pfn;
	o->onext = o->oprev = NO_PFN;
}

void page_make_anon(struct sim *s, int32_t pfn, int task)
{
	struct page *p = &s->pages[pfn];
	struct sim_zone *z = &s->zones[p->zone];

	p->state = PS_ANON;
	p->owner = task;
	la_add_tail(s, &z->lists[ZL_ANON], pfn);
	lb_add_tail(s, &s->tasks[task].pages, pfn);
	s->tasks[task].nr_anon++;
}

void page_make_kernel(struct sim *s, int32_t pfn, int task)
{
	struct page *p = &s->pages[pfn];

	p->state = PS_KERNEL;
	p->owner = task;
	s->zones[p->zone].nr_kernel++;
	lb_add_tail(s, &s->tasks[task].pages, pfn);
}

void page_make_file_dirty(struct sim *s, int32_t pfn, int file)
{
	struct page *p = &s->pages[pfn];
	struct sim_zone *z = &s->zones[p->zone];

	p->state = PS_FILE_DIRTY;
	p->owner = file;
	la_add_tail(s, &s->bdev.dirty, pfn);
	lb_add_tail(s, &s->files[file].pages, pfn);
	z->nr_dirty++;
	z->snap.reclaimable_pages++;
	vmstat_lru(s, z, 1);
	z->snap.write_pending++;
}

/* A page of a running binary: on the LRU and counted reclaimable, but referenced on every scan. */
void page_make_file_mapped(struct sim *s, int32_t pfn, int file)
{
	struct page *p = &s->pages[pfn];
	struct sim_zone *z = &s->zones[p->zone];

	p->state = PS_FILE_MAPPED;
	p->owner = file;
	la_add_tail(s, &z->lists[ZL_FILE_MAPPED], pfn);
	lb_add_tail(s, &s->files[file].pages, pfn);
	z->snap.reclaimable_pages++;
	vmstat_lru(s, z, 1);
}

void page_file_start_writeback(struct sim *s, int32_t pfn)
{
	struct page *p = &s->pages[pfn];
	struct sim_zone *z = &s->zones[p->zone];

	la_del(s, &s->bdev.dirty, pfn);
	la_add_tail(s, &s->bdev.writeback, pfn);
	p->state = PS_FILE_WB;
	z->nr_dirty--;
	z->nr_writeback++;
}

/* Writeback finished: the page is clean (or freed, if its file was removed meanwhile). */
void page_file_end_writeback(struct sim *s, int32_t pfn)
{
	struct page *p = &s->pages[pfn];
	struct sim_zone *z = &s->zones[p->zone];

	la_del(s, &s->bdev.writeback, pfn);
	z->nr_writeback--;
	z->snap.write_pending--;
	if (p->flags & PGF_ORPHAN) {
		p->flags &= (uint8_t)~PGF_ORPHAN;
		z->snap.reclaimable_pages--;
		vmstat_lru(s, z, -1);
		p->owner = NO_TASK;
		buddy_free(s, pfn, 0);
		return;
	}
	p->state = PS_FILE_CLEAN;
	la_add_tail(s, &z->lists[ZL_FILE_CLEAN], pfn);
}

/* Takes a page out of its lists and counters and gives it back to the buddy allocator. */
void page_release(struct sim *s, int32_t pfn)
{
	struct page *p = &s->pages[pfn];
	struct sim_zone *z = &s->zones[p->zone];

	switch (p->state) {
	case PS_ANON:
		la_del(s, &z->lists[ZL_ANON], pfn);
		lb_del(s, &s->tasks[p->owner].pages, pfn);
		s->tasks[p->owner].nr_anon--;
		break;
	case PS_KERNEL:
		z->nr_kernel--;
		lb_del(s, &s->tasks[p->owner].pages, pfn);
		break;
	case PS_FILE_CLEAN:
	case PS_FILE_MAPPED:
		la_del(s, &z->lists[p->state == PS_FILE_CLEAN ? ZL_FILE_CLEAN : ZL_FILE_MAPPED],
		       pfn);
		lb_del(s, &s->files[p->owner].pages, pfn);
		z->snap.reclaimable_pages--;
		vmstat_lru(s, z, -1);
		break;
	case PS_FILE_DIRTY:
		la_del(s, &s->bdev.dirty, pfn);
		lb_del(s, &s->files[p->owner].pages, pfn);
		z->nr_dirty--;
		z->snap.reclaimable_pages--;
		vmstat_lru(s, z, -1);
		z->snap.write_pending--;
		break;
	default:
		return; /* writeback pages are freed on completion; others are not released here */
	}
	p->owner = NO_TASK;
	buddy_free(s, pfn, 0);
}

/* Frees what a task owns (all of it at exit; only anon when the reaper unmaps it). */
unsigned long task_free_pages(struct sim *s, int task, bool anon_only)
{
	struct sim_task *t = &s->tasks[task];
	unsigned long freed = 0;
	int32_t pfn = t->pages.head;

	while (pfn != NO_PFN) {
		int32_t next = s->pages[pfn].onext;

		if (!anon_only || s->pages[pfn].state == PS_ANON) {
			page_release(s, pfn);
			freed++;
		}
		pfn = next;
	}
	return freed;
}

/* Truncates a removed file: clean and dirty pages are freed, writeback pages when done. */
unsigned long file_remove(struct sim *s, int file)
{
	struct sim_file *f = &s->files[file];
	unsigned long freed = 0;
	int32_t pfn = f->pages.head;

	while (pfn != NO_PFN) {
		int32_t next = s->pages[pfn].onext;

		if (s->pages[pfn].state == PS_FILE_WB) {
			lb_del(s, &f->pages, pfn);
			s->pages[pfn].flags |= PGF_ORPHAN;
			s->pages[pfn].owner = NO_TASK;
		} else {
			page_release(s, pfn);
			freed++;
		}
		pfn = next;
	}
	return freed;
}

unsigned long task_rss_pages(const struct sim *s, int task)
{
	return s->tasks[task].nr_anon;
}
