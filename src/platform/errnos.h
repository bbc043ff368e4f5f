/* SPDX-License-Identifier: MIT */
/*
 * errno values the layers above use that a system's <errno.h> may lack
 * (Windows' C runtime has no EREMOTEIO, ESHUTDOWN, EUSERS, EMEDIUMTYPE).
 * Numbers that stay local: errno values never travel on the wire.
 */
#ifndef RP_PLATFORM_ERRNOS_H
#define RP_PLATFORM_ERRNOS_H

#include <errno.h>

#ifndef EREMOTEIO
#define EREMOTEIO 0x1001
#endif
#ifndef ESHUTDOWN
#define ESHUTDOWN 0x1002
#endif
#ifndef EUSERS
#define EUSERS 0x1003
#endif
#ifndef EMEDIUMTYPE
#define EMEDIUMTYPE 0x1004
#endif

#endif
