#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The ptp timebase against real ptp4l: a grandmaster in the sender's namespace
# and a free_running slave in the router's, over a veth pair of their own, with
# software timestamps (nothing steps the host clock). tdpd runs the ptp source
# in offset mode and forwards probes all along:
#   - the slave's Delay_Req are dropped at first (nftables), so it hears Sync
#     but gets no Delay_Resp: ptp4l reports offset 0 and meanPathDelay 0, and
#     tdpd must not call that locked;
#   - with them let through (and an address), it follows the slave's offset
#     into locked;
#   - the master stopped: holdover, then unlocked when the budget is spent,
#     with the alarms in the log and the frames counted per state;
#   - the master back: locked again;
#   - the slave ptp4l killed (tdpd's source gone): not locked; restarted on
#     the same socket: locked again;
#   - forwarding never stopped (sync-unlocked-action alarm): no probe lost;
#   - unlocked, the uncertainty grows past the table's sync budget (a
#     quarter of its 20 us guard band): an alarm, frames counted over it.
# Bounded waits only; no assertion on a time.
# usage: ptp_net.sh TDP_PROBE TDPD SRCDIR  (TAP)
set -u
PROBE=$1
TDPD=$2
SRC=$3
. "$SRC/tests/net/netns.sh"
. "$SRC/tests/tap.sh"
net_test_begin ptp4l
j() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); f=(d.get("flows") or [{}])[0]; print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null; }
# wait_log PATTERN SECONDS: until tdpd's log has it
wait_log() { wait_count "$1" 1 "$2"; }
# wait_count PATTERN N SECONDS: until tdpd's log has N lines with it
wait_count() {
	for _ in $(seq $(($3 * 10))); do [ "$(grep -c -- "$1" "$W/tdpd.err")" -ge "$2" ] && return 0; sleep 0.1; done
	return 1
}
echo "1..13"

net_up "ptp$$"
ip -n "$NS_SND" link add pm type veth peer name ps netns "$NS_RTR"
ip -n "$NS_SND" addr add 10.9.0.1/24 dev pm
ip -n "$NS_SND" link set pm up
ip -n "$NS_RTR" link set ps up
# the slave's Delay_Req dropped on the way out, so ptp4l measures no path
# delay until the rule goes (the namespace has tdpd's port addresses, from
# which the kernel would source them)
ip netns exec "$NS_RTR" nft -f - <<'NFT'
table inet ptpblock {
	chain out { type filter hook output priority 0; oifname "ps" udp dport 319 drop; }
}
NFT
cat >"$W/m.cfg" <<EOF2
[global]
uds_address $W/m.sock
priority1 1
logSyncInterval -3
logAnnounceInterval -2
EOF2
cat >"$W/s.cfg" <<EOF2
[global]
uds_address $W/s.sock
free_running 1
slaveOnly 1
logSyncInterval -3
logAnnounceInterval -2
announceReceiptTimeout 3
EOF2
master() {
	ip netns exec "$NS_SND" ptp4l -S -i pm -f "$W/m.cfg" -m >>"$W/m.log" 2>&1 &
	MPID=$!
	PIDS+=($MPID)
}
master
slave() {
	ip netns exec "$NS_RTR" ptp4l -S -i ps -f "$W/s.cfg" -m >>"$W/s.log" 2>&1 &
	SLPID=$!
	PIDS+=($SLPID)
}
slave

probe_table "$W/probe.tdp"
router_conf "$W/tdpd.conf" "$W/probe.tdp" "late-policy carry" "timebase ptp" "ptp-socket $W/s.sock" \
	"ptp-mode offset" "ptp-poll 100ms" "sync-lock-threshold 500us" "sync-step 10ms" "sync-sample-timeout 1s" \
	"sync-holdover 2s" "sync-holdover-action serve" "sync-unlocked-action alarm" "summary-json $W/sum.json"
ip netns exec "$NS_RTR" "$TDPD" -f "$W/tdpd.conf" >"$W/tdpd.out" 2>"$W/tdpd.err" &
TPID=$!
PIDS+=($TPID)
wait_log "forwarding:" 10
check "tdpd comes up on the ptp timebase" 'grep -q "timebase ptp: ptp4l at $W/s.sock" "$W/tdpd.err"' "$(cat "$W/tdpd.err")"

check "no path delay measured (the slave's Delay_Req dropped): tdpd says so and does not lock" \
	'wait_log "not a sample of lock: ptp4l has measured no path delay" 30 && sleep 3 && ! grep -q "sync: unlocked -> locked" "$W/tdpd.err"' \
	"$(cat "$W/tdpd.err"; tail -5 "$W/s.log")"
