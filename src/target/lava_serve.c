/* Implements kvbench's HTTP server for the files of LAVA jobs in flight (libmicrohttpd; lava_serve.h). */
#include "target/lava_serve.h"
#include "core/buf.h"
#include "core/escape.h"
#include "core/util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

struct offer {
	char *path; /* request path as the client sends it, unescaped: "/<token>/<name>" */
	char *file; /* absolute local path, or NULL for a text held in memory */
	char *text; /* the text served (owned), when file is NULL */
	char *url;
	unsigned served;
};

static struct {
	pthread_mutex_t lock;
	struct MHD_Daemon *d;
	unsigned users;
	char address[64], base[320]; /* "http://host:port" */
	long port_asked;
	unsigned port;                /* bound */
	struct offer *v;
	size_t n;
} srv = { .lock = PTHREAD_MUTEX_INITIALIZER };

static enum MHD_Result answer_text(struct MHD_Connection *c, unsigned status, const char *text)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ok;
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain");
	ok = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				  const char *version, const char *upload, size_t *upload_size, void **req_cls)
{
	int get = !strcmp(method, MHD_HTTP_METHOD_GET), head = !strcmp(method, MHD_HTTP_METHOD_HEAD);
	char *file = NULL;
	struct MHD_Response *r;
	struct stat sb;
	enum MHD_Result ok;
	int fd;
	(void)cls;
	(void)version;
	(void)upload;
	(void)upload_size;
	(void)req_cls;
	if (!get && !head)
		return answer_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	char *text = NULL;
	pthread_mutex_lock(&srv.lock);
	for (size_t i = 0; i < srv.n; i++)
		if (!strcmp(srv.v[i].path, url)) {
			if (srv.v[i].file)
				file = kvb_xstrdup(srv.v[i].file);
			else
				text = kvb_xstrdup(srv.v[i].text ? srv.v[i].text : "");
			break;
		}
	pthread_mutex_unlock(&srv.lock);
	if (text) {
		/* a document in memory (the results a LAVA job's test shell fetches): copied into the response */
		r = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
		if (!r) {
			free(text);
			return MHD_NO;
		}
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain");
		MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
		ok = MHD_queue_response(c, MHD_HTTP_OK, r);
		MHD_destroy_response(r);
		return ok;
	}
	if (!file)
		return answer_text(c, MHD_HTTP_NOT_FOUND, "not found\n");
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		if (fd >= 0)
			close(fd);
		free(file);
		return answer_text(c, MHD_HTTP_NOT_FOUND, "gone\n");
	}
	if (!(r = MHD_create_response_from_fd64((uint64_t)sb.st_size, fd))) {
		close(fd);
		free(file);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/octet-stream");
	ok = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	if (ok == MHD_YES && get) {
		pthread_mutex_lock(&srv.lock);
		for (size_t i = 0; i < srv.n; i++)
			if (!strcmp(srv.v[i].path, url))
				srv.v[i].served++;
		pthread_mutex_unlock(&srv.lock);
	}
	free(file);
	return ok;
}

