/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdpctl doctor's time sources: the bc635PCI-U GPS card and the PTP clocks of
 * kernel interfaces, and for each card its generation (from the PCI revision:
 * drivers/gps-bc635/bc635_regs.h), the driver it is bound to and the line that
 * binds it to one tdpd can use.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bc635_regs.h"
#include "host.h"
#include "tdpctl_doctor_time.h"

/* ---- time sources: what this box can take its time from --------------------- */

struct srcs {
	struct doc *d;
	char gps[256], phc[512], dpdk[512];
	int ngps, nphc, ndpdk;
};

static void pci_dev(const char *name, void *arg)
{
	struct srcs *s = arg;
	char p[300], v[32] = "", dv[32] = "", cls[32] = "", drv[64] = "";
	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/vendor", name);
	host_read(&s->d->h, p, v, sizeof(v));
	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/device", name);
	host_read(&s->d->h, p, dv, sizeof(dv));
	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/class", name);
	host_read(&s->d->h, p, cls, sizeof(cls));
	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/driver", name);
	if (host_link_base(&s->d->h, p, drv, sizeof(drv)) != 0)
		snprintf(drv, sizeof(drv), "no driver");
	char item[160];
	/* the bc635PCI-U: vendor 0x12e2 (Symmetricom/Datum), device 0x4013 */
	if (strtoul(v, NULL, 16) == BC635_VENDOR && strtoul(dv, NULL, 16) == BC635_DEVICE) {
		snprintf(item, sizeof(item), "%s (%s)", name, drv);
		host_list_add(s->gps, sizeof(s->gps), &s->ngps, 4, item);
	} else if ((strtoul(cls, NULL, 16) >> 16) == 0x02 &&
		   (!strcmp(drv, "vfio-pci") || !strcmp(drv, "uio_pci_generic") ||
		    !strcmp(drv, "igb_uio"))) {
		/* a network controller the kernel has let go of, for DPDK */
		snprintf(item, sizeof(item), "%s (%s)", name, drv);
		host_list_add(s->dpdk, sizeof(s->dpdk), &s->ndpdk, 4, item);
	}
}

static void phc_name(const char *name, void *arg)
{
	if (!strncmp(name, "ptp", 3))
		snprintf(arg, 32, "%.31s", name);
}

static void phc_of(const char *ifname, void *arg)
{
	struct srcs *s = arg;
	char p[300], clk[32] = "";
	/* the netdev's PHC: the one entry of device/ptp (ptpN) */
	snprintf(p, sizeof(p), "/sys/class/net/%s/device/ptp", ifname);
	host_each(&s->d->h, p, phc_name, clk);
	if (!clk[0])
		return;
	char item[160];
	snprintf(item, sizeof(item), "%s on %s", clk, ifname);
	host_list_add(s->phc, sizeof(s->phc), &s->nphc, 6, item);
}

void check_time_sources(struct doc *d)
{
	struct srcs s = {.d = d};
	host_each(&d->h, "/sys/bus/pci/devices", pci_dev, &s);
	host_each(&d->h, "/sys/class/net", phc_of, &s);
	char dp[700] = "";
	if (s.ndpdk)
		snprintf(dp, sizeof(dp),
			 "; NICs DPDK took from the kernel, with no ptp4l and no PTP clock of "
			 "theirs: "
			 "%s%s",
			 s.dpdk, host_list_more(s.ndpdk, 4));
	if (s.ngps || s.nphc)
		finding(d, "time-source", PASS, NULL, "%s%s%s%s%s%s%s",
			s.ngps ? "GPS card bc635PCI-U " : "", s.gps, host_list_more(s.ngps, 4),
			s.ngps && s.nphc ? "; " : "",
			s.nphc ? "PTP clocks on kernel interfaces (ptp4l there, then tdpd's ptp or "
				 "phc timebase): "
			       : "",
			s.phc, dp);
	else
		finding(d, "time-source", WARN,
			"a PTP-capable NIC left with the kernel (an af_xdp port keeps its, or a "
			"separate one), or the "
			"bc635PCI-U GPS card",
			"no GPS card and no PTP clock on a kernel interface: only the system "
			"clock, as good as what "
			"disciplines it (chronyd, ntpd)%s",
			dp);
}

/* ---- each bc635PCI-U: generation, driver, the bind line -------------------- */

/* The revision: sysfs `revision`, else byte 8 of config space; -1 unread. */
static int card_revision(struct doc *d, const char *dir)
{
	char p[400], buf[32];
	snprintf(p, sizeof(p), "%s/revision", dir);
	if (host_read(&d->h, p, buf, sizeof(buf)) == 0)
		return (int)(strtoul(buf, NULL, 16) & 0xff);
	char path[4096];
	snprintf(path, sizeof(path), "%s%s/config", d->h.root, dir);
	FILE *f = fopen(path, "rb");
	unsigned char cfg[9];
	int rev = f && fread(cfg, 1, sizeof(cfg), f) == sizeof(cfg) ? cfg[8] : -1;
	if (f)
		fclose(f);
	return rev;
}

