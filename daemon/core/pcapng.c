/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "pcapng.h"

#define BT_SHB 0x0A0D0D0Au
#define BT_IDB 0x00000001u
#define BT_EPB 0x00000006u
#define LINKTYPE_ETHERNET 1

struct wr {
	uint8_t *p;
	size_t cap, n;
	int bad;
	int opts; /* options written: they end with opt_endofopt */
};

static void put(struct wr *w, const void *v, size_t len)
{
	if (w->n + len > w->cap) {
		w->bad = 1;
		return;
	}
	memcpy(w->p + w->n, v, len);
	w->n += len;
}

static void put32(struct wr *w, uint32_t v)
{
	put(w, &v, 4);
}

static void put16(struct wr *w, uint16_t v)
{
	put(w, &v, 2);
}

static void pad4(struct wr *w)
{
	static const uint8_t zero[4];
	put(w, zero, (4 - w->n % 4) % 4);
}

/* an option: code, length, value padded to 32 bits */
static void opt(struct wr *w, uint16_t code, const void *v, uint16_t len)
{
	put16(w, code);
	put16(w, len);
	put(w, v, len);
	pad4(w);
	w->opts++;
}

/* the block's type and a length to fill in at the end */
static void begin(struct wr *w, uint32_t type)
{
	put32(w, type);
	put32(w, 0);
}

/* opt_endofopt after options, the trailing length, and the leading one filled in */
static size_t end(struct wr *w)
{
	if (w->opts)
		put32(w, 0);
	uint32_t total = (uint32_t)(w->n + 4);
	put32(w, total);
	if (w->bad)
		return 0;
	memcpy(w->p + 4, &total, 4);
	return w->n;
}

size_t pcapng_shb(uint8_t *buf, size_t cap, const char *app)
{
	struct wr w = {buf, cap, 0, 0, 0};
	begin(&w, BT_SHB);
	put32(&w, 0x1A2B3C4Du); /* byte-order magic, in the host's order */
	put16(&w, 1);
	put16(&w, 0);
	int64_t unknown = -1; /* section length not given */
	put(&w, &unknown, 8);
	if (app)
		opt(&w, 4, app, (uint16_t)strnlen(app, 256)); /* shb_userappl */
	return end(&w);
}

size_t pcapng_idb(uint8_t *buf, size_t cap, const char *ifname, uint32_t snaplen)
{
	struct wr w = {buf, cap, 0, 0, 0};
	begin(&w, BT_IDB);
	put16(&w, LINKTYPE_ETHERNET);
	put16(&w, 0);
	put32(&w, snaplen);
	if (ifname)
		opt(&w, 2, ifname, (uint16_t)strnlen(ifname, 256)); /* if_name */
	uint8_t tsresol = 9;					    /* 10^-9: nanoseconds */
	opt(&w, 9, &tsresol, 1);
	return end(&w);
}

size_t pcapng_epb(uint8_t *buf, size_t cap, uint32_t ifid, int64_t ts_ns, const uint8_t *data,
		  uint32_t caplen, uint32_t len, enum pcapng_dir dir)
{
	struct wr w = {buf, cap, 0, 0, 0};
	begin(&w, BT_EPB);
	put32(&w, ifid);
	uint64_t ts = (uint64_t)ts_ns;
	put32(&w, (uint32_t)(ts >> 32));
	put32(&w, (uint32_t)ts);
	put32(&w, caplen);
	put32(&w, len);
	put(&w, data, caplen);
	pad4(&w);
	if (dir != PCAPNG_DIR_NONE) {
		uint32_t flags = (uint32_t)dir; /* epb_flags bits 0-1: 01 inbound, 10 outbound */
		opt(&w, 2, &flags, 4);
	}
	return end(&w);
}
