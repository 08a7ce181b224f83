#!/usr/bin/env bash
# Regression tests of issue 21's importer findings, through the command line: hostile
# models are refused with exit 2 and one line "cnnmap: FILE: ..." naming what is wrong,
# leave no output file, and their near misses still map.
# usage: test_reliability_import.sh CNNMAP SHARED_DIR SOURCE_DIR
set -u
cnnmap=$1 shared=$2 src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "$shared" "$src"



# says TEXT: the last command's stderr holds TEXT (fixed string).
says() { grep -qF -- "$1" "$tmp/err"; }

# The issue's reproducer: MaxPool, strides INT64_MAX, ceil_mode 1 (signed overflow).
base64 -d >"$tmp/pool_overflow.onnx" <<'EOF'
CAgSDGNubm1hcC10ZXN0czqaAQpgCgF4EgF5GgRwb29sIgdNYXhQb29sKhUKDGtlcm5lbF9zaGFwZUACQAKgAQcqIAoHc3RyaWRlc0D//////////39A//////////9/oAEHKhAKCWNlaWxfbW9kZRgBoAECEgR0ZXN0WhsKAXgSFgoUCAESEAoCCAEKAggDCgIICAoCCAhiEwoBeRIOCgwIARIICgAKAAoACgBCAhAN
EOF
expect 2 "pool stride overflow" -- inspect "$tmp/pool_overflow.onnx"
check "pool overflow message" says "pool_overflow.onnx: node 'pool' (MaxPool): window geometry is out of range"
expect 2 "pool stride overflow, optimise" -- optimise "$tmp/pool_overflow.onnx" --board zc706 -o "$tmp/d.json"
check "no design file left" test ! -e "$tmp/d.json"

# The other hostile models are written by python3-onnx (a test-model generator
# dependency, scripts/deps.sh).
if ! /usr/bin/python3 -c 'import onnx' 2>/dev/null; then
  echo "FAIL: /usr/bin/python3 has no onnx module (scripts/deps.sh installs python3-onnx)"
  echo "$passed passed, $((failed + 1)) failed"
  exit 1
fi
/usr/bin/python3 - "$tmp" <<'EOF' || { echo "FAIL: generating the models"; exit 1; }
import sys
import onnx
from onnx import helper as h, TensorProto as T

out = sys.argv[1]
Q = "qonnx.custom_op.general"


def save(name, nodes, inits, opset=13, inputs=None, extra_opsets=(), check=True):
    inputs = inputs or [h.make_tensor_value_info("x", T.FLOAT, [1, 3, 8, 8])]
    g = h.make_graph(nodes, "t", inputs, [h.make_tensor_value_info("y", T.FLOAT, None)], inits)
    opsets = [] if opset is None else [h.make_opsetid("", opset)]
    m = h.make_model(g, opset_imports=opsets + [h.make_opsetid(d, 1) for d in extra_opsets],
                     producer_name="cnnmap-tests")
    onnx.save(m, "%s/%s.onnx" % (out, name))


def scalar(name, v):
    return h.make_tensor(name, T.FLOAT, [], [float(v)])


W = h.make_tensor("W", T.FLOAT, [4, 3, 3, 3], [((i * 7) % 11) / 8.0 - 0.5 for i in range(108)])


