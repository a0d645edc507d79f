/* Implements YAML/JSON loading into cJSON with per-path source locations. */
#include "config/doc.h"
#include "core/buf.h"
#include "core/error.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

void kvb_diag_init(struct kvb_diag *d, const struct kvb_doc *doc)
{
	memset(d, 0, sizeof(*d));
	d->doc = doc;
}

void kvb_diag_release(struct kvb_diag *d)
{
	kvb_strv_release(&d->msgs);
	kvb_strv_release(&d->warnings);
}

static void diag_vadd(struct kvb_diag *d, struct kvb_strv *into, const char *path, const char *fmt, va_list ap)
{
	char msg[2048];
	int line = 1, col = 1;
	const char *file = "?";
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (d->doc)
		kvb_doc_loc_file(d->doc, path ? path : "", &file, &line, &col);
	if (path && *path)
		kvb_strv_pushf(into, "%s:%d:%d: %s: %s", file, line, col, path, msg);
	else
		kvb_strv_pushf(into, "%s:%d:%d: %s", file, line, col, msg);
}

void kvb_diag_at(struct kvb_diag *d, const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vadd(d, &d->msgs, path, fmt, ap);
	va_end(ap);
}

void kvb_diag_warn_at(struct kvb_diag *d, const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vadd(d, &d->warnings, path, fmt, ap);
	va_end(ap);
}

char *kvb_path_key(const char *parent, const char *key)
{
	if (!parent || !*parent)
		return kvb_xstrdup(key);
	return kvb_xasprintf("%s.%s", parent, key);
}

char *kvb_path_idx(const char *parent, int idx)
{
	return kvb_xasprintf("%s[%d]", parent ? parent : "", idx);
}

static void loc_add(struct kvb_doc *doc, const char *path, int line, int col)
{
	for (size_t i = 0; i < doc->nlocs; i++)
		if (!strcmp(doc->locs[i].path, path))
			return;
	if (doc->nlocs == doc->alloc) {
		doc->alloc = doc->alloc ? doc->alloc * 2 : 64;
		doc->locs = kvb_xrealloc(doc->locs, doc->alloc * sizeof(*doc->locs));
	}
	doc->locs[doc->nlocs].path = kvb_xstrdup(path);
	doc->locs[doc->nlocs].line = line;
	doc->locs[doc->nlocs].col = col;
	doc->locs[doc->nlocs].file = NULL;
	doc->nlocs++;
}

void kvb_doc_adopt_locs(struct kvb_doc *doc, const struct kvb_doc *from, const char *prefix)
{
	for (size_t i = 0; i < from->nlocs; i++) {
		const char *p = from->locs[i].path;
		char *full = !prefix || !*prefix ? kvb_xstrdup(p)
			     : !*p		 ? kvb_xstrdup(prefix)
			     : p[0] == '['	 ? kvb_xasprintf("%s%s", prefix, p)
						 : kvb_xasprintf("%s.%s", prefix, p);
		size_t n = doc->nlocs;
		loc_add(doc, full, from->locs[i].line, from->locs[i].col);
		if (doc->nlocs > n)
			doc->locs[n].file = kvb_xstrdup(from->locs[i].file ? from->locs[i].file : from->file);
		free(full);
	}
}

void kvb_doc_loc(const struct kvb_doc *doc, const char *path, int *line, int *col)
{
	const char *file;
	kvb_doc_loc_file(doc, path, &file, line, col);
}

void kvb_doc_loc_file(const struct kvb_doc *doc, const char *path, const char **file, int *line, int *col)
{
	char *p = kvb_xstrdup(path ? path : "");
	*line = 1;
	*col = 1;
	*file = doc->file;
	for (;;) {
		for (size_t i = 0; i < doc->nlocs; i++) {
			if (!strcmp(doc->locs[i].path, p)) {
				*line = doc->locs[i].line;
				*col = doc->locs[i].col;
				if (doc->locs[i].file)
					*file = doc->locs[i].file;
				free(p);
				return;
			}
		}
		/* strip the last component: ".key" or "[n]" */
		char *dot = strrchr(p, '.'), *br = strrchr(p, '[');
		char *cut = dot > br ? dot : br;
		if (!cut || cut == p)
			break;
		*cut = '\0';
	}
	free(p);
}

