#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_ferry.sh CASE - the `ferry` command (tools/ferry/), one behaviour per case:
#   args     bad command lines answer 2 with one line; every --help answers 0
#   pair     a real Comch server (DPU side) and clients (host side) under ferry run
#   fail     a failing side stops the others; the exit status and stderr name it
#   timeout  --timeout answers 124 and leaves no process behind
#   prefix   every line prefixed, none lost, colour only when asked or on a tty
#   caps     ferry caps as text and as JSON (parsed by python3)
#   devices  ferry-devices still lists the machine
#   bench_args   ferry bench: bad sweeps and options answer 2 in one line before
#                anything runs; a missing gnuplot or bench program, or one that
#                fails, answers 1 and says which; SIGTERM keeps what was measured
#   bench_dma    a real sweep of dma: the table, JSON lines (parsed), the bar
#   bench_peers  fast (against ucx_perftest), comch, export and rdma: each kind
#                gives Ferry's rows and its peer's
#   bench_plot   the plots: a PNG (signature, IHDR, image data) and an SVG (XML
#                with a plotted line per series and both series' titles)
# Environment: FERRY (the command), COMCH_PEER (tests/comch/comch_peer),
# FERRY_DEVICES, TOPO_DIR (tests/core/topologies). ferry bench finds the bench
# programs in the build tree beside FERRY (../bench).
set -u

case_name=${1:?usage: test_ferry.sh CASE}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# expect_rc WANT DESCRIPTION -- command...: run it, keep stdout/stderr in $tmp/out, $tmp/err.
expect_rc() {
	want=$1
	what=$2
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		fail "$what: exit $got, want $want"
		sed 's/^/    out: /' "$tmp/out" | head -20
		sed 's/^/    err: /' "$tmp/err" | head -20
		return 1
	fi
	return 0
}

has() { # has FILE REGEX DESCRIPTION
	grep -Eq -- "$2" "$1" || {
		fail "$3: no line matching '$2' in $(basename "$1")"
		sed 's/^/    | /' "$1" | head -20
	}
}

lacks() { # lacks FILE REGEX DESCRIPTION
	if grep -Eq -- "$2" "$1"; then
		fail "$3: a line matches '$2' in $(basename "$1")"
	fi
}

one_line() { # one_line FILE DESCRIPTION
	n=$(wc -l <"$1")
	[ "$n" -eq 1 ] || fail "$2: $n lines on stderr, want 1"
}

case $case_name in
args)
	expect_rc 2 "no command" -- "$FERRY" && one_line "$tmp/err" "no command"
	expect_rc 2 "unknown command" -- "$FERRY" frobnicate && one_line "$tmp/err" "unknown command"
	expect_rc 2 "unknown top option" -- "$FERRY" --frobnicate && has "$tmp/err" "unknown option '--frobnicate'" "top"
	for sub in run caps bench; do
		expect_rc 2 "$sub --bogus" -- "$FERRY" $sub --bogus && {
			one_line "$tmp/err" "$sub --bogus"
			has "$tmp/err" "^ferry $sub: unknown option '--bogus' \(see 'ferry $sub --help'\)$" "$sub --bogus"
		}
		expect_rc 2 "$sub -Z" -- "$FERRY" $sub -Z && has "$tmp/err" "unknown option '-Z'" "$sub -Z"
		expect_rc 0 "$sub --help" -- "$FERRY" $sub --help && {
			for section in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" EXAMPLES; do
				has "$tmp/out" "^$section\$" "$sub --help"
			done
			[ -s "$tmp/err" ] && fail "$sub --help wrote to stderr"
		}
		expect_rc 0 "help $sub" -- "$FERRY" help $sub && has "$tmp/out" "^    ferry $sub - " "help $sub"
	done
	expect_rc 0 "--help" -- "$FERRY" --help && {
		has "$tmp/out" "^EXIT STATUS$" "--help"
		has "$tmp/out" "^    run " "--help lists run"
		has "$tmp/out" "^    caps " "--help lists caps"
		has "$tmp/out" "^    bench " "--help lists bench"
	}
	expect_rc 0 "--version" -- "$FERRY" --version && has "$tmp/out" "^ferry [0-9]+\.[0-9]+\.[0-9]+ \(DOCA API " "--version"
	expect_rc 2 "run nothing" -- "$FERRY" run && one_line "$tmp/err" "run nothing"
	expect_rc 2 "run --dpu without value" -- "$FERRY" run --dpu && has "$tmp/err" "option '--dpu' needs a value" "--dpu"
	expect_rc 2 "run -t bad" -- "$FERRY" run -t abc --host true && has "$tmp/err" "--timeout takes seconds" "-t abc"
	expect_rc 2 "run -t 0" -- "$FERRY" run -t 0 --host true
	expect_rc 2 "run -t negative" -- "$FERRY" run --timeout=-1 --host true
	expect_rc 2 "run --delay bad" -- "$FERRY" run --delay 1x --host true
	expect_rc 2 "run --ready bad regex" -- "$FERRY" run --ready '(' --dpu true && one_line "$tmp/err" "--ready bad"
	expect_rc 2 "run --ready and --delay" -- "$FERRY" run --ready x --delay 1 --dpu true
	expect_rc 2 "run --color bad" -- "$FERRY" run --color=sometimes --host true
	expect_rc 2 "run --domain bad" -- "$FERRY" run --domain 'a/b' --host true
	expect_rc 2 "run stray word" -- "$FERRY" run --host true false && has "$tmp/err" "unexpected argument 'false'" "stray"
	expect_rc 2 "run empty command" -- "$FERRY" run --host ''
	expect_rc 2 "caps --json=1" -- "$FERRY" caps --json=1 && has "$tmp/err" "option '--json' takes no value" "--json=1"
	expect_rc 2 "caps stray word" -- "$FERRY" caps devices
	expect_rc 2 "caps bad address" -- "$FERRY" caps --pci-addr zz:zz
	;;
