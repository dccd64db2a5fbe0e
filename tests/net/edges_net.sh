#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A router's edges while it runs: neighbour advertisements, packets too big,
# a link flapped, a route moved under a reserved flow, an equal-cost
# multipath route. One tdpd router (R1, af_xdp ports in, a, b) and a kernel
# router (R2) joined by two links, IPv4 and IPv6:
#
#   snd s0 ── in R1 a ── a R2 out ── r0 rcv
#   .0.1      .0.2  .1.1   .1.2 .2.3    .2.2
#                   b ── b
#                   .3.1   .3.2
#
# 10.8.L.0/24 and fd08:L::/64 for link L; link a's MTU is 1400. The reserved
# flow "probe" (DSCP 46, UDP 7350 to rcv) leaves R1 by port a. Checked with
# the tools an operator uses: ip neigh (the Router flag), ping -M do and
# tracepath (Fragmentation Needed, Packet Too Big), ping -M dont (fragments),
# ip link set down/up (link state, routes read again, the IPv6 address put
# back), ip route replace (a moved route: counted, logged, alarmed; a
# multipath route: both next hops used, one transport flow on one path, the
# reserved flow on its own port). Bounded waits; figures printed, not asserted.
# usage: edges_net.sh TDPD TDPCTL SRCDIR  (TAP)
set -uo pipefail
TDPD=$1
TDPCTL=$2
SRC=$3

. "$SRC/tests/net/netns.sh"
net_test_begin ping tracepath python3
. "$SRC/tests/tap.sh"
echo "1..16"

P=ed$$
SND=${P}snd R1=${P}r1 R2=${P}r2 RCV=${P}rcv
CH_NS=("$SND" "$R1" "$R2" "$RCV")
ns_new "${CH_NS[@]}"
ns_ipv6 "${CH_NS[@]}"
ip -n "$SND" link add s0 type veth peer name in netns "$R1"
ip -n "$R1" link add la type veth peer name la netns "$R2"
ip -n "$R1" link add lb type veth peer name lb netns "$R2"
ip -n "$R2" link add out type veth peer name r0 netns "$RCV"
ip -n "$R1" link set la mtu 1400
ip -n "$R2" link set la mtu 1400
for l in "$SND s0" "$R1 in" "$R1 la" "$R1 lb" "$R2 la" "$R2 lb" "$R2 out" "$RCV r0"; do
	set -- $l
	ip -n "$1" link set "$2" up
	ip netns exec "$1" ethtool -K "$2" tx off >/dev/null 2>&1 || true
done
ip -n "$SND" addr add 10.8.0.1/24 dev s0
ip -n "$SND" addr add fd08:0::1/64 dev s0
ip -n "$SND" route add default via 10.8.0.2
ip -n "$SND" -6 route add default via fd08:0::2
for a in "la 1" "lb 3"; do
	set -- $a
	ip -n "$R2" addr add "10.8.$2.2/24" dev "$1"
	ip -n "$R2" addr add "fd08:$2::2/64" dev "$1"
done
ip -n "$R2" addr add 10.8.2.3/24 dev out
ip -n "$R2" addr add fd08:2::3/64 dev out
ip -n "$R2" route add 10.8.0.0/24 via 10.8.1.1
ip -n "$R2" -6 route add fd08:0::/64 via fd08:1::1
ip netns exec "$R2" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
ip -n "$RCV" addr add 10.8.2.2/24 dev r0
ip -n "$RCV" addr add fd08:2::2/64 dev r0
ip -n "$RCV" route add default via 10.8.2.3
ip -n "$RCV" -6 route add default via fd08:2::3
mkdir -p "$W/r1"
cat >"$W/t.tdp" <<'TDP'
tdp-schedule 1
tf 1ms
k 10
guard 20us
port a rate 100Mbit/s max-frame 1514 overhead 24
flow probe port a size 200 dscp 46 udp-dport 7350
frames 0-9: probe 2
TDP
{
	conf_globals "$W/r1" "$W/t.tdp"
	printf '\n[port in]\ndevice net_af_xdp0,iface=in\naddress 10.8.0.2/24\naddress fd08:0::2/64\n'
	printf '\n[port a]\ndevice net_af_xdp1,iface=la\naddress 10.8.1.1/24\naddress fd08:1::1/64\n'
	printf '\n[port b]\ndevice net_af_xdp2,iface=lb\naddress 10.8.3.1/24\naddress fd08:3::1/64\n'
} >"$W/r1/tdpd.conf"
ip netns exec "$R1" "$TDPD" -f "$W/r1/tdpd.conf" >"$W/r1/out" 2>"$W/r1/err" &
PID1=$!
PIDS+=($PID1)
for _ in $(seq 300); do grep -q "forwarding:" "$W/r1/err" && break; sleep 0.1; done
ip -n "$R1" route add 10.8.2.0/24 via 10.8.1.2 dev la
ip -n "$R1" -6 route add fd08:2::/64 via fd08:1::2 dev la
ctl() { ip netns exec "$R1" "$TDPCTL" --socket "$W/r1/tdpd.sock" "$@"; }
got() { sed -n 's/.* \([0-9]*\) received.*/\1/p' <<<"$1"; }
sleep 1
ip netns exec "$SND" ping -c 2 -i 0.2 -W 1 10.8.2.2 >/dev/null 2>&1
ip netns exec "$SND" ping -6 -c 2 -i 0.2 -W 1 fd08:2::2 >/dev/null 2>&1
o4=$(ip netns exec "$SND" ping -c 5 -i 0.2 -W 1 10.8.2.2 2>&1)
o6=$(ip netns exec "$SND" ping -6 -c 5 -i 0.2 -W 1 fd08:2::2 2>&1)
check "R1 forwards IPv4 and IPv6 on af_xdp: $(got "$o4") and $(got "$o6") of 5 pings" \
	'[ "$(got "$o4")" -ge 4 ] && [ "$(got "$o6")" -ge 4 ]' "$o4 $o6 $(tail -5 "$W/r1/err")"

