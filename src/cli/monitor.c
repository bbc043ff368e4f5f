// SPDX-License-Identifier: MIT
/*
 * rdmaperf monitor's command line and schedule (cli/monitor.h):
 *
 *   rdmaperf monitor [--listen ADDR:PORT] [--textfile PATH] [--once] CONFIG
 *
 * Each peer is probed every interval, one peer at a time, in the config's
 * order; a probe that fails marks its peer down and its next probe waits
 * interval x 2^(failures - 1), at most backoff_max. A peer never stops the
 * monitor: its failure is a line on stderr and a 0 in the figures.
 *
 *   peer up:    probe -> next at its start + interval
 *   peer down:  probe -> next at its end + min(interval x 2^(n-1), max)
 *
 * Exit status: 0 (a signal, or --once with every peer up), 1 (--once with
 * a peer down, or a runtime failure), 2 (bad usage or config).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/monitor.h"
#include "platform/clock.h"
#include "platform/os.h"

#define USAGE                                                                  \
	"usage: rdmaperf monitor [--listen ADDR:PORT] [--textfile PATH] "      \
	"[--once] CONFIG\n"

static atomic_int stop;

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&stop, 1);
}

struct monitor {
	struct rp_mon_conf conf;
	const char *listen;   /* --listen, or NULL: the config's */
	const char *textfile; /* --textfile, or the config's, or NULL */
	bool once;
	struct rp_mon_shared sh;
	struct rp_mon_peer *work; /* the peer being probed, off the lock */
	double *due;		  /* each peer's next probe, monotonic s */
	struct rp_mon_http *http;
	bool told_duty; /* the duty cycle's excess, said once */
};

__attribute__((format(printf, 1, 2))) static int usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rdmaperf monitor: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n" USAGE);
	return 2;
}

static int help(void)
{
	printf(USAGE
	       "Probes each peer of CONFIG every interval, one at a time: an "
	       "unloaded ping-pong,\n"
	       "a short burst and the link counters' deltas, judged by the "
	       "peer's expect. Serves\n"
	       "the figures as OpenMetrics on http://ADDR:PORT/metrics and "
	       "writes them as\n"
	       "node_exporter's textfile. doc/monitor.md says every key of "
	       "CONFIG.\n"
	       "  --listen ADDR:PORT  serve /metrics there (default: listen, "
	       "or 127.0.0.1:%d)\n"
	       "  --textfile PATH     write the figures to PATH after each "
	       "probe (atomically)\n"
	       "  --once              probe every peer once, write the "
	       "textfile, exit (no HTTP)\n"
	       "Exit status: 0 stopped by a signal (or --once, every peer "
	       "up); 1 --once with a\n"
	       "peer down; 2 bad usage or config.\n",
	       RP_MON_PORT_DEFAULT);
	return -1;
}

static int parse(struct monitor *m, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "textfile", required_argument, NULL, 't' },
		{ "once", no_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0; /* glibc: 0 resets it */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case 'l':
			m->listen = optarg;
			break;
		case 't':
			m->textfile = optarg;
			break;
		case 'o':
			m->once = true;
			break;
		case 'h':
			return help();
		case ':':
			return usage("an option needs an argument: %s",
				     argv[optind - 1]);
		default:
			return usage("unknown option %s", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage("no CONFIG file (an example: dist/monitor.conf)");
	if (optind + 1 < argc)
		return usage("unexpected argument %s", argv[optind + 1]);
	return 0;
}

static double now_s(void)
{
	return (double)rp_clock_mono_ns() / 1e9;
}

/* The figures after a probe of peer @i: stored for the next scrape, the
 * duty cycle anew, the textfile rewritten. Only this thread writes the
 * figures: the lock keeps a scrape from reading them half stored, and the
 * textfile is written from them after it (fsync may take a while). */
static void publish(struct monitor *m, size_t i)
{
	struct rp_mon_snapshot *s = &m->sh.snap;
	char err[RP_MON_ERR_LEN];
	double sending = 0;
	size_t k;

	pthread_mutex_lock(&m->sh.lock);
	s->p[i] = *m->work;
	for (k = 0; k < s->n; k++)
		sending += s->p[k].sending_s;
	s->duty = sending / s->interval_s;
	pthread_mutex_unlock(&m->sh.lock);
	if (m->textfile &&
	    rp_mon_textfile_write(s, m->textfile, err, sizeof(err)))
		fprintf(stderr, "rdmaperf monitor: textfile: %s\n", err);
	if (s->duty > s->max_duty && !m->told_duty) {
		m->told_duty = true; /* once: it is in the figures */
		fprintf(stderr,
			"rdmaperf monitor: the probes sent %.1f%% of the "
			"interval, above max_duty_cycle %g%%: their "
			"ping-pongs (lat_iterations) took longer than the "
			"bound leaves them\n",
			100 * s->duty, 100 * s->max_duty);
	}
}

/* Probe peer @i now; when it is due next. */
static void probe(struct monitor *m, size_t i)
{
	const struct rp_mon_peer_conf *pc = &m->conf.peers[i];
	struct rp_mon_peer *p = m->work;
	double t0 = now_s(), wait = m->conf.interval_s;
	bool was_down;

	*p = m->sh.snap.p[i]; /* only this thread writes it */
	was_down = p->probed && !p->up;
	if (rp_mon_probe(pc, p, &stop) == 0) {
		if (was_down)
			fprintf(stderr, "rdmaperf monitor: peer %s: up again\n",
				pc->name);
		m->due[i] = t0 + wait;
	} else if (!atomic_load(&stop)) {
		wait *= pow(2, p->consecutive_failures - 1);
		wait = fmin(wait, m->conf.backoff_max_s);
		m->due[i] = now_s() + wait;
		fprintf(stderr,
			"rdmaperf monitor: peer %s (%s port %u): down: %s",
			pc->name, pc->cfg.test.host, pc->cfg.test.port,
			p->reason);
		if (!m->once)
			fprintf(stderr, " (%u in a row; next probe in %.0f s)",
				p->consecutive_failures, wait);
		fprintf(stderr, "\n");
	}
	p->backoff_s = wait;
	publish(m, i);
}

/* Sleep until @until (monotonic s) or a signal. */
static void sleep_until(double until)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	while (!atomic_load(&stop) && now_s() < until)
		nanosleep(&ts, NULL);
}

