# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the network tests that run FRR: zebra and ospfd in a network
# namespace, each instance in its own pathspace (-N TAG) under
# /var/run/frr/TAG, as Debian's frr user.
#   frr_start NS TAG OSPFD-CONF-BODY   starts zebra, then ospfd with the body
#   frr_vty TAG CMD...                 runs vtysh against TAG (in its NS)
#   frr_stop TAG                       stops both, removes TAG's files
# FRR_NS[TAG] remembers the namespace; frr_stop_all stops every TAG started.
# NS "-" is the namespace the caller is in (a lab guest has no other).
FRR=/usr/lib/frr
declare -A FRR_NS=()

# in NS: the command in network namespace NS, or where we are for "-"
frr_in() {
	local ns=$1
	shift
	if [ "$ns" = - ]; then "$@"; else ip netns exec "$ns" "$@"; fi
}

frr_have() {
	[ -x "$FRR/zebra" ] && [ -x "$FRR/ospfd" ] && command -v vtysh >/dev/null
}

frr_start() {
	local ns=$1 tag=$2 body=$3 d=/var/run/frr/$2
	FRR_NS[$tag]=$ns
	mkdir -p "$d"
	chown frr:frr "$d"
	printf 'hostname %s\nlog file %s/zebra.log\n' "$tag" "$d" >"$d/zebra.conf"
	printf 'hostname %s\nlog file %s/ospfd.log\n%s\n' "$tag" "$d" "$body" >"$d/ospfd.conf"
	chmod 644 "$d/zebra.conf" "$d/ospfd.conf"
	frr_in "$ns" "$FRR/zebra" -d -N "$tag" -f "$d/zebra.conf" -i "$d/zebra.pid" >"$d/zebra.out" 2>&1
	for _ in $(seq 50); do [ -S "$d/zserv.api" ] && break; sleep 0.1; done
	frr_in "$ns" "$FRR/ospfd" -d -N "$tag" -f "$d/ospfd.conf" -i "$d/ospfd.pid" >"$d/ospfd.out" 2>&1
}

frr_vty() {
	local tag=$1
	shift
	frr_in "${FRR_NS[$tag]}" vtysh -N "$tag" -c "$*" 2>&1 | grep -v "vtysh.conf"
}

frr_stop() {
	local tag=$1 d
	for d in ospfd zebra; do
		[ -f "/var/run/frr/$tag/$d.pid" ] && kill "$(cat "/var/run/frr/$tag/$d.pid")" 2>/dev/null
	done
	rm -rf "/var/run/frr/$tag"
	return 0
}

frr_stop_all() {
	local tag
	for tag in "${!FRR_NS[@]}"; do frr_stop "$tag"; done
	return 0
}
