/* Implements host key checking against OpenSSH known_hosts files for the ssh target. */
#include "target/ssh_known_hosts.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One host key type: libssh2's session type, its knownhost type, the algorithms that use it. */
struct key_kind {
	int hostkey_type;   /* LIBSSH2_HOSTKEY_TYPE_* */
	int knownhost_type; /* LIBSSH2_KNOWNHOST_KEY_* */
	const char *name;   /* for messages */
	const char *algs;   /* for the method preference list */
};

/* In OpenSSH's default preference order (ssh_config(5) HostKeyAlgorithms). */
static const struct key_kind kinds[] = {
	{ LIBSSH2_HOSTKEY_TYPE_ED25519, LIBSSH2_KNOWNHOST_KEY_ED25519, "ED25519", "ssh-ed25519" },
	{ LIBSSH2_HOSTKEY_TYPE_ECDSA_256, LIBSSH2_KNOWNHOST_KEY_ECDSA_256, "ECDSA", "ecdsa-sha2-nistp256" },
	{ LIBSSH2_HOSTKEY_TYPE_ECDSA_384, LIBSSH2_KNOWNHOST_KEY_ECDSA_384, "ECDSA", "ecdsa-sha2-nistp384" },
	{ LIBSSH2_HOSTKEY_TYPE_ECDSA_521, LIBSSH2_KNOWNHOST_KEY_ECDSA_521, "ECDSA", "ecdsa-sha2-nistp521" },
	{ LIBSSH2_HOSTKEY_TYPE_RSA, LIBSSH2_KNOWNHOST_KEY_SSHRSA, "RSA", "rsa-sha2-512,rsa-sha2-256,ssh-rsa" },
	{ LIBSSH2_HOSTKEY_TYPE_DSS, LIBSSH2_KNOWNHOST_KEY_SSHDSS, "DSA", "ssh-dss" },
};

static const struct key_kind *kind_of(int hostkey_type)
{
	for (size_t i = 0; i < KVB_ARRAY_SIZE(kinds); i++)
		if (kinds[i].hostkey_type == hostkey_type)
			return &kinds[i];
	return NULL;
}

/* The name OpenSSH records: "host" for port 22, "[host]:port" otherwise. */
static char *entry_name(const char *host, int port)
{
	return port == 22 ? kvb_xstrdup(host) : kvb_xasprintf("[%s]:%d", host, port);
}

/*
 * Reads known_hosts line by line into a new collection. A missing file is an
 * empty collection. Returns NULL only when libssh2 cannot allocate one.
 */
static LIBSSH2_KNOWNHOSTS *load(LIBSSH2_SESSION *s, const char *file)
{
	LIBSSH2_KNOWNHOSTS *kh = libssh2_knownhost_init(s);
	struct kvb_buf text = KVB_BUF_INIT, one = KVB_BUF_INIT;
	int skipped = 0;
	if (!kh)
		return NULL;
	if (kvb_buf_read_file(&text, file)) {
		if (errno != ENOENT)
			kvb_warn("ssh: cannot read known_hosts '%s': %s", file, strerror(errno));
		kvb_buf_release(&text);
		return kh;
	}
	for (char *line = text.data, *next; line && *line; line = next) {
		size_t len = strcspn(line, "\n");
		next = line[len] ? line + len + 1 : NULL;
		while (*line == ' ' || *line == '\t')
			line++, len--;
		if (!len || *line == '#' || *line == '\r')
			continue;
		if (*line == '@') {
			skipped++;
			continue;
		}
		/* as libssh2_knownhost_readfile() does: one NUL-terminated line with its newline */
		kvb_buf_reset(&one);
		kvb_buf_add(&one, line, len);
		kvb_buf_addc(&one, '\n');
		if (libssh2_knownhost_readline(kh, one.data, one.len, LIBSSH2_KNOWNHOST_FILE_OPENSSH))
			skipped++;
	}
	if (skipped)
		kvb_debug("ssh: %d line(s) of '%s' not understood by libssh2, skipped", skipped, file);
	kvb_buf_release(&text);
	kvb_buf_release(&one);
	return kh;
}

