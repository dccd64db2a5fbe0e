/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bc635.h"
#include "bc635_regs.h"
#include "tdp_mono.h"

#define RD(c, r) (c)->bus->ops->rd32((c)->bus, (r))
#define WR(c, r, v) (c)->bus->ops->wr32((c)->bus, (r), (v))

int bc635_divider(int64_t tf_ns, uint16_t *n1, uint16_t *n2, const char **why)
{
	if (tf_ns <= 0 || tf_ns % 1000) {
		*why = "the heartbeat counts whole microseconds (1 MHz / (n1 n2)): TF must be a "
		       "multiple of 1 us";
		return -EINVAL;
	}
	int64_t us = tf_ns / 1000;
	/* each divider from 2 to 65535 (bc635PCI-V2 User's Guide, Command 0x14
	 * Set Periodic Output, p. 43). The floor of 3 in synchronous mode is
	 * another card's (the bc620/627AT guide, p. 4-6), not this one's */
	if (us < 4) {
		*why = "the heartbeat cannot be faster than 1 MHz / (2 x 2): TF must be at least 4 "
		       "us";
		return -EINVAL;
	}
	/* the edges restart at every second: a period that does not divide it
	 * leaves a short gap before each second */
	if (us > 1000000 || 1000000 % us) {
		*why = "the heartbeat, synchronised to 1PPS, must divide one second: TF must "
		       "divide 1 s";
		return -EINVAL;
	}
	/* the most even split, so that both stay well inside 2..65535 */
	int64_t x = 2;
	while ((x + 1) * (x + 1) <= us)
		x++;
	for (; x >= 2; x--) {
		if (us % x == 0 && us / x >= 2 && us / x <= 65535) {
			*n1 = (uint16_t)x;
			*n2 = (uint16_t)(us / x);
			return 0;
		}
	}
	*why = "TF in microseconds is not a product n1 x n2 with both from 2 to 65535";
	return -EINVAL;
}

void bc635_decode(uint32_t t0, uint32_t t1, struct bc635_time *out)
{
	uint32_t us = t0 & BC_T0_USEC_MASK;
	uint32_t h = (t0 >> BC_T0_100NS_SHIFT) & BC_T0_100NS_MASK;
	out->utc_ns = (int64_t)t1 * 1000000000LL + (int64_t)us * 1000 + (int64_t)h * 100;
	out->flags = t0 & (BC_T0_FLYWHEEL | BC_T0_TIME_OFFSET | BC_T0_FREQ_OFFSET);
}

int bc635_command(struct bc635 *c, const uint8_t *pkt, uint32_t n)
{
	struct bc_bus *b = c->bus;
	if (n == 0 || n > BC_DP_AREA_MAX)
		return -EINVAL;
	WR(c, BC_ACK, BC_ACK_CLEAR);
	for (uint32_t i = 0; i < n; i++)
		b->ops->dp_wr8(b, c->in_off + i, pkt[i]);
	WR(c, BC_ACK, BC_ACK_COMMAND);
	c->st.commands++;
	int64_t until = (tdp_mono_ns() / 1000) + c->cmd_timeout_us;
	for (;;) {
		if (RD(c, BC_ACK) & BC_ACK_DONE)
			return 0;
		if ((tdp_mono_ns() / 1000) > until) {
			c->st.command_timeouts++;
			return -ETIMEDOUT;
		}
		struct timespec ts = {0, 10000};
		nanosleep(&ts, NULL);
	}
}

int bc635_request(struct bc635 *c, uint8_t what, uint8_t *out, uint32_t len)
{
	uint8_t pkt[2] = {BC_CMD_REQUEST, what};
	int rc = bc635_command(c, pkt, 2);
	if (rc)
		return rc;
	struct bc_bus *b = c->bus;
	if (len > BC_DP_AREA_MAX || b->ops->dp_rd8(b, c->out_off) != what)
		return -EPROTO;
	/* a fixed length per sub-code, the echoed sub-code first; no terminator */
	for (uint32_t i = 0; i < len; i++)
		out[i] = b->ops->dp_rd8(b, c->out_off + i);
	return 0;
}

