#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tdpd's control and monitor sockets, with tdpctl, on a router in network
# namespaces: every read command in both forms, the Prometheus text, the
# refusals (a change on the monitor socket, a peer without permission, bad
# requests of every kind) that change nothing, clients that hold on (a load
# whose table never comes, idle connections, a thousand at once) without
# holding up any other, and table swaps while probes
# go through: an invalid table rejected with its errors, two swaps adopted at
# cycle boundaries, a time already past refused, and not a probe lost.
# Bounded: every wait has a timeout; the namespaces go away however it ends.
# usage: control_net.sh TDPCTL TDP-PROBE TDPD SRCDIR  (TAP)
set -uo pipefail
CTL=$1
PROBE=$2
TDPD=$3
SRC=$4

. "$SRC/tests/net/netns.sh"
net_test_begin
chmod 0755 "$W" # the unprivileged peer must reach the sockets to be refused by them
. "$SRC/tests/tap.sh"
echo "1..28"

RO=$W/tdpd-ro.sock
RW=$W/tdpd.sock
j() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>&1; }

probe_table "$W/a.tdp"
swap_tables "$W/b.tdp" "$W/bad.tdp"

net_up "ctl$$"
router_conf "$W/tdpd.conf" "$W/a.tdp" "late-policy carry" "summary-json $W/sum.json" "control-group tdpctltest$$"
# a fake systemd: tdpd's notify datagrams, one per line ("|" for newlines)
python3 - "$W/notify" "$W/notify.log" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1]); s.settimeout(60)
with open(sys.argv[2], "w", buffering=1) as f:
    while True:
        try: m = s.recv(4096).decode()
        except socket.timeout: break
        f.write(m.replace("\n", "|") + "\n")
        if m.startswith("STOPPING=1"): break
PY
PIDS+=($!)
for _ in $(seq 50); do [ -S "$W/notify" ] && break; sleep 0.1; done
NOTIFY_SOCKET=$W/notify WATCHDOG_USEC=400000 ip netns exec "$NS_RTR" "$TDPD" -f "$W/tdpd.conf" >"$W/tdpd.out" 2>"$W/tdpd.err" &
TPID=$!
PIDS+=($TPID)
for _ in $(seq 100); do grep -q "forwarding:" "$W/tdpd.err" && [ -S "$RO" ] && break; sleep 0.1; done
check "tdpd comes up with a control socket (0660) and a monitor socket (0666)" \
	'[ "$(stat -c %a "$RW")" = 660 ] && [ "$(stat -c %a "$RO")" = 666 ]' "$(cat "$W/tdpd.err")"

# ---- reading --------------------------------------------------------------------
"$CTL" --socket "$RO" status >"$W/st" 2>&1
check "status: table, frames, start error and sync in a few lines" \
	'grep -q "^table .*a.tdp: TF 1.0 ms, k 10" "$W/st" && grep -q "^frames .* processed" "$W/st" && grep -q "^time .*sync unlocked" "$W/st"' \
	"$(cat "$W/st")"
for c in status ports flows sync stats; do "$CTL" --socket "$RO" --json $c >"$W/$c.json" 2>&1; done
"$CTL" --socket "$RO" ports >"$W/ports.txt" 2>&1
check "--json: status, ports, flows, sync and stats parse and agree with the table; ports says how each pushes" \
	'grep -q "^out: pushes by the CPU at the frame boundary: net_af_packet offers no send-on-timestamp offload$" "$W/ports.txt" && python3 - "$W" <<"PY"
import json, sys
d = {c: json.load(open(f"{sys.argv[1]}/{c}.json")) for c in ("status", "ports", "flows", "sync", "stats")}
assert d["status"]["frames"]["processed"] > 0 and d["status"]["table"]["k"] == 10, d["status"]
assert [p["name"] for p in d["ports"]["ports"]] == ["in", "out"], d["ports"]
assert [p["scheduled"] for p in d["ports"]["ports"]] == [False, True], d["ports"]
assert all(p["push"]["kind"] == "cpu" and "net_af_packet offers no send-on-timestamp" in p["push"]["why"]
           and "clock" not in p["push"] for p in d["ports"]["ports"]), d["ports"]
