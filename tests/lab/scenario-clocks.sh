# SPDX-License-Identifier: BSD-3-Clause
# Scenario clocks of the lab (sourced by lab.sh): two router guests in a
# chain, each with a clock of its own that starts from its RTC's whole second
# and is then set off on purpose (r1 +30 ms, r2 -40 ms), brought together by
# ptp4l over tdpd's own links (software timestamps):
#
#   host ns snd -- tap -- [r1: in virtio | out e1000e] -- dgram --
#        [r2: in virtio | out e1000e] -- tap -- host ns rcv
#
# The grandmaster is ptp4l in snd (on the host's clock, free_running: it
# steps nothing on the host). r1's ptp4l is a boundary clock (slave on
# tdp-in, master on tdp-out) that disciplines r1's clock, and r1's tdpd
# follows it in ptp-mode disciplined; r2's ptp4l is a free-running slave on
# tdp-in and r2's tdpd applies its offset itself (ptp-mode offset). Both
# tdpd lock; hop-stamped reserved probes planned by tdpctl plan cross both
# routers; each hop's frame is the plan's; every probe lost is counted.
# Then two faults: r2's clock is stepped by 50 ms (tdpd counts the step and
# locks again), and the grandmaster is killed (r1's tdpd goes to holdover,
# then unlocked once its holdover budget is spent, and says so).
# Figures: each clock's first offset, ptp4l's rms and max after lock, and
# per router where it pushed against its frame start and when the probes
# arrived against the upstream frame start.
MAC_S=02:00:00:00:01:02
MAC_R=02:00:00:00:02:02
MAC_1I=52:54:00:00:01:03
MAC_1O=52:54:00:00:01:04
MAC_2I=52:54:00:00:02:03
MAC_2O=52:54:00:00:02:04
COUNT=${LAB_COUNT:-200}
PROBE=$BUILD/tools/probe/tdp-probe
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
host rcv sync-error 0ns
link snd:s0 r1:in rate 10Mbit/s delay 100us
link r1:out r2:in rate 10Mbit/s delay 100us
link r2:out rcv:r0 rate 10Mbit/s delay 100us
flow probe from snd to rcv packets 2 size 200 frames 0,2 stamp match dscp 46 udp-dport 7350
EOF
"$TDPCTL" plan "$O/topo" -o "$O/share/plan" >"$O/plan.out" 2>&1 || {
	echo "Bail out! tdpctl plan refused the lab's topology: $(cat "$O/plan.out")"
	exit 1
}
ALPHA=$(sed -n 's/.*--alpha \([0-9,]*\).*/\1/p' "$O/plan.out")
DELAY=$(sed -n 's/.*--frame-delay \([0-9]*\).*/\1/p' "$O/plan.out")

