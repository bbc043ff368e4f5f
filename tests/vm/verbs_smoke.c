// SPDX-License-Identifier: MIT
/*
 * verbs_smoke: the rdma transport end to end, through its ops table alone
 * (rp_xport_find("rdma") in the project's library), on a real (soft) RDMA
 * device. Meant to run inside tests/vm/rxe-run (tests/vm/verbs_smoke.sh):
 *
 *   tests/vm/rxe-run --timeout 300 -- build/verbs_smoke [-lnR] [-S SIZE]
 *                                     [-q DEPTH] [OP...]
 *
 * For every operation, size and depth (1 and 16) it forks a server and a
 * client process that connect over rdma_cm on RP_VM_ADDR (10.77.0.1), swap
 * local_info through pipes, and run a warm-up, a latency phase (ping) and a
 * bandwidth phase (post/poll) with --verify on (-n: off; -l: an eighth of
 * the bytes and pings, the sanitizer suite's); -S and -q pick one
 * size or depth, OP names pick operations. The phase barriers
 * (start, stop, served) live in a shared page. The first case also presents
 * a wrong token first, which the server must reject, and a wrong device,
 * each refused with a reason, and checks the note an MTU rdma_cm cannot
 * set leaves; at the end a client quits while connected (-R: none of
 * these). A failure prints the reason the transport recorded.
 *
 * Exit status: 0 all passed, 1 a case failed, 77 no RDMA device.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/spec.h"
#include "platform/clock.h"
#include "xport/verbs/params.h"
#include "xport/xport.h"

#define TOKEN	       "smoke-0123456789abcdef0123456789ab"
#define SETUP_MS       15000
#define WAIT_NS	       (60 * RP_NS_PER_SEC)
#define CASE_ALARM_S   240
#define BW_BYTES       (4u << 20) /* per bandwidth phase */
#define MAX_PINGS      1000
#define LIGHT_DIV      8 /* -l: 1/8 of the bytes and pings */
#define CLOSE_LIMIT_MS 3000

static const struct rp_xport_ops *xp; /* rp_xport_find("rdma") */
static const char *vm_addr = "10.77.0.1";
static bool verify = true;
static uint64_t only_size;  /* -S: run this size alone */
static uint32_t only_depth; /* -q: run this depth alone */
static bool extras = true;  /* -R: no token, device and abort tests */
static bool light;	    /* -l: an eighth of the bytes and pings */

/* Between the forked server and client (and read by the parent once it
 * reaped both); the flags are C11 atomics in a shared mapping. */
struct shared {
	atomic_int start[RP_PHASE__COUNT];
	atomic_int stop[RP_PHASE__COUNT];
	atomic_int served[RP_PHASE__COUNT]; /* 1 + serve()'s return */
	struct rp_side_stats st[RP_PHASE__COUNT];
	uint64_t abort_ns;   /* abort test: when the client quit */
	double srv_close_ms; /* server: how long close() took */
};

/* What the client measured: phase seconds, round trips in microseconds. */
enum { FIG_WARM_S, FIG_RTT_MEAN, FIG_RTT_P50, FIG_BW_S, FIG__COUNT };
static const int fig_of[RP_PHASE__COUNT] = { FIG_WARM_S, FIG_RTT_MEAN,
					     FIG_BW_S };

struct smoke_case {
	enum rp_op op;
	uint64_t size;
	uint32_t depth;
	bool reject_test;
	bool abort_test; /* the client quits after warm-up, still connected */
	uint64_t warm, pings, ops;
	int s2c[2], c2s[2];
	struct shared *sh;
};

/* ---- pipes carry JSON, length first ---- */

static int send_json(int fd, const cJSON *o)
{
	char *text = cJSON_PrintUnformatted(o);
	uint32_t len;
	int ok;

	if (!text)
		return -ENOMEM;
	len = (uint32_t)strlen(text);
	ok = write(fd, &len, sizeof(len)) == sizeof(len) &&
	     write(fd, text, len) == (ssize_t)len;
	free(text);
	return ok ? 0 : -EIO;
}

