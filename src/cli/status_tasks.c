// SPDX-License-Identifier: GPL-2.0-only
/* oomguard status --tasks: each scope's candidates in the order the daemon would choose them
 * (select_bad_process's rules), and why: badness, oom_score_adj, the rules that matched, the
 * real uid and executable, and why the ones that can never be chosen are not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/match.h"
#include "linux/sys.h"

/* Candidates shown per scope: the victim and those after it, enough to see the order. */
#define STATUS_TASKS_SHOWN 10

struct ranked {
	const struct oom_task *t;
	long points;
};

static int rank_cmp(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;

	if (a->points == OOM_BADNESS_UNKILLABLE || b->points == OOM_BADNESS_UNKILLABLE)
		return (a->points == OOM_BADNESS_UNKILLABLE) - (b->points == OOM_BADNESS_UNKILLABLE);
	return oom_task_better(a->t, a->points, b->t, b->points) ? -1 : 1;
}

/* Why @t can never be chosen (rule 1 of badness.c), or NULL. */
static const char *excluded_why(const struct oom_task *t)
{
	if (t->flags & OOM_TASK_KTHREAD)
		return "kernel thread";
	if (t->flags & OOM_TASK_INIT)
		return "init";
	if (t->flags & OOM_TASK_SELF)
		return "oomguard";
	if (t->flags & OOM_TASK_PROTECTED)
		return "protected";
	if (t->flags & OOM_TASK_NO_MM)
		return "no memory (exiting)";
	if (t->flags & OOM_TASK_VFORK)
		return "its parent's memory (vfork)";
	if (t->flags & OOM_TASK_SKIP)
		return "reaped already";
	if (t->oom_score_adj <= OOM_SCORE_ADJ_MIN)
		return "oom_score_adj -1000";
	return NULL;
}

/* The rules @t matches, "key=value" by ',', with "oomd_omit"/"oomd_avoid" and "protect=NAME". */
static void explain(const struct daemon *d, const struct scope *s, const struct oom_task *t,
		    struct proc_attrs *a, char *out, size_t size)
{
	unsigned int needs = MATCH_NEED(MATCH_UID) | MATCH_NEED(MATCH_EXE) |
			     match_needs(&d->cfg, d->tasks.mounts);
	static char scratch[SCOPE_SCRATCH_SIZE];
	size_t len = 0;
	uint32_t rules = 0;

	out[0] = '\0';
	memset(a, 0, sizeof(*a));
	memcpy(a->comm, t->comm, sizeof(a->comm));
	if (match_read(s->root, d->tasks.mounts, t->pid, needs, scratch, sizeof(scratch), a) < 0) {
		a->have = 0;
		return;
	}
	match_flags(&d->cfg, a, &rules);
	for (size_t i = 0; i < d->cfg.nr_rules && len < size; i++)
		if (rules & (1u << i))
			len += (size_t)snprintf(out + len, size - len, "%s%s=%s", len ? "," : "",
						d->cfg.rules[i].key, d->cfg.rules[i].value);
	for (size_t i = 0; i < d->cfg.nr_protect && len < size; i++)
		if (!strcmp(d->cfg.protect[i], t->comm))
			len += (size_t)snprintf(out + len, size - len, "%sprotect=%s",
						len ? "," : "", t->comm);
	if (d->cfg.oomd_xattrs && (a->oomd & (MATCH_OOMD_OMIT | MATCH_OOMD_AVOID)) && len < size)
		snprintf(out + len, size - len, "%s%s", len ? "," : "",
			 a->oomd & MATCH_OOMD_OMIT ? "oomd_omit" : "oomd_avoid");
}