# rconf NAME MODE IN-ADDR IN-NEIGH IN-MAC OUT-ADDR OUT-NEIGH OUT-MAC ROUTE-PORT ROUTE
rconf() {
	local sync="sync-lock-threshold 10ms
sync-step 20ms
sync-sample-timeout 2s
sync-holdover 5s
sync-holdover-action serve
sync-unlocked-action alarm"
	cat >"$O/share/$1.conf" <<EOF
[global]
schedule /mnt/plan/$1.tdp
node-id ${1#r}
late-policy drop
engine-priority 0
rx-idle-sleep 50us
mlock no
control-socket /run/tdpd/tdpd.sock
monitor-socket /run/tdpd/tdpd-ro.sock
state-directory /run/tdpd/state
summary-json /mnt/$1/sum.json
timebase ptp
ptp-socket /run/tdpd/ptp4l
ptp-mode $2
$sync

[port in]
device 0000:00:03.0
address $3
neighbour $4 $5
$([ "$9" = in ] && echo "route ${10}")

[port out]
device 0000:00:04.0
address $6
neighbour $7 $8
$([ "$9" = out ] && echo "route ${10}")
EOF
}
rconf r1 disciplined 10.0.1.1/24 10.0.1.2 "$MAC_S" 10.0.12.1/24 10.0.12.2 "$MAC_2I" out "10.0.2.0/24 via 10.0.12.2"
rconf r2 offset 10.0.12.2/24 10.0.12.1 "$MAC_1O" 10.0.2.1/24 10.0.2.2 "$MAC_R" in "10.0.1.0/24 via 10.0.12.1"
# ptp4l: the same message rates everywhere, a line per sample (4 a second)
ptpconf() { # ptpconf FILE UDS [LINE...]
	local f=$1 u=$2
	shift 2
	printf '[global]\nuds_address %s\nlogSyncInterval -2\nlogAnnounceInterval -1\nannounceReceiptTimeout 3\nsummary_interval -2\n' "$u" >"$f"
	for l; do echo "$l" >>"$f"; done
}
ptpconf "$O/gm.cfg" "$O/gm.sock" "priority1 1" "free_running 1"
ptpconf "$O/share/r1.ptp4l" /run/tdpd/ptp4l "priority1 128"
echo "-i tdp-in -i tdp-out" >"$O/share/r1.ptp4l-args"
ptpconf "$O/share/r2.ptp4l" /run/tdpd/ptp4l "slaveOnly 1" "free_running 1"
echo "-i tdp-in" >"$O/share/r2.ptp4l-args"
echo 30 >"$O/share/r1.offset"
echo -40 >"$O/share/r2.offset"

mkdir -p "$O/sock"
lab_guest r1 "$O" router.sh "$MEM" \
	-netdev "tap,id=in,ifname=$TAG-s,script=no,downscript=no" \
	-device "virtio-net-pci,netdev=in,addr=0x3,mac=$MAC_1I" \
	-netdev "dgram,id=out,local.type=unix,local.path=$O/sock/1o,remote.type=unix,remote.path=$O/sock/2i" \
	-device "e1000e,netdev=out,addr=0x4,mac=$MAC_1O"
lab_guest r2 "$O" router.sh "$MEM" \
	-netdev "dgram,id=in,local.type=unix,local.path=$O/sock/2i,remote.type=unix,remote.path=$O/sock/1o" \
	-device "virtio-net-pci,netdev=in,addr=0x3,mac=$MAC_2I" \
	-netdev "tap,id=out,ifname=$TAG-r,script=no,downscript=no" \
	-device "e1000e,netdev=out,addr=0x4,mac=$MAC_2O"
lab_taps "$TAG-s" "$TAG-r" || exit 1
host_ns "$TAG-snd" "$TAG-s" "$MAC_S" 10.0.1.2/24 10.0.1.1 &&
	host_ns "$TAG-rcv" "$TAG-r" "$MAC_R" 10.0.2.2/24 10.0.2.1 || exit 1
# the grandmaster at once: the guests' slaves find it as they come up
ip netns exec "$TAG-snd" ptp4l -S -i "$TAG-s" -f "$O/gm.cfg" -m >"$O/gm.log" 2>&1 &
GM=$!
LAB_PIDS+=("$GM")

echo "1..8"
lab_wait "$O/share/r1.ready" "$((LIMIT - 60))" "$O/share/r1.console"
lab_wait "$O/share/r2.ready" 120 "$O/share/r2.console"
check "both router guests boot and tdpd forwards on their PCI ports, each on its plan table ($(elapsed) s)" \
	'[ -f "$O/share/r1.ready" ] && [ -f "$O/share/r2.ready" ]' \
	"$(for g in r1 r2; do tail -15 "$O/share/$g.console" "$O/share/$g/tdpd.err" 2>/dev/null; done)"

# lock: each tdpd follows its ptp4l
locked() { grep -q "sync: .* -> locked" "$O/share/$1/tdpd.err" 2>/dev/null; }
for _ in $(seq 1200); do locked r1 && locked r2 && break; sleep 0.1; done
note "locked: r1 $(locked r1 && echo yes || echo no), r2 $(locked r2 && echo yes || echo no)"
check "r1's tdpd locks to ptp4l, the boundary clock that disciplines r1's clock (ptp-mode disciplined)" \
	'locked r1' "$(grep -E "sync|ptp" "$O/share/r1/tdpd.err" | tail -15; tail -8 "$O/share/r1/ptp4l.log" 2>/dev/null)"
check "r2's tdpd locks to ptp4l, a free-running slave of r1 over tdpd's link, and applies its offset (ptp-mode offset)" \
	'locked r2' "$(grep -E "sync|ptp" "$O/share/r2/tdpd.err" | tail -15; tail -8 "$O/share/r2/ptp4l.log" 2>/dev/null)"
# hop-stamped reserved probes across both routers
ip netns exec "$TAG-rcv" timeout 120 "$PROBE" recv -i "$TAG-r" --no-live --duration 90s --ends 1 \
	--alpha "$ALPHA" --frame-delay "$DELAY" --json "$O/rcv.json" --ready "$O/rcv.ready" \
	>"$O/rcv.out" 2>"$O/rcv.err" &
RPID=$!
LAB_PIDS+=("$RPID")
for _ in $(seq 100); do [ -f "$O/rcv.ready" ] && break; sleep 0.1; done
ip netns exec "$TAG-snd" timeout 120 "$PROBE" send -i "$TAG-s" --table "$O/share/plan/snd.tdp" --flow probe \
	--stamps 2 --count "$COUNT" --prio 0 --timer nanosleep --late skip --start-in 300ms \
	--dst 10.0.2.2 --src 10.0.1.2 --dst-mac "$MAC_1I" >"$O/send.out" 2>"$O/send.err"
wait "$RPID"

# fault 1: r2's clock stepped by 50 ms; its ptp4l (free-running) sees the
# master offset jump, and tdpd counts a phase step, alarms the frames past
# the sync budget meanwhile (counted), and takes the new offset, locked
snap() { # snap GUEST LABEL: the guest's tdpd stats reply, in share/GUEST/LABEL.json
	touch "$O/share/$1.snap-$2"
	lab_wait "$O/share/$1/$2.json" 30
}
snap r2 before-step
mark2=$(wc -l <"$O/share/r2/tdpd.err")
echo 50 >"$O/share/r2.step"
lab_wait "$O/share/r2.stepped" 30
after2() { tail -n +"$((mark2 + 1))" "$O/share/r2/tdpd.err"; }
for _ in $(seq 300); do after2 | grep -q "ptp: phase step of" && break; sleep 0.1; done
sleep 2
snap r2 after-step
step=$(python3 - "$O/share/r2" <<'PY'
import json, sys
b, a = (json.load(open(f"{sys.argv[1]}/{n}.json")) for n in ("before-step", "after-step"))
print(a["sync"]["steps"] - b["sync"]["steps"], a["sync"]["last_step_ns"], a["sync"]["state"],
      a["engine"]["over_budget_frames"] - b["engine"]["over_budget_frames"])
PY
)
read -r nsteps laststep state2 over2 <<<"$step"
check "r2's clock stepped by 50 ms: tdpd logs the phase step in ptp4l's master offset, counts it (${nsteps:-?}, ${laststep:-?} ns), counts the frames past the sync budget meanwhile (${over2:-?}) and is ${state2:-?}" \
	'after2 | grep -q "ptp: phase step of" && [ "${nsteps:-0}" -ge 1 ] && [ "${laststep#-}" -gt 40000000 ] &&
	 [ "${over2:-0}" -gt 0 ] && [ "$state2" = locked ]' "$(after2 | tail -15)"

# fault 2: the grandmaster killed; r1's ptp4l loses its master, r1's tdpd
# goes to holdover, and unlocked when its 5 s of holdover are spent
mark1=$(wc -l <"$O/share/r1/tdpd.err")
kill -TERM "$GM"
wait "$GM" 2>/dev/null
since() { tail -n +"$((mark1 + 1))" "$O/share/r1/tdpd.err"; }
for _ in $(seq 300); do since | grep -q "sync: holdover -> unlocked" && break; sleep 0.1; done
check "the grandmaster killed: r1's tdpd goes from locked to holdover, then to unlocked once its holdover is spent" \
	'since | grep -q "sync: locked -> holdover" && since | grep -q "sync: holdover -> unlocked"' \
	"$(since | tail -15; tail -5 "$O/share/r1/ptp4l.log")"

for g in r1 r2; do touch "$O/share/$g.stop"; done
for g in r1 r2; do lab_wait "$O/share/$g.done" 120 "$O/share/$g.console"; done

f0='[x for x in d["flows"] if x["flow"] == 0][0]'
j() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null; }
unc=$(python3 -c 'import json,sys; print(sum(f["arr_uncertain"] for a in sys.argv[1:] for f in json.load(open(a))["flows"] if f["name"] == "probe"))' \
	"$O"/share/r[12]/sum.json 2>/dev/null)
