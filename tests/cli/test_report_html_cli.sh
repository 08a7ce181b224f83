#!/usr/bin/env bash
# `cnnmap export --format report-html` (issue 18): one self-contained page for a design
# of every architecture. Each page must parse with every element closed, fetch nothing,
# show every node's name and carry every figure equal to `evaluate --json` of the same
# design file (report_html_check.py); names from the model are HTML-escaped; the same
# design gives the same bytes; an unwritable output or a format that does not apply is
# one line, exit 2, and no file.
# Usage: test_report_html_cli.sh CNNMAP SHARED_DIR MODELS_DIR
cnnmap=$1 shared=$2 models=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
py=/usr/bin/python3
checker=$(dirname "$0")/report_html_check.py
lenet=$shared/models/lenet.onnx
resnet20=$shared/models/resnet20_a8w8b16.onnx
cnv=$models/zoo/cnv.onnx
alexnet=$models/zoo/alexnet_fe.onnx
cifar=$(dirname "$0")/../../models/cifar10_quick.onnx
for f in "$lenet" "$resnet20" "$cnv" "$alexnet"; do need_shared "$f"; done

# report NAME ARCH: exports NAME.json, evaluates it and checks the page against the JSON.
report() {
  local name=$1 arch=$2
  expect 0 "$name: export report-html" -- export "$tmp/$name.json" --format report-html -o "$tmp/$name.html"
  check "$name: nothing printed" test ! -s "$tmp/out"
  expect 0 "$name: evaluate --json" -- evaluate "$tmp/$name.json" --json
  cp "$tmp/out" "$tmp/$name.eval.json"
  check "$name: the page holds every node and figure of evaluate --json" \
    $py "$checker" "$tmp/$name.html" "$tmp/$name.eval.json" "$arch"
  check "$name: no external reference" \
    bash -c "! grep -Eiq 'https?:|src=|@import|<script|<link' '$tmp/$name.html'"
}

# ---- one design of each architecture ----
expect 0 "LeNet fpgaConvNet (streaming)" -- optimise "$lenet" --board zc706 -o "$tmp/lenet.json"
check "LeNet on ZC706 is the streaming design" grep -q '"format": "cnnmap-design"' "$tmp/lenet.json"
report lenet streaming
expect 0 "LeNet hls4ml" -- optimise "$lenet" --board zc706 --backend hls4ml -o "$tmp/lenet_hls4ml.json"
report lenet_hls4ml streaming
expect 0 "CNV FINN" -- optimise "$cnv" --board zedboard --backend finn -o "$tmp/cnv.json"
report cnv streaming
expect 0 "AlexNet latency-driven" -- optimise "$alexnet" --board zc706 -o "$tmp/alexnet.json"
check "AlexNet on ZC706 is the latency-driven design" \
  grep -q '"format": "cnnmap-latency-design"' "$tmp/alexnet.json"
report alexnet latency
expect 0 "multi LeNet + CIFAR-10" -- multi --board zc706 --model "$lenet" --model "$cifar" -o "$tmp/multi.json"
report multi multi
expect 0 "ResNet20 nn2FPGA" -- optimise "$resnet20" --board zc706 --backend nn2fpga -o "$tmp/resnet20.json"
report resnet20 nn2fpga
expect 0 "AlexNet overlay" -- overlay "$alexnet" --board zc706 -o "$tmp/overlay.json"
report overlay overlay

