#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Two-phase table loads on a router in network namespaces, with tdpctl: a
# table staged (checked and built, held under an id, its digest the file's
# SHA-256), then committed at a time, aborted, or left to expire; every bad
# request (an unknown id, one already committed, no id, a time already past,
# a stage or a load while a table is staged, an invalid table, a change on the
# monitor socket) refused with its code, the table in force unchanged.
# Bounded: every wait has a timeout; the namespaces go away however it ends.
# usage: stage_net.sh TDPCTL TDPD SRCDIR  (TAP)
set -uo pipefail
CTL=$1
TDPD=$2
SRC=$3

. "$SRC/tests/net/netns.sh"
net_test_begin sha256sum
. "$SRC/tests/tap.sh"
echo "1..14"

RO=$W/tdpd-ro.sock
RW=$W/tdpd.sock
j() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>&1; }
# the error code of a refused request: a raw reply's "code", or the one
# tdpctl prints in parentheses ("tdpctl: WHY (CODE)")
code_of() {
	python3 - "$1" <<'PY'
import json, re, sys
txt = open(sys.argv[1]).read()
try:
    print(json.loads(txt).get("code", "ok"))
except ValueError:
    m = re.search(r"^tdpctl: .* \(([a-z-]+)\)$", txt, re.M)
    print(m.group(1) if m else "none")
PY
}
ctl() { local out=$1; shift; rc=0; "$CTL" --socket "$RW" --json "$@" >"$out" 2>&1 || rc=$?; }
active() { "$CTL" --socket "$RO" --json schedule active >"$1" 2>&1; }

probe_table "$W/a.tdp"
swap_tables "$W/b.tdp" "$W/bad.tdp"
digest_b=$(sha256sum "$W/b.tdp" | cut -d' ' -f1)
digest_a=$(sha256sum "$W/a.tdp" | cut -d' ' -f1)

net_up "stg$$"
router_conf "$W/tdpd.conf" "$W/a.tdp"
ip netns exec "$NS_RTR" "$TDPD" -f "$W/tdpd.conf" >"$W/tdpd.out" 2>"$W/tdpd.err" &
TPID=$!
PIDS+=($TPID)
for _ in $(seq 100); do grep -q "forwarding:" "$W/tdpd.err" && [ -S "$RO" ] && break; sleep 0.1; done

# 1: stage
ctl "$W/s1.json" schedule stage "$W/b.tdp"
active "$W/act1.json"
check "stage: an id and the file's SHA-256; schedule active shows it staged, a.tdp still in force with its digest" \
	'[ $rc -eq 0 ] && [ "$(j "$W/s1.json" "(d[\"id\"] > 0, d[\"digest\"], d[\"k\"], d[\"flows\"], d[\"expires_in_ms\"])")" = "(True, '"'$digest_b'"', 20, 2, 60000)" ] && [ "$(j "$W/act1.json" "(d[\"staged\"][\"id\"], d[\"staged\"][\"digest\"], d[\"table\"][\"digest\"], d[\"table\"][\"k\"], d[\"pending\"])")" = "($(j "$W/s1.json" "d[\"id\"]"), '"'$digest_b'"', '"'$digest_a'"', 10, None)" ]' \
	"rc $rc: $(cat "$W/s1.json" "$W/act1.json")"
id1=$(j "$W/s1.json" 'd["id"]')

# 2: busy while staged
ctl "$W/busy1.json" schedule stage "$W/a.tdp"; rc1=$rc
ctl "$W/busy2.json" schedule load --no-wait "$W/a.tdp"; rc2=$rc
check "while a table is staged, another stage and a load are busy, naming it" \
	'[ $rc1 -eq 1 ] && [ $rc2 -eq 1 ] && [ "$(code_of "$W/busy1.json") $(code_of "$W/busy2.json")" = "busy busy" ] && grep -q "staged as $id1" "$W/busy1.json"' \
	"$rc1 $rc2: $(cat "$W/busy1.json" "$W/busy2.json")"

