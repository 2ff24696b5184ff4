#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# doca-samples.sh <ferry build dir> - build NVIDIA's DOCA samples against an
# installed Ferry, with each sample's own meson file, and run the ones that run
# on Ferry's default topology. Called by `scripts/ferry.sh samples`.
#
# FERRY_DOCA_SAMPLES     a checkout of github.com/NVIDIA-DOCA/doca-samples (required;
#                        read only: everything is copied to a temporary directory)
# FERRY_SAMPLES_TIMEOUT  seconds each run may take (default 60)
# FERRY_SAMPLES_LOG      where the failures' last lines go
#                        (default <build dir>/doca-samples.log)
# FERRY_SAMPLES_ONLY     the sample folders to build and run (default
#                        "doca_common doca_dma doca_comch doca_rdma")
# FERRY_SAMPLES_APPS     NVIDIA's applications to build (from applications/, with its
#                        meson.build.public and -Denable_<app>=true, as on a
#                        BlueField) and run after the samples (default "dma_copy
#                        secure_channel"; "" for none)
# FERRY_SAMPLES_NETNS    "<ns1> <ns2>": run each RDMA pair's first side (and
#                        dma_copy's host side) in network namespace ns1 and its
#                        second side (dma_copy's DPU side) in ns2 (as on two
#                        machines; scripts/rdma-netns-samples.sh sets this up), with
# FERRY_SAMPLES_NET      "<identity1> <identity2>": each side's FERRY_RDMA_NET, and
# FERRY_SAMPLES_CM_ADDR  the first side's address, which the second side dials in
#                        connection-manager mode (default 127.0.0.1)
#
# Only the libraries Ferry offers: every directory under samples/doca_common,
# samples/doca_dma, samples/doca_comch and samples/doca_rdma that has a
# meson.build.public. The RDMA pairs run over UCX_TLS=sm,self (unless the
# caller's environment names transports), exchanging their descriptor files as
# NVIDIA's README says, with Enter fed to each side in turn, then again with
# --use-rdma-cm (the second side dials the first; results "<first>+cm"), and
# the multi-connection pair with 2 connections both ways. A
# sample that runs on the DPU side is built as on a BlueField: its DOCA modules
# add -DDOCA_ARCH_DPU. Ends with "samples: B built of N, R ran OK of M"; exits
# non-zero when a sample failed to build or to run.
set -eu

build=${1:-build}
src=${FERRY_DOCA_SAMPLES:-}
if [ -z "$src" ] || [ ! -d "$src/samples" ] || [ ! -f "$src/VERSION" ]; then
	echo "doca-samples: set FERRY_DOCA_SAMPLES to a checkout of github.com/NVIDIA-DOCA/doca-samples" >&2
	echo "  (a directory with samples/, applications/common and VERSION)" >&2
	exit 2
fi
src=$(cd "$src" && pwd)
build=$(cd "$build" && pwd)
timeout_s=${FERRY_SAMPLES_TIMEOUT:-60}
libs=${FERRY_SAMPLES_ONLY:-doca_common doca_dma doca_comch doca_rdma}
# Each RDMA side's command prefix: its network namespace and network identity.
side1=(env)
side2=(env)
rdma_tls=${UCX_TLS:-sm,self}
cm_tls=${UCX_TLS:-sm,tcp,self}
cm_addr=${FERRY_SAMPLES_CM_ADDR:-127.0.0.1}
if [ -n "${FERRY_SAMPLES_NETNS:-}" ]; then
	read -r ns1 ns2 <<<"$FERRY_SAMPLES_NETNS"
	read -r net1 net2 <<<"${FERRY_SAMPLES_NET:-}"
	side1=(ip netns exec "$ns1" env "FERRY_RDMA_NET=${net1:-}")
	side2=(ip netns exec "$ns2" env "FERRY_RDMA_NET=${net2:-}")
	rdma_tls=${UCX_TLS:-tcp,self}
	cm_tls=$rdma_tls
fi
logfile=${FERRY_SAMPLES_LOG:-$build/doca-samples.log}
: >"$logfile"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ferry-samples.XXXXXX")
pids=()
fifo_open=0

