/* SPDX-License-Identifier: BSD-3-Clause */
/* The ptp source's own settings, as tdpd.conf reads them by name (tb_ptp.h). */
#include <stddef.h>

#include "tb_ptp.h"

static const char *const mode_names[] = {"disciplined", "offset", NULL};
#define PO(m) offsetof(struct tb_ptp_params, m)
const struct tb_opt tb_ptp_opts[] = {
	{"ptp-socket", TB_OPT_STR, "/var/run/ptp4l", 0, 0, NULL, PO(socket), "PATH",
	 "ptp timebase: ptp4l's management socket (its uds_address; linuxptp master since July "
	 "2025 uses /var/run/ptp/ptp4l, every release through v4.4 /var/run/ptp4l)"},
	{"ptp-domain", TB_OPT_INT, "0", 0, 255, NULL, PO(domain), "N",
	 "ptp timebase: the PTP domain of the management messages (ptp4l's domainNumber)"},
	{"ptp-mode", TB_OPT_ENUM, "disciplined", 0, 0, mode_names, PO(mode), "disciplined|offset",
	 "ptp timebase: ptp4l and phc2sys steer the system clock, or tdpd applies ptp4l's measured "
	 "master offset itself (ptp4l with free_running 1)"},
	{"ptp-poll", TB_OPT_DUR, "250ms", 10000000, 60000000000LL, NULL, PO(poll_ns), "TIME",
	 "ptp timebase: ask ptp4l for TIME_STATUS_NP, PORT_DATA_SET and CURRENT_DATA_SET this "
	 "often"},
	{"ptp-transport-specific", TB_OPT_INT, "-1", -1, 15, NULL, PO(transport_specific), "N",
	 "ptp timebase: the transportSpecific of the management messages, which ptp4l drops unless "
	 "it is its own "
	 "(1 for gPTP, IEEE 802.1AS); -1 asks with 0, then 1, then the others until ptp4l answers, "
	 "and says which"},
	{"ptp-config", TB_OPT_STR, "", 0, 0, NULL, PO(config), "FILE",
	 "ptp timebase: ptp4l's configuration file (Debian's ptp4l@.service: "
	 "/etc/linuxptp/ptp4l.conf); its "
	 "transportSpecific, domainNumber and uds_address are used, and disagreements with "
	 "tdpd.conf said"},
	{NULL, TB_OPT_STR, NULL, 0, 0, NULL, 0, NULL, NULL},
};
_Static_assert(sizeof(tb_ptp_opts) / sizeof(tb_ptp_opts[0]) - 1 == TB_PTP_NOPTS,
	       "TB_PTP_NOPTS counts tb_ptp_opts[]");
#undef PO
