#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tdpctl plan: alpha per hop from the forwarding rule, tables that check,
# delay and jitter bounds, whole frames of link delay moved into alpha,
# admission on every link, and clear refusals (file:line, the full link and
# its frames) with nothing written; in a mesh, a detour round a full link,
# alpha raised where frames are full, and the routes the plan takes; the
# sync budget: each node's bound in its table and the report, and a guard
# band too short for a link's pair refused with the numbers.
# usage: plan_cli.sh TDPCTL  (TAP)
set -uo pipefail
CTL=$1
. "$(dirname "$0")/../tap.sh"
tap_workdir
echo "1..15"

topo() { # topo FILE PROC2 [extra lines...]
	local f=$1 p2=$2
	shift 2
	{
		echo "tdp-topology 1"
		echo "tf 1ms"
		echo "k 10"
		echo "guard 50us"
		echo "host snd"
		echo "router r1 node-id 1 processing 200us"
		echo "router r2 node-id 2 processing $p2"
		echo "host rcv"
		echo "link snd:eth0 r1:in rate 1Gbit/s delay 5us"
		echo "link r1:out r2:in rate 1Gbit/s delay 5us"
		echo "link r2:out rcv:eth0 rate 1Gbit/s delay 5us"
		for l in "$@"; do echo "$l"; done
	} >"$f"
}
j() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

topo "$W/a.topo" 1.1ms "flow probe from snd to rcv packets 1 size 128 frames 0 stamp match dscp 46 udp-dport 7350"
"$CTL" plan "$W/a.topo" -o "$W/a" >"$W/a.out" 2>&1
rc=$?
check "plan writes a table per router, one for the sending host (each checks) and the topology" \
	'[ $rc -eq 0 ] && [ "$(ls "$W/a")" = "$(printf "r1.tdp\nr2.tdp\nsnd.tdp\ntopology")" ] && "$CTL" schedule check "$W"/a/*.tdp >/dev/null' \
	"$(cat "$W/a.out")"
# r1: ceil((1000 - 50 + 5 + 200) / 1000) = 2; r2: ceil((1000 - 50 + 5 + 1100) / 1000) = 3
check "alpha per router from TF, guard, link delay and processing: 2 then 3, frames 0 -> 2 -> 5" \
	'grep -q "^flow probe port out size 128 alpha 2 delay 5us stamp dscp 46 udp-dport 7350$" "$W/a/r1.tdp" &&
	 grep -q "^frames\? 2: probe 1$" "$W/a/r1.tdp" && grep -q " alpha 3 delay 5us stamp " "$W/a/r2.tdp" &&
	 grep -q "^frames\? 5: probe 1$" "$W/a/r2.tdp" && grep -q "^frames\? 0: probe 1$" "$W/a/snd.tdp" &&
	 grep -q -- "--alpha 2,3 --frame-delay 5" "$W/a.out"' "$(cat "$W/a.out" "$W"/a/*.tdp)"
"$CTL" plan "$W/a.topo" --json >"$W/a.json"
# 5 frames, 5 us of the last link, 152 bytes on the wire at 1 Gbit/s = 1216 ns; at most TF - guard later
check "delay bounds 5 ms + 5 us + 1.216 us .. 6 ms - 50 us + 5 us; jitter under one TF" \
	'[ "$(j "$W/a.json" "(d[\"flows\"][0][\"delay_min_ns\"], d[\"flows\"][0][\"delay_max_ns\"], d[\"flows\"][0][\"jitter_ns\"] < 1000000)")" = "(5006216, 5955000, True)" ]' \
	"$(cat "$W/a.json")"

topo "$W/b.topo" 200us "flow probe path snd r1 r2 rcv packets 1 size 128 match dscp 46"
sed -i 's/^link r1:out r2:in rate 1Gbit\/s delay 5us/link r1:out r2:in rate 1Gbit\/s delay 2.5ms/' "$W/b.topo"
"$CTL" plan "$W/b.topo" -o "$W/b" >"$W/b.out" 2>&1
# r2: ceil((1000 - 50 + 2500 + 200) / 1000) = 4, of which 2 whole frames of link delay: alpha 2 delay 500us
check "a link longer than TF: its whole frames go into the arrival arithmetic (alpha 4 = 2 + table alpha 2, delay 500us)" \
	'grep -q " alpha 2 delay 500us " "$W/b/r2.tdp" && grep -Eq "^  2 +r2 +r1:out +4  6$" "$W/b.out"' "$(cat "$W/b.out" "$W"/b/r2.tdp)"

