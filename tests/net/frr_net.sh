#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# FRR's ospfd between two tdpd routers, over tdpd's own af_xdp ports:
#
#   snd s0 10.7.0.1 ── in R1 out ── in R2 out ── r0 10.7.2.2 rcv
#                      .0.2  .1.1    .1.2  .2.1
#
# tdpd.conf holds the connected prefixes only. zebra and ospfd run in each
# router's namespace (their own pathspace, Debian's frr): OSPF's hellos go
# to 224.0.0.5, which tdpd's XDP program passes to the kernel, so the two
# ospfd form a Full adjacency across R1's out and R2's in; zebra installs
# the learnt prefixes (as nexthop objects where the kernel has them); tdpd
# follows them over rtnetlink and carries the hosts' traffic. When R2's
# ospfd stops, its routes age out and tdpd stops forwarding to them.
# Bounded waits only; no assertion on a time.
# usage: frr_net.sh TDPD TDPCTL SRCDIR  (TAP)
set -uo pipefail
TDPD=$1
TDPCTL=$2
SRC=$3
FRR=/usr/lib/frr

. "$SRC/tests/net/netns.sh"
net_test_begin ping python3
[ -x "$FRR/zebra" ] && [ -x "$FRR/ospfd" ] && command -v vtysh >/dev/null ||
	{ echo "1..0 # SKIP needs FRR (Debian's frr)"; exit 0; }
. "$SRC/tests/tap.sh"
echo "1..7"

P=fr$$
xdp_pair_up "$P"
xdp_pair_conf "$W/r1/tdpd.conf" 10.7.0.2/24 10.7.1.1/24
xdp_pair_conf "$W/r2/tdpd.conf" 10.7.1.2/24 10.7.2.1/24
xdp_pair_start 1
xdp_pair_start 2
check "both routers forward on af_xdp with connected prefixes only" \
	'grep -q "forwarding:" "$W/r1/err" && grep -q "forwarding:" "$W/r2/err" &&
	 ! grep -q "^route" "$W/r1/tdpd.conf" "$W/r2/tdpd.conf"' "$(cat "$W/r1/err" "$W/r2/err")"

# FRR: zebra and ospfd per router, each router's files in its own pathspace
net_cleanup() {
	local n
	for n in 1 2; do
		for d in ospfd zebra; do
			[ -f "/var/run/frr/$P$n/$d.pid" ] && kill "$(cat "/var/run/frr/$P$n/$d.pid")" 2>/dev/null
		done
		rm -rf "/var/run/frr/$P$n"
	done
	return 0
}
frr() {   # frr N ROUTER-ID NET-IN NET-OUT PASSIVE-IFACE
	# the daemons run as Debian's frr user: their files where it may read
	local n=$1 ns=$R1 d=/var/run/frr/$P$1
	[ "$n" = 2 ] && ns=$R2
	mkdir -p "$d"
	chown frr:frr "$d"
	cat >"$d/zebra.conf" <<EOF
hostname r$n
log file $d/zebra.log
EOF
	cat >"$d/ospfd.conf" <<EOF
hostname r$n
log file $d/ospfd.log
interface in
 ip ospf hello-interval 1
 ip ospf dead-interval 4
interface out
 ip ospf hello-interval 1
 ip ospf dead-interval 4
router ospf
 ospf router-id $2
 network $3 area 0
 network $4 area 0
 passive-interface $5
 timers throttle spf 0 50 500
EOF
	chmod 644 "$d/zebra.conf" "$d/ospfd.conf"
	ip netns exec "$ns" "$FRR/zebra" -d -N "$P$n" -f "$d/zebra.conf" -i "$d/zebra.pid" >"$W/zebra$n.out" 2>&1
	for _ in $(seq 50); do [ -S "/var/run/frr/$P$n/zserv.api" ] && break; sleep 0.1; done
	ip netns exec "$ns" "$FRR/ospfd" -d -N "$P$n" -f "$d/ospfd.conf" -i "$d/ospfd.pid" >"$W/ospfd$n.out" 2>&1
}
frr 1 10.7.1.1 10.7.0.0/24 10.7.1.0/24 in
frr 2 10.7.1.2 10.7.1.0/24 10.7.2.0/24 out
# vtysh per pathspace; it looks for a vtysh.conf there, which these need not have
vty() {
	local n=$1
	shift
	ip netns exec "$([ "$n" = 1 ] && echo "$R1" || echo "$R2")" vtysh -N "$P$n" -c "$*" 2>&1 |
		grep -v "vtysh.conf"
}

full() { vty 1 show ip ospf neighbor 2>/dev/null | grep -q "10.7.1.2 .*Full"; }
for _ in $(seq 300); do full && break; sleep 0.1; done
check "ospfd on R1 and R2 reach a Full adjacency over tdpd's af_xdp ports" 'full' \
	"$(vty 1 show ip ospf neighbor; vty 2 show ip ospf neighbor; tail -n 5 "/var/run/frr/${P}1/ospfd.log" "$W"/*.out)"

learnt() { ip -n "$R1" route show 10.7.2.0/24 | grep -q "proto ospf" && ip -n "$R2" route show 10.7.0.0/24 | grep -q "proto ospf"; }
for _ in $(seq 200); do learnt && break; sleep 0.1; done
echo "# R1's kernel: $(ip -n "$R1" route show 10.7.2.0/24)"
out=$(xdp_pair_ctl 1 routes)
check "zebra installs the OSPF routes, and tdpd takes them from the kernel with their protocol" \
	'learnt && grep -Eq "^10.7.2.0/24 +out +10.7.1.2 +kernel proto ospf" <<<"$out"' \
	"$out; $(ip -n "$R1" route; ip -n "$R1" nexthop 2>/dev/null)"

sleep 1
out=$(ip netns exec "$SND" ping -c 5 -i 0.2 -W 1 10.7.2.2 2>&1)
check "the OSPF route carries the hosts' traffic through both tdpd routers (>= 3 of 5)" \
	'[ "$(sed -n "s/.* \([0-9]*\) received.*/\1/p" <<<"$out")" -ge 3 ]' "$out"

x=$(xdp_pair_ctl 1 --json ports | python3 -c '
import json, sys
q = [q for q in json.load(sys.stdin)["ports"] if q["name"] == "out"][0]
p = q["host_path"]["xdp"]
print(p["link-scope"], p["no-socket"], q["pmd"])')
read -r hellos nosock pmd <<<"$x"
check "R1's program (on a port net_af_xdp drives) passed OSPF's hellos (224.0.0.5, link scope) to the kernel: $x" \
	'[ "$hellos" -gt 0 ] && [ "$nosock" = 0 ] && [ "$pmd" = net_af_xdp ]' "$x"

kill "$(cat "/var/run/frr/${P}2/ospfd.pid")"
gone() { ! ip -n "$R1" route show 10.7.2.0/24 | grep -q .; }
for _ in $(seq 150); do gone && break; sleep 0.1; done
sleep 1
out=$(ip netns exec "$SND" ping -c 2 -i 0.3 -W 1 10.7.2.2 2>&1)
check "R2's ospfd stopped: the route ages out of R1's kernel and tdpd answers Net Unreachable" \
	'gone && grep -q "From 10.7.0.2.*Destination Net Unreachable" <<<"$out"' "$out; $(ip -n "$R1" route)"

kill -INT "$PID1" "$PID2"
wait "$PID1" "$PID2"
check "both routers stop cleanly, their programs removed" \
	'! ip -n "$R1" link show | grep -q xdp && ! ip -n "$R2" link show | grep -q xdp' "$(ip -n "$R1" link show)"
