#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A router guest of the lab with systemd as PID 1 (its root is the host's,
# read-only, under an overlay of its own; the scenario's share is /mnt).
# Three phases:
#   prepare NAME  before systemd (the initramfs runs it in a chroot): what an
#                 operator does on a new box. ninja install puts tdpd and its
#                 units in place; NAME.conf becomes tdpd.conf; Debian's
#                 ptp4l.conf gets software timestamps (no PHC here); ptp4l@
#                 on tdpd's exception interface tdp-in is wanted by the
#                 interface and bound to it; lab.target pulls what the lab needs
#                 (lab-bind before tdpd, tdpd and its shield, lab-run)
#   bind NAME     lab-bind.service: the NICs to uio_pci_generic, hugepages
#                 (inguest.sh)
#   run NAME      lab-run.service: what systemd did, as the host's checks need
#                 it, in /mnt/NAME/: readiness (show-start), lock, a table
#                 loaded and kept over systemctl restart (the host sends
#                 probes in between: NAME.restarted, then NAME.probed), the
#                 engine hung (its thread held by ptrace) and restarted by the
#                 watchdog, the shield undone, the journal; then powers off
# usage: systemd-router.sh PHASE NAME
set -u
PHASE=$1
NAME=$2
S=/mnt
O=$S/$NAME
. "$S/env"
say() { echo "lab: $NAME: $*" >/dev/console; }
up() { cut -d' ' -f1 /proc/uptime; }
ctl() { /usr/local/sbin/tdpctl "$@"; }
PTP='ptp4l@tdp\x2din.service'

prepare() {
	mkdir -p "$O"
	# the box's own: no disks to mount, its name, the running kernel's modules
	: >/etc/fstab
	echo "$NAME" >/etc/hostname
	# /tmp kept at boot (systemd-tmpfiles empties it): the tree under test
	# may live there
	mkdir -p /etc/tmpfiles.d
	echo "d /tmp 1777 root root -" >/etc/tmpfiles.d/tmp.conf
	local ver
	ver=$(cat "$LAB_KERNEL/version")
	mkdir -p /lib/modules && ln -sfn "$LAB_KERNEL/root/lib/modules/$ver" "/lib/modules/$ver"
	# tdpd as its build installs it (units, programs, sysusers, the example
	# configuration), then this router's configuration
	meson install -C "$LAB_BUILD" --no-rebuild >"$O/install.log" 2>&1 || say "meson install failed"
	cp "$S/$NAME.conf" /usr/local/etc/tdpd/tdpd.conf
	# a box without a PHC: Debian's ptp4l.conf with software timestamps
	sed -i 's/^time_stamping.*/time_stamping\t\tsoftware/' /etc/linuxptp/ptp4l.conf
	# PTP over tdpd's own link: ptp4l@tdp-in runs while the interface tdpd
	# makes exists, started when it appears (each start of tdpd), stopped
	# when it goes (each stop), as systemd/README.md says
	local dev='sys-subsystem-net-devices-tdp\x2din.device'
	mkdir -p '/etc/systemd/system/ptp4l@.service.d' "/etc/systemd/system/$dev.wants"
	printf '[Unit]\nBindsTo=sys-subsystem-net-devices-%%i.device\nAfter=sys-subsystem-net-devices-%%i.device\n' \
		>'/etc/systemd/system/ptp4l@.service.d/interface.conf'
	ln -sf /lib/systemd/system/ptp4l@.service "/etc/systemd/system/$dev.wants/$PTP"
	local me
	me=$(readlink -f "$0")
	cat >/etc/systemd/system/lab.target <<EOF
[Unit]
Description=The lab's router
Requires=basic.target
After=basic.target
Wants=lab-bind.service tdpd.service lab-run.service
AllowIsolate=yes
EOF
	cat >/etc/systemd/system/lab-bind.service <<EOF
[Unit]
Description=The lab's NICs for DPDK
Before=tdpd.service
After=systemd-udev-settle.service systemd-udevd.service
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/bash $me bind $NAME
EOF
	cat >/etc/systemd/system/lab-run.service <<EOF
[Unit]
Description=The lab's checks of systemd and tdpd
After=tdpd.service
[Service]
Type=oneshot
TimeoutStartSec=infinity
ExecStart=/bin/bash $me run $NAME
EOF
}

bind() {
	. "$LAB_SRC/tests/lab/inguest.sh"
	lab_nics
}

show() { # show UNIT FILE: what systemd says of the unit
	systemctl show "$1" -p ActiveState -p SubState -p Result -p Type -p NotifyAccess -p WatchdogUSec \
		-p MainPID -p NRestarts -p ExecMainStartTimestampMonotonic -p ActiveEnterTimestampMonotonic \
		-p InactiveEnterTimestampMonotonic -p FragmentPath >"$2" 2>&1
}

