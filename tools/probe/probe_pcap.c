/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_pcap.h"

#define SLL_HLEN 16
#define SLL2_HLEN 20

int probe_pcap_read(pcap_t *p, struct probe_rx *rx, int64_t add_ns, struct probe_pcap_info *info,
		    char *err, size_t errlen)
{
	memset(info, 0, sizeof(*info));
	info->linktype = pcap_datalink(p);
	if (info->linktype != DLT_EN10MB && info->linktype != DLT_LINUX_SLL &&
	    info->linktype != DLT_LINUX_SLL2) {
		snprintf(err, errlen, "link type %s is not Ethernet or Linux cooked capture",
			 pcap_datalink_val_to_name(info->linktype)
				 ? pcap_datalink_val_to_name(info->linktype)
				 : "?");
		return -1;
	}
	struct pcap_pkthdr *h;
	const u_char *d;
	static uint8_t buf[65536 + 14];
	int r;
	while ((r = pcap_next_ex(p, &h, &d)) == 1) {
		info->records++;
		/* tv_usec holds ns. A pcapng with a coarse or odd if_tsresol can
		 * carry seconds past 2^63 ns: such a record has no usable time */
		int64_t t;
		if (h->ts.tv_sec < 0 || h->ts.tv_usec < 0 ||
		    __builtin_mul_overflow((int64_t)h->ts.tv_sec, (int64_t)1000000000, &t) ||
		    __builtin_add_overflow(t, (int64_t)h->ts.tv_usec, &t) ||
		    __builtin_add_overflow(t, add_ns, &t)) {
			info->bad_time++;
			continue;
		}
		const uint8_t *frame = d;
		uint32_t len = h->caplen;
		if (info->linktype != DLT_EN10MB) {
			/* rebuild an Ethernet header from the cooked one's protocol field */
			uint32_t hl = info->linktype == DLT_LINUX_SLL ? SLL_HLEN : SLL2_HLEN;
			uint32_t po = info->linktype == DLT_LINUX_SLL ? 14 : 0;
			if (len < hl || len - hl > sizeof(buf) - 14) {
				info->unusable++;
				continue;
			}
			memset(buf, 0, 12);
			memcpy(buf + 12, d + po, 2);
			memcpy(buf + 14, d + hl, len - hl);
			frame = buf;
			len = len - hl + 14;
		}
		probe_rx_packet(rx, frame, len, t, PROBE_TS_CAPTURE);
	}
	if (r == -1) {
		snprintf(err, errlen, "%s", pcap_geterr(p));
		return -1;
	}
	return 0;
}

/* A stream that gives back the bytes already read from it, then the rest. */
struct replay {
	FILE *f;
	uint8_t head[4];
	size_t n, at;
};

static ssize_t replay_read(void *c, char *buf, size_t len)
{
	struct replay *r = c;
	if (r->at < r->n) {
		size_t k = r->n - r->at < len ? r->n - r->at : len;
		memcpy(buf, r->head + r->at, k);
		r->at += k;
		return (ssize_t)k;
	}
	size_t k = fread(buf, 1, len, r->f);
	return k || !ferror(r->f) ? (ssize_t)k : -1;
}

static int replay_close(void *c)
{
	struct replay *r = c;
	int rc = r->f == stdin ? 0 : fclose(r->f);
	free(r);
	return rc;
}

static void describe(const uint8_t *m, size_t n, char *fmt, size_t fmtlen, bool *micro)
{
	uint32_t be =
		n == 4 ? (uint32_t)m[0] << 24 | (uint32_t)m[1] << 16 | (uint32_t)m[2] << 8 | m[3]
		       : 0;
	*micro = be == 0xa1b2c3d4 || be == 0xd4c3b2a1;
	snprintf(fmt, fmtlen, "%s",
		 be == 0xa1b23c4d || be == 0x4d3cb2a1 ? "pcap, nanosecond timestamps"
		 : *micro			      ? "pcap, microsecond timestamps"
		 : be == 0x0a0d0d0a		      ? "pcapng"
						      : "unknown format");
}

pcap_t *probe_pcap_open(const char *path, char *fmt, size_t fmtlen, bool *micro, char *err,
			size_t errlen)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	struct replay *r = calloc(1, sizeof(*r));
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	if (!f || !r) {
		snprintf(err, errlen, "%s", strerror(errno));
		if (f && f != stdin)
			fclose(f);
		free(r);
		return NULL;
	}
	r->f = f;
	r->n = fread(r->head, 1, sizeof(r->head), f);
	describe(r->head, r->n, fmt, fmtlen, micro);
	/* read once, never reopened: a pipe gives its bytes only once */
	FILE *s = fopencookie(r, "rb",
			      (cookie_io_functions_t){.read = replay_read, .close = replay_close});
	if (!s) {
		snprintf(err, errlen, "%s", strerror(errno));
		replay_close(r);
		return NULL;
	}
	pcap_t *p = pcap_fopen_offline_with_tstamp_precision(s, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (!p) {
		snprintf(err, errlen, "%s", ebuf);
		fclose(s);
	}
	return p;
}
