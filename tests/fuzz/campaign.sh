#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The fuzz campaign: every target to EXECS executions or SECS seconds, which
# ever comes first, two at a time; then per target the executions, the
# coverage (edges and features of the instrumented code), the corpus, and
# the findings. New inputs that add coverage are merged into the target's
# corpus in tests/fuzz/corpus; a finding is kept there too (it must then
# pass, once fixed) and its path printed.
# usage: campaign.sh BUILD-FUZZ EXECS SECS OUT.md TARGET...
set -uo pipefail
B=$(realpath "$1") EXECS=$2 SECS=$3 OUT=$(realpath -m "$4")
shift 4
TARGETS=("$@")
cd "$(dirname "$0")/../.."
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

one() { # one TARGET: runs it, leaves its log in $W/T.log
	local t=$1 dict=()
	mkdir -p "$W/$t" "tests/fuzz/corpus/$t"
	[ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
	local t0=$SECONDS
	"$B/tests/fuzz/fuzz_$t" -runs="$EXECS" -max_total_time="$SECS" "${dict[@]}" -max_len=4096 \
		-rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix="$W/$t-" \
		"$W/$t" "tests/fuzz/corpus/$t" >"$W/$t.log" 2>&1
	echo "seconds $((SECONDS - t0))" >>"$W/$t.log"
}

for t in "${TARGETS[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
	one "$t" &
done
wait

{
	echo "| target | executions | seconds | exec/s | edges | features | corpus | findings |"
	echo "|---|---:|---:|---:|---:|---:|---:|---|"
} >"$OUT"
found=0
for t in "${TARGETS[@]}"; do
	log=$W/$t.log
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	last=$(grep -E "^#[0-9]+" "$log" | grep -E "cov: " | tail -1)
	cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$last")
	secs=$(sed -n 's/^seconds //p' "$log")
	arts=$(ls "$W/$t"-* 2>/dev/null)
	finds=none
	if [ -n "$arts" ]; then
		found=1
		finds=""
		for a in $arts; do
			cp "$a" "tests/fuzz/corpus/$t/"
			finds="$finds $(basename "$a")"
		done
	fi
	# keep what adds coverage
	"$B/tests/fuzz/fuzz_$t" -merge=1 -max_len=4096 -rss_limit_mb=2048 -timeout=10 \
		"tests/fuzz/corpus/$t" "$W/$t" >/dev/null 2>&1
	corp=$(ls "tests/fuzz/corpus/$t" | wc -l)
	eps=$([ "${secs:-0}" -gt 0 ] && echo $(( ${execs:-0} / secs )) || echo "-")
	echo "| $t | ${execs:-?} | ${secs:-?} | $eps | ${cov:-?} | ${ft:-?} | $corp | ${finds# } |" >>"$OUT"
	[ -n "$arts" ] && { echo "== $t"; grep -E "ERROR|SUMMARY|abort" "$log" | head -5; }
done
cat "$OUT"
exit $found