cleanup() {
	local p
	[ "$fifo_open" -eq 1 ] && exec 3>&-
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	# A child of an interrupted step (meson, ninja, a sample) may still be
	# writing for a moment: try again until the directory is gone.
	for p in 1 2 3 4 5 6 7 8 9 10; do
		rm -rf "$tmp" 2>/dev/null && [ ! -e "$tmp" ] && break
		sleep 1
	done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

say() { printf '[samples] %s\n' "$*" >&2; }

# Ferry, installed under a temporary root; its pkg-config files rewritten to point there.
say "installing Ferry from $build into $tmp/root"
meson install -C "$build" --destdir "$tmp/root" --quiet >"$tmp/install.log" 2>&1 || {
	tail -n 20 "$tmp/install.log" >&2
	say "meson install failed"
	exit 1
}
# DOCA 3's modules; the older generations' flavours under <libdir>/ferry/ have a doca-common.pc too.
pc=$(find "$tmp/root" -path '*/ferry/doca-*' -prune -o -name doca-common.pc -print -quit)
[ -n "$pc" ] || {
	say "no doca-common.pc in the install"
	exit 1
}
mkdir -p "$tmp/pc-host" "$tmp/pc-dpu"
for f in "$(dirname "$pc")"/doca-*.pc; do
	case "$f" in *-dpu.pc) continue ;; esac
	sed "s|^prefix=|prefix=$tmp/root|" "$f" >"$tmp/pc-host/$(basename "$f")"
	# The DPU side's modules: what DOCA's pkg-config files say on a BlueField.
	sed '/^Cflags:/ s/$/ -DDOCA_ARCH_DPU/' "$tmp/pc-host/$(basename "$f")" >"$tmp/pc-dpu/$(basename "$f")"
done
libdir=$(PKG_CONFIG_PATH=$tmp/pc-host pkg-config --variable=libdir doca-common)

# What the samples' meson files reference: samples/, applications/common, VERSION.
mkdir -p "$tmp/src/applications"
cp -r "$src/samples" "$tmp/src/samples"
cp -r "$src/applications/common" "$tmp/src/applications/common"
apps=${FERRY_SAMPLES_APPS-dma_copy secure_channel}
cp "$src/VERSION" "$tmp/src/VERSION"

# The flavour a sample is built in: host, dpu, or both (its two processes).
flavours() {
	case "$1" in
	dma_local_copy | dma_copy_dpu) echo dpu ;;
	sync_event_local_pci | sync_event_remote_pci) echo "host dpu" ;;
	comch_*_server) echo dpu ;;
	*) echo host ;;
	esac
}

declare -A built ran result
names=()
nbuilt=0
for lib in $libs; do
	for d in "$tmp/src/samples/$lib"/*/; do
		d=${d%/}
		[ -f "$d/meson.build.public" ] || continue
		name=$(basename "$d")
		names+=("$name")
		cp "$d/meson.build.public" "$d/meson.build"
		built[$name]=yes
		for fl in $(flavours "$name"); do
			if ! (cd "$d" && PKG_CONFIG_PATH=$tmp/pc-$fl meson setup "ferry-$fl" >"$tmp/build-$name-$fl.log" 2>&1 &&
				ninja -C "ferry-$fl" >>"$tmp/build-$name-$fl.log" 2>&1); then
				built[$name]=no
				result[$name]="build failed ($fl)"
				{
					echo "=== $lib/$name: build failed ($fl flavour)"
					tail -n 30 "$tmp/build-$name-$fl.log"
				} >>"$logfile"
			fi
		done
		[ "${built[$name]}" = yes ] && nbuilt=$((nbuilt + 1))
		say "built $lib/$name: ${built[$name]}"
	done
done
# What the compiler said about the samples built against Ferry's headers.
nwarn=$(cat "$tmp"/build-*.log 2>/dev/null | grep -c 'warning:' || true)
{
	echo "=== compiler warnings: $nwarn"
	cat "$tmp"/build-*.log 2>/dev/null | grep 'warning:' | sed 's|.*/samples/||' | sort | uniq -c
} >>"$logfile"

sdir() { # the sample's directory
	find "$tmp/src/samples" -mindepth 2 -maxdepth 2 -type d -name "$1" -print -quit
}
exe() { # exe <name> <flavour>
	echo "$(sdir "$1")/ferry-$2/doca_$1"
}

# ok <name> <output file> <exit status>: exit 0, and "Sample finished
# successfully" when the sample prints that line.
ok() {
	[ "$3" -eq 0 ] || return 1
	local main
	main=$(sdir "$1")/$1_main.c
	if [ -f "$main" ] && grep -q 'Sample finished successfully' "$main"; then
		grep -q 'Sample finished successfully' "$2" || return 1
	fi
	return 0
}

