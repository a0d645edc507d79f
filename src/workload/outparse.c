/* Implements strict "prefix NUMBER suffix" line matching for tool output. */
#include "workload/outparse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static enum kvb_err match_line(const char *p, const char *end, const char *prefix, const char *suffix, double *v)
{
	size_t pl = strlen(prefix), sl = strlen(suffix);
	char num[64];
	char *stop;
	size_t n;
	double d;

	p = skip_blank(p, end);
	if ((size_t)(end - p) < pl || strncmp(p, prefix, pl))
		return KVB_EINPUT;
	p = skip_blank(p + pl, end);
	n = 0;
	while (p + n < end && n < sizeof(num) - 1 && strchr("0123456789.+-eE", p[n]))
		n++;
	if (!n)
		return KVB_EINPUT;
	memcpy(num, p, n);
	num[n] = '\0';
	errno = 0;
	d = strtod(num, &stop);
	if (errno || *stop || !isfinite(d))
		return KVB_EINPUT;
	p = skip_blank(p + n, end);
	if ((size_t)(end - p) < sl || strncmp(p, suffix, sl))
		return KVB_EINPUT;
	p = skip_blank(p + sl, end);
	while (p < end && *p == '\r')
		p++;
	if (p != end)
		return KVB_EINPUT;
	*v = d;
	return KVB_OK;
}

enum kvb_err kvb_find_number(const char *text, const char *prefix, const char *suffix, double *v)
{
	const char *p = text;
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);
		if (!match_line(p, end, prefix, suffix, v))
			return KVB_OK;
		p = nl ? nl + 1 : NULL;
	}
	return KVB_EINPUT;
}

int kvb_find_number_once(const char *text, const char *prefix, const char *suffix, double *v)
{
	const char *p = text;
	int n = 0;
	double first = 0, d;
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);
		if (!match_line(p, end, prefix, suffix, &d) && n++ == 0)
			first = d;
		p = nl ? nl + 1 : NULL;
	}
	if (n == 1)
		*v = first;
	return n == 0 ? -1 : n == 1 ? 0 : n;
}
