/* SPDX-License-Identifier: BSD-3-Clause */
/* What conf.c and conf_read.c share. */
#ifndef TDP_CONF_PRIV_H
#define TDP_CONF_PRIV_H

#include <stdint.h>
#include <stdio.h>

#include "conf.h"

/* "file:line: error: ..." (no line when 0). */
void conf_error_at(FILE *err, const char *file, uint32_t line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A new [port NAME] with its defaults; NULL past CONF_MAX_PORTS. */
struct conf_port *conf_port_add(struct conf *c, const char *name, const char *file, uint32_t line);
/* The file name kept for messages (c owns it). */
const char *conf_keep_name(struct conf *c, const char *file);

/* The time sources' names and the timebase option's documentation, filled
 * from the sources' own table (timebase_table[]) at conf_init: the names are
 * listed once. The test-only sim source, last in the table, is not offered. */
extern const char *conf_timebase_names[8];
extern char conf_timebase_doc[1024];

#endif