# 3: bad ids, no id, the monitor socket
ctl "$W/c0.json" schedule commit $((id1 + 7)); rc1=$rc
ctl "$W/a0.json" schedule abort $((id1 + 7)); rc2=$rc
"$CTL" --socket "$RW" raw '{"version":1,"cmd":"schedule-commit","args":{}}' >"$W/noid.json" 2>&1
"$CTL" --socket "$RW" raw '{"version":1,"cmd":"schedule-commit","args":{"id":'"$id1"',"in_ns":-5}}' >"$W/neg.json" 2>&1
"$CTL" --socket "$RW" raw '{"version":1,"cmd":"schedule-commit","args":{"id":'"$id1"',"in_ns":9223372036854775807}}' >"$W/far.json" 2>&1
rc3=0; "$CTL" --socket "$RO" schedule commit "$id1" >"$W/ro.out" 2>&1 || rc3=$?
check "commit and abort of an unknown id (unknown-stage), a commit with no id, a negative time or one at the 64-bit limit (bad-args), a commit on the monitor socket (read-only)" \
	'[ $rc1 -eq 1 ] && [ $rc2 -eq 1 ] && [ "$(code_of "$W/c0.json") $(code_of "$W/a0.json") $(code_of "$W/noid.json") $(code_of "$W/neg.json") $(code_of "$W/far.json")" = "unknown-stage unknown-stage bad-args bad-args bad-args" ] && [ $rc3 -eq 1 ] && grep -q "read-only" "$W/ro.out"' \
	"$rc1 $rc2 $rc3: $(cat "$W/c0.json" "$W/a0.json" "$W/noid.json" "$W/neg.json" "$W/far.json" "$W/ro.out")"

# 4: a time already past: refused, still staged
ctl "$W/past.json" schedule commit "$id1" --at 1000
active "$W/act2.json"
check "a commit for a time already past is refused (too-late); the table stays staged, a.tdp in force" \
	'[ $rc -eq 1 ] && [ "$(code_of "$W/past.json")" = too-late ] && [ "$(j "$W/act2.json" "(d[\"staged\"][\"id\"], d[\"table\"][\"k\"])")" = "($id1, 10)" ]' \
	"rc $rc: $(cat "$W/past.json" "$W/act2.json")"

# 5: commit at a time: in force at the first common cycle start at or after it
now=$("$CTL" --socket "$RO" --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)["tai_ns"])')
ctl "$W/commit.json" schedule commit "$id1" --at +0.5
active "$W/act3.json"
check "commit --at +0.5: adopted at the first common cycle start (k 10 and 20) at or after that time, as planned" \
	'[ $rc -eq 0 ] && [ "$(j "$W/commit.json" "(d[\"frame\"] % 20, d[\"frame\"] == d[\"requested_frame\"], d[\"asked_tai_ns\"] >= $now + 500000000, 0 <= d[\"frame\"] * 1000000 - d[\"asked_tai_ns\"] < 20000000)")" = "(0, True, True, True)" ]' \
	"now $now, rc $rc: $(cat "$W/commit.json")"
check "then b.tdp is in force with the staged digest, nothing staged or waiting; the counts say 1 staged, 1 committed" \
	'[ "$(j "$W/act3.json" "(d[\"table\"][\"digest\"], d[\"table\"][\"k\"], d[\"staged\"], d[\"pending\"], d[\"stages\"][\"staged\"], d[\"stages\"][\"committed\"])")" = "('"'$digest_b'"', 20, None, None, 1, 1)" ]' \
	"$(cat "$W/act3.json")"
ctl "$W/again.json" schedule commit "$id1"
check "the same id committed again: unknown-stage, b.tdp stays" \
	'[ $rc -eq 1 ] && [ "$(code_of "$W/again.json")" = unknown-stage ] && "$CTL" --socket "$RO" schedule active | grep -q "in force .*b.tdp"' \
	"rc $rc: $(cat "$W/again.json")"

