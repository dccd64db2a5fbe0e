#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A router's life at its edges, under FRR's ospfd, on af_xdp ports:
#
#   snd s0 ── in R1 mid ── in R2 out ──┐
#   10.7.0.1  .0.2  .1.1    .1.2  .2.1 br0 10.7.2.2 rcv
#                   alt ── in R3 out ──┘
#                   .3.1    .3.2  .2.3
#
# R1 and R2 are tdpd routers, R3 a kernel router; OSPF prefers R1 -> R2
# (R1's alt costs more). Replies go back through R3. Checked: a second tdpd
# naming a port R1 holds refuses and names the holder, R1 forwarding on;
# SIGTERM and SIGKILL of R2 set its interfaces down (the guard does it for
# SIGKILL), so R1's ospfd drops it and the pings go round through R3; a
# restart of R2 resumes the table put in force by schedule load, brings its
# interfaces up, and OSPF takes R2 back; no DPDK runtime directory is left.
# Bounded waits only; the seconds to reroute are printed, not asserted.
# usage: life_net.sh TDPD TDPCTL SRCDIR  (TAP)
set -uo pipefail
TDPD=$1
TDPCTL=$2
SRC=$3

. "$SRC/tests/net/netns.sh"
. "$SRC/tests/net/frr.sh"
net_test_begin ping python3 sha256sum
frr_have || { echo "1..0 # SKIP needs FRR (Debian's frr)"; exit 0; }
. "$SRC/tests/tap.sh"
echo "1..14"

P=lf$$
SND=${P}snd R1=${P}r1 R2=${P}r2 R3=${P}r3 RCV=${P}rcv
CH_NS=("$SND" "$R1" "$R2" "$R3" "$RCV")
net_cleanup() { frr_stop_all; }
ns_new "${CH_NS[@]}"
ip -n "$SND" link add s0 type veth peer name in netns "$R1"
ip -n "$R1" link add mid type veth peer name in netns "$R2"
ip -n "$R1" link add alt type veth peer name in netns "$R3"
ip -n "$R2" link add out type veth peer name r2 netns "$RCV"
ip -n "$R3" link add out type veth peer name r3 netns "$RCV"
ip -n "$RCV" link add br0 type bridge
ip -n "$RCV" link set r2 master br0
ip -n "$RCV" link set r3 master br0
for l in "$SND s0" "$R1 in" "$R1 mid" "$R1 alt" "$R2 in" "$R2 out" "$R3 in" "$R3 out" "$RCV r2" "$RCV r3" "$RCV br0"; do
	set -- $l
	ip -n "$1" link set "$2" up
done
ip -n "$SND" addr add 10.7.0.1/24 dev s0
ip -n "$SND" route add default via 10.7.0.2
ip netns exec "$SND" ethtool -K s0 tx off >/dev/null 2>&1 || true
ip -n "$R3" addr add 10.7.3.2/24 dev in
ip -n "$R3" addr add 10.7.2.3/24 dev out
ip netns exec "$R3" sysctl -qw net.ipv4.ip_forward=1
ip -n "$RCV" addr add 10.7.2.2/24 dev br0
ip -n "$RCV" route add default via 10.7.2.3
mkdir -p "$W/r1" "$W/r2" "$W/x"
probe_table "$W/t.tdp"
swap_tables "$W/swap.tdp" "$W/bad.tdp"
# R2's table names port "out"; R1's the same table, its port "out" being mid
{
	conf_globals "$W/r1" "$W/r1.tdp"
	printf '\n[port in]\ndevice net_af_xdp0,iface=in\naddress 10.7.0.2/24\n'
	printf '\n[port out]\ndevice net_af_xdp1,iface=mid\naddress 10.7.1.1/24\n'
	printf '\n[port alt]\ndevice net_af_xdp2,iface=alt\naddress 10.7.3.1/24\n'
} >"$W/r1/tdpd.conf"
cp "$W/t.tdp" "$W/r1.tdp"
{
	conf_globals "$W/r2" "$W/t.tdp"
	printf '\n[port in]\ndevice net_af_xdp0,iface=in\naddress 10.7.1.2/24\n'
	printf '\n[port out]\ndevice net_af_xdp1,iface=out\naddress 10.7.2.1/24\n'
} >"$W/r2/tdpd.conf"

# start N: router N's tdpd (pid in PIDN), waiting for it to forward
start() { xdp_pair_start "$1"; }
# ctl N ARGS: tdpctl on router N's control socket (changes too)
ctl() {
	local n=$1 ns=$R1
	shift
	[ "$n" = 2 ] && ns=$R2
	ip netns exec "$ns" "$TDPCTL" --socket "$W/r$n/tdpd.sock" "$@"
}
pings() {   # the count of 5 pings snd -> rcv answered
	ip netns exec "$SND" ping -c 5 -i 0.2 -W 1 10.7.2.2 2>&1 | sed -n 's/.* \([0-9]*\) received.*/\1/p'
}
start 1
start 2
ospf='interface in
 ip ospf hello-interval 1
 ip ospf dead-interval 4
