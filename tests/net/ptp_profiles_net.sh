#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The ptp timebase under every profile linuxptp ships, with real ptp4l and the
# configuration files of Debian's linuxptp (/usr/share/doc/linuxptp/configs)
# as they are: the interface, the socket, the transport (-2, -4, -6), a
# slave's role (-s), free_running (so nothing steps the host clock) and,
# for gPTP's files, a neighborPropDelayThresh that software timestamps meet
# are given on ptp4l's command line. Software timestamps over veth pairs.
#   default.cfg (E2E) over L2, UDPv4 and UDPv6; gPTP.cfg (P2P, transport-
#   Specific 1, which tdpd finds by asking); automotive-master.cfg and
#   automotive-slave.cfg (tdpd reads the slave's file, ptp-config); and a
#   boundary clock of three ports in the middle of a chain, tdpd following it.
# Each: tdpd locks (the seconds it took are printed, with the offsets it
# applied); the master killed: holdover, then unlocked with the alarm; the
# master back: locked again. Bounded waits; no assertion on a time.
# usage: ptp_profiles_net.sh TDPD TDPCTL SRCDIR  (TAP)
set -u
TDPD=$1
TDPCTL=$2
SRC=$3
. "$SRC/tests/net/netns.sh"
. "$SRC/tests/tap.sh"
net_test_begin ptp4l python3
CFG=/usr/share/doc/linuxptp/configs
[ -f "$CFG/gPTP.cfg" ] || { echo "1..0 # SKIP needs Debian's linuxptp configs in $CFG"; exit 0; }
echo "1..21"

P=pp$$
G=${P}g R=${P}r B=${P}b S=${P}s
CH_NS=("$G" "$R" "$B" "$S")
ns_new "${CH_NS[@]}"
ns_ipv6 "${CH_NS[@]}"
# G ── R: the master and tdpd's ptp4l; G ── B ── S: a chain through a
# boundary clock, whose third port (b2) goes to R's second interface
ip -n "$G" link add gm type veth peer name ps netns "$R"
ip -n "$G" link add gb type veth peer name b0 netns "$B"
ip -n "$B" link add b1 type veth peer name s0 netns "$S"
ip -n "$B" link add b2 type veth peer name rb netns "$R"
for l in "$G gm" "$G gb" "$R ps" "$R rb" "$B b0" "$B b1" "$B b2" "$S s0"; do
	set -- $l
	ip -n "$1" link set "$2" up
done
ip -n "$G" addr add 10.9.0.1/24 dev gm
ip -n "$R" addr add 10.9.0.2/24 dev ps
ip -n "$G" addr add fd09::1/64 dev gm
ip -n "$R" addr add fd09::2/64 dev ps
ip -n "$G" addr add 10.9.1.1/24 dev gb
ip -n "$B" addr add 10.9.1.2/24 dev b0
ip -n "$B" addr add 10.9.2.1/24 dev b1
ip -n "$S" addr add 10.9.2.2/24 dev s0
# tdpd's own port: a veth of R's own, carrying nothing here
ip -n "$R" link add d0 type veth peer name d1
ip -n "$R" link set d0 up
ip -n "$R" link set d1 up
ip -n "$B" link add d0 type veth peer name d1
ip -n "$B" link set d0 up
ip -n "$B" link set d1 up
probe_table "$W/t.tdp"

# ptp4l NS NAME CONFIG ARGS...: ptp4l on CONFIG (as shipped), its socket
# $W/NAME.sock, software timestamps, its pid in PID_NAME
ptp4l_run() {
	local ns=$1 name=$2 cfg=$3
	shift 3
	ip netns exec "$ns" ptp4l -S -f "$cfg" --uds_address="$W/$name.sock" -m "$@" >>"$W/$name.log" 2>&1 &
	eval "PID_$name=$!"
	PIDS+=($!)
}
# tdpd_run NS NAME [LINE...]: tdpd following ptp4l's socket $W/NAME.sock
tdpd_run() {
	local ns=$1 name=$2
	shift 2
	mkdir -p "$W/t$name"
	{
		conf_globals "$W/t$name" "$W/t.tdp" "timebase ptp" "ptp-socket $W/$name.sock" "ptp-mode offset" \
			"ptp-poll 100ms" "sync-lock-threshold 500us" "sync-step 10ms" "sync-sample-timeout 2s" \
			"sync-holdover 2s" "sync-holdover-action serve" "sync-unlocked-action alarm" "$@"
		printf '\n[port out]\ndevice net_af_packet0,iface=d0\n'
	} >"$W/t$name/tdpd.conf"
	: >"$W/t$name/err"
	ip netns exec "$ns" "$TDPD" -f "$W/t$name/tdpd.conf" >"$W/t$name/out" 2>"$W/t$name/err" &
	eval "TPID_$name=$!"
	PIDS+=($!)
}
# wait_count NAME PATTERN N SECONDS: until tdpd NAME's log has N lines with it
wait_count() {
	for _ in $(seq $(($4 * 10))); do [ "$(grep -c -- "$2" "$W/t$1/err")" -ge "$3" ] && return 0; sleep 0.1; done
	return 1
}
secs() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }
offsets() {
	ip netns exec "$2" "$TDPCTL" --socket "$W/t$1/tdpd-ro.sock" --json sync 2>/dev/null |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print("offset %d ns, uncertainty %d ns" % (d["offset_ns"], d["uncertainty_ns"]))' 2>/dev/null
}

