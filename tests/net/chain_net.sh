#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Pipeline forwarding through a chain of N tdpd routers in network namespaces
# (DPDK af_packet ports), planned by tdpctl plan and put in force on every
# router by one tdpctl deploy (after a deploy one router refuses, which must
# leave every router on its old table). Reserved probes (one per 10 ms cycle,
# 200 bytes, hop-stamped by every router) cross the chain beside best-effort
# probes and a best-effort flood at 90 % of each link's unreserved capacity
# (the links are planned at CHAIN_RATE, 20 Mbit/s by default); the sender
# skips a frame it wakes for too late (--late skip). With late-policy
# drop, every probe that arrives must have left every hop in exactly the
# frame the plan gives it (ingress frame plus the alphas so far), but for as
# many as the routers counted as uncertain arrivals (read after a stall
# longer than the guard band); every probe lost must be one a router counted
# as dropped (its own late frame, or late on arrival); every router must have
# measured each arrival in its upstream frame. How many late frames and late
# arrivals the VM caused is printed. Bounded: every wait has a timeout; the
# namespaces go away however the test ends.
# usage: chain_net.sh TDPCTL TDP_PROBE TDPD SRCDIR [OUTDIR]  (TAP)
#   OUTDIR keeps each run's receiver JSON (for docs/figures.md);
#   CHAIN_RUNS="1:flood 2:flood 8:flood" and CHAIN_COUNT=400 choose the runs.
set -uo pipefail
TDPCTL=$1
PROBE=$2
TDPD=$3
SRC=$4
OUT=${5:-}
RUNS=${CHAIN_RUNS:-"2:flood 8:flood"}
COUNT=${CHAIN_COUNT:-300}
RATE=${CHAIN_RATE:-20Mbit/s}

. "$SRC/tests/net/netns.sh"
. "$SRC/tests/tap.sh"
net_test_begin

set -- $RUNS
# the first run also restarts its routers (2 checks more)
echo "1..$(($# * 7 + 2))"

j() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null; }
diag() { sed 's/^/# /' <<<"$1"; }
wait_file() { for _ in $(seq 100); do [ -f "$1" ] && return 0; sleep 0.1; done; return 1; }