static void uio_name(const char *name, void *arg)
{
	if (!strncmp(name, "uio", 3))
		snprintf(arg, 32, "%.31s", name);
}

static void card(const char *name, void *arg)
{
	struct doc *d = arg;
	char dir[300], p[400], v[32] = "", dv[32] = "", drv[64] = "", group[64] = "", uio[32] = "";
	snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s", name);
	snprintf(p, sizeof(p), "%s/vendor", dir);
	host_read(&d->h, p, v, sizeof(v));
	snprintf(p, sizeof(p), "%s/device", dir);
	host_read(&d->h, p, dv, sizeof(dv));
	if (strtoul(v, NULL, 16) != BC635_VENDOR || strtoul(dv, NULL, 16) != BC635_DEVICE)
		return;
	int rev = card_revision(d, dir);
	int gen = rev >= 0 ? bc635_generation((unsigned)rev) : 0;
	snprintf(p, sizeof(p), "%s/driver", dir);
	bool bound = host_link_base(&d->h, p, drv, sizeof(drv)) == 0;
	snprintf(p, sizeof(p), "%s/iommu_group", dir);
	host_link_base(&d->h, p, group, sizeof(group));
	snprintf(p, sizeof(p), "%s/uio", dir);
	host_each(&d->h, p, uio_name, uio);

	char what[200];
	struct bc635_bars_of b = bc635_bars_of(gen);
	if (gen)
		snprintf(what, sizeof(what),
			 "%s generation (PCI revision 0x%02x): registers in BAR%d, %u KiB of DPRAM "
			 "in BAR%d",
			 gen == 1 ? "first" : "second", rev, b.reg_bar, b.dp_size / 1024, b.dp_bar);
	else if (rev < 0)
		snprintf(what, sizeof(what),
			 "PCI revision unreadable, so the generation is not known");
	else
		snprintf(what, sizeof(what), "PCI revision 0x%02x, which no public source names",
			 rev);
	/* vfio-pci where the IOMMU gives the card a group, else uio_pci_generic */
	const char *to = group[0] ? "vfio-pci" : "uio_pci_generic";
	bool usable =
		bound && (!strcmp(drv, "vfio-pci") || (!strcmp(drv, "uio_pci_generic") && uio[0]));
	char bind[700] = "", unbind[200] = "";
	if (bound)
		snprintf(unbind, sizeof(unbind),
			 "echo %s > /sys/bus/pci/devices/%s/driver/unbind && ", name, name);
	if (!usable)
		snprintf(bind, sizeof(bind),
			 "modprobe %s && %secho %s > /sys/bus/pci/devices/%s/driver_override && "
			 "echo %s "
			 "> /sys/bus/pci/drivers_probe%s",
			 to, unbind, to, name, name,
			 !group[0] && gen != 2 ? " (uio_pci_generic binds only a card with PCI "
						 "2.3's Interrupt Disable bit, "
						 "as every PCIe card has; if this one is refused, "
						 "turn the IOMMU on and bind "
						 "vfio-pci)"
					       : "");
	char device[80] = "";
	if (usable)
		snprintf(device, sizeof(device), "%s", !strcmp(drv, "vfio-pci") ? name : uio);
	char fix[800];
	if (!gen)
		snprintf(fix, sizeof(fix),
			 "look at its BARs (lspci -vv -s %s) and set bc635-bars (0,1 or 2,3)%s%s",
			 name, bind[0] ? "; then " : "", bind);
	else
		snprintf(fix, sizeof(fix), "%s", bind);
	char where[200];
	if (usable && !strcmp(drv, "vfio-pci"))
		snprintf(where, sizeof(where),
			 "bound to vfio-pci (IOMMU group %s): bc635-device %s", group, device);
	else if (usable)
		snprintf(where, sizeof(where), "bound to uio_pci_generic as %s: bc635-device %s",
			 uio, device);
	else if (bound)
		snprintf(where, sizeof(where), "bound to %s, which tdpd cannot use", drv);
	else
		snprintf(where, sizeof(where), "bound to no driver");
	finding(d, "bc635", usable && gen ? PASS : WARN, fix, "%s: bc635PCI-U, %s; %s", name, what,
		where);
	if (d->json) {
		json_t *last = json_array_get(d->out, json_array_size(d->out) - 1);
		json_object_set_new(last, "card",
				    json_pack("{ss so si ss ss ss}", "pci", name, "revision",
					      rev >= 0 ? json_integer(rev) : json_null(),
					      "generation", gen, "driver", bound ? drv : "",
					      "bc635_device", device, "bind", bind));
	}
}

void check_cards(struct doc *d)
{
	host_each(&d->h, "/sys/bus/pci/devices", card, d);
}
