#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tdpctl against a socket that answers as no tdpd would: a reply without end
# (cut off at 64 MiB, never held whole), a reply followed by more bytes (the
# line is the reply), and replies whose numbers sit at the ends of the
# 64-bit range (every command prints them without overflow; under the
# sanitizer build an overflow stops it). What a daemon sends is outside input.
# And schedule load and stage refuse bad arguments before any socket.
# usage: ctl_replies.sh TDPCTL  (TAP)
set -uo pipefail
CTL=$1
. "$(dirname "$0")/../tap.sh"
W=$(mktemp -d)
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null; rm -rf "$W"' EXIT
echo "1..6"

# serve MODE SOCKET: answers every connection as MODE says
serve() {
	python3 - "$1" "$2" <<'PY' &
import json, os, socket, sys
mode, path = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
s.listen(8)
s.settimeout(60)
BIG = 2**63 - 1
LOW = -2**63
def edges(cmd):
    flow = {k: BIG for k in ("rx", "reserved", "sent", "unused", "late_dropped", "late_carried", "tx_carried",
                             "arr_late_dropped", "arr_late_carried", "overflow", "tx_drop", "demoted", "stamped",
                             "arr_guard", "arr_uncertain")}
    flow.update({"name": "f", "port": "p", "arrival_ns": {"count": BIG, "p50": LOW, "p99": BIG, "max": BIG}})
    port = {k: BIG for k in ("dpdk_port", "rate_bps", "frames", "late_frames", "reserved_pkts", "be_pkts", "tx_drop",
                             "be_tx_drop")}
    port.update({"name": "p", "device": "d", "mac": "m"})
    sync = {"state": "locked", "reason": "r", "offset_ns": LOW, "uncertainty_ns": BIG, "last_step_ns": LOW,
            "samples": BIG, "bad_samples": BIG, "faults": BIG, "transitions": BIG, "steps": BIG}
    table = {"name": "t", "tf_ns": LOW, "k": BIG, "guard_ns": BIG, "flows": BIG, "adopted_frame": LOW,
             "digest": "0" * 64, "origin": "o", "flow_list": [{"name": "f", "port": "p"}]}
    return {"version": 1, "tai_ns": LOW, "uptime_s": 1e308, "log_level": "info", "sync": sync, "table": table,
            "frames": {k: BIG for k in ("processed", "late", "skipped", "next", "alarm", "demoted")},
            "start_error_ns": {"p50": LOW, "p99": BIG, "p999": BIG, "max": BIG}, "flows": [flow], "ports": [port],
            "engine": {k: BIG for k in ("frames", "late_frames", "skipped_frames", "swaps", "holdover_frames")},
            "elapsed_s": -1e308, "tf_ns": LOW, "k": BIG, "timebase": "system", "rx": {"pkts": BIG, "drop": {"x": BIG}},
            "pending": {"name": "n", "k": BIG, "flows": BIG, "frame": LOW, "start_tai_ns": BIG},
            "staged": {"name": "s", "id": BIG, "k": BIG, "flows": BIG, "digest": "0" * 64, "expires_in_ms": LOW},
            "last_swap": {"name": "l", "frame": LOW, "requested": BIG}, "loads": BIG, "rejected": BIG, "swaps": BIG,
            "late_swaps": BIG, "budget": {"budget_ns": BIG, "from": "sync-error", "over": True, "action": "alarm",
                                          "over_budget_frames": BIG, "time_offset_ns": LOW},
            "tick": {"ticks": BIG, "timeouts": BIG, "missed": BIG, "doubled": BIG, "latency_ns": {"p50": LOW, "p99": BIG}},
            "alarms": [{"kind": "sync-budget", "uncertainty_ns": BIG, "budget_ns": LOW, "from": "guard/4",
                        "action": "demote"}]}
while True:
    try:
        c, _ = s.accept()
    except socket.timeout:
        break
    req = b""
    while not req.endswith(b"\n"):
        b = c.recv(4096)
        if not b:
            break
        req += b
    cmd = json.loads(req)["cmd"] if req else ""
    try:
        if mode == "endless":
            chunk = b"a" * 65536
            for _ in range(70 * 16):  # 70 MiB, no newline
                c.sendall(chunk)
        elif mode == "trailing":
            c.sendall(json.dumps({"version": 1, "ok": True, "result": {"level": "info"}}).encode() + b"\ngarbage " * 1000)
        else:
            c.sendall(json.dumps({"version": 1, "ok": True, "result": edges(cmd)}).encode() + b"\n")
    except OSError:
        pass
    c.close()
PY
	PIDS+=($!)
	for _ in $(seq 50); do [ -S "$2" ] && return 0; sleep 0.1; done
}

