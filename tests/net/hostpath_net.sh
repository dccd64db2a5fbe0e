#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Two tdpd routers on net_af_xdp ports, as an engineer meets them on a box:
#
#   snd s0 10.7.0.1 ── in R1 out ── in R2 out ── r0 10.7.2.2 rcv
#                      .0.2  .1.1    .1.2  .2.1
#
# No static neighbour anywhere, no route beyond the connected ones in
# tdpd.conf. arping and ping answer from the kernel behind tdpd's XDP
# program; a route added with `ip route` carries traffic within a second and
# `ip route del` takes it away (ICMP net unreachable from tdpd); a host that
# does not answer ARP gets its senders Host Unreachable from tdpd; traceroute
# shows both routers (ICMP time exceeded from tdpd); IPv4 fragments cross
# both routers as they came (the receiver reassembles); frames for another
# station's MAC are counted, not routed; R1's input veth has two
# RX queues, and a burst spread over both reaches tdpd whole; more datagrams
# than a router's pool has buffers pass with none missed by the driver; a router killed
# with SIGKILL together with its guard (as a SIGKILL of the whole service
# would) leaves its XDP program, and the next start removes it; a clean
# stop leaves neither program nor PROMISC. Bounded in time and count.
# usage: hostpath_net.sh TDPD TDPCTL SRCDIR  (TAP)
set -uo pipefail
TDPD=$1
TDPCTL=$2
SRC=$3

. "$SRC/tests/net/netns.sh"
net_test_begin ping arping traceroute python3

. "$SRC/tests/tap.sh"
echo "1..24"

xdp_pair_up "hp$$"
conf() {   # conf FILE A-ADDR B-ADDR
	xdp_pair_conf "$@" "mbufs 8191"
}
conf "$W/r1/tdpd.conf" 10.7.0.2/24 10.7.1.1/24
conf "$W/r2/tdpd.conf" 10.7.1.2/24 10.7.2.1/24
xdp_pair_start 1
xdp_pair_start 2
check "both routers up with tdpd's XDP program on every port" \
	'grep -q "forwarding:" "$W/r1/err" && grep -q "forwarding:" "$W/r2/err" &&
	 [ "$(ip -n "$R1" link show | grep -c "prog/xdp.*name tdpd_xdp")" = 2 ] &&
	 [ "$(ip -n "$R2" link show | grep -c "prog/xdp.*name tdpd_xdp")" = 2 ]' "$(cat "$W/r1/err" "$W/r2/err")"

mac=$(ip -n "$R1" link show in | awk '/link\/ether/ {print $2}')
xdp_pair_host_checks "$mac" in
out=$(xdp_pair_ctl 1 routes)
check "tdpctl routes: the kernel's route with its protocol beside tdpd.conf's connected ones" \
	'grep -Eq "^10.7.2.0/24 +out +10.7.1.2 +kernel proto boot$" <<<"$out" &&
	 grep -Eq "^10.7.0.0/24 +in +connected +static" <<<"$out"' "$out"
out=$(xdp_pair_ctl 1 neighbours)
check "tdpctl neighbours: the next hops the kernel resolved by ARP, none static" \
	'grep -Eq "^10.7.1.2 .* out +kernel$" <<<"$out" && grep -Eq "^10.7.0.1 .* in +kernel$" <<<"$out" &&
	 ! grep -q static <<<"$out"' "$out"

out=$(ip netns exec "$SND" traceroute -n -q 1 -N 1 -w 2 -m 3 10.7.2.2 2>&1)
check "traceroute shows both routers (Time Exceeded from tdpd) and the receiver" \
	'grep -Eq "^ 1  10.7.0.2 " <<<"$out" && grep -Eq "^ 2  10.7.1.2 " <<<"$out" && grep -Eq "^ 3  10.7.2.2 " <<<"$out"' "$out"

# a 3,000-byte ping leaves the sender as three fragments: on af_xdp each
# reaches tdpd as it came and is forwarded so, and the receiver reassembles
rxp() { xdp_pair_ctl 1 --json stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["rx"]["pkts"])'; }
b=$(rxp)
out=$(ip netns exec "$SND" ping -c 5 -i 0.3 -W 2 -s 3000 -M dont 10.7.2.2 2>&1)
a=$(rxp)
check "IPv4 fragments cross both routers as they came: 5 of 5 3,000-byte pings, R1 read 3 frames each way per ping" \
	'grep -q " 5 received" <<<"$out" && [ $((a - b)) -ge 30 ]' "$out; R1 rx $b -> $a"

