/*
 * Implements the "html" format: one self-contained page (docs/design.md#outputs-and-the-report).
 * Everything is inline (style, d3, the plot script, the data), and a
 * Content-Security-Policy of default-src 'none' makes the browser refuse any
 * request the page might still try, so it opens from file:// with no network.
 */
#include "report/assets.h"
#include "report/format.h"
#include "report/shortlabel.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

static void table(FILE *f, const struct kvb_box *b)
{
	fputs("<table class=\"kvb\">\n<thead><tr>", f);
	for (size_t c = 0; c < b->ncols; c++) {
		fputs("<th>", f);
		esc(f, b->head.v[c]);
		fputs("</th>", f);
	}
	fputs("</tr></thead>\n<tbody>\n", f);
	for (size_t r = 0; r < b->nrows; r++) {
		fputs("<tr>", f);
		for (size_t c = 0; c < b->ncols; c++) {
			const char *t = kvb_box_at(b, r, c);
			const char *cls = kvb_box_kind_at(b, r, c) == KVB_CELL_NUM || b->align[c] == KVB_ALIGN_RIGHT ? "r" : "";
			if (!strncmp(t, "better", 6))
				cls = "better";
			else if (!strncmp(t, "worse", 5))
				cls = "worse";
			fprintf(f, "<td%s%s%s", *cls ? " class=\"" : "", cls, *cls ? "\"" : "");
			if (!strcmp(b->head.v[c], "classifiers")) {
				/* a long classifier (rt-app's tasks JSON) shortened, the whole text on hover */
				char *sh = kvb_short_label(t);
				if (strcmp(sh, t)) {
					fputs(" title=\"", f);
					esc(f, t);
					fputs("\"", f);
					t = sh;
				}
				fputs(">", f);
				esc(f, t);
				free(sh);
			} else {
				fputs(">", f);
				esc(f, t);
			}
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

/* JSON inside <script>: '<' written as \u003c so no "</script>" can end it early (only strings hold '<'). */
static void json_inline(FILE *f, const cJSON *j)
{
	char *s = cJSON_PrintUnformatted(j);
	for (char *p = s; p && *p; p++) {
		if (*p == '<')
			fputs("\\u003c", f);
		else
			fputc(*p, f);
	}
	free(s);
}

/* Copies the d3 build into the page. KVB_EINPUT naming the file when it cannot be read. */
static int inline_d3(FILE *f, struct kvb_error *err)
{
	const char *path = getenv("KVB_D3_JS");
	char buf[65536];
	size_t n;
	FILE *in;
	if (!path || !*path)
		path = KVB_D3_JS_DEFAULT;
	in = fopen(path, "rb");
	if (!in)
		return kvb_error_set(err, KVB_EINPUT, "cannot read d3 for the plots, '%s': %s (Debian package node-d3)",
				     path, strerror(errno));
	fputs("<script>\n", f);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, f);
	fclose(in);
	fputs("\n</script>\n", f);
	return KVB_OK;
}

/* A collapsed <details> (report/format.h: fold, fold_end). */
static void fold_open(FILE *f, const char *summary)
{
	fputs("<details class=\"kvb-fold\"><summary>", f);
	esc(f, summary);
	fputs("</summary>\n", f);
}

static int render(const struct kvb_out *d, FILE *out, struct kvb_error *err)
{
	size_t plots = 0;
	int rc = KVB_OK;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; "
	      "style-src 'unsafe-inline'; img-src data:\">\n<title>",
	      out);
	esc(out, d->title ? d->title : "kvbench");
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", kvb_asset_report_css);
	esc(out, d->title ? d->title : "kvbench");
	fputs("</h1>\n", out);
	if (!d->plain) {
		fputs("<nav>", out);
		for (size_t i = 0; i < d->nsec; i++)
			if (d->sec[i].heading && d->sec[i].id && !d->sec[i].plot) {
				fprintf(out, "<a href=\"#%s\">", d->sec[i].id);
				esc(out, d->sec[i].heading);
				fputs("</a>", out);
			}
		fputs("</nav>\n", out);
	}
	for (size_t i = 0; i < d->nsec; i++) {
		const struct kvb_out_section *s = &d->sec[i];
		if (s->fold && (s->plot || !s->heading))
			fold_open(out, s->fold);
		if (s->plot) {
			/* the page's embedded data is versioned as the JSON outputs are (format.h) */
			cJSON *spec = kvb_json_versioned(cJSON_Duplicate(s->plot, 1));
			++plots;
			if (s->id)
				fprintf(out, "<figure class=\"kvb-plot\" id=\"%s\"><script type=\"application/json\">", s->id);
			else
				fprintf(out, "<figure class=\"kvb-plot\" id=\"plot-%zu\"><script type=\"application/json\">", plots);
			json_inline(out, spec);
			cJSON_Delete(spec);
			fputs("</script><figcaption>", out);
			esc(out, s->text ? s->text : "");
			fputs("</figcaption></figure>\n", out);
			if (s->fold_end)
				fputs("</details>\n", out);
			continue;
		}
		if (s->heading) {
			fputs("<h2", out);
			if (s->id)
				fprintf(out, " id=\"%s\"", s->id);
			fputs(">", out);
			esc(out, s->heading);
			fputs("</h2>\n", out);
			if (s->fold)
				fold_open(out, s->fold); /* the heading stays visible */
		}
		if (s->text) {
			fputs("<p>", out);
			esc(out, s->text);
			fputs("</p>\n", out);
		}
		if (s->table)
			table(out, s->table);
		if (s->footer) {
			fputs("<p class=\"legend\">", out);
			esc(out, s->footer);
			fputs("</p>\n", out);
		}
		if (s->fold_end)
			fputs("</details>\n", out);
	}
	if (plots) {
		if ((rc = inline_d3(out, err)))
			return rc;
		/* the page's own plot kinds register in kvbKinds before plots.js draws every figure */
		fprintf(out, "<script>\n%s</script>\n<script>\n%s</script>\n", kvb_asset_forest_js, kvb_asset_plots_js);
	}
	fputs("</body>\n</html>\n", out);
	return rc;
}

const struct kvb_format kvb_format_html = { "html", "a self-contained HTML page (inline style, script and plots)",
					    render, 0, NULL };
