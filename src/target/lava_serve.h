/*
 * kvbench's HTTP server for the files of the LAVA jobs in flight (docs/design.md#pools-and-lava):
 * a LAVA worker downloads a variant's kernel, initrd and the root filesystem from
 * this host over HTTP, so it need not share this host's filesystem. Built on
 * libmicrohttpd (Debian libmicrohttpd-dev).
 *
 * Only offered files are served: each gets a URL of its own,
 *   http://HOST:PORT/<32 hex digits from getrandom()>/<file's base name>
 * and every other path, method or withdrawn file is answered 404/405. The URL
 * path is compared whole to the offered ones (no file system lookup from a
 * request path: no directory traversal). Files are opened when requested
 * (regular files only) and sent with sendfile (MHD_create_response_from_fd).
 *
 * One server per process, shared by the LAVA targets of a run (one target per
 * LAVA slot, in pool threads): the first kvb_lava_serve_start() binds, the
 * others join (same address and port), the last kvb_lava_serve_stop() closes.
 * Thread-safe.
 */
#ifndef KVB_LAVA_SERVE_H
#define KVB_LAVA_SERVE_H

#include "core/error.h"

/*
 * Starts (or joins) the server. A later call with port 0 joins the server on
 * whatever port it has; one naming a port must name the port it has. address: a numeric IPv4 or IPv6 address to bind
 * ("127.0.0.1", "0.0.0.0", "::"); port: 0 for any free port; host: the name
 * or address the LAVA worker reaches this host by, put in the URLs (NULL: the
 * address; required when the address is a wildcard). KVB_EINPUT for a bad
 * address or port, KVB_ETARGET when it cannot bind (the message says why).
 */
int kvb_lava_serve_start(const char *address, long port, const char *host, struct kvb_error *err);
/* Leaves the server; the last one out stops it (waits for transfers in progress). */
void kvb_lava_serve_stop(void);

/*
 * Offers one local file: *url (owned) is where it can be fetched from until
 * withdrawn. KVB_EINPUT when the file is not a readable regular file.
 */
int kvb_lava_serve_offer(const char *path, char **url, struct kvb_error *err);
/* A fresh unguessable URL path component: 32 hex digits from getrandom() + NUL. KVB_ETARGET when it fails. */
int kvb_lava_serve_token(char token[33], struct kvb_error *err);
/*
 * Offers a local file at /token/<its base name> (one token per LAVA job: its files
 * and documents share it). KVB_EINPUT for a file that is not a readable regular
 * file, or when that name is offered under token already.
 */
int kvb_lava_serve_offer_at(const char *token, const char *path, char **url, struct kvb_error *err);
/* Offers a text held in memory (copied) at /token/name; *url owned. Served with Cache-Control: no-store. */
int kvb_lava_serve_text(const char *token, const char *name, const char *text, char **url, struct kvb_error *err);
/* Replaces the text offered at url (as returned by kvb_lava_serve_text). 0, or -1 when url is not a text offered. */
int kvb_lava_serve_text_set(const char *url, const char *text);
/* The port the server listens on, or 0 when it is not running. */
unsigned kvb_lava_serve_port(void);
/* Stops serving url (as returned by offer); returns how many GET requests it answered 200. */
unsigned kvb_lava_serve_withdraw(const char *url);

#endif
