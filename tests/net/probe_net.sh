#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tdp-probe between network namespaces over veth:
#   direct       sender -> receiver: exact counts, kernel software timestamps,
#                and the same result from a tcpdump capture through analyze;
#                foreign, short and malformed frames counted and ignored
#   loss         through a kernel router whose nftables rule drops every 10th
#                probe: lost = the rule's counter, exactly
#   delay        through a relay that holds every frame 3 TF: L >= 3 TF for
#                every probe (never wrapped modulo TF), all out of frame
#   tdpd         through tdpd with a best-effort flood alongside: exact counts,
#                and L >= TF for every probe (forwarded at a later frame start)
# Counts and frame assignment only; no timing figure decides a result.
# usage: probe_net.sh TDP_PROBE TDPD SRCDIR  (TAP)
set -uo pipefail
PROBE=$1
TDPD=$2
SRC=$3

. "$SRC/tests/net/netns.sh"
net_test_begin
P=prb$$
net_cleanup() {
	ip netns del ${P}a 2>/dev/null
	ip netns del ${P}b 2>/dev/null
}

. "$SRC/tests/tap.sh"
# j FILE EXPR: a value from a JSON file, d is the document, f its first flow
j() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); f=(d.get("flows") or [{}])[0]; print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null; }
# wait_file FILE: up to 10 s
wait_file() { for _ in $(seq 100); do [ -s "$1" ] || [ -f "$1" ] && return 0; sleep 0.1; done; return 1; }
# recv NS IF NAME [args]: a receiver in the background, ready when this returns
recv() {
	local ns=$1 ifc=$2 name=$3
	shift 3
	ip netns exec "$ns" timeout 60 "$PROBE" recv -i "$ifc" --cpu 0 --no-live --duration 50s \
		--json "$W/$name.json" --ready "$W/$name.ready" "$@" >"$W/$name.out" 2>"$W/$name.err" &
	PIDS+=($!)
	RPID=$!
	wait_file "$W/$name.ready"
}
echo "1..19"

# ---- direct ------------------------------------------------------------------
ip netns add ${P}a
ip netns add ${P}b
for x in a b; do
	ip netns exec ${P}$x sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip -n ${P}$x link set lo up
done
ip -n ${P}a link add pa type veth peer name pb netns ${P}b
ip -n ${P}a link set pa up
ip -n ${P}b link set pb up

# on CPU 0 with a large buffer: the sender spins at SCHED_FIFO on CPU 1 and would starve it there
ip netns exec ${P}b timeout 60 taskset -c 0 tcpdump -i pb -B 32768 --immediate-mode -U -Z root \
	--time-stamp-precision nano -w "$W/direct.pcap" udp port 7350 2>"$W/tcpdump.err" &
TD=$!
PIDS+=($TD)
recv ${P}b pb direct --csv "$W/direct.csv"
for _ in $(seq 50); do grep -q listening "$W/tcpdump.err" && break; sleep 0.1; done
# what is not a probe first: 5 foreign, 4 short, 3 malformed
ip netns exec ${P}a python3 - <<'PY'
import socket, struct
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW); s.bind(("pa", 0))
eth = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01"
for i in range(5):                                   # foreign: another ethertype
    s.send(eth + b"\x88\xb5" + bytes(46))
def ip4(payload, tot=None):
    tot = tot or 20 + len(payload)
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, tot, 0, 0, 64, 17, 0, bytes([192, 0, 2, 1]), bytes([192, 0, 2, 2]))
    c = sum(struct.unpack("!10H", h)); c = (c & 0xffff) + (c >> 16); c = ~c & 0xffff
    return h[:10] + struct.pack("!H", c) + h[12:] + payload
for i in range(4):                                   # short: IP says 200 bytes, 60 are there
    s.send(eth + b"\x08\x00" + ip4(struct.pack("!HHHH", 7350, 7350, 180, 0) + bytes(18), tot=200))
hdr = struct.pack("!HBBIIIIqi", 0x7470, 9, 0, 1, 0, 1000000, 0, 1, 0)   # version 9
for i in range(3):                                   # malformed: ours, unknown version
    s.send(eth + b"\x08\x00" + ip4(struct.pack("!HHHH", 7350, 7350, 8 + len(hdr), 0) + hdr))
PY
ip netns exec ${P}a "$PROBE" send -i pa --tf 500us --count 2000 --cpu 1 --json "$W/send.json" \
	>"$W/send.out" 2>"$W/send.err"
check "send exits 0 and sent 2000 probes" '[ $? -eq 0 ] && [ "$(j "$W/send.json" "d[\"sent\"]")" = 2000 ]' \
	"$(cat "$W/send.err")"
