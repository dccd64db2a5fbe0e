#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Pipeline forwarding through a mesh of six tdpd routers in network namespaces
# (a 2 x 3 grid, a host at each corner; tests/net/mesh.py draws it): ten
# reserved flows between the hosts, one probe per 10 ms cycle each, crossing
# at the routers and sharing links, planned by tdpctl plan (the routes in the
# routers' tdpd.conf are the ones the plan reports) and put in force by one
# tdpctl deploy, beside a best-effort flood from every host that loads the
# busiest link to 90 % of its unreserved capacity. Every probe received must
# carry a stamp from each router of its flow's path with that router's node
# id and the frame the plan gives it (ingress frame plus the alphas so far),
# and arrive within the last router's planned frame, but for as many as the
# routers counted as uncertain arrivals; every probe lost must be one a router
# dropped as late. The delay less sum(alpha) x TF and its spread are printed
# per flow with the hop count, and the late frames the VM caused. Bounded:
# every wait has a timeout; the namespaces go away however the test ends.
# usage: mesh_net.sh TDPCTL TDP_PROBE TDPD SRCDIR [OUTDIR]  (TAP)
#   MESH_COUNT=300 probes per flow, MESH_RATE=20Mbit/s the links' rate;
#   OUTDIR keeps the plan, the routers' summaries and the receivers' CSV.
set -uo pipefail
TDPCTL=$1
PROBE=$2
TDPD=$3
SRC=$4
OUT=${5:-}
COUNT=${MESH_COUNT:-200}
RATE=${MESH_RATE:-20Mbit/s}
MESH="python3 $SRC/tests/net/mesh.py"

. "$SRC/tests/net/netns.sh"
. "$SRC/tests/tap.sh"
net_test_begin
echo "1..5"

P=ms$$
for x in r1 r2 r3 r4 r5 r6 h1 h2 h3 h4; do CH_NS+=("$P$x"); done
j() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>&1; }
diag() { sed 's/^/# /' <<<"$1"; }

$MESH setup "$P" >"$W/setup.sh"
bash -e "$W/setup.sh" >"$W/setup.out" 2>&1 || { cat "$W/setup.out"; exit 1; }
$MESH topo "$W/topo" "$RATE" 200 "$W"
"$TDPCTL" plan "$W/topo" -o "$W/plan" >"$W/plan.out" 2>&1
"$TDPCTL" plan "$W/topo" --json >"$W/plan.json" 2>/dev/null
check "the plan: 10 flows of 2 to 4 routers over 6 routers, crossing, with the routes they take" \
	'[ "$(j "$W/plan.json" "(len(d[\"flows\"]), sorted(set(len(f[\"path\"]) - 2 for f in d[\"flows\"])), len(d[\"routes\"]) > 0)")" = "(10, [2, 3, 4], True)" ]' \
	"$(cat "$W/plan.out")"

# routers on tables without flows, then the plan by one deploy
for i in 1 2 3 4 5 6; do
	mkdir -p "$W/r$i"
	grep -v '^flow \|^frames\? ' "$W/plan/r$i.tdp" >"$W/r$i/empty.tdp"
	conf_globals "$W/r$i" "$W/r$i/empty.tdp" "node-id $i" "max-lead 50us" "late-policy drop" \
		"summary-json $W/r$i/sum.json" >"$W/r$i/tdpd.conf"
	$MESH conf "$W/plan.json" "$i" "$W/r$i/tdpd.conf"
	ip netns exec "${P}r$i" "$TDPD" -f "$W/r$i/tdpd.conf" >"$W/r$i/out" 2>"$W/r$i/err" &
	PIDS+=($!)
done
up=0
for _ in $(seq 200); do
	up=0
	for i in 1 2 3 4 5 6; do grep -q "forwarding:" "$W/r$i/err" && up=$((up + 1)); done
	[ $up -eq 6 ] && break
	sleep 0.1
done
rc=0
timeout 120 "$TDPCTL" deploy --json --allow-unsynced "the routers share one host clock" "$W/plan" \
	>"$W/deploy.json" 2>"$W/deploy.err" || rc=$?
check "all 6 routers up, and one tdpctl deploy puts every table in force at one frame" \
	'[ $up -eq 6 ] && [ $rc -eq 0 ] && [ "$(j "$W/deploy.json" "d[\"outcome\"]")" = in-force ] && [ "$(j "$W/deploy.json" "sorted(set(r[\"frame\"] for r in d[\"routers\"])) == [d[\"frame\"]]")" = True ]' \
	"rc $rc: $(cat "$W/deploy.json" "$W/deploy.err" "$W"/r*/err | tail -60)"

# one receiver per host, the floods, then one sender per flow
declare -A IF ADDR GW
while read -r h ln a gw; do IF[$h]=p$ln; ADDR[$h]=$a; GW[$h]=$gw; done < <($MESH hosts)
declare -A ENDS
while read -r id s r dn dport sum hops; do ENDS[$r]=$((${ENDS[$r]:-0} + 1)); done < <($MESH flows "$W/plan.json")
rpids=()
for h in h1 h2 h3 h4; do
	ip netns exec "$P$h" timeout 90 "$PROBE" recv -i "${IF[$h]}" --port 0 --no-live --prio 0 \
		--duration "$((COUNT / 100 + 8))s" \
		--ends "${ENDS[$h]}" --csv "$W/$h.csv" --json "$W/$h.json" --ready "$W/$h.ready" \
		>"$W/$h.rcv" 2>"$W/$h.rcv.err" &
	rpids+=($!)
