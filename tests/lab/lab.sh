#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The lab: routers as small QEMU guests, each with its own kernel (Debian's),
# its own clock and PCI NICs that DPDK's PCI PMDs drive, the host's root
# filesystem shared read-only over virtio-9p (so the guest runs the tdpd just
# built), 1 vCPU under TCG. End hosts are network namespaces on the host,
# wired to a guest's NICs through taps. Results under build/lab/SCENARIO/.
#
# usage: lab.sh [SCENARIO]   (TAP on stdout; needs root)
#   pci   one router guest: port in on a virtio-net-pci NIC, port out on an
#         e1000e, both bound to uio_pci_generic; the exception interfaces
#         answer ping and arping; ping, traceroute and tdp-probe's reserved
#         flow cross it (default)
#
# Bounded: the scenario has LAB_LIMIT seconds (default 600) and each guest
# LAB_MEM MiB (default 1536); every exit, however it comes, stops the guests
# and removes the namespaces and taps.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${LAB_BUILD:-$SRC/build}
SCEN=${1:-pci}
LIMIT=${LAB_LIMIT:-600}
MEM=${LAB_MEM:-1536}
K=$BUILD/lab/kernel
O=$BUILD/lab/$SCEN
TAG=lab$$
. "$SRC/tests/tap.sh"
. "$SRC/tests/lab/guest.sh"
. "$SRC/tests/net/frr.sh"
. "$SRC/tests/net/netns.sh" # probe_table

case $SCEN in
pci) ;;
*)
	echo "lab.sh: no scenario '$SCEN' (pci)" >&2
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

rm -rf "$O"
mkdir -p "$O/share"
T0=$(date +%s%N)
elapsed() { awk -v t="$(date +%s%N)" -v t0="$T0" 'BEGIN { printf "%.1f", (t - t0) / 1e9 }'; }
note() { echo "# [$(elapsed) s] $*"; }

cleanup() {
	frr_stop_all
	lab_guests_stop
	for ns in "$TAG-snd" "$TAG-rcv"; do ip netns del "$ns" 2>/dev/null; done
	for t in "$TAG-s" "$TAG-r"; do ip link del "$t" 2>/dev/null; done
	return 0
}
trap cleanup EXIT
trap 'exit 143' INT TERM
# the whole scenario is bounded: past LAB_LIMIT, this shell is told to end
(sleep "$LIMIT" && kill -TERM $$ 2>/dev/null) &
WATCHDOG=$!
LAB_PIDS=("$WATCHDOG")

lab_kernel "$K" || exit 1
note "kernel $(cat "$K/version") and its initramfs ready in $K"

# ---- pci: host ns snd -- tap -- [virtio-net in | router guest | e1000e out] -- tap -- host ns rcv
MAC_S=02:00:00:00:01:02
MAC_R=02:00:00:00:02:02
MAC_IN=52:54:00:00:01:03
MAC_OUT=52:54:00:00:01:04
# the router's table: the network tests' probe table on 10 ms frames (TCG
# forwards about 10 kpps)
probe_table "$O/share/probe.tdp" 10ms 500us
# OSPF between the router guest (on its exception interfaces) and the sender,
# which announces a net of its own (10.9.9.0/24) for the router to learn
hello='
 ip ospf hello-interval 1
 ip ospf dead-interval 4'
printf 'interface tdp-in%s\nrouter ospf\n ospf router-id 10.0.1.1\n network 10.0.1.0/24 area 0\n network 10.0.2.0/24 area 0\n passive-interface tdp-out\n' \
	"$hello" >"$O/share/r1.ospfd"
cat >"$O/share/env" <<EOF
LAB_SRC=$SRC
LAB_BUILD=$BUILD
LAB_KERNEL=$K
MAC_S=$MAC_S
MAC_R=$MAC_R
EOF
lab_guest r1 "$O" router.sh "$MEM" \
	-netdev "tap,id=in,ifname=$TAG-s,script=no,downscript=no" \
	-device "virtio-net-pci,netdev=in,addr=0x3,mac=$MAC_IN" \
	-netdev "tap,id=out,ifname=$TAG-r,script=no,downscript=no" \
	-device "e1000e,netdev=out,addr=0x4,mac=$MAC_OUT"