pair)
	# Default readiness: the host side starts once the server listens (no sleep, no regex).
	expect_rc 0 "comch pair" -- "$FERRY" run --timeout 20 --color=never \
		--dpu "$COMCH_PEER server ferry_run --expect 1" --host "$COMCH_PEER client ferry_run --count 20" && {
		has "$tmp/out" "^dpu\.0\| listening$" "pair"
		has "$tmp/out" "^host\.0\| running$" "pair"
		has "$tmp/out" "^dpu\.0\| disconnect$" "pair"
		# The host side started after the server listened.
		l=$(grep -n '^dpu\.0| listening$' "$tmp/out" | cut -d: -f1)
		h=$(grep -n '^host\.0| running$' "$tmp/out" | cut -d: -f1)
		if [ -z "$l" ] || [ -z "$h" ] || [ "$l" -ge "$h" ]; then
			fail "pair: host ran before the server listened"
		fi
	}
	# --ready, two clients, two DPU-side processes (the second only prints and waits).
	expect_rc 0 "comch pair --ready" -- "$FERRY" run -t 20 --color=never -r '^(listening|up)$' \
		-d "$COMCH_PEER server ferry_run2 --expect 2" -d 'sleep 0.2; echo up' \
		-H "$COMCH_PEER client ferry_run2 --count 5" -H "$COMCH_PEER client ferry_run2 --count 5 --size 100" && {
		has "$tmp/out" "^dpu\.1\| up$" "--ready"
		has "$tmp/out" "^host\.0\| running$" "--ready"
		has "$tmp/out" "^host\.1\| running$" "--ready"
		u=$(grep -n '^dpu\.1| up$' "$tmp/out" | cut -d: -f1)
		grep -n '^host' "$tmp/out" | cut -d: -f1 | while read -r h; do
			[ "$h" -gt "$u" ] || echo bad
		done | grep -q bad && fail "--ready: a host line came before every DPU process was ready"
	}
	# Every process sees one fresh domain, and its side.
	expect_rc 0 "domain" -- "$FERRY" run --color=never -D 0 -d 'echo "$FERRY_DOMAIN $FERRY_SIDE"' \
		-H 'echo "$FERRY_DOMAIN $FERRY_SIDE"' && {
		d=$(sed -n 's/^dpu\.0| \(ferry-run-[0-9]*-[0-9a-f]*\) dpu$/\1/p' "$tmp/out")
		[ -n "$d" ] || fail "domain: dpu.0 did not get a ferry-run-<pid>-<hex> domain"
		has "$tmp/out" "^host\.0\| $d host$" "domain: host.0 in the same domain"
	}
	"$FERRY" run --color=never -D 0 -H 'echo "$FERRY_DOMAIN"' >"$tmp/again" 2>&1
	[ -n "${d:-}" ] && grep -q "$d" "$tmp/again" && fail "domain: two runs got the same domain"
	# The default readiness really watches the domain for a listening server: the host side
	# starts after the server listens (the socket is there) and well before the 2 s fallback.
	# The runtime directory is ours (XDG_RUNTIME_DIR), so the host can look, and so can we.
	mkdir -m 700 "$tmp/xdg"
	t0=$(date +%s%N)
	expect_rc 0 "readiness by socket" -- env XDG_RUNTIME_DIR="$tmp/xdg" "$FERRY" run -t 20 --color=never \
		--dpu "sleep 0.3; exec $COMCH_PEER server soon --expect 1" \
		--host "date +%s%N > $tmp/host_t; ls \"\$XDG_RUNTIME_DIR/ferry/\$FERRY_DOMAIN\" | grep -q '^comch\\.' && echo saw-server; exec $COMCH_PEER client soon --count 3" && {
		has "$tmp/out" "^host\.0\| saw-server$" "readiness by socket: the host started before the server listened"
		ms=$((($(cat "$tmp/host_t") - t0) / 1000000))
		[ "$ms" -lt 1800 ] || fail "readiness by socket: the host started after $ms ms (the fallback, not the socket)"
	}
	# With no Comch server at all, the host side starts after the 2 s fallback.
	expect_rc 0 "readiness fallback" -- env XDG_RUNTIME_DIR="$tmp/xdg" "$FERRY" run -t 20 --until-hosts \
		--dpu 'exec sleep 30' --host 'echo host-ran'
	has "$tmp/out" "host-ran" "readiness fallback"
	# Each run's domain directory is gone afterwards.
	for d in "$tmp"/xdg/ferry/ferry-run-*; do
		[ -e "$d" ] && fail "domain directory left behind: $d"
	done
	;;
