/*
 * Control characters shown as their C escapes, so a string printed on one line
 * (a table cell, a message that compares two strings) shows every byte it has:
 * "\n", "\r", "\t", other C0 controls and DEL as "\xHH", and the C1 controls
 * U+0080..U+009F (UTF-8 C2 80..C2 9F; U+009B is a terminal's CSI) as
 * "\u0080".."\u009f". Every other byte (printable ASCII, other UTF-8) stays.
 * A backslash is not escaped: the escapes are for reading, not for parsing back.
 */
#ifndef KVB_ESCAPE_H
#define KVB_ESCAPE_H

#include "core/buf.h"

#include <stddef.h>

/*
 * The escape of the character at s, or NULL when it prints as it is. *len
 * receives its length in bytes (1, or 2 for a C1 control). The escape is a
 * literal or is written to buf.
 */
const char *kvb_ctl_escape(const char *s, char buf[8], size_t *len);
/* Appends s to b with every control character as its escape (kvb_ctl_escape). */
void kvb_buf_add_escaped(struct kvb_buf *b, const char *s);
/* s with its control characters escaped, a new string (free() it); "(null)" for NULL. */
char *kvb_escaped(const char *s);
/*
 * Appends s to b percent-encoded for a URL path segment or query value: RFC 3986's unreserved
 * characters (A-Z a-z 0-9 - . _ ~) stay, every other byte is %XX (upper-case hex), as libcurl's
 * curl_easy_escape() writes it (a device, tag or file name in a LAVA URL).
 */
void kvb_buf_add_url_escaped(struct kvb_buf *b, const char *s);

#endif
