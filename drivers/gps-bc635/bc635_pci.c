/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <linux/vfio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bc635_pci.h"
#include "bc635_regs.h"

int bc635_pick_bars(const uint64_t size[6], enum bc_bars want, int *reg_bar, int *dp_bar, const char **how)
{
	if (want == BC_BARS_0_1 || want == BC_BARS_1_0) {
		*reg_bar = want == BC_BARS_0_1 ? 0 : 1;
		*dp_bar = 1 - *reg_bar;
		if (size[*reg_bar] < 0x40 || size[*dp_bar] < BC_DPRAM_SIZE) {
			*how = "the BARs given (bc635-bars) are too small for registers and DPRAM";
			return -ENODEV;
		}
		*how = "as configured (bc635-bars)";
		return 0;
	}
	if (size[0] < 0x40 || size[1] < 0x40) {
		*how = "BAR 0 or BAR 1 is missing or smaller than the register block: not a bc635PCI-U";
		return -ENODEV;
	}
	bool big0 = size[0] >= BC_DPRAM_SIZE, big1 = size[1] >= BC_DPRAM_SIZE;
	if (big0 && !big1) {
		*reg_bar = 1, *dp_bar = 0;
		*how = "from the BAR sizes: DPRAM in BAR 0 (the larger), registers in BAR 1";
	} else if (big1 && !big0) {
		*reg_bar = 0, *dp_bar = 1;
		*how = "from the BAR sizes: registers in BAR 0, DPRAM in BAR 1 (the larger)";
	} else if (big0 && big1) {
		*reg_bar = 0, *dp_bar = 1;
		*how = "both BARs hold 4 KiB or more: registers in BAR 0, DPRAM in BAR 1 assumed (bc635-bars to change)";
	} else {
		*how = "no BAR is large enough for the 4 KiB DPRAM: not a bc635PCI-U";
		return -ENODEV;
	}
	return 0;
}

struct pci_bus {
	struct bc_bus bus;
	volatile uint32_t *reg;
	volatile uint8_t *dp;
	size_t reg_len, dp_len;
	void *map[2];
	size_t map_len[2];
	int irq;                  /* /dev/uioN, or the VFIO eventfd */
	int vfio_dev, vfio_group, vfio_container;
	char what[400];
};

#define PB(b) ((struct pci_bus *)(b))

static uint32_t pci_rd32(struct bc_bus *b, uint32_t off)
{
	return off + 4 <= PB(b)->reg_len ? PB(b)->reg[off / 4] : 0xffffffff;
}

static void pci_wr32(struct bc_bus *b, uint32_t off, uint32_t v)
{
	if (off + 4 <= PB(b)->reg_len)
		PB(b)->reg[off / 4] = v;
}

static uint8_t pci_dp_rd8(struct bc_bus *b, uint32_t off)
{
	return off < PB(b)->dp_len ? PB(b)->dp[off] : 0xff;
}

static void pci_dp_wr8(struct bc_bus *b, uint32_t off, uint8_t v)
{
	if (off < PB(b)->dp_len)
		PB(b)->dp[off] = v;
}

static int pci_irq_fd(struct bc_bus *b)
{
	return PB(b)->irq;
}

/* uio_pci_generic masks INTx in the kernel's handler; writing 1 to the
 * device lets it through again (the kernel's UIO HOWTO) */
static int uio_take(struct bc_bus *b)
{
	struct pci_bus *p = PB(b);
	uint32_t count;
	if (read(p->irq, &count, sizeof(count)) != sizeof(count))
		return errno == EAGAIN ? 0 : -errno;
	return 1;
}

static int uio_rearm(struct bc_bus *b)
{
	uint32_t one = 1;
	return write(PB(b)->irq, &one, sizeof(one)) == sizeof(one) ? 0 : -errno;
}

/* vfio-pci masks INTx when it fires and signals the eventfd; an UNMASK
 * lets it through again (linux/vfio.h, VFIO_DEVICE_SET_IRQS) */
static int vfio_take(struct bc_bus *b)
{
	struct pci_bus *p = PB(b);
	uint64_t n;
	if (read(p->irq, &n, sizeof(n)) != sizeof(n))
		return errno == EAGAIN ? 0 : -errno;
	return (int)n;
}

static int vfio_rearm(struct bc_bus *b)
{
	struct vfio_irq_set u = {.argsz = sizeof(u), .flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_UNMASK,
				 .index = VFIO_PCI_INTX_IRQ_INDEX, .start = 0, .count = 1};
	return ioctl(PB(b)->vfio_dev, VFIO_DEVICE_SET_IRQS, &u) == 0 ? 0 : -errno;
}

static void pci_close(struct bc_bus *b)
{
	struct pci_bus *p = PB(b);
	for (int i = 0; i < 2; i++)
		if (p->map[i] && p->map[i] != MAP_FAILED)
			munmap(p->map[i], p->map_len[i]);
	if (p->irq >= 0)
		close(p->irq);
	if (p->vfio_dev >= 0)
		close(p->vfio_dev);
	if (p->vfio_group >= 0)
		close(p->vfio_group);
	if (p->vfio_container >= 0)
		close(p->vfio_container);
	free(p);
}

