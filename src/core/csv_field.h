/*
 * One field of a CSV file as RFC 4180 writes it: as it is, or, when it holds a comma, a
 * double quote or a line break (CR, LF), in double quotes with each " doubled. Text is
 * printed valid UTF-8 (core/utf8.h). Used by every CSV kvbench writes: a table's
 * (report/box.h), `export csv` (store/csvio.h), Jankbench's per-frame artifact.
 */
#ifndef KVB_CSV_FIELD_H
#define KVB_CSV_FIELD_H

#include <stdio.h>

/* Writes s (NULL: an empty field) to f as one RFC 4180 field, without a separator. */
void kvb_csv_field(FILE *f, const char *s);

#endif
