#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_file_copy.sh CASE - the file copy example (examples/file_copy/), run as
# scripts/ferry.sh demo runs it: both programs under `ferry run`.
#   pair        8 MiB of generated data: both sides exit 0 and print GB/s
#   file        a file given with -f arrives byte for byte (-o, then cmp)
#   rogue-MODE  a lying host (file_copy_rogue MODE) is refused: the DPU side
#               prints "refused the request", exits 3 and does not crash
#               (rogue-silent: connects and leaves; the DPU side says so, exits 1)
#   no-server   a host without a DPU side fails with a clear line (ferry run exits 3)
#   revoke      FERRY_FAULT revokes the DPU side's import of the host's memory at its
#               3rd use: the DPU side fails that copy with a clear line and tells the
#               host; both exit non-zero, so ferry run exits 1 or 3 (whichever ends first)
#   script      scripts/ferry.sh demo's option parsing (--help, a bad option; no build)
# Environment: FERRY, FC_DPU, FC_HOST, FC_ROGUE (the built programs), FERRY_SH.
set -u

case_name=${1:?usage: test_file_copy.sh CASE}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	sed 's/^/    out: /' "$tmp/out" | tail -n 20
	sed 's/^/    err: /' "$tmp/err" | tail -n 20
	exit 1
}

# run_pair WANT DPU-ARGS HOST-CMD [FERRY-RUN-OPTION...]: ferry run both, expect exit WANT
# (a list such as "1 3" when either side may be reaped first).
run_pair() {
	want=$1
	dpu_args=$2
	host_cmd=$3
	shift 3
	"$FERRY" run --timeout 30 --color never "$@" --dpu "$FC_DPU $dpu_args" --host "$host_cmd" >"$tmp/out" 2>"$tmp/err"
	got=$?
	case " $want " in *" $got "*) ;; *) fail "ferry run exited $got, want $want" ;; esac
	! grep -Eq 'AddressSanitizer|LeakSanitizer|runtime error' "$tmp/out" "$tmp/err" ||
		fail "a sanitizer complained"
}

case "$case_name" in
pair)
	run_pair 0 "" "$FC_HOST -n 8"
	grep -Eq '^dpu\.0\| received 8388608 bytes .* [0-9.]+ GB/s' "$tmp/out" || fail "no GB/s line from the DPU side"
	grep -Eq '^host\.0\| host->DPU: 8388608 bytes .* [0-9.]+ GB/s' "$tmp/out" || fail "no GB/s line from the host side"
	;;
file)
	# An odd size: the last chunk is short and not a multiple of 8.
	head -c 9437189 /dev/urandom >"$tmp/in"
	run_pair 0 "-c 1048576 -q 3 -o $tmp/copy" "$FC_HOST -f $tmp/in"
	cmp "$tmp/in" "$tmp/copy" || fail "the copy differs from the file"
	;;
rogue-silent)
	run_pair 1 "" "$FC_ROGUE silent"
	grep -q 'the host left without sending a request' "$tmp/err" || fail "the DPU side did not say the host left"
	grep -q 'dpu.0 .* exited with status 1' "$tmp/err" || fail "the DPU side did not exit 1"
	;;
rogue-*)
	mode=${case_name#rogue-}
	dpu_args=""
	[ "$mode" = huge ] && dpu_args="-m 1"
	run_pair 1 "$dpu_args" "$FC_ROGUE $mode"
	grep -q 'refused the request' "$tmp/out" "$tmp/err" || fail "the DPU side printed no refusal"
	grep -q 'dpu.0 .* exited with status 3' "$tmp/err" || fail "the DPU side did not exit 3"
	! grep -q 'ACCEPTED' "$tmp/out" || fail "the DPU side accepted a bad request"
	;;
revoke)
	# One chunk in flight, 1 MiB each: uses 1 and 2 copy, the 3rd finds the export revoked.
	run_pair "1 3" "-c 1048576 -q 1" "$FC_HOST -n 8" --fault 'mmap.export:after=2:action=revoke'
	grep -Eq '^dpu\.0\| .*revoked at its use 3 by FERRY_FAULT \(mmap\.export:after=2:action=revoke\)' "$tmp/err" ||
		fail "the DPU side did not log the revocation"
	grep -Eq '^dpu\.0\| .*cannot submit the DMA of bytes 2097152\.\.3145728' "$tmp/err" ||
		fail "the third chunk did not fail"
	grep -Eq '^host\.0\| the DPU side refused or failed the copy' "$tmp/err" || fail "the host was not told"
	;;
no-server)
	# The DPU side runs no server; the host must give up on its own and say why.
	FERRY_COMCH_CONNECT_TIMEOUT_MS=500 "$FERRY" run --timeout 30 --color never --delay 0 --dpu "sleep 10" \
		--host "$FC_HOST -n 1" >"$tmp/out" 2>"$tmp/err"
	got=$?
	[ "$got" -eq 3 ] || fail "ferry run exited $got, want 3 (the host side failed)"
	grep -q 'no Comch server .* answered' "$tmp/err" || fail "the host did not say that no server answered"
	;;
script)
	"$FERRY_SH" demo --help >"$tmp/out" 2>"$tmp/err" || fail "demo --help did not exit 0"
	grep -q '^usage: scripts/ferry.sh demo ' "$tmp/out" || fail "demo --help printed no usage"
	"$FERRY_SH" demo --no-such-option >"$tmp/out" 2>"$tmp/err"
	got=$?
	[ "$got" -eq 2 ] || fail "demo with a bad option exited $got, want 2"
	grep -q "unknown option '--no-such-option'" "$tmp/err" || fail "the bad option is not named"
	"$FERRY_SH" demo -n >"$tmp/out" 2>"$tmp/err"
	got=$?
	[ "$got" -eq 2 ] || fail "demo -n without a value exited $got, want 2"
	;;
*)
	echo "unknown case $case_name"
	exit 2
	;;
esac
echo "ok: $case_name"
