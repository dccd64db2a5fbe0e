#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tdpd on real DPDK af_packet ports in network namespaces: a sender host, the
# router and a receiver host. Reserved and best-effort traffic must arrive with
# exact counts (late-policy carry, and senders below the reserved rate, so a
# noisy VM delays packets but loses none), best effort routed with rewritten
# MACs and decremented TTL; bad packets sent first are counted and forwarding
# goes on; SIGTERM stops the daemon with exit 0 and its counters. Bounded: every
# wait has a timeout, and the namespaces go away however the test ends.
# usage: tdpd_net.sh TDPD SRCDIR  (TAP)
set -uo pipefail
TDPD=$1
SRC=$2
GEN=$SRC/tools/tdp-gen

. "$SRC/tests/net/netns.sh"
net_test_begin

. "$SRC/tests/tap.sh"
echo "1..14"

net_up "tdpt$$"
router_conf "$W/tdpd.conf" "$SRC/schedules/examples/demo.tdp" "late-policy carry" "summary-json $W/sum.json"
ip netns exec "$NS_RTR" "$TDPD" -f "$W/tdpd.conf" >"$W/out" 2>"$W/err" &
PID=$!
PIDS+=($PID)
for _ in $(seq 100); do grep -q "forwarding:" "$W/err" && break; sleep 0.1; done
check "tdpd comes up on af_packet ports" 'grep -q "forwarding:" "$W/err"' "$(cat "$W/err")"

ip netns exec "$NS_RCV" timeout 60 "$GEN" recv --ports 5000,5001,6000 --seconds 40 --expect 300 \
	--sniff r0 --ready "$W/ready" --json "$W/rcv.json" >/dev/null 2>"$W/rcv.err" &
RCV=$!
for _ in $(seq 100); do [ -f "$W/ready" ] && break; sleep 0.1; done

# bad packets first, straight onto the wire to the router's MAC
ip netns exec "$NS_SND" python3 - "$MAC_RIN" "$MAC_S0" <<'PY'
import socket, struct, sys
dst = bytes.fromhex(sys.argv[1].replace(":", "")); src = bytes.fromhex(sys.argv[2].replace(":", ""))
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW); s.bind(("s0", 0))
def ip4(dst_ip, ttl=64, ihl=5):
    h = struct.pack("!BBHHHBBH4s4s", (4 << 4) | ihl, 0, 28, 0, 0, ttl, 17, 0,
                    socket.inet_aton("10.0.1.2"), socket.inet_aton(dst_ip))
    c = sum(struct.unpack("!10H", h)); c = (c & 0xffff) + (c >> 16); c = ~c & 0xffff
    h = h[:10] + struct.pack("!H", c) + h[12:]
    return dst + src + b"\x08\x00" + h + struct.pack("!HHHH", 1, 6000, 8, 0) + bytes(18)
s.send(dst + src + b"\x08\x00")                     # runt: no IP header at all
s.send(ip4("10.0.2.2", ihl=3))                      # malformed: IHL 3
s.send(ip4("10.0.2.2", ttl=1))                      # TTL expires here
s.send(ip4("192.168.9.9"))                          # no route
PY
[ -s "$W/rcv.err" ] && sed 's/^/# receiver: /' "$W/rcv.err"

ip netns exec "$NS_SND" "$GEN" send --dst 10.0.2.2 --port 5000 --dscp 46 --count 300 --pps 400 >"$W/s1" 2>&1 &
S1=$!
ip netns exec "$NS_SND" "$GEN" send --dst 10.0.2.2 --port 5001 --dscp 34 --size 1000 --count 300 --pps 600 >"$W/s2" 2>&1 &
S2=$!
ip netns exec "$NS_SND" "$GEN" send --dst 10.0.2.2 --port 6000 --size 600 --count 300 --pps 1000 >"$W/s3" 2>&1 &
S3=$!
kill -HUP "$PID"
wait $S1 $S2 $S3
wait $RCV
check "SIGHUP does not stop tdpd, and the log says why" \
	'kill -0 "$PID" && grep -q "SIGHUP: ignored; tdpd goes on" "$W/err"' "$(tail -5 "$W/err")"
