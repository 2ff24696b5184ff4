#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_abi.sh <source dir> <build dir> <cc...>: the installed libraries export
# DOCA's API and nothing else.
#
#   1. Every dynamic symbol of every installed library is a function declared
#      for export in include/ (DOCA_STABLE, DOCA_EXPERIMENTAL, ...: DOCA's API
#      and include/ferry_mem.h) under version FERRY_0, or, in libdoca_common
#      only, a name of src/libdoca_common.map's FERRY_PRIVATE_0 under that version.
#   2. Every function include/ declares for export is exported by one library,
#      and every name of a map is exported by its library (GNU ld skips missing
#      names in silence).
#   3. FERRY_PRIVATE_0 is exactly what libdoca_argp, libdoca_dma, libdoca_rdma,
#      libdoca_comch and libferry_legacy import from libdoca_common: nothing
#      more, nothing less.
#   4. libferry_legacy exports exactly its map's FERRY_LEGACY_0 names; every
#      function the legacy headers (include/legacy/doca-*/) declare reaches an
#      exported symbol (its asm label's, or its own name's), and every
#      FERRY_LEGACY_0 name is reached by some legacy header.
set -euo pipefail
src=$1
build=$2
shift 2
cc=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
problems=0

fail() {
	echo "FAIL: $*"
	problems=$((problems + 1))
}

meson install -C "$build" --no-rebuild --quiet --destdir "$work/root" >/dev/null

# Functions include/ declares with a visibility("default") attribute: split the
# preprocessed headers into declarations, keep those with the attribute, drop
# every attribute, and take the name before the first parenthesis.
for h in "$src"/include/*.h; do
	echo "#include <${h##*/}>"
done >"$work/all.c"
"${cc[@]}" -E -P -DDOCA_ALLOW_EXPERIMENTAL_API -I"$src/include" "$work/all.c" |
	tr '\n' ' ' | tr ';{}' '\n\n\n' |
	grep 'visibility *( *"default" *)' |
	sed -E 's/__attribute__ *\(\(([^()]|\([^()]*\))*\)\)//g' |
	sed -nE 's/^[^(]*[^A-Za-z0-9_(]([A-Za-z_][A-Za-z0-9_]*) *\(.*/\1/p' |
	sort -u >"$work/public"
[ -s "$work/public" ] || fail "found no exported declaration in $src/include"

# map_names <map> <node>: the names a version node of a map lists.
map_names() {
	sed 's|/\*.*\*/||' "$1" | awk -v node="$2" '
		$1 == node && $2 == "{" { inside = 1; next }
		inside && /^}/ { inside = 0 }
		inside && /^[ \t]*[A-Za-z_][A-Za-z0-9_]*;/ { gsub(/[ \t;]/, ""); print }' | sort
}
map_names "$src/src/libdoca_common.map" FERRY_PRIVATE_0 >"$work/private"

