#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tdpctl schedule from the command line, as an operator uses it. TAP output.
# usage: tdpctl_schedule.sh TDPCTL SRCDIR
set -u
T=$1
SRC=$2
EX=$SRC/schedules/examples
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
n=0
fails=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "#   $l"; done; }
# expect DESC WANT_RC CMD...: runs CMD, stdout in $W/out, stderr in $W/err
expect() {
	local desc=$1 want=$2
	shift 2
	"$@" >"$W/out" 2>"$W/err"
	local rc=$?
	if [ "$rc" -eq "$want" ]; then ok "$desc"; else nok "$desc" "exit $rc, wanted $want" "$(head -c 600 "$W/err")"; fi
}
has() { # has DESC FILE PATTERN
	if grep -qF -- "$3" "$2"; then ok "$1"; else nok "$1" "no '$3' in $(basename "$2"):" "$(head -c 600 "$2")"; fi
}

# --- check ------------------------------------------------------------------
expect "check accepts the examples" 0 "$T" schedule check "$EX"/demo.tdp "$EX"/voice-video-be.tdp "$EX"/k10000.tdp
has "check says ok with a summary" "$W/out" "voice-video-be.tdp: ok: TF 100us, k 100, 1 port, 3 flows, 4 distinct rows, peak utilisation 77.3% on eth0"

printf 'tdp-schedule 1\ntf 300us\nk 10\n' >"$W/bad.tdp"
expect "check rejects a TF that does not divide a second" 1 "$T" schedule check "$W/bad.tdp"
has "the error has file:line:col" "$W/err" "$W/bad.tdp:2:4: error: TF 300us does not divide one second"

printf 'tdp-schedule 1\ntf 100us\nk 4\nport eth0 rate 1Gbit/s\nflow big port eth0 size 1514 dscp 10\nframes 0-3/2: big 9\n' >"$W/over.tdp"
expect "check rejects an overbooked table" 1 "$T" schedule check "$W/over.tdp"
has "overbooking names frames, port, flows and excess" "$W/err" "over.tdp:6:1: error: frames 0,2 (2 frames): port eth0 overbooked by 10.736us"

expect "check of a missing file: an I/O error, exit 2 as tdpctl(8) says" 2 "$T" schedule check "$W/nope.tdp"
has "and says why" "$W/err" "nope.tdp: error: cannot open: No such file or directory"

head -c 4096 /bin/ls >"$W/junk.tdp"
expect "binary junk is rejected without a crash" 1 "$T" schedule check "$W/junk.tdp"
has "as not text" "$W/err" "is not text: this is not a schedule table"
: >"$W/empty.tdp"
expect "an empty file is rejected" 1 "$T" schedule check "$W/empty.tdp"
expect "an endless input (/dev/zero) is refused, not read forever" 1 timeout 20 "$T" schedule check /dev/zero
has "past 256 MiB" "$W/err" "/dev/zero: error: more than 256 MiB: not a reservation table"
expect "a directory is refused, exit 2 (not an invalid table)" 2 "$T" schedule check "$W"
has "as one" "$W/err" "error: is a directory, not a reservation table"

expect "check --json reports every file" 1 "$T" schedule check --json "$EX"/demo.tdp "$W/bad.tdp"
if python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r[0]["ok"] and not r[1]["ok"]; d=r[1]["diagnostics"][0]; assert (d["line"],d["col"])==(2,4), d' "$W/out" 2>"$W/py"; then
	ok "check --json is JSON with positions"
else nok "check --json is JSON with positions" "$(cat "$W/py")"; fi

# --- show, json, svg ----------------------------------------------------------
expect "show prints the summary" 0 "$T" schedule show "$EX"/voice-video-be.tdp
has "port utilisation min/avg/max" "$W/out" "0.0% / 37.9% / 77.3%"
has "per-flow reserved rate and worst wait" "$W/out" "video            eth0               1514     1         300            50   363.4 Mbit/s       200us"
has "rows in compact form" "$W/out" "frames 0-98/2: video 6"

expect "json exports the table" 0 "$T" schedule json "$EX"/k10000.tdp
if python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["k"]==10000 and len(r["flows"])==4 and r["flows"][0]["frames_per_cycle"]==1000, r["flows"][0]' "$W/out" 2>"$W/py"; then
	ok "json parses and carries the summary"
else nok "json parses and carries the summary" "$(cat "$W/py")"; fi

