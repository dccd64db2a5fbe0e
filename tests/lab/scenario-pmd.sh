# SPDX-License-Identifier: BSD-3-Clause
# Scenario pmd of the lab (sourced by lab.sh): the PCI path as the PMDs and
# the IOMMU give it. One router guest with two vCPUs behind QEMU's emulated
# Intel IOMMU: port in a virtio-net-pci NIC with two queue pairs and RSS,
# bound to vfio-pci; port out an e1000e, which offers one queue, bound to
# uio_pci_generic. First tdpd with three RX cores (the housekeeping
# thread's, and rx-cpus 1,0): port in takes the two queues its PMD offers,
# spread by RSS, port out one (its PMD offers no RSS), served by RX core 0.
# Then tdpd's best-effort forwarding rate against dpdk-testpmd's on the same
# NICs, in alternating blocks under the same flood, each with one CPU
# polling (TCG rates: the ratio only).
# host ns snd -- tap (2 queues) -- [virtio-net in | router guest | e1000e out] -- tap -- host ns rcv
MAC_S=02:00:00:00:01:02
MAC_R=02:00:00:00:02:02
MAC_IN=52:54:00:00:01:03
MAC_OUT=52:54:00:00:01:04
BLOCKS="tdpd:rss tdpd:fwd testpmd tdpd:fwd testpmd"
FLOOD_S=8      # seconds of flood a block
FLOOD_PPS=100000 # offered 64-byte frames a second, above what TCG forwards
RSS_PPS=2000   # the RSS block's, below what each of its RX cores takes
FLOWS=64       # UDP source ports, for RSS to spread
probe_table "$O/share/probe.tdp" 10ms 500us
lab_env
# be N: best-effort frames the receiver counted in block N (0 without)
be() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["frames"]["best_effort"])' \
		"$O/rcv$1.json" 2>/dev/null || echo 0
}
# taps FILE: the end hosts' taps' counts (ip -s -j link): what the
# sender's kernel handed to the guest's NIC, what the receiver's got
taps() {
	{
		ip -n "$TAG-snd" -s -j link show "$TAG-s"
		ip -n "$TAG-rcv" -s -j link show "$TAG-r"
	} >"$1" 2>&1
}
# tdpd_blocks_ok: every tdpd block forwarded and ended with exit 0
tdpd_blocks_ok() {
	local i=0 m
	for m in $BLOCKS; do
		i=$((i + 1))
		[ "$m" = testpmd ] && continue
		[ "$(cat "$O/share/r1/$i.rc" 2>/dev/null)" = 0 ] && [ "$(be $i)" -gt 0 ] || return 1
	done
}
# tdpd with three RX cores for two queues: port in's two pollers, RX cores
# 0 and 1, on a vCPU each (RX core 1 beside the engine, which sleeps
# between frames), RX core 2, which serves no queue, beside RX core 0; idle
# cores sleep, so that the frames' shares are RSS's, not the guest
# scheduler's. Then, as testpmd runs: one CPU
# polling RX without pause (tdpd's housekeeping thread, testpmd's
# forwarding lcore), the other's thread sleeping between its work (tdpd's
# engine at SCHED_FIFO, testpmd's main lcore). Under TCG a vCPU that polls
# holds a host CPU, and QEMU's own thread, which moves the frames between
# the taps and the NICs, needs what is left of the host's two.
lab_conf "$O/share/r1-rss.conf" /mnt/probe.tdp 10.0.1.1/24 10.0.1.2 "$MAC_S" 10.0.2.1/24 10.0.2.2 "$MAC_R" \
	"housekeeping-cpu 0" "engine-cpu 1" "rx-cpus 1,0" "rx-idle-sleep 100us"
lab_conf "$O/share/r1-fwd.conf" /mnt/probe.tdp 10.0.1.1/24 10.0.1.2 "$MAC_S" 10.0.2.1/24 10.0.2.2 "$MAC_R" \
	"housekeeping-cpu 0" "engine-cpu 1" "rx-idle-sleep 0" "engine-priority 80"
echo "$BLOCKS" >"$O/share/r1.blocks"
# testpmd on the same lcores' CPUs as tdpd (main on 0, forwarding on 1), in
# mac mode: each frame out of the other port to its neighbour's MAC, as a
# router's next hop; one queue a port, what the e1000e offers
echo "-l 0,1 -n 1 -a 0000:00:03.0 -a 0000:00:04.0 --in-memory --file-prefix labpmd --no-telemetry --" \
	"--forward-mode=mac --eth-peer=0,$MAC_S --eth-peer=1,$MAC_R --nb-cores=1 --rxq=1 --txq=1" \
	"--total-num-mbufs=16384 --auto-start" >"$O/share/r1.testpmd-args"