kill -TERM "$PID"
rc=0
wait "$PID" || rc=$?
check "SIGTERM stops tdpd with exit 0" '[ $rc -eq 0 ]' "exit $rc; $(tail -5 "$W/err")"
check "it prints its counters on the way out" 'grep -q "frame-start error" "$W/out" && grep -q "^probe" "$W/out"' "$(cat "$W/out")"

q() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
[ -f "$W/rcv.json" ] || echo '{"ports":{},"macs":{}}' >"$W/rcv.json"
[ -f "$W/sum.json" ] || echo '{}' >"$W/sum.json"
got() { q "$W/rcv.json" "d['ports'].get('$1',{}).get('$2',-1)"; }
check "every reserved probe packet arrives (300 of 300, none lost)" \
	'[ "$(got 5000 received)" = 300 ] && [ "$(got 5000 lost)" = 0 ]' "$(cat "$W/rcv.json")"
check "every reserved bulk packet arrives (300 of 300)" '[ "$(got 5001 received)" = 300 ]' "$(cat "$W/rcv.json")"
check "every best-effort packet arrives (300 of 300)" '[ "$(got 6000 received)" = 300 ]' "$(cat "$W/rcv.json")"
check "the daemon counted them as sent in their frames" \
	'[ "$(q "$W/sum.json" "d[\"flows\"][0][\"sent\"]")" = 300 ] && [ "$(q "$W/sum.json" "d[\"flows\"][1][\"sent\"]")" = 300 ]' \
	"$(cat "$W/sum.json" | head -c 2000)"
check "best effort went through the filler (300 on port out)" \
	'[ "$(q "$W/sum.json" "d[\"ports\"][0][\"be_pkts\"]")" = 300 ]'
check "the TTL was decremented (64 -> 63) on every packet" \
	'[ "$(q "$W/rcv.json" "sorted(set(k for p in d[\"ports\"].values() for k in p[\"ttl\"]))")" = "['"'"'63'"'"']" ]' \
	"$(cat "$W/rcv.json")"
check "MACs were rewritten: router out -> receiver on every frame" \
	'[ "$(q "$W/rcv.json" "list(d[\"macs\"].keys())")" = "['"'"'$MAC_ROUT>$MAC_R0'"'"']" ]' "$(cat "$W/rcv.json")"
check "runt, malformed, TTL-expired and unroutable packets counted" \
	'[ "$(q "$W/sum.json" "[d[\"rx\"][\"drop\"][k] for k in (\"runt\",\"malformed\",\"ttl-expired\",\"no-route\")]")" = "[1, 1, 1, 1]" ]' \
	"$(q "$W/sum.json" "d['rx']")"
late=$(q "$W/sum.json" "d['engine']['late_frames']")
check "late frames reported, the same number in the text and the JSON summary (the VM caused $late)" \
	'[ -n "$late" ] && grep -q "^frames  [0-9]* processed, $late late," "$W/out"' "$(grep "^frames" "$W/out")"

# a CPU a cpuset or taskset keeps from tdpd (as tdpctl shield does for every
# process outside tdpd.slice): said, with the CPUs it may use, not an abort
router_conf "$W/pinned.conf" "$SRC/schedules/examples/demo.tdp" "engine-cpu 1" "housekeeping-cpu 0" \
	"state-directory $W/pinned-state"
rc=0
ip netns exec "$NS_RTR" timeout 30 taskset -c 0 "$TDPD" -f "$W/pinned.conf" >"$W/pinned.out" 2>"$W/pinned.err" || rc=$?
check "an engine CPU outside the process's CPUs: exit 1 with why, not DPDK's abort" \
	'[ $rc -eq 1 ] && grep -q "CPU 1 (the frame engine.s) is not among the CPUs this process may run on (0)" "$W/pinned.err" &&
	 ! grep -q PANIC "$W/pinned.err"' "rc $rc: $(tail -20 "$W/pinned.err")"
exit 0
