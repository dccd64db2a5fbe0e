/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bc635's PCI back-ends on a tree that stands where the kernel's would:
 * sysfs directories with config space, `resource` and resourceN files, a
 * FIFO as /dev/uioN, and, for VFIO, regular files under /dev/vfio with the
 * VFIO ioctls answered as linux/vfio.h and vfio_pci_probe_mmaps say: BAR
 * sizes, region offsets, no mmap for a register BAR smaller than a page.
 * What the tree cannot be is a card: the registers and DPRAM are plain
 * bytes, so these tests check where each access lands and in what order,
 * not what a card answers (the simulator's tests do that).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/vfio.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bc635.h"
#include "bc635_pci.h"
#include "bc635_regs.h"

static char root[256];

static void path_of(char *out, size_t len, const char *rel)
{
	snprintf(out, len, "%s/%s", root, rel);
}

static void mkdirs(const char *rel)
{
	char p[512];
	path_of(p, sizeof(p), rel);
	for (char *s = p + strlen(root) + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
}

static void put(const char *rel, const void *data, size_t n, off_t size)
{
	char p[512];
	path_of(p, sizeof(p), rel);
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, n), (ssize_t)n);
	if (size)
		assert_int_equal(ftruncate(fd, size), 0);
	close(fd);
}

static void poke(const char *rel, off_t off, const void *data, size_t n)
{
	char p[512];
	path_of(p, sizeof(p), rel);
	int fd = open(p, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, data, n, off), (ssize_t)n);
	close(fd);
}

static uint32_t peek32(const char *rel, off_t off)
{
	char p[512];
	uint32_t v = 0;
	path_of(p, sizeof(p), rel);
	int fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &v, 4, off), 4);
	close(fd);
	return v;
}

static void poke32(const char *rel, off_t off, uint32_t v)
{
	poke(rel, off, &v, 4);
}

/* A PCI device directory: config space with the ids and revision, and a
 * `resource` file with the BARs' start and end as the kernel writes them. */
static void pci_dev(const char *dir, uint8_t rev, const uint64_t start[6], const uint64_t size[6])
{
	mkdirs(dir);
	char rel[300], text[1024] = "";
	uint8_t cfg[64] = {0xe2, 0x12, 0x13, 0x40};
	cfg[8] = rev;
	snprintf(rel, sizeof(rel), "%s/config", dir);
	put(rel, cfg, sizeof(cfg), 0);
	for (int i = 0; i < 6; i++) {
		size_t k = strlen(text);
		snprintf(text + k, sizeof(text) - k, "0x%016llx 0x%016llx 0x%016llx\n",
			 (unsigned long long)(size[i] ? start[i] : 0),
			 (unsigned long long)(size[i] ? start[i] + size[i] - 1 : 0),
			 size[i] ? 0x40200ULL : 0ULL);
	}
	snprintf(rel, sizeof(rel), "%s/resource", dir);
	put(rel, text, strlen(text), 0);
}

