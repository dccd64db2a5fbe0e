#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The chain figure (README, docs/figures.md) from chain_net.sh's receiver JSON (OUTDIR):
PMF of L for the reserved flow through 1, 2, 4 and 8 routers with and without
a best-effort flood; the same shifted by the plan's sum of alpha x TF, so the
spreads lie on top of each other; and best effort through the same chains.
usage: chain_figure.py OUTDIR FIGURE.png"""
import json
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

out, fig_path = sys.argv[1], sys.argv[2]
runs = [(n, f) for f in ("quiet", "flood") for n in (1, 2, 4, 8) if os.path.exists(f"{out}/chain-n{n}-{f}.json")]
colors = {1: "tab:blue", 2: "tab:orange", 4: "tab:green", 8: "tab:red"}
fig, ax = plt.subplots(1, 3, figsize=(15, 4.2))
for n, f in runs:
    d = json.load(open(f"{out}/chain-n{n}-{f}.json"))
    ls = "-" if f == "quiet" else "--"
    lab = f"{n} router{'s' if n > 1 else ''}{', flood' if f == 'flood' else ''}"
    for fl in d["flows"]:
        h = fl["latency"]
        tot = sum(c for _, c in h["bins"]) or 1
        xs = [b / 1e3 for b, _ in h["bins"]]
        ps = [c / tot for _, c in h["bins"]]
        if fl["flow"] == 0:
            shift = sum(fl["plan"]["alpha"]) * fl["tf_ns"] / 1e3
            ax[0].plot(xs, ps, ls, marker=".", ms=3, color=colors[n], label=lab)
            ax[1].plot([x - shift for x in xs], ps, ls, marker=".", ms=3, color=colors[n], label=lab)
        else:
            ax[2].plot(xs, ps, ls, marker=".", ms=3, color=colors[n], label=lab)
ax[0].set_title("reserved: PMF of L = t2 - start(ingress frame)")
ax[0].set_xlabel("L (µs)")
ax[1].set_title("reserved: L - planned sum(alpha) x TF")
ax[1].set_xlabel("µs after the last router's frame start")
ax[1].set_xlim(0, 120)
ax[2].set_title("best effort, same chains")
ax[2].set_xlabel("L (µs)")
ax[2].set_xscale("log")
for a in ax:
    a.set_yscale("log")
    a.set_ylabel("probability")
    a.grid(alpha=0.3)
    a.legend(fontsize=7)
fig.suptitle("Pipeline forwarding through chains of tdpd routers (TF 1 ms, k 10, alpha 2 per hop; shared two-core VM)")
fig.tight_layout()
fig.savefig(fig_path, dpi=90)
print(f"wrote {fig_path}")