# QEMU creates the taps as it starts (they live as long as it holds them);
# once both exist, each goes to its end host's namespace
host_ns() { # host_ns NS TAP MAC ADDR/LEN GATEWAY
	ip netns add "$1" && ip link set "$2" netns "$1" &&
		ip -n "$1" link set "$2" address "$3" && ip -n "$1" link set "$2" up &&
		ip -n "$1" link set lo up && ip -n "$1" addr add "$4" dev "$2" &&
		ip -n "$1" route add default via "$5" &&
		ip netns exec "$1" ethtool -K "$2" tx off >/dev/null 2>&1
}
for _ in $(seq 300); do ip link show "$TAG-s" >/dev/null 2>&1 && ip link show "$TAG-r" >/dev/null 2>&1 && break; sleep 0.1; done
host_ns "$TAG-snd" "$TAG-s" "$MAC_S" 10.0.1.2/24 10.0.1.1 &&
	host_ns "$TAG-rcv" "$TAG-r" "$MAC_R" 10.0.2.2/24 10.0.2.1 || exit 1
# the sender's far net on a veth of its own (this kernel has no dummy)
ip -n "$TAG-snd" link add far type veth peer name far1 && ip -n "$TAG-snd" link set far up &&
	ip -n "$TAG-snd" link set far1 up && ip -n "$TAG-snd" addr add 10.9.9.1/24 dev far || exit 1

echo "1..13"
lab_wait "$O/share/r1.ready" "$((LIMIT - 60))" "$O/share/r1.console"
check "the router guest boots, binds its NICs to uio_pci_generic and tdpd forwards on them ($(elapsed) s)" \
	'[ -f "$O/share/r1.ready" ]' "$(tail -30 "$O/share/r1.console" 2>/dev/null; tail -20 "$O/share/r1/tdpd.err" 2>/dev/null)"
check "DPDK drives the NICs with its PCI PMDs: port in net_virtio, port out net_e1000_em" \
	'grep -q "port in: 0000:00:03.0 (net_virtio)" "$O/share/r1/tdpd.err" &&
	 grep -q "port out: 0000:00:04.0 (net_e1000_em)" "$O/share/r1/tdpd.err"' \
	"$(grep "port \(in\|out\):" "$O/share/r1/tdpd.err" | head -20)"
check "each PCI port has its exception interface in the guest's kernel" \
	'grep -q "tdp-in" "$O/share/r1/ip-link" && grep -q "tdp-out" "$O/share/r1/ip-link"' "$(cat "$O/share/r1/ip-link" 2>/dev/null)"
# the router's own addresses answer through the exception interfaces (TCG is slow: generous waits)
out=$(ip netns exec "$TAG-snd" ping -c 5 -i 0.5 -W 5 10.0.1.1 2>&1)
check "ping of the router's address on port in: answered by the guest's kernel through tdp-in" \
	'grep -q " 0% packet loss" <<<"$out"' "$out"
out=$(ip netns exec "$TAG-snd" arping -c 3 -w 10 -I "$TAG-s" 10.0.1.1 2>&1)
check "arping of the router: its port's MAC answers" 'grep -qi "$MAC_IN" <<<"$out"' "$out"
out=$(ip netns exec "$TAG-snd" ping -c 5 -i 0.5 -W 5 10.0.2.2 2>&1)
check "ping through the router, sender to receiver, as best effort" 'grep -q " 0% packet loss" <<<"$out"' "$out"
out=$(ip netns exec "$TAG-snd" traceroute -n -w 5 -q 1 -m 3 10.0.2.2 2>&1)
check "traceroute: the router's hop (its ICMP time-exceeded), then the receiver" \
	'grep -Eq "^ 1 +10\.0\.1\.1" <<<"$out" && grep -Eq "^ 2 +10\.0\.2\.2" <<<"$out"' "$out"
# OSPF through the PCI port's exception interface: the sender's ospfd and
# the guest's reach Full, the guest's kernel takes 10.9.9.0/24 from it and
# tdpd follows the kernel
if frr_have; then
	frr_start "$TAG-snd" "${TAG}s" "interface $TAG-s$hello
