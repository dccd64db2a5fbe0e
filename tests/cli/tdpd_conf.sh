#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tdpd's configuration: every bad input is an error naming the file and line,
# with exit 2 and nothing started; --check, --dump-config, --help and the man
# pages agree with the option table. No root, no DPDK: all of this happens
# before the EAL starts.
# usage: tdpd_conf.sh TDPD SRCDIR  (TAP)
set -uo pipefail
TDPD=$1
SRC=$2
. "$SRC/tests/tap.sh"
tap_workdir

cp "$SRC/schedules/examples/demo.tdp" "$W/demo.tdp"
good() {
	cat <<'EOF2'
[global]
schedule demo.tdp        # relative to this file
late-policy carry

[port in]
device net_af_packet0,iface=rin
address 10.0.1.1/24
neighbour 10.0.1.2 02:00:00:00:01:02

[port out]
device net_af_packet1,iface=rout
address 10.0.2.1/24
neighbour 10.0.2.2 02:00:00:00:02:02
neighbour 10.0.2.9 02:00:00:00:02:09
route 10.9.0.0/16 via 10.0.2.9
EOF2
}

# expect_err NAME FILE-CONTENT WANT [ARGS...]: exit 2 and WANT in stderr
expect_err() {
	local name=$1 content=$2 want=$3
	shift 3
	printf '%s\n' "$content" >"$W/bad.conf"
	local out rc=0
	out=$("$TDPD" -f "$W/bad.conf" --check "$@" 2>&1) || rc=$?
	if [ $rc -eq 2 ] && grep -qF -- "$want" <<<"$out" && ! grep -q "valid" <<<"$out"; then
		ok "$name"
	else
		notok "$name" "exit $rc, wanted 2 and: $want
$out"
	fi
}

echo "1..66"
good >"$W/good.conf"
out=$("$TDPD" -f "$W/good.conf" --check 2>&1) && grep -q "valid: 2 ports, 2 flows" <<<"$out" &&
	ok "a good configuration passes --check" || notok "a good configuration passes --check" "$out"

G=$(good)
expect_err "unknown option, with file and line" "$G
frobnicate 3" "bad.conf:16: error: unknown option 'frobnicate'"
expect_err "out of range" "${G/late-policy carry/engine-priority 100}" "bad.conf:3: error: engine-priority '100': 100 is out of range 0..99"
expect_err "bad choice lists the choices" "${G/late-policy carry/late-policy resend}" "expected one of drop, carry"
expect_err "time-offset takes either sign, within a second" "${G/late-policy carry/time-offset -2s}" "bad.conf:3: error: time-offset '-2s': out of range (-1000000000 ns to 1000000000 ns)"
expect_err "a time without a sign where the option takes none" "${G/late-policy carry/sync-step -1us}" "bad.conf:3: error: sync-step '-1us'"
expect_err "an unknown timebase lists the sources" "${G/late-policy carry/timebase gps}" "expected one of system, ptp, phc, bc635, bc635-sim"
expect_err "a sync action that does not exist" "${G/late-policy carry/sync-unlocked-action panic}" "expected one of serve, alarm, demote"
expect_err "ptp-mode names its two modes" "${G/late-policy carry/ptp-mode slave}" "expected one of disciplined, offset"
expect_err "phc-tick needs two different pins" "${G/late-policy carry/phc-tick 1,1}" "bad.conf:3: error: phc-tick '1,1': give none, or two different pin numbers OUT,IN"
expect_err "bc635-bars names its layouts" "${G/late-policy carry/bc635-bars 3,2}" "expected one of auto, 0,1, 1,0, 2,3, 0,1-2k"
expect_err "a miss target must be a fraction" "${G/late-policy carry/wake-miss-target often}" "bad.conf:3: error: wake-miss-target 'often': not a fraction from 0 to 1 (e.g. 1e-4 or 0.0001)"
expect_err "a miss target past 0.1 is out of range" "${G/late-policy carry/wake-miss-target 0.5}" "bad.conf:3: error: wake-miss-target '0.5': 0.5 is out of range 1e-09..0.1"
expect_err "a launch lead below a microsecond is out of range" "${G/late-policy carry/launch-lead 500ns}" "bad.conf:3: error: launch-lead '500ns'"
expect_err "a launch margin not below the lead is refused, where it was set" "${G/late-policy carry/launch-margin 200us}" \
	"bad.conf:3: error: launch-margin (200000 ns) must be below launch-lead (100000 ns)"