assert [f["name"] for f in d["flows"]["flows"]] == ["probe"], d["flows"]
assert d["sync"]["timebase"] == "system" and d["sync"]["state"] == "unlocked", d["sync"]
assert d["stats"]["start_error_ns"]["count"] > 0 and d["stats"]["engine"]["frames"] > 0, d["stats"]
PY' "$(head -c 600 "$W/status.json")"
"$CTL" --socket "$RO" stats --prometheus >"$W/prom" 2>&1
check "stats --prometheus: the text format, with HELP/TYPE for every metric and the flow's labels" \
	'python3 - "$W/prom" <<"PY"
import re, sys
typed = set(); seen = set()
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    m = re.match(r"# TYPE (\w+) (counter|gauge|histogram)$", line)
    if m: typed.add(m.group(1)); continue
    if line.startswith("# HELP "): continue
    m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-z_]+=\"[^\"]*\"(,[a-z_]+=\"[^\"]*\")*\})? (-?[0-9.e+-]+|\+Inf)$", line)
    assert m, line
    base = re.sub(r"_(bucket|sum|count)$", "", m.group(1))
    assert m.group(1) in typed or base in typed, line
    seen.add(line.split("{")[0].split(" ")[0])
assert "tdpd_frames_total" in seen and "tdpd_frame_start_error_seconds_bucket" in seen
assert any(l.startswith("tdpd_flow_sent_total{flow=\"probe\",port=\"out\"}") for l in open(sys.argv[1]))
PY' "$(head -20 "$W/prom")"

# ---- refusals, none of which changes anything ----------------------------------------
rc=0
"$CTL" --socket "$RO" log-level debug >"$W/ll" 2>&1 || rc=$?
check "a change on the monitor socket is refused (exit 1) and the level stays" \
	'[ $rc -eq 1 ] && grep -q "read-only" "$W/ll" && [ "$("$CTL" --socket "$RO" log-level)" = info ]' "rc $rc: $(cat "$W/ll")"
check "log-level debug on the control socket sets it" \
	'"$CTL" --socket "$RW" log-level debug >/dev/null && [ "$("$CTL" --socket "$RO" log-level)" = debug ]'
code() { "$CTL" --socket "$RW" raw "$1" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["ok"], d["code"])'; }
big=$(python3 -c 'print("{\"version\":1,\"cmd\":\"status\",\"pad\":\"" + "x" * 5000 + "\"}")')
got="$(code 'not json') / $(code '{"version":1,"cmd":"reboot"}') / $(code '{"version":2,"cmd":"status"}') / $(code "$big") / $(code '{"version":1,"cmd":"status","args":[1]}') / $(code '{"version":1,"cmd":"schedule-load","args":{}}')"
check "malformed, unknown, another version, oversize, bad args, a load with no table: each an error reply" \
	'[ "$got" = "False malformed / False unknown-command / False version / False too-long / False bad-args / False bad-args" ]' "$got"
check "and the daemon still answers" '"$CTL" --socket "$RO" status >/dev/null'
NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
rc=0
$NOBODY "$CTL" --socket "$RW" status >"$W/nb" 2>&1 || rc=$?
check "a user outside root and the control group cannot connect to the control socket (exit 3)" \
	'[ $rc -eq 3 ] && grep -q "permission denied" "$W/nb"' "rc $rc: $(cat "$W/nb")"
chmod 0666 "$RW"
rc=0
$NOBODY "$CTL" --socket "$RW" log-level error >"$W/nb2" 2>&1 || rc=$?
check "with the socket opened up by mistake, tdpd still refuses the peer by its credentials" \
	'[ $rc -eq 1 ] && grep -q "(permission)" "$W/nb2" && [ "$("$CTL" --socket "$RO" log-level)" = debug ]' \
	"rc $rc: $(cat "$W/nb2")"
chmod 0660 "$RW"