fault)
	# --fault reaches the child: the DMA demo's 5th copy fails with the plan's status.
	expect_rc 3 "fault applied" -- env -u FERRY_FAULT "$FERRY" run --color=never \
		--fault 'dma.memcpy:every=5:status=DOCA_ERROR_IO_FAILED' -H "$DMA_DEMO -n 20 -s 4096 -q 1" && {
		has "$tmp/err" "^host\.0\| .*memcpy task failed: Input/output operation failed" "fault applied"
		has "$tmp/err" "^host\.0\| .*1 copies failed, 5 of 20 done" "fault applied: the 5th copy (the demo counts it done)"
	}
	# Without --fault, the caller's FERRY_FAULT passes through (here: a rule for another context).
	expect_rc 0 "fault passed through" -- env FERRY_FAULT='comch.send:status=DOCA_ERROR_AGAIN' \
		"$FERRY" run --color=never -H "$DMA_DEMO -n 20 -s 4096 -q 1 && echo \"\$FERRY_FAULT\""
	has "$tmp/out" "^host\.0\| comch\.send:status=DOCA_ERROR_AGAIN$" "fault passed through"
	# A plan that does not parse is a usage error, in one line, and nothing runs.
	expect_rc 2 "bad plan" -- "$FERRY" run --fault 'dma:every=0:status=DOCA_ERROR_IO_FAILED' -H 'echo ran' && {
		one_line "$tmp/err" "bad plan"
		has "$tmp/err" "^ferry run: --fault: rule 1 .*every must be at least 1" "bad plan"
		lacks "$tmp/out" "ran" "bad plan"
	}
	;;
fail)
	expect_rc 1 "DPU side fails" -- "$FERRY" run --grace 0.5 --dpu 'sleep 0.1; exit 3' --host 'sleep 30' && {
		has "$tmp/err" "dpu\.0 \(sleep 0\.1; exit 3\) exited with status 3" "dpu fails"
		one_line "$tmp/err" "dpu fails"
	}
	expect_rc 3 "host side fails" -- "$FERRY" run --grace 0.5 -D 0 --dpu 'sleep 30' --host 'exit 0' \
		--host 'sleep 0.1; exit 5' && has "$tmp/err" "host\.1 .* exited with status 5" "host fails"
	expect_rc 3 "host killed by a signal" -- "$FERRY" run -D 0 --dpu 'sleep 30' --host 'kill -9 $$' &&
		has "$tmp/err" "host\.0 .* was killed by signal 9" "signal"
	expect_rc 3 "command not found" -- "$FERRY" run --host './no-such-program-here' &&
		has "$tmp/err" "host\.0 .* exited with status 127" "not found"
	# A DPU side that fails before it is ready: the host side never starts.
	expect_rc 1 "DPU fails before ready" -- "$FERRY" run -r never-printed --dpu 'exit 9' --host 'echo started'
	lacks "$tmp/out" "started" "DPU fails before ready: the host side ran"
	# --until-hosts: a DPU server that never ends is stopped once the hosts are done, and that is success.
	expect_rc 0 "--until-hosts" -- "$FERRY" run --until-hosts --color=never -D 0 -d 'echo serving; exec sleep 30' \
		-H 'sleep 0.1; echo done' && {
		has "$tmp/out" "^host\.0\| done$" "--until-hosts"
		has "$tmp/err" "stopping the DPU side" "--until-hosts"
	}
	expect_rc 3 "--until-hosts, a host fails" -- "$FERRY" run --until-hosts -D 0 -d 'exec sleep 30' -H 'exit 4'
	expect_rc 2 "--until-hosts without hosts" -- "$FERRY" run --until-hosts -d true
	# A process that ignores SIGTERM is killed after the grace period.
	start=$(date +%s)
	expect_rc 1 "SIGTERM ignored" -- "$FERRY" run --grace 0.3 -D 0 --dpu 'sleep 0.2; exit 1' \
		--host 'trap "" TERM; sleep 30'
	[ $(($(date +%s) - start)) -lt 10 ] || fail "SIGTERM ignored: the run took too long"
	;;