expect_err "rx-cpus wants CPU numbers" "${G/late-policy carry/rx-cpus 2,x}" \
	"bad.conf:3: error: rx-cpus '2,x': expected CPU numbers 0 to 1023 separated by commas"
expect_err "rx-cpus refuses a CPU listed twice" "${G/late-policy carry/rx-cpus 2,3,2}" "rx-cpus '2,3,2': CPU 2 is listed twice"
expect_err "rx-cpus has at most 7 CPUs" "${G/late-policy carry/rx-cpus 1,2,3,4,5,6,7,8}" "at most 7 RX cores beside"
expect_err "tx-launch names its three modes" "$G" "expected one of auto, off, on" --port out:tx-launch=always
expect_err "bad duration" "${G/late-policy carry/spin-below 20 parsecs}" "bad.conf:3: error: spin-below '20 parsecs'"
expect_err "a value given twice" "${G/late-policy carry/late-policy carry
late-policy drop}" "bad.conf:4: error: 'late-policy' given twice (first at line 3)"
expect_err "unknown section" "$G
[ports x]" "bad.conf:16: error: unknown section [ports x]"
expect_err "a port option in [global]" "${G/late-policy carry/device eth0}" "bad.conf:3: error: 'device' belongs in a [port NAME] section"
expect_err "a global option in a port" "$G
late-policy drop" "bad.conf:16: error: 'late-policy' belongs in [global]"
expect_err "a port section twice" "$G
[port in]" "bad.conf:16: error: [port in] given twice (first at line 5)"
expect_err "an option without a value" "$G
rate" "bad.conf:16: error: 'rate' needs a value"
expect_err "schedule is required" "${G/schedule demo.tdp        # relative to this file/}" "error: 'schedule' is required in [global]"
expect_err "a port needs a device" "${G/device net_af_packet1,iface=rout/}" "bad.conf:10: error: [port out] needs 'device'"
expect_err "two ports on one device" "${G/iface=rout/iface=rin}" "[port out] uses the device or interface of [port in]"
expect_err "every table port needs a section" "${G/\[port out\]/[port other]}" "demo.tdp:12: error: the table's port out has no [port out] section"
printf 'tdp-schedule 1\ntf 1ms\nk 7\n' >"$W/broken.tdp"
expect_err "table errors come with the table's file:line:col" "${G/demo.tdp/broken.tdp}" "broken.tdp:3:3: error:"
expect_err "a missing table" "${G/demo.tdp/nothere.tdp}" "nothere.tdp"
expect_err "a bad address" "${G/address 10.0.1.1\/24/address 10.0.1.300/24}" "bad.conf:7: error: address '10.0.1.300/24'"
expect_err "a bad neighbour MAC" "${G/02:00:00:00:01:02/02:00:zz}" "bad.conf:8: error: neighbour '10.0.1.2 02:00:zz'"
expect_err "a route of two families" "${G/via 10.0.2.9/via fe80::9}" "bad.conf:15: error: route '10.9.0.0/16 via fe80::9': expected PREFIX via ADDR of one family"
expect_err "a gateway off the port's prefixes" "${G/via 10.0.2.9/via 10.0.7.77}" "bad.conf:15: error: route 10.9.0.0/16: gateway 10.0.7.77 is neither a neighbour nor on a prefix of this port"
expect_err "a CPU the machine does not have" "${G/late-policy carry/engine-cpu 1000}" "bad.conf:3: error: engine-cpu 1000: this machine has CPUs 0.."
expect_err "a command-line value is checked too" "$G" "command line: error: engine-priority '-3'" --engine-priority -3
expect_err "a command-line port override needs the port" "$G" "no [port nope] section" --port nope:rate=1Gbit/s
# the host path: what each kind of port can have, and the exception
# interface's name (a PCI port gets one by default, devargs or not)
expect_err "host-path tap on an af_packet port" "$G
host-path tap" "bad.conf:16: error: [port out] host-path tap: an af_packet port leaves every frame to the kernel as well"
expect_err "host-interface where there is no exception interface" "$G
host-interface ex0" "bad.conf:16: error: [port out] host-interface ex0: only an exception interface"
expect_err "a PCI port with devargs gets an exception interface, and a name that fits" \
	"${G/device net_af_packet1,iface=rout/device 0000:01:00.0,txq_inline=128}
