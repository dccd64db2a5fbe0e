#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The figures of the lab's clocks scenario, from each guest's own logs
(their times are the guest's uptime) and the first batch of probes.

ptp4l's offset once tdpd locked, until the faults (a router whose ptp4l
disciplines its clock, tdpd in ptp-mode disciplined or timebase system: its
offset from its master; a free-running one, tdpd in ptp-mode offset: its
offset's spread, which tdpd applies); where each router pushed against its
frame start (hop stamps) and when the probes arrived against the upstream
frame start (tdpd's flows); the receiver's latency against the plan's frame
delay.
usage: clocks_figures.py OUTDIR FRAME-DELAY NAME:MODE...  (MODE disciplined,
system or offset; the last router is the one stepped and power-cycled)
"""
import json, math, os, re, sys
o, delay = sys.argv[1], int(sys.argv[2])
routers = [a.split(":") for a in sys.argv[3:]]
last = routers[-1][0]
def stamp(line):
    m = re.match(r"\w+\[([0-9.]+)\]", line)
    return float(m.group(1)) if m else None
def first(path, pat):
    for line in open(path, errors="replace"):
        if re.search(pat, line):
            return stamp(line) if stamp(line) is not None else float(re.search(r"at ([0-9.]+) s", line).group(1))
    return None
# the window: from r1's lock (the guests' uptimes agree to within their boot
# times, a fraction of a second) to the first fault, the last router's
# clock step
def life1(g, name):
    """a guest's log of its first boot (the last router is power-cycled later)"""
    p = f"{o}/share/{g}/{name}"
    return p + ".1" if os.path.exists(p + ".1") else p
t0 = first(life1("r1", "tdpd.err"), r"sync: .* -> locked")
con = f"{o}/share/{last}.console"
t1 = first(con + ".1" if os.path.exists(con + ".1") else con, r"clock stepped by 50 ms at")
for g, mode in routers:
    offs = []
    first_off = None
    for line in open(life1(g, "ptp4l.log"), errors="replace"):
        m = re.search(r"master offset +(-?\d+) s(\d)", line)
        if not m:
            continue
        if first_off is None:
            first_off = int(m.group(1))
        t = stamp(line)
        if t0 is not None and t is not None and t >= t0 + 1 and (t1 is None or t < t1 - 1):
            offs.append(int(m.group(1)))
    if offs:
        mean = sum(offs) / len(offs) if mode == "offset" else 0
        dev = [x - mean for x in offs]
        rms = math.sqrt(sum(d * d for d in dev) / len(dev))
        what = "offset from its master" if mode != "offset" else "offset's spread about its mean"
        print(f"# {g} ({mode}): first offset {first_off / 1e6:.1f} ms; ptp4l's {what} from r1's lock ({t0:.1f} s) to the step ({t1:.1f} s): "
              f"rms {rms / 1e3:.0f} us, max {max(abs(d) for d in dev) / 1e3:.0f} us over {len(offs)} samples")
    try:
        s = json.load(open(f"{o}/share/{g}/batch1.json"))
        f = [x for x in s["flows"] if x["name"] == "probe"][0]
        a = f.get("arrival_ns", {})
        print(f"# {g}: probes arrived at p50 {a.get('p50', 0) / 1e3:.0f} us, p99 {a.get('p99', 0) / 1e3:.0f} us,"
              f" max {a.get('max', 0) / 1e3:.0f} us after the upstream frame start (transit and the two clocks' difference);"
              f" {f['arr_guard']} in its guard band, {f['arr_uncertain']} uncertain, {f['arr_late_dropped']} late on arrival;"
              f" frames over the sync budget {s['engine']['over_budget_frames']}")
    except (OSError, ValueError, IndexError, KeyError) as e:
        print(f"# {g}: no summary ({e})")
try:
    r = json.load(open(f"{o}/rcv1.json"))
    f = [x for x in r["flows"] if x["flow"] == 0][0]
    for h in f["hops"]:
        p = h["push_offset"]
        print(f"# hop {h['hop']} (node {h['node']}): pushed at p50 {p.get('p50', 0) / 1e3:.0f} us, p99 {p.get('p99', 0) / 1e3:.0f} us"
              f" after its frame start, by its own clock")
    lat, tf = f["latency"], f["tf_ns"]
    print(f"# the receiver: {f['received']} of {f['sent']} received; latency less the plan's {delay} frames: "
          f"p50 {(lat.get('p50', 0) - delay * tf) / 1e3:.0f} us, p99 {(lat.get('p99', 0) - delay * tf) / 1e3:.0f} us"
          f" (the last router's push on the grandmaster's time, and the last link)")
except (OSError, ValueError, IndexError, KeyError) as e:
    print(f"# receiver: {e}")
