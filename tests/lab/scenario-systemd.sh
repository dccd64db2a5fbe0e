# SPDX-License-Identifier: BSD-3-Clause
# Scenario systemd of the lab (sourced by lab.sh): one router guest whose
# PID 1 is systemd, with tdpd installed by its build (meson install) and
# started by its units, as on a box (systemd-router.sh does the guest's
# part). Wired as scenario pci, with ptp4l's grandmaster in the sender's
# namespace and Debian's ptp4l@ on tdpd's exception interface in the guest.
# The guest has 2 vCPUs, so that the shield has a CPU to isolate.
# Checks, from what the guest's systemd and journal recorded:
#   - the units are the installed ones; Type=notify: systemd calls tdpd
#     started only after tdpd said ready
#   - ptp4l@tdp-in waits for the interface tdpd makes, and tdpd locks to it
#   - systemctl restart: a new process resumes the table loaded before it,
#     ptp4l@ comes back with the interface, tdpd locks again, and reserved
#     probes cross it
#   - the engine hung (its thread held by ptrace, the rest running): the
#     watchdog goes unfed, systemd kills and restarts tdpd, which resumes the
#     table again
#   - tdpd-shield.service keeps the engine's CPU for tdpd.slice before tdpd
#     starts (the engine thread runs there, system.slice elsewhere), and its
#     stop puts everything back
#   - journald has tdpd's lines with their priorities
#   - systemctl stop ends tdpd cleanly
MAC_S=02:00:00:00:01:02
MAC_R=02:00:00:00:02:02
MAC_IN=52:54:00:00:01:03
MAC_OUT=52:54:00:00:01:04
lab_env
# table a at boot, table b loaded over the control socket (the same frames,
# another guard band: a table of its own)
probe_table "$O/share/a.tdp" 10ms 500us
probe_table "$O/share/b.tdp" 10ms 1ms
# tdpd.conf of the lab's systemd router: the unit's sockets and directories
# (/run/tdpd, /var/lib/tdpd, /var/log/tdpd)
lab_conf "$O/share/r1.conf" /mnt/a.tdp 10.0.1.1/24 10.0.1.2 "$MAC_S" 10.0.2.1/24 10.0.2.2 "$MAC_R" \
	"late-policy carry" "state-directory /var/lib/tdpd" "summary-json /var/log/tdpd/sum.json" \
	"timebase ptp" "ptp-mode disciplined" "ptp-config /etc/linuxptp/ptp4l.conf" \
	"sync-lock-threshold 10ms" "sync-step 20ms"
printf '[global]\nuds_address %s\npriority1 1\nfree_running 1\n' "$O/gm.sock" >"$O/gm.cfg"

LAB_INIT=systemd LAB_SMP=2 lab_router_between systemd-router.sh || exit 1
ip netns exec "$TAG-snd" ptp4l -S -i "$TAG-s" -f "$O/gm.cfg" -m >"$O/gm.log" 2>&1 &
LAB_PIDS+=($!)

echo "1..10"
D=$O/share/r1
# reserved probes once the guest has restarted tdpd
lab_wait "$O/share/r1.restarted" "$((LIMIT - 120))" "$O/share/r1.console"
lab_probes "" "$O/share/b.tdp" 300 "$MAC_IN"
touch "$O/share/r1.probed"
lab_wait "$O/share/r1.done" 300 "$O/share/r1.console"
lab_guests_wait 60

v() { sed -n "s/^$2=//p" "$D/$1" 2>/dev/null; } # v FILE PROPERTY
check "systemd is PID 1 in the router guest, and the lab's checks ran under it ($(elapsed) s)" \
	'[ -f "$O/share/r1.done" ] && grep -q "Reached target.*lab.target\|lab-run at" "$O/share/r1.console"' \
	"$(tail -40 "$O/share/r1.console" 2>/dev/null)"
check "meson install put tdpd's units where systemd finds them, and systemd runs the installed tdpd (Type=notify, NotifyAccess=main, WatchdogSec 5 s)" \
	'[ "$(v show-start FragmentPath)" = /usr/local/lib/systemd/system/tdpd.service ] && [ "$(v show-start Type)" = notify ] &&
	 [ "$(v show-start NotifyAccess)" = main ] && [ "$(v show-start WatchdogUSec)" = 5s ]' \
	"$(cat "$D/show-start" "$D/install.log" 2>/dev/null | tail -30)"
# readiness: the start, tdpd's "forwarding:" line, and the moment systemd took it as started
ready=$(python3 - "$D" <<'PY'
import json, sys
d = sys.argv[1]
show = dict(l.rstrip("\n").split("=", 1) for l in open(f"{d}/show-start") if "=" in l)
start, active = int(show["ExecMainStartTimestampMonotonic"]), int(show["ActiveEnterTimestampMonotonic"])
ready = None
for l in open(f"{d}/journal.json"):
    try:
        e = json.loads(l)
    except ValueError:
        continue
    # journald stamps a line as it reads it, after tdpd wrote it: the
    # forwarding line, written before tdpd says READY=1, stamped before
    # systemd took the service as started proves the order
    if e.get("_SYSTEMD_UNIT") == "tdpd.service" and str(e.get("MESSAGE", "")).startswith("notice: forwarding:"):
        ready = int(e["__MONOTONIC_TIMESTAMP"])
        break
print(start < ready <= active if ready else False, start, ready, active)
PY
)
check "Type=notify: systemd took tdpd as started only after its ports were up and forwarding (start, forwarding, active in µs: ${ready#* })" \
	'[ "${ready%% *}" = True ]' "$(cat "$D/show-start" 2>/dev/null)"
