#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The sync budget end to end, in a chain of two tdpd routers (DPDK af_packet
# ports in network namespaces): tdpctl plan with every node on PTP with
# software timestamps (20 us each, 40 us a pair, a 100 us guard band) writes
# the tables; r1's clock is then put off on purpose (time-offset) by less
# than the pair's budget and by more, r2 on the host clock. Reserved probes
# (hop-stamped by both routers) cross the chain:
#   - 30 us ahead (its pushes early), inside the budget: every probe on plan, but for arrivals a
#     router counted as uncertain (read after a stall longer than the guard
#     band), and no guard-band warning at r2;
#   - 120 us ahead, outside it: r2 takes r1's pushes for the frame before
#     (they land in its guard band), so they are due a frame early, in a
#     frame with no reservation for them, and are dropped as late on arrival:
#     every probe not delivered on plan is one a router dropped and counted
#     or r2 saw off its frame, and r2 says so in its log;
#   - a source with a frame tick (bc635-sim) refuses a time-offset.
# The routers' own sync is unchanged by the offset (what a source cannot
# measure it cannot report): the neighbour's arrivals show it. Bounded: every
# wait has a timeout; the namespaces go away however the test ends.
# usage: sync_budget_net.sh TDPCTL TDP_PROBE TDPD SRCDIR  (TAP)
set -uo pipefail
TDPCTL=$1
PROBE=$2
TDPD=$3
SRC=$4
COUNT=${SYNC_COUNT:-100}

. "$SRC/tests/net/netns.sh"
. "$SRC/tests/tap.sh"
net_test_begin
echo "1..10"

j() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null; }
diag() { sed 's/^/# /' <<<"$1"; }
wait_file() { for _ in $(seq 100); do [ -f "$1" ] && return 0; sleep 0.1; done; return 1; }

{
	echo "tdp-topology 1"
	echo "tf 1ms"
	echo "k 10"
	echo "guard 100us"
	echo "time ptp-sw"
	echo "host snd"
	echo "router r1 node-id 1 processing 300us"
	echo "router r2 node-id 2 processing 300us"
	echo "host rcv"
	echo "link snd:s0 r1:in rate 20Mbit/s delay 1us"
	echo "link r1:out r2:in rate 20Mbit/s delay 1us"
	echo "link r2:out rcv:r0 rate 20Mbit/s delay 1us"
	echo "flow probe from snd to rcv packets 1 size 200 frames 0 stamp match dscp 46 udp-dport 7350"
} >"$W/topo"
"$TDPCTL" plan "$W/topo" -o "$W/plan" >"$W/plan.out" 2>&1
prc=$?
ALPHA=$(sed -n 's/.*--alpha \([0-9,]*\).*/\1/p' "$W/plan.out")
SUM=$(sed -n 's/.*--frame-delay \([0-9]*\).*/\1/p' "$W/plan.out")
# 1 us of link less the pair's 40 us: one frame more, alpha one higher
check "the plan: each router's table carries its 20 us, the delay takes the pair's 40 us, the report shows the budget" \
	'[ $prc -eq 0 ] && grep -q "^sync-error 20us" "$W/plan/r1.tdp" && grep -q " alpha 3 delay 961us " "$W/plan/r2.tdp" &&
	 grep -q "^  link r1:out -> r2:in: the ends. frames may be 40.000 us apart either way; the guard band takes 80.000 us of its 100.000 us" "$W/plan.out"' \
	"$(cat "$W/plan.out" "$W/plan/r2.tdp")"
diag "$(sed -n '/^sync budget/,/^$/p' "$W/plan.out")"

# run NAME OFFSET: the chain with r1 offset by OFFSET; leaves the receiver's
# JSON, the routers' summaries and logs in $W/NAME
run() {
	local name=$1 off=$2 d=$W/$1 i pids=()
	mkdir -p "$d"
	chain_up "sb$$" 2
	for i in 1 2; do
		mkdir -p "$d/r$i"
		local extra=()
		[ "$i" = 1 ] && extra=("time-offset $off")
		chain_conf "$d/r$i/tdpd.conf" "$i" "$W/plan/r$i.tdp" "late-policy drop" "summary-json $d/r$i/sum.json" \
			"${extra[@]}"
		ip netns exec "${CH_P}r$i" "$TDPD" -f "$d/r$i/tdpd.conf" >"$d/r$i/out" 2>"$d/r$i/err" &
		pids+=($!)
		PIDS+=($!)
	done
	local up=0
	for _ in $(seq 150); do
		up=0
		for i in 1 2; do grep -q "forwarding:" "$d/r$i/err" && up=$((up + 1)); done
		[ $up -eq 2 ] && break
		sleep 0.1
	done
	ip netns exec "$CH_RCV" timeout 40 "$PROBE" recv -i r0 --port 0 --cpu 0 --no-live --duration 25s --ends 1 \
		--alpha "$ALPHA" --frame-delay "$SUM" --json "$d/rcv.json" --ready "$d/ready" >"$d/rcv.out" 2>"$d/rcv.err" &
	local rpid=$!
	wait_file "$d/ready"
	ip netns exec "$CH_SND" timeout 30 "$PROBE" send -i s0 --table "$W/plan/snd.tdp" --flow probe --stamps 2 \
		--count "$COUNT" --cpu 1 --prio 0 --timer nanosleep --late skip --start-in 300ms \
		--dst 10.7.2.2 --src 10.7.0.1 --dst-mac "$(ch_mac 0 2)" --json "$d/send.json" >"$d/send.out" 2>"$d/send.err"
	wait $rpid
	"$TDPCTL" --socket "$d/r1/tdpd-ro.sock" sync >"$d/r1/sync.txt" 2>&1
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p"; done
	chain_down
	[ $up -eq 2 ]
}

