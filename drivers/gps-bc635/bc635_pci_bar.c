/* SPDX-License-Identifier: BSD-3-Clause */
/* What the UIO (bc635_pci.c) and VFIO (bc635_vfio.c) back-ends share
 * (bc635_pci_bar.h): a BAR reached mapped or through pread/pwrite, the bus
 * around two of them, the PCI identity from sysfs and the BAR layout. */
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

int bc635_layout(int revision, const uint64_t size[6], enum bc_bars want, struct bc_layout *l,
		 char *how, size_t howlen)
{
	int gen = revision >= 0 ? bc635_generation((unsigned)revision) : 0;
	bool told = want != BC_BARS_AUTO;
	l->generation = gen;
	if (!told) {
		if (!gen) {
			if (revision < 0)
				snprintf(how, howlen,
					 "the PCI revision could not be read, so the generation is "
					 "not known: "
					 "set bc635-bars (0,1 for the first generation, 2,3 for "
					 "the second)");
			else
				snprintf(how, howlen,
					 "PCI revision 0x%02x is neither 0x12 (the first "
					 "generation) nor "
					 "0x20-0x2F (the second), the ones public sources name: "
					 "look at the card's BARs "
					 "(lspci -v) and set bc635-bars (0,1 or 2,3)",
					 revision);
			return -ENODEV;
		}
		want = gen == 1 ? BC_BARS_0_1 : BC_BARS_2_3;
	}
	struct bc635_bars_of b = bc635_bars_of(want == BC_BARS_2_3 ? 2 : 1);
	bool swapped = want == BC_BARS_1_0; /* the first generation's, the other way round */
	l->reg_bar = swapped ? b.dp_bar : b.reg_bar;
	l->dp_bar = swapped ? b.reg_bar : b.dp_bar;
	l->dp_size = b.dp_size;
	/* a first-generation card whose BAR1 is 2 KiB holds the area offsets
	 * at the top of those 2 KiB (the QNX driver reads them at 0x7FE of
	 * BAR1; 0xFFE would be past the BAR): chosen, or seen in BAR1's size */
	bool small = want == BC_BARS_0_1_2K ||
		     (!told && gen == 1 && size[l->dp_bar] >= BC_DPRAM_SIZE_V2 &&
		      size[l->dp_bar] < BC_DPRAM_SIZE_V1);
	if (small)
		l->dp_size = BC_DPRAM_SIZE_V2;
	char gname[80];
	if (gen)
		snprintf(gname, sizeof(gname), "%s generation (PCI revision 0x%02x)",
			 gen == 1 ? "first" : "second", revision);
	else
		snprintf(gname, sizeof(gname), "PCI revision %s%02x",
			 revision < 0 ? "unknown" : "0x", revision < 0 ? 0u : (unsigned)revision);
	if (size[l->reg_bar] < 0x40 || size[l->dp_bar] < l->dp_size) {
		snprintf(how, howlen,
			 "%s: BAR %d (%" PRIu64 " bytes) and BAR %d (%" PRIu64
			 " bytes) cannot hold the "
			 "registers (64 bytes) and %u KiB of DPRAM%s",
			 gname, l->reg_bar, size[l->reg_bar], l->dp_bar, size[l->dp_bar],
			 l->dp_size / 1024, told ? " (as bc635-bars says)" : ": not a bc635PCI-U");
		return -ENODEV;
	}
	snprintf(how, howlen, "%s: registers in BAR %d, %u KiB of DPRAM in BAR %d%s", gname,
		 l->reg_bar, l->dp_size / 1024, l->dp_bar,
		 told	 ? ", as bc635-bars says"
		 : small ? " (BAR 1 is 2 KiB)"
			 : "");
	return 0;
}

/* ---- the bus over mapped or region-accessed BARs ---------------------------- */

uint32_t bc635_pci_rd32(struct bc_bus *b, uint32_t off)
{
	struct bar_io *r = &PB(b)->reg;
	uint32_t v = 0xffffffff;
	if ((uint64_t)off + 4 > r->len || (off & 3))
		return v;
	if (r->p)
		return *(volatile uint32_t *)(r->p + off);
	/* a VFIO region: one 4-byte access at an aligned offset is one read of
	 * the register (vfio_pci_bar_rw) */
	if (pread(r->fd, &v, 4, (off_t)(r->off + off)) != 4)
		v = 0xffffffff;
	return v;
}

void bc635_pci_wr32(struct bc_bus *b, uint32_t off, uint32_t v)
{
	struct bar_io *r = &PB(b)->reg;
	if ((uint64_t)off + 4 > r->len || (off & 3))
		return;
	if (r->p)
		*(volatile uint32_t *)(r->p + off) = v;
	else if (pwrite(r->fd, &v, 4, (off_t)(r->off + off)) != 4)
		return;
}

