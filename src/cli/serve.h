/*
 * serve.h - `gpuquota metrics --listen ADDR:PORT`: the exposition over
 * HTTP at /metrics, with libmicrohttpd.
 *
 * Owns the listening address syntax and the HTTP side; what a scrape
 * gets is the cache's (cli/scrape_cache.h).
 */
#ifndef GPUQUOTA_CLI_SERVE_H
#define GPUQUOTA_CLI_SERVE_H

#include <stddef.h>
#include <sys/socket.h>

#include "cli/scrape_cache.h"

/*
 * ADDR:PORT: an IPv4 address or host name, or [IPv6], and a port
 * 0-65535 (0: any free port, said on stderr when serving); an empty ADDR
 * (":9464") listens on every IPv4 address.
 * Returns 0, or -1 with the reason in err.
 */
int gq_listen_parse(const char *s, struct sockaddr_storage *ss,
		    socklen_t *len, char *err, size_t errlen);

/* A running server (GQ_SERVE_THREADS threads answer requests). */
typedef struct gq_server gq_server_t;
#define GQ_SERVE_THREADS 4

/*
 * Serve GET /metrics on addr_port from cache in threads of its own; *port
 * the port it got.  NULL with the reason said on stderr and *status the
 * command's exit status: 2 for a bad ADDR:PORT, 1 when it cannot listen
 * there.
 */
gq_server_t *gq_serve_start(const char *addr_port, gq_scrape_cache_t *cache,
			    unsigned *port, int *status);
void gq_serve_stop(gq_server_t *s);

/*
 * gq_serve_start, then serve until SIGINT or SIGTERM.  Returns the
 * command's exit status: 0 when stopped by a signal, else as
 * gq_serve_start.
 */
int gq_serve(const char *addr_port, gq_scrape_cache_t *cache);

#endif