# 6: abort (the table from standard input, named by --name)
ctl "$W/s2.json" schedule stage --name from-stdin.tdp - <"$W/a.tdp"
id2=$(j "$W/s2.json" 'd["id"]')
ctl "$W/abort.json" schedule abort "$id2"
active "$W/act4.json"
check "stage from standard input with --name, then abort: a new id, the name and the daemon's TAI time in the reply, dropped, nothing staged, b.tdp still in force" \
	'[ $rc -eq 0 ] && [ "$id2" -gt "$id1" ] && [ "$(j "$W/s2.json" "(d[\"table\"], d[\"digest\"], d[\"tai_ns\"] > 1600000000 * 10**9)")" = "('"'from-stdin.tdp'"', '"'$digest_a'"', True)" ] && [ "$(j "$W/abort.json" "(d[\"aborted\"], d[\"table\"], d[\"in_force\"].endswith(\"b.tdp\"))")" = "($id2, '"'from-stdin.tdp'"', True)" ] && [ "$(j "$W/act4.json" "(d[\"staged\"], d[\"table\"][\"k\"], d[\"stages\"][\"aborted\"])")" = "(None, 20, 1)" ]' \
	"rc $rc: $(cat "$W/s2.json" "$W/abort.json" "$W/act4.json")"
ctl "$W/after_abort.json" schedule commit "$id2"
check "a commit after the abort: unknown-stage" \
	'[ $rc -eq 1 ] && [ "$(code_of "$W/after_abort.json")" = unknown-stage ]' "rc $rc: $(cat "$W/after_abort.json")"

# 7: expiry
ctl "$W/s3.json" schedule stage --ttl 0.3 "$W/a.tdp"
id3=$(j "$W/s3.json" 'd["id"]')
for _ in $(seq 50); do active "$W/act5.json"; [ "$(j "$W/act5.json" 'd["staged"]')" = None ] && break; sleep 0.1; done
ctl "$W/late.json" schedule commit "$id3"
check "a stage with --ttl 0.3 not committed expires: dropped (counted, logged), its commit unknown-stage, b.tdp in force" \
	'[ "$(j "$W/s3.json" "d[\"expires_in_ms\"]")" = 300 ] && [ "$(j "$W/act5.json" "(d[\"staged\"], d[\"stages\"][\"expired\"], d[\"table\"][\"k\"])")" = "(None, 1, 20)" ] && [ "$(code_of "$W/late.json")" = unknown-stage ] && grep -q "staged as $id3) expired" "$W/tdpd.err"' \
	"$(cat "$W/s3.json" "$W/act5.json" "$W/late.json"; grep -i stage "$W/tdpd.err")"

# 8: bad stages
ctl "$W/sbad.json" schedule stage "$W/bad.tdp"
check "an invalid table is not staged: invalid-table with its errors (file:line), nothing staged" \
	'[ $rc -eq 1 ] && [ "$(code_of "$W/sbad.json")" = invalid-table ] && grep -q "bad.tdp:[0-9]*:[0-9]*: error" "$W/sbad.json" && active "$W/act6.json" && [ "$(j "$W/act6.json" "d[\"staged\"]")" = None ]' \
	"rc $rc: $(cat "$W/sbad.json")"
"$CTL" --socket "$RW" raw '{"version":1,"cmd":"schedule-stage","args":{"name":"x"}}' >"$W/nofd.json" 2>&1
rc1=0; "$CTL" --socket "$RW" schedule stage --ttl 0 "$W/a.tdp" >"$W/ttl0.out" 2>&1 || rc1=$?
check "a stage with no table passed (bad-args) or a TTL of 0 (usage, exit 2) is refused" \
	'[ "$(code_of "$W/nofd.json")" = bad-args ] && [ $rc1 -eq 2 ] && grep -q "ttl" "$W/ttl0.out"' \
	"$rc1: $(cat "$W/nofd.json" "$W/ttl0.out")"

# 9: a table staged at stop
ctl "$W/s4.json" schedule stage "$W/a.tdp"
"$CTL" --socket "$RO" schedule active >"$W/act7.txt" 2>&1
check "schedule active in text names the staged table, its id and digest" \
	'grep -q "staged .*a.tdp as $(j "$W/s4.json" "d[\"id\"]"): k 10, 1 flows, digest ${digest_a:0:16}" "$W/act7.txt" && grep -q "digest    $digest_b" "$W/act7.txt"' \
	"$(cat "$W/act7.txt")"
kill -TERM $TPID
rc=0
wait $TPID || rc=$?
check "SIGTERM with a table staged: exit 0, the staged table dropped with the daemon" \
	'[ $rc -eq 0 ] && [ ! -e "$RW" ]' "rc $rc: $(tail -5 "$W/tdpd.err")"
