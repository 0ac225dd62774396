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

struct gq_server {
	struct MHD_Daemon *d;
};

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
	static const char oom[] = "gpuquota: out of memory\n";
	gq_scrape_answer_t a;
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
	gq_scrape_get(cls, &a);
	if (a.body)
		rc = _reply(c, a.status, a.body, a.len);
	else
		rc = _reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, oom,
			    sizeof(oom) - 1);
	gq_scrape_answer_free(&a);
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

gq_server_t *gq_serve_start(const char *addr_port, gq_scrape_cache_t *cache,
			    unsigned *port, int *status)
{
	struct sockaddr_storage ss;
	gq_server_t *s;
	socklen_t len;
	char err[512];
	int fd;

	*status = 1;
	if (gq_listen_parse(addr_port, &ss, &len, err, sizeof(err))) {
		fprintf(stderr, "gpuquota: %s\n", err);
		*status = 2;
		return NULL;
	}
	if (!(s = calloc(1, sizeof(*s)))) {
		fprintf(stderr, "gpuquota: out of memory\n");
		return NULL;
	}
	if ((fd = _listen(addr_port, &ss, len, port)) < 0) {
		free(s);
		return NULL;
	}
	/* a pool: a request is answered from the cache while a load runs */
	s->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
				MHD_USE_ERROR_LOG |
				(ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				0, NULL, NULL, _answer, cache,
				MHD_OPTION_LISTEN_SOCKET, fd,
				MHD_OPTION_THREAD_POOL_SIZE,
				(unsigned)GQ_SERVE_THREADS,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
				MHD_OPTION_END);
	if (!s->d) {
		fprintf(stderr, "gpuquota: cannot serve on %s (libmicrohttpd refused to start)\n",
			addr_port);
		close(fd);
		free(s);
		return NULL;
	}
	*status = 0;
	return s;
}

void gq_serve_stop(gq_server_t *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->d);	/* closes the listening socket */
	free(s);
}

int gq_serve(const char *addr_port, gq_scrape_cache_t *cache)
{
	gq_server_t *s;
	sigset_t stop;
	unsigned port;
	int sig, status;

	/* blocked here, so in the server's threads too: sigwait takes them */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	if (!(s = gq_serve_start(addr_port, cache, &port, &status)))
		return status;
	/* the port the kernel chose, for ADDR:0 */
	fprintf(stderr, "gpuquota: serving metrics on %.*s:%u at /metrics (Slurm read at most every %g s)\n",
		(int)(strrchr(addr_port, ':') - addr_port), addr_port, port,
		cache->interval);
	sigwait(&stop, &sig);
	gq_serve_stop(s);
	return 0;
}