ip netns exec "$NS_RTR" nft delete table inet ptpblock
ip -n "$NS_RTR" addr add 10.9.0.2/24 dev ps
check "tdpd follows the free_running slave into locked" 'wait_log "sync: unlocked -> locked" 40' \
	"$(cat "$W/tdpd.err"; tail -5 "$W/s.log")"
check "ptp4l's port is UNCALIBRATED, not SLAVE, and that is enough" \
	'grep -q "ptp4l port 1 is UNCALIBRATED" "$W/tdpd.err" && ! grep -q "ptp4l port 1 is SLAVE" "$W/tdpd.err"' \
	"$(grep ptp "$W/tdpd.err")"

ip netns exec "$NS_RCV" timeout 90 "$PROBE" recv -i r0 --cpu 0 --no-live --duration 80s --json "$W/rcv.json" \
	--ready "$W/rcv.ready" >"$W/rcv.out" 2>"$W/rcv.err" &
RPID=$!
PIDS+=($RPID)
for _ in $(seq 100); do [ -f "$W/rcv.ready" ] && break; sleep 0.1; done
ip netns exec "$NS_SND" timeout 90 "$PROBE" send -i s0 --table "$W/probe.tdp" --flow probe --duration 80s --cpu 0 \
	--prio 0 --timer nanosleep --dst 10.0.2.2 --src 10.0.1.2 --dst-mac "$MAC_RIN" >"$W/send.out" 2>"$W/send.err" &
SPID=$!
PIDS+=($SPID)
sleep 1

kill -TERM "$MPID"
wait "$MPID" 2>/dev/null
check "the master stopped: holdover" 'wait_log "sync: locked -> holdover" 20' "$(tail -5 "$W/tdpd.err")"
check "then unlocked when the 2 s budget is spent, with an alarm" \
	'wait_log "sync: holdover -> unlocked" 20 && grep "holdover -> unlocked" "$W/tdpd.err" | grep -q "ALARM: still serving"' \
	"$(tail -5 "$W/tdpd.err")"
sleep 1
master
check "the master back: locked again" 'wait_count "sync: unlocked -> locked" 2 40' \
	"$(tail -8 "$W/tdpd.err")"
# the ptp4l tdpd asks, killed: no answers on its socket is no evidence of lock
kill -KILL "$SLPID"
wait "$SLPID" 2>/dev/null
check "ptp4l killed: tdpd leaves locked, and is not locked while it is gone" \
	'wait_count "sync: locked -> holdover" 2 20 && sleep 3 && [ "$(grep -c "sync: [a-z]* -> locked" "$W/tdpd.err")" -eq 2 ]' \
	"$(tail -8 "$W/tdpd.err")"
slave
check "ptp4l restarted on the same socket: locked again" 'wait_count "sync: [a-z]* -> locked" 3 60' \
	"$(tail -8 "$W/tdpd.err"; tail -5 "$W/s.log")"
sleep 1
kill -INT "$SPID"
wait "$SPID"
wait "$RPID"
tdpd_stop_checked
read -r got lost counted < <(python3 "$SRC/tests/net/losses.py" "$W/rcv.json" 0 probe "$W/sum.json")
check "forwarding went on through holdover and unlocked; every probe lost counted by tdpd ($got received, ${lost:-?} lost, ${counted:-?} counted)" \
	'[ "$(j "$W/rcv.json" "f[\"sent\"] > 1000 and f[\"received\"] > 0")" = True ] && [ "$lost" -le "$counted" ] && [ "$counted" -le $((lost + 3)) ]' \
	"$(cat "$W/rcv.out" "$W/send.err")"
check "the counters saw each state: frames in holdover and unlocked, alarm frames, transitions" \
	'[ "$(j "$W/sum.json" "(d[\"engine\"][\"holdover_frames\"] > 0, d[\"engine\"][\"unlocked_frames\"] > 0, d[\"engine\"][\"alarm_frames\"] == d[\"engine\"][\"unlocked_frames\"], d[\"sync\"][\"transitions\"] >= 6, d[\"sync\"][\"faults\"] > 0, d[\"sync\"][\"state\"])")" = "(True, True, True, True, True, '"'locked'"')" ]' \
	"$(j "$W/sum.json" "d[\"sync\"], d[\"engine\"]")"
check "the uncertainty grown past the sync budget while unlocked: an alarm in the log, frames counted over budget" \
	'grep -q "ALARM: sync: uncertainty [0-9]* ns is past the sync budget, 5000 ns (a quarter of the table.s 20000 ns guard band)" "$W/tdpd.err" &&
	 [ "$(j "$W/sum.json" "d[\"engine\"][\"over_budget_frames\"] > 0")" = True ]' \
	"$(grep "sync" "$W/tdpd.err" | tail -8; j "$W/sum.json" "d[\"engine\"]")"