wait "$RPID"
check "recv stops at the end packet with exit 0" '[ $? -eq 0 ]' "$(cat "$W/direct.err")"
check "direct: sent 2000, received 2000, lost 0, duplicated 0, reordered 0" \
	'[ "$(j "$W/direct.json" "(f[\"sent\"], f[\"received\"], f[\"lost\"], f[\"duplicated\"], f[\"reordered\"])")" = "(2000, 2000, 0, 0, 0)" ]' \
	"$(cat "$W/direct.out" "$W/direct.err")"
check "direct: 5 foreign, 4 short and 3 malformed frames counted, none measured" \
	'[ "$(j "$W/direct.json" "(d[\"frames\"][\"foreign\"], d[\"frames\"][\"short\"], d[\"frames\"][\"malformed\"], f[\"latency\"][\"count\"])")" = "(5, 4, 3, 2000)" ]' \
	"$(cat "$W/direct.out")"
check "direct: kernel software timestamps, and recv says so" \
	'[ "$(j "$W/direct.json" "d[\"timestamps\"] == \"software\" and d[\"timestamped\"][\"software\"] == d[\"frames\"][\"probes\"] + d[\"frames\"][\"end\"]")" = True ] && grep -q "^timestamps: software" "$W/direct.out"' \
	"$(cat "$W/direct.out")"
check "direct: the probes carry TF and the absolute frame index (L below 1 s)" \
	'[ "$(j "$W/direct.json" "f[\"tf_ns\"] == 500000 and 0 <= f[\"latency\"][\"min\"] < 10**9")" = True ]'
sleep 0.5
kill -INT $TD 2>/dev/null
wait $TD 2>/dev/null
"$PROBE" analyze "$W/direct.pcap" --json "$W/pcap.json" --csv "$W/pcap.csv" >"$W/pcap.out" 2>&1
check "analyze: the capture gives the same counts" \
	'[ "$(j "$W/pcap.json" "(f[\"sent\"], f[\"received\"], f[\"lost\"], d[\"frames\"][\"malformed\"])")" = "(2000, 2000, 0, 3)" ]' \
	"$(cat "$W/pcap.out" "$W/tcpdump.err")"
# per probe: the same frame index, so L moves exactly by the receive times' difference
check "analyze: every probe gets recv's frame index, so L differs by the capture point only" \
	'[ "$(python3 "$SRC/tests/net/same_frames.py" "$W/direct.csv" "$W/pcap.csv")" = "2000 same" ]' \
	"$(python3 "$SRC/tests/net/same_frames.py" "$W/direct.csv" "$W/pcap.csv" 2>&1 | head -5)"

# flood --flows: the frames spread over source ports in turn (what RSS hashes)
ip netns exec ${P}b timeout 60 tcpdump -i pb -nn -B 4096 --immediate-mode -U -w "$W/flows.pcap" \
	udp dst port 7351 2>"$W/tcpdump2.err" &
TD=$!
PIDS+=($TD)
for _ in $(seq 50); do grep -q listening "$W/tcpdump2.err" && break; sleep 0.1; done
ip netns exec ${P}a "$PROBE" flood -i pa --flows 8 --count 64 --size 64 --rate 1Mbit/s \
	>"$W/flows.out" 2>"$W/flows.err"
sleep 0.5
kill -INT $TD 2>/dev/null
wait $TD 2>/dev/null
ports=$(tcpdump -r "$W/flows.pcap" -nn 2>/dev/null | sed -n 's/.*192\.0\.2\.1\.\([0-9]*\) > .*/\1/p' | sort | uniq -c |
	awk '{ printf "%s:%s ", $2, $1 }')
check "flood --flows 8: 64 frames from source ports 7350 to 7357, 8 each (tcpdump)" \
	'[ "$ports" = "7350:8 7351:8 7352:8 7353:8 7354:8 7355:8 7356:8 7357:8 " ]' \
	"$ports $(cat "$W/flows.err" "$W/tcpdump2.err")"

# ---- delay: a relay holding every frame 3 TF ------------------------------------
net_up "prb$$"
ip netns exec "$NS_RTR" python3 "$SRC/tests/net/relay.py" --in rin --out rout --delay-us 3000 --seconds 40 \
	>"$W/relay.out" 2>"$W/relay.err" &
PIDS+=($!)
RELAY=$!
wait_file "$W/relay.out"
recv "$NS_RCV" r0 delay
ip netns exec "$NS_SND" "$PROBE" send -i s0 --tf 1ms --count 300 --cpu 1 --dst-mac "$MAC_R0" \
	>"$W/send2.out" 2>"$W/send2.err"
wait "$RPID"
check "delay: all 300 probes arrive" \
	'[ "$(j "$W/delay.json" "(f[\"sent\"], f[\"received\"], f[\"lost\"])")" = "(300, 300, 0)" ]' \
	"$(cat "$W/delay.out" "$W/delay.err" "$W/relay.err")"
check "delay: every L is at least 3 TF, not wrapped into [0, TF)" \
	'[ "$(j "$W/delay.json" "f[\"latency\"][\"min\"] >= 3 * f[\"tf_ns\"]")" = True ]' "$(cat "$W/delay.out")"
