#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every public header compiles as C++ (DOCA's applications are C++ and NVIDIA's
# sample meson files declare both languages): one translation unit that
# includes them all, with g++ and with clang++, C++11 and C++17, pedantic,
# warnings as errors. A missing compiler fails the test (ferry.sh installs g++
# and clang).
# The legacy flavours' headers (include/legacy/doca-<VERSION>/) are checked the
# same way, one translation unit per flavour with only that flavour's directory.
# usage: test_cxx_headers.sh <source root>
set -eu
src=$1
tu=$(mktemp --suffix=.cpp)
legacy_tu=$(mktemp --suffix=.cpp)
trap 'rm -f "$tu" "$legacy_tu"' EXIT
for h in "$src"/include/doca_*.h "$src"/include/ferry_mem.h; do
	printf '#include <%s>\n' "$(basename "$h")"
done >"$tu"
printf 'int main() { return 0; }\n' >>"$tu"
n=$(grep -c '#include' "$tu")
for cxx in g++ clang++; do
	if ! command -v "$cxx" >/dev/null 2>&1; then
		echo "$cxx not found (scripts/ferry.sh installs it)"
		exit 1
	fi
	for std in c++11 c++17; do
		"$cxx" -std=$std -Wall -Wextra -Werror -pedantic -DDOCA_ALLOW_EXPERIMENTAL_API -fsyntax-only \
			-I"$src/include" "$tu"
	done
done
echo "$n public headers compile as C++11 and C++17 with g++ and clang++"
for dir in "$src"/include/legacy/doca-*/; do
	[ -d "$dir" ] || continue
	for h in "$dir"*.h; do
		printf '#include <%s>\n' "$(basename "$h")"
	done >"$legacy_tu"
	printf 'int main() { return 0; }\n' >>"$legacy_tu"
	for cxx in g++ clang++; do
		for std in c++11 c++17; do
			"$cxx" -std=$std -Wall -Wextra -Werror -pedantic -DDOCA_ALLOW_EXPERIMENTAL_API -fsyntax-only \
				-I"$dir" "$legacy_tu"
		done
	done
	echo "$(grep -c '#include' "$legacy_tu") headers of $(basename "$dir") compile as C++11 and C++17"
done