libs=$(find "$work/root" -name 'lib*.so*' -type f | sort)
[ -n "$libs" ] || fail "no library installed under $work/root"
: >"$work/exported"
: >"$work/legacy_exported"
for so in $libs; do
	lib=$(basename "$so")
	lib=${lib%%.so*}
	# "name@@VERSION" per defined symbol; the version names themselves are absolute.
	nm -D --defined-only --with-symbol-versions "$so" | awk '$2 != "A" { print $3 }' >"$work/$lib.syms"
	count=0
	while IFS= read -r sym; do
		name=${sym%%@*}
		version=${sym#*@@}
		[ "$version" = "$sym" ] && version="(none)"
		count=$((count + 1))
		if [ "$lib" = libferry_legacy ]; then
			[ "$version" = FERRY_LEGACY_0 ] || fail "$lib exports $name as version $version, not FERRY_LEGACY_0"
			echo "$name" >>"$work/legacy_exported"
		elif grep -qxF "$name" "$work/public"; then
			[ "$version" = FERRY_0 ] || fail "$lib exports $name as version $version, not FERRY_0"
			echo "$name" >>"$work/exported"
		elif [ "$lib" = libdoca_common ] && grep -qxF "$name" "$work/private"; then
			[ "$version" = FERRY_PRIVATE_0 ] ||
				fail "$lib exports $name as version $version, not FERRY_PRIVATE_0"
		else
			fail "$lib exports $name ($version): not declared for export in include/" \
				"$([ "$lib" = libdoca_common ] && echo "nor in FERRY_PRIVATE_0")"
		fi
	done <"$work/$lib.syms"
	echo "$lib: $count dynamic symbols"
	map="$src/src/$lib.map"
	if [ ! -f "$map" ]; then
		fail "$lib has no version script $map"
		continue
	fi
	for node in FERRY_0 FERRY_PRIVATE_0 FERRY_LEGACY_0; do
		map_names "$map" "$node" | while IFS= read -r name; do
			grep -qE "^$name@@$node\$" "$work/$lib.syms" ||
				echo "FAIL: $map lists $name in $node, but $lib does not export it so"
		done
	done >"$work/stale"
	if [ -s "$work/stale" ]; then
		cat "$work/stale"
		problems=$((problems + $(wc -l <"$work/stale")))
	fi
done

sort "$work/exported" | uniq -d | while IFS= read -r name; do
	echo "FAIL: $name is exported by more than one library"
done | tee "$work/twice"
problems=$((problems + $(wc -l <"$work/twice")))
sort -u "$work/exported" | comm -23 "$work/public" - | while IFS= read -r name; do
	echo "FAIL: include/ declares $name for export, but no installed library exports it" \
		"(add it to the version script src/libdoca_<lib>.map of the library that defines it)"
done | tee "$work/missing"
problems=$((problems + $(wc -l <"$work/missing")))

# What the siblings take from libdoca_common's private node, and anything they
# import unversioned under Ferry's prefixes (an internal function they expect
# but nobody exports; only a build without -Wl,--no-undefined gets that far).
: >"$work/imports"
for lib in libdoca_argp libdoca_dma libdoca_comch libdoca_rdma libferry_legacy ferry; do
	if [ "$lib" = ferry ]; then
		so=$(find "$work/root" -path '*/bin/ferry' -type f | head -n1)
	else
		so=$(find "$work/root" -name "$lib.so*" -type f | head -n1)
	fi
	if [ -z "$so" ]; then
		fail "$lib is not installed"
		continue
	fi
	nm -D --undefined-only --with-symbol-versions "$so" | awk '{ print $2 }' >"$work/$lib.undef"
	sed -n 's/@FERRY_PRIVATE_0$//p' "$work/$lib.undef" >>"$work/imports"
	{ grep -E '^(doca|ferry|comch)_[A-Za-z0-9_]*$' "$work/$lib.undef" || true; } | while IFS= read -r name; do
		echo "FAIL: $lib imports $name, which no library exports"
	done | tee "$work/unresolved"
	problems=$((problems + $(wc -l <"$work/unresolved")))
done
sort -u "$work/imports" -o "$work/imports"
comm -13 "$work/imports" "$work/private" | while IFS= read -r name; do
	echo "FAIL: FERRY_PRIVATE_0 lists $name, which no sibling library imports" \
		"(remove it from src/libdoca_common.map and drop FERRY_PRIVATE_API from its declaration)"
done | tee "$work/extra"
problems=$((problems + $(wc -l <"$work/extra")))
comm -23 "$work/imports" "$work/private" | while IFS= read -r name; do
	echo "FAIL: a sibling library imports $name, which FERRY_PRIVATE_0 does not list" \
		"(add it to src/libdoca_common.map; its declaration carries FERRY_PRIVATE_API)"
done | tee "$work/unlisted"
problems=$((problems + $(wc -l <"$work/unlisted")))
# The legacy flavours: each declaration's symbol is its asm label, else its name.
: >"$work/legacy_reached"
for dir in "$src"/include/legacy/doca-*/; do
	[ -d "$dir" ] || continue
	flavour=$(basename "$dir")
	for h in "$dir"*.h; do
		echo "#include <${h##*/}>"
	done >"$work/$flavour.c"
	"${cc[@]}" -E -P -DDOCA_ALLOW_EXPERIMENTAL_API -I"$dir" "$work/$flavour.c" |
		tr '\n' ' ' | tr ';{}' '\n\n\n' |
		grep 'visibility *( *"default" *)' |
		sed -E 's/__attribute__ *\(\(([^()]|\([^()]*\))*\)\)//g' |
		sed -nE -e 's/.*__asm__ *\( *"([A-Za-z_][A-Za-z0-9_]*)" *\).*/\1/p;t' \
			-e 's/^[^(]*[^A-Za-z0-9_(]([A-Za-z_][A-Za-z0-9_]*) *\(.*/\1/p' |
		sort -u >"$work/$flavour.symbols"
	[ -s "$work/$flavour.symbols" ] || fail "found no exported declaration in $dir"
	sort -u "$work/exported" "$work/legacy_exported" | comm -23 "$work/$flavour.symbols" - |
		while IFS= read -r name; do
			echo "FAIL: include/legacy/$flavour declares a function bound to $name, which no library exports"
		done | tee "$work/legacy_missing"
	problems=$((problems + $(wc -l <"$work/legacy_missing")))
	cat "$work/$flavour.symbols" >>"$work/legacy_reached"
	echo "$flavour: $(wc -l <"$work/$flavour.symbols") functions declared"
done
sort -u "$work/legacy_reached" -o "$work/legacy_reached"
sort -u "$work/legacy_exported" | comm -23 - "$work/legacy_reached" | while IFS= read -r name; do
	echo "FAIL: libferry_legacy exports $name, which no header of include/legacy/ declares"
done | tee "$work/legacy_orphans"
problems=$((problems + $(wc -l <"$work/legacy_orphans")))

echo "FERRY_0: $(wc -l <"$work/public") functions declared in include/;" \
	"FERRY_PRIVATE_0: $(wc -l <"$work/private") internal functions, $(wc -l <"$work/imports") imported"

if [ "$problems" -ne 0 ]; then
	echo "$problems problem(s)"
	exit 1
fi
echo "ok"