record() { # record <name> <OK|reason> <output file>
	ran[$1]=yes
	result[$1]=$2
	if [ "$2" != OK ]; then
		{
			echo "=== $1: $2"
			tail -n 30 "$3"
		} >>"$logfile"
	fi
}

can_run() { # every named sample built
	local n
	for n in "$@"; do
		[ "${built[$n]:-no}" = yes ] || return 1
	done
}

status_of() { # status_of <exit status>
	if [ "$1" -eq 124 ]; then echo "timed out (${timeout_s}s)"; else echo "exit $1"; fi
}

# run_alone <name> <flavour> [args...]
run_alone() {
	local name=$1 fl=$2 rc=0 out
	shift 2
	can_run "$name" || return 0
	out=$tmp/run-$name.log
	say "running $name $*"
	FERRY_DOMAIN=samples-$$-$name LD_LIBRARY_PATH=$libdir \
		timeout "$timeout_s" "$(exe "$name" "$fl")" "$@" </dev/null >"$out" 2>&1 || rc=$?
	if ok "$name" "$out" "$rc"; then record "$name" OK "$out"; else record "$name" "$(status_of "$rc")" "$out"; fi
}

# run_pair <dpu name> <host name> <dpu args> <host args>: the DPU side (the
# server) first, then the host side; both must succeed. Args are word-split.
run_pair() {
	local dn=$1 hn=$2 dargs=$3 hargs=$4 drc=0 hrc=0 dpid dout hout res
	can_run "$dn" "$hn" || return 0
	dout=$tmp/run-$dn-dpu.log
	hout=$tmp/run-$hn-host.log
	say "running $dn $dargs / $hn $hargs"
	# shellcheck disable=SC2086 # the args are words
	FERRY_DOMAIN=samples-$$-$dn LD_LIBRARY_PATH=$libdir \
		timeout "$timeout_s" "$(exe "$dn" dpu)" $dargs </dev/null >"$dout" 2>&1 &
	dpid=$!
	pids+=("$dpid")
	sleep 1
	# shellcheck disable=SC2086
	FERRY_DOMAIN=samples-$$-$dn LD_LIBRARY_PATH=$libdir \
		timeout "$timeout_s" "$(exe "$hn" host)" $hargs </dev/null >"$hout" 2>&1 || hrc=$?
	wait "$dpid" || drc=$?
	res=""
	ok "$dn" "$dout" "$drc" || res="DPU side $(status_of "$drc")"
	ok "$hn" "$hout" "$hrc" || res="${res:+$res; }host side $(status_of "$hrc")"
	cat "$dout" "$hout" >"$tmp/run-$dn-pair.log"
	record "$dn" "${res:-OK}" "$tmp/run-$dn-pair.log"
	[ "$dn" = "$hn" ] || record "$hn" "${res:-OK}" "$tmp/run-$dn-pair.log"
}

# dma_copy: the host exports its buffer into two files and waits for enter; the
# DPU side reads the files and copies; then the host is told to finish. Between
# namespaces (FERRY_SAMPLES_NETNS) the copy takes the link's network access path.
run_dma_copy() {
	local hrc=0 drc=0 hpid dout hout res desc=$tmp/export_desc.txt info=$tmp/buffer_info.txt
	can_run dma_copy_host dma_copy_dpu || return 0
	dout=$tmp/run-dma_copy_dpu.log
	hout=$tmp/run-dma_copy_host.log
	say "running dma_copy_host / dma_copy_dpu"
	mkfifo "$tmp/enter"
	FERRY_DOMAIN=samples-$$-dma_copy LD_LIBRARY_PATH=$libdir \
		"${side1[@]}" timeout "$timeout_s" "$(exe dma_copy_host host)" -p b1:00.0 -d "$desc" -b "$info" <"$tmp/enter" >"$hout" 2>&1 &
	hpid=$!
	pids+=("$hpid")
	exec 3>"$tmp/enter"
	fifo_open=1
	for _ in $(seq 1 $((timeout_s * 10))); do
		[ -s "$desc" ] && [ -s "$info" ] && break
		kill -0 "$hpid" 2>/dev/null || break
		sleep 0.1
	done
	sleep 0.2 # both files written and closed
	FERRY_DOMAIN=samples-$$-dma_copy LD_LIBRARY_PATH=$libdir \
		"${side2[@]}" timeout "$timeout_s" "$(exe dma_copy_dpu dpu)" -p 03:00.0 -d "$desc" -b "$info" </dev/null >"$dout" 2>&1 || drc=$?
	echo >&3 || true
	exec 3>&-
	fifo_open=0
	wait "$hpid" || hrc=$?
	res=""
	ok dma_copy_dpu "$dout" "$drc" || res="DPU side $(status_of "$drc")"
	ok dma_copy_host "$hout" "$hrc" || res="${res:+$res; }host side $(status_of "$hrc")"
	cat "$hout" "$dout" >"$tmp/run-dma_copy-pair.log"
	record dma_copy_host "${res:-OK}" "$tmp/run-dma_copy-pair.log"
	record dma_copy_dpu "${res:-OK}" "$tmp/run-dma_copy-pair.log"
}

