#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The exception interface a PCI port gets, on real parts: router R1's ports
# are af_xdp with host-path tap, so the PMD's own XDP program takes every
# frame from the veth (as a NIC bound to DPDK takes them from the kernel) and
# the router's host stack lives on the TAPs tdpd creates, tdp-in and tdp-out.
# R2 is an ordinary af_xdp router.
#
#   snd s0 10.7.0.1 ── in R1 out ── in R2 out ── r0 10.7.2.2 rcv
#                      .0.2  .1.1    .1.2  .2.1
#
# No static neighbour anywhere. arping and ping answer from R1's kernel
# through its TAPs, with the port's MAC; tdpd sends Net Unreachable until
# `ip route add` on the TAP's prefix carries traffic; traceroute shows both
# routers; ptp4l over layer 2 runs between R2's port and R1's exception
# interface; the counts agree; a SIGKILL takes the TAPs with it and the next
# start clears the XDP program it left; a clean stop leaves nothing.
# Bounded in time and count.
# usage: tap_net.sh TDPD TDPCTL SRCDIR  (TAP)
set -uo pipefail
TDPD=$1
TDPCTL=$2
SRC=$3

. "$SRC/tests/net/netns.sh"
net_test_begin ping arping traceroute ptp4l python3

. "$SRC/tests/tap.sh"
echo "1..12"

xdp_pair_up "tx$$"
xdp_pair_conf "$W/r1/tdpd.conf" 10.7.0.2/24 10.7.1.1/24 "mbufs 8191"
sed -i '/^device net_af_xdp/a host-path tap' "$W/r1/tdpd.conf"
xdp_pair_conf "$W/r2/tdpd.conf" 10.7.1.2/24 10.7.2.1/24 "mbufs 8191"
xdp_pair_start 1
xdp_pair_start 2
mac_in=$(ip -n "$R1" link show in | awk '/link\/ether/ {print $2}')
mac_out=$(ip -n "$R1" link show out | awk '/link\/ether/ {print $2}')
links=$(ip -n "$R1" link show)
a_in=$(ip -n "$R1" addr show tdp-in)
a_out=$(ip -n "$R1" addr show tdp-out)
check "R1 up: tdp-in and tdp-out carry the ports' MACs and addresses; the veths carry the PMD's program, not tdpd's" \
	'grep -q "forwarding:" "$W/r1/err" && grep -q "forwarding:" "$W/r2/err" &&
	 grep -q "link/ether $mac_in " <<<"$a_in" && grep -q "inet 10.7.0.2/24" <<<"$a_in" &&
	 grep -q "link/ether $mac_out " <<<"$a_out" && grep -q "inet 10.7.1.1/24" <<<"$a_out" &&
	 [ "$(grep -c "prog/xdp.*name xsk_def_prog" <<<"$links")" = 2 ]' \
	"$links; $a_in; $a_out; $(cat "$W/r1/err"; tail -3 "$W/r2/err")"

xdp_pair_host_checks "$mac_in" tdp-in
out=$(xdp_pair_ctl 1 routes; xdp_pair_ctl 1 neighbours)
check "tdpctl on R1: the kernel's route on tdp-out is port out's, its next hop resolved by ARP through the TAP" \
	'grep -Eq "^10.7.2.0/24 +out +10.7.1.2 +kernel" <<<"$out" && grep -Eq "^10.7.1.2 .* out +kernel$" <<<"$out"' "$out"
out=$(ip netns exec "$SND" traceroute -n -q 1 -N 1 -w 2 -m 3 10.7.2.2 2>&1)
check "traceroute shows both routers and the receiver" \
	'grep -Eq "^ 1  10.7.0.2 " <<<"$out" && grep -Eq "^ 2  10.7.1.2 " <<<"$out" && grep -Eq "^ 3  10.7.2.2 " <<<"$out"' "$out"