waitfor() { # waitfor SECONDS COMMAND...: until the command succeeds
	local s=$1 i
	shift
	for ((i = 0; i < s * 5; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	return 1
}
locked() { ctl --json sync | python3 -c 'import json,sys; sys.exit(json.load(sys.stdin)["state"] != "locked")'; }
restarted() { [ "$(systemctl show tdpd -p NRestarts --value)" -ge 1 ]; }

# holds tdpd's engine thread (PTRACE_SEIZE, then PTRACE_INTERRUPT: that
# thread alone stops; the others run on) until the process ends; a signal
# for it is passed on
hang_engine() {
	python3 - "$1" <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
SEIZE, INTERRUPT, CONT, WALL = 0x4206, 0x4207, 7, 0x40000000
tid = int(sys.argv[1])
for req in (SEIZE, INTERRUPT):
    if libc.ptrace(req, tid, None, None) != 0:
        sys.exit(f"ptrace {req:#x} of {tid}: {os.strerror(ctypes.get_errno())}")
print(f"holding thread {tid}", flush=True)
while True:
    try:
        _, st = os.waitpid(tid, WALL)
    except ChildProcessError:
        break
    if os.WIFEXITED(st) or os.WIFSIGNALED(st):
        break
    sig = os.WSTOPSIG(st)
    if st >> 16 == 0 and sig != 5:  # a signal for this thread: let it through
        libc.ptrace(CONT, tid, None, ctypes.c_void_p(sig))
print(f"thread {tid} is gone", flush=True)
PY
}

run() {
	say "lab-run at $(up) s"
	show tdpd "$O/show-start"
	journalctl -b --no-pager -u tdpd -u tdpd-shield -u lab-bind >"$O/journal-start.txt" 2>&1
	show "$PTP" "$O/ptp4l-start"
	show 'sys-subsystem-net-devices-tdp\x2din.device' "$O/tdp-in-device"
	show tdpd-shield "$O/shield-start"
	ctl shield status >"$O/shield-status-on" 2>&1
	waitfor 150 locked
	ctl --json sync >"$O/sync-1.json" 2>&1
	# a table loaded over the control socket is the one a restart resumes
	ctl schedule load "$S/b.tdp" >"$O/load.txt" 2>&1
	ctl --json schedule active >"$O/active-loaded.json" 2>&1
	local pid0
	pid0=$(systemctl show tdpd -p MainPID --value)
	systemctl restart tdpd
	show tdpd "$O/show-restarted"
	show "$PTP" "$O/ptp4l-restarted"
	ctl --json schedule active >"$O/active-restarted.json" 2>&1
	echo "$pid0" >"$O/pid-before-restart"
	waitfor 150 locked
	ctl --json sync >"$O/sync-2.json" 2>&1
	say "tdpd restarted and locked at $(up) s"
	touch "$S/$NAME.restarted"
	waitfor 120 test -e "$S/$NAME.probed"
	ctl --json stats >"$O/stats-probed.json" 2>&1
	# the engine hung: its thread held; the watchdog goes unfed and systemd
	# restarts tdpd
	local pid tid t
	pid=$(systemctl show tdpd -p MainPID --value)
	for t in /proc/"$pid"/task/*; do
		grep -qx "rte-worker-1" "$t/comm" 2>/dev/null && tid=${t##*/}
	done
	ls /proc/"$pid"/task/*/comm | while read -r t; do echo "$t $(cat "$t")"; done >"$O/threads"
	# under the shield: where the engine thread may run, and system.slice
	echo "$(sed -n 's/^Cpus_allowed_list:\t*//p' "/proc/$pid/task/${tid:-0}/status" 2>/dev/null)" \
		"$(cat /sys/fs/cgroup/system.slice/cpuset.cpus.effective 2>/dev/null)" >"$O/cpus"
	hang_engine "${tid:-0}" >"$O/hang.log" 2>&1 &
	say "engine thread ${tid:-?} held at $(up) s"
	waitfor 90 restarted
	waitfor 60 systemctl is-active tdpd
	say "tdpd restarted by the watchdog at $(up) s"
	show tdpd "$O/show-watchdog"
	ctl --json schedule active >"$O/active-watchdog.json" 2>&1
	# the shield off, as systemctl stop does it
	say "the shield off at $(up) s"
	systemctl stop tdpd-shield
	show tdpd-shield "$O/shield-stopped"
	ctl shield status >"$O/shield-status-off" 2>&1
	journalctl -b -o json --no-pager -u tdpd -u tdpd-shield -u "$PTP" >"$O/journal.json" 2>&1
	journalctl -b --no-pager >"$O/journal.txt" 2>&1
	systemctl list-units --failed --no-pager >"$O/failed" 2>&1
	systemctl stop tdpd
	show tdpd "$O/show-stopped"
	cp /var/log/tdpd/sum.json "$O/" 2>/dev/null
	say "lab-run done at $(up) s"
	touch "$S/$NAME.done"
	systemctl poweroff --no-block
}

case $PHASE in
prepare) prepare ;;
bind) bind ;;
run) run ;;
*) exit 2 ;;
esac
