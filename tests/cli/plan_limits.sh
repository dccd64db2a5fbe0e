#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tdpctl plan at its limits and on degenerate requests: every one an error at
# its line or a plan as long as it needs to be, never a crash, a cut path, a
# split line, a wrapped number, or a table written before the plan fails.
# usage: plan_limits.sh TDPCTL  (TAP)
set -uo pipefail
CTL=$1
. "$(dirname "$0")/../tap.sh"
tap_workdir
echo "1..22"

hdr() { # a - r1 - b at 1 Gbit/s, TF 1 ms, k 10
	printf 'tdp-topology 1\ntf 1ms\nk 10\nhost a\nhost b\nrouter r1\n'
	printf 'link a:e r1:i rate 1Gbit/s\nlink r1:o b:e rate 1Gbit/s\n'
}
plan() { # plan NAME [ARGS...]: exit status in $rc, stdout+stderr in $W/NAME.out
	local n=$1
	shift
	"$CTL" plan "$W/$n.topo" "$@" >"$W/$n.out" 2>&1
	rc=$?
}
# exit 1 with that error, and no crash
refused() { [ "$rc" -eq 1 ] && grep -q -- "$2" "$W/$1.out"; }

{ hdr; echo "flow f from a to a packets 1 size 100 match dscp 1"; } >"$W/self.topo"
plan self
check "a flow from a host to itself: an error at its line (was a segmentation fault)" \
	'refused self "self.topo:9: error: flow f runs from a to itself"' "$(cat "$W/self.out")"

printf 'tdp-topology 1\ntf 1ms\nk 10\nhost a\nhost b\nlink a:e b:e rate 1Gbit/s\nflow f from a to b packets 1 size 100 match dscp 1\n' \
	>"$W/direct.topo"
plan direct
check "two hosts linked directly: a flow needs a router (was a segmentation fault)" \
	'refused direct "direct.topo:7: error: flow f: a and b are linked directly"' "$(cat "$W/direct.out")"

printf 'tdp-topology 1\ntf 281474976710656ns\nk 65536\n' >"$W/fpe.topo"
plan fpe
check "TF x k past 64 bits: an error at the tf line (was a division by zero)" \
	'refused fpe "fpe.topo:2: error: tf: .281474976710656ns. is not a time up to 1s (too large)" &&
	 [ "$(grep -c error "$W/fpe.out")" -eq 1 ]' "$(cat "$W/fpe.out")"

row() { # row N ROUTER-ATTRS FLOW-LINE: a - r1 - ... - rN - b
	printf 'tdp-topology 1\ntf 100us\nk 10\nhost a\nhost b\n'
	for i in $(seq 1 "$1"); do echo "router r$i $2"; done
	echo "link a:e r1:i rate 1Gbit/s"
	for i in $(seq 1 $(($1 - 1))); do echo "link r$i:o r$((i + 1)):i rate 1Gbit/s"; done
	echo "link r$1:o b:e rate 1Gbit/s"
	echo "$3"
}
# 40 routers in a row: longer than the old 32-node path, and 40 alphas of
# 1000000 (a 320-character list)
row 40 "min-alpha 1000000" "flow f from a to b packets 1 size 100 frames 0 stamp match dscp 1" >"$W/long.topo"
plan long -o "$W/long"
check "a 42-node path in full, with 40 alphas of 10^6 in the report (paths were cut at 32)" \
	'[ $rc -eq 0 ] && grep -q "^  40   r40  *r39:o  *1000000  0$" "$W/long.out" && [ "$(ls "$W/long" | wc -l)" -eq 42 ] && [ -f "$W/long/topology" ] &&
	 grep -q -- "--alpha 1000000,1000000,.*,1000000 --frame-delay 40000000 " "$W/long.out" &&
	 [ "$(grep -o -- "--alpha [0-9,]*" "$W/long.out" | tr , "\n" | wc -l)" -eq 40 ]' "$(grep -E "^  40 |verify" "$W/long.out" | cut -c1-300)"
row 140 "" "flow f path a $(seq -s ' ' -f 'r%g' 1 140) b packets 1 size 100 match dscp 1 udp-dport 7" >"$W/words.topo"
plan words --json
check "a path of 142 words on one line is read whole (words past 128 were dropped)" \
	'[ $rc -eq 0 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); f=d[\"flows\"][0]; sys.exit(not (len(f[\"path\"]) == 142 and len(f[\"alpha\"]) == 140))" "$W/words.out"' \
	"$(head -c 600 "$W/words.out")"

{ hdr; printf '# %5000s flow x from a to b packets 1 size 100 match dscp 2\n' ""; \
  echo "flow f from a to b packets 1 size 100 match dscp 1"; } >"$W/comment.topo"
plan comment --json
check "a 5,000-character comment stays a comment (its tail was read as a flow)" \
	'[ $rc -eq 0 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not [f[\"name\"] for f in d[\"flows\"]] == [\"f\"])" "$W/comment.out"' \
	"$(cat "$W/comment.out")"

