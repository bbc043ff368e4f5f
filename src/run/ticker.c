// SPDX-License-Identifier: MIT
/* Intervals without a lock on the hot path (ticker.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "platform/clock.h"
#include "run/flow.h"
#include "run/ticker.h"

int rp_ticker_init(struct rp_ticker *t)
{
	memset(t, 0, sizeof(*t));
	if (rp_hist_create(&t->slot[0].hist) ||
	    rp_hist_create(&t->slot[1].hist)) {
		rp_ticker_fini(t);
		return -ENOMEM;
	}
	return 0;
}

void rp_ticker_fini(struct rp_ticker *t)
{
	rp_hist_destroy(t->slot[0].hist);
	rp_hist_destroy(t->slot[1].hist);
	t->slot[0].hist = t->slot[1].hist = NULL;
}

static void slot_clear(struct rp_tick_slot *s, uint64_t start_ns)
{
	rp_hist_reset(s->hist);
	s->messages = 0;
	s->start_ns = s->end_ns = start_ns;
}

void rp_ticker_arm(struct rp_ticker *t, uint64_t t0_ns, uint64_t interval_ns,
		   uint64_t end_ns)
{
	slot_clear(&t->slot[0], t0_ns);
	slot_clear(&t->slot[1], t0_ns);
	t->interval_ns = interval_ns;
	t->next_ns = t0_ns + interval_ns;
	t->end_ns = end_ns;
	t->cur = 0;
	atomic_store(&t->published, 0);
	atomic_store(&t->taken, 0);
	atomic_store(&t->finished, 0);
}

void rp_ticker_turn_slow(struct rp_ticker *t, uint64_t now)
{
	uint64_t pub =
		atomic_load_explicit(&t->published, memory_order_relaxed);

	while (t->next_ns <= now)
		t->next_ns += t->interval_ns;
	if (t->end_ns && now >= t->end_ns) {
		t->next_ns = UINT64_MAX;
		return;
	}
	/* The other slot is free once the sampler took all we handed over;
	 * if not, this interval goes on in the slot we have. */
	if (atomic_load_explicit(&t->taken, memory_order_acquire) != pub)
		return;
	t->slot[t->cur].end_ns = now;
	atomic_store_explicit(&t->published, pub + 1, memory_order_release);
	t->cur ^= 1;
	t->slot[t->cur].start_ns = now;
}

void rp_ticker_finish(struct rp_ticker *t, uint64_t now)
{
	t->slot[t->cur].end_ns = now;
	atomic_store_explicit(&t->finished, 1, memory_order_release);
}

void rp_intervals_free(struct rp_interval *iv, uint32_t n)
{
	uint32_t i;

	for (i = 0; iv && i < n; i++) {
		free(iv[i].per_stream);
		cJSON_Delete(iv[i].counters);
	}
	free(iv);
}
