#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tdpctl deploy on a chain of three tdpd routers in network namespaces, each
# reached another way: r1 by its control socket on this host, r2 through `ip
# netns exec`, r3 through real OpenSSH (sshd on the loopback of a controller
# namespace, key authentication). Checked: --check stages and aborts on every
# router; a deploy puts every table in force at one frame, each with the
# file's digest; the same plan again is a no-op; a router that refuses its
# table leaves every router on the old plan; a commit refused on one router
# has the others cancelled before their frame, and one whose commit landed
# but whose reply was lost is cancelled too; a router whose clock is not
# locked stops the commit, --allow-unsynced WHY overrides it; an unreachable
# router stops the deploy before anything is staged. Bounded: every wait has a
# timeout; the namespaces and sshd go away however it ends.
# usage: deploy_net.sh TDPCTL TDPD SRCDIR  (TAP)
set -uo pipefail
# absolute: r3's tdpctl runs from ssh's login directory
CTL=$(readlink -f "$1")
TDPD=$2
SRC=$3

. "$SRC/tests/net/netns.sh"
PATH=$PATH:/usr/sbin
net_test_begin sshd ssh ssh-keygen sha256sum
. "$SRC/tests/tap.sh"
echo "1..10"

# j FILE EXPR: EXPR over FILE's JSON (d), printed as JSON
j() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps(eval(sys.argv[2])))' "$1" "$2" 2>&1; }
P=dp$$
chain_up "$P" 3
CTLNS=${P}ctl
ip netns add "$CTLNS"
CH_NS+=("$CTLNS")
ip -n "$CTLNS" link set lo up

# sshd on the controller namespace's loopback, a key of its own
mkdir -p /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$W/hostkey"
ssh-keygen -q -t ed25519 -N '' -f "$W/id"
cp "$W/id.pub" "$W/authorized_keys"
cat >"$W/sshd_config" <<EOF
ListenAddress 127.0.0.1
Port 22
HostKey $W/hostkey
PidFile $W/sshd.pid
AuthorizedKeysFile $W/authorized_keys
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
PrintMotd no
EOF
cat >"$W/ssh_config" <<EOF
Host r3-box
  HostName 127.0.0.1
  User root
  IdentityFile $W/id
  IdentitiesOnly yes
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
EOF
ip netns exec "$CTLNS" "$(command -v sshd)" -D -e -f "$W/sshd_config" 2>"$W/sshd.err" &
PIDS+=($!)

# the plan: a probe flow through r1 r2 r3
topo() { # topo FILE PACKETS
	{
		echo "tdp-topology 1"
		echo "tf 1ms"
		echo "k 10"
		echo "guard 100us"
		echo "host snd"
		for i in 1 2 3; do echo "router r$i node-id $i processing 300us"; done
		echo "host rcv"
		echo "link snd:s0 r1:in rate 1Gbit/s delay 1us"
		echo "link r1:out r2:in rate 1Gbit/s delay 1us"
		echo "link r2:out r3:in rate 1Gbit/s delay 1us"
		echo "link r3:out rcv:r0 rate 1Gbit/s delay 1us"
		echo "flow probe from snd to rcv packets $2 size 128 frames 0 stamp match dscp 46 udp-dport 7350"
		echo "control r1 socket $W/r1/tdpd.sock"
		echo "control r2 socket $W/r2/tdpd.sock exec ip netns exec ${P}r2"
		echo "control r3 socket $W/r3/tdpd.sock tdpctl $CTL ssh r3-box"
	} >"$1"
}
topo "$W/a.topo" 1
topo "$W/b.topo" 2
"$CTL" plan "$W/a.topo" -o "$W/a" >"$W/plan-a.out" 2>&1
"$CTL" plan "$W/b.topo" -o "$W/b" >"$W/plan-b.out" 2>&1

