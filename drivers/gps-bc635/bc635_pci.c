/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bc635_pci_bar.h"
#include "bc635_regs.h"

/* ---- UIO ----------------------------------------------------------------- */

/* uio_pci_generic masks INTx in the kernel's handler; writing 1 to the
 * device lets it through again (the kernel's UIO HOWTO) */
static int uio_take(struct bc_bus *b)
{
	uint32_t count;
	if (read(PB(b)->irq, &count, sizeof(count)) != sizeof(count))
		return errno == EAGAIN ? 0 : -errno;
	return 1;
}

static int uio_rearm(struct bc_bus *b)
{
	uint32_t one = 1;
	return write(PB(b)->irq, &one, sizeof(one)) == sizeof(one) ? 0 : -errno;
}

static const struct bc_bus_ops uio_ops = {
	.rd32 = bc635_pci_rd32,
	.wr32 = bc635_pci_wr32,
	.dp_rd8 = bc635_pci_dp_rd8,
	.dp_wr8 = bc635_pci_dp_wr8,
	.irq_fd = bc635_pci_irq_fd,
	.irq_take = uio_take,
	.irq_rearm = uio_rearm,
	.close = bc635_pci_close,
	.describe = bc635_pci_describe,
};

/* sysfs resourceN maps from the page that holds the BAR's start
 * (pci_mmap_resource_range adds start >> PAGE_SHIFT to the page offset), so a
 * BAR smaller than a page sits at start's offset within that page. */
static int uio_map(const char *devdir, int bar, const struct pci_info *pi, struct bar_io *io,
		   char *err, size_t errlen)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t in_page = pi->start[bar] & (pg - 1);
	size_t len = (size_t)((in_page + pi->size[bar] + pg - 1) / pg * pg);
	char path[400];
	snprintf(path, sizeof(path), "%s/resource%d", devdir, bar);
	int fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	void *m = fd < 0 ? MAP_FAILED : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int e = errno;
	if (fd >= 0)
		close(fd);
	if (m == MAP_FAILED) {
		snprintf(err, errlen, "%s: cannot map BAR %d: %s", path, bar, strerror(e));
		return -e;
	}
	io->map = m;
	io->map_len = len;
	io->p = (volatile uint8_t *)m + in_page;
	io->len = pi->size[bar];
	return 0;
}

static struct bc_bus *uio_open(const struct bc_pci_host *h, const char *dev, enum bc_bars bars,
			       char *err, size_t errlen)
{
	const char *name = strncmp(dev, "/dev/", 5) == 0 ? dev + 5 : dev;
	char devdir[300], path[300], how[300];
	snprintf(devdir, sizeof(devdir), "%s/class/uio/%.64s/device", h->sys, name);
	struct pci_info pi;
	struct bc_layout l;
	if (bc635_pci_info(devdir, &pi, err, errlen) ||
	    bc635_pci_layout(dev, &pi, pi.size, bars, &l, how, sizeof(how), err, errlen))
		return NULL;
	struct pci_bus *p = bc635_pci_bus_new(h, &uio_ops);
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p->bus.dp_size = l.dp_size;
	if (uio_map(devdir, l.reg_bar, &pi, &p->reg, err, errlen) ||
	    uio_map(devdir, l.dp_bar, &pi, &p->dp, err, errlen)) {
		bc635_pci_release(p);
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/%.64s", h->dev, name);
	p->irq = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (p->irq < 0) {
		snprintf(err, errlen, "%s: %s (is uio_pci_generic bound to the card?)", path,
			 strerror(errno));
		bc635_pci_release(p);
		return NULL;
	}
	int e = uio_rearm(&p->bus);
	if (e) {
		snprintf(err, errlen, "%s: cannot enable the interrupt: %s", path, strerror(-e));
		bc635_pci_release(p);
		return NULL;
	}
	snprintf(p->what, sizeof(p->what), "bc635PCI-U through UIO %.64s (%s)", path, how);
	return &p->bus;
}

/* ---- which ----------------------------------------------------------------- */

static int real_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg);
}

static const struct bc_pci_host real_host = {.sys = "/sys", .dev = "/dev", .ioctl = real_ioctl};

struct bc_bus *bc635_pci_open_at(const struct bc_pci_host *h, const char *dev, enum bc_bars bars,
				 char *err, size_t errlen)
{
	unsigned dom, bus, slot, fn;
	char extra;
	if (!dev || !*dev) {
		snprintf(err, errlen,
			 "no bc635-device given (uioN, /dev/uioN or a PCI address for VFIO)");
		return NULL;
	}
	if (sscanf(dev, "%x:%x:%x.%x%c", &dom, &bus, &slot, &fn, &extra) == 4)
		return bc635_vfio_open(h, dev, bars, err, errlen);
	if (strncmp(dev, "uio", 3) == 0 || strncmp(dev, "/dev/uio", 8) == 0)
		return uio_open(h, dev, bars, err, errlen);
	snprintf(err, errlen,
		 "bc635-device %s: give uioN, /dev/uioN or a PCI address such as 0000:03:00.0",
		 dev);
	return NULL;
}

struct bc_bus *bc635_pci_open(const char *dev, enum bc_bars bars, char *err, size_t errlen)
{
	return bc635_pci_open_at(&real_host, dev, bars, err, errlen);
}