for n in "${names[@]}"; do
	case "$n" in
	pe_* | graph | cache_invalidate) run_alone "$n" host ;;
	esac
done
run_alone clock_cross_timestamp host -p 03:00.0 -c host_mon -n nic_rt
run_alone dma_local_copy dpu
run_dma_copy
# The two sync event samples are one pair: local_pci creates the event and
# exports it to the other side (the host exports to the DPU), remote_pci
# creates it from the export; the DPU side is the Comch server.
run_pair sync_event_remote_pci sync_event_local_pci "-d 03:00.0 -r b1:00.0" "-d b1:00.0"
run_pair comch_ctrl_path_server comch_ctrl_path_client "-p 03:00.0 -r b1:00.0" "-p b1:00.0"
run_pair comch_data_path_high_speed_server comch_data_path_high_speed_client "-p 03:00.0 -r b1:00.0" "-p b1:00.0"

# run_rdma_pair <first> <second> <first args> <second args>: NVIDIA's RDMA
# pairs in descriptor-file mode. Both sides write their connection file (the
# first side also its mmap file, when it has one) and wait for Enter; the
# files are copied to the other side's paths, as between two machines (each
# side deletes its own three paths at exit); the first side then connects, the
# second connects, does its work and exits, and the first side gets one more
# Enter if it still waits (the responders print what was written or read).
# Both must succeed.
run_rdma_pair() {
	local fn=$1 sn=$2 fargs=$3 sargs=$4 frc=0 src_rc=0 fpid spid fout sout res d
	can_run "$fn" "$sn" || return 0
	d=$tmp/rdma-$fn
	mkdir -p "$d"
	mkfifo "$d/enter1" "$d/enter2"
	fout=$tmp/run-$fn.log
	sout=$tmp/run-$sn.log
	say "running $fn $fargs / $sn $sargs"
	# shellcheck disable=SC2086 # the args are words
	UCX_TLS=$rdma_tls FERRY_DOMAIN=samples-$$-$fn LD_LIBRARY_PATH=$libdir \
		"${side1[@]}" timeout "$timeout_s" "$(exe "$fn" host)" -d mlx5_0 -ld "$d/first.conn" -re "$d/first.peer" \
		-m "$d/first.mmap" $fargs <"$d/enter1" >"$fout" 2>&1 &
	fpid=$!
	pids+=("$fpid")
	# shellcheck disable=SC2086
	UCX_TLS=$rdma_tls FERRY_DOMAIN=samples-$$-$fn LD_LIBRARY_PATH=$libdir \
		"${side2[@]}" timeout "$timeout_s" "$(exe "$sn" host)" -d mlx5_0 -ld "$d/second.conn" -re "$d/second.peer" \
		-m "$d/second.mmap" $sargs <"$d/enter2" >"$sout" 2>&1 &
	spid=$!
	pids+=("$spid")
	exec 4>"$d/enter1" 5>"$d/enter2"
	for _ in $(seq 1 $((timeout_s * 10))); do
		[ -s "$d/first.conn" ] && [ -s "$d/second.conn" ] && break
		if ! kill -0 "$fpid" 2>/dev/null || ! kill -0 "$spid" 2>/dev/null; then break; fi
		sleep 0.1
	done
	sleep 0.3 # the files are written and closed
	cp "$d/second.conn" "$d/first.peer" 2>/dev/null || true
	cp "$d/first.conn" "$d/second.peer" 2>/dev/null || true
	if [ -s "$d/first.mmap" ]; then cp "$d/first.mmap" "$d/second.mmap"; fi
	echo >&4 || true
	sleep 0.5 # the first side connects (and posts its receive)
	echo >&5 || true
	wait "$spid" || src_rc=$?
	sleep 0.2
	if kill -0 "$fpid" 2>/dev/null; then echo >&4 || true; fi
	wait "$fpid" || frc=$?
	exec 4>&- 5>&-
	res=""
	ok "$fn" "$fout" "$frc" || res="first side $(status_of "$frc")"
	ok "$sn" "$sout" "$src_rc" || res="${res:+$res; }second side $(status_of "$src_rc")"
	cat "$fout" "$sout" >"$tmp/run-$fn-pair.log"
	record "$fn" "${res:-OK}" "$tmp/run-$fn-pair.log"
	record "$sn" "${res:-OK}" "$tmp/run-$fn-pair.log"
}
# run_rdma_pair_cm <first> <second> <first args> <second args> <port>: the same
# pair with --use-rdma-cm: the first side listens, the second dials it once it
# had a second to start; both get an Enter every half second until they leave
# (an early Enter only makes a side send before its peer posted its receive,
# which Ferry holds for the receive). Recorded as "<first>+cm".
run_rdma_pair_cm() {
	local fn=$1 sn=$2 fargs=$3 sargs=$4 port=$5 frc=0 src_rc=0 fpid spid fout sout res d
	can_run "$fn" "$sn" || return 0
	names+=("$fn+cm")
	built[$fn+cm]=yes
	nbuilt=$((nbuilt + 1))
	d=$tmp/rdmacm-$fn
	mkdir -p "$d"
	mkfifo "$d/enter1" "$d/enter2"
	fout=$tmp/run-$fn-cm.log
	sout=$tmp/run-$sn-cm.log
	say "running $fn -cm $fargs / $sn -cm -sa $cm_addr $sargs"
	# shellcheck disable=SC2086 # the args are words
	(cd "$d" && UCX_TLS=$cm_tls FERRY_DOMAIN=samples-$$-$fn-cm LD_LIBRARY_PATH=$libdir \
		"${side1[@]}" timeout "$timeout_s" "$(exe "$fn" host)" -d mlx5_0 -cm -lp "$port" \
		-ld "$d/first.conn" -re "$d/first.peer" -m "$d/first.mmap" $fargs <"$d/enter1" >"$fout" 2>&1) &
	fpid=$!
	pids+=("$fpid")
	exec 4>"$d/enter1"
	sleep 1 # listening
	# shellcheck disable=SC2086
	(cd "$d" && UCX_TLS=$cm_tls FERRY_DOMAIN=samples-$$-$fn-cm LD_LIBRARY_PATH=$libdir \
		"${side2[@]}" timeout "$timeout_s" "$(exe "$sn" host)" -d mlx5_0 -cm -sa "$cm_addr" -lp "$port" \
		-ld "$d/second.conn" -re "$d/second.peer" -m "$d/second.mmap" $sargs <"$d/enter2" >"$sout" 2>&1) &
	spid=$!
	pids+=("$spid")
	exec 5>"$d/enter2"
	for _ in $(seq 1 $((timeout_s * 2))); do
		sleep 0.5
		kill -0 "$fpid" 2>/dev/null && { echo >&4 || true; }
		kill -0 "$spid" 2>/dev/null && { echo >&5 || true; }
		if ! kill -0 "$fpid" 2>/dev/null && ! kill -0 "$spid" 2>/dev/null; then break; fi
	done
	wait "$spid" || src_rc=$?
	wait "$fpid" || frc=$?
	exec 4>&- 5>&-
	res=""
	ok "$fn" "$fout" "$frc" || res="first side $(status_of "$frc")"
	ok "$sn" "$sout" "$src_rc" || res="${res:+$res; }second side $(status_of "$src_rc")"
	cat "$fout" "$sout" >"$tmp/run-$fn-cm-pair.log"
	record "$fn+cm" "${res:-OK}" "$tmp/run-$fn-cm-pair.log"
}