static cJSON *recv_json(int fd)
{
	uint32_t len, got = 0;
	cJSON *o = NULL;
	char *text;
	ssize_t n;

	if (read(fd, &len, sizeof(len)) != sizeof(len) || len > (1u << 20))
		return NULL;
	text = malloc(len + 1);
	while (text && got < len) {
		n = read(fd, text + got, len - got);
		if (n <= 0)
			break;
		got += (uint32_t)n;
	}
	if (text && got == len) {
		text[len] = '\0';
		o = cJSON_Parse(text);
	}
	free(text);
	return o;
}

static int wait_flag(const atomic_int *flag)
{
	struct timespec ts = { .tv_nsec = 100000 };
	uint64_t end = rp_clock_ns() + WAIT_NS;

	while (!atomic_load(flag)) {
		if (rp_clock_ns() > end)
			return -ETIMEDOUT;
		nanosleep(&ts, NULL);
	}
	return 0;
}

static void fill_spec(const struct smoke_case *c, struct rp_spec *sp)
{
	memset(sp, 0, sizeof(*sp));
	snprintf(sp->transport, sizeof(sp->transport), "rdma");
	sp->op = c->op;
	sp->size_bytes = c->size;
	sp->queue_depth = c->depth;
	sp->iterations = c->ops;
	sp->warmup = c->warm;
	sp->lat_iterations = c->pings;
	sp->latency = sp->bandwidth = true;
	sp->verify = verify;
	sp->streams = sp->threads = 1;
}

/* The rdma transport's own options in @p (xport/verbs/params.h). */
static struct rv_opts *rdma_block(struct rp_xport_params *p)
{
	return rp_xport_own(p, &rp_xport_rdma_options);
}

/* The server listens on the address at depth 1, on any address at 16. */
static void fill_params(const struct smoke_case *c, struct rp_xport_params *p,
			bool server)
{
	rp_xport_params_defaults(p);
	p->bind = server && c->depth == 1 ? vm_addr : NULL;
}

static double ms_since(uint64_t t0)
{
	return (double)(rp_clock_ns() - t0) / 1e6;
}

/* ---- server process ---- */

static int server_phases(struct smoke_case *c, struct rp_stream *s)
{
	int p, ret;

	for (p = 0; p < RP_PHASE__COUNT; p++) {
		if (wait_flag(&c->sh->start[p]))
			return -ETIMEDOUT;
		ret = xp->serve(&s, 1, (enum rp_phase)p, &c->sh->stop[p],
				&c->sh->st[p]);
		atomic_store(&c->sh->served[p], 1 + (ret < 0 ? 1 : 0));
		if (ret < 0) {
			fprintf(stderr, "server: serve phase %d: %s\n", p,
				rp_err_text(&s->err, ret));
			return ret;
		}
	}
	return 0;
}

static int server_exchange(struct smoke_case *c, struct rp_stream *s)
{
	cJSON *mine = cJSON_CreateObject(), *peer;
	int ret;

	ret = mine ? xp->local_info(s, mine) : -ENOMEM;
	if (!ret)
		ret = send_json(c->s2c[1], mine);
	cJSON_Delete(mine);
	peer = ret ? NULL : recv_json(c->c2s[0]);
	if (!ret)
		ret = peer ? xp->set_peer(s, peer) : -EPROTO;
	cJSON_Delete(peer);
	if (ret)
		fprintf(stderr, "server: exchange: %s\n",
			rp_err_text(&s->err, ret));
	return ret;
}

/* Listen and accept the client; say why not on stderr. */
static int server_accept(struct smoke_case *c, struct rp_listener **l,
			 struct rp_stream **s)
{
	struct rp_err why = { "" };
	struct rp_xport_params p;
	cJSON *ep = cJSON_CreateObject();
	struct rp_spec sp;
	int ret;

	fill_spec(c, &sp);
	fill_params(c, &p, true);
	ret = ep ? xp->listen(xp, &sp, &p, ep, l, &why) : -ENOMEM;
	if (ret)
		fprintf(stderr, "server: listen: %s\n", rp_err_text(&why, ret));
	if (!ret)
		ret = send_json(c->s2c[1], ep);
	cJSON_Delete(ep);
	if (ret)
		return ret;
	ret = xp->accept(*l, TOKEN, RP_ROLE_RESPONDER, SETUP_MS, s);
	if (ret)
		fprintf(stderr, "server: accept: %s\n",
			rp_err_text(&(*l)->err, ret));
	return ret;
}

