#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tdpctl doctor and tdpctl shield against fake /proc and /sys trees: a box
# tuned for the engine passes every check; a box with each problem gets each
# finding; shield on writes what it should and off puts back exactly what was
# there. The latency check runs for real, briefly, against a TF no box holds.
# usage: host_cli.sh TDPCTL  (TAP)
set -uo pipefail
CTL=$1
. "$(dirname "$0")/../tap.sh"
tap_workdir
echo "1..22"

put() { mkdir -p "$(dirname "$1")"; printf '%s' "$2" >"$1"; } # as the kernel's files read back after a write

# ---- a box tuned for CPU 3 --------------------------------------------------------
G=$W/good
put $G/sys/kernel/realtime 1
put $G/proc/sys/kernel/version "#1 SMP PREEMPT_RT Debian 6.1.0-rt"
put $G/sys/devices/system/cpu/online 0-3
put $G/sys/devices/system/cpu/isolated 3
put $G/sys/devices/system/cpu/nohz_full 3
put $G/proc/cmdline "BOOT_IMAGE=/vmlinuz isolcpus=managed_irq,domain,3 nohz_full=3 rcu_nocbs=3"
for u in init.scope system.slice user.slice; do put "$G/sys/fs/cgroup/$u/cpuset.cpus.effective" 0-2; done
put $G/sys/fs/cgroup/tdpd.slice/cpuset.cpus.effective 0-3
put $G/proc/irq/5/smp_affinity_list 0-2
put $G/proc/irq/9/effective_affinity_list 1
put $G/proc/12/status "$(printf 'Name:\tkworker/3:1\nPPid:\t2\nCpus_allowed_list:\t3')"
put $G/sys/devices/system/cpu/cpu3/topology/thread_siblings_list 3
put $G/proc/sys/kernel/sched_rt_runtime_us -1
put $G/sys/devices/system/cpu/cpu3/cpufreq/scaling_governor performance
put $G/sys/devices/system/cpu/cpu3/cpuidle/state0/latency 0
put $G/sys/devices/system/cpu/cpu3/cpuidle/state0/name POLL
put $G/sys/devices/system/clocksource/clocksource0/current_clocksource tsc
put $G/proc/cpuinfo "flags		: fpu tsc constant_tsc nonstop_tsc"
put $G/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages 512
put $G/sys/kernel/mm/transparent_hugepage/enabled "always [madvise] never"
put $G/proc/300/comm ptp4l
put $G/proc/301/comm phc2sys
# time: the bc635PCI-U and a PTP NIC left with the kernel
put $G/sys/bus/pci/devices/0000:03:00.0/vendor 0x12e2
put $G/sys/bus/pci/devices/0000:03:00.0/device 0x4013
put $G/sys/bus/pci/devices/0000:03:00.0/class 0x118000
put $G/sys/bus/pci/devices/0000:03:00.0/revision 0x12
ln -s ../../../bus/pci/drivers/uio_pci_generic $G/sys/bus/pci/devices/0000:03:00.0/driver
mkdir -p $G/sys/bus/pci/devices/0000:03:00.0/uio/uio0
mkdir -p $G/sys/class/net/eth1/device/ptp/ptp0 $G/sys/class/net/lo

rc=0
"$CTL" doctor --root "$G" --cpu 3 --latency 0 --json >"$W/good.json" 2>&1 || rc=$?
st() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(f["check"] + "=" + f["status"] for f in d["findings"]))' "$1" 2>&1; }
check "a tuned box: every check passes, exit 0" \
	'[ $rc -eq 0 ] && [ "$(st "$W/good.json")" = "preemption=pass isolcpus=pass nohz_full=pass rcu_nocbs=pass cpuset=pass irqs=pass kthreads=pass smt=pass rt-throttle=pass governor=pass c-states=pass clocksource=pass tsc=pass hugepages=pass thp=pass ptp=pass time-source=pass bc635=pass" ]' \
	"rc $rc: $(st "$W/good.json")"

