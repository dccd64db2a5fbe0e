/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for what ptp4l (or whatever sits on its socket) answers:
 * ptpm_parse must never read past the datagram, must give a reason with every
 * refusal, and what it accepts must say a length within the datagram.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "ptp_mgmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly size bytes, so ASan sees any read past the end */
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	for (size_t i = 0; i < size; i++)
		buf[i] = data[i];
	struct ptpm_msg m;
	const char *why = NULL;
	int rc = ptpm_parse(buf, size, &m, &why);
	if (rc == -EBADMSG && !why)
		abort();
	if ((rc == 0 || rc == -ENOTSUP) && (size_t)PTPM_BODY + 4 + m.data_len > size)
		abort();
	if (rc == 0 && m.tlv_type == PTPM_TLV_MANAGEMENT && m.action == PTPM_RESPONSE &&
	    m.id == PTPM_ID_PORT_DATA_SET &&
	    (m.u.pds.port_state < PTPM_PS_INITIALIZING || m.u.pds.port_state > PTPM_PS_SLAVE))
		abort();
	free(buf);
	return 0;
}
