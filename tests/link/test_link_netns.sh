#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# test_link_netns.sh NETNS_PAIR_SH LINK_HOST LINK_DPU - the host and DPU sides
# of DOCA DMA as on two machines: link_host (the exporter) in one network
# namespace, link_dpu (the importer, DMA both ways) in another, joined by a
# veth pair with addresses of 198.18.0.0/15 (scripts/netns-pair.sh; no other
# address is used). Each side's devices are bound to its end of the link
# (FERRY_RDMA_NET: the host by address, the DPU by interface name), so the
# export offers the network access path and the import takes it.
#   1. 16 MiB read and written back, checked by checksum on both sides; the
#      veth's byte counters must have grown by the payload both ways;
#   2. without network identities the export offers no network path and the
#      import from the other namespace fails with one line (no hang);
#   3. faults: the link taken down, then the exporter killed, while the DPU
#      side holds the import: its next copy fails within
#      FERRY_LINK_NET_TIMEOUT_MS (plus a margin), nothing hangs;
#   4. the same two in the middle of a copy: the link is slowed to 100 Mbit/s
#      (tc tbf) so that a 32 MiB read takes seconds, and the exporter is
#      killed, or the link taken down, half a second into it.
# Needs root and iproute2: without them the test fails (it never skips).
set -euo pipefail
pair_sh=${1:?usage: test_link_netns.sh NETNS_PAIR_SH LINK_HOST LINK_DPU}
host_exe=${2:?}
dpu_exe=${3:?}
say() { echo "link_netns: $*"; }
die() {
	echo "link_netns: FAIL: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "needs root to create network namespaces (ip netns add)"
command -v ip >/dev/null || die "needs iproute2's ip"
command -v tc >/dev/null || die "needs iproute2's tc"

# shellcheck source=../../scripts/netns-pair.sh
. "$pair_sh"
dir=$(mktemp -d /tmp/ferry-link-netns.XXXXXX)
hpid=
cleanup() {
	[ -z "$hpid" ] || kill -9 "$hpid" 2>/dev/null || true
	[ -z "$hpid" ] || wait "$hpid" 2>/dev/null || true
	exec 7>&- 2>/dev/null || true
	netns_pair_down
	rm -rf "$dir"
}
netns_pair_up ferry-link frl
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
say "namespaces $nsa ($va 198.18.0.1) and $nsb ($vb 198.18.0.2)"

export FERRY_DOMAIN=link-netns-$$ FERRY_LINK_NET_TIMEOUT_MS=2000 UCX_MEM_EVENTS=no
unset FERRY_LINK_NET UCX_TLS UCX_NET_DEVICES

bytes_of() { # bytes_of rx|tx: the counter of the host's end of the link
	ip netns exec "$nsa" cat "/sys/class/net/$va/statistics/${1}_bytes"
}

# host_start BYTES NET: link_host in namespace A (NET: its FERRY_RDMA_NET, or empty); sets hex addr len sum.
host_start() {
	rm -f "$dir/in" "$dir/out"
	mkfifo "$dir/in"
	FERRY_RDMA_NET=$2 ip netns exec "$nsa" "$host_exe" "$1" malloc rw 77 <"$dir/in" >"$dir/out" 2>"$dir/host.err" &
	hpid=$!
	exec 7>"$dir/in"
	for _ in $(seq 1 100); do
		[ -s "$dir/out" ] && break
		sleep 0.05
	done
	read -r hex addr len sum <"$dir/out" || die "link_host printed no descriptor: $(cat "$dir/host.err")"
}

host_stop() {
	echo exit >&7
	exec 7>&-
	wait "$hpid" || die "link_host failed: $(cat "$dir/host.err")"
	hpid=
}

# dpu NET CMD...: link_dpu in namespace B, its output in $dir/dpu.out.
dpu() {
	local net=$1
	shift
	FERRY_RDMA_NET=$net timeout 60 ip netns exec "$nsb" "$dpu_exe" "$hex" "$addr" "$len" "$@" \
		>"$dir/dpu.out" 2>"$dir/dpu.err" || die "link_dpu $* failed: $(cat "$dir/dpu.err")"
}

expect_out() { # expect_out N PREFIX: line N of the DPU's output starts with PREFIX
	local line
	line=$(sed -n "${1}p" "$dir/dpu.out")
	case "$line" in
	"$2"*) ;;
	*) die "line $1 of link_dpu: '$line', expected '$2...' (stderr: $(cat "$dir/dpu.err"))" ;;
	esac
}

