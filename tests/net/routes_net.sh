#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A routing table of a real router's size, followed from the kernel:
#
#   snd s0 10.7.0.1 ── in R1 out ── in R2 out ── r0 10.7.2.2 rcv
#
# `ip -batch` gives R1's kernel 100,000 routes (99,500 /24s and 500 host
# routes in other /24s, every one through R2), the last of them the route
# to the receiver's net. tdpd follows them all: the receiver answers through
# it once the last is in force, tdpctl routes lists them with none the route
# table could not take, --summary counts them, and one more route added after
# them (to an address of the receiver's) carries traffic within seconds and is
# the one `tdpctl routes ADDRESS` names. Before, tdpd looked each
# kernel route up in a list of all it had: 100,000 routes took minutes, and a
# route added after them waited as long; then rte_lpm's build, quadratic in the
# routes of one length, took seconds for each change. The figures (the
# kernel's time, tdpd's time, tdpd's memory per route) are printed, not judged.
# usage: routes_net.sh TDPD TDPCTL SRCDIR  (TAP)
set -uo pipefail
TDPD=$1
TDPCTL=$2
SRC=$3

. "$SRC/tests/net/netns.sh"
net_test_begin ping python3

. "$SRC/tests/tap.sh"
echo "1..8"
NROUTES=${ROUTES_N:-100000}
HOSTS=500

xdp_pair_up "rt$$"
xdp_pair_conf "$W/r1/tdpd.conf" 10.7.0.2/24 10.7.1.1/24
xdp_pair_conf "$W/r2/tdpd.conf" 10.7.1.2/24 10.7.2.1/24
xdp_pair_start 1
xdp_pair_start 2
check "both routers up" 'grep -q "forwarding:" "$W/r1/err" && grep -q "forwarding:" "$W/r2/err"' \
	"$(tail -n 5 "$W/r1/err" "$W/r2/err")"
grep -q "forwarding:" "$W/r1/err" && grep -q "forwarding:" "$W/r2/err" || exit 1
ip -n "$R2" route add 10.7.0.0/24 via 10.7.1.1
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$PID1/status"; }
rss0=$(rss)

# the batch: /24s in 20.0.0.0 and up, then host routes each in a /24 of its
# own in 120.0.0.0 and up (each needs a fib group of its own), then
# the receiver's net
python3 - "$NROUTES" "$HOSTS" >"$W/batch" <<'PY'
import sys
n, hosts = int(sys.argv[1]), int(sys.argv[2])
for i in range(n - hosts - 1):
    print(f"route add {20 + (i >> 16)}.{(i >> 8) & 255}.{i & 255}.0/24 via 10.7.1.2")
for i in range(hosts):
    print(f"route add {120 + (i >> 16)}.{(i >> 8) & 255}.{i & 255}.9/32 via 10.7.1.2")
print("route add 10.7.2.0/24 via 10.7.1.2")
PY
# the kernel alone first, beside: the same batch in a namespace of its own
# with no tdpd to tell
ns_new "${R1}k"
CH_NS+=("${R1}k")
ip -n "${R1}k" link add k0 type veth peer name k1
ip -n "${R1}k" link set k0 up
ip -n "${R1}k" link set k1 up
ip -n "${R1}k" addr add 10.7.1.1/24 dev k0
k0=$(date +%s%N)
ip -n "${R1}k" -batch "$W/batch"
k1=$(date +%s%N)
ip netns del "${R1}k"
t0=$(date +%s%N)
ip -n "$R1" -batch "$W/batch"
t1=$(date +%s%N)
# tdpd has the whole batch once the receiver answers through it (the last
# route); ARP for R2 and the receiver may cost the first pings. Bounded: 240 s
got=
end=$((SECONDS + 240))
while [ $SECONDS -lt $end ] && kill -0 "$PID1" 2>/dev/null; do
	if ip netns exec "$SND" ping -c 1 -W 1 10.7.2.2 >/dev/null 2>&1; then
		got=$(date +%s%N)
		break
	fi
	sleep 0.1
