#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# dpdk-testpmd as the external reference for the data path's figures.
#
#   tests/bench/testpmd_ref.sh BUILD [BLOCKS [SECONDS]]
#
# In each of BLOCKS blocks (default 5), in an order rotated from block to
# block, on CPU 1 at SCHED_FIFO 80 with RT throttling off:
#   - bench_engine datapath --quick: RX, the l2fwd- and l3fwd-style loops on
#     in-memory ports (net_ring), 100-byte packets, and the flows' curve (RX
#     and the engine from 10 to 10^6 flows);
#   - dpdk-testpmd's io, mac and 5tswap forwarding for SECONDS seconds
#     (default 4) on two net_ring ports, one forwarding core, 100-byte
#     packets, 16 bursts of 32 sent first on each port (1,024 packets
#     circulating: a net_ring port's ring holds 1,023).
# testpmd's rate is the sum of both ports' Rx-pps per stats period (the
# first period dropped), median over the run's periods. Printed: each
# method's ns a packet per block, its median [min, max], and the ratio of
# tdpd's loops to testpmd per block. Figures, not pass/fail.
set -euo pipefail
build=${1:?usage: testpmd_ref.sh BUILD [BLOCKS [SECONDS]]}
blocks=${2:-5}
secs=${3:-4}
bench=$build/tests/bench_engine
command -v dpdk-testpmd >/dev/null || { echo "testpmd_ref: dpdk-testpmd is not installed (Debian: dpdk-dev)" >&2; exit 2; }
[ -x "$bench" ] || { echo "testpmd_ref: $bench is not built" >&2; exit 2; }
[ "$(nproc)" -ge 2 ] || { echo "testpmd_ref: needs two CPUs (testpmd's main lcore and its forwarding lcore)" >&2; exit 2; }

