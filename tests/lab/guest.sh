# SPDX-License-Identifier: BSD-3-Clause
# The lab's guests, sourced by lab.sh:
#   lab_kernel DIR          Debian's kernel for the guests in DIR (once): vmlinux,
#                           its modules under DIR/root, DIR/version; and the
#                           initramfs (each time)
#   lab_guest NAME DIR SCRIPT MEM QEMU-ARGS...
#                           boots guest NAME in the background: the host's root
#                           read-only at /, DIR/share read-write at /mnt, then
#                           runs tests/lab/SCRIPT NAME as root; its console in
#                           DIR/share/NAME.console; LAB_SMP vCPUs (1), the
#                           devices in LAB_FIRST before any other (an IOMMU),
#                           LAB_APPEND on its kernel's command line
#   lab_wait FILE S [LOG]   waits up to S seconds for FILE (a guest's signal)
#   lab_guests_wait S       waits up to S seconds for every guest to power off
#   lab_guests_stop         stops the guests that are still running
# Facts this stands on: Debian's vmlinuz is a bzImage whose payload is xz; the
# ELF vmlinux inside has a PVH entry point, so QEMU boots it with -kernel and
# TCG spends no time decompressing. Debian's kernel has 9p, virtio and
# uio_pci_generic as modules, so the initramfs carries 9p's and virtio's.
LAB_PIDS=()
LAB_GUESTS=()
LAB_FIRST=()

