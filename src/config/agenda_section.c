/* Implements an agenda's sections: each section's knobs and classifiers, sections grouped and combined, and the workloads expanded under them. */
#include "config/agenda_internal.h"

#include <stdlib.h>
#include <string.h>

void kvb_agenda_xsection_release(struct xsection *x)
{
	free(x->id);
	kvb_runtime_release(&x->rt);
	cJSON_Delete(x->classifiers);
	cJSON_Delete(x->wparams);
	for (size_t i = 0; i < x->nwl; i++)
		free(x->wl[i].path);
	free(x->wl);
}

/* The knobs node rp (NULL: none) of obj at path into rt; obj's classifiers, checked, merged into *cls. */
void kvb_agenda_read_knobs_and_classifiers(const cJSON *obj, const cJSON *rp, const char *path, struct kvb_runtime *rt,
				cJSON **cls, struct kvb_diag *d)
{
	const cJSON *v;
	if (rp) {
		char *p = kvb_path_key(path, rp->string);
		kvb_runtime_merge_json(rt, rp, p, d);
		free(p);
	}
	v = cJSON_GetObjectItemCaseSensitive(obj, "classifiers");
	if (v) {
		char *p = kvb_path_key(path, "classifiers");
		kvb_agenda_check_classifiers(v, p, d);
		free(p);
	}
	kvb_agenda_merge_obj(cls, v, 1);
}

/* Reads one raw section entry into x (validating when asked). */
static void read_section(struct xsection *x, const cJSON *s, const char *path, int idx, struct kvb_diag *d)
{
	const cJSON *v;
	memset(x, 0, sizeof(*x));
	kvb_runtime_init(&x->rt);
	kvb_keys_check(s, path, kvb_agenda_section_keys, d);
	if (!cJSON_IsObject(s)) {
		x->id = kvb_xasprintf("s%d", idx + 1);
		return;
	}
	v = cJSON_GetObjectItemCaseSensitive(s, "id");
	x->id = cJSON_IsString(v) || cJSON_IsNumber(v) ? kvb_node_str(v) : kvb_xasprintf("s%d", idx + 1);
	x->iterations = kvb_agenda_read_iterations(s, path, d);
	v = kvb_agenda_get2(s, "runtime_params", "runtime_parameters");
	if (!v)
		v = cJSON_GetObjectItemCaseSensitive(s, "params");
	kvb_agenda_read_knobs_and_classifiers(s, v, path, &x->rt, &x->classifiers, d);
	kvb_agenda_merge_obj(&x->wparams, cJSON_GetObjectItemCaseSensitive(s, "workload_parameters"), 0);
	v = cJSON_GetObjectItemCaseSensitive(s, "workloads");
	if (cJSON_IsArray(v)) {
		int i = 0;
		char *wp = kvb_path_key(path, "workloads");
		for (const cJSON *w = v->child; w; w = w->next, i++) {
			x->wl = kvb_xrealloc(x->wl, (x->nwl + 1) * sizeof(*x->wl));
			x->wl[x->nwl].node = w;
			x->wl[x->nwl].path = kvb_path_idx(wp, i);
			x->nwl++;
		}
		free(wp);
	}
}

/* Combines a and b (different groups) into one section "a-b". */
static void xsection_combine(struct xsection *out, const struct xsection *a, const struct xsection *b)
{
	memset(out, 0, sizeof(*out));
	out->id = kvb_xasprintf("%s-%s", a->id, b->id);
	out->iterations = b->iterations ? b->iterations : a->iterations;
	kvb_runtime_copy(&out->rt, &a->rt);
	kvb_runtime_merge(&out->rt, &b->rt);
	kvb_agenda_merge_obj(&out->classifiers, a->classifiers, 1);
	kvb_agenda_merge_obj(&out->classifiers, b->classifiers, 1);
	kvb_agenda_merge_obj(&out->wparams, a->wparams, 0);
	kvb_agenda_merge_obj(&out->wparams, b->wparams, 0);
	for (int k = 0; k < 2; k++) {
		const struct xsection *src = k ? b : a;
		for (size_t i = 0; i < src->nwl; i++) {
			out->wl = kvb_xrealloc(out->wl, (out->nwl + 1) * sizeof(*out->wl));
			out->wl[out->nwl].node = src->wl[i].node;
			out->wl[out->nwl].path = kvb_xstrdup(src->wl[i].path);
			out->nwl++;
		}
	}
}

/* The sections of one group: (group: value, its sections in agenda order). */
struct section_group {
	char *group;
	struct xsection *s;
	size_t n;
};

