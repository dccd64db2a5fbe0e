#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compares two tdp-probe CSVs of the same probes (recv's and analyze's).

Each probe must appear in both with the same frame index, and its latencies
must differ by exactly the difference of its receive times: both measured L
from the same frame start, so only the capture point moves it. Prints
"N same" when all N probes agree, or the first disagreements and exit 1.
usage: same_frames.py A.csv B.csv
"""
import csv
import sys


def load(path):
    with open(path, newline="") as f:
        return {(r["flow"], r["seq"]): r for r in csv.DictReader(f)}


def main():
    a, b = load(sys.argv[1]), load(sys.argv[2])
    bad = []
    for key in sorted(set(a) | set(b), key=lambda k: (k[0], int(k[1]))):
        ra, rb = a.get(key), b.get(key)
        if ra is None or rb is None:
            bad.append(f"flow {key[0]} seq {key[1]}: only in {'B' if ra is None else 'A'}")
            continue
        if ra["frame"] != rb["frame"]:
            bad.append(f"flow {key[0]} seq {key[1]}: frame {ra['frame']} vs {rb['frame']}")
            continue
        dl = int(ra["latency_ns"]) - int(rb["latency_ns"])
        dt = int(ra["t2_ns"]) - int(rb["t2_ns"])
        if dl != dt:
            bad.append(f"flow {key[0]} seq {key[1]}: L moved {dl} ns, receive time {dt} ns")
    if bad:
        print(f"{len(bad)} of {len(set(a) | set(b))} differ", file=sys.stderr)
        for line in bad[:10]:
            print(line, file=sys.stderr)
        return 1
    print(f"{len(a)} same")
    return 0


if __name__ == "__main__":
    sys.exit(main())
