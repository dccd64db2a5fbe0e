# SPDX-License-Identifier: BSD-3-Clause
# Sourced inside a router guest (router.sh, pmd-router.sh, systemd-router.sh),
# with LAB_KERNEL from /mnt/env and a say function:
#   lab_nics [DRIVER-IN [DRIVER-OUT]]
#             the guest's two PCI NICs (00:03.0 port in, 00:04.0 port out)
#             bound through driver_override, as tdpd(8) says, to
#             uio_pci_generic or the driver given (vfio-pci needs an IOMMU),
#             and hugepages reserved: tdpd wants its pool and route tables in
#             them (about 510 MiB by default), and a PCI port under
#             uio_pci_generic needs physical addresses, which only hugepages
#             give
#   lab_started PID LOG TEXT
#             waits up to 180 s for TEXT in LOG while PID lives; whether
#             it came
lab_nics() {
	local d dev drv drivers=("${1:-uio_pci_generic}" "${2:-uio_pci_generic}") i=0
	for drv in tun "${drivers[@]}"; do
		modprobe -d "$LAB_KERNEL/root" "$drv" || say "modprobe $drv failed"
	done
	for d in 0000:00:03.0 0000:00:04.0; do
		dev=/sys/bus/pci/devices/$d
		[ -e "$dev/driver" ] && echo "$d" >"$dev/driver/unbind"
		echo "${drivers[i++]}" >"$dev/driver_override"
		echo "$d" >/sys/bus/pci/drivers_probe
		say "$d $(cat "$dev/vendor"):$(cat "$dev/device") bound to $(basename "$(readlink "$dev/driver")")"
	done
	echo 320 >/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
}

lab_started() {
	local pid=$1 log=$2 text=$3
	for _ in $(seq 1800); do
		grep -q "$text" "$log" 2>/dev/null && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	grep -q "$text" "$log" 2>/dev/null
}
