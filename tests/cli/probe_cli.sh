#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tdp-probe without a network: every bad input is a clear message and exit 2
# (usage) or 1 (a resource that is not there); analyze and report on captures
# written here by an independent encoder of the probe format, so the C decoder
# is checked against it; the report's PNG, SVG and HTML are opened and checked.
# usage: probe_cli.sh TDP_PROBE SRCDIR  (TAP)
set -uo pipefail
PROBE=$1
SRC=$2
. "$SRC/tests/tap.sh"
tap_workdir
# t NAME WANT_RC WANT_TEXT CMD...: exit code and a piece of the output
t() {
	local name=$1 rc=$2 want=$3
	shift 3
	out=$("$@" 2>&1)
	local got=$?
	if [ "$got" = "$rc" ] && grep -qF -- "$want" <<<"$out"; then ok "$name"; else notok "$name" "rc $got: $out"; fi
}
j() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); f=(d.get("flows") or [{}])[0]; print(eval(sys.argv[2]))' "$1" "$2" 2>&1; }
echo "1..36"

t "no command: usage, exit 2" 2 "usage: tdp-probe COMMAND" "$PROBE"
t "--help" 0 "report" "$PROBE" --help
t "--version" 0 "tdp-probe " "$PROBE" --version
t "unknown command" 2 "unknown command 'sned'" "$PROBE" sned
t "send --help names the timers" 0 "predictive (default), nanosleep or spin" "$PROBE" send --help
t "send without a port" 2 "give one of -i IF or --dpdk DEV" "$PROBE" send --tf 1ms
t "send without a table or --tf" 2 "give --table with --flow, or --tf" "$PROBE" send -i lo
t "send: an unknown timer" 2 "'sleepy' is not predictive, nanosleep or spin" "$PROBE" send -i lo --tf 1ms --timer sleepy
t "send: an unknown late policy" 2 "--late: 'maybe' is not send or skip" "$PROBE" send -i lo --tf 1ms --late maybe
# --late skip on loopback: a frame is sent only when the sender woke inside its
# 2 us send window (TF 1 ms less a 998 us guard band); whether it did is the
# VM's business, that no probe went later is the sender's
if [ "$(id -u)" = 0 ]; then
	printf 'tdp-schedule 1\ntf 1ms\nk 10\nguard 998us\nport p rate 100Gbit/s\nflow f port p size 78 udp-dport 7350\nframes *: f 1\n' \
		>"$W/tight.tdp"
	"$PROBE" send -i lo --table "$W/tight.tdp" --flow f --duration 300ms --late skip --timer spin --start-in 10ms \
		--json "$W/tight.json" >"$W/tight.out" 2>&1
	rc=$?
	check "send --late skip: no probe after its frame's send window; every frame sent or skipped" \
		'[ "$(j "$W/tight.json" "(d[\"frames\"] + d[\"skipped_frames\"] >= 290, d[\"sent\"] == d[\"frames\"], d[\"start_error_ns\"].get(\"max\", 0) < 2000, $rc == (0 if d[\"sent\"] else 1))")" = "(True, True, True, True)" ]' \
		"rc $rc: $(cat "$W/tight.out" "$W/tight.json")"
else
	ok "send --late skip: no probe after its frame's send window # SKIP not root"
fi
# SIGINT or SIGTERM while waiting for the first frame ends the wait at once,
# for every timer, and sends nothing early
if [ "$(id -u)" = 0 ]; then
	for tm in predictive nanosleep spin; do
		"$PROBE" send -i lo --tf 1ms --start-in 60s --timer "$tm" >"$W/stop-$tm.out" 2>&1 &
		pid=$!
		sleep 0.5
		kill -"$([ $tm = nanosleep ] && echo TERM || echo INT)" "$pid"
		for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid"; fi
		wait "$pid"
	done
	check "send --start-in 60s: a signal ends the wait (predictive and spin: SIGINT, nanosleep: SIGTERM), 0 probes sent" \
		'[ "$(grep -l "tdp-probe send: 0 probes in 0 frames" "$W"/stop-{predictive,nanosleep,spin}.out | wc -l)" -eq 3 ]' \
		"$(cat "$W"/stop-*.out)"
else
	ok "send --start-in: a signal ends the wait # SKIP not root"
fi
t "send: a bad time" 2 "--tf: '1 parsec' is not a time" "$PROBE" send -i lo --tf "1 parsec"
t "send: k*TF must divide a second, said by the table parser" 2 "--tf/--k/--frames:" \
	"$PROBE" send -i lo --tf 3us --k 7
t "send: a bad frame set, said at its column" 2 "--tf/--k/--frames:6:" "$PROBE" send -i lo --tf 1ms --k 10 --frames 0-20
t "send: a flow the table does not have" 2 "has no flow 'nope'" \
	"$PROBE" send -i lo --table "$SRC/schedules/examples/demo.tdp" --flow nope
t "send: a probe larger than its flow" 2 "larger than flow probe's size 78" \
	"$PROBE" send -i lo --table "$SRC/schedules/examples/demo.tdp" --flow probe --size 100
