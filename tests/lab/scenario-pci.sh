# SPDX-License-Identifier: BSD-3-Clause
# Scenario pci of the lab (sourced by lab.sh): one router guest between two
# host namespaces. Port in on a virtio-net-pci NIC, port out on an e1000e,
# both bound to uio_pci_generic; the exception interfaces answer ping and
# arping; ping, traceroute, FRR's OSPF and tdp-probe's reserved flow cross it.
# host ns snd -- tap -- [virtio-net in | router guest | e1000e out] -- tap -- host ns rcv
MAC_S=02:00:00:00:01:02
MAC_R=02:00:00:00:02:02
MAC_IN=52:54:00:00:01:03
MAC_OUT=52:54:00:00:01:04
# the router's table: the network tests' probe table on 10 ms frames (TCG
# forwards about 10 kpps)
probe_table "$O/share/probe.tdp" 10ms 500us
# OSPF between the router guest (on its exception interfaces) and the sender,
# which announces a net of its own (10.9.9.0/24) for the router to learn
hello='
 ip ospf hello-interval 1
 ip ospf dead-interval 4'
printf 'interface tdp-in%s\nrouter ospf\n ospf router-id 10.0.1.1\n network 10.0.1.0/24 area 0\n network 10.0.2.0/24 area 0\n passive-interface tdp-out\n' \
	"$hello" >"$O/share/r1.ospfd"
lab_env
# the router's tdpd.conf (router.sh runs tdpd on it; its files in /run/tdpd,
# what it leaves in /mnt/r1)
lab_conf "$O/share/r1.conf" /mnt/probe.tdp 10.0.1.1/24 10.0.1.2 "$MAC_S" 10.0.2.1/24 10.0.2.2 "$MAC_R" \
	"late-policy carry" "summary-json /mnt/r1/sum.json"
lab_router_between router.sh || exit 1
# the sender's far net on a veth of its own (this kernel has no dummy)
ip -n "$TAG-snd" link add far type veth peer name far1 && ip -n "$TAG-snd" link set far up &&
	ip -n "$TAG-snd" link set far1 up && ip -n "$TAG-snd" addr add 10.9.9.1/24 dev far || exit 1

echo "1..13"
lab_wait "$O/share/r1.ready" "$((LIMIT - 60))" "$O/share/r1.console"
check "the router guest boots, binds its NICs to uio_pci_generic and tdpd forwards on them ($(elapsed) s)" \
	'[ -f "$O/share/r1.ready" ]' "$(tail -30 "$O/share/r1.console" 2>/dev/null; tail -20 "$O/share/r1/tdpd.err" 2>/dev/null)"
check "DPDK drives the NICs with its PCI PMDs: port in net_virtio, port out net_e1000_em" \
	'grep -q "port in: 0000:00:03.0 (net_virtio)" "$O/share/r1/tdpd.err" &&
	 grep -q "port out: 0000:00:04.0 (net_e1000_em)" "$O/share/r1/tdpd.err"' \
	"$(grep "port \(in\|out\):" "$O/share/r1/tdpd.err" | head -20)"
check "each PCI port has its exception interface in the guest's kernel" \
	'grep -q "tdp-in" "$O/share/r1/ip-link" && grep -q "tdp-out" "$O/share/r1/ip-link"' "$(cat "$O/share/r1/ip-link" 2>/dev/null)"
# the router's own addresses answer through the exception interfaces (TCG is slow: generous waits)
out=$(ip netns exec "$TAG-snd" ping -c 5 -i 0.5 -W 5 10.0.1.1 2>&1)
check "ping of the router's address on port in: answered by the guest's kernel through tdp-in" \
	'grep -q " 0% packet loss" <<<"$out"' "$out"
out=$(ip netns exec "$TAG-snd" arping -c 3 -w 10 -I "$TAG-s" 10.0.1.1 2>&1)
check "arping of the router: its port's MAC answers" 'grep -qi "$MAC_IN" <<<"$out"' "$out"
out=$(ip netns exec "$TAG-snd" ping -c 5 -i 0.5 -W 5 10.0.2.2 2>&1)
check "ping through the router, sender to receiver, as best effort" 'grep -q " 0% packet loss" <<<"$out"' "$out"
out=$(ip netns exec "$TAG-snd" traceroute -n -w 5 -q 1 -m 3 10.0.2.2 2>&1)
check "traceroute: the router's hop (its ICMP time-exceeded), then the receiver" \
	'grep -Eq "^ 1 +10\.0\.1\.1" <<<"$out" && grep -Eq "^ 2 +10\.0\.2\.2" <<<"$out"' "$out"
