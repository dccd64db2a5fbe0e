#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A router guest of the lab (run by the guest's init as root; the host's root
# is / read-only, the scenario's share is /mnt). What the scenario gives it
# in the share:
#   NAME.conf      tdpd.conf for this router (its ports on 00:03.0 and 00:04.0)
#   NAME.offset    optional: milliseconds to step this guest's clock by at
#                  boot, before anything reads it (a clock set off on purpose)
#   NAME.ptp4l     optional: ptp4l's configuration, started with the options
#                  in NAME.ptp4l-args once tdpd's exception interfaces exist
#   NAME.ospfd     optional: FRR ospfd's configuration (then NAME.ospf)
#   NAME.routes    optional: routes for the guest's kernel, one "ip route add"
#                  line each, added once tdpd's exception interfaces exist
#   authorized_keys optional: sshd runs, taking these keys for root
#   NAME.step      any time while it runs: milliseconds to step its clock by
#                  (renamed NAME.stepped once done)
#   NAME.snap-L    any time while it runs: tdpd's stats reply into NAME/L.json,
#                  its schedule active into NAME/L-schedule.json
#   NAME.ptp4l-stop any time while it runs: ptp4l killed (SIGKILL, as a
#                  crash), renamed NAME.ptp4l-stopped once done
# Binds the guest's two PCI NICs to uio_pci_generic as tdpd(8) says,
# reserves hugepages (inguest.sh), runs tdpd, says ready (/mnt/NAME.ready), and on
# /mnt/NAME.stop stops everything with SIGTERM and leaves what it saw in
# /mnt/NAME/ (tdpd's log, summary and replies, ptp4l's log, routes).
# usage: router.sh NAME
set -u
NAME=$1
S=/mnt
O=$S/$NAME
mkdir -p "$O"
. "$S/env"
LAB_OSPF=
[ -f "$S/$NAME.ospfd" ] && LAB_OSPF=$(cat "$S/$NAME.ospfd")
up() { cut -d' ' -f1 /proc/uptime; }
say() { echo "lab: $NAME: $*"; }
ctl() { "$LAB_BUILD/tools/tdpctl" --socket /run/tdpd/tdpd-ro.sock "$@"; }
step_clock() { # step_clock MS: steps CLOCK_REALTIME by MS milliseconds
	python3 -c 'import sys, time; time.clock_settime(time.CLOCK_REALTIME, time.clock_gettime(time.CLOCK_REALTIME) + float(sys.argv[1]) / 1e3)' \
		"$1" && say "clock stepped by $1 ms at $(up) s"
}
# the clock first: this guest's own, from the RTC's whole second at boot,
# then set off by the scenario's offset
[ -f "$S/$NAME.offset" ] && step_clock "$(cat "$S/$NAME.offset")"
. "$LAB_SRC/tests/lab/inguest.sh"
lab_nics
mkdir -p /dev/hugepages && mount -t hugetlbfs nodev /dev/hugepages
ip link set lo up
mkdir -p /run/tdpd
cp "$S/$NAME.conf" /run/tdpd/tdpd.conf
"$LAB_BUILD/daemon/tdpd" -f /run/tdpd/tdpd.conf >"$O/tdpd.out" 2>"$O/tdpd.err" &
pid=$!
ptp=
if lab_started $pid "$O/tdpd.err" "forwarding:"; then
	ip -br link >"$O/ip-link"
	ip -br addr >"$O/ip-addr"
	up >"$O/ready-at"
	touch "$S/$NAME.ready"
	say "tdpd forwarding at $(up) s"
	# the guest kernel's routes (its own traffic: sshd's replies), which
	# tdpd follows as it follows a routing daemon's
	if [ -f "$S/$NAME.routes" ]; then
		while read -r r; do
			[ -n "$r" ] && { ip route add $r || say "ip route add $r failed"; }
		done <"$S/$NAME.routes"
	fi
	if [ -f "$S/authorized_keys" ]; then
		# sshd on the router's own addresses (through tdpd's exception
		# interfaces), a host key of this boot's, the scenario's keys
		mkdir -p /run/sshd /run/ssh
		ssh-keygen -q -t ed25519 -N '' -f /run/ssh/hostkey
		printf '%s\n' "HostKey /run/ssh/hostkey" "PidFile /run/ssh/sshd.pid" \
			"AuthorizedKeysFile $S/authorized_keys" "StrictModes no" "UsePAM no" \
			"PermitRootLogin prohibit-password" "PasswordAuthentication no" \
			"KbdInteractiveAuthentication no" "PrintMotd no" >/run/ssh/sshd_config
		/usr/sbin/sshd -f /run/ssh/sshd_config -E "$O/sshd.log" || say "sshd did not start"
	fi
	if [ -f "$S/$NAME.ptp4l" ]; then
		# ptp4l on tdpd's exception interfaces, software timestamps
		# shellcheck disable=SC2046
		ptp4l -S -f "$S/$NAME.ptp4l" $(cat "$S/$NAME.ptp4l-args") -m >"$O/ptp4l.log" 2>&1 &
		ptp=$!
	fi
	if [ -n "${LAB_OSPF:-}" ]; then
		# OSPF on the exception interfaces, as on a router box: FRR's zebra
		# and ospfd in the guest, its routes followed by tdpd
		. "$LAB_SRC/tests/net/frr.sh"
		frr_start - "$NAME" "$LAB_OSPF" && touch "$S/$NAME.ospf"
	fi
	# until told to stop; NAME.step asks for a step of this guest's clock
	for _ in $(seq 6000); do
		[ -e "$S/$NAME.stop" ] && break
		if [ -f "$S/$NAME.ptp4l-stop" ] && [ -n "$ptp" ]; then
			kill -KILL "$ptp" && say "ptp4l killed at $(up) s"
			wait "$ptp" 2>/dev/null
			ptp=
			mv "$S/$NAME.ptp4l-stop" "$S/$NAME.ptp4l-stopped"
		fi
		if [ -f "$S/$NAME.step" ]; then
			step_clock "$(cat "$S/$NAME.step")"
			mv "$S/$NAME.step" "$S/$NAME.stepped"
		fi
		for f in "$S/$NAME".snap-*; do
			[ -f "$f" ] || continue
			ctl --json schedule active >"$O/${f##*.snap-}-schedule.json" 2>&1
			ctl --json stats >"$O/${f##*.snap-}.json.part" 2>&1
			mv "$O/${f##*.snap-}.json.part" "$O/${f##*.snap-}.json"
			rm -f "$f"
		done
		sleep 0.1
	done
	ctl --json ports >"$O/ports.json" 2>&1
	ctl --json stats >"$O/stats.json" 2>&1
	ctl --json sync >"$O/sync.json" 2>&1
	ctl routes >"$O/routes" 2>&1
	ip route >"$O/ip-route" 2>&1
	ip neigh >"$O/ip-neigh" 2>&1
	if [ -n "${LAB_OSPF:-}" ]; then
		{
			frr_vty "$NAME" show ip ospf neighbor
			frr_vty "$NAME" show ip ospf route
			frr_vty "$NAME" show ip route
		} >"$O/ospf" 2>&1
		frr_stop "$NAME"
	fi
	[ -n "$ptp" ] && kill -TERM "$ptp" && wait "$ptp"
	kill -TERM $pid
fi
wait $pid
echo $? >"$O/tdpd.rc"
say "tdpd exited $(cat "$O/tdpd.rc") at $(up) s"
touch "$S/$NAME.done"
