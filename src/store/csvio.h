/*
 * Long-format CSV import and export of results (one row per metric value):
 *
 *   variant,workload,metric,value,units,lower_is_better,iteration[,boot][,section][,KEY...]
 *
 * Any other column is a classifier. `boot` (or `round`) maps to the boot
 * unit of the statistics. Export writes the same format, so export -> import
 * -> export is lossless (values printed with %.17g). CSV is RFC 4180, read
 * with libcsv.
 */
#ifndef KVB_CSVIO_H
#define KVB_CSVIO_H

#include "store/store.h"

#include <stdio.h>

/*
 * Imports FILE into a new run (status 'imported'). Every bad row is reported
 * in err (up to 20, each "FILE:LINE: ...") and nothing is imported from a
 * file with errors (KVB_EINPUT). *run_id receives the new run.
 */
int kvb_csv_import(struct kvb_store *s, const char *file, int64_t *run_id, struct kvb_error *err);

/* Writes run_id's results (0 = latest run) as long-format CSV to out. */
int kvb_csv_export(struct kvb_store *s, int64_t run_id, FILE *out, struct kvb_error *err);

#endif
