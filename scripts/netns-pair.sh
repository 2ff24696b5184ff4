# SPDX-License-Identifier: BSD-3-Clause
#
# netns-pair.sh - sourced by the scripts that run Ferry's two sides as on two
# machines. netns_pair_up NS_PREFIX VETH_PREFIX makes two network namespaces
# ($nsa, $nsb) joined by a veth pair ($va in $nsa with 198.18.0.1/24, $vb in
# $nsb with 198.18.0.2/24: the block set aside for network tests), loopback up
# in both, and removes them all on the caller's exit (an EXIT trap). Needs root.

netns_pair_down() {
	ip netns del "$nsa" 2>/dev/null || true
	ip netns del "$nsb" 2>/dev/null || true
	ip link del "$va" 2>/dev/null || true
}

netns_pair_up() {
	nsa=$1-a-$$
	nsb=$1-b-$$
	va=${2}a$$
	vb=${2}b$$
	trap netns_pair_down EXIT
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
}
