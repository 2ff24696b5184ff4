#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# rdma-netns-samples.sh <ferry build dir> - NVIDIA's doca_rdma sample pairs,
# and doca_dma's dma_copy pair (its DPU side copies the host's memory through
# the link's network access path), between two network namespaces, as
# between two machines: the namespaces are
# joined by a veth pair with addresses of 198.18.0.0/15 (the block set aside
# for network tests), UCX runs over TCP only, each side's device is bound to
# its end of the link (FERRY_RDMA_NET), and scripts/doca-samples.sh runs every
# pair in descriptor-file mode and with --use-rdma-cm (the second side dials
# the first's address). Then the veth's byte counters must have grown both
# ways: the samples' traffic crossed the link. Needs root and
# FERRY_DOCA_SAMPLES (a checkout of github.com/NVIDIA-DOCA/doca-samples). The
# namespaces are removed on every exit. Exits non-zero when a pair failed.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
say() { printf '[rdma-netns] %s\n' "$*" >&2; }
[ "$(id -u)" -eq 0 ] || {
	say "needs root (ip netns add)"
	exit 1
}
# shellcheck source=scripts/netns-pair.sh
. "$(dirname "$0")/netns-pair.sh"
netns_pair_up ferry-smp frs
rx0=$(ip netns exec "$nsa" cat "/sys/class/net/$va/statistics/rx_bytes")
tx0=$(ip netns exec "$nsa" cat "/sys/class/net/$va/statistics/tx_bytes")
rc=0
# No applications: theirs is a Comch pair, which joins two processes of one machine.
FERRY_SAMPLES_ONLY=${FERRY_SAMPLES_ONLY:-doca_dma doca_rdma} FERRY_SAMPLES_APPS="" FERRY_SAMPLES_NETNS="$nsa $nsb" \
	FERRY_SAMPLES_NET="$va 198.18.0.2" FERRY_SAMPLES_CM_ADDR=198.18.0.1 UCX_TLS=tcp,self \
	"$here/doca-samples.sh" "$build" || rc=$?
rx=$(($(ip netns exec "$nsa" cat "/sys/class/net/$va/statistics/rx_bytes") - rx0))
tx=$(($(ip netns exec "$nsa" cat "/sys/class/net/$va/statistics/tx_bytes") - tx0))
say "the first sides' $va received $rx bytes and sent $tx over the veth link"
# Each of the 12 runs moves a string of 16 bytes or more one way or the other (10 x 16 at least).
if [ "$rx" -lt 160 ] || [ "$tx" -lt 160 ]; then
	say "no traffic crossed the link"
	rc=1
fi
exit "$rc"
