/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bc635 sources: the GPS card (bc635) or its register-level simulator on
 * the host clock (bc635-sim), through drivers/gps-bc635 (tb_bc635.c says
 * how). Settings: the card's own (struct tb_bc635_params, declared in
 * tb_bc635.c as bc635-*), through tb_params.own; the simulator has none.
 */
#ifndef TDP_TB_BC635_H
#define TDP_TB_BC635_H

#include "timebase.h"

extern const struct timebase_ops tb_bc635_ops;
extern const struct timebase_ops tb_bc635_sim_ops;

#define TB_BC635_NOPTS 2 /* the card's opts[] (tb_bc635.c checks) */
struct tb_bc635_params {
	char device[TB_STR]; /* uio name, /dev/uioN or a PCI address (VFIO) */
	int64_t bars;	     /* enum bc_bars */
};

struct bc_bus;
/* The bc635 source over any bus and host clock (tests: the simulator on the
 * sim clock); owns neither. NULL with a message in err. */
struct timebase *tb_bc635_new(struct bc_bus *bus, struct timebase *host, const struct tb_params *p,
			      char *err, size_t errlen);

#endif
