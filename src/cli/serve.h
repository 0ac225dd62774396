/*
 * serve.h - `gpuquota metrics --listen ADDR:PORT`: the exposition over
 * HTTP at /metrics, with libmicrohttpd.
 *
 * Owns the listening address syntax and the HTTP side; each scrape asks
 * the caller for the text afresh.
 */
#ifndef GPUQUOTA_CLI_SERVE_H
#define GPUQUOTA_CLI_SERVE_H

#include <stddef.h>
#include <sys/socket.h>

#include "tools/prom.h"

/* Fill out with the exposition; 0, or -1 with the reason in err. */
typedef int (*gq_render_t)(void *ctx, gq_prom_t *out, char *err,
			   size_t errlen);

/*
 * ADDR:PORT: an IPv4 address or host name, or [IPv6], and a port
 * 0-65535 (0: any free port, said on stderr when serving); an empty ADDR
 * (":9464") listens on every IPv4 address.
 * Returns 0, or -1 with the reason in err.
 */
int gq_listen_parse(const char *s, struct sockaddr_storage *ss,
		    socklen_t *len, char *err, size_t errlen);

/*
 * Serve GET /metrics on addr_port (one request at a time) until SIGINT or
 * SIGTERM.  Returns the command's exit status: 0 when stopped by a
 * signal, 2 for a bad ADDR:PORT, 1 when it cannot listen there.
 */
int gq_serve(const char *addr_port, gq_render_t render, void *ctx);

#endif