# ---- a box with every problem -------------------------------------------------------
B=$W/bad
put $B/proc/sys/kernel/version "#1 SMP Debian 6.1.0"
put $B/sys/devices/system/cpu/online 0-7
put $B/sys/devices/system/cpu/isolated ""
put $B/proc/cmdline "BOOT_IMAGE=/vmlinuz quiet"
put $B/sys/fs/cgroup/system.slice/cpuset.cpus.partition member
put $B/proc/irq/5/smp_affinity_list 0-7
put $B/proc/irq/6/smp_affinity_list 3
put $B/proc/12/status "$(printf 'Name:\tkworker/u16:0\nPPid:\t2\nCpus_allowed_list:\t0-7')"
put $B/proc/13/status "$(printf 'Name:\tbash\nPPid:\t1\nCpus_allowed_list:\t0-7')"
put $B/sys/devices/system/cpu/cpu3/topology/thread_siblings_list 3,7
put $B/sys/devices/system/cpu/cpu7/online 1
put $B/proc/sys/kernel/sched_rt_runtime_us 950000
put $B/sys/devices/system/cpu/cpu3/cpufreq/scaling_governor powersave
put $B/sys/devices/system/cpu/cpu3/cpuidle/state2/latency 0
put $B/sys/devices/system/cpu/cpu3/cpuidle/state0/latency 0
put $B/sys/devices/system/cpu/cpu3/cpuidle/state1/latency 100
put $B/sys/devices/system/cpu/cpu3/cpuidle/state1/name C6
put $B/sys/devices/system/cpu/cpu3/cpuidle/state1/disable 0
put $B/sys/devices/system/clocksource/clocksource0/current_clocksource hpet
put $B/proc/cpuinfo "flags		: fpu tsc"
put $B/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages 0
put $B/sys/kernel/mm/transparent_hugepage/enabled "always madvise [never]"
# a NIC DPDK took (vfio-pci), no card, no PTP clock; Debian 12's phc2sys@
put $B/sys/bus/pci/devices/0000:01:00.0/vendor 0x8086
put $B/sys/bus/pci/devices/0000:01:00.0/device 0x1533
put $B/sys/bus/pci/devices/0000:01:00.0/class 0x020000
ln -s ../../../bus/pci/drivers/vfio-pci $B/sys/bus/pci/devices/0000:01:00.0/driver
mkdir -p $B/sys/class/net/eth0/device
put $B/lib/systemd/system/phc2sys@.service "$(printf '[Unit]\nRequires=ptp4l.service\nAfter=ptp4l.service\n')"
put $B/lib/systemd/system/ptp4l@.service "[Unit]"
rc=0
"$CTL" doctor --root "$B" --cpu 3 --latency 0 --json >"$W/bad.json" 2>&1 || rc=$?
check "each problem is its finding; no preemption fails, so exit 1" \
	'[ $rc -eq 1 ] && [ "$(st "$W/bad.json")" = "preemption=fail isolcpus=warn nohz_full=warn rcu_nocbs=warn cpuset=warn irqs=warn kthreads=warn smt=warn rt-throttle=warn governor=warn c-states=pass clocksource=warn tsc=warn hugepages=warn thp=warn ptp=warn time-source=warn" ]' \
	"rc $rc: $(st "$W/bad.json")"
check "every finding that is not a pass says how to fix it" \
	'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); bad=[f for f in d[\"findings\"] if f[\"status\"]!=\"pass\" and not f[\"fix\"]]; assert not bad, bad" "$W/bad.json"'
"$CTL" doctor --root "$B" --cpu 3 --latency 0 >"$W/bad.txt" 2>&1
check "in words: the IRQs on the CPU, the SMT sibling, the boot line to add, the NIC DPDK took, the phc2sys unit that cannot start and transparent huge pages never" \
	'grep -q "2 interrupts delivered to CPU 3 (5,6)" "$W/bad.txt" && grep -q "shares its core with CPU 7" "$W/bad.txt" && grep -q "fix: add isolcpus=managed_irq,domain,3 nohz_full=3 rcu_nocbs=3" "$W/bad.txt" && grep -q "C-states C6 have exit latencies" "$W/bad.txt" &&
	 grep -q "NICs DPDK took from the kernel, with no ptp4l and no PTP clock of theirs: 0000:01:00.0 (vfio-pci)" "$W/bad.txt" &&
	 grep -q "phc2sys@.service cannot start here" "$W/bad.txt" &&
	 grep -q "transparent huge pages: never: tables of 10^5 flows and more run slower" "$W/bad.txt" && grep -q "fix: echo madvise > /sys/kernel/mm/transparent_hugepage/enabled" "$W/bad.txt" && grep -q "fix: ptp-mode disciplined: systemctl enable --now tdpd@IFACE" "$W/bad.txt" && grep -q "ptp-mode offset: ptp4l with free_running 1 and no phc2sys" "$W/bad.txt"' \
	"$(cat "$W/bad.txt")"