timeout)
	start=$(date +%s)
	expect_rc 124 "timeout" -- "$FERRY" run --timeout 0.5 --grace 0.3 -D 0 \
		--dpu "echo \$\$ > $tmp/dpu.pid; exec sleep 60" \
		--host "sleep 61 & echo \$! > $tmp/bg.pid; setsid sleep 62 & echo \$! > $tmp/setsid.pid; trap '' TERM; wait" &&
		has "$tmp/err" "time limit of 0\.5 s reached" "timeout"
	[ $(($(date +%s) - start)) -lt 10 ] || fail "timeout: the run took too long"
	for f in dpu bg setsid; do
		if [ ! -s "$tmp/$f.pid" ]; then
			fail "timeout: no pid recorded for $f"
			continue
		fi
		pid=$(cat "$tmp/$f.pid")
		if kill -0 "$pid" 2>/dev/null; then
			fail "timeout: $f process $pid survived the run ($(cat "/proc/$pid/stat" 2>/dev/null))"
			kill -9 "$pid" 2>/dev/null
		fi
	done
	# A run within its time limit exits 0.
	expect_rc 0 "within the limit" -- "$FERRY" run --timeout 10 --dpu true --host true
	# SIGTERM to ferry itself: everything stops, 128+15.
	"$FERRY" run -D 0 --dpu 'sleep 60' --host "echo \$\$ > $tmp/h.pid; exec sleep 60" >/dev/null 2>&1 &
	fp=$!
	i=0
	while [ ! -s "$tmp/h.pid" ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	kill -TERM $fp
	wait $fp
	rc=$?
	[ $rc -eq 143 ] || fail "SIGTERM to ferry: exit $rc, want 143"
	[ -s "$tmp/h.pid" ] && kill -0 "$(cat "$tmp/h.pid")" 2>/dev/null && fail "SIGTERM to ferry: host.0 survived"
	;;
prefix)
	expect_rc 0 "prefix" -- "$FERRY" run --color=never -D 0 --dpu 'echo a; echo b >&2; printf "no newline"' \
		--host 'printf "x\ny\n"; echo "err line" >&2' && {
		has "$tmp/out" "^dpu\.0\| a$" "prefix"
		has "$tmp/out" "^dpu\.0\| no newline$" "prefix: the last partial line"
		has "$tmp/out" "^host\.0\| x$" "prefix"
		has "$tmp/out" "^host\.0\| y$" "prefix"
		has "$tmp/err" "^dpu\.0\| b$" "prefix: stderr to stderr"
		has "$tmp/err" "^host\.0\| err line$" "prefix: stderr to stderr"
		lacks "$tmp/out" "$(printf '\033')" "prefix: colour on a file"
		[ "$(wc -l <"$tmp/out")" -eq 4 ] || fail "prefix: $(wc -l <"$tmp/out") lines on stdout, want 4"
	}
	# Nothing is lost at exit: 20000 lines written just before the end, all there, in order.
	expect_rc 0 "no line lost" -- "$FERRY" run -d 'seq 1 20000' -H 'seq 1 20000 >&2' && {
		[ "$(grep -c '^dpu\.0| ' "$tmp/out")" -eq 20000 ] || fail "no line lost: $(wc -l <"$tmp/out") lines"
		seq 1 20000 >"$tmp/seq"
		sed 's/^dpu\.0| //' "$tmp/out" | cmp -s - "$tmp/seq" || fail "no line lost: lines differ or out of order"
		sed 's/^host\.0| //' "$tmp/err" | cmp -s - "$tmp/seq" || fail "no line lost: stderr lines differ"
	}
	# A line longer than the buffer (64 KiB) comes out in pieces, every byte there.
	expect_rc 0 "long line" -- "$FERRY" run -d "printf '%0200000d' 0; echo" && {
		n=$(sed 's/^dpu\.0| //' "$tmp/out" | tr -d '\n' | wc -c)
		[ "$n" -eq 200000 ] || fail "long line: $n bytes, want 200000"
	}
	expect_rc 0 "colour" -- "$FERRY" run --color=always -d 'echo a' && has "$tmp/out" "$(printf '\033')\[36mdpu\.0\|" "colour"
	expect_rc 0 "NO_COLOR" -- env NO_COLOR=1 "$FERRY" run -d 'echo a' && lacks "$tmp/out" "$(printf '\033')" "NO_COLOR"
	;;
caps)
	expect_rc 0 "caps" -- "$FERRY" caps && {
		has "$tmp/out" "^PCI: 0000:03:00\.0$" "caps"
		has "$tmp/out" "^PCI: 0000:b1:00\.0$" "caps"
		has "$tmp/out" "^    Representors:$" "caps"
		has "$tmp/out" "^        PCI: 0000:b1:00\.0$" "caps: the representor"
		has "$tmp/out" "^            vuid +FERRY00PF0HPF$" "caps: vuid"
		has "$tmp/out" "^    dpu +0$" "caps: dpu index"
		has "$tmp/out" "^            task_memcpy +supported$" "caps: dma"
		has "$tmp/out" "^            task_memcpy_max_buf_size +[0-9]+$" "caps: dma"
		has "$tmp/out" "^            max_num_tasks +[0-9]+$" "caps: dma"
		has "$tmp/out" "^            server +supported$" "caps: comch"
		has "$tmp/out" "^            client +supported$" "caps: comch"
		has "$tmp/out" "^            export_pci +supported$" "caps: mmap"
		has "$tmp/out" "^            task_wait_eq +" "caps: sync_event"
		has "$tmp/out" "^        rdma$" "caps: rdma group"
		has "$tmp/out" "^            task_remote_net_sync_event_notify_add +supported$" "caps: rdma task"
		lacks "$tmp/out" "error \(" "caps: a cap call failed"
		[ -s "$tmp/err" ] && fail "caps wrote to stderr: $(head -3 "$tmp/err")"
	}
	expect_rc 0 "caps -p" -- "$FERRY" caps -p b1:00.0 && {
		[ "$(grep -c '^PCI' "$tmp/out")" -eq 1 ] || fail "caps -p: not one device"
		lacks "$tmp/out" "Representors" "caps -p b1:00.0 (a host device has none)"
	}
	expect_rc 1 "caps -p absent" -- "$FERRY" caps -p 0000:42:00.0 && has "$tmp/err" "no device at" "caps -p absent"
	expect_rc 1 "caps bad topology" -- env FERRY_TOPOLOGY=/nonexistent/topo "$FERRY" caps
	if ! command -v python3 >/dev/null; then
		echo "FAIL: python3 is missing (scripts/ferry.sh installs it); the JSON checks need it"
		exit 1
	fi
	check='
