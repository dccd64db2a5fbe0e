#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A table of more flows than a 16-bit index holds, on a running router:
#
#   snd s0 10.7.0.1 ── in R1 out ── in R2 out ── r0 10.7.2.2 rcv
#
# R1 starts with 70,000 flows (flow i: DSCP 1 + i / 60000, UDP port
# 1000 + i % 60000, one packet in frame i % 100 of a 100-frame cycle); its
# log says how much of the arrays a packet reads by its flow are on huge
# pages (all, where the kernel has them on). A
# flow past 65,535 and one below it carry UDP from the sender to the
# receiver in their frames; tdpctl flows refuses to list them all (too-big)
# and names what to ask instead, gives one flow by name and their sum;
# stats --prometheus gives the sums, not 70,000 series; schedule active
# says how many; a second table of 70,000 flows (the rows moved) is loaded
# and swapped in while traffic runs, and the flows keep their counters; at
# stop the summary gives one row for all of them. Before, a table stopped
# at 65,535 flows. R1 is killed (SIGKILL) with the second table in force and
# started again: the table resumes from the state directory and carries
# traffic. Last, a table with 70,000 of its flows in one frame: staging that
# row runs past the frame's start on any machine, and is counted, logged and
# named as the cause of the skips after it. The times (start, load,
# restart) are printed, not judged.
# usage: flows_net.sh TDPD TDPCTL SRCDIR  (TAP)
set -uo pipefail
TDPD=$1
TDPCTL=$2
SRC=$3

. "$SRC/tests/net/netns.sh"
net_test_begin ping python3

. "$SRC/tests/tap.sh"
echo "1..13"
N=${FLOWS_N:-70000}
# by hand, 10^6 flows: FLOWS_N=1000000 FLOWS_K=1000
K=${FLOWS_K:-100}
# the port's rate in every table: fast enough for ONE packets in a frame
RATE=${FLOWS_RATE:-100Gbit/s}
ONE=$((N < 70000 ? N : 70000))

