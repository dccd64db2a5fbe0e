/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bc635.h"
#include "bc635_regs.h"

#define RD(c, r) (c)->bus->ops->rd32((c)->bus, (r))
#define WR(c, r, v) (c)->bus->ops->wr32((c)->bus, (r), (v))

int bc635_divider(int64_t tf_ns, uint16_t *n1, uint16_t *n2, const char **why)
{
	if (tf_ns <= 0 || tf_ns % 1000) {
		*why = "the heartbeat counts whole microseconds (1 MHz / (n1 n2)): TF must be a multiple of 1 us";
		return -EINVAL;
	}
	int64_t us = tf_ns / 1000;
	/* the most even split, so that both stay well inside 2..65535 */
	int64_t x = 2;
	while ((x + 1) * (x + 1) <= us)
		x++;
	for (; x >= 2; x--) {
		if (us % x == 0 && us / x <= 65535) {
			*n1 = (uint16_t)x;
			*n2 = (uint16_t)(us / x);
			return 0;
		}
	}
	*why = us < 4 ? "the heartbeat cannot be faster than 1 MHz / (2 x 2): TF must be at least 4 us"
		      : "TF in microseconds is not a product n1 x n2 with both from 2 to 65535";
	return -EINVAL;
}

void bc635_decode(uint32_t t0, uint32_t t1, struct bc635_time *out)
{
	uint32_t us = t0 & BC_T0_USEC_MASK;
	uint32_t h = (t0 >> BC_T0_100NS_SHIFT) & BC_T0_100NS_MASK;
	out->utc_ns = (int64_t)t1 * 1000000000LL + (int64_t)us * 1000 + (int64_t)h * 100;
	out->flags = t0 & (BC_T0_FLYWHEEL | BC_T0_TIME_OFFSET | BC_T0_FREQ_OFFSET);
}

static int64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
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
	int64_t until = mono_us() + c->cmd_timeout_us;
	for (;;) {
		if (RD(c, BC_ACK) & BC_ACK_DONE)
			return 0;
		if (mono_us() > until) {
			c->st.command_timeouts++;
			return -ETIMEDOUT;
		}
		struct timespec ts = {0, 10000};
		nanosleep(&ts, NULL);
	}
}

int bc635_request(struct bc635 *c, uint8_t what, char *out, size_t len)
{
	uint8_t pkt[2] = {BC_CMD_REQUEST, what};
	int rc = bc635_command(c, pkt, 2);
	if (rc)
		return rc;
	struct bc_bus *b = c->bus;
	if (b->ops->dp_rd8(b, c->out_off) != what)
		return -EPROTO;
	size_t i = 0;
	for (; i + 1 < len && i < BC_DP_AREA_MAX - 1; i++) {
		uint8_t ch = b->ops->dp_rd8(b, c->out_off + 1 + (uint32_t)i);
		if (!ch)
			break;
		out[i] = (char)(ch >= 0x20 && ch < 0x7f ? ch : '?');
	}
	out[i] = 0;
	return 0;
}

int bc635_open(struct bc635 *c, struct bc_bus *bus, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->bus = bus;
	c->cmd_timeout_us = 100000;
	uint16_t in = (uint16_t)(bus->ops->dp_rd8(bus, BC_DP_INPUT_PTR) | bus->ops->dp_rd8(bus, BC_DP_INPUT_PTR + 1) << 8);
	uint16_t out = (uint16_t)(bus->ops->dp_rd8(bus, BC_DP_OUTPUT_PTR) | bus->ops->dp_rd8(bus, BC_DP_OUTPUT_PTR + 1) << 8);
	if (in + BC_DP_AREA_MAX > BC_DP_INPUT_PTR - 2 || out + BC_DP_AREA_MAX > BC_DP_INPUT_PTR - 2 || in == out) {
		snprintf(err, errlen, "DPRAM area offsets 0x%04x (input) and 0x%04x (output) make no sense: "
			 "not a bc635, or the BARs are the other way round (bc635-bars)", in, out);
		return -ENODEV;
	}
	c->in_off = in;
	c->out_off = out;
	int rc = bc635_request(c, BC_REQ_MODEL, c->model, sizeof(c->model));
	if (rc == 0)
		rc = bc635_request(c, BC_REQ_SERIAL, c->serial, sizeof(c->serial));
	if (rc == 0)
		rc = bc635_request(c, BC_REQ_FIRMWARE, c->firmware, sizeof(c->firmware));
	if (rc) {
		snprintf(err, errlen, "the card does not answer DPRAM requests (%s)", strerror(-rc));
		return rc;
	}
	return 0;
}

int bc635_setup(struct bc635 *c, int64_t tf_ns, char *err, size_t errlen)
{
	uint16_t n1, n2;
	const char *why;
	if (bc635_divider(tf_ns, &n1, &n2, &why)) {
		snprintf(err, errlen, "TF %lld ns: %s", (long long)tf_ns, why);
		return -EINVAL;
	}
	uint8_t mode[2] = {BC_CMD_TIMING_MODE, BC_MODE_GPS};
	uint8_t fmt[2] = {BC_CMD_TIME_FORMAT, BC_FORMAT_BINARY};
	uint8_t per[6] = {BC_CMD_PERIODIC, 1, (uint8_t)n1, (uint8_t)(n1 >> 8), (uint8_t)n2, (uint8_t)(n2 >> 8)};
	const uint8_t *cmds[] = {mode, fmt, per};
	const uint32_t lens[] = {2, 2, 6};
	const char *names[] = {"timing mode GPS", "binary time format", "periodic output"};
	for (int i = 0; i < 3; i++) {
		int rc = bc635_command(c, cmds[i], lens[i]);
		if (rc) {
			snprintf(err, errlen, "command %s: %s", names[i], strerror(-rc));
			return rc;
		}
	}
	WR(c, BC_CONTROL, BC_CTL_LOCKEN | BC_CTL_EVSOURCE | BC_CTL_EVENTEN);
	WR(c, BC_INTSTAT, 0xff);
	WR(c, BC_UNLOCK, 1);
	WR(c, BC_MASK, BC_INT_PERIODIC);
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
	int n = b->ops->irq_take(b);
	if (n > 0)
		c->st.irqs += (uint64_t)n;
	uint32_t st = RD(c, BC_INTSTAT);
	if (!(st & BC_INT_PERIODIC)) {
		if (n > 0)
			c->st.spurious++;
		return 0;
	}
	WR(c, BC_INTSTAT, BC_INT_PERIODIC);
	uint32_t t0 = RD(c, BC_EVENT0);
	uint32_t t1 = RD(c, BC_EVENT1);
	WR(c, BC_UNLOCK, 1);
	bc635_decode(t0, t1, edge);
	c->st.heartbeats++;
	return 1;
}
