/* Implements sim_net.h: the listener and file helpers of the simulated devices. */
#include "sim_net.h"

#include "core/util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

const char *kvb_sim_name = "sim";
int kvb_sim_verbose;
volatile sig_atomic_t kvb_sim_stop;

void kvb_sim_log(const char *fmt, ...)
{
	va_list ap;
	if (!kvb_sim_verbose)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", kvb_sim_name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void on_signal(int sig)
{
	(void)sig;
	kvb_sim_stop = 1;
}

void kvb_sim_catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int kvb_sim_listen(int *port, int flags, int backlog, const char *who)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)*port) };
	socklen_t al = sizeof(a);
	int one = 1;
	int fd = socket(AF_INET, SOCK_STREAM | flags, 0);
	if (fd < 0)
		return -1;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, backlog) ||
	    getsockname(fd, (struct sockaddr *)&a, &al)) {
		fprintf(stderr, "%s: cannot listen on 127.0.0.1:%d: %s\n", who, *port, strerror(errno));
		close(fd);
		return -1;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

void kvb_sim_write_file(const char *path, const void *data, size_t n, mode_t mode)
{
	char *tmp = kvb_xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (f) {
		fwrite(data, 1, n, f);
		fclose(f);
		chmod(tmp, mode);
		rename(tmp, path);
	}
	free(tmp);
}

void kvb_sim_write_port_file(const char *path, int port)
{
	char text[16];
	snprintf(text, sizeof(text), "%d\n", port);
	kvb_sim_write_file(path, text, strlen(text), 0644);
}
