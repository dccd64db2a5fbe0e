#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A router guest of the lab (run by the guest's init as root; the host's root
# is / read-only, the scenario's share is /mnt). Binds the guest's two PCI
# NICs (00:03.0 port in, 00:04.0 port out) to uio_pci_generic as tdpd(8)
# says, reserves hugepages, runs tdpd on them with the share's table, says
# ready (/mnt/NAME.ready), starts FRR's ospfd on its exception interfaces
# when /mnt/NAME.ospfd gives its configuration (then /mnt/NAME.ospf), and on
# /mnt/NAME.stop stops it with SIGTERM and leaves what it saw in /mnt/NAME/.
# usage: router.sh NAME
set -u
NAME=$1
S=/mnt
O=$S/$NAME
mkdir -p "$O"
. "$S/env"
# ospfd's configuration for this router, when the scenario gives one
LAB_OSPF=
[ -f "$S/$NAME.ospfd" ] && LAB_OSPF=$(cat "$S/$NAME.ospfd")
up() { cut -d' ' -f1 /proc/uptime; }
say() { echo "lab: $NAME: $*"; }
ver=$(uname -r)
modprobe -d "$LAB_KERNEL/root" uio_pci_generic && modprobe -d "$LAB_KERNEL/root" tun ||
	say "modprobe failed"
for d in 0000:00:03.0 0000:00:04.0; do
	dev=/sys/bus/pci/devices/$d
	[ -e "$dev/driver" ] && echo "$d" >"$dev/driver/unbind"
	echo uio_pci_generic >"$dev/driver_override"
	echo "$d" >/sys/bus/pci/drivers_probe
	say "$d $(cat "$dev/vendor"):$(cat "$dev/device") bound to $(basename "$(readlink "$dev/driver")")"
done
# tdpd wants its pool and route tables in hugepages (about 510 MiB by default):
# a PCI port under uio_pci_generic needs physical addresses, which only
# hugepages give
echo 320 >/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
mkdir -p /dev/hugepages && mount -t hugetlbfs nodev /dev/hugepages
ip link set lo up
mkdir -p /run/tdpd
cat >/run/tdpd/tdpd.conf <<EOF
[global]
schedule $S/probe.tdp
late-policy carry
engine-priority 0
rx-idle-sleep 50us
mlock no
control-socket /run/tdpd/tdpd.sock
monitor-socket /run/tdpd/tdpd-ro.sock
state-directory /run/tdpd/state
summary-json $O/sum.json

[port in]
device 0000:00:03.0
address 10.0.1.1/24
neighbour 10.0.1.2 $MAC_S

[port out]
device 0000:00:04.0
address 10.0.2.1/24
neighbour 10.0.2.2 $MAC_R
EOF
cp /run/tdpd/tdpd.conf "$O/"
"$LAB_BUILD/daemon/tdpd" -f /run/tdpd/tdpd.conf >"$O/tdpd.out" 2>"$O/tdpd.err" &
pid=$!
for _ in $(seq 1800); do
	grep -q "forwarding:" "$O/tdpd.err" && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
if grep -q "forwarding:" "$O/tdpd.err"; then
	ip -br link >"$O/ip-link"
	ip -br addr >"$O/ip-addr"
	up >"$O/ready-at"
	touch "$S/$NAME.ready"
	say "tdpd forwarding at $(up) s"
	if [ -n "${LAB_OSPF:-}" ]; then
		# OSPF on the exception interfaces, as on a router box: FRR's zebra
		# and ospfd in the guest, its routes followed by tdpd
		. "$LAB_SRC/tests/net/frr.sh"
		frr_start - "$NAME" "$LAB_OSPF" && touch "$S/$NAME.ospf"
	fi
	for _ in $(seq 6000); do [ -e "$S/$NAME.stop" ] && break; sleep 0.1; done
	"$LAB_BUILD/tools/tdpctl" --socket /run/tdpd/tdpd-ro.sock --json ports >"$O/ports.json" 2>&1
	"$LAB_BUILD/tools/tdpctl" --socket /run/tdpd/tdpd-ro.sock --json stats >"$O/stats.json" 2>&1
	"$LAB_BUILD/tools/tdpctl" --socket /run/tdpd/tdpd-ro.sock routes >"$O/routes" 2>&1
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
	kill -TERM $pid
fi
wait $pid
echo $? >"$O/tdpd.rc"
say "tdpd exited $(cat "$O/tdpd.rc") at $(up) s"
touch "$S/$NAME.done"