# ---- the first packets to a neighbour not yet resolved wait for it -------------
ip -n "$R1" neigh flush dev la
ip -n "$R1" -6 neigh flush dev la
sleep 0.3
o4=$(ip netns exec "$SND" ping -c 1 -W 2 10.8.2.2 2>&1)
o6=$(ip netns exec "$SND" ping -6 -c 1 -W 2 fd08:2::2 2>&1)
held=$(ctl --json stats | python3 -c 'import json,sys; h=json.load(sys.stdin)["rx"]["held"]; print(h["queued"], h["released"])')
check "R1's neighbours flushed: the first ping (IPv4 and IPv6) waits for ARP/ND and is answered (held, released: $held)" \
	'[ "$(got "$o4")" = 1 ] && [ "$(got "$o6")" = 1 ] && read -r hq hr <<<"$held" && [ "$hq" -ge 2 ] && [ "$hr" -ge 2 ]' \
	"$o4 $o6 $held"

# ---- ND: the router says it is one (RFC 4861 §7.2.4) ------------------------
ip -n "$SND" -6 neigh flush dev s0
ip netns exec "$SND" ping -6 -c 1 -W 1 fd08:0::2 >/dev/null 2>&1
nb=$(ip -n "$SND" -6 neigh show fd08:0::2 dev s0)
check "the neighbour advertisement for R1's address carries the Router flag (ip -6 neigh: router)" \
	'grep -q "router" <<<"$nb"' "$nb"

# ---- packets too big -------------------------------------------------------
o=$(ip netns exec "$SND" ping -M do -s 1472 -c 3 -i 0.3 -W 1 10.8.2.2 2>&1)
check "IPv4 DF over link a's MTU: Fragmentation Needed from R1 with the next hop's MTU 1400" \
	'grep -q "From 10.8.0.2.*Frag needed and DF set (mtu = 1400)" <<<"$o"' "$o"
ip -n "$SND" route flush cache
tp=$(ip netns exec "$SND" timeout 20 tracepath -n -m 5 10.8.2.2 2>&1)
check "tracepath learns the path MTU through R1: pmtu 1400" 'grep -q "pmtu 1400" <<<"$tp"' "$tp"
o=$(ip netns exec "$SND" ping -M do -s 1372 -c 3 -i 0.3 -W 1 10.8.2.2 2>&1)
check "ping -M do at the path MTU (1400 bytes) goes through: $(got "$o") of 3" '[ "$(got "$o")" -ge 2 ]' "$o"
o=$(ip netns exec "$SND" ping -6 -M do -s 1452 -c 3 -i 0.3 -W 1 fd08:2::2 2>&1)
check "IPv6 over link a's MTU: Packet Too Big from R1 with mtu 1400" \
	'grep -qi "From fd08::2.*Packet too big: mtu=1400" <<<"$o"' "$o"
ip -n "$SND" route flush cache   # forget the path MTU learnt: the 1500 bytes reach R1 whole
f0=$(ctl --json stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["rx"]["fragmented"]["packets"])')
o=$(ip netns exec "$SND" ping -M dont -s 1472 -c 3 -i 0.3 -W 1 10.8.2.2 2>&1)
f1=$(ctl --json stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["rx"]["fragmented"]["packets"])')
check "IPv4 without DF over the MTU: R1 fragments it ($((f1 - f0)) packets), the 1500-byte pings answered: $(got "$o") of 3" \
	'[ "$(got "$o")" -ge 2 ] && [ $((f1 - f0)) -ge 2 ]' "$o"
