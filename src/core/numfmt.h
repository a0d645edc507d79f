/* How numbers are written in tables (rounded for people) and in csv/json (full precision). */
#ifndef KVB_NUMFMT_H
#define KVB_NUMFMT_H

#include <stddef.h>

/* Compact number for tables (4 significant digits, no exponent for usual ranges) into buf; NaN is "-". Returns buf. */
const char *kvb_fmt_num(double x, char *buf, size_t n);
/* Full precision for scripts ("%.17g", round-trips a double) into buf; NaN is "". Returns buf. */
const char *kvb_fmt_raw(double x, char *buf, size_t n);

#endif