# table_text FILE SHIFT: the N flows, flow i in frame (i + SHIFT) % K;
# SHIFT "one": the first ONE in frame 0, the others in the frames after it
table_text() {
	python3 - "$N" "$2" "$K" "$RATE" "$ONE" >"$1" <<'PY'
import sys
n, shift, k, rate, one = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
out = ["tdp-schedule 1", "tf 1ms", f"k {k}", "guard 20us",
       f"port out rate {rate} max-frame 1514 overhead 24"]
for i in range(n):
    out.append(f"flow f{i} port out size 100 dscp {1 + i // 60000} udp-dport {1000 + i % 60000}")
def frame(i):
    if shift != "one":
        return (i + int(shift) * k // 100) % k
    return 0 if i < one else 1 + i % (k - 1)
for i in range(n):
    out.append(f"frames {frame(i)}: f{i} 1")
print("\n".join(out))
PY
}

xdp_pair_up "fl$$"
table_text "$W/big.tdp" 0
table_text "$W/big2.tdp" 50
# ONE flows in one frame
table_text "$W/one.tdp" one
{
	conf_globals "$W/r1" "$W/big.tdp" "flow-queue-depth 8" "mbufs $((ONE + 16384))"
	printf '\n[port in]\ndevice net_af_xdp0,iface=in\naddress 10.7.0.2/24\n'
	printf '\n[port out]\ndevice net_af_xdp1,iface=out\naddress 10.7.1.1/24\n'
} >"$W/r1/tdpd.conf"
xdp_pair_conf "$W/r2/tdpd.conf" 10.7.1.2/24 10.7.2.1/24
st0=$(date +%s%N)
xdp_pair_start 1
st1=$(date +%s%N)
xdp_pair_start 2
check "R1 up with a table of $N flows" \
	'grep -q "forwarding:" "$W/r1/err" && grep -q "forwarding:" "$W/r2/err" && grep -q "$N flows" "$W/r1/err"' \
	"$(tail -n 5 "$W/r1/err" "$W/r2/err")"
grep -q "forwarding:" "$W/r1/err" && grep -q "forwarding:" "$W/r2/err" || exit 1
# the classifier's slots (4 MiB), the flows' arrays and their state (the
# engine's slab: each flow's 192 bytes, its queue's 192 and 16 slots of 8,
# 490 bytes a flow, 32.7 MiB for N): all of it counted, and on transparent
# huge pages where the kernel has them on, under tdpd's mlockall too (before
# the slab the flows' state was on small pages and not counted: 4.0 MiB)
thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
pages=$(grep -o "the flows' state and arrays of the tables held take [0-9.]* MiB, [0-9.]* MiB of it on huge pages.*" "$W/r1/err" | head -n 1)
held=$(sed -n 's/.* take \([0-9]*\)\.[0-9] MiB, \([0-9]*\)\.[0-9] MiB of it.*/\1 \2/p' <<<"$pages")
check "R1's log: ${pages:-no word of the flow state and arrays} (transparent huge pages: ${thp:-unknown}); at least $((N * 490 >> 20)) MiB" \
	'[ -n "$held" ] && [ "${held% *}" -ge $((N * 490 >> 20)) ] &&
	 { [ "$thp" != always ] && [ "$thp" != madvise ] || [ $((${held#* } * 2)) -ge "${held% *}" ]; }' \
	"$(grep -i "huge" "$W/r1/err")"
ip -n "$R1" route add 10.7.2.0/24 via 10.7.1.2
ip -n "$R2" route add 10.7.0.0/24 via 10.7.1.1
for _ in $(seq 50); do ip netns exec "$SND" ping -c 1 -W 1 10.7.2.2 >/dev/null 2>&1 && break; sleep 0.1; done

# send COUNT: COUNT packets each of flow N-1 (past 65,535) and of flow 5,
# 1.5 cycles apart (each goes in its flow's next frame); the receiver counts
# what arrives on either port
last=$((N - 1))
pl=$((1000 + last % 60000)) dl=$((1 + last / 60000))
send() {
	# the receiver stops once it has them all, or 2 s plus 3 cycles after the
	# sender's last (a packet dropped late never comes); 90 s at most
	timeout 90 ip netns exec "$RCV" python3 - "$pl" 1005 "$1" "$K" "$W/sent" >"$W/rcv.out" <<'PY' &
import os, select, socket, sys, time
ports, want, k, done = [int(sys.argv[1]), int(sys.argv[2])], 2 * int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
ss = []
for p in ports:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", p))
    ss.append(s)
print("ready", flush=True)
got, end = 0, None
while got < want and (end is None or time.time() < end):
    if end is None and os.path.exists(done):
        end = time.time() + 2 + 3 * k / 1000
    r, _, _ = select.select(ss, [], [], 0.1)
    for s in r:
        s.recv(2048)
        got += 1
print(got, flush=True)
PY
	local rp=$!
	for _ in $(seq 50); do grep -q ready "$W/rcv.out" && break; sleep 0.1; done
	ip netns exec "$SND" python3 - "$dl" "$pl" "$1" "$K" <<'PY'
import socket, sys, time
dl, pl, n, k = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(n):
    for dscp, port in ((dl, pl), (1, 1005)):
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, dscp << 2)
        s.sendto(b"x" * 50, ("10.7.2.2", port))
    time.sleep(0.0015 * k)
PY
	: >"$W/sent"
	wait "$rp"
	rm -f "$W/sent"
	tail -n 1 "$W/rcv.out"
}
# flow NAME FIELD: a counter of one flow, from tdpctl flows NAME
flow() {
	xdp_pair_ctl 1 --json flows "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["flows"][0][sys.argv[1]])' "$2"
}
# carried WHAT: 10 packets each of f$last and f5 sent on a router whose
# counters start at 0. RX takes every packet; each is sent in its frame or,
# when this shared machine made the engine late for it, dropped late and
# counted (at least one of ten is sent). Leaves sent and sent5.
carried() {
	local got rx late rx5 late5
	got=$(send 10)
	rx=$(flow "f$last" rx) sent=$(flow "f$last" sent) late=$(flow "f$last" late_dropped)
	rx5=$(flow f5 rx) sent5=$(flow f5 sent) late5=$(flow f5 late_dropped)
	check "$1: rx $rx and $rx5, sent $sent and $sent5, dropped late $late and $late5, the receiver got $got" \
		'[ "$rx" = 10 ] && [ "$rx5" = 10 ] && [ $((sent + late)) -eq 10 ] && [ $((sent5 + late5)) -eq 10 ] && [ "$sent" -ge 1 ] && [ "$got" -eq $((sent + sent5)) ]' \
		"$(tail -n 3 "$W/r1/err")"
}
carried "flow f$last (index past 65,535) and f5 carry their packets"

xdp_pair_ctl 1 --json flows >"$W/list.json" 2>&1
rc=$?
check "tdpctl flows refuses to list $N flows (too-big), pointing at --summary and NAME" \
	'[ $rc -eq 1 ] && grep -q "too-big" "$W/list.json" && grep -q "flows --summary.*flows NAME" "$W/list.json"' \
	"rc $rc: $(head -c 600 "$W/list.json")"
xdp_pair_ctl 1 flows "f$last" >"$W/one.txt" 2>&1
xdp_pair_ctl 1 --json flows nosuch >"$W/nosuch.json" 2>&1
rc=$?
check "tdpctl flows NAME: that flow's row; an unknown name is refused (unknown-flow)" \
	'grep -q "^f$last .* out .* 10 " "$W/one.txt" && [ "$(wc -l <"$W/one.txt")" = 3 ] && [ $rc -eq 1 ] && grep -q unknown-flow "$W/nosuch.json"' \
	"$(cat "$W/one.txt" "$W/nosuch.json")"
xdp_pair_ctl 1 flows --summary >"$W/sum.txt" 2>&1
read -r sflows srx ssent < <(xdp_pair_ctl 1 --json flows --summary | python3 -c 'import json,sys; s=json.load(sys.stdin)["sum"]; print(s["flows"], s["rx"], s["sent"])')
check "tdpctl flows --summary: one row for all $N flows (rx ${srx:-?}, sent ${ssent:-?})" \
	'[ "$sflows" = "$N" ] && [ "$srx" = 20 ] && [ "$ssent" -eq $((sent + sent5)) ] && grep -q "^($N flows) " "$W/sum.txt"' \
	"$(cat "$W/sum.txt")"
xdp_pair_ctl 1 stats --prometheus >"$W/prom" 2>"$W/prom.err"
check "stats --prometheus: the flows' sums (tdpd_flows_sent_total), no per-flow series, nothing missing" \
	'grep -q "^tdpd_flows_sent_total [0-9]" "$W/prom" && grep -q "^# HELP tdpd_flows_sent_total Packets sent in their reserved frame, summed over every flow.$" "$W/prom" && ! grep -q "^tdpd_flow_sent_total{" "$W/prom" && [ ! -s "$W/prom.err" ]' \
	"$(grep -c . "$W/prom") lines; $(head -c 300 "$W/prom.err")"
xdp_pair_ctl 1 schedule active >"$W/active.txt" 2>&1
check "schedule active says $N flows, more than a reply lists" \
	'grep -q "^flows  *$N, more than a reply lists" "$W/active.txt"' "$(cat "$W/active.txt")"

# the second table, loaded and swapped in while the flows carry traffic
send 8 >"$W/during" &
sp=$!
l0=$(date +%s%N)
ip netns exec "$R1" "$TDPCTL" --socket "$W/r1/tdpd.sock" schedule load "$W/big2.tdp" >"$W/load.out" 2>&1
lrc=$?
l1=$(date +%s%N)
wait "$sp"
got2=$(cat "$W/during")
s0=$((sent + sent5))
rx=$(flow "f$last" rx) sent=$(flow "f$last" sent) late=$(flow "f$last" late_dropped) ovf=$(flow "f$last" overflow)
sent5=$(flow f5 sent)
check "a second table of $N flows swapped in under traffic: f$last keeps its counters (rx $rx, sent $sent, dropped late $late, overflow $ovf) and the receiver got what was sent ($got2)" \
	'[ $lrc -eq 0 ] && grep -q "in force from frame" "$W/load.out" && [ "$rx" = 18 ] && [ $((sent + late + ovf)) -eq 18 ] && [ "${got2:-0}" -eq $((sent + sent5 - s0)) ] && grep -q "big2.tdp in force from frame [0-9]*: k $K, $N flows$" "$W/r1/err"' \
	"rc $lrc: $(cat "$W/load.out"); $(tail -n 3 "$W/r1/err")"

# SIGKILL of R1 with the second table in force, and a restart: the table of
# 70,000 flows comes back from the state directory and carries traffic again
digest=$(xdp_pair_ctl 1 --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)["table"]["digest"])')
k0=$(date +%s%N)
kill -KILL "$PID1"
wait "$PID1" 2>/dev/null
# the guard sets the ports down into the killed run's log, kept apart from the restart's
mv "$W/r1/err" "$W/r1/err.killed"
old=$PID1
xdp_pair_start 1
k1=$(date +%s%N)
s=$(xdp_pair_ctl 1 --json status)
check "SIGKILL and restart of R1: the $N-flow table of schedule load resumes from the state directory, the dead run's DPDK directory gone" \
	'grep -q "forwarding:" "$W/r1/err" && grep -q "resuming the table in force at the last stop" "$W/r1/err" &&
	 python3 -c "import json,sys; t=json.load(sys.stdin)[\"table\"]; sys.exit(not (t[\"digest\"] == \"$digest\" and t[\"origin\"] == \"schedule load\" and t[\"resumed\"]))" <<<"$s" &&
	 grep -q "$N flows" "$W/r1/err" && [ ! -e "/var/run/dpdk/tdpd$old" ]' \
	"$s; $(tail -n 8 "$W/r1/err")"
# the guard set R1's ports down, which took the kernel's route through out
ip -n "$R1" route replace 10.7.2.0/24 via 10.7.1.2
for _ in $(seq 50); do ip netns exec "$SND" ping -c 1 -W 1 10.7.2.2 >/dev/null 2>&1 && break; sleep 0.1; done
carried "after the restart f$last and f5 carry their packets again"
xdp_pair_ctl 1 --json stats | python3 -c '
import json, sys
e = json.load(sys.stdin)["engine"]
print("# since the restart, rows of %d entries: %d frames, %d staged past their start, %d late, %d skipped" % (
    int(sys.argv[1]), e["frames"], e["stage_overruns"], e["late_frames"], e["skipped_frames"]))' "$(((N + K - 1) / K))"

# a row of ONE entries (70,000): staging it takes longer than the time
# before its frame's start that the engine begins it in (be-poll, 100us), on
# any machine (under 2 ns an entry would be needed, and the flows' state is
# 100 MB); counted and said, and the skips after it put down to it
ip netns exec "$R1" "$TDPCTL" --socket "$W/r1/tdpd.sock" schedule load "$W/one.tdp" >"$W/load3.out" 2>&1
lrc=$?
for _ in $(seq 30); do grep -q "still being staged.*latest: $ONE entries" "$W/r1/err" && break; sleep 0.1; done
xdp_pair_ctl 1 stats >"$W/stats.txt" 2>&1
read -r ovr ent < <(xdp_pair_ctl 1 --json stats | python3 -c 'import json,sys; e=json.load(sys.stdin)["engine"]; print(e["stage_overruns"], e["last_overrun_entries"])')
check "a row of $ONE entries: staging past the frame's start counted ($ovr frames, latest $ent entries), logged, and named as the cause of the skips after it" \
	'[ $lrc -eq 0 ] && [ "${ovr:-0}" -ge 1 ] && [ "$ent" = "$ONE" ] && grep -q "row.* still being staged at .* frame.s start (latest: $ONE entries took [0-9]* us" "$W/r1/err" &&
	 grep -q "skipped since the last report .*: [0-9]* of [0-9]* skips right after a row staged past its start" "$W/r1/err" &&
	 grep -q "^frames .* skipped, [1-9][0-9]* staged past their start;" "$W/stats.txt"' \
	"rc $lrc: $(cat "$W/load3.out"); $(grep "frames:" "$W/r1/err" | tail -n 4)"

kill -TERM "$PID1" "$PID2"
wait "$PID1"
rc1=$?
wait "$PID2"
rc2=$?
check "both tdpd stop with exit 0; R1's summary gives one row for all $N flows" \
	'[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && grep -q "^($N flows) " "$W/r1/out" && [ "$(grep -c "^f[0-9]" "$W/r1/out")" = 0 ]' \
	"$(tail -n 5 "$W/r1/err"; grep -A2 "^flow " "$W/r1/out")"
awk -v s0="$st0" -v s1="$st1" -v l0="$l0" -v l1="$l1" -v k0="$k0" -v k1="$k1" -v n="$N" 'BEGIN {
	printf "# tdpd started with %d flows in %.2f s; tdpctl schedule load of %d more took %.2f s to the frame it took effect at; SIGKILL to forwarding again %.2f s\n", n, (s1 - s0) / 1e9, n, (l1 - l0) / 1e9, (k1 - k0) / 1e9
}'
grep -h "schedule load: .*big2.tdp: \|big2.tdp .*accepted" "$W/r1/err.killed" | sed 's/^/# /'
grep -h "still being staged.*latest: $ONE entries\|skips right after" "$W/r1/err" | tail -n 2 | sed 's/^/# /'
