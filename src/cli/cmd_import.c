/* Implements `kvbench import csv FILE` (long-format results, or WA3 results.csv with --variant), `import wa3 DIR --variant NAME` and `import energy FILE --job ID`. */
#include "cli/cli.h"
#include "core/buf.h"
#include "core/util.h"
#include "instrument/energy_import.h"
#include "store/csvio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The option groups: `import csv`/`import wa3` parse one, `import energy` the other. */
static const char csv_group[] = "import csv and import wa3:", energy_group[] = "import energy:";

static const char *const synopsis[] = { "import csv <file> [-d <db>]",
					 "import csv <results.csv> --variant <name> [<options>]",
					 "import wa3 <dir> --variant <name> [<options>]",
					 "import energy <file> --job <id> [<options>]", NULL };

static const struct kvb_option options[] = {
	KVB_OPT_DB(),
	KVB_OPT_GROUP(csv_group),
	KVB_OPT_VALUE('V', "variant", "name", "the variant WA3 results are stored as (they name no kernel)"),
	KVB_OPT_VALUE('L', "lower-is-better", "glob", "the metrics whose name matches GLOB (sqlite GLOB: *, ?, [...]) are\n"
						   "lower is better (results.csv does not say; a result.json may say\n"
						   "it wrong: WA3's hackbench test_time); repeatable"),
	KVB_OPT_GROUP(energy_group),
	KVB_OPT_VALUE('j', "job", "id", "the stored job the recording belongs to"),
	KVB_OPT_CHOICE('f', "format", "format", kvb_values_probe_formats, "the recording's format: @values@ (default csv)"),
	KVB_OPT_VALUE('u', "units", "units", "value columns without units are in W, mW or uW (default W)"),
	KVB_OPT_VALUE('r', "rate", "hz", "samples per second, for a format without time (the formats below say which)"),
	KVB_OPT_VALUE('c', "channel", "name", "the channel's name"),
	KVB_OPT_FLAG('x', "cut", "keep only the samples within the job"),
	KVB_OPT_END(),
};