# The pictures: a timeline bar per partition or subgraph, a graph box per node.
check "LeNet: one graph box per node (7) and the partition on the timeline" $py -c '
import sys, re
t = open(sys.argv[1]).read()
graph = t[t.index("id=\"graph\""):]
assert len(re.findall("<rect class=\"box\"", graph.split("</svg>")[0])) == 7
assert "partition 0" in t[t.index("id=\"timeline\""):t.index("id=\"graph\"")]' "$tmp/lenet.html"
check "AlexNet: a weight load and an execution per subgraph on the timeline" $py -c '
import sys, json, re
t = open(sys.argv[1]).read()
n = len(json.load(open(sys.argv[2]))["latency_driven"]["schedule"])
tl = t[t.index("id=\"timeline\""):t.index("id=\"graph\"")]
assert len(re.findall("<title>subgraph \\d+ weights:", tl)) == n
assert len(re.findall("<title>subgraph \\d+:", tl)) == n' "$tmp/alexnet.html" "$tmp/alexnet.eval.json"
check "multi: one timeline lane per network and a bar per scheduled run" $py -c '
import sys, json, re
t = open(sys.argv[1]).read()
j = json.load(open(sys.argv[2]))
tl = t[t.index("id=\"timeline\""):t.index("id=\"graph\"")]
assert len(re.findall("<rect class=\"box\"", tl)) == len(j["schedule"])
for m in j["models"]:
    assert ">%s</text>" % m["model"] in tl' "$tmp/multi.html" "$tmp/multi.eval.json"

# ---- names are escaped; the same design gives the same bytes ----
cat >"$tmp/odd.py" <<'PY'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
w = numpy_helper.from_array(np.ones((4, 1, 3, 3), np.float32), "w")
f = numpy_helper.from_array(np.ones((10, 144), np.float32), "f")
nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name='conv<b>&"1\''),
         helper.make_node("Relu", ["c"], ["r"], name="relu</td>"),
         helper.make_node("Flatten", ["r"], ["fl"], name="flat"),
         helper.make_node("Gemm", ["fl", "f"], ["y"], name="fc&amp;", transB=1)]
g = helper.make_graph(nodes, "odd<&>", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 8, 8])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], [w, f])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
PY
if $py "$tmp/odd.py" "$tmp/odd.onnx" 2>/dev/null; then
  expect 0 "a model with markup in its names" -- optimise "$tmp/odd.onnx" --board zc706 -o "$tmp/odd.json"
  report odd streaming
  check "names are escaped" grep -q 'conv&lt;b&gt;&amp;&quot;1&#39;' "$tmp/odd.html"
  check "no name breaks out of its element" bash -c "! grep -q 'relu</td>' '$tmp/odd.html'"
else
  echo "skipped: the escaping case needs Debian's python3-onnx"
fi
expect 0 "LeNet again" -- export "$tmp/lenet.json" --format report-html -o "$tmp/lenet2.html"
check "the same design gives the same page" cmp -s "$tmp/lenet.html" "$tmp/lenet2.html"

# ---- failures: one line, exit 2, no file ----
# A file without any write bit is refused even for root (util/atomic_file.h).
echo old >"$tmp/locked.html"
chmod 444 "$tmp/locked.html"
untouched() { grep -qx old "$tmp/locked.html" && [ "$(ls -a "$tmp" | grep -c locked)" -eq 1 ]; }
for name in lenet alexnet multi resnet20 overlay; do
  expect 2 "$name: unwritable output" -- export "$tmp/$name.json" --format report-html -o "$tmp/locked.html"
  check "$name: the file left as it was, no temporary file" untouched
  expect 2 "$name: missing folder" -- export "$tmp/$name.json" --format report-html -o "$tmp/none/r.html"
  check "$name: no folder made" test ! -e "$tmp/none"
done
expect 2 "overlay: a format that does not apply names report-html" -- \
  export "$tmp/overlay.json" --format finn -o "$tmp/x.html"
check "the message names report-html" grep -q "report-html" "$tmp/err"
check "no file for a refused format" test ! -e "$tmp/x.html"
printf '{"format": "cnnmap-design"' >"$tmp/trunc.json"
expect 2 "a truncated design file" -- export "$tmp/trunc.json" --format report-html -o "$tmp/t.html"
check "no file for a bad design" test ! -e "$tmp/t.html"
expect 1 "a misspelt format" -- export "$tmp/lenet.json" --format report-htm -o "$tmp/t.html"
check "the usage error names report-html" grep -q "report-html" "$tmp/err"

finish