done
rss1=$(rss)
check "tdpd follows $NROUTES kernel routes: the receiver answers through the last of them" '[ -n "$got" ]' \
	"$(tail -n 5 "$W/r1/err")"
xdp_pair_ctl 1 --json routes >"$W/routes.json" 2>&1
if [ "$NROUTES" -le 200000 ]; then
	read -r kernel missing < <(python3 - "$W/routes.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(sum(1 for r in d["routes"] if r.get("origin") == "kernel"), d["netlink"]["missing"])
PY
)
	check "tdpctl routes lists them all from the kernel (${kernel:-?}), none the route table could not take (${missing:-?})" \
		'[ "${kernel:-0}" -ge "$NROUTES" ] && [ "$missing" = 0 ]' "$(head -c 600 "$W/routes.json")"
else
	# past what a reply lists: refused, with what to ask instead
	check "tdpctl routes refuses to list $NROUTES routes (too-big), pointing at --summary and ADDRESS" \
		'grep -q "more than a reply lists.*--summary.*ADDRESS" "$W/routes.json"' "$(head -c 600 "$W/routes.json")"
fi
# their counts: the batch's prefixes by length and the kernel's protocol
# (ip route's is boot), and the route table's memory: 64.25 MiB of first
# levels and a KiB for each /24 holding a host route
xdp_pair_ctl 1 --json routes --summary >"$W/summary.json" 2>&1
xdp_pair_ctl 1 routes --summary >"$W/summary.txt" 2>&1
read -r s24 s32 boot fibb builds bus < <(python3 - "$W/summary.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
print(s["ipv4_by_length"].get("/24", 0), s["ipv4_by_length"].get("/32", 0),
      s["kernel_by_protocol"].get("boot", 0), s["fib_bytes"], d["netlink"]["rebuilds"],
      d["netlink"]["build_us"])
PY
)
want24=$((NROUTES - HOSTS))
check "tdpctl routes --summary counts them: ${s24:-?} /24s (the receiver's among them), ${s32:-?} /32s, ${boot:-?} from ip route, $(( ${fibb:-0} >> 20 )) MiB of route table" \
	'[ "${s24:-0}" -ge "$want24" ] && [ "${s32:-0}" -ge "$HOSTS" ] && [ "${boot:-0}" -ge "$NROUTES" ] && [ "${fibb:-0}" -ge $(( (16777216 + 65536 + HOSTS * 256) * 4 )) ] && grep -q "IPv4 by prefix length:.* /24 " "$W/summary.txt"' \
	"$(head -c 600 "$W/summary.json"; cat "$W/summary.txt")"
# one more, after the batch: an address of the receiver's
ip -n "$RCV" addr add 10.9.0.1/32 dev r0
ip -n "$R2" route add 10.9.0.0/24 via 10.7.2.2
t2=$(date +%s%N)
ip -n "$R1" route add 10.9.0.0/24 via 10.7.1.2
more=
end=$((SECONDS + 60))
while [ $SECONDS -lt $end ]; do
	if ip netns exec "$SND" ping -c 1 -W 1 10.9.0.1 >/dev/null 2>&1; then
		more=$(date +%s%N)
		break
	fi
	sleep 0.1
done
check "one more route after them carries traffic (a ping through it answered)" '[ -n "$more" ]' \
	"$(tail -n 5 "$W/r1/err")"
