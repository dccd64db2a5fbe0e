/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The card through vfio-pci: its IOMMU group, the device's regions, INTx on
 * an eventfd (linux/vfio.h; the kernel's Documentation/driver-api/vfio.rst).
 * A BAR the kernel will not let be mapped (no VFIO_REGION_INFO_FLAG_MMAP, as
 * for a BAR smaller than a page that does not start a page of its own:
 * vfio_pci_probe_mmaps) is read and written through the region with
 * pread/pwrite, which vfio-pci turns into accesses of the same width.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/vfio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bc635_pci_bar.h"

/* vfio-pci masks INTx when it fires and signals the eventfd; an UNMASK
 * lets it through again (linux/vfio.h, VFIO_DEVICE_SET_IRQS) */
static int vfio_take(struct bc_bus *b)
{
	uint64_t n;
	if (read(PB(b)->irq, &n, sizeof(n)) != sizeof(n))
		return errno == EAGAIN ? 0 : -errno;
	return (int)n;
}

static int vfio_rearm(struct bc_bus *b)
{
	struct pci_bus *p = PB(b);
	struct vfio_irq_set u = {.argsz = sizeof(u),
				 .flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_UNMASK,
				 .index = VFIO_PCI_INTX_IRQ_INDEX,
				 .start = 0,
				 .count = 1};
	return p->host->ioctl(p->vfio_dev, VFIO_DEVICE_SET_IRQS, &u) == 0 ? 0 : -errno;
}

static const struct bc_bus_ops vfio_ops = {
	.rd32 = bc635_pci_rd32,
	.wr32 = bc635_pci_wr32,
	.dp_rd8 = bc635_pci_dp_rd8,
	.dp_wr8 = bc635_pci_dp_wr8,
	.irq_fd = bc635_pci_irq_fd,
	.irq_take = vfio_take,
	.irq_rearm = vfio_rearm,
	.close = bc635_pci_close,
	.describe = bc635_pci_describe,
};

/* Mapped when the region allows it, else through pread/pwrite. "mapped" or
 * "through the region", for the log. */
static const char *vfio_bar(struct pci_bus *p, const struct vfio_region_info *ri, struct bar_io *io)
{
	io->len = ri->size;
	if (ri->flags & VFIO_REGION_INFO_FLAG_MMAP) {
		uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
		size_t len = (size_t)((ri->size + pg - 1) / pg * pg);
		void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, p->vfio_dev,
			       (off_t)ri->offset);
		if (m != MAP_FAILED) {
			io->map = m;
			io->map_len = len;
			io->p = m;
			return "mapped";
		}
	}
	io->fd = p->vfio_dev;
	io->off = ri->offset;
	return "through the region";
}

struct bc_bus *bc635_vfio_open(const struct bc_pci_host *h, const char *addr, enum bc_bars bars,
			       char *err, size_t errlen)
{
	char devdir[300], link[PATH_MAX], path[400], how[300];
	snprintf(devdir, sizeof(devdir), "%s/bus/pci/devices/%.64s", h->sys, addr);
	struct pci_info pi;
	if (bc635_pci_info(devdir, &pi, err, errlen))
		return NULL;
	snprintf(path, sizeof(path), "%s/iommu_group", devdir);
	ssize_t n = readlink(path, link, sizeof(link) - 1);
	if (n < 0) {
		snprintf(err, errlen,
			 "%s: no IOMMU group (VFIO needs the IOMMU on, or use uio_pci_generic)",
			 addr);
		return NULL;
	}
	link[n] = 0;
	const char *group = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	struct pci_bus *p = bc635_pci_bus_new(h, &vfio_ops);
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/vfio/vfio", h->dev);
	p->vfio_container = open(path, O_RDWR | O_CLOEXEC);
	snprintf(path, sizeof(path), "%s/vfio/%.64s", h->dev, group);
	p->vfio_group = open(path, O_RDWR | O_CLOEXEC);
	struct vfio_group_status gs = {.argsz = sizeof(gs)};
	if (p->vfio_container < 0 || p->vfio_group < 0 ||
	    h->ioctl(p->vfio_group, VFIO_GROUP_GET_STATUS, &gs) ||
	    !(gs.flags & VFIO_GROUP_FLAGS_VIABLE) ||
	    h->ioctl(p->vfio_group, VFIO_GROUP_SET_CONTAINER, &p->vfio_container) ||
	    h->ioctl(p->vfio_container, VFIO_SET_IOMMU, (void *)(uintptr_t)VFIO_TYPE1_IOMMU) ||
	    (p->vfio_dev = h->ioctl(p->vfio_group, VFIO_GROUP_GET_DEVICE_FD, (void *)addr)) < 0) {
		snprintf(err, errlen,
			 "%s: VFIO set-up failed at %s: %s (is vfio-pci bound to the card, and "
			 "every "
			 "device of its IOMMU group?)",
			 addr, path, strerror(errno));
		bc635_pci_release(p);
		return NULL;
	}
	struct vfio_region_info ri[6];
	uint64_t size[6];
	for (int i = 0; i < 6; i++) {
		ri[i] = (struct vfio_region_info){.argsz = sizeof(ri[i]), .index = (uint32_t)i};
		size[i] =
			h->ioctl(p->vfio_dev, VFIO_DEVICE_GET_REGION_INFO, &ri[i]) ? 0 : ri[i].size;
	}
	struct bc_layout l;
	if (bc635_pci_layout(addr, &pi, size, bars, &l, how, sizeof(how), err, errlen)) {
		bc635_pci_release(p);
		return NULL;
	}
	p->bus.dp_size = l.dp_size;
	const char *rm = vfio_bar(p, &ri[l.reg_bar], &p->reg);
	const char *dm = vfio_bar(p, &ri[l.dp_bar], &p->dp);
	p->irq = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	/* struct vfio_irq_set with one eventfd in its flexible data */
	union {
		uint8_t b[sizeof(struct vfio_irq_set) + sizeof(int32_t)];
		uint32_t align;
	} irq;
	struct vfio_irq_set hdr = {.argsz = sizeof(irq),
				   .flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER,
				   .index = VFIO_PCI_INTX_IRQ_INDEX,
				   .start = 0,
				   .count = 1};
	int32_t efd = p->irq;
	memcpy(irq.b, &hdr, sizeof(hdr));
	memcpy(irq.b + sizeof(hdr), &efd, sizeof(efd));
	if (p->irq < 0 || h->ioctl(p->vfio_dev, VFIO_DEVICE_SET_IRQS, irq.b)) {
		snprintf(err, errlen, "%s: cannot route the interrupt to an eventfd: %s", addr,
			 strerror(errno));
		bc635_pci_release(p);
		return NULL;
	}
	snprintf(p->what, sizeof(p->what),
		 "bc635PCI-U through VFIO %.64s (%.250s; registers %s, DPRAM %s)", addr, how, rm,
		 dm);
	return &p->bus;
}