work=$(mktemp -d)
rt_was=$(cat /proc/sys/kernel/sched_rt_runtime_us 2>/dev/null || true)
cleanup() {
	[ -n "$rt_was" ] && echo "$rt_was" > /proc/sys/kernel/sched_rt_runtime_us 2>/dev/null || true
	rm -rf "$work" /var/run/dpdk/tdpd-testpmd-ref
	local m
	for m in $(awk '$3 == "hugetlbfs" {print $2}' /proc/mounts); do rm -f "$m"/tdpd-testpmd-ref*; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# a method polling at SCHED_FIFO would be stopped 50 ms a second
echo -1 > /proc/sys/kernel/sched_rt_runtime_us 2>/dev/null || echo "testpmd_ref: RT throttling stays on (not root?)" >&2

# the same memory for both: 2 MiB hugepages when the benchmark would take them
free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
if [ "${free:-0}" -ge 256 ] && grep -q " hugetlbfs " /proc/mounts; then
	mem=(-m 256 --huge-unlink) # its pages go back at exit, for the benchmark's next run
	memname="2 MiB hugepages"
else
	mem=(--no-huge -m 512)
	memname="4 KiB pages (fewer than 256 hugepages free, or no hugetlbfs mounted)"
fi
echo "testpmd reference: $blocks blocks, testpmd $secs s a mode, memory: $memname"

# testpmd MODE: prints its median packets a second
testpmd() {
	local mode=$1 out=$work/testpmd-$1.txt
	echo "start tx_first 16" > "$work/cmds"
	timeout -s INT "$((secs + 3))" chrt -f 80 dpdk-testpmd -l 0,1 --no-pci "${mem[@]}" \
		--file-prefix tdpd-testpmd-ref --vdev=net_ring0 --vdev=net_ring1 --log-level=lib.eal:error -- \
		--forward-mode="$mode" --nb-cores=1 --burst=32 --txpkts=100 --stats-period=1 \
		--cmdline-file="$work/cmds" --total-num-mbufs=8192 > "$out" 2>&1 || true
	python3 - "$out" <<'PY'
import re, statistics, sys
txt = open(sys.argv[1], errors="replace").read()
# each stats period prints both ports' blocks; a period's rate is their sum
pps = [int(x) for x in re.findall(r"Rx-pps:\s+(\d+)", txt)]
periods = [pps[i] + pps[i + 1] for i in range(0, len(pps) - 1, 2)][1:]
periods = [p for p in periods if p > 0]
print(statistics.median(periods) if periods else 0)
PY
}

# ours: ns a packet of the 4-flow case's loops and RX, and RX with 10^4 flows;
# then the flows' curve, RX's and the engine's ns a packet at each count
ours() {
	"$bench" datapath --quick > "$work/ours.txt" 2>&1 || true
	grep -q "^DPDK memory: ${memname%% (*}" "$work/ours.txt" ||
		echo "testpmd_ref: the benchmark ran on other memory than testpmd: $(grep '^DPDK memory' "$work/ours.txt")" >&2
	python3 - "$work/ours.txt" <<'PY'
import re, sys
txt = open(sys.argv[1]).read()
l2 = re.findall(r"plain loop .*?= ([\d.]+) ns/packet", txt)
l3 = re.findall(r"l3fwd-style .*?= ([\d.]+) ns/packet", txt)
rx = re.findall(r"RX: parse, classify, route, enqueue .*?= ([\d.]+) ns/packet", txt)
# flows, RX, engine, then the engine's reads, the loops and the ratios, bytes a flow
curve = re.findall(r"^ +(\d+) +([\d.]+) +([\d.]+)(?: +[\d.]+){6} +\d+$", txt, re.M)
print(" ".join([l2[0] if l2 else "0", l3[0] if l3 else "0", rx[0] if rx else "0", rx[1] if len(rx) > 1 else "0"]
               + [f"{n}:{r}:{e}" for n, r, e in curve]))
PY
}

methods=(ours io mac 5tswap)
for ((b = 0; b < blocks; b++)); do
	for ((k = 0; k < ${#methods[@]}; k++)); do
		m=${methods[$(((k + b) % ${#methods[@]}))]}
		if [ "$m" = ours ]; then
			echo "$b $(ours)" >> "$work/ours"
		else
			echo "$b $(testpmd "$m")" >> "$work/$m"
		fi
	done
	echo "  block $((b + 1)) of $blocks done"
done
if ! grep -q "Rx-pps" "$work/testpmd-io.txt"; then
	echo "testpmd_ref: testpmd gave no statistics; its output:" >&2
	cat "$work/testpmd-io.txt" >&2
	exit 1
fi

python3 - "$work" <<'PY'
import statistics, sys
w = sys.argv[1]
def rows(name):
    return {int(l.split()[0]): [float(x) for x in l.split()[1:] if ":" not in x] for l in open(f"{w}/{name}")}
ours = rows("ours")
# the flows' curve of each block: count -> (RX ns, engine ns)
curve = {int(l.split()[0]): {int(x.split(":")[0]): (float(x.split(":")[1]), float(x.split(":")[2]))
                             for x in l.split()[1:] if ":" in x} for l in open(f"{w}/ours")}
tp = {m: {b: 1e9 / v[0] if v[0] > 0 else 0 for b, v in rows(m).items()} for m in ("io", "mac", "5tswap")}
blocks = sorted(ours)
def show(name, vals):
    v = sorted(vals)
    print(f"  {name:<44} {statistics.median(v):6.1f} [{v[0]:.1f}, {v[-1]:.1f}]")
print("\n== ns a packet, one core, median [min, max] over blocks")
show("testpmd io (rx_burst, tx_burst)", tp["io"].values())
show("testpmd mac (MAC rewrite)", tp["mac"].values())
show("testpmd 5tswap (swap MAC, IP, UDP)", tp["5tswap"].values())
show("l2fwd-style loop (MAC rewrite)", [ours[b][0] for b in blocks])
show("l3fwd-style loop (parse, LPM, rewrite)", [ours[b][1] for b in blocks])
show("tdpd RX, 4 flows", [ours[b][2] for b in blocks])
show("tdpd RX, 10^4 flows", [ours[b][3] for b in blocks])
print("\n== against testpmd mac, per block: median [min, max] (ns a packet over testpmd's)")
for i, name in enumerate(["l2fwd-style loop", "l3fwd-style loop", "tdpd RX, 4 flows", "tdpd RX, 10^4 flows"]):
    r = sorted(ours[b][i] / tp["mac"][b] for b in blocks if tp["mac"].get(b))
    if r:
        print(f"  {name:<44} {statistics.median(r):6.2f}x [{r[0]:.2f}, {r[-1]:.2f}]")
counts = sorted({n for b in blocks for n in curve.get(b, {})})
if counts:
    print("\n== the flows' curve beside testpmd mac: ns a packet, and over testpmd mac's per block; median [min, max]")
    print(f"  {'flows':>8} {'RX ns':>22} {'engine ns':>26} {'RX / mac':>20} {'engine / mac':>22}")
    def mm(v):
        v = sorted(v)
        return f"{statistics.median(v):.1f} [{v[0]:.1f}, {v[-1]:.1f}]"
    def mr(v):
        v = sorted(v)
        return f"{statistics.median(v):.2f}x [{v[0]:.2f}, {v[-1]:.2f}]"
    for n in counts:
        bs = [b for b in blocks if n in curve.get(b, {}) and tp["mac"].get(b)]
        if not bs:
            continue
        rx = [curve[b][n][0] for b in bs]
        en = [curve[b][n][1] for b in bs]
        print(f"  {n:>8} {mm(rx):>22} {mm(en):>26} {mr([curve[b][n][0] / tp['mac'][b] for b in bs]):>20} "
              f"{mr([curve[b][n][1] / tp['mac'][b] for b in bs]):>22}")
else:
    print("\ntestpmd_ref: no row of the flows' curve in the benchmark's output", file=sys.stderr)
PY
