#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tdpd with two RX cores (rx-cpus) on af_packet ports in network namespaces:
# port "in" has two queues (qpairs=2, a fanout group the kernel fills by flow
# hash), each polled by its own RX core into its own queue of each flow.
# Reserved and best-effort traffic of 18 flows must all arrive, each core
# must have taken part of it, and the cores' counts must add up to RX's.
# Bounded: every wait has a timeout, and the namespaces go away however the
# test ends.
# usage: rxcores_net.sh TDPD SRCDIR  (TAP)
set -uo pipefail
TDPD=$1
SRC=$2
GEN=$SRC/tools/tdp-gen

. "$SRC/tests/net/netns.sh"
net_test_begin

. "$SRC/tests/tap.sh"
echo "1..6"

net_up "tdpq$$"
router_conf "$W/tdpd.conf" "$SRC/schedules/examples/demo.tdp" "late-policy carry" "summary-json $W/sum.json" \
	"rx-cpus 0" "huge-pages no"
sed -i 's/^device net_af_packet0,iface=rin$/device net_af_packet0,iface=rin,qpairs=2/' "$W/tdpd.conf"
ip netns exec "$NS_RTR" "$TDPD" -f "$W/tdpd.conf" >"$W/out" 2>"$W/err" &
PID=$!
PIDS+=($PID)
for _ in $(seq 100); do grep -q "forwarding:" "$W/err" && break; sleep 0.1; done
check "tdpd comes up with two RX cores, port in's two queues shared between them" \
	'grep -q "RX: 2 cores" "$W/err" && grep -q "port in: 2 RX queues, polled by 2 RX cores" "$W/err"' \
	"$(cat "$W/err")"

BE_PORTS=$(seq -s, 6000 6015)
ip netns exec "$NS_RCV" timeout 30 "$GEN" recv --ports "5000,5001,$BE_PORTS" --seconds 15 \
	--ready "$W/ready" --json "$W/rcv.json" >/dev/null 2>"$W/rcv.err" &
RCV=$!
for _ in $(seq 100); do [ -f "$W/ready" ] && break; sleep 0.1; done

S=()
ip netns exec "$NS_SND" "$GEN" send --dst 10.0.2.2 --port 5000 --dscp 46 --count 300 --pps 400 >"$W/s1" 2>&1 &
S+=($!)
ip netns exec "$NS_SND" "$GEN" send --dst 10.0.2.2 --port 5001 --dscp 34 --size 1000 --count 300 --pps 600 \
	>"$W/s2" 2>&1 &
S+=($!)
for p in $(seq 6000 6015); do
	ip netns exec "$NS_SND" "$GEN" send --dst 10.0.2.2 --port "$p" --size 200 --count 50 --pps 100 \
		>"$W/be$p" 2>&1 &
	S+=($!)
done
wait "${S[@]}"
wait $RCV
kill -TERM "$PID"
rc=0
wait "$PID" || rc=$?
check "SIGTERM stops tdpd with exit 0" '[ $rc -eq 0 ]' "exit $rc; $(tail -5 "$W/err")"

q() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
[ -f "$W/rcv.json" ] || echo '{"ports":{}}' >"$W/rcv.json"
[ -f "$W/sum.json" ] || echo '{"rx":{"cores":[]}}' >"$W/sum.json"
got() { q "$W/rcv.json" "d['ports'].get('$1',{}).get('$2',-1)"; }
check "every reserved packet arrives (300 of 300 on each of the two flows)" \
	'[ "$(got 5000 received)" = 300 ] && [ "$(got 5001 received)" = 300 ]' "$(cat "$W/rcv.json" | head -c 2000)"
check "every best-effort packet arrives (800 of 800 over 16 flows)" \
	'[ "$(q "$W/rcv.json" "sum(d[\"ports\"].get(str(p),{}).get(\"received\",0) for p in range(6000,6016))")" = 800 ]' \
	"$(cat "$W/rcv.json" | head -c 2000)"
check "both RX cores took part of the traffic" \
	'[ "$(q "$W/sum.json" "len(d[\"rx\"][\"cores\"]) == 2 and all(c[\"pkts\"] > 0 for c in d[\"rx\"][\"cores\"])")" = True ]' \
	"$(q "$W/sum.json" "[c['pkts'] for c in d['rx']['cores']]")"
check "the cores' counts add up to RX's, and the flows' to what was sent" \
	'[ "$(q "$W/sum.json" "sum(c[\"pkts\"] for c in d[\"rx\"][\"cores\"]) == d[\"rx\"][\"pkts\"] and d[\"flows\"][0][\"rx\"] == d[\"flows\"][0][\"sent\"] == 300")" = True ]' \
	"$(q "$W/sum.json" "d['rx']")"
exit 0
