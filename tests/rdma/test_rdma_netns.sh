#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# test_rdma_netns.sh RDMA_PAIR - DOCA RDMA between two network namespaces, as
# between two machines: two namespaces joined by a veth pair with addresses of
# 198.18.0.0/15 (the block set aside for network tests; no other address is
# used), UCX over TCP only (UCX_TLS=tcp,self), each side's device bound to its
# end of the link (FERRY_RDMA_NET: one side by interface name, the other by
# address). rdma_pair's server runs in one namespace, two clients in the other:
#   1. descriptor-file mode, 2. the connection manager (the clients dial the
#   server's address); after each, the veth's byte counters must have grown by
#   at least the payload both ways (the traffic crossed the link, not lo);
#   3. the faults, while a client streams writes: the server process is killed,
#   then (in a new pair) the link goes down; then the link goes down while a
#   client streams sends to a server that keeps receives posted (which must
#   still stop cleanly afterwards). Every outstanding task must end with an
#   error within FERRY_RDMA_TIMEOUT_MS (plus a margin), and nothing hangs.
# Needs root and iproute2: without them the test fails (it never skips). The
# namespaces are removed on every exit (trap).
set -euo pipefail
pair=${1:?usage: test_rdma_netns.sh RDMA_PAIR}
say() { echo "rdma_netns: $*"; }
die() {
	echo "rdma_netns: FAIL: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "needs root to create network namespaces (ip netns add)"
command -v ip >/dev/null || die "needs iproute2's ip"

tag=$$
nsa=ferry-rdma-a-$tag
nsb=ferry-rdma-b-$tag
va=frva$tag
vb=frvb$tag
addr_a=198.18.0.1
addr_b=198.18.0.2
dir=$(mktemp -d /tmp/ferry-rdma-netns.XXXXXX)
logs=$(mktemp -d /tmp/ferry-rdma-netns-logs.XXXXXX)
pids=()

cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	ip netns del "$nsa" 2>/dev/null || true
	ip netns del "$nsb" 2>/dev/null || true
	ip link del "$va" 2>/dev/null || true
	rm -rf "$dir" "$logs"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ip netns add "$nsa" || die "ip netns add $nsa"
ip netns add "$nsb" || die "ip netns add $nsb"
ip link add "$va" type veth peer name "$vb" || die "ip link add veth"
ip link set "$va" netns "$nsa"
ip link set "$vb" netns "$nsb"
ip -n "$nsa" addr add "$addr_a/24" dev "$va"
ip -n "$nsb" addr add "$addr_b/24" dev "$vb"
ip -n "$nsa" link set lo up
ip -n "$nsb" link set lo up
ip -n "$nsa" link set "$va" up
ip -n "$nsb" link set "$vb" up
say "namespaces $nsa ($va $addr_a) and $nsb ($vb $addr_b)"

export UCX_TLS=tcp,self UCX_MEM_EVENTS=no
unset UCX_NET_DEVICES FERRY_RDMA_LISTEN_ADDR

bytes_of() { # bytes_of rx|tx: the counter of the server's end of the link
	ip netns exec "$nsa" cat "/sys/class/net/$va/statistics/${1}_bytes"
}

payload=1000000
clients=2

# run_set MODE: the server in A, two clients in B; all must exit 0, the link must carry the payload.
run_set() {
	local mode=$1 sargs=() cargs=() rx0 tx0 rx tx rc=0 p
	rm -rf "${dir:?}"/*
	if [ "$mode" = cm ]; then
		sargs=(--cm 13579)
		cargs=(--cm "$addr_a" 13579)
	fi
	rx0=$(bytes_of rx)
	tx0=$(bytes_of tx)
	pids=()
	FERRY_RDMA_NET=$va timeout 120 ip netns exec "$nsa" "$pair" serve "$dir" "$clients" "${sargs[@]}" \
		--bytes "$payload" --adds 1000 &
	pids+=($!)
	for c in $(seq 0 $((clients - 1))); do
		FERRY_RDMA_NET=$addr_b timeout 120 ip netns exec "$nsb" "$pair" request "$dir" "$c" "${cargs[@]}" \
			--bytes "$payload" --adds 1000 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || rc=$?; done
	pids=()
	[ "$rc" -eq 0 ] || die "$mode mode: a side failed (exit $rc)"
	rx=$(($(bytes_of rx) - rx0))
	tx=$(($(bytes_of tx) - tx0))
	say "$mode mode: the server's $va received $rx bytes and sent $tx (payload: $clients x $payload each way)"
	[ "$rx" -ge $((clients * payload)) ] || die "$mode mode: only $rx bytes came in over $va"
	[ "$tx" -ge $((clients * payload)) ] || die "$mode mode: only $tx bytes went out over $va"
}

run_set files
run_set cm

# The faults: a client streams writes into the server's memory, then the server
# is killed (fault=kill) or the link goes down (fault=link). Every outstanding task
# must end with an error; for the link within the timeout (plus a margin).
timeout_ms=3000
fault() {
	local kind=$1 spid rpid rc=0 t0 t1 elapsed sargs=() cargs=(--stream)
	rm -rf "${dir:?}"/*
	pids=()
	if [ "$kind" = link-sends ]; then
		sargs=(--sink)
		cargs=(--stream-sends)
	fi
	FERRY_RDMA_NET=$va FERRY_RDMA_TIMEOUT_MS=$timeout_ms timeout 60 ip netns exec "$nsa" "$pair" serve "$dir" 1 \
		--bytes "$payload" "${sargs[@]}" >"$logs/serve.log" 2>&1 &
	spid=$!
	pids+=("$spid")
	FERRY_RDMA_NET=$addr_b FERRY_RDMA_TIMEOUT_MS=$timeout_ms timeout 60 ip netns exec "$nsb" "$pair" request \
		"$dir" 0 --bytes "$payload" "${cargs[@]}" >"$logs/stream.log" 2>&1 &
	rpid=$!
	pids+=("$rpid")
	for _ in $(seq 1 300); do
		grep -q '^streaming' "$logs/stream.log" 2>/dev/null && break
		kill -0 "$rpid" 2>/dev/null || break
		sleep 0.1
	done
	grep -q '^streaming' "$logs/stream.log" || {
		cat "$logs/stream.log" >&2
		die "$kind: the client never streamed"
	}
	t0=$(date +%s%N)
	if [ "$kind" != kill ]; then
		ip -n "$nsb" link set "$vb" down
	else
		# The server itself, not ip or timeout: its pid is the child of timeout's ip netns exec (exec'd).
		pkill -KILL -P "$spid" || kill -KILL "$spid"
	fi
	wait "$rpid" || rc=$?
	t1=$(date +%s%N)
	elapsed=$(((t1 - t0) / 1000000))
	cat "$logs/stream.log"
	[ "$rc" -eq 0 ] ||
		die "$kind: the client exited $rc (1: a task ended with an unexpected status; 2: tasks still outstanding; 124: it hung)"
	grep -q 'first failure DOCA_ERROR_CONNECTION_RESET' "$logs/stream.log" || die "$kind: not CONNECTION_RESET"
	say "$kind: every outstanding task ended with an error $elapsed ms after the fault (timeout $timeout_ms ms)"
	[ "$elapsed" -le $((timeout_ms + 2000)) ] || die "$kind: $elapsed ms is beyond the timeout of $timeout_ms ms"
	if [ "$kind" = link-sends ]; then
		# The sink leaves when told, and its context stops although its peer is unreachable.
		rc=0
		touch "$dir/req-done-0"
		wait "$spid" || rc=$?
		cat "$logs/serve.log"
		[ "$rc" -eq 0 ] || die "$kind: the server did not stop cleanly (exit $rc)"
	fi
	kill "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
	pids=()
	ip -n "$nsb" link set "$vb" up
}
fault kill
fault link
fault link-sends
say "ok"