svgcheck() { # svgcheck DESC SVG: well-formed XML that renders to a PNG
	if python3 - "$2" >"$W/py" 2>&1 <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == '{http://www.w3.org/2000/svg}svg', root.tag
rects = root.findall('.//{http://www.w3.org/2000/svg}rect')
assert len(rects) > 10, len(rects)
PY
	then
		if command -v rsvg-convert >/dev/null; then
			rsvg-convert -o "$2.png" "$2" 2>"$W/py" &&
				python3 -c 'import sys,struct; b=open(sys.argv[1],"rb").read(24); assert b[:8]==b"\x89PNG\r\n\x1a\n"; w,h=struct.unpack(">II",b[16:24]); assert w==1200 and h>100, (w,h)' "$2.png" 2>>"$W/py" &&
				ok "$1" || nok "$1" "$(cat "$W/py")"
		else
			ok "$1 # SKIP rsvg-convert not installed, XML checked only"
		fi
	else
		nok "$1" "$(cat "$W/py")"
	fi
}
expect "show --svg writes a picture" 0 "$T" schedule show --svg "$W/vv.svg" "$EX"/voice-video-be.tdp
svgcheck "the picture is a valid image" "$W/vv.svg"
has "coloured by flow, with titles" "$W/vv.svg" "video 73.8%"
expect "show --svg bins a 10,000-frame cycle" 0 "$T" schedule show --svg "$W/k.svg" "$EX"/k10000.tdp
svgcheck "the binned picture is a valid image" "$W/k.svg"
expect "show --svg of an overbooked table still draws it" 1 "$T" schedule show --svg "$W/o.svg" "$W/over.tdp"
has "and marks the overbooked frames" "$W/o.svg" 'class="overbooked"'

# --- new ------------------------------------------------------------------------
expect "new writes a table" 0 "$T" schedule new --tf 100us --k 10 --guard 2us --port eth0:1Gbit/s -o "$W/new.tdp"
expect "which checks" 0 "$T" schedule check "$W/new.tdp"
expect "new does not overwrite without --force" 2 "$T" schedule new --tf 100us --k 10 -o "$W/new.tdp"
expect "new rejects a bad TF" 1 "$T" schedule new --tf 300us --k 10
has "with the reason" "$W/err" "TF 300us does not divide one second"

# --- reserve / release ---------------------------------------------------------
cp "$EX"/voice-video-be.tdp "$W/vv.tdp"
expect "reserve adds packets in place" 0 "$T" schedule reserve "$W/vv.tdp" ctrl 1 1-99/2
has "and shows what changed" "$W/err" "ctrl 0 -> 1"
has "keeping the file's comments" "$W/vv.tdp" "# G.711 with 20 ms packetisation"
expect "the edited table checks" 0 "$T" schedule check "$W/vv.tdp"
cp "$W/vv.tdp" "$W/before.tdp"
expect "reserve that would overbook is refused" 1 "$T" schedule reserve "$W/vv.tdp" video 3 0-98/2
has "with the admission error" "$W/err" "overbooked"
if cmp -s "$W/vv.tdp" "$W/before.tdp"; then ok "and the file is untouched"; else nok "and the file is untouched"; fi
expect "reserve of an unknown flow is refused" 1 "$T" schedule reserve "$W/vv.tdp" nosuch 1 0
expect "reserve with a bad frame set is a usage error" 2 "$T" schedule reserve "$W/vv.tdp" ctrl 1 0-100
expect "release undoes the reservation" 0 "$T" schedule release "$W/vv.tdp" ctrl 1 1-99/2
expect "back to the original table" 0 "$T" schedule diff "$EX"/voice-video-be.tdp "$W/vv.tdp"
expect "release of more than is there is refused" 1 "$T" schedule release "$W/vv.tdp" voice 2 0
expect "--dry-run shows but does not write" 0 "$T" schedule reserve --dry-run "$W/vv.tdp" ctrl 1 7
expect "(the dry run left the table as it was)" 0 "$T" schedule diff "$EX"/voice-video-be.tdp "$W/vv.tdp"

chmod 640 "$W/vv.tdp"
"$T" schedule reserve "$W/vv.tdp" ctrl 1 7 2>/dev/null
[ "$(stat -c %a "$W/vv.tdp")" = 640 ] && ok "an edit keeps the table's mode" || nok "an edit keeps the table's mode" "$(stat -c %a "$W/vv.tdp")"
[ "$(stat -c %a "$W/new.tdp")" = "$(umask -S >/dev/null; printf '%o' $((0666 & ~$(umask))))" ] && ok "a new table gets 0666 less the umask" || nok "a new table gets 0666 less the umask" "$(stat -c %a "$W/new.tdp")"

