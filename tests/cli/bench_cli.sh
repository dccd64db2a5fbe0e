#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# bench_engine's command line: --help says what it runs and exits 0; a word
# that is neither a benchmark nor an option, --flows with what is not a
# count, --cpu with what is not a CPU number and an option without its value
# are refused with exit 2 before any benchmark runs. Before, --cpu x ran on
# CPU 0. Before, --help
# and a misspelt benchmark ran every benchmark (minutes of a CPU at
# SCHED_FIFO). The flows' curve at 10^5 flows, quick: each round carries
# the frames it asks for, RX queues each to its flow and both yardstick
# loops forward each, so that every ns a packet counts the same packets.
# Before, a round carried 4,095 of its 16,000 (port in's ring) and the
# l3fwd-style loop dropped the flows past 10.200.255.255, whose time then
# counted for the frames it forwarded. bench_routes: --help, and a word it
# does not take or --svg without its value refused with exit 2 before the
# EAL starts (before, it ignored them: ./run bench handed it the engine's
# --cpu and --flows). Nothing here times anything. (TAP)
# usage: bench_cli.sh BENCH_ENGINE SRCDIR BENCH_ROUTES
set -uo pipefail
BENCH=$1
SRC=$2
ROUTES=$3
. "$SRC/tests/tap.sh"
tap_workdir
echo "1..9"

"$BENCH" --help >"$W/out" 2>"$W/err"
rc=$?
check "--help: the usage on stdout, exit 0, no benchmark run" \
	'[ $rc -eq 0 ] && grep -q "^usage: bench_engine \[clock|start|datapath|frame|tick|stamps\]" "$W/out" && grep -q "flows N: that row alone" "$W/out" && ! grep -q "engine benchmarks" "$W/out"' \
	"rc $rc: $(head -c 400 "$W/out" "$W/err")"

"$BENCH" datpath >"$W/out" 2>"$W/err"
rc=$?
check "a misspelt benchmark (datpath) is refused with exit 2, the usage on stderr, nothing run" \
	'[ $rc -eq 2 ] && grep -q "^bench: datpath: not a benchmark or an option$" "$W/err" && grep -q "^usage: bench_engine" "$W/err" && [ ! -s "$W/out" ]' \
	"rc $rc: $(head -c 400 "$W/out" "$W/err")"

"$BENCH" datapath --flows ten >"$W/out" 2>"$W/err"
rc=$?
check "--flows ten is refused with exit 2, nothing run" \
	'[ $rc -eq 2 ] && grep -q "^bench: --flows ten: not a count of flows$" "$W/err" && [ ! -s "$W/out" ]' \
	"rc $rc: $(head -c 400 "$W/out" "$W/err")"

"$BENCH" clock --cpu one >"$W/out" 2>"$W/err"
rc=$?
check "--cpu one is refused with exit 2, nothing run (it ran on CPU 0 before)" \
	'[ $rc -eq 2 ] && grep -q "^bench: --cpu one: not a CPU number$" "$W/err" && [ ! -s "$W/out" ]' \
	"rc $rc: $(head -c 400 "$W/out" "$W/err")"

"$BENCH" datapath --flows >"$W/out" 2>"$W/err"
rc=$?
check "--flows with no value is refused with exit 2, nothing run" \
	'[ $rc -eq 2 ] && grep -q "^bench: --flows: needs a value$" "$W/err" && [ ! -s "$W/out" ]' \
	"rc $rc: $(head -c 400 "$W/out" "$W/err")"

"$BENCH" datapath --flows 100000 --quick >"$W/out" 2>"$W/err"
rc=$?
check "the curve at 10^5 flows: every round's 16,000 frames given, queued by RX to their flows, forwarded by both loops" \
	'[ $rc -eq 0 ] && grep -Eq "^ +100000 +[0-9.]+ " "$W/out" && grep -q "^every row: each round.s frames all given, RX queued each to its flow, and both loops forwarded each$" "$W/out" && ! grep -q "^bench:" "$W/err"' \
	"rc $rc: $(tail -c 600 "$W/out"; tail -c 600 "$W/err")"

"$ROUTES" --help >"$W/out" 2>"$W/err"
rc=$?
check "bench_routes --help: the usage on stdout, exit 0, nothing run" \
	'[ $rc -eq 0 ] && grep -q "^usage: bench_routes \[--quick\] \[--svg PREFIX\]$" "$W/out" && ! grep -q "route tables, 10 to" "$W/out"' \
	"rc $rc: $(head -c 400 "$W/out" "$W/err")"

"$ROUTES" --flows 1000 >"$W/out" 2>"$W/err"
rc=$?
check "bench_routes --flows 1000 (the engine's option) is refused with exit 2, nothing run" \
	'[ $rc -eq 2 ] && grep -q "^bench_routes: --flows: not an option$" "$W/err" && grep -q "^usage: bench_routes" "$W/err" && [ ! -s "$W/out" ]' \
	"rc $rc: $(head -c 400 "$W/out" "$W/err")"

"$ROUTES" --quick --svg >"$W/out" 2>"$W/err"
rc=$?
check "bench_routes --svg with no value is refused with exit 2, nothing run" \
	'[ $rc -eq 2 ] && grep -q "^bench_routes: --svg: needs a value$" "$W/err" && [ ! -s "$W/out" ]' \
	"rc $rc: $(head -c 400 "$W/out" "$W/err")"