const char *kvb_node_describe(const cJSON *n, char *buf, size_t len)
{
	if (!n)
		snprintf(buf, len, "nothing");
	else if (cJSON_IsString(n))
		snprintf(buf, len, "\"%.60s\"", n->valuestring);
	else if (cJSON_IsNumber(n))
		snprintf(buf, len, "%.15g", n->valuedouble);
	else if (cJSON_IsBool(n))
		snprintf(buf, len, "%s", cJSON_IsTrue(n) ? "true" : "false");
	else if (cJSON_IsNull(n))
		snprintf(buf, len, "null");
	else if (cJSON_IsArray(n))
		snprintf(buf, len, "a list");
	else
		snprintf(buf, len, "a mapping");
	return buf;
}

/* ---- YAML ---------------------------------------------------------------- */

/* Plain-scalar typing as PyYAML (YAML 1.1) does it, since WA3 agendas are read by PyYAML. */
static cJSON *yaml_scalar(const yaml_event_t *ev)
{
	const char *v = (const char *)ev->data.scalar.value;
	size_t n = ev->data.scalar.length;
	const char *tag = (const char *)ev->data.scalar.tag;
	static const char *const t[] = { "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON" };
	static const char *const f[] = { "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF" };

	if (tag && !strcmp(tag, "tag:yaml.org,2002:str"))
		return cJSON_CreateString(v);
	if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return cJSON_CreateString(v);
	if (n == 0 || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") || !strcmp(v, "NULL"))
		return cJSON_CreateNull();
	for (size_t i = 0; i < KVB_ARRAY_SIZE(t); i++) {
		if (!strcmp(v, t[i]))
			return cJSON_CreateTrue();
		if (!strcmp(v, f[i]))
			return cJSON_CreateFalse();
	}
	{
		char *end;
		errno = 0;
		if ((v[0] >= '0' && v[0] <= '9') || ((v[0] == '-' || v[0] == '+' || v[0] == '.') && n > 1)) {
			if (n > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
				long long x = strtoll(v, &end, 16);
				if (!*end && !errno)
					return cJSON_CreateNumber((double)x);
			} else {
				double d = strtod(v, &end);
				if (!*end && !errno && isfinite(d))
					return cJSON_CreateNumber(d);
			}
		}
	}
	if (!strcmp(v, ".inf") || !strcmp(v, "+.inf"))
		return cJSON_CreateNumber(HUGE_VAL);
	if (!strcmp(v, "-.inf"))
		return cJSON_CreateNumber(-HUGE_VAL);
	return cJSON_CreateString(v);
}

struct yframe {
	cJSON *node;
	char *path;
	char *key;      /* pending mapping key, owned */
	int key_line, key_col;
	int index;      /* next sequence index */
	char *anchor;
};

/*
 * An anchor keeps its own copy of the node: the tree's node can be freed
 * before a later alias uses it (a duplicate key replaces it, a "<<" merge
 * value is consumed, a second document replaces the root).
 */
struct yanchor {
	char *name;
	cJSON *node;  /* owned copy */
};

/* Aliases may copy at most this many nodes in all: "billion laughs" documents are refused, not expanded. */
#define KVB_YAML_ALIAS_NODES_MAX 100000

struct yctx {
	struct kvb_doc *doc;
	struct kvb_diag *d;
	struct yframe st[128];
	int depth;
	struct yanchor *anchors;
	size_t nanchors;
	size_t alias_nodes;  /* nodes copied by aliases so far */
	int errors;
	int done;            /* the stream ended, or a problem stops the parse */
};

/* Attaches a finished node to the current container; returns the node's path (owned) or NULL if root. */
static void attach(struct yctx *c, cJSON *node, int line, int col, char **path_out)
{
	char *path;
	if (c->depth == 0) {
		if (c->doc->root)
			cJSON_Delete(c->doc->root);
		c->doc->root = node;
		path = kvb_xstrdup("");
	} else {
		struct yframe *f = &c->st[c->depth - 1];
		if (cJSON_IsArray(f->node)) {
			path = kvb_path_idx(f->path, f->index++);
			cJSON_AddItemToArray(f->node, node);
		} else {
			path = kvb_path_key(f->path, f->key);
			line = f->key_line;
			col = f->key_col;
			if (cJSON_GetObjectItemCaseSensitive(f->node, f->key)) {
				/* point at the second occurrence, not the first one the path map holds */
				if (c->d)
					kvb_strv_pushf(&c->d->msgs, "%s:%d:%d: %s: duplicate key '%s'", c->doc->file, line, col,
						       path, f->key);
				c->errors++;
				cJSON_ReplaceItemInObjectCaseSensitive(f->node, f->key, node);
			} else {
				cJSON_AddItemToObject(f->node, f->key, node);
			}
			free(f->key);
			f->key = NULL;
		}
	}
	loc_add(c->doc, path, line, col);
	if (path_out)
		*path_out = path;
	else
		free(path);
}

static void anchor_add(struct yctx *c, const char *name, cJSON *node)
{
	c->anchors = kvb_xrealloc(c->anchors, (c->nanchors + 1) * sizeof(*c->anchors));
	c->anchors[c->nanchors].name = kvb_xstrdup(name);
	c->anchors[c->nanchors].node = cJSON_Duplicate(node, 1);
	c->nanchors++;
}

/* Nodes in a tree, counting stops past limit. */
static size_t count_nodes(const cJSON *n, size_t limit)
{
	size_t k = 1;
	for (const cJSON *ch = n->child; ch && k <= limit; ch = ch->next)
		k += count_nodes(ch, limit - k);
	return k;
}

/* True when the next scalar in the current mapping is a key. */
static int expecting_key(struct yctx *c)
{
	return c->depth > 0 && cJSON_IsObject(c->st[c->depth - 1].node) && !c->st[c->depth - 1].key;
}

/* The error is at a tab in the leading whitespace of its line (libyaml: "cannot start any token"). */
static int tab_at_line_start(const char *text, size_t len, size_t at)
{
	size_t i = at < len ? at : len;
	while (i > 0 && text[i - 1] != '\n')
		i--;
	for (; i < len && (text[i] == ' ' || text[i] == '\t'); i++)
		if (text[i] == '\t')
			return 1;
	return 0;
}

/* libyaml's parse error as "FILE:LINE:COL: syntax error: ...", with the tab hint. */
static void yaml_syntax_error(struct yctx *c, const yaml_parser_t *p, const char *text, size_t len)
{
	struct kvb_buf b = KVB_BUF_INIT;
	if (!c->d)
		return;
	kvb_buf_addf(&b, "%s:%zu:%zu: syntax error: %s", c->doc->file, p->problem_mark.line + 1,
		     p->problem_mark.column + 1, p->problem ? p->problem : "unknown");
	if (p->context)
		kvb_buf_addf(&b, " %s (line %zu)", p->context, p->context_mark.line + 1);
	if (tab_at_line_start(text, len, p->problem_mark.index))
		kvb_buf_addf(&b, "; line %zu is indented with a tab: YAML indents with spaces only",
			     p->problem_mark.line + 1);
	kvb_strv_push(&c->d->msgs, b.data);
	kvb_buf_release(&b);
}

/* A scalar: the current mapping's next key, or a value (registered under its anchor). */
static void on_scalar(struct yctx *c, const yaml_event_t *ev, int line, int col)
{
	if (expecting_key(c)) {
		struct yframe *f = &c->st[c->depth - 1];
		f->key = kvb_xstrdup((const char *)ev->data.scalar.value);
		f->key_line = line;
		f->key_col = col;
	} else {
		cJSON *n = yaml_scalar(ev);
		attach(c, n, line, col, NULL);
		if (ev->data.scalar.anchor)
			anchor_add(c, (const char *)ev->data.scalar.anchor, n);
	}
}

/* *name: a copy of the anchored node (a key when one is expected); bounded in total size
 * (the "billion laughs"), which stops the parse. */
static int on_alias(struct yctx *c, const yaml_event_t *ev, int line, int col)
{
	cJSON *src = NULL;
	for (size_t i = 0; i < c->nanchors; i++)
		if (!strcmp(c->anchors[i].name, (const char *)ev->data.alias.anchor))
			src = c->anchors[i].node;
	if (!src) {
		if (c->d)
			kvb_strv_pushf(&c->d->msgs, "%s:%d:%d: unknown alias '*%s'", c->doc->file, line, col,
				       ev->data.alias.anchor);
		return KVB_EINPUT;
	}
	c->alias_nodes += count_nodes(src, KVB_YAML_ALIAS_NODES_MAX);
	if (c->alias_nodes > KVB_YAML_ALIAS_NODES_MAX) {
		if (c->d)
			kvb_strv_pushf(&c->d->msgs, "%s:%d:%d: aliases expand to more than %d values", c->doc->file,
				       line, col, KVB_YAML_ALIAS_NODES_MAX);
		c->done = 1;
		return KVB_EINPUT;
	}
	if (expecting_key(c)) {
		struct yframe *f = &c->st[c->depth - 1];
		f->key = kvb_xstrdup(cJSON_IsString(src) ? src->valuestring : "?");
		f->key_line = line;
		f->key_col = col;
	} else {
		attach(c, cJSON_Duplicate(src, 1), line, col, NULL);
	}
	return KVB_OK;
}

/* A sequence or mapping opens a frame; a container as a key, or too deep a nesting, stops the parse. */
static int on_container_start(struct yctx *c, const yaml_event_t *ev, int line, int col)
{
	if (expecting_key(c)) {
		if (c->d)
			kvb_strv_pushf(&c->d->msgs, "%s:%d:%d: a mapping key must be a plain value", c->doc->file, line,
				       col);
		c->done = 1;
		return KVB_EINPUT;
	}
	if (c->depth >= (int)KVB_ARRAY_SIZE(c->st)) {
		if (c->d)
			kvb_strv_pushf(&c->d->msgs, "%s:%d:%d: nesting deeper than %zu levels", c->doc->file, line, col,
				       KVB_ARRAY_SIZE(c->st));
		c->done = 1;
		return KVB_EINPUT;
	}
	cJSON *n = ev->type == YAML_SEQUENCE_START_EVENT ? cJSON_CreateArray() : cJSON_CreateObject();
	char *path;
	const yaml_char_t *anchor = ev->type == YAML_SEQUENCE_START_EVENT ? ev->data.sequence_start.anchor
									 : ev->data.mapping_start.anchor;
	attach(c, n, line, col, &path);
	struct yframe *f = &c->st[c->depth++];
	memset(f, 0, sizeof(*f));
	f->node = n;
	f->path = path;
	f->anchor = anchor ? kvb_xstrdup((const char *)anchor) : NULL;
	return KVB_OK;
}

/* src's keys that node does not have yet, copied into node. */
static void fold_mapping(cJSON *node, const cJSON *src)
{
	for (const cJSON *kv = src->child; kv; kv = kv->next)
		if (kv->string && !cJSON_GetObjectItemCaseSensitive(node, kv->string))
			cJSON_AddItemToObject(node, kv->string, cJSON_Duplicate(kv, 1));
}

/* YAML merge key "<<": folds the referenced mapping, or each of a list of them (all: none is
 * dropped), into node without overriding its own keys. */
static void fold_merge_key(cJSON *node)
{
	cJSON *merge = cJSON_IsObject(node) ? cJSON_GetObjectItemCaseSensitive(node, "<<") : NULL;
	cJSON *m;
	if (!merge)
		return;
	m = cJSON_DetachItemViaPointer(node, merge);
	if (cJSON_IsObject(m))
		fold_mapping(node, m);
	else if (cJSON_IsArray(m))
		for (const cJSON *x = m->child; x; x = x->next)
			fold_mapping(node, x);
	cJSON_Delete(m);
}

/* A container is complete: registered under its anchor (aliases copy the whole thing), merge keys folded. */
static void on_container_end(struct yctx *c)
{
	struct yframe *f = &c->st[--c->depth];
	if (f->anchor)
		anchor_add(c, f->anchor, f->node);
	fold_merge_key(f->node);
	free(f->path);
	free(f->key);
	free(f->anchor);
}

static void yctx_release(struct yctx *c)
{
	while (c->depth > 0) {
		struct yframe *f = &c->st[--c->depth];
		free(f->path);
		free(f->key);
		free(f->anchor);
	}
	for (size_t i = 0; i < c->nanchors; i++) {
		free(c->anchors[i].name);
		cJSON_Delete(c->anchors[i].node);
	}
	free(c->anchors);
}

/* One YAML document into doc->root, event by event (libyaml); problems to d (NULL: none said). */
static int yaml_load(struct kvb_doc *doc, const char *text, size_t len, struct kvb_diag *d)
{
	yaml_parser_t p;
	yaml_event_t ev;
	struct yctx c;
	int rc = KVB_OK, ndocs = 0;

	memset(&c, 0, sizeof(c));
	c.doc = doc;
	c.d = d;
	if (!yaml_parser_initialize(&p))
		return KVB_EINPUT;
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	while (!c.done) {
		if (!yaml_parser_parse(&p, &ev)) {
			yaml_syntax_error(&c, &p, text, len);
			rc = KVB_EINPUT;
			break;
		}
		int line = (int)ev.start_mark.line + 1, col = (int)ev.start_mark.column + 1, erc = KVB_OK;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			c.done = 1;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++ndocs > 1 && d) {
				kvb_strv_pushf(&d->msgs, "%s:%d:%d: only one YAML document is allowed", doc->file, line, col);
				erc = KVB_EINPUT;
			}
			break;
		case YAML_SCALAR_EVENT: on_scalar(&c, &ev, line, col); break;
		case YAML_ALIAS_EVENT: erc = on_alias(&c, &ev, line, col); break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT: erc = on_container_start(&c, &ev, line, col); break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT: on_container_end(&c); break;
		default: break;
		}
		if (erc)
			rc = erc;
		yaml_event_delete(&ev);
		if (rc && c.done)
			break;
	}
	yctx_release(&c);
	yaml_parser_delete(&p);
	if (c.errors)
		rc = KVB_EINPUT;
	return rc;
}

