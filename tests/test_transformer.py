"""Row ops of family transformer (on by default): BATCH_MATMUL of run-time
values (adj_x, one b shared by every batch), SOFTMAX, MEAN over the last axis
(LayerNorm), RESHAPE and TRANSPOSE, with their elementwise epilogues: claimed as
planned in every runtime, outputs match the runtime's own kernels, a dynamic
batch re-infers RESHAPE's -1; with fusions=elementwise no row op is claimed."""
import json

import pytest

import models
from checks import (KERNEL_VARIANTS, check_claims, check_invokes, check_family_off, check_ops_claimed,
                    check_result, check_variant, claimed_nodes, counts, op_of, tolerance)
from procs import convert_and_compare, run_python

MODELS = [s.name for s in models.transformer_specs()]
RUNTIMES = ["tf", "tflite", "litert"]


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("name", MODELS)
def test_row_ops_with_epilogues(worker_results, manifest, runtime, name):
    entry = manifest[name]
    res = worker_results.get(runtime, names=MODELS)[name]
    if not res.get("skipped") and not res.get("error"):
        check_ops_claimed(res, entry, models.ROW_OPS)
    check_result(res, entry, counts(entry))


@pytest.mark.parametrize("variant,options,cpu_flag", KERNEL_VARIANTS, ids=[v[0] for v in KERNEL_VARIANTS])
@pytest.mark.parametrize("name", MODELS)
def test_row_ops_option_variant(worker_results, manifest, name, variant, options, cpu_flag):
    check_variant(worker_results, manifest, MODELS, name, options, cpu_flag)


def test_only_the_transformer_family_claims_row_ops(worker_results, manifest):
    """fusions=elementwise,fully_connected,conv: the same models, no row op claimed."""
    results = worker_results.get("litert", {"fusions": "elementwise,fully_connected,conv"}, names=MODELS)
    for name in MODELS:
        entry, res = manifest[name], results[name]
        assert not res.get("error"), (name, res.get("traceback") or res["error"])
        claimed = claimed_nodes(res)
        assert not [i for i in claimed if op_of(entry["ops"][i]) in models.ROW_OPS], (name, claimed, entry["ops"])
        check_claims(res, entry, None)  # no hand count for this family set: the plan and the runtime agree
        check_invokes(res["invokes"], tolerance(entry, res), f"{name}: invoke")


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_transformer_family_off_claims_no_row_op(worker_results, manifest, runtime):
    check_family_off(worker_results, manifest, MODELS, runtime, models.ROW_OPS)


ATTENTION_BEFORE_HYBRID = """
import sys, numpy as np, tensorflow as tf
rng = np.random.RandomState(9)
def w(*shape):
    return tf.constant(rng.uniform(-0.3, 0.3, shape).astype(np.float32))
def heads(t):  # [1, 12, 28] -> [1, 4, 12, 7]
    return tf.transpose(tf.reshape(t, [1, 12, 4, 7]), [0, 2, 1, 3])
@tf.function(input_signature=[tf.TensorSpec([1, 12, 40], tf.float32)])
def f(x):  # float layers between int8-weight ones (each of 1024 weights or more)
    q, k, v = (heads(tf.matmul(x, w(40, 28))) for _ in range(3))
    p = tf.nn.softmax(tf.matmul(q, k, transpose_b=True) * 0.37)  # rows of 12
    ctx = tf.reshape(tf.transpose(tf.matmul(p, v), [0, 2, 1, 3]), [1, 12, 28])  # 7 columns a head
    h = x + tf.matmul(ctx, w(28, 40))
    mean = tf.reduce_mean(h, -1, keepdims=True)  # over 40 values
    var = tf.reduce_mean(tf.math.squared_difference(h, mean), -1, keepdims=True)
    h = (h - mean) * tf.math.rsqrt(var + 1e-3) * w(40) + w(40)
    g = tf.nn.gelu(tf.matmul(h, w(40, 61)))  # 732 values
    p0 = tf.nn.softmax(tf.matmul(q[:, :, :1], k, transpose_b=True))  # one query row
    c0 = tf.reshape(tf.matmul(p0, v), [1, 1, 28])
    g0 = tf.nn.gelu(tf.matmul(c0, w(28, 63)))  # 63 values
    return h, g, c0, g0, tf.matmul(g, w(61, 40)), tf.matmul(g0, w(63, 40))
c = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()], f)
c.optimizations = [tf.lite.Optimize.DEFAULT]
open(sys.argv[1], "wb").write(c.convert())
"""


