/*
 * serve.c - /metrics over HTTP with libmicrohttpd (see serve.h).
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <microhttpd.h>

#include "cli/serve.h"

#define GQ_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

int gq_listen_parse(const char *s, struct sockaddr_storage *ss,
		    socklen_t *len, char *err, size_t errlen)
{
	const char *arg = s, *colon = strrchr(s, ':');
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV | AI_PASSIVE };
	struct addrinfo *res = NULL;
	char host[256], *end;
	size_t hl;
	long port;
	int rc;

	if (!colon) {
		snprintf(err, errlen, "--listen \"%s\": expected ADDR:PORT, for example 127.0.0.1:9464 or :9464",
			 s);
		return -1;
	}
	port = strtol(colon + 1, &end, 10);
	if (!colon[1] || *end || port < 0 || port > 65535) {
		snprintf(err, errlen, "--listen \"%s\": port \"%s\" is not a number from 0 to 65535",
			 s, colon + 1);
		return -1;
	}
	hl = colon - s;
	if (hl >= 2 && s[0] == '[' && s[hl - 1] == ']') {	/* [IPv6] */
		s++;
		hl -= 2;
		hints.ai_family = AF_INET6;
		hints.ai_flags |= AI_NUMERICHOST;
	} else {
		hints.ai_family = AF_INET;
	}
	if (hl >= sizeof(host)) {
		snprintf(err, errlen, "--listen: address too long");
		return -1;
	}
	memcpy(host, s, hl);
	host[hl] = '\0';
	rc = getaddrinfo(hl ? host : NULL, colon + 1, &hints, &res);
	if (rc || !res) {
		snprintf(err, errlen, "--listen \"%s\": address \"%s\": %s",
			 arg, host,
			 rc ? gai_strerror(rc) : "not found");
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

typedef struct {
	gq_render_t render;
	void *ctx;
} gq_serve_ctx_t;

static enum MHD_Result _reply(struct MHD_Connection *c, unsigned status,
			      const char *text, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		len, (void *)text, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result rc;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				status == MHD_HTTP_OK ? GQ_CONTENT_TYPE :
				"text/plain; charset=utf-8");
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result _answer(void *cls, struct MHD_Connection *c,
			       const char *url, const char *method,
			       const char *version, const char *upload,
			       size_t *upload_size, void **req)
{
	static const char index[] = "gpuquota: metrics at /metrics\n";
	const gq_serve_ctx_t *s = cls;
	char err[512];
	gq_prom_t p;
	enum MHD_Result rc;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)req;
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return _reply(c, MHD_HTTP_METHOD_NOT_ALLOWED,
			      "only GET\n", 9);
	if (!strcmp(url, "/"))
		return _reply(c, MHD_HTTP_OK, index, sizeof(index) - 1);
	if (strcmp(url, "/metrics"))
		return _reply(c, MHD_HTTP_NOT_FOUND, "not found: try /metrics\n", 24);
	gq_prom_init(&p);
	if (s->render(s->ctx, &p, err, sizeof(err))) {
		size_t n = strlen(err);

		fprintf(stderr, "gpuquota: %s\n", err);
		if (n < sizeof(err) - 1)
			err[n++] = '\n';
		rc = _reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, err, n);
	} else {
		rc = _reply(c, MHD_HTTP_OK, p.buf ? p.buf : "", p.len);
	}
	gq_prom_free(&p);
	return rc;
}

/*
 * A listening socket on ss, or -1 with the reason printed; *port the port
 * it got (port 0: one the kernel chose).
 */
static int _listen(const char *addr_port, const struct sockaddr_storage *ss,
		   socklen_t len, unsigned *port)
{
	struct sockaddr_storage got;
	socklen_t glen = sizeof(got);
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (const struct sockaddr *)ss, len) || listen(fd, 16)) {
		fprintf(stderr, "gpuquota: cannot listen on %s: %s\n",
			addr_port, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = 0;
	if (!getsockname(fd, (struct sockaddr *)&got, &glen))
		*port = ntohs(got.ss_family == AF_INET6 ?
			      ((struct sockaddr_in6 *)&got)->sin6_port :
			      ((struct sockaddr_in *)&got)->sin_port);
	return fd;
}

int gq_serve(const char *addr_port, gq_render_t render, void *ctx)
{
	gq_serve_ctx_t s = { render, ctx };
	struct sockaddr_storage ss;
	struct MHD_Daemon *d;
	socklen_t len;
	sigset_t stop;
	char err[512];
	unsigned port;
	int fd, sig;

	if (gq_listen_parse(addr_port, &ss, &len, err, sizeof(err))) {
		fprintf(stderr, "gpuquota: %s\n", err);
		return 2;
	}
	if ((fd = _listen(addr_port, &ss, len, &port)) < 0)
		return 1;
	/* blocked here, so in the server's thread too: sigwait takes them */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
			     MHD_USE_ERROR_LOG |
			     (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
			     0, NULL, NULL, _answer, &s,
			     MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
			     MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "gpuquota: cannot serve on %s (libmicrohttpd refused to start)\n",
			addr_port);
		close(fd);
		return 1;
	}
	/* the port the kernel chose, for ADDR:0 */
	fprintf(stderr, "gpuquota: serving metrics on %.*s:%u at /metrics\n",
		(int)(strrchr(addr_port, ':') - addr_port), addr_port, port);
	sigwait(&stop, &sig);
	MHD_stop_daemon(d);	/* closes fd */
	return 0;
}