# run_rdma_multi <n>: rdma_multi_conn_receive / rdma_multi_conn_send with n
# connections in descriptor-file mode: for each connection i both sides write
# <path>-000i; the files are copied across, the receiver gets its Enter (it
# connects connection i), then the sender; after the last, the sender is told
# (Enter) that the receives are posted and sends one message per connection.
run_rdma_multi() {
	local n=$1 fn=rdma_multi_conn_receive sn=rdma_multi_conn_send frc=0 src_rc=0 fpid spid fout sout res d i f
	can_run "$fn" "$sn" || return 0
	d=$tmp/rdma-multi
	mkdir -p "$d"
	mkfifo "$d/enter1" "$d/enter2"
	fout=$tmp/run-$fn.log
	sout=$tmp/run-$sn.log
	say "running $fn -nc $n / $sn -nc $n"
	UCX_TLS=$rdma_tls FERRY_DOMAIN=samples-$$-multi LD_LIBRARY_PATH=$libdir \
		"${side1[@]}" timeout "$timeout_s" "$(exe "$fn" host)" -d mlx5_0 -nc "$n" -ld "$d/first.conn" \
		-re "$d/first.peer" <"$d/enter1" >"$fout" 2>&1 &
	fpid=$!
	pids+=("$fpid")
	UCX_TLS=$rdma_tls FERRY_DOMAIN=samples-$$-multi LD_LIBRARY_PATH=$libdir \
		"${side2[@]}" timeout "$timeout_s" "$(exe "$sn" host)" -d mlx5_0 -nc "$n" -ld "$d/second.conn" \
		-re "$d/second.peer" -s Hello_from_Ferry <"$d/enter2" >"$sout" 2>&1 &
	spid=$!
	pids+=("$spid")
	exec 4>"$d/enter1" 5>"$d/enter2"
	for i in $(seq 0 $((n - 1))); do
		f=$(printf -- '-%04u' "$i")
		for _ in $(seq 1 $((timeout_s * 10))); do
			[ -s "$d/first.conn$f" ] && [ -s "$d/second.conn$f" ] && break
			if ! kill -0 "$fpid" 2>/dev/null || ! kill -0 "$spid" 2>/dev/null; then break; fi
			sleep 0.1
		done
		sleep 0.3
		cp "$d/second.conn$f" "$d/first.peer$f" 2>/dev/null || true
		cp "$d/first.conn$f" "$d/second.peer$f" 2>/dev/null || true
		echo >&4 || true
		sleep 0.3
		echo >&5 || true
	done
	sleep 1 # the receiver posts its receives
	echo >&5 || true
	wait "$spid" || src_rc=$?
	wait "$fpid" || frc=$?
	exec 4>&- 5>&-
	res=""
	ok "$fn" "$fout" "$frc" || res="receiver $(status_of "$frc")"
	ok "$sn" "$sout" "$src_rc" || res="${res:+$res; }sender $(status_of "$src_rc")"
	cat "$fout" "$sout" >"$tmp/run-multi-pair.log"
	record "$fn" "${res:-OK}" "$tmp/run-multi-pair.log"
	record "$sn" "${res:-OK}" "$tmp/run-multi-pair.log"
}

