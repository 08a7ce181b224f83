#!/usr/bin/env bash
# The `cnnmap run` contract: outputs, JSON, determinism over batch splits, and every way
# its input can be wrong (one line, exit 2, no output file left behind).
# usage: test_run_cli.sh CNNMAP SHARED_DIR
set -u
cnnmap=$1 shared=$2
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
one_line_from=1
# Each command starts without an output file, and a failure must leave none.
expect_before() { rm -f "$tmp/y.npy"; }
expect_after_failure() { [ ! -e "$tmp/y.npy" ] && [ -z "$(find "$tmp" -name '*.tmp*')" ]; }
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"



lenet=$shared/models/lenet.onnx
resnet8=$shared/models/resnet8_a8w8b16.onnx
if [ ! -f "$lenet" ] || [ ! -f "$resnet8" ]; then
  if [ "${CI:-}" = true ]; then echo "shared models missing under CI"; exit 1; fi
  echo "SKIP: shared models missing"; exit 0
fi

# Inputs: LeNet takes N x 1 x 28 x 28 float32, ResNet8 N x 3 x 32 x 32.
$py - "$tmp" <<'EOF'
import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(7)
np.save(d + "/l6.npy", rng.uniform(-1, 1, (6, 1, 28, 28)).astype(np.float32))
np.save(d + "/r5.npy", rng.uniform(-2, 2, (5, 3, 32, 32)).astype(np.float32))
np.save(d + "/r5_f64.npy", rng.uniform(-2, 2, (5, 3, 32, 32)))
np.save(d + "/r_badshape.npy", np.zeros((2, 3, 30, 32), np.float32))
np.save(d + "/r_rank3.npy", np.zeros((3, 32, 32), np.float32))
np.save(d + "/r_empty.npy", np.zeros((0, 3, 32, 32), np.float32))
with open(d + "/bad_magic.npy", "wb") as f:
    f.write(b"\x93NUMPX" + bytes(100))
raw = open(d + "/r5.npy", "rb").read()
open(d + "/truncated.npy", "wb").write(raw[:len(raw) // 2])
np.save(d + "/be.npy", np.zeros((1, 3, 32, 32), ">f4"))
import onnx
from onnx import helper, TensorProto
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
g = helper.make_graph([helper.make_node("Hardmax", ["x"], ["y"], name="hm")], "g", [x], [y])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), d + "/hardmax.onnx")
np.save(d + "/x14.npy", np.zeros((1, 4), np.float32))
EOF

expect 0 "run help" -- run --help
check "run help text" grep -q 'usage: cnnmap run' "$tmp/out"
expect 0 "lenet" -- run "$lenet" --input "$tmp/l6.npy" -o "$tmp/y.npy"
check "lenet output shape" $py -c "import numpy as np; y = np.load('$tmp/y.npy'); assert y.shape == (6, 10) and y.dtype == np.float32, y.shape"
cp "$tmp/y.npy" "$tmp/lenet_all.npy"

# Batch splits: each frame alone gives the same bytes as the whole batch.
$py -c "
import numpy as np
x = np.load('$tmp/l6.npy')
np.save('$tmp/l_a.npy', x[:1]); np.save('$tmp/l_b.npy', x[1:4]); np.save('$tmp/l_c.npy', x[4:])"
ok=1
for part in a b c; do
  "$cnnmap" run "$lenet" --input "$tmp/l_$part.npy" -o "$tmp/y_$part.npy" >/dev/null 2>&1 || ok=0
done
check "batch split runs" [ $ok -eq 1 ]
check "batch split is bit-identical" $py -c "
import numpy as np
parts = np.concatenate([np.load('$tmp/y_%s.npy' % p) for p in 'abc'])
assert np.array_equal(parts.view(np.uint32), np.load('$tmp/lenet_all.npy').view(np.uint32))"

