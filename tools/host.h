/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host as the frame engine needs it: a shielded CPU (tdpctl shield) and
 * an audit (tdpctl doctor). Every file is read and written under a root
 * directory ("/" on a real box, a fake tree in the tests).
 */
#ifndef TDP_HOST_H
#define TDP_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HOST_MAX_CPUS 1024

struct host {
	const char *root; /* "" for / */
};

/* root + path into buf; the file's first line (no newline) into out. 0 or -errno. */
int host_read(const struct host *h, const char *path, char *out, size_t len);
int host_write(const struct host *h, const char *path, const char *val);
bool host_exists(const struct host *h, const char *path);

/* Calls fn(name, arg) for each entry of root+dir named by a number (IRQs in
 * /proc/irq, processes in /proc). */
void host_each_number(const struct host *h, const char *dir,
		      void (*fn)(const char *name, void *arg), void *arg);
/* Calls fn(name, arg) for each entry of root+dir but . and .. (and hidden ones). */
void host_each(const struct host *h, const char *dir, void (*fn)(const char *name, void *arg),
	       void *arg);
/* The last part of the symlink at root+path (a driver's name); 0 or -errno. */
int host_link_base(const struct host *h, const char *path, char *out, size_t len);
/* Counts an item in *n and appends it to the comma list in buf while there
 * are fewer than max; host_list_more() gives ",..." once some were left out. */
void host_list_add(char *buf, size_t len, int *n, int max, const char *item);
static inline const char *host_list_more(int n, int max)
{
	return n > max ? ",..." : "";
}

/* CPU lists as the kernel writes them ("0-3,6"); a set of HOST_MAX_CPUS bits. */
int host_cpulist_parse(const char *s, uint8_t *set);
void host_cpulist_format(const uint8_t *set, char *out, size_t len);
/* Hex CPU masks as in /proc/irq/default_smp_affinity ("3", "00000000,00000003"). */
int host_cpumask_parse(const char *s, uint8_t *set);
void host_cpumask_format(const uint8_t *set, char *out, size_t len);

#endif