/* n ASCII bytes as a string: printable, trailing blanks and NULs dropped. */
static void ascii(const uint8_t *in, uint32_t n, char *out, size_t len)
{
	size_t k = 0;
	for (uint32_t i = 0; i < n && k + 1 < len; i++)
		out[k++] = (char)(in[i] >= 0x20 && in[i] < 0x7f ? in[i] : '?');
	while (k && (out[k - 1] == ' ' || out[k - 1] == '?'))
		k--;
	out[k] = 0;
}

int bc635_open(struct bc635 *c, struct bc_bus *bus, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->bus = bus;
	c->cmd_timeout_us = 100000;
	/* at the DPRAM's top, most significant byte first (btfp.c 317-335) */
	uint32_t top = bus->dp_size;
	if (top < 256 || top > BC_DPRAM_MAX) {
		snprintf(err, errlen, "DPRAM of %u bytes: the card's is 2 or 4 KiB", top);
		return -ENODEV;
	}
	uint16_t in = (uint16_t)(bus->ops->dp_rd8(bus, BC_DP_INPUT_PTR(top)) << 8 |
				 bus->ops->dp_rd8(bus, BC_DP_INPUT_PTR(top) + 1));
	uint16_t out = (uint16_t)(bus->ops->dp_rd8(bus, BC_DP_OUTPUT_PTR(top)) << 8 |
				  bus->ops->dp_rd8(bus, BC_DP_OUTPUT_PTR(top) + 1));
	if ((uint32_t)in + BC_DP_AREA_MAX > BC_DP_OUTPUT_PTR(top) ||
	    (uint32_t)out + BC_DP_AREA_MAX > BC_DP_OUTPUT_PTR(top) ||
	    (in < out ? out - in : in - out) < BC_DP_AREA_MAX) {
		snprintf(err, errlen,
			 "DPRAM area offsets 0x%04x (input) and 0x%04x (output) at 0x%03x make no "
			 "sense "
			 "(usually 0x0102 and 0x0082): not a bc635, another generation, or the "
			 "BARs are not where "
			 "assumed (bc635-bars)",
			 in, out, BC_DP_OUTPUT_PTR(top));
		return -ENODEV;
	}
	c->in_off = in;
	c->out_off = out;
	uint8_t model[BC_REQ_MODEL_LEN], serial[BC_REQ_SERIAL_LEN], fw[BC_REQ_FIRMWARE_LEN];
	int rc = bc635_request(c, BC_REQ_MODEL, model, sizeof(model));
	if (rc == 0)
		rc = bc635_request(c, BC_REQ_SERIAL, serial, sizeof(serial));
	if (rc == 0)
		rc = bc635_request(c, BC_REQ_FIRMWARE, fw, sizeof(fw));
	if (rc) {
		snprintf(err, errlen, "the card does not answer DPRAM requests (%s)",
			 strerror(-rc));
		return rc;
	}
	ascii(model + 1, BC_REQ_MODEL_LEN - 1, c->model, sizeof(c->model));
	snprintf(c->serial, sizeof(c->serial), "%u",
		 (unsigned)serial[1] << 24 | (unsigned)serial[2] << 16 | (unsigned)serial[3] << 8 |
			 serial[4]);
	ascii(fw + 1, BC_REQ_FIRMWARE_LEN - 1, c->firmware, sizeof(c->firmware));
	/* "BC637PCI": the fifth character says whether a GPS receiver is on board */
	c->has_gps = model[5] == '7';
	return 0;
}

const char *bc635_mode_name(int mode)
{
	return mode == BC_MODE_GPS	  ? "GPS"
	       : mode == BC_MODE_EXT_1PPS ? "external 1PPS"
	       : mode == BC_MODE_TIMECODE ? "time code"
					  : "?";
}

