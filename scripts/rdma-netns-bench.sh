#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# rdma-netns-bench.sh <ferry build dir> [seconds] - bench/rdma_bench between two
# network namespaces over UCX's TCP, as between two machines: the requester in
# one namespace, the responder in the other, joined by a veth pair with
# addresses of 198.18.0.0/15; ucx_perftest (ucp_am_lat, ucp_put_bw, ucp_get)
# runs the same way in the same run. Needs root. The namespaces are removed on
# every exit.
set -euo pipefail
build=${1:-build}
seconds=${2:-1}
[ "$(id -u)" -eq 0 ] || {
	echo "rdma-netns-bench: needs root (ip netns add)" >&2
	exit 1
}
tag=$$
nsa=ferry-bench-a-$tag
nsb=ferry-bench-b-$tag
va=frba$tag
vb=frbb$tag
cleanup() {
	ip netns del "$nsa" 2>/dev/null || true
	ip netns del "$nsb" 2>/dev/null || true
	ip link del "$va" 2>/dev/null || true
}
trap cleanup EXIT
ip netns add "$nsa"
ip netns add "$nsb"
ip link add "$va" type veth peer name "$vb"
ip link set "$va" netns "$nsa"
ip link set "$vb" netns "$nsb"
ip -n "$nsa" addr add 198.18.0.1/24 dev "$va"
ip -n "$nsb" addr add 198.18.0.2/24 dev "$vb"
for ns in "$nsa" "$nsb"; do ip -n "$ns" link set lo up; done
ip -n "$nsa" link set "$va" up
ip -n "$nsb" link set "$vb" up
UCX_TLS=tcp,self FERRY_BENCH_NETNS="$nsa $nsb" FERRY_BENCH_NET="$va $vb" FERRY_BENCH_PEER_ADDR=198.18.0.2 \
	UCX_NET_DEVICES="$va,$vb" "$build/bench/rdma_bench" "$seconds"