import json, sys
want_devs = int(sys.argv[1])
d = json.load(sys.stdin)
devs = d["devices"]
assert isinstance(devs, list) and len(devs) == want_devs, len(devs)
for dev in devs:
    for k in ("pci_addr", "ibdev_name", "iface_name", "pci_func_type", "side", "dpu", "representors", "caps"):
        assert k in dev, k
    c = dev["caps"]
    assert c["dma"]["task_memcpy"] is True
    assert c["dma"]["task_memcpy_max_buf_size"] > 0 and c["dma"]["max_num_tasks"] > 0
    assert c["comch"]["server"] == (dev["side"] == "dpu") and c["comch"]["client"] == (dev["side"] == "host")
    for lib in ("dev", "mmap", "mmap_advise", "sync_event", "clock"):
        assert isinstance(c[lib], dict) and c[lib], lib
    for v in (v for lib in c.values() for v in lib.values()):
        assert v is not None, "a cap call failed"
    for rep in dev["representors"]:
        assert dev["side"] == "dpu" and rep["vuid"] and rep["filter"] in ("net", "emulated")
assert any(dev["representors"] for dev in devs if dev["side"] == "dpu")
want_dpus = int(sys.argv[2]) if len(sys.argv) > 2 else 1
assert sorted({dev["dpu"] for dev in devs}) == list(range(want_dpus)), "dpu indexes"
print("json ok:", len(devs), "devices")
'
	expect_rc 0 "caps --json" -- "$FERRY" caps --json && {
		python3 -c "$check" 2 <"$tmp/out" || fail "caps --json: not the JSON expected"
	}
	expect_rc 0 "caps --json -p" -- "$FERRY" caps --json --pci-addr 03:00.0 && {
		python3 -c "$check" 1 <"$tmp/out" || fail "caps --json -p: not the JSON expected"
	}
	# A topology file: the listing follows it (caps come from the libraries, not from a table).
	n=$(grep -c '^\(dpu-pf\|host-pf\|host-vf\|dpu-sf\)' "$TOPO_DIR/two_dpus.topo")
	expect_rc 0 "caps --json two DPUs" -- env FERRY_TOPOLOGY="$TOPO_DIR/two_dpus.topo" "$FERRY" caps --json && {
		python3 -c "$check" "$n" 2 <"$tmp/out" || fail "caps --json with two DPUs"
	}
	;;
devices)
	expect_rc 0 "ferry-devices" -- "$FERRY_DEVICES" && {
		has "$tmp/out" "^0000:03:00\.0 " "ferry-devices"
		has "$tmp/out" "rep 0000:b1:00\.0 " "ferry-devices"
	}
	expect_rc 0 "ferry-devices --help" -- "$FERRY_DEVICES" --help
	expect_rc 2 "ferry-devices bad" -- "$FERRY_DEVICES" --bogus
	;;