# PTP over layer 2: R2's kernel on its af_xdp port (tdpd's program passes
# 0x88F7) is the master, R1's kernel on its exception interface the slave.
# Beside it, as the baseline in the same run, a pair across R2's other
# port, whose kernel gets PTP straight from tdpd's XDP program.
cfg() {   # cfg FILE NAME [LINE...]
	local f=$1 n=$2
	shift 2
	printf '[global]\nuds_address %s\nlogSyncInterval -3\nlogAnnounceInterval -2\nannounceReceiptTimeout 3\n' \
		"$W/$n.sock" >"$f"
	for l in "$@"; do echo "$l" >>"$f"; done
}
cfg "$W/m.cfg" m "priority1 1"
cfg "$W/s.cfg" s "free_running 1" "slaveOnly 1" "summary_interval 0"
ip netns exec "$R2" timeout 60 ptp4l -2 -S -i in -f "$W/m.cfg" -m >"$W/m.log" 2>&1 &
PIDS+=($!)
ip netns exec "$R1" timeout 60 ptp4l -2 -S -i tdp-out -f "$W/s.cfg" -m >"$W/s.log" 2>&1 &
PTPS=$!
PIDS+=($PTPS)
cfg "$W/m2.cfg" m2 "priority1 1"
cfg "$W/s2.cfg" s2 "free_running 1" "slaveOnly 1" "summary_interval 0"
ip netns exec "$RCV" timeout 60 ptp4l -2 -S -i r0 -f "$W/m2.cfg" -m >"$W/m2.log" 2>&1 &
PIDS+=($!)
ip netns exec "$R2" timeout 60 ptp4l -2 -S -i out -f "$W/s2.cfg" -m >"$W/s2.log" 2>&1 &
PTPS2=$!
PIDS+=($PTPS2)
for _ in $(seq 300); do grep -Eq "delay +[1-9]" "$W/s.log" && grep -Eq "delay +[1-9]" "$W/s2.log" && break; sleep 0.1; done
kill "$PTPS" "$PTPS2" 2>/dev/null
check "ptp4l on R1's exception interface hears R2's master over layer 2 and measures the path delay" \
	'grep -q "UNCALIBRATED to SLAVE\|LISTENING to UNCALIBRATED" "$W/s.log" && grep -Eq "delay +[1-9]" "$W/s.log"' \
	"$(tail -5 "$W/s.log")"
delays() { grep -Eo "delay +[0-9]+ \+/- +[0-9]+" "$1" | awk '{print $2 " +/- " $4}' | tail -3 | tr '\n' ' '; }
echo "# ptp4l mean path delay (ns): through R1's exception interface $(delays "$W/s.log"); baseline, R2's XDP-passed port $(delays "$W/s2.log")"

json=$(xdp_pair_ctl 1 --json ports)
read -r tk tkd fk fkd < <(python3 - "$json" <<'PY'
import json, sys
e = [p for p in json.loads(sys.argv[1])["ports"] if p["name"] == "in"][0]["host_path"]["exception"]
print(e["to_kernel"], e["to_kernel_drop"], e["from_kernel"], e["from_kernel_drop"])
PY
)
check "tdpctl ports: the exception interface's counts (to the kernel $tk, from it $fk), none refused or dropped; the veth's own kernel saw nothing" \
	'[ "${tk:-0}" -ge 6 ] && [ "${fk:-0}" -ge 6 ] && [ "$tkd" = 0 ] && [ "$fkd" = 0 ] &&
	 [ -z "$(ip -n "$R1" neigh show dev in)" ] && [ -n "$(ip -n "$R1" neigh show dev tdp-in)" ]' \
	"$json; $(ip -n "$R1" neigh)"

pkill -KILL -P "$PID1"   # its guard too, which would release the port
kill -KILL "$PID1"
wait "$PID1" 2>/dev/null
left=$(ip -n "$R1" link show)
xdp_pair_start 1
ip -n "$R1" route add 10.7.2.0/24 via 10.7.1.2
out=$(ip netns exec "$SND" ping -c 3 -i 0.2 -W 1 10.7.0.2 2>&1)
check "after SIGKILL the TAPs are gone with tdpd; the next start clears the program it left and answers ping" \
	'! grep -q "tdp-in" <<<"$left" && grep -q "xsk_def_prog" <<<"$left" &&
	 grep -q "removed XDP program .xsk_def_prog." "$W/r1/err" && grep -q "3 received" <<<"$out"' \
	"$left; $(grep -i "xdp\|tap" "$W/r1/err"); $out"

kill -TERM "$PID1"
wait "$PID1"
rc=$?
check "a clean stop: exit 0, the summary counts the TAP, and neither TAP nor XDP program is left" \
	'[ $rc -eq 0 ] && grep -Eq "^tap +in on tdp-in: to the kernel [1-9]" "$W/r1/out" &&
	 ! grep -q "tdp-\|prog/xdp" <<<"$(ip -n "$R1" link show)"' "rc $rc; $(cat "$W/r1/out"); $(ip -n "$R1" link show)"
kill -TERM "$PID2"
wait "$PID2"
check "R2 stops with exit 0" '[ $? -eq 0 ]' "$(tail -5 "$W/r2/err")"