# run_rdma_multi_cm <n> <port>: the same with --use-rdma-cm: the receiver
# listens for n connections, n senders (one connection each) dial it; all get an
# Enter every half second until they leave. Recorded as "rdma_multi_conn_receive+cm".
run_rdma_multi_cm() {
	local n=$1 port=$2 fn=rdma_multi_conn_receive sn=rdma_multi_conn_send rc=0 res="" d i p
	local spids=()
	can_run "$fn" "$sn" || return 0
	names+=("$fn+cm")
	built[$fn+cm]=yes
	nbuilt=$((nbuilt + 1))
	d=$tmp/rdmacm-multi
	mkdir -p "$d"
	say "running $fn -cm -nc $n / $n x $sn -cm -sa $cm_addr"
	mkfifo "$d/enter-r"
	(cd "$d" && UCX_TLS=$cm_tls FERRY_DOMAIN=samples-$$-multi-cm LD_LIBRARY_PATH=$libdir \
		"${side1[@]}" timeout "$timeout_s" "$(exe "$fn" host)" -d mlx5_0 -cm -nc "$n" -lp "$port" \
		-ld "$d/r.conn" -re "$d/r.peer" <"$d/enter-r" >"$tmp/run-$fn-cm.log" 2>&1) &
	local fpid=$!
	pids+=("$fpid")
	exec 4>"$d/enter-r"
	sleep 1 # listening
	for i in $(seq 1 "$n"); do
		mkfifo "$d/enter-$i"
		(cd "$d" && UCX_TLS=$cm_tls FERRY_DOMAIN=samples-$$-multi-cm LD_LIBRARY_PATH=$libdir \
			"${side2[@]}" timeout "$timeout_s" "$(exe "$sn" host)" -d mlx5_0 -cm -sa "$cm_addr" \
			-lp "$port" -ld "$d/s$i.conn" -re "$d/s$i.peer" -s "Hello_from_Ferry_$i" \
			<"$d/enter-$i" >"$tmp/run-$sn-cm-$i.log" 2>&1) &
		spids+=($!)
		pids+=($!)
		eval "exec $((5 + i))>\"\$d/enter-\$i\""
		sleep 0.3
	done
	for _ in $(seq 1 $((timeout_s * 2))); do
		sleep 0.5
		local alive=0
		kill -0 "$fpid" 2>/dev/null && { echo >&4 || true; alive=1; }
		for i in $(seq 1 "$n"); do
			if kill -0 "${spids[$((i - 1))]}" 2>/dev/null; then
				echo >&$((5 + i)) || true
				alive=1
			fi
		done
		[ "$alive" -eq 1 ] || break
	done
	for i in $(seq 1 "$n"); do
		p=0
		wait "${spids[$((i - 1))]}" || p=$?
		ok "$sn" "$tmp/run-$sn-cm-$i.log" "$p" || res="${res:+$res; }sender $i $(status_of "$p")"
		eval "exec $((5 + i))>&-"
	done
	wait "$fpid" || rc=$?
	exec 4>&-
	ok "$fn" "$tmp/run-$fn-cm.log" "$rc" || res="${res:+$res; }receiver $(status_of "$rc")"
	cat "$tmp/run-$fn-cm.log" "$tmp"/run-"$sn"-cm-*.log >"$tmp/run-multi-cm.log"
	record "$fn+cm" "${res:-OK}" "$tmp/run-multi-cm.log"
}

