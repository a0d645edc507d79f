/*
 * What the simulated devices (the tests/sim/NAME_sim.c programs) share: a listening TCP
 * socket on 127.0.0.1, files written whole (a reader never sees half a
 * file), the --port-file convention, -v logging and the stop signals. Linked into every sim as the
 * kvb_sim_net library (tests/sim/CMakeLists.txt).
 */
#ifndef KVB_SIM_NET_H
#define KVB_SIM_NET_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

/* The sim's name ("adbd_sim"), prefixing its messages; main() sets it first. */
extern const char *kvb_sim_name;
/* Set by -v: kvb_sim_log() prints. */
extern int kvb_sim_verbose;
/* Becomes 1 on SIGTERM or SIGINT once kvb_sim_catch_signals() ran: the sim's loop ends. */
extern volatile sig_atomic_t kvb_sim_stop;

/* When kvb_sim_verbose: "NAME: message\n" on stderr. */
void kvb_sim_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* SIGTERM and SIGINT set kvb_sim_stop; SIGPIPE is ignored (a vanished peer gives EPIPE instead). */
void kvb_sim_catch_signals(void);

/*
 * Listens on 127.0.0.1:*port (0 = any free port) with SO_REUSEADDR; flags
 * are extra socket() type flags (SOCK_NONBLOCK, SOCK_CLOEXEC), backlog goes
 * to listen(). On success sets *port to the bound port and returns the fd;
 * else says "WHO: cannot listen on 127.0.0.1:PORT: why" on stderr (except
 * when no socket can be made at all) and returns -1.
 */
int kvb_sim_listen(int *port, int flags, int backlog, const char *who);
/* Writes n bytes of data to PATH.tmp with mode, then renames it to path. Errors are ignored. */
void kvb_sim_write_file(const char *path, const void *data, size_t n, mode_t mode);
/* Writes "PORT\n" to path (the --port-file tests poll for), as kvb_sim_write_file does. */
void kvb_sim_write_port_file(const char *path, int port);

#endif
