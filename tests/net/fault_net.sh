#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The fault matrix: tdpd on af_packet ports in namespaces, reserved probes and
# best effort flowing, and one fault per phase. Each phase is held to exact
# accounting: every datagram a sender sent is either received or counted by
# tdpd under one reason, and what tdpd says it sent is what arrived.
#   - tdpd stopped (SIGSTOP) for 300 frames, then continued;
#   - the output port's link down for 0.5 s under traffic, then up;
#   - a table loaded while that link is down: in force only once adopted,
#     and traffic goes by it after the link comes back;
#   - a soak under a best-effort flood: tdpd's memory stays flat
#     (SOAK_S seconds, 8 by default; the long form sets SOAK_S=3600);
#   - the summary file's disk full at the stop: exit 1, said so, nothing
#     half-written, the counters still in the text;
#   - SIGKILL, then a restart on the same sockets: nothing stale blocks it.
# ptp4l killed and restarted is in ptp_net; 1,000 and slow control clients
# are in control_net. Bounded waits only; no assertion on a time.
# usage: fault_net.sh TDPD TDPCTL SRCDIR  (TAP)
set -uo pipefail
TDPD=$1
CTL=$2
SRC=$3
GEN=$SRC/tools/tdp-gen
SOAK_S=${SOAK_S:-8}

. "$SRC/tests/net/netns.sh"
net_test_begin
. "$SRC/tests/tap.sh"
net_cleanup() { mountpoint -q "$W/full" 2>/dev/null && umount "$W/full"; }
echo "1..12"

net_up "flt$$"
router_conf "$W/tdpd.conf" "$SRC/schedules/examples/demo.tdp" "late-policy drop"
start() { # start CONF LOG
	ip netns exec "$NS_RTR" "$TDPD" -f "$1" >"$2.out" 2>"$2.err" &
	PID=$!
	PIDS+=($PID)
	for _ in $(seq 150); do grep -q "forwarding:" "$2.err" && return 0; sleep 0.1; done
	return 1
}
check "tdpd comes up" 'start "$W/tdpd.conf" "$W/t1"' "$(cat "$W/t1.err")"
stats() { "$CTL" --socket "$W/tdpd.sock" --json stats >"$1" 2>"$1.err"; }