trap '' PIPE # an Enter for a side that already left must not end the script
run_rdma_pair rdma_receive rdma_send "" "-s Hello_from_Ferry"
run_rdma_pair rdma_receive_immediate rdma_send_immediate "" "-s Hello_from_Ferry"
run_rdma_pair rdma_write_responder rdma_write_requester "" "-w Written_by_Ferry"
run_rdma_pair rdma_write_immediate_responder rdma_write_immediate_requester "" "-w Written_by_Ferry"
run_rdma_pair rdma_read_responder rdma_read_requester "-r Read_from_Ferry" ""
run_rdma_pair rdma_sync_event_responder rdma_sync_event_requester "" ""
cm_port=$((20000 + $$ % 20000))
run_rdma_pair_cm rdma_receive rdma_send "" "-s Hello_from_Ferry" "$cm_port"
run_rdma_pair_cm rdma_receive_immediate rdma_send_immediate "" "-s Hello_from_Ferry" $((cm_port + 1))
run_rdma_pair_cm rdma_write_responder rdma_write_requester "" "-w Written_by_Ferry" $((cm_port + 2))
run_rdma_pair_cm rdma_write_immediate_responder rdma_write_immediate_requester "" "-w Written_by_Ferry" \
	$((cm_port + 3))
run_rdma_pair_cm rdma_read_responder rdma_read_requester "-r Read_from_Ferry" "" $((cm_port + 4))
run_rdma_pair_cm rdma_sync_event_responder rdma_sync_event_requester "" "" $((cm_port + 6))
run_rdma_multi 2
run_rdma_multi_cm 2 $((cm_port + 5))

# ---- NVIDIA's applications ----
#
# Built as on a BlueField: the applications tree's public meson file with only
# the chosen ones enabled, once per flavour. Each is recorded as "app:<name>".

adir() { echo "$tmp/src/applications/ferry-$1"; } # adir <flavour>
aexe() { echo "$(adir "$2")/$1/doca_$1"; }         # aexe <app> <flavour>

build_apps() {
	local a fl opts=() ok_all
	[ -n "$apps" ] && [ -f "$src/applications/meson.build.public" ] || return 0
	for a in $apps; do
		[ -f "$src/applications/$a/meson.build.public" ] || continue
		cp -r "$src/applications/$a" "$tmp/src/applications/$a"
		cp "$tmp/src/applications/$a/meson.build.public" "$tmp/src/applications/$a/meson.build"
		opts+=("-Denable_$a=true")
	done
	cp "$src/applications/meson.build.public" "$tmp/src/applications/meson.build"
	cp "$src/applications/meson_options.txt" "$tmp/src/applications/"
	for fl in host dpu; do
		ok_all=yes
		(cd "$tmp/src/applications" && PKG_CONFIG_PATH=$tmp/pc-$fl meson setup "ferry-$fl" \
			-Denable_all_applications=false "${opts[@]}" >"$tmp/build-apps-$fl.log" 2>&1 &&
			ninja -C "ferry-$fl" >>"$tmp/build-apps-$fl.log" 2>&1) || ok_all=no
		[ "$ok_all" = yes ] || {
			echo "=== applications: build failed ($fl flavour)"
			tail -n 30 "$tmp/build-apps-$fl.log"
		} >>"$logfile"
	done
	for a in $apps; do
		names+=("app:$a")
		if [ -x "$(aexe "$a" host)" ] && [ -x "$(aexe "$a" dpu)" ]; then
			built[app:$a]=yes
			nbuilt=$((nbuilt + 1))
		else
			built[app:$a]=no
			result[app:$a]="build failed"
		fi
		say "built application $a: ${built[app:$a]}"
	done
}