/* Reads every section into its group; returns the number of groups (at most max, said when more). */
static size_t group_sections(struct section_group *groups, size_t max, const cJSON *sections, struct kvb_diag *d)
{
	size_t ng = 0;
	int i = 0, ids_bad = 0;
	for (const cJSON *s = sections->child; s; s = s->next, i++) {
		char *path = kvb_path_idx("sections", i);
		struct xsection x;
		const char *g = cJSON_IsObject(s) ? kvb_get_str(s, "group", "") : "";
		size_t gi;
		read_section(&x, s, path, i, d);
		for (gi = 0; gi < ng; gi++)
			if (!strcmp(groups[gi].group, g))
				break;
		if (gi == ng) {
			if (ng == max) {
				kvb_diag_at(d, path, "more than %zu section groups", max);
				kvb_agenda_xsection_release(&x);
				free(path);
				continue;
			}
			groups[ng++].group = kvb_xstrdup(g);
		}
		for (size_t k = 0; k < groups[gi].n; k++)
			if (!strcmp(groups[gi].s[k].id, x.id) && !ids_bad) {
				char *ip = kvb_path_key(path, "id");
				kvb_diag_at(d, ip, "duplicate section id \"%s\"", x.id);
				free(ip);
			}
		groups[gi].s = kvb_xrealloc(groups[gi].s, (groups[gi].n + 1) * sizeof(*groups[gi].s));
		groups[gi].s[groups[gi].n++] = x;
		free(path);
	}
	return ng;
}

/* sections, with group cross-product (first group varies slowest) into *xs (owned). */
void kvb_agenda_read_sections(const cJSON *root, struct xsection **xs, size_t *nxs, struct kvb_diag *d)
{
	const cJSON *sections = cJSON_GetObjectItemCaseSensitive(root, "sections");
	struct section_group groups[16];
	size_t ng;
	if (!cJSON_IsArray(sections) || cJSON_GetArraySize(sections) <= 0)
		return;
	memset(groups, 0, sizeof(groups));
	ng = group_sections(groups, KVB_ARRAY_SIZE(groups), sections, d);
	if (ng) {
		*xs = groups[0].s;
		*nxs = groups[0].n;
		groups[0].s = NULL;
		for (size_t gi = 1; gi < ng; gi++) {
			struct xsection *nx = kvb_xcalloc(*nxs * groups[gi].n + 1, sizeof(*nx));
			size_t k = 0;
			for (size_t p = 0; p < *nxs; p++)
				for (size_t q = 0; q < groups[gi].n; q++)
					xsection_combine(&nx[k++], &(*xs)[p], &groups[gi].s[q]);
			for (size_t p = 0; p < *nxs; p++)
				kvb_agenda_xsection_release(&(*xs)[p]);
			free(*xs);
			*xs = nx;
			*nxs = k;
		}
	}
	for (size_t gi = 0; gi < ng; gi++) {
		for (size_t k = 0; groups[gi].s && k < groups[gi].n; k++)
			kvb_agenda_xsection_release(&groups[gi].s[k]);
		free(groups[gi].s);
		free(groups[gi].group);
	}
}

/* 1 when section s's k-th own workload entry is also one of an earlier section's (the same node). */
static int seen_in_earlier_section(const struct xsection *xs, size_t s, size_t k)
{
	for (size_t p = 0; p < s; p++)
		for (size_t q = 0; q < xs[p].nwl; q++)
			if (xs[p].wl[q].node == xs[s].wl[k].node)
				return 1;
	return 0;
}

/*
 * workloads: specs workload-major, section-minor (WA3 by_iteration: X.A1 Y.A1 X.B1 Y.B1),
 * then each section's own entries. An entry is checked once: its later expansions report
 * into quiet, which is dropped. Returns 1 when there was any entry.
 */
int kvb_agenda_expand_workloads(struct kvb_agenda *a, const cJSON *root, const struct xsection *xs, size_t nxs,
		     const struct agenda_globals *g, struct kvb_diag *d)
{
	const cJSON *workloads = cJSON_GetObjectItemCaseSensitive(root, "workloads");
	struct kvb_diag quiet;
	int i = 0, any = 0;
	kvb_diag_init(&quiet, d->doc);
	if (cJSON_IsArray(workloads)) {
		for (const cJSON *w = workloads->child; w; w = w->next, i++) {
			char *path = kvb_path_idx("workloads", i);
			if (nxs == 0) {
				kvb_agenda_expand_entry(a, w, path, NULL, g, d);
			} else {
				for (size_t s = 0; s < nxs; s++)
					kvb_agenda_expand_entry(a, w, path, &xs[s], g, s == 0 ? d : &quiet);
			}
			any = 1;
			free(path);
		}
	}
	for (size_t s = 0; s < nxs; s++) {
		for (size_t k = 0; k < xs[s].nwl; k++) {
			/* section-only entries are validated once, in their first section */
			kvb_agenda_expand_entry(a, xs[s].wl[k].node, xs[s].wl[k].path, &xs[s], g,
				     seen_in_earlier_section(xs, s, k) ? &quiet : d);
			any = 1;
		}
	}
	kvb_diag_release(&quiet);
	return any;
}