static void print_one(const struct daemon *d, const struct scope *s, const struct ranked *r,
		      int rank, FILE *out, bool json, bool first)
{
	char rules[512], rules_json[1024], comm[ESCAPED_COMM_LEN], exe[2 * CONFIG_PATH_MAX];
	const char *why = excluded_why(r->t);
	struct proc_attrs a;
	unsigned long long rss_kib = pages_to_kib(r->t->rss_pages + r->t->swap_pages,
						  s->page_shift);

	explain(d, s, r->t, &a, rules, sizeof(rules));
	escape_comm(r->t->comm, comm, sizeof(comm));
	json_string(a.exe, exe, sizeof(exe));
	if (json) {
		json_string(rules, rules_json, sizeof(rules_json));
		fprintf(
		    out,
		    "%s\n        {\"rank\": %d, \"pid\": %d, \"comm\": \"%s\", \"badness\": %ld, "
		    "\"rss_swap_kib\": %llu, \"oom_score_adj\": %d, \"uid\": %lld, "
		    "\"exe\": \"%s\", \"preference\": \"%s\", \"rules\": \"%s\", "
		    "\"excluded\": \"%s\", \"dying\": %s}",
		    first ? "" : ",", rank, r->t->pid, comm, why ? 0 : r->points, rss_kib,
		    r->t->oom_score_adj, (a.have & MATCH_NEED(MATCH_UID)) ? (long long)a.uid : -1LL,
		    exe,
		    r->t->flags & OOM_TASK_PREFER  ? "prefer"
		    : r->t->flags & OOM_TASK_AVOID ? "avoid"
						   : "",
		    rules_json, why ? why : "", r->t->flags & OOM_TASK_DYING ? "true" : "false");
		return;
	}
	fprintf(out, "  %3d%s pid=%d comm=%s badness=%ld rss_swap_kib=%llu oom_score_adj=%d", rank,
		rank == 1 && !why ? "*" : " ", r->t->pid, comm, why ? 0 : r->points, rss_kib,
		r->t->oom_score_adj);
	if (a.have & MATCH_NEED(MATCH_UID))
		fprintf(out, " uid=%u", a.uid);
	fprintf(out, " exe=%s", a.exe[0] ? exe : "-");
	if (r->t->flags & (OOM_TASK_PREFER | OOM_TASK_AVOID))
		fprintf(out, " %s", r->t->flags & OOM_TASK_PREFER ? "preferred" : "avoided");
	if (rules[0])
		fprintf(out, " rules=%s", rules);
	if (r->t->flags & OOM_TASK_DYING) /* reaped, not killed, if chosen (badness.c rule 8) */
		fputs(" dying", out);
	if (why)
		fprintf(out, " excluded=\"%s\"", why);
	fputc('\n', out);
}

int status_print_tasks(struct daemon *d, struct scope *s, FILE *out, bool json)
{
	static struct ranked ranked[TASKS_MAX];
	unsigned long totalpages = scope_totalpages(s);
	size_t n = 0, kthreads = 0, shown = 0;
	int r;

	r = tasks_acquire(&d->tasks, s, &d->cfg, &d->victims, d->self_pid, d->scratch,
			  sizeof(d->scratch));
	if (r < 0) {
		if (!json)
			fprintf(out, "  tasks: cannot be listed whole (%s)\n", sys_errno_name(r));
		return r;
	}
	for (size_t i = 0; i < d->tasks.nr; i++) {
		const struct oom_task *t = &d->tasks.tasks[i];

		if (t->flags & OOM_TASK_KTHREAD) {
			kthreads++;
			continue;
		}
		ranked[n].t = t;
		ranked[n].points = oom_badness(t, totalpages ? totalpages : 1);
		n++;
	}
	qsort(ranked, n, sizeof(ranked[0]), rank_cmp);
	if (json)
		fprintf(out, ", \"tasks_ranked_out\": %zu, \"groups_not_listed\": %zu, \"tasks\": [",
			d->tasks.take.ranked_out, d->tasks.groups_cut);
	else if (d->tasks.take.ranked_out) /* more than the table holds (tasks.h) */
		fprintf(out,
			"  tasks: %zu listed, %zu more ranked after these and not kept (%zu kernel "
			"threads not shown); * the victim now\n",
			n, d->tasks.take.ranked_out, kthreads);
	else
		fprintf(out, "  tasks: %zu listed (%zu kernel threads not shown); * the victim now\n",
			n, kthreads);
	if (!json && d->tasks.groups_cut)
		fprintf(out,
			"  tasks: %zu child groups not listed (more than %d levels below the scope, "
			"or a path over %d bytes): their processes are no candidates\n",
			d->tasks.groups_cut, TASKS_MAX_DEPTH, TASKS_GROUP_PATH_MAX - 1);
	for (size_t i = 0; i < n && shown < STATUS_TASKS_SHOWN; i++) {
		print_one(d, s, &ranked[i], (int)i + 1, out, json, !shown);
		shown++;
	}
	/* The excluded ones that hold memory, for the why. */
	for (size_t i = shown, k = 0; i < n && k < STATUS_TASKS_SHOWN; i++)
		if (excluded_why(ranked[i].t) && ranked[i].t->rss_pages) {
			print_one(d, s, &ranked[i], (int)i + 1, out, json, !shown++);
			k++;
		}
	if (json)
		fprintf(out, "\n      ]");
	return 0;
}
