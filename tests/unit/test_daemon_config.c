// SPDX-License-Identifier: GPL-2.0-only
/* Settings: the INI file through libinih, the options that win over it, and the errors a bad
 * file or option gives (file:line and the reason). Also the log's escaping of process names. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/options.h"

static char path[64];

static void write_conf(const char *text)
{
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/oomguard-test-conf-%d.ini", getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int build(struct config *c, char *err, size_t errsize, int argc, char **argv)
{
	return options_parse(c, argc, argv, err, errsize);
}

static void test_file_then_options(void **state)
{
	struct config c;
	char err[256] = "";
	char *argv[] = {"run", "--config", path, "--interval", "250", "--cgroup", "/b", NULL};
	char *argv_file_only[] = {"run", "--config", path, NULL};

	(void)state;
	write_conf("[oomguard]\ninterval_msec = 500\ncgroup = /a\ncgroup = /c\nprotect = sshd\n"
		   "dry_run = yes\nreap = no\nprefer_regex = ^(chrome|java)$\n");
	assert_int_equal(build(&c, err, sizeof(err), 3, argv_file_only), 0);
	assert_int_equal(c.interval_msec, 500);
	assert_int_equal(c.nr_cgroups, 2);
	assert_string_equal(c.cgroups[1], "/c");
	assert_true(c.dry_run);
	assert_false(c.reap);
	assert_int_equal(c.nr_protect, 1);
	assert_int_equal(c.nr_rules, 1);
	assert_true(c.rules[0].has_re);
	assert_string_equal(c.rules[0].key, "prefer_regex");
	config_release(&c);

	assert_int_equal(build(&c, err, sizeof(err), 7, argv), 0);
	assert_int_equal(c.interval_msec, 250); /* the option wins */
	assert_int_equal(c.nr_cgroups, 1);      /* and replaces the file's list */
	assert_string_equal(c.cgroups[0], "/b");
	assert_true(c.dry_run); /* what the options do not say comes from the file */
	config_release(&c);
	unlink(path);
}

struct bad_conf {
	const char *text;
	const char *want; /* substring of the error */
};

static const struct bad_conf bad_confs[] = {
    {"interval_msec = 5\n", ":1: bad value '5' for interval_msec"},
    {"[oomguard]\nfoo = 1\n", ":2: unknown key 'foo'"},
    {"[other]\ninterval_msec = 100\n", ":2: unknown section [other]"},
    {"cgroup = relative/path\n", "bad value 'relative/path' for cgroup"},
    {"dry_run = maybe\n", "bad value 'maybe' for dry_run"},
    {"prefer_regex = (\n", "bad prefer_regex"},
    {"this is not ini\n", ":1: syntax error"},
};

static void test_bad_files(void **state)
{
	char *argv[] = {"run", "--config", path, NULL};

	(void)state;
	for (size_t i = 0; i < sizeof(bad_confs) / sizeof(bad_confs[0]); i++) {
		struct config c;
		char err[256] = "";

		write_conf(bad_confs[i].text);
		if (build(&c, err, sizeof(err), 3, argv) != -EINVAL ||
		    !strstr(err, bad_confs[i].want))
			fail_msg("'%s': error '%s', want '%s'", bad_confs[i].text, err,
				 bad_confs[i].want);
	}
	unlink(path);
}

static void test_bad_options(void **state)
{
	struct config c;
	char err[256];
	char *a1[] = {"run", "--interval", "x", NULL};
	char *a2[] = {"run", "--bogus", NULL};
	char *a3[] = {"run", "extra", NULL};
	char *a4[] = {"run", "--config", "/nonexistent/oomguard.conf", NULL};

	(void)state;
	assert_int_equal(build(&c, err, sizeof(err), 3, a1), -EINVAL);
	assert_non_null(strstr(err, "interval_msec"));
	assert_int_equal(build(&c, err, sizeof(err), 2, a2), -EINVAL);
	assert_int_equal(build(&c, err, sizeof(err), 2, a3), -EINVAL);
	assert_int_equal(build(&c, err, sizeof(err), 3, a4), -EINVAL);
	assert_non_null(strstr(err, "/nonexistent/oomguard.conf"));
}