done
for h in h1 h2 h3 h4; do for _ in $(seq 100); do [ -f "$W/$h.ready" ] && break; sleep 0.1; done; done
read -r frate pairs busiest pct nlinks range < <($MESH flood "$W/plan.json" "$RATE")
diag "best effort: $frate from each host ($pairs): $pct % of the unreserved capacity on $busiest, the busiest link; $range % on each of the $nlinks links a flood crosses"
fpids=()
for pr in ${pairs//,/ }; do
	s=${pr%%:*} d=${pr#*:}
	ip netns exec "$P$s" timeout 60 "$PROBE" flood -i "${IF[$s]}" --rate "$frate" --size 64-1500 \
		--duration "$((COUNT / 100 + 3))s" --dst "${ADDR[$d]}" --src "${ADDR[$s]}" --dst-mac "${GW[$s]}" \
		>"$W/flood-$s.out" 2>&1 &
	fpids+=($!)
done
spids=()
while read -r id s r dn dport sum hops; do
	ip netns exec "$P$s" timeout 60 "$PROBE" send -i "${IF[$s]}" --table "$W/plan/$s.tdp" --flow "f$id" \
		--flow-id "$id" --stamps 4 --count "$COUNT" --prio 0 --timer nanosleep --late skip --start-in 500ms \
		--dst "${ADDR[$r]}" --src "${ADDR[$s]}" --dst-mac "${GW[$s]}" --json "$W/send-$id.json" \
		>"$W/send-$id.out" 2>&1 &
	spids+=($!)
done < <($MESH flows "$W/plan.json")
wait "${spids[@]}"
wait "${fpids[@]}"
wait "${rpids[@]}"
for i in 1 2 3 4 5 6; do "$TDPCTL" --socket "$W/r$i/tdpd-ro.sock" flows >"$W/r$i/flows.txt" 2>&1; done
for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
[ -n "$OUT" ] && cp "$W/plan.json" "$W"/h*.csv "$OUT/" 2>/dev/null

# what the routers counted, per flow: dropped late (own late frames, late on
# arrival) and uncertain arrivals; late frames in all
read -r late_frames late_drop unc < <(python3 - "$W" <<'PY'
import json, sys
d = sys.argv[1]
frames = drop = unc = 0
for i in range(1, 7):
    s = json.load(open(f"{d}/r{i}/sum.json"))
    frames += s["engine"]["late_frames"]
    for f in s["flows"]:
        drop += f["late_dropped"] + f["arr_late_dropped"]
        unc += f["arr_uncertain"]
print(frames, drop, unc)
PY
)
$MESH check "$W/plan.json" "$W" >"$W/check.json"
# what the senders sent (a frame they woke for too late is skipped, not sent)
sent=$(python3 - "$W" <<'PY'
import glob, json, sys
print(sum(json.load(open(f))["sent"] for f in glob.glob(f"{sys.argv[1]}/send-*.json")))
PY
)
check "every sender sent its probes and every receiver heard from its flows: ${sent:-?} probes over 10 flows" \
	'[ "${sent:-0}" -gt 0 ] && [ "$(j "$W/check.json" "sorted(f[\"flow\"] for f in d[\"flows\"] if f[\"received\"] > 0)")" = "$(seq -s ", " 1 10 | sed "s/.*/[&]/")" ]' \
	"$(cat "$W"/h*.rcv "$W"/send-*.out | tail -40)"
check "every probe received left every router of its path in its planned frame and arrived within the last one's, but for arrivals a router counted as uncertain (${unc:-?})" \
	'[ -n "$unc" ] && [ "$(j "$W/check.json" "d[\"received\"] > 0 and d[\"off_plan\"] <= $unc and d[\"off_frame\"] <= $unc")" = True ]' \
	"$(cat "$W/check.json")"
got=$(j "$W/check.json" 'd["received"]')
lost=$((${sent:-0} - ${got:-0}))
check "every probe lost is one a router dropped as late ($lost lost, ${late_drop:-?} dropped)" \
	'[ -n "$late_drop" ] && [ "$lost" -ge 0 ] && [ "$lost" -le "$late_drop" ]' "$(cat "$W"/r*/flows.txt)"
diag "the VM made $late_frames late frames over 6 routers; $lost of $sent probes lost"
diag "$(python3 - "$W/check.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("flow  routers  sum(alpha)  received  off-plan  L-sum(alpha)TF p50    p99   p99-p1 (us)")
for f in sorted(d["flows"], key=lambda f: f["routers"]):
    print(f"{f['name']:5} {f['routers']:7} {f['sum_alpha']:11} {f['received']:9} {f['off_plan']:9} "
          f"{f['rest_p50_ns'] / 1e3:19.1f} {f['rest_p99_ns'] / 1e3:6.1f} {f['spread_ns'] / 1e3:8.1f}")
PY
)"
