/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The time sources tdpd knows: one line each, its ops and the number of its
 * own settings (so that tdpd.conf's option table is sized at compile time).
 * tb_registry.c makes timebase_table[] from it; the first is the default.
 */
#ifndef TDP_TB_REGISTRY_H
#define TDP_TB_REGISTRY_H

#include "tb_bc635.h"
#include "tb_phc.h"
#include "tb_ptp.h"
#include "tb_sim.h"
#include "tb_system.h"
#include "timebase.h"

#define TB_REGISTRY(X)                    \
	X(tb_system_ops, TB_SYSTEM_NOPTS) \
	X(tb_ptp_ops, TB_PTP_NOPTS)       \
	X(tb_phc_ops, TB_PHC_NOPTS)       \
	X(tb_bc635_ops, TB_BC635_NOPTS)   \
	X(tb_bc635_sim_ops, 0)            \
	X(tb_sim_ops, 0)

#define TB_REGISTRY_COUNT_(ops, n) +1
#define TB_REGISTRY_NOPTS_(ops, n) +(n)
/* the sources, and all their own settings together */
#define TB_REGISTRY_SOURCES (0 TB_REGISTRY(TB_REGISTRY_COUNT_))
#define TB_REGISTRY_NOPTS (0 TB_REGISTRY(TB_REGISTRY_NOPTS_))

#endif
