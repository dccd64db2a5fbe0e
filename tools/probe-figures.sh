#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# docs/figures.md's first picture: sender -> receiver over veth at TF 100 us, once
# with --timer nanosleep (the user-space baseline) and once with --timer
# predictive, overlaid in one report. Figures, not a test.
# usage: tools/probe-figures.sh [FRAMES (default 1000000)] [OUTDIR (default build/figures)]
set -euo pipefail
cd "$(dirname "$0")/.."
FRAMES=${1:-1000000}
OUT=${2:-build/figures}
PROBE=${PROBE:-build/tools/probe/tdp-probe}
mkdir -p "$OUT"
P=fig$$
cleanup() { ip netns pids ${P}b 2>/dev/null | xargs -r kill -9; ip netns del ${P}a 2>/dev/null; ip netns del ${P}b 2>/dev/null; true; }
trap cleanup EXIT
trap 'exit 1' INT TERM
ip netns add ${P}a
ip netns add ${P}b
for x in a b; do
	ip netns exec ${P}$x sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip -n ${P}$x link set lo up
done
ip -n ${P}a link add pa type veth peer name pb netns ${P}b
ip -n ${P}a link set pa up
ip -n ${P}b link set pb up
for timer in nanosleep predictive; do
	echo "== $timer: $FRAMES frames at TF 100 us ($((FRAMES / 10000)) s)"
	rm -f "$OUT/$timer.ready"
	ip netns exec ${P}b "$PROBE" recv -i pb --cpu 0 --prio 70 --label "$timer" --json "$OUT/$timer.json" \
		--ready "$OUT/$timer.ready" --no-live >"$OUT/$timer.recv.txt" 2>&1 &
	rp=$!
	for _ in $(seq 100); do [ -f "$OUT/$timer.ready" ] && break; sleep 0.1; done
	ip netns exec ${P}a "$PROBE" send -i pa --tf 100us --count "$FRAMES" --timer "$timer" --cpu 1 --prio 80 \
		--json "$OUT/$timer.send.json" 2>&1 | tee "$OUT/$timer.send.txt" | tail -2
	wait $rp
	sed -n '2,6p' "$OUT/$timer.recv.txt"
done
"$PROBE" report "$OUT/nanosleep.json" "$OUT/predictive.json" --markdown \
	--title "tdp-probe over veth, TF 100 us, $FRAMES frames: nanosleep vs predictive" \
	-o "$OUT/probe-tf100us.png" | tee "$OUT/table.md"
"$PROBE" report "$OUT/nanosleep.json" "$OUT/predictive.json" -o "$OUT/probe-tf100us.html" \
	--title "tdp-probe over veth, TF 100 us, $FRAMES frames: nanosleep vs predictive" >/dev/null
echo "figures in $OUT"