topo "$W/m.topo" 200us "flow probe from snd to rcv packets 1 size 128 frames 3 match dscp 46"
sed -i 's/^router r1 .*/& min-alpha 4/' "$W/m.topo"
"$CTL" plan "$W/m.topo" -o "$W/m" >"$W/m.out" 2>&1
check "min-alpha raises a router's alpha (r1 4, frames 3 -> 7 -> 9)" \
	'grep -q " alpha 4 delay 5us " "$W/m/r1.tdp" && grep -q "^frames\? 7: probe 1$" "$W/m/r1.tdp" && grep -q "^frames\? 9: probe 1$" "$W/m/r2.tdp"' \
	"$(cat "$W/m.out" "$W"/m/*.tdp)"

topo "$W/c.topo" 200us "flow v1 from snd to rcv packets 60 size 1514 match dscp 34" \
	"flow v2 from snd to rcv packets 30 size 1514 match dscp 36"
"$CTL" plan "$W/c.topo" -o "$W/c" >"$W/c.out" 2>&1
rc=$?
# 94 us of 950 us per 1538-byte packet at 1 Gbit/s (12.304 us): 77 fit a frame, 90 share 10 frames
check "two flows share the links without overbooking a frame (the tables pass admission)" \
	'[ $rc -eq 0 ] && "$CTL" schedule check "$W"/c/*.tdp >/dev/null' "$(cat "$W/c.out")"

topo "$W/d.topo" 200us "flow big from snd to rcv packets 800 size 1514 frames 0-4 match dscp 34"
"$CTL" plan "$W/d.topo" -o "$W/d" >"$W/d.out" 2>&1
rc=$?
check "a request that does not fit: exit 1, the link and its full frames named, nothing written" \
	'[ $rc -eq 1 ] && grep -q "d.topo:12: error: flow big: 385 of 800 packets per cycle fit" "$W/d.out" &&
	 grep -q "link snd:eth0 -> r1:in (line 9) has no room for a 1514-byte packet in frames 0-4" "$W/d.out" && [ ! -e "$W/d" ]' \
	"$(cat "$W/d.out")"

topo "$W/e.topo" 200us "flow x from snd to rcv packets 1 size 100 match dscp 99" "bogus 1" \
	"link r1:out nowhere:p rate 1Gbit/s"
"$CTL" plan "$W/e.topo" >"$W/e.out" 2>&1
rc=$?
check "bad lines: each error with file:line, exit 1" \
	'[ $rc -eq 1 ] && grep -q "e.topo:12: error: flow x: match .dscp 99.: dscp must be 0..63" "$W/e.out" &&
	 grep -q "e.topo:13: error: unknown directive .bogus." "$W/e.out" &&
	 grep -q "e.topo:14: error: no node named .nowhere." "$W/e.out"' "$(cat "$W/e.out")"

