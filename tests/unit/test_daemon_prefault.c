// SPDX-License-Identifier: GPL-2.0-only
/* prefault_range() makes every page of a range resident (mincore) without changing its
 * content (untouched, an anonymous mapping has none resident); prefault_stack() the stack
 * below its caller. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "daemon/prefault.h"

#define PAGES 16

static size_t resident(void *p, size_t len)
{
	unsigned char vec[PAGES];
	size_t n = 0;

	assert_int_equal(mincore(p, len, vec), 0);
	for (size_t i = 0; i < len / 4096; i++)
		n += vec[i] & 1;
	return n;
}

static void test_prefault_range(void **state)
{
	size_t len = PAGES * 4096;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)state;
	assert_true(p != MAP_FAILED);
	assert_int_equal(resident(p, len), 0);
	p[5 * 4096 + 7] = 42;
	assert_int_equal(resident(p, len), 1);
	prefault_range(p, len);
	assert_int_equal(resident(p, len), PAGES);
	assert_int_equal(p[5 * 4096 + 7], 42); /* content kept */
	assert_int_equal(p[0], 0);
	munmap(p, len);
}

#define STACK_BYTES (256 * 1024)

static void *touch_stack(void *arg)
{
	(void)arg;
	prefault_stack(PREFAULT_STACK_BYTES);
	return NULL;
}

/*
 * On a fresh thread stack (mapped here, so untouched): what the thread's own start-up touches,
 * and after prefault_stack() at least PREFAULT_STACK_BYTES more.
 */
static void test_prefault_stack(void **state)
{
	char *stack = mmap(NULL, STACK_BYTES, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	unsigned char vec[STACK_BYTES / 4096];
	pthread_attr_t attr;
	pthread_t th;
	size_t n = 0;

	(void)state;
	assert_true(stack != MAP_FAILED);
	assert_int_equal(pthread_attr_init(&attr), 0);
	assert_int_equal(pthread_attr_setstack(&attr, stack, STACK_BYTES), 0);
	assert_int_equal(pthread_create(&th, &attr, touch_stack, NULL), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	pthread_attr_destroy(&attr);
	assert_int_equal(mincore(stack, STACK_BYTES, vec), 0);
	for (size_t i = 0; i < sizeof(vec); i++)
		n += vec[i] & 1;
	assert_true(n >= PREFAULT_STACK_BYTES / 4096);
	munmap(stack, STACK_BYTES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_prefault_range),
	    cmocka_unit_test(test_prefault_stack),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
