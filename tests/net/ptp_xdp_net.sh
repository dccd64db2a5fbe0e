#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# PTP over tdpd's own links: the grandmaster in the sender's namespace, the
# free_running slave (software timestamps, nothing steps the host clock) on
# the very interface tdpd forwards on through net_af_xdp, with reserved
# probes through that interface all along:
#   - tdpd's XDP program passes PTP to the kernel: over UDP (ptp4l's default,
#     224.0.1.129 ports 319/320) the slave that tdpd follows locks; over
#     layer 2 (ethertype 0x88F7, a second pair in domain 1) a second slave
#     measures its path delay;
#   - the probes went to tdpd, none was lost uncounted, and tdpd's RX saw
#     no PTP frame;
#   - the program's counts agree: PTP passed, nothing dropped for want of a
#     socket.
# Bounded waits only; no assertion on a time.
# usage: ptp_xdp_net.sh TDP_PROBE TDPD TDPCTL SRCDIR  (TAP)
set -u
PROBE=$1
TDPD=$2
TDPCTL=$3
SRC=$4
. "$SRC/tests/net/netns.sh"
. "$SRC/tests/tap.sh"
net_test_begin ptp4l python3
j() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); f=(d.get("flows") or [{}])[0]; print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null; }
wait_log() {   # wait_log PATTERN FILE SECONDS
	for _ in $(seq $(($3 * 10))); do grep -q -- "$1" "$2" && return 0; sleep 0.1; done
	return 1
}
echo "1..7"

net_up "px$$"
cfg() {   # cfg FILE NAME [LINE...]: a ptp4l configuration
	local f=$1 n=$2
	shift 2
	{
		echo "[global]"
		echo "uds_address $W/$n.sock"
		echo "logSyncInterval -3"
		echo "logAnnounceInterval -2"
		echo "announceReceiptTimeout 3"
		for l in "$@"; do echo "$l"; done
	} >"$f"
}
cfg "$W/m.cfg" m "priority1 1"
cfg "$W/s.cfg" s "free_running 1" "slaveOnly 1"
cfg "$W/m2.cfg" m2 "priority1 1" "domainNumber 1"
cfg "$W/s2.cfg" s2 "free_running 1" "slaveOnly 1" "domainNumber 1" "summary_interval 0"

probe_table "$W/probe.tdp"
RTR_PMD=net_af_xdp router_conf "$W/tdpd.conf" "$W/probe.tdp" "late-policy carry" "timebase ptp" \
	"ptp-socket $W/s.sock" "ptp-mode offset" "ptp-poll 100ms" "sync-lock-threshold 500us" "sync-step 10ms" \
	"sync-sample-timeout 1s" "sync-holdover 2s" "sync-holdover-action serve" "sync-unlocked-action alarm" \
	"summary-json $W/sum.json"
ip netns exec "$NS_RTR" "$TDPD" -f "$W/tdpd.conf" >"$W/tdpd.out" 2>"$W/tdpd.err" &
TPID=$!
PIDS+=($TPID)
wait_log "forwarding:" "$W/tdpd.err" 20
check "tdpd forwards on net_af_xdp with its XDP program on rin, which carries 10.0.1.1" \
	'grep -q "forwarding:" "$W/tdpd.err" && ip -n "$NS_RTR" link show rin | grep -q "prog/xdp.*tdpd_xdp" &&
	 ip -n "$NS_RTR" addr show rin | grep -q "inet 10.0.1.1/24"' "$(cat "$W/tdpd.err")"

ip netns exec "$NS_RCV" timeout 120 "$PROBE" recv -i r0 --cpu 0 --no-live --duration 100s --json "$W/rcv.json" \
	--ready "$W/rcv.ready" >"$W/rcv.out" 2>"$W/rcv.err" &
RPID=$!
PIDS+=($RPID)
for _ in $(seq 100); do [ -f "$W/rcv.ready" ] && break; sleep 0.1; done
ip netns exec "$NS_SND" timeout 120 "$PROBE" send -i s0 --table "$W/probe.tdp" --flow probe --duration 100s \
	--cpu 0 --prio 0 --timer nanosleep --dst 10.0.2.2 --src 10.0.1.2 --dst-mac "$MAC_RIN" \
	>"$W/send.out" 2>"$W/send.err" &
SPID=$!
PIDS+=($SPID)
sleep 1

# the probes flow; now PTP starts on the same links
ip netns exec "$NS_SND" ptp4l -S -i s0 -f "$W/m.cfg" -m >"$W/m.log" 2>&1 &
PIDS+=($!)
ip netns exec "$NS_SND" ptp4l -2 -S -i s0 -f "$W/m2.cfg" -m >"$W/m2.log" 2>&1 &
PIDS+=($!)
ip netns exec "$NS_RTR" ptp4l -S -i rin -f "$W/s.cfg" -m >"$W/s.log" 2>&1 &
PIDS+=($!)
ip netns exec "$NS_RTR" ptp4l -2 -S -i rin -f "$W/s2.cfg" -m >"$W/s2.log" 2>&1 &
PIDS+=($!)

check "over UDP: the slave on tdpd's port hears the grandmaster, and tdpd follows it into locked" \
	'wait_log "sync: unlocked -> locked" "$W/tdpd.err" 60' "$(grep -E "sync|ptp" "$W/tdpd.err"; tail -5 "$W/s.log")"
check "over layer 2 (0x88F7, domain 1): the second slave measures a path delay through the XDP program" \
	'for _ in $(seq 300); do grep -Eq "delay +[1-9]" "$W/s2.log" && break; sleep 0.1; done; grep -Eq "delay +[1-9]" "$W/s2.log"' \
	"$(tail -5 "$W/s2.log")"
sleep 3
ports=$(ip netns exec "$NS_RTR" "$TDPCTL" --socket "$W/tdpd-ro.sock" --json ports 2>&1)
kill -INT "$SPID"
wait "$SPID"
wait "$RPID"
tdpd_stop_checked

x=$(python3 - "$ports" <<'PY'
import json, sys
p = [q for q in json.loads(sys.argv[1])["ports"] if q["name"] == "in"][0]["host_path"]["xdp"]
print(p["ptp"], p["no-socket"], p["to-tdpd"])
PY
)
read -r ptp nosock totdpd <<<"$x"
check "the program's counts on rin: PTP passed to the kernel ($ptp), none dropped for want of a socket, the probes to tdpd ($totdpd)" \
	'[ "${ptp:-0}" -gt 0 ] && [ "$nosock" = 0 ] && [ "${totdpd:-0}" -gt 1000 ]' "$ports"
read -r got lost counted < <(python3 "$SRC/tests/net/losses.py" "$W/rcv.json" 0 probe "$W/sum.json")
check "reserved probes through the same port all along: $got received, ${lost:-?} lost, ${counted:-?} counted by tdpd" \
	'[ "$(j "$W/rcv.json" "f[\"sent\"] > 1000 and f[\"received\"] > 1000")" = True ] && [ "$lost" -le "$counted" ] &&
	 [ "$counted" -le $((lost + 3)) ]' "$(cat "$W/rcv.out" "$W/send.err")"
check "tdpd's RX saw none of the host's frames and no unroutable packet, and its driver missed none: the program kept PTP to the kernel" \
	'[ "$(j "$W/sum.json" "sum(d[\"rx\"][\"host\"].values()), d[\"rx\"][\"drop\"][\"host\"], d[\"rx\"][\"drop\"][\"no-route\"], d[\"driver\"][\"in\"][\"missed\"]")" = "(0, 0, 0, 0)" ]' \
	"$(j "$W/sum.json" "d[\"rx\"]")"
