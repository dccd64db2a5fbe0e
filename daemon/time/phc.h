/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A PTP hardware clock (/dev/ptpN) through its character device: what it can
 * do (PTP_CLOCK_GETCAPS), its offset from CLOCK_REALTIME by the best ioctl it
 * answers (PTP_SYS_OFFSET_PRECISE, else _EXTENDED, else the basic one), and a
 * frame tick from a periodic output (PTP_PEROUT_REQUEST) wired to an external
 * timestamp input (PTP_EXTTS_REQUEST), whose events are read from the same fd.
 * Every system call goes through struct phc_io, so the layer is tested on a
 * box without a PHC.
 */
#ifndef TDP_PHC_H
#define TDP_PHC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct phc_io {
	int (*open)(void *ctx, const char *path); /* fd or -errno */
	void (*close)(void *ctx, int fd);
	int (*ioctl)(void *ctx, int fd, unsigned long req, void *arg); /* 0 or -errno */
	int (*gettime)(void *ctx, int fd, struct timespec *ts);	 /* the PHC's time; 0 or -errno */
	ssize_t (*read)(void *ctx, int fd, void *buf, size_t n); /* -errno on error */
	int (*realtime)(void *ctx, struct timespec *ts);	 /* CLOCK_REALTIME */
	void *ctx;
};

extern const struct phc_io phc_io_real;

enum phc_method {
	PHC_OFF_NONE,
	PHC_OFF_PRECISE,
	PHC_OFF_EXTENDED,
	PHC_OFF_BASIC
};

struct phc_caps {
	int max_adj_ppb, n_ext_ts, n_per_out, n_pins, pps, cross_timestamping;
};

struct phc {
	const struct phc_io *io;
	int fd;
	char path[64];
	struct phc_caps caps;
	enum phc_method method;
	int perout_pin, extts_pin; /* -1: no tick */
	uint64_t errors;
};

/* Opens the PHC and picks the offset method. 0, or -errno with err saying
 * what was found (no such device, not a PHC, no offset ioctl). */
int phc_open(struct phc *p, const struct phc_io *io, const char *path, char *err, size_t errlen);
void phc_close(struct phc *p);
/* PHC - CLOCK_REALTIME in ns, and the width of the bracket it was read in (0
 * for the precise cross timestamp). 0 or -errno. */
int phc_offset(struct phc *p, int64_t *phc_minus_rt, int64_t *delay_ns);
/* The frame tick: PEROUT on out_pin at period tf_ns, started on a whole
 * second of the PHC, wired to EXTTS on in_pin (rising edges). 0 or -errno. */
int phc_tick_start(struct phc *p, int out_pin, int in_pin, int64_t tf_ns, char *err, size_t errlen);
/* Reads the queued EXTTS events: up to max times (PHC ns). Count or -errno. */
int phc_tick_read(struct phc *p, int64_t *t, int max);
const char *phc_method_name(enum phc_method m);

#endif