/* Does the collection hold a key of this type for name? A dummy key then answers MISMATCH. */
static int has_type(LIBSSH2_KNOWNHOSTS *kh, const char *name, int knownhost_type)
{
	return libssh2_knownhost_checkp(kh, name, -1, "x", 1,
					LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | knownhost_type,
					NULL) == LIBSSH2_KNOWNHOST_CHECK_MISMATCH;
}

void kvb_ssh_hostkey_prefs(LIBSSH2_SESSION *s, const char *known_hosts, const char *host, int port, char *out,
			   size_t n)
{
	LIBSSH2_KNOWNHOSTS *kh = load(s, known_hosts);
	char *name = entry_name(host, port);
	struct kvb_buf b = KVB_BUF_INIT;
	int known[KVB_ARRAY_SIZE(kinds)] = { 0 };
	for (size_t i = 0; kh && i < KVB_ARRAY_SIZE(kinds); i++)
		known[i] = has_type(kh, name, kinds[i].knownhost_type);
	const char **algs = NULL;
	int nalgs = libssh2_session_supported_algs(s, LIBSSH2_METHOD_HOSTKEY, &algs);
	/*
	 * Only names this libssh2 supports: 1.10 removes unsupported ones from
	 * the list with an overlapping memcpy (undefined behaviour).
	 */
	for (int pass = 1; pass >= 0; pass--)
		for (size_t i = 0; i < KVB_ARRAY_SIZE(kinds); i++) {
			char *list;
			if (known[i] != pass)
				continue;
			list = kvb_xstrdup(kinds[i].algs);
			for (char *save = NULL, *a = strtok_r(list, ",", &save); a; a = strtok_r(NULL, ",", &save))
				for (int j = 0; j < nalgs; j++)
					if (!strcmp(a, algs[j])) {
						kvb_buf_addf(&b, "%s%s", b.len ? "," : "", a);
						break;
					}
			free(list);
		}
	if (nalgs > 0)
		libssh2_free(s, (void *)algs);
	snprintf(out, n, "%s", b.data);
	kvb_buf_release(&b);
	free(name);
	if (kh)
		libssh2_knownhost_free(kh);
}

/* "SHA256:<base64 without padding>", as ssh-keygen -l prints it. */
static void fingerprint(LIBSSH2_SESSION *s, char *out, size_t n)
{
	const unsigned char *h = (const unsigned char *)libssh2_hostkey_hash(s, LIBSSH2_HOSTKEY_HASH_SHA256);
	unsigned char b64[64];
	int len;
	if (!h) {
		snprintf(out, n, "SHA256:?");
		return;
	}
	len = EVP_EncodeBlock(b64, h, 32);
	while (len > 0 && b64[len - 1] == '=')
		len--;
	snprintf(out, n, "SHA256:%.*s", len, (const char *)b64);
}

/* Appends one entry line to the file, creating it (and its directory) if needed. */
static int append_entry(LIBSSH2_KNOWNHOSTS *kh, struct libssh2_knownhost *entry, const char *file,
			struct kvb_error *err)
{
	char line[8192];
	size_t len = 0;
	int fd, rc = KVB_OK;
	char *dir = kvb_xstrdup(file), *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (kvb_mkdir_p(dir, 0700))
			kvb_warn("ssh: cannot create '%s': %s", dir, strerror(errno));
	}
	free(dir);
	if (libssh2_knownhost_writeline(kh, entry, line, sizeof(line), &len, LIBSSH2_KNOWNHOST_FILE_OPENSSH))
		return kvb_error_set(err, KVB_ETARGET, "cannot format a known_hosts line");
	fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return kvb_error_set(err, KVB_ETARGET, "cannot open known_hosts '%s': %s", file, strerror(errno));
	/* Make sure the new entry starts on its own line even if the file lacks a final newline. */
	{
		char last = '\n';
		off_t end = lseek(fd, 0, SEEK_END);
		if (end > 0 && pread(fd, &last, 1, end - 1) == 1 && last != '\n' && write(fd, "\n", 1) != 1)
			rc = kvb_error_set(err, KVB_ETARGET, "cannot write known_hosts '%s': %s", file, strerror(errno));
	}
	if (!rc && write(fd, line, len) != (ssize_t)len)
		rc = kvb_error_set(err, KVB_ETARGET, "cannot write known_hosts '%s': %s", file, strerror(errno));
	if (close(fd) && !rc)
		rc = kvb_error_set(err, KVB_ETARGET, "cannot write known_hosts '%s': %s", file, strerror(errno));
	return rc;
}