uint8_t bc635_pci_dp_rd8(struct bc_bus *b, uint32_t off)
{
	struct bar_io *d = &PB(b)->dp;
	uint8_t v = 0xff;
	if (off >= b->dp_size || off >= d->len)
		return v;
	if (d->p)
		return d->p[off];
	if (pread(d->fd, &v, 1, (off_t)(d->off + off)) != 1)
		v = 0xff;
	return v;
}

void bc635_pci_dp_wr8(struct bc_bus *b, uint32_t off, uint8_t v)
{
	struct bar_io *d = &PB(b)->dp;
	if (off >= b->dp_size || off >= d->len)
		return;
	if (d->p)
		d->p[off] = v;
	else if (pwrite(d->fd, &v, 1, (off_t)(d->off + off)) != 1)
		return;
}

int bc635_pci_irq_fd(struct bc_bus *b)
{
	return PB(b)->irq;
}

void bc635_pci_describe(struct bc_bus *b, char *buf, size_t len)
{
	snprintf(buf, len, "%s", PB(b)->what);
}

struct pci_bus *bc635_pci_bus_new(const struct bc_pci_host *h, const struct bc_bus_ops *ops)
{
	struct pci_bus *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->bus.ops = ops;
	p->host = h;
	p->irq = p->vfio_dev = p->vfio_group = p->vfio_container = -1;
	p->reg.fd = p->dp.fd = -1;
	return p;
}

void bc635_pci_release(struct pci_bus *p)
{
	struct bar_io *io[2] = {&p->reg, &p->dp};
	for (int i = 0; i < 2; i++)
		if (io[i]->map)
			munmap(io[i]->map, io[i]->map_len);
	int fds[4] = {p->irq, p->vfio_dev, p->vfio_group, p->vfio_container};
	for (int i = 0; i < 4; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(p);
}

void bc635_pci_close(struct bc_bus *b)
{
	bc635_pci_release(PB(b));
}

/* ---- what sysfs says about the device ------------------------------------- */

static bool read_hex(const char *dir, const char *name, unsigned *out)
{
	char path[400];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	bool ok = f && fscanf(f, "%x", out) == 1;
	if (f)
		fclose(f);
	return ok;
}

int bc635_pci_info(const char *devdir, struct pci_info *pi, char *err, size_t errlen)
{
	memset(pi, 0, sizeof(*pi));
	pi->revision = -1;
	/* config space: vendor at 0, device at 2 (little-endian), revision at 8 */
	char path[400];
	snprintf(path, sizeof(path), "%s/config", devdir);
	uint8_t cfg[9];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && pread(fd, cfg, sizeof(cfg), 0) == (ssize_t)sizeof(cfg)) {
		pi->vendor = (unsigned)cfg[0] | (unsigned)cfg[1] << 8;
		pi->device = (unsigned)cfg[2] | (unsigned)cfg[3] << 8;
		pi->revision = cfg[8];
	} else {
		unsigned rev;
		if (!read_hex(devdir, "vendor", &pi->vendor)) {
			if (fd >= 0)
				close(fd);
			snprintf(err, errlen, "%s: no PCI device there", devdir);
			return -ENODEV;
		}
		read_hex(devdir, "device", &pi->device);
		if (read_hex(devdir, "revision", &rev))
			pi->revision = (int)(rev & 0xff);
	}
	if (fd >= 0)
		close(fd);
	if (pi->vendor != BC635_VENDOR || pi->device != BC635_DEVICE) {
		snprintf(err, errlen, "%s is PCI %04x:%04x, not a bc635PCI-U (%04x:%04x)", devdir,
			 pi->vendor, pi->device, BC635_VENDOR, BC635_DEVICE);
		return -ENODEV;
	}
	snprintf(path, sizeof(path), "%s/resource", devdir);
	FILE *f = fopen(path, "r");
	for (int i = 0; f && i < 6; i++) {
		uint64_t s, e, fl;
		if (fscanf(f, "%" SCNx64 " %" SCNx64 " %" SCNx64, &s, &e, &fl) != 3)
			break;
		pi->start[i] = s;
		pi->size[i] = e > s ? e - s + 1 : 0;
	}
	if (f)
		fclose(f);
	return 0;
}

int bc635_pci_layout(const char *name, const struct pci_info *pi, const uint64_t size[6],
		     enum bc_bars bars, struct bc_layout *l, char *how, size_t howlen, char *err,
		     size_t errlen)
{
	if (bc635_layout(pi->revision, size, bars, l, how, howlen)) {
		snprintf(err, errlen, "%s: %s", name, how);
		return -ENODEV;
	}
	return 0;
}
