/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdpprog.h"
#include "tdp_names.h"

/* the key of tdp_local, as tdpd_xdp.bpf.c declares it */
struct tdp_addr {
	uint8_t family;
	uint8_t pad[3];
	uint8_t a[16];
};

/* libbpf's messages go on to stderr as before; the kernel's own reason for
 * refusing a program (its extack, which libbpf relays) is kept */
static char kernel_says[256];

static int print_hook(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[512];
	vsnprintf(line, sizeof(line), fmt, ap);
	const char *k = strstr(line, "Kernel error message: ");
	if (k) {
		snprintf(kernel_says, sizeof(kernel_says), "%.*s", (int)strcspn(k + 22, "\n"),
			 k + 22);
	}
	if (level == LIBBPF_DEBUG)
		return 0;
	return fputs(line, stderr);
}

void xdpp_catch_kernel_messages(void)
{
	libbpf_set_print(print_hook);
}

const char *xdpp_kernel_said(void)
{
	return kernel_says;
}

const char *xdpp_stat_name(enum xdpp_stat s)
{
	static const char *const n[XDPP_NSTATS] = {
		[XDPP_TO_TDPD] = "to-tdpd", [XDPP_NO_SOCKET] = "no-socket",
		[XDPP_ARP] = "arp",	    [XDPP_ND] = "nd",
		[XDPP_PTP] = "ptp",	    [XDPP_LINK] = "link-scope",
		[XDPP_LOCAL] = "local",
	};
	return TDP_NAME_OF(n, s, "unknown");
}

int xdpp_attached(unsigned ifindex, uint32_t *id, char *name, size_t namelen)
{
	*id = 0;
	if (namelen)
		name[0] = 0;
	int rc = bpf_xdp_query_id((int)ifindex, 0, id);
	if (rc < 0)
		return rc;
	if (!*id)
		return 0;
	int fd = bpf_prog_get_fd_by_id(*id);
	if (fd < 0)
		return -errno;
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);
	memset(&info, 0, sizeof(info));
	rc = bpf_obj_get_info_by_fd(fd, &info, &len);
	close(fd);
	if (rc < 0)
		return rc;
	snprintf(name, namelen, "%s", info.name);
	return 0;
}

int xdpp_detach(unsigned ifindex)
{
	return bpf_xdp_detach((int)ifindex, 0, NULL);
}

int xdpp_open(struct xdpp *x, unsigned ifindex, char *err, size_t errlen)
{
	x->local_fd = x->stats_fd = -1;
	char name[64];
	int rc = xdpp_attached(ifindex, &x->prog_id, name, sizeof(name));
	if (rc < 0 || !x->prog_id || strcmp(name, XDPP_PROG_NAME) != 0) {
		snprintf(err, errlen, "%s",
			 rc < 0	       ? strerror(-rc)
			 : !x->prog_id ? "no XDP program attached"
				       : "another XDP program is attached");
		return rc < 0 ? rc : -ENOENT;
	}
	int pfd = bpf_prog_get_fd_by_id(x->prog_id);
	if (pfd < 0) {
		snprintf(err, errlen, "program %u: %s", x->prog_id, strerror(errno));
		return -errno;
	}
	uint32_t ids[16];
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);
	memset(&info, 0, sizeof(info));
	info.nr_map_ids = 16;
	info.map_ids = (uint64_t)(uintptr_t)ids;
	rc = bpf_obj_get_info_by_fd(pfd, &info, &len);
	close(pfd);
	if (rc < 0) {
		snprintf(err, errlen, "program %u: %s", x->prog_id, strerror(-rc));
		return rc;
	}
	for (uint32_t i = 0; i < info.nr_map_ids && i < 16; i++) {
		int mfd = bpf_map_get_fd_by_id(ids[i]);
		if (mfd < 0)
			continue;
		struct bpf_map_info mi;
		uint32_t ml = sizeof(mi);
		memset(&mi, 0, sizeof(mi));
		if (bpf_obj_get_info_by_fd(mfd, &mi, &ml) == 0 &&
		    strcmp(mi.name, "tdp_local") == 0 && mi.key_size == sizeof(struct tdp_addr) &&
		    x->local_fd < 0)
			x->local_fd = mfd;
		else if (strcmp(mi.name, "tdp_stats") == 0 && mi.max_entries == XDPP_NSTATS &&
			 x->stats_fd < 0)
			x->stats_fd = mfd;
		else
			close(mfd);
	}
	if (x->local_fd < 0 || x->stats_fd < 0) {
		snprintf(err, errlen,
			 "program %u lacks tdp_local or tdp_stats: not the program this tdpd ships",
			 x->prog_id);
		xdpp_close(x);
		return -ENOENT;
	}
	return 0;
}

void xdpp_close(struct xdpp *x)
{
	if (x->local_fd >= 0)
		close(x->local_fd);
	if (x->stats_fd >= 0)
		close(x->stats_fd);
	x->local_fd = x->stats_fd = -1;
}

int xdpp_set_local(struct xdpp *x, const uint8_t (*addr)[17], size_t n)
{
	uint32_t one = 1;
	for (size_t i = 0; i < n; i++) {
		struct tdp_addr k = {.family = addr[i][0]};
		memcpy(k.a, addr[i] + 1, 16);
		if (bpf_map_update_elem(x->local_fd, &k, &one, BPF_ANY) < 0)
			return -errno;
	}
	/* then drop what is no longer ours */
	struct tdp_addr k, next;
	void *prev = NULL;
	while (bpf_map_get_next_key(x->local_fd, prev, &next) == 0) {
		k = next;
		bool keep = false;
		for (size_t i = 0; i < n && !keep; i++)
			keep = k.family == addr[i][0] && memcmp(k.a, addr[i] + 1, 16) == 0;
		if (!keep) {
			bpf_map_delete_elem(x->local_fd, &k);
			prev = NULL; /* start over: the iteration order changed */
		} else {
			prev = &k;
		}
	}
	return 0;
}

int xdpp_stats(const struct xdpp *x, uint64_t out[XDPP_NSTATS])
{
	int ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0)
		return ncpu < 0 ? ncpu : -EINVAL;
	uint64_t *v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	int rc = 0;
	for (uint32_t s = 0; s < XDPP_NSTATS; s++) {
		out[s] = 0;
		if (bpf_map_lookup_elem(x->stats_fd, &s, v) < 0) {
			rc = -errno;
			break;
		}
		for (int c = 0; c < ncpu; c++)
			out[s] += v[c];
	}
	free(v);
	return rc;
}