expect 0 "resnet8 json" -- run "$resnet8" --input "$tmp/r5.npy" -o "$tmp/y.npy" --json --quiet
check "json keys and digest" $py -c "
import json, hashlib
o = json.load(open('$tmp/out'))
assert set(['model', 'input_shape', 'output_shape', 'time_s', 'output_sha256']) <= set(o), o
assert o['input_shape'] == [5, 3, 32, 32] and o['output_shape'] == [5, 10, 1, 1], o
assert o['output_sha256'] == hashlib.sha256(open('$tmp/y.npy', 'rb').read()).hexdigest()"
cp "$tmp/out" "$tmp/first.json"
expect 0 "resnet8 again" -- run "$resnet8" --input "$tmp/r5.npy" --json
check "same digest on every run" $py -c "
import json
a, b = json.load(open('$tmp/first.json')), json.load(open('$tmp/out'))
assert a['output_sha256'] == b['output_sha256']"
expect 0 "named intermediate tensor" -- run "$resnet8" --input "$tmp/r5.npy" -o "$tmp/y.npy" \
  --output "$($py -c "import onnx; m = onnx.load('$resnet8'); print([n for n in m.graph.node if n.op_type == 'Conv'][0].output[0])")"
check "intermediate shape" $py -c "import numpy as np; y = np.load('$tmp/y.npy'); assert y.ndim == 4 and y.shape[0] == 5, y.shape"

expect 1 "no input" -- run "$lenet" -o "$tmp/y.npy"
expect 1 "no output file" -- run "$lenet" --input "$tmp/l6.npy"
expect 1 "no model" -- run --input "$tmp/l6.npy" -o "$tmp/y.npy"
expect 1 "unknown option" -- run "$lenet" --input "$tmp/l6.npy" -o "$tmp/y.npy" --frob
expect 2 "missing model" -- run "$tmp/nope.onnx" --input "$tmp/l6.npy" -o "$tmp/y.npy"
check "names the model" grep -q "nope.onnx" "$tmp/err"
expect 2 "missing input file" -- run "$lenet" --input "$tmp/nope.npy" -o "$tmp/y.npy"
check "names the input" grep -q "nope.npy" "$tmp/err"
expect 2 "wrong shape" -- run "$resnet8" --input "$tmp/r_badshape.npy" -o "$tmp/y.npy"
check "wrong shape message gives the expected shape" grep -q "r_badshape.npy.*\[N, 3, 32, 32\]" "$tmp/err"
expect 2 "wrong rank" -- run "$resnet8" --input "$tmp/r_rank3.npy" -o "$tmp/y.npy"
expect 2 "wrong type" -- run "$resnet8" --input "$tmp/r5_f64.npy" -o "$tmp/y.npy"
check "wrong type message" grep -q "float64.*float32" "$tmp/err"
expect 2 "two inputs for a one-input model" -- run "$lenet" --input "$tmp/l6.npy" --input "$tmp/l6.npy" -o "$tmp/y.npy"
check "says how many inputs the model takes" grep -q "takes 1 input, not 2" "$tmp/err"
expect 2 "empty batch" -- run "$resnet8" --input "$tmp/r_empty.npy" -o "$tmp/y.npy"
expect 2 "bad magic" -- run "$lenet" --input "$tmp/bad_magic.npy" -o "$tmp/y.npy"
check "bad magic names the file" grep -q "bad_magic.npy" "$tmp/err"
expect 2 "truncated npy" -- run "$resnet8" --input "$tmp/truncated.npy" -o "$tmp/y.npy"
expect 2 "big-endian npy" -- run "$resnet8" --input "$tmp/be.npy" -o "$tmp/y.npy"
expect 2 "unknown tensor" -- run "$resnet8" --input "$tmp/r5.npy" -o "$tmp/y.npy" --output nosuch
check "unknown tensor named" grep -q "nosuch" "$tmp/err"
expect 2 "operator the executor cannot run" -- run "$tmp/hardmax.onnx" --input "$tmp/x14.npy" -o "$tmp/y.npy"
check "names node and op" grep -q "node 'hm' (Hardmax)" "$tmp/err"
expect 2 "output into a missing directory" -- run "$lenet" --input "$tmp/l6.npy" -o "$tmp/no/dir/y.npy"
expect 2 "output onto a directory" -- run "$lenet" --input "$tmp/l6.npy" -o "$tmp"

finish
