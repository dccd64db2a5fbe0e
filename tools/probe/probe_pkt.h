/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The probe packet (its layout: probe_wire.h): building it, stamping it per
 * packet, and decoding it.
 *
 * start(i) = epoch + i * TF, so the receiver computes L = t2 - start(i) from the
 * absolute index and never modulo TF. An end packet carries in its sequence
 * field the number of probes the sender sent on that flow.
 *
 * The UDP checksum is always set; the sender fixes it per packet by adding
 * only the words it changed. Pure: no I/O, fuzzed.
 */
#ifndef TDP_PROBE_PKT_H
#define TDP_PROBE_PKT_H

#include <stdbool.h>
#include <stdint.h>

#include "probe_wire.h"

#define PROBE_DEFAULT_PORT 7350
/* The paper's probe: a 78-byte frame, 102 bytes on the wire with preamble, FCS and gap. */
#define PROBE_DEFAULT_SIZE 78
#define PROBE_MAX_SIZE 9018

/* What the receiver makes of a frame. */
enum probe_verdict {
	PROBE_OK = 0,
	PROBE_FOREIGN,	 /* not UDP to the probe port, or not our magic */
	PROBE_SHORT,	 /* truncated: a header or the probe header does not fit */
	PROBE_MALFORMED, /* ours, but a field, a length or the checksum is wrong */
};

struct probe_stamp {
	uint16_t node;
	uint8_t flags;
	int32_t dframe;	  /* frame the hop sent the packet in, minus the probe's frame */
	int32_t push_off; /* the hop's push time minus the start of that frame, ns */
};

struct probe_hdr {
	uint8_t version;
	uint8_t kind;
	uint8_t hops; /* stamps written */
	uint8_t room; /* stamps the packet has room for */
	uint32_t flow;
	uint32_t seq;
	uint32_t tf_ns;
	uint32_t epoch_ns;
	int64_t frame;
	int32_t t1_off;
	struct probe_stamp stamp[PROBE_MAX_HOPS];
};

/* Where the probe goes; addresses in network order, family 4 or 6. */
struct probe_addr {
	uint8_t src_mac[6], dst_mac[6];
	uint8_t family;
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	uint8_t dscp;
	uint8_t ttl;
	int vlan; /* -1: untagged */
	uint8_t pcp;
};

/* A built frame and what the sender needs to fill it fast. */
struct probe_tmpl {
	uint8_t buf[PROBE_MAX_SIZE];
	uint32_t len;
	uint16_t l4_off;    /* UDP header */
	uint16_t hdr_off;   /* probe header */
	uint32_t csum_base; /* UDP checksum sum with seq, frame and t1 zero */
};

/* Smallest frame for the family (headers + probe header, no FCS); add
 * PROBE_STAMP_LEN per hop stamp to make room for. */
unsigned probe_min_size(int family, bool vlan);
/* Smallest best-effort frame: headers + 4 bytes, at least 60. */
unsigned probe_min_be_size(int family, bool vlan);

/*
 * Builds the frame of `size` bytes (no FCS) with the header's constant fields
 * (version, kind, flow, tf, epoch). Returns 0, or -1 when size is out of
 * range or the header is inconsistent.
 */
int probe_build(struct probe_tmpl *t, const struct probe_addr *a, unsigned size,
		const struct probe_hdr *h);

/* Writes seq, frame and t1 and fixes the checksum: the per-packet path.
 * Not for best-effort frames shorter than a probe. */
void probe_stamp(struct probe_tmpl *t, uint8_t *frame, uint32_t seq, int64_t frame_idx,
		 int32_t t1_off);

/* Header codec, exposed for tests and the pcap reader. */
void probe_hdr_write(uint8_t *p, const struct probe_hdr *h);
enum probe_verdict probe_hdr_read(const uint8_t *p, uint32_t len, struct probe_hdr *h);

/*
 * Decodes a received frame: probes are UDP to `port` (0: any port) with our
 * magic; best-effort frames are recognised on any port. On PROBE_OK *h is filled. The checksum is checked when not zero.
 */
enum probe_verdict probe_decode(const uint8_t *frame, uint32_t len, uint16_t port,
				struct probe_hdr *h);

const char *probe_verdict_name(enum probe_verdict v);
const char *probe_kind_name(unsigned kind);

/* start(i) = epoch + i*TF */
static inline int64_t probe_frame_start(const struct probe_hdr *h)
{
	return (int64_t)h->epoch_ns + h->frame * (int64_t)h->tf_ns;
}

#endif
