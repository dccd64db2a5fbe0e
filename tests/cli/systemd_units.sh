#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The systemd units as the build makes them: systemd-analyze verify on each
# (with the build's binaries in ExecStart), the PTP template's ordering, and a
# broken unit to show the check can fail.
# usage: systemd_units.sh BUILDDIR  (TAP)
set -uo pipefail
B=$(cd "$1" && pwd)
if ! command -v systemd-analyze >/dev/null; then
	echo "1..0 # SKIP systemd-analyze is not installed"
	exit 0
fi
. "$(dirname "$0")/../tap.sh"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
echo "1..6"
for u in tdpd.service tdpd@.service tdpd-shield.service; do
	sed -E "s#^(Exec(Start|Stop)=)[^ ]*/tdpd #\1$B/daemon/tdpd #; s#^(Exec(Start|Stop)=)[^ ]*/tdpctl #\1$B/tools/tdpctl #" \
		"$B/systemd/$u" >"$W/$u"
done
v() { (cd "$W" && systemd-analyze verify --man=no "$@" 2>&1); }
for u in tdpd.service tdpd-shield.service tdpd@eth1.service; do
	out=$(v "./$u")
	check "systemd-analyze verify $u" '[ -z "$out" ]' "$out"
done
check "tdpd@IFACE wants and follows ptp4l@IFACE and phc2sys@IFACE" \
	'grep -qx "Wants=tdpd-shield.service ptp4l@%i.service phc2sys@%i.service" "$W/tdpd@.service" && grep -qx "After=network-pre.target tdpd-shield.service ptp4l@%i.service phc2sys@%i.service" "$W/tdpd@.service" && ! grep -q "^Wants=.*ptp4l" "$W/tdpd.service"'
check "Type=notify with a watchdog, and the sandbox" \
	'grep -qx "Type=notify" "$W/tdpd.service" && grep -q "^WatchdogSec=" "$W/tdpd.service" && grep -qx "ProtectSystem=strict" "$W/tdpd.service" && grep -q "^CapabilityBoundingSet=" "$W/tdpd.service"'
sed 's#^ExecStart=.*#ExecStart=/nonexistent/tdpd -f x#; s#^Type=notify#Type=notifyy#' "$W/tdpd.service" >"$W/broken.service"
out=$(v ./broken.service)
check "a broken unit fails the same check" '[ -n "$out" ]'