static int server_main(struct smoke_case *c)
{
	struct rp_listener *l = NULL;
	struct rp_stream *s = NULL;
	uint64_t t0;
	int ret;

	ret = server_accept(c, &l, &s);
	if (!ret)
		ret = server_exchange(c, s);
	if (!ret)
		ret = server_phases(c, s);
	t0 = rp_clock_ns();
	xp->close(s);
	xp->unlisten(l);
	c->sh->srv_close_ms = ms_since(t0);
	if (ms_since(t0) > CLOSE_LIMIT_MS) {
		fprintf(stderr, "server: close took %.0f ms\n", ms_since(t0));
		ret = ret ? ret : -ETIMEDOUT;
	}
	if (ret)
		fprintf(stderr, "server: %s\n", strerror(-ret));
	return ret ? 1 : 0;
}

/* ---- client process ---- */

static int run_bw(struct rp_stream *s, uint64_t n, uint32_t depth, double *secs)
{
	uint64_t posted = 0, done = 0, room, t0 = rp_clock_ns();
	uint64_t end = t0 + WAIT_NS;
	int ret;

	while (done < n) {
		room = depth - (posted - done);
		if (room > n - posted)
			room = n - posted;
		if (room) {
			ret = xp->post(s, posted, (uint32_t)room,
				       posted + room == n);
			if (ret < 0)
				return ret;
			posted += room;
		}
		ret = xp->poll(s);
		if (ret < 0)
			return ret;
		done += (uint64_t)ret;
		if (rp_clock_ns() > end)
			return -ETIMEDOUT;
	}
	*secs = (double)(rp_clock_ns() - t0) / 1e9;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Round trips: mean into @fig[0], median into @fig[1] (microseconds). */
static int run_pings(struct rp_stream *s, uint64_t n, double *fig)
{
	static uint64_t rtt[MAX_PINGS];
	uint64_t i, t0 = rp_clock_ns(), t;
	int ret;

	for (i = 0; i < n && i < MAX_PINGS; i++) {
		t = rp_clock_ns();
		ret = xp->ping(s, i, t + 10 * RP_NS_PER_SEC);
		if (ret)
			return ret;
		rtt[i] = rp_clock_ns() - t;
	}
	fig[0] = (double)(rp_clock_ns() - t0) / 1e3 / (double)n;
	qsort(rtt, n, sizeof(rtt[0]), cmp_u64);
	fig[1] = (double)rtt[n / 2] / 1e3;
	return 0;
}

/* Run phase @p on the client, then wait until the server has served it. */
static int client_phase(struct smoke_case *c, struct rp_stream *s, int p,
			double *figure)
{
	int ret;

	atomic_store(&c->sh->start[p], 1);
	if (p == RP_PHASE_LATENCY)
		ret = run_pings(s, c->pings, figure);
	else
		ret = run_bw(s, p == RP_PHASE_WARMUP ? c->warm : c->ops,
			     c->depth, figure);
	atomic_store(&c->sh->stop[p], 1);
	if (wait_flag(&c->sh->served[p]))
		return -ETIMEDOUT;
	if (ret)
		fprintf(stderr, "client: phase %d: %s\n", p,
			rp_err_text(&s->err, ret));
	return ret ? ret : atomic_load(&c->sh->served[p]) == 1 ? 0 : -EIO;
}

/* What the server counted must match what the client did. */
static int check_server(const struct smoke_case *c)
{
	bool counts = c->op == RP_OP_SEND || c->op == RP_OP_WRITE_IMM;
	const uint64_t want[RP_PHASE__COUNT] = { c->warm, c->pings, c->ops };
	const struct rp_side_stats *st = c->sh->st;
	int p, bad = 0;
	bool wrong;

	for (p = 0; p < RP_PHASE__COUNT; p++) {
		wrong = st[p].verify_errors ||
			(counts && (st[p].messages != want[p] ||
				    st[p].bytes != want[p] * c->size));
		bad += wrong;
		if (wrong)
			fprintf(stderr,
				"client: server phase %d saw %" PRIu64
				" messages, %" PRIu64 " bytes, %" PRIu64
				" verify errors (expected %" PRIu64 ")\n",
				p, st[p].messages, st[p].bytes,
				st[p].verify_errors, counts ? want[p] : 0);
	}
	return bad ? -EIO : 0;
}

/* Connect, expecting failure @want (0: any) with a reason naming @word. */
static int client_refused(struct smoke_case *c, struct rp_xport_params *p,
			  const cJSON *ep, const char *token, int want,
			  const char *word)
{
	struct rp_err why = { "" };
	struct rp_stream *s = NULL;
	struct rp_spec sp;
	int ret;

	fill_spec(c, &sp);
	ret = xp->connect(xp, &sp, p, vm_addr, ep, token, RP_ROLE_INITIATOR,
			  5000, &s, &why);
	if (ret == 0) {
		fprintf(stderr, "client: token %s, device %s: connected\n",
			token,
			rdma_block(p)->device[0] ? rdma_block(p)->device
						 : "(any)");
		xp->close(s);
		return -EPERM;
	}
	printf("  refused as it should be: %s\n", rp_err_text(&why, ret));
	fflush(stdout);
	if ((want && ret != want) || !strstr(why.msg, word)) {
		fprintf(stderr, "client: want %s and a reason naming %s\n",
			want ? strerror(-want) : "a failure", word);
		return -EPERM;
	}
	return 0;
}

/* A wrong token is rejected by the server; a wrong device is refused. */
static int client_reject_test(struct smoke_case *c, const cJSON *ep)
{
	struct rp_xport_params p;
	int ret;

	fill_params(c, &p, false);
	ret = client_refused(c, &p, ep, "wrong-token", 0, "wrong token");
	if (ret)
		return ret;
	snprintf(rdma_block(&p)->device, RV_DEVNAME, "bogus0");
	return client_refused(c, &p, ep, TOKEN, -ENODEV, "bogus0");
}

/* The first case's client asked for no inline data and device rxe0; the
 * MTU in use is reported (--mtu is the spec's now, tests/vm/guest_qp.py). */
static int check_info(const struct rp_stream *s, const cJSON *info)
{
	const cJSON *inl = cJSON_GetObjectItemCaseSensitive(info, "max_inline");
	const cJSON *dev = cJSON_GetObjectItemCaseSensitive(info, "device");
	const cJSON *mtu = cJSON_GetObjectItemCaseSensitive(info, "mtu");
	char *t = cJSON_PrintUnformatted(info);

	printf("  client local_info %s\n  client note: %s\n", t ? t : "?",
	       s->note);
	fflush(stdout);
	free(t);
	if (cJSON_IsNumber(inl) && inl->valuedouble == 0 &&
	    cJSON_IsString(dev) && strcmp(dev->valuestring, "rxe0") == 0 &&
	    cJSON_IsNumber(mtu) && mtu->valuedouble == 1024)
		return 0;
	fprintf(stderr, "client: local_info lacks max_inline 0, device rxe0, "
			"or mtu 1024\n");
	return -EPROTO;
}

/* Swap local_info with the server. */
static int client_exchange(struct smoke_case *c, struct rp_stream *s)
{
	cJSON *mine = cJSON_CreateObject(), *peer = NULL;
	int ret;

	ret = mine ? xp->local_info(s, mine) : -ENOMEM;
	if (!ret)
		ret = send_json(c->c2s[1], mine);
	if (!ret)
		ret = (peer = recv_json(c->s2c[0])) ? xp->set_peer(s, peer)
						    : -EPROTO;
	if (ret)
		fprintf(stderr, "client: exchange: %s\n",
			rp_err_text(&s->err, ret));
	if (!ret && c->reject_test)
		ret = check_info(s, mine);
	cJSON_Delete(mine);
	cJSON_Delete(peer);
	return ret;
}

static int client_connect(struct smoke_case *c, struct rp_stream **s)
{
	struct rp_err why = { "" };
	struct rp_xport_params p;
	struct rp_spec sp;
	cJSON *ep;
	int ret;

	fill_spec(c, &sp);
	fill_params(c, &p, false);
	if (c->reject_test) { /* explicit options, once */
		/* the device rdma_cm picks: accepted */
		snprintf(rdma_block(&p)->device, RV_DEVNAME, "rxe0");
		rdma_block(&p)->inline_bytes = 0;
	}
	ep = recv_json(c->s2c[0]);
	if (!ep)
		return -EPROTO;
	ret = c->reject_test ? client_reject_test(c, ep) : 0;
	if (!ret) {
		ret = xp->connect(xp, &sp, &p, vm_addr, ep, TOKEN,
				  RP_ROLE_INITIATOR, SETUP_MS, s, &why);
		if (ret)
			fprintf(stderr, "client: connect: %s\n",
				rp_err_text(&why, ret));
	}
	cJSON_Delete(ep);
	return ret ? ret : client_exchange(c, *s);
}

static void report(const struct smoke_case *c, const double *fig,
		   double close_ms)
{
	double bw_ops = (double)c->ops / fig[FIG_BW_S];

	printf("%-9s %7" PRIu64 " B q%-2u %7.0f ops/s %6.2f MB/s | "
	       "%4" PRIu64 " pings: mean %8.1f us, median %7.1f us | "
	       "close %3.0f ms\n",
	       rp_op_name(c->op), c->size, c->depth, bw_ops,
	       bw_ops * (double)c->size / 1e6, c->pings, fig[FIG_RTT_MEAN],
	       fig[FIG_RTT_P50], close_ms);
	fflush(stdout);
}

/* Quit as a crashed client would: no close(), the server told to stop. */
static void client_abort(struct smoke_case *c)
{
	int p;

	for (p = 0; p < RP_PHASE__COUNT; p++) {
		atomic_store(&c->sh->stop[p], 1);
		atomic_store(&c->sh->start[p], 1);
	}
	c->sh->abort_ns = rp_clock_ns();
	fflush(NULL);
	_exit(0);
}

static int client_main(struct smoke_case *c)
{
	struct rp_stream *s = NULL;
	double fig[FIG__COUNT] = { 0 };
	uint64_t t0, errs = 0;
	double close_ms;
	int p, ret;

	ret = client_connect(c, &s);
	for (p = 0; !ret && p < RP_PHASE__COUNT; p++) {
		if (c->abort_test && p == RP_PHASE_LATENCY)
			client_abort(c);
		ret = client_phase(c, s, p, &fig[fig_of[p]]);
	}
	if (!ret && (errs = xp->verify_errors(s)) != 0) {
		fprintf(stderr, "client: %" PRIu64 " verify errors\n", errs);
		ret = -EIO;
	}
	if (!ret)
		ret = check_server(c);
	t0 = rp_clock_ns();
	xp->close(s);
	close_ms = ms_since(t0);
	if (!ret && close_ms > CLOSE_LIMIT_MS)
		ret = -ETIMEDOUT;
	if (!ret)
		report(c, fig, close_ms);
	else
		fprintf(stderr, "client: %s %" PRIu64 " B q%u failed: %s\n",
			rp_op_name(c->op), c->size, c->depth, strerror(-ret));
	return ret ? 1 : 0;
}

/* ---- driver ---- */

static pid_t spawn(int (*fn)(struct smoke_case *), struct smoke_case *c)
{
	pid_t pid = fork();

	if (pid == 0) {
		alarm(CASE_ALARM_S);
		exit(fn(c)); /* not _exit: LeakSanitizer runs at exit */
	}
	return pid;
}

static bool reaped_ok(pid_t pid, const char *who)
{
	int st;

	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return false;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return true;
	if (WIFSIGNALED(st))
		fprintf(stderr, "%s killed by signal %d\n", who, WTERMSIG(st));
	return false;
}

static int run_case(struct smoke_case *c)
{
	double exit_ms;
	pid_t srv, cli;
	bool ok;

	c->sh = mmap(NULL, sizeof(*c->sh), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c->sh == MAP_FAILED || pipe(c->s2c) || pipe(c->c2s))
		return -errno;
	fflush(NULL);
	srv = spawn(server_main, c);
	cli = spawn(client_main, c);
	close(c->s2c[0]);
	close(c->s2c[1]);
	close(c->c2s[0]);
	close(c->c2s[1]);
	ok = reaped_ok(cli, "client");
	exit_ms = ms_since(c->sh->abort_ns);
	ok = reaped_ok(srv, "server") && ok;
	if (c->abort_test)
		printf("%-9s abort after warm-up: client exit took %.0f ms, "
		       "server close %.0f ms\n",
		       rp_op_name(c->op), exit_ms, c->sh->srv_close_ms);
	if (c->abort_test && exit_ms > CLOSE_LIMIT_MS)
		ok = false;
	munmap(c->sh, sizeof(*c->sh));
	return ok ? 0 : -EIO;
}

static void size_case(struct smoke_case *c)
{
	c->ops = BW_BYTES / c->size / (light ? LIGHT_DIV : 1);
	if (c->ops > 2000)
		c->ops = 2000;
	if (c->ops < 8)
		c->ops = 8;
	c->warm = c->ops / 10 > c->depth ? c->ops / 10 : c->depth;
	c->pings = c->size <= 4096 ? MAX_PINGS : c->size <= 65536 ? 50 : 5;
	if (light)
		c->pings = c->pings / LIGHT_DIV > 2 ? c->pings / LIGHT_DIV : 2;
}

static int run_op(enum rp_op op, bool *first, int *cases)
{
	static const uint64_t sizes[] = { 1, 64, 4096, 65536, 1 << 20 };
	static const uint32_t depths[] = { 1, 16 };
	struct smoke_case c;
	int fails = 0;
	size_t i, j, nsizes = op >= RP_OP_FETCH_ADD ? 1 : 5;

	for (i = 0; i < nsizes; i++) {
		for (j = 0; j < 2; j++) {
			memset(&c, 0, sizeof(c));
			c.op = op;
			c.size = op >= RP_OP_FETCH_ADD ? 8 : sizes[i];
			c.depth = only_depth ? only_depth : depths[j];
			if ((only_size && c.size != only_size) ||
			    (only_depth && j))
				continue;
			c.reject_test = *first && extras;
			*first = false;
			size_case(&c);
			fails += run_case(&c) ? 1 : 0;
			++*cases;
		}
	}
	return fails;
}

/* A client that exits while connected must not hang either side. */
static int run_abort(enum rp_op op, int *cases)
{
	struct smoke_case c = { .op = op, .size = 4096, .depth = 16 };

	size_case(&c);
	c.abort_test = true;
	++*cases;
	return run_case(&c) ? 1 : 0;
}

/* Probe in a child: librdmacm's state must not be shared by forks. */
static int probe(void)
{
	struct rp_err why = { "" };
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if (xp->probe(xp, &why) == 0)
			_exit(0);
		printf("SKIP: %s\n", why.msg);
		fflush(stdout);
		_exit(77);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 1;
	return WEXITSTATUS(st);
}

static bool wanted(enum rp_op op, int argc, char **argv)
{
	int i;

	for (i = optind; i < argc; i++)
		if (strcmp(argv[i], rp_op_name(op)) == 0)
			return true;
	return argc <= optind;
}

int main(int argc, char **argv)
{
	uint64_t t0 = rp_clock_ns();
	int op, fails = 0, cases = 0, ret;
	bool first = true;

	while ((ret = getopt(argc, argv, "lnRS:q:")) != -1) {
		if (ret == 'l')
			light = true;
		else if (ret == 'n')
			verify = false;
		else if (ret == 'R')
			extras = false;
		else if (ret == 'S')
			only_size = strtoull(optarg, NULL, 0);
		else if (ret == 'q')
			only_depth = (uint32_t)strtoul(optarg, NULL, 0);
		else
			return 2;
	}
	if (getenv("RP_VM_ADDR"))
		vm_addr = getenv("RP_VM_ADDR");
	xp = rp_xport_find("rdma");
	if (!xp) {
		printf("SKIP: built without the rdma transport\n");
		return 77;
	}
	ret = probe();
	if (ret)
		return ret;
	printf("rdma transport smoke test on %s, verify %s\n", vm_addr,
	       verify ? "on" : "off");
	for (op = 0; op < RP_OP__COUNT; op++)
		if (wanted((enum rp_op)op, argc, argv))
			fails += run_op((enum rp_op)op, &first, &cases);
	if (extras && wanted(RP_OP_SEND, argc, argv))
		fails += run_abort(RP_OP_SEND, &cases);
	if (extras && wanted(RP_OP_WRITE, argc, argv))
		fails += run_abort(RP_OP_WRITE, &cases);
	printf("%d of %d cases failed, %.1f s\n", fails, cases,
	       ms_since(t0) / 1e3);
	return fails ? 1 : 0;
}