start() { # start I [[global] lines...]: router I on a table without flows
	local i=$1
	shift
	mkdir -p "$W/r$i"
	grep -v '^flow \|^frames\? ' "$W/a/r$i.tdp" >"$W/r$i/empty.tdp"
	chain_conf "$W/r$i/tdpd.conf" "$i" "$W/r$i/empty.tdp" "system-sync assume-locked" "$@"
	: >"$W/r$i/err"
	ip netns exec "${P}r$i" "$TDPD" -f "$W/r$i/tdpd.conf" >"$W/r$i/out" 2>"$W/r$i/err" &
	eval "PID$i=$!"
	PIDS+=($!)
	for _ in $(seq 100); do grep -q "forwarding:" "$W/r$i/err" && break; sleep 0.1; done
}
for i in 1 2 3; do start "$i"; done
deploy() { # deploy OUT ARGS...: tdpctl deploy from the controller namespace, JSON in OUT.json
	local out=$1
	shift
	rc=0
	ip netns exec "$CTLNS" timeout 120 "$CTL" deploy --json --ssh "ssh -F $W/ssh_config -o BatchMode=yes" \
		"$@" >"$W/$out.json" 2>"$W/$out.err" || rc=$?
}
# each router's schedule active as "digest adopted_frame staged aborted"
state() {
	local i
	for i in 1 2 3; do
		"$CTL" --socket "$W/r$i/tdpd-ro.sock" --json schedule active 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["table"]["digest"], d["table"]["adopted_frame"], d["stages"]["staged"], d["stages"]["aborted"], d["pending"] is None)'
	done
}
sha() { sha256sum "$1" | cut -d' ' -f1; }
# past FILE.json: until the routers' clocks are past the frame deploy's commits were for
past() {
	local at now
	at=$(j "$1" 'd["at_tai_ns"]')
	for _ in $(seq 100); do
		now=$("$CTL" --socket "$W/r1/tdpd-ro.sock" --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)["tai_ns"])')
		[ "$now" -gt "${at:-0}" ] 2>/dev/null && break
		sleep 0.1
	done
}
empty=$(for i in 1 2 3; do sha "$W/r$i/empty.tdp"; done)

# 1: the plan keeps its topology
check "plan -o writes the topology beside the tables, byte for byte, and names the deploy" \
	'cmp -s "$W/a/topology" "$W/a.topo" && grep -q "^deploy: tdpctl deploy $W/a" "$W/plan-a.out"' \
	"$(cat "$W/plan-a.out")"

# 2: --check
deploy check --check "$W/a"
st=$(state)
check "deploy --check: every router (socket, ip netns exec, ssh) staged its table and aborted it; none changed" \
	'[ $rc -eq 0 ] && [ "$(j "$W/check.json" "(d[\"outcome\"], [(r[\"name\"], r[\"result\"], r[\"sync\"]) for r in d[\"routers\"]])")" = "[\"checked\", [[\"r1\", \"aborted\", \"locked\"], [\"r2\", \"aborted\", \"locked\"], [\"r3\", \"aborted\", \"locked\"]]]" ] && [ "$(cut -d" " -f1 <<<"$st")" = "$empty" ] && [ "$(cut -d" " -f3,4 <<<"$st" | sort -u)" = "1 1" ]' \
	"rc $rc: $(cat "$W/check.json" "$W/check.err"; echo "$st"; cat "$W/sshd.err")"

# 3: deploy
deploy dep "$W/a"
st=$(state)
frame=$(j "$W/dep.json" 'd["frame"]')
check "deploy: every router runs its table of the plan (the file's SHA-256) from the same frame, a cycle start" \
	'[ $rc -eq 0 ] && [ "$(j "$W/dep.json" "(d[\"outcome\"], sorted(set(r[\"result\"] for r in d[\"routers\"])), sorted(set(r[\"frame\"] for r in d[\"routers\"])) == [d[\"frame\"]], d[\"frame\"] % 10, d[\"at_tai_ns\"] == d[\"frame\"] * 1000000)")" = "[\"in-force\", [\"in-force\"], true, 0, true]" ] && [ "$(cut -d" " -f1,2 <<<"$st")" = "$(for i in 1 2 3; do echo "$(sha "$W/a/r$i.tdp") $frame"; done)" ]' \
	"rc $rc: $(cat "$W/dep.json" "$W/dep.err"; echo "$st")"