read -r tbd tbi < <(ctl --json stats | python3 -c 'import json,sys; s=json.load(sys.stdin)["rx"]; print(s["drop"]["too-big"], s["icmp_sent"]["too-big"])')
# the senders learn the path MTU from the first error and send no more too big
check "the packets too big are counted, by reason ($tbd) and by ICMP error sent ($tbi)" \
	'[ "${tbd:-0}" -ge 3 ] && [ "${tbi:-0}" -ge 3 ]' "$tbd $tbi"

# ---- a reserved flow whose route moves ------------------------------------
# send N: N probe-flow datagrams (DSCP 46, UDP 7350) from snd to rcv, 1 ms apart
send() {
	ip netns exec "$SND" python3 - "$1" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, 46 << 2)
for i in range(int(sys.argv[1])):
    s.sendto(b"x" * 100, ("10.8.2.2", 7350))
    time.sleep(0.001)
PY
}
flow() { ctl --json flows | python3 -c "import json,sys; f=json.load(sys.stdin)['flows'][0]; print(f['$1'])"; }
send 50
sent0=$(flow sent)
ip -n "$R1" route replace 10.8.2.0/24 via 10.8.3.2 dev lb
sleep 0.5
send 50
for _ in $(seq 30); do grep -q "ALARM: flow probe" "$W/r1/err" && break; sleep 0.1; done
moved=$(flow route_moved)
st=$(ctl status)
prom=$(ctl stats --prometheus)
check "a route moved under the reserved flow: $moved packets counted for the flow, logged, alarmed in status and Prometheus" \
	'[ "$moved" -ge 50 ] && grep -q "ALARM: flow probe: its route leaves by port b, not by its port a" "$W/r1/err" &&
	 grep -q "ALARM    route-moved: flow probe leaves by port b, not its port a" <<<"$st" &&
	 grep -q "tdpd_alarm{kind=\"route-moved\",port=\"a\",flow=\"probe\"} 1" <<<"$prom" &&
	 grep -q "tdpd_flow_route_moved_total{flow=\"probe\",port=\"a\"} $moved" <<<"$prom"' \
	"moved $moved sent0 $sent0; $st; $(grep -i "alarm\|moved" "$W/r1/err")"

# ---- an equal-cost multipath route -----------------------------------------
ip -n "$R1" route replace 10.8.2.0/24 nexthop via 10.8.1.2 dev la nexthop via 10.8.3.2 dev lb
sleep 0.5
rt=$(ctl routes)
rx_a() { ip -n "$R2" -s link show "$1" | awk '/RX:/{getline; print $2}'; }
# one transport flow (one source port): 100 datagrams, all on one path
one() {
	ip netns exec "$SND" python3 - <<'PY'
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(100):
    s.sendto(b"z" * 64, ("10.8.2.2", 9001))
    time.sleep(0.001)
PY
}
ip netns exec "$SND" ping -c 1 -W 1 10.8.2.2 >/dev/null 2>&1
sleep 0.5
a0=$(rx_a la) b0=$(rx_a lb)
one
sleep 0.3
a1=$(rx_a la) b1=$(rx_a lb)
oa=$((a1 - a0)) ob=$((b1 - b0))
m0=$(flow route_moved) s0=$(flow sent) l0=$(flow late_dropped) r0=$(flow rx)
# 64 transport flows (source ports), 5 datagrams each, best effort, and the reserved flow
ip netns exec "$SND" python3 - <<'PY'
import socket, time
socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(64)]
for i in range(5):
    for s in socks:
        s.sendto(b"y" * 64, ("10.8.2.2", 9000))
    time.sleep(0.01)
PY
send 50
# the reserved flow's packets leave in its frames (2 a 1 ms frame), or are
# dropped late when the engine is (a loaded VM), counted: waited for until
# every one RX took is one or the other, bounded (5 s)
for _ in $(seq 50); do
	s1=$(flow sent) l1=$(flow late_dropped) r1=$(flow rx)
	[ $((r1 - r0)) -ge 45 ] && [ $((s1 - s0 + l1 - l0)) -ge $((r1 - r0)) ] && break
	sleep 0.1