bench_args)
	# Each is a usage error of one line, and nothing runs (each answers at once).
	bad() { # bad REGEX DESCRIPTION -- ferry bench args...
		re=$1
		what=$2
		shift 3
		expect_rc 2 "$what" -- "$FERRY" bench "$@" && {
			one_line "$tmp/err" "$what"
			has "$tmp/err" "^ferry bench: $re.* \(see 'ferry bench --help'\)$" "$what"
			[ -s "$tmp/out" ] && fail "$what: wrote to stdout"
		}
	}
	bad "missing KIND" "no kind" --
	bad "no bench kind 'frob'" "bad kind" -- frob
	bad "no bench kind 'DMA'" "kind is case-sensitive" -- DMA
	bad "--sizes: 'x' is not a number" "bad size" -- dma --sizes 64,x
	bad "--sizes: '4Q' is not a number \(suffixes: K, M, G\)" "bad suffix" -- dma --sizes 4Q
	bad "--sizes: '0' is not in 1\.\.268435456" "size 0" -- dma --sizes 0
	bad "--sizes: '1G' is not in 1\.\.268435456" "size over dma's limit" -- dma -s 1G
	bad "--sizes: '8K' is not in 1\.\.4080" "size over comch's limit" -- comch -s 64,8K
	bad "--sizes: an empty list" "empty sizes" -- dma --sizes ''
	bad "--sizes: '' is not a number" "empty entry" -- dma --sizes 64,,128
	bad "--sizes: more than 32 entries" "too many sizes" -- dma --sizes 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33
	bad "--depths: '0' is not in 1\.\.64" "depth 0" -- dma --depths 0
	bad "--depths: '65' is not in 1\.\.64" "depth over dma's limit" -- dma --depths 1,65
	bad "--depths: '17' is not in 1\.\.16" "depth over rdma's limit" -- rdma --depths 17
	bad "--depths: '4K' is not a number" "depths take no suffix" -- dma --depths 4K
	bad "--depths: '-1' is not a number" "negative depth" -- dma --depths=-1
	bad "--time takes seconds" "time 0" -- dma --time 0
	bad "--time takes seconds" "bad time" -- dma -t 1s
	bad "--format: 'gif' is not png or svg" "bad format" -- dma --format png,gif
	bad "--progress takes auto, always or never" "bad progress" -- dma --progress sometimes
	bad "--plot: the prefix must be a path without quotes" "quote in the plot prefix" -- dma --plot "$tmp/a'b"
	bad "unexpected argument 'fast'" "two kinds" -- dma fast
	bad "option '--sizes' needs a value" "--sizes without value" -- dma --sizes
	bad "unknown option '--sise'" "unknown option" -- dma --sise 64
	# gnuplot missing: refused before anything runs, with the package to install.
	expect_rc 1 "no gnuplot" -- env PATH=/nonexistent "$FERRY" bench dma -q --plot "$tmp/p" && {
		one_line "$tmp/err" "no gnuplot"
		has "$tmp/err" "^ferry bench: --plot needs gnuplot, which is not on PATH \(Debian: apt-get install gnuplot-nox\)$" "no gnuplot"
		[ -s "$tmp/out" ] && fail "no gnuplot: something ran"
	}
	ls "$tmp"/p-* >/dev/null 2>&1 && fail "no gnuplot: a plot file appeared"
	expect_rc 1 "plot into a missing directory" -- "$FERRY" bench dma -q --plot "$tmp/no/such/p" &&
		has "$tmp/err" "cannot write in $tmp/no/such" "plot directory"
	# The bench program missing, failing, or printing nothing of Ferry's.
	mkdir "$tmp/fake"
	expect_rc 1 "no bench program" -- env FERRY_BENCH_DIR="$tmp/fake" "$FERRY" bench dma -q &&
		has "$tmp/err" "^ferry bench: cannot find dma_bench" "no bench program"
	printf '#!/bin/sh\necho "dma_bench: setup failed (fake)" >&2\nexit 3\n' >"$tmp/fake/dma_bench"
	printf '#!/bin/sh\necho "args: $*" > %s/fake/args\necho "not a row"\n' "$tmp" >"$tmp/fake/export_bench"
	chmod +x "$tmp/fake/dma_bench" "$tmp/fake/export_bench"
	expect_rc 1 "failing bench program" -- env FERRY_BENCH_DIR="$tmp/fake" "$FERRY" bench dma -q --progress never && {
		has "$tmp/err" "^ferry bench: dma_bench exited with status 3 at size 64 depth 8$" "failing bench program"
		has "$tmp/err" "^  command: $tmp/fake/dma_bench --json --sizes 64 --depths 8 --seconds 0\.05$" "failing bench: the command"
		has "$tmp/err" "^  \| dma_bench: setup failed \(fake\)$" "failing bench: its stderr"
	}
	expect_rc 1 "bench program without rows" -- env FERRY_BENCH_DIR="$tmp/fake" "$FERRY" bench export -s 4K -d 2 -t 0.5 -- --extra word &&
		has "$tmp/err" "export_bench printed no row of Ferry at size 4096 depth 2" "no rows"
	has "$tmp/fake/args" "^args: --json --sizes 4096 --depths 2 --seconds 0\.5 --extra word$" "the words after -- reach the program"
	# SIGTERM to ferry bench: the program gets it, the points measured so far are kept, 128+15.
	"$FERRY" bench dma -s 64,4K,64K -d 1 -t 0.4 --json "$tmp/sig.json" >"$tmp/sig.out" 2>"$tmp/sig.err" &
	fp=$!
	i=0
	while [ "$(cat "$tmp/sig.json" 2>/dev/null | wc -l)" -lt 2 ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	kill -TERM $fp
	wait $fp
	rc=$?
	[ $rc -eq 143 ] || fail "SIGTERM to ferry bench: exit $rc, want 143"
	has "$tmp/sig.err" "^ferry bench: stopped by signal 15 after [12] of 3 points$" "SIGTERM: the message"
	has "$tmp/sig.out" "^auto +64 B +1 " "SIGTERM: the table keeps the first point"
	# The bench programs check the same grammar themselves.
	expect_rc 2 "dma_bench --sizes bad" -- "$(dirname "$FERRY")/../bench/dma_bench" --sizes 64,x &&
		has "$tmp/err" "^dma_bench: --sizes: 'x' is not a number$" "dma_bench --sizes" &&
		expect_rc 2 "dma_bench --legacy --engine" -- "$(dirname "$FERRY")/../bench/dma_bench" --legacy --engine inline &&
		has "$tmp/err" "^usage: dma_bench" "dma_bench --legacy --engine: usage" &&
		expect_rc 0 "dma_bench --legacy one point" -- "$(dirname "$FERRY")/../bench/dma_bench" --legacy --sizes 64 \
			--depths 4 --seconds 0.02 &&
		has "$tmp/out" "^ +64 +4 +[0-9]+ +[0-9]+ " "dma_bench --legacy one point: its row"
	;;
bench_dma)
	if ! command -v python3 >/dev/null; then
		echo "FAIL: python3 is missing (scripts/ferry.sh installs it); the JSON checks need it"
		exit 1
	fi
	expect_rc 0 "bench dma" -- "$FERRY" bench dma --sizes 64,64K --depths 1,8 --time 0.02 --json "$tmp/rows.json" \
		--progress never && {
		has "$tmp/out" "^ferry bench dma: " "table title"
		has "$tmp/out" "^case +size +depth +GB/s +Mops +lat us +peer " "table header"
		for p in "64 B +1" "64 B +8" "64 KiB +1" "64 KiB +8"; do
			has "$tmp/out" "^auto +$p +[0-9.]+ +[0-9.]+ +[0-9.]+ +memcpy +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+x +[0-9.]+x$" "table row $p"
		done
		lacks "$tmp/err" "$(printf '\r')" "no progress bar when asked for none"
		python3 - "$tmp/rows.json" <<'PY' || fail "bench dma: the JSON lines"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 8, len(rows)
pts = {(r["size"], r["depth"]) for r in rows}
assert pts == {(64, 1), (64, 8), (65536, 1), (65536, 8)}, pts
for r in rows:
    for k in ("bench", "case", "size", "depth", "side", "gb_per_s", "mops", "lat_us", "lat_median_us", "iters"):
        assert k in r, k
    assert r["bench"] == "dma" and r["case"] == "auto" and r["side"] in ("ferry", "memcpy"), r
    assert r["gb_per_s"] > 0 and r["mops"] > 0 and r["lat_us"] > 0 and r["iters"] > 0, r
    assert abs(r["gb_per_s"] * 1e3 - r["mops"] * r["size"]) <= 0.01 * r["gb_per_s"] * 1e3, r
ferry = [r for r in rows if r["side"] == "ferry"]
assert len(ferry) == 4
for f in ferry:
    p = [r for r in rows if r["side"] == "memcpy" and (r["size"], r["depth"]) == (f["size"], f["depth"])]
    assert len(p) == 1 and f["peer"] == "memcpy", f
    assert abs(f["ratio"] - f["gb_per_s"] / p[0]["gb_per_s"]) < 0.01 * f["ratio"] + 1e-3, (f, p)
    assert abs(f["lat_ratio"] - f["lat_us"] / p[0]["lat_us"]) < 0.01 * f["lat_ratio"] + 1e-3, (f, p)
print("json ok:", len(rows), "rows")
PY
	}
	# --json -: the rows alone on stdout, the table on stderr; the bar when asked for.
	expect_rc 0 "bench dma --json -" -- "$FERRY" bench dma -q -s 4K -d 2,4 -t 0.02 --json - --progress always && {
		[ "$(wc -l <"$tmp/out")" -eq 4 ] || fail "--json -: $(wc -l <"$tmp/out") lines on stdout, want 4 rows"
		python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]' <"$tmp/out" || fail "--json -: stdout is not JSON lines"
		has "$tmp/err" "^case +size +depth " "--json -: the table on stderr"
		has "$tmp/err" "$(printf '\r')\[###############\.+\] 1/2 dma 4 KiB depth 4" "--progress always: the bar"
	}
	# On a terminal (script(1) gives one: bsdutils, in every Debian), the bar by default; not with TERM=dumb.
	if ! command -v script >/dev/null; then
		fail "script (bsdutils) is missing: the terminal checks need it"
	else
		TERM=xterm script -qec "'$FERRY' bench dma -s 4K -d 2,4 -t 0.02" /dev/null >"$tmp/tty" 2>&1
		has "$tmp/tty" "$(printf '
