/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frame math. Frame index i = floor((t - epoch) / TF) over TAI nanoseconds
 * since 1970, so every node that agrees on TAI agrees on i; tfc = i mod k is
 * the row in force. Because k*TF divides one second, tfc is 0 at every TAI
 * second plus the epoch. Pure and inline: the engine calls these per frame.
 */
#ifndef TDP_FRAME_H
#define TDP_FRAME_H

#include <stdint.h>

#include "tdp_time.h"

struct frame_geom {
	int64_t tf_ns;
	int64_t epoch_ns; /* 0 <= epoch < k*TF */
	uint32_t k;
};

static inline int64_t frame_floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static inline int64_t frame_index(const struct frame_geom *g, tdp_time_t t)
{
	return frame_floordiv(t.ns - g->epoch_ns, g->tf_ns);
}

static inline tdp_time_t frame_start(const struct frame_geom *g, int64_t i)
{
	return tdp_time(g->epoch_ns + i * g->tf_ns);
}

static inline uint32_t frame_tfc(const struct frame_geom *g, int64_t i)
{
	int64_t r = i % (int64_t)g->k;
	return (uint32_t)(r < 0 ? r + g->k : r);
}

#endif
