#!/usr/bin/env bash
# Random valid nn2FPGA designs through HLS generation (issue 14): the generated code must
# follow the design, not one fixed shape. For N seeds, every layer of the design that
# `optimise --backend nn2fpga` chose gets random unroll factors (divisors of its
# dimensions, a group's channels for a grouped convolution, och_par 1 on depthwise and pooling layers, products kept small so that the
# board still holds the design, and the skip FIFOs sized again); `evaluate` must accept
# the edited design, and its
# exported project must pass `make check` (bit-identical to `cnnmap run`) with streams at
# the exported depths.
# usage: random_designs.sh CNNMAP MODEL BOARD N [CXX] [VECTORS]
set -u
cnnmap=$1 model=$2 board=$3 n=$4 cxx=${5:-g++} vectors=${6:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ ! -f "$model" ]; then
  if [ "${CI:-}" = true ]; then echo "missing $model"; echo "0 passed, 1 failed"; exit 1; fi
  echo "skipped: $model is missing"; echo "0 passed, 0 failed"; exit 0
fi
"$cnnmap" optimise "$model" --board "$board" --backend nn2fpga -o "$tmp/base.json" >/dev/null || exit 1
passed=0 failed=0
for seed in $(seq 1 "$n"); do
  # A draw whose parts do not fit the board together (evaluate: exit 3) is not a valid
  # design: up to 10 draws per seed.
  found=0
  for draw in $(seq 0 9); do
    /usr/bin/python3 - "$tmp/base.json" "$tmp/d$seed.json" "$((seed * 100 + draw))" <<'PY'
import json, random, sys
d = json.load(open(sys.argv[1]))
rng = random.Random(int(sys.argv[3]))
def divisors(n, cap):
    return [k for k in range(1, min(n, cap) + 1) if n % k == 0]
for l in d["layers"]:
    g = l.get("groups", 1)  # a grouped convolution's factors divide a group's channels
    ich, oh, ow = l["in_shape"][0] // g, l["out_shape"][1], l["out_shape"][2]
    och = l["out_shape"][0] // g
    for attempt in range(100):  # at most 8 products per cycle per layer: the board holds it
        l["ow_par"] = rng.choice(divisors(ow, 8))
        l["ich_par"] = rng.choice(divisors(ich, 8))
        l["och_par"] = 1 if l["kind"] in ("dwconv", "pool", "gpool") else rng.choice(divisors(och, 8))
        if l["ow_par"] * l["ich_par"] * l["och_par"] <= 8:
            break
    l["weights_in_uram"] = False
for s in d.get("skip_connections", []):  # new factors: evaluate sizes the skip FIFOs again
    s.pop("fifo", None)
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
    "$cnnmap" evaluate "$tmp/d$seed.json" >"$tmp/eval.txt" 2>&1
    rc=$?
    [ "$rc" -eq 3 ] && continue
    [ "$rc" -eq 0 ] && found=1
    break
  done
  what="seed $seed (draw $draw)"
  if [ "$found" -eq 0 ]; then
    failed=$((failed + 1)); echo "FAIL: $what: evaluate refused the design: $(head -1 "$tmp/eval.txt")"; continue
  fi
  rm -rf "$tmp/p"
  if "$cnnmap" export "$tmp/d$seed.json" --format hls -o "$tmp/p" --test-vectors "$vectors" --seed "$seed" >/dev/null 2>"$tmp/err" &&
     make -C "$tmp/p" check CXX="$cxx" >"$tmp/make.log" 2>&1; then
    passed=$((passed + 1)); echo "$what: $(grep -o 'bit-identical.*' "$tmp/make.log" | head -1)"
  else
    failed=$((failed + 1)); echo "FAIL: $what"; cat "$tmp/err"; tail -5 "$tmp/make.log"
    cp "$tmp/d$seed.json" "/tmp/random_design_failed_$seed.json" 2>/dev/null
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
