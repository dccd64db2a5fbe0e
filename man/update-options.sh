#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Writes tdpd's option table into its man pages: tdpd.conf(5) between
# ".SH GLOBAL OPTIONS" and ".SH ROUTING", tdpd(8) from "--schedule" to
# ".SH DPDK". Run after changing daemon/conf_opts.c: man/update-options.sh build/daemon/tdpd
set -eu
tdpd=${1:?usage: update-options.sh path/to/tdpd}
dir=$(dirname "$0")
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.o"' EXIT
"$tdpd" --man-options | awk '/^\.BI device /{print ".SH PORT OPTIONS"} {print}' | sed '$!N;s/^\.TP\n\.SH PORT OPTIONS/.SH PORT OPTIONS\n.TP/;P;D' >"$tmp.o"
awk -v f="$tmp.o" '
	/^\.SH GLOBAL OPTIONS/ {print; while ((getline l < f) > 0) print l; skip = 1; next}
	/^\.SH ROUTING/ {skip = 0}
	!skip {print}' "$dir/tdpd.conf.5" >"$tmp" && cat "$tmp" >"$dir/tdpd.conf.5"
"$tdpd" --man-long-options >"$tmp.o"
awk -v f="$tmp.o" '
	/^\.BI \\-\\-schedule / && !done {skip = 1; done = 1; while ((getline l < f) > 0) if (!first++) {} else print l; next}
	/^\.SH DPDK/ {skip = 0}
	!skip {print}' "$dir/tdpd.8" >"$tmp" && cat "$tmp" >"$dir/tdpd.8"
