#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tdpctl deploy without a daemon: the topology's control lines and their
# errors (file:line), a plan directory that cannot be deployed (no topology,
# a router without a control line, a table missing or edited to another TF),
# bad options, the commands it runs on each router (the ssh form's remote
# line read back by a shell as the same words), a router that cannot be
# reached (exit 3, nothing else tried), and a router whose stage reply names
# no stage id (its table stays staged, and the report says so, once); what
# a plan directory and a router hand it, as outside input: a FIFO or a
# device for a table or the topology, a reply without end, a time no clock
# can have, --at 0, and a deploy interrupted after the stages.
# usage: deploy_cli.sh TDPCTL  (TAP)
set -uo pipefail
CTL=$1
. "$(dirname "$0")/../tap.sh"
tap_workdir
echo "1..14"

topo() { # topo FILE [control lines...]
	local f=$1
	shift
	{
		echo "tdp-topology 1"
		echo "tf 1ms"
		echo "k 10"
		echo "host snd"
		echo "router r1 node-id 1 processing 200us"
		echo "router r2 node-id 2 processing 200us"
		echo "host rcv"
		echo "link snd:eth0 r1:in rate 1Gbit/s delay 5us"
		echo "link r1:out r2:in rate 1Gbit/s delay 5us"
		echo "link r2:out rcv:eth0 rate 1Gbit/s delay 5us"
		echo "flow probe from snd to rcv packets 1 size 128 frames 0 match dscp 46"
		for l in "$@"; do echo "$l"; done
	} >"$f"
}

topo "$W/e.topo" "control r1 socket relative.sock" "control r1 socket /a ssh h exec x" "control snd ssh h" \
	"control r2 exec" "control r2 ssh -p22" "control r2 port 5" "control r2 socket"
"$CTL" plan "$W/e.topo" -o "$W/e" >"$W/e.out" 2>&1
rc=$?
check "control lines: each error at its line, nothing written" \
	'[ $rc -eq 1 ] && [ ! -e "$W/e" ] &&
	 grep -q "e.topo:12: error: control r1: socket takes an absolute path" "$W/e.out" &&
	 grep -q "e.topo:13: error: control r1: ssh or exec, not both" "$W/e.out" &&
	 grep -q "e.topo:14: error: control names a router declared before it" "$W/e.out" &&
	 grep -q "e.topo:15: error: control r2: exec needs a command" "$W/e.out" &&
	 grep -q "e.topo:16: error: control r2: ssh takes a destination" "$W/e.out" &&
	 grep -q "e.topo:17: error: unknown control attribute .port." "$W/e.out" &&
	 grep -q "e.topo:18: error: control r2: socket needs a value" "$W/e.out"' "$(cat "$W/e.out")"

topo "$W/n.topo"
"$CTL" plan "$W/n.topo" -o "$W/n" >/dev/null 2>&1
"$CTL" deploy "$W/n" >"$W/n.out" 2>&1
rc=$?
"$CTL" deploy "$W/nowhere" >"$W/nw.out" 2>&1
rc2=$?
check "routers without a control line (each named), a directory without a topology: exit 2, said where" \
	'[ $rc -eq 2 ] && grep -q "n/topology:5: error: router r1 has no control line" "$W/n.out" && grep -q "n/topology:6: error: router r2 has no control line" "$W/n.out" &&
	 [ $rc2 -eq 2 ] && grep -q "nowhere/topology: No such file or directory (DIR is what tdpctl plan -o DIR wrote)" "$W/nw.out"' \
	"$(cat "$W/n.out" "$W/nw.out")"

