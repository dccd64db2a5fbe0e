/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdpd's XDP program on an interface (tdpd_xdp.bpf.c): finding what a
 * previous run left, and reaching the program's maps once the af_xdp PMD has
 * attached it. The PMD loads and attaches the object (its xdp_prog argument)
 * and removes it at close; these calls only look at what is attached.
 */
#ifndef TDP_XDPPROG_H
#define TDP_XDPPROG_H

#include <stddef.h>
#include <stdint.h>

/* the outcomes the program counts, in tdp_stats's order */
enum xdpp_stat {
	XDPP_TO_TDPD,
	XDPP_NO_SOCKET,
	XDPP_ARP,
	XDPP_ND,
	XDPP_PTP,
	XDPP_LINK,
	XDPP_LOCAL,
	XDPP_NSTATS
};
const char *xdpp_stat_name(enum xdpp_stat s);

/* Keeps the kernel's reason when it refuses a program (libbpf relays it);
 * call before the EAL. xdpp_kernel_said: the latest, or "". */
void xdpp_catch_kernel_messages(void);
const char *xdpp_kernel_said(void);

/* The program's name as the kernel holds it (the function's name). */
#define XDPP_PROG_NAME "tdpd_xdp"

/* What is attached to the interface: 0 with *id 0 when nothing, else its id
 * and name; -errno on failure. */
int xdpp_attached(unsigned ifindex, uint32_t *id, char *name, size_t namelen);
/* Removes whatever is attached; 0 or -errno. */
int xdpp_detach(unsigned ifindex);

struct xdpp {
	int local_fd; /* tdp_local, -1 when not found */
	int stats_fd; /* tdp_stats */
	uint32_t prog_id;
};
/* Finds the maps of tdpd's program attached to the interface; 0, or -errno
 * with a message. */
int xdpp_open(struct xdpp *x, unsigned ifindex, char *err, size_t errlen);
void xdpp_close(struct xdpp *x);
/* Puts the addresses (n of them, each family 4 or 6 and 16 bytes) in
 * tdp_local, and removes any other; 0 or -errno. */
int xdpp_set_local(struct xdpp *x, const uint8_t (*addr)[17], size_t n);
/* The program's counts summed over CPUs; 0 or -errno. */
int xdpp_stats(const struct xdpp *x, uint64_t out[XDPP_NSTATS]);

#endif
