/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Writing a process's files into a fixture tree: the tests that edit a copied /proc or build one
 * from nothing. Include after cmocka.h.
 */
#ifndef OOMGUARD_TESTS_PROC_FIXTURE_H
#define OOMGUARD_TESTS_PROC_FIXTURE_H

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Writes @len bytes of @text to @root/proc/@pid/@name (the pid's directory made as needed). */
static inline void proc_fixture_put(const char *root, int pid, const char *name, const char *text,
				    size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/%d", root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/%d/%s", root, pid, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

#endif