# a fake ssh that records what it is given, then runs the remote line as sshd does (sh -c)
cat >"$W/fake-ssh" <<EOF
#!/bin/sh
printf '%s\n' "\$@" >"$W/ssh.argv"
shift \$((\$# - 1))
exec sh -c "\$1"
EOF
chmod +x "$W/fake-ssh"
for k in 1 2; do
	cat >"$W/show-args$k" <<EOF
#!/bin/sh
printf '%s\n' "\$@" >"$W/remote$k.argv"
exit 3
EOF
	chmod +x "$W/show-args$k"
done
topo "$W/q.topo" "control r1 socket /tmp/it's\$HOME;x tdpctl $W/show-args1 ssh admin@r1.example" \
	"control r2 socket /run/r2.sock exec $W/show-args2 -x"
"$CTL" plan "$W/q.topo" -o "$W/q" >/dev/null 2>&1
"$CTL" deploy --ssh "$W/fake-ssh -o BatchMode=yes" "$W/q" >"$W/q.out" 2>&1
rc=$?
# what ssh must be given, and what the remote shell must make of its line
{
	printf '%s\n' -o BatchMode=yes admin@r1.example
	printf '%s' "$W/show-args1 --json --timeout 30000 --socket "
	cat <<'EOF'
'/tmp/it'\''s$HOME;x' schedule active
EOF
} >"$W/ssh.want"
cat >"$W/remote1.want" <<'EOF'
--json
--timeout
30000
--socket
/tmp/it's$HOME;x
schedule
active
EOF
printf '%s\n' -x "$(readlink -f "$CTL")" --json --timeout 30000 --socket /run/r2.sock schedule active >"$W/remote2.want"
check "the ssh form: ssh's words, the destination, one remote line that a shell reads back as the same words" \
	'cmp -s "$W/ssh.argv" "$W/ssh.want" && cmp -s "$W/remote1.argv" "$W/remote1.want"' \
	"$(cat "$W/ssh.argv" "$W/remote1.argv" "$W/q.out")"
check "the exec form: the prefix's words, then the tdpctl command as words; a router that answers nothing is unreachable (exit 3)" \
	'cmp -s "$W/remote2.argv" "$W/remote2.want" && [ $rc -eq 3 ] && grep -Eq "^r1 +\? +[0-9a-f]{16} +unreachable +\? +\? +ssh admin@r1.example$" "$W/q.out" &&
	 grep -Eq "^r2 +\? +[0-9a-f]{16} +unreachable +\? +\? +exec $W/show-args2 -x$" "$W/q.out" &&
	 grep -q "^refused: a router could not be reached: nothing was staged$" "$W/q.out"' \
	"$(cat "$W/remote2.argv" "$W/q.out")"

topo "$W/u.topo" "control r1 socket $W/none1.sock" "control r2 socket $W/none2.sock"
"$CTL" plan "$W/u.topo" -o "$W/u" >/dev/null 2>&1
"$CTL" deploy --json "$W/u" >"$W/u.json" 2>"$W/u.err"
rc=$?
check "no daemon on this host's sockets: exit 3, each router unreachable with tdpctl's reason, JSON" \
	'[ $rc -eq 3 ] && python3 - "$W/u.json" <<"PY"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["outcome"] == "refused" and d["at_tai_ns"] is None, d
assert [(r["name"], r["result"], r["error"]["code"]) for r in d["routers"]] == [("r1", "unreachable", "unreachable"), ("r2", "unreachable", "unreachable")], d
assert "none1.sock: No such file or directory" in d["routers"][0]["error"]["message"], d
PY' "$(cat "$W/u.json" "$W/u.err")"

cp -r "$W/u" "$W/m"
rm "$W/m/r2.tdp"
"$CTL" deploy "$W/m" >"$W/m.out" 2>&1
rc=$?
cp -r "$W/u" "$W/t"
sed -i 's/^tf 1ms$/tf 500us/' "$W/t/r2.tdp"
"$CTL" deploy "$W/t" >"$W/t.out" 2>&1
rc2=$?
check "a table missing, or edited to another TF: exit 2 before any router is asked" \
	'[ $rc -eq 2 ] && grep -q "m/r2.tdp: No such file or directory (the plan has a table for router r2)" "$W/m.out" &&
	 [ $rc2 -eq 2 ] && grep -q "differ in TF or epoch" "$W/t.out" && ! grep -q unreachable "$W/m.out" "$W/t.out"' \
	"$(cat "$W/m.out" "$W/t.out")"

bad=0
for a in "--margin 0" "--margin x" "--at yesterday" "--at +99999" "--ttl 0" "--timeout 5000" "--bogus" "--ssh ''"; do
	eval "\"\$CTL\" deploy $a \"\$W/u\"" >"$W/o.out" 2>&1
	r=$?
	[ $r -eq 2 ] || { bad=1; echo "$a: exit $r: $(cat "$W/o.out")"; }
done >"$W/opts.out"
"$CTL" deploy --allow-unsynced "" "$W/u" >"$W/o2.out" 2>&1
r2=$?
"$CTL" deploy >/dev/null 2>&1
r3=$?
check "bad options and no directory: usage, exit 2" \
	'[ $bad -eq 0 ] && [ $r2 -eq 2 ] && grep -q "needs the reason" "$W/o2.out" && [ $r3 -eq 2 ]' \
	"$(cat "$W/opts.out" "$W/o2.out")"
"$CTL" deploy --help >"$W/h.out"
check "deploy --help says what it does and the exit codes" \
	'grep -q "^usage: tdpctl deploy DIR" "$W/h.out" && grep -q "3 a router could not be reached" "$W/h.out"' \
	"$(cat "$W/h.out")"

# routers that answer as tdpctl --json would: r1 stages without naming an id,
# r2 with id 5; every call is recorded
for k in 1 2; do
	cat >"$W/fake$k" <<EOF
#!/bin/sh
echo "\$*" >>"$W/fake$k.calls"
case "\$*" in
*" status") echo '{"sync": {"state": "locked", "reason": "fake"}}' ;;
*"schedule active") echo '{"table": {"digest": "0000000000000000000000000000000000000000000000000000000000000000", "origin": "tdpd.conf", "tf_ns": 1000000, "k": 10, "epoch_ns": 0, "adopted_frame": 1}, "pending": null, "staged": null}' ;;
*"schedule stage"*) d=\$(sha256sum | cut -d" " -f1); [ $k = 1 ] && echo "{\"digest\": \"\$d\", \"tai_ns\": 1790000000000000000}" || echo "{\"id\": 5, \"digest\": \"\$d\", \"tai_ns\": 1790000000000000000}" ;;
*"schedule abort 5") echo '{"aborted": 5}' ;;
*) echo '{"version": 1, "ok": false, "code": "bad-args", "error": "unexpected"}'; exit 1 ;;
esac
EOF
	chmod +x "$W/fake$k"