rc=0
"$CTL" doctor --root "$G" --cpu 0 --latency 100ms --tf 10us --guard 20us --json >"$W/lat.json" 2>&1 || rc=$?
check "the latency check measures and fails a TF below the guard band plus the worst wake-up" \
	'[ $rc -eq 1 ] && python3 -c "import json,sys; f=json.load(open(sys.argv[1]))[\"findings\"][-1]; assert f[\"check\"]==\"latency\" and f[\"status\"]==\"fail\" and f[\"latency_ns\"][\"samples\"] > 0 and f[\"holds_tf_ns\"] > 20000 and \"this box can hold TF\" in f[\"detail\"], f" "$W/lat.json"' \
	"rc $rc: $(tail -c 600 "$W/lat.json")"

# a stall no TF holds (here: the guard band alone is longer than the largest TF)
rc=0
"$CTL" doctor --root "$G" --cpu 0 --latency 50ms --tf 100ms --guard 200ms --json >"$W/stall.json" 2>&1 || rc=$?
check "a worst wake-up plus guard band past 100 ms fails every TF, and says no TF holds it" \
	'[ $rc -eq 1 ] && python3 -c "import json,sys; f=json.load(open(sys.argv[1]))[\"findings\"][-1]; assert f[\"check\"]==\"latency\" and f[\"status\"]==\"fail\" and f[\"holds_tf_ns\"]==0 and \"no TF up to 100 ms can hold that\" in f[\"detail\"], f" "$W/stall.json"' \
	"$(cat "$W/stall.json")"

# ---- bc635 cards: generation, driver, the bind line -------------------------------
C=$W/cards
card() { # ADDR REV DRIVER GROUP: config space with the ids and revision (no revision file)
	local d=$C/sys/bus/pci/devices/$1
	put $d/vendor 0x12e2
	put $d/device 0x4013
	printf "\xe2\x12\x13\x40\x00\x00\x00\x00\x$2" >$d/config
	[ "$3" = - ] || ln -s ../../../bus/pci/drivers/$3 $d/driver
	[ "$4" = - ] || { mkdir -p $C/sys/kernel/iommu_groups/$4; ln -s ../../../kernel/iommu_groups/$4 $d/iommu_group; }
}
card 0000:02:00.0 21 - 11
card 0000:04:00.0 12 bc635 -
card 0000:05:00.0 30 vfio-pci 7
card 0000:06:00.0 2a vfio-pci 9
"$CTL" doctor --root "$C" --cpu 0 --latency 0 --json >"$W/cards.json" 2>/dev/null
cards() { python3 - "$W/cards.json" <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    if f["check"] == "bc635":
        c = f["card"]
        print(c["pci"], f["status"], c["generation"], c["revision"], c["driver"] or "-", c["bc635_device"] or "-", "|", c["bind"], "|", f["detail"])
PY
}
cards >"$W/cards.txt" 2>&1
line() { grep "^$1 " "$W/cards.txt"; }
check "a second-generation card bound to nothing, with an IOMMU group: the vfio-pci bind line" \
	'line 0000:02:00.0 | grep -qF "0000:02:00.0 warn 2 33 - - | modprobe vfio-pci && echo vfio-pci > /sys/bus/pci/devices/0000:02:00.0/driver_override && echo 0000:02:00.0 > /sys/bus/pci/drivers_probe | 0000:02:00.0: bc635PCI-U, second generation (PCI revision 0x21): registers in BAR2, 2 KiB of DPRAM in BAR3; bound to no driver"' \
	"$(cat "$W/cards.txt")"
check "a first-generation card held by another driver, no IOMMU: unbind, then uio_pci_generic, and what to do if it refuses" \
	'line 0000:04:00.0 | grep -qF "0000:04:00.0 warn 1 18 bc635 - | modprobe uio_pci_generic && echo 0000:04:00.0 > /sys/bus/pci/devices/0000:04:00.0/driver/unbind && echo uio_pci_generic > /sys/bus/pci/devices/0000:04:00.0/driver_override && echo 0000:04:00.0 > /sys/bus/pci/drivers_probe (uio_pci_generic binds only a card with PCI 2.3" &&
	 line 0000:04:00.0 | grep -qF "bound to bc635, which tdpd cannot use"' "$(cat "$W/cards.txt")"
