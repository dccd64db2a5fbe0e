/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the ptp source needs of ptp4l's own configuration file (ptp4l(8),
 * its [global] section: the port settings there apply to its UNIX socket
 * port too): transportSpecific, domainNumber, uds_address, free_running,
 * delay_mechanism, and how many interface sections it has. Read so the
 * source asks ptp4l as ptp4l expects, and says where tdpd.conf disagrees.
 */
#ifndef TDP_PTP_CFG_H
#define TDP_PTP_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ptp_cfg {
	int transport_specific;	 /* -1: not set (ptp4l's default 0) */
	int domain;		 /* -1: not set (0) */
	int free_running;	 /* -1: not set (0) */
	char uds_address[108];	 /* "": not set (/var/run/ptp4l) */
	char delay_mechanism[8]; /* E2E, P2P, Auto; "": not set (E2E) */
	int interfaces;		 /* [IFACE] sections */
};

/* 0, or -1 with "FILE:LINE: what" (or the system's reason) in err. Keys it
 * does not need are passed over, as ptp4l's are many. */
int ptp_cfg_read(const char *path, struct ptp_cfg *c, char *err, size_t errlen);

/* How the ptp source asks ptp4l, as tdpd.conf says (ptp-*). */
struct ptp_ask {
	int ts_fixed; /* transportSpecific; -1: found by asking */
	uint8_t domain;
	char path[108];	  /* ptp4l's UNIX socket */
	bool offset_mode; /* ptp-mode offset (else disciplined) */
};

/* Reads ptp4l's file at path and makes ask agree with it (its
 * transportSpecific, domainNumber and uds_address), each difference logged
 * as a warning; a ptp-mode that does not fit its free_running is said too.
 * 0, or -1 with why in err. */
int ptp_cfg_agree(const char *path, struct ptp_ask *ask, char *err, size_t errlen);

#endif
