#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ferry.sh - the project's front door on a fresh Debian 12 machine (as root).
#
#   scripts/ferry.sh demo [-n MiB | -f FILE] [-o OUT] [-c BYTES] [-q N] [-s NAME]
#                                          build, then the main job: through `ferry run`,
#                                          a DPU program and a host program (examples/
#                                          file_copy/) agree over Comch and move a file
#                                          (or -n MiB of generated data, default 256)
#                                          host->DPU with DMA, verify it, print GB/s;
#                                          -o keeps the copy, -c/-q set the DMA chunk
#                                          and tasks in flight; --help lists them
#   scripts/ferry.sh demo-dma [options]    build, then the one-process DMA demo
#                                          (ferry-dma-demo; --help lists its options)
#   scripts/ferry.sh test                  build, then run the whole test suite:
#                                          plain, ASan+UBSan, TSan where threads meet,
#                                          and the libFuzzer targets for a bounded time;
#                                          and builds release with gcc and with clang
#   scripts/ferry.sh build                 build only (build/)
#   scripts/ferry.sh samples               build, install into a temporary prefix, then build
#                                          NVIDIA's DOCA samples of Core, DMA and Comch with
#                                          their own meson files and run them
#                                          (scripts/doca-samples.sh); needs
#                                          FERRY_DOCA_SAMPLES=<doca-samples checkout>, else
#                                          exits 2; not part of `test`. Ends with
#                                          "samples: B built of N, R ran OK of M".
#                                          FERRY_SAMPLES_BUILD: Ferry's build dir (build/)
#
# Each command first installs the Debian packages it needs (and only those), so
# it works on a machine that has nothing but Debian 12. `test` ends with the
# lines "N skipped" and "N passed, N failed" (the last line's form is what CI
# reads); the exit status is non-zero when anything failed. A skipped test is one that exited 77 because it cannot apply on this
# machine; the line it printed says why.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
caller_dir=$PWD # demo's -f and -o are relative to where the user stands
cd "$top"

# Debian packages Ferry needs to build and test. gcc-12 brings the ASan, UBSan
# and TSan runtimes (libasan8, libubsan1, libtsan2) through libgcc-12-dev; clang
# and libclang-rt-14-dev build and run the libFuzzer targets.
packages=(gcc libc6-dev meson ninja-build pkg-config libcmocka-dev libucx-dev ucx-utils) # libucx-dev: libdoca_rdma is built over UCX; ucx-utils: the benches' UCX peer (ucx_perftest)
test_packages=(clang libclang-rt-14-dev clang-format g++ python3 gnuplot-nox iproute2 procps) # g++ and clang: the public headers compile as C++; python3: tests/tools parses ferry caps --json and ferry bench's rows; gnuplot-nox: ferry bench --plot; iproute2: rdma_netns and link_netns make network namespaces (ip netns), link_netns shapes its veth (tc); procps: pkill

log() { printf '[ferry] %s\n' "$*" >&2; }

