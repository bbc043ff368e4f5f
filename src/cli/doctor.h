/* SPDX-License-Identifier: MIT */
/* rdmaperf doctor: the pre-flight check (doctor.c says what it checks). */
#ifndef RP_CLI_DOCTOR_H
#define RP_CLI_DOCTOR_H

/** rp_doctor_main - run "rdmaperf doctor ARGS" (@argv[0] is "doctor").
 *  Return: the exit status: 0 nothing wrong, 1 a problem, 2 bad usage. */
int rp_doctor_main(int argc, char **argv);

#endif