# 4: the same plan again, in words
rc=0
ip netns exec "$CTLNS" timeout 120 "$CTL" deploy --ssh "ssh -F $W/ssh_config -o BatchMode=yes" "$W/a" \
	>"$W/same.out" 2>&1 || rc=$?
st2=$(state)
check "the same plan again: unchanged on every router, nothing staged; the report names each router, its sync, the table in force and its origin, and how it is reached" \
	'[ $rc -eq 0 ] && grep -Eq "^r1 +locked +[0-9a-f]{16} +unchanged +[0-9a-f]{16} +schedule commit +this host$" "$W/same.out" && grep -Eq "^r2 +locked +[0-9a-f]{16} +unchanged +[0-9a-f]{16} +schedule commit +exec ip netns exec ${P}r2$" "$W/same.out" && grep -Eq "^r3 +locked +[0-9a-f]{16} +unchanged +[0-9a-f]{16} +schedule commit +ssh r3-box$" "$W/same.out" && grep -q "^unchanged: every router already runs its table of this plan$" "$W/same.out" && [ "$st2" = "$st" ]' \
	"rc $rc: $(cat "$W/same.out"; echo "$st2")"

# 5: r2 refuses its table of plan b (a port its tdpd.conf does not have)
cp -r "$W/b" "$W/bbad"
sed -i 's/\bport out\b/port out9/' "$W/bbad/r2.tdp"
deploy bad "$W/bbad"
st3=$(state)
check "a router refuses its table: the others' stages are aborted, every router stays on plan a" \
	'[ $rc -eq 1 ] && [ "$(j "$W/bad.json" "(d[\"outcome\"], [(r[\"result\"], (r[\"error\"] or {}).get(\"code\"), r[\"undone\"]) for r in d[\"routers\"]])")" = "[\"refused\", [[\"aborted\", null, \"aborted\"], [\"refused\", \"invalid-table\", null], [\"aborted\", null, \"aborted\"]]]" ] && [ "$(cut -d" " -f1,2 <<<"$st3")" = "$(cut -d" " -f1,2 <<<"$st")" ] && [ "$(cut -d" " -f5 <<<"$st3" | sort -u)" = True ]' \
	"rc $rc: $(cat "$W/bad.json" "$W/bad.err"; echo "$st3")"

# 6: r2's commit refused (its transport says so): r1 and r3 cancelled before the frame
cp -r "$W/b" "$W/bfail"
cat >"$W/refuse-commit" <<'EOF'
#!/bin/sh
# runs tdpctl, but answers a commit with a refusal as the daemon words one
for a in "$@"; do
	if [ "$a" = commit ]; then
		echo '{"version": 1, "ok": false, "error": "refused for the test", "code": "too-late"}'
		exit 1
	fi
done
exec "$@"
EOF
chmod +x "$W/refuse-commit"
sed -i "s|^control r2 .*|control r2 socket $W/r2/tdpd.sock exec $W/refuse-commit ip netns exec ${P}r2|" "$W/bfail/topology"
deploy fail "$W/bfail"
past "$W/fail.json"
st4=$(state)
check "a commit refused on one router: the others cancelled before the frame, every router still on plan a after it" \
	'[ $rc -eq 1 ] && [ "$(j "$W/fail.json" "(d[\"outcome\"], [(r[\"result\"], (r[\"error\"] or {}).get(\"code\"), r[\"undone\"]) for r in d[\"routers\"]])")" = "[\"refused\", [[\"cancelled\", null, \"cancelled\"], [\"refused\", \"too-late\", \"aborted\"], [\"cancelled\", null, \"cancelled\"]]]" ] && [ "$(cut -d" " -f1,2,5 <<<"$st4")" = "$(cut -d" " -f1,2,5 <<<"$st")" ]' \
	"rc $rc: $(cat "$W/fail.json" "$W/fail.err"; echo "$st4")"