static int setup(void **st)
{
	(void)st;
	snprintf(root, sizeof(root), "/tmp/tdpd-bc635-pci.XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **st)
{
	(void)st;
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

/* the DPRAM's area offsets at its top, most significant byte first */
static void dpram_top(const char *rel, off_t at, uint32_t dp_size)
{
	static const uint8_t top[4] = {0x00, 0x82, 0x01, 0x02};
	poke(rel, at + (off_t)dp_size - 4, top, 4);
}

/*
 * UIO, both generations, with BARs that do not start a page: sysfs maps
 * resourceN from the page holding the BAR, so its first byte is at the
 * start's offset in that page. The first generation's registers (256 bytes)
 * at 0x...1100, its DPRAM page-aligned; the second's registers (128 bytes) at
 * 0x...2080 and its 2 KiB of DPRAM at 0x...3800.
 */
static void uio_generations(void **st)
{
	(void)st;
	static const struct {
		uint8_t rev;
		int reg, dp;
		uint64_t reg_start, reg_size, dp_start, dp_size;
		const char *says;
	} g[] = {
		{0x12, 0, 1, 0xfebf1100, 256, 0xfebf4000, 4096,
		 "first generation (PCI revision 0x12): registers in BAR 0"},
		{0x21, 2, 3, 0xfebf2080, 128, 0xfebf3800, 2048,
		 "second generation (PCI revision 0x21): registers in BAR 2"},
		/* the first generation with a 2 KiB BAR1: the area offsets at 0x7FC-0x7FF */
		{0x12, 0, 1, 0xfebf5100, 256, 0xfebf6800, 2048,
		 "2 KiB of DPRAM in BAR 1 (BAR 1 is 2 KiB)"},
	};
	for (size_t i = 0; i < 3; i++) {
		char dev[64], rel[100], link[400], uio[16], p[600];
		snprintf(dev, sizeof(dev), "sys/bus/pci/devices/0000:0%zu:00.0", i + 3);
		uint64_t start[6] = {0}, size[6] = {0};
		start[g[i].reg] = g[i].reg_start, size[g[i].reg] = g[i].reg_size;
		start[g[i].dp] = g[i].dp_start, size[g[i].dp] = g[i].dp_size;
		pci_dev(dev, g[i].rev, start, size);
		char regf[300], dpf[300];
		snprintf(regf, sizeof(regf), "%s/resource%d", dev, g[i].reg);
		snprintf(dpf, sizeof(dpf), "%s/resource%d", dev, g[i].dp);
		put(regf, "", 0, 4096);
		put(dpf, "", 0, 4096);
		off_t reg_at = (off_t)(g[i].reg_start & 4095),
		      dp_at = (off_t)(g[i].dp_start & 4095);
		dpram_top(dpf, dp_at, (uint32_t)g[i].dp_size);
		poke32(regf, reg_at + BC_TIME1, 1700000000u);
		poke32(regf, reg_at + BC_EVENT0, 250000u | 3u << BC_T0_100NS_SHIFT);
		poke32(regf, reg_at + BC_EVENT1, 1700000001u);
		snprintf(uio, sizeof(uio), "uio%zu", i);
		snprintf(rel, sizeof(rel), "sys/class/uio/%s", uio);
		mkdirs(rel);
		snprintf(link, sizeof(link), "%s/%s", root, dev);
		snprintf(p, sizeof(p), "%s/%s/device", root, rel);
		assert_int_equal(symlink(link, p), 0);
		mkdirs("dev");
		snprintf(p, sizeof(p), "%s/dev/%s", root, uio);
		assert_int_equal(mkfifo(p, 0600), 0);
		int fifo = open(p, O_RDWR | O_NONBLOCK); /* the kernel's side of /dev/uioN */
		assert_true(fifo >= 0);

		char sys[300], devdir[300], err[512];
		snprintf(sys, sizeof(sys), "%s/sys", root);
		snprintf(devdir, sizeof(devdir), "%s/dev", root);
		struct bc_pci_host h = {.sys = sys, .dev = devdir, .ioctl = NULL};
		struct bc_bus *b = bc635_pci_open_at(&h, uio, BC_BARS_AUTO, err, sizeof(err));
		if (!b)
			fail_msg("%s: %s", uio, err);
		char what[512];
		b->ops->describe(b, what, sizeof(what));
		if (!strstr(what, g[i].says))
			fail_msg("%s", what);
		assert_int_equal(b->dp_size, g[i].dp_size);
		/* the interrupt enabled at open: 1 written to /dev/uioN */
		uint32_t w = 0;
		assert_int_equal(read(fifo, &w, 4), 4);
		assert_int_equal(w, 1);
		/* reads and writes land at the BAR's offset within its page */
		static const uint8_t top[4] = {0x00, 0x82, 0x01, 0x02};
		for (uint32_t k = 0; k < 4; k++)
			assert_int_equal(b->ops->dp_rd8(b, (uint32_t)g[i].dp_size - 4 + k), top[k]);
		assert_int_equal(b->ops->rd32(b, BC_TIME1), 1700000000u);
		b->ops->wr32(b, BC_CONTROL, 0x0b);
		assert_int_equal(peek32(regf, reg_at + BC_CONTROL), 0x0b);
		b->ops->dp_wr8(b, 0x102, 0x19);
		assert_int_equal(peek32(dpf, dp_at + 0x100) >> 16 & 0xff, 0x19);
		/* nothing past the BAR or the DPRAM */
		assert_int_equal(b->ops->rd32(b, (uint32_t)g[i].reg_size), 0xffffffffu);
		assert_int_equal(b->ops->dp_rd8(b, (uint32_t)g[i].dp_size), 0xff);
		/* an interrupt: counted by the kernel into /dev/uioN; taken, INTSTAT
		 * cleared, the edge read, and 1 written to let the next through */
		struct bc635 c = {.bus = b};
		assert_int_equal(bc635_take_tick(&c, &(struct bc635_time){0}), 0); /* none yet */
		assert_int_equal(read(fifo, &w, 4), -1); /* and nothing let through */
		poke32(regf, reg_at + BC_INTSTAT, BC_INT_PERIODIC);
		uint32_t count = 1;
		assert_int_equal(write(fifo, &count, 4), 4);
		struct bc635_time edge;
		assert_int_equal(bc635_take_tick(&c, &edge), 1);
		assert_int_equal(edge.utc_ns, 1700000001LL * 1000000000 + 250000300);
		assert_int_equal(peek32(regf, reg_at + BC_INTSTAT),
				 BC_INT_PERIODIC); /* 1s written to clear */
		w = 0;
		assert_int_equal(read(fifo, &w, 4), 4);
		assert_int_equal(w, 1);
		b->ops->close(b);
		close(fifo);
	}
	/* the wrong device, and BARs too small for the revision */
	char sys[300], devdir[300], err[512], p[512], link[300];
	snprintf(sys, sizeof(sys), "%s/sys", root);
	snprintf(devdir, sizeof(devdir), "%s/dev", root);
	struct bc_pci_host h = {.sys = sys, .dev = devdir, .ioctl = NULL};
	uint64_t start[6] = {0xfebf0000, 0xfebf1000}, small[6] = {256, 1024};
	pci_dev("sys/bus/pci/devices/0000:05:00.0", 0x12, start, small);
	mkdirs("sys/class/uio/uio5");
	snprintf(link, sizeof(link), "%s/sys/bus/pci/devices/0000:05:00.0", root);
	snprintf(p, sizeof(p), "%s/sys/class/uio/uio5/device", root);
	assert_int_equal(symlink(link, p), 0);
	assert_null(bc635_pci_open_at(&h, "/dev/uio5", BC_BARS_AUTO, err, sizeof(err)));
	assert_non_null(strstr(err, "cannot hold the registers (64 bytes) and 4 KiB of DPRAM"));
	uint8_t nic[9] = {0x86, 0x80, 0x33, 0x15};
	poke("sys/bus/pci/devices/0000:05:00.0/config", 0, nic, sizeof(nic));
	assert_null(bc635_pci_open_at(&h, "uio5", BC_BARS_AUTO, err, sizeof(err)));
	assert_non_null(strstr(err, "is PCI 8086:1533, not a bc635PCI-U (12e2:4013)"));
}

/* ---- VFIO: the ioctls as the kernel answers them ---------------------------- */

static struct {
	char regions[512]; /* the device fd's file: region i at i << 20 */
	int efd;	   /* the eventfd given for INTx */
	int unmasks, unmasks_before_clear;
	unsigned long iommu;
	bool viable;
	uint64_t size[6];
	bool mmap_ok[6];
} vf;

#define REGION_OFF(i) ((uint64_t)(i) << 20)

static int fake_ioctl(int fd, unsigned long req, void *arg)
{
	(void)fd;
	switch (req) {
	case VFIO_GROUP_GET_STATUS:
		((struct vfio_group_status *)arg)->flags = vf.viable ? VFIO_GROUP_FLAGS_VIABLE : 0;
		return 0;
	case VFIO_GROUP_SET_CONTAINER:
		return 0;
	case VFIO_SET_IOMMU:
		vf.iommu = (unsigned long)(uintptr_t)arg;
		return 0;
	case VFIO_GROUP_GET_DEVICE_FD:
		if (strcmp(arg, "0000:06:00.0")) {
			errno = ENODEV;
			return -1;
		}
		return open(vf.regions, O_RDWR | O_CLOEXEC);
	case VFIO_DEVICE_GET_REGION_INFO: {
		struct vfio_region_info *ri = arg;
		if (ri->index >= 6) {
			errno = EINVAL;
			return -1;
		}
		ri->size = vf.size[ri->index];
		ri->offset = REGION_OFF(ri->index);
		ri->flags = ri->size ? VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE : 0;
		if (vf.mmap_ok[ri->index])
			ri->flags |= VFIO_REGION_INFO_FLAG_MMAP;
		return 0;
	}
	case VFIO_DEVICE_SET_IRQS: {
		struct vfio_irq_set s;
		memcpy(&s, arg, sizeof(s));
		assert_int_equal(s.index, VFIO_PCI_INTX_IRQ_INDEX);
		if (s.flags == (VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER)) {
			int32_t e;
			memcpy(&e, (uint8_t *)arg + sizeof(s), sizeof(e));
			vf.efd = e;
			return 0;
		}
		if (s.flags == (VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_UNMASK)) {
			/* INTSTAT still as the card raised it (with its high bit,
			 * which the driver's clear does not write back) means the
			 * line was let through before it was cleared */
			uint32_t st = 0;
			int dfd = open(vf.regions, O_RDONLY);
			assert_int_equal(pread(dfd, &st, 4, (off_t)(REGION_OFF(2) + BC_INTSTAT)),
					 4);
			close(dfd);
			vf.unmasks++;
			if (st & 0x80000000u)
				vf.unmasks_before_clear++;
			return 0;
		}
		errno = EINVAL;
		return -1;
	}
	}
	errno = ENOTTY;
	return -1;
}

/*
 * VFIO on a second-generation card: registers in a 128-byte BAR2 the kernel
 * will not map (read and written through the region), 2 KiB of DPRAM in
 * BAR3 mapped. An interrupt on the eventfd is taken, INTSTAT cleared, and
 * only then unmasked.
 */
static void vfio_second_generation(void **st)
{
	(void)st;
	uint64_t start[6] = {0, 0, 0xfebf2080, 0xfebf3000}, size[6] = {0, 0, 128, 2048};
	pci_dev("sys/bus/pci/devices/0000:06:00.0", 0x2a, start, size);
	mkdirs("sys/kernel/iommu_groups/42");
	char p[512], link[300];
	snprintf(link, sizeof(link), "../../../../kernel/iommu_groups/42");
	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/0000:06:00.0/iommu_group", root);
	assert_int_equal(symlink(link, p), 0);
	mkdirs("dev/vfio");
	put("dev/vfio/vfio", "", 0, 0);
	put("dev/vfio/42", "", 0, 0);
	put("regions", "", 0, (off_t)REGION_OFF(4));
	path_of(vf.regions, sizeof(vf.regions), "regions");
	memcpy(vf.size, size, sizeof(size));
	memset(vf.mmap_ok, 0, sizeof(vf.mmap_ok));
	vf.mmap_ok[3] = true;
	vf.viable = true;
	vf.efd = -1;
	dpram_top("regions", (off_t)REGION_OFF(3), 2048);
	poke32("regions", (off_t)(REGION_OFF(2) + BC_TIME1), 1700000000u);
	poke32("regions", (off_t)(REGION_OFF(2) + BC_EVENT0), 999999u);
	poke32("regions", (off_t)(REGION_OFF(2) + BC_EVENT1), 1700000002u);
	poke32("regions", (off_t)(REGION_OFF(2) + BC_INTSTAT), 0x80000000u | BC_INT_PERIODIC);

	char sys[300], devdir[300], err[512];
	snprintf(sys, sizeof(sys), "%s/sys", root);
	snprintf(devdir, sizeof(devdir), "%s/dev", root);
	struct bc_pci_host h = {.sys = sys, .dev = devdir, .ioctl = fake_ioctl};
	struct bc_bus *b = bc635_pci_open_at(&h, "0000:06:00.0", BC_BARS_AUTO, err, sizeof(err));
	if (!b)
		fail_msg("%s", err);
	char what[512];
	b->ops->describe(b, what, sizeof(what));
	if (!strstr(what, "second generation (PCI revision 0x2a): registers in BAR 2, 2 KiB of "
			  "DPRAM in BAR 3; "
			  "registers through the region, DPRAM mapped"))
		fail_msg("%s", what);
	assert_int_equal(vf.iommu, VFIO_TYPE1_IOMMU);
	assert_true(vf.efd >= 0);
	assert_int_equal(b->ops->irq_fd(b), vf.efd);
	assert_int_equal(b->ops->rd32(b, BC_TIME1), 1700000000u);
	b->ops->wr32(b, BC_MASK, BC_INT_PERIODIC);
	assert_int_equal(peek32("regions", (off_t)(REGION_OFF(2) + BC_MASK)), BC_INT_PERIODIC);
	static const uint8_t top[4] = {0x00, 0x82, 0x01, 0x02};
	for (uint32_t k = 0; k < 4; k++)
		assert_int_equal(b->ops->dp_rd8(b, 0x7FC + k), top[k]);
	b->ops->dp_wr8(b, 0x102, 0x19);
	assert_int_equal(peek32("regions", (off_t)(REGION_OFF(3) + 0x100)) >> 16 & 0xff, 0x19);

	/* the kernel signals INTx on the eventfd and masks it */
	uint64_t one = 1;
	assert_int_equal(write(vf.efd, &one, 8), 8);
	struct bc635 c = {.bus = b};
	struct bc635_time edge;
	assert_int_equal(bc635_take_tick(&c, &edge), 1);
	assert_int_equal(edge.utc_ns, 1700000002LL * 1000000000 + 999999000);
	assert_int_equal(vf.unmasks, 1);
	assert_int_equal(vf.unmasks_before_clear, 0);
	assert_int_equal(peek32("regions", (off_t)(REGION_OFF(2) + BC_INTSTAT)), BC_INT_PERIODIC);
	b->ops->close(b);

	/* a group not viable (another device of it bound elsewhere), no IOMMU group */
	vf.viable = false;
	assert_null(bc635_pci_open_at(&h, "0000:06:00.0", BC_BARS_AUTO, err, sizeof(err)));
	assert_non_null(strstr(err, "VFIO set-up failed"));
	vf.viable = true;
	assert_int_equal(unlink(p), 0);
	assert_null(bc635_pci_open_at(&h, "0000:06:00.0", BC_BARS_AUTO, err, sizeof(err)));
	assert_non_null(strstr(err, "no IOMMU group"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uio_generations),
		cmocka_unit_test(vfio_second_generation),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