t "send: a size below the probe header" 2 "below the 74 bytes" "$PROBE" send -i lo --tf 1ms --size 70
t "send: a bad MAC" 2 "is not a MAC address" "$PROBE" send -i lo --tf 1ms --dst-mac 02:00:zz:00:00:01
t "send: a missing table" 2 "no-such.tdp" "$PROBE" send -i lo --table "$W/no-such.tdp" --flow x
t "send: an interface that does not exist" 1 "interface nosuch0" "$PROBE" send -i nosuch0 --tf 1ms --count 1
t "recv: no interface" 2 "give the interface with -i IF" "$PROBE" recv
t "recv: an unknown timestamp kind" 2 "'atomic' is not auto, hardware, software or user" \
	"$PROBE" recv -i lo --timestamps atomic
t "recv: a histogram that would not fit" 2 "--range must hold" "$PROBE" recv -i lo --bin 1ns --range 1s
t "analyze: a histogram that would not fit" 2 "--range must hold" "$PROBE" analyze --bin 1ns --range 1s "$W/x.pcap"
printf 'tdp-schedule 1\ntf 1ms\nk 1\nport p rate 1Gbit/s\nflow f port p size 78 dscp 46\nframes 0: f 65\n' >"$W/many.tdp"
t "send: more packets in a frame than it can send at once" 2 "flow f has 65 packets in frame 0 of the cycle; tdp-probe sends at most 64" \
	"$PROBE" send -i lo --table "$W/many.tdp" --flow f
t "flood: a size below the Ethernet minimum" 2 "--size 40 is outside 60..9018" "$PROBE" flood -i lo --size 40
t "analyze: a missing file" 1 "no-such.pcap" "$PROBE" analyze "$W/no-such.pcap"
echo "not a capture" >"$W/text.pcap"
t "analyze: not a capture" 1 "text.pcap" "$PROBE" analyze "$W/text.pcap"

# two runs as captures, written by this encoder: L = 10 us + jitter and 40 us + jitter
python3 - "$W" <<'PY'
import struct, sys, random
w = sys.argv[1]
def csum(b):
    if len(b) % 2: b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return s
def probe(flow, seq, tf, epoch, frame, t1off, kind=0):
    hdr = struct.pack("!HBBIIIIqi", 0x7470, 1, kind, flow, seq, tf, epoch, frame, t1off) + bytes(4)
    udp_len = 8 + len(hdr)
    src, dst = bytes([10, 0, 1, 2]), bytes([10, 0, 2, 2])
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 46 << 2, 20 + udp_len, 0, 0x4000, 63, 17, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", ~csum(ip) & 0xffff) + ip[12:]
    udp = struct.pack("!HHHH", 7350, 7350, udp_len, 0) + hdr
    c = ~csum(src + dst + struct.pack("!BBH", 0, 17, udp_len) + udp) & 0xffff
    udp = udp[:6] + struct.pack("!H", c or 0xffff) + udp[8:]
    return b"\x02\0\0\0\x02\x02\x02\0\0\0\x02\x01\x08\x00" + ip + udp
