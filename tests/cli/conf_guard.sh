#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The guard on tdpd's option table: conf_opts.c does not compile when the table has
# more options than the slots that record where each was set (CONF_MAX_OPTS),
# and compiles with the slots it has.
# usage: conf_guard.sh TDPD SRCDIR CC [CC-ARGS...]  (TAP)
set -uo pipefail
TDPD=$1
SRC=$2
shift 2
. "$SRC/tests/tap.sh"
echo "1..2"
nopt=$("$TDPD" --list-options | wc -l)
inc=(-I"$SRC/include" -I"$SRC/daemon" -I"$SRC/daemon/hostpath" -I"$SRC/daemon/time" -I"$SRC/daemon/core" -I"$SRC/control" -I"$SRC/schedules" -std=c11 -D_GNU_SOURCE -fsyntax-only)
out=$("$@" "${inc[@]}" -DCONF_MAX_OPTS="$nopt" "$SRC/daemon/conf_opts.c" 2>&1) && rc=0 || rc=$?
check "conf_opts.c compiles with as many slots as its $nopt options" '[ $rc -eq 0 ]' "$out"
out=$("$@" "${inc[@]}" -DCONF_MAX_OPTS=$((nopt - 1)) "$SRC/daemon/conf_opts.c" 2>&1) && rc=0 || rc=$?
check "one slot fewer ($((nopt - 1))) is a compile error that says so" \
	'[ $rc -ne 0 ] && grep -q "more options than CONF_MAX_OPTS" <<<"$out"' "$out"
