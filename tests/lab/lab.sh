#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The lab: routers as small QEMU guests, each with its own kernel (Debian's),
# its own clock and PCI NICs that DPDK's PCI PMDs drive, the host's root
# filesystem shared read-only over virtio-9p (so the guest runs the tdpd just
# built), 1 vCPU under TCG. End hosts are network namespaces on the host,
# wired to a guest's NICs through taps. Results under build/lab/SCENARIO/.
#
# usage: lab.sh [SCENARIO]   (TAP on stdout; needs root)
#   pci     one router guest on a virtio-net-pci and an e1000e NIC under
#           uio_pci_generic: host path, OSPF and a reserved flow through it
#           (scenario-pci.sh; the default)
#   clocks  three router guests in a chain, each clock its own and set off on
#           purpose, brought together by ptp4l over tdpd's links; a plan
#           deployed over SSH; hop-stamped probes measure where each router
#           pushes against the plan; a clock step, a power cycle, a
#           ptp4l and the grandmaster lost (scenario-clocks.sh)
#   systemd one router guest whose PID 1 is systemd: tdpd installed by its
#           build and run by its units (readiness, restart, watchdog, shield,
#           journald, ptp4l@ on tdpd's exception interface)
#           (scenario-systemd.sh, with systemd-router.sh in the guest)
#   pmd     one router guest with two vCPUs behind an emulated IOMMU: port
#           in under vfio-pci with two RSS queues, port out an e1000e with
#           one; tdpd's forwarding rate against testpmd's on the same NICs
#           (scenario-pmd.sh, with pmd-router.sh in the guest)
#
# Bounded: the scenario has LAB_LIMIT seconds (default 600, clocks 900) and each guest
# LAB_MEM MiB (default 1536); every exit, however it comes, stops the guests
# and removes the namespaces and taps.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${LAB_BUILD:-$SRC/build}
SCEN=${1:-pci}
# clocks boots three guests that must lock in a chain: more time
LIMIT=${LAB_LIMIT:-$([ "$SCEN" = clocks ] && echo 900 || echo 600)}
MEM=${LAB_MEM:-1536}
K=$BUILD/lab/kernel
O=$BUILD/lab/$SCEN
PROBE=$BUILD/tools/probe/tdp-probe
TAG=lab$$
. "$SRC/tests/tap.sh"
. "$SRC/tests/lab/guest.sh"
. "$SRC/tests/net/frr.sh"
. "$SRC/tests/net/netns.sh" # probe_table

case $SCEN in
pci | clocks | systemd | pmd) ;;
*)
	echo "lab.sh: no scenario '$SCEN' (pci, clocks, systemd, pmd)" >&2
	exit 2
	;;
esac
[ "$(id -u)" -eq 0 ] || {
	echo "lab.sh: the lab needs root (namespaces, taps, hugepages in the guests)" >&2
	exit 2
}
for p in "$BUILD/daemon/tdpd" "$BUILD/tools/tdpctl" "$BUILD/tools/probe/tdp-probe"; do
	[ -x "$p" ] || {
		echo "lab.sh: $p is not built (./run test builds it)" >&2
		exit 2
	}
done

# one run of a scenario at a time: a second would remove the first's results
# and share its directory
mkdir -p "$BUILD/lab"
exec 9>"$BUILD/lab/$SCEN.lock"
flock -n 9 || {
	echo "lab.sh: scenario $SCEN is running already (lock $BUILD/lab/$SCEN.lock)" >&2
	exit 2
}
rm -rf "$O"
mkdir -p "$O/share"
T0=$(date +%s%N)
elapsed() { awk -v t="$(date +%s%N)" -v t0="$T0" 'BEGIN { printf "%.1f", (t - t0) / 1e9 }'; }
note() { echo "# [$(elapsed) s] $*"; }

# what the scenario made on the host, removed on every exit
LAB_NS=()
LAB_TAPS=()
cleanup() {
	pkill -P "$WATCHDOG" 2>/dev/null
	frr_stop_all
	lab_guests_stop
	local x
	for x in "${LAB_NS[@]}"; do ip netns del "$x" 2>/dev/null; done
	for x in "${LAB_TAPS[@]}"; do ip link del "$x" 2>/dev/null; done
	return 0
}
trap cleanup EXIT
trap 'exit 143' INT TERM
# the whole scenario is bounded: past LAB_LIMIT, this shell is told to end
# (the timer holds no lock; clean-up ends it and its sleep)
(
	exec 9>&-
	sleep "$LIMIT" && kill -TERM $$ 2>/dev/null
) &
WATCHDOG=$!
disown "$WATCHDOG" # its end is no job report on the TAP stream
LAB_PIDS=("$WATCHDOG")

lab_kernel "$K" || exit 1
note "kernel $(cat "$K/version") and its initramfs ready in $K"

# lab_taps TAP...: waits for QEMU to create the taps (they live as long as it
# holds them), which are then the scenario's to move
lab_taps() {
	local t
	LAB_TAPS+=("$@")
	for _ in $(seq 300); do
		for t; do ip link show "$t" >/dev/null 2>&1 || continue 2; done
		return 0
	done
	echo "lab: QEMU made no tap $*" >&2
	return 1
}

