#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The main job: a TDP router in a network namespace between a sender host and
# a receiver host, all joined by veth pairs. tdpd forwards on DPDK af_xdp
# ports (af_packet where its XDP program was not built) by the example table (schedules/examples/demo.tdp, TF 1 ms, k 10)
# with the system clock as its time reference; the router's kernel answers
# ping and ARP behind tdpd's XDP program; the sender sends the two
# reserved flows and a best-effort flood through it. At the end: tdpd's own
# counters and frame-start error, and what the receiver got. Everything is
# torn down at the end, on failure and on Ctrl-C. Files go to build/demo/.
# usage: tools/demo.sh BUILDDIR [SECONDS [TIMEBASE]]   (TIMEBASE: system, or bc635-sim for the
# whole GPS path on the simulated card)
set -euo pipefail
B=$(cd "$1" && pwd)
SECS=${2:-5}
TB=${3:-system}
case $TB in system | bc635-sim) ;; *) echo "demo: TIMEBASE is system or bc635-sim, not $TB" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.."
SRC=$(pwd)
OUT=$SRC/build/demo
TABLE=$SRC/schedules/examples/demo.tdp
GEN=$SRC/tools/tdp-gen
mkdir -p "$OUT"
rm -f "$OUT"/summary.json "$OUT"/received.json "$OUT"/ready
say() { printf '\n\033[1m--- %s\033[0m\n' "$*"; }

. "$SRC/tests/net/netns.sh"
TDPD_PID=
cleanup() {
	trap - EXIT INT TERM
	if [ -n "$TDPD_PID" ] && kill -0 "$TDPD_PID" 2>/dev/null; then
		kill -INT "$TDPD_PID" 2>/dev/null || true
		sleep 1
		kill -9 "$TDPD_PID" 2>/dev/null || true
	fi
	net_down
}
trap cleanup EXIT
trap 'echo "demo: interrupted, cleaning up"; exit 130' INT TERM

say "1. the table: one probe packet every 1 ms frame, four bulk packets every other frame"
"$B/tools/tdpctl" schedule show "$TABLE"

say "2. three namespaces: sender 10.0.1.2 -- [rin  tdpd  rout] -- receiver 10.0.2.2"
net_down 2>/dev/null || true
net_up tdpdemo
# af_xdp keeps the kernel's interface, with tdpd's XDP program choosing per
# frame; af_packet when the program was not built (no clang)
PMD=net_af_packet
[ -f "$B/daemon/hostpath/tdpd_xdp.o" ] && PMD=net_af_xdp
RTR_PMD=$PMD router_conf "$OUT/tdpd.conf" "$TABLE" "stats-interval 1s" "summary-json $OUT/summary.json" \
	"engine-priority 80" "late-policy drop" "timebase $TB"
sed -n '1,20p' "$OUT/tdpd.conf"

say "3. tdpd in the router namespace ($PMD vdevs on rin and rout)"
ip netns exec "$NS_RTR" "$B/daemon/tdpd" -f "$OUT/tdpd.conf" >"$OUT/tdpd.out" 2> >(tee "$OUT/tdpd.log" >&2) &
TDPD_PID=$!
for _ in $(seq 100); do grep -q "forwarding:" "$OUT/tdpd.log" 2>/dev/null && break; sleep 0.1; done
grep -q "forwarding:" "$OUT/tdpd.log" || { echo "demo: tdpd did not come up"; exit 1; }

say "3b. the router's own address answers: its kernel, beside tdpd"
ip netns exec "$NS_SND" ping -c 3 -i 0.2 -W 1 10.0.1.1 || echo "demo: the router did not answer ping"
"$B/tools/tdpctl" --socket "$OUT/tdpd-ro.sock" ports | grep -E "host path|XDP program" || true

say "4. ${SECS} s of traffic: probe 500 pps, bulk 1000 pps (1000 B), best effort 2000 pps (1200 B)"
ip netns exec "$NS_RCV" "$GEN" recv --ports 5000,5001,6000 --seconds $((SECS + 5)) --idle 1 --tf 1ms --k 10 \
	--ready "$OUT/ready" --json "$OUT/received.json" >/dev/null &
RCV=$!
for _ in $(seq 50); do [ -f "$OUT/ready" ] && break; sleep 0.1; done
ip netns exec "$NS_SND" "$GEN" send --dst 10.0.2.2 --port 5000 --dscp 46 --count $((SECS * 500)) --pps 500 >"$OUT/sent-probe.json" &
S1=$!
ip netns exec "$NS_SND" "$GEN" send --dst 10.0.2.2 --port 5001 --dscp 34 --size 1000 --count $((SECS * 1000)) --pps 1000 >"$OUT/sent-bulk.json" &
S2=$!
ip netns exec "$NS_SND" "$GEN" send --dst 10.0.2.2 --port 6000 --size 1200 --count $((SECS * 2000)) --pps 2000 >"$OUT/sent-be.json" &
S3=$!
wait $S1 $S2 $S3 || true
wait "$RCV" || true
kill -INT "$TDPD_PID"
wait "$TDPD_PID" || true
TDPD_PID=

say "5. tdpd's counters (stopped with SIGINT)"
cat "$OUT/tdpd.out"

say "6. what the receiver got"
python3 - "$OUT" <<'PY'
import json, sys, os
out = sys.argv[1]
rcv = json.load(open(os.path.join(out, "received.json")))["ports"]
names = {"5000": ("probe", "sent-probe.json"), "5001": ("bulk", "sent-bulk.json"), "6000": ("best effort", "sent-be.json")}
print(f"{'flow':12} {'sent':>7} {'received':>9} {'lost':>6} {'TTL':>5}  arrivals by frame of the cycle")
for port, (name, f) in names.items():
    sent = json.load(open(os.path.join(out, f)))["sent"]
    r = rcv.get(port, {})
    ttl = ",".join(sorted(r.get("ttl", {})))
    tfc = r.get("tfc", {})
    hist = " ".join(f"{k}:{tfc.get(str(k), 0)}" for k in range(10))
    print(f"{name:12} {sent:7} {r.get('received', 0):9} {r.get('lost', 0):6} {ttl:>5}  {hist}")
PY
printf '\nThe counters are in %s/summary.json; tdpd.conf and its log are next to them.\n' "$OUT"