# the route a packet to it takes, as tdpd has it (ip route get for the fib)
xdp_pair_ctl 1 routes 10.9.0.1 >"$W/to.txt" 2>&1
xdp_pair_ctl 1 routes 10.7.1.2 >>"$W/to.txt" 2>&1
xdp_pair_ctl 1 routes 192.0.2.1 >>"$W/to.txt" 2>&1
xdp_pair_ctl 1 routes 10.9.0.300 >>"$W/to.txt" 2>&1 && echo "BAD ACCEPTED" >>"$W/to.txt"
check "tdpctl routes ADDRESS: the new route for its address, the neighbour's host route, none for an address nothing covers, an error for one that is no address" \
	'grep -q "^10.9.0.0/24 .*10.7.1.2 .*kernel proto boot" "$W/to.txt" && grep -q "^10.7.1.2/32 " "$W/to.txt" && grep -q "^no route to 192.0.2.1" "$W/to.txt" && grep -q "10.9.0.300.* is not an IPv4 or IPv6 address" "$W/to.txt" && ! grep -q "BAD ACCEPTED" "$W/to.txt"' \
	"$(cat "$W/to.txt")"
# two routes to one prefix: the kernel uses the lower metric, and so does
# tdpd (in force within 10 s, polled); with the lower one gone, the other;
# then with more metrics than the build sorts in one pass (16)
via() { # ADDRESS GATEWAY: tdpd's route to ADDRESS goes through GATEWAY, within 10 s
	local i
	for i in $(seq 100); do
		xdp_pair_ctl 1 routes "$1" 2>&1 | grep -q "^10.9.1.0/24 .* $2 " && return 0
		sleep 0.1
	done
	return 1
}
ip -n "$R1" route add 10.9.1.0/24 via 10.7.0.1 metric 50
ip -n "$R1" route add 10.9.1.0/24 via 10.7.1.2 metric 10
m1=no m2=no m3=no
via 10.9.1.1 10.7.1.2 && m1=yes
ip -n "$R1" route del 10.9.1.0/24 via 10.7.1.2 metric 10
via 10.9.1.1 10.7.0.1 && m2=yes
for m in $(seq 100 120); do echo "route add 10.9.3.$m/32 via 10.7.1.2 metric $m"; done >"$W/metrics"
ip -n "$R1" -batch "$W/metrics"
ip -n "$R1" route add 10.9.1.0/24 via 10.7.1.2 metric 20
via 10.9.1.1 10.7.1.2 && m3=yes
check "the lower metric of two routes to a prefix is in force (metric 10 over 50: $m1; 50 once 10 is gone: $m2; 20 over 50 among 23 metrics: $m3)" \
	'[ $m1 = yes ] && [ $m2 = yes ] && [ $m3 = yes ]' "$(xdp_pair_ctl 1 routes 10.9.1.1 2>&1; ip -n "$R1" route show 10.9.1.0/24)"
figures() {
	awk -v n="$NROUTES" -v t0="$t0" -v t1="$t1" -v got="${got:-0}" -v t2="$t2" -v more="${more:-0}" \
		-v r0="$rss0" -v r1="$rss1" -v k0="$k0" -v k1="$k1" -v builds="${builds:-0}" -v bus="${bus:-0}" 'BEGIN {
		printf "# the kernel alone took %d routes in %.2f s (%.0f a second)\n", n, (k1 - k0) / 1e9, n / ((k1 - k0) / 1e9)
		printf "# with tdpd following, ip -batch took %.2f s (%.0f a second)\n", (t1 - t0) / 1e9, n / ((t1 - t0) / 1e9)
		if (got) printf "# tdpd forwarded by the last %.2f s after the batch began (%.0f routes a second)\n", (got - t0) / 1e9, n / ((got - t0) / 1e9)
		if (more) printf "# one more route: %.2f s from ip route add to a ping answered through it\n", (more - t2) / 1e9
		printf "# tdpd RSS %d KiB before, %d KiB after: %.0f bytes a route\n", r0, r1, (r1 - r0) * 1024 / n
		if (builds) printf "# the netlink thread built %d routers by then, %.0f ms each on average\n", builds, bus / builds / 1000
	}'
}
figures
sed 's/^/# /' "$W/summary.txt" "$W/to.txt"
kill -TERM "$PID1" "$PID2"
wait "$PID1"
rc1=$?
wait "$PID2"
rc2=$?
check "both tdpd stop with exit 0" '[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]' "$(tail -n 5 "$W/r1/err" "$W/r2/err")"
