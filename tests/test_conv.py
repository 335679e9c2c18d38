"""CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV anchors with their elementwise epilogues, and
PAD / PADV2 / MIRROR_PAD folded into them (family conv, on by default):
claimed as planned in every runtime, outputs match the runtime's own kernels,
batch resizes re-bind the convolution; with fusions=elementwise no convolution
or pad is claimed."""
import json

import pytest

import models
from procs import convert_and_compare, require_runtime, run_python
from checks import (KERNEL_VARIANTS, check_family_off, check_ops_claimed, check_result, check_variant, counts,
                    op_of)

MODELS = [s.name for s in models.conv_specs()]
RUNTIMES = ["tf", "tflite", "litert"]
CONV_ANCHORS = ("CONV_2D", "DEPTHWISE_CONV_2D") + models.RESIZE_OPS + models.TRANSPOSE_CONV_OPS
CONV_FAMILY_OPS = CONV_ANCHORS + ("CONCATENATION",) + models.PAD_OPS


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("name", MODELS)
def test_conv_with_epilogue(worker_results, manifest, runtime, name):
    entry = manifest[name]
    res = worker_results.get(runtime, names=MODELS)[name]
    if not res.get("skipped") and not res.get("error"):
        assert res["claimed"] == entry["expect_claimed"], (res["partition_nodes"], entry["ops"])
        check_ops_claimed(res, entry, CONV_ANCHORS)
    check_result(res, entry, counts(entry))


# The conv micro-kernels per ISA and the thread split, on one runtime.
VARIANTS = KERNEL_VARIANTS + [
    ("elementwise-conv", {"fusions": "elementwise,conv"}, None),  # no FULLY_CONNECTED in these models
]


@pytest.mark.parametrize("variant,options,cpu_flag", VARIANTS, ids=[v[0] for v in VARIANTS])
@pytest.mark.parametrize("name", MODELS)
def test_conv_option_variant(worker_results, manifest, name, variant, options, cpu_flag):
    check_variant(worker_results, manifest, MODELS, name, options, cpu_flag)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_conv_family_off_claims_no_convolution(worker_results, manifest, runtime):
    check_family_off(worker_results, manifest, MODELS, runtime, CONV_FAMILY_OPS)


def test_every_conv_model_has_a_convolution_or_a_resize(manifest):
    for name in MODELS:
        assert any(op_of(o) in CONV_ANCHORS for o in manifest[name]["ops"]), name


def profiled_programs(tmp_path, model, threads):
    """The delegate's programs (profile_file entries) after one invoke of `model` in LiteRT."""
    require_runtime("litert")
    profile = tmp_path / "profile.json"
    script = f"""
import numpy as np, fusedelegate
from ai_edge_litert.interpreter import Interpreter
d = fusedelegate.load(fusions="all", num_threads={threads}, profile_file={str(profile)!r})
it = Interpreter(model_path={str(model)!r}, num_threads={threads}, experimental_delegates=[d])
it.allocate_tensors()
it.invoke()
"""
    proc = run_python(["-c", script], timeout=120)
    assert proc.returncode == 0, proc.stderr
    return [p for part in json.loads(profile.read_text())["partitions"] for p in part["programs"]]


def test_squeeze_excite_gate_folds_into_the_project_conv(tmp_path, model_dir):
    """The gate's MUL runs inside the 1x1 project conv's program (its weights scaled), not as a pass."""
    ops = [p["ops"] for p in profiled_programs(tmp_path, model_dir / "squeeze_excite.tflite", 1)]
    assert "MUL+CONV_2D+ADD" in ops and "MUL" not in ops, ops