# profile NAME NS LABEL: lock, the master killed, the master back (3 checks);
# the master is PID_NAMEm, restarted by restart_NAMEm
profile() {
	local name=$1 ns=$2 label=$3 t0
	t0=$(date +%s%N)
	check "$label: tdpd locks on ptp4l's offset" 'wait_count "$name" "sync: unlocked -> locked" 1 60' \
		"$(grep -i "ptp\|sync" "$W/t$name/err" | tail -12; tail -6 "$W/$name.log")"
	echo "# $label: locked after $(secs "$t0") s; $(offsets "$name" "$ns"); $(grep -o "answers management messages with transportSpecific 0x[0-9a-f]*" "$W/t$name/err" | head -1 | sed 's/answers management messages with //')"
	local m=PID_${name}m
	kill -TERM "${!m}"
	wait "${!m}" 2>/dev/null
	check "$label: the master killed: holdover, then unlocked with the alarm" \
		'wait_count "$name" "sync: locked -> holdover" 1 30 && wait_count "$name" "sync: holdover -> unlocked" 1 30 &&
		 grep "holdover -> unlocked" "$W/t$name/err" | grep -q "ALARM: still serving"' \
		"$(grep -i "sync" "$W/t$name/err" | tail -6)"
	t0=$(date +%s%N)
	"restart_${name}m"
	check "$label: the master back: locked again" 'wait_count "$name" "sync: unlocked -> locked" 2 90' \
		"$(grep -i "ptp\|sync" "$W/t$name/err" | tail -8; tail -6 "$W/$name.log")"
	echo "# $label: locked again $(secs "$t0") s after the master came back"
	local t=TPID_$name s=PID_$name
	kill -TERM "${!t}" "${!s}" "${!m}" 2>/dev/null
	wait "${!t}" "${!s}" "${!m}" 2>/dev/null
}

# ---- default.cfg, E2E, over L2, UDPv4 and UDPv6 ------------------------------
for tr in 2:L2 4:UDPv4 6:UDPv6; do
	f=${tr%%:*} lab=${tr#*:} pn=d$f
	eval "restart_${pn}m() { ptp4l_run \"\$G\" ${pn}m \"\$CFG/default.cfg\" -$f -i gm; }"
	"restart_${pn}m"
	ptp4l_run "$R" "$pn" "$CFG/default.cfg" "-$f" -i ps -s --free_running=1
	tdpd_run "$R" "$pn"
	profile "$pn" "$R" "default.cfg, E2E over $lab"
done

# ---- gPTP.cfg: P2P, transportSpecific 1, which tdpd finds by asking ------------
# gPTP's neighborPropDelayThresh (800 ns) is for hardware timestamps: over
# veth with software ones the peer delay is some 1.3 us, and a port above
# the threshold is not asCapable and hears no Announce
thresh=--neighborPropDelayThresh=100000
restart_gpm() { ptp4l_run "$G" gpm "$CFG/gPTP.cfg" -i gm "$thresh"; }
restart_gpm
ptp4l_run "$R" gp "$CFG/gPTP.cfg" -i ps -s --free_running=1 "$thresh"
tdpd_run "$R" gp
profile gp "$R" "gPTP.cfg (802.1AS: P2P, transportSpecific 1)"
check "gPTP: tdpd found the transportSpecific by asking and said so" \
	'grep -q "answers management messages with transportSpecific 0x1 (IEEE 802.1AS, gPTP)" "$W/tgp/err"' \
	"$(grep ptp "$W/tgp/err" | head)"

# ---- automotive-master.cfg and automotive-slave.cfg, tdpd given the file ------
restart_aum() { ptp4l_run "$G" aum "$CFG/automotive-master.cfg" -i gm "$thresh"; }
restart_aum
ptp4l_run "$R" au "$CFG/automotive-slave.cfg" -i ps --free_running=1 "$thresh"
tdpd_run "$R" au "ptp-config $CFG/automotive-slave.cfg"
profile au "$R" "automotive-master.cfg and automotive-slave.cfg"
check "automotive: tdpd read ptp4l's file and asked with its transportSpecific from the start" \
	'grep -q "from ptp4l.s $CFG/automotive-slave.cfg: transportSpecific 0x1" "$W/tau/err" &&
	 grep -q "answers management messages with transportSpecific 0x1" "$W/tau/err" &&
	 awk "/answers management messages/ {exit} /ptp: no answer from ptp4l/ {bad = 1} END {exit bad}" "$W/tau/err"' \
	"$(grep ptp "$W/tau/err" | head)"

# ---- a boundary clock of three ports, tdpd following it -------------------------
restart_bcm() { ptp4l_run "$G" bcm "$CFG/default.cfg" -4 -i gb --priority1=1; }
restart_bcm
ptp4l_run "$B" bc "$CFG/default.cfg" -4 -i b0 -i b1 -i b2 --free_running=1
ptp4l_run "$S" bcs "$CFG/default.cfg" -4 -i s0 -s --free_running=1
ptp4l_run "$R" bcr "$CFG/default.cfg" -4 -i rb -s --free_running=1
tdpd_run "$B" bc
check "boundary clock: ptp4l's three ports answer, one UNCALIBRATED (upstream), two MASTER" \
	'wait_count bc "ptp4l port 3 is MASTER" 1 60 && wait_count bc "ptp4l port 2 is MASTER" 1 60 &&
	 wait_count bc "ptp4l port 1 is UNCALIBRATED" 1 60' "$(grep ptp "$W/tbc/err")"
profile bc "$B" "a boundary clock of three ports"