# 2^32 packets fit in one frame: counted in 32 bits, that was no room at all
printf 'tdp-topology 1\ntf 1s\nk 1\nhost a\nhost b\nrouter r1\nlink a:e r1:i rate 2886218022912bit/s\nlink r1:o b:e rate 2886218022912bit/s\nflow f from a to b packets 1 size 60 match dscp 1\n' \
	>"$W/wide.topo"
plan wide
check "room for 2^32 packets in a frame is room (was cut to 32 bits: none)" '[ $rc -eq 0 ]' "$(cat "$W/wide.out")"
printf 'tdp-topology 1\ntf 1ms\nk 10\nhost a\nhost b\nrouter r1\nlink a:e r1:i rate 1Gbit/s delay 18446744073s\n' >"$W/delay.topo"
plan delay
check "a link delay past 10 s is an error at its line (the sum of delays wrapped)" \
	'refused delay "delay.topo:7: error: delay: .18446744073s. is not a time up to 10s"' "$(cat "$W/delay.out")"

{ hdr; echo "k 20"; echo "router r2 node-id 1 node-id 2"; echo "link r1:x a:y rate 1Gbit/s rate 10Gbit/s"; \
  echo "flow f from a to b packets 1 packets 2 size 100 match dscp 1"; } >"$W/twice.topo"
plan twice
check "a setting or attribute given twice is an error naming the first (was: the last one won)" \
	'refused twice "twice.topo:9: error: k given twice (first at line 3)" &&
	 grep -q "twice.topo:10: error: node-id given twice (first at line 10)" "$W/twice.out" &&
	 grep -q "twice.topo:11: error: rate given twice" "$W/twice.out" &&
	 grep -q "twice.topo:12: error: packets given twice" "$W/twice.out"' "$(cat "$W/twice.out")"

# r2's table cannot hold both flows (their matches overlap); r1's and the
# hosts' tables are fine and come first
{
	printf 'tdp-topology 1\ntf 1ms\nk 10\nhost a\nhost b\nhost c\nrouter r1\nrouter r2\n'
	printf 'link a:e r1:i rate 1Gbit/s\nlink r1:o r2:i rate 1Gbit/s\nlink r2:o b:e rate 1Gbit/s\nlink c:e r2:j rate 1Gbit/s\n'
	echo "flow f from a to b packets 1 size 100 match dscp 1"
	echo "flow g from c to b packets 1 size 100 match udp-dport 9"
} >"$W/overlap.topo"
plan overlap -o "$W/overlap"
check "a planned table that does not check: the error at the topology's flow line, nothing written" \
	'refused overlap "overlap.topo:14: error: the table for r2 does not check: flow g (udp-dport 9) overlaps flow f" &&
	 ! grep -q "overlap/r2.tdp:" "$W/overlap.out" && [ ! -e "$W/overlap" ]' "$(cat "$W/overlap.out")"

# 3,000 packets over 100,000 frames: a frame list of some 20,000 characters
printf 'tdp-topology 1\ntf 10us\nk 100000\nhost a\nhost b\nrouter r1\nlink a:e r1:i rate 1Gbit/s\nlink r1:o b:e rate 1Gbit/s\nflow f from a to b packets 3000 size 100 match dscp 1\n' \
	>"$W/frames.topo"
plan frames -o "$W/frames"
check "a long frame list is written whole: 3,000 packets a cycle in every table (it was cut at 512 characters)" \
	'[ $rc -eq 0 ] && [ "$(grep "^frames" "$W/frames/r1.tdp" | wc -c)" -gt 10000 ] &&
	 "$CTL" schedule json "$W/frames/r1.tdp" | python3 -c "import json,sys; d=json.load(sys.stdin); sys.exit(not [f[\"packets_per_cycle\"] for f in d[\"flows\"]] == [3000])"' \
	"$(cut -c1-200 "$W/frames.out")"

long="$W/$(printf 'd%.0s' $(seq 200))/$(printf 'e%.0s' $(seq 200))"
mkdir -p "$long"
{ hdr; echo "flow f from a to b packets 1 size 100 match dscp 1"; } >"$W/path.topo"
plan path -o "$long/$(printf 'f%.0s' $(seq 200))"
check "an output directory path of 600 characters: the tables land in it (names were cut at 512)" \
	'[ $rc -eq 0 ] && [ -s "$long/$(printf "f%.0s" $(seq 200))/r1.tdp" ]' "$(cat "$W/path.out")"
: >"$W/file"
plan path -o "$W/file"
check "an output path that is a file: exit 2, said so" \
	'[ $rc -eq 2 ] && grep -q "exists and is not a directory" "$W/path.out"' "$(cat "$W/path.out")"

