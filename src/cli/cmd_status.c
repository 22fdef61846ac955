// SPDX-License-Identifier: GPL-2.0-only
/* oomguard status: read every scope twice, one interval apart, and print the inputs and the
 * decision the next round would take, readable or as JSON. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "daemon/daemon.h"

/* Start-up sized, zeroed, never on the heap. */
static struct daemon the_daemon;

void json_string(const char *in, char *out, size_t size)
{
	size_t len = 0;

	for (; *in && len + 7 < size; in++) {
		unsigned char c = (unsigned char)*in;

		if (c == '"' || c == '\\') {
			out[len++] = '\\';
			out[len++] = (char)c;
		} else if (c < 0x20) {
			len += (size_t)snprintf(out + len, size - len, "\\u%04x", c);
		} else {
			out[len++] = (char)c;
		}
	}
	out[len] = '\0';
}

static void print_scope(const struct scope *s, FILE *out, bool json)
{
	const struct zone_snapshot *z = &s->cur.zones[0];
	const char *verdict = s->absent     ? "absent"
			      : s->read_err ? "unreadable"
			      : !s->decided ? "unknown"
			      : s->oom      ? "oom"
					    : "retry";

	if (s->absent && !json) {
		fprintf(out, "%s (%s)\n  does not exist: the daemon waits for it\n", s->name,
			scope_kind_name(s->kind));
		return;
	}
	if (s->read_err && !json) {
		fprintf(out, "%s (%s)\n  cannot be read (%s): not watched\n", s->name,
			scope_kind_name(s->kind), strerror(-s->read_err));
		return;
	}

	if (json) {
		char name[2 * CONFIG_PATH_MAX];

		json_string(s->name, name, sizeof(name));
		fprintf(
		    out,
		    "    {\"scope\": \"%s\", \"kind\": \"%s\", \"limit_bytes\": %llu, "
		    "\"usage_bytes\": %llu, \"free_pages\": %lu, \"min_pages\": %lu, "
		    "\"reclaimable_pages\": %lu, \"parked\": %s, \"stall_events\": %llu, "
		    "\"stall_usec\": %llu, \"reclaimed_pages\": %llu, \"refaulted_pages\": %llu, "
		    "\"round\": %s, \"progress\": %s, \"round_reason\": \"%s\", "
		    "\"no_progress_loops\": %d, \"verdict\": \"%s\", \"reason\": \"%s\"",
		    name, scope_kind_name(s->kind), (unsigned long long)s->cur.limit_bytes,
		    (unsigned long long)s->cur.usage_bytes, z->free_pages, z->watermark[WMARK_MIN],
		    z->reclaimable_pages, s->cur.parked ? "true" : "false",
		    (unsigned long long)s->sample.stall_events,
		    (unsigned long long)s->sample.stall_usec,
		    (unsigned long long)s->round.reclaimed_pages,
		    (unsigned long long)s->sample.refaulted_pages,
		    s->round.is_round ? "true" : "false", s->round.progress ? "true" : "false",
		    s->round.reason ? s->round.reason : "", s->decision.no_progress_loops, verdict,
		    s->decision.reason ? s->decision.reason : "");
		fprintf(out,
			", \"kill_unit\": \"%s\", \"term_grace_msec\": %u, "
			"\"reserve_permille\": %u",
			config_kill_unit_name(s->set.kill_unit), s->set.term_grace_msec,
			s->set.reserve_permille);
		return;
	}
	fprintf(out, "%s (%s)\n", s->name, scope_kind_name(s->kind));
	fprintf(
	    out, "  limit %llu MiB, usage %llu MiB, free %lu pages, min %lu, reclaimable %lu%s\n",
	    (unsigned long long)(s->cur.limit_bytes >> 20),
	    (unsigned long long)(s->cur.usage_bytes >> 20), z->free_pages, z->watermark[WMARK_MIN],
	    z->reclaimable_pages, s->cur.parked ? ", tasks parked under_oom" : "");
	fprintf(
	    out,
	    "  last %llu ms: stalls %llu, stall %llu us, reclaimed %llu, refaulted %llu pages\n",
	    (unsigned long long)(s->sample.interval_usec / 1000),
	    (unsigned long long)s->sample.stall_events, (unsigned long long)s->sample.stall_usec,
	    (unsigned long long)s->round.reclaimed_pages,
	    (unsigned long long)s->sample.refaulted_pages);
	/* the scope's settings: the global keys, or its [scope] section's */
	fprintf(out, "  kills: %s%s", config_kill_unit_name(s->set.kill_unit),
		s->set.term_grace_msec ? ", SIGTERM first" : ", SIGKILL at once");
	if (s->set.term_grace_msec)
		fprintf(out, " (SIGKILL %u ms later)", s->set.term_grace_msec);
	if (s->kind != SCOPE_MACHINE) /* the machine's min is its zones' */
		fprintf(out, "; reserve %u per mille of the limit", s->set.reserve_permille);
	fputc('\n', out);
	fprintf(out, "  round: %s (%s); next decision: %s (%s), no-progress rounds %d\n",
		s->round.is_round ? (s->round.progress ? "progress" : "no progress") : "none",
		s->round.reason ? s->round.reason : "-", verdict,
		s->decision.reason ? s->decision.reason : "-", s->decision.no_progress_loops);
}

/* Each scope read twice, one interval apart, then decided and printed. */
static int status(struct daemon *d, FILE *out, bool json)
{
	bool unreadable = false;
	struct timespec ts = {0, (long)d->cfg.interval_msec * 1000000L};
	char err[512];
	int r;

	d->self_pid = getpid(); /* this command is no candidate */
	r = daemon_setup_scopes(d, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "oomguard status: %s\n", err);
		return EXIT_CONFIG;
	}
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < d->nr_scopes; i++) {
			if (d->scopes[i].absent)
				continue;
			r = scope_acquire(&d->scopes[i], d->scratch, now_usec());
			if (r < 0 && !d->scopes[i].read_err)
				fprintf(stderr, "oomguard status: cannot read %s: %s\n",
					d->scopes[i].name, strerror(-r));
			if (r < 0)
				d->scopes[i].read_err = r;
		}
		if (!pass)
			nanosleep(&ts, NULL);
	}
	if (json)
		fprintf(out, "{\n  \"scopes\": [\n");
	for (size_t i = 0; i < d->nr_scopes; i++) {
		if (!d->scopes[i].absent && !d->scopes[i].read_err)
			scope_decide(&d->scopes[i], &d->cfg);
		if (d->scopes[i].read_err || d->scopes[i].absent)
			unreadable = true; /* shown, and said by the exit code: nothing to judge */
		print_scope(&d->scopes[i], out, json);
		if (d->cfg.status_tasks && !d->scopes[i].absent && !d->scopes[i].read_err &&
		    status_print_tasks(d, &d->scopes[i], out, json) < 0)
			unreadable = true;
		if (json)
			fprintf(out, "}%s\n", i + 1 == d->nr_scopes ? "" : ",");
	}
	if (json)
		fprintf(out, "  ]\n}\n");
	for (size_t i = 0; i < d->nr_scopes; i++)
		scope_close(&d->scopes[i]);
	tasks_close(&d->tasks);
	config_release(&d->cfg);
	return unreadable ? EXIT_RUNTIME : 0; /* every scope shown, the unreadable ones said */
}

int cmd_status(int argc, char **argv)
{
	int r = cli_build_daemon(&the_daemon, argc, argv, "status");

	if (r)
		return r < 0 ? 0 : r;
	return status(&the_daemon, stdout, the_daemon.cfg.json);
}
