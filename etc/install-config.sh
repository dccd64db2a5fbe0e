#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# meson install: CONFDIR/tdpd.conf and CONFDIR/table.tdp from the installed
# examples, only where they are not there yet: an operator's own are never
# overwritten. usage: install-config.sh CONFDIR EXAMPLES-DIR
set -eu
etc="${DESTDIR:-}$1"
ex="${DESTDIR:-}$2"
mkdir -p "$etc"
for f in "tdpd.conf:tdpd.conf" "table.tdp:voice-video-be.tdp"; do
	to=${f%%:*}
	from=${f#*:}
	if [ -e "$etc/$to" ]; then
		echo "tdpd: $1/$to exists: kept (the example is $2/$from)" >&2
	else
		cp "$ex/$from" "$etc/$to"
		chmod 0644 "$etc/$to"
		echo "tdpd: $1/$to written from the example" >&2
	fi
done