interface mid
 ip ospf hello-interval 1
 ip ospf dead-interval 4
interface alt
 ip ospf hello-interval 1
 ip ospf dead-interval 4
 ip ospf cost 100
interface out
 ip ospf hello-interval 1
 ip ospf dead-interval 4
router ospf
 timers throttle spf 0 50 500'
frr_start "$R1" "${P}1" "$ospf
 ospf router-id 10.7.1.1
 network 10.7.0.0/24 area 0
 network 10.7.1.0/24 area 0
 network 10.7.3.0/24 area 0
 passive-interface in"
frr_start "$R2" "${P}2" "$ospf
 ospf router-id 10.7.1.2
 network 10.7.1.0/24 area 0
 network 10.7.2.0/24 area 0
 passive-interface out"
frr_start "$R3" "${P}3" "$ospf
 ospf router-id 10.7.3.2
 network 10.7.3.0/24 area 0
 network 10.7.2.0/24 area 0
 passive-interface out"
full() { frr_vty "${P}1" show ip ospf neighbor | grep -q "^$1 .*Full"; }
via_r2() { ip -n "$R1" route show 10.7.2.0/24 | grep -q "via 10.7.1.2"; }
via_r3() { ip -n "$R1" route show 10.7.2.0/24 | grep -q "via 10.7.3.2"; }
# the replies come back through R3 (the receiver's default): its route to
# the sender's net must be in its kernel too, which OSPF installs a moment
# after R1 sees both neighbours Full
back_r3() { ip -n "$R3" route show 10.7.0.0/24 | grep -q "via 10.7.3.1"; }
for _ in $(seq 400); do full 10.7.1.2 && full 10.7.3.2 && via_r2 && back_r3 && break; sleep 0.1; done
ip netns exec "$SND" ping -c 3 -i 0.2 -W 1 10.7.2.2 >/dev/null 2>&1   # next hops resolve
got=$(pings)
check "R1 and R2 forward on af_xdp, OSPF Full with R2 and R3, the route through R2: $got of 5 pings" \
	'full 10.7.1.2 && full 10.7.3.2 && via_r2 && back_r3 && [ "${got:-0}" -ge 4 ]' \
	"$(frr_vty "${P}1" show ip ospf neighbor; ip -n "$R1" route; ip -n "$R2" route; ip -n "$R3" route; tail -3 "$W/r1/err" "$W/r2/err"
	   for n in 1 2; do echo "R$n:"; ctl $n routes; ctl $n neighbours; ctl $n --json stats | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["rx"])'; done)"