done
topo "$W/i.topo" "control r1 tdpctl $W/fake1 exec env" "control r2 tdpctl $W/fake2 exec env"
"$CTL" plan "$W/i.topo" -o "$W/i" >/dev/null 2>&1
"$CTL" deploy --json "$W/i" >"$W/i.json" 2>"$W/i.err"
rc=$?
check "a stage reply without an id: that router's table stays staged and is said so once; the other is aborted; nothing aborts stage 0" \
	'[ $rc -eq 1 ] && ! grep -q "abort" "$W/fake1.calls" && grep -q "schedule abort 5" "$W/fake2.calls" && python3 - "$W/i.json" <<"PY"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["outcome"] == "refused", d
r = {x["name"]: x for x in d["routers"]}
assert r["r1"]["result"] == "not-aborted" and r["r1"]["error"]["code"] == "bad-reply", r["r1"]
assert r["r2"]["result"] == "aborted", r["r2"]
assert "every staged table was aborted" not in d["why"] and "keeps its table staged until its ttl (60 s)" in d["why"], d["why"]
PY' "$(cat "$W/i.json" "$W/i.err" "$W"/fake*.calls 2>/dev/null)"

# a FIFO for a table, a device for the topology: refused before any router is asked, at once
cp -r "$W/i" "$W/f"
rm "$W/f/r2.tdp"
mkfifo "$W/f/r2.tdp"
cp -r "$W/i" "$W/z"
rm "$W/z/topology"
ln -s /dev/zero "$W/z/topology"
: >"$W/fake1.calls"
rc=0
timeout 20 "$CTL" deploy "$W/f" >"$W/f.out" 2>&1 || rc=$?
rc2=0
timeout 20 "$CTL" deploy "$W/z" >"$W/z.out" 2>&1 || rc2=$?
check "a FIFO for a table, a device for the topology: refused at once (exit 2), no router asked" \
	'[ $rc -eq 2 ] && grep -q "f/r2.tdp: not a regular file (the plan has a table for router r2)" "$W/f.out" &&
	 [ $rc2 -eq 2 ] && grep -q "z/topology: not a regular file" "$W/z.out" && [ ! -s "$W/fake1.calls" ]' \
	"rc $rc $rc2: $(cat "$W/f.out" "$W/z.out")"

