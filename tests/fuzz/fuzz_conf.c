/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for tdpd.conf: any text is read without a crash, and what
 * reads without an error dumps (tdpd --dump-config) to text that reads back,
 * without an error, to the same dump.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *dump(const struct conf *c, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		abort();
	conf_dump(c, f);
	fclose(f);
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct conf a, b;
	FILE *null = fopen("/dev/null", "w");
	if (!null)
		return 0;
	conf_init(&a);
	int errs = conf_read_text(&a, (const char *)data, size, "fuzz.conf", null);
	if (errs == 0) {
		size_t l1, l2;
		char *d1 = dump(&a, &l1);
		conf_init(&b);
		if (conf_read_text(&b, d1, l1, "dump.conf", stderr) != 0) {
			fprintf(stderr, "the dump does not read back:\n%s", d1);
			abort();
		}
		char *d2 = dump(&b, &l2);
		if (l1 != l2 || memcmp(d1, d2, l1)) {
			fprintf(stderr, "the dump changed on reading back:\n%s\n---\n%s", d1, d2);
			abort();
		}
		free(d1);
		free(d2);
		conf_free(&b);
	}
	conf_free(&a);
	fclose(null);
	return 0;
}