run() {
	local nr=$1 flood=$2 d i
	d=$W/n$nr$flood
	mkdir -p "$d"
	chain_up "ch$$" "$nr"
	{
		echo "tdp-topology 1"
		echo "tf 1ms"
		echo "k 10"
		echo "guard 100us"
		echo "host snd"
		for i in $(seq 1 "$nr"); do echo "router r$i node-id $i processing 300us"; done
		echo "host rcv"
		echo "link snd:s0 r1:in rate $RATE delay 1us"
		for i in $(seq 1 $((nr - 1))); do echo "link r$i:out r$((i + 1)):in rate $RATE delay 1us"; done
		echo "link r$nr:out rcv:r0 rate $RATE delay 1us"
		echo "flow probe from snd to rcv packets 1 size 200 frames 0 stamp match dscp 46 udp-dport 7350"
		for i in $(seq 1 "$nr"); do echo "control r$i socket $d/r$i/tdpd.sock"; done
	} >"$d/topo"
	"$TDPCTL" plan "$d/topo" -o "$d/plan" >"$d/plan.out" 2>&1
	"$TDPCTL" plan "$d/topo" --json >"$d/plan.json" 2>/dev/null
	local alpha sum
	alpha=$(sed -n 's/.*--alpha \([0-9,]*\).*/\1/p' "$d/plan.out")
	sum=$(sed -n 's/.*--frame-delay \([0-9]*\).*/\1/p' "$d/plan.out")
	# the routers start on the tables without flows, then take the plan at one TAI second
	local pids=()
	for i in $(seq 1 "$nr"); do
		mkdir -p "$d/r$i"
		grep -v '^flow \|^frames\? ' "$d/plan/r$i.tdp" >"$d/r$i/empty.tdp"
		chain_conf "$d/r$i/tdpd.conf" "$i" "$d/r$i/empty.tdp" "late-policy drop" "summary-json $d/r$i/sum.json"
		ip netns exec "${CH_P}r$i" "$TDPD" -f "$d/r$i/tdpd.conf" >"$d/r$i/out" 2>"$d/r$i/err" &
		pids+=($!)
	done
	local up=0
	for _ in $(seq 150); do
		up=0
		for i in $(seq 1 "$nr"); do grep -q "forwarding:" "$d/r$i/err" && up=$((up + 1)); done
		[ $up -eq "$nr" ] && break
		sleep 0.1
	done
	# the routers share this host's clock, which nothing disciplines here
	local why="the routers share one host clock"
	# a deploy the last router refuses (a port its tdpd.conf lacks): nobody moves
	cp -r "$d/plan" "$d/bad"
	sed -i 's/\bport out\b/port out9/' "$d/bad/r$nr.tdp"
	local rcb=0 rc=0
	timeout 120 "$TDPCTL" deploy --json --allow-unsynced "$why" "$d/bad" >"$d/bad.json" 2>"$d/bad.err" || rcb=$?
	local before
	before=$(for i in $(seq 1 "$nr"); do "$TDPCTL" --socket "$d/r$i/tdpd-ro.sock" --json schedule active |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["table"]["digest"], d["pending"], d["staged"])'; done)
	check "N=$nr $flood: a deploy router $nr refuses leaves all $nr routers on their old tables, nothing waiting or staged" \
		'[ $rcb -eq 1 ] && [ "$(j "$d/bad.json" "d[\"routers\"][-1][\"error\"][\"code\"]")" = invalid-table ] && [ "$(cut -d" " -f1 <<<"$before")" = "$(for i in $(seq 1 "$nr"); do sha256sum "$d/r$i/empty.tdp" | cut -d" " -f1; done)" ] && [ "$(cut -d" " -f2- <<<"$before" | sort -u)" = "None None" ]' \
		"rc $rcb: $(cat "$d/bad.json" "$d/bad.err"; echo "$before")"
	timeout 120 "$TDPCTL" deploy --json --allow-unsynced "$why" "$d/plan" >"$d/deploy.json" 2>"$d/deploy.err" || rc=$?
	local frames
	frames=$(for i in $(seq 1 "$nr"); do "$TDPCTL" --socket "$d/r$i/tdpd-ro.sock" --json schedule active |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["table"]["adopted_frame"])'; done | sort -u)
	check "N=$nr $flood: tdpctl plan (alpha $alpha), one tdpctl deploy: all $nr routers up and on the plan from frame $frames" \
		'[ -n "$alpha" ] && [ $up -eq "$nr" ] && [ $rc -eq 0 ] && [ "$(echo "$frames" | wc -l)" = 1 ] && [ "$frames" = "$(j "$d/deploy.json" "d[\"frame\"]")" ] && [ "$(j "$d/deploy.json" "d[\"outcome\"]")" = in-force ]' \
		"$(cat "$d/plan.out" "$d/deploy.json" "$d/deploy.err" "$d"/r*/err | tail -60)"

	local dst mac
	dst=10.7.$nr.2
	mac=$(ch_mac 0 2)
	ip netns exec "$CH_RCV" timeout 60 "$PROBE" recv -i r0 --port 0 --cpu 0 --no-live --duration 45s --ends 2 \
		--alpha "$alpha" --frame-delay "$sum" --label "$nr router$([ "$nr" = 1 ] || echo s)$([ "$flood" = flood ] && echo ", flood")" \
		--json "$d/rcv.json" --ready "$d/ready" >"$d/rcv.out" 2>"$d/rcv.err" &
	local rpid=$!
	wait_file "$d/ready"
	local fl=
	if [ "$flood" = flood ]; then
		# 90 % of what the plan leaves of each link: the rate less the guard
		# bands and the reserved bits
		local fr
		fr=$(python3 - "$d/plan.json" "$RATE" <<'PY'
import json, re, sys
p = json.load(open(sys.argv[1]))
m = re.match(r"([0-9.]+)([kMG]?)bit/s$", sys.argv[2])
rate = float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}[m.group(2)]
cycle = p["tf_ns"] * p["k"] / 1e9
reserved = sum(f["packets"] * (f["size"] + 24) * 8 for f in p["flows"]) / cycle
free = rate * (p["tf_ns"] - p["guard_ns"]) / p["tf_ns"] - reserved
print(f"{0.9 * free / 1e6:.3f}Mbit/s")
PY
)
		diag "N=$nr $flood: best effort at $fr on links of $RATE"
		ip netns exec "$CH_SND" timeout 40 "$PROBE" flood -i s0 --rate "$fr" --size 64-1500 \
			--duration "$((COUNT / 100 + 2))s" --dst "$dst" --src 10.7.0.1 --dst-mac "$mac" \
			>"$d/flood.out" 2>"$d/flood.err" &
		fl=$!
	fi
	# best-effort probes in frame 5 of each cycle, beside the reserved ones in frame 0
	ip netns exec "$CH_SND" timeout 40 "$PROBE" send -i s0 --tf 1ms --k 10 --frames 5 --count "$COUNT" \
		--dscp 0 --dport 7352 --flow-id 1 --cpu 0 --prio 0 --timer nanosleep --start-in 300ms \
		--dst "$dst" --src 10.7.0.1 --dst-mac "$mac" >"$d/be.out" 2>"$d/be.err" &
	local bp=$!
	ip netns exec "$CH_SND" timeout 40 "$PROBE" send -i s0 --table "$d/plan/snd.tdp" --flow probe --stamps "$nr" \
		--count "$COUNT" --cpu 1 --prio 0 --timer nanosleep --late skip --start-in 300ms \
		--dst "$dst" --src 10.7.0.1 --dst-mac "$mac" >"$d/send.out" 2>"$d/send.err"
	wait $bp
	[ -n "$fl" ] && wait "$fl"
	wait $rpid
	"$TDPCTL" --socket "$d/r$nr/tdpd-ro.sock" flows >"$d/flows.txt" 2>&1
	for i in $(seq 1 "$nr"); do kill -TERM "${pids[$((i - 1))]}" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p"; done
	[ -n "$OUT" ] && cp "$d/rcv.json" "$OUT/chain-n$nr-$flood.json"

	local f0='[x for x in d["flows"] if x["flow"] == 0][0]'
	# the best-effort probes' three end packets may all be lost under the
	# flood, but never silently: then the routers counted best effort dropped
	# (their queue full, the driver's TX full or RX missed)
	local be_drop
	be_drop=$(python3 - "$d" "$nr" <<'PY'
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
t = 0
for i in range(1, n + 1):
    s = json.load(open(f"{d}/r{i}/sum.json"))
    t += s["rx"]["drop"]["be-overflow"] + s["rx"]["drop"]["tx-full"]
    t += sum(p["be_tx_drop"] for p in s["ports"])
    t += sum(v["missed"] + v["no_mbuf"] + v["rx_errors"] for v in s["driver"].values() if v)
print(t)
PY
)
	local sent
	sent=$(j "$d/rcv.json" "[x[\"sent\"] for x in sorted(d[\"flows\"], key=lambda x: x[\"flow\"])]")
	check "N=$nr $flood: the receiver got the reserved probes' end packet, and the best-effort probes' or the routers counted best effort dropped ($sent; ${be_drop:-?} dropped)" \
		'[ "$sent" = "[$COUNT, $COUNT]" ] || { [ "$sent" = "[$COUNT, None]" ] && [ "${be_drop:-0}" -gt 0 ]; }' \
		"$(cat "$d/rcv.out" "$d/send.err" "$d/be.err")"
	# what the routers counted: late frames, late arrivals, and arrivals whose
	# upstream frame was uncertain (read after a stall longer than the guard
	# band, across a frame start)
	local frames_late arr_late unc got lost counted
	read -r frames_late arr_late unc < <(python3 - "$d" "$nr" <<'PY'
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
frames = arr = unc = 0
for i in range(1, n + 1):
    s = json.load(open(f"{d}/r{i}/sum.json"))
    frames += s["engine"]["late_frames"]
    for f in s["flows"]:
        if f["name"] == "probe":
            arr += f["arr_late_dropped"]
            unc += f["arr_uncertain"]
print(frames, arr, unc)
PY
)
	check "N=$nr $flood: every reserved probe received carries $nr stamps, each hop's frame = ingress + planned alphas, but for arrivals a router counted as uncertain (${unc:-?})" \
		'[ -n "$unc" ] && [ "$(j "$d/rcv.json" "(lambda f: (f[\"plan\"][\"off_plan\"] <= $unc, f[\"plan\"][\"fewer_stamps\"], len(f[\"hops\"]), f[\"received\"] > 0))($f0)")" = "(True, 0, $nr, True)" ]' \
		"$(cat "$d/rcv.out")"
	read -r got lost counted < <(python3 "$SRC/tests/net/losses.py" "$d/rcv.json" 0 probe "$d"/r*/sum.json)
	# the routers' count may also hold the sender's end packets (3), which are not probes
	check "N=$nr $flood: every probe lost is one the routers dropped as late (${lost:-?} lost, ${counted:-?} dropped)" \
		'[ -n "$lost" ] && [ -n "$counted" ] && [ "$lost" -le "$counted" ] && [ "$counted" -le $((lost + 3)) ]' \
		"$(cat "$d/rcv.out")"
	diag "N=$nr $flood: the VM made $frames_late late frames over $nr router(s); $arr_late probes arrived late; $lost of $COUNT probes lost"
	diag "$(for i in $(seq 1 "$nr"); do echo "r$i: $(grep -m1 '^frames ' "$d/r$i/out")"; done)"
	diag "$(grep -E '^  (L|hop|leg|push)' "$d/rcv.out" | head -20)"
	# every router measured when each probe-flow packet arrived in its upstream frame
	local arr
	arr=$(python3 - "$d" "$nr" <<'PY'
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
ok, lines = True, []
for i in range(1, n + 1):
    f = [x for x in json.load(open(f"{d}/r{i}/sum.json"))["flows"] if x["name"] == "probe"][0]
    a = f.get("arrival_ns", {})
    ok = ok and a.get("count") == f["rx"] + f["overflow"] > 0 and 0 <= a["min"] <= a["max"] < 1000000
    ok = ok and f["arr_guard"] <= a.get("count", 0)
    lines.append(f"r{i}: {a.get('count')} arrivals at p50 {a.get('p50', 0) / 1e3:.1f} us, p99 {a.get('p99', 0) / 1e3:.1f} us,"
                 f" max {a.get('max', 0) / 1e3:.1f} us after the upstream frame start, {f['arr_guard']} in its guard band")
print(ok)
print("\n".join(lines))
PY
)
	check "N=$nr $flood: every router measured each probe's arrival in its upstream frame; tdpctl flows shows it" \
		'[ "$(head -1 <<<"$arr")" = True ] && grep -q "^probe: [0-9]* arrivals after the upstream frame start: p50 .*in its guard band" "$d/flows.txt"' \
		"$(cat "$d/flows.txt"; tail -n +2 <<<"$arr")"
	diag "$(tail -n +2 <<<"$arr")"
	check "N=$nr $flood: best effort crossed the chain beside the reservations" \
		'[ "$(j "$d/rcv.json" "[x for x in d[\"flows\"] if x[\"flow\"] == 1][0][\"received\"] > 0 and (\"$flood\" != \"flood\" or d[\"frames\"][\"best_effort\"] > 0)")" = True ]' \
		"$(cat "$d/rcv.out" "$d/flood.err" 2>/dev/null)"
	if [ -z "${RESTARTED:-}" ]; then
		RESTARTED=1
		restarted "$d" "$nr" "$alpha" "$sum" "$dst" "$mac"
	fi
	chain_down
}