/* ---- JSON ---------------------------------------------------------------- */

static void offset_to_linecol(const char *text, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && text[i]; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

static int json_load(struct kvb_doc *doc, const char *text, size_t len, struct kvb_diag *d)
{
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (!root) {
		int line, col;
		size_t off = end ? (size_t)(end - text) : 0;
		if (!end || off > len) {
			const char *e = cJSON_GetErrorPtr();
			off = (e && e >= text && e <= text + len) ? (size_t)(e - text) : 0;
		}
		offset_to_linecol(text, off, &line, &col);
		if (d) {
			size_t n = strcspn(text + off, "\r\n");
			if (n == 0)
				kvb_strv_pushf(&d->msgs, "%s:%d:%d: syntax error: invalid JSON at the end of the line",
					       doc->file, line, col);
			else
				kvb_strv_pushf(&d->msgs, "%s:%d:%d: syntax error: invalid JSON near '%.*s'", doc->file,
					       line, col, (int)(n > 20 ? 20 : n), text + off);
		}
		return KVB_EINPUT;
	}
	{
		/* Trailing garbage after the top-level value is an error too. */
		const char *p = end;
		while (p && p < text + len && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
			p++;
		if (p && p < text + len && *p) {
			int line, col;
			offset_to_linecol(text, (size_t)(p - text), &line, &col);
			if (d)
				kvb_strv_pushf(&d->msgs, "%s:%d:%d: syntax error: text after the JSON value", doc->file,
					       line, col);
			cJSON_Delete(root);
			return KVB_EINPUT;
		}
	}
	/* Locations: JSON is (nearly) YAML flow syntax, so libyaml recovers line:col per path.
	 * If it cannot, messages fall back to 1:1; the tree itself always comes from cJSON. */
	{
		struct kvb_doc tmp = { .file = doc->file };
		yaml_load(&tmp, text, len, NULL);
		cJSON_Delete(tmp.root);
		doc->locs = tmp.locs;
		doc->nlocs = tmp.nlocs;
		doc->alloc = tmp.alloc;
	}
	doc->root = root;
	return KVB_OK;
}

int kvb_doc_parse(struct kvb_doc *doc, const char *name, const char *text, size_t len, struct kvb_diag *d)
{
	size_t i = 0, nl = strlen(name);
	int is_json, rc;

	memset(doc, 0, sizeof(*doc));
	doc->file = kvb_xstrdup(name);
	if (d)
		d->doc = doc;
	while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
		i++;
	if (memchr(text, '\0', len)) {
		if (d)
			kvb_strv_pushf(&d->msgs, "%s:1:1: not a text file (contains NUL bytes)", name);
		return KVB_EINPUT;
	}
	is_json = (nl > 5 && !strcmp(name + nl - 5, ".json")) || (i < len && text[i] == '{');
	rc = is_json ? json_load(doc, text, len, d) : yaml_load(doc, text, len, d);
	if (rc)
		return rc;
	if (!doc->root || cJSON_IsNull(doc->root)) {
		if (d)
			kvb_strv_pushf(&d->msgs, "%s:1:1: file is empty", name);
		return KVB_EINPUT;
	}
	if (!cJSON_IsObject(doc->root)) {
		char b[64];
		if (d)
			kvb_strv_pushf(&d->msgs, "%s:1:1: expected a mapping at the top level, got %s", name,
				       kvb_node_describe(doc->root, b, sizeof(b)));
		return KVB_EINPUT;
	}
	return KVB_OK;
}

int kvb_doc_load(struct kvb_doc *doc, const char *file, struct kvb_diag *d)
{
	struct kvb_buf b = KVB_BUF_INIT;
	int rc;
	if (kvb_buf_read_file(&b, file)) {
		memset(doc, 0, sizeof(*doc));
		doc->file = kvb_xstrdup(file);
		if (d) {
			d->doc = doc;
			kvb_strv_pushf(&d->msgs, "%s: cannot read: %s", file, strerror(errno));
		}
		return KVB_EINPUT;
	}
	rc = kvb_doc_parse(doc, file, b.data, b.len, d);
	kvb_buf_release(&b);
	return rc;
}

void kvb_doc_release(struct kvb_doc *doc)
{
	for (size_t i = 0; i < doc->nlocs; i++) {
		free(doc->locs[i].path);
		free(doc->locs[i].file);
	}
	free(doc->locs);
	cJSON_Delete(doc->root);
	free(doc->file);
	memset(doc, 0, sizeof(*doc));
}
