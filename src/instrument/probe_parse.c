/* Implements the streaming parser for energy meter outputs (CSV, iio-capture, arm-probe, Monsoon) described in probe.h. */
#include "instrument/probe.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUF_BYTES (1u << 20)
#define MAX_FIELDS 256

struct col {
	int chan;      /* sample channel index, -1 = ignored */
	double scale;  /* value -> mW */
};

struct kvb_probe_state {
	const struct kvb_probe_parse *p;
	struct kvb_samples *out;
	struct kvb_probe_stats *st;
	int header_done;
	int ncols;
	int time_col;          /* -1: index / rate */
	int64_t time_scale;    /* ns per unit of the time column */
	struct col cols[MAX_FIELDS];
	int have_first;
	int absolute;
	int64_t first_raw, t_prev;
	uint64_t index;        /* data rows seen (Monsoon time) */
	uint64_t line;
	const char *fs[MAX_FIELDS], *fe[MAX_FIELDS];
	int nf;
};

double kvb_power_units_to_mw(const char *u)
{
	if (!strcmp(u, "W") || !strcmp(u, "w"))
		return 1000;
	if (!strcmp(u, "mW") || !strcmp(u, "mw"))
		return 1;
	if (!strcmp(u, "uW") || !strcmp(u, "uw"))
		return 0.001;
	return 0;
}