[port uplink-to-core]
device 0000:02:00.0,txq_inline=128" "error: [port uplink-to-core] the exception interface's name 'tdp-uplink-to-core' is 18 characters long, and an interface name has at most 15: name it with host-interface"
# what start refuses, --check refuses, at the option's line
expect_err "rx-cpus naming a CPU this box does not have" "${G/late-policy carry/rx-cpus $(($(nproc) + 3))}" \
	"bad.conf:3: error: rx-cpus: CPU $(($(nproc) + 3)): this machine has CPUs 0..$(($(nproc) - 1)) online"
expect_err "launch-lead of more than half the table's TF" "${G/late-policy carry/launch-lead 600us}" \
	"bad.conf:3: error: launch-lead 600000 ns is more than half the table's TF (1000000 ns)"
expect_err "tx-launch on where the port's PMD has no launch time" "$G
tx-launch on" "bad.conf:16: error: [port out] tx-launch on: net_af_packet1 offers no send-on-timestamp offload"
expect_err "an xdp-program that is not there" "${G/late-policy carry/xdp-program $W/none.o}" \
	"bad.conf:3: error: xdp-program $W/none.o: No such file or directory"
expect_err "an xdp-program that is a directory" "${G/late-policy carry/xdp-program $W}" \
	"bad.conf:3: error: xdp-program $W: not a file"
expect_err "an exception interface named after another port's device" \
	"${G/device net_af_packet1,iface=rout/device 0000:01:00.0
host-interface rin}" "error: [port out] host-interface rin is the interface of [port in]'s device"
expect_err "wake-miss-target below its range is refused, not rounded into it" "${G/late-policy carry/wake-miss-target 5e-10}" \
	"bad.conf:3: error: wake-miss-target '5e-10': 5e-10 is out of range 1e-09..0.1"
printf '%s\n' "${G/late-policy carry/rx-cpus 0}" >"$W/rxw.conf"
out=$("$TDPD" -f "$W/rxw.conf" --check 2>&1)
rc=$?
[ $rc -eq 0 ] && grep -q "rxw.conf:3: warning: rx-cpus: CPU 0 is housekeeping's too" <<<"$out" &&
	ok "--check says what start warns of: an RX core on housekeeping's CPU" ||
	notok "--check says what start warns of: an RX core on housekeeping's CPU" "rc $rc: $out"
expect_err "two exception interfaces of one name" \
	"${G/device net_af_packet1,iface=rout/device 0000:01:00.0
host-interface ex0}
[port third]
device net_af_xdp2,iface=x0
host-path tap
host-interface ex0" "[port third] has the exception interface ex0 of [port out]"
printf '%s\n' "${G/device net_af_packet1,iface=rout/device net_af_xdp1,iface=rout
host-path tap
host-interface ex-out}" >"$W/tap.conf"
out=$("$TDPD" -f "$W/tap.conf" --check 2>&1) && grep -q "valid" <<<"$out" &&
	ok "host-path tap on an af_xdp port, named, passes --check" ||
	notok "host-path tap on an af_xdp port, named, passes --check" "$out"

rc=0; out=$("$TDPD" -f "$W/none.conf" --check 2>&1) || rc=$?
[ $rc -eq 2 ] && grep -q "none.conf: error: cannot open" <<<"$out" && ok "a missing configuration file" ||
	notok "a missing configuration file" "$out"

# inputs that are not a configuration file: each refused at once, by what it is
rc=0; out=$(timeout 10 "$TDPD" -f /dev/zero --check 2>&1) || rc=$?
[ $rc -eq 2 ] && grep -q "^/dev/zero: error: more than 1048576 bytes: not a configuration file$" <<<"$out" &&
	ok "an endless input (/dev/zero) is refused past 1 MiB" || notok "an endless input (/dev/zero) is refused past 1 MiB" "exit $rc: ${out:0:300}"
{ good; printf 'late-policy \0carry\nfrobnicate 3\n'; } >"$W/nul.conf"
rc=0; out=$("$TDPD" -f "$W/nul.conf" --check 2>&1) || rc=$?
[ $rc -eq 2 ] && grep -q "nul.conf:16: error: a NUL byte at column 13: not a text file" <<<"$out" &&
	grep -q "nul.conf:17: error: unknown option 'frobnicate'" <<<"$out" &&
	ok "a NUL byte is an error at its line and column, and the next line is still read" ||
	notok "a NUL byte is an error at its line and column, and the next line is still read" "exit $rc: $out"
rc=0; out=$("$TDPD" -f "$W" --check 2>&1) || rc=$?
[ $rc -eq 2 ] && [ "$(grep -c error <<<"$out")" = 1 ] && grep -q "error: is a directory, not a configuration file" <<<"$out" &&
	ok "a directory is refused as one" || notok "a directory is refused as one" "exit $rc: $out"