def run(path, base_us, lose):
    rnd = random.Random(base_us)
    tf, epoch, i0 = 100000, 0, 17953103224821
    recs = []
    for seq in range(5000):
        if seq in lose: continue
        start = epoch + (i0 + seq) * tf
        t2 = start + base_us * 1000 + int(rnd.expovariate(1 / 2000))
        recs.append((t2 - 37 * 10**9, probe(3, seq, tf, epoch, i0 + seq, 40)))
    recs.append((recs[-1][0] + 10**6, probe(3, 5000, tf, epoch, i0 + 5000, 0, kind=1)))
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 65535, 1))
        for t, fr in recs:
            f.write(struct.pack("<IIII", t // 10**9, t % 10**9, len(fr), len(fr)) + fr)
run(w + "/fast.pcap", 10, {7, 4000})
run(w + "/slow.pcap", 40, set())
PY
"$PROBE" analyze "$W/fast.pcap" --label predictive --json "$W/fast.json" >"$W/fast.out" 2>&1
"$PROBE" analyze "$W/slow.pcap" --label nanosleep --json "$W/slow.json" >"$W/slow.out" 2>&1
r=$(j "$W/fast.json" '(f["flow"], f["sent"], f["received"], f["lost"], f["latency"]["min"] >= 10000, f["latency"]["p50"] < 14000)')
if [ "$r" = "(3, 5000, 4998, 2, True, True)" ]; then ok "analyze decodes the independent encoder's probes: counts and L"
else notok "analyze decodes the independent encoder's probes: counts and L" "$r $(cat "$W/fast.out")"; fi
# a pipe is read once: no reopening that would start after bytes already taken
cat "$W/fast.pcap" | "$PROBE" analyze - --json "$W/pipe1.json" >"$W/pipe1.out" 2>&1
"$PROBE" analyze <(cat "$W/fast.pcap") --json "$W/pipe2.json" >"$W/pipe2.out" 2>&1
r1=$(j "$W/pipe1.json" '(f["sent"], f["received"], f["lost"])' 2>&1)
r2=$(j "$W/pipe2.json" '(f["sent"], f["received"], f["lost"])' 2>&1)
check "analyze from standard input and from a pipe's path: the same counts as from the file" \
	'[ "$r1" = "(5000, 4998, 2)" ] && [ "$r2" = "(5000, 4998, 2)" ] && grep -q "nanosecond timestamps" "$W/pipe2.out"' \
	"$r1 / $r2 $(cat "$W/pipe1.out" "$W/pipe2.out")"
# pcapng whose interface counts whole seconds (if_tsresol 0): a record 2^40 s
# after 1970 is 2^40 * 10^9 ns, past 2^63; the two before it are fine
python3 - "$W" <<'PY'
import struct, sys
w = sys.argv[1]
def block(t, body):
    body += bytes(-len(body) % 4)
    n = 12 + len(body)
    return struct.pack("<II", t, n) + body + struct.pack("<I", n)
shb = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
opt = struct.pack("<HHB", 9, 1, 0) + bytes(3) + struct.pack("<HH", 0, 0)
idb = block(1, struct.pack("<HHI", 1, 0, 65535) + opt)
fr = bytes(60)
def epb(sec):
    return block(6, struct.pack("<IIIII", 0, sec >> 32, sec & 0xffffffff, len(fr), len(fr)) + fr)
open(w + "/coarse.pcapng", "wb").write(shb + idb + epb(1800000000) + epb(1800000001) + epb(1 << 40))
PY
"$PROBE" analyze "$W/coarse.pcapng" --clock tai >"$W/coarse.out" 2>&1
rc=$?
check "pcapng with a time past 2^63 ns: that record is counted and left out, not wrapped" \
	'[ $rc -le 1 ] && grep -q "3 records (pcapng), 1 with a time past 2^63 ns, not used" "$W/coarse.out"' "$(cat "$W/coarse.out")"
"$PROBE" report "$W/fast.json" "$W/slow.json" -o "$W/r.png" >"$W/table.txt" 2>"$W/report.err" &&
	"$PROBE" report "$W/fast.json" "$W/slow.json" -o "$W/r.svg" >/dev/null 2>&1 &&
	"$PROBE" report "$W/fast.json" "$W/slow.json" -o "$W/r.html" --title "two runs" >/dev/null 2>&1
rc=$?
# the PNG: a real image, both runs' colours in each of the four panels
# Debian's Python, where python3-pil is installed
r=$(/usr/bin/python3 - "$W/r.png" <<'PY'
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
w, h = im.size
cols = {(0x1f, 0x77, 0xb4): "run1", (0xd6, 0x27, 0x28): "run2"}
def near(p, c): return all(abs(a - b) < 30 for a, b in zip(p, c))
px = im.load()
panels = [(0, 0, w // 2, int(h * 0.4)), (w // 2, 0, w, int(h * 0.4)),
          (0, int(h * 0.4), w // 2, int(h * 0.8)), (w // 2, int(h * 0.4), w, int(h * 0.8))]
found = []
for x0, y0, x1, y1 in panels:
    seen = set()
    for y in range(y0, y1, 2):
        for x in range(x0, x1, 2):
            for c, name in cols.items():
                if near(px[x, y], c): seen.add(name)
    found.append(len(seen))
print(w > 800 and h > 600, found)
PY
)
if [ $rc -eq 0 ] && [ "$r" = "True [2, 2, 2, 2]" ]; then ok "report: a PNG with both runs in all four panels"
else notok "report: a PNG with both runs in all four panels" "rc $rc, $r $(cat "$W/report.err")"; fi
if grep -q "predictive" "$W/r.svg" && grep -q "nanosleep" "$W/r.svg" && grep -q "CDF tail" "$W/r.svg"; then
	ok "report: the SVG names both runs and the CDF tail"
else notok "report: the SVG names both runs and the CDF tail"; fi
p50=$(j "$W/fast.json" 'format(f["latency"]["p50"] / 1e3, ".3f")')
if grep -q "<svg" "$W/r.html" && grep -q "<td>$p50</td>" "$W/r.html" && grep -q "<td>4998</td>" "$W/r.html" &&
	grep -q "predictive.*$p50" "$W/table.txt"; then ok "report: the HTML page has the figure and the table's figures"
else notok "report: the HTML page has the figure and the table's figures" "p50 $p50; $(cat "$W/table.txt")"; fi
echo '{"something": "else"}' >"$W/other.json"
t "report: JSON that is not tdp-probe's" 1 "not the JSON of tdp-probe recv or analyze" "$PROBE" report "$W/other.json"
# the man page describes every option the commands take
missing=
for c in send recv flood analyze; do
	for o in $("$PROBE" $c --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		grep -qF -- "$(sed 's/-/\\-/g' <<<"$o")" "$SRC/man/tdp-probe.8" || missing="$missing $c:$o"
	done
done
if [ -z "$missing" ]; then ok "tdp-probe(8) describes every option of every command"
else notok "tdp-probe(8) describes every option of every command" "missing:$missing"; fi