')\[\.+\] 0/2 dma 4 KiB depth 2" "a terminal: the bar"
		has "$tmp/tty" "^auto +4 KiB +4 " "a terminal: the table"
		TERM=dumb script -qec "'$FERRY' bench dma -s 4K -d 2,4 -t 0.02" /dev/null >"$tmp/tty" 2>&1
		lacks "$tmp/tty" "\] [0-9]/2 dma" "TERM=dumb: no bar"
		has "$tmp/tty" "^auto +4 KiB +4 " "TERM=dumb: the table"
	fi
	# Not a terminal: no bar by default. The words after -- reach dma_bench.
	expect_rc 0 "bench dma -- --engine worker" -- "$FERRY" bench dma -s 4K -d 2 -t 0.02 -- --engine worker && {
		has "$tmp/out" "^worker +4 KiB +2 " "--engine worker"
		lacks "$tmp/err" "$(printf '\r')" "no bar off a terminal"
	}
	;;
bench_peers)
	if ! command -v python3 >/dev/null || ! command -v ucx_perftest >/dev/null; then
		echo "FAIL: python3 or ucx_perftest (ucx-utils) is missing; scripts/ferry.sh installs both"
		exit 1
	fi
	check='
import json, sys
kind, want = sys.argv[1], sys.argv[2:]
rows = [json.loads(l) for l in sys.stdin]
cases = {}
for r in rows:
    assert r["bench"] == kind, r
    cases.setdefault(r["case"], set()).add(r["side"])
