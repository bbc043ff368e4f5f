/* SPDX-License-Identifier: MIT */
/*
 * rdmaperf diff OLD.json NEW.json: two saved documents compared point by
 * point and figure by figure, each change with whether it is significant
 * (from the repetitions of --repeat, when both have them), and exit status
 * 3 when a figure regresses beyond --threshold: a regression gate for CI.
 */
#ifndef RP_CLI_DIFF_H
#define RP_CLI_DIFF_H

/** rp_diff_main - run "rdmaperf diff ARGS" (@argv[0] is "diff").
 *  Return: the exit status: 0, 2 (bad usage or documents), 3 (a figure
 *  regressed beyond the threshold). */
int rp_diff_main(int argc, char **argv);

#endif
