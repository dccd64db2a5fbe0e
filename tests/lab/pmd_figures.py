#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The figures of lab scenario pmd. Per block: the frames the sender's tap
handed to the guest's NIC while the flood ran (offered), the flood's frames
the receiver counted behind the forwarder, its rate, what the forwarder
counted as not sent, and what is left (offered - received - counted: the
sender's own ARP/ND to the router, or a loss nobody counted). Then tdpd's
rate against testpmd's, each tdpd:fwd block against the testpmd block next
to it (TCG rates: the ratio only).

usage: pmd_figures.py [--accounted N] DIR FLOOD-SECONDS FORWARDER...
  DIR is build/lab/pmd. --accounted N: no table; exit 1 unless in every
  tdpd block what is left is between 0 and N frames.
"""
import json
import re
import statistics
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def tap_counts(path):
    """(sender tap's TX packets, receiver tap's RX packets) from the two
    lines of `ip -s -j link` in path."""
    try:
        lines = [json.loads(x)[0] for x in open(path) if x.strip()]
        return (lines[0]["stats64"]["tx"]["packets"], lines[1]["stats64"]["rx"]["packets"])
    except (OSError, ValueError, IndexError, KeyError):
        return None


def offered(d, i):
    a, b = tap_counts(f"{d}/taps{i}-before.json"), tap_counts(f"{d}/taps{i}-after.json")
    return b[0] - a[0] if a and b else None


def tdpd_counted(d, i):
    """What tdpd counted of the best effort it did not send: RX's drops by
    reason (not the frames for its host), the ports' best-effort TX drops,
    the drivers' missed frames."""
    out = {}
    stats = load(f"{d}/share/r1/{i}-stats.json")
    ports = load(f"{d}/share/r1/{i}-ports.json")
    if stats:
        for k, v in stats["rx"]["drop"].items():
            if v and k != "host":
                out["rx " + k] = v
    for p in (ports or {}).get("ports", []):
        if p.get("be_tx_drop"):
            out[p["name"] + " be_tx_drop"] = p["be_tx_drop"]
        drv = p.get("driver") or {}
        for k in ("missed", "no_mbuf", "rx_errors"):
            if drv.get(k):
                out[p["name"] + " driver " + k] = drv[k]
    return out


def testpmd_counted(d, i):
    """testpmd's own drops, from its accumulated statistics at exit."""
    try:
        text = open(f"{d}/share/r1/{i}.err").read()
    except OSError:
        return {}
    acc = text[text.find("Accumulated forward statistics"):]
    out = {}
    for k in ("RX-dropped", "TX-dropped"):
        m = re.search(k + r": (\d+)", acc)
        if m and int(m.group(1)):
            out[k] = int(m.group(1))
    return out


def blocks_table(d, secs, blocks):
    rows = []
    for i, m in enumerate(blocks, 1):
        r = load(f"{d}/rcv{i}.json")
        got = r["frames"]["best_effort"] if r else None
        off = offered(d, i)
        counted = testpmd_counted(d, i) if m == "testpmd" else tdpd_counted(d, i)
        left = off - got - sum(counted.values()) if off is not None and got is not None else None
        rows.append({"block": i, "forwarder": m, "offered": off, "received": got,
                     "rate": got / secs if got else None, "counted": counted, "left": left})
    return rows


def main():
    args = sys.argv[1:]
    limit = None
    if args[:1] == ["--accounted"]:
        limit, args = int(args[1]), args[2:]
    d, secs, blocks = args[0], float(args[1]), args[2:]
    rows = blocks_table(d, secs, blocks)
    if limit is not None:
        bad = [r for r in rows if r["forwarder"] != "testpmd"
               and (r["left"] is None or not 0 <= r["left"] <= limit)]
        for r in bad:
            print(f"block {r['block']}: offered {r['offered']}, received {r['received']}, "
                  f"counted {r['counted']}, left {r['left']}")
        return 1 if bad else 0

    def cell(x, fmt="{}"):
        return "-" if x is None else fmt.format(x)

    print(f"{'block':>5} {'forwarder':<9} {'offered':>8} {'received':>8} {'frames/s':>9} "
          f"{'left':>5}  counted")
    for r in rows:
        counted = ", ".join(f"{k} {v}" for k, v in r["counted"].items()) or "none"
        print(f"{r['block']:>5} {r['forwarder']:<9} {cell(r['offered']):>8} "
              f"{cell(r['received']):>8} {cell(r['rate'], '{:.0f}'):>9} "
              f"{cell(r['left']):>5}  {counted}")
    rate = {r["block"]: r["rate"] for r in rows}
    ratios = []
    for i, m in enumerate(blocks, 1):
        if m != "tdpd:fwd" or not rate.get(i):
            continue
        # the testpmd block next to it: after, else before
        for j in (i + 1, i - 1):
            if 1 <= j <= len(blocks) and blocks[j - 1] == "testpmd" and rate.get(j):
                ratios.append(rate[i] / rate[j])
                break
    if not ratios:
        print("tdpd / testpmd: no pair of blocks with frames through both")
        return 1
    print(f"tdpd / testpmd: {statistics.mean(ratios):.2f} "
          f"(pairs {', '.join(f'{x:.2f}' for x in ratios)}; "
          f"range {min(ratios):.2f} to {max(ratios):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
