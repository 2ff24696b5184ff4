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
# shellcheck source=scripts/netns-pair.sh
. "$(dirname "$0")/netns-pair.sh"
netns_pair_up ferry-bench frb
UCX_TLS=tcp,self FERRY_BENCH_NETNS="$nsa $nsb" FERRY_BENCH_NET="$va $vb" FERRY_BENCH_PEER_ADDR=198.18.0.2 \
	UCX_NET_DEVICES="$va,$vb" "$build/bench/rdma_bench" "$seconds"