/* Binds; lock held. */
static int bind_server(const char *address, long port, const char *host, struct kvb_error *err)
{
	struct sockaddr_in in4;
	struct sockaddr_in6 in6;
	const struct sockaddr *sa;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION;
	int wildcard, fd;
	const union MHD_DaemonInfo *info;

	memset(&in4, 0, sizeof(in4));
	memset(&in6, 0, sizeof(in6));
	if (inet_pton(AF_INET, address, &in4.sin_addr) == 1) {
		in4.sin_family = AF_INET;
		in4.sin_port = htons((uint16_t)port);
		sa = (const struct sockaddr *)&in4;
		wildcard = in4.sin_addr.s_addr == htonl(INADDR_ANY);
	} else if (inet_pton(AF_INET6, address, &in6.sin6_addr) == 1) {
		in6.sin6_family = AF_INET6;
		in6.sin6_port = htons((uint16_t)port);
		sa = (const struct sockaddr *)&in6;
		wildcard = !memcmp(&in6.sin6_addr, &in6addr_any, sizeof(in6addr_any));
		flags |= MHD_USE_IPv6;
	} else {
		return kvb_error_set(err, KVB_EINPUT, "serve_address '%s' is not a numeric IPv4 or IPv6 address", address);
	}
	if (wildcard && (!host || !*host))
		return kvb_error_set(err, KVB_EINPUT,
				     "serve_address %s listens everywhere: serve_host must say how the LAVA worker "
				     "reaches this host",
				     address);
	/*
	 * The listening socket is ours: SO_REUSEADDR (not SO_REUSEPORT, which MHD's own reuse option
	 * also sets: two servers would share the port) lets a resumed run serve its LAVA jobs' files
	 * again on the port a killed kvbench had, whose connections may linger in TIME_WAIT.
	 */
	{
		int one = 1, e;
		fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
		    bind(fd, sa, sa->sa_family == AF_INET ? sizeof(in4) : sizeof(in6)) || listen(fd, 32)) {
			e = errno;
			if (fd >= 0)
				close(fd);
			return kvb_error_set(err, KVB_ETARGET, "cannot serve the LAVA jobs' files on %s port %ld: %s", address,
					     port, strerror(e));
		}
	}
	srv.d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, NULL, MHD_OPTION_LISTEN_SOCKET, fd,
				 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120, MHD_OPTION_END);
	if (!srv.d) {
		int e = errno;
		close(fd);
		return kvb_error_set(err, KVB_ETARGET, "cannot serve the LAVA jobs' files on %s port %ld: %s", address,
				     port, strerror(e ? e : EADDRINUSE));
	}
	info = MHD_get_daemon_info(srv.d, MHD_DAEMON_INFO_BIND_PORT);
	if (!host || !*host)
		host = address;
	snprintf(srv.base, sizeof(srv.base), strchr(host, ':') && host[0] != '[' ? "http://[%s]:%u" : "http://%s:%u",
		 host, info ? (unsigned)info->port : (unsigned)port);
	snprintf(srv.address, sizeof(srv.address), "%s", address);
	srv.port_asked = port;
	srv.port = info ? (unsigned)info->port : (unsigned)port;
	return KVB_OK;
}

int kvb_lava_serve_start(const char *address, long port, const char *host, struct kvb_error *err)
{
	int rc = KVB_OK;
	if (port < 0 || port > 65535)
		return kvb_error_set(err, KVB_EINPUT, "serve_port %ld is not a TCP port (0 for any free one)", port);
	pthread_mutex_lock(&srv.lock);
	/* port 0 joins the server wherever it listens; a port named must be the one it has */
	if (srv.d && (strcmp(srv.address, address) || (port && (unsigned)port != srv.port)))
		rc = kvb_error_set(err, KVB_EINPUT,
				   "kvbench already serves LAVA jobs' files on %s port %ld (one server per run), not %s "
				   "port %ld",
				   srv.address, (long)srv.port, address, port);
	else if (!srv.d)
		rc = bind_server(address, port, host, err);
	if (!rc)
		srv.users++;
	pthread_mutex_unlock(&srv.lock);
	return rc;
}

void kvb_lava_serve_stop(void)
{
	struct MHD_Daemon *d = NULL;
	pthread_mutex_lock(&srv.lock);
	if (srv.users && !--srv.users) {
		d = srv.d;
		srv.d = NULL;
	}
	pthread_mutex_unlock(&srv.lock);
	if (d)
		MHD_stop_daemon(d); /* joins its threads: outside the lock they take */
}

int kvb_lava_serve_token(char token[33], struct kvb_error *err)
{
	unsigned char rnd[16];
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return kvb_error_set(err, KVB_ETARGET, "getrandom: %s", strerror(errno));
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(token + 2 * i, 3, "%02x", rnd[i]);
	return KVB_OK;
}