# ---- a client that holds the control thread ------------------------------------------
# a table passed as a pipe nobody writes: the control thread waits its 5 s for
# it; the watchdog (WATCHDOG_USEC 400 ms: fed every 200 ms) is fed all along,
# by the housekeeping thread, which waits for no client
before=$(grep -c "^WATCHDOG=1$" "$W/notify.log")
python3 - "$RW" >"$W/hold" 2>&1 <<'PY'
import json, os, socket, sys
r, w = os.pipe()
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.settimeout(30)
req = json.dumps({"version": 1, "cmd": "schedule-load", "args": {"name": "never.tdp"}}) + "\n"
socket.send_fds(s, [req.encode()], [r])
print(s.recv(4096).decode().strip())
PY
after=$(grep -c "^WATCHDOG=1$" "$W/notify.log")
check "a client holding the control thread 5 s does not starve the watchdog ($((after - before)) feeds meanwhile)" \
	'grep -q "\"ok\": *false" "$W/hold" && [ $((after - before)) -ge 5 ] && kill -0 "$TPID"' \
	"feeds $before -> $after; $(cat "$W/hold")"

# ---- many clients at once: none holds up another -------------------------------------
cat >"$W/clients.py" <<'PY'
import asyncio, json, os, socket, sys, time
mode, path = sys.argv[1], sys.argv[2]
STATUS = b'{"version":1,"cmd":"status"}'
def code(b):
    try:
        d = json.loads(b.decode())
        return "ok" if d["ok"] else d["code"]
    except Exception:
        return "none"
if mode == "raw":            # one request as given, then read the reply
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(path); s.settimeout(5)
    data = sys.argv[3].encode().decode("unicode_escape").encode("latin-1")
    s.sendall(data)
    if sys.argv[4] == "halfclose": s.shutdown(socket.SHUT_WR)
    try: print(code(s.recv(65536)))
    except socket.timeout: print("none")
elif mode == "hold":         # a load whose table never comes
    r, w = os.pipe()
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(path); s.settimeout(30)
    req = json.dumps({"version": 1, "cmd": "schedule-load", "args": {"name": "held.tdp"}}) + "\n"
    socket.send_fds(s, [req.encode()], [r])
    print(s.recv(4096).decode().strip())
elif mode == "idle":         # n connections that never send, reopened as the daemon closes them
    import threading
    n, secs = int(sys.argv[3]), float(sys.argv[4])
    codes, lock = {}, threading.Lock()
    end = time.monotonic() + secs
    def one():
        while time.monotonic() < end:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(path)
            except OSError:      # the backlog is full: again, shortly
                s.close(); time.sleep(0.05); continue
            s.settimeout(max(0.01, end - time.monotonic()))
            try: c = code(s.recv(65536))
            except socket.timeout: c = "held"
            except OSError as e: c = type(e).__name__
            s.close()
            with lock: codes[c] = codes.get(c, 0) + 1
            if c == "busy": time.sleep(0.05)
    ts = [threading.Thread(target=one) for _ in range(n)]
    for t in ts: t.start()
    for t in ts: t.join()
    print(json.dumps(codes, sort_keys=True))
elif mode == "crowd":        # n clients at once, each asking status
    import threading
    n = int(sys.argv[3])
    codes, lock, go = {}, threading.Lock(), threading.Barrier(n)
    def one():
        c = "none"
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            go.wait()
            s.connect(path)      # blocking: waits for room in the backlog
            s.settimeout(30)
            s.sendall(STATUS + b"\n")
            b = b""
            while True:
                x = s.recv(65536)
                if not x: break
                b += x
            c = code(b)
        except Exception as e:
            c = type(e).__name__
        with lock: codes[c] = codes.get(c, 0) + 1
    ts = [threading.Thread(target=one) for _ in range(n)]
    for t in ts: t.start()
    for t in ts: t.join()
    print(json.dumps(codes, sort_keys=True))
PY
got="$(python3 "$W/clients.py" raw "$RO" '{"version":1,"cmd":"status"}\x00{"junk\n' keep) / $(python3 "$W/clients.py" raw "$RO" '{"version":1,"cmd":"status"}' halfclose)"
check "a NUL byte inside a request is malformed; a request ended by a half-close instead of a newline is answered" \
	'[ "$got" = "malformed / ok" ]' "$got"
python3 "$W/clients.py" hold "$RW" >"$W/held" 2>&1 &
HPID=$!
$NOBODY /usr/bin/python3 "$W/clients.py" idle "$RO" 20 6 >"$W/idle" 2>&1 &
IPID=$!
sleep 1
rc=0
"$CTL" --socket "$RO" status >"$W/st_ro" 2>&1 || rc=$?
"$CTL" --socket "$RW" status >"$W/st_rw" 2>&1 || rc=$?
held=no; kill -0 $HPID 2>/dev/null && held=yes
check "a table load waiting for its pipe and 20 idle connections from one user hold up neither socket for root" \
	'[ $rc -eq 0 ] && [ $held = yes ] && grep -q "^table " "$W/st_ro" && grep -q "^table " "$W/st_rw"' \
	"rc $rc, load still waiting: $held; $(cat "$W/st_ro" "$W/st_rw")"
