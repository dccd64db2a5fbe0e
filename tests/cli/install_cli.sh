#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# What `meson install` puts on a box: the programs, an example tdpd.conf and
# table installed as the configuration where there is none (and never over
# an operator's own), the group tdp through sysusers.d, the units naming the
# installed paths; and the example passes tdpd --check, where a port's
# interface with too small an MTU for the table's flows fails it.
# usage: install_cli.sh BUILDDIR  (TAP)
set -uo pipefail
B=$(cd "$1" && pwd)
. "$(dirname "$0")/../tap.sh"
W=$(mktemp -d)
NS=inst$$
trap 'ip netns del "$NS" 2>/dev/null; rm -rf "$W"' EXIT
echo "1..6"
R=$W/root
out=$(DESTDIR=$R meson install -C "$B" --no-rebuild --quiet 2>&1)
prefix=$(meson introspect "$B" --buildoptions | python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"))')
sysconf=$(meson introspect "$B" --buildoptions | python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="sysconfdir"))')
case $sysconf in /*) etc=$sysconf/tdpd ;; *) etc=$prefix/$sysconf/tdpd ;; esac
check "meson install writes $etc/tdpd.conf and table.tdp from the examples" \
	'[ -f "$R$etc/tdpd.conf" ] && [ -f "$R$etc/table.tdp" ] && cmp -s "$R$etc/tdpd.conf" "$R$prefix/share/tdpd/examples/tdpd.conf" &&
	 cmp -s "$R$etc/table.tdp" "$R$prefix/share/tdpd/examples/voice-video-be.tdp" && [ -x "$R$prefix/sbin/tdpd" ]' "$out"
check "the units start tdpd from where it was installed, on the installed configuration" \
	'grep -qx "ExecStart=$prefix/sbin/tdpd -f $etc/tdpd.conf" "$R$prefix/lib/systemd/system/tdpd.service" &&
	 grep -q "^ExecStart=$prefix/sbin/tdpd -f $etc/tdpd-%i.conf" "$R$prefix/lib/systemd/system/tdpd@.service"' \
	"$(grep ExecStart "$R$prefix"/lib/systemd/system/tdpd*.service)"
echo "# an operator's edit" >>"$R$etc/tdpd.conf"
cp "$R$etc/tdpd.conf" "$W/edited"
out=$(DESTDIR=$R meson install -C "$B" --no-rebuild --quiet 2>&1)
check "a second install keeps the operator's tdpd.conf" 'cmp -s "$R$etc/tdpd.conf" "$W/edited"' "$out"
if command -v systemd-sysusers >/dev/null; then
	mkdir -p "$R/etc"
	out=$(systemd-sysusers --root="$R" "$R$prefix/lib/sysusers.d/tdpd.conf" 2>&1)
	check "sysusers.d creates the group tdp, the control socket's" 'grep -q "^tdp:x:" "$R/etc/group"' "$out"
else
	check "sysusers.d # SKIP systemd-sysusers is not installed" true
fi
if [ "$(id -u)" -eq 0 ] && ip netns add "$NS" 2>/dev/null; then
	ip -n "$NS" link add eth0 type veth peer name x0
	out=$(ip netns exec "$NS" "$B/daemon/tdpd" -f "$R$etc/tdpd.conf" --schedule "$R$etc/table.tdp" --check 2>&1)
	rc=$?
	check "the installed example passes tdpd --check on a box with eth0 (exit $rc)" \
		'[ $rc -eq 0 ] && grep -q "configuration and table are valid: 1 ports, 3 flows" <<<"$out"' "$out"
	ip -n "$NS" link set eth0 mtu 1400
	out=$(ip netns exec "$NS" "$B/daemon/tdpd" -f "$R$etc/tdpd.conf" --schedule "$R$etc/table.tdp" --check 2>&1)
	rc=$?
	check "eth0's MTU 1400 under the table's 1514-byte video flow: --check refuses it at the flow's line (exit $rc)" \
		'[ $rc -eq 2 ] && grep -q "table.tdp:20:1: error: flow video: size 1514 bytes, but port eth0 sends frames of at most 1414 bytes (MTU 1400" <<<"$out"' \
		"$out"
else
	check "tdpd --check in a network namespace # SKIP needs root and network namespaces" true
	check "an MTU too small for a flow # SKIP needs root and network namespaces" true
fi