# x -> Quant(bits) -> Conv(4-bit weights) -> Relu -> Quant(bits) -> y
def quant(bits):
    q = dict(domain=Q, signed=1, narrow=0, rounding_mode="ROUND")
    save("quant%d" % bits, [
        h.make_node("Quant", ["x", "s", "z", "b"], ["xq"], name="qx", **q),
        h.make_node("Quant", ["W", "s", "z", "wb"], ["Wq"], name="qw", **q),
        h.make_node("Conv", ["xq", "Wq"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        h.make_node("Relu", ["c"], ["r"], name="relu"),
        h.make_node("Quant", ["r", "s", "z", "b"], ["y"], name="qy", **q),
    ], [W, scalar("s", 0.125), scalar("z", 0), scalar("b", bits), scalar("wb", 4)],
        extra_opsets=[Q])


quant(56)
quant(32)

relu = [h.make_node("Relu", ["x"], ["y"], name="relu")]
save("opset0", relu, [], opset=0)
save("opset_neg", relu, [], opset=-1)
save("opset_huge", relu, [], opset=10 ** 6)
save("opset_none", relu, [], opset=None)
save("opset21", relu, [], opset=21)

save("string_input", relu, [], inputs=[h.make_tensor_value_info("x", T.STRING, [1, 3, 8, 8])])

save("conv_two_pads", [h.make_node("Conv", ["x", "W"], ["y"], name="conv1", pads=[1, 1])], [W])

save("squeeze_attr_13", [h.make_node("Squeeze", ["x"], ["y"], name="sq", axes=[0])], [])
save("pad_attr_11", [h.make_node("Pad", ["x"], ["y"], name="pad", pads=[0, 0, 1, 1, 0, 0, 1, 1])],
     [], opset=11)
save("reduce_attr_18", [h.make_node("ReduceMean", ["x"], ["y"], name="gap", axes=[2, 3])], [],
     opset=18)

# conv -> y, and a dead Relu -> MaxPool branch off the conv.
save("dead_branch", [
    h.make_node("Conv", ["x", "W"], ["y"], name="conv", pads=[1, 1, 1, 1]),
    h.make_node("Relu", ["y"], ["d1"], name="dead_relu"),
    h.make_node("MaxPool", ["d1"], ["d2"], name="dead_pool", kernel_shape=[2, 2]),
], [W])
EOF

# 2. Bit widths: activations and weights 1-32.
expect 2 "56-bit Quant" -- inspect "$tmp/quant56.onnx"
check "56-bit names the node and range" says "quant56.onnx: node 'qx' (Quant): bit width 56"
check "56-bit names the range" says "1-32"
expect 2 "56-bit Quant on FINN" -- optimise "$tmp/quant56.onnx" --board zc706 --backend finn -o "$tmp/d.json"
check "no design file left" test ! -e "$tmp/d.json"
expect 0 "32-bit Quant maps (fpgaconvnet)" -- optimise "$tmp/quant32.onnx" --board zc706 --json
check "32-bit feasible" /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not d["feasible"])' "$tmp/out"
# FINN's thresholds for a 32-bit output number 2^32 per PE: no board holds them. The
# LUT sum once overflowed into "feasible" with LUT 0; it must say infeasible (exit 3).
"$cnnmap" optimise "$tmp/quant32.onnx" --board zc706 --backend finn >"$tmp/out" 2>"$tmp/err"
check "32-bit on FINN is infeasible, by LUT" test $? -eq 3
check "32-bit on FINN names LUT" says "LUT"

# 3. Opsets 7-21 of the default domain.
for m in opset0 opset_neg opset_huge; do
  expect 2 "$m" -- inspect "$tmp/$m.onnx"
  check "$m names opset and range" says "is outside the supported 7-21"
done
check "opset value shown" grep -qF "opset 1000000 is outside" "$tmp/err"
expect 2 "no opset import" -- inspect "$tmp/opset_none.onnx"
check "no opset message" says "imports no opset of the default ONNX domain"
expect 0 "opset 21 loads" -- inspect "$tmp/opset21.onnx"
expect 2 "Squeeze attribute at 13" -- inspect "$tmp/squeeze_attr_13.onnx"
check "Squeeze names the node" says "node 'sq' (Squeeze): axes is an input (input 1) from opset 13"
expect 2 "Pad attribute at 11" -- inspect "$tmp/pad_attr_11.onnx"
check "Pad names the node" says "node 'pad' (Pad): pads is an input"
expect 2 "ReduceMean attribute at 18" -- inspect "$tmp/reduce_attr_18.onnx"
check "ReduceMean names the node" says "node 'gap' (ReduceMean)"

# 4. Non-numeric graph input.
expect 2 "string input" -- inspect "$tmp/string_input.onnx"
check "string input named" says "graph input 'x' has element type 8 (string)"

# 5. Two pads on a 2-D conv.
expect 2 "conv with two pads" -- inspect "$tmp/conv_two_pads.onnx"
check "two pads names the node" says "node 'conv1' (Conv): pads must have 4 values"

# 6. Dead branches are not mapped.
expect 0 "dead branch" -- inspect --json "$tmp/dead_branch.onnx"
check "dead layers removed" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = [l["name"] for l in d["layers"]]
sys.exit(names != ["conv"] or d["totals"]["layers"] != 1
         or d["totals"]["removed_unreachable"] != 2)' "$tmp/out"
expect 0 "dead branch table" -- inspect "$tmp/dead_branch.onnx"
check "the table says how many were removed" \
  grep -q "^removed: 2 layers whose output reaches no graph output" "$tmp/out"
expect 0 "dead branch maps" -- optimise "$tmp/dead_branch.onnx" --board zc706 --json
check "no hardware for dead layers" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(sorted({n["layer"] for n in d["nodes"]}) != ["conv"])' "$tmp/out"

finish