/* Appends word-wrapped text to b at column indent, lines at most 100 wide; the first line goes on b's current line. */
static void add_wrapped(struct kvb_buf *b, const char *text, int indent)
{
	int col = indent;
	for (const char *w = text; *w;) {
		size_t n = strcspn(w, " ");
		if (col > indent && col + 1 + (int)n > 100) {
			kvb_buf_addf(b, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			kvb_buf_addf(b, " ");
			col++;
		}
		kvb_buf_addf(b, "%.*s", (int)n, w);
		col += (int)n;
		w += n + strspn(w + n, " ");
	}
	kvb_buf_addf(b, "\n");
}

/* The energy formats, one row of the registry (instrument/probe.h kvb_probe_formats[]) a paragraph. */
static char *formats_text(void)
{
	struct kvb_buf b = KVB_BUF_INIT;
	kvb_buf_addf(&b, "\nenergy formats (--format; the first is the default):\n");
	for (const struct kvb_probe_format *f = kvb_probe_formats; f->name; f++) {
		char *line = kvb_xasprintf("%s%s%s", f->summary,
					   f->caps & KVB_PROBE_NEEDS_RATE ? "; no time in the file: give --rate" : "",
					   f->caps & KVB_PROBE_FILE_PER_CHANNEL ? "; one file a channel (--channel names it)" : "");
		kvb_buf_addf(&b, "  %-9s", f->name);
		add_wrapped(&b, line, 11);
		free(line);
	}
	return kvb_buf_detach(&b);
}

const struct kvb_cmd_usage kvb_usage_import = {
	synopsis, options,
	"csv: columns variant, workload, metric, value [, units, lower_is_better, iteration, boot|round,\n"
	"section, warmup]; any other column is a classifier. A row with iteration 0 or warmup 1/true is\n"
	"a warm-up run: stored (status warmup, `show jobs`), never compared. Bad rows are reported with\n"
	"their line; nothing is imported then.\n"
	"wa3 (or csv of WA3's results.csv): WA3's results.csv or output directory (which name no kernel)\n"
	"as variant NAME: one job per WA3 job id and iteration with all its metrics; the directory also\n"
	"gives status, retries, classifiers and lower_is_better.\n"
	"energy: attaches a probe recording to a stored job (streamed; any size), in one of the formats\n"
	"below. Relative times start at the job's start. Channels of the same name are replaced.\n",
	formats_text,
};

/* `import energy FILE --job ID ...` (options anywhere: getopt moves the words to the end). */
static int import_energy(struct kvb_cli *cli, int argc, char **argv)
{
	struct kvb_getopt g;
	struct kvb_energy_import_opts io;
	struct kvb_probe_stats ps;
	struct kvb_store *st = NULL;
	struct kvb_error err;
	int64_t job = 0;
	const struct kvb_probe_format *fmt = NULL;
	int c, rc;
	memset(&io, 0, sizeof(io));
	if (kvb_getopt_init(&g, "import", &kvb_usage_import, energy_group))
		return KVB_EINTERNAL;
	while ((c = kvb_getopt_next(&g, argc, argv)) != -1) {
		if (c == 'j') {
			if (kvb_parse_i64(optarg, &job) || job < 1)
				return kvb_cli_usage("import", "--job '%s': expected a job id", optarg);
		} else if (c == 'f') {
			/* the formats' registry (probe.h kvb_probe_formats) */
			if (!(fmt = kvb_probe_format_find(optarg)))
				return kvb_getopt_bad_value(&g, c, optarg);
			io.format = fmt;
		} else if (c == 'u') {
			if (!kvb_power_units_to_mw(optarg))
				return kvb_cli_usage("import", "--units '%s': expected W, mW or uW", optarg);
			io.default_units = optarg;
		} else if (c == 'r') {
			if (kvb_parse_double(optarg, &io.rate_hz) || io.rate_hz <= 0)
				return kvb_cli_usage("import", "--rate '%s': expected samples per second", optarg);
		} else if (c == 'c') {
			io.chan_name = optarg;
		} else if (c == 'x') {
			io.cut_to_job = 1;
		} else {
			return kvb_getopt_bad(&g, argv);
		}
	}
	if (optind + 2 != argc || strcmp(argv[optind], "energy"))
		return kvb_cli_usage("import", "expected `import energy FILE --job ID`");
	if (!job)
		return kvb_cli_usage("import", "import energy needs --job ID");
	if (fmt && (fmt->caps & KVB_PROBE_NEEDS_RATE) && io.rate_hz <= 0)
		return kvb_cli_usage("import", "%s files have no timestamps: give --rate HZ", fmt->name);
	if ((rc = kvb_cli_store(cli, &st, &err)) ||
	    (rc = kvb_energy_import_csv(st, job, argv[optind + 1], &io, &ps, &err)))
		kvb_cli_fail(&err);
	else
		printf("imported %llu samples from %s into job %lld\n", (unsigned long long)ps.samples_kept, argv[optind + 1],
		       (long long)job);
	return rc;
}

/* What the first line of a CSV file says it holds. */
enum csv_kind {
	CSV_LONG,   /* another header: kvbench's long format (its importer checks it) */
	CSV_WA3,    /* WA3's results.csv header (`id,workload,iteration,metric,...`) */
	CSV_EMPTY,  /* no line at all (the long-format importer says so with its line, unless --variant) */
};

/*
 * *kind from FILE's first line, after a UTF-8 byte order mark (which Excel writes).
 * KVB_EINPUT (in err) when FILE cannot be read (missing, a directory); an empty file is
 * CSV_EMPTY with err filled too, for the caller that refuses it.
 */
static enum kvb_err sniff_csv(const char *file, enum csv_kind *kind, struct kvb_error *err)
{
	char line[64] = "";
	const char *p = line;
	FILE *f = fopen(file, "r");
	*kind = CSV_LONG;
	if (!f)
		return kvb_error_set(err, KVB_EINPUT, "cannot read %s: %s", file, strerror(errno));
	if (!fgets(line, sizeof(line), f)) {
		int empty = !ferror(f);
		kvb_error_set(err, KVB_EINPUT, "cannot read %s: %s", file, empty ? "empty file" : strerror(errno));
		fclose(f);
		*kind = CSV_EMPTY;
		return empty ? KVB_OK : KVB_EINPUT;
	}
	fclose(f);
	if (!strncmp(p, "\xEF\xBB\xBF", 3))
		p += 3;
	if (!strncmp(p, "id,workload,iteration,metric,", 29))
		*kind = CSV_WA3;
	return KVB_OK;
}

int kvb_cmd_import(struct kvb_cli *cli, int argc, char **argv)
{
	struct kvb_getopt g;
	const char *variant = NULL, *lower[16];
	size_t nlower = 0;
	size_t skipped = 0;
	struct kvb_store *st = NULL;
	struct kvb_error err;
	int64_t run = 0;
	int c, rc;
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-')
			continue;
		if (!strcmp(argv[i], "energy"))
			return import_energy(cli, argc, argv);
		break;
	}
	if (kvb_getopt_init(&g, "import", &kvb_usage_import, csv_group))
		return KVB_EINTERNAL;
	while ((c = kvb_getopt_next(&g, argc, argv)) != -1) {
		if (c == 'V')
			variant = optarg;
		else if (c == 'L' && nlower < KVB_ARRAY_SIZE(lower) && *optarg)
			lower[nlower++] = optarg;
		else if (c == 'L')
			return kvb_cli_usage("import", "--lower-is-better '%s': give a metric name or glob (at most %zu)",
					     optarg, KVB_ARRAY_SIZE(lower));
		else
			return kvb_getopt_bad(&g, argv);
	}
	if (nlower && optind < argc && !strcmp(argv[optind], "energy"))
		return kvb_cli_usage("import", "--lower-is-better is for `import csv` and `import wa3`");
	if (optind + 2 != argc || (strcmp(argv[optind], "csv") && strcmp(argv[optind], "wa3")))
		return kvb_cli_usage("import", "expected `import csv FILE [--variant NAME]`, `import wa3 DIR --variant NAME` "
					       "or `import energy FILE --job ID`");
	if (variant && !*variant)
		return kvb_cli_usage("import", "--variant '': a variant needs a name");
	{
		/* WA3's results.csv and output directories name no kernel: the variant comes from --variant */
		int wa3dir = !strcmp(argv[optind], "wa3"), wa3csv;
		enum csv_kind kind = CSV_LONG;
		if (!wa3dir && (sniff_csv(argv[optind + 1], &kind, &err) || (kind == CSV_EMPTY && variant)))
			return kvb_cli_fail(&err);
		wa3csv = kind == CSV_WA3;
		if ((wa3dir || wa3csv) && !variant)
			return kvb_cli_usage("import", "%s holds WA3 results, which name no variant: give --variant NAME",
					     argv[optind + 1]);
		if (!wa3dir && !wa3csv && variant)
			return kvb_cli_usage("import", "--variant is for WA3 results; %s has its own variant column",
					     argv[optind + 1]);
		if ((rc = kvb_cli_store(cli, &st, &err)) ||
		    (rc = wa3dir   ? kvb_wa3_dir_import(st, argv[optind + 1], variant, &run, &err)
			  : wa3csv ? kvb_wa3_csv_import(st, argv[optind + 1], variant, &run, &skipped, &err)
				   : kvb_csv_import(st, argv[optind + 1], &run, &err)))
			kvb_cli_fail(&err);
		else
			printf("imported %s as run %lld%s%s\n", argv[optind + 1], (long long)run,
			       skipped ? " (run-level metrics, which belong to no job, not imported)" : "",
			       wa3csv && !nlower ? "; results.csv does not say lower_is_better: every metric is stored as "
						   "higher is better unless named by --lower-is-better GLOB"
						 : "");
		for (size_t i = 0; !rc && i < nlower; i++) {
			int n = 0;
			if ((rc = kvb_store_mark_lower_is_better(st, run, lower[i], &n, &err))) {
				kvb_cli_fail(&err);
				break;
			}
			printf("--lower-is-better '%s': %d metric value%s of run %lld now lower is better\n", lower[i], n,
			       n == 1 ? "" : "s", (long long)run);
			kvb_store_event(st, run, "info", "import --lower-is-better '%s': %d metric values set lower is better",
					lower[i], n);
		}
	}
	return rc;
}
