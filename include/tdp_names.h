/* SPDX-License-Identifier: BSD-3-Clause */
/* An enum's names as a table: the array is indexed by the enum's values
 * (designated initializers), so a value and its name stand side by side
 * and a value left out reads as the default, never as a wild pointer. */
#ifndef TDP_NAMES_H
#define TDP_NAMES_H

#include <stddef.h>

/* names[v], or dflt for a v past the table's end or left out of it */
#define TDP_NAME_OF(names, v, dflt)                                               \
	((size_t)(v) < sizeof(names) / sizeof((names)[0]) && (names)[(size_t)(v)] \
		 ? (names)[(size_t)(v)]                                           \
		 : (dflt))

#endif
