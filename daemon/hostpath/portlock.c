/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hpmode.h"
#include "kif.h"
#include "pmd.h"
#include "portlock.h"

int pl_key(const char *device, char *key, size_t keylen, char *what, size_t whatlen, char *err,
	   size_t errlen)
{
	if (pmd_is_pci(device)) {
		char addr[32];
		size_t n = strcspn(device, ",");
		snprintf(addr, sizeof(addr), "%.*s", (int)(n < sizeof(addr) ? n : sizeof(addr) - 1),
			 device);
		unsigned dom = 0, bus, dev, fn;
		if (sscanf(addr, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4 &&
		    (dom = 0, sscanf(addr, "%x:%x.%x", &bus, &dev, &fn) != 3)) {
			snprintf(err, errlen, "device %s: not a PCI address", addr);
			return -1;
		}
		/* one name for 01:00.0 and 0000:01:00.0 */
		snprintf(key, keylen, "pci-%04x:%02x:%02x.%x", dom, bus, dev, fn);
		snprintf(what, whatlen, "PCI device %04x:%02x:%02x.%x", dom, bus, dev, fn);
		return 0;
	}
	char ifname[IF_NAMESIZE];
	hp_devarg(device, "iface", ifname, sizeof(ifname));
	unsigned ifindex = ifname[0] ? kif_index(ifname) : 0;
	if (!ifindex)
		return 1;
	/* interface names and indexes repeat across network namespaces: the
	 * namespace's inode tells them apart */
	struct stat st;
	if (stat("/proc/self/ns/net", &st) != 0) {
		snprintf(err, errlen, "cannot tell this network namespace (/proc/self/ns/net): %s",
			 strerror(errno));
		return -1;
	}
	snprintf(key, keylen, "net%lu-if%u", (unsigned long)st.st_ino, ifindex);
	snprintf(what, whatlen, "interface %s", ifname);
	return 0;
}

/* pid has exited or is a zombie (its exit closing its descriptors), as far
 * as this pid namespace tells */
static bool exiting(int pid)
{
	if (pid <= 0)
		return false;
	char path[64], buf[256];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return errno == ENOENT;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	const char *r = strrchr(buf, ')'); /* the state follows the command's closing parenthesis */
	return r && (r[1] == ' ') && (r[2] == 'Z' || r[2] == 'X');
}

int pl_take(struct lockfile *l, const char *port, const char *device, const char *control_socket,
	    int guard_of, char *err, size_t errlen)
{
	char key[64], what[64], path[200], holder[512], held[512];
	l->fd = -1;
	int rc = pl_key(device, key, sizeof(key), what, sizeof(what), err, errlen);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	snprintf(path, sizeof(path), "%s/%s.lock", PL_DIR, key);
	snprintf(holder, sizeof(holder),
		 "pid %d\nport %s\ndevice %s\ncontrol-socket %s\nsince %lld\nguard-of %d\n",
		 (int)getpid(), port, what, control_socket, (long long)time(NULL), guard_of);
	char e[300];
	rc = lockfile_take(l, path, holder, held, sizeof(held), e, sizeof(e));
	if (rc == 0)
		return 0;
	if (rc != -EWOULDBLOCK) {
		snprintf(err, errlen, "%s: %s", what, e);
		return -1;
	}
	char pid[16], hport[64], sock[256], gof[16];
	lockfile_field(held, "guard-of", gof, sizeof(gof));
	if (gof[0] && strcmp(gof, "0") != 0) {
		snprintf(err, errlen,
			 "%s is being released by the guard of tdpd pid %s, which died", what, gof);
		return -2;
	}
	lockfile_field(held, "pid", pid, sizeof(pid));
	lockfile_field(held, "port", hport, sizeof(hport));
	lockfile_field(held, "control-socket", sock, sizeof(sock));
	if (!pid[0]) {
		/* locked, its holder not written yet: another process is taking
		 * it this moment (a tdpd starting, or the guard of one that died) */
		snprintf(err, errlen, "%s is being taken by another process this moment", what);
		return -2;
	}
	if (!guard_of && exiting(atoi(pid))) {
		/* the holder died, or is dying, and its exit has not closed the
		 * lock yet: a restart right after a SIGKILL waits it out */
		snprintf(err, errlen, "%s is still locked by tdpd pid %s, which is exiting", what,
			 pid);
		return -2;
	}
	if (guard_of > 0 && atoi(pid) == guard_of) {
		/* the dead tdpd's own lock: its exit closes its descriptors one by
		 * one, the guard's pipe among them, so the lock may outlive the
		 * pipe for a moment */
		snprintf(err, errlen,
			 "%s is still locked by tdpd pid %d, whose exit has not closed it yet",
			 what, guard_of);
		return -3;
	}
	snprintf(err, errlen,
		 "%s belongs to a running tdpd (pid %s, its port %s, control socket %s): one tdpd "
		 "per "
		 "port; stop that one first, or give this port another device (lock %s)",
		 what, pid[0] ? pid : "?", hport[0] ? hport : "?", sock[0] ? sock : "?", path);
	return -1;
}

int pl_take_from_dead(struct lockfile *l, const char *port, const char *device, int dead, char *err,
		      size_t errlen)
{
	const struct timespec tick = {0, PL_EXIT_POLL_NS};
	int rc = -3;
	for (long waited = 0; rc == -3 && waited <= PL_EXIT_WAIT_NS; waited += PL_EXIT_POLL_NS) {
		if (waited)
			nanosleep(&tick, NULL);
		rc = pl_take(l, port, device, "none (a guard)", dead, err, errlen);
	}
	return rc;
}