static const double pow10_tab[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
				    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

static enum kvb_err slow_double(const char *s, const char *e, double *out)
{
	char tmp[80];
	char *end;
	size_t n = (size_t)(e - s);
	if (n == 0 || n >= sizeof(tmp))
		return KVB_EINPUT;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	errno = 0;
	*out = strtod(tmp, &end);
	if (*end || !isfinite(*out))
		return KVB_EINPUT;
	return KVB_OK;
}

/* Decimal [+-]digits[.digits] without strtod (the hot path of an import); others via strtod. */
static int parse_value(const char *s, const char *e, double *out)
{
	const char *p = s;
	uint64_t m = 0;
	int digits = 0, frac = 0, neg = 0;
	if (p < e && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	while (p < e && (unsigned)(*p - '0') < 10) {
		if (digits >= 19)
			return slow_double(s, e, out);
		m = m * 10 + (uint64_t)(*p++ - '0');
		digits++;
	}
	if (p < e && *p == '.') {
		p++;
		while (p < e && (unsigned)(*p - '0') < 10) {
			if (digits < 19) {
				m = m * 10 + (uint64_t)(*p - '0');
				digits++;
				frac++;
			}
			p++;
		}
	}
	if (p != e || !digits || m >= (1ull << 53))
		return slow_double(s, e, out);
	*out = (double)m / pow10_tab[frac];
	if (neg)
		*out = -*out;
	return 0;
}

/* Time in units of scale ns ("12.5" with scale 1e9 -> 12500000000), exact to the ns. */
static enum kvb_err parse_time(const char *s, const char *e, int64_t scale, int64_t *out)
{
	const char *p = s;
	int64_t i = 0, f = 0, unit = scale;
	int digits = 0, neg = 0;
	if (p < e && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	while (p < e && (unsigned)(*p - '0') < 10) {
		if (digits >= 18)
			goto slow;
		i = i * 10 + (*p++ - '0');
		digits++;
	}
	if (p < e && *p == '.') {
		p++;
		while (p < e && (unsigned)(*p - '0') < 10) {
			unit /= 10;
			f += (*p++ - '0') * unit;
			digits++;
		}
	}
	if (p != e || !digits)
		goto slow;
	if (i > INT64_MAX / scale - 1)
		return KVB_EINPUT;
	*out = i * scale + f;
	if (neg)
		*out = -*out;
	return KVB_OK;
slow: {
	double d;
	if (slow_double(s, e, &d) || fabs(d * (double)scale) > 9e18)
		return KVB_EINPUT;
	*out = llround(d * (double)scale);
	return KVB_OK;
}
}

/* Splits [s, e) into fields. sep ',' = commas (fields trimmed), ' ' = runs of blanks, 'm' = either. */
static int split(struct kvb_probe_state *ps, char *s, char *e, char sep)
{
	ps->nf = 0;
	if (sep == ',') {
		const char *a = s;
		for (;;) {
			const char *c = memchr(a, ',', (size_t)(e - a)), *b = c ? c : e, *x = a, *y = b;
			while (x < y && (*x == ' ' || *x == '\t'))
				x++;
			while (y > x && (y[-1] == ' ' || y[-1] == '\t'))
				y--;
			if (ps->nf == MAX_FIELDS)
				return -1;
			ps->fs[ps->nf] = x;
			ps->fe[ps->nf++] = y;
			if (!c)
				break;
			a = c + 1;
		}
		return 0;
	}
	for (const char *a = s; a < e;) {
		while (a < e && (*a == ' ' || *a == '\t' || (sep == 'm' && *a == ',')))
			a++;
		if (a == e)
			break;
		const char *b = a;
		while (b < e && !(*b == ' ' || *b == '\t' || (sep == 'm' && *b == ',')))
			b++;
		if (ps->nf == MAX_FIELDS)
			return -1;
		ps->fs[ps->nf] = a;
		ps->fe[ps->nf++] = b;
		a = b;
	}
	return 0;
}

/* Field i as a new string; a CSV-quoted field ("power mW", "a ""b""") is unquoted. */
static char *field_dup(struct kvb_probe_state *ps, int i)
{
	const char *a = ps->fs[i], *b = ps->fe[i];
	char *s, *o;
	if (b - a < 2 || *a != '"' || b[-1] != '"')
		return kvb_xstrndup(a, (size_t)(b - a));
	s = o = kvb_xmalloc((size_t)(b - a));
	for (a++, b--; a < b; a++) {
		*o++ = *a;
		if (*a == '"' && a + 1 < b && a[1] == '"')
			a++;
	}
	*o = '\0';
	return s;
}

/* Lowercase, blanks to '_' (iio-capture headers have been seen both ways). */
static void normalize(char *s)
{
	for (; *s; s++)
		*s = *s == ' ' ? '_' : (char)tolower((unsigned char)*s);
}

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

/* Time column units from its name's suffix; ns per unit. */
static int64_t time_scale_of(const char *name)
{
	static const struct {
		const char *unit;
		int64_t ns;
	} u[] = { { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 } };
	for (size_t i = 0; i < KVB_ARRAY_SIZE(u); i++) {
		char a[8], b[8], c[8];
		snprintf(a, sizeof(a), "_%s", u[i].unit);
		snprintf(b, sizeof(b), "(%s)", u[i].unit);
		snprintf(c, sizeof(c), "[%s]", u[i].unit);  /* "Time [ms]" */
		if (ends_with(name, a) || ends_with(name, b) || ends_with(name, c))
			return u[i].ns;
	}
	return 1000000000;
}

/* Splits "name(W)", "name [mW]", "name_uW" into name and factor to mW; factor 0 = no units given. */
static double split_units(char *name)
{
	static const char *const units[] = { "uW", "mW", "W", NULL };
	size_t n = strlen(name);
	for (int i = 0; units[i]; i++) {
		const char *forms[] = { "(%s)", "[%s]", "_%s" };
		for (int f = 0; f < 3; f++) {
			char suf[8];
			snprintf(suf, sizeof(suf), forms[f], units[i]);
			if (ends_with(name, suf) && n > strlen(suf)) {
				size_t k = n - strlen(suf);
				while (k > 0 && name[k - 1] == ' ')
					k--;
				name[k] = '\0';
				return kvb_power_units_to_mw(units[i]);
			}
		}
	}
	return 0;
}

/*
 * devlib's MeasurementsCsv names a column SITE_KIND in SI units (devlib/instrument/__init__.py
 * MEASUREMENT_TYPES; e.g. its EnergyProbeInstrument writes BAT_current,BAT_power,BAT_voltage in
 * A, W, V, tests/fixtures/field/aep): only power is a sample channel here.
 */
static int not_power(const char *name)
{
	static const char *const kinds[] = { "_voltage", "_current", "_energy", "_temperature", NULL };
	for (int i = 0; kinds[i]; i++)
		if (ends_with(name, kinds[i]))
			return 1;
	return 0;
}

/* Applies `channels:` (select + rename) and creates the sample channels. names[i] NULL = not a value column. */
static int bind_columns(struct kvb_probe_state *ps, char **names, double *scale, int n, struct kvb_error *err)
{
	const struct kvb_probe_parse *p = ps->p;
	int rc = KVB_OK;
	for (int i = 0; i < n; i++)
		ps->cols[i].chan = -1;
	if (p->channels && p->channels->child) {
		for (const cJSON *kv = p->channels->child; kv; kv = kv->next) {
			const char *want = cJSON_IsString(kv) ? kv->valuestring : kv->string;
			int found = 0;
			for (int i = 0; i < n && !found; i++) {
				if (names[i] && !strcmp(names[i], want)) {
					ps->cols[i].chan = (int)kvb_samples_channel(ps->out, kv->string, "mW", p->instrument);
					ps->cols[i].scale = scale[i];
					found = 1;
				}
			}
			if (!found) {
				struct kvb_buf have = KVB_BUF_INIT;
				for (int i = 0; i < n; i++)
					if (names[i])
						kvb_buf_addf(&have, "%s%s", have.len ? ", " : "", names[i]);
				rc = kvb_error_set(err, KVB_EINPUT,
						   "%s:%llu: channel '%s' (column '%s') is missing from the header (columns: %s)",
						   p->path, (unsigned long long)ps->line, kv->string, want,
						   have.len ? have.data : "none");
				kvb_buf_release(&have);
				return rc;
			}
		}
		return KVB_OK;
	}
	for (int i = 0; i < n; i++) {
		if (!names[i])
			continue;
		ps->cols[i].chan = (int)kvb_samples_channel(ps->out, names[i], "mW", p->instrument);
		ps->cols[i].scale = scale[i];
	}
	return KVB_OK;
}

static int is_numeric(struct kvb_probe_state *ps, int i)
{
	double d;
	return !parse_value(ps->fs[i], ps->fe[i], &d);
}

/* A time column's normalized name: time, time_<unit>, time(<unit>), timestamp... */
static int is_time_name(const char *h)
{
	return !strcmp(h, "time") || !strncmp(h, "time_", 5) || !strncmp(h, "time(", 5) || !strncmp(h, "timestamp", 9) ||
	       !strcmp(h, "t");
}

/* "FILE:LINE: no WHAT column (expected NAMES; columns: a, b, ...)". */
static int no_column(struct kvb_probe_state *ps, const char *what, const char *expected, struct kvb_error *err)
{
	struct kvb_buf have = KVB_BUF_INIT;
	int rc;
	for (int i = 0; i < ps->nf; i++) {
		char *h = field_dup(ps, i);
		kvb_buf_addf(&have, "%s'%s'", have.len ? ", " : "", h);
		free(h);
	}
	rc = kvb_error_set(err, KVB_EINPUT, "%s:%llu: no %s column (expected %s; columns: %s)", ps->p->path,
			   (unsigned long long)ps->line, what, expected, have.len ? have.data : "none");
	kvb_buf_release(&have);
	return rc;
}

/*
 * ACME header: iio-capture's own `"vshunt mV", "vbus mV", "power mW", "current mA", "timestamp ms"`
 * (label and unit in each quoted name; BayLibre/iio-capture write_cvs_header) or devlib's
 * post-processed `shunt_voltage,bus_voltage,device_power,device_current,timestamp_time_ms`
 * (devlib acmecape.py get_data: values divided by 1000, so power in W, time left in ms).
 */
static int acme_header(struct kvb_probe_state *ps, struct kvb_error *err)
{
	const struct kvb_probe_parse *p = ps->p;
	int power = -1;
	double pscale = 0;
	for (int i = 0; i < ps->nf; i++) {
		char *raw = field_dup(ps, i), *h = kvb_xstrdup(raw);
		const char *unit = strrchr(raw, ' ');
		normalize(h);
		if (ps->time_col < 0 && !strncmp(h, "timestamp", 9)) {
			ps->time_col = i;
			ps->time_scale = ends_with(h, "_s") ? 1000000000 : ends_with(h, "_ms") ? 1000000
				       : ends_with(h, "_us") ? 1000 : ends_with(h, "_ns") ? 1 : 0;
			if (!ps->time_scale) {
				int rc = kvb_error_set(err, KVB_EINPUT, "%s:%llu: time column '%s' names no unit (s, ms, us, ns)",
						       p->path, (unsigned long long)ps->line, raw);
				free(raw);
				free(h);
				return rc;
			}
		} else if (power < 0 && unit && !strncmp(h, "power_", 6)) {
			power = i;       /* iio-capture: "power mW" */
			pscale = kvb_power_units_to_mw(unit + 1);
		} else if (power < 0 && !strchr(raw, ' ') && ends_with(h, "_power")) {
			power = i;       /* devlib: "device_power", in W */
			pscale = 1000;
		}
		if (power == i && pscale == 0) {
			int rc = kvb_error_set(err, KVB_EINPUT, "%s:%llu: power column '%s': unknown unit (W, mW, uW)",
					       p->path, (unsigned long long)ps->line, raw);
			free(raw);
			free(h);
			return rc;
		}
		free(raw);
		free(h);
	}
	if (ps->time_col < 0)
		return no_column(ps, "time", "'timestamp ms' (iio-capture) or 'timestamp_time_ms' (devlib)", err);
	if (power < 0)
		return no_column(ps, "power", "'power mW' (iio-capture) or 'device_power' (devlib, W)", err);
	ps->ncols = ps->nf;
	for (int i = 0; i < ps->nf; i++)
		ps->cols[i].chan = -1;
	ps->cols[power].chan = (int)kvb_samples_channel(ps->out, p->chan_name, "mW", p->instrument);
	ps->cols[power].scale = pscale;
	return KVB_OK;
}

/* The columns a format's header names: per field, its channel name (NULL: not a channel) and factor to mW. */
struct kvb_probe_columns {
	char *names[MAX_FIELDS];
	double scale[MAX_FIELDS];
	int data_line; /* 1: the line read as a header is data too (a header-less format) */
	int bound;     /* 1: the format bound its columns itself (ACME) */
};

/* csv: the time column found by its name, never by its position; units from the names. */
static int csv_header(struct kvb_probe_state *ps, struct kvb_probe_columns *c, struct kvb_error *err)
{
	const struct kvb_probe_parse *p = ps->p;
	int n = ps->nf;
	double def = kvb_power_units_to_mw(p->default_units ? p->default_units : "W");
	for (int i = 0; i < n; i++) {
		char *h = field_dup(ps, i);
		normalize(h);
		if (ps->time_col < 0 && is_time_name(h)) {
			ps->time_col = i;
			ps->time_scale = time_scale_of(h);
			free(h);
			continue;
		}
		free(h);
		c->names[i] = field_dup(ps, i);
		c->scale[i] = split_units(c->names[i]);
		if (c->scale[i] == 0)
			c->scale[i] = def;
	}
	if (ps->time_col < 0)
		return no_column(ps, "time", "time, time_s, time_ms, time_us, time_ns or timestamp*", err);
	if (n < 2)
		return kvb_error_set(err, KVB_EINPUT, "%s:%llu: header has a time column but no channel", p->path,
				     (unsigned long long)ps->line);
	return KVB_OK;
}

static int acme_columns(struct kvb_probe_state *ps, struct kvb_probe_columns *c, struct kvb_error *err)
{
	c->bound = 1;
	return acme_header(ps, err);
}

/* aep: arm-probe's label line, "time" and one "NAME(W)" column per channel in W. */
static int aep_header(struct kvb_probe_state *ps, struct kvb_probe_columns *c, struct kvb_error *err)
{
	const struct kvb_probe_parse *p = ps->p;
	for (int i = 0; i < ps->nf; i++) {
		char *h = field_dup(ps, i);
		if (!strcmp(h, "time") || !strcmp(h, "time(S)") || !strcmp(h, "time(s)")) {
			ps->time_col = i;
			free(h);
		} else if (ends_with(h, "(W)")) {
			h[strlen(h) - 3] = '\0';
			c->names[i] = h;
			c->scale[i] = 1000;
		} else {
			free(h);
		}
	}
	if (ps->time_col < 0)
		return kvb_error_set(err, KVB_EINPUT, "%s:%llu: arm-probe label line has no 'time' column", p->path,
				     (unsigned long long)ps->line);
	return KVB_OK;
}

/* monsoon, devlib: W values without time, a header of names or none (the first line is data). */
static int monsoon_header(struct kvb_probe_state *ps, struct kvb_probe_columns *c, struct kvb_error *err)
{
	const struct kvb_probe_parse *p = ps->p;
	if (p->rate_hz <= 0)
		return kvb_error_set(err, KVB_EINPUT, "%s: %s needs a positive rate_hz", p->path, p->format->name);
	c->data_line = is_numeric(ps, 0);
	for (int i = 0; i < ps->nf; i++) {
		if (c->data_line)
			c->names[i] = i == 0 ? kvb_xstrdup("output_power") : i == 1 ? kvb_xstrdup("usb_power")
				    : kvb_xasprintf("col%d", i + 1);
		else
			c->names[i] = field_dup(ps, i);
		c->scale[i] = 1000;
		if (!c->data_line && not_power(c->names[i])) {
			free(c->names[i]);
			c->names[i] = NULL;
		}
	}
	return KVB_OK;
}

/* The header line, read by the format's own reader; 1 when the line is data too. */
static int header(struct kvb_probe_state *ps, struct kvb_error *err)
{
	struct kvb_probe_columns *c = kvb_xcalloc(1, sizeof(*c));
	int n = ps->nf, rc;

	ps->ncols = n;
	ps->time_col = -1;
	ps->time_scale = 1000000000;
	rc = ps->p->format->header(ps, c, err);
	if (!rc && c->bound)
		ps->header_done = 1;
	else if (!rc && !(rc = bind_columns(ps, c->names, c->scale, n, err)))
		ps->header_done = 1;
	for (int i = 0; i < n; i++)
		free(c->names[i]);
	n = c->data_line;
	free(c);
	return rc ? rc : n ? 1 : KVB_OK;
}

static int data(struct kvb_probe_state *ps, struct kvb_error *err)
{
	const struct kvb_probe_parse *p = ps->p;
	int64_t t;
	if (ps->nf != ps->ncols)
		return kvb_error_set(err, KVB_EINPUT, "%s:%llu: truncated line: %d field%s, the header has %d", p->path,
				     (unsigned long long)ps->line, ps->nf, ps->nf == 1 ? "" : "s", ps->ncols);
	if (ps->time_col >= 0) {
		int64_t raw;
		if (parse_time(ps->fs[ps->time_col], ps->fe[ps->time_col], ps->time_scale, &raw))
			return kvb_error_set(err, KVB_EINPUT, "%s:%llu: time '%.*s' is not a number", p->path,
					     (unsigned long long)ps->line, (int)(ps->fe[ps->time_col] - ps->fs[ps->time_col]),
					     ps->fs[ps->time_col]);
		if (!ps->have_first) {
			ps->first_raw = raw;
			ps->absolute = p->time_mode == KVB_TIME_ABSOLUTE ||
				       (p->time_mode == KVB_TIME_AUTO && raw >= 1000000000000000000ll);
		}
		t = ps->absolute ? raw : p->base_ns + (raw - ps->first_raw);
	} else {
		t = p->base_ns + (int64_t)llround((double)ps->index * 1e9 / p->rate_hz);
	}
	if (ps->have_first && t < ps->t_prev)
		return kvb_error_set(err, KVB_EINPUT, "%s:%llu: time goes backwards (%.*s after a later sample)", p->path,
				     (unsigned long long)ps->line,
				     ps->time_col >= 0 ? (int)(ps->fe[ps->time_col] - ps->fs[ps->time_col]) : 0,
				     ps->time_col >= 0 ? ps->fs[ps->time_col] : "");
	ps->have_first = 1;
	ps->t_prev = t;
	ps->index++;
	{
		int keep = !(p->win_start_ns || p->win_stop_ns) || (t >= p->win_start_ns && t <= p->win_stop_ns);
		double v[MAX_FIELDS];
		/* All values are checked before any is added, so a bad line adds nothing. */
		for (int i = 0; i < ps->nf; i++) {
			if (ps->cols[i].chan < 0)
				continue;
			if (parse_value(ps->fs[i], ps->fe[i], &v[i]))
				return kvb_error_set(err, KVB_EINPUT, "%s:%llu: column %d: '%.*s' is not a finite number",
						     p->path, (unsigned long long)ps->line, i + 1, (int)(ps->fe[i] - ps->fs[i]),
						     ps->fs[i]);
			ps->st->samples_read++;
		}
		for (int i = 0; keep && i < ps->nf; i++) {
			int rc;
			if (ps->cols[i].chan < 0)
				continue;
			if ((rc = kvb_samples_add(ps->out, (size_t)ps->cols[i].chan, t, v[i] * ps->cols[i].scale)))
				return kvb_error_set(err, rc, "%s:%llu: storing samples failed", p->path,
						     (unsigned long long)ps->line);
			ps->st->samples_kept++;
		}
	}
	return KVB_OK;
}

static int line(struct kvb_probe_state *ps, char *s, char *e, struct kvb_error *err)
{
	const struct kvb_probe_parse *p = ps->p;
	int rc;
	if (e > s && e[-1] == '\r')
		e--;
	{
		const char *x = s;
		while (x < e && (*x == ' ' || *x == '\t'))
			x++;
		if (x == e)
			return KVB_OK;
		if (*x == '#' && ((p->format->caps & KVB_PROBE_HASH_COMMENTS) || !ps->header_done))
			return KVB_OK;
	}
	if (split(ps, s, e, p->format->sep))
		return kvb_error_set(err, KVB_EINPUT, "%s:%llu: more than %d fields", p->path, (unsigned long long)ps->line,
				     MAX_FIELDS);
	if (!ps->header_done) {
		rc = header(ps, err);
		if (rc != 1)
			return rc;
	}
	return data(ps, err);
}

int kvb_probe_parse_file(const struct kvb_probe_parse *p, struct kvb_samples *out, struct kvb_probe_stats *st,
			 struct kvb_error *err)
{
	struct kvb_probe_state *ps = kvb_xcalloc(1, sizeof(*ps));
	struct kvb_probe_stats local;
	char *buf = NULL;
	size_t have = 0;
	int fd, eof = 0, rc = KVB_OK;

	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	ps->p = p;
	ps->out = out;
	ps->st = st;
	fd = open(p->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = kvb_error_set(err, KVB_EINPUT, "cannot read '%s': %s", p->path, strerror(errno));
		goto out;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	buf = kvb_xmalloc(BUF_BYTES + 1);
	while (!rc) {
		char *s, *end;
		if (!eof) {
			ssize_t r = read(fd, buf + have, BUF_BYTES - have);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				rc = kvb_error_set(err, KVB_EINPUT, "cannot read '%s': %s", p->path, strerror(errno));
				break;
			}
			if (r == 0)
				eof = 1;
			have += (size_t)r;
			st->bytes += (uint64_t)r;
		}
		s = buf;
		end = buf + have;
		for (;;) {
			char *nl = memchr(s, '\n', (size_t)(end - s));
			if (!nl)
				break;
			ps->line++;
			if ((rc = line(ps, s, nl, err)))
				break;
			s = nl + 1;
		}
		if (rc)
			break;
		have = (size_t)(end - s);
		memmove(buf, s, have);
		if (eof) {
			if (have) {
				/* A last line without newline: a meter stopped mid-write. Use it if it is whole. */
				struct kvb_error e2;
				ps->line++;
				if (line(ps, buf, buf + have, &e2)) {
					kvb_warn("%s:%llu: dropping incomplete last line", p->path, (unsigned long long)ps->line);
					st->dropped_partial_line = 1;
				}
			}
			break;
		}
		if (have == BUF_BYTES) {
			rc = kvb_error_set(err, KVB_EINPUT, "%s:%llu: line longer than %u bytes", p->path,
					   (unsigned long long)ps->line + 1, BUF_BYTES);
			break;
		}
	}
	st->lines = ps->line;
	if (!rc && !ps->have_first && !p->allow_empty)
		rc = kvb_error_set(err, KVB_EINPUT, "%s: no samples (%s)", p->path,
				   st->bytes == 0 ? "empty file" : ps->header_done ? "header only" : "no header");
	if (!rc)
		rc = kvb_samples_finish(out);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	free(ps);
	return rc;
}

/*
 * The registry: one row a format. A meter with its own raw format adds its row here and its
 * header reader above (or in its own file); import's --format values, its usage, help and man
 * page list the rows (cli/cmd_import.c), what caps says included.
 */
const struct kvb_probe_format kvb_probe_formats[] = {
	{ "csv", "a header naming a time column (time, time_ms/_us/_ns, timestamp...; s unless named), W unless name(mW)",
	  ',', 0, csv_header },
	{ "aep", "ARM energy probe's (arm-probe / WA3 aep) space-separated output", ' ', KVB_PROBE_HASH_COMMENTS,
	  aep_header },
	{ "acme", "BayLibre ACME: iio-capture's own CSV or devlib's post-processed one", ',',
	  KVB_PROBE_FILE_PER_CHANNEL, acme_columns },
	{ "monsoon", "monsoon.py's stdout: samples, one line each", 'm', KVB_PROBE_NEEDS_RATE,
	  monsoon_header },
	{ "devlib", "a devlib CSV without time (its monsoon and energy probe CSVs, power columns kept)",
	  'm', KVB_PROBE_NEEDS_RATE, monsoon_header },
	{ NULL, NULL, 0, 0, NULL },
};

const struct kvb_probe_format *kvb_probe_format_find(const char *name)
{
	for (const struct kvb_probe_format *f = kvb_probe_formats; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

char *kvb_probe_format_names(const char *sep, const char *last)
{
	struct kvb_buf b = KVB_BUF_INIT;
	for (const struct kvb_probe_format *f = kvb_probe_formats; f->name; f++)
		kvb_buf_addf(&b, "%s%s", b.len ? (f[1].name ? sep : last) : "", f->name);
	return kvb_buf_detach(&b);
}
