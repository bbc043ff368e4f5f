/* SPDX-License-Identifier: MIT */
/*
 * A connected pair of stream sockets as a cmocka group's state, for the
 * unit tests of the two ends of the control protocol (test_proto.c,
 * test_auth.c). Include after <cmocka.h>.
 */
#ifndef RP_TESTS_UNIT_SOCKPAIR_H
#define RP_TESTS_UNIT_SOCKPAIR_H

#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

/* *@state: int[2], both ends; a test may close one and set it to -1. */
static int setup_pair(void **state)
{
	int *sv = malloc(2 * sizeof(int));

	if (!sv || socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		free(sv);
		return -1;
	}
	*state = sv;
	return 0;
}

static int teardown_pair(void **state)
{
	int *sv = *state;

	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	free(sv);
	return 0;
}

#endif