done
sleep 0.1
a2=$(rx_a la) b2=$(rx_a lb) m1=$(flow route_moved) s1=$(flow sent) l1=$(flow late_dropped) r1=$(flow rx)
echo "# ECMP: one transport flow: $oa packets on a, $ob on b; 64 flows and the probe flow: $((a2 - a1)) on a, $((b2 - b1)) on b; the probe flow: RX took $((r1 - r0)), sent $((s1 - s0)), dropped late $((l1 - l0)), moved $((m1 - m0))"
check "ECMP: tdpctl routes shows both next hops of 10.8.2.0/24" \
	'grep -q "^10.8.2.0/24 .*a .*10.8.1.2 .*(multipath 1/2)" <<<"$rt" && grep -q "^10.8.2.0/24 .*b .*10.8.3.2 .*(multipath 2/2)" <<<"$rt"' "$rt"
check "ECMP: one transport flow stays on one next hop ($oa, $ob of 100)" \
	'{ [ $oa -ge 100 ] && [ $ob -le 3 ]; } || { [ $ob -ge 100 ] && [ $oa -le 3 ]; }' "a $oa b $ob"
check "ECMP: 64 transport flows use both next hops, the reserved flow keeps its port a (each of its packets sent there or dropped late, counted)" \
	'[ $((a2 - a1 - (s1 - s0))) -ge 10 ] && [ $((b2 - b1)) -ge 10 ] && [ $((m1 - m0)) -eq 0 ] && [ $((r1 - r0)) -ge 45 ] && [ $((s1 - s0)) -ge 1 ] && [ $((s1 - s0 + l1 - l0)) -eq $((r1 - r0)) ]' \
	"a $((a2 - a1)) b $((b2 - b1)) moved $((m1 - m0)) rx $((r1 - r0)) sent $((s1 - s0)) late $((l1 - l0)); $rt"

# ---- a link flapped ------------------------------------------------------------
ip -n "$R1" route replace 10.8.2.0/24 via 10.8.1.2 dev la
sleep 0.3
ip -n "$R1" link set la down
for _ in $(seq 30); do grep -q "routes, .* neighbours, .* addresses" <(grep "after the link change on a" "$W/r1/err") && break; sleep 0.1; done
pt=$(ctl ports)
st=$(ctl status)
rt=$(ctl routes)
ms=$(sed -n 's/.*read again \([0-9.]*\) ms after the link change on a.*/\1/p' "$W/r1/err" | tail -1)
echo "# link a down: routes read again $ms ms after the change"
check "link a down: logged, shown in tdpctl ports and as an alarm, the kernel's silent IPv4 route through it gone from tdpd" \
	'grep -q "port a: link down on la (set down)" "$W/r1/err" && grep -q "^a: link admin-down" <<<"$pt" &&
	 grep -q "ALARM    link-down: port a (admin-down)" <<<"$st" && ! grep -q "^10.8.2.0/24" <<<"$rt"' \
	"$pt $st $rt $(tail -5 "$W/r1/err")"
ip -n "$R1" link set la up
for _ in $(seq 50); do grep -q "address fd08:1::1/64 put back on la" "$W/r1/err" && break; sleep 0.1; done
sleep 0.5
ip -n "$R1" route replace 10.8.2.0/24 via 10.8.1.2 dev la   # as a routing daemon would
ip -n "$R1" -6 route replace fd08:2::/64 via fd08:1::2 dev la
ip netns exec "$SND" ping -6 -c 2 -i 0.2 -W 1 fd08:2::2 >/dev/null 2>&1
o6=$(ip netns exec "$SND" ping -6 -c 5 -i 0.2 -W 1 fd08:2::2 2>&1)
o4=$(ip netns exec "$SND" ping -c 5 -i 0.2 -W 1 10.8.2.2 2>&1)
pt=$(ctl ports)
check "link a up: logged, its IPv6 address put back, pings through it again ($(got "$o4") and $(got "$o6") of 5)" \
	'grep -q "port a: link up on la" "$W/r1/err" && ip -n "$R1" -6 addr show dev la | grep -q "fd08:1::1/64" &&
	 grep -q "^a: link up, MTU 1400 (kernel); 1 down, 1 up since start" <<<"$pt" &&
	 [ "$(got "$o4")" -ge 4 ] && [ "$(got "$o6")" -ge 4 ]' \
	"$(ip -n "$R1" -6 addr show dev la; echo "$pt"; echo "$o4 $o6"; tail -8 "$W/r1/err")"

kill -INT "$PID1"
wait "$PID1"
check "tdpd stops cleanly and its summary counts the packets too big and the fragments" \
	'grep -q "too-big [1-9]" "$W/r1/out" && grep -q "^frag    [1-9][0-9]* packets over the MTU fragmented" "$W/r1/out" &&
	 grep -q "^held    best effort waiting for ARP/ND: [1-9]" "$W/r1/out"' \
	"$(tail -20 "$W/r1/out")"
