/* SPDX-License-Identifier: MIT */
/*
 * How fast this CPU runs now, measured: a fixed chain of dependent integer
 * operations timed on the calling thread. Its time per operation follows
 * the core's clock: slower under a power-saving governor, thermal
 * throttling or a VM's busy host, faster under turbo; and the core's share
 * of itself: a hyperthread sibling at work slows it too (seen here: 15%
 * with a compiler on the sibling), as much a condition of the test. sysfs's
 * scaling_cur_freq is not read: a VM often has no cpufreq at all, and an
 * idle core's instantaneous frequency says nothing of the one that ran
 * the test.
 */
#ifndef RP_CORE_CPUSPEED_H
#define RP_CORE_CPUSPEED_H

#define RP_CPU_SPEED_OPS    100000 /* a trial: about 0.2 ms at 2 GHz */
#define RP_CPU_SPEED_TRIALS 9	   /* the least is kept: one undisturbed */

/** rp_cpu_speed_ns - ns per operation of the chain, the least of
 *  RP_CPU_SPEED_TRIALS trials (a preempted trial is slower, never
 *  faster); NAN when the clock did not move. */
double rp_cpu_speed_ns(void);

#endif
