/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "ptp_mgmt.h"
#include "tdp_names.h"

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

static int data_len_of(uint16_t id)
{
	switch (id) {
	case PTPM_ID_TIME_STATUS_NP:
		return PTPM_LEN_TIME_STATUS;
	case PTPM_ID_CURRENT_DATA_SET:
		return PTPM_LEN_CURRENT_DS;
	case PTPM_ID_PORT_DATA_SET:
		return PTPM_LEN_PORT_DS;
	case PTPM_ID_SUBSCRIBE_EVENTS_NP:
		return PTPM_LEN_SUBSCRIBE;
	}
	return -1;
}

static int build(uint8_t *buf, size_t len, uint8_t domain, uint16_t seq, uint16_t port_no,
		 uint8_t action, uint16_t id, uint8_t **data)
{
	int dl = data_len_of(id);
	if (dl < 0)
		return -EINVAL;
	size_t total = PTPM_BODY + 6 + (size_t)dl;
	if (len < total)
		return -ENOSPC;
	memset(buf, 0, total);
	buf[0] = 0x0d; /* transportSpecific 0, messageType management */
	buf[1] = 0x02; /* versionPTP 2 */
	put16(buf + 2, (uint16_t)total);
	buf[4] = domain;
	/* sourcePortIdentity: clock identity 0, our port number */
	put16(buf + 28, port_no);
	put16(buf + 30, seq);
	buf[32] = 0x04;		    /* controlField: management */
	buf[33] = 0x7f;		    /* logMessageInterval */
	memset(buf + 34, 0xff, 10); /* targetPortIdentity: all clocks, all ports */
	buf[44] = 0;		    /* startingBoundaryHops: this clock only */
	buf[45] = 0;		    /* boundaryHops */
	buf[46] = action;
	put16(buf + 48, PTPM_TLV_MANAGEMENT);
	put16(buf + 50, (uint16_t)(2 + dl));
	put16(buf + 52, id);
	*data = buf + 54;
	return (int)total;
}

int ptpm_build_get(uint8_t *buf, size_t len, uint8_t domain, uint16_t seq, uint16_t port_no,
		   uint16_t id)
{
	uint8_t *d;
	return build(buf, len, domain, seq, port_no, PTPM_GET, id, &d);
}

int ptpm_build_subscribe(uint8_t *buf, size_t len, uint8_t domain, uint16_t seq, uint16_t port_no,
			 uint16_t duration_s, uint64_t bits)
{
	uint8_t *d;
	int n = build(buf, len, domain, seq, port_no, PTPM_SET, PTPM_ID_SUBSCRIBE_EVENTS_NP, &d);
	if (n < 0)
		return n;
	put16(d, duration_s);
	for (unsigned b = 0; b < 64; b++)
		if (bits >> b & 1)
			d[2 + b / 8] |= (uint8_t)(1u << (b % 8));
	return n;
}

void ptpm_set_transport_specific(uint8_t *buf, uint8_t ts)
{
	buf[0] = (uint8_t)((ts & 0x0f) << 4 | (buf[0] & 0x0f));
}

#define BAD(reason)              \
	do {                     \
		*why = (reason); \
		return -EBADMSG; \
	} while (0)

int ptpm_parse(const uint8_t *buf, size_t n, struct ptpm_msg *m, const char **why)
{
	const char *dummy; /* on the stack: parsers on several threads share nothing */
	if (!why)
		why = &dummy;
	*why = NULL;
	memset(m, 0, sizeof(*m));
	if (n < PTPM_BODY + 4)
		BAD("shorter than a management message with a TLV header");
	if ((buf[0] & 0x0f) != 0x0d)
		BAD("not a management message");
	if ((buf[1] & 0x0f) != 2)
		BAD("not PTP version 2");
	uint16_t mlen = get16(buf + 2);
	if (mlen < PTPM_BODY + 4 || mlen > n)
		BAD("messageLength does not match the datagram");
	m->transport_specific = buf[0] >> 4;
	m->domain = buf[4];
	m->seq = get16(buf + 30);
	m->action = buf[46] & 0x0f;
	if (m->action > PTPM_ACK)
		BAD("unknown actionField");
	m->tlv_type = get16(buf + 48);
	uint16_t tlen = get16(buf + 50);
	if ((size_t)PTPM_BODY + 4 + tlen > mlen)
		BAD("TLV runs past the message");
	const uint8_t *t = buf + PTPM_BODY + 4;
	if (m->tlv_type == PTPM_TLV_ERROR_STATUS) {
		if (tlen < 8)
			BAD("MANAGEMENT_ERROR_STATUS too short");
		m->error_id = get16(t);
		m->id = get16(t + 2);
		return 0;
	}
	if (m->tlv_type != PTPM_TLV_MANAGEMENT)
		BAD("not a MANAGEMENT TLV");
	if (tlen < 2)
		BAD("MANAGEMENT TLV without a managementId");
	m->id = get16(t);
	m->data_len = (uint16_t)(tlen - 2);
	const uint8_t *d = t + 2;
	int want = data_len_of(m->id);
	if (want < 0)
		return -ENOTSUP;
	if (m->action == PTPM_GET)
		return 0; /* the data of a GET is padding */
	if (m->data_len < want)
		BAD("TLV data shorter than its managementId needs");
	switch (m->id) {
	case PTPM_ID_TIME_STATUS_NP: {
		struct ptpm_time_status *s = &m->u.ts;
		s->master_offset_ns = (int64_t)get64(d);
		s->ingress_time_ns = (int64_t)get64(d + 8);
		s->cumulative_scaled_rate_offset = (int32_t)get32(d + 16);
		s->scaled_last_gm_phase_change = (int32_t)get32(d + 20);
		s->gm_time_base_indicator = get16(d + 24);
		/* lastGmPhaseChange: ScaledNs, 12 bytes at d + 26 */
		s->gm_present = (int32_t)get32(d + 38);
		memcpy(s->gm_identity, d + 42, 8);
		if (s->gm_present != 0 && s->gm_present != 1)
			BAD("gmPresent neither true nor false");
		break;
	}
	case PTPM_ID_CURRENT_DATA_SET:
		m->u.cds.steps_removed = get16(d);
		m->u.cds.offset_scaled = (int64_t)get64(d + 2);
		m->u.cds.mean_path_delay_scaled = (int64_t)get64(d + 10);
		break;
	case PTPM_ID_PORT_DATA_SET: {
		struct ptpm_port_ds *p = &m->u.pds;
		memcpy(p->clock_identity, d, 8);
		p->port_number = get16(d + 8);
		p->port_state = d[10];
		p->peer_mean_path_delay_scaled = (int64_t)get64(d + 12);
		p->log_sync_interval = (int8_t)d[22];
		p->delay_mechanism = d[23];
		p->version = d[25] & 0x0f;
		if (p->port_state < PTPM_PS_INITIALIZING || p->port_state > PTPM_PS_SLAVE)
			BAD("unknown portState");
		break;
	}
	case PTPM_ID_SUBSCRIBE_EVENTS_NP:
		m->u.sub.duration_s = get16(d);
		memcpy(m->u.sub.bitmask, d + 2, 64);
		break;
	}
	return 0;
}

const char *ptpm_port_state_name(unsigned s)
{
	static const char *const names[] = {
		"?",	      "INITIALIZING", "FAULTY",	 "DISABLED",	 "LISTENING",
		"PRE_MASTER", "MASTER",	      "PASSIVE", "UNCALIBRATED", "SLAVE"};
	return TDP_NAME_OF(names, s, "?");
}
