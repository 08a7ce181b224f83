#!/usr/bin/env bash
# Scale benchmark (issue 17): networks of 100, 1,000 and 10,000 layers, as chains of 3x3
# convolutions (8 channels, 8x8) and as residual networks of a convolution and an Add a
# block (50, 500 and 5,000 layers: 25 to 2,500 blocks), on a ZC706. For each: `inspect`
# (the load), `optimise --optimiser rule -o D.json` on fpgaConvNet's partitioned
# designs (--no-weights-reloading), on FINN, and on fpgaConvNet by default
# ("fpgaconvnet-choice": at batch 1 both flows run, the partitioned and the
# latency-driven one, and the faster design is kept), and `evaluate D.json`: wall time, CPU time
# (user + system) and peak resident memory of each process (GNU time), in a Markdown
# table; for `optimise`, also the design it returned (latency, partitions) and whether
# its budget stopped it (CM_OPTIMISE_RULE_WORK node costings: a budget that ends the
# search before every partition has grown leaves a design cut at every node). Memory
# should grow linearly with the layers, time at most a little faster.
#
#   bench/run_scale.sh
#
# Environment: CM_BENCH_BUILD (default build-release, built here if missing).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${CM_BENCH_BUILD:-$ROOT/build-release}
if [[ ! -x $BUILD/cnnmap ]]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >&2
fi
cmake --build "$BUILD" --target cnnmap_cli -j2 >&2
C=$BUILD/cnnmap
WORK=$BUILD/bench-scale
rm -rf "$WORK" && mkdir -p "$WORK"

/usr/bin/python3 "$ROOT/bench/make_chains.py" "$WORK" 100 1000 10000

measure() { # the command; prints "exit | wall | cpu | MB |" (its stdout in $WORK/out.json)
    local out=$WORK/time.txt
    if /usr/bin/time -f '%e %U %S %M' -o "$out" "$@" >"$WORK/out.json" 2>"$WORK/err"; then rc=0; else rc=$?; fi
    read -r wall user sys kb <"$out"
    awk -v rc="$rc" -v w="$wall" -v u="$user" -v s="$sys" -v kb="$kb" \
        'BEGIN { printf "%s | %.2f | %.2f | %.1f |", rc, w, u + s, kb / 1024 }'
}

design() { # optimise's JSON in $WORK/out.json; prints " latency ms | partitions | budget |"
    /usr/bin/python3 - "$WORK/out.json" <<'PY'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
    stop = "stopped it" if "budget" in j["optimiser"].get("note", "") else ""
    if j.get("latency_driven", {}).get("stopped_early"):
        stop = (stop + ", " if stop else "") + "stopped the latency search"
    print(" %.4g | %d | %s |" % (j["latency_s"] * 1e3, j["partitions"], stop))
except (OSError, ValueError, KeyError, TypeError):
    print(" | | |")
PY
}

echo "| network | layers | step | backend | exit | wall s | cpu s | peak MB | latency ms | partitions | budget |"
echo "| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
for net in chain100 chain1000 chain10000 res25 res250 res2500; do
    m=$WORK/$net.onnx
    layers=$("$C" inspect "$m" --json | /usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin)["layers"]))')
    echo "| $net | $layers | inspect | | $(measure "$C" inspect "$m" --json) | | |"
    for backend in fpgaconvnet finn fpgaconvnet-choice; do
        d=$WORK/$net.$backend.json
        flags=(--board zc706 --backend "${backend%-choice}" --optimiser rule --quiet --json -o "$d")
        [[ $backend == fpgaconvnet ]] && flags+=(--no-weights-reloading)
        row=$(measure "$C" optimise "$m" "${flags[@]}")
        echo "| $net | $layers | optimise rule | $backend | $row$(design)"
        if [[ -f $d ]]; then
            echo "| $net | $layers | evaluate | $backend | $(measure "$C" evaluate "$d" --json) | | |"
        fi
    done
done
