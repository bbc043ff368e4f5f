// SPDX-License-Identifier: MIT
/*
 * verbs_smoke: the rdma transport end to end, through its ops table alone,
 * on a real (soft) RDMA device. Meant to run inside tests/vm/rxe-run:
 *
 *   tests/vm/rxe-run --timeout 300 -- /tmp/verbs_smoke [-nR] [-S SIZE]
 *                                     [-q DEPTH] [OP...]
 *
 * For every operation, size and depth (1 and 16) it forks a server and a
 * client process that connect over rdma_cm on RP_VM_ADDR (10.77.0.1), swap
 * local_info through pipes, and run a warm-up, a latency phase (ping) and a
 * bandwidth phase (post/poll) with --verify on (-n: off); -S and -q pick one
 * size or depth, OP names pick operations. The phase barriers
 * (start, stop, served) live in a shared page. The first case also presents
 * a wrong token first, which the server must reject, and a wrong device;
 * at the end a client quits while connected (-R: none of these).
 *
 * Exit status: 0 all passed, 1 a case failed, 77 no RDMA device.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/spec.h"
#include "xport/xport.h"

#ifndef RP_SMOKE_EXTERNAL_PAYLOAD
/* The pattern of src/xport/xport.c: seq big-endian, then seeded bytes. */
static uint8_t pattern_byte(uint64_t seq, size_t i)
{
	return (uint8_t)((seq * 131u + i * 7u + (i >> 8)) ^ 0x5a);
}

static uint8_t want_byte(uint64_t seq, size_t i)
{
	return i < 8 ? (uint8_t)(seq >> (56 - 8 * i)) : pattern_byte(seq, i);
}

void rp_payload_fill(uint8_t *buf, size_t len, uint64_t seq)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = want_byte(seq, i);
}

int rp_payload_check(const uint8_t *buf, size_t len, uint64_t seq)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[i] != want_byte(seq, i))
			return -EIO;
	return 0;
}
#endif

extern const struct rp_xport_ops rp_xport_rdma;

#define TOKEN	       "smoke-0123456789abcdef0123456789ab"
#define SETUP_MS       15000
#define WAIT_NS	       (60 * RP_NS_PER_SEC)
#define CASE_ALARM_S   240
#define BW_BYTES       (4u << 20) /* per bandwidth phase */
#define MAX_PINGS      1000
#define CLOSE_LIMIT_MS 3000

static const struct rp_xport_ops *const xp = &rp_xport_rdma;
static const char *vm_addr = "10.77.0.1";
static bool verify = true;
static uint64_t only_size;  /* -S: run this size alone */
static uint32_t only_depth; /* -q: run this depth alone */
static bool extras = true;  /* -R: no token, device and abort tests */

static const char *const op_names[RP_OP__COUNT] = {
	"write", "read", "send", "write_imm", "fetch_add", "cmp_swap",
};

