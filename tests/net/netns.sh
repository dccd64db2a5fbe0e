# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the demo and the network tests: a sender host, a router and a
# receiver host in their own network namespaces, joined by veth pairs.
#
#   sender ns  s0 10.0.1.2/24 ──veth── rin │ router ns │ rout ──veth── r0 10.0.2.2/24  receiver ns
#
# The router's veths carry no addresses: tdpd owns them through DPDK
# af_packet. The hosts reach each other through it with static neighbours.
# net_up PREFIX creates it all; net_down removes it (call it from a trap).

MAC_S0=02:00:00:00:01:02
MAC_RIN=02:00:00:00:01:01
MAC_ROUT=02:00:00:00:02:01
MAC_R0=02:00:00:00:02:02

net_up() {
	NP=$1
	NS_SND=${NP}snd
	NS_RTR=${NP}rtr
	NS_RCV=${NP}rcv
	local ns
	for ns in "$NS_SND" "$NS_RTR" "$NS_RCV"; do
		ip netns add "$ns"
		ip -n "$ns" link set lo up
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	done
	ip -n "$NS_SND" link add s0 address $MAC_S0 type veth peer name rin address $MAC_RIN netns "$NS_RTR"
	ip -n "$NS_RTR" link add rout address $MAC_ROUT type veth peer name r0 address $MAC_R0 netns "$NS_RCV"
	ip -n "$NS_SND" addr add 10.0.1.2/24 dev s0
	ip -n "$NS_RCV" addr add 10.0.2.2/24 dev r0
	ip -n "$NS_SND" link set s0 up
	ip -n "$NS_RCV" link set r0 up
	ip -n "$NS_RTR" link set rin up
	ip -n "$NS_RTR" link set rout up
	ip -n "$NS_SND" route add 10.0.2.0/24 via 10.0.1.1
	ip -n "$NS_RCV" route add 10.0.1.0/24 via 10.0.2.1
	ip -n "$NS_SND" neigh add 10.0.1.1 lladdr $MAC_RIN dev s0 nud permanent
	ip -n "$NS_RCV" neigh add 10.0.2.1 lladdr $MAC_ROUT dev r0 nud permanent
	# af_packet hands the router what the host's kernel put on the wire: with
	# checksum offload on veth, that is a UDP checksum still to be filled in
	ip netns exec "$NS_SND" ethtool -K s0 tx off >/dev/null 2>&1 || true
	ip netns exec "$NS_RCV" ethtool -K r0 tx off >/dev/null 2>&1 || true
	ip netns exec "$NS_RTR" ethtool -K rin tx off rx off >/dev/null 2>&1 || true
	ip netns exec "$NS_RTR" ethtool -K rout tx off rx off >/dev/null 2>&1 || true
}

net_down() {
	local ns
	for ns in "${NS_SND:-}" "${NS_RTR:-}" "${NS_RCV:-}"; do
		[ -n "$ns" ] || continue
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
		ip netns del "$ns" 2>/dev/null || true
	done
}

# router_conf FILE TABLE [[global] lines...]: the router's tdpd.conf. The
# defaults suit a shared two-core machine, and put the control sockets next
# to FILE; a given line replaces its default.
router_conf() {
	local file=$1 table=$2 d l
	shift 2
	{
		echo "[global]"
		echo "schedule $table"
		for d in "engine-priority 0" "rx-idle-sleep 20us" "mlock no" \
			"control-socket $(dirname "$file")/tdpd.sock" "monitor-socket $(dirname "$file")/tdpd-ro.sock"; do
			for l in "$@"; do [ "${l%% *}" = "${d%% *}" ] && continue 2; done
			echo "$d"
		done
		for l in "$@"; do echo "$l"; done
		echo
		echo "[port in]"
		echo "device net_af_packet0,iface=rin"
		echo "address 10.0.1.1/24"
		echo "neighbour 10.0.1.2 $MAC_S0"
		echo
		echo "[port out]"
		echo "device net_af_packet1,iface=rout"
		echo "address 10.0.2.1/24"
		echo "neighbour 10.0.2.2 $MAC_R0"
	} >"$file"
}
