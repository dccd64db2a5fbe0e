#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A delaying relay for the network tests: every frame that arrives on --in
leaves on --out, unchanged, --delay-us microseconds (at least) after it
arrived. It stands in for a router that holds packets longer than a frame."""
import argparse
import heapq
import select
import socket
import sys
import time

ETH_P_ALL = 3
PACKET_OUTGOING = 4


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--in", dest="inp", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--delay-us", type=int, required=True)
    ap.add_argument("--seconds", type=float, default=30)
    a = ap.parse_args()
    rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    rx.bind((a.inp, 0))
    tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    tx.bind((a.out, 0))
    delay = a.delay_us / 1e6
    end = time.monotonic() + a.seconds
    held, n, relayed = [], 0, 0
    print("ready", flush=True)
    while time.monotonic() < end:
        timeout = 0.05
        if held:
            timeout = max(0.0, min(timeout, held[0][0] - time.monotonic()))
        r, _, _ = select.select([rx], [], [], timeout)
        if r:
            data, addr = rx.recvfrom(65535)
            if addr[2] != PACKET_OUTGOING:
                heapq.heappush(held, (time.monotonic() + delay, n, data))
                n += 1
        now = time.monotonic()
        while held and held[0][0] <= now:
            _, _, data = heapq.heappop(held)
            tx.send(data)
            relayed += 1
    print(f"relayed {relayed}", file=sys.stderr)


if __name__ == "__main__":
    main()
