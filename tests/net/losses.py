#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Probes lost between sender and receiver against what the routers counted.

A router that starves on a loaded VM may lose packets; it must not lose them
silently. Prints "RECEIVED LOST COUNTED": the probes the receiver got and
missed for one flow, and the packets of that flow the routers dropped and
counted (queue overflow, late drops, late arrivals dropped, driver refusals),
summed over the routers' exit summaries. The counted side may also hold the
sender's end packets, which are not probes.
usage: losses.py RCV.json FLOW-ID FLOW-NAME SUM.json [SUM.json ...]
"""
import json
import sys


def main():
    rcv = json.load(open(sys.argv[1]))
    fid, name = int(sys.argv[2]), sys.argv[3]
    f = [x for x in rcv["flows"] if x["flow"] == fid][0]
    counted = 0
    for path in sys.argv[4:]:
        for x in json.load(open(path))["flows"]:
            if x["name"] == name:
                counted += x["overflow"] + x["late_dropped"] + x["arr_late_dropped"] + x["tx_drop"]
    print(f["received"], f["lost"], counted)


if __name__ == "__main__":
    main()