# the sender's gateway entry pointing at another station: veth, like a switch
# flooding an unknown address, still hands R1 the frames; R1 must not route them
other() {
	xdp_pair_ctl 1 --json stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["rx"]["drop"]["other-host"])'
}
b=$(other)
ip -n "$SND" neigh replace 10.7.0.2 lladdr 02:00:00:00:99:99 dev s0 nud permanent
out=$(ip netns exec "$SND" ping -c 3 -i 0.3 -W 1 10.7.2.2 2>&1)
ip -n "$SND" neigh del 10.7.0.2 dev s0
a=$(other)
check "frames sent to another station's MAC: R1 routes none of them and counts them other-host" \
	'grep -q " 0 received" <<<"$out" && [ $((a - b)) -ge 3 ]' "other-host $b -> $a; $out"

out=$(ip netns exec "$SND" ping -c 7 -i 1 -W 1 10.7.2.99 2>&1)
nb=$(xdp_pair_ctl 2 neighbours)
check "a host on R2's prefix that answers no ARP: once the kernel gives up, tdpd answers Destination Host Unreachable from R2's ingress address, and tdpctl neighbours says failed" \
	'grep -q "From 10.7.1.2 .*Destination Host Unreachable" <<<"$out" && grep -Eq "^10.7.2.99 +\(failed\) +out +kernel" <<<"$nb"' \
	"$out; $nb"

# 600 datagrams from 60 flows
cat >"$W/burst.py" <<'PY'
import socket, sys, time
mode = sys.argv[1]
if mode == "recv":
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", 9999)); s.settimeout(3)
    open(sys.argv[2], "w").close()
    n = 0
    try:
        while True:
            s.recv(2048); n += 1
    except socket.timeout:
        pass
    print(n)
else:
    socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(60)]
    for i in range(10):
        for s in socks:
            s.sendto(b"x" * 64, ("10.7.2.2", 9999))
        time.sleep(0.02)
PY
ip netns exec "$RCV" timeout 30 python3 "$W/burst.py" recv "$W/rready" >"$W/rcount" &
RP=$!
for _ in $(seq 50); do [ -f "$W/rready" ] && break; sleep 0.1; done
before=$(xdp_pair_ctl 1 --json ports)
ip netns exec "$SND" python3 "$W/burst.py" send
wait $RP
after=$(xdp_pair_ctl 1 --json ports)
q=$(python3 - "$before" "$after" <<'PY'
import json, sys
b, a = (json.loads(x)["ports"][0]["host_path"]["xdp"] for x in sys.argv[1:3])
print(a["to-tdpd"] - b["to-tdpd"], a["no-socket"] - b["no-socket"])
PY
)
rq=$(ip netns exec "$R1" ethtool -S in 2>/dev/null | grep -E "rx_queue_[01]_xdp_packets" | awk '{print $2}' | tr '\n' ' ')
check "a 600-datagram burst from 60 flows: all 600 through tdpd, none dropped for want of a socket" \
	'[ "$(cat "$W/rcount")" = 600 ] && [ "${q#* }" = 0 ] && [ "${q% *}" -ge 600 ]' \
	"received $(cat "$W/rcount"); XDP to tdpd / no socket: $q; per-queue XDP packets: $rq"

# more datagrams than R1's pool has buffers: each buffer goes round the
# kernel's fill ring and back more than once, and every one must be one the
# kernel accepts (DPDK 22.11's af_xdp PMD registers only part of a pool with
# gaps; the kernel then drops into the rest without a count tdpd sees)
before=$(xdp_pair_ctl 1 --json ports)
ip netns exec "$SND" python3 -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(12000):
    s.sendto(b"y" * 64, ("10.7.2.2", 9998))
    if i % 100 == 99:
        time.sleep(0.01)
'
sleep 1
after=$(xdp_pair_ctl 1 --json ports)
d=$(python3 - "$before" "$after" <<'PY'
import json, sys
b, a = ({p["name"]: p for p in json.loads(x)["ports"]} for x in sys.argv[1:3])
print(a["in"]["driver"]["rx"] - b["in"]["driver"]["rx"], a["in"]["driver"]["missed"],
      a["out"]["driver"]["tx"] - b["out"]["driver"]["tx"])
PY
)
read -r drx dmiss dtx <<<"$d"
check "12000 datagrams through R1, whose pool has 8191 buffers: its driver takes every one ($drx), misses none ($dmiss), and sends them on ($dtx)" \
	'[ "$drx" -ge 12000 ] && [ "$dmiss" = 0 ] && [ "$dtx" -ge 12000 ]' "$after"