# OSPF through the PCI port's exception interface: the sender's ospfd and
# the guest's reach Full, the guest's kernel takes 10.9.9.0/24 from it and
# tdpd follows the kernel
if frr_have; then
	frr_start "$TAG-snd" "${TAG}s" "interface $TAG-s$hello
router ospf
 ospf router-id 10.0.1.2
 network 10.0.1.0/24 area 0
 network 10.9.9.0/24 area 0
 passive-interface far"
	full() { frr_vty "${TAG}s" show ip ospf neighbor | grep -q "^10.0.1.1 .*Full"; }
	lab_wait "$O/share/r1.ospf" 60 "$O/share/r1.console"
	for _ in $(seq 900); do full && break; sleep 0.1; done
	check "OSPF Full between the sender's ospfd and the router guest's, over port in's exception interface ($(elapsed) s)" \
		full "$(frr_vty "${TAG}s" show ip ospf neighbor; tail -5 /var/run/frr/"${TAG}"s/ospfd.log 2>/dev/null)"
	for _ in $(seq 60); do
		ip netns exec "$TAG-rcv" ping -c 1 -W 1 10.9.9.1 >/dev/null 2>&1 && break
		sleep 1
	done
	out=$(ip netns exec "$TAG-rcv" ping -c 5 -i 0.5 -W 5 10.9.9.1 2>&1)
	check "the route the guest learned by OSPF is tdpd's: the receiver reaches 10.9.9.1 behind the sender" \
		'grep -q " 0% packet loss" <<<"$out"' "$out
$(frr_vty "${TAG}s" show ip ospf database; frr_vty "${TAG}s" show ip route)"
else
	ok "# SKIP FRR's ospfd is not installed"
	ok "# SKIP FRR's ospfd is not installed"
fi

# a reserved flow: tdp-probe at both ends, counted
lab_probes "" "$O/share/probe.tdp" 500 "$MAC_IN" --frame-delay 1
touch "$O/share/r1.stop"
lab_wait "$O/share/r1.done" 120 "$O/share/r1.console"
read -r got lost counted < <(python3 "$SRC/tests/net/losses.py" "$O/rcv.json" 0 probe "$O/share/r1/sum.json" 2>/dev/null)
check "tdp-probe's reserved flow crosses the router guest; every probe lost is counted by tdpd (${got:-?} received, ${lost:-?} lost, ${counted:-?} counted)" \
	'[ "${got:-0}" -gt 0 ] && [ "$lost" -le "$counted" ]' "$(cat "$O/rcv.out" "$O/send.err" 2>/dev/null | tail -20)"
check "tdpctl ports in the guest names each port's PMD, the push and coalescing as the PMD answers (e1000e: no launch time; polled: no interrupts)" \
	'python3 - "$O/share/r1/ports.json" <<"PY"
import json, sys
p = {x["name"]: x for x in json.load(open(sys.argv[1]))["ports"]}
assert p["in"]["pmd"] == "net_virtio" and p["out"]["pmd"] == "net_e1000_em", p
assert p["out"]["push"]["kind"] == "cpu" and "net_e1000_em offers no send-on-timestamp" in p["out"]["push"]["why"]
assert p["in"]["host_path"]["mode"] == "tap" and p["in"]["host_path"]["exception"]["to_kernel"] > 0
for x in p.values():
    assert x["coalescing"].startswith("not applicable: the PMD polls the device"), x["coalescing"]
PY' "$(head -c 3000 "$O/share/r1/ports.json" 2>/dev/null)"
if frr_have; then
	check "tdpctl routes in the guest: 10.9.9.0/24 through port in, from the kernel, put there by ospf" \
		'grep -Eq "^10\.9\.9\.0/24 +in +10\.0\.1\.2 +kernel proto ospf" "$O/share/r1/routes"' \
		"$(cat "$O/share/r1/routes" 2>/dev/null)"
else
	ok "# SKIP FRR's ospfd is not installed"
fi
check "tdpd in the guest stopped with exit 0 on SIGTERM" 'grep -q "^0$" "$O/share/r1/tdpd.rc"' \
	"$(cat "$O/share/r1/tdpd.rc" 2>/dev/null; tail -10 "$O/share/r1/tdpd.err" 2>/dev/null)"
