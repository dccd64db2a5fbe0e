/* SPDX-License-Identifier: BSD-3-Clause */
/* A control reply line read the way the tests check it (cmocka and jansson
 * included before): its code, "ok" for a success. */
#ifndef TDP_TEST_REPLY_CODE_H
#define TDP_TEST_REPLY_CODE_H

/* reply's code, the line freed; its result into *res when res is given (to
 * json_decref). The code stays valid until the next call. */
static inline const char *reply_code(char *reply, json_t **res)
{
	static char c[64];
	assert_non_null(reply);
	json_t *r = json_loads(reply, 0, NULL);
	assert_non_null(r);
	json_t *k = json_object_get(r, "code");
	snprintf(c, sizeof(c), "%s",
		 k					  ? json_string_value(k)
		 : json_is_true(json_object_get(r, "ok")) ? "ok"
							  : "?");
	if (res)
		*res = json_incref(json_object_get(r, "result"));
	json_decref(r);
	free(reply);
	return c;
}

#endif