# phase NAME ACTION...: a receiver, 600 probes (reserved) and 600 best-effort
# datagrams at 400/s each, ACTION once they flow, the counters before and after
phase() {
	local n=$1
	shift
	stats "$W/$n.before.json"
	ip netns exec "$NS_RCV" timeout 60 "$GEN" recv --ports 5000,6000 --seconds 6 --ready "$W/$n.ready" \
		--json "$W/$n.rcv.json" >/dev/null 2>"$W/$n.rcv.err" &
	local rcv=$!
	for _ in $(seq 100); do [ -f "$W/$n.ready" ] && break; sleep 0.1; done
	ip netns exec "$NS_SND" "$GEN" send --dst 10.0.2.2 --port 5000 --dscp 46 --count 600 --pps 400 >/dev/null 2>&1 &
	local s1=$!
	ip netns exec "$NS_SND" "$GEN" send --dst 10.0.2.2 --port 6000 --size 600 --count 600 --pps 400 >/dev/null 2>&1 &
	local s2=$!
	sleep 0.5
	"$@"
	wait $s1 $s2
	sleep 0.5 # the last frames go out
	stats "$W/$n.after.json"
	wait $rcv
}
# books NAME: the accounting of a phase, "ok" or what does not add up
books() {
	python3 - "$W/$1.before.json" "$W/$1.after.json" "$W/$1.rcv.json" 600 <<'PY'
import json, sys
def load(p):
    d = json.load(open(p))
    return d.get("result", d)
a, b = load(sys.argv[1]), load(sys.argv[2])
r = json.load(open(sys.argv[3]))["ports"]
n = int(sys.argv[4])
def delta(get):
    return get(b) - get(a)
fl = lambda k: delta(lambda d: next(f for f in d["flows"] if f["name"] == "probe")[k])
po = lambda k: delta(lambda d: next(p for p in d["ports"] if p["name"] == "out")[k])
rxd = lambda k: delta(lambda d: d["rx"]["drop"][k])
drv = lambda port, k: delta(lambda d: d.get("driver", {}).get(port, {}).get(k, 0))  # at the stop only
got = lambda p: r.get(p, {}).get("received", 0)
bad = []
# reserved: sent by the host = taken into the flow's queue + overflow + lost
# at the port; taken = sent in its frame (or demoted) + counted not sent;
# sent = received
rxlost = drv("in", "missed") + drv("in", "no_mbuf")
notsent = fl("late_dropped") + fl("tx_drop") + fl("arr_late_dropped")
if fl("rx") + fl("overflow") + fl("link_down") + rxlost != n:
    bad.append("probe: %d sent, %d taken + %d overflow + %d link down + %d lost at RX" % (
        n, fl("rx"), fl("overflow"), fl("link_down"), rxlost))
if fl("rx") != fl("sent") + fl("demoted") + notsent:
    bad.append("probe: %d taken != %d sent + %d demoted + %d counted" % (fl("rx"), fl("sent"), fl("demoted"), notsent))
if got("5000") != fl("sent") + fl("demoted"):
    bad.append("probe: %d received, %d sent" % (got("5000"), fl("sent") + fl("demoted")))
# best effort: sent by the host = sent by tdpd + counted; sent = received
be_counted = po("be_tx_drop") + po("be_too_big") + rxd("be-overflow") + rxd("tx-full") + rxd("link-down") - fl("link_down")
if po("be_pkts") + be_counted + drv("in", "missed") != n:
    bad.append("best effort: %d sent, %d forwarded + %d counted" % (n, po("be_pkts"), be_counted))
if got("6000") != po("be_pkts"):
    bad.append("best effort: %d received, %d forwarded" % (got("6000"), po("be_pkts")))
print("ok" if not bad else "; ".join(bad))
print("late frames %d, skipped %d, probes late-dropped %d, best effort counted %d" % (
    delta(lambda d: d["engine"]["late_frames"]), delta(lambda d: d["engine"]["skipped_frames"]),
    fl("late_dropped"), be_counted))
PY
}
eng() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d=d.get('result',d); print(d['engine'][sys.argv[2]])" "$@"; }

phase base true
b=$(books base)
check "no fault: the books balance ($(tail -1 <<<"$b"))" '[ "$(head -1 <<<"$b")" = ok ]' "$b"

pause() { kill -STOP "$PID"; sleep 0.3; kill -CONT "$PID"; }
phase stop pause
b=$(books stop)
check "SIGSTOP for 300 frames, then SIGCONT: tdpd goes on and the books balance ($(tail -1 <<<"$b"))" \
	'kill -0 "$PID" && [ "$(head -1 <<<"$b")" = ok ]' "$b"
check "the stop is in the engine's counters: late or skipped frames" \
	'[ $(( $(eng "$W/stop.after.json" late_frames) - $(eng "$W/stop.before.json" late_frames) )) -gt 0 ]' \
	"$(cat "$W/stop.after.json" | head -c 600)"

flap() { ip -n "$NS_RCV" link set r0 down; sleep 0.5; ip -n "$NS_RCV" link set r0 up; }
phase flap flap
b=$(books flap)
check "the output link down for 0.5 s under traffic, then up: the books balance ($(tail -1 <<<"$b"))" \
	'kill -0 "$PID" && [ "$(head -1 <<<"$b")" = ok ]' "$b"

