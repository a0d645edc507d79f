/*
 * The registry of output formats shared by `diff`, `show`, `query` and
 * `report` (docs/design.md#statistics, docs/design.md#outputs-and-the-report): table, markdown, csv, json, html, each
 * {name, summary, render, caps, table}. A command builds a kvb_out (titled sections, each
 * a paragraph, a table and/or a plot) and hands it to the renderer the user
 * named; an unknown name is rejected with the list (kvb_format_find).
 *
 * Precision travels with each cell, not in a global switch: a table cell has
 * a display text (rounded, for people) and a raw text (full precision, for
 * scripts; box.h). table, markdown and html show the display text; csv and
 * json write the raw one.
 */
#ifndef KVB_FORMAT_H
#define KVB_FORMAT_H

#include "core/error.h"
#include "report/box.h"

#include <cjson/cJSON.h>
#include <stdio.h>

/*
 * The version of every JSON document kvbench writes (diff, diff --series, show, report and the
 * data embedded in a report page): the top-level "schema_version" field. The shapes are in
 * docs/outputs.md and results-schema/kvbench-json.schema.json (tests/integration/outputs.sh
 * checks every document against the latter). A new field does not change it; removing or
 * renaming one, or changing its type or meaning, does.
 */
#define KVB_JSON_SCHEMA_VERSION 1

/* One part of a document. Every member may be NULL / 0. Borrowed pointers. */
struct kvb_out_section {
	const char *heading;          /* "Failures", "hackbench time (s)" */
	const char *text;             /* a paragraph of plain text (escaped by html) */
	const struct kvb_box *table;  /* a table */
	const char *footer;           /* legend printed under the table (table, markdown, html) */
	const cJSON *plot;            /* a plot spec for the html renderer (render_html.c), ignored elsewhere */
	const char *id;               /* stable anchor / key for json and html, or NULL */
	const char *fold;             /* html: opens a collapsed <details> with this summary before the section */
	int fold_end;                 /* html: closes the open <details> after the section */
};

struct kvb_out {
	const char *title;            /* page title (html), heading of the json form */
	const struct kvb_out_section *sec;
	size_t nsec;
	const cJSON *json;            /* the producer's own JSON form (diff's statistics), or NULL:
				       * json then writes the sections' tables as arrays of row objects */
	int plain;                    /* 1: a single bare table (diff, show, query): no headings in text formats */
	int bare_rows;                /* json of a plain table: the array of rows alone, without schema_version
				       * (query: the rows' shape is the user's SELECT); 0: {"schema_version", "rows"} */
};

/* obj (an object, consumed) with "schema_version": KVB_JSON_SCHEMA_VERSION as its first member. */
cJSON *kvb_json_versioned(cJSON *obj);

/*
 * What a format can hold and how producers write beside its tables: producers ask these
 * bits (and call the format's own functions), never its name, so a new format is one
 * registry line and one render_<name>.c (issue 29: `--format tsv` under `diff --by
 * --layout wide` printed boxes when producers tested names).
 */
enum kvb_format_cap {
	KVB_FMT_PROSE = 1 << 0,     /* notes, legends and titles go to the output beside tables (for people);
				     * without it, producers keep them out of the data (stderr or nothing) */
	KVB_FMT_MARKUP = 1 << 1,    /* markdown: bold titles, notes as list items, blank lines around blocks */
	KVB_FMT_TERMINAL = 1 << 2,  /* fixed-width text for a terminal (diff --series' own layout) */
	KVB_FMT_ONE_TABLE = 1 << 3, /* holds one table: a producer with several writes one long table, with
				     * the columns only scripts need (diff_pct, significant) */
	KVB_FMT_DOCUMENT = 1 << 4,  /* takes the producer's own JSON form (kvb_out.json) */
	KVB_FMT_PLOTS = 1 << 5,     /* draws plot specs (kvb_out_section.plot) and needs a file of its own; without
				     * it, producers leave out the prose that only describes a plot (its dots,
				     * whiskers, what hovering shows) */
};
/* (Precision needs no bit: every cell carries its display and raw text, box.h.) */

struct kvb_format {
	const char *name;
	const char *summary;
	/* Writes d to out. Errors: KVB_EUSAGE when the format cannot hold d (csv of several tables), KVB_EINPUT. */
	int (*render)(const struct kvb_out *d, FILE *out, struct kvb_error *err);
	unsigned caps; /* enum kvb_format_cap bits */
	/* Writes one table alone, header first (the mailing-list layout's tables); NULL when the format
	 * has its own document shape (json, html): such producers go through render. */
	void (*table)(const struct kvb_box *b, FILE *out);
};

/* NULL-terminated, in the order `--help` lists them. */
extern const struct kvb_format *const kvb_formats[];

/*
 * The format called name; NULL (and err says "--format 'x': unknown; formats:
 * table, markdown, ...", code KVB_EUSAGE) when there is none.
 */
const struct kvb_format *kvb_format_find(const char *name, struct kvb_error *err);

/* The one table of d, for formats that hold one (KVB_FMT_ONE_TABLE); NULL and err (KVB_EUSAGE, naming
 * the format) when d has none or several. */
const struct kvb_box *kvb_out_one_table(const struct kvb_out *d, const char *format, struct kvb_error *err);

/* Renderers (one file each: render_<name>.c). */
extern const struct kvb_format kvb_format_table, kvb_format_markdown, kvb_format_csv, kvb_format_tsv,
	kvb_format_json, kvb_format_html;

#endif