router ospf
 ospf router-id 10.0.1.2
 network 10.0.1.0/24 area 0
 network 10.9.9.0/24 area 0
 passive-interface far"
	full() { frr_vty "${TAG}s" show ip ospf neighbor | grep -q "^10.0.1.1 .*Full"; }
	lab_wait "$O/share/r1.ospf" 60 "$O/share/r1.console"
	for _ in $(seq 900); do full && break; sleep 0.1; done
	check "OSPF Full between the sender's ospfd and the router guest's, over port in's exception interface ($(elapsed) s)" \
		full "$(frr_vty "${TAG}s" show ip ospf neighbor; tail -5 /var/run/frr/"${TAG}"s/ospfd.log 2>/dev/null)"
	for _ in $(seq 60); do
		ip netns exec "$TAG-rcv" ping -c 1 -W 1 10.9.9.1 >/dev/null 2>&1 && break
		sleep 1
	done
	out=$(ip netns exec "$TAG-rcv" ping -c 5 -i 0.5 -W 5 10.9.9.1 2>&1)
	check "the route the guest learned by OSPF is tdpd's: the receiver reaches 10.9.9.1 behind the sender" \
		'grep -q " 0% packet loss" <<<"$out"' "$out
$(frr_vty "${TAG}s" show ip ospf database; frr_vty "${TAG}s" show ip route)"
else
	ok "# SKIP FRR's ospfd is not installed"
	ok "# SKIP FRR's ospfd is not installed"
fi

# a reserved flow: tdp-probe at both ends, counted
PROBE=$BUILD/tools/probe/tdp-probe
ip netns exec "$TAG-rcv" timeout 120 "$PROBE" recv -i "$TAG-r" --no-live --duration 60s --frame-delay 1 \
	--json "$O/rcv.json" --ready "$O/rcv.ready" >"$O/rcv.out" 2>"$O/rcv.err" &
RPID=$!
LAB_PIDS+=("$RPID")
for _ in $(seq 100); do [ -f "$O/rcv.ready" ] && break; sleep 0.1; done
ip netns exec "$TAG-snd" timeout 120 "$PROBE" send -i "$TAG-s" --table "$O/share/probe.tdp" --flow probe \
	--count 500 --prio 0 --timer nanosleep --dst 10.0.2.2 --src 10.0.1.2 --dst-mac "$MAC_IN" \
	>"$O/send.out" 2>"$O/send.err"
wait "$RPID"
touch "$O/share/r1.stop"
lab_wait "$O/share/r1.done" 120 "$O/share/r1.console"
read -r got lost counted < <(python3 "$SRC/tests/net/losses.py" "$O/rcv.json" 0 probe "$O/share/r1/sum.json" 2>/dev/null)
check "tdp-probe's reserved flow crosses the router guest; every probe lost is counted by tdpd (${got:-?} received, ${lost:-?} lost, ${counted:-?} counted)" \
	'[ "${got:-0}" -gt 0 ] && [ "$lost" -le "$counted" ]' "$(cat "$O/rcv.out" "$O/send.err" 2>/dev/null | tail -20)"
check "tdpctl ports in the guest names each port's PMD, and the push as the PMD answers (e1000e: no launch time)" \
	'python3 - "$O/share/r1/ports.json" <<"PY"
import json, sys
p = {x["name"]: x for x in json.load(open(sys.argv[1]))["ports"]}
assert p["in"]["pmd"] == "net_virtio" and p["out"]["pmd"] == "net_e1000_em", p
assert p["out"]["push"]["kind"] == "cpu" and "net_e1000_em offers no send-on-timestamp" in p["out"]["push"]["why"]
assert p["in"]["host_path"]["mode"] == "tap" and p["in"]["host_path"]["exception"]["to_kernel"] > 0
PY' "$(head -c 3000 "$O/share/r1/ports.json" 2>/dev/null)"
if frr_have; then
	check "tdpctl routes in the guest: 10.9.9.0/24 through port in, from the kernel, put there by ospf" \
		'grep -Eq "^10\.9\.9\.0/24 +in +10\.0\.1\.2 +kernel proto ospf" "$O/share/r1/routes"' \
		"$(cat "$O/share/r1/routes" 2>/dev/null)"
else
	ok "# SKIP FRR's ospfd is not installed"
fi
check "tdpd in the guest stopped with exit 0 on SIGTERM" 'grep -q "^0$" "$O/share/r1/tdpd.rc"' \
	"$(cat "$O/share/r1/tdpd.rc" 2>/dev/null; tail -10 "$O/share/r1/tdpd.err" 2>/dev/null)"
lab_guests_wait 60
note "guest r1: boot to ready $(cat "$O/share/r1/ready-at" 2>/dev/null) s of its own uptime; QEMU's peak RSS $(cat "$O/share/r1.maxrss" 2>/dev/null) KiB"
echo "# results in $O"
exit $TAP_FAILED