install_missing() {
	local missing=()
	local p
	for p in "${packages[@]}" "$@"; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
			missing+=("$p")
		fi
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		log "missing Debian packages: ${missing[*]}; run as root or install them first"
		exit 1
	fi
	log "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# configure <dir> [meson options...]: set up once, reconfigure when options
# change, build. On failure prints the build's last lines and returns non-zero.
configure() {
	local dir=$1
	shift
	local out rc=0
	if [ -f "$dir/build.ninja" ]; then
		out=$(meson configure "$dir" "$@" 2>&1 && ninja -C "$dir" 2>&1) || rc=$?
	else
		out=$(meson setup "$dir" "$@" 2>&1 && ninja -C "$dir" 2>&1) || rc=$?
	fi
	if [ "$rc" -ne 0 ]; then
		printf '%s\n' "$out" | tail -n 40 >&2
		log "build of $dir failed"
	fi
	return "$rc"
}

passed=0
failed=0
skipped=0

# run_suite <label> <dir> [meson test args...]: run and add to the totals.
# meson counts a test that exits 77 as skipped: counted apart, with its reason.
run_suite() {
	local label=$1 dir=$2
	shift 2
	local out rc=0
	log "tests: $label"
	out=$(meson test -C "$dir" --no-rebuild --print-errorlogs "$@" 2>&1) || rc=$?
	printf '%s\n' "$out" | grep -E '^ *[0-9]+/[0-9]+ ' || true
	local ok fail timeout unexpected skip
	ok=$(printf '%s\n' "$out" | sed -n 's/^Ok: *\([0-9]*\).*/\1/p' | tail -n1)
	fail=$(printf '%s\n' "$out" | sed -n 's/^Fail: *\([0-9]*\).*/\1/p' | tail -n1)
	timeout=$(printf '%s\n' "$out" | sed -n 's/^Timeout: *\([0-9]*\).*/\1/p' | tail -n1)
	unexpected=$(printf '%s\n' "$out" | sed -n 's/^Unexpected Pass: *\([0-9]*\).*/\1/p' | tail -n1)
	skip=$(printf '%s\n' "$out" | sed -n 's/^Skipped: *\([0-9]*\).*/\1/p' | tail -n1)
	ok=${ok:-0}
	skip=${skip:-0}
	fail=$(( ${fail:-0} + ${timeout:-0} + ${unexpected:-0} ))
	if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
		# meson itself failed (no summary): count the run as one failure.
		printf '%s\n' "$out" | tail -n 20
		fail=1
	fi
	[ "$fail" -ne 0 ] && printf '%s\n' "$out" | sed -n '/^=* *[0-9]*\/[0-9]* .*FAIL/,/^===*$/p' | tail -n 80
	# Why each skipped: the "[  SKIP    ] test: reason" line of ferry_test_skip, in meson's log.
	[ "$skip" -ne 0 ] && grep -h '^\[  SKIP    \]' "$dir/meson-logs/testlog.txt" 2>/dev/null || true
	passed=$((passed + ok))
	failed=$((failed + fail))
	skipped=$((skipped + skip))
}

cmd_build() {
	install_missing
	configure build
}

demo_usage() {
	cat <<'USAGE'
usage: scripts/ferry.sh demo [-n MiB | -f FILE] [-o OUT] [-c BYTES] [-q N] [-s NAME] [-t SECONDS]
  -n MiB      send this many MiB of generated data (default 256)
  -f FILE     send FILE instead
  -o OUT      the DPU side writes what it received to OUT
  -c BYTES    bytes per DMA task (default 4194304)
  -q N        DMA tasks in flight (default 8)
  -s NAME     Comch service name (default ferry-file-copy)
  -t SECONDS  time limit of the whole run (default 300)
Runs build/examples/ferry-file-copy-dpu and ferry-file-copy-host through
`build/tools/ferry run`; the exit status is ferry run's (0: the file arrived intact).
USAGE
}

# quote <word>: one word for `sh -c` (ferry run's commands), in single quotes.
quote() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# abs <path>: the path as the caller meant it, before ferry.sh changed directory.
abs() {
	case "$1" in
	/*) printf '%s' "$1" ;;
	*) printf '%s/%s' "$caller_dir" "$1" ;;
	esac
}

# demo [options]: the two-sided main job, both programs under `ferry run`.
cmd_demo() {
	local dpu="./build/examples/ferry-file-copy-dpu" host="./build/examples/ferry-file-copy-host"
	local limit=300
	while [ $# -gt 0 ]; do
		case "$1" in
		-h | --help) demo_usage; return 0 ;;
		-n) # the DPU side accepts what the demo sends, above its 4096 MiB default too
			[ $# -ge 2 ] || { demo_usage >&2; exit 2; }; host+=" -n $(quote "$2")"; dpu+=" -m $(quote "$2")"; shift 2 ;;
		-f) [ $# -ge 2 ] || { demo_usage >&2; exit 2; }; host+=" -f $(quote "$(abs "$2")")"; shift 2 ;;
		-o) [ $# -ge 2 ] || { demo_usage >&2; exit 2; }; dpu+=" -o $(quote "$(abs "$2")")"; shift 2 ;;
		-c | -q) [ $# -ge 2 ] || { demo_usage >&2; exit 2; }; dpu+=" $1 $(quote "$2")"; shift 2 ;;
		-s) [ $# -ge 2 ] || { demo_usage >&2; exit 2; }; dpu+=" -s $(quote "$2")"; host+=" -s $(quote "$2")"; shift 2 ;;
		-t) [ $# -ge 2 ] || { demo_usage >&2; exit 2; }; limit=$2; shift 2 ;;
		*) echo "ferry.sh demo: unknown option '$1'" >&2; demo_usage >&2; exit 2 ;;
		esac
	done
	cmd_build
	log "running the file copy demo: $dpu  |  $host"
	exec ./build/tools/ferry run --timeout "$limit" --dpu "$dpu" --host "$host"
}

# demo-dma [options]: the one-process DMA demo (ferry-dma-demo).
cmd_demo_dma() {
	cmd_build
	log "running the one-process DMA demo"
	exec ./build/examples/ferry-dma-demo "$@"
}

# stage <label> <dir> <meson options...> -- <meson test args...>: build one
# configuration and run its tests; a build that fails counts as one failure.
stage() {
	local label=$1 dir=$2
	shift 2
	local opts=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		opts+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	if configure "$dir" "${opts[@]}"; then
		run_suite "$label" "$dir" "$@"
	else
		failed=$((failed + 1))
	fi
}

# build_only <label> <dir> <meson options...>: build one configuration (the
# tests' programs too) and run nothing; counts as one test, passed when the
# build succeeds (warnings are errors).
build_only() {
	local label=$1 dir=$2
	shift 2
	log "build only: $label"
	if configure "$dir" "$@"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
}

# format_check: every C file Ferry owns is as .clang-format lays it out
# (counted as one test; the files that are not are listed).
format_check() {
	local bad
	log "format: clang-format --dry-run over the C sources"
	# find, not git ls-files: the check must not pass empty in a tree without git.
	bad=$(find include src tests bench tools examples -name '*.[ch]' | sort | while read -r f; do
		clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || echo "$f"
	done)
	if [ -z "$bad" ]; then
		passed=$((passed + 1))
	else
		printf 'not formatted (run clang-format -i on them):\n%s\n' "$bad"
		failed=$((failed + 1))
	fi
}

cmd_test() {
	install_missing "${test_packages[@]}"
	local sanitizer_args=(-Dc_args=-fno-sanitize-recover=all -Db_lundef=false)

	stage "plain" build --

	# A packager's optimised build, with each compiler: -O3 finds warnings
	# (maybe-uninitialized, ...) that the debugoptimized build above does not.
	format_check
	CC=gcc build_only "release, gcc" build-release-gcc -Dbuildtype=release
	CC=clang build_only "release, clang" build-release-clang -Dbuildtype=release

	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		stage "ASan+UBSan" build-asan -Db_sanitize=address,undefined "${sanitizer_args[@]}" --

	# TSan where threads meet: the progress engine's wakeups, the worker copy
	# engine and DMA on top of it, the memory agent of the link, Comch peers, the
	# legacy Comm Channel (secure_channel's two threads on one endpoint), the RDMA
	# service thread beside the PE's.
	# setarch -R: TSan's shadow layout needs the address space without the
	# kernel's full mmap randomisation. atexit_sleep_ms=0: TSan otherwise waits
	# a second at every process exit, and the kill/stop matrix starts hundreds.
	TSAN_OPTIONS=halt_on_error=1:atexit_sleep_ms=0 stage "TSan" build-tsan -Db_sanitize=thread "${sanitizer_args[@]}" -- \
		--wrapper 'setarch -R' --suite core --suite engine --suite dma --suite link --suite comch --suite legacy --suite rdma

	# Every parser of bytes from another process or a user file, under
	# libFuzzer with ASan+UBSan, for a bounded time each (FERRY_FUZZ_SECONDS).
	CC=clang stage "fuzz" build-fuzz -Dfuzz=true -Dfuzz_seconds="${FERRY_FUZZ_SECONDS:-30}" -- --suite fuzz

	# CI reads the last line, which keeps its form; skips are counted on the line above.
	echo "$skipped skipped"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}

# NVIDIA's samples are not Ferry's: they stay where FERRY_DOCA_SAMPLES points
# and are copied to a temporary directory; nothing of them enters the repo.
cmd_samples() {
	if [ -z "${FERRY_DOCA_SAMPLES:-}" ] || [ ! -d "$FERRY_DOCA_SAMPLES/samples" ]; then
		echo "ferry.sh samples: set FERRY_DOCA_SAMPLES to a checkout of github.com/NVIDIA-DOCA/doca-samples" >&2
		exit 2
	fi
	local dir=${FERRY_SAMPLES_BUILD:-build}
	install_missing g++ # the samples' meson projects declare C and C++
	configure "$dir"
	scripts/doca-samples.sh "$dir"
}

case "${1:-}" in
build) shift; cmd_build "$@" ;;
samples) shift; cmd_samples "$@" ;;
demo) shift; cmd_demo "$@" ;;
demo-dma) shift; cmd_demo_dma "$@" ;;
test) shift; cmd_test "$@" ;;
*)
	echo "usage: $0 {demo|demo-dma|test|build|samples}" >&2
	exit 2
	;;
esac