wait $HPID $IPID
busy=$("$CTL" --socket "$RO" --json stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["control"]["clients_busy"])')
check "the idle user gets its share ($(cat "$W/idle"); tdpd counts $busy busy): 8 connections at a time, the rest busy, each idle one closed malformed; the load is refused after its 5 s" \
	'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d.get(\"busy\",0) >= 12 and d.get(\"malformed\",0) >= 8 and d.get(\"none\",0) == 0, d" "$W/idle" &&
	 [ "$busy" -ge 12 ] &&
	 grep -q "held.tdp: the table did not arrive within 5000 ms" "$W/held"' "$(cat "$W/idle" "$W/held")"
crowd=$(ulimit -n 4096; python3 "$W/clients.py" crowd "$RO" 1000 2>&1)
check "1000 clients at once: every one answered ($crowd), CTL_MAX_CLIENTS at a time, the rest waiting their turn; tdpd carries on" \
	'python3 -c "import json,sys; d=json.loads(sys.argv[1]); assert d == {\"ok\": 1000}, d" "$crowd" &&
	 "$CTL" --socket "$RO" status >/dev/null' "$crowd"

# ---- a table far ahead, and cancelling one that waits -------------------------------
rc=0; "$CTL" --socket "$RW" schedule load --at +400000000 "$W/b.tdp" >"$W/far" 2>&1 || rc=$?
got_big="$(code '{"version":1,"cmd":"schedule-load","args":{"in_ns":9223372036854775807}}')"
check "a time years ahead is refused (nothing waits for it), and an in_ns at the 64-bit limit does not overflow" \
	'[ $rc -eq 1 ] && grep -q "at most\|to 86400 s ahead" "$W/far" && [ "$got_big" = "False bad-args" ]' \
	"rc $rc: $(cat "$W/far"); $got_big"
"$CTL" --socket "$RW" schedule load --no-wait --at +3600 "$W/b.tdp" >"$W/wait1" 2>&1
rc=0; "$CTL" --socket "$RW" schedule load --no-wait "$W/b.tdp" >"$W/busy" 2>&1 || rc=$?
"$CTL" --socket "$RW" schedule cancel >"$W/cancel" 2>&1
rc2=0; "$CTL" --socket "$RW" schedule cancel >"$W/cancel2" 2>&1 || rc2=$?
rc3=0; "$CTL" --socket "$RO" schedule cancel >"$W/cancel3" 2>&1 || rc3=$?
check "a table an hour ahead waits, makes loads busy, and schedule cancel withdraws it (once; not on the monitor socket)" \
	'grep -q "accepted" "$W/wait1" && [ $rc -eq 1 ] && grep -q "busy\|waiting" "$W/busy" && grep -q "b.tdp: withdrawn before frame" "$W/cancel" && [ $rc2 -eq 1 ] && grep -q "no table is waiting" "$W/cancel2" && [ $rc3 -eq 1 ] && grep -q "read-only" "$W/cancel3" && grep -q "schedule cancel: .*b.tdp.*withdrawn" "$W/tdpd.err"' \
	"$(cat "$W/wait1" "$W/busy" "$W/cancel" "$W/cancel2" "$W/cancel3")"

# ---- table swaps, with probes going through ------------------------------------------
ip netns exec "$NS_RCV" timeout 60 "$PROBE" recv -i r0 --cpu 0 --no-live --duration 30s \
	--json "$W/rcv.json" --ready "$W/rcv.ready" >"$W/rcv.out" 2>"$W/rcv.err" &
RPID=$!
PIDS+=($RPID)
for _ in $(seq 100); do [ -f "$W/rcv.ready" ] && break; sleep 0.1; done
ip netns exec "$NS_SND" "$PROBE" send -i s0 --table "$W/a.tdp" --flow probe --count 2500 --cpu 0 --prio 0 \
	--timer nanosleep --dst 10.0.2.2 --src 10.0.1.2 --dst-mac "$MAC_RIN" >"$W/send.out" 2>"$W/send.err" &
