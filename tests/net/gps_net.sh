#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The GPS path end to end without the card: tdpd on the bc635-sim timebase
# (the register-level simulator on the host clock, heartbeat at the frame
# rate), probes through it. Every frame's tick comes from the simulated card;
# the probes all arrive, each at a later frame start.
# usage: gps_net.sh TDP_PROBE TDPD SRCDIR  (TAP)
set -u
PROBE=$1
TDPD=$2
SRC=$3
. "$SRC/tests/net/netns.sh"
. "$SRC/tests/tap.sh"
net_test_begin
j() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); f=(d.get("flows") or [{}])[0]; print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null; }
echo "1..5"

net_up "gps$$"
probe_table "$W/probe.tdp"
router_conf "$W/tdpd.conf" "$W/probe.tdp" "late-policy carry" "timebase bc635-sim" "summary-json $W/sum.json"
ip netns exec "$NS_RTR" "$TDPD" -f "$W/tdpd.conf" >"$W/tdpd.out" 2>"$W/tdpd.err" &
TPID=$!
PIDS+=($TPID)
for _ in $(seq 100); do grep -q "forwarding:" "$W/tdpd.err" && break; sleep 0.1; done
check "tdpd comes up on the simulated card (a bc637: timing mode GPS), heartbeat 1 MHz / (n1 x n2) = 1 kHz" \
	'grep -q "timebase bc635-sim: bc635 simulator.*model BC637PCI, serial 123456, firmware SIM 1.0; timing mode GPS; heartbeat 1 MHz / (25 x 40) on 1PPS" "$W/tdpd.err"' \
	"$(cat "$W/tdpd.err")"
ip netns exec "$NS_RCV" timeout 60 "$PROBE" recv -i r0 --cpu 0 --no-live --duration 50s --frame-delay 1 \
	--json "$W/rcv.json" --ready "$W/rcv.ready" >"$W/rcv.out" 2>"$W/rcv.err" &
RPID=$!
PIDS+=($RPID)
for _ in $(seq 100); do [ -f "$W/rcv.ready" ] && break; sleep 0.1; done
ip netns exec "$NS_SND" "$PROBE" send -i s0 --table "$W/probe.tdp" --flow probe --count 1000 --cpu 0 --prio 0 \
	--timer nanosleep --dst 10.0.2.2 --src 10.0.1.2 --dst-mac "$MAC_RIN" >"$W/send.out" 2>"$W/send.err"
wait "$RPID"
tdpd_stop_checked
read -r got lost counted < <(python3 "$SRC/tests/net/losses.py" "$W/rcv.json" 0 probe "$W/sum.json")
check "probes through, each at a later frame start (L >= TF); every probe lost counted by tdpd ($got received, ${lost:-?} lost, ${counted:-?} counted)" \
	'[ "$(j "$W/rcv.json" "(f[\"sent\"], f[\"received\"] > 0, f[\"latency\"][\"min\"] >= f[\"tf_ns\"])")" = "(1000, True, True)" ] && [ "$lost" -le "$counted" ] && [ "$counted" -le $((lost + 3)) ]' \
	"$(cat "$W/rcv.out")"
# how many ticks came in time is the VM's business; that every frame waited on
# one, and each wait ended in a tick taken or a timeout counted, is tdpd's
# (skipped frames are not waited for; the stop signal may end the last wait)
e='d["engine"]'
check "the frames were driven by the card's ticks: each frame's wait ended in a tick or a counted timeout" \
	'[ "$(j "$W/sum.json" "$e[\"frames\"] > 1000 and $e[\"ticks\"] > 0 and d[\"tick\"][\"latency_ns\"][\"count\"] > 0 and $e[\"ticks\"] + $e[\"tick_timeouts\"] >= $e[\"frames\"] - 1")" = True ]' \
	"$(j "$W/sum.json" "d[\"engine\"], d.get(\"tick\")")"
check "the card reported locked (no flywheel, no offset flags)" \
	'[ "$(j "$W/sum.json" "d[\"sync\"][\"state\"]")" = locked ]' "$(j "$W/sum.json" "d[\"sync\"]")"
