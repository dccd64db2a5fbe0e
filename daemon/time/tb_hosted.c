/* SPDX-License-Identifier: BSD-3-Clause */
/* The host clock under a hosted source (tb_hosted.h). */
#include "tb_hosted.h"
#include "tb_system.h"

int tb_hosted_system(struct tb_hosted *h, const struct tb_params *p, char *err, size_t errlen)
{
	struct tb_params hp = *p;
	struct tb_system_params assume = {.sync_mode = TB_SYSSYNC_ASSUME};
	hp.own = &assume;
	int rc = tb_system_ops.create(&h->host, &hp, err, errlen);
	h->own_host = rc == 0;
	return rc;
}

void tb_hosted_release(struct tb_hosted *h)
{
	if (h->host && h->own_host)
		h->host->ops->destroy(h->host);
	h->host = NULL;
	h->own_host = false;
}
