/*
 * The one helper that turns an argv into a string for a remote POSIX shell
 * (ssh exec, adb shell). Every argument is single-quoted, with each ' written
 * as '\'' , so any bytes (quotes, ;, $(), backticks, newlines, UTF-8) reach
 * the remote program unchanged. Source: POSIX.1-2017 XCU 2.2.2 Single-Quotes.
 */
#ifndef KVB_QUOTE_H
#define KVB_QUOTE_H

#include "core/buf.h"

void kvb_shell_quote(struct kvb_buf *out, const char *arg);
/* Appends the quoted words of argv separated by spaces. */
void kvb_shell_join(struct kvb_buf *out, const char *const *argv);

#endif
