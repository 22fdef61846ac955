// SPDX-License-Identifier: GPL-2.0-only
/* Settings: one table of keys shared by the INI file and the command line. */
#include "daemon/config.h"

#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/log.h"
#include "policy/progress.h"

#define STR_(x) #x
#define STR(x)  STR_(x)

void config_defaults(struct config *c)
{
	memset(c, 0, sizeof(*c));
	c->interval_msec = CONFIG_DEFAULT_INTERVAL_MSEC;
	c->machine = -1;
	c->reap = true;
	c->reserve_permille = CONFIG_DEFAULT_RESERVE_PERMILLE;
	c->stall_bound_permille = PROGRESS_STALL_BOUND_PERMILLE;
	c->refault_min_pages = PROGRESS_REFAULT_MIN_PAGES;
	c->log_level = LOG_PRIO_INFO;
}

static int parse_bool(const char *v, bool *ret)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "on")) {
		*ret = true;
		return 0;
	}
	if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0") || !strcmp(v, "off")) {
		*ret = false;
		return 0;
	}
	return -EINVAL;
}

static int parse_uint(const char *v, uint64_t lo, uint64_t hi, uint64_t *ret)
{
	char *end;
	unsigned long long x;

	if (*v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	x = strtoull(v, &end, 10);
	if (errno || *end || x < lo || x > hi)
		return -EINVAL;
	*ret = x;
	return 0;
}

static int copy_str(char *dst, size_t size, const char *v)
{
	size_t len = strlen(v);

	if (len >= size)
		return -EINVAL;
	memcpy(dst, v, len + 1);
	return 0;
}

static int parse_level(const char *v, int *ret)
{
	static const struct {
		const char *name;
		int prio;
	} levels[] = {{"error", LOG_PRIO_ERR},
		      {"warning", LOG_PRIO_WARNING},
		      {"notice", LOG_PRIO_NOTICE},
		      {"info", LOG_PRIO_INFO},
		      {"debug", LOG_PRIO_DEBUG}};

	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		if (!strcmp(v, levels[i].name)) {
			*ret = levels[i].prio;
			return 0;
		}
	}
	return -EINVAL;
}

void config_valid(const char *key, char *buf, size_t size)
{
	static const struct {
		const char *key;
		const char *text;
	} valid[] = {
	    {"interval_msec", "a number in " STR(CONFIG_INTERVAL_MSEC_MIN) ".." STR(
				  CONFIG_INTERVAL_MSEC_MAX)},
	    {"cgroup", "an absolute path, at most " STR(CONFIG_PATH_MAX_LEN) " bytes"},
	    {"reserve_permille", "a number in 1.." STR(CONFIG_RESERVE_PERMILLE_MAX)},
	    {"stall_bound_permille", "a number in 1.." STR(CONFIG_STALL_BOUND_PERMILLE_MAX)},
	    {"protect", "a process name, at most " STR(CONFIG_COMM_MAX_LEN) " characters"},
	    {"prefer_regex", "a POSIX extended regex, at most " STR(CONFIG_REGEX_MAX_LEN) " bytes"},
	    {"avoid_regex", "a POSIX extended regex, at most " STR(CONFIG_REGEX_MAX_LEN) " bytes"},
	    {"prefer_cgroup", "a cgroup path, at most " STR(CONFIG_PATH_MAX_LEN) " bytes"},
	    {"avoid_cgroup", "a cgroup path, at most " STR(CONFIG_PATH_MAX_LEN) " bytes"},
	    {"log_level", "error, warning, notice, info, debug"},
	    {"root", "a directory, at most " STR(CONFIG_PATH_MAX_LEN) " bytes"},
	};

	if (!strcmp(key, "refault_min_pages")) {
		snprintf(buf, size, "a number in 0..%llu",
			 (unsigned long long)CONFIG_REFAULT_MIN_PAGES_MAX);
		return;
	}
	for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
		if (!strcmp(key, valid[i].key)) {
			snprintf(buf, size, "%s", valid[i].text);
			return;
		}
	}
	snprintf(buf, size, "yes, true, 1, on, no, false, 0, off"); /* the truth values */
}

int config_set(struct config *c, const char *key, const char *value, char *err, size_t errsize)
{
	return config_set_named(c, key, key, value, err, errsize);
}