/* Lock held. Adds an offer at /token/name (file or text owned by it); *url owned. */
static int add_offer(const char *token, const char *name, char *file, char *text, char **url, struct kvb_error *err)
{
	struct kvb_buf u = KVB_BUF_INIT;
	struct offer *o;
	char *path = kvb_xasprintf("/%s/%s", token, name);
	for (size_t i = 0; i < srv.n; i++)
		if (!strcmp(srv.v[i].path, path)) {
			free(path);
			free(file);
			free(text);
			return kvb_error_set(err, KVB_EINPUT, "kvbench already serves a file named '%s' for this LAVA job",
					     name);
		}
	kvb_buf_addf(&u, "%s/%s/", srv.base, token);
	kvb_buf_add_url_escaped(&u, name);
	srv.v = kvb_xrealloc(srv.v, (srv.n + 1) * sizeof(*srv.v));
	o = &srv.v[srv.n++];
	o->path = path;
	o->file = file;
	o->text = text;
	o->url = kvb_xstrdup(u.data);
	o->served = 0;
	*url = kvb_buf_detach(&u);
	return KVB_OK;
}

int kvb_lava_serve_offer_at(const char *token, const char *path, char **url, struct kvb_error *err)
{
	char *abs;
	struct stat sb;
	int rc;
	*url = NULL;
	if (!(abs = realpath(path, NULL)) || stat(abs, &sb) || !S_ISREG(sb.st_mode) || access(abs, R_OK)) {
		int e = errno;
		free(abs);
		return kvb_error_set(err, KVB_EINPUT, "cannot serve '%s' to LAVA: %s", path,
				     e ? strerror(e) : "not a regular file");
	}
	pthread_mutex_lock(&srv.lock);
	if (!srv.d) {
		pthread_mutex_unlock(&srv.lock);
		free(abs);
		return kvb_error_set(err, KVB_ETARGET, "cannot serve '%s' to LAVA: the server is not started", path);
	}
	rc = add_offer(token, strrchr(abs, '/') + 1, abs, NULL, url, err);
	pthread_mutex_unlock(&srv.lock);
	return rc;
}

int kvb_lava_serve_offer(const char *path, char **url, struct kvb_error *err)
{
	char token[33];
	int rc;
	*url = NULL;
	if ((rc = kvb_lava_serve_token(token, err)))
		return rc;
	return kvb_lava_serve_offer_at(token, path, url, err);
}

int kvb_lava_serve_text(const char *token, const char *name, const char *text, char **url, struct kvb_error *err)
{
	int rc;
	*url = NULL;
	pthread_mutex_lock(&srv.lock);
	if (!srv.d)
		rc = kvb_error_set(err, KVB_ETARGET, "cannot serve '%s' to LAVA: the server is not started", name);
	else
		rc = add_offer(token, name, NULL, kvb_xstrdup(text), url, err);
	pthread_mutex_unlock(&srv.lock);
	return rc;
}

int kvb_lava_serve_text_set(const char *url, const char *text)
{
	int found = 0;
	pthread_mutex_lock(&srv.lock);
	for (size_t i = 0; i < srv.n && !found; i++)
		if (!strcmp(srv.v[i].url, url) && !srv.v[i].file) {
			free(srv.v[i].text);
			srv.v[i].text = kvb_xstrdup(text);
			found = 1;
		}
	pthread_mutex_unlock(&srv.lock);
	return found ? 0 : -1;
}

unsigned kvb_lava_serve_port(void)
{
	unsigned p;
	pthread_mutex_lock(&srv.lock);
	p = srv.d ? srv.port : 0;
	pthread_mutex_unlock(&srv.lock);
	return p;
}

unsigned kvb_lava_serve_withdraw(const char *url)
{
	unsigned served = 0;
	pthread_mutex_lock(&srv.lock);
	for (size_t i = 0; i < srv.n; i++) {
		if (strcmp(srv.v[i].url, url))
			continue;
		served = srv.v[i].served;
		free(srv.v[i].path);
		free(srv.v[i].file);
		free(srv.v[i].text);
		free(srv.v[i].url);
		srv.v[i] = srv.v[--srv.n];
		break;
	}
	if (!srv.n) {
		free(srv.v);
		srv.v = NULL;
	}
	pthread_mutex_unlock(&srv.lock);
	return served;
}