check "delay: every probe is out of frame, none early" \
	'[ "$(j "$W/delay.json" "(f[\"out_of_frame\"], f[\"early\"])")" = "(300, 0)" ]' "$(cat "$W/delay.out")"
kill $RELAY 2>/dev/null

# ---- loss: a kernel router dropping every 10th probe with nftables ---------------
ip -n "$NS_RTR" addr add 10.0.1.1/24 dev rin
ip -n "$NS_RTR" addr add 10.0.2.1/24 dev rout
ip -n "$NS_RTR" neigh add 10.0.2.2 lladdr "$MAC_R0" dev rout nud permanent
ip -n "$NS_RTR" neigh add 10.0.1.2 lladdr "$MAC_S0" dev rin nud permanent
ip netns exec "$NS_RTR" sysctl -qw net.ipv4.ip_forward=1
# probes only (kind bits of the probe header 0), not the sender's end packets
ip netns exec "$NS_RTR" nft -f - <<'NFT'
table inet probeloss {
	chain forward {
		type filter hook forward priority 0; policy accept;
		udp dport 7350 @th,88,8 & 0x3 == 0x0 numgen inc mod 10 == 0 counter drop
	}
}
NFT
recv "$NS_RCV" r0 loss
ip netns exec "$NS_SND" "$PROBE" send -i s0 --tf 500us --count 1000 --cpu 1 --dst 10.0.2.2 --src 10.0.1.2 \
	--dst-mac "$MAC_RIN" >"$W/send3.out" 2>"$W/send3.err"
wait "$RPID"
dropped=$(ip netns exec "$NS_RTR" nft -j list ruleset 2>/dev/null | tr -d '\0' | python3 -c 'import json,sys
for o in json.load(sys.stdin)["nftables"]:
    for e in o.get("rule", {}).get("expr", []):
        if "counter" in e: print(e["counter"]["packets"])')
check "loss: the rule dropped 100 probes" '[ "$dropped" = 100 ]' "nft counter: $dropped"
check "loss: sent 1000, received 900, lost 100: the drop counter, exactly" \
	'[ "$(j "$W/loss.json" "(f[\"sent\"], f[\"received\"], f[\"lost\"])")" = "(1000, 900, $dropped)" ]' \
	"$(cat "$W/loss.out")"
net_down

# ---- through tdpd, with a best-effort flood ---------------------------------------
net_up "prt$$"
probe_table "$W/probe.tdp"
router_conf "$W/tdpd.conf" "$W/probe.tdp" "late-policy carry"
ip netns exec "$NS_RTR" "$TDPD" -f "$W/tdpd.conf" >"$W/tdpd.out" 2>"$W/tdpd.err" &
PIDS+=($!)
TPID=$!
for _ in $(seq 100); do grep -q "forwarding:" "$W/tdpd.err" && break; sleep 0.1; done
check "tdpd comes up" 'grep -q "forwarding:" "$W/tdpd.err"' "$(cat "$W/tdpd.err")"
recv "$NS_RCV" r0 tdpd --frame-delay 1
ip netns exec "$NS_SND" timeout 30 "$PROBE" flood -i s0 --rate 20Mbit/s --size 64-1500 --duration 1500ms \
	--dst 10.0.2.2 --src 10.0.1.2 --dst-mac "$MAC_RIN" >"$W/flood.out" 2>"$W/flood.err" &
FL=$!
# SCHED_OTHER and clock_nanosleep: this sender must not take the CPU from tdpd's engine
ip netns exec "$NS_SND" "$PROBE" send -i s0 --table "$W/probe.tdp" --flow probe --count 500 --cpu 0 --prio 0 \
	--timer nanosleep \
	--dst 10.0.2.2 --src 10.0.1.2 --dst-mac "$MAC_RIN" >"$W/send4.out" 2>"$W/send4.err"
wait $FL
wait "$RPID"
check "tdpd: sent 500, received 500, lost 0, with best effort alongside" \
	'[ "$(j "$W/tdpd.json" "(f[\"sent\"], f[\"received\"], f[\"lost\"], d[\"frames\"][\"best_effort\"] > 0)")" = "(500, 500, 0, True)" ]' \
	"$(cat "$W/tdpd.out" "$W/flood.err" "$W/send4.err")"
check "tdpd: every probe leaves at a later frame start, so L >= TF" \
	'[ "$(j "$W/tdpd.json" "f[\"latency\"][\"min\"] >= f[\"tf_ns\"]")" = True ]' "$(cat "$W/tdpd.out")"
check "tdpd: the probe flow's id is its number in the table" '[ "$(j "$W/tdpd.json" "f[\"flow\"]")" = 0 ]'
kill -TERM $TPID
wait $TPID
rc=$?
check "tdpd stops with exit 0" '[ $rc -eq 0 ]' "$(tail -5 "$W/tdpd.err" | tr -d '\0')"