# the IOMMU before any PCI device; the virtio NIC behind it
# (iommu_platform: its DMA goes through the IOMMU's translation); the
# kernel's own DMA passes through (iommu=pt), so uio_pci_generic still works
LAB_SMP=2
LAB_APPEND="intel_iommu=on iommu=pt"
LAB_FIRST=(-device intel-iommu)
lab_guest r1 "$O" pmd-router.sh "$MEM" \
	-netdev "tap,id=in,ifname=$TAG-s,script=no,downscript=no,queues=2" \
	-device "virtio-net-pci,netdev=in,addr=0x3,mac=$MAC_IN,mq=on,rss=on,vectors=6,disable-legacy=on,iommu_platform=on" \
	-netdev "tap,id=out,ifname=$TAG-r,script=no,downscript=no" \
	-device "e1000e,netdev=out,addr=0x4,mac=$MAC_OUT"
lab_taps "$TAG-s" "$TAG-r" &&
	host_ns "$TAG-snd" "$TAG-s" "$MAC_S" 10.0.1.2/24 10.0.1.1 &&
	host_ns "$TAG-rcv" "$TAG-r" "$MAC_R" 10.0.2.2/24 10.0.2.1 || exit 1

echo "1..10"
lab_wait "$O/share/r1.up-1" "$((LIMIT - 60))" "$O/share/r1.console"
err1=$O/share/r1/1.err
check "the router guest boots with the IOMMU, tdpd forwards ($(elapsed) s)" \
	'[ -f "$O/share/r1.up-1" ] && grep -q "forwarding:" "$err1"' \
	"$(tail -30 "$O/share/r1.console" 2>/dev/null; tail -20 "$err1" 2>/dev/null)"
check "port in is bound to vfio-pci in an IOMMU group of its own, port out to uio_pci_generic" \
	'grep -Eq "^0000:00:03.0 group [0-9]+ driver vfio-pci" "$O/share/r1/iommu" &&
	 grep -Eq "^0000:00:04.0 group [0-9]+ driver uio_pci_generic" "$O/share/r1/iommu"' \
	"$(cat "$O/share/r1/iommu" 2>/dev/null)"
check "DPDK drives port in through VFIO with net_virtio (tdpd holds its group open), port out with net_e1000_em" \
	'grep -q "port in: 0000:00:03.0 (net_virtio)" "$err1" && grep -q "port out: 0000:00:04.0 (net_e1000_em)" "$err1" &&
	 grep -qx "vfio $(sed -n "s/^0000:00:03.0 group \([0-9]*\) .*/\1/p" "$O/share/r1/iommu")" "$O/share/r1/1.vfio"' \
	"$(grep -E "port (in|out):" "$err1" | head; cat "$O/share/r1/1.vfio" 2>/dev/null)"
# three RX cores (the housekeeping thread's, and on CPUs 0 and 1): port in
# has two queues, port out one (its PMD offers no RSS)
check "RX queues as the PMDs offer them: port in 2 of the 3 RX cores wanted, spread by RSS; port out 1, served by RX core 0" \
	'grep -q "port in: 2 RX queues spread by RSS, polled by 2 RX cores" "$err1" &&
	 grep -q "port in: 2 RX queues, so RX cores 2 and above do not serve it (net_virtio offers 2 RX and 2 TX queues)" "$err1" &&
	 grep -q "port out: one RX queue, so RX core 0 alone serves it (net_e1000_em offers no RSS on IP addresses and ports)" "$err1"' \
	"$(grep -E "RX queue|RX core|RX:|rx-cpus" "$err1" | head -20)"

