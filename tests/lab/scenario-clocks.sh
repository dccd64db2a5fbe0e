# SPDX-License-Identifier: BSD-3-Clause
# Scenario clocks of the lab (sourced by lab.sh): three router guests in a
# chain, each with a clock of its own that starts from its RTC's whole
# second and is then set off on purpose (r1 +30 ms, r2 -25 ms, r3 -40 ms),
# brought together by ptp4l over tdpd's own links (software timestamps), and
# a plan deployed to them over SSH:
#
#   host ns snd -- tap -- [r1: in virtio | out e1000e] -- dgram --
#        [r2: in virtio | out e1000e] -- dgram --
#        [r3: in virtio | out e1000e] -- tap -- host ns rcv
#
# The grandmaster is ptp4l in snd (on the host's clock, free_running: it
# steps nothing on the host). r1's and r2's ptp4l are boundary clocks (slave
# on tdp-in, master on tdp-out) that discipline their guest's clock: r1's
# tdpd follows its ptp4l in ptp-mode disciplined, r2's reads the clock
# (timebase system) and takes its state from the kernel, which ptp4l marks
# synchronised. r3's ptp4l is a free-running slave on tdp-in and r3's tdpd
# applies its offset itself (ptp-mode offset). The routers start on tables
# without flows; once all are locked, tdpctl deploy from snd puts the plan
# in force on all over SSH (sshd in each guest, reached through tdpd's
# exception interfaces), at one frame. Hop-stamped reserved probes cross
# the three routers; each hop's frame is the plan's; every probe lost is
# counted. Then the faults:
#   - r3's clock is stepped by 50 ms: tdpd counts the step, and the frames
#     past the sync budget meanwhile, and is locked on the new offset;
#   - r3 loses its power mid-plan and boots again: its tdpd resumes the plan
#     from its state directory, locks, and the probes cross on the plan;
#   - r2's ptp4l is killed: nothing disciplines r2's clock, the kernel's
#     maximum error grows, and r2's tdpd counts the frames past the budget;
#   - the grandmaster is killed: r1's tdpd goes to holdover, then unlocked.
# Figures (clocks_figures.py): each clock's first offset, ptp4l's offset
# after lock, and per router where it pushed against its frame start and
# when the probes arrived against the upstream frame start.
MAC_S=02:00:00:00:01:02
MAC_R=02:00:00:00:02:02
MAC_1I=52:54:00:00:01:03
MAC_1O=52:54:00:00:01:04
MAC_2I=52:54:00:00:02:03
MAC_2O=52:54:00:00:02:04
MAC_3I=52:54:00:00:03:03
MAC_3O=52:54:00:00:03:04
ROUTERS="r1 r2 r3"
COUNT=${LAB_COUNT:-200}
TDPCTL=$BUILD/tools/tdpctl
lab_env

# the plan: 25 ms frames, a guard band of 12 ms that holds twice the sync
# budget of a link between the routers (3 ms each): TCG's PTP over two
# guests' exception paths is good to a few milliseconds
cat >"$O/topo" <<EOF
tdp-topology 1
tf 25ms
k 4
guard 12ms
host snd sync-error 0ns
router r1 node-id 1 processing 6ms sync-error 3ms
router r2 node-id 2 processing 6ms sync-error 3ms
router r3 node-id 3 processing 6ms sync-error 3ms
host rcv sync-error 0ns
link snd:s0 r1:in rate 10Mbit/s delay 100us
link r1:out r2:in rate 10Mbit/s delay 100us
link r2:out r3:in rate 10Mbit/s delay 100us
link r3:out rcv:r0 rate 10Mbit/s delay 100us
flow probe from snd to rcv packets 2 size 200 frames 0,2 stamp match dscp 46 udp-dport 7350
control r1 socket /run/tdpd/tdpd.sock tdpctl $TDPCTL ssh r1-box
control r2 socket /run/tdpd/tdpd.sock tdpctl $TDPCTL ssh r2-box
control r3 socket /run/tdpd/tdpd.sock tdpctl $TDPCTL ssh r3-box
EOF
"$TDPCTL" plan "$O/topo" -o "$O/share/plan" >"$O/plan.out" 2>&1 || {
	echo "Bail out! tdpctl plan refused the lab's topology: $(cat "$O/plan.out")"
	exit 1
}
# each router starts on its table of the plan without the flows
for g in $ROUTERS; do grep -v '^flow \|^frames\? ' "$O/share/plan/$g.tdp" >"$O/share/$g-empty.tdp"; done
ALPHA=$(sed -n 's/.*--alpha \([0-9,]*\).*/\1/p' "$O/plan.out")
DELAY=$(sed -n 's/.*--frame-delay \([0-9]*\).*/\1/p' "$O/plan.out")

