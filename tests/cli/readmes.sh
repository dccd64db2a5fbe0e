#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Every source file is named in its folder's README: the nearest README.md on
# the way up to its top folder (daemon/core/pw.c in daemon/README.md) names it
# as `pw.c` (or with its folder, `core/pw.c`); a header beside its .c file is
# named with it (pw.h by pw.c). A file added without a word on what it is for
# fails here. (TAP)
# usage: readmes.sh SRCDIR
set -uo pipefail
SRC=$1
. "$SRC/tests/tap.sh"
cd "$SRC" || exit 1
# tests/ describes its tests by kind (tests/README.md), not file by file
tops=(schedules control include daemon pmd-glue drivers tools systemd etc)
echo "1..${#tops[@]}"
for top in "${tops[@]}"; do
	missing=()
	while IFS= read -r f; do
		d=$(dirname "$f")
		while [ ! -f "$d/README.md" ] && [ "$d" != "$top" ] && [ "$d" != . ]; do d=$(dirname "$d"); done
		if [ ! -f "$d/README.md" ]; then
			missing+=("$f (no README.md in $top/)")
			continue
		fi
		rel=${f#"$d"/}
		b=$(basename "$f")
		alt=$b
		[[ $b == *.h && -f ${f%.h}.c ]] && alt=$(basename "${f%.h}.c")
		grep -qF -e "\`$b\`" -e "\`$rel\`" -e "$rel" -e "\`$alt\`" -e "${rel%.h}.c\`" "$d/README.md" ||
			missing+=("$f (not in $d/README.md)")
	done < <(git ls-files "$top" | grep -E '\.(c|h|sh|py|bpf\.c|service|conf|tdp|topo)$|^tools/tdp-gen/|tdp-probe-report$' |
		grep -v -e '/corpus/' -e '/fixtures/' -e '^tests/fuzz/.*\.dict$')
	check "$top/: every source file named in its README (${#missing[@]} missing)" '[ ${#missing[@]} -eq 0 ]' \
		"$(printf '%s\n' "${missing[@]}")"
done
