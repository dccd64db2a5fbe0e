#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tcpdump for a port tdpd owns: tdpctl capture writes pcapng that tcpdump
# reads, from a file or through a pipe, each packet with its direction (in:
# from the driver, out: to it) and a wall-clock time; a client that goes
# away ends its session; one session at a time; bad requests refused. One
# router on af_xdp ports between a sender and a receiver (netns.sh).
# usage: capture_net.sh TDPD TDPCTL SRCDIR  (TAP)
set -uo pipefail
TDPD=$1
TDPCTL=$2
SRC=$3

. "$SRC/tests/net/netns.sh"
net_test_begin ping tcpdump python3
. "$SRC/tests/tap.sh"
echo "1..7"
net_up cp$$
probe_table "$W/t.tdp"
RTR_PMD=net_af_xdp router_conf "$W/tdpd.conf" "$W/t.tdp"
ip netns exec "$NS_RTR" "$TDPD" -f "$W/tdpd.conf" >"$W/out" 2>"$W/err" &
PID=$!
PIDS+=($PID)
for _ in $(seq 300); do grep -q "forwarding:" "$W/err" && break; sleep 0.1; done
ctl() { ip netns exec "$NS_RTR" "$TDPCTL" --socket "$W/tdpd.sock" "$@"; }
pings() { ip netns exec "$NS_SND" ping -c "$1" -i 0.05 -W 1 10.0.2.2 >/dev/null 2>&1 & }
# epbs FILE: each Enhanced Packet Block of a pcapng file as "DIR SRC DST TS_NS"
epbs() {
	python3 - "$1" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
o = 0
while o + 12 <= len(b):
    t, n = struct.unpack_from("<II", b, o)
    if t == 6:
        ifid, hi, lo, cap, orig = struct.unpack_from("<IIIII", b, o + 8)
        d = b[o + 28:o + 28 + cap]
        p = o + 28 + (cap + 3) // 4 * 4
        flags = 0
        while p + 4 <= o + n - 4:
            code, ln = struct.unpack_from("<HH", b, p)
            if code == 0:
                break
            if code == 2:
                flags = struct.unpack_from("<I", b, p + 4)[0]
            p += 4 + (ln + 3) // 4 * 4
        ip = d[14:34]
        print({1: "in", 2: "out"}.get(flags & 3, "?"), ".".join(map(str, ip[12:16])), ".".join(map(str, ip[16:20])),
              (hi << 32) | lo)
    o += n
PY
}

pings 40
t0=$(date +%s%N)
out=$(ctl capture out -c 10 -w "$W/c.pcapng" 2>&1)
rc=$?
t1=$(date +%s%N)
td=$(tcpdump -n -r "$W/c.pcapng" 2>&1)
check "capture out -c 10 -w FILE: exit $rc, ten packets that tcpdump reads" \
	'[ $rc -eq 0 ] && grep -q "^10 packets captured on port out into $W/c.pcapng, 0 lost" <<<"$out" &&
	 [ "$(grep -c "ICMP echo" <<<"$td")" -eq 10 ] && grep -q "link-type EN10MB" <<<"$td"' "$out $td"
e=$(epbs "$W/c.pcapng")
check "each packet has its direction on port out (requests out, replies in) and a time of the capture" \
	'! grep -qv "^\(out 10.0.1.2 10.0.2.2\|in 10.0.2.2 10.0.1.2\) " <<<"$e" && grep -q "^out" <<<"$e" && grep -q "^in" <<<"$e" &&
	 ! awk -v a="$t0" -v b="$t1" "\$4 < a || \$4 > b {bad=1} END {exit !bad}" <<<"$e"' "$e ($t0..$t1)"
pings 20
td=$(ctl capture in -c 4 --direction in -w - 2>"$W/msg" | tcpdump -n -r - 2>&1)
check "capture in -w - | tcpdump -r -: four packets through a pipe, the summary on standard error" \
	'[ "$(grep -c "ICMP echo request" <<<"$td")" -eq 4 ] && grep -q "^4 packets captured on port in into standard output" "$W/msg"' \
	"$td $(cat "$W/msg")"
ip netns exec "$NS_RTR" "$TDPCTL" --socket "$W/tdpd.sock" capture out -s 60 -w "$W/long.pcapng" >"$W/long.out" 2>&1 &
cpid=$!
sleep 1
out=$(ctl capture in -c 1 -w "$W/x.pcapng" 2>&1)
rc=$?
check "a second capture while one runs: refused, busy (exit $rc)" \
	'[ $rc -eq 1 ] && grep -q "another capture is running; one at a time (busy)" <<<"$out"' "$out"
kill -KILL "$cpid"
wait "$cpid" 2>/dev/null
for _ in $(seq 50); do grep -q "capture: port out ended (stopped)" "$W/err" && break; sleep 0.1; done
pings 20
out=$(ctl capture in -c 2 -w "$W/y.pcapng" 2>&1)
rc=$?
check "its client killed: the 60 s session ends at once, and the next one runs (exit $rc)" \
	'grep -q "capture: port out ended (stopped)" "$W/err" && [ $rc -eq 0 ] && grep -q "^2 packets captured" <<<"$out"' \
	"$out $(grep capture "$W/err")"
out=$(ctl capture nosuch -c 1 -w "$W/z.pcapng" 2>&1)
rc=$?
out2=$(ip netns exec "$NS_RTR" "$TDPCTL" --socket "$W/tdpd-ro.sock" capture out -c 1 -w "$W/z.pcapng" 2>&1)
rc2=$?
out3=$(ctl raw '{"version":1,"cmd":"capture","args":{"port":"out","count":1}}' 2>&1)
out4=$(ctl capture out -c 0 2>&1)
rc4=$?
check "refused: a port that is not there, the monitor socket, no descriptor passed, a count of 0" \
	'[ $rc -eq 1 ] && grep -q "no port .nosuch." <<<"$out" && [ $rc2 -eq 1 ] && grep -q "read-only" <<<"$out2" &&
	 grep -q "no descriptor to write the packets to was passed" <<<"$out3" && [ $rc4 -eq 2 ]' \
	"$out | $out2 | $out3 | $out4"
kill -INT "$PID"
wait "$PID"
rc=$?
check "tdpd stops cleanly after its captures (exit $rc)" '[ $rc -eq 0 ]' "$(tail -5 "$W/err")"