# 300 IPv4 /32s in 300 /24s and 100 IPv6 /128s, beyond the route table's
# first sizing: every one taken, and a route added after them still followed
v6was=$(ip netns exec "$R1" sysctl -n net.ipv6.conf.out.disable_ipv6)
ip netns exec "$R1" sysctl -qw net.ipv6.conf.out.disable_ipv6=0
ip -n "$R1" addr add 2001:db8:7::1/64 dev out nodad
{
	for i in $(seq 0 299); do echo "route add 10.$((100 + i / 256)).$((i % 256)).7/32 via 10.7.1.2"; done
	for i in $(seq 0 99); do echo "route add 2001:db8:$i:$i::9/128 via 2001:db8:7::2 dev out onlink"; done
} >"$W/many.batch"
ip -n "$R1" -batch "$W/many.batch" 2>"$W/many.err"
ip -n "$R1" route add 10.99.0.0/24 via 10.7.1.2
for _ in $(seq 50); do xdp_pair_ctl 1 routes | grep -q "^10.99.0.0/24 " && break; sleep 0.1; done
rts=$(xdp_pair_ctl 1 --json routes)
check "400 host routes in 400 /24s and /48s: all taken, none missing, and a /24 added after them followed" \
	'[ "$(python3 -c "import json,sys; d=json.loads(sys.argv[1]); p=[r[\"prefix\"] for r in d[\"routes\"]]; print(sum(x.endswith(\"/32\") and x.startswith((\"10.100.\", \"10.101.\")) for x in p), sum(x.endswith(\"::9/128\") for x in p), \"10.99.0.0/24\" in p, d[\"netlink\"][\"missing\"])" "$rts")" = "300 100 True 0" ] &&
	 ! grep -q "cannot build the routes\|could not take" "$W/r1/err"' \
	"$(cat "$W/many.err"; grep "kernel routes" "$W/r1/err" | tail -3; head -c 1500 <<<"$rts")"
ip -n "$R1" route flush root 10.100.0.0/15
ip -n "$R1" -6 route flush root 2001:db8::/32
ip -n "$R1" addr del 2001:db8:7::1/64 dev out
ip netns exec "$R1" sysctl -qw net.ipv6.conf.out.disable_ipv6="$v6was"
ip -n "$R1" route del 10.99.0.0/24

ip -n "$R1" route del 10.7.2.0/24
sleep 1
out=$(ip netns exec "$SND" ping -c 2 -i 0.3 -W 1 10.7.2.2 2>&1)
check "ip route del: unreachable again" 'grep -q "Destination Net Unreachable" <<<"$out"' "$out"
ip -n "$R1" route add 10.7.2.0/24 via 10.7.1.2

pkill -KILL -P "$PID2"   # the guard first, which would release the port
kill -9 "$PID2"
wait "$PID2" 2>/dev/null
check "R2 killed with SIGKILL, its guard too: its XDP program stays on the interface" \
	'ip -n "$R2" link show in | grep -q "prog/xdp.*tdpd_xdp"' "$(ip -n "$R2" link show in)"
xdp_pair_start 2
check "the next start finds and removes what the crashed run left, and forwards again" \
	'grep -q "removed XDP program .tdpd_xdp.* a previous run left" "$W/r2/err" &&
	 ip netns exec "$SND" ping -c 3 -i 0.2 -W 1 10.7.2.2 | grep -q "[23] received"' "$(cat "$W/r2/err")"

kill -INT "$PID1" "$PID2"
wait "$PID1" "$PID2"
check "a clean stop removes the program and puts PROMISC back" \
	'! ip -n "$R1" link show | grep -q "xdp" && ! ip -n "$R1" link show | grep -q PROMISC &&
	 ! ip -n "$R2" link show | grep -q "xdp"' "$(ip -n "$R1" link show)"
check "R1's exit summary counts the ICMP errors it sent" \
	'grep -Eq "time-exceeded [1-9].* net-unreachable [1-9]" "$W/r1/out"' "$(tail -5 "$W/r1/out")"

