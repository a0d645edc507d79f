/*
 * A configuration document (agenda, platform file): YAML via libyaml or JSON
 * via cJSON, both turned into one cJSON tree, plus the file:line:column of
 * every node, keyed by its path ("workloads[1].params.loops").
 *
 * struct kvb_diag collects every error of a file in one pass, each formatted
 * "FILE:LINE:COL: PATH: MESSAGE".
 */
#ifndef KVB_DOC_H
#define KVB_DOC_H

#include "core/util.h"

#include <cjson/cJSON.h>

struct kvb_loc {
	char *path;
	char *file; /* owned: the included file (WA3 include#) the node came from; NULL = the doc's own file */
	int line;  /* 1-based */
	int col;   /* 1-based */
};

struct kvb_doc {
	char *file;          /* name used in messages (owned) */
	cJSON *root;         /* owned; an object after a successful load */
	struct kvb_loc *locs;
	size_t nlocs, alloc;
};

/* Error list for one document. Messages are owned strings in msgs. */
struct kvb_diag {
	const struct kvb_doc *doc;
	struct kvb_strv msgs;
	struct kvb_strv warnings;
};

void kvb_diag_init(struct kvb_diag *d, const struct kvb_doc *doc);
void kvb_diag_release(struct kvb_diag *d);
/* Adds "FILE:LINE:COL: PATH: msg"; the location is the path's, or its nearest parent's. */
void kvb_diag_at(struct kvb_diag *d, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void kvb_diag_warn_at(struct kvb_diag *d, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Loads FILE; JSON when the name ends in .json or the text starts with '{',
 * YAML otherwise. Syntax errors, an empty file or a top level that is not a
 * mapping go to d (with line:col) and KVB_EINPUT is returned.
 */
int kvb_doc_load(struct kvb_doc *doc, const char *file, struct kvb_diag *d);
/* Same from memory; name is used in messages. */
int kvb_doc_parse(struct kvb_doc *doc, const char *name, const char *text, size_t len, struct kvb_diag *d);
void kvb_doc_release(struct kvb_doc *doc);

/* Location of path (exact, else nearest recorded parent, else 1:1). */
void kvb_doc_loc(const struct kvb_doc *doc, const char *path, int *line, int *col);
/* Same, with the file the node is in (doc->file unless it came from an included file; borrowed). */
void kvb_doc_loc_file(const struct kvb_doc *doc, const char *path, const char **file, int *line, int *col);
/*
 * Records the locations of the included document from, merged into doc at
 * path prefix ("" = the top), as from's file: nodes of doc's own keep theirs.
 * For WA3 include#, so an error in an included node names that file and line.
 */
void kvb_doc_adopt_locs(struct kvb_doc *doc, const struct kvb_doc *from, const char *prefix);

/* Builds child paths: "a" + key -> "a.key", "a" + 3 -> "a[3]". Returned strings are owned. */
char *kvb_path_key(const char *parent, const char *key);
char *kvb_path_idx(const char *parent, int idx);

/* Short description of a node for messages: "\"ten\"", "a list", "a mapping", "2.5". */
const char *kvb_node_describe(const cJSON *n, char *buf, size_t len);

#endif
