/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The phc source: a PTP hardware clock read directly, with a frame tick from
 * its pins where they are wired (tb_phc.c). Settings: its own (struct
 * tb_phc_params, declared in tb_phc.c as phc-*), through tb_params.own.
 */
#ifndef TDP_TB_PHC_H
#define TDP_TB_PHC_H

#include "timebase.h"

extern const struct timebase_ops tb_phc_ops;

#define TB_PHC_NOPTS 2 /* its opts[] (tb_phc.c checks) */
struct tb_phc_params {
	char device[TB_STR]; /* /dev/ptpN; "": /dev/ptp0 */
	char tick[TB_STR];   /* "none" or "OUT,IN": PEROUT pin wired to EXTTS pin */
};

/* phc-tick: "none" gives -1,-1; "OUT,IN" the two pins. 0, or -1 when malformed. */
int tb_phc_pins(const char *v, int *out, int *in);

struct phc_io;
/* The phc source over any ioctl layer and host clock (tests); owns neither.
 * NULL with a message in err. */
struct timebase *tb_phc_new(const struct phc_io *io, struct timebase *host,
			    const struct tb_params *p, char *err, size_t errlen);

#endif