"$TDPD" -f "$W/good.conf" --dump-config >"$W/dump.conf" 2>&1
rc=0; out=$("$TDPD" -f "$W/dump.conf" --check 2>&1) || rc=$?
"$TDPD" -f "$W/dump.conf" --dump-config >"$W/dump2.conf" 2>&1
[ $rc -eq 0 ] && cmp -s "$W/dump.conf" "$W/dump2.conf" && grep -q "^# summary-json (not set)$" "$W/dump.conf" &&
	ok "--dump-config reads back as the same configuration (options not set are comments)" ||
	notok "--dump-config reads back as the same configuration (options not set are comments)" "exit $rc: $out"
expect_err "a rate past 64 bits signed is refused, not dumped as -1bit/s" "$G" \
	"rate '18446744073709551615bit/s': beyond the largest rate tdpd takes" --port out:rate=18446744073709551615bit/s

out=$("$TDPD" -f "$W/good.conf" --wake-predictor quantile --wake-miss-target 2.5e-5 --dump-config 2>&1)
grep -q "^wake-predictor quantile$" <<<"$out" && grep -q "^wake-miss-target 2.5e-05$" <<<"$out" &&
	ok "the quantile predictor and its miss target, dumped as set" ||
	notok "the quantile predictor and its miss target, dumped as set" "$out"

out=$("$TDPD" -f "$W/good.conf" --launch-lead 200us --port out:tx-launch=off --dump-config 2>&1)
grep -q "^launch-lead 200us$" <<<"$out" && grep -q "^launch-margin 5us$" <<<"$out" && grep -q "^tx-launch off$" <<<"$out" &&
	ok "launch time's options, dumped as set (tx-launch per port)" ||
	notok "launch time's options, dumped as set (tx-launch per port)" "$out"

out=$("$TDPD" -f "$W/good.conf" --late-policy drop --port out:rate=1Gbit/s --dump-config 2>&1)
grep -q "^late-policy drop$" <<<"$out" && grep -q "^rate 1000000000bit/s$" <<<"$out" &&
	ok "the command line overrides the file (--dump-config)" || notok "the command line overrides the file (--dump-config)" "$out"

# a row the wire admits but the box cannot hold at once (the pool, the flow
# queues), and a TX ring that must be refilled while the port sends
printf 'tdp-schedule 1\ntf 10ms\nk 2\nport out rate 10Gbit/s\nflow a port out size 64 udp-dport 1\nflow b port out size 64 udp-dport 2\nframes 0: a 40000, b 40000\n' >"$W/big.tdp"
rc=0; out=$("$TDPD" -f "$W/good.conf" --schedule "$W/big.tdp" --check 2>&1) || rc=$?
[ $rc -eq 2 ] && grep -qF "big.tdp:7:1: error: frame 0: 80000 packets a frame on all ports need as many packet buffers, but the pool has 16383" <<<"$out" &&
	grep -qF "big.tdp:7:1: error: frame 0: flow a sends 40000 packets a frame, but a flow's queue holds" <<<"$out" &&
	ok "a row larger than the pool and the flow queues is refused at its line" ||
	notok "a row larger than the pool and the flow queues is refused at its line" "exit $rc: $out"
rc=0; out=$("$TDPD" -f "$W/good.conf" --schedule "$W/big.tdp" --mbufs 131071 --flow-queue-depth 65536 --check 2>&1) || rc=$?
[ $rc -eq 0 ] && grep -qF "big.tdp:7:1: warning: frame 0: port out sends 80000 packets a frame, its TX ring holds 1024 (tx-desc)" <<<"$out" &&
	ok "a row larger than the TX ring is a warning with the numbers" ||
	notok "a row larger than the TX ring is a warning with the numbers" "exit $rc: $out"

out=$("$TDPD" --help)
missing=$("$TDPD" --list-options | while read -r sect name; do
	grep -q -- "$name" <<<"$out" || echo "$name"
done)
[ -z "$missing" ] && ok "--help documents every option" || notok "--help documents every option" "$missing"

for page in tdpd.conf.5 tdpd.8; do
	missing=$("$TDPD" --list-options | while read -r sect name; do
		grep -q -- "$name" "$SRC/man/$page" || echo "$name"
	done)
	[ -z "$missing" ] && ok "$page documents every option" || notok "$page documents every option" "missing: $missing"
done