static void pci_describe(struct bc_bus *b, char *buf, size_t len)
{
	snprintf(buf, len, "%s", PB(b)->what);
}

static struct bc_bus_ops uio_ops = {
	.rd32 = pci_rd32, .wr32 = pci_wr32, .dp_rd8 = pci_dp_rd8, .dp_wr8 = pci_dp_wr8,
	.irq_fd = pci_irq_fd, .irq_take = uio_take, .irq_rearm = uio_rearm, .close = pci_close, .describe = pci_describe,
};

static struct bc_bus_ops vfio_ops = {
	.rd32 = pci_rd32, .wr32 = pci_wr32, .dp_rd8 = pci_dp_rd8, .dp_wr8 = pci_dp_wr8,
	.irq_fd = pci_irq_fd, .irq_take = vfio_take, .irq_rearm = vfio_rearm, .close = pci_close,
	.describe = pci_describe,
};

static int check_ids(const char *devdir, char *err, size_t errlen)
{
	char path[300];
	unsigned v = 0, d = 0;
	snprintf(path, sizeof(path), "%s/vendor", devdir);
	FILE *f = fopen(path, "r");
	if (!f || fscanf(f, "%x", &v) != 1) {
		if (f)
			fclose(f);
		snprintf(err, errlen, "%s: no PCI device there", devdir);
		return -ENODEV;
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/device", devdir);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%x", &d) != 1)
		d = 0;
	if (f)
		fclose(f);
	if (v != BC635_VENDOR || d != BC635_DEVICE) {
		snprintf(err, errlen, "%s is PCI %04x:%04x, not a bc635PCI-U (%04x:%04x)", devdir, v, d, BC635_VENDOR,
			 BC635_DEVICE);
		return -ENODEV;
	}
	return 0;
}

static void bar_sizes(const char *devdir, uint64_t size[6])
{
	char path[300];
	snprintf(path, sizeof(path), "%s/resource", devdir);
	FILE *f = fopen(path, "r");
	memset(size, 0, 6 * sizeof(uint64_t));
	for (int i = 0; f && i < 6; i++) {
		uint64_t s, e, fl;
		if (fscanf(f, "%" SCNx64 " %" SCNx64 " %" SCNx64, &s, &e, &fl) != 3)
			break;
		size[i] = e > s ? e - s + 1 : 0;
	}
	if (f)
		fclose(f);
}

static struct bc_bus *uio_open(const char *dev, enum bc_bars bars, char *err, size_t errlen)
{
	const char *name = strncmp(dev, "/dev/", 5) == 0 ? dev + 5 : dev;
	char devdir[200], path[300];
	snprintf(devdir, sizeof(devdir), "/sys/class/uio/%.64s/device", name);
	if (check_ids(devdir, err, errlen))
		return NULL;
	uint64_t size[6];
	bar_sizes(devdir, size);
	int rb, db;
	const char *how;
	if (bc635_pick_bars(size, bars, &rb, &db, &how)) {
		snprintf(err, errlen, "%s: %s", dev, how);
		return NULL;
	}
	struct pci_bus *p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p->bus.ops = &uio_ops;
	p->irq = p->vfio_dev = p->vfio_group = p->vfio_container = -1;
	int bar[2] = {rb, db};
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/resource%d", devdir, bar[i]);
		int fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
		p->map_len[i] = size[bar[i]];
		p->map[i] = fd < 0 ? MAP_FAILED : mmap(NULL, p->map_len[i], PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (fd >= 0)
			close(fd);
		if (p->map[i] == MAP_FAILED) {
			snprintf(err, errlen, "%s: cannot map BAR %d: %s", path, bar[i], strerror(errno));
			pci_close(&p->bus);
			return NULL;
		}
	}
	p->reg = p->map[0];
	p->reg_len = p->map_len[0];
	p->dp = p->map[1];
	p->dp_len = p->map_len[1] < BC_DPRAM_SIZE ? p->map_len[1] : BC_DPRAM_SIZE;
	snprintf(path, sizeof(path), "/dev/%.64s", name);
	p->irq = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (p->irq < 0) {
		snprintf(err, errlen, "%s: %s (is uio_pci_generic bound to the card?)", path, strerror(errno));
		pci_close(&p->bus);
		return NULL;
	}
	int e = uio_rearm(&p->bus);
	if (e) {
		snprintf(err, errlen, "%s: cannot enable the interrupt: %s", path, strerror(-e));
		pci_close(&p->bus);
		return NULL;
	}
	snprintf(p->what, sizeof(p->what), "bc635PCI-U through UIO %.64s (registers BAR %d, DPRAM BAR %d, %s)", path, rb,
		 db, how);
	return &p->bus;
}

