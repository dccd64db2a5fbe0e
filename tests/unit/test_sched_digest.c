/* SPDX-License-Identifier: BSD-3-Clause */
/* A table's digest: SHA-256 as FIPS 180-4 defines it, of the table's text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../tdp_test.h"

#include "tdp_sched.h"

static void digest_of(const void *buf, size_t len, const char *want)
{
	char hex[SCHED_DIGEST_HEX];
	sched_digest_bytes(buf, len, hex);
	assert_string_equal(hex, want);
}

/* the examples of FIPS 180-2, appendix B (one block, two blocks, a million a) */
static void the_standards_examples(void **st)
{
	(void)st;
	digest_of("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	digest_of(two, strlen(two),
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	char *a = malloc(1000000);
	assert_non_null(a);
	memset(a, 'a', 1000000);
	digest_of(a, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(a);
	digest_of("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

/* lengths at the padding's edges: the length field fits in the last block
 * (55), needs one more (56, 63), and whole blocks (64, 120) */
static void lengths_at_the_blocks_edges(void **st)
{
	(void)st;
	static const struct {
		size_t n;
		const char *hex;
	} v[] = {
		{55, "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"},
		{56, "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"},
		{63, "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2"},
		{64, "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c"},
		{119, "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c"},
		{120, "13f05a0b594787f5ecd315edc96141bd3243203d1b7d4f0836f37308b276ba98"},
	};
	char x[128];
	memset(x, 'x', sizeof(x));
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		digest_of(x, v[i].n, v[i].hex);
}

/* a parsed table's digest is its text's: a byte more differs */
static void a_tables_digest_is_its_texts(void **st)
{
	(void)st;
	const char *txt = "tdp-schedule 1\ntf 1ms\nk 2\nport p rate 1Gbit/s\nflow f port p size "
			  "100 udp-dport 1\n"
			  "frames 0: f 1\n";
	struct sched_diags d;
	sched_diags_init(&d, "t");
	struct sched_table *t = sched_parse(txt, strlen(txt), &d);
	assert_non_null(t);
	char a[SCHED_DIGEST_HEX], b[SCHED_DIGEST_HEX];
	sched_digest(t, a);
	sched_digest_bytes(txt, strlen(txt), b);
	assert_string_equal(a, b);
	sched_free(t);
	sched_diags_free(&d);
	sched_digest_bytes(txt, strlen(txt) - 1, b);
	assert_string_not_equal(a, b);
}

TDP_TEST_MAIN(cmocka_unit_test(the_standards_examples),
	      cmocka_unit_test(lengths_at_the_blocks_edges),
	      cmocka_unit_test(a_tables_digest_is_its_texts))