topo "$W/g.topo" 200us "flow jumbo from snd to rcv packets 2 size 9000 match dscp 40"
"$CTL" plan "$W/g.topo" -o "$W/g" >"$W/g.out" 2>&1
rc=$?
topo "$W/h.topo" 200us "flow huge from snd to rcv packets 1 size 9019 match dscp 40"
"$CTL" plan "$W/h.topo" >"$W/h.out" 2>&1
check "jumbo flows: the ports they leave by get max-frame 9000 and the tables check; 9019 bytes is refused" \
	'[ $rc -eq 0 ] && grep -q "^port out rate 1Gbit/s max-frame 9000 " "$W/g/r1.tdp" &&
	 grep -q "^port in rate 1Gbit/s   # to snd" "$W/g/r1.tdp" && "$CTL" schedule check "$W"/g/*.tdp >/dev/null &&
	 grep -q "h.topo:12: error: size .* must be a whole number in 1..9018" "$W/h.out"' "$(cat "$W/g.out" "$W/h.out" "$W"/g/r1.tdp)"

topo "$W/f.topo" 200us "flow x from r1 to rcv packets 1 size 100 match dscp 9"
"$CTL" plan "$W/f.topo" >"$W/f.out" 2>&1
check "flows run from a host to a host" 'grep -q "flows run from a host to a host" "$W/f.out"' "$(cat "$W/f.out")"
"$CTL" plan >/dev/null 2>&1
rc=$?
check "no topology: usage, exit 2" '[ $rc -eq 2 ]'

# a mesh: r1 - r2 at 100 Mbit/s (7 packets of 1500 bytes a frame) and a way
# round it through r3 and r5; a second sender into r1
cat >"$W/mesh.topo" <<'EOF'
tdp-topology 1
tf 1ms
k 10
guard 50us
host snd
host snd2
host rcv
router r1 node-id 1 processing 200us
router r2 node-id 2 processing 200us
router r3 node-id 3 processing 200us
router r4 node-id 4 processing 200us
router r5 node-id 5 processing 200us
link snd:e r1:a rate 1Gbit/s
link snd2:e r1:d rate 1Gbit/s
link r1:b r2:a rate 100Mbit/s
link r2:b r4:a rate 1Gbit/s
link r1:c r3:a rate 1Gbit/s
link r3:b r5:a rate 1Gbit/s
link r5:b r4:c rate 1Gbit/s
link r4:b rcv:e rate 1Gbit/s
flow a from snd to rcv packets 63 size 1500 frames 0-8 match dscp 46 dst 10.9.1.0/24
flow b from snd to rcv packets 60 size 1500 match dscp 34 dst 10.9.2.0/24
flow c from snd2 to rcv packets 1 size 1500 frames 0 match dscp 10 dst 10.9.1.0/24
EOF
"$CTL" plan "$W/mesh.topo" -o "$W/mesh" >"$W/mesh.out" 2>&1
rc=$?
# a fills r1 - r2 but for frame 1 (ingress 0-8, + 2); b has no room there
# (60 packets, 7 places) and goes round; c, routed as a, cannot take frame 2
# and is moved to frame 1: r1's alpha raised from 2 to 11
check "mesh: b goes round the full link and says so; c's alpha at r1 raised from 2 to 11; the tables check" \
	'[ $rc -eq 0 ] && grep -q "^flow b: snd -> r1 -> r3 -> r5 -> r4 -> rcv, 60 packets" "$W/mesh.out" &&
	 grep -q "^  (the path of the fewest routers, snd r1 r2 r4 rcv, has no room for it)$" "$W/mesh.out" &&
	 grep -Eq "^  1 +r1 +snd2:e +11  1  \(raised from 2: frames full\)$" "$W/mesh.out" &&
	 grep -q "^flow c port b size 1500 alpha 11 " "$W/mesh/r1.tdp" && "$CTL" schedule check "$W"/mesh/*.tdp >/dev/null' \
	"$(cat "$W/mesh.out")"
check "mesh: the routes the plan takes, per router and destination" \
	'grep -q "^r1: 10.9.1.0/24 -> r2 (port b)$" "$W/mesh.out" && grep -q "^r1: 10.9.2.0/24 -> r3 (port c)$" "$W/mesh.out" &&
	 grep -q "^r5: 10.9.2.0/24 -> r4 (port b)$" "$W/mesh.out" && [ "$(grep -c "^r1: " "$W/mesh.out")" = 2 ]' \
	"$(cat "$W/mesh.out")"

topo "$W/s.topo" 200us "flow probe from snd to rcv packets 1 size 128 frames 0 match dscp 46" "time ptp-sw"
sed -i 's/^guard 50us$/guard 100us/; s/^router r2 node-id 2 processing 200us$/& time gps/' "$W/s.topo"
"$CTL" plan "$W/s.topo" -o "$W/s" >"$W/s.out" 2>&1
rc=$?
"$CTL" plan "$W/s.topo" --json >"$W/s.json" 2>&1
# snd - r1: 20 + 20 us; r1 - r2: 20 + 2 us; the table's delay 5 - 40 us < 0: one TF more, alpha one more
check "sync budget: each node's bound in its table, the pairs in the report, alpha and delay take them" \
	'[ $rc -eq 0 ] && grep -q "^sync-error 20us   # ptp-sw$" "$W/s/r1.tdp" && grep -q "^sync-error 2us   # gps$" "$W/s/r2.tdp" &&
	 grep -q "^sync-error 20us   # ptp-sw$" "$W/s/snd.tdp" && grep -q " alpha 3 delay 965us " "$W/s/r1.tdp" &&
	 grep -q "^  link snd:eth0 -> r1:in: the ends. frames may be 40.000 us apart either way; the guard band takes 80.000 us of its 100.000 us" "$W/s.out" &&
	 [ "$(j "$W/s.json" "[(l[\"from\"], l[\"pair_ns\"], l[\"fits\"]) for l in d[\"sync\"][\"links\"]]")" = "[('"'snd:eth0'"', 40000, True), ('"'r1:out'"', 22000, True), ('"'r2:in'"', 22000, True)]" ] &&
	 "$CTL" schedule check "$W"/s/*.tdp >/dev/null' "$(cat "$W/s.out" "$W/s.json" "$W"/s/r1.tdp)"
sed -i 's/^guard 100us$/guard 60us/' "$W/s.topo"
rm -rf "$W/s2"
"$CTL" plan "$W/s.topo" -o "$W/s2" >"$W/s2.out" 2>&1
rc=$?
check "sync budget: a guard band under twice a link's pair is refused at the link with the numbers; nothing written" \
	'[ $rc -eq 1 ] && grep -q "s.topo:9: error: link snd:eth0 -> r1:in: the clocks at its ends may be 40us apart either way (snd.s 20us (ptp-sw), r1.s 20us (ptp-sw)): the guard band must be at least 80us, twice that, or r1 takes packets for the wrong upstream frame; guard is 60us$" "$W/s2.out" &&
	 ! grep -q "link r1:out" "$W/s2.out" && [ ! -e "$W/s2/r1.tdp" ]' "$(cat "$W/s2.out")"
