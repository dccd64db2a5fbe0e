# SPDX-License-Identifier: BSD-3-Clause
# TAP helpers sourced by the command-line and network tests.
#   ok NAME                        a passed subtest
#   notok NAME [DETAIL]            a failed one, with DETAIL as # lines
#   check NAME CONDITION [DETAIL]  ok or notok as the eval'd CONDITION says
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2"; }
check() { if eval "$2"; then ok "$1"; else notok "$1" "${3:-}"; fi; }
