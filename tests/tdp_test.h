/* SPDX-License-Identifier: BSD-3-Clause */
/* A cmocka test program's main: the tests given, run as one group. */
#ifndef TDP_TEST_H
#define TDP_TEST_H

#define TDP_TEST_MAIN(...)                                        \
	int main(void)                                            \
	{                                                         \
		const struct CMUnitTest tests[] = {__VA_ARGS__};  \
		return cmocka_run_group_tests(tests, NULL, NULL); \
	}

#endif