# a veth with 2 RX queues behind a peer with 2 TX queues: the PMD opens
# combined channels only, and veth refuses XDP on fewer RX queues than the
# peer sends on. tdpd refuses to start, quoting the kernel, and leaves the
# interface as it found it.
ip -n "$SND" link add name q0 numtxqueues 2 numrxqueues 2 type veth peer name mq numtxqueues 2 numrxqueues 2 netns "$R1"
ip -n "$SND" link set q0 up
ip -n "$R1" link set mq up
{ conf_globals "$W/r1" "$W/t.tdp"; printf '\n[port out]\ndevice net_af_xdp0,iface=mq\n'; } >"$W/r1/mq.conf"
ip netns exec "$R1" timeout 60 "$TDPD" -f "$W/r1/mq.conf" >/dev/null 2>"$W/r1/mq.err"
rc=$?
check "2 RX queues the PMD cannot all open: tdpd refuses with the kernel's reason and restores the queue count" \
	'[ $rc -ne 0 ] && grep -q "set its RX queues from 2 to 1" "$W/r1/mq.err" &&
	 grep -q "error: \[port out\].*the kernel said: veth: XDP expects number of rx queues not less than peer tx queues" "$W/r1/mq.err" &&
	 grep -q "ethtool -L PEER tx 1$" "$W/r1/mq.err" &&
	 ip netns exec "$R1" ethtool -l mq | tail -4 | grep -Eq "^RX:\s+2$" && ! ip -n "$R1" link show mq | grep -q xdp' \
	"exit $rc; $(grep -v info: "$W/r1/mq.err")"
# the advice taken: the peer sends on one queue, and tdpd starts
ip netns exec "$SND" ethtool -L q0 tx 1 >/dev/null 2>&1
ip netns exec "$R1" timeout 60 "$TDPD" -f "$W/r1/mq.conf" >/dev/null 2>"$W/r1/mq2.err" &
mqpid=$!
for _ in $(seq 100); do grep -q "forwarding:" "$W/r1/mq2.err" && break; sleep 0.1; done
kill -INT $mqpid 2>/dev/null
wait $mqpid
rc=$?
check "ethtool -L PEER tx 1, as tdpd said: it starts on the veth and stops cleanly (exit $rc)" \
	'[ $rc -eq 0 ] && grep -q "forwarding:" "$W/r1/mq2.err"' "$(grep -v info: "$W/r1/mq2.err")"

# bad ports are refused before anything is touched, with what is wrong
{ conf_globals "$W/r1" "$W/t.tdp"; printf '\n[port out]\ndevice net_af_xdp0,iface=nosuch\n'; } >"$W/r1/bad1.conf"
ip netns exec "$R1" timeout 60 "$TDPD" -f "$W/r1/bad1.conf" >/dev/null 2>"$W/r1/bad1.err"
rc=$?
check "an interface not in the namespace: refused, named" \
	'[ $rc -ne 0 ] && grep -q "\[port out\] interface .nosuch. (iface=) is not in this network namespace" "$W/r1/bad1.err"' \
	"exit $rc; $(cat "$W/r1/bad1.err")"
{ conf_globals "$W/r1" "$W/t.tdp"; printf '\n[port out]\ndevice net_af_xdp0,iface=out,queue_count=4\n'; } >"$W/r1/bad2.conf"
ip netns exec "$R1" timeout 60 "$TDPD" -f "$W/r1/bad2.conf" >/dev/null 2>"$W/r1/bad2.err"
rc=$?
check "queue_count beyond what the interface and the PMD have: refused with the range and why" \
	'[ $rc -ne 0 ] && grep -q "queue_count=4: expected 1 to 1 (the interface has no combined channels" "$W/r1/bad2.err" &&
	 ! ip -n "$R1" link show out | grep -q xdp' "exit $rc; $(cat "$W/r1/bad2.err")"
# an af_xdp port beside a PCI one: the pool must then keep its buffers within
# pages for DMA, and has gaps the af_xdp PMD would not register (the PCI
# device need not exist: the refusal comes first, before the EAL probes it)
{ conf_globals "$W/r1" "$W/t.tdp"; printf '\n[port out]\ndevice net_af_xdp0,iface=out\n\n[port pci]\ndevice 0000:00:1f.7\n'; } >"$W/r1/mix.conf"
ip netns exec "$R1" timeout 60 "$TDPD" -f "$W/r1/mix.conf" >/dev/null 2>"$W/r1/mix.err"
rc=$?
check "af_xdp and PCI ports in one tdpd: refused, the pool's buffers the kernel would not take counted and named" \
	'[ $rc -ne 0 ] && grep -Eq "error: \[port out\] [1-9][0-9]* of the pool.s 16383 buffers lie past the [0-9]+ bytes the af_xdp PMD registers" "$W/r1/mix.err" &&
	 ! ip -n "$R1" link show out | grep -q xdp' "exit $rc; $(cat "$W/r1/mix.err")"