# restarted DIR N ALPHA SUM DST MAC: the chain's routers, stopped after the
# deploy, start again on their tdpd.conf (whose table has no flows): each
# resumes the plan's table kept in its state directory, and reserved probes
# cross on plan with no deploy again
restarted() {
	local d=$1 nr=$2 alpha=$3 sum=$4 dst=$5 mac=$6 i pids=() want got
	for i in $(seq 1 "$nr"); do
		ip netns exec "${CH_P}r$i" "$TDPD" -f "$d/r$i/tdpd.conf" --summary-json "$d/r$i/sum2.json" \
			>"$d/r$i/out2" 2>"$d/r$i/err2" &
		pids+=($!)
	done
	for i in $(seq 1 "$nr"); do
		for _ in $(seq 150); do grep -q "forwarding:" "$d/r$i/err2" && break; sleep 0.1; done
	done
	want=$(for i in $(seq 1 "$nr"); do echo "$(sha256sum <"$d/plan/r$i.tdp" | cut -d" " -f1) schedule commit True"; done)
	got=$(for i in $(seq 1 "$nr"); do "$TDPCTL" --socket "$d/r$i/tdpd-ro.sock" --json schedule active |
		python3 -c 'import json,sys; t=json.load(sys.stdin)["table"]; print(t["digest"], t["origin"], t["resumed"])'; done)
	check "N=$nr: every router restarted resumes the plan's table (digest, put in force by schedule commit), said in its log" \
		'[ "$got" = "$want" ] && grep -q "resuming the table in force at the last stop" "$d/r1/err2"' \
		"$got / $want; $(grep -i "table\|resum" "$d"/r*/err2 | head)"
	ip netns exec "$CH_RCV" timeout 60 "$PROBE" recv -i r0 --port 0 --cpu 0 --no-live --duration 30s --ends 1 \
		--alpha "$alpha" --frame-delay "$sum" --json "$d/rcv2.json" --ready "$d/ready2" >"$d/rcv2.out" 2>"$d/rcv2.err" &
	local rp=$!
	wait_file "$d/ready2"
	ip netns exec "$CH_SND" timeout 40 "$PROBE" send -i s0 --table "$d/plan/snd.tdp" --flow probe --stamps "$nr" \
		--count 100 --cpu 1 --prio 0 --timer nanosleep --late skip --start-in 300ms \
		--dst "$dst" --src 10.7.0.1 --dst-mac "$mac" >"$d/send2.out" 2>"$d/send2.err"
	wait $rp
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p"; done
	local unc
	unc=$(python3 -c 'import json,sys; print(sum(f["arr_uncertain"] for i in range(1, int(sys.argv[2]) + 1) for f in json.load(open(f"{sys.argv[1]}/r{i}/sum2.json"))["flows"] if f["name"] == "probe"))' "$d" "$nr")
	local f0='[x for x in d["flows"] if x["flow"] == 0][0]' got lost counted
	read -r got lost counted < <(python3 "$SRC/tests/net/losses.py" "$d/rcv2.json" 0 probe "$d"/r*/sum2.json)
	# how many arrive depends on the VM's stalls; that every loss is counted does not
	check "N=$nr: after the restart the probes cross on the plan: ${got:-?} of 100 received, $(j "$d/rcv2.json" "$f0[\"plan\"][\"off_plan\"]") off plan (uncertain ${unc:-?}), ${lost:-?} lost, ${counted:-?} dropped" \
		'[ -n "$unc" ] && [ -n "$lost" ] && [ "$lost" -le "$counted" ] && [ "$counted" -le $((lost + 3)) ] &&
		 [ "$(j "$d/rcv2.json" "(lambda f: (f[\"received\"] > 0, f[\"plan\"][\"off_plan\"] <= $unc, f[\"plan\"][\"fewer_stamps\"]))($f0)")" = "(True, True, 0)" ]' \
		"$(cat "$d/rcv2.out" "$d/send2.err")"
}

for r in $RUNS; do
	run "${r%%:*}" "${r#*:}"
done