SPID=$!
PIDS+=($SPID)
sleep 0.3
rc=0
"$CTL" --socket "$RW" schedule load "$W/bad.tdp" >"$W/bad.out" 2>&1 || rc=$?
check "an invalid table is rejected with its errors (file:line:col), the old one stays" \
	'[ $rc -eq 1 ] && grep -q "bad.tdp:5:22: error: flow x: size 9000" "$W/bad.out" && grep -q "bad.tdp:7:11: error: no flow named" "$W/bad.out" && "$CTL" --socket "$RO" schedule active | grep -q "in force .*a.tdp"' \
	"rc $rc: $(cat "$W/bad.out")"
cp "$W/bad.tdp" "$W/bad"$'\n'"name.tdp"
rc=0
"$CTL" --socket "$RW" schedule load "$W/bad"$'\n'"name.tdp" >"$W/nl.out" 2>&1 || rc=$?
check "a table name with a control character reaches replies and logs as one line" \
	'[ $rc -eq 1 ] && grep -q "bad?name.tdp: 2 errors" "$W/nl.out" && grep -q "bad?name.tdp: 2 errors" "$W/tdpd.err" && ! grep -q "^name.tdp" "$W/tdpd.err"' \
	"rc $rc: $(cat "$W/nl.out")"
"$CTL" --socket "$RW" --json schedule load "$W/b.tdp" >"$W/swap1.json" 2>&1
"$CTL" --socket "$RO" --json schedule active >"$W/active1.json" 2>&1
check "a valid table is adopted at the next boundary of both cycles (k 10 and 20), and says where" \
	'[ "$(j "$W/swap1.json" "(d[\"frame\"] % 20, d[\"frame\"] == d[\"requested_frame\"], d[\"late\"])")" = "(0, True, False)" ] && [ "$(j "$W/active1.json" "(d[\"table\"][\"adopted_frame\"] == json.load(open(sys.argv[1].replace(\"active1\", \"swap1\")))[\"frame\"], d[\"table\"][\"k\"], len(d[\"table\"][\"flow_list\"]))")" = "(True, 20, 2)" ]' \
	"$(cat "$W/swap1.json" "$W/active1.json")"
now=$("$CTL" --socket "$RO" --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)["tai_ns"])')
rc=0
"$CTL" --socket "$RW" schedule load --at 1000 "$W/a.tdp" >"$W/past" 2>&1 || rc=$?
check "a time already past is refused (too-late), nothing changes" \
	'[ $rc -eq 1 ] && grep -q "too-late" "$W/past" && "$CTL" --socket "$RO" schedule active | grep -q "in force .*b.tdp"' \
	"rc $rc: $(cat "$W/past")"
"$CTL" --socket "$RW" --json schedule load --at +0.5 "$W/a.tdp" >"$W/swap2.json" 2>&1
# +0.5 resolves in the daemon, some time after $now; the swap is at the first
# cycle start of k 20 at or after what it resolved to
check "--at: adopted at the first common cycle start at or after that TAI time" \
	'[ "$(j "$W/swap2.json" "(d[\"requested_frame\"] % 20, d[\"asked_tai_ns\"] >= $now + 500000000, 0 <= d[\"requested_frame\"] * 1000000 - d[\"asked_tai_ns\"] < 20000000)")" = "(0, True, True)" ]' \
	"now $now: $(cat "$W/swap2.json")"