# app_pair <app> <tag> <dpu args> <host args> <check...>: the DPU side (the
# Comch server) first, then the host side; both must exit 0 and the command
# <check...> must succeed. Args are word-split.
app_pair() {
	local a=$1 tag=$2 dargs=$3 hargs=$4 drc=0 hrc=0 dpid res="" out=$tmp/run-app-$1-$2
	shift 4
	[ "${built[app:$a]:-no}" = yes ] || return 0
	say "running application $a ($tag): $dargs / $hargs"
	# shellcheck disable=SC2086 # the args are words
	FERRY_DOMAIN=samples-$$-app-$a LD_LIBRARY_PATH=$libdir \
		timeout "$timeout_s" "$(aexe "$a" dpu)" $dargs </dev/null >"$out-dpu.log" 2>&1 &
	dpid=$!
	pids+=("$dpid")
	sleep 1
	# shellcheck disable=SC2086
	FERRY_DOMAIN=samples-$$-app-$a LD_LIBRARY_PATH=$libdir \
		timeout "$timeout_s" "$(aexe "$a" host)" $hargs </dev/null >"$out-host.log" 2>&1 || hrc=$?
	wait "$dpid" || drc=$?
	[ "$drc" -eq 0 ] || res="DPU side $(status_of "$drc")"
	[ "$hrc" -eq 0 ] || res="${res:+$res; }host side $(status_of "$hrc")"
	[ -n "$res" ] || "$@" "$out" || res="${res:+$res; }wrong result ($*)"
	cat "$out-dpu.log" "$out-host.log" >"$out.log"
	# One record per application: the first failure stays.
	if [ "${result[app:$a]:-OK}" = OK ]; then record "app:$a" "${res:-OK}" "$out.log"; fi
}

# Both sides say their consumer received every message the peer's producer sent.
received_all() { # received_all <n> <log prefix>
	grep -q "Consumer received $1 messages" "$2-dpu.log" && grep -q "Consumer received $1 messages" "$2-host.log"
}
same_file() { cmp -s "$1" "$2"; } # same_file <a> <b> <log prefix>

run_apps() {
	local f=$tmp/app-files
	mkdir -p "$f"
	# secure_channel: producers and consumers on threads of their own, both ways at once.
	app_pair secure_channel 1000x256 "-s 256 -n 1000 -p 03:00.0 -r b1:00.0" "-s 256 -n 1000 -p b1:00.0" \
		received_all 1000
	app_pair secure_channel 50x65535 "-s 65535 -n 50 -p 03:00.0 -r b1:00.0" "-s 65535 -n 50 -p b1:00.0" \
		received_all 50
	# dma_copy: the side that has the file sends it; 3 MiB plus a tail, each way.
	head -c 3145827 /dev/urandom >"$f/host.bin"
	head -c 2097169 /dev/urandom >"$f/dpu.bin"
	app_pair dma_copy to-dpu "-p 03:00.0 -r b1:00.0 -f $f/on-dpu.bin" "-p b1:00.0 -f $f/host.bin" \
		same_file "$f/host.bin" "$f/on-dpu.bin"
	app_pair dma_copy to-host "-p 03:00.0 -r b1:00.0 -f $f/dpu.bin" "-p b1:00.0 -f $f/on-host.bin" \
		same_file "$f/dpu.bin" "$f/on-host.bin"
}

build_apps
run_apps

nran=0
nok=0
printf '%-36s %-6s %-4s %s\n' sample built ran result
for n in "${names[@]}"; do
	[ "${ran[$n]:-no}" = yes ] && nran=$((nran + 1))
	[ "${result[$n]:-}" = OK ] && nok=$((nok + 1))
	printf '%-36s %-6s %-4s %s\n' "$n" "${built[$n]}" "${ran[$n]:-no}" "${result[$n]:-not run}"
done
[ -s "$logfile" ] && say "failures' last lines: $logfile"
echo "samples: $nwarn compiler warnings (listed in $logfile)"
echo "samples: $nbuilt built of ${#names[@]}, $nok ran OK of $nran"
[ "$nbuilt" -eq "${#names[@]}" ] && [ "$nok" -eq "$nran" ]
