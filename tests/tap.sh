# SPDX-License-Identifier: BSD-3-Clause
# TAP helpers sourced by the command-line and network tests.
#   ok NAME                        a passed subtest
#   notok NAME [DETAIL]            a failed one, with DETAIL as # lines
#   check NAME CONDITION [DETAIL]  ok or notok as the eval'd CONDITION says;
#                                  without pipefail, so "cmd | grep -q X" asks
#                                  whether X is in cmd's output (with it, grep
#                                  leaving early kills cmd with SIGPIPE and
#                                  the pipe fails at random)
#   tap_workdir                    W: a directory of the test's own, removed
#                                  when the test ends however it ends
n=0
TAP_FAILED=0 # 1 once a subtest has failed (for scripts whose exit status says it)
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); TAP_FAILED=1; echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2"; }
check() {
	local pf=0 r=0
	if [[ -o pipefail ]]; then pf=1; set +o pipefail; fi
	eval "$2" || r=1
	[ $pf = 1 ] && set -o pipefail
	if [ $r = 0 ]; then ok "$1"; else notok "$1" "${3:-}"; fi
}
tap_workdir() {
	W=$(mktemp -d)
	trap 'rm -rf "$W"' EXIT
}