int bc635_setup(struct bc635 *c, int64_t tf_ns, int mode, char *err, size_t errlen)
{
	uint16_t n1, n2;
	const char *why;
	if (bc635_divider(tf_ns, &n1, &n2, &why)) {
		snprintf(err, errlen, "TF %lld ns: %s", (long long)tf_ns, why);
		return -EINVAL;
	}
	/* GPS on a bc637; a bc635 has no receiver and follows a time code
	 * unless told to follow an external 1PPS */
	if (mode < 0)
		mode = c->has_gps ? BC_MODE_GPS : BC_MODE_TIMECODE;
	if (mode == BC_MODE_GPS && !c->has_gps) {
		snprintf(err, errlen,
			 "timing mode GPS: the card is a %s, without a GPS receiver (time code or "
			 "external "
			 "1PPS)",
			 c->model);
		return -EINVAL;
	}
	c->mode = mode;
	char mname[40];
	snprintf(mname, sizeof(mname), "timing mode %s", bc635_mode_name(mode));
	uint8_t mcmd[2] = {BC_CMD_TIMING_MODE, (uint8_t)mode};
	uint8_t fmt[2] = {BC_CMD_TIME_FORMAT, BC_FORMAT_BINARY};
	/* n1 and n2 most significant byte first (btfp_test.c 146) */
	uint8_t per[6] = {BC_CMD_PERIODIC,    1,	  (uint8_t)(n1 >> 8), (uint8_t)n1,
			  (uint8_t)(n2 >> 8), (uint8_t)n2};
	/* the time scale pinned: UTC, not GPS time (18 s ahead), on a bc637
	 * (btfp.h 341-343; btfp.c 385-390), and no local time offset (btfp.h
	 * 347-349) */
	uint8_t utc[2] = {BC_CMD_GPS_TIMEFMT, BC_GPS_TIMEFMT_UTC};
	uint8_t nolocal[2] = {BC_CMD_OBS_LOCAL, BC_OBS_LOCAL_OFF};
	const uint8_t *cmds[] = {mcmd, fmt, per, nolocal, utc};
	const uint32_t lens[] = {2, 2, 6, 2, 2};
	const char *names[] = {mname, "binary time format", "periodic output",
			       "no local time offset", "UTC from GPS"};
	for (int i = 0; i < (c->has_gps ? 5 : 4); i++) {
		int rc = bc635_command(c, cmds[i], lens[i]);
		if (rc) {
			snprintf(err, errlen, "command %s: %s", names[i], strerror(-rc));
			return rc;
		}
	}
	/* the event bits only: the strobe and frequency output stay as the
	 * card has them (btfp.h 393-402) */
	uint32_t ctl = RD(c, BC_CONTROL);
	WR(c, BC_CONTROL,
	   (ctl & ~(uint32_t)BC_CTL_EVENT_BITS) | BC_CTL_LOCKEN | BC_CTL_EVSOURCE | BC_CTL_EVENTEN);
	WR(c, BC_INTSTAT, BC_INT_ALL);
	(void)RD(c, BC_UNLOCK);
	WR(c, BC_MASK, (RD(c, BC_MASK) & ~(uint32_t)BC_INT_ALL) | BC_INT_PERIODIC);
	return 0;
}

void bc635_read_time(struct bc635 *c, struct bc635_time *t)
{
	WR(c, BC_TIMEREQ, 1);
	uint32_t t0 = RD(c, BC_TIME0);
	uint32_t t1 = RD(c, BC_TIME1);
	bc635_decode(t0, t1, t);
}

int bc635_take_tick(struct bc635 *c, struct bc635_time *edge)
{
	struct bc_bus *b = c->bus;
	int n = b->ops->irq_take(b), got = 0;
	if (n > 0)
		c->st.irqs += (uint64_t)n;
	/* level-triggered: read INTSTAT, clear what it holds, and only then
	 * let the interrupt through again, or it fires at once a second time */
	uint32_t st = RD(c, BC_INTSTAT) & BC_INT_ALL;
	if (st)
		WR(c, BC_INTSTAT, st);
	if (st & BC_INT_PERIODIC) {
		uint32_t t0 = RD(c, BC_EVENT0);
		uint32_t t1 = RD(c, BC_EVENT1);
		(void)RD(c, BC_UNLOCK); /* a read re-arms the event latch (btfp.c 931) */
		bc635_decode(t0, t1, edge);
		c->st.heartbeats++;
		got = 1;
	} else if (n > 0) {
		c->st.spurious++;
	}
	if (n > 0)
		b->ops->irq_rearm(b);
	return got;
}