# --- fmt, diff ------------------------------------------------------------------
cp "$EX"/k10000.tdp "$W/k.tdp"
expect "fmt -i rewrites in canonical spelling" 0 "$T" schedule fmt -i "$W/k.tdp"
has "comments kept" "$W/k.tdp" "# every 400 us"
expect "the same table as before" 0 "$T" schedule diff "$EX"/k10000.tdp "$W/k.tdp"
cp "$W/k.tdp" "$W/k2.tdp"
"$T" schedule fmt -i "$W/k2.tdp"
if cmp -s "$W/k.tdp" "$W/k2.tdp"; then ok "fmt is idempotent"; else nok "fmt is idempotent"; fi
expect "fmt --compact" 0 "$T" schedule fmt --compact "$EX"/k10000.tdp
has "one line per flow pattern" "$W/out" "frames 0-9995/5: video 6"
expect "diff of different tables exits 1" 1 "$T" schedule diff "$EX"/demo.tdp "$EX"/voice-video-be.tdp
has "and names the change" "$W/out" "tf: 1ms -> 100us"
expect "diff --json" 1 "$T" schedule diff --json "$EX"/demo.tdp "$EX"/voice-video-be.tdp
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["equal"] is False and r["changes"]' "$W/out" && ok "diff --json is JSON" || nok "diff --json is JSON"

# --- I/O errors, option values, line endings -----------------------------------
expect "show of a missing file: exit 2" 2 "$T" schedule show "$W/nope.tdp"
expect "fmt of a missing file: exit 2" 2 "$T" schedule fmt "$W/nope.tdp"
expect "reserve on a missing file: exit 2" 2 "$T" schedule reserve "$W/nope.tdp" a 1 0
expect "a missing file and an invalid one: the I/O error wins, exit 2" 2 "$T" schedule check "$W/bad.tdp" "$W/nope.tdp"
"$T" schedule fmt "$EX"/demo.tdp >/dev/full 2>"$W/err"
rc=$?
if [ $rc -eq 2 ] && grep -q "standard output: No space left on device" "$W/err"; then ok "stdout on a full disk: exit 2, said so"
else nok "stdout on a full disk: exit 2, said so" "exit $rc" "$(cat "$W/err")"; fi
expect "--port with an empty field is refused (it was read as NAME:RATE=MAXFRAME)" 2 \
	"$T" schedule new --tf 100us --k 10 --port "p::1500"
has "naming the form" "$W/err" "--port p::1500: expected NAME:RATE[:MAXFRAME[:OVERHEAD]], each field given"
expect "--port with a fifth field is refused (it was dropped)" 2 "$T" schedule new --tf 100us --k 10 --port "p:1Gbit/s:1514:24:9"
expect "a newline in --tf is refused (it injected a line into the table)" 2 \
	"$T" schedule new --tf "$(printf '100us\nport evil rate 1Gbit/s')" --k 10
has "saying where" "$W/err" "--tf: '100us"
expect "a newline in --port is refused" 2 "$T" schedule new --tf 100us --k 10 --port "$(printf 'p:1Gbit/s\nguard 1us')"
expect "four fields of --port" 0 "$T" schedule new --tf 100us --k 10 --port "p:1Gbit/s:9000:20"
has "each in its place" "$W/out" "port p rate 1Gbit/s max-frame 9000 overhead 20"
printf 'tdp-schedule 1\r\ntf 100us\r\nk 10\r\nport p rate 1Gbit/s\r\nflow a port p size 100 dscp 1  # voice\r\nframes 0: a 1\r\n' >"$W/crlf.tdp"
expect "reserve on a CRLF table" 0 "$T" schedule reserve "$W/crlf.tdp" a 1 5
if [ "$(grep -c $'\r$' "$W/crlf.tdp")" -eq "$(wc -l <"$W/crlf.tdp")" ] && grep -q $'^frame.* 5: a 1\r$' "$W/crlf.tdp"; then
	ok "keeps every line CRLF, the new line too (it rewrote them as LF)"
else nok "keeps every line CRLF, the new line too (it rewrote them as LF)" "$(od -c "$W/crlf.tdp" | head -20)"; fi

# --- usage ----------------------------------------------------------------------
expect "--help" 0 "$T" --help
expect "schedule --help" 0 "$T" schedule --help
expect "unknown verb is a usage error" 2 "$T" schedule frobnicate
expect "unknown option is a usage error" 2 "$T" schedule check --frob "$EX"/demo.tdp
expect "an option of another verb is a usage error" 2 "$T" schedule check --svg x "$EX"/demo.tdp

echo "1..$n"
[ "$fails" -eq 0 ]