static int run(struct monitor *m)
{
	size_t i, next;
	int down = 0;

	if (m->once) {
		for (i = 0; i < m->conf.n_peers && !atomic_load(&stop); i++) {
			probe(m, i);
			down += !m->sh.snap.p[i].up;
		}
		return down ? 1 : 0;
	}
	while (!atomic_load(&stop)) {
		for (next = 0, i = 1; i < m->conf.n_peers; i++)
			if (m->due[i] < m->due[next])
				next = i;
		sleep_until(m->due[next]);
		if (!atomic_load(&stop))
			probe(m, next);
	}
	return 0;
}

/* The figures before any probe, the HTTP side, the first textfile. */
static int start(struct monitor *m)
{
	const struct rp_mon_conf *c = &m->conf;
	const char *listen = m->listen ? m->listen : c->listen;
	struct rp_mon_snapshot *s = &m->sh.snap;
	char err[RP_MON_ERR_LEN];
	size_t i;

	snprintf(s->source, sizeof(s->source), "%s", c->source);
	s->interval_s = c->interval_s;
	s->max_duty = c->max_duty;
	s->n = c->n_peers;
	s->p = calloc(c->n_peers, sizeof(*s->p));
	m->work = malloc(sizeof(*m->work));
	m->due = calloc(c->n_peers, sizeof(*m->due));
	if (!s->p || !m->work || !m->due) {
		fprintf(stderr, "rdmaperf monitor: out of memory\n");
		return 1;
	}
	for (i = 0; i < c->n_peers; i++) {
		rp_mon_peer_init(&c->peers[i], &s->p[i]);
		m->due[i] = now_s();
	}
	if (!m->textfile && c->textfile[0])
		m->textfile = c->textfile;
	if (m->textfile &&
	    rp_mon_textfile_write(s, m->textfile, err, sizeof(err))) {
		fprintf(stderr, "rdmaperf monitor: textfile: %s\n", err);
		return 2;
	}
	if (m->once || !listen[0])
		return 0;
	if (rp_mon_http_start(listen, &m->sh, &m->http, err, sizeof(err))) {
		if (m->listen)
			fprintf(stderr, "rdmaperf monitor: --listen: %s\n",
				err);
		else if (c->listen_line)
			fprintf(stderr, "rdmaperf monitor: %s:%u: listen: %s\n",
				c->path, c->listen_line, err);
		else
			fprintf(stderr,
				"rdmaperf monitor: %s: listen (the default): "
				"%s\n",
				c->path, err);
		return 2;
	}
	return 0;
}

int rp_monitor_main(int argc, char **argv)
{
	struct monitor *m = calloc(1, sizeof(*m));
	char err[RP_MON_ERR_LEN];
	int rc;

	if (!m) {
		fprintf(stderr, "rdmaperf monitor: out of memory\n");
		return 1;
	}
	pthread_mutex_init(&m->sh.lock, NULL);
	rc = parse(m, argc, argv);
	if (rc)
		goto out;
	if (rp_mon_conf_load(argv[optind], &m->conf, err, sizeof(err))) {
		fprintf(stderr, "rdmaperf monitor: %s\n", err);
		rc = 2;
		goto out;
	}
	rp_os_on_interrupt(on_signal);
	rp_clock_init();
	rc = start(m);
	if (rc)
		goto out;
	if (!m->once)
		fprintf(stderr,
			"rdmaperf monitor: %zu peer(s) every %g s, at most "
			"%g%% of it sending; /metrics on %s%s%s\n",
			m->conf.n_peers, m->conf.interval_s,
			100 * m->conf.max_duty,
			m->http ? (m->listen ? m->listen : m->conf.listen)
				: "(none)",
			m->textfile ? "; textfile " : "",
			m->textfile ? m->textfile : "");
	rc = run(m);
out:
	rp_mon_http_stop(m->http);
	rp_mon_conf_free(&m->conf);
	free(m->sh.snap.p);
	free(m->work);
	free(m->due);
	pthread_mutex_destroy(&m->sh.lock);
	free(m);
	return rc < 0 ? 0 : rc;
}
