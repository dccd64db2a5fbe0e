/* SPDX-License-Identifier: BSD-3-Clause */
/* A client's reply handed over, and a client closed (control.h): below the
 * commands, the loader and the table manager, which all answer clients that
 * wait. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "control.h"
#include "ctl_proto.h"
#include "tdp_mono.h"

#define CTL_WRITE_MS 5000 /* a client has this long to read its reply */

void control_client_close(struct ctl_client *k)
{
	if (k->fd >= 0)
		close(k->fd);
	if (k->pfd >= 0)
		close(k->pfd);
	free(k->buf);
	*k = (struct ctl_client){.fd = -1, .pfd = -1, .state = CL_FREE};
}

void control_answer(void *ctx, int *slot, char *line)
{
	struct control *c = ctx;
	int i = *slot;
	*slot = -1;
	if (i < 0 || i >= CTL_SLOTS || c->cl[i].state == CL_FREE) {
		free(line);
		return;
	}
	struct ctl_client *k = &c->cl[i];
	if (!line) { /* out of memory for the reply: the client sees the connection close */
		control_client_close(k);
		return;
	}
	if (k->pfd >= 0)
		close(k->pfd);
	k->pfd = -1;
	free(k->buf);
	k->buf = line;
	k->len = strlen(line);
	k->off = 0;
	k->state = CL_WRITE;
	k->deadline_ns = tdp_mono_ns() + (int64_t)CTL_WRITE_MS * 1000000;
	if (!c->running || atomic_load(&c->stop)) {
		/* no thread to send it: now, briefly */
		ctl_write_all(k->fd, k->buf, k->len, 200);
		control_client_close(k);
	}
}
