# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the demo and the network tests: a sender host, a router and a
# receiver host in their own network namespaces, joined by veth pairs.
#
#   sender ns  s0 10.0.1.2/24 ──veth── rin │ router ns │ rout ──veth── r0 10.0.2.2/24  receiver ns
#
# The router's veths carry no addresses: tdpd owns them through DPDK
# af_packet. The hosts reach each other through it with static neighbours.
# net_up PREFIX creates it all; net_down removes it (call it from a trap).

# net_test_begin [TOOL...]: the start of every network test. Skips (TAP) unless
# we are root with network namespaces and have the tools; makes the scratch
# directory W and, on any exit, kills PIDS, runs the script's net_cleanup when
# it has one, removes what net_up and chain_up made, and W (kept with KEEP=1).
net_test_begin() {
	if [ "$(id -u)" -ne 0 ] || ! ip netns list >/dev/null 2>&1; then
		echo "1..0 # SKIP needs root and network namespaces"
		exit 0
	fi
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null || { echo "1..0 # SKIP needs $t"; exit 0; }
	done
	W=$(mktemp -d)
	PIDS=()
	CH_NS=()
	trap net_test_end EXIT
	trap 'exit 1' INT TERM
}

net_test_end() {
	local p
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	if declare -F net_cleanup >/dev/null; then net_cleanup; fi
	net_down
	chain_down
	if [ -n "${KEEP:-}" ]; then echo "# kept $W" >&2; else rm -rf "$W"; fi
}

MAC_S0=02:00:00:00:01:02
MAC_RIN=02:00:00:00:01:01
MAC_ROUT=02:00:00:00:02:01
MAC_R0=02:00:00:00:02:02