# the blocks: the same flood through each forwarder in turn, the receiver
# counting what comes out
b=0
for m in $BLOCKS; do
	b=$((b + 1))
	lab_wait "$O/share/r1.up-$b" 300 "$O/share/r1.console" || break
	ip netns exec "$TAG-rcv" timeout 60 "$PROBE" recv -i "$TAG-r" --no-live --prio 0 --duration "$((FLOOD_S + 3))s" \
		--json "$O/rcv$b.json" --ready "$O/rcv$b.ready" >"$O/rcv$b.out" 2>"$O/rcv$b.err" &
	rp=$!
	LAB_PIDS+=("$rp")
	for _ in $(seq 100); do [ -f "$O/rcv$b.ready" ] && break; sleep 0.1; done
	taps "$O/taps$b-before.json"
	ip netns exec "$TAG-snd" timeout 60 "$PROBE" flood -i "$TAG-s" --flows "$FLOWS" --size 64 \
		--rate "$(($([ "$m" = tdpd:rss ] && echo "$RSS_PPS" || echo "$FLOOD_PPS") * 88 * 8 / 1000))kbit/s" --duration "${FLOOD_S}s" --dst 10.0.2.2 --src 10.0.1.2 \
		--dst-mac "$MAC_IN" >"$O/flood$b.out" 2>"$O/flood$b.err"
	wait "$rp"
	taps "$O/taps$b-after.json"
	note "block $b ($m): $(cat "$O/flood$b.err"); received $(be $b)"
	touch "$O/share/r1.flooded-$b"
done
lab_wait "$O/share/r1.done" 120 "$O/share/r1.console"
# the flood's 64 flows are spread by RSS's hash of addresses and ports:
# below what each core takes, each core gets the frames of the flows hashed
# to its queue, a fixed share of the 64 (when two RX cores shared one vCPU
# under the full flood, a core's share followed the guest's scheduler
# instead: 5 % to 64 % from run to run)
check "the flood's 64 flows reach port in's 2 RX cores through RSS, each a fifth at least; the third gets none" \
	'python3 - "$O/share/r1/1-stats.json" <<"PY"
import json, sys
c = [x.get("pkts", 0) for x in json.load(open(sys.argv[1]))["rx"]["cores"]]
assert len(c) == 3 and min(c[:2]) * 5 >= sum(c) > 0 and c[2] == 0, c
PY' "$(python3 -c 'import json,sys; print([x.get("pkts", 0) for x in json.load(open(sys.argv[1]))["rx"]["cores"]])' "$O/share/r1/1-stats.json" 2>&1)"
note "RX cores' packets in the flood of block 1: $(python3 -c 'import json,sys; print([x.get("pkts", 0) for x in json.load(open(sys.argv[1]))["rx"]["cores"]])' "$O/share/r1/1-stats.json" 2>&1)"
check "tdpctl ports: port in has 2 RX queues with RSS, port out 1, and each why fewer than the RX cores" \
	'python3 - "$O/share/r1/1-ports.json" <<"PY"
import json, sys
p = {x["name"]: x["rx"] for x in json.load(open(sys.argv[1]))["ports"]}
assert p["in"] == {"queues": 2, "rss": True, "why_fewer": "net_virtio offers 2 RX and 2 TX queues"}, p
assert p["out"] == {"queues": 1, "rss": False, "why_fewer": "net_e1000_em offers no RSS on IP addresses and ports"}, p
PY' "$(head -c 2000 "$O/share/r1/1-ports.json" 2>/dev/null)"
check "testpmd forwards on the same NICs (mac mode, its own lcores)" '[ "$(be 3)" -gt 0 ]' \
	"$(tail -30 "$O/share/r1/3.err" 2>/dev/null)"
check "tdpd forwards best effort in every one of its blocks and stops with exit 0 each time" tdpd_blocks_ok \
	"$(cat "$O/share/r1/"*.rc 2>/dev/null; tail -5 "$O/share/r1/4.err" 2>/dev/null)"
# the sender's tap counts what it handed to the guest's NIC; of that, what
# did not reach the receiver tdpd counted by reason (what is left: the
# sender's own ARP and ND to the router, a few frames)
check "every frame the sender's tap handed to port in is at the receiver or counted by tdpd (30 left at most)" \
	'python3 "$SRC/tests/lab/pmd_figures.py" --accounted 30 "$O" "$FLOOD_S" $BLOCKS' \
	"$(python3 "$SRC/tests/lab/pmd_figures.py" --accounted 30 "$O" "$FLOOD_S" $BLOCKS 2>&1)"
out=$(python3 "$SRC/tests/lab/pmd_figures.py" "$O" "$FLOOD_S" $BLOCKS 2>&1)
echo "$out" | sed 's/^/# /'
check "the figures: each forwarder's rate per block, and tdpd's against testpmd's" \
	'grep -Eq "^tdpd / testpmd: [0-9]" <<<"$out"' "$out"