# host_ns NS TAP MAC ADDR/LEN GATEWAY: an end host, a namespace holding one
# of a guest's taps
host_ns() {
	LAB_NS+=("$1")
	ip netns add "$1" && ip -n "$1" link set lo up && host_wire "$@"
}

# host_wire NS TAP MAC ADDR/LEN GATEWAY: a guest's tap into the end host's
# namespace, with the host's MAC, address and default route (again after
# the guest's QEMU made the tap anew)
host_wire() {
	ip link set "$2" netns "$1" && ip -n "$1" link set "$2" address "$3" &&
		ip -n "$1" link set "$2" up && ip -n "$1" addr add "$4" dev "$2" &&
		ip -n "$1" route add default via "$5" &&
		ip netns exec "$1" ethtool -K "$2" tx off >/dev/null 2>&1
}

# lab_conf FILE SCHEDULE IN-ADDR IN-NEIGH IN-MAC OUT-ADDR OUT-NEIGH OUT-MAC
#   [[global] lines...]: a router guest's tdpd.conf, port in on 00:03.0 and
# port out on 00:04.0 with their address and neighbour (routes beyond are
# the guest kernel's, NAME.routes); the network tests' defaults in
# /run/tdpd, RX sleeping 50 us when idle (TCG's guests share the host's
# two CPUs), which a given line replaces, and route-memory 256 (a few routes:
# the pool, DPDK and the tables fit the guest's 640 MiB of hugepages)
lab_conf() {
	local f=$1 table=$2 ia=$3 in=$4 im=$5 oa=$6 on=$7 om=$8 idle="rx-idle-sleep 50us"
	shift 8
	[[ " $* " == *" rx-idle-sleep "* ]] && idle=
	{
		conf_globals /run/tdpd "$table" ${idle:+"$idle"} "route-memory 256" "$@"
		printf '\n[port in]\ndevice 0000:00:03.0\naddress %s\nneighbour %s %s\n' "$ia" "$in" "$im"
		printf '\n[port out]\ndevice 0000:00:04.0\naddress %s\nneighbour %s %s\n' "$oa" "$on" "$om"
	} >"$f"
}

# lab_router_between SCRIPT: guest r1 between the two end hosts, port in
# (virtio-net-pci, MAC_IN) on the sender's tap, port out (e1000e, MAC_OUT) on
# the receiver's; the sender 10.0.1.2 (MAC_S), the receiver 10.0.2.2 (MAC_R)
lab_router_between() {
	lab_guest r1 "$O" "$1" "$MEM" \
		-netdev "tap,id=in,ifname=$TAG-s,script=no,downscript=no" \
		-device "virtio-net-pci,netdev=in,addr=0x3,mac=$MAC_IN" \
		-netdev "tap,id=out,ifname=$TAG-r,script=no,downscript=no" \
		-device "e1000e,netdev=out,addr=0x4,mac=$MAC_OUT"
	lab_taps "$TAG-s" "$TAG-r" &&
		host_ns "$TAG-snd" "$TAG-s" "$MAC_S" 10.0.1.2/24 10.0.1.1 &&
		host_ns "$TAG-rcv" "$TAG-r" "$MAC_R" 10.0.2.2/24 10.0.2.1
}

# lab_probes N TABLE COUNT DST-MAC [RECV-ARGS...] [-- SEND-ARGS...]: COUNT
# probes of TABLE's flow "probe" from the sender (10.0.1.2) to the receiver
# (10.0.2.2), first hop DST-MAC; the receiver's report in rcvN.json, rcvN.out
lab_probes() {
	local n=$1 table=$2 count=$3 mac=$4 ra=() rp
	shift 4
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		ra+=("$1")
		shift
	done
	[ "${1:-}" = -- ] && shift
	ip netns exec "$TAG-rcv" timeout 120 "$PROBE" recv -i "$TAG-r" --no-live --duration 90s "${ra[@]}" \
		--json "$O/rcv$n.json" --ready "$O/rcv$n.ready" >"$O/rcv$n.out" 2>"$O/rcv$n.err" &
	rp=$!
	LAB_PIDS+=("$rp")
	for _ in $(seq 100); do [ -f "$O/rcv$n.ready" ] && break; sleep 0.1; done
	ip netns exec "$TAG-snd" timeout 120 "$PROBE" send -i "$TAG-s" --table "$table" --flow probe \
		--count "$count" --prio 0 --timer nanosleep "$@" --dst 10.0.2.2 --src 10.0.1.2 --dst-mac "$mac" \
		>"$O/send$n.out" 2>"$O/send$n.err"
	wait "$rp"
}

# what every router guest reads first (/mnt/env)
lab_env() {
	cat >"$O/share/env" <<EOF
LAB_SRC=$SRC
LAB_BUILD=$BUILD
LAB_KERNEL=$K
EOF
}

. "$SRC/tests/lab/scenario-$SCEN.sh"
lab_guests_wait 60
for g in "$O"/share/*.maxrss; do
	[ -f "$g" ] || continue
	g=$(basename "$g" .maxrss)
	r=
	[ -f "$O/share/$g/ready-at" ] && r="boot to ready $(cat "$O/share/$g/ready-at") s of its own uptime; "
	note "guest $g: ${r}QEMU's peak RSS $(tail -1 "$O/share/$g.maxrss" 2>/dev/null) KiB"
done
echo "# results in $O"
# a failed check fails the run
exit "$TAP_FAILED"