# a name longer than tdpd keeps, whose cut would fall inside a character:
# cut before it, and the reply and every later answer carry it
pad=x
[ $(((255 - ${#W} - 2) % 2)) -eq 1 ] || pad=xx
long="$W/$pad$(printf 'é%.0s' $(seq 120))"
mkdir -p "$long"
cp "$W/a.tdp" "$long/a.tdp"
"$CTL" --socket "$RW" --json schedule load "$long/a.tdp" >"$W/long.json" 2>&1
rc=$?
"$CTL" --socket "$RO" --json status >"$W/long_status.json" 2>&1
"$CTL" --socket "$RO" --json schedule active >"$W/long_active.json" 2>&1
check "a table name cut at tdpd's width inside a character: cut before it; the load's reply, status and schedule active carry it" \
	'[ $rc -eq 0 ] && [ "$(j "$W/long.json" "(len(d[\"digest\"]), d[\"table\"].endswith(\"é\"), len(d[\"table\"].encode()) <= 255, d[\"table\"].startswith(\"$W/$pad\"))")" = "(64, True, True, True)" ] &&
	 [ "$(j "$W/long_status.json" "d[\"table\"][\"name\"] == json.load(open(\"$W/long.json\"))[\"table\"]")" = True ] &&
	 [ "$(j "$W/long_active.json" "len(d[\"table\"][\"flow_list\"])")" = 1 ]' \
	"rc $rc: $(cat "$W/long.json" "$W/long_status.json" "$W/long_active.json" | head -c 3000)"
wait $SPID
wait $RPID # it stops at the sender's end packets
# the swaps drop nothing of the kept flow; what the VM makes tdpd drop, it counts
"$CTL" --socket "$RO" --json flows >"$W/flows_end.json" 2>&1
python3 -c 'import json,sys; print(json.dumps({"flows": json.load(open(sys.argv[1]))["flows"]}))' "$W/flows_end.json" \
	>"$W/flows_end.sum" 2>/dev/null
read -r got lost counted < <(python3 "$SRC/tests/net/losses.py" "$W/rcv.json" 0 probe "$W/flows_end.sum")
check "every probe went through both swaps or was counted by tdpd ($got received, ${lost:-?} lost, ${counted:-?} counted); the swaps dropped none" \
	'[ "$(j "$W/rcv.json" "(d[\"flows\"][0][\"sent\"], d[\"flows\"][0][\"received\"] > 0)")" = "(2500, True)" ] && [ "$lost" -le "$counted" ] && [ "$counted" -le $((lost + 3)) ] && [ "$(j "$W/swap1.json" "d[\"dropped_queued\"]"),$(j "$W/swap2.json" "d[\"dropped_queued\"]")" = 0,0 ]' \
	"$(cat "$W/rcv.out" "$W/send.err" | head -30)"

kill -TERM $TPID
rc=0
wait $TPID || rc=$?
check "SIGTERM: exit 0, both sockets removed" '[ $rc -eq 0 ] && [ ! -e "$RW" ] && [ ! -e "$RO" ]' \
	"rc $rc: $(tail -5 "$W/tdpd.err")"
sleep 0.3
check "systemd: READY=1 once, after the ports and the time source; the watchdog fed while frames advance; STOPPING=1" \
	'[ "$(grep -c "^READY=1|STATUS=forwarding; sync unlocked" "$W/notify.log")" = 1 ] && [ "$(grep -c "^WATCHDOG=1$" "$W/notify.log")" -ge 4 ] && [ "$(tail -1 "$W/notify.log")" = STOPPING=1 ] && [ "$(head -1 "$W/notify.log" | cut -c1-7)" = READY=1 ]' \
	"$(cat "$W/notify.log")"
check "the exit summary counts the three swaps and the last swap frame" \
	'[ "$(j "$W/sum.json" "(d[\"engine\"][\"swaps\"], d[\"engine\"][\"late_swaps\"], d[\"engine\"][\"last_swap_frame\"] == json.load(open(sys.argv[1].replace(\"sum\", \"long\")))[\"frame\"])")" = "(3, 0, True)" ]' \
	"$(head -c 400 "$W/sum.json")"

# a port that must push by launch time, on a PMD without the offload: refused
# before anything opens (as --check refuses it), at its line, and why
sed '/^\[port out\]/a tx-launch on' "$W/tdpd.conf" >"$W/launch.conf"
rc=0
timeout 60 ip netns exec "$NS_RTR" "$TDPD" -f "$W/launch.conf" >/dev/null 2>"$W/launch.err" || rc=$?
check "tx-launch on where the PMD has no send-on-timestamp offload: tdpd refuses to start (exit 2), naming the port and why" \
	'[ $rc -eq 2 ] && grep -q "launch.conf:[0-9]*: error: \[port out\] tx-launch on: net_af_packet1 offers no send-on-timestamp offload" "$W/launch.err" &&
	 grep -q "nothing started" "$W/launch.err"' \
	"rc $rc: $(tail -5 "$W/launch.err")"