int config_set_named(struct config *c, const char *key, const char *name, const char *value,
		     char *err, size_t errsize)
{
	uint64_t u;
	bool b;
	int r = -EINVAL;

	if (!strcmp(key, "interval_msec")) {
		r = parse_uint(value, CONFIG_INTERVAL_MSEC_MIN, CONFIG_INTERVAL_MSEC_MAX, &u);
		if (!r)
			c->interval_msec = (unsigned int)u;
	} else if (!strcmp(key, "cgroup")) {
		if (c->nr_cgroups >= CONFIG_MAX_CGROUPS) {
			snprintf(err, errsize, "%s: more than %d cgroups", name,
				 CONFIG_MAX_CGROUPS);
			return -EINVAL;
		}
		r = value[0] == '/' ? copy_str(c->cgroups[c->nr_cgroups], CONFIG_PATH_MAX, value)
				    : -EINVAL;
		if (!r)
			c->nr_cgroups++;
	} else if (!strcmp(key, "machine")) {
		r = parse_bool(value, &b);
		if (!r)
			c->machine = b;
	} else if (!strcmp(key, "dry_run")) {
		r = parse_bool(value, &c->dry_run);
	} else if (!strcmp(key, "reap")) {
		r = parse_bool(value, &c->reap);
	} else if (!strcmp(key, "oom_kill_disable")) {
		r = parse_bool(value, &c->oom_kill_disable);
	} else if (!strcmp(key, "reserve_permille")) {
		r = parse_uint(value, 1, CONFIG_RESERVE_PERMILLE_MAX, &u);
		if (!r)
			c->reserve_permille = (unsigned int)u;
	} else if (!strcmp(key, "stall_bound_permille")) {
		r = parse_uint(value, 1, CONFIG_STALL_BOUND_PERMILLE_MAX, &u);
		if (!r)
			c->stall_bound_permille = (unsigned int)u;
	} else if (!strcmp(key, "refault_min_pages")) {
		r = parse_uint(value, 0, CONFIG_REFAULT_MIN_PAGES_MAX, &u);
		if (!r)
			c->refault_min_pages = u;
	} else if (!strcmp(key, "protect")) {
		if (c->nr_protect >= CONFIG_MAX_PROTECT) {
			snprintf(err, errsize, "%s: more than %d protected names", name,
				 CONFIG_MAX_PROTECT);
			return -EINVAL;
		}
		r = copy_str(c->protect[c->nr_protect], CONFIG_COMM_LEN, value);
		if (!r)
			c->nr_protect++;
	} else if (!strcmp(key, "prefer_regex")) {
		r = copy_str(c->prefer_regex, sizeof(c->prefer_regex), value);
	} else if (!strcmp(key, "avoid_regex")) {
		r = copy_str(c->avoid_regex, sizeof(c->avoid_regex), value);
	} else if (!strcmp(key, "prefer_cgroup")) {
		r = copy_str(c->prefer_cgroup, sizeof(c->prefer_cgroup), value);
	} else if (!strcmp(key, "avoid_cgroup")) {
		r = copy_str(c->avoid_cgroup, sizeof(c->avoid_cgroup), value);
	} else if (!strcmp(key, "log_level")) {
		r = parse_level(value, &c->log_level);
	} else if (!strcmp(key, "root")) {
		r = copy_str(c->root, sizeof(c->root), value);
	} else {
		snprintf(err, errsize, "unknown key '%s'", key);
		return -EINVAL;
	}
	if (r) {
		char valid[96];

		config_valid(key, valid, sizeof(valid));
		snprintf(err, errsize, "bad value '%s' for %s (valid: %s)", value, name, valid);
	}
	return r;
}

struct ini_ctx {
	struct config *c;
	char *err;
	size_t errsize;
	int failed;
};

static int config_ini_line(void *user, const char *section, const char *name, const char *value)
{
	struct ini_ctx *ctx = user;

	if (ctx->failed)
		return 0;
	if (section[0] && strcmp(section, "oomguard")) {
		snprintf(ctx->err, ctx->errsize, "unknown section [%s]", section);
		ctx->failed = 1;
		return 0;
	}
	if (config_set(ctx->c, name, value, ctx->err, ctx->errsize) < 0) {
		ctx->failed = 1;
		return 0;
	}
	return 1;
}

int config_load_file(struct config *c, const char *path, char *err, size_t errsize)
{
	struct ini_ctx ctx = {c, err, errsize, 0};
	char reason[256] = "";
	FILE *f = fopen(path, "re");
	int line;

	if (!f) {
		snprintf(err, errsize, "%s: %s", path, strerror(errno));
		return -errno;
	}
	ctx.err = reason;
	ctx.errsize = sizeof(reason);
	line = ini_parse_file(f, config_ini_line, &ctx);
	fclose(f);
	if (line != 0) {
		snprintf(err, errsize, "%s:%d: %s", path, line,
			 reason[0] ? reason : "syntax error");
		return -EINVAL;
	}
	return 0;
}

int config_finish(struct config *c, char *err, size_t errsize)
{
	static unsigned int serial;

	c->re_serial = ++serial ? serial : ++serial; /* never 0: an empty cache slot */
	if (c->prefer_regex[0]) {
		if (regcomp(&c->prefer_re, c->prefer_regex, REG_EXTENDED | REG_NOSUB)) {
			snprintf(err, errsize,
				 "bad value '%s' for prefer_regex (--prefer): not a POSIX "
				 "extended regex",
				 c->prefer_regex);
			return -EINVAL;
		}
		c->has_prefer_re = true;
	}
	if (c->avoid_regex[0]) {
		if (regcomp(&c->avoid_re, c->avoid_regex, REG_EXTENDED | REG_NOSUB)) {
			snprintf(err, errsize,
				 "bad value '%s' for avoid_regex (--avoid): not a POSIX "
				 "extended regex",
				 c->avoid_regex);
			config_release(c);
			return -EINVAL;
		}
		c->has_avoid_re = true;
	}
	return 0;
}

void config_release(struct config *c)
{
	if (c->has_prefer_re)
		regfree(&c->prefer_re);
	if (c->has_avoid_re)
		regfree(&c->avoid_re);
	c->has_prefer_re = c->has_avoid_re = false;
}
