// SPDX-License-Identifier: MIT
/* The threads of one role on one side for one phase (crew.h). */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "platform/cpu.h"
#include "platform/os.h"
#include "run/crew.h"

struct crew_thread {
	struct rp_crew *crew;
	pthread_t t;
	int cpu; /* -1: not pinned */
	unsigned int n;
	unsigned int *idx; /* its streams: indexes into the crew's arrays */
	struct rp_engine_stream *es;
	struct rp_stream **s;
	struct rp_side_stats *st;
	int rc;
	struct rp_stream *failed;
	double user_s, sys_s;
};

struct rp_crew {
	enum rp_role role;
	struct rp_crew_opts o;
	struct rp_engine_stream *es; /* the caller's */
	struct rp_side_stats *st;    /* the caller's */
	unsigned int n_threads;
	unsigned int started;
	struct crew_thread *th;
	atomic_int stop;
	atomic_int errors;
	atomic_uint finished; /* threads that returned */
};

static void thread_times(double *user_s, double *sys_s, int sign)
{
	double u = 0, s = 0;

	rp_os_cpu_times(true, &u, &s);
	*user_s += sign * u;
	*sys_s += sign * s;
}

static int run_initiator(struct crew_thread *t)
{
	unsigned int i;
	int rc = rp_engine_bandwidth(t->es, t->n, &t->crew->o.eng);

	for (i = 0; rc && i < t->n; i++)
		if (t->es[i].s->err.msg[0])
			t->failed = t->es[i].s;
	return rc;
}

static int run_responder(struct crew_thread *t)
{
	const struct rp_xport_ops *ops = t->s[0]->ops;
	unsigned int i;
	int rc;

	rc = ops->serve(t->s, t->n, t->crew->o.phase, &t->crew->stop, t->st);
	for (i = 0; rc && i < t->n; i++)
		if (t->s[i]->err.msg[0])
			t->failed = t->s[i];
	return rc;
}

static void *crew_main(void *arg)
{
	struct crew_thread *t = arg;

	if (t->cpu >= 0)
		rp_os_pin_self(t->cpu);
	thread_times(&t->user_s, &t->sys_s, -1);
	t->rc = t->crew->role == RP_ROLE_INITIATOR ? run_initiator(t)
						   : run_responder(t);
	thread_times(&t->user_s, &t->sys_s, 1);
	if (t->rc)
		atomic_fetch_add(&t->crew->errors, 1);
	atomic_fetch_add(&t->crew->finished, 1);
	return NULL;
}

/* Thread k's share of the streams: k, k + threads, ... */
static int deal(struct rp_crew *c, struct crew_thread *t, unsigned int k,
		unsigned int n)
{
	unsigned int i, m = 0;

	t->crew = c;
	t->cpu =
		c->o.n_cpus ? c->o.cpus[(c->o.cpu_base + k) % c->o.n_cpus] : -1;
	t->n = (n - k + c->n_threads - 1) / c->n_threads;
	t->idx = calloc(t->n, sizeof(*t->idx));
	t->es = calloc(t->n, sizeof(*t->es));
	t->s = calloc(t->n, sizeof(*t->s));
	t->st = calloc(t->n, sizeof(*t->st));
	if (!t->idx || !t->es || !t->s || !t->st)
		return -ENOMEM;
	for (i = k; i < n; i += c->n_threads, m++) {
		t->idx[m] = i;
		t->es[m] = c->es[i];
		t->s[m] = c->es[i].s;
	}
	return 0;
}

static void crew_free(struct rp_crew *c)
{
	unsigned int k;

	for (k = 0; k < c->n_threads; k++) {
		free(c->th[k].idx);
		free(c->th[k].es);
		free(c->th[k].s);
		free(c->th[k].st);
	}
	free(c->th);
	free(c);
}

int rp_crew_start(struct rp_crew **out, enum rp_role role,
		  struct rp_engine_stream *es, struct rp_side_stats *st,
		  unsigned int n, unsigned int threads,
		  const struct rp_crew_opts *o)
{
	struct rp_crew *c = calloc(1, sizeof(*c));
	unsigned int k;
	int err = -ENOMEM;

	if (!c)
		return -ENOMEM;
	*c = (struct rp_crew){ .role = role, .o = *o, .es = es, .st = st };
	c->n_threads = threads < n ? threads : n;
	c->th = calloc(c->n_threads, sizeof(*c->th));
	for (k = 0, err = c->th ? 0 : -ENOMEM; !err && k < c->n_threads; k++)
		err = deal(c, &c->th[k], k, n);
	for (k = 0; !err && k < c->n_threads; k++) {
		err = -pthread_create(&c->th[k].t, NULL, crew_main, &c->th[k]);
		if (!err)
			c->started++;
	}
	if (err) {
		rp_crew_stop(c);
		rp_crew_join(c, NULL, NULL);
		return err;
	}
	*out = c;
	return 0;
}

void rp_crew_stop(struct rp_crew *c)
{
	atomic_store(&c->stop, 1);
	rp_os_flag_wake(&c->stop); /* responders idle in rp_os_flag_wait */
}

bool rp_crew_failed(const struct rp_crew *c)
{
	return atomic_load(&c->errors) != 0;
}

bool rp_crew_done(const struct rp_crew *c)
{
	return atomic_load(&c->finished) == c->started;
}

/* Thread @t's figures back into the caller's arrays and @cpu. */
static void gather(struct rp_crew *c, struct crew_thread *t,
		   struct rp_cpu_usage *cpu)
{
	unsigned int m;

	for (m = 0; m < t->n; m++) {
		if (c->role == RP_ROLE_INITIATOR)
			c->es[t->idx[m]].out = t->es[m].out;
		else if (c->st)
			c->st[t->idx[m]] = t->st[m];
	}
	if (cpu && cpu->n_threads < RP_CPU_MAX_LIST)
		cpu->threads[cpu->n_threads++] = (struct rp_cpu_thread){
			.cpu = t->cpu, .user_s = t->user_s, .sys_s = t->sys_s
		};
}

int rp_crew_join(struct rp_crew *c, struct rp_cpu_usage *cpu,
		 struct rp_stream **failed)
{
	struct rp_stream *first = NULL;
	unsigned int k;
	int rc = 0;

	for (k = 0; k < c->started; k++) {
		struct crew_thread *t = &c->th[k];

		pthread_join(t->t, NULL);
		gather(c, t, cpu);
		if (t->rc && !rc) {
			rc = t->rc;
			first = t->failed ? t->failed : t->s[0];
		}
	}
	if (failed)
		*failed = first;
	crew_free(c);
	return rc;
}