struct shared {
	volatile int start[RP_PHASE__COUNT];
	volatile int stop[RP_PHASE__COUNT];
	volatile int served[RP_PHASE__COUNT]; /* 1 + serve()'s return */
	struct rp_side_stats st[RP_PHASE__COUNT];
	volatile uint64_t abort_ns;   /* abort test: when the client quit */
	volatile double srv_close_ms; /* server: how long close() took */
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

static int wait_flag(const volatile int *flag)
{
	struct timespec ts = { .tv_nsec = 100000 };
	uint64_t end = rp_clock_ns() + WAIT_NS;

	while (!*flag) {
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
}

/* The server listens on the address at depth 1, on any address at 16. */
static void fill_params(const struct smoke_case *c, struct rp_xport_params *p,
			bool server)
{
	memset(p, 0, sizeof(*p));
	p->gid_index = -1;
	p->inline_bytes = -1;
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
		ret = xp->serve(s, (enum rp_phase)p, &c->sh->stop[p],
				&c->sh->st[p]);
		c->sh->served[p] = 1 + (ret < 0 ? 1 : 0);
		if (ret < 0) {
			fprintf(stderr, "server: serve phase %d: %s\n", p,
				strerror(-ret));
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
	return ret;
}

static int server_main(struct smoke_case *c)
{
	struct rp_xport_params p;
	struct rp_listener *l = NULL;
	struct rp_stream *s = NULL;
	cJSON *ep = cJSON_CreateObject();
	struct rp_spec sp;
	uint64_t t0;
	int ret;

	fill_spec(c, &sp);
	fill_params(c, &p, true);
	ret = xp->listen(&sp, &p, ep, &l);
	if (!ret)
		ret = send_json(c->s2c[1], ep);
	cJSON_Delete(ep);
	if (!ret)
		ret = xp->accept(l, TOKEN, SETUP_MS, &s);
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
			ret = xp->post(s, posted, (uint32_t)room);
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

	c->sh->start[p] = 1;
	if (p == RP_PHASE_LATENCY)
		ret = run_pings(s, c->pings, figure);
	else
		ret = run_bw(s, p == RP_PHASE_WARMUP ? c->warm : c->ops,
			     c->depth, figure);
	c->sh->stop[p] = 1;
	if (wait_flag(&c->sh->served[p]))
		return -ETIMEDOUT;
	if (ret)
		fprintf(stderr, "client: phase %d: %s\n", p, strerror(-ret));
	return ret ? ret : c->sh->served[p] == 1 ? 0 : -EIO;
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

static int client_reject_test(struct smoke_case *c, const cJSON *ep)
{
	struct rp_xport_params p;
	struct rp_stream *s = NULL;
	struct rp_spec sp;
	int ret;

	fill_spec(c, &sp);
	fill_params(c, &p, false);
	fprintf(stderr, "(expect a rejection message next)\n");
	ret = xp->connect(&sp, &p, vm_addr, ep, "wrong-token", 5000, &s);
	if (ret == 0) {
		fprintf(stderr, "client: a wrong token was accepted\n");
		xp->close(s);
		return -EPERM;
	}
	printf("  wrong token refused: %s\n", strerror(-ret));
	fflush(stdout);
	p.device = "bogus0";
	fprintf(stderr, "(expect a wrong device message next)\n");
	ret = xp->connect(&sp, &p, vm_addr, ep, TOKEN, 5000, &s);
	if (ret != -ENODEV) {
		fprintf(stderr, "client: device bogus0: %s\n", strerror(-ret));
		if (!ret)
			xp->close(s);
		return -EPERM;
	}
	return 0;
}

/* The first case's client asked for no inline data, device rxe0. */
static int check_info(const cJSON *info)
{
	const cJSON *inl = cJSON_GetObjectItemCaseSensitive(info, "max_inline");
	const cJSON *dev = cJSON_GetObjectItemCaseSensitive(info, "device");
	char *t = cJSON_PrintUnformatted(info);

	printf("  client local_info %s\n", t ? t : "?");
	fflush(stdout);
	free(t);
	if (cJSON_IsNumber(inl) && inl->valuedouble == 0 &&
	    cJSON_IsString(dev) && strcmp(dev->valuestring, "rxe0") == 0)
		return 0;
	fprintf(stderr, "client: local_info lacks max_inline 0, device rxe0\n");
	return -EPROTO;
}

static int client_connect(struct smoke_case *c, struct rp_stream **s)
{
	struct rp_xport_params p;
	cJSON *ep, *mine = NULL, *peer = NULL;
	struct rp_spec sp;
	int ret;

	fill_spec(c, &sp);
	fill_params(c, &p, false);
	if (c->reject_test) {	   /* explicit options, once */
		p.device = "rxe0"; /* the device rdma_cm picks: accepted */
		p.inline_bytes = 0;
		p.mtu = 4096; /* above rxe0's 1024: reported, not fatal */
	}
	ep = recv_json(c->s2c[0]);
	if (!ep)
		return -EPROTO;
	ret = c->reject_test ? client_reject_test(c, ep) : 0;
	if (!ret)
		ret = xp->connect(&sp, &p, vm_addr, ep, TOKEN, SETUP_MS, s);
	cJSON_Delete(ep);
	if (!ret)
		ret = (mine = cJSON_CreateObject()) ? xp->local_info(*s, mine)
						    : -ENOMEM;
	if (!ret)
		ret = send_json(c->c2s[1], mine);
	if (!ret)
		ret = (peer = recv_json(c->s2c[0])) ? xp->set_peer(*s, peer)
						    : -EPROTO;
	if (!ret && c->reject_test)
		ret = check_info(mine);
	cJSON_Delete(mine);
	cJSON_Delete(peer);
	return ret;
}

static void report(const struct smoke_case *c, const double *fig,
		   double close_ms)
{
	double bw_ops = (double)c->ops / fig[FIG_BW_S];

	printf("%-9s %7" PRIu64 " B q%-2u %7.0f ops/s %6.2f MB/s | "
	       "%4" PRIu64 " pings: mean %8.1f us, median %7.1f us | "
	       "close %3.0f ms\n",
	       op_names[c->op], c->size, c->depth, bw_ops,
	       bw_ops * (double)c->size / 1e6, c->pings, fig[FIG_RTT_MEAN],
	       fig[FIG_RTT_P50], close_ms);
	fflush(stdout);
}

/* Quit as a crashed client would: no close(), the server told to stop. */
static void client_abort(struct smoke_case *c)
{
	int p;

	for (p = 0; p < RP_PHASE__COUNT; p++)
		c->sh->stop[p] = c->sh->start[p] = 1;
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
			op_names[c->op], c->size, c->depth, strerror(-ret));
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
	if (c->abort_test)
		printf("%-9s abort after warm-up: client exit took %.0f ms, "
		       "server close %.0f ms\n",
		       op_names[c->op], ms_since(c->sh->abort_ns),
		       c->sh->srv_close_ms);
	ok = reaped_ok(srv, "server") && ok;
	if (c->abort_test && ms_since(c->sh->abort_ns) > CLOSE_LIMIT_MS)
		ok = false;
	munmap(c->sh, sizeof(*c->sh));
	return ok ? 0 : -EIO;
}

static void size_case(struct smoke_case *c)
{
	c->ops = BW_BYTES / c->size;
	if (c->ops > 2000)
		c->ops = 2000;
	if (c->ops < 8)
		c->ops = 8;
	c->warm = c->ops / 10 > c->depth ? c->ops / 10 : c->depth;
	c->pings = c->size <= 4096 ? MAX_PINGS : c->size <= 65536 ? 50 : 5;
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
	char why[256] = "";
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if (xp->probe(why, sizeof(why)) == 0)
			_exit(0);
		printf("SKIP: %s\n", why);
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
		if (strcmp(argv[i], op_names[op]) == 0)
			return true;
	return argc <= optind;
}

int main(int argc, char **argv)
{
	uint64_t t0 = rp_clock_ns();
	int op, fails = 0, cases = 0, ret;
	bool first = true;

	while ((ret = getopt(argc, argv, "nRS:q:")) != -1) {
		if (ret == 'n')
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
