#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A walk through the reservation-table
# tools on the example tables. Writes into build/tables-tour/.
# usage: tools/tables-tour.sh TDPCTL
set -euo pipefail
T=$1
cd "$(dirname "$0")/.."
EX=schedules/examples
OUT=build/tables-tour
mkdir -p "$OUT"
step() { printf '\n\033[1m--- %s\033[0m\n$ %s\n' "$1" "${*:2}"; "${@:2}"; }

step "1. check the example tables (parse + admission control)" "$T" schedule check "$EX"/*.tdp
step "2. what a table reserves, per port and per flow" "$T" schedule show "$EX"/voice-video-be.tdp
step "3. a new table for a gigabit port at TF 100 us" \
	"$T" schedule new --tf 100us --k 100 --guard 2us --port eth0:1Gbit/s -o "$OUT/my.tdp" --force
cat >>"$OUT/my.tdp" <<'TDP'
flow voice port eth0 size 214 dscp 46 udp-dport 5004   # G.711, 20 ms
flow video port eth0 size 1514 dscp 34                 # full-size frames
TDP
step "4. reserve voice every 10th frame and video every other frame (each edit is re-admitted)" \
	"$T" schedule reserve "$OUT/my.tdp" voice 1 '0-99/10'
"$T" schedule reserve "$OUT/my.tdp" video 6 '0-99/2'
step "5. overbooking is refused, and the file stays as it was" \
	"$T" schedule reserve "$OUT/my.tdp" video 2 '0-99/2' || true
step "6. what changed against the example" "$T" schedule diff "$EX"/voice-video-be.tdp "$OUT/my.tdp" || true
step "7. the cycle as a picture" "$T" schedule show --svg "$OUT/voice-video-be.svg" "$EX"/voice-video-be.tdp >/dev/null
"$T" schedule show --svg "$OUT/k10000.svg" "$EX"/k10000.tdp >/dev/null
if command -v rsvg-convert >/dev/null; then
	rsvg-convert -o "$OUT/voice-video-be.png" "$OUT/voice-video-be.svg"
	rsvg-convert -o "$OUT/k10000.png" "$OUT/k10000.svg"
fi
ls -l "$OUT"
printf 'tdp-schedule 1\ntf 300us\nk 10\nport eth0 rate 1Gbit/z\n' >"$OUT/bad.tdp"
step "8. a bad table gets file:line:col, and a non-zero exit" "$T" schedule check "$OUT/bad.tdp" || true
printf '\ndone: the tables and pictures are in %s/\n' "$OUT"
