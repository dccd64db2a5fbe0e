/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PTP management messages tdpd speaks to ptp4l over its UNIX socket
 * (IEEE 1588-2008 clause 15, plus linuxptp's implementation-specific TLVs
 * TIME_STATUS_NP and SUBSCRIBE_EVENTS_NP). Pure: builds requests into a buffer
 * and parses replies and notifications, rejecting anything malformed with a
 * reason. Written from the standard's field layout; network byte order.
 *
 *   header (34)   messageType 0xD, versionPTP 2, length, domain, ..., sequenceId,
 *                 controlField 4, logMessageInterval 0x7f
 *   body (14)     targetPortIdentity (10), startingBoundaryHops, boundaryHops,
 *                 actionField (GET 0, SET 1, RESPONSE 2, COMMAND 3, ACK 4), reserved
 *   TLV           type MANAGEMENT (1) or MANAGEMENT_ERROR_STATUS (2), length,
 *                 managementId, data
 */
#ifndef TDP_PTP_MGMT_H
#define TDP_PTP_MGMT_H

#include <stddef.h>
#include <stdint.h>

#define PTPM_HDR 34
#define PTPM_BODY 48 /* header + management body */
#define PTPM_MAX 1500

enum ptpm_action {
	PTPM_GET = 0,
	PTPM_SET = 1,
	PTPM_RESPONSE = 2,
	PTPM_COMMAND = 3,
	PTPM_ACK = 4
};

enum ptpm_id {
	PTPM_ID_CURRENT_DATA_SET = 0x2001,
	PTPM_ID_PORT_DATA_SET = 0x2004,
	PTPM_ID_TIME_STATUS_NP = 0xC000,
	PTPM_ID_SUBSCRIBE_EVENTS_NP = 0xC003,
};

#define PTPM_TLV_MANAGEMENT 0x0001
#define PTPM_TLV_ERROR_STATUS 0x0002

/* data sizes of the TLVs used */
#define PTPM_LEN_TIME_STATUS 50
#define PTPM_LEN_CURRENT_DS 18
#define PTPM_LEN_PORT_DS 26
#define PTPM_LEN_SUBSCRIBE 66

/* SUBSCRIBE_EVENTS_NP bits */
#define PTPM_NOTIFY_PORT_STATE 0
#define PTPM_NOTIFY_TIME_SYNC 1

enum ptpm_port_state {
	PTPM_PS_INITIALIZING = 1,
	PTPM_PS_FAULTY,
	PTPM_PS_DISABLED,
	PTPM_PS_LISTENING,
	PTPM_PS_PRE_MASTER,
	PTPM_PS_MASTER,
	PTPM_PS_PASSIVE,
	PTPM_PS_UNCALIBRATED,
	PTPM_PS_SLAVE,
};

struct ptpm_time_status {
	int64_t master_offset_ns;
	int64_t ingress_time_ns; /* of the latest sync; changes with every sample */
	int32_t cumulative_scaled_rate_offset;
	int32_t scaled_last_gm_phase_change;
	uint16_t gm_time_base_indicator;
	int32_t gm_present;
	uint8_t gm_identity[8];
};

/* CURRENT_DATA_SET (IEEE 1588-2008 8.2.2, 15.5.3.4): stepsRemoved, then
 * offsetFromMaster and meanPathDelay as TimeInterval (ns x 2^16). ptp4l keeps
 * meanPathDelay 0 until it has measured one (a Delay_Resp or Pdelay_Resp). */
struct ptpm_current_ds {
	uint16_t steps_removed;
	int64_t offset_scaled;
	int64_t mean_path_delay_scaled;
};

/* delayMechanism (IEEE 1588-2008 8.2.5.4.4, Table 9) */
enum {
	PTPM_DM_E2E = 0x01,
	PTPM_DM_P2P = 0x02,
	PTPM_DM_DISABLED = 0xFE
};

/* PORT_DATA_SET (IEEE 1588-2008 8.2.5, 15.5.3.6.1): portIdentity, portState,
 * logMinDelayReqInterval, peerMeanPathDelay (TimeInterval, ns x 2^16; the
 * peer delay a P2P port measured, which ptp4l reports only there: with
 * delay_mechanism P2P it never sets CURRENT_DATA_SET's meanPathDelay),
 * logAnnounceInterval, announceReceiptTimeout, logSyncInterval,
 * delayMechanism, logMinPdelayReqInterval, versionNumber. */
struct ptpm_port_ds {
	uint8_t clock_identity[8];
	uint16_t port_number;
	uint8_t port_state; /* enum ptpm_port_state */
	int64_t peer_mean_path_delay_scaled;
	int8_t log_sync_interval;
	uint8_t delay_mechanism;
	uint8_t version;
};

struct ptpm_subscribe {
	uint16_t duration_s;
	uint8_t bitmask[64];
};

struct ptpm_msg {
	uint8_t transport_specific; /* the header's first nibble (majorSdoId) */
	uint8_t domain;
	uint16_t seq;
	uint8_t action;
	uint16_t tlv_type; /* MANAGEMENT or ERROR_STATUS */
	uint16_t id;
	uint16_t error_id; /* ERROR_STATUS: managementErrorId */
	uint16_t data_len;
	union {
		struct ptpm_time_status ts;
		struct ptpm_current_ds cds;
		struct ptpm_port_ds pds;
		struct ptpm_subscribe sub;
	} u;
};

/* A GET of id (data zero-filled to the TLV's size, as ptp4l expects), or the
 * SET of SUBSCRIBE_EVENTS_NP. Returns the length, or -ENOSPC / -EINVAL. */
int ptpm_build_get(uint8_t *buf, size_t len, uint8_t domain, uint16_t seq, uint16_t port_no,
		   uint16_t id);
int ptpm_build_subscribe(uint8_t *buf, size_t len, uint8_t domain, uint16_t seq, uint16_t port_no,
			 uint16_t duration_s, uint64_t bits);

/* Sets a built message's transportSpecific (IEEE 1588-2008 13.3.2.1; 1 in
 * IEEE 802.1AS, gPTP). ptp4l drops a management message whose value is not
 * its port's, its UNIX socket port too (linuxptp port.c, port_ignore, which
 * runs before the management message is looked at): a gPTP ptp4l answers only
 * with 1. */
void ptpm_set_transport_specific(uint8_t *buf, uint8_t ts);

/* 0, or -EBADMSG with *why set to a static reason. Only the ids above are
 * decoded, and only in a RESPONSE, SET or notification (a GET's data is
 * padding); others parse with id set and no data (-ENOTSUP). */
int ptpm_parse(const uint8_t *buf, size_t n, struct ptpm_msg *m, const char **why);

const char *ptpm_port_state_name(unsigned s);

#endif