# off_plan, received, sent; the probes r2 counted in the guard band, both
# routers' uncertain arrivals, and the probes they dropped and counted
figures() {
	local d=$W/$1
	python3 - "$d" <<'PY'
import json, sys
d = sys.argv[1]
# a receiver that got none of the flow (every probe dropped on the way, as
# outside the budget they may all be) has no entry for it: 0 received
f = ([x for x in json.load(open(f"{d}/rcv.json"))["flows"] if x["flow"] == 0] or
     [{"plan": {"off_plan": 0}, "received": 0}])[0]
sent = json.load(open(f"{d}/send.json"))["sent"]
r = [[x for x in json.load(open(f"{d}/r{i}/sum.json"))["flows"] if x["name"] == "probe"][0] for i in (1, 2)]
dropped = sum(x["overflow"] + x["late_dropped"] + x["arr_late_dropped"] + x["tx_drop"] for x in r)
print(f["plan"]["off_plan"], f["received"], sent, r[1]["arr_guard"], r[0]["arr_uncertain"] + r[1]["arr_uncertain"], dropped)
PY
}

run inside 30us
rin=$?
read -r off got sent guard unc dropped < <(figures inside)
check "r1 30 us ahead, its pushes early (inside the pair's 40 us): both routers up, the receiver got the probes" \
	'[ $rin -eq 0 ] && [ "${got:-0}" -gt 0 ] && grep -q "time-offset: 30000 ns added to the system source" "$W/inside/r1/err" &&
	 grep -q "^time-offset  30000 ns" "$W/inside/r1/sync.txt"' \
	"$(cat "$W/inside/rcv.out" "$W/inside/rcv.err" "$W/inside/send.err" "$W/inside/r1/sync.txt" 2>/dev/null | tail -40)"
check "inside the budget: every probe on plan but for uncertain arrivals ($off off plan, $unc uncertain, $got received)" \
	'[ -n "$off" ] && [ "$off" -le "$unc" ]' "$(cat "$W/inside/rcv.out")"
check "inside the budget: every probe lost is one a router dropped and counted ($((sent - got)) lost, $dropped dropped)" \
	'[ $((sent - got)) -le "$dropped" ]' "$(cat "$W/inside/rcv.out")"
check "inside the budget: r2 warns of no arrival in the guard band unless it counted one ($guard)" \
	'{ [ "$guard" -eq 0 ] && ! grep -q "arrived in the guard band" "$W/inside/r2/err"; } || { [ "$guard" -gt 0 ] && grep -q "arrived in the guard band" "$W/inside/r2/err"; }' \
	"$(grep -i "guard" "$W/inside/r2/err")"
diag "inside: $sent probes sent, $got received, $off off plan; $guard in r2's guard band, $unc uncertain, $dropped dropped and counted"

run outside 120us
rout=$?
read -r off2 got2 sent2 guard2 unc2 dropped2 < <(figures outside)
check "r1 120 us ahead, its pushes early (outside the budget): both routers up, the sender sent" \
	'[ $rout -eq 0 ] && [ "${sent2:-0}" -gt 0 ]' "$(cat "$W/outside/rcv.out" 2>/dev/null | tail -30)"
# r1's pushes reach r2 80 us before its frame plus the receive latency: in
# the guard band of the frame before, for as long as that latency is under
# 80 us; each is then due a frame early, in a frame with no reservation for
# it, and is dropped as late on arrival at the flow's next reserved frame
check "outside the budget: r2 took r1's pushes for the frame before, in its guard band ($guard2 of $sent2 probes)" \
	'[ -n "$guard2" ] && [ "$sent2" -gt 0 ] && [ $((2 * guard2)) -ge "$sent2" ]' \
	"$(cat "$W/outside/rcv.out"; for i in 1 2; do j "$W/outside/r$i/sum.json" "[x for x in d[\"flows\"] if x[\"name\"] == \"probe\"]"; done)"
check "outside the budget: each probe not delivered on plan is one the routers dropped and counted ($((sent2 - got2)) lost, $dropped2 dropped) or saw off its frame ($off2 off plan, $guard2 + $unc2)" \
	'[ $((sent2 - got2)) -le "$dropped2" ] && [ "$off2" -le $((guard2 + unc2)) ]' "$(cat "$W/outside/rcv.out")"
check "outside the budget: r2 says in its log that arrivals landed in the guard band" \
	'grep -q "flow probe: [0-9]* packets\? arrived in the guard band of the upstream frame" "$W/outside/r2/err"' \
	"$(tail -20 "$W/outside/r2/err")"
diag "outside: $sent2 probes sent, $got2 received, $off2 off plan; $guard2 in r2's guard band, $unc2 uncertain, $dropped2 dropped and counted"

# a source whose frames come from a tick: no offset moves its edges
chain_up "sb$$" 2
mkdir -p "$W/tick"
chain_conf "$W/tick/tdpd.conf" 1 "$W/plan/r1.tdp" "timebase bc635-sim" "time-offset 10us"
ip netns exec "${CH_P}r1" timeout 30 "$TDPD" -f "$W/tick/tdpd.conf" >"$W/tick/out" 2>"$W/tick/err"
trc=$?
chain_down
check "a frame-tick source (bc635-sim) refuses a time-offset at start, saying why" \
	'[ $trc -ne 0 ] && [ $trc -ne 124 ] && grep -q "time-offset: timebase bc635-sim takes its frames from a tick" "$W/tick/err"' \
	"rc $trc: $(tail -5 "$W/tick/err")"