int kvb_ssh_hostkey_verify(LIBSSH2_SESSION *s, const char *known_hosts, const char *host, int port, int accept_new,
			   struct kvb_error *err)
{
	size_t keylen = 0;
	int type = 0, rc = KVB_OK, res;
	const char *key = libssh2_session_hostkey(s, &keylen, &type);
	const struct key_kind *kind = kind_of(type);
	LIBSSH2_KNOWNHOSTS *kh = NULL;
	struct libssh2_knownhost *entry = NULL;
	char *name = entry_name(host, port), fp[96];

	fingerprint(s, fp, sizeof(fp));
	if (!key || !kind) {
		rc = kvb_error_set(err, KVB_ETARGET, "'%s' port %d offered a host key of a type libssh2 cannot check", host,
				   port);
		goto out;
	}
	kh = load(s, known_hosts);
	if (!kh) {
		rc = kvb_error_set(err, KVB_ETARGET, "cannot allocate a known_hosts collection");
		goto out;
	}
	res = libssh2_knownhost_checkp(kh, name, -1, key, keylen,
				       LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | kind->knownhost_type,
				       &entry);
	switch (res) {
	case LIBSSH2_KNOWNHOST_CHECK_MATCH:
		break;
	case LIBSSH2_KNOWNHOST_CHECK_MISMATCH:
		rc = kvb_error_set(err, KVB_ETARGET,
				   "host key of '%s' port %d has CHANGED: the %s key it offers (%s) differs from the one "
				   "recorded for '%s' in '%s'; someone may be intercepting the connection, or the board "
				   "was reinstalled; if you trust the new key, remove the old one with "
				   "`ssh-keygen -R '%s' -f '%s'` and connect again",
				   host, port, kind->name, fp, name, known_hosts, name, known_hosts);
		break;
	case LIBSSH2_KNOWNHOST_CHECK_NOTFOUND:
		if (!accept_new) {
			rc = kvb_error_set(err, KVB_ETARGET,
					   "host key of '%s' port %d is unknown: no %s key for '%s' in '%s' (offered "
					   "%s); add it (e.g. `ssh-keyscan -p %d %s >> '%s'`, then check the "
					   "fingerprint) or set `host_key: accept-new` in the connection",
					   host, port, kind->name, name, known_hosts, fp, port, host, known_hosts);
			break;
		}
		if (libssh2_knownhost_addc(kh, name, NULL, key, keylen, "added by kvbench", 16,
					   LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW |
						   kind->knownhost_type,
					   &entry)) {
			rc = kvb_error_set(err, KVB_ETARGET, "cannot record the host key of '%s'", name);
			break;
		}
		rc = append_entry(kh, entry, known_hosts, err);
		if (!rc)
			kvb_info("ssh: recorded the %s host key of '%s' (%s) in '%s'", kind->name, name, fp, known_hosts);
		break;
	default:
		rc = kvb_error_set(err, KVB_ETARGET, "cannot check the host key of '%s' against '%s'", name,
				   known_hosts);
		break;
	}
out:
	if (kh)
		libssh2_knownhost_free(kh);
	free(name);
	return rc;
}