# ---- a second tdpd on a held port -----------------------------------------
prog() { ip -n "$R1" -d link show "$1" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p'; }
before=$(prog in)
{
	conf_globals "$W/x" "$W/t.tdp"
	printf '\n[port out]\ndevice net_af_xdp0,iface=in\naddress 10.7.0.9/24\n'
} >"$W/x/tdpd.conf"
rc=0
ip netns exec "$R1" timeout 60 "$TDPD" -f "$W/x/tdpd.conf" >/dev/null 2>"$W/x/err" || rc=$?
after=$(prog in)
check "a second tdpd naming R1's port refuses (exit $rc), names the holder (pid $PID1, its socket) and leaves the XDP program ($before, $after)" \
	'[ $rc -ne 0 ] && grep -q "interface in belongs to a running tdpd (pid $PID1, its port in, control socket $W/r1/tdpd.sock)" "$W/x/err" &&
	 [ -n "$before" ] && [ "$before" = "$after" ] && ! grep -q "removed XDP program" "$W/x/err"' "$(cat "$W/x/err")"
sed -i 's/net_af_xdp0,iface=in/net_af_packet0,iface=mid/' "$W/x/tdpd.conf"
rc=0
ip netns exec "$R1" timeout 60 "$TDPD" -f "$W/x/tdpd.conf" >/dev/null 2>"$W/x/err2" || rc=$?
got=$(pings)
check "a second tdpd on af_packet naming R1's other port refuses too (exit $rc); R1 forwards on: $got of 5 pings" \
	'[ $rc -ne 0 ] && grep -q "interface mid belongs to a running tdpd (pid $PID1" "$W/x/err2" && [ "${got:-0}" -ge 4 ]' \
	"$(cat "$W/x/err2")"

# ---- a table put in force at run time, then SIGTERM --------------------------
ctl 2 schedule load "$W/swap.tdp" >"$W/load.out" 2>&1
want=$(sha256sum <"$W/swap.tdp" | cut -d' ' -f1)
for _ in $(seq 50); do
	ctl 2 --json status | grep -q '"kept": *true' && break
	sleep 0.1
done
check "schedule load on R2: in force and kept in its state directory" \
	'ctl 2 --json status | python3 -c "import json,sys; s=json.load(sys.stdin); t=s[\"table\"]; sys.exit(not (t[\"digest\"] == \"$want\" and t[\"origin\"] == \"schedule load\" and s[\"state\"][\"kept\"]))" &&
	 grep -q "^digest $want" "$W/r2/state/in-force" && cmp -s "$W/swap.tdp" "$W/r2/state/tables/$want.tdp"' \
	"$(cat "$W/load.out"; ctl 2 status; cat "$W/r2/state/in-force")"

# reroute ROUTER-EDGE: waits for R1 to drop R2 and route through R3; prints seconds
reroute() {
	local t0=$1 i
	for i in $(seq 200); do ! full 10.7.1.2 && via_r3 && break; sleep 0.05; done
	echo "$(( ($(date +%s%N) - t0) / 1000000 ))"
}
t0=$(date +%s%N)
kill -TERM "$PID2"
rc=0
wait "$PID2" || rc=$?
ms=$(reroute "$t0")
got=$(pings)
echo "# SIGTERM of R2: R1's route through R3 after $ms ms"
check "SIGTERM: R2 exits 0 and sets its interfaces down, saying so" \
	'[ $rc -eq 0 ] && grep -q "port in: tdpd stopped: interface in set down (stop-action down)" "$W/r2/err" &&
	 ip -n "$R2" link show in | grep -q "state DOWN" && ip -n "$R2" link show out | grep -q "state DOWN"' \
	"exit $rc; $(tail -5 "$W/r2/err"; ip -n "$R2" link)"
check "SIGTERM: R1's ospfd drops R2 and the pings go round through R3: $got of 5" \
	'! full 10.7.1.2 && via_r3 && [ "${got:-0}" -ge 4 ]' \
	"$(frr_vty "${P}1" show ip ospf neighbor; ip -n "$R1" route; ctl 1 routes)"
check "no DPDK runtime directory is left by the R2 that stopped (pid $PID2)" '[ ! -e "/var/run/dpdk/tdpd$PID2" ]' \
	"$(ls /var/run/dpdk 2>&1)"

# ---- restart: the plan resumes, the interfaces come up -------------------
start 2
s=$(ctl 2 --json status)
check "restart: R2 resumes the table of schedule load (digest $want), says so, and keeps it" \
	'python3 -c "import json,sys; s=json.load(sys.stdin); t=s[\"table\"]; sys.exit(not (t[\"digest\"] == \"$want\" and t[\"origin\"] == \"schedule load\" and t[\"resumed\"] and t[\"k\"] == 20))" <<<"$s" &&
	 grep -q "resuming the table in force at the last stop" "$W/r2/err"' "$s; $(grep -i "table\|resum" "$W/r2/err")"
check "restart: R2 brings its interfaces up again" \
	'grep -q "brought it up (it was down)" "$W/r2/err" && ip -n "$R2" link show in | grep -q "state UP"' \
	"$(grep "host path" "$W/r2/err"; ip -n "$R2" link)"
for _ in $(seq 400); do full 10.7.1.2 && via_r2 && break; sleep 0.1; done
ip netns exec "$SND" ping -c 3 -i 0.2 -W 1 10.7.2.2 >/dev/null 2>&1
got=$(pings)
check "restart: OSPF takes R2 back, the route and the pings through it: $got of 5" \
	'full 10.7.1.2 && via_r2 && [ "${got:-0}" -ge 4 ]' "$(frr_vty "${P}1" show ip ospf neighbor; ip -n "$R1" route)"

# ---- SIGKILL: the guard ---------------------------------------------------
t0=$(date +%s%N)
kill -KILL "$PID2"
wait "$PID2" 2>/dev/null
ms=$(reroute "$t0")
for _ in $(seq 50); do grep -q "set down" "$W/r2/err" && break; sleep 0.1; done
got=$(pings)
echo "# SIGKILL of R2: R1's route through R3 after $ms ms"
check "SIGKILL: R2's guard releases its ports and sets them down, saying so" \
	'grep -q "tdpd (pid $PID2) ended without stopping its ports" "$W/r2/err" &&
	 grep -q "port out: tdpd (pid $PID2) died: interface out set down" "$W/r2/err" &&
	 ip -n "$R2" link show in | grep -q "state DOWN" && ! ip -n "$R2" -d link show in | grep -q "prog/xdp"' \
	"$(tail -5 "$W/r2/err"; ip -n "$R2" -d link show in)"
check "SIGKILL: R1's ospfd drops R2 and the pings go round through R3: $got of 5" \
	'! full 10.7.1.2 && via_r3 && [ "${got:-0}" -ge 4 ]' "$(frr_vty "${P}1" show ip ospf neighbor; ip -n "$R1" route)"
old=$PID2
start 2
check "after the SIGKILL, R2 starts again on its ports: the table resumed, the dead run's DPDK directory gone" \
	'grep -q "forwarding:" "$W/r2/err" && grep -q "resuming the table" "$W/r2/err" && [ ! -e "/var/run/dpdk/tdpd$old" ]' \
	"$(tail -5 "$W/r2/err"; ls /var/run/dpdk)"

kill -INT "$PID1" "$PID2"
wait "$PID1" "$PID2"
check "both routers stop cleanly, no DPDK runtime directory of theirs left" \
	'[ ! -e "/var/run/dpdk/tdpd$PID1" ] && [ ! -e "/var/run/dpdk/tdpd$PID2" ]' "$(ls /var/run/dpdk)"