check "a revision no public source names: bound, but bc635-bars must say where the BARs are" \
	'line 0000:05:00.0 | grep -qF "0000:05:00.0 warn 0 48 vfio-pci 0000:05:00.0 |  | 0000:05:00.0: bc635PCI-U, PCI revision 0x30, which no public source names; bound to vfio-pci (IOMMU group 7)" &&
	 python3 -c "import json,sys; f=[f for f in json.load(open(sys.argv[1]))[\"findings\"] if f.get(\"card\",{}).get(\"pci\")==\"0000:05:00.0\"][0]; assert \"set bc635-bars (0,1 or 2,3)\" in f[\"fix\"], f" "$W/cards.json"' \
	"$(cat "$W/cards.txt")"
check "a second-generation card on vfio-pci passes and names the bc635-device line" \
	'line 0000:06:00.0 | grep -qF "0000:06:00.0 pass 2 42 vfio-pci 0000:06:00.0 |  | 0000:06:00.0: bc635PCI-U, second generation (PCI revision 0x2a): registers in BAR2, 2 KiB of DPRAM in BAR3; bound to vfio-pci (IOMMU group 9): bc635-device 0000:06:00.0"' \
	"$(cat "$W/cards.txt")"
"$CTL" doctor --root "$C" --cpu 0 --latency 0 >"$W/cards.words" 2>&1
check "in words, each card is its own finding with its fix" \
	'[ "$(grep -c "^warn  bc635" "$W/cards.words")" = 3 ] && [ "$(grep -c "^pass  bc635" "$W/cards.words")" = 1 ] && grep -q "fix: modprobe vfio-pci" "$W/cards.words"' \
	"$(cat "$W/cards.words")"

# ---- shield -------------------------------------------------------------------------
# a box under systemd: its top-level slices and scopes, and a systemctl that
# writes AllowedCPUs into the cgroup as systemd would, and logs its calls
S=$W/shield
put $S/sys/devices/system/cpu/online 0-3
put $S/sys/fs/cgroup/cgroup.controllers "cpuset cpu io memory"
put $S/sys/fs/cgroup/cgroup.subtree_control "cpu"
for u in init.scope system.slice user.slice tdpd.slice; do put "$S/sys/fs/cgroup/$u/cpuset.cpus" ""; done
put $S/sys/fs/cgroup/user.slice/cpuset.cpus 0-3
mkdir -p $S/run/systemd/system
# no VM or container yet: machine.slice has its unit file but no cgroup
put $S/lib/systemd/system/machine.slice "[Unit]"
put $S/proc/irq/5/smp_affinity_list 0-3
put $S/proc/irq/7/smp_affinity_list 0-1
put $S/proc/irq/default_smp_affinity f
put $S/sys/devices/virtual/workqueue/cpumask f
put $S/proc/sys/kernel/sched_rt_runtime_us 950000
put $S/proc/cmdline "quiet"
put $S/usr/bin/systemctl '#!/bin/sh
[ "$1 $2" = "set-property --runtime" ] || exit 2
echo "$3 $4" >>"'"$W"'/systemctl.log"
[ -d "'"$S"'/sys/fs/cgroup/$3" ] && printf "%s" "${4#AllowedCPUs=}" >"'"$S"'/sys/fs/cgroup/$3/cpuset.cpus"
exit 0
'
chmod +x $S/usr/bin/systemctl
(cd $S && find . -type f | sort | xargs md5sum) >"$W/before"
rc=0
"$CTL" shield on --cpu 3 --root "$S" >"$W/on" 2>&1 || rc=$?
v() { cat "$S$1"; }
check "shield on: CPU 3 kept for tdpd.slice (the other slices and scopes on 0-2, machine.slice before it exists), IRQs, default affinity and workqueues off it, RT throttling off" \
	'[ $rc -eq 0 ] && [ "$(sort "$W/systemctl.log" | tr "\n" " ")" = "init.scope AllowedCPUs=0-2 machine.slice AllowedCPUs=0-2 system.slice AllowedCPUs=0-2 user.slice AllowedCPUs=0-2 " ] &&
	 [ "$(v /sys/fs/cgroup/tdpd.slice/cpuset.cpus)" = "" ] && grep -q "CPU 3 kept for tdpd.slice" "$W/on" &&
	 [ "$(v /proc/irq/5/smp_affinity_list)" = 0-2 ] && [ "$(v /proc/irq/7/smp_affinity_list)" = 0-1 ] && [ "$(v /proc/irq/default_smp_affinity)" = 7 ] && [ "$(v /sys/devices/virtual/workqueue/cpumask)" = 7 ] && [ "$(v /proc/sys/kernel/sched_rt_runtime_us)" = -1 ]' \
	"rc $rc: $(cat "$W/on" "$W/systemctl.log")"
