#!/usr/bin/env bash
# nn2FPGA time limits and bounds (issue 20). Inception-v3 on a U200 keeps GLPK busy for
# 6 s in phase 2 (phase 1's bisection is settled by bounds and fitting choices, no
# program; MobileNetV2, which took over a minute, is settled at the input port's 50,176
# cycles a frame in 0.2 s since S counts the ports); with --time-limit 2 the command
# returns well within 3x the limit, exit 0, with the best design found, marked not proven
# optimal and stopped early in phase 2. A board that even the minimal design exceeds is
# refused in a blink by the bounds, naming the resource with the board's own figure and
# what the skip buffers take of it.
# Usage: test_nn2fpga_limits_cli.sh CNNMAP MODELS_DIR
cnnmap=$1 models=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
py=/usr/bin/python3
inception=$models/torchvision/inception_v3_noweights.onnx
resnet50=$models/torchvision/resnet50_noweights.onnx

within 6 "Inception-v3 on the U200 with --time-limit 2 (3x the limit)" optimise "$inception" \
  --board u200 --backend nn2fpga --time-limit 2 --json
check "Inception-v3 on the U200: exit 0, not $rc" test "$rc" -eq 0
check "the design is stopped early, not proven optimal, and fits the U200" $py - "$tmp/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["stopped_early"] is True and d["optimal"] is False, d
assert d["phases"][0]["stopped_early"] is False and d["phases"][0]["optimal"] is True
assert d["phases"][0]["programs"] == 0 and d["phases"][0]["settled"] > 0
assert d["phases"][1]["stopped_early"] is True and d["phases"][1]["optimal"] is False
for k in ("DSP", "BRAM18", "URAM"):
    assert d["resources"][k] <= d["board_resources"][k], k
assert d["period_cycles"] > 0 and d["throughput_fps"] > 0
PY

expect 0 "the same as text" -- optimise "$inception" --board u200 --backend nn2fpga \
  --time-limit 1
check "the text says which phase the time limit stopped" \
  grep -q '^phase 2 .*not proven optimal: stopped early by the time limit$' "$tmp/out"

expect 3 "ResNet50 on the ZCU102: refused by the BRAM18 bound" -- optimise "$resnet50" \
  --board zcu102 --backend nn2fpga
check "the bound names the resource with the board's figure and the skip buffers' share" \
  grep -q "no feasible design: even the minimal design's layers need [0-9]* BRAM18 for weights and window buffers; zcu102 has 1824 BRAM18, [0-9]* of them taken by the skip buffers, which leaves [0-9]* for the layers' weights and window buffers$" "$tmp/err"
expect 3 "ResNet50 on the PYNQ-Z2: refused by the DSP bound" -- optimise "$resnet50" \
  --board pynq-z2 --backend nn2fpga --optimiser exact
check "the DSP bound gives the board's 220 DSPs" \
  grep -q "no feasible design: even the minimal design's layers need [0-9]* DSP; pynq-z2 has 220 DSP$" "$tmp/err"

finish