def test_attention_before_dynamic_range_layers_rounds_as_the_builtin_kernels(tmp_path):
    """A BERT block whose float ops feed int8-weight FULLY_CONNECTED layers: BATCH_MATMUL (one query
    row, 7 columns) in k order from zero, SOFTMAX with Eigen's exp and row sums, MEAN as Eigen's
    row sum divided by n, GELU with Eigen's erfc (libm's exp on the last size % 4 values). Every
    output equals LiteRT's builtin kernels' to the bit (616 of 1823 values differed before)."""
    ops, claimed, differ, size = convert_and_compare(tmp_path / "attention_before_hybrid.tflite",
                                                     ATTENTION_BEFORE_HYBRID)
    assert ops.count("FULLY_CONNECTED") == 8 and ops.count("GELU") == 2 and ops.count("SOFTMAX") == 2, ops
    assert differ == 0, f"{differ} of {size} outputs differ from the builtin kernels'"
    out = tmp_path / "plan.json"  # all claimed, the one-row slice of q (a 4-d STRIDED_SLICE) too
    proc = run_python(["-m", "fusedelegate", "plan", str(tmp_path / "attention_before_hybrid.tflite"), "--runtime",
                       "litert", "--json", str(out)], timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    left = [n["op"] for n in json.loads(out.read_text())["nodes"] if n["partition"] < 0]
    assert left == [] and claimed == len(ops), left


GELU_BEFORE_HYBRID = """
import sys, numpy as np, tensorflow as tf
w = tf.constant(np.random.RandomState(10).uniform(-0.1, 0.1, (4099, 24)).astype(np.float32))
@tf.function(input_signature=[tf.TensorSpec([1, 4099], tf.float32)])
def f(x):
    g = tf.nn.gelu(x * 9.0)  # both of erfc's branches; the last 3 values by the builtin's scalar code
    return g, tf.matmul(g, w)  # int8 weights
c = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()], f)
c.optimizations = [tf.lite.Optimize.DEFAULT]
open(sys.argv[1], "wb").write(c.convert())
"""


def test_gelu_before_a_dynamic_range_layer_rounds_as_the_builtin_kernel(tmp_path):
    """GELU over inputs in [-9, 9] (Eigen's erfc: its series below |x| = sqrt 2, its e^-x^2
    rational above; libm's exp on the last 4099 % 4 values) feeding an int8-weight layer:
    bit-equal to LiteRT's builtin kernels."""
    ops, claimed, differ, size = convert_and_compare(tmp_path / "gelu_before_hybrid.tflite", GELU_BEFORE_HYBRID)
    assert ops == ["MUL", "GELU", "FULLY_CONNECTED"] and claimed == 3, ops
    assert differ == 0, f"{differ} of {size} outputs differ from the builtin kernels'"


ROWS_OF_13_BEFORE_HYBRID = """
import sys, numpy as np, tensorflow as tf
w = tf.constant(np.random.RandomState(1).uniform(-0.1, 0.1, (13, 97)).astype(np.float32))
@tf.function(input_signature=[tf.TensorSpec([1, 23, 13], tf.float32)])
def f(x):  # rows of 13: most start off the builtin's 4-float packets; 299 values, the last 3 its scalar code's
    m = tf.reduce_mean(x * 3.0, -1, keepdims=True)
    s = tf.nn.softmax(x * 3.0)
    return m, s, tf.matmul(x - m, w), tf.matmul(s, w)  # int8 weights
c = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()], f)
c.optimizations = [tf.lite.Optimize.DEFAULT]
open(sys.argv[1], "wb").write(c.convert())
"""


def test_rows_off_the_builtins_packets_round_as_the_builtin_kernels(tmp_path):
    """MEAN and SOFTMAX over rows of 13 before int8-weight layers: each row's sum starts at its
    first value on a 4-float boundary of the tensor (the ones before it added after), SOFTMAX's
    exp is libm's on the tensor's last size % 4 values, as in LiteRT's builtin kernels: every
    output equal to theirs to the bit (rows 1, 3, 5, ... differed when rows were summed from
    their first value)."""
    ops, claimed, differ, size = convert_and_compare(tmp_path / "rows_of_13.tflite", ROWS_OF_13_BEFORE_HYBRID)
    assert ops.count("MEAN") == 1 and ops.count("SOFTMAX") == 1 and claimed == len(ops), ops
    assert differ == 0, f"{differ} of {size} outputs differ from the builtin kernels'"

