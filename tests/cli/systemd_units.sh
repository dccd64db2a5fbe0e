#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The systemd units as the build makes them: systemd-analyze verify on each
# (with the build's binaries in ExecStart), the PTP template's ordering, and a
# broken unit to show the check can fail; linuxptp's phc2sys@ where it cannot
# start (Debian 12), and tdpd-phc2sys@ where it can.
# usage: systemd_units.sh BUILDDIR  (TAP)
set -uo pipefail
B=$(cd "$1" && pwd)
if ! command -v systemd-analyze >/dev/null; then
	echo "1..0 # SKIP systemd-analyze is not installed"
	exit 0
fi
. "$(dirname "$0")/../tap.sh"
tap_workdir
echo "1..11"
for u in tdpd.service tdpd@.service tdpd-shield.service tdpd-phc2sys@.service; do
	sed -E "s#^(Exec(Start|Stop)=)[^ ]*/tdpd #\1$B/daemon/tdpd #; s#^(Exec(Start|Stop)=)[^ ]*/tdpctl #\1$B/tools/tdpctl #" \
		"$B/systemd/$u" >"$W/$u"
done
v() { (cd "$W" && systemd-analyze verify --man=no "$@" 2>&1); }
for u in tdpd.service tdpd-shield.service tdpd@eth1.service; do
	out=$(v "./$u")
	check "systemd-analyze verify $u" '[ -z "$out" ]' "$out"
done
check "tdpd@IFACE wants and follows ptp4l@IFACE and tdpd-phc2sys@IFACE" \
	'grep -qx "Wants=tdpd-shield.service ptp4l@%i.service tdpd-phc2sys@%i.service" "$W/tdpd@.service" && grep -qx "After=network-pre.target tdpd-shield.service ptp4l@%i.service tdpd-phc2sys@%i.service" "$W/tdpd@.service" && ! grep -q "^Wants=.*ptp4l" "$W/tdpd.service"'
check "Type=notify with a watchdog, and the sandbox" \
	'grep -qx "Type=notify" "$W/tdpd.service" && grep -q "^WatchdogSec=" "$W/tdpd.service" && grep -qx "ProtectSystem=strict" "$W/tdpd.service" && grep -q "^CapabilityBoundingSet=" "$W/tdpd.service"'
# the phc2sys units against linuxptp's ptp4l@.service as installed
if [ -f /lib/systemd/system/ptp4l@.service ] && [ -f /lib/systemd/system/phc2sys@.service ]; then
	out=$(v ./tdpd-phc2sys@eth1.service)
	check "systemd-analyze verify tdpd-phc2sys@eth1.service: it requires and follows ptp4l@eth1" \
		'[ -z "$out" ] && grep -qx "Requires=ptp4l@%i.service" "$W/tdpd-phc2sys@.service"' "$out"
	cp /lib/systemd/system/phc2sys@.service "$W/phc2sys@eth1.service"
	out=$(v ./phc2sys@eth1.service)
	if [ -f /lib/systemd/system/ptp4l.service ]; then
		check "linuxptp's phc2sys@eth1 has the ptp4l.service it requires # SKIP not Debian 12's linuxptp" true
	else
		check "linuxptp's phc2sys@eth1 cannot start here: it requires a ptp4l.service that is not installed" \
			'grep -q "Unit ptp4l.service not found" <<<"$out"' "$out"
	fi
else
	check "tdpd-phc2sys@ against linuxptp's units # SKIP linuxptp's units are not installed" true
	check "linuxptp's phc2sys@ # SKIP linuxptp's units are not installed" true
fi
check "tdpd runs in tdpd.slice, the slice the shield keeps the engine's CPU for" \
	'grep -qx "Slice=tdpd.slice" "$W/tdpd.service" && grep -qx "Slice=tdpd.slice" "$W/tdpd@.service" &&
	 "$B/tools/tdpctl" shield --help | grep -q "keep CPU N for tdpd.slice"'
state=$("$B/tools/tdpctl" shield --help | sed -n 's/.*(default \(\/[^)]*\)).*/\1/p')
rtd=$(sed -n 's/^RuntimeDirectory=//p' "$W/tdpd.service")
check "the shield's state ($state) outlives tdpd's restarts: not under tdpd.service's RuntimeDirectory /run/$rtd, in tdpd-shield.service's own, kept" \
	'[ -n "$state" ] && [ -n "$rtd" ] && [ "${state#/run/$rtd/}" = "$state" ] &&
	 grep -qx "RuntimeDirectory=$(basename "$(dirname "$state")")" "$W/tdpd-shield.service" &&
	 grep -qx "RuntimeDirectoryPreserve=yes" "$W/tdpd-shield.service"' "$state $rtd"
check "tdpd-phc2sys@ conflicts with the NTP clients that would discipline the same clock" \
	'grep -qx "Conflicts=chrony.service systemd-timesyncd.service ntp.service ntpsec.service openntpd.service" "$W/tdpd-phc2sys@.service"'
sed 's#^ExecStart=.*#ExecStart=/nonexistent/tdpd -f x#; s#^Type=notify#Type=notifyy#' "$W/tdpd.service" >"$W/broken.service"
out=$(v ./broken.service)
check "a broken unit fails the same check" '[ -n "$out" ]'
