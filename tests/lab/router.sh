#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A router guest of the lab (run by the guest's init as root; the host's root
# is / read-only, the scenario's share is /mnt). Binds the guest's two PCI
# NICs (00:03.0 port in, 00:04.0 port out) to uio_pci_generic as tdpd(8)
# says, reserves hugepages, runs tdpd on them with the share's table, says
# ready (/mnt/NAME.ready), and on /mnt/NAME.stop stops it with SIGTERM and
# leaves what it saw in /mnt/NAME/.
# usage: router.sh NAME
set -u
NAME=$1
S=/mnt
O=$S/$NAME
mkdir -p "$O"
. "$S/env"
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
mkdir -p /tmp/tdpd
cat >/tmp/tdpd/tdpd.conf <<EOF
[global]
schedule $S/probe.tdp
late-policy carry
engine-priority 0
rx-idle-sleep 50us
mlock no
control-socket /tmp/tdpd/tdpd.sock
monitor-socket /tmp/tdpd/tdpd-ro.sock
state-directory /tmp/tdpd/state
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
cp /tmp/tdpd/tdpd.conf "$O/"
"$LAB_BUILD/daemon/tdpd" -f /tmp/tdpd/tdpd.conf >"$O/tdpd.out" 2>"$O/tdpd.err" &
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
	for _ in $(seq 6000); do [ -e "$S/$NAME.stop" ] && break; sleep 0.1; done
	"$LAB_BUILD/tools/tdpctl" --socket /tmp/tdpd/tdpd-ro.sock --json ports >"$O/ports.json" 2>&1
	"$LAB_BUILD/tools/tdpctl" --socket /tmp/tdpd/tdpd-ro.sock --json stats >"$O/stats.json" 2>&1
	kill -TERM $pid
fi
wait $pid
echo $? >"$O/tdpd.rc"
say "tdpd exited $(cat "$O/tdpd.rc") at $(up) s"
touch "$S/$NAME.done"