check "every probe received carries 2 stamps, each hop's frame = ingress + the planned alphas ($ALPHA), but for arrivals a router counted as uncertain (${unc:-?})" \
	'[ -n "$unc" ] && [ "$(j "$O/rcv.json" "(lambda f: (f[\"received\"] > 0, f[\"plan\"][\"off_plan\"] <= $unc, f[\"plan\"][\"fewer_stamps\"], len(f[\"hops\"])))($f0)")" = "(True, True, 0, 2)" ]' \
	"$(cat "$O/rcv.out" "$O/send.err" 2>/dev/null | tail -30)"
read -r got lost counted < <(python3 "$SRC/tests/net/losses.py" "$O/rcv.json" 0 probe "$O"/share/r[12]/sum.json 2>/dev/null)
check "every probe lost is one the routers dropped and counted (${got:-?} received, ${lost:-?} lost, ${counted:-?} dropped)" \
	'[ -n "$lost" ] && [ "$lost" -le "$counted" ] && [ "$counted" -le $((lost + 3)) ]' "$(cat "$O/rcv.out" 2>/dev/null | tail -20)"
check "both tdpd stopped with exit 0 on SIGTERM" \
	'[ "$(cat "$O/share/r1/tdpd.rc" "$O/share/r2/tdpd.rc" 2>/dev/null | tr -d "\n")" = 00 ]' \
	"$(for g in r1 r2; do cat "$O/share/$g/tdpd.rc"; tail -5 "$O/share/$g/tdpd.err"; done 2>/dev/null)"

