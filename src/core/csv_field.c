/* Implements the RFC 4180 CSV field (csv_field.h). */
#include "core/csv_field.h"
#include "core/utf8.h"

#include <stdlib.h>
#include <string.h>

void kvb_csv_field(FILE *f, const char *raw)
{
	char *clean = kvb_utf8_clean(raw ? raw : "", raw ? strlen(raw) : 0);
	const char *s = clean;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		free(clean);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
	free(clean);
}