mkdir "$W/dir.topo"
plan dir
check "a directory as the topology: said so" \
	'[ $rc -eq 1 ] && grep -q "dir.topo: is a directory, not a topology" "$W/dir.out"' "$(cat "$W/dir.out")"
{ hdr; printf 'flow f from a to b\0 packets 1\n'; echo "bogus"; } >"$W/nul.topo"
plan nul
check "a NUL byte: an error at its line and column; the next line is still read" \
	'refused nul "nul.topo:9: error: a NUL byte at column 19" && grep -q "nul.topo:10: error: unknown directive .bogus." "$W/nul.out"' \
	"$(cat "$W/nul.out")"
"$CTL" plan /dev/zero >"$W/zero.out" 2>&1
rc=$?
check "an endless input stops at 16 MiB with an error" \
	'[ $rc -eq 1 ] && grep -q "/dev/zero: error: more than 16 MiB: not a topology" "$W/zero.out"' "$(cat "$W/zero.out")"

{ hdr; echo "flow f path a r1 r1 b packets 1 size 100 match dscp 1"; echo "link r1:p r1:q rate 1Gbit/s"; } >"$W/loop.topo"
plan loop
check "a path through a node twice, and a link from a node to itself: errors" \
	'refused loop "loop.topo:9: error: path: r1 appears twice" && grep -q "loop.topo:10: error: a link joins two nodes, not r1 to itself" "$W/loop.out"' \
	"$(cat "$W/loop.out")"

# a table that cannot be written, and one that cannot be put in place:
# nothing of the plan is left in the directory either way
{ hdr; echo "flow f from a to b packets 1 size 100 match dscp 1"; } >"$W/io.topo"
mkdir -p "$W/io1/r1.tdp.tmp" "$W/io2/r1.tdp/x"
plan io -o "$W/io1"
check "a table's temporary file cannot be written: exit 2, no table written" \
	'[ $rc -eq 2 ] && grep -q "io1/r1.tdp.tmp: Is a directory" "$W/io.out" && [ ! -e "$W/io1/a.tdp" ] && [ ! -e "$W/io1/a.tdp.tmp" ]' \
	"$(cat "$W/io.out"; ls "$W/io1")"
plan io -o "$W/io2"
check "a table cannot be renamed into place: the tables already renamed are taken away too" \
	'[ $rc -eq 2 ] && grep -q "the tables of this plan already in place are removed" "$W/io.out" &&
	 [ ! -e "$W/io2/a.tdp" ] && [ "$(ls "$W/io2")" = r1.tdp ]' "$(cat "$W/io.out"; ls -R "$W/io2")"
plan io -o "$W/q\"uote" --json
check "--json with a quote in the directory's name is still JSON" \
	'[ $rc -eq 0 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not d[\"tables\"][0].endswith(\"q\\\"uote/a.tdp\"))" "$W/io.out"' \
	"$(cat "$W/io.out")"

# k up to 10^6 (TF 1 us): two flows placed, tables that check; 10^6 + 1 refused
printf 'tdp-topology 1\ntf 1us\nk 1000000\nguard 100ns\nhost a\nhost b\nrouter r1\nrouter r2\nlink a:e r1:i rate 10Gbit/s\nlink r1:o r2:i rate 10Gbit/s\nlink r2:o b:e rate 10Gbit/s\nflow f from a to b packets 3000 size 100 match dscp 1\nflow g from a to b packets 500 size 1000 frames 0-99999 match dscp 2\n' \
	>"$W/mega.topo"
plan mega -o "$W/mega"
sed 's/^k 1000000$/k 1000001/' "$W/mega.topo" >"$W/mega1.topo"
plan mega1
check "k 1,000,000 is planned, its tables check (it stopped at 100,000); 1,000,001 is refused at its line" \
	'grep -q "^k 1000000$" "$W/mega/r1.tdp" && "$CTL" schedule check "$W"/mega/*.tdp >/dev/null &&
	 refused mega1 "mega1.topo:3: error: k must be a whole number in 1..1000000"' \
	"$(cat "$W/mega.out" "$W/mega1.out" | cut -c1-200)"
# what placing 300 flows at k 10^6 would hold (1.2 GB of counts and room) is refused, not tried
{
	printf 'tdp-topology 1\ntf 1us\nk 1000000\nhost a\nhost b\nrouter r1\nlink a:e r1:i rate 10Gbit/s\nlink r1:o b:e rate 10Gbit/s\n'
	for i in $(seq 300); do echo "flow f$i from a to b packets 1 size 100 match dscp 1 udp-dport $i"; done
} >"$W/mem.topo"
plan mem -o "$W/mem"
check "k 10^6 with 300 flows: the memory it would take is an error at the k line, nothing written" \
	'refused mem "mem.topo:3: error: k 1000000 with 300 flows and 2 links takes 1186 MiB to plan, more than 1024 MiB" && [ ! -e "$W/mem" ]' \
	"$(head -3 "$W/mem.out")"