# a table with four probes in frame 0 (and the bulk flow as before), loaded
# while the output link is down
sed 's/^frames 0-9: probe 1 .*/frames 0-9: probe 1\nframes 0: probe 3/' "$SRC/schedules/examples/demo.tdp" >"$W/more.tdp"
ip -n "$NS_RCV" link set r0 down
"$CTL" --socket "$W/tdpd.sock" schedule load "$W/more.tdp" >"$W/load.out" 2>&1
lrc=$?
"$CTL" --socket "$W/tdpd.sock" --json schedule active >"$W/active.json" 2>&1
ip -n "$NS_RCV" link set r0 up
check "a table loaded while the link is down: in force once adopted, and said so" \
	'[ $lrc -eq 0 ] && grep -q "more.tdp" "$W/active.json" && grep -q "in force from frame" "$W/load.out"' \
	"$(cat "$W/load.out" "$W/active.json")"
phase more true
b=$(books more)
check "after the link is back, traffic goes by the new table and the books balance ($(tail -1 <<<"$b"))" \
	'[ "$(head -1 <<<"$b")" = ok ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d=d.get(\"result\",d); sys.exit(not d[\"table\"].endswith(\"more.tdp\"))" "$W/more.after.json"' \
	"$b $(head -c 300 "$W/more.after.json")"

# soak: best effort at 20,000/s; tdpd's resident memory sampled every second
rss() { awk '/^VmRSS/ {print $2}' "/proc/$PID/status"; }
ip netns exec "$NS_SND" timeout $((SOAK_S + 30)) "$GEN" send --dst 10.0.2.2 --port 6001 --size 200 \
	--count $((SOAK_S * 20000)) --pps 20000 >/dev/null 2>&1 &
FL=$!
sleep 2
r0=$(rss)
rmax=$r0
for _ in $(seq "$SOAK_S"); do
	kill -0 "$FL" 2>/dev/null || break
	sleep 1
	r=$(rss)
	[ "$r" -gt "$rmax" ] && rmax=$r
done
wait $FL
check "soak: a best-effort flood for ${SOAK_S} s, tdpd's memory flat (${r0} kB after 2 s, at most ${rmax} kB)" \
	'[ $((rmax - r0)) -le 1024 ]' "rss ${r0} -> max ${rmax} kB"

# the summary file's disk full: a tmpfs of 16 kB, filled
mkdir -p "$W/full"
mount -t tmpfs -o size=16k tmpfs "$W/full"
dd if=/dev/zero of="$W/full/fill" bs=1k count=64 2>/dev/null
# (this run also takes the quantile predictor: the summary names it)
router_conf "$W/tdpd2.conf" "$SRC/schedules/examples/demo.tdp" "late-policy drop" "summary-json $W/full/sum.json" \
	"wake-predictor quantile" "wake-miss-target 1e-3"
kill -TERM "$PID"
wait "$PID"
start "$W/tdpd2.conf" "$W/t2"
kill -TERM "$PID"
rc=0
wait "$PID" || rc=$?
check "the summary file's disk full: exit 1, said so, nothing half-written, the counters in the text" \
	'[ $rc -eq 1 ] && grep -q "summary-json $W/full/sum.json: No space left on device" "$W/t2.err" &&
	 [ ! -e "$W/full/sum.json" ] && [ ! -e "$W/full/sum.json.tmp" ] && grep -q "^frames " "$W/t2.out"' \
	"exit $rc; $(tail -3 "$W/t2.err"; ls "$W/full")"
check "wake-predictor quantile is the engine's: the summary says so" \
	'grep -q "^wait .* predicted oversleep [0-9]* ns (quantile for 0.001)" "$W/t2.out"' "$(grep "^wait" "$W/t2.out")"

start "$W/tdpd.conf" "$W/t3"
kill -KILL "$PID"
wait "$PID" 2>/dev/null
check "SIGKILL, then a restart on the same configuration comes up and answers" \
	'start "$W/tdpd.conf" "$W/t4" && "$CTL" --socket "$W/tdpd.sock" status >/dev/null' "$(tail -5 "$W/t4.err")"
kill -TERM "$PID"
rc=0
wait "$PID" || rc=$?
check "and stops cleanly" '[ $rc -eq 0 ]' "exit $rc; $(tail -3 "$W/t4.err")"