# rconf NAME IN-ADDR IN-NEIGH IN-MAC OUT-ADDR OUT-NEIGH OUT-MAC [LINE...]:
# its tdpd.conf, LINEs its time source's. RX sleeps 1 ms when idle and the
# engine fills best effort every 1 ms: three TCG guests share the host's
# two CPUs, and each wake-up costs a guest much there (25 ms frames)
rconf() {
	local g=$1
	shift
	lab_conf "$O/share/$g.conf" "/mnt/$g-empty.tdp" "$@" "node-id ${g#r}" "late-policy drop" \
		"rx-idle-sleep 200us" "be-poll 200us" \
		"state-directory /mnt/$g/state" "summary-json /mnt/$g/sum.json" "sync-lock-threshold 10ms" \
		"sync-step 20ms" "sync-sample-timeout 2s" "sync-holdover 5s" "sync-holdover-action serve" \
		"sync-unlocked-action alarm"
}
PTP=("timebase ptp" "ptp-socket /run/tdpd/ptp4l")
rconf r1 10.0.1.1/24 10.0.1.2 "$MAC_S" 10.0.12.1/24 10.0.12.2 "$MAC_2I" "${PTP[@]}" "ptp-mode disciplined"
rconf r2 10.0.12.2/24 10.0.12.1 "$MAC_1O" 10.0.23.1/24 10.0.23.2 "$MAC_3I" "timebase system"
rconf r3 10.0.23.2/24 10.0.23.1 "$MAC_2O" 10.0.2.1/24 10.0.2.2 "$MAC_R" "${PTP[@]}" "ptp-mode offset"
# the routes beyond each router's own nets are its kernel's, which tdpd
# follows (sshd in r2 and r3 answers the sender through them)
printf '%s\n' "10.0.23.0/24 via 10.0.12.2 dev tdp-out" "10.0.2.0/24 via 10.0.12.2 dev tdp-out" >"$O/share/r1.routes"
printf '%s\n' "10.0.1.0/24 via 10.0.12.1 dev tdp-in" "10.0.2.0/24 via 10.0.23.2 dev tdp-out" >"$O/share/r2.routes"
printf '%s\n' "10.0.1.0/24 via 10.0.23.1 dev tdp-in" "10.0.12.0/24 via 10.0.23.1 dev tdp-in" >"$O/share/r3.routes"
# ptp4l: the same message rates everywhere, a line per sample (4 a second)
ptpconf() { # ptpconf FILE UDS [LINE...]
	local f=$1 u=$2
	shift 2
	printf '[global]\nuds_address %s\nlogSyncInterval -2\nlogAnnounceInterval -1\nannounceReceiptTimeout 3\nsummary_interval -2\n' "$u" >"$f"
	for l; do echo "$l" >>"$f"; done
}
ptpconf "$O/gm.cfg" "$O/gm.sock" "priority1 1" "free_running 1"
# the boundary clocks' servos step back past 20 ms: under TCG a stalled
# guest can throw the PI servo's frequency far off, and slewing back takes
# minutes (capping it with max_frequency 500000 kept r2's servo from
# settling at all: it sat at the cap, faulting every 30 s)
BC=("priority1 128" "step_threshold 0.02")
ptpconf "$O/share/r1.ptp4l" /run/tdpd/ptp4l "${BC[@]}"
echo "-i tdp-in -i tdp-out" >"$O/share/r1.ptp4l-args"
ptpconf "$O/share/r2.ptp4l" /run/tdpd/ptp4l "${BC[@]}"
echo "-i tdp-in -i tdp-out" >"$O/share/r2.ptp4l-args"
ptpconf "$O/share/r3.ptp4l" /run/tdpd/ptp4l "slaveOnly 1" "free_running 1"
echo "-i tdp-in" >"$O/share/r3.ptp4l-args"
echo 30 >"$O/share/r1.offset"
echo -25 >"$O/share/r2.offset"
echo -40 >"$O/share/r3.offset"
# SSH to the routers from the sender's namespace: r1 on its port in, r2
# and r3 through the routers before them
ssh-keygen -q -t ed25519 -N '' -f "$O/id"
cp "$O/id.pub" "$O/share/authorized_keys"
for b in "r1-box 10.0.1.1" "r2-box 10.0.12.2" "r3-box 10.0.23.2"; do
	printf 'Host %s\n  HostName %s\n  User root\n  IdentityFile %s\n  IdentitiesOnly yes\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n  ConnectTimeout 20\n' \
		${b% *} ${b#* } "$O/id"
done >"$O/ssh_config"

mkdir -p "$O/sock"
lab_guest r1 "$O" router.sh "$MEM" \
	-netdev "tap,id=in,ifname=$TAG-s,script=no,downscript=no" \
	-device "virtio-net-pci,netdev=in,addr=0x3,mac=$MAC_1I" \
	-netdev "dgram,id=out,local.type=unix,local.path=$O/sock/1o,remote.type=unix,remote.path=$O/sock/2i" \
	-device "e1000e,netdev=out,addr=0x4,mac=$MAC_1O"
lab_guest r2 "$O" router.sh "$MEM" \
	-netdev "dgram,id=in,local.type=unix,local.path=$O/sock/2i,remote.type=unix,remote.path=$O/sock/1o" \
	-device "virtio-net-pci,netdev=in,addr=0x3,mac=$MAC_2I" \
	-netdev "dgram,id=out,local.type=unix,local.path=$O/sock/2o,remote.type=unix,remote.path=$O/sock/3i" \
	-device "e1000e,netdev=out,addr=0x4,mac=$MAC_2O"
R3=(-netdev "dgram,id=in,local.type=unix,local.path=$O/sock/3i,remote.type=unix,remote.path=$O/sock/2o"
	-device "virtio-net-pci,netdev=in,addr=0x3,mac=$MAC_3I"
	-netdev "tap,id=out,ifname=$TAG-r,script=no,downscript=no"
	-device "e1000e,netdev=out,addr=0x4,mac=$MAC_3O")
lab_guest r3 "$O" router.sh "$MEM" "${R3[@]}"
lab_taps "$TAG-s" "$TAG-r" || exit 1
host_ns "$TAG-snd" "$TAG-s" "$MAC_S" 10.0.1.2/24 10.0.1.1 &&
	host_ns "$TAG-rcv" "$TAG-r" "$MAC_R" 10.0.2.2/24 10.0.2.1 || exit 1
# the grandmaster at once: the guests' slaves find it as they come up
ip netns exec "$TAG-snd" ptp4l -S -i "$TAG-s" -f "$O/gm.cfg" -m >"$O/gm.log" 2>&1 &
GM=$!
LAB_PIDS+=("$GM")

echo "1..13"
for g in $ROUTERS; do lab_wait "$O/share/$g.ready" "$((LIMIT - 60))" "$O/share/$g.console"; done
check "the three router guests boot and tdpd forwards on their PCI ports, on tables without flows ($(elapsed) s)" \
	'[ -f "$O/share/r1.ready" ] && [ -f "$O/share/r2.ready" ] && [ -f "$O/share/r3.ready" ]' \
	"$(for g in $ROUTERS; do tail -15 "$O/share/$g.console" "$O/share/$g/tdpd.err" 2>/dev/null; done)"

# lock: each tdpd follows its ptp4l, or (r2) its kernel, which ptp4l marks
# synchronised
locked() { grep -q "sync: .* -> locked" "$O/share/$1/tdpd.err" 2>/dev/null; }
for _ in $(seq 1800); do locked r1 && locked r2 && locked r3 && break; sleep 0.1; done
note "locked: r1 $(locked r1 && echo yes || echo no), r2 $(locked r2 && echo yes || echo no), r3 $(locked r3 && echo yes || echo no)"
syncdiag() { grep -E "sync|ptp" "$O/share/$1/tdpd.err" | tail -15; tail -8 "$O/share/$1/ptp4l.log" 2>/dev/null; }
check "r1's tdpd locks to ptp4l, the boundary clock that disciplines r1's clock (ptp-mode disciplined)" \
	'locked r1' "$(syncdiag r1)"
snap() { # snap GUEST LABEL: the guest's tdpd stats reply, in share/GUEST/LABEL.json
	touch "$O/share/$1.snap-$2"
	lab_wait "$O/share/$1/$2.json" 30
}
# sj GUEST LABEL EXPR: a value of a snapshot (d the reply)
sj() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$O/share/$1/$2.json" "$3" 2>/dev/null; }
snap r2 locked
unc2=$(sj r2 locked 'd["sync"]["uncertainty_ns"]')
check "r2's tdpd (timebase system) locks as its kernel says once ptp4l, a boundary clock, disciplines the clock; the uncertainty is the kernel's maximum error since ptp4l's last update (${unc2:-?} ns), within the 3 ms budget" \
	'locked r2 && [ -n "$unc2" ] && [ "$unc2" -lt 3000000 ]' "$(syncdiag r2; sj r2 locked 'd["sync"]')"
check "r3's tdpd locks to ptp4l, a free-running slave of r2 over tdpd's link, and applies its offset (ptp-mode offset)" \
	'locked r3' "$(syncdiag r3)"
# the plan deployed over SSH once all are locked (a router whose lock
# flaps at that moment is refused as not locked; the deploy is tried
# again); a loaded TCG guest takes tens of seconds to start tdpctl over SSH
for try in 1 2 3; do
	rc=0
	ip netns exec "$TAG-snd" timeout 400 "$TDPCTL" deploy --json --timeout 90 --ssh "ssh -F $O/ssh_config -o BatchMode=yes" \
		"$O/share/plan" >"$O/deploy.json" 2>"$O/deploy.err" || rc=$?
	grep -q "not locked" "$O/deploy.json" || break
	note "deploy $try: a router was not locked; again"
	sleep 3
done
dj() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$O/deploy.json" "$1" 2>/dev/null; }
# "OUTCOME RESULT/SYNC/SAME-FRAME...": what the deploy did on each router
deployed() {
	python3 - "$O/deploy.json" <<'PY' 2>/dev/null
import json, sys
d = json.load(open(sys.argv[1]))
print(d["outcome"], len(d["routers"]), " ".join(sorted({"%s/%s/%s" % (r["result"], r["sync"], r["frame"] == d["frame"]) for r in d["routers"]})))
PY
}
check "tdpctl deploy over SSH to sshd in each guest: the three routers locked, their tables of the plan in force from one frame ($(dj 'd["frame"]'))" \
	'[ $rc -eq 0 ] && [ "$(deployed)" = "in-force 3 in-force/locked/True" ]' \
	"rc $rc: $(cat "$O/deploy.json" "$O/deploy.err" 2>/dev/null | tail -40)"

# probes N: a batch of hop-stamped reserved probes across the routers, the
# receiver's report in rcvN.json
probes() {
	lab_probes "$1" "$O/share/plan/snd.tdp" "$COUNT" "$MAC_1I" --ends 1 --alpha "$ALPHA" --frame-delay "$DELAY" \
		-- --stamps 3 --late skip --start-in 300ms
}
# on_plan N: batch N's probes against what the routers counted between
# their snapshots batchN-before and batchN:
# "RECEIVED LOST COUNTED UNCERTAIN OFF-PLAN FEWER-STAMPS HOPS ALARMED", LOST
# from what the sender sent (the receiver's own count stops at the last
# probe it saw), ALARMED the frames the routers served unlocked, in
# holdover or past the sync budget
on_plan() {
	local sent
	sent=$(sed -n 's/^tdp-probe send: \([0-9]*\) probes.*/\1/p' "$O/send$1.err")
	# shellcheck disable=SC2086
	python3 - "$O/rcv$1.json" "${sent:-0}" "$O/share" "batch$1" $ROUTERS <<'PY'
import json, sys
# a receiver that got none of the batch has no flow of it
r = ([x for x in json.load(open(sys.argv[1]))["flows"] if x["flow"] == 0] or
     [{"received": 0, "plan": {"off_plan": 0, "fewer_stamps": 0}, "hops": []}])[0]
share, label = sys.argv[3], sys.argv[4]
counted = unc = alarmed = 0
for g in sys.argv[5:]:
    b, a = (json.load(open(f"{share}/{g}/{n}.json")) for n in (label + "-before", label))
    fb = [x for x in b["flows"] if x["name"] == "probe"][0]
    fa = [x for x in a["flows"] if x["name"] == "probe"][0]
    d = lambda k: fa[k] - fb.get(k, 0)
    counted += d("overflow") + d("late_dropped") + d("arr_late_dropped") + d("tx_drop")
    unc += d("arr_uncertain")
    alarmed += sum(a["engine"][k] - b["engine"].get(k, 0) for k in ("unlocked_frames", "holdover_frames", "over_budget_frames"))
print(r["received"], int(sys.argv[2]) - r["received"], counted, unc, r["plan"]["off_plan"], r["plan"]["fewer_stamps"],
      len(r["hops"]) if r["received"] else 3, alarmed)
PY
}
# on plan: every probe with 3 stamps and each hop's frame the plan's, but for
# arrivals counted uncertain; off plan beyond those, or none through at all
# (every one dropped as late on arrival, counted), only while the routers
# said their clocks were not to be trusted (frames served unlocked, in
# holdover or past the sync budget: alarmed and counted)
planned() {
	[ -n "$got" ] && [ "$few" = 0 ] && [ "$hops" = 3 ] &&
		{ [ "$got" -gt 0 ] || [ "${alarmed:-0}" -gt 0 ]; } &&
		{ [ "$off" -le "$unc" ] || [ "${alarmed:-0}" -gt 0 ]; }
}
# batch N: probes N between snapshots of the routers (counted from just
# before the batch: frames served unlocked before the lock are no excuse
# for it), what on_plan makes of them in got lost counted unc off few hops
# alarmed
batch() {
	local g
	for g in $ROUTERS; do snap "$g" "batch$1-before"; done
	probes "$1"
	for g in $ROUTERS; do snap "$g" "batch$1"; done
	read -r got lost counted unc off few hops alarmed < <(on_plan "$1" 2>/dev/null)
}
batch 1
check "probes across the three routers: ${got:-?} received, every one with 3 stamps and each hop's frame = ingress + the planned alphas ($ALPHA), but for arrivals counted uncertain or frames alarmed (${off:-?} off plan, ${unc:-?} uncertain, ${alarmed:-?} frames alarmed)" \
	planned "$(cat "$O/rcv1.out" "$O/send1.err" 2>/dev/null | tail -30)"
check "every probe lost is one the routers dropped and counted (${lost:-?} lost, ${counted:-?} dropped)" \
	'[ -n "$lost" ] && [ "$lost" -le "$counted" ] && [ "$counted" -le $((lost + 3)) ]' "$(tail -20 "$O/rcv1.out" 2>/dev/null)"

# fault 1: r3's clock stepped by 50 ms; its ptp4l (free-running) sees the
# master offset jump past sync-step (20 ms; PTP's noise here is milliseconds),
# and tdpd counts a phase step, alarms the frames past the sync budget
# meanwhile (counted), and takes the new offset, locked
snap r3 before-step
mark3=$(wc -l <"$O/share/r3/tdpd.err")
echo 50 >"$O/share/r3.step"
lab_wait "$O/share/r3.stepped" 30
after3() { tail -n +"$((mark3 + 1))" "$O/share/r3/tdpd.err"; }
for _ in $(seq 300); do after3 | grep -q "ptp: phase step of" && break; sleep 0.1; done
sleep 2
snap r3 after-step
step=$(python3 - "$O/share/r3" <<'PY'
import json, sys
b, a = (json.load(open(f"{sys.argv[1]}/{n}.json")) for n in ("before-step", "after-step"))
print(a["sync"]["steps"] - b["sync"]["steps"], a["sync"]["last_step_ns"], a["sync"]["state"],
      a["engine"]["over_budget_frames"] - b["engine"]["over_budget_frames"])
PY
)
read -r nsteps laststep state3 over3 <<<"$step"
check "r3's clock stepped by 50 ms: tdpd logs the phase step in ptp4l's master offset, counts it (${nsteps:-?}, ${laststep:-?} ns), counts the frames past the sync budget meanwhile (${over3:-?}) and is ${state3:-?}" \
	'after3 | grep -q "ptp: phase step of" && [ "${nsteps:-0}" -ge 1 ] && [ "${laststep#-}" -gt 20000000 ] &&
	 [ "${over3:-0}" -gt 0 ] && [ "$state3" = locked ]' "$(after3 | tail -15)"

# fault 2: r3 loses its power mid-plan (QEMU killed) and boots again, on
# the same share (its disk): tdpd resumes the plan's table from its state
# directory, ptp4l and the lock come back, and the probes cross on the plan
kill -KILL "$(cat "$O/r3.pid")" 2>/dev/null
# its first life's peak RSS, once time(1) has written it
for _ in $(seq 50); do grep -q '^[0-9]*$' "$O/share/r3.maxrss" 2>/dev/null && break; sleep 0.1; done
mv "$O/share/r3.maxrss" "$O/share/r3.maxrss.1" 2>/dev/null
mv "$O/share/r3.console" "$O/share/r3.console.1"
for f in tdpd.err ptp4l.log sshd.log; do mv "$O/share/r3/$f" "$O/share/r3/$f.1" 2>/dev/null; done
rm -f "$O/share/r3.ready" "$O/share/r3.stepped" "$O/sock/3i"
lab_guest r3 "$O" router.sh "$MEM" "${R3[@]}"
lab_taps "$TAG-r" || exit 1
host_wire "$TAG-rcv" "$TAG-r" "$MAC_R" 10.0.2.2/24 10.0.2.1 || exit 1
lab_wait "$O/share/r3.ready" 180 "$O/share/r3.console"
for _ in $(seq 1200); do locked r3 && break; sleep 0.1; done
snap r3 rebooted
b3=$(sha256sum <"$O/share/plan/r3.tdp" | cut -d" " -f1)
act3=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["table"]; print(t["digest"], t["resumed"])' "$O/share/r3/rebooted-schedule.json" 2>/dev/null)
check "r3 power-cycled mid-plan: it boots, its tdpd resumes the plan's table from its state directory, and locks again ($(elapsed) s)" \
	'[ "$act3" = "$b3 True" ] && grep -q "resuming the table in force at the last stop" "$O/share/r3/tdpd.err" && locked r3' \
	"$act3 / $b3: $(grep -E "sync|table|resum" "$O/share/r3/tdpd.err" 2>/dev/null | tail -10)"
batch 2
check "after the power cycle the probes cross the three routers on the plan again: ${got:-?} received, ${off:-?} off plan (${unc:-?} uncertain, ${alarmed:-?} frames alarmed), ${lost:-?} lost, ${counted:-?} dropped" \
	'planned && [ "$lost" -le "$counted" ] && [ "$counted" -le $((lost + 3)) ]' \
	"$(cat "$O/rcv2.out" "$O/send2.err" 2>/dev/null | tail -30)"

# fault 3: r2's ptp4l killed; nothing disciplines r2's clock any more, the
# kernel grows its maximum error by 500 us a second, and r2's tdpd (system)
# counts the frames past the 3 ms budget within seconds; the kernel says
# unsynchronised only when the maximum error reaches 16 s, hours later
snap r2 before-ptp4l
touch "$O/share/r2.ptp4l-stop"
lab_wait "$O/share/r2.ptp4l-stopped" 30
sleep 12
snap r2 after-ptp4l
read -r over2 unc2 st2 < <(python3 - "$O/share/r2" <<'PY'
import json, sys
b, a = (json.load(open(f"{sys.argv[1]}/{n}.json")) for n in ("before-ptp4l", "after-ptp4l"))
print(a["engine"]["over_budget_frames"] - b["engine"]["over_budget_frames"], a["sync"]["uncertainty_ns"], a["sync"]["state"])
PY
)
check "r2's ptp4l killed: its kernel's maximum error grows (${unc2:-?} ns after 12 s) and r2's tdpd counts the frames past the sync budget (${over2:-?}), still ${st2:-?} as the kernel says" \
	'[ "${unc2:-0}" -gt 3000000 ] && [ "${over2:-0}" -gt 0 ] && [ "$st2" = locked ]' \
	"$(grep -E "sync|budget" "$O/share/r2/tdpd.err" | tail -10)"

# fault 4: the grandmaster killed; r1's ptp4l loses its master, r1's tdpd
# goes to holdover, and unlocked when its 5 s of holdover are spent
# (a router whose sync had already failed stays unlocked)
snap r1 before-gm
st1=$(sj r1 before-gm 'd["sync"]["state"]')
mark1=$(wc -l <"$O/share/r1/tdpd.err")
kill -TERM "$GM"
wait "$GM" 2>/dev/null
since() { tail -n +"$((mark1 + 1))" "$O/share/r1/tdpd.err"; }
for _ in $(seq 300); do since | grep -q "sync: holdover -> unlocked" && break; sleep 0.1; done
sleep 2
snap r1 after-gm
st2=$(sj r1 after-gm 'd["sync"]["state"]')
gm_gone() {
	[ "$st2" = unlocked ] && ! since | grep -q -- "-> locked" &&
		case $st1 in
		locked) since | grep -q "sync: locked -> holdover" && since | grep -q "sync: holdover -> unlocked" ;;
		holdover) since | grep -q "sync: holdover -> unlocked" ;;
		*) true ;;
		esac
}
check "the grandmaster killed: r1's tdpd, ${st1:-?} then, ends ${st2:-?} (from locked through holdover, once its holdover is spent) and locks no more" \
	gm_gone "$(since | tail -15; tail -5 "$O/share/r1/ptp4l.log")"

for g in $ROUTERS; do touch "$O/share/$g.stop"; done
for g in $ROUTERS; do lab_wait "$O/share/$g.done" 120 "$O/share/$g.console"; done

check "the three tdpd stopped with exit 0 on SIGTERM" \
	'[ "$(cat "$O/share/r1/tdpd.rc" "$O/share/r2/tdpd.rc" "$O/share/r3/tdpd.rc" 2>/dev/null | tr -d "\n")" = 000 ]' \
	"$(for g in $ROUTERS; do cat "$O/share/$g/tdpd.rc"; tail -5 "$O/share/$g/tdpd.err"; done 2>/dev/null)"

python3 "$SRC/tests/lab/clocks_figures.py" "$O" "$DELAY" r1:disciplined r2:system r3:offset