# 1. Both ways across the link.
payload=16777216
host_start $payload 198.18.0.1
rx0=$(bytes_of rx)
tx0=$(bytes_of tx)
dpu "$vb" import read "$sum" write 9
expect_out 1 "import DOCA_SUCCESS"
expect_out 2 "read OK"
expect_out 3 "write OK "
wrote=$(sed -n 3p "$dir/dpu.out" | awk '{print $3}')
echo sum >&7
sleep 0.2
got=$(tail -n 1 "$dir/out")
[ "$got" = "$wrote" ] || die "the host's buffer sums to $got; the DPU side wrote $wrote"
rx=$(($(bytes_of rx) - rx0))
tx=$(($(bytes_of tx) - tx0))
say "16 MiB each way: the host's veth received $rx bytes and sent $tx"
[ "$rx" -ge $payload ] && [ "$tx" -ge $payload ] || die "the copies did not cross the veth link"
host_stop

# 2. No network identity: nothing offered, the import fails at once with a line.
host_start 65536 ""
dpu "" import
expect_out 1 "import DOCA_ERROR_NOT_FOUND"
grep -q "memory agent" "$dir/dpu.err" || die "no line says why: $(cat "$dir/dpu.err")"
host_stop
say "without network identities the import is refused with one line"

# dpu_start CMD...: link_dpu in namespace B in the background, its stdin a fifo
# (fd 8); returns once it printed "waiting".
dpu_start() {
	rm -f "$dir/din"
	mkfifo "$dir/din"
	FERRY_RDMA_NET=$vb ip netns exec "$nsb" "$dpu_exe" "$hex" "$addr" "$len" "$@" \
		<"$dir/din" >"$dir/dpu.out" 2>"$dir/dpu.err" &
	dpid=$!
	exec 8>"$dir/din"
	for _ in $(seq 1 200); do
		grep -q waiting "$dir/dpu.out" 2>/dev/null && break
		sleep 0.05
	done
}

# dpu_go_fails LINE WHAT: let link_dpu go on; its line LINE must be a failed
# read, within 12 s (FERRY_LINK_NET_TIMEOUT_MS is 2000).
dpu_go_fails() {
	local t0 ms
	t0=$(date +%s%N)
	echo go >&8
	exec 8>&-
	wait "$dpid" || die "link_dpu failed ($2): $(cat "$dir/dpu.err")"
	ms=$((($(date +%s%N) - t0) / 1000000))
	expect_out "$1" "read DOCA_ERROR_"
	say "$2: the read failed after $ms ms ($(sed -n "${1}p" "$dir/dpu.out"))"
	[ "$ms" -lt 12000 ] || die "the read took $ms ms to fail"
}

# 3a. The link goes down while the DPU side holds the import.
host_start 4194304 198.18.0.1
dpu_start import wait read "$sum"
expect_out 1 "import DOCA_SUCCESS"
ip -n "$nsb" link set "$vb" down
dpu_go_fails 3 "link down"
ip -n "$nsb" link set "$vb" up
host_stop

# 3b. The exporter is killed while the DPU side holds the import.
host_start 4194304 198.18.0.1
dpu_start import read "$sum" wait read "$sum"
expect_out 2 "read OK"
kill -9 "$hpid"
wait "$hpid" 2>/dev/null || true
hpid=
exec 7>&-
dpu_go_fails 4 "exporter killed"

# 4. Mid-transfer: FAULT is "kill" (the exporter) or "down" (the link).
mid_transfer() {
	local fault=$1 t0 ms
	host_start 33554432 198.18.0.1
	ip netns exec "$nsa" tc qdisc add dev "$va" root tbf rate 100mbit burst 64kbit latency 2s
	FERRY_RDMA_NET=$vb ip netns exec "$nsb" "$dpu_exe" "$hex" "$addr" "$len" import read "$sum" \
		>"$dir/dpu.out" 2>"$dir/dpu.err" &
	dpid=$!
	for _ in $(seq 1 200); do
		grep -q "import" "$dir/dpu.out" 2>/dev/null && break
		sleep 0.05
	done
	grep -q "import DOCA_SUCCESS" "$dir/dpu.out" || die "the import did not succeed in time: $(cat "$dir/dpu.err")"
	sleep 0.5
	grep -q "^read" "$dir/dpu.out" && die "the 32 MiB read ended within 0.5 s: the link is not slowed"
	t0=$(date +%s%N)
	if [ "$fault" = kill ]; then
		kill -9 "$hpid"
		wait "$hpid" 2>/dev/null || true
		hpid=
		exec 7>&-
	else
		ip -n "$nsb" link set "$vb" down
	fi
	wait "$dpid" || die "link_dpu failed ($fault mid-transfer): $(cat "$dir/dpu.err")"
	ms=$((($(date +%s%N) - t0) / 1000000))
	expect_out 2 "read DOCA_ERROR_"
	say "$fault in the middle of a 32 MiB read: it failed after $ms ms ($(sed -n 2p "$dir/dpu.out"))"
	[ "$ms" -lt 12000 ] || die "the read took $ms ms to fail"
	ip netns exec "$nsa" tc qdisc del dev "$va" root
	if [ "$fault" = down ]; then
		ip -n "$nsb" link set "$vb" up
		host_stop
	fi
}
mid_transfer kill
mid_transfer down
say "OK"