@pytest.mark.parametrize("threads", [1, 2])
def test_inverted_residual_runs_depth_first(tmp_path, model_dir, threads):
    """The blocks' programs run in strips (the profile says how tall); at two threads each thread
    takes half of the output rows, so strips are at most 28 of the 56 rows."""
    programs = profiled_programs(tmp_path, model_dir / "inverted_residual.tflite", threads)
    strips = [p.get("depth_first_strip_rows", 0) for p in programs]
    # Both blocks: expand, depthwise, project (and the next expand) in strips.
    assert sum(s > 0 for s in strips) >= 5 and all(0 < s <= 56 // threads for s in strips if s), programs
    if threads == 1:
        assert all(s < 56 for s in strips), programs


def test_transpose_conv_of_a_computed_output_shape_is_left_with_its_reason(worker_results, manifest):
    """With batch None the converter computes TRANSPOSE_CONV's output shape at run time: the
    plan leaves the layer and says why (the rest of the model runs as its spec states)."""
    name = "tconv_dynamic_batch"
    res, ops = worker_results.get("litert")[name], manifest[name]["ops"]
    node = next(n for n in res["plan"]["nodes"] if op_of(ops[n["id"]]) == "TRANSPOSE_CONV")
    assert node["partition"] < 0 and "output_shape is not a constant" in node["reason"], node


HYBRID_CONVS = """
import sys, numpy as np, tensorflow as tf
rng = np.random.RandomState(3)
def w(*shape):
    return tf.constant(rng.uniform(-0.5, 0.5, shape).astype(np.float32))
@tf.function(input_signature=[tf.TensorSpec([2, 9, 11, 50], tf.float32)])
def f(x):  # every layer of 1024+ weights: int8, run as TFLite's hybrid kernels
    y = tf.nn.relu(tf.nn.depthwise_conv2d(x, w(5, 5, 50, 1), [1, 1, 1, 1], "SAME") + w(50))
    y = tf.nn.conv2d(y, w(3, 3, 50, 44), 1, "SAME") + w(44)
    return tf.nn.depthwise_conv2d(y, w(5, 5, 44, 1), [1, 2, 2, 1], "VALID") + w(44)
c = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()], f)
c.optimizations = [tf.lite.Optimize.DEFAULT]
open(sys.argv[1], "wb").write(c.convert())
"""


def test_dynamic_range_convolutions_equal_the_hybrid_kernels_bit_for_bit(tmp_path):
    """int8-weight DEPTHWISE_CONV_2D (50 channels: four at a time and two left, which TFLite
    scales in different orders), CONV_2D and a strided DEPTHWISE_CONV_2D, all claimed: the
    outputs equal LiteRT's builtin hybrid kernels' to the bit."""
    ops, claimed, differ, size = convert_and_compare(tmp_path / "hybrid_convs.tflite", HYBRID_CONVS)
    assert ops == ["DEPTHWISE_CONV_2D", "CONV_2D", "DEPTHWISE_CONV_2D"], ops  # int8 weights, no DEQUANTIZE
    assert claimed == 3, f"fusedelegate claimed {claimed} of {ops}"
    assert differ == 0, f"{differ} of {size} outputs differ from the builtin kernels'"


FLOAT_BEFORE_HYBRID = """
import sys, numpy as np, tensorflow as tf
rng = np.random.RandomState(6)
def w(*shape):
    return tf.constant(rng.uniform(-0.5, 0.5, shape).astype(np.float32))
@tf.function(input_signature=[tf.TensorSpec([1, 40, 44, 3], tf.float32)])
def f(x):  # float layers (under 1024 weights) before int8-weight ones; their outputs are outputs too
    z = tf.nn.conv2d(x * w(3) - w(3), w(3, 3, 3, 16), 2, "SAME") + w(16)  # a normalised input, 432 weights
    z = z * tf.nn.relu6(z + 3.0) * (1.0 / 6.0)  # HARD_SWISH
    d = tf.nn.relu6(tf.nn.depthwise_conv2d(z, w(3, 3, 16, 1), [1, 1, 1, 1], "SAME") + w(16))
    y = d * w(16) + z
    q = tf.nn.relu(tf.nn.conv2d(y, w(1, 1, 16, 80), 1, "SAME") + w(80))  # int8 weights from here on
    return z, d, y, tf.reduce_mean(y, [1, 2]), tf.nn.conv2d(q, w(3, 3, 80, 24), 1, "SAME") + w(24)
c = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()], f)
c.optimizations = [tf.lite.Optimize.DEFAULT]
open(sys.argv[1], "wb").write(c.convert())
"""


def test_float_layers_before_dynamic_range_ones_round_as_the_builtin_kernels(tmp_path):
    """A dynamic-range model's float layers (the stem conv of a normalised input, HARD_SWISH, a
    small depthwise, a MUL and ADD, MEAN) feed the int8-weight convolutions, which quantize their
    input: so they round as the builtin kernels do (the normalisation not folded into the
    weights, products rounded and summed in order, no fma), and every output, theirs and the
    int8 layers', equals LiteRT's builtin kernels' to the bit. With fma sums a third of the float
    outputs were an ulp off, and in MobileNetV2 such ulps moved the quantized inputs by a step."""
    model = tmp_path / "float_before_hybrid.tflite"
    ops, claimed, differ, size = convert_and_compare(model, FLOAT_BEFORE_HYBRID)
    assert ops == ["MUL", "SUB", "CONV_2D", "HARD_SWISH", "DEPTHWISE_CONV_2D", "MUL", "ADD", "CONV_2D", "CONV_2D",
                   "MEAN"], ops
    assert claimed == len(ops), f"fusedelegate claimed {claimed} of {ops}"
    assert differ == 0, f"{differ} of {size} outputs differ from the builtin kernels'"
    # The plan names the nodes that round so: those before the int8 convolutions, not these nor the MEAN after.
    out = tmp_path / "plan.json"
    proc = run_python(["-m", "fusedelegate", "plan", str(model), "--runtime", "litert", "--json", str(out)],
                      timeout=300)
    assert proc.returncode == 0 and "round as the builtin kernels" in proc.stdout, proc.stdout + proc.stderr
    marks = [n["rounds_as_builtin"] for n in sorted(json.loads(out.read_text())["nodes"], key=lambda n: n["id"])]
    assert marks == [True] * 7 + [False] * 3, marks


SQUEEZE_EXCITE_BEFORE_HYBRID = """
import sys, numpy as np, tensorflow as tf
rng = np.random.RandomState(8)
def w(*shape):
    return tf.constant(rng.uniform(-0.5, 0.5, shape).astype(np.float32))
@tf.function(input_signature=[tf.TensorSpec([1, 9, 11, 24], tf.float32)])
def f(x):  # float layers (under 1024 weights) before an int8-weight one; sizes not multiples of 4
    z = tf.nn.conv2d(x, w(1, 1, 24, 27), 1, "SAME") + w(27)
    z = z * tf.sigmoid(z)  # swish over 2673 values
    s = tf.reduce_mean(z, [1, 2], keepdims=True)
    s = tf.nn.conv2d(s, w(1, 1, 27, 7), 1, "SAME") + w(7)  # squeeze-excite: one pixel
    s = s * tf.sigmoid(s)
    g = tf.sigmoid(tf.nn.conv2d(s, w(1, 1, 7, 27), 1, "SAME") + w(27))
    y = z * g
    return z, s, g, y, tf.nn.conv2d(y, w(1, 1, 27, 64), 1, "SAME") + w(64)  # int8 weights
c = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()], f)
c.optimizations = [tf.lite.Optimize.DEFAULT]
open(sys.argv[1], "wb").write(c.convert())
"""


def test_squeeze_excite_before_a_dynamic_range_layer_rounds_as_the_builtin_kernels(tmp_path):
    """EfficientNet's blocks before an int8-weight layer: LOGISTIC as the builtin's (Eigen's
    formula over packets of 4, libm's exp on a tensor's last size % 4 values), convolutions of
    one pixel summed as its matrix-vector product, the last n % 4 channels of a GEMM in its
    order for them. Every output equals LiteRT's builtin kernels' to the bit (3668 of 11716
    values differed before)."""
    ops, claimed, differ, size = convert_and_compare(tmp_path / "se_before_hybrid.tflite", SQUEEZE_EXCITE_BEFORE_HYBRID)
    assert ops == ["CONV_2D", "LOGISTIC", "MUL", "MEAN", "CONV_2D", "LOGISTIC", "MUL", "CONV_2D", "LOGISTIC", "MUL",
                   "CONV_2D"], ops
    assert claimed == len(ops), f"fusedelegate claimed {claimed} of {ops}"
    assert differ == 0, f"{differ} of {size} outputs differ from the builtin kernels'"


RESIZED_CONVS = """
import sys, numpy as np, tensorflow as tf
rng = np.random.RandomState(4)
def w(*shape):
    return tf.constant(rng.uniform(-0.5, 0.5, shape).astype(np.float32))
@tf.function(input_signature=[tf.TensorSpec([None, 32, 32, 8], tf.float32)])
def f(x):  # intermediates of 128 KiB and more a batch, in the partition's own buffers
    y = tf.nn.relu(tf.nn.conv2d(x, w(3, 3, 8, 32), 1, "SAME") + w(32))
    y = tf.nn.conv2d(y, w(1, 1, 32, 32), 1, "SAME") + w(32)
    return tf.nn.conv2d(tf.nn.relu(y) + y, w(1, 1, 32, 16), 1, "SAME")
c = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()], f)
open(sys.argv[1], "wb").write(c.convert())
"""

RESIZE_CYCLES = """
import sys, numpy as np, fusedelegate
from ai_edge_litert.interpreter import Interpreter, OpResolverType
def run(delegates, batch, its={}):
    it = its.setdefault(len(delegates), Interpreter(model_path=sys.argv[1], experimental_delegates=delegates,
        experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES))
    d = it.get_input_details()[0]
    it.resize_tensor_input(d["index"], [batch, 32, 32, 8])
    it.allocate_tensors()
    it.set_tensor(d["index"], np.random.default_rng(batch).uniform(-1, 1, [batch, 32, 32, 8]).astype(np.float32))
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"])
def rss():
    return int(open("/proc/self/statm").read().split()[1]) * 4096
delegate, worst = fusedelegate.load(), 0.0
for i in range(80):
    batch = 1 + i % 4
    got, want = run([delegate], batch), run([], batch)
    worst = max(worst, float(np.abs(got - want).max() / np.abs(want).max()))
    if i == 7:
        start = rss()
print(rss() - start, worst)
"""


def test_resizing_again_and_again_keeps_memory_flat(tmp_path):
    """A dynamic-batch model resized 80 times between batches 1 and 4 (each resize re-binds the
    partition): its outputs match the builtin kernels' every time, and after the first cycles
    the process's memory stays flat (it grew by about 2 MB a resize when every binding took new
    buffers and kept the old ones)."""
    require_runtime("tf")
    require_runtime("litert")
    model = tmp_path / "resized_convs.tflite"
    proc = run_python(["-c", RESIZED_CONVS, str(model)], timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    proc = run_python(["-c", RESIZE_CYCLES, str(model)], timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    growth, worst = proc.stdout.strip().splitlines()[-1].split(" ")
    assert float(worst) < 1e-5, worst
    assert int(growth) < 8 << 20, f"memory grew by {int(growth) >> 20} MiB over 72 resizes"
