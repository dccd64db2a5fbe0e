#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The router guest of scenario pmd (run by the guest's init as root; the
# host's root is / read-only, the scenario's share is /mnt). Port in, a
# virtio-net-pci NIC with two queue pairs and RSS behind the emulated IOMMU,
# is bound to vfio-pci; port out, an e1000e, to uio_pci_generic. Then one
# forwarder after the other on the same NICs, as /mnt/NAME.blocks lists them
# (tdpd:X runs tdpd on /mnt/NAME-X.conf; testpmd, dpdk-testpmd with the
# arguments in /mnt/NAME.testpmd-args), each in a block the scenario floods
# alike:
#   block B: the forwarder starts; /mnt/NAME.up-B says it forwards; the
#   scenario floods, then says /mnt/NAME.flooded-B; the forwarder stops and
#   leaves in /mnt/NAME/B.* its log (B.err), exit status (B.rc) and, for
#   tdpd, its stats and ports replies (B-stats.json, B-ports.json)
# What it saw of the IOMMU in /mnt/NAME/iommu; /mnt/NAME.done at the end.
# usage: pmd-router.sh NAME
set -u
NAME=$1
S=/mnt
O=$S/$NAME
mkdir -p "$O"
. "$S/env"
up() { cut -d' ' -f1 /proc/uptime; }
say() { echo "lab: $NAME: $*"; }
ctl() { "$LAB_BUILD/tools/tdpctl" --socket /run/tdpd/tdpd-ro.sock "$@"; }
. "$LAB_SRC/tests/lab/inguest.sh"
lab_nics vfio-pci uio_pci_generic
{
	echo "cmdline: $(cat /proc/cmdline)"
	for d in 0000:00:03.0 0000:00:04.0; do
		g=$(readlink "/sys/bus/pci/devices/$d/iommu_group" 2>/dev/null)
		echo "$d group ${g##*/} driver $(basename "$(readlink "/sys/bus/pci/devices/$d/driver")")"
	done
	ls /dev/vfio 2>&1
	dmesg | grep -iE "DMAR|IOMMU|vfio" | head -20
} >"$O/iommu" 2>&1
mkdir -p /dev/hugepages && mount -t hugetlbfs nodev /dev/hugepages
ip link set lo up
mkdir -p /run/tdpd
# shellcheck disable=SC2207
TESTPMD=($(cat "$S/$NAME.testpmd-args"))
b=0
for m in $(cat "$S/$NAME.blocks"); do
	b=$((b + 1))
	case $m in
	tdpd:*)
		cp "$S/$NAME-${m#tdpd:}.conf" /run/tdpd/tdpd.conf
		"$LAB_BUILD/daemon/tdpd" -f /run/tdpd/tdpd.conf >"$O/$b.out" 2>"$O/$b.err" &
		pid=$!
		lab_started $pid "$O/$b.err" "forwarding:" || say "block $b: tdpd did not come up"
		# the VFIO groups it holds open (port in's)
		ls -l "/proc/$pid/fd" 2>/dev/null | sed -n 's|.* -> /dev/vfio/|vfio |p' >"$O/$b.vfio"
		;;
	testpmd)
		# its own lcores on the guest's two CPUs, as tdpd's; stdin held
		# open (it waits for a key) until SIGINT, when it prints its counts
		sleep 600 | dpdk-testpmd "${TESTPMD[@]}" >"$O/$b.err" 2>&1 &
		pid=$!
		lab_started $pid "$O/$b.err" "Press enter to exit" || say "block $b: testpmd did not come up"
		;;
	esac
	say "block $b: $m forwarding at $(up) s"
	touch "$S/$NAME.up-$b"
	for _ in $(seq 1800); do
		[ -e "$S/$NAME.flooded-$b" ] && break
		sleep 0.1
	done
	if [ "$m" != testpmd ]; then
		ctl --json stats >"$O/$b-stats.json" 2>&1
		ctl --json ports >"$O/$b-ports.json" 2>&1
		kill -TERM "$pid"
	else
		kill -INT "$pid"
	fi
	for _ in $(seq 600); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	# testpmd's stdin ends too, so that its pipeline does
	[ "$m" = testpmd ] && pkill -x -f "sleep 600"
	wait "$pid" 2>/dev/null
	echo $? >"$O/$b.rc"
	say "block $b: $m stopped at $(up) s"
done
touch "$S/$NAME.done"