lk() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["state"])' "$1" 2>/dev/null; }
check "ptp4l@tdp-in (Debian's unit) started once tdpd's exception interface appeared, and tdpd locked to it" \
	'[ "$(v ptp4l-start ActiveState)" = active ] && [ "$(v ptp4l-start ActiveEnterTimestampMonotonic)" -ge "$(v tdp-in-device ActiveEnterTimestampMonotonic)" ] &&
	 [ "$(lk "$D/sync-1.json")" = locked ]' \
	"$(cat "$D/ptp4l-start" "$D/tdp-in-device" "$D/sync-1.json" 2>/dev/null)"
act() { python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["table"]; print(t["digest"], t["resumed"])' "$1" 2>/dev/null; }
b=$(sha256sum <"$O/share/b.tdp" | cut -d" " -f1)
check "systemctl restart: a new tdpd resumes the table loaded before it (b), ptp4l@tdp-in comes back with the interface, and tdpd locks again" \
	'[ "$(v show-restarted MainPID)" != "$(cat "$D/pid-before-restart")" ] && [ "$(act "$D/active-restarted.json")" = "$b True" ] &&
	 [ "$(v ptp4l-restarted ActiveState)" = active ] && [ "$(lk "$D/sync-2.json")" = locked ]' \
	"$(cat "$D/load.txt" "$D/active-restarted.json" "$D/ptp4l-restarted" "$D/sync-2.json" 2>/dev/null)"
read -r got lost counted < <(python3 "$SRC/tests/net/losses.py" "$O/rcv.json" 0 probe "$D/stats-probed.json" 2>/dev/null)
check "reserved probes cross the restarted tdpd; every probe lost is counted (${got:-?} received, ${lost:-?} lost, ${counted:-?} counted)" \
	'[ "${got:-0}" -gt 0 ] && [ "$lost" -le "$counted" ]' "$(cat "$O/rcv.out" "$O/send.err" 2>/dev/null | tail -20)"
wd() { grep -c "tdpd.service: Watchdog timeout" "$D/journal.txt" 2>/dev/null; }
check "the engine hung: tdpd says the watchdog is no longer fed, systemd's watchdog fires, restarts tdpd (NRestarts $(v show-watchdog NRestarts)), and the table resumes" \
	'[ "$(wd)" -ge 1 ] && grep -q "the frame engine has not advanced since the last watchdog feed" "$D/journal.txt" &&
	 [ "$(v show-watchdog NRestarts)" -ge 1 ] && [ "$(v show-watchdog ActiveState)" = active ] && [ "$(act "$D/active-watchdog.json")" = "$b True" ]' \
	"$(cat "$D/hang.log" "$D/threads" "$D/show-watchdog" 2>/dev/null; grep -i "watchdog\|tdpd.service" "$D/journal.txt" 2>/dev/null | tail -15)"
read -r eng sysc <"$D/cpus" 2>/dev/null
check "tdpd-shield.service kept the engine's CPU for tdpd.slice (system.slice on CPUs ${sysc:-?}, the engine thread on ${eng:-?}) before tdpd started, and its stop put everything back" \
	'[ "$(v shield-start ActiveState)" = active ] && grep -q "^cpus     system.slice: CPUs 0$" "$D/shield-status-on" &&
	 [ "$eng" = 1 ] && [ "$sysc" = 0 ] &&
	 [ "$(v shield-stopped ActiveState)" = inactive ] && ! grep -q "^cpus " "$D/shield-status-off" &&
	 grep -q "throttling off" "$D/shield-status-on" && ! grep -q "throttling off" "$D/shield-status-off"' \
	"$(cat "$D/cpus" "$D/shield-start" "$D/shield-status-on" "$D/shield-stopped" "$D/shield-status-off" 2>/dev/null)"
prio=$(python3 - "$D/journal.json" <<'PY'
import json, sys
levels = {"emerg": 0, "alert": 1, "crit": 2, "error": 3, "warning": 4, "notice": 5, "info": 6, "debug": 7}
seen, wrong = set(), 0
for l in open(sys.argv[1]):
    try:
        e = json.loads(l)
    except ValueError:
        continue
    if e.get("SYSLOG_IDENTIFIER") != "tdpd" or not isinstance(e.get("MESSAGE"), str):
        continue
    name = e["MESSAGE"].split(":", 1)[0]
    if name in levels:
        seen.add(name)
        wrong += levels[name] != int(e["PRIORITY"])
print(wrong, " ".join(sorted(seen, key=levels.get)))
PY
)
check "journald has tdpd's lines at their own priorities (levels seen: ${prio#* }; wrong ${prio%% *})" \
	'[ "${prio%% *}" = 0 ] && grep -q "error" <<<"$prio" && grep -q "warning" <<<"$prio" && grep -q "info" <<<"$prio"' "$prio"
check "systemctl stop ends tdpd cleanly (Result $(v show-stopped Result))" \
	'[ "$(v show-stopped ActiveState)" = inactive ] && [ "$(v show-stopped Result)" = success ]' \
	"$(cat "$D/show-stopped" "$D/failed" 2>/dev/null)"