lab_kernel() {
	local dir=$1 pkg ver deb
	# the kernel once; the initramfs each time (it is this file's, and quick)
	if [ -f "$dir/vmlinux" ] && [ -f "$dir/version" ]; then
		lab_initramfs "$dir" "$(cat "$dir/version")"
		return
	fi
	mkdir -p "$dir"
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	if [ -z "$pkg" ]; then
		apt-get update -qq
		pkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	fi
	[ -n "$pkg" ] || {
		echo "lab: no Debian kernel package found (apt-cache depends linux-image-amd64)" >&2
		return 1
	}
	rm -rf "$dir/root" "$dir"/*.deb
	(cd "$dir" && apt-get download -qq "$pkg") || return 1
	deb=$(ls "$dir"/*.deb)
	dpkg-deb -x "$deb" "$dir/root" && rm -f "$deb"
	ver=$(ls "$dir/root/lib/modules")
	depmod -b "$dir/root" "$ver"
	python3 - "$dir/root/boot/vmlinuz-$ver" "$dir/vmlinux" <<'PY' || return 1
import lzma, sys
img = open(sys.argv[1], "rb").read()
at = img.find(b"\xfd7zXZ\x00")  # the xz stream of the bzImage's payload
if at < 0:
    sys.exit("no xz payload in " + sys.argv[1])
out = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(img[at:])
if out[:4] != b"\x7fELF":
    sys.exit("the payload is not an ELF vmlinux")
open(sys.argv[2], "wb").write(out)
PY
	lab_initramfs "$dir" "$ver" || return 1
	echo "$ver" >"$dir/version"
}

# the initramfs: a static busybox, the modules that reach the 9p shares, and
# an /init that mounts the host's root and hands over to the guest's script
lab_initramfs() {
	local dir=$1 ver=$2 r m f want=(9p 9pnet_virtio virtio_pci overlay) mods=()
	r=$(mktemp -d)
	mkdir -p "$r"/{bin,dev,proc,sys,root,mods}
	cp /bin/busybox "$r/bin/" || return 1
	# each module after the ones it depends on
	while [ ${#want[@]} -gt 0 ]; do
		m=${want[0]}
		want=("${want[@]:1}")
		[[ " ${mods[*]} " == *" $m "* ]] && continue
		local deps
		deps=$(modinfo -b "$dir/root" -k "$ver" -F depends "$m" | tr ',' ' ')
		local pending=()
		for d in $deps; do [[ " ${mods[*]} " == *" $d "* ]] || pending+=("$d"); done
		if [ ${#pending[@]} -gt 0 ]; then
			want=("${pending[@]}" "$m" "${want[@]}")
			continue
		fi
		f=$(modinfo -b "$dir/root" -k "$ver" -n "$m") || return 1
		case $f in
		*.ko.xz) xz -dc "$f" >"$r/mods/$m.ko" ;;
		*) cp "$f" "$r/mods/$m.ko" ;;
		esac
		mods+=("$m")
	done
	cat >"$r/init" <<EOF
#!/bin/busybox sh
b=/bin/busybox
\$b mount -t proc proc /proc
\$b mount -t sysfs sys /sys
\$b mount -t devtmpfs dev /dev
for m in ${mods[*]}; do \$b insmod /mods/\$m.ko || echo "lab: insmod \$m failed"; done
set -- \$(\$b cat /proc/cmdline)
for a; do case \$a in lab.script=*) s=\${a#*=} ;; lab.name=*) n=\${a#*=} ;; lab.src=*) src=\${a#*=} ;; lab.init=*) init=\${a#*=} ;; esac; done
if [ "\$init" = systemd ]; then
	# the host's root read-only under a tmpfs of the guest's own (overlayfs):
	# systemd, ninja install and the units write where they would on a box
	\$b mkdir -p /lower /rw
	\$b mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot /lower ||
		{ echo "lab: the host's root did not mount"; \$b poweroff -f; }
	\$b mount -t tmpfs tmpfs /rw
	\$b mkdir -p /rw/upper /rw/work
	\$b mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work /root ||
		{ echo "lab: the overlay did not mount"; \$b poweroff -f; }
else
	\$b mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot /root ||
		{ echo "lab: the host's root did not mount"; \$b poweroff -f; }
	# /run is the guest's own (tmpfs); /tmp stays the host's, read-only, as the
	# tree under test may live there; TMPDIR points into /run
	\$b mount -t tmpfs tmpfs /root/run
	\$b mkdir -p /root/run/tmp
fi
\$b mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 share /root/mnt ||
	{ echo "lab: the share did not mount"; \$b poweroff -f; }
echo "lab: \$n up after \$(\$b cut -d' ' -f1 /proc/uptime) s"
for d in proc sys dev; do \$b mount --move /\$d /root/\$d; done
if [ "\$init" = systemd ]; then
	# the script prepares the root (as an operator would), then systemd is
	# PID 1 (it finds /proc, /sys and /dev mounted)
	\$b chroot /root /bin/bash -c "export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root; /bin/bash \$src/tests/lab/\$s prepare \$n" ||
		echo "lab: \$n's preparation failed"
	exec \$b switch_root /root /lib/systemd/systemd --unit=lab.target
fi
\$b chroot /root /bin/bash -c "export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/run TMPDIR=/run/tmp; cd /run; /bin/bash \$src/tests/lab/\$s \$n"
echo "lab: \$n's script ended (\$?)"
\$b sync
\$b poweroff -f
EOF
	chmod +x "$r/init"
	(cd "$r" && find . | cpio -o -H newc --quiet | gzip -1 >"$dir/initrd.gz") || return 1
	rm -rf "$r"
}

lab_guest() {
	local name=$1 dir=$2 script=$3 mem=$4 tm=()
	shift 4
	[ -x /usr/bin/time ] && tm=(/usr/bin/time -f %M -o "$dir/share/$name.maxrss")
	"${tm[@]}" timeout "$LIMIT" qemu-system-x86_64 -name "lab-$name" -pidfile "$dir/$name.pid" \
		-M q35 -accel tcg -cpu max -smp "${LAB_SMP:-1}" -m "$mem" -nodefaults -no-user-config -display none \
		-no-reboot -serial "file:$dir/share/$name.console" \
		-kernel "$K/vmlinux" -initrd "$K/initrd.gz" \
		-append "console=ttyS0 quiet panic=-1 lab.name=$name lab.script=$script lab.src=$SRC lab.init=${LAB_INIT:-script} ${LAB_APPEND:-}" \
		"${LAB_FIRST[@]}" \
		-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap \
		-device virtio-9p-pci,fsdev=root,mount_tag=hostroot \
		-fsdev "local,id=share,path=$dir/share,security_model=none,multidevs=remap" \
		-device virtio-9p-pci,fsdev=share,mount_tag=share \
		"$@" </dev/null >"$dir/$name.qemu.log" 2>&1 &
	LAB_PIDS+=($!)
	# QEMU's own PID, from its pidfile as it starts: what stops it, whatever
	# becomes of the file later
	local i pid=
	for ((i = 0; i < 100; i++)); do
		pid=$(cat "$dir/$name.pid" 2>/dev/null) && [ -n "$pid" ] && break
		sleep 0.1
	done
	[ -n "$pid" ] && LAB_GUESTS+=("$pid:lab-$name")
}

# whether PID:NAME is still that guest's QEMU (not a PID used again)
lab_guest_alive() {
	grep -qa -- "-name.$2" "/proc/$1/cmdline" 2>/dev/null
}

lab_wait() {
	local f=$1 s=$2 log=${3:-} i
	for ((i = 0; i < s * 10; i++)); do
		[ -e "$f" ] && return 0
		# a guest that powered off signals nothing more
		[ -n "$log" ] && grep -q "lab: .* script ended" "$log" 2>/dev/null && return 1
		sleep 0.1
	done
	return 1
}

lab_guests_wait() {
	local s=$1 i p alive
	for ((i = 0; i < s * 10; i++)); do
		alive=0
		for p in "${LAB_GUESTS[@]}"; do
			lab_guest_alive "${p%%:*}" "${p#*:}" && alive=1
		done
		[ $alive = 0 ] && return 0
		sleep 0.1
	done
	return 1
}

lab_guests_stop() {
	local p
	for p in "${LAB_GUESTS[@]}"; do
		lab_guest_alive "${p%%:*}" "${p#*:}" && kill "${p%%:*}" 2>/dev/null
	done
	for p in "${LAB_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	return 0
}
