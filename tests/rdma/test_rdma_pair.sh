#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# test_rdma_pair.sh RDMA_PAIR - rdma_pair's server and two clients, each its own
# process on this machine (UCX_TLS from the suite): descriptor files, then the
# connection manager on 127.0.0.1 (the devices' default network identity). Every
# process must say ok; the server checks both regions and the exact sum of the
# clients' concurrent atomics. Nothing may hang: each run is bounded by timeout(1).
set -euo pipefail
pair=${1:?usage: test_rdma_pair.sh RDMA_PAIR}
dir=$(mktemp -d /tmp/ferry-rdma-pair.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$dir"
}
trap cleanup EXIT

# run_set MODE ARGS...: a server and two clients; fails unless all three exit 0.
run_set() {
	local mode=$1 sargs=() cargs=()
	rm -rf "${dir:?}"/* && mkdir -p "$dir"
	if [ "$mode" = cm ]; then
		# Below the kernel's ephemeral range (32768 and up): no outgoing
		# connection of this machine can hold it when the server binds.
		local port=$((20000 + RANDOM % 12000))
		sargs=(--cm "$port")
		cargs=(--cm 127.0.0.1 "$port")
	fi
	pids=()
	timeout 90 "$pair" serve "$dir" 2 "${sargs[@]}" --bytes 524288 --adds 2000 & pids+=($!)
	timeout 90 "$pair" request "$dir" 0 "${cargs[@]}" --bytes 524288 --adds 2000 & pids+=($!)
	timeout 90 "$pair" request "$dir" 1 "${cargs[@]}" --bytes 524288 --adds 2000 & pids+=($!)
	local rc=0
	for p in "${pids[@]}"; do wait "$p" || rc=$?; done
	pids=()
	if [ "$rc" -ne 0 ]; then
		echo "test_rdma_pair: $mode mode failed (exit $rc)" >&2
		exit 1
	fi
	echo "test_rdma_pair: $mode mode ok"
}

run_set files
run_set cm