net_up() {
	NP=$1
	NS_SND=${NP}snd
	NS_RTR=${NP}rtr
	NS_RCV=${NP}rcv
	ns_new "$NS_SND" "$NS_RTR" "$NS_RCV"
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

# ns_new NS...: network namespaces with loopback up and IPv6 off (the
# tests' hosts and routers speak IPv4 unless a test turns IPv6 on); the
# caller lists them in CH_NS for net_test_end to remove
ns_new() {
	local ns
	for ns in "$@"; do
		ip netns add "$ns"
		ip -n "$ns" link set lo up
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	done
}

# ns_ipv6 NS...: IPv6 on in namespaces ns_new made, without duplicate
# address detection, so addresses are usable at once
ns_ipv6() {
	local ns
	for ns in "$@"; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.default.disable_ipv6=0 \
			net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
	done
}

# conf_globals DIR TABLE [LINE...]: a router's [global] section, with defaults
# that suit a shared two-core machine, the control sockets and the state
# directory in DIR; a given
# LINE replaces the default of its option.
conf_globals() {
	local dir=$1 table=$2 d l
	shift 2
	echo "[global]"
	echo "schedule $table"
	for d in "engine-priority 0" "rx-idle-sleep 20us" "mlock no" \
		"control-socket $dir/tdpd.sock" "monitor-socket $dir/tdpd-ro.sock" "state-directory $dir/state"; do
		for l in "$@"; do [ "${l%% *}" = "${d%% *}" ] && continue 2; done
		echo "$d"
	done
	for l in "$@"; do echo "$l"; done
}

# probe_table FILE [TF GUARD]: the network tests' table, one 78-byte probe
# (DSCP 46, UDP 7350) in every frame of a cycle of 10 frames (TF 1ms, guard
# 20us unless given), out of port "out".
probe_table() {
	cat >"$1" <<TDP
tdp-schedule 1
tf ${2:-1ms}
k 10
guard ${3:-20us}
port out rate 100Mbit/s max-frame 1514 overhead 24
flow probe port out size 78 dscp 46 udp-dport 7350
frames 0-9: probe 1
TDP
}

# swap_tables GOOD BAD: a table to swap probe_table's for (k 20: two probe
# slots every other frame, and a flow of its own), and an invalid one (a
# frame too large for the port, a flow never declared)
swap_tables() {
	cat >"$1" <<'TDP'
tdp-schedule 1
tf 1ms
k 20
guard 20us
port out rate 100Mbit/s max-frame 1514 overhead 24
flow extra port out size 200 dscp 10 udp-dport 9
flow probe port out size 78 dscp 46 udp-dport 7350
frames 0-19/2: probe 2
frames 5: extra 1
TDP
	printf 'tdp-schedule 1\ntf 1ms\nk 10\nport out rate 100Mbit/s\nflow x port out size 9000 udp-dport 1\nframes 0: x 1\nframes 3: y 2\n' >"$2"
}

# router_conf FILE TABLE [[global] lines...]: the router's tdpd.conf. The
# defaults suit a shared two-core machine, and put the control sockets next
# to FILE; a given line replaces its default. The ports are af_packet, or
# af_xdp (tdpd's XDP program on rin and rout) with RTR_PMD=net_af_xdp.
router_conf() {
	local file=$1 table=$2 pmd=${RTR_PMD:-net_af_packet}
	shift 2
	{
		conf_globals "$(dirname "$file")" "$table" "$@"
		echo
		echo "[port in]"
		echo "device ${pmd}0,iface=rin"
		echo "address 10.0.1.1/24"
		echo "neighbour 10.0.1.2 $MAC_S0"
		echo
		echo "[port out]"
		echo "device ${pmd}1,iface=rout"
		echo "address 10.0.2.1/24"
		echo "neighbour 10.0.2.2 $MAC_R0"
	} >"$file"
}

# tdpd_stop_checked: SIGTERM to the router's tdpd ($TPID), and the TAP check
# that it stopped with exit 0 ($W/tdpd.err's tail said when not)
tdpd_stop_checked() {
	kill -TERM "$TPID"
	wait "$TPID"
	local rc=$?
	check "tdpd stops with exit 0" "[ $rc -eq 0 ]" "$(tail -5 "$W/tdpd.err")"
}

# ---- a chain: sender, N routers, receiver ------------------------------------
#
#   CH_SND s0 ── in r1 out ── in r2 out ── ... ── in rN out ── r0 CH_RCV
#
# Link j (0..N) is 10.7.j.0/24, its left end .1 (MAC 02:00:00:07:j:01), its
# right end .2 (02:00:00:07:j:02). The sender is 10.7.0.1, the receiver
# 10.7.N.2; router i owns in (link i-1) and out (link i) through DPDK.
# chain_up PREFIX N; chain_down removes it (call it from a trap);
# chain_conf FILE I TABLE [[global] lines...] writes router I's tdpd.conf.

ch_mac() { printf '02:00:00:07:%02x:%02x' "$1" "$2"; }

chain_up() {
	CH_P=$1
	CH_N=$2
	CH_SND=${CH_P}snd
	CH_RCV=${CH_P}rcv
	CH_NS=("$CH_SND")
	local i ns
	for i in $(seq 1 "$CH_N"); do CH_NS+=("${CH_P}r$i"); done
	CH_NS+=("$CH_RCV")
	ns_new "${CH_NS[@]}"
	for i in $(seq 0 "$CH_N"); do
		local l=${CH_NS[$i]} r=${CH_NS[$((i + 1))]} li=out ri=in
		[ "$i" -eq 0 ] && li=s0
		[ "$i" -eq "$CH_N" ] && ri=r0
		ip -n "$l" link add "$li" address "$(ch_mac "$i" 1)" type veth peer name "$ri" address "$(ch_mac "$i" 2)" netns "$r"
		ip -n "$l" link set "$li" up
		ip -n "$r" link set "$ri" up
		ip netns exec "$l" ethtool -K "$li" tx off rx off >/dev/null 2>&1 || true
		ip netns exec "$r" ethtool -K "$ri" tx off rx off >/dev/null 2>&1 || true
	done
	ip -n "$CH_SND" addr add 10.7.0.1/24 dev s0
	ip -n "$CH_SND" route add "10.7.$CH_N.0/24" via 10.7.0.2
	ip -n "$CH_SND" neigh add 10.7.0.2 lladdr "$(ch_mac 0 2)" dev s0 nud permanent
	ip -n "$CH_RCV" addr add "10.7.$CH_N.2/24" dev r0
	ip -n "$CH_RCV" route add 10.7.0.0/24 via "10.7.$CH_N.1"
	ip -n "$CH_RCV" neigh add "10.7.$CH_N.1" lladdr "$(ch_mac "$CH_N" 1)" dev r0 nud permanent
}

chain_down() {
	local ns
	for ns in "${CH_NS[@]}"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
		ip netns del "$ns" 2>/dev/null || true
	done
	CH_NS=()
}

chain_conf() {
	local file=$1 i=$2 table=$3
	shift 3
	local a=$((i - 1)) b=$i
	{
		# several routers share the CPUs: the engine polls at most 50 us before a boundary
		conf_globals "$(dirname "$file")" "$table" "node-id $i" "max-lead 50us" "$@"
		echo
		echo "[port in]"
		echo "device net_af_packet0,iface=in"
		echo "address 10.7.$a.2/24"
		echo "neighbour 10.7.$a.1 $(ch_mac "$a" 1)"
		[ "$a" -gt 0 ] && echo "route 10.7.0.0/24 via 10.7.$a.1"
		echo
		echo "[port out]"
		echo "device net_af_packet1,iface=out"
		echo "address 10.7.$b.1/24"
		echo "neighbour 10.7.$b.2 $(ch_mac "$b" 2)"
		[ "$b" -lt "$CH_N" ] && echo "route 10.7.$CH_N.0/24 via 10.7.$b.2"
	} >"$file"
}

# ---- two routers on af_xdp ports, nothing static -----------------------------
#
#   SND s0 10.7.0.1 ── in R1 out ── in R2 out ── r0 10.7.2.2 RCV
#                      .0.2  .1.1    .1.2  .2.1
#
# No neighbour and no route beyond the hosts' default ones: the routers learn
# what they need from their kernels. xdp_pair_up PREFIX sets SND R1 R2 RCV
# (in CH_NS, removed by net_test_end); xdp_pair_conf FILE IN-ADDR OUT-ADDR
# [[global] lines...] writes a router's tdpd.conf (table $W/t.tdp), in
# $W/rN/tdpd.conf; xdp_pair_start N starts router N's tdpd ($TDPD, pid in
# PIDN, log in $W/rN/err) and waits for it to forward; xdp_pair_ctl N ARGS
# runs $TDPCTL against it.

xdp_pair_up() {
	SND=${1}snd R1=${1}r1 R2=${1}r2 RCV=${1}rcv
	CH_NS=("$SND" "$R1" "$R2" "$RCV")
	local l
	ns_new "${CH_NS[@]}"
	ip -n "$SND" link add s0 type veth peer name in netns "$R1"
	ip -n "$R1" link add out type veth peer name in netns "$R2"
	ip -n "$R2" link add out type veth peer name r0 netns "$RCV"
	for l in "$SND s0" "$R1 in" "$R1 out" "$R2 in" "$R2 out" "$RCV r0"; do
		set -- $l
		ip -n "$1" link set "$2" up
	done
	ip -n "$SND" addr add 10.7.0.1/24 dev s0
	ip -n "$SND" route add default via 10.7.0.2
	ip -n "$RCV" addr add 10.7.2.2/24 dev r0
	ip -n "$RCV" route add default via 10.7.2.1
	# veth hands on UDP with its checksum still to be filled in (offload); a
	# NIC's wire carries complete ones
	ip netns exec "$SND" ethtool -K s0 tx off >/dev/null 2>&1 || true
	mkdir -p "$W/r1" "$W/r2"
	probe_table "$W/t.tdp"
}

xdp_pair_conf() {
	local file=$1 a=$2 b=$3
	shift 3
	{
		conf_globals "$(dirname "$file")" "$W/t.tdp" "$@"
		printf '\n[port in]\ndevice net_af_xdp0,iface=in\naddress %s\n' "$a"
		printf '\n[port out]\ndevice net_af_xdp1,iface=out\naddress %s\n' "$b"
	} >"$file"
}

xdp_pair_start() {
	local ns=$R1
	[ "$1" = 2 ] && ns=$R2
	: >"$W/r$1/err"
	ip netns exec "$ns" "$TDPD" -f "$W/r$1/tdpd.conf" >"$W/r$1/out" 2>"$W/r$1/err" &
	eval "PID$1=$!"
	PIDS+=($!)
	for _ in $(seq 300); do grep -q "forwarding:" "$W/r$1/err" && break; sleep 0.1; done
}

# xdp_pair_host_checks MAC WHERE: five checks every host path owes, from SND
# through R1 and R2: arping and ping R1 (its kernel answers on WHERE with
# MAC), Net Unreachable from tdpd before any route, then `ip route add` in
# both routers carrying traffic within a second (>= 3 of 5: each router
# drops, and counts, the first packet to a next hop the kernel is still
# resolving). Leaves the two routes in place.
xdp_pair_host_checks() {
	local mac=$1 where=$2 out
	out=$(ip netns exec "$SND" arping -c 2 -w 4 -I s0 10.7.0.2 2>&1)
	check "arping the router: its kernel answers on $where with the port's MAC" \
		'grep -qi "reply from 10.7.0.2 \[$mac\]" <<<"$out"' "$out"
	out=$(ip netns exec "$SND" ping -c 3 -i 0.2 -W 1 10.7.0.2 2>&1)
	check "ping the router: 3 of 3" 'grep -q "3 received" <<<"$out"' "$out"
	out=$(ip netns exec "$SND" ping -c 2 -i 0.3 -W 1 10.7.2.2 2>&1)
	check "no route yet: tdpd answers Destination Net Unreachable from the address on $where" \
		'grep -q "From 10.7.0.2.*Destination Net Unreachable" <<<"$out"' "$out"
	ip -n "$R1" route add 10.7.2.0/24 via 10.7.1.2
	ip -n "$R2" route add 10.7.0.0/24 via 10.7.1.1
	sleep 1
	out=$(ip netns exec "$SND" ping -c 5 -i 0.2 -W 1 10.7.2.2 2>&1)
	check "ip route add in both routers: traffic through them within a second (>= 3 of 5 while next hops resolve)" \
		'[ "$(sed -n "s/.* \([0-9]*\) received.*/\1/p" <<<"$out")" -ge 3 ]' "$out"
}

xdp_pair_ctl() {
	local n=$1 ns=$R1
	shift
	[ "$n" = 2 ] && ns=$R2
	ip netns exec "$ns" "$TDPCTL" --socket "$W/r$n/tdpd-ro.sock" "$@"
}
