/* Implements the short classifier labels of the report page (shortlabel.h). */
#include "report/shortlabel.h"
#include "core/buf.h"
#include "core/sha256.h"
#include "core/util.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Length of a "key=" at s (lowercase word of [a-z0-9_.] then '='), 0 when s does not start one. */
static size_t key_len(const char *s)
{
	size_t n = 0;
	while (islower((unsigned char)s[n]) || isdigit((unsigned char)s[n]) || s[n] == '_' || s[n] == '.')
		n++;
	return n && s[n] == '=' ? n + 1 : 0;
}

/*
 * End of the value starting at s: the next " key=" outside brackets and
 * quotes (a JSON value holds spaces and '=' of its own), else the end.
 */
static const char *value_end(const char *s)
{
	int depth = 0, quoted = 0;
	for (const char *p = s; *p; p++) {
		if (quoted) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				quoted = 0;
			continue;
		}
		if (*p == '"')
			quoted = 1;
		else if (*p == '[' || *p == '{')
			depth++;
		else if ((*p == ']' || *p == '}') && depth > 0)
			depth--;
		else if (*p == ' ' && !depth && key_len(p + 1))
			return p;
	}
	return s + strlen(s);
}

/* Appends the short form of the n-byte value v. */
static void short_value(struct kvb_buf *b, const char *v, size_t n)
{
	char hex[65], *copy = kvb_xstrndup(v, n);
	cJSON *j = NULL, *it;
	size_t names = 0, items = 0;
	if (n <= KVB_SHORT_VALUE) {
		kvb_buf_add(b, v, n);
		free(copy);
		return;
	}
	kvb_sha256_mem(v, n, hex);
	if (v[0] == '[' && (j = cJSON_Parse(copy)) && cJSON_IsArray(j)) {
		cJSON_ArrayForEach(it, j) {
			items++;
			names += cJSON_IsString(cJSON_GetObjectItemCaseSensitive(it, "name"));
		}
	}
	if (items && names == items) {
		kvb_buf_addf(b, "[");
		cJSON_ArrayForEach(it, j) {
			const char *nm = cJSON_GetObjectItemCaseSensitive(it, "name")->valuestring;
			kvb_buf_addf(b, "%s%.16s", it == j->child ? "" : ",", nm);
		}
		kvb_buf_addf(b, "]#%.6s", hex);
	} else {
		/* the first characters, cut on a UTF-8 boundary */
		size_t k = 16;
		while (k > 0 && ((unsigned char)v[k] & 0xc0) == 0x80)
			k--;
		kvb_buf_add(b, v, k);
		kvb_buf_addf(b, "\u2026#%.6s", hex);
	}
	cJSON_Delete(j);
	free(copy);
}

char *kvb_short_label(const char *label)
{
	struct kvb_buf b = KVB_BUF_INIT;
	const char *p = label ? label : "";
	kvb_buf_addf(&b, "%s", "");
	while (*p) {
		size_t k = key_len(p);
		const char *end;
		if (!k) { /* not a key=value label: shorten it as one value */
			short_value(&b, p, strlen(p));
			break;
		}
		kvb_buf_add(&b, p, k);
		end = value_end(p + k);
		short_value(&b, p + k, (size_t)(end - (p + k)));
		p = end;
		if (*p == ' ') {
			kvb_buf_add(&b, " ", 1);
			p++;
		}
	}
	return kvb_buf_detach(&b);
}