serve endless "$W/endless.sock"
rc=0
"$CTL" --socket "$W/endless.sock" --timeout 20000 status >"$W/e.out" 2>&1 || rc=$?
check "a reply without end: cut off at 64 MiB, refused with why, exit 3" \
	'[ $rc -eq 3 ] && grep -q "the reply is longer than 64 MiB without its end" "$W/e.out"' "rc $rc: $(head -c 600 "$W/e.out")"

serve trailing "$W/trailing.sock"
rc=0
"$CTL" --socket "$W/trailing.sock" --json log-level >"$W/t.out" 2>&1 || rc=$?
check "a reply line followed by more bytes: the line is the reply" \
	'[ $rc -eq 0 ] && grep -q "\"level\": \"info\"" "$W/t.out"' "rc $rc: $(head -c 600 "$W/t.out")"

serve edges "$W/edges.sock"
bad=
for c in status "schedule active" stats sync flows ports; do
	rc=0
	# shellcheck disable=SC2086
	"$CTL" --socket "$W/edges.sock" $c >"$W/c.out" 2>&1 || rc=$?
	[ $rc -eq 0 ] || bad="$bad $c:$rc"
done
check "numbers at the ends of the 64-bit range: status, schedule active, stats, sync, flows and ports print them" \
	'[ -z "$bad" ]' "failed:$bad $(head -c 600 "$W/c.out")"
rc=0
"$CTL" --socket "$W/edges.sock" stats --prometheus >"$W/p.out" 2>&1 || rc=$?
check "and the Prometheus text of them" '[ $rc -eq 0 ] && grep -q "^tdpd_frames_total 9223372036854775807$" "$W/p.out"' \
	"rc $rc: $(head -c 600 "$W/p.out")"
# the reply's flow has no late_slots, its port no push_retries, its sync no
# busy_samples, its rx no bytes and no fragmented (counters of
# ctl_counters.h): said, and left out rather than printed as 0
check "a counter the reply lacks is named on stderr and left out, never a 0" \
	'grep -q "a flow in the daemon.s reply has no counter \"late_slots\"" "$W/p.out" &&
	 grep -q "a port in the daemon.s reply has no counter \"push_retries\"" "$W/p.out" &&
	 ! grep -q "^tdpd_flow_late_slots_total{" "$W/p.out" && ! grep -q "^tdpd_port_push_retries_total{" "$W/p.out" &&
	 grep -q "^tdpd_flow_sent_total{flow=\"f\",port=\"p\"} 9223372036854775807$" "$W/p.out" &&
	 grep -q "has no engine counter \"ticks\"" "$W/p.out" && ! grep -q "^tdpd_ticks_total " "$W/p.out" &&
	 grep -q "has no sync counter \"busy_samples\"" "$W/p.out" && ! grep -q "^tdpd_sync_busy_samples_total " "$W/p.out" &&
	 grep -q "^tdpd_sync_samples_total 9223372036854775807$" "$W/p.out" &&
	 grep -q "has no rx counter \"bytes\"" "$W/p.out" && ! grep -q "^tdpd_rx_bytes_total " "$W/p.out" &&
	 grep -q "^tdpd_rx_packets_total 9223372036854775807$" "$W/p.out" &&
	 grep -q "has no rx.fragmented counter \"packets\"" "$W/p.out" && ! grep -q "^tdpd_rx_fragmented_total " "$W/p.out"' \
	"$(grep -i "counter\|late_slots\|push_retries" "$W/p.out" | head -20)"
# before any socket: an unknown option and a second file, for load and for stage
out=
for c in load stage; do
	rc=0
	o=$("$CTL" --socket "$W/none.sock" schedule $c --frob a.tdp 2>&1) || rc=$?
	out="$out$c:$rc:$o;"
	rc=0
	o=$("$CTL" --socket "$W/none.sock" schedule $c a.tdp b.tdp 2>&1) || rc=$?
	out="$out$c:$rc:$o;"
done
check "schedule load and stage refuse an unknown option and a second file, exit 2, before any socket" \
	'grep -q "load:2:tdpctl: schedule load: unknown option .--frob.;load:2:tdpctl: schedule load takes one file;" <<<"$out" &&
	 grep -q "stage:2:tdpctl: schedule stage: unknown option .--frob.;stage:2:tdpctl: schedule stage takes one file;" <<<"$out"' "$out"