static struct bc_bus *vfio_open(const char *addr, enum bc_bars bars, char *err, size_t errlen)
{
	char devdir[200], link[PATH_MAX], path[300];
	snprintf(devdir, sizeof(devdir), "/sys/bus/pci/devices/%.64s", addr);
	if (check_ids(devdir, err, errlen))
		return NULL;
	snprintf(path, sizeof(path), "%s/iommu_group", devdir);
	ssize_t n = readlink(path, link, sizeof(link) - 1);
	if (n < 0) {
		snprintf(err, errlen, "%s: no IOMMU group (VFIO needs the IOMMU on, or use uio_pci_generic)", addr);
		return NULL;
	}
	link[n] = 0;
	struct pci_bus *p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p->bus.ops = &vfio_ops;
	p->irq = p->vfio_dev = p->vfio_group = -1;
	p->vfio_container = open("/dev/vfio/vfio", O_RDWR | O_CLOEXEC);
	snprintf(path, sizeof(path), "/dev/vfio/%.64s", strrchr(link, '/') + 1);
	p->vfio_group = open(path, O_RDWR | O_CLOEXEC);
	struct vfio_group_status gs = {.argsz = sizeof(gs)};
	if (p->vfio_container < 0 || p->vfio_group < 0 || ioctl(p->vfio_group, VFIO_GROUP_GET_STATUS, &gs) ||
	    !(gs.flags & VFIO_GROUP_FLAGS_VIABLE) ||
	    ioctl(p->vfio_group, VFIO_GROUP_SET_CONTAINER, &p->vfio_container) ||
	    ioctl(p->vfio_container, VFIO_SET_IOMMU, VFIO_TYPE1_IOMMU) ||
	    (p->vfio_dev = ioctl(p->vfio_group, VFIO_GROUP_GET_DEVICE_FD, addr)) < 0) {
		snprintf(err, errlen, "%s: VFIO set-up failed at %s: %s (is vfio-pci bound to the card?)", addr, path,
			 strerror(errno));
		pci_close(&p->bus);
		return NULL;
	}
	uint64_t size[6], offset[6];
	for (int i = 0; i < 6; i++) {
		struct vfio_region_info ri = {.argsz = sizeof(ri), .index = (uint32_t)i};
		size[i] = ioctl(p->vfio_dev, VFIO_DEVICE_GET_REGION_INFO, &ri) ? 0 : ri.size;
		offset[i] = ri.offset;
	}
	int rb, db;
	const char *how;
	if (bc635_pick_bars(size, bars, &rb, &db, &how)) {
		snprintf(err, errlen, "%s: %s", addr, how);
		pci_close(&p->bus);
		return NULL;
	}
	int bar[2] = {rb, db};
	for (int i = 0; i < 2; i++) {
		p->map_len[i] = size[bar[i]];
		p->map[i] = mmap(NULL, p->map_len[i], PROT_READ | PROT_WRITE, MAP_SHARED, p->vfio_dev,
				 (off_t)offset[bar[i]]);
		if (p->map[i] == MAP_FAILED) {
			snprintf(err, errlen, "%s: cannot map BAR %d: %s", addr, bar[i], strerror(errno));
			pci_close(&p->bus);
			return NULL;
		}
	}
	p->reg = p->map[0];
	p->reg_len = p->map_len[0];
	p->dp = p->map[1];
	p->dp_len = p->map_len[1] < BC_DPRAM_SIZE ? p->map_len[1] : BC_DPRAM_SIZE;
	p->irq = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	/* struct vfio_irq_set with one eventfd in its flexible data */
	union {
		uint8_t b[sizeof(struct vfio_irq_set) + sizeof(int32_t)];
		uint32_t align;
	} irq;
	struct vfio_irq_set hdr = {.argsz = sizeof(irq), .flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER,
				   .index = VFIO_PCI_INTX_IRQ_INDEX, .start = 0, .count = 1};
	int32_t efd = p->irq;
	memcpy(irq.b, &hdr, sizeof(hdr));
	memcpy(irq.b + sizeof(hdr), &efd, sizeof(efd));
	if (p->irq < 0 || ioctl(p->vfio_dev, VFIO_DEVICE_SET_IRQS, irq.b)) {
		snprintf(err, errlen, "%s: cannot route the interrupt to an eventfd: %s", addr, strerror(errno));
		pci_close(&p->bus);
		return NULL;
	}
	snprintf(p->what, sizeof(p->what), "bc635PCI-U through VFIO %.64s (registers BAR %d, DPRAM BAR %d, %s)", addr, rb, db,
		 how);
	return &p->bus;
}

struct bc_bus *bc635_pci_open(const char *dev, enum bc_bars bars, char *err, size_t errlen)
{
	unsigned dom, bus, slot, fn;
	char extra;
	if (!dev || !*dev) {
		snprintf(err, errlen, "no bc635-device given (uioN, /dev/uioN or a PCI address for VFIO)");
		return NULL;
	}
	if (sscanf(dev, "%x:%x:%x.%x%c", &dom, &bus, &slot, &fn, &extra) == 4)
		return vfio_open(dev, bars, err, errlen);
	if (strncmp(dev, "uio", 3) == 0 || strncmp(dev, "/dev/uio", 8) == 0)
		return uio_open(dev, bars, err, errlen);
	snprintf(err, errlen, "bc635-device %s: give uioN, /dev/uioN or a PCI address such as 0000:03:00.0", dev);
	return NULL;
}