# the figures, from each guest's own logs (their times are the guest's
# uptime): ptp4l's offset once tdpd locked, until the faults (r1 disciplined:
# its offset from the grandmaster; r2 free-running: its offset's spread,
# which tdpd applies); where each router pushed against its frame start
# (hop stamps) and when the probes arrived against the upstream frame start
# (tdpd's flows); the receiver's latency against the plan's frame delay
python3 - "$O" "$DELAY" <<'PY'
import json, math, re, sys
o, delay = sys.argv[1], int(sys.argv[2])
def stamp(line):
    m = re.match(r"\w+\[([0-9.]+)\]", line)
    return float(m.group(1)) if m else None
def first(path, pat):
    for line in open(path, errors="replace"):
        if re.search(pat, line):
            return stamp(line) if stamp(line) is not None else float(re.search(r"at ([0-9.]+) s", line).group(1))
    return None
# the window: from r1's lock (the guests' uptimes agree to within their boot
# times, a fraction of a second) to the first fault, r2's clock step
t0 = first(f"{o}/share/r1/tdpd.err", r"sync: .* -> locked")
t1 = first(f"{o}/share/r2.console", r"clock stepped by 50 ms at")
for g in ("r1", "r2"):
    offs = []
    first_off = None
    for line in open(f"{o}/share/{g}/ptp4l.log", errors="replace"):
        m = re.search(r"master offset +(-?\d+) s(\d)", line)
        if not m:
            continue
        if first_off is None:
            first_off = int(m.group(1))
        t = stamp(line)
        if t0 is not None and t is not None and t >= t0 + 1 and (t1 is None or t < t1 - 1):
            offs.append(int(m.group(1)))
    if offs:
        mean = sum(offs) / len(offs) if g == "r2" else 0
        dev = [x - mean for x in offs]
        rms = math.sqrt(sum(d * d for d in dev) / len(dev))
        what = "offset from the grandmaster" if g == "r1" else "offset's spread about its mean"
        print(f"# {g}: first offset {first_off / 1e6:.1f} ms; ptp4l's {what} from r1's lock ({t0:.1f} s) to the step ({t1:.1f} s): "
              f"rms {rms / 1e3:.0f} us, max {max(abs(d) for d in dev) / 1e3:.0f} us over {len(offs)} samples")
    try:
        s = json.load(open(f"{o}/share/{g}/sum.json"))
        f = [x for x in s["flows"] if x["name"] == "probe"][0]
        a = f.get("arrival_ns", {})
        print(f"# {g}: probes arrived at p50 {a.get('p50', 0) / 1e3:.0f} us, p99 {a.get('p99', 0) / 1e3:.0f} us,"
              f" max {a.get('max', 0) / 1e3:.0f} us after the upstream frame start (transit and the two clocks' difference);"
              f" {f['arr_guard']} in its guard band, {f['arr_uncertain']} uncertain, {f['arr_late_dropped']} late on arrival;"
              f" frames over the sync budget {s['engine']['over_budget_frames']}")
    except (OSError, ValueError, IndexError, KeyError) as e:
        print(f"# {g}: no summary ({e})")
try:
    r = json.load(open(f"{o}/rcv.json"))
    f = [x for x in r["flows"] if x["flow"] == 0][0]
    for h in f["hops"]:
        p = h["push_offset"]
        print(f"# hop {h['hop']} (node {h['node']}): pushed at p50 {p.get('p50', 0) / 1e3:.0f} us, p99 {p.get('p99', 0) / 1e3:.0f} us"
              f" after its frame start, by its own clock")
    lat, tf = f["latency"], f["tf_ns"]
    print(f"# the receiver: {f['received']} of {f['sent']} received; latency less the plan's {delay} frames: "
          f"p50 {(lat.get('p50', 0) - delay * tf) / 1e3:.0f} us, p99 {(lat.get('p99', 0) - delay * tf) / 1e3:.0f} us"
          f" (the last router's push on the grandmaster's time, and the last link)")
except (OSError, ValueError, IndexError, KeyError) as e:
    print(f"# receiver: {e}")
PY