# a router that answers without end, one whose stage gives a time at the 64-bit end
cat >"$W/endless" <<EOF
#!/bin/sh
head -c 80000000 /dev/zero | tr '\\0' a
EOF
chmod +x "$W/endless"
sed 's/1790000000000000000/9223372036854775807/g' "$W/fake2" >"$W/fake3"
sed -i "s|$W/fake2.calls|$W/fake3.calls|" "$W/fake3"
chmod +x "$W/fake3"
topo "$W/x.topo" "control r1 tdpctl $W/endless exec env" "control r2 tdpctl $W/fake2 exec env"
"$CTL" plan "$W/x.topo" -o "$W/x" >/dev/null 2>&1
rc=0
timeout 60 "$CTL" deploy --json "$W/x" >"$W/x.json" 2>"$W/x.err" || rc=$?
check "a router that answers without end: cut off, unreachable (exit 3), nothing staged" \
	'[ $rc -eq 3 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r={x[\"name\"]: x for x in d[\"routers\"]}; assert r[\"r1\"][\"result\"] == \"unreachable\" and d[\"outcome\"] == \"refused\", d" "$W/x.json"' \
	"rc $rc: $(head -c 2000 "$W/x.json"; head -c 500 "$W/x.err")"
topo "$W/y.topo" "control r1 tdpctl $W/fake3 exec env" "control r2 tdpctl $W/fake2 exec env"
"$CTL" plan "$W/y.topo" -o "$W/y" >/dev/null 2>&1
: >"$W/fake2.calls"
rc=0
timeout 60 "$CTL" deploy --json "$W/y" >"$W/y.json" 2>"$W/y.err" || rc=$?
check "a stage reply with a time at the 64-bit end: a bad reply, every staged table aborted (exit 1)" \
	'[ $rc -eq 1 ] && grep -q "schedule abort 5" "$W/fake3.calls" && grep -q "schedule abort 5" "$W/fake2.calls" && python3 - "$W/y.json" <<"PY"
import json, sys
d = json.load(open(sys.argv[1]))
r = {x["name"]: x for x in d["routers"]}
assert d["outcome"] == "refused" and "every staged table was aborted" in d["why"], d
assert r["r1"]["error"]["code"] == "bad-reply" and r["r2"]["result"] == "aborted", r
PY' "rc $rc: $(cat "$W/y.json" "$W/y.err")"

rc=0
"$CTL" deploy --at 0 "$W/u" >"$W/a0.out" 2>&1 || rc=$?
check "--at 0 is no time: refused as usage (exit 2), not taken as none given" \
	'[ $rc -eq 2 ] && grep -q "\-\-at takes TAI seconds" "$W/a0.out"' "rc $rc: $(cat "$W/a0.out")"

# interrupted after both routers staged (r2 takes 2 s to answer): both aborted
sed 's/\*"schedule stage"\*) /*"schedule stage"*) sleep 2; /' "$W/fake2" >"$W/slow2"
sed -i "s|$W/fake2.calls|$W/slow2.calls|" "$W/slow2"
chmod +x "$W/slow2"
topo "$W/s.topo" "control r1 tdpctl $W/slow2 exec env" "control r2 tdpctl $W/fake2 exec env"
"$CTL" plan "$W/s.topo" -o "$W/s" >/dev/null 2>&1
: >"$W/fake2.calls"
timeout 60 "$CTL" deploy --json "$W/s" >"$W/s.json" 2>"$W/s.err" &
dpid=$!
for _ in $(seq 50); do grep -q "schedule stage" "$W/slow2.calls" 2>/dev/null && break; sleep 0.1; done
kill -INT $dpid
wait $dpid
rc=$?
check "interrupted (SIGINT) while the stages are under way: every staged table aborted, outcome interrupted (exit 1)" \
	'[ $rc -eq 1 ] && grep -q "schedule abort 5" "$W/slow2.calls" && grep -q "schedule abort 5" "$W/fake2.calls" && python3 - "$W/s.json" <<"PY"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["outcome"] == "interrupted" and "every staged table was aborted" in d["why"], d
assert [x["result"] for x in d["routers"]] == ["aborted", "aborted"], d["routers"]
PY' "rc $rc: $(cat "$W/s.json" "$W/s.err" "$W/slow2.calls")"