# 7: r2's commit lands but its reply is lost (the transport fails after it):
# r2 is cancelled as well, nobody switches
cp -r "$W/b" "$W/blost"
cat >"$W/lose-reply" <<'EOF'
#!/bin/sh
# runs tdpctl; for a commit, then loses the reply as a broken connection would
for a in "$@"; do
	if [ "$a" = commit ]; then
		"$@" >/dev/null 2>&1
		echo "connection to the router lost" >&2
		exit 255
	fi
done
exec "$@"
EOF
chmod +x "$W/lose-reply"
sed -i "s|^control r2 .*|control r2 socket $W/r2/tdpd.sock exec $W/lose-reply ip netns exec ${P}r2|" "$W/blost/topology"
deploy lost "$W/blost"
past "$W/lost.json"
st4b=$(state)
check "a commit that lands without a reply: that router is cancelled too, every router still on plan a after the frame" \
	'[ $rc -eq 1 ] && [ "$(j "$W/lost.json" "(d[\"outcome\"], [(r[\"result\"], r[\"undone\"]) for r in d[\"routers\"]])")" = "[\"refused\", [[\"cancelled\", \"cancelled\"], [\"cancelled\", \"cancelled\"], [\"cancelled\", \"cancelled\"]]]" ] && [ "$(cut -d" " -f1,2,5 <<<"$st4b")" = "$(cut -d" " -f1,2,5 <<<"$st")" ]' \
	"rc $rc: $(cat "$W/lost.json" "$W/lost.err"; echo "$st4b")"

# 8-9: r3's clock not locked (a ptp timebase with no ptp4l)
kill -TERM "$PID3"
wait "$PID3" 2>/dev/null
start 3 "timebase ptp" "ptp-socket $W/no-ptp4l"
deploy unsync "$W/b"
st5=$(state)
check "a router not locked: nothing committed, its sync state and reason reported, every stage aborted" \
	'[ $rc -eq 1 ] && [ "$(j "$W/unsync.json" "(d[\"outcome\"], [(r[\"result\"], r[\"sync\"]) for r in d[\"routers\"]], \"not locked\" in d[\"why\"], len(d[\"routers\"][2][\"sync_reason\"]) > 0)")" = "[\"refused\", [[\"aborted\", \"locked\"], [\"aborted\", \"locked\"], [\"aborted\", \"unlocked\"]], true, true]" ] && [ "$(sed -n 1,2p <<<"$st5" | cut -d" " -f1)" = "$(sed -n 1,2p <<<"$st" | cut -d" " -f1)" ]' \
	"rc $rc: $(cat "$W/unsync.json" "$W/unsync.err"; echo "$st5")"
deploy forced "$W/b" --allow-unsynced "lab: r3 has no grandmaster yet"
st6=$(state)
check "--allow-unsynced WHY: plan b in force on every router at one frame, the reason in the report" \
	'[ $rc -eq 0 ] && [ "$(j "$W/forced.json" "(d[\"outcome\"], d[\"allow_unsynced\"])")" = "[\"in-force\", \"lab: r3 has no grandmaster yet\"]" ] && [ "$(cut -d" " -f1,2 <<<"$st6")" = "$(for i in 1 2 3; do echo "$(sha "$W/b/r$i.tdp") $(j "$W/forced.json" "d[\"frame\"]")"; done)" ]' \
	"rc $rc: $(cat "$W/forced.json" "$W/forced.err"; echo "$st6")"

# 10: r2 down: nothing staged anywhere
kill -TERM "$PID2"
wait "$PID2" 2>/dev/null
deploy down "$W/a"
st7=$(state 2>/dev/null)
check "a router unreachable: exit 3, named, nothing staged on the others" \
	'[ $rc -eq 3 ] && [ "$(j "$W/down.json" "[r[\"result\"] for r in d[\"routers\"]]")" = "[\"untouched\", \"unreachable\", \"untouched\"]" ] && [ "$(sed -n 1p <<<"$st7" | cut -d" " -f3)" = "$(sed -n 1p <<<"$st6" | cut -d" " -f3)" ]' \
	"rc $rc: $(cat "$W/down.json" "$W/down.err"; echo "$st7")"
