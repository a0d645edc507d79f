/*
 * Host key checking for the ssh target against an OpenSSH known_hosts file,
 * with libssh2's knownhost API.
 *
 * Entries are looked up the way OpenSSH does: "host" for port 22,
 * "[host]:port" otherwise (plain or hashed |1| names). A key of another type
 * than the one offered is not a mismatch; a recorded key of the same type that
 * differs is. Lines libssh2 cannot parse (unknown key types, @cert-authority,
 * @revoked markers) are skipped, so one odd line does not disable checking.
 */
#ifndef KVB_SSH_KNOWN_HOSTS_H
#define KVB_SSH_KNOWN_HOSTS_H

#include "core/error.h"

#include <libssh2.h>
#include <stddef.h>

/*
 * Host key algorithms for libssh2_session_method_pref(LIBSSH2_METHOD_HOSTKEY),
 * with the types already recorded for this host first, so a host known by its
 * ed25519 key is not asked for its ECDSA key and then reported unknown (OpenSSH
 * orders its proposal the same way). Writes a comma list into out (n bytes).
 */
void kvb_ssh_hostkey_prefs(LIBSSH2_SESSION *s, const char *known_hosts, const char *host, int port, char *out,
			   size_t n);

/*
 * Checks the key the server offered in the finished handshake of s.
 * accept_new: an unknown host's key is appended to known_hosts (file and its
 * directory created 0600/0700 if missing) and accepted; otherwise refused.
 * A changed key is always refused. Returns KVB_OK or KVB_ETARGET; the message
 * names host, port, the file and the offered key's SHA256 fingerprint.
 */
int kvb_ssh_hostkey_verify(LIBSSH2_SESSION *s, const char *known_hosts, const char *host, int port, int accept_new,
			   struct kvb_error *err);

#endif