for spec in want:
    case, peer = spec.split(":")
    assert cases.get(case) == {"ferry", peer}, (case, cases)
for r in rows:
    if r["side"] == "ferry":
        assert r["peer"] in cases[r["case"]], r
    assert (r["gb_per_s"] or 0) > 0 or (r["lat_us"] or 0) > 0, r
print("json ok:", kind, sorted(cases))
'
	expect_rc 0 "bench fast" -- "$FERRY" bench fast -s 64,4K -d 4 -t 0.03 --json - && {
		python3 -c "$check" fast shared:ucx_perftest cma:process_vm_writev <"$tmp/out" || fail "bench fast: rows"
		has "$tmp/err" "^shared +4 KiB +4 .* ucx_perftest " "bench fast: table"
	}
	expect_rc 0 "bench comch" -- "$FERRY" bench comch -s 64 -d 4 -t 0.03 --json - &&
		{ python3 -c "$check" comch msg:seqpacket <"$tmp/out" || fail "bench comch: rows"; }
	expect_rc 0 "bench export" -- "$FERRY" bench export -s 64K -d 4 -t 0.03 --json - &&
		{ python3 -c "$check" export shared:memcpy cma:process_vm_readv <"$tmp/out" || fail "bench export: rows"; }
	expect_rc 0 "bench rdma" -- "$FERRY" bench rdma -s 4K -d 4 -t 0.03 --json - &&
		{ python3 -c "$check" rdma write:ucp_put_bw read:ucp_get sendrecv:ucp_am_lat <"$tmp/out" || fail "bench rdma: rows"; }
	;;
bench_plot)
	if ! command -v python3 >/dev/null || ! command -v gnuplot >/dev/null; then
		echo "FAIL: python3 or gnuplot (gnuplot-nox) is missing; scripts/ferry.sh installs both"
		exit 1
	fi
	expect_rc 0 "bench dma --plot" -- "$FERRY" bench dma -s 64,4K,64K -d 8 -t 0.02 --plot "$tmp/dma" && {
		for m in throughput latency; do
			has "$tmp/err" "^ferry bench: wrote $tmp/dma-$m\.png$" "plot: $m png"
			has "$tmp/err" "^ferry bench: wrote $tmp/dma-$m\.svg$" "plot: $m svg"
		done
	}
	python3 - "$tmp" <<'PY' || fail "bench dma --plot: the files"
import struct, sys, zlib
import xml.etree.ElementTree as ET
tmp = sys.argv[1]
for m in ("throughput", "latency"):
    data = open(f"{tmp}/dma-{m}.png", "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "PNG signature"
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13, kind
    w, h, depth, colour = struct.unpack(">IIBB", data[16:26])
    assert w >= 400 and h >= 300, (w, h)
    # The image data inflates to one filter byte plus a row of pixels per line, and is not blank.
    pos, idat = 8, b""
    while pos < len(data):
        n, k = struct.unpack(">I4s", data[pos:pos + 8])
        if k == b"IDAT":
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    raw = zlib.decompress(idat)
    bpp = {2: 3, 6: 4, 0: 1, 4: 2, 3: 1}[colour] * depth // 8
    assert len(raw) == h * (1 + w * bpp), (len(raw), w, h, bpp)
    assert len(set(raw)) > 16, "a blank image"
    svg = ET.parse(f"{tmp}/dma-{m}.svg").getroot()
    assert svg.tag.endswith("svg"), svg.tag
    texts = [t.text or "" for t in svg.iter() if t.tag.endswith("text")]
    for title in ("Ferry", "memcpy"):
        assert title in texts, (title, texts)
    # One coloured line per series: the key's sample (2 points) and the data (3 sizes).
    lines = [p.get("d") for p in svg.iter() if p.tag.endswith("path") and "rgb(" in (p.get("stroke") or "")]
    lines = [d for d in lines if d.count(",") >= 2 + 3]
    assert len(lines) >= 2, lines
print("plots ok")
PY
	# --format svg: only SVG files.
	expect_rc 0 "bench dma --format svg" -- "$FERRY" bench dma -s 4K,64K -d 4 -t 0.02 -p "$tmp/only" -f svg && {
		[ -s "$tmp/only-throughput.svg" ] || fail "--format svg: no throughput SVG"
		ls "$tmp"/only-*.png >/dev/null 2>&1 && fail "--format svg: a PNG appeared"
	}
	;;
*)
	echo "unknown case $case_name"
	exit 2
	;;
esac

if [ $fails -ne 0 ]; then
	echo "$case_name: $fails failed"
	exit 1
fi
echo "$case_name: ok"
