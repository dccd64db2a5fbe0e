/* SPDX-License-Identifier: BSD-3-Clause */
/* tdpctl doctor's time sources (tdpctl_doctor_time.c). */
#ifndef TDPCTL_DOCTOR_TIME_H
#define TDPCTL_DOCTOR_TIME_H

#include "doctor_finding.h"

/* the GPS card and PTP clocks this box can take its time from */
void check_time_sources(struct doc *d);
/* each bc635PCI-U: its generation, the driver it is bound to, how to bind it */
void check_cards(struct doc *d);

#endif