check "and reports the boot line it cannot set" \
	'grep -q "add \"isolcpus=managed_irq,domain,3 nohz_full=3 rcu_nocbs=3\"" "$W/on"' "$(cat "$W/on")"
rc=0
"$CTL" shield on --cpu 2 --root "$S" >"$W/on2" 2>&1 || rc=$?
check "a second shield on is refused while one is in place" '[ $rc -eq 2 ] && grep -q "shield is on" "$W/on2"' "$(cat "$W/on2")"
"$CTL" shield status --root "$S" >"$W/status" 2>&1
check "shield status shows the slices' CPUs and throttling" \
	'grep -q "^shield   on" "$W/status" && grep -q "^cpus     system.slice: CPUs 0-2" "$W/status" && grep -q "throttling off" "$W/status"' \
	"$(cat "$W/status")"
rc=0
: >"$W/systemctl.log"
"$CTL" shield off --root "$S" >"$W/off" 2>&1 || rc=$?
(cd $S && find . -type f | sort | xargs md5sum) >"$W/after"
check "shield off puts back exactly what was there (user.slice's own CPUs too) and removes its state" \
	'[ $rc -eq 0 ] && diff "$W/before" "$W/after" >/dev/null && [ ! -e $S/run/tdpd-shield/shield.state ] &&
	 [ "$(sort "$W/systemctl.log" | tr "\n" " ")" = "init.scope AllowedCPUs= machine.slice AllowedCPUs= system.slice AllowedCPUs= user.slice AllowedCPUs=0-3 " ]' \
	"rc $rc: $(cat "$W/off" "$W/systemctl.log"; diff "$W/before" "$W/after")"
check "shield off with nothing to undo is fine" '"$CTL" shield off --root "$S" | grep -q "no shield to undo"'
# the shield of earlier releases: an isolated partition no process outside
# it may be pinned to, tdpd's included
put $S/sys/fs/cgroup/tdpd-shield/cpuset.cpus.partition isolated
put $S/sys/fs/cgroup/tdpd-shield/cpuset.cpus.effective 3
"$CTL" doctor --root "$S" --cpu 3 --latency 0 --json >"$W/part.json" 2>&1
"$CTL" doctor --root "$S" --cpu 3 --latency 0 >"$W/part.txt" 2>&1
check "doctor: an isolated partition holding the engine's CPU fails, as tdpd could not be pinned there" \
	'grep -q " cpuset=fail " <<<" $(st "$W/part.json") " && grep -q "isolated cpuset partition tdpd-shield (isolated): no process outside it" "$W/part.txt"' \
	"$(st "$W/part.json"; cat "$W/part.txt")"
rm -r $S/sys/fs/cgroup/tdpd-shield $S/run/systemd
rc=0
"$CTL" shield on --cpu 3 --root "$S" >"$W/nosd" 2>&1 || rc=$?
check "without systemd, shield on says the CPU is not kept from other processes, and does the rest" \
	'[ $rc -eq 0 ] && grep -q "^warn  systemd is not running: CPU 3 is not kept" "$W/nosd" && grep -q "^ok    RT throttling off" "$W/nosd"' \
	"rc $rc: $(cat "$W/nosd")"
"$CTL" shield off --root "$S" >/dev/null 2>&1
rc=0
"$CTL" shield on --cpu 9 --root "$S" >"$W/bad9" 2>&1 || rc=$?
check "a CPU that is not online is refused" '[ $rc -eq 2 ] && grep -q "CPU 9 is not online" "$W/bad9"' "$(cat "$W/bad9")"
rc=0
"$CTL" doctor --frobnicate >/dev/null 2>&1 || rc=$?
check "--help works for both, a bad option is a usage error" \
	'"$CTL" doctor --help | grep -q "usage: tdpctl doctor" && "$CTL" shield --help | grep -q "usage: tdpctl shield" && [ $rc -eq 2 ]'
rc=0
"$CTL" doctor --cpu three --latency 0 >"$W/cpu" 2>&1 || rc=$?
check "a CPU that is not a number is a usage error that says so" \
	'[ $rc -eq 2 ] && grep -q "\-\-cpu takes a CPU number, not .three." "$W/cpu"' "rc $rc: $(cat "$W/cpu")"