/* --help is no error; the usage text lists every option the parser takes, each of them taken. */
static void test_help_from_the_table(void **state)
{
	static const char *const takes[][2] = {
	    {"--config", "/dev/null"}, {"--cgroup", "/x"},        {"--machine", NULL},
	    {"--no-machine", NULL},    {"--interval", "100"},    {"--dry-run", NULL},
	    {"--no-reap", NULL},       {"--oom-kill-disable", NULL}, {"--reserve-permille", "10"},
	    {"--stall-bound-permille", "500"}, {"--refault-min-pages", "64"}, {"--protect", "sshd"},
	    {"--prefer", "x"},         {"--avoid", "y"},          {"--prefer-cgroup", "/a"},
	    {"--avoid-cgroup", "/b"},  {"--log-level", "debug"},  {"--root", "/"},
	    {"--json", NULL}};
	char usage[4096] = "", err[256];
	struct config c;
	char *help[] = {"run", "--help", NULL};
	FILE *f = fmemopen(usage, sizeof(usage) - 1, "w");

	(void)state;
	assert_non_null(f);
	options_usage(f, "run");
	fclose(f);
	assert_int_equal(build(&c, err, sizeof(err), 2, help), OPTIONS_HELP);
	for (size_t i = 0; i < sizeof(takes) / sizeof(takes[0]); i++) {
		char *argv[] = {"run", (char *)takes[i][0], (char *)takes[i][1], NULL};
		char word[64];

		snprintf(word, sizeof(word), "  %s", takes[i][0]);
		if (!strstr(usage, word))
			fail_msg("%s is taken but not in the usage text", takes[i][0]);
		if (build(&c, err, sizeof(err), takes[i][1] ? 3 : 2, argv) != 0)
			fail_msg("%s is in the usage text but refused: %s", takes[i][0], err);
		config_release(&c);
	}
}

struct esc_case {
	const char *in, *out;
};

static const struct esc_case esc_cases[] = {
    {"bash", "bash"},
    {"a b", "a\\x20b"},
    {"x\ny", "x\\x0ay"},
    {"q\"\\", "q\\x22\\x5c"},
    {"\x1b[31mred", "\\x1b[31mred"},
    {"caf\xc3\xa9", "caf\\xc3\\xa9"},
};

static void test_escape_comm(void **state)
{
	char out[ESCAPED_COMM_LEN];

	(void)state;
	for (size_t i = 0; i < sizeof(esc_cases) / sizeof(esc_cases[0]); i++) {
		escape_comm(esc_cases[i].in, out, sizeof(out));
		assert_string_equal(out, esc_cases[i].out);
	}
	escape_comm("\n\n\n\n", out, 9); /* truncates on whole escapes */
	assert_string_equal(out, "\\x0a\\x0a");
}

static void test_log_prefix(void **state)
{
	int fds[2], saved;
	char buf[256];
	ssize_t n;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	saved = dup(2);
	dup2(fds[1], 2);
	log_set_journal(1);
	log_msg(LOG_PRIO_WARNING, "kill pid=%d", 42);
	log_set_journal(0);
	log_msg(LOG_PRIO_NOTICE, "plain");
	log_msg(LOG_PRIO_DEBUG, "hidden at the default level");
	dup2(saved, 2);
	close(saved);
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, "<4>kill pid=42\noomguard: notice: plain\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_file_then_options), cmocka_unit_test(test_bad_files),
	    cmocka_unit_test(test_bad_options),       cmocka_unit_test(test_help_from_the_table),
	    cmocka_unit_test(test_escape_comm),
	    cmocka_unit_test(test_log_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
