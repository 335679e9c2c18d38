"""Generates the test models for fusedelegate, and the bundled default model.

    python tests/models.py OUTDIR [--only NAME ...]   # OUTDIR/<name>.tflite + manifest.json
    python tests/models.py --default-model PATH       # the package's default_model.tflite

Every model is a tf.function converted with tf.lite.TFLiteConverter; constants come
from fixed seeds, and the output is byte-for-byte reproducible. Each spec states by
hand how many nodes the delegate claims with default options (every fusion family:
anchors FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D, pools and spatial MEAN, with
PAD / PADV2 / MIRROR_PAD folded into a convolution or pool; row ops of family
transformer; elementwise ops) and in how many fused groups they run (a group the
runtime's partitions cut runs as two), and the same with the elementwise family
alone (fusions=elementwise). The tests compare those counts with the plan the
delegate itself writes (option plan_file); nothing here re-plans. After conversion
the generator checks the model the converter actually emitted: the ops a spec
exercises (`emits`, or the op of an op_* spec) are there, and the hand counts fit in
the model; it also stops when some claimable op is emitted by no model.

manifest.json, per model: file, about, expect_claimed and expect_partitions (nodes
claimed and fused groups with default options), expect_claimed_elementwise and
expect_partitions_elementwise (with fusions=elementwise), ops (as emitted, "ADD+RELU6",
"GELU approximate=True", "CONV_2D+RELU6 stride=2x2 padding=VALID"),
approx_ops, input_ranges, input_dtypes, dynamic_batch, shape_signatures,
resize_cases (each {key, shapes}: a shape per input the worker resizes to), bytes.

This module imports TensorFlow only when it generates models, so the test suite
can import it to list model names cheaply.
"""
import argparse
import hashlib
import json
import os
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

# Elementwise ops the delegate claims (float32 only); binary ones may carry a fused activation.
BINARY_OPS = ("ADD", "SUB", "MUL", "DIV", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE", "POW", "PRELU")
UNARY_OPS = ("RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1", "LEAKY_RELU", "ELU", "LOGISTIC",
             "TANH", "HARD_SWISH", "GELU", "EXP", "LOG", "SQRT", "RSQRT", "SQUARE", "NEG", "ABS")
CLAIMABLE_OPS = BINARY_OPS + UNARY_OPS
# ... and in int8 (every operand int8 of one scale and zero point; QUANTIZE: int8 to int8).
INT8_OPS = ("ADD", "SUB", "MUL", "MAXIMUM", "MINIMUM", "PRELU", "RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1",
            "LEAKY_RELU", "LOGISTIC", "TANH", "ELU", "GELU", "EXP", "LOG", "HARD_SWISH", "ABS", "QUANTIZE",
            "SQUARED_DIFFERENCE")
# Anchors (families fully_connected and conv), with the pads folded into a convolution or pool.
RESIZE_OPS = ("RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR")  # their size is an int32 tensor
# Its first input is the int32 output shape, its data the third (TFLite's order).
TRANSPOSE_CONV_OPS = ("TRANSPOSE_CONV",)
ANCHOR_OPS = ("FULLY_CONNECTED", "CONV_2D", "DEPTHWISE_CONV_2D") + RESIZE_OPS + TRANSPOSE_CONV_OPS
PAD_OPS = ("PAD", "PADV2", "MIRROR_PAD")
# Row ops (family transformer): BATCH_MATMUL of two run-time values, SOFTMAX, MEAN,
# SUM, REDUCE_MAX and REDUCE_MIN over the last axis only (LayerNorm, a softmax's max),
# RESHAPE to a constant shape, TRANSPOSE.
ROW_OPS = ("BATCH_MATMUL", "SOFTMAX", "MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN", "RESHAPE", "TRANSPOSE")
# Ops whose math the delegate approximates (polynomials, not libm).
APPROX_OPS = ("EXP", "LOG", "TANH", "LOGISTIC", "GELU", "ELU", "POW")

WIDE = (-3.0, 3.0)  # default input range
POSITIVE = (0.5, 2.0)  # for LOG, SQRT, RSQRT, POW and denominators
RESIZE_BATCHES = (3, 0, 2)  # batches a dynamic model is resized to, in this order


@dataclass
class Spec:
    name: str
    fn: object  # fn(tf, *inputs) -> tensor or tuple of tensors
    shapes: list  # input shapes; None marks the dynamic batch
    claimed_elementwise: int  # nodes claimed with fusions=elementwise
    partitions_elementwise: int  # fused groups they run as (the plan file's groups: a runtime partition may split one)
    ranges: list = None  # per input (lo, hi); default WIDE
    about: str = ""
    quantize: bool = False  # int8 full-integer model
    # "float16": the converter's float16 weights, each read through a DEQUANTIZE;
    # "dynamic_int8": int8 weights read by float layers (the reference runs the float twin);
    # "sparse": the converter's sparsity optimization (sparse weights read through a DENSIFY, or
    # by a FULLY_CONNECTED itself); "sparse_float16": sparse float16 weights, DENSIFY then DEQUANTIZE;
    # "sparse_dynamic_int8": sparse int8 weights through a DENSIFY (the reference runs the float twin)
    weights: str = "float32"
    patch: dict = field(default_factory=dict)  # builtin op renames, e.g. RELU -> RELU_0_TO_1
    claimed_all: int = None  # nodes claimed with default options, every family; default: claimed_elementwise
    # int8 models: (nodes claimed, fused groups) with fusions "all,int8_conv"; default: claimed_all's
    int8_conv: tuple = None
    # int8 models: quantization steps by which tflite-runtime 2.14's builtin kernels (its own
    # rounding, docs/int8-semantics.md) may differ from LiteRT's and TF's, which we match
    steps_2_14: int = 0
    partitions_all: int = None  # fused groups they form; default: partitions_elementwise
    emits: tuple = ()  # op labels (or their start, up to an option) the converted model must hold
    # Per case, a shape per input the worker resizes to; default (a signature with -1s): the
    # batches of RESIZE_BATCHES in place of each -1.
    resizes: list = None
    start: list = None  # a shape per input to resize to before the first run (else the model's own)

    def input_ranges(self):
        return [list(r) for r in (self.ranges or [WIDE] * len(self.shapes))]

    @property
    def dynamic(self):
        return any(d is None for s in self.shapes for d in s)


def _rng(name):
    return np.random.RandomState(zlib.crc32(name.encode()))


def _const(name, shape, lo=0.5, hi=1.5):
    """A fixed constant (seeded by `name`), far enough from 0 to divide by."""
    return _rng(name).uniform(lo, hi, size=shape).astype(np.float32)


def _huge(name, shape, axis=-1):
    """Weights of magnitude 2e38-3e38, one sign per index along `axis` (alternating), every third
    small: with inputs of one sign every large sum overflows the float range, in any order."""
    w = _rng(name).uniform(2e38, 3e38, size=shape)
    o = np.arange(shape[axis]).reshape([-1] + [1] * (len(shape) - 1 - axis % len(shape)))
    return (w * np.where(o % 2, -1.0, 1.0) * np.where(o % 3 == 2, 1e-38, 1.0)).astype(np.float32)


def _sparse(name, shape, zeros=0.8, block_axis=None, block=4):
    """Fixed weights in [-0.5, 0.5) (seeded by `name`), `zeros` of them 0, or of their blocks of
    `block` along `block_axis`: sparse enough that the converter stores them sparse."""
    rng = _rng(name)
    w = rng.uniform(-0.5, 0.5, size=shape)
    keep_shape = list(shape)
    if block_axis is not None:
        keep_shape[block_axis] //= block
    keep = rng.uniform(size=keep_shape) >= zeros
    if block_axis is not None:
        keep = np.repeat(keep, block, axis=block_axis)
    return (w * keep).astype(np.float32)


def _hard_swish(tf, v):
    return v * tf.nn.relu6(v + 3.0) * (1.0 / 6.0)  # the converter emits HARD_SWISH


def _prelu(tf, v, tag, alpha_shape):
    """Keras' PReLU, relu(v) - alpha * relu(-v) with alpha of rank(v) - 1: the converter emits PRELU."""
    return tf.nn.relu(v) + tf.nn.relu(-v) * -_const(tag, alpha_shape, -0.3, 0.6)


# --- chains: step k maps the running value v (inputs x, y) to one elementwise op ---
CHAIN_STEPS = (
    lambda tf, v, x, y: v + y,  # ADD
    lambda tf, v, x, y: tf.tanh(v),
    lambda tf, v, x, y: v * y,  # MUL
    lambda tf, v, x, y: tf.sigmoid(v),  # LOGISTIC
    lambda tf, v, x, y: v - y,  # SUB
    lambda tf, v, x, y: tf.abs(v),
    lambda tf, v, x, y: tf.maximum(v, y),
    lambda tf, v, x, y: tf.negative(v),
    lambda tf, v, x, y: tf.minimum(v, x),
    lambda tf, v, x, y: tf.nn.elu(v),
    lambda tf, v, x, y: v * x,  # MUL
    lambda tf, v, x, y: tf.square(v),
    lambda tf, v, x, y: v - x,  # SUB
    lambda tf, v, x, y: tf.nn.leaky_relu(v, 0.2),
    lambda tf, v, x, y: _hard_swish(tf, v),
    lambda tf, v, x, y: v / _const("chain_div", [v.shape[-1]], 1.5, 2.5),  # DIV
    lambda tf, v, x, y: tf.tanh(v),
    lambda tf, v, x, y: tf.nn.relu6(v),
    lambda tf, v, x, y: v * y,  # MUL
    lambda tf, v, x, y: tf.exp(v),
)


def _chain(n):
    def fn(tf, x, y):
        v = x
        for step in CHAIN_STEPS[:n]:
            v = step(tf, v, x, y)
        return v
    return fn


def chain_specs():
    specs = []
    for n in (1, 2, 3, 5, 8, 13, 20):
        claimed = n if n >= 3 else 0  # min_nodes_per_partition defaults to 3
        specs.append(Spec(f"chain_{n}", _chain(n), [[1, 4, 4, 8], [1, 4, 4, 8]], claimed,
                          1 if claimed else 0, about=f"a chain of {n} mixed elementwise ops"))
    specs.append(Spec("batch4_chain_8", _chain(8), [[4, 5, 5, 3], [4, 5, 5, 3]], 8, 1,
                      about="batch 4"))
    return specs


# --- every op once: op then one follow-up op, so the pair forms a group of 2 ---
UNARY_FNS = {
    "RELU": lambda tf, x: tf.nn.relu(x),
    "RELU6": lambda tf, x: tf.nn.relu6(x),
    "RELU_N1_TO_1": lambda tf, x: tf.clip_by_value(x, -1.0, 1.0),
    "RELU_0_TO_1": lambda tf, x: tf.nn.relu(x),  # RELU, renamed in the flatbuffer
    "LEAKY_RELU": lambda tf, x: tf.nn.leaky_relu(x, 0.2),
    "ELU": lambda tf, x: tf.nn.elu(x),
    "LOGISTIC": lambda tf, x: tf.sigmoid(x),
    "TANH": lambda tf, x: tf.tanh(x),
    "HARD_SWISH": lambda tf, x: _hard_swish(tf, x),
    "GELU": lambda tf, x: tf.nn.gelu(x, approximate=False),
    "GELU_TANH": lambda tf, x: tf.nn.gelu(x, approximate=True),
    "EXP": lambda tf, x: tf.exp(x),
    "LOG": lambda tf, x: tf.math.log(x),
    "SQRT": lambda tf, x: tf.sqrt(x),
    "RSQRT": lambda tf, x: tf.math.rsqrt(x),
    "SQUARE": lambda tf, x: tf.square(x),
    "NEG": lambda tf, x: tf.negative(x),  # (then MUL: NEG then ADD becomes a SUB)
    "ABS": lambda tf, x: tf.abs(x),
}
UNARY_RANGES = {"LOG": POSITIVE, "SQRT": POSITIVE, "RSQRT": POSITIVE,
                "RELU6": (-8.0, 8.0), "HARD_SWISH": (-5.0, 5.0), "EXP": (-8.0, 8.0)}

BINARY_FNS = {
    "ADD": lambda tf, x, y: x + y,
    "SUB": lambda tf, x, y: x - y,
    "MUL": lambda tf, x, y: x * y,
    "DIV": lambda tf, x, y: x / y,
    "MAXIMUM": lambda tf, x, y: tf.maximum(x, y),
    "MINIMUM": lambda tf, x, y: tf.minimum(x, y),
    "SQUARED_DIFFERENCE": lambda tf, x, y: tf.math.squared_difference(x, y),
    "POW": lambda tf, x, y: tf.pow(x, y),
    # fused activations, one per kind and op
    "ADD_RELU": lambda tf, x, y: tf.nn.relu(x + y),
    "ADD_RELU6": lambda tf, x, y: tf.nn.relu6(x + y),
    "SUB_RELU6": lambda tf, x, y: tf.nn.relu6(x - y),
    "SUB_RELU_N1_TO_1": lambda tf, x, y: tf.clip_by_value(x - y, -1.0, 1.0),
    "MUL_RELU": lambda tf, x, y: tf.nn.relu(x * y),
    "MUL_RELU6": lambda tf, x, y: tf.nn.relu6(x * y),
    "MUL_RELU_N1_TO_1": lambda tf, x, y: tf.clip_by_value(x * y, -1.0, 1.0),
    "DIV_RELU": lambda tf, x, y: tf.nn.relu(x / y),
}
RELU6_RANGE = (-8.0, 8.0)  # reaches past 6
BINARY_RANGES = {"DIV": [WIDE, POSITIVE], "DIV_RELU": [WIDE, POSITIVE], "POW": [POSITIVE, WIDE],
                 "ADD_RELU6": [RELU6_RANGE] * 2, "SUB_RELU6": [RELU6_RANGE] * 2,
                 "MUL_RELU6": [RELU6_RANGE] * 2}


def op_specs():
    specs = []
    shape = [1, 3, 5, 8]
    for op, f in UNARY_FNS.items():
        rng = UNARY_RANGES.get(op, WIDE)
        # Three nodes: the smallest elementwise-only group claimed.
        fn = ((lambda tf, x, y, f=f: tf.abs(f(tf, x) * y)) if op == "NEG"
              else (lambda tf, x, y, f=f: tf.abs(f(tf, x) + y)))
        specs.append(Spec(f"op_{op.lower()}", fn, [shape, shape], 3, 1, ranges=[rng, WIDE],
                          about=f"{op} then {'MUL' if op == 'NEG' else 'ADD'}, ABS",
                          patch={"RELU": "RELU_0_TO_1"} if op == "RELU_0_TO_1" else {}))
    for op, f in BINARY_FNS.items():
        specs.append(Spec(f"op_{op.lower()}", lambda tf, x, y, f=f: tf.abs(f(tf, x, y) * x), [shape, shape],
                          3, 1, ranges=BINARY_RANGES.get(op), about=f"{op} then MUL, ABS"))
    return specs


# --- broadcasting ---
def broadcast_specs():
    def channel(tf, x, s, b):
        return tf.tanh(x * s + b)

    def spatial(tf, x, m):
        return tf.sigmoid(x - m) * m

    def scalar(tf, x, s):
        return tf.abs((x + s) * 0.75)

    def const_sides(tf, x):
        c = lambda tag, shape: _const("const_sides_" + tag, shape)
        v = c("a", [8]) - x  # constant on the left of SUB
        v = v - c("b", [1, 4, 1, 1])  # on the right of SUB
        v = c("c", [1, 1, 4, 8]) / (tf.abs(v) + 1.0)  # on the left of DIV
        return v / c("d", [8])  # on the right of DIV

    def both(tf, x, y):
        return tf.abs(tf.tanh(x + y))

    def odd(tf, x, y):
        return tf.abs(tf.tanh(x * y) - 0.5 * x)

    def rank5(tf, x, y):
        return tf.abs(x * y + 0.5)

    def group_order(tf, x, s):
        a = tf.tanh(x)  # group A starts first ...
        r = tf.exp(tf.abs(s) * 0.5)  # group B: [1,4,4,1], starts second
        return tf.abs(a * r)  # ... and A goes on reading B: B must run first

    def shape_change(tf, x, y):
        a = tf.tanh(x * 2.0) + 0.5  # [1,1,1,8]: a group of 3
        b = a * y  # [1,4,4,8]: a new shape, a new group
        return tf.abs(b) + 0.25

    return [
        Spec("bcast_channel", channel, [[1, 4, 4, 8], [8], [1, 1, 1, 8]], 3, 1,
             about="per-channel [C] and [1,1,1,C] inputs"),
        Spec("bcast_spatial", spatial, [[1, 4, 4, 8], [1, 4, 4, 1]], 3, 1,
             about="[1,H,W,1] input"),
        Spec("bcast_scalar", scalar, [[1, 4, 4, 8], []], 3, 1,
             about="a rank-0 input and a scalar constant"),
        Spec("bcast_const_sides", const_sides, [[1, 4, 4, 8]], 6, 1,
             emits=("SUB", "DIV"),
             about="constants on either side of SUB and DIV"),
        Spec("bcast_both", both, [[1, 1, 1, 8], [1, 4, 4, 1]], 3, 1,
             about="both operands broadcast"),
        Spec("bcast_odd", odd, [[3, 1, 13], [1, 7, 1]], 4, 2,
             about="odd sizes, both broadcast; the planned group MUL,TANH,SUB,ABS runs as two: the runtime "
                   "cuts its partitions at the unclaimed MUL 0.5*x, which comes between TANH and SUB"),
        Spec("bcast_rank5", rank5, [[2, 3, 1, 4, 5], [1, 1, 3, 1, 5]], 3, 1, about="rank 5"),
        Spec("group_order", group_order, [[1, 4, 4, 8], [1, 4, 4, 1]], 6, 2,
             about="a group that starts earlier reads one that starts later"),
        Spec("shape_change", shape_change, [[1, 1, 1, 8], [1, 4, 4, 1]], 6, 2,
             about="a consumer with a bigger output shape starts a new group"),
    ]


# --- graph structure ---
def structure_specs():
    def branch_join(tf, x, y):
        a = tf.tanh(x)
        return tf.abs(a * y + tf.exp(a))

    def intermediate_output(tf, x, y):
        b = tf.tanh(x * y)
        return tf.sigmoid(b + x), b

    def multi_io(tf, x, y, z):
        return tf.tanh(x * y) + z, tf.abs(z - y) * x

    def nonconvex(tf, x, y):
        a = tf.tanh(x * 0.5)
        b = a * y
        s = tf.sin(a)  # SIN, never claimed: leaves the group and comes back
        return tf.abs(b + s) * 2.0

    def split_by_opaque(tf, x, y):
        a = tf.sin(tf.tanh(x) * y + x)
        return tf.abs(tf.exp(a) * y)

    def lone_between(tf, x):
        a = tf.sin(tf.tanh(x))
        return tf.sin(tf.exp(a))

    def mutual_groups(tf, x, y):
        a = x + y
        e = tf.exp(x)
        b = a * tf.sin(e)  # SIN: opaque, between EXP and this MUL
        return b, e * a, a - e

    def mixed_after_resize(tf, x, y):
        e = tf.exp(y)  # [1, 8]: after a batch resize of x, smaller than x + e
        return e * 2.0, tf.tanh(x + e)

    def opaque_only(tf, x, w):
        h = tf.matmul(tf.reshape(x, [4, 8]), w)
        return tf.reduce_mean(tf.nn.softmax(h), axis=-1)

    s = [1, 4, 4, 8]
    return [
        Spec("branch_join", branch_join, [s, s], 5, 1, about="one tensor feeds two chains that join"),
        Spec("intermediate_output", intermediate_output, [s, s], 4, 1,
             about="a chain intermediate is also a graph output"),
        Spec("multi_io", multi_io, [s, s, s], 6, 2, about="3 inputs, 2 outputs, 2 disjoint chains"),
        Spec("nonconvex", nonconvex, [s, s], 6, 2,
             emits=("SIN",),
             about="ADD cannot join MUL,TANH,MUL: SIN between them would make a cycle"),
        Spec("split_by_opaque", split_by_opaque, [s, s], 6, 2, emits=("SIN",),
             about="two chains around a SIN"),
        Spec("lone_between", lone_between, [s], 0, 0, emits=("SIN",),
             about="lone elementwise ops between SINs"),
        Spec("opaque_only", opaque_only, [[1, 4, 8], [8, 8]], 0, 0, claimed_all=0, partitions_all=0,
             emits=("FULLY_CONNECTED", "SOFTMAX", "MEAN"),
             about="no elementwise op; the row ops (TRANSPOSE, SOFTMAX, MEAN) around a "
                   "FULLY_CONNECTED of run-time weights, which is declined: each row op alone, next to "
                   "no claimed anchor, is left by the policy (it saves nothing)"),
        Spec("mutual_groups", mutual_groups, [s, s], 4, 1,
             emits=("SIN",),
             about="EXP may not join ADD's group: each would read the other's values"),
        Spec("mixed_after_resize", mixed_after_resize, [[None, 8], [1, 8]], 4, 1,
             about="one group at batch 1; after a resize its values differ in shape: node by node"),
    ]


# --- sizes ---
def size_specs():
    specs = []
    for shape in ([1], [3], [1, 7], [13, 1], [131_071], [1_000_003]):
        n = int(np.prod(shape))
        specs.append(Spec(f"size_{n}", _chain(6), [shape, shape], 6, 1,
                          about=f"{n} elements (tails, thread splits)"))
    return specs


# --- dynamic batch, int8, a depth multiplier ---
def special_specs():
    def dyn(tf, x):
        v = x * _const("dyn_s", [8]) + _const("dyn_b", [8])
        return tf.abs(tf.tanh(v) * x)

    def dyn2(tf, x, y):
        return tf.exp(tf.tanh(x - y)) * y

    def quant(tf, x, y):
        return tf.tanh(x * y + x)

    def int8_weights_block(tf, x):  # dynamic-range int8 weights (1024+ elements: smaller ones stay float)
        c = tf.nn.relu(_conv(tf, x, "i8_conv", 3, 3, 128))
        d = _dwconv(tf, c, "i8_dw", 3, 3)
        m = tf.reduce_mean(d * tf.sigmoid(d), axis=[1, 2])
        return tf.tanh(tf.matmul(m, _const("i8_fc_w", [128, 32], -0.2, 0.2)) + _const("i8_fc_b", [32], -0.1, 0.1))

    def matmul_broadcast_later(tf, a, b):  # a's batch is 1, b's may change: they broadcast after a resize
        return tf.tanh(tf.matmul(a, b))

    def matmul_inner_broadcast(tf, a, b):  # both batches open; b's second axis 1 against a's 3
        return tf.tanh(tf.matmul(a, b))

    def dw_mult2_s2(tf, x):
        return tf.nn.relu(_dwconv(tf, x, "dw_mult2", 3, 3, multiplier=2, stride=2)) * _const("dw_mult2_s", [10])

    def tconv_int8(tf, x):  # 3x3x24x16 weights: int8 (tflite-runtime 2.14 has no hybrid TRANSPOSE_CONV)
        return tf.tanh(_tconv(tf, x, "tconv_i8", 3, 24))

    def tconv_dynamic(tf, x):  # batch None: the output shape is SHAPE, STRIDED_SLICE, PACK at run time
        c = _conv(tf, x, "tconv_dyn_conv", 3, 3, 8)
        return tf.nn.relu(_tconv(tf, c * tf.sigmoid(c), "tconv_dyn", 3, 6))

    def dense_computed_shape(tf, x):  # batch None: tensordot reshapes to shapes computed at run time
        h = tf.tensordot(x, _const("dcs_w", [16, 32], -0.2, 0.2), axes=[[2], [0]]) + _const("dcs_b", [32], -0.1, 0.1)
        return tf.tanh(h) * tf.abs(h)

    def prelu_dyn(tf, x):
        v = x * _const("prelu_dyn_s", [8]) + _const("prelu_dyn_b", [8], -0.5, 0.5)
        return tf.abs(_prelu(tf, v, "prelu_dyn_a", [1, 8]) - x)

    return [
        Spec("dynamic_batch", dyn, [[None, 6, 8]], 5, 1,
             about="batch None: resized to 3, 0 and 2 in the tests"),
        Spec("dynamic_batch_two_inputs", dyn2, [[None, 8], [None, 8]], 4, 1,
             about="two inputs with batch None"),
        Spec("dense_computed_shape", dense_computed_shape, [[None, 4, 16]], 4, 1, claimed_all=6, partitions_all=2,
             emits=("FULLY_CONNECTED", "PACK"),
             about="batch None: tensordot's FULLY_CONNECTED reads a RESHAPE to a shape computed at run time "
                   "([-1, -1] in its signature) and binds when the runtime prepares it, its rows known only "
                   "then; the RESHAPE back to [-1, 4, 32] (batch open) reads them, then ADD, ABS, TANH, MUL; resized"),
        Spec("prelu_dynamic_batch", prelu_dyn, [[None, 10, 8]], 5, 1, emits=("PRELU",),
             about="batch None: MUL, ADD, PRELU (alpha [1,C]), SUB, ABS; resized"),
        Spec("dw_mult2_s2", dw_mult2_s2, [[1, 11, 11, 5]], 0, 0, claimed_all=2, partitions_all=1,
             emits=("DEPTHWISE_CONV_2D+RELU stride=2x2 padding=SAME multiplier=2",),
             about="DEPTHWISE_CONV_2D multiplier 2 stride 2 + RELU (its input widened to 10 channels), "
                   "per-channel MUL"),
        Spec("int8_weights", int8_weights_block, [[2, 10, 10, 16]], 0, 0, claimed_all=7, partitions_all=4,
             weights="dynamic_int8", emits=("CONV_2D+RELU", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"),
             about="dynamic-range int8 weights read directly by the CONV_2D+RELU, DEPTHWISE_CONV_2D and "
                   "FULLY_CONNECTED (+TANH): each runs as TFLite's hybrid kernel (its input quantized to int8, "
                   "per image or per row), which the twin keeps; swish, MEAN"),
        Spec("tconv_int8_weights", tconv_int8, [[1, 5, 6, 16]], 0, 0, claimed_all=2, partitions_all=1,
             weights="dynamic_int8", emits=("TRANSPOSE_CONV stride=2x2 padding=SAME",),
             about="TRANSPOSE_CONV with dynamic-range int8 weights, dequantized by the front end (the runtime "
                   "left to itself runs its hybrid kernel; tflite-runtime 2.14 has none), TANH"),
        Spec("tconv_dynamic_batch", tconv_dynamic, [[None, 5, 6, 4]], 0, 0, claimed_all=3, partitions_all=1,
             emits=("TRANSPOSE_CONV+RELU", "PACK"),
             about="batch None: CONV_2D + swish claimed; the TRANSPOSE_CONV's output shape is computed at run "
                   "time (SHAPE, STRIDED_SLICE, PACK): left, with that reason; resized"),
        Spec("matmul_broadcast_later", matmul_broadcast_later, [[1, 7, 6], [None, 6, 5]], 0, 0,
             emits=("BATCH_MATMUL",),
             about="BATCH_MATMUL of a [1,7,6] and b [None,6,5]: their batches broadcast once b is resized, "
                   "which the anchor does not do (only one b for every batch of a): left, and so is the TANH"),
        Spec("matmul_inner_broadcast", matmul_inner_broadcast, [[None, 3, 4, 5], [None, 1, 5, 2]], 0, 0,
             emits=("BATCH_MATMUL",),
             about="BATCH_MATMUL of a [None,3,4,5] and b [None,1,5,2]: at batch 1 b is one matrix for every "
                   "batch, resized it broadcasts along the second axis only, which the anchor does not do: "
                   "left, and so is the TANH; resized"),
        Spec("int8_quantized", quant, [[1, 4, 4, 8], [1, 4, 4, 8]], 1, 1, quantize=True,
             about="full-integer int8 (int8 inputs and outputs): MUL and ADD of two independent inputs are "
                   "left (slower than XNNPACK's loops so far); the TANH runs as a table"),
    ] + int8_specs()


# --- full-integer int8 models (int8 inputs and outputs): elementwise groups as tables ---
def int8_specs():
    def chain(tf, x):  # one source: every op one table, whatever its length
        y = tf.sigmoid(x) * x
        y = y * tf.nn.relu6(y + 3.0) / 6.0
        y = tf.nn.leaky_relu(y, 0.15)
        y = tf.tanh(y) + tf.nn.relu6(y)
        y = y * _const("q8_scale", [24], -1.5, 1.5) + _const("q8_shift", [24], -0.5, 0.5)
        return tf.minimum(tf.maximum(y, -0.75), 2.5)

    def two_sources(tf, x, y):  # ops of two inputs run their integer arithmetic
        s = tf.nn.relu(x + y)
        d = x - tf.sigmoid(y)
        return tf.tanh(s * d), tf.maximum(x, y) - tf.minimum(x, y)

    def tiny_scales(tf, x):  # HARD_SWISH of scales near 1e-9: its int16 shifts go past 15 bits
        y = x * 3e-8
        return y * tf.nn.relu6(y + 3.0) / 6.0

    def tabulated(tf, x):  # the ops TFLite's int8 kernels tabulate from float functions, and PRELU, ABS
        y = _prelu(tf, x, "q8_prelu", [1, 1, 16])
        e = tf.abs(y) - y * 0.5
        g = tf.nn.gelu(e, approximate=False) - tf.nn.gelu(y, approximate=True)
        return tf.math.log(tf.exp(g * 0.5) * 1.5)

    def fc_chain(tf, x):  # int8 FULLY_CONNECTED (per-channel weights) with tables fused after it
        y = tf.matmul(x, _const("q8_fc_w", [96, 40], -0.3, 0.3)) + _const("q8_fc_b", [40], -1.0, 1.0)
        y = tf.sigmoid(y) * y
        return tf.tanh(tf.matmul(y, _const("q8_fc_w2", [40, 24], -0.3, 0.3)))

    def fc_rows(tf, x):  # rows of a rank-3 input (keep_num_dims), RELU6 fused, then HARD_SWISH
        y = tf.nn.relu6(tf.matmul(x, _const("q8_fcr_w", [33, 20], -0.4, 0.4)))
        return y * tf.nn.relu6(y + 3.0) / 6.0

    def residuals(tf, x):  # ADD and SUB of a layer's output and another input, in the layer's group
        y = tf.nn.relu(tf.nn.depthwise_conv2d(x, _const("q8_r1", [3, 3, 16, 1], -0.5, 0.5), [1, 1, 1, 1], "SAME")) + x
        z = y + tf.nn.conv2d(y, _const("q8_r2", [1, 1, 16, 16], -0.3, 0.3), 1, "SAME")
        w = tf.tanh(tf.nn.conv2d(z, _const("q8_r3", [3, 3, 16, 16], -0.2, 0.2), 1, "SAME")) - z
        return x - tf.nn.relu6(w)

    def attention(tf, x):  # int8 BATCH_MATMUL of two run-time values: the scores, then their weighted sum
        q = tf.matmul(x, _const("q8_aq", [16, 16], -0.4, 0.4))
        k = tf.matmul(x, _const("q8_ak", [16, 16], -0.4, 0.4))
        v = tf.tanh(tf.matmul(x, _const("q8_av", [16, 16], -0.4, 0.4)))
        s = tf.matmul(q, k, transpose_b=True) * 0.25
        return tf.matmul(tf.nn.softmax(s), v), tf.matmul(_const("q8_al", [2, 4, 12], -0.5, 0.5), x)

    def variance(tf, x):  # LayerNorm's statistics: SQUARED_DIFFERENCE of x and its row mean
        v = tf.reduce_mean(tf.math.squared_difference(x, tf.reduce_mean(x, axis=-1, keepdims=True)), -1, True)
        return v, tf.math.squared_difference(x, tf.tanh(x))

    def fc_residuals(tf, x):
        y = tf.matmul(x, _const("q8_fr1", [32, 32], -0.3, 0.3)) + x
        return tf.tanh(tf.matmul(y, _const("q8_fr2", [32, 32], -0.3, 0.3)) - y)

    def conv_chain(tf, x):  # int8 CONV_2D of every geometry, each with tables fused after it
        y = tf.nn.relu(tf.nn.conv2d(x, _const("q8_c1", [3, 3, 8, 24], -0.3, 0.3), 1, "SAME")
                       + _const("q8_c1_b", [24], -0.5, 0.5))
        y = y * tf.nn.relu6(y + 3.0) / 6.0
        y = tf.nn.conv2d(y, _const("q8_c2", [3, 3, 24, 16], -0.2, 0.2), 2, "VALID") + _const("q8_c2_b", [16])
        y = tf.sigmoid(y) * y
        y = tf.tanh(tf.nn.conv2d(y, _const("q8_c3", [1, 1, 16, 32], -0.4, 0.4), 1, "SAME"))
        y = tf.nn.relu6(tf.nn.conv2d(y, _const("q8_c4", [5, 3, 32, 8], -0.2, 0.2), 1, "SAME", dilations=2))
        return tf.sigmoid(tf.nn.conv2d(y, _const("q8_c5", [1, 1, 8, 12], -0.5, 0.5), 2, "SAME"))

    def conv_odd_channels(tf, x):  # int8 CONV_2D of 3, 6, 7 and 5 input channels (not a multiple of 4)
        y = tf.nn.relu6(tf.nn.conv2d(x, _const("q8_o1", [3, 3, 3, 6], -0.4, 0.4), 1, "SAME"))
        y = y * tf.nn.relu6(y + 3.0) / 6.0
        y = tf.sigmoid(tf.nn.conv2d(y, _const("q8_o2", [3, 3, 6, 7], -0.3, 0.3), 2, "SAME"))
        y = tf.tanh(tf.nn.conv2d(y, _const("q8_o3", [3, 2, 7, 5], -0.3, 0.3), 1, "VALID"))
        return tf.sigmoid(tf.nn.conv2d(y, _const("q8_o4", [3, 3, 5, 12], -0.4, 0.4), 1, "SAME"))

    def pad_folds(tf, x):  # int8 PADs (of the zero point) folded into the int8 layer after each
        y = tf.pad(x, [[0, 0], [1, 2], [0, 1], [0, 0]])
        y = tf.nn.depthwise_conv2d(y, _const("q8_pd1", [3, 3, 12, 1], -0.5, 0.5), [1, 2, 2, 1], "VALID")
        y = y * tf.nn.relu6(y + 3.0) / 6.0
        y = tf.pad(y, [[0, 0], [2, 1], [1, 1], [0, 0]])
        return tf.sigmoid(tf.nn.conv2d(y, _const("q8_pc1", [3, 3, 12, 16], -0.3, 0.3), 1, "VALID"))

    def depthwise_chain(tf, x):  # int8 DEPTHWISE_CONV_2D: depths off 8 (TFLite rounds the last depth % 8 apart)
        y = tf.nn.relu6(tf.nn.depthwise_conv2d(x, _const("q8_d1", [3, 3, 21, 1], -0.5, 0.5), [1, 1, 1, 1], "SAME")
                        + _const("q8_d1_b", [21], -0.5, 0.5))
        y = y * tf.nn.relu6(y + 3.0) / 6.0
        y = tf.nn.depthwise_conv2d(y, _const("q8_d2", [3, 3, 21, 2], -0.4, 0.4), [1, 2, 2, 1], "VALID")
        y = tf.sigmoid(y) * y
        y = tf.nn.depthwise_conv2d(y, _const("q8_d3", [5, 5, 42, 1], -0.3, 0.3), [1, 1, 1, 1], "SAME",
                                   dilations=[2, 2])
        return tf.tanh(y)

    def layers_alone(tf, x):  # int8 layers with nothing fused after them are left
        y = tf.nn.relu(tf.nn.depthwise_conv2d(x, _const("q8_da", [3, 3, 16, 1], -0.5, 0.5), [1, 1, 1, 1], "SAME"))
        return tf.nn.conv2d(y, _const("q8_ca", [1, 1, 16, 8], -0.4, 0.4), 1, "SAME")

    return [
        Spec("int8_layers_alone", layers_alone, [[1, 9, 10, 16]], 0, 0, quantize=True,
             about="int8 DEPTHWISE_CONV_2D (RELU fused), then a 1x1 CONV_2D, nothing fused after either: both "
                   "left (policy: claimed alone, each split XNNPACK's partition and real keyword spotters and "
                   "wake-word nets of such layers ran 1.17-1.42x slower), with fusions int8_conv too"),
        Spec("int8_depthwise_chain", depthwise_chain, [[1, 15, 13, 21]], 4, 3, quantize=True, claimed_all=7,
             partitions_all=3, steps_2_14=2, resizes=[[[2, 9, 7, 21]], [[1, 5, 6, 21]], [[0, 15, 13, 21]]],
             about="int8 DEPTHWISE_CONV_2D 3x3 of 21 channels (RELU6 fused), 3x3 stride 2 VALID of multiplier 2, "
                   "5x5 of dilation 2 on 42 channels, each the first step of a group with the tables after it "
                   "(HARD_SWISH, x * LOGISTIC(x), TANH); the last depth % 8 channels rounded as TFLite's scalar "
                   "tail (tflite-runtime 2.14 rounds every channel so: up to 2 steps apart after three layers)"),
        Spec("int8_conv_chain", conv_chain, [[2, 13, 11, 8]], 5, 4, quantize=True, int8_conv=(9, 4),
             resizes=[[[1, 9, 7, 8]], [[3, 5, 6, 8]], [[0, 13, 11, 8]]],
             about="int8 CONV_2D 3x3 (SAME, RELU fused), 3x3 stride 2 VALID, 1x1 dense, 5x3 of dilation 2 "
                   "(RELU6 fused: alone, left), 1x1 stride 2: left by default (slower than XNNPACK's so far), "
                   "the tables after them claimed (HARD_SWISH, x * LOGISTIC(x), TANH, LOGISTIC); with fusions "
                   "int8_conv each convolution is the first step of its group"),
        Spec("int8_conv_odd_channels", conv_odd_channels, [[2, 11, 9, 3]], 4, 4, quantize=True, int8_conv=(8, 4),
             resizes=[[[1, 6, 5, 3]], [[3, 11, 9, 3]], [[0, 11, 9, 3]]],
             about="int8 CONV_2D of 3 input channels (a stem: each tap's 3 bytes read as 4 against a zero weight, "
                   "the input's last pixel from a copy), 6 and 7 (the same), 5 (an im2col copy: 8 would be 60% "
                   "more work), each with a table after it; left by default, claimed with fusions int8_conv"),
        Spec("int8_pad_folds", pad_folds, [[1, 11, 9, 12]], 2, 2, quantize=True, claimed_all=4, partitions_all=2,
             int8_conv=(6, 2), steps_2_14=3,
             resizes=[[[2, 9, 7, 12]], [[1, 4, 4, 12]]], emits=("PAD",),
             about="int8 PAD of H and W (asymmetric) folded into the DEPTHWISE_CONV_2D (stride 2, VALID) reading "
                   "it, HARD_SWISH after; a PAD before a CONV_2D left with it by default, folded with fusions "
                   "int8_conv (no batch 0: tf.lite's and tflite-runtime's own kernels crash on it, SIGFPE; "
                   "tflite-runtime 2.14 rounds every depthwise channel as the reference kernels do: up to 3 steps "
                   "apart after the HARD_SWISH and the conv)"),
        Spec("int8_residuals", residuals, [[2, 10, 9, 16]], 1, 1, quantize=True, claimed_all=3, partitions_all=2,
             int8_conv=(7, 3), resizes=[[[1, 7, 5, 16]], [[3, 10, 9, 16]]],
             about="int8 ADD of a DEPTHWISE_CONV_2D's output (RELU fused) and the layer's own input, fused into "
                   "the layer's group (TFLite's three roundings as one linear form in 32-bit fixed point, the "
                   "exact arithmetic where that lies near a rounding boundary); by default the ADD after a 1x1 "
                   "CONV_2D and the SUB (RELU6 fused) after a 3x3 CONV_2D + TANH are left with the convolutions, "
                   "the TANH a table; with fusions int8_conv each joins its convolution's group; a SUB of two "
                   "inputs neither from a layer is left (no batch 0: tf.lite's and tflite-runtime's own int8 "
                   "depthwise kernels crash on it, SIGFPE)"),
        Spec("int8_attention", attention, [[2, 12, 16]], 2, 2, quantize=True, claimed_all=5, partitions_all=3,
             emits=("BATCH_MATMUL",), steps_2_14=1, resizes=[[[3, 12, 16]], [[1, 5, 16]], [[0, 12, 16]]],
             about="int8 BATCH_MATMUL of two run-time values (adj_y: q k^T, then the SOFTMAX's output times v), "
                   "each the first step of its group (the scale's MUL a table after the first), claimed alone "
                   "too: XNNPACK leaves int8 BATCH_MATMUL to TFLite's reference kernel (LiteRT and tf.lite bit "
                   "for bit; tflite-runtime 2.14's own kernel a step apart); one of a constant left side is left"),
        Spec("int8_variance", variance, [[2, 6, 24]], 3, 2, quantize=True,
             emits=("SQUARED_DIFFERENCE",), resizes=[[[3, 6, 24]], [[1, 2, 24]], [[0, 6, 24]]],
             about="int8 SQUARED_DIFFERENCE of x and its row MEAN (LayerNorm's variance; TFLite's broadcast loop, "
                   "the same arithmetic): the mean's one value per row spread over the row, the op on 32-bit "
                   "lanes; and of x and TANH(x), one source: a table"),
        Spec("int8_fc_residuals", fc_residuals, [[6, 32]], 1, 1, quantize=True, claimed_all=5, partitions_all=2,
             about="int8 FULLY_CONNECTED + ADD of its input, FULLY_CONNECTED + SUB of that + TANH: each a group"),
        Spec("int8_fc_chain", fc_chain, [[7, 96]], 3, 2, quantize=True, claimed_all=5, partitions_all=2,
             about="int8 FULLY_CONNECTED, LOGISTIC and MUL (swish) as one group: the layer's GEMM (TFLite's "
                   "requantization as its x86 kernels round it) then one table; a second FULLY_CONNECTED and TANH"),
        Spec("int8_fc_rows", fc_rows, [[2, 5, 33]], 1, 1, quantize=True, claimed_all=2, partitions_all=1,
             about="int8 FULLY_CONNECTED of a [2,5,33] input keeping its axes, RELU6 fused, then HARD_SWISH"),
        Spec("int8_tabulated", tabulated, [[1, 8, 8, 16]], 12, 4, quantize=True,
             about="int8 PRELU (alpha per channel), ABS, GELU, EXP, LOG (TFLite's tables from float libm "
                   "functions) and the MUL/TANH the converter makes of the tanh GELU, composed into tables; the "
                   "GELU's DEQUANTIZE and what it splits off run apart"),
        Spec("int8_tiny_scales", tiny_scales, [[1, 8, 8, 32]], 2, 1, quantize=True,
             about="int8 MUL by a constant of 3e-8 and HARD_SWISH: gemmlowp's 16-bit rounding shift by more "
                   "than 15 bits (its mask cut to 16 bits), as TFLite computes it"),
        Spec("int8_chain", chain, [[1, 16, 16, 24]], 10, 2, quantize=True,
             about="int8 LOGISTIC, MUL (x * LOGISTIC(x)), HARD_SWISH, LEAKY_RELU, TANH, RELU6, ADD of two of "
                   "them, per-channel MUL, all of one input: one table per channel, bit-exact; the ADD of a "
                   "constant is left (TFLite's broadcast kernels round it by the value's place), and the "
                   "MAXIMUM and MINIMUM after it are a second table"),
        Spec("int8_two_sources", two_sources, [[2, 8, 8, 16], [2, 8, 8, 16]], 4, 4, quantize=True,
             about="int8 ADD (RELU), SUB, MUL, MAXIMUM, MINIMUM of two inputs and the QUANTIZEs (requantizes) "
                   "the converter puts before MAXIMUM: ops of two independent inputs are left (slower than "
                   "XNNPACK's so far); the QUANTIZEs, LOGISTIC and TANH are tables, one group each"),
    ]


# --- sparse weights (the converter's sparsity optimization) ---
def _sparse_conv_dw(tf, x, tag, cout, act):
    """act(CONV_2D 3x3 + bias), then a DEPTHWISE_CONV_2D 3x3, both of sparse weights."""
    w = _sparse(tag + "_conv", [3, 3, int(x.shape[-1]), cout])
    c = act(tf.nn.conv2d(x, w, 1, "SAME") + _const(tag + "_conv_b", [cout], -0.2, 0.2))
    return tf.nn.depthwise_conv2d(c, _sparse(tag + "_dw", [3, 3, cout, 1]), [1, 1, 1, 1], "SAME")


def sparse_specs():
    def sparse_block(tf, x):  # 80% zeros; the last FULLY_CONNECTED's in blocks of 4 inputs
        d = _sparse_conv_dw(tf, x, "sp", 32, tf.nn.relu)
        p = tf.nn.conv2d(d * tf.sigmoid(d), _sparse("sp_project", [1, 1, 32, 24]), 1, "SAME")
        h = tf.nn.relu(tf.matmul(tf.reduce_mean(p, axis=[1, 2]), _sparse("sp_fc", [24, 64]))
                       + _const("sp_fc_b", [64], -0.1, 0.1))
        return tf.matmul(h, _sparse("sp_fc_blocks", [64, 16], block_axis=0)) + _const("sp_fc_blocks_b", [16])

    def sparse_float16_block(tf, x):  # no blocks: TFLite's DEQUANTIZE misreads a sparse FULLY_CONNECTED's
        d = _sparse_conv_dw(tf, x, "sp16", 24, tf.nn.relu6)
        return tf.tanh(tf.matmul(tf.reduce_mean(d, axis=[1, 2]), _sparse("sp16_fc", [24, 32])))

    def sparse_gemm_block(tf, x):  # 85% of the blocks of 4 input channels zero: the sparse GEMM
        y = tf.nn.conv2d(x, _sparse("spg_s2", [3, 3, 64, 40], 0.85, block_axis=2), 2, "SAME")
        y = tf.nn.relu(y + _const("spg_s2_b", [40], -0.2, 0.2))
        y = tf.nn.conv2d(y, _sparse("spg_1x1", [1, 1, 40, 24], 0.85, block_axis=2), 1, "SAME")
        return y * _const("spg_s", [24])

    def sparse_int8_block(tf, x):  # layers of 1024+ weights get int8 ones, the depthwise keeps float32
        d = _sparse_conv_dw(tf, x, "sp8", 32, tf.nn.relu)
        return tf.matmul(tf.reduce_mean(d, axis=[1, 2]), _sparse("sp8_fc", [32, 64])) + _const("sp8_fc_b", [64])

    return [
        Spec("sparse_weights", sparse_block, [[None, 8, 8, 16]], 0, 0, claimed_all=12, partitions_all=6,
             weights="sparse", emits=("DENSIFY", "CONV_2D+RELU", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED+RELU"),
             about="the converter's sparsity optimization: CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED "
                   "weights read through a DENSIFY (the front end densifies them once; the DENSIFY folds "
                   "into its layer), the last FULLY_CONNECTED's in 1x4 blocks read sparse by the layer itself "
                   "(densified too); swish, MEAN; batch None, resized"),
        Spec("sparse_float16_weights", sparse_float16_block, [[1, 10, 10, 8]], 0, 0, claimed_all=13,
             partitions_all=4, weights="sparse_float16", emits=("DENSIFY", "DEQUANTIZE"),
             about="sparse float16 weights: each read through a DENSIFY then a DEQUANTIZE, both folded into "
                   "the CONV_2D+RELU6, DEPTHWISE_CONV_2D or FULLY_CONNECTED (+TANH); float16 biases through a "
                   "DEQUANTIZE; MEAN"),
        Spec("sparse_gemm_weights", sparse_gemm_block, [[1, 12, 13, 64]], 0, 0, claimed_all=4, partitions_all=2,
             weights="sparse", emits=("DENSIFY", "CONV_2D+RELU stride=2x2"),
             about="weights of 85% zero blocks of 4 input channels, read through a DENSIFY: a strided 3x3 "
                   "CONV_2D+RELU and a 1x1 CONV_2D (the converter folds the MUL after it into its weights), "
                   "as the sparse GEMM takes them (tests/cpp asserts the kernel: Program.SparseWeights...)"),
        Spec("sparse_gemm_float16_weights", sparse_gemm_block, [[1, 12, 13, 64]], 0, 0, claimed_all=8,
             partitions_all=2, weights="sparse_float16", emits=("DENSIFY", "DEQUANTIZE"),
             about="the same with float16 weights: DENSIFY then DEQUANTIZE, converted for the sparse GEMM"),
        Spec("sparse_int8_weights", sparse_int8_block, [[2, 8, 8, 16]], 0, 0, claimed_all=7, partitions_all=4,
             weights="sparse_dynamic_int8", emits=("DENSIFY", "CONV_2D+RELU", "FULLY_CONNECTED"),
             about="sparse weights with dynamic-range int8 quantization: int8 ones through a DENSIFY (densified, "
                   "then dequantized for the CONV_2D and FULLY_CONNECTED), the DEPTHWISE_CONV_2D's float32; "
                   "compared with the float twin (the runtime's own DENSIFY outputs, dequantized); tflite-runtime "
                   "2.14 cannot load its FULLY_CONNECTED (version 12): skipped there"),
    ]


# --- the bundled default model: a chain-heavy block ---
def _default_block(tf, x):
    c = x.shape[-1]
    gamma = _const("default_gamma", [c])
    beta = _const("default_beta", [c], -0.5, 0.5)
    s = x * tf.sigmoid(x)  # swish
    mu = tf.reduce_mean(s, axis=-1, keepdims=True)
    d = s - mu
    var = tf.reduce_mean(tf.square(d), axis=-1, keepdims=True)
    n = d * tf.math.rsqrt(var + 1e-5) * gamma + beta  # layer-norm-like
    return tf.nn.gelu(n, approximate=False) + x  # GELU, residual


def default_spec():
    # The converter turns square(s - mu) into SQUARED_DIFFERENCE(s, mu) beside the SUB.
    # With fusions=elementwise, groups: {SUB,MUL,MUL,ADD,GELU,ADD}; {LOGISTIC,MUL} and
    # {ADD,RSQRT} are too small to claim; the MEANs and the SQUARED_DIFFERENCE (alone:
    # joining the swish group would make a cycle) stay. By default the MEANs (last
    # axis) are row ops reading the rows of their group's tile, and everything is one
    # group over rows: the mean and variance are one value per row.
    return Spec("default_block", _default_block, [[1, 56, 56, 64]], 6, 1, claimed_all=13, partitions_all=1,
                emits=("SQUARED_DIFFERENCE", "MEAN", "GELU approximate=False"),
             about="the bundled default model: swish, layer-norm-like ops, GELU, residual")


# --- FULLY_CONNECTED anchors (family fully_connected) ---
def gemm_specs():
    def fc_gelu(tf, x):
        h = tf.matmul(x, _const("fc_gelu_w", [32, 48], -0.3, 0.3)) + _const("fc_gelu_b", [48], -0.2, 0.2)
        return tf.nn.gelu(h, approximate=False)

    def fc_mlp(tf, x):
        h = tf.nn.relu6(tf.matmul(x, _const("mlp_w1", [24, 40], -0.3, 0.3)) + _const("mlp_b1", [40], -0.2, 0.2))
        y = tf.matmul(h, _const("mlp_w2", [40, 24], -0.3, 0.3)) + _const("mlp_b2", [24], -0.2, 0.2)
        return tf.tanh(y + x)

    def fc_nobias(tf, x):
        return tf.sigmoid(tf.matmul(x, _const("nobias_w", [40, 56], -0.3, 0.3))) * 2.0

    def fc_huge_weights(tf, x):  # overflowing sums: the builtin kernels give FLT_MAX, not inf
        y = tf.matmul(x, _huge("fc_huge_w", [16, 20])) + _const("fc_huge_b", [20])
        return y, tf.nn.relu(tf.matmul(x, _huge("fc_huge_relu_w", [16, 12])) + _const("fc_huge_relu_b", [12]))

    def fc_float16(tf, x):  # float16 weights; the RESHAPE between is left (its planned shape is [1, 8])
        y = tf.nn.relu(_conv(tf, x, "f16_fc_conv", 3, 3, 8))
        return tf.matmul(tf.reshape(y, [-1, 8]), _const("f16_fc_w", [8, 5], -0.5, 0.5)) + _const("f16_fc_b", [5])

    def fc_large_dynamic(tf, x):  # 1.2 MB of weights: the GEMM streams them in row blocks
        return tf.tanh(tf.matmul(x, _const("fc_large_w", [300, 1000], -0.1, 0.1)) + _const("fc_large_b", [1000]))

    def fc_dynamic_int8(tf, a, b, c):  # each layer reads a model input: its rows quantized as the builtin's
        y1 = tf.nn.relu(tf.matmul(a, _const("fci8_w1", [37, 50], -0.3, 0.3)) + _const("fci8_b1", [50], -0.2, 0.2))
        y2 = tf.matmul(b, _const("fci8_w2", [130, 24], -0.3, 0.3))
        h = tf.tensordot(c, _const("fci8_w3", [64, 40], -0.3, 0.3), axes=[[2], [0]])
        return y1, y2, h + _const("fci8_b3", [40], -0.2, 0.2)

    return [
        Spec("fc_dynamic_int8", fc_dynamic_int8, [[3, 37], [2, 130], [2, 5, 64]], 0, 0, claimed_all=3,
             partitions_all=3, weights="dynamic_int8", emits=("FULLY_CONNECTED+RELU", "FULLY_CONNECTED"),
             about="dynamic-range int8 weights: FULLY_CONNECTED+RELU 37 -> 50 with bias, 130 -> 24 without, "
                   "64 -> 40 with bias on a rank-3 input (keep_num_dims), each alone in its group; run as "
                   "TFLite's hybrid kernel does (rows quantized to int8, an int8 GEMM), compared with it"),
        Spec("fc_gelu", fc_gelu, [[1, 24, 32]], 0, 0, claimed_all=2, partitions_all=1,
             emits=("FULLY_CONNECTED", "GELU"),
             about="FULLY_CONNECTED (3-D input) + GELU: a GEMM with its epilogue"),
        Spec("fc_mlp", fc_mlp, [[1, 16, 24]], 0, 0, claimed_all=4, partitions_all=2,
             emits=("FULLY_CONNECTED+RELU6", "FULLY_CONNECTED"),
             about="FC+RELU6 alone (an anchor is worth a group of its own; its consumer is a GEMM "
                   "and starts a new group), then FC + residual ADD + TANH"),
        Spec("fc_nobias", fc_nobias, [[None, 40]], 0, 0, claimed_all=3, partitions_all=1,
             emits=("FULLY_CONNECTED",),
             about="FULLY_CONNECTED without bias, dynamic batch: re-bound on resize"),
        Spec("fc_huge_weights", fc_huge_weights, [[3, 16]], 0, 0, claimed_all=2, partitions_all=2,
             ranges=[(1.0, 2.0)], about="FULLY_CONNECTED, and FULLY_CONNECTED+RELU, with weights near the float "
                                       "maximum: sums overflow, clamped to FLT_MAX as the builtin kernels do"),
        Spec("fc_float16", fc_float16, [[None, 6, 6, 4]], 0, 0, claimed_all=7, partitions_all=3,
             weights="float16", emits=("DEQUANTIZE", "FULLY_CONNECTED"),
             about="float16 weights through DEQUANTIZE: CONV_2D+RELU, a RESHAPE to [-1, 8] (stored as [1, 8], "
                   "a placeholder on the axis its signature leaves open), FULLY_CONNECTED and their "
                   "DEQUANTIZEs: one partition of 3 groups; batch None, resized"),
        Spec("fc_large_dynamic", fc_large_dynamic, [[None, 300]], 0, 0, claimed_all=2, partitions_all=1,
             about="FULLY_CONNECTED 300 -> 1000 (weights past 1 MiB: tiles of GEMM row blocks) + TANH, "
                   "dynamic batch, resized to 0 too"),
    ]


# --- CONV_2D / DEPTHWISE_CONV_2D anchors, and pads folded into them (family conv) ---
# The converter always gives a convolution a bias (zeros when the graph has none),
# and the runtimes' own kernels reject one without: no model here lacks a bias.
def _conv(tf, x, tag, kh, kw, cout, stride=1, padding="SAME", dilation=1, bias=True):
    w = _const(tag + "_w", [kh, kw, int(x.shape[-1]), cout], -0.3, 0.3)
    y = tf.nn.conv2d(x, w, strides=stride, padding=padding, dilations=dilation)
    return y + _const(tag + "_b", [cout], -0.2, 0.2) if bias else y


def _dwconv(tf, x, tag, kh, kw, multiplier=1, stride=1, padding="SAME", dilation=1):
    c = int(x.shape[-1])
    w = _const(tag + "_w", [kh, kw, c, multiplier], -0.5, 0.5)
    y = tf.nn.depthwise_conv2d(x, w, strides=[1, stride, stride, 1], padding=padding, dilations=[dilation, dilation])
    return y + _const(tag + "_b", [c * multiplier], -0.2, 0.2)


def _tconv(tf, x, tag, k, cout, stride=2, padding="SAME", bias=True):
    """Keras' Conv2DTranspose (k x k, the output size Keras gives) as tf.nn.conv2d_transpose: a
    TRANSPOSE_CONV whose output shape is a constant, or computed at run time with batch None."""
    sh, sw = (stride, stride) if isinstance(stride, int) else stride
    size = lambda n, s: n * s + (0 if padding == "SAME" else max(k - s, 0))
    dims = [size(int(x.shape[1]), sh), size(int(x.shape[2]), sw), cout]
    shape = [x.shape[0]] + dims if x.shape[0] is not None else tf.stack([tf.shape(x)[0]] + dims)
    w = _const(tag + "_w", [k, k, cout, int(x.shape[-1])], -0.3, 0.3)
    y = tf.nn.conv2d_transpose(x, w, shape, [sh, sw], padding)
    return y + _const(tag + "_b", [cout], -0.2, 0.2) if bias else y


def _pad(tf, x, top, bottom, left, right, mode="CONSTANT", value=0.0):
    return tf.pad(x, [[0, 0], [top, bottom], [left, right], [0, 0]], mode=mode, constant_values=value)


def conv_specs():
    def conv_relu6(tf, x):
        return tf.nn.relu6(_conv(tf, x, "conv_relu6", 3, 3, 16))

    def conv_s2_dil2(tf, x):
        return tf.nn.relu(_conv(tf, x, "conv_s2_dil2", 3, 3, 12, stride=2, padding="VALID", dilation=2))

    def conv_dil2_same(tf, x):
        return tf.clip_by_value(_conv(tf, x, "conv_dil2_same", 3, 3, 10, dilation=2), -1.0, 1.0)

    def dilated_winograd(tf, x):  # 16+ channels: Winograd tiles on lattices of step 2, then 3 by 2
        y = tf.nn.relu(_conv(tf, x, "conv_dil2_wino", 3, 3, 20, dilation=2))
        return _conv(tf, y, "conv_dil32_wino", 3, 3, 16, dilation=[3, 2])

    def conv1x1_affine(tf, x):
        y = tf.nn.leaky_relu(_conv(tf, x, "conv1x1", 1, 1, 40, padding="VALID", bias=False), 0.1)
        return y * _const("conv1x1_s", [40]) + _const("conv1x1_t", [40], -0.5, 0.5)  # per-channel

    def conv_swish_residual(tf, x):
        c = _conv(tf, x, "conv_swish", 3, 3, 16)
        return tf.nn.relu(c * tf.sigmoid(c) + x)

    def dw_hard_swish(tf, x):
        return _hard_swish(tf, _dwconv(tf, x, "dw_hswish", 3, 3))

    def conv_odd_channels(tf, x):
        y = tf.nn.relu(_conv(tf, x, "conv_odd", 3, 3, 37))
        return tf.tanh(_dwconv(tf, y, "dw_odd", 3, 3))

    def pad_yolo(tf, x):
        p = _pad(tf, x, 1, 0, 1, 0)  # darknet: top-left, which no SAME padding matches
        return tf.nn.leaky_relu(_conv(tf, p, "pad_yolo", 3, 3, 16, stride=2, padding="VALID"), 0.1)

    def normalised_stem(tf, x):  # a model's input normalisation before its stem convolution
        y = (x * 0.0078125 - _const("stem_mean", [3], 0.3, 0.6)) * _const("stem_istd", [3], 2.0, 4.0)
        return _hard_swish(tf, _conv(tf, y, "stem", 3, 3, 16, stride=2))

    def pad_bottom_right(tf, x):
        # ((0,1),(0,1)) on an even size is SAME and the converter folds it; on 13 it stays.
        c = _conv(tf, _pad(tf, x, 0, 1, 0, 1), "pad_br", 3, 3, 12, stride=2, padding="VALID")
        return c * tf.sigmoid(c)

    def padv2_conv(tf, x):
        p = _pad(tf, x, 1, 2, 2, 1, value=0.75)
        return tf.nn.relu6(_conv(tf, p, "padv2", 3, 3, 8, padding="VALID"))

    def reflect_conv(tf, x):
        c = _conv(tf, _pad(tf, x, 2, 2, 1, 1, mode="REFLECT"), "reflect", 3, 3, 8, padding="VALID")
        return tf.abs(c) + 0.5

    def symmetric_dw(tf, x):
        return _dwconv(tf, _pad(tf, x, 1, 2, 2, 0, mode="SYMMETRIC"), "symmetric", 3, 3, padding="VALID")

    def conv_batch2(tf, x):
        c = _conv(tf, x, "batch2", 3, 3, 16, stride=2)
        return tf.nn.relu6(_dwconv(tf, c * tf.sigmoid(c), "batch2_dw", 3, 3))

    def pad_is_output(tf, x):
        p = _pad(tf, x, 1, 0, 1, 0)
        return tf.nn.relu(_conv(tf, p, "pad_out", 3, 3, 8, stride=2, padding="VALID")), p

    def pad_two_readers(tf, x):
        p = _pad(tf, x, 1, 0, 1, 0)
        return _conv(tf, p, "pad_two", 3, 3, 8, stride=2, padding="VALID"), tf.abs(p) * 2.0

    def conv_dynamic_int8(tf, x):  # dynamic-range int8 weights (layers of 1024+ weights: smaller stay float)
        a = tf.nn.relu6(_conv(tf, _pad(tf, x, 1, 0, 1, 0), "cdi8_a", 3, 3, 32, stride=2, padding="VALID"))
        b = _conv(tf, a, "cdi8_b", 1, 1, 48, padding="VALID")
        d = tf.nn.relu(_dwconv(tf, b, "cdi8_dw", 5, 5))
        return tf.tanh(_conv(tf, d, "cdi8_c", 3, 3, 48) + b)

    def inverted_residual(tf, x):  # expanded tensors of 1.8 MB: run depth-first at one thread
        y = tf.nn.relu6(_dwconv(tf, tf.nn.relu6(_conv(tf, x, "ir_expand", 1, 1, 144)), "ir_dw", 3, 3))
        y = _conv(tf, y, "ir_project", 1, 1, 24, padding="VALID") + x
        z = tf.nn.relu6(_conv(tf, y, "ir2_expand", 1, 1, 144))
        z = tf.nn.relu6(_dwconv(tf, _pad(tf, z, 1, 0, 1, 0), "ir2_dw", 3, 3, stride=2, padding="VALID"))
        return _conv(tf, z, "ir2_project", 1, 1, 32, padding="VALID")

    def squeeze_excite(tf, x):  # EfficientNet: the gate's MUL folds into the project conv's weights
        y = _dwconv(tf, x, "se_dw", 3, 3)
        y = y * tf.sigmoid(y)
        g = _conv(tf, tf.reduce_mean(y, axis=[1, 2], keepdims=True), "se_reduce", 1, 1, 8, padding="VALID")
        g = tf.sigmoid(_conv(tf, g * tf.sigmoid(g), "se_expand", 1, 1, 32, padding="VALID"))
        return _conv(tf, y * g, "se_project", 1, 1, 32, padding="VALID") + x

    def conv_prelu_residual(tf, x):
        y = _prelu(tf, _conv(tf, x, "prelu_conv", 3, 3, 16), "prelu_channel", [1, 1, 16]) + x
        return _prelu(tf, y * _const("prelu_s", [16]), "prelu_full", [12, 12, 16])

    def huge_weights(tf, x):  # overflowing sums: the builtin kernels give FLT_MAX, not inf (MEAN: inf)
        conv = lambda tag, shape: tf.nn.conv2d(x, _huge(tag, shape), 1, "SAME") + _const(tag + "_b", [shape[-1]])
        d = tf.nn.depthwise_conv2d(x, _huge("huge_dw", [3, 3, 8, 1], axis=2), [1, 1, 1, 1], "SAME")
        d = d + _const("huge_dw_b", [8])
        p = tf.nn.avg_pool2d(d, 2, 2, "VALID")
        return conv("huge_conv", [3, 3, 8, 12]), tf.nn.relu(conv("huge_relu", [1, 1, 8, 6])), d, p, \
            tf.reduce_mean(d, axis=[1, 2], keepdims=True)

    def conv_large_dynamic(tf, x):  # 1.2 MB of weights: the GEMM streams them in row blocks
        c = _conv(tf, x, "conv_large", 3, 3, 256)
        return c * tf.sigmoid(c)

    def squeeze_excite_dynamic(tf, x):  # the gate's MUL folds into the project conv at batch 1 only
        g = tf.sigmoid(_conv(tf, tf.reduce_mean(x, axis=[1, 2], keepdims=True), "se_dyn_gate", 1, 1, 16,
                             padding="VALID"))
        return _conv(tf, x * g, "se_dyn_project", 1, 1, 24, padding="VALID")

    def concat_pyramid(tf, x):  # along channels: two producers write their slices in place, x is copied
        a = tf.nn.relu(_conv(tf, x, "cat_a", 3, 3, 8))
        b = _conv(tf, x, "cat_b", 1, 1, 4, padding="VALID")
        y = tf.concat([a, b * tf.sigmoid(b), x], axis=-1)
        return _conv(tf, y, "cat_out", 1, 1, 6, padding="VALID")

    def concat_axes(tf, x):  # along H (whole slices), along W (rows of them); both graph outputs
        a = tf.nn.relu6(_conv(tf, x, "cat_h", 3, 3, 4))
        t = tf.tanh(_conv(tf, x, "cat_w", 3, 3, 4))
        return tf.concat([a, x], axis=1), tf.concat([x, t], axis=2)

    def concat_dynamic(tf, x):  # batch None; a part also read by the ADD is copied, not written in place
        a = _conv(tf, x, "cat_dyn_a", 1, 1, 6, padding="VALID")
        r = tf.nn.relu(_conv(tf, x, "cat_dyn_b", 3, 3, 2))
        y = tf.concat([a * tf.sigmoid(a), r], axis=3)
        return _conv(tf, y, "cat_dyn_out", 1, 1, 2, padding="VALID") + r

    def channel_pad_shortcut(tf, x):  # BlazeFace's downsampling block: the shortcut widened by a channel PAD
        y = _conv(tf, _dwconv(tf, x, "blaze_dw", 3, 3, stride=2), "blaze_pw", 1, 1, 16, padding="VALID")
        s = tf.pad(tf.nn.max_pool2d(x, 2, 2, "VALID"), [[0, 0], [0, 0], [0, 0], [0, 8]])
        return tf.nn.relu(y + s)

    def upsample_add(tf, x, y):  # a feature pyramid's top-down path: bilinear x2 (half pixel centers) + lateral
        return tf.nn.relu(tf.image.resize(x, [12, 16], "bilinear") + y)

    def resize_corners(tf, x):  # TF1 resizes: align_corners, odd factors; nearest downsampling
        a = tf.compat.v1.image.resize_bilinear(x, [11, 13], align_corners=True)
        n = tf.compat.v1.image.resize_nearest_neighbor(x, [4, 5])
        return a * _const("resize_s", [8]), tf.abs(n)

    def upsample_conv_dynamic(tf, x):  # batch None: nearest x2 (half pixel centers), then a convolution
        u = tf.image.resize(x, [10, 14], "nearest")
        return tf.nn.relu6(_conv(tf, u * 0.5 + 0.25, "up_conv", 3, 3, 6))

    def float16_block(tf, x):  # every weight and bias float16, read through a DEQUANTIZE
        y = _dwconv(tf, tf.nn.relu6(_conv(tf, x, "f16_conv", 3, 3, 16)), "f16_dw", 3, 3)
        return _conv(tf, y * tf.sigmoid(y), "f16_project", 1, 1, 8, padding="VALID") + x

    def float16_scalars(tf, x):  # float16 constants that elementwise ops read, each through a DEQUANTIZE
        y = _conv(tf, x * _const("f16s_scale", [8], 0.5, 1.5) + _const("f16s_shift", [8]), "f16s_conv", 3, 3, 16)
        h = y * tf.nn.relu6(y + 3.0) * (1.0 / 6.0)
        return tf.tanh(h * _const("f16s_gate", [16], 0.5, 1.0) - 0.25)

    def conv_dynamic(tf, x):
        c = _conv(tf, _pad(tf, x, 1, 0, 1, 0), "conv_dyn", 3, 3, 8, stride=2, padding="VALID")
        return tf.nn.relu6(_dwconv(tf, c * tf.sigmoid(c), "conv_dyn_dw", 3, 3))

    def tconv_pixel_shuffle(tf, x):  # 2x2 stride 2: each input pixel fills its own 2x2 block of the output
        return tf.nn.relu(_tconv(tf, x, "tconv_2x2", 2, 12))

    def tconv_skip_add(tf, x, y):  # a U-Net decoder step: 3x3 stride 2 SAME + RELU, then the skip connection
        return tf.nn.relu(_tconv(tf, x, "tconv_skip", 3, 16)) + y

    def tconv_s1_relu6(tf, x):
        return tf.nn.relu6(_tconv(tf, x, "tconv_s1", 3, 6, stride=1))

    def tconv_valid_nobias(tf, x):  # without bias the converter leaves the RELU
        return tf.nn.relu(_tconv(tf, x, "tconv_valid", 4, 10, padding="VALID", bias=False))

    def tconv_odd_strides(tf, x):  # 2x2 at stride 3 along H (rows no tap reaches: bias alone), 2 along W
        return tf.abs(_tconv(tf, x, "tconv_odd", 2, 5, stride=(3, 2)))

    def tconv_float16(tf, x):
        return tf.nn.relu(_tconv(tf, x, "tconv_f16", 3, 8))

    return [
        Spec("normalised_stem", normalised_stem, [[1, 17, 17, 3]], 3, 1, claimed_all=5, partitions_all=1,
             ranges=[(0.0, 255.0)], emits=("CONV_2D stride=2x2 padding=SAME", "HARD_SWISH"),
             about="MUL, SUB, MUL by per-channel constants folded into the stride-2 "
                   "SAME CONV_2D after them (weights, bias, padding value), HARD_SWISH"),
        Spec("conv_relu6", conv_relu6, [[1, 12, 12, 8]], 0, 0, claimed_all=1, partitions_all=1,
             ranges=[RELU6_RANGE], emits=("CONV_2D+RELU6",),
             about="CONV_2D 3x3 SAME stride 1, bias, fused RELU6: an anchor alone"),
        Spec("conv_s2_dil2", conv_s2_dil2, [[1, 15, 15, 6]], 0, 0, claimed_all=1, partitions_all=1,
             emits=("CONV_2D+RELU stride=2x2 dilation=2x2 padding=VALID",),
             about="CONV_2D 3x3 VALID, stride 2 and dilation 2, fused RELU"),
        Spec("conv_dil2_same", conv_dil2_same, [[1, 9, 9, 6]], 0, 0, claimed_all=1, partitions_all=1,
             emits=("CONV_2D+RELU_N1_TO_1 stride=1x1 dilation=2x2 padding=SAME",),
             about="CONV_2D 3x3 SAME, dilation 2, fused RELU_N1_TO_1"),
        Spec("dilated_winograd", dilated_winograd, [[1, 15, 13, 16]], 0, 0, claimed_all=2, partitions_all=2,
             emits=("CONV_2D+RELU stride=1x1 dilation=2x2 padding=SAME", "CONV_2D stride=1x1 dilation=3x2"),
             about="two dilated 3x3 SAME CONV_2Ds of 16 and 20 channels (Winograd form), dilations 2 and 3 by 2: "
                   "sizes not a multiple of a tile's span"),
        Spec("conv1x1_affine", conv1x1_affine, [[1, 10, 10, 24]], 3, 1, claimed_all=4, partitions_all=1,
             emits=("CONV_2D", "LEAKY_RELU"),
             about="1x1 CONV_2D (zero bias), LEAKY_RELU, per-channel MUL and ADD"),
        Spec("conv_swish_residual", conv_swish_residual, [[1, 8, 8, 16]], 3, 1, claimed_all=4,
             partitions_all=1, about="CONV_2D, swish (LOGISTIC, MUL), residual ADD+RELU"),
        Spec("dw_hard_swish", dw_hard_swish, [[1, 10, 10, 12]], 0, 0, claimed_all=2, partitions_all=1,
             ranges=[(-5.0, 5.0)], emits=("DEPTHWISE_CONV_2D", "HARD_SWISH"),
             about="DEPTHWISE_CONV_2D 3x3 multiplier 1, HARD_SWISH"),
        Spec("conv_odd_channels", conv_odd_channels, [[1, 9, 9, 13]], 0, 0, claimed_all=3, partitions_all=2,
             about="CONV_2D 13 -> 37 channels + RELU alone (its reader is an anchor), DEPTHWISE_CONV_2D + TANH"),
        Spec("pad_yolo", pad_yolo, [[1, 16, 16, 8]], 0, 0, claimed_all=3, partitions_all=1,
             emits=("PAD", "CONV_2D stride=2x2 padding=VALID"),
             about="PAD ((1,0),(1,0)) folded into a stride-2 VALID CONV_2D, LEAKY_RELU"),
        Spec("pad_bottom_right", pad_bottom_right, [[1, 13, 13, 8]], 0, 0, claimed_all=4, partitions_all=1,
             emits=("PAD",),
             about="PAD ((0,1),(0,1)) folded into a stride-2 VALID CONV_2D, swish"),
        Spec("padv2_conv", padv2_conv, [[1, 8, 8, 8]], 0, 0, claimed_all=2, partitions_all=1,
             emits=("PADV2",),
             about="PADV2 with 0.75, asymmetric, folded into CONV_2D+RELU6"),
        Spec("reflect_conv", reflect_conv, [[1, 8, 8, 8]], 0, 0, claimed_all=4, partitions_all=1,
             emits=("MIRROR_PAD mode=REFLECT",),
             about="MIRROR_PAD REFLECT folded into CONV_2D, then ABS, ADD"),
        Spec("symmetric_dw", symmetric_dw, [[1, 8, 8, 8]], 0, 0, claimed_all=2, partitions_all=1,
             emits=("MIRROR_PAD mode=SYMMETRIC", "DEPTHWISE_CONV_2D"),
             about="MIRROR_PAD SYMMETRIC, asymmetric, folded into DEPTHWISE_CONV_2D"),
        Spec("conv_batch2", conv_batch2, [[2, 10, 10, 8]], 0, 0, claimed_all=4, partitions_all=2,
             about="batch 2: CONV_2D stride 2, swish, DEPTHWISE_CONV_2D+RELU6"),
        Spec("pad_is_output", pad_is_output, [[1, 8, 8, 6]], 0, 0, claimed_all=2, partitions_all=1,
             emits=("PAD",),
             about="a PAD folded into its one reader, a CONV_2D, and also a graph output: still stored"),
        Spec("pad_two_readers", pad_two_readers, [[1, 8, 8, 6]], 0, 0, claimed_all=1, partitions_all=1,
             emits=("PAD",),
             about="a PAD with two readers is not folded: CONV_2D alone; ABS+MUL is too small to claim"),
        Spec("inverted_residual", inverted_residual, [[1, 56, 56, 24]], 0, 0, claimed_all=8, partitions_all=6,
             ranges=[(-1.0, 1.0)],
             about="two MobileNetV2 blocks (1x1 expand, depthwise, 1x1 project, residual ADD; then a padded "
                   "stride-2 one): one thread runs them depth-first through ring buffers"),
        Spec("squeeze_excite", squeeze_excite, [[1, 14, 14, 32]], 0, 0, claimed_all=12, partitions_all=5,
             emits=("MEAN", "DEPTHWISE_CONV_2D", "CONV_2D"),
             about="EfficientNet block: depthwise, swish, squeeze-excite (MEAN, two 1x1 convs, gate MUL "
                   "folded into the weights of the 1x1 project conv), residual ADD"),
        Spec("conv_prelu_residual", conv_prelu_residual, [[1, 12, 12, 16]], 4, 1, claimed_all=5,
             partitions_all=1, emits=("PRELU",), about="CONV_2D, PRELU per channel (alpha [1,1,C]), residual ADD, per-channel "
                                     "MUL, PRELU of alpha [H,W,C]"),
        Spec("concat_pyramid", concat_pyramid, [[1, 12, 12, 8]], 0, 0, claimed_all=6, partitions_all=4,
             emits=("CONCATENATION axis=-1", "CONV_2D+RELU"),
             about="CONCATENATION along channels of CONV_2D+RELU and CONV_2D+swish (written straight into "
                   "their slices) and the input (copied), read by a 1x1 CONV_2D"),
        Spec("concat_axes", concat_axes, [[1, 6, 8, 4]], 0, 0, claimed_all=5, partitions_all=4,
             emits=("CONCATENATION axis=1", "CONCATENATION axis=2"),
             about="CONCATENATION along H (a CONV_2D+RELU6 writes one whole slice) and along W (CONV_2D+TANH "
                   "writes rows of it), both graph outputs"),
        Spec("channel_pad_shortcut", channel_pad_shortcut, [[1, 16, 16, 8]], 0, 0, claimed_all=5,
             partitions_all=3, emits=("PAD",),
             about="BlazeFace block: DEPTHWISE_CONV_2D stride 2, 1x1 CONV_2D, and the shortcut MAX_POOL_2D then "
                   "PAD of channels (8 -> 16: runs on its own, copying rows) in the CONV_2D's group with the ADD+RELU"),
        Spec("upsample_add", upsample_add, [[1, 6, 8, 8], [1, 12, 16, 8]], 0, 0, claimed_all=2,
             partitions_all=1, emits=("RESIZE_BILINEAR align_corners=False half_pixel_centers=True",),
             about="RESIZE_BILINEAR x2 (half pixel centers) and the ADD+RELU of a lateral input: one group"),
        Spec("resize_corners", resize_corners, [[1, 6, 7, 8]], 0, 0, claimed_all=4, partitions_all=2,
             emits=("RESIZE_BILINEAR align_corners=True", "RESIZE_NEAREST_NEIGHBOR align_corners=False"),
             about="RESIZE_BILINEAR with align_corners to 11x13 then a per-channel MUL; RESIZE_NEAREST_NEIGHBOR "
                   "down to 4x5 then ABS"),
        Spec("upsample_conv_dynamic", upsample_conv_dynamic, [[None, 5, 7, 4]], 0, 0, claimed_all=4,
             partitions_all=2, emits=("RESIZE_NEAREST_NEIGHBOR align_corners=False half_pixel_centers=True",),
             about="batch None: RESIZE_NEAREST_NEIGHBOR x2, MUL+ADD (an FMA), CONV_2D+RELU6; resized"),
        Spec("float16_weights", float16_block, [[None, 10, 10, 8]], 0, 0, claimed_all=12, partitions_all=3,
             weights="float16", emits=("DEQUANTIZE",),
             about="float16 weights and biases (the converter's float16 quantization), each read through a "
                   "DEQUANTIZE folded into its CONV_2D or DEPTHWISE_CONV_2D; batch None, resized"),
        Spec("float16_scalars", float16_scalars, [[None, 9, 9, 8]], 6, 1, claimed_all=13, partitions_all=1,
             weights="float16", emits=("DEQUANTIZE",),
             about="float16 constants read through a DEQUANTIZE by elementwise ops (MobileNetV3's hard-swish "
                   "scalars, an input normalisation folded into the CONV_2D, a per-channel gate): each claimed "
                   "with its readers, which read the values the front end converted; batch None, resized"),
        Spec("concat_dynamic_batch", concat_dynamic, [[None, 8, 8, 4]], 0, 0, claimed_all=7, partitions_all=4,
             emits=("CONCATENATION axis=3",),
             about="batch None: CONCATENATION of CONV_2D+swish (in place) and CONV_2D+RELU (also read by the "
                   "residual ADD: copied), 1x1 CONV_2D; resized"),
        Spec("conv_dynamic_batch", conv_dynamic, [[None, 8, 8, 6]], 0, 0, claimed_all=5, partitions_all=2,
             emits=("PAD", "DEPTHWISE_CONV_2D+RELU6"),
             about="batch None: PAD, CONV_2D, swish, DEPTHWISE_CONV_2D + RELU6; resized"),
        Spec("squeeze_excite_dynamic", squeeze_excite_dynamic, [[None, 8, 8, 16]], 0, 0, claimed_all=5,
             partitions_all=3, about="batch None: MEAN, 1x1 CONV_2D + LOGISTIC gate, MUL folded into the 1x1 "
                                     "project CONV_2D; resized, the gate holds one scale per image: node by node"),
        Spec("huge_weights", huge_weights, [[1, 6, 6, 8]], 0, 0, claimed_all=5, partitions_all=5,
             ranges=[(1.0, 2.0)], about="CONV_2D, CONV_2D+RELU, DEPTHWISE_CONV_2D with weights near the float "
                                       "maximum, AVERAGE_POOL_2D and MEAN of the depthwise output: sums overflow, "
                                       "clamped to FLT_MAX as the builtin kernels do (MEAN gives inf)"),
        Spec("tconv_pixel_shuffle", tconv_pixel_shuffle, [[1, 5, 7, 8]], 0, 0, claimed_all=1, partitions_all=1,
             emits=("TRANSPOSE_CONV+RELU stride=2x2 padding=SAME",),
             about="TRANSPOSE_CONV 2x2 stride 2 (Conv2DTranspose), bias, fused RELU: four phases of one tap each"),
        Spec("tconv_skip_add", tconv_skip_add, [[1, 6, 5, 8], [1, 12, 10, 16]], 0, 0, claimed_all=2,
             partitions_all=1, emits=("TRANSPOSE_CONV+RELU stride=2x2 padding=SAME",),
             about="TRANSPOSE_CONV 3x3 stride 2 SAME + RELU (the segmentation net's), the skip ADD its epilogue"),
        Spec("tconv_s1_relu6", tconv_s1_relu6, [[1, 7, 9, 8]], 0, 0, claimed_all=1, partitions_all=1,
             ranges=[RELU6_RANGE], emits=("TRANSPOSE_CONV+RELU6 stride=1x1 padding=SAME",),
             about="TRANSPOSE_CONV 3x3 stride 1 SAME, fused RELU6"),
        Spec("tconv_valid_nobias", tconv_valid_nobias, [[1, 5, 6, 8]], 0, 0, claimed_all=2, partitions_all=1,
             emits=("TRANSPOSE_CONV stride=2x2 padding=VALID", "RELU"),
             about="TRANSPOSE_CONV 4x4 stride 2 VALID without bias (3 inputs), RELU"),
        Spec("tconv_odd_strides", tconv_odd_strides, [[1, 4, 5, 6]], 0, 0, claimed_all=2, partitions_all=1,
             emits=("TRANSPOSE_CONV stride=3x2 padding=SAME",),
             about="TRANSPOSE_CONV 2x2 at strides 3x2 (every third row the bias alone), ABS"),
        Spec("tconv_float16", tconv_float16, [[1, 5, 7, 8]], 0, 0, claimed_all=3, partitions_all=1,
             weights="float16", emits=("DEQUANTIZE", "TRANSPOSE_CONV+RELU"),
             about="TRANSPOSE_CONV with float16 weights and bias, each through a DEQUANTIZE folded into it"),
        Spec("conv_dynamic_int8", conv_dynamic_int8, [[None, 15, 13, 16]], 0, 0, claimed_all=7, partitions_all=4,
             weights="dynamic_int8", emits=("PAD", "CONV_2D+RELU6 stride=2x2 padding=VALID", "DEPTHWISE_CONV_2D+RELU"),
             about="batch None, dynamic-range int8 weights: a PAD folded into a CONV_2D 3x3/2+RELU6, a 1x1 (32 "
                   "channels: rows read in place), a 5x5 DEPTHWISE_CONV_2D+RELU and a 3x3 CONV_2D, each as "
                   "TFLite's hybrid kernel (each image quantized to int8, padding its zero point), compared "
                   "with it; a residual ADD, TANH; resized (batch 0: the hybrid kernels "
                   "cannot)"),
        Spec("conv_large_dynamic", conv_large_dynamic, [[None, 6, 6, 128]], 0, 0, claimed_all=3, partitions_all=1,
             ranges=[(-0.5, 0.5)], about="batch None: CONV_2D 3x3 128 -> 256 (weights past 1 MiB: tiles of "
                                         "GEMM row blocks), swish; resized, to 0 too"),
    ]


# --- row ops of family transformer: attention, LayerNorm, softmax, layout ---
def _proj(tf, x, tag, n):
    return tf.matmul(x, _const(tag + "_w", [int(x.shape[-1]), n], -0.3, 0.3)) + _const(tag + "_b", [n], -0.1, 0.1)


def _layer_norm(tf, y, tag):
    mean = tf.reduce_mean(y, axis=-1, keepdims=True)
    var = tf.reduce_mean(tf.math.squared_difference(y, mean), axis=-1, keepdims=True)
    scale = tf.math.rsqrt(var + 1e-5) * _const(tag + "_g", [int(y.shape[-1])])
    return y * scale + (_const(tag + "_beta", [int(y.shape[-1])], -0.5, 0.5) - mean * scale)


def transformer_specs():
    def squeeze_expand(tf, x):
        y = tf.tanh(tf.squeeze(x, axis=2)) * _const("sq_s", [8]) + _const("sq_b", [8])
        return tf.expand_dims(y, 1) * 0.5

    def attention(tf, x):  # one encoder block's attention: 16 tokens, 2 heads of 16
        heads = lambda t: tf.transpose(tf.reshape(t, [-1, 16, 2, 16]), [0, 2, 1, 3])
        q, k, v = (heads(_proj(tf, x, "att_" + n, 32)) for n in "qkv")
        p = tf.nn.softmax(tf.matmul(q, k, transpose_b=True) * 0.25)
        o = tf.reshape(tf.transpose(tf.matmul(p, v), [0, 2, 1, 3]), [-1, 16, 32])
        return _layer_norm(tf, _proj(tf, o, "att_o", 32) + x, "att_ln")

    def layer_norm(tf, x):
        return _layer_norm(tf, x, "ln")

    def softmax_rows(tf, x):
        return tf.nn.softmax(x * 3.0) * _const("softmax_s", [45])

    def matmul_adj_x(tf, a, b):
        return tf.tanh(tf.matmul(a, b, transpose_a=True))

    def matmul_shared_b(tf, a, b):
        return tf.matmul(a, b) + 1.0

    def transpose_last(tf, x):
        return tf.abs(tf.transpose(x, [0, 2, 1])) * 2.0

    def row_reductions(tf, x):  # each reduces the last axis: a per-row operand, or a value of its own
        centred = x - tf.reduce_max(x, axis=-1, keepdims=True)
        spread = tf.reduce_max(x, axis=-1) - tf.reduce_min(x, axis=-1)
        return centred / (tf.reduce_sum(tf.abs(x), axis=-1, keepdims=True) + 1.0), spread * 0.5

    return [
        Spec("attention", attention, [[1, 16, 32]], 5, 1, claimed_all=27, partitions_all=11,
             emits=("BATCH_MATMUL", "SOFTMAX", "RESHAPE", "TRANSPOSE", "MEAN"),
             about="Q, K, V projections, heads by RESHAPE (an alias) + TRANSPOSE (folded into the "
                   "BATCH_MATMUL), scale, SOFTMAX, BATCH_MATMUL, heads merged, output projection, residual "
                   "ADD, LayerNorm"),
        Spec("attention_dynamic_batch", attention, [[None, 16, 32]], 5, 1, claimed_all=27, partitions_all=11,
             emits=("BATCH_MATMUL", "SOFTMAX", "RESHAPE", "TRANSPOSE", "MEAN"),
             about="the same with batch None: RESHAPE's -1 is inferred again on every resize"),
        Spec("layer_norm", layer_norm, [[2, 7, 24]], 5, 1, claimed_all=10, partitions_all=1,
             emits=("MEAN", "SQUARED_DIFFERENCE", "RSQRT"),
             about="LayerNorm: MEAN over the last axis, SQUARED_DIFFERENCE, MEAN+ADD+RSQRT, then scale and "
                   "shift (5 elementwise ops: claimed with fusions=elementwise too); by default one group over rows"),
        Spec("softmax_rows", softmax_rows, [[3, 5, 45]], 0, 0, claimed_all=3, partitions_all=1,
             ranges=[(-4.0, 4.0)], emits=("SOFTMAX",),
             about="MUL, SOFTMAX of rows of 45 reading it from the tile, MUL"),
        Spec("matmul_adj_x", matmul_adj_x, [[2, 21, 13], [2, 21, 17]], 0, 0, claimed_all=2, partitions_all=1,
             emits=("BATCH_MATMUL",),
             about="BATCH_MATMUL with adj_x of two inputs, TANH"),
        Spec("matmul_shared_b", matmul_shared_b, [[3, 13, 20], [1, 20, 37]], 0, 0, claimed_all=2,
             partitions_all=1, emits=("BATCH_MATMUL",),
             about="BATCH_MATMUL with one b for every batch, ADD"),
        Spec("squeeze_expand_dynamic", squeeze_expand, [[None, 6, 1, 8]], 3, 1, claimed_all=6, partitions_all=3,
             emits=("EXPAND_DIMS",),
             about="batch None: TANH, MUL, ADD, then the squeeze (the converter makes it a RESHAPE, after the "
                   "elementwise ops: alone, beside a claimed anchor); EXPAND_DIMS (a RESHAPE) with a MUL; resized"),
        Spec("row_reductions", row_reductions, [[2, 5, 37]], 0, 0, claimed_all=10, partitions_all=2,
             emits=("REDUCE_MAX", "REDUCE_MIN", "SUM"),
             about="REDUCE_MAX, SUM and REDUCE_MIN over the last axis (rows of 37: past every vector width, with "
                   "a tail), kept as per-row operands (x - max, over the sum of |x|) or not (max - min)"),
        Spec("transpose_last", transpose_last, [[2, 6, 9]], 0, 0, claimed_all=3, partitions_all=1,
             emits=("TRANSPOSE",),
             about="TRANSPOSE that moves the last axis (a strided gather), ABS, MUL"),
    ]


def open_axes_specs():
    """Models whose signatures leave axes other than the batch open (issue 35): resized to
    shapes of their own, 0 and 1 included, as the libraries that ship such models do."""
    def mel_twin(tf, x):  # openWakeWord's [-1, -1] melspectrogram in three ops, resized to [1, 5]
        return tf.nn.relu(tf.transpose(tf.expand_dims(x, 1), [0, 2, 1]) * 2.0 + 1.0)

    def rank1_dense(tf, x):  # BirdNET's metadata model's [-1] input: EXPAND_DIMS to [B, 1], then a matmul
        return tf.nn.relu(tf.matmul(tf.expand_dims(x, 1), _const("r1d_w", [1, 8], -1.0, 1.0)) - 0.5)

    def melspectrogram(tf, x):  # openWakeWord's pattern: NCW conv1d frames (DFT rows), power, mel, dB
        frames = tf.transpose(tf.expand_dims(x, 1), [0, 2, 1])  # [B, N, 1]

        def dft(tag):
            w = _const(tag, [32, 1, 17], -0.5, 0.5)
            return tf.transpose(tf.nn.conv1d(frames, w, 8, "VALID"), [0, 2, 1])  # [B, 17, F]
        re, im = dft("mel_re"), dft("mel_im")
        power = tf.transpose(re * re + im * im, [0, 2, 1])  # [B, F, 17]
        mel = tf.matmul(power, _const("mel_fb", [17, 8], 0.0, 1.0))  # FULLY_CONNECTED (the real one: BATCH_MATMUL)
        db = tf.math.log(tf.clip_by_value(mel, 1e-6, 1e6)) * (10.0 / 2.302585)
        return tf.maximum(db, tf.reduce_max(db) - 80.0)

    def metadata(tf, x):  # BirdNET's metadata pattern: columns through SIN, concatenated, a dense stack
        cols = []
        for i in range(3):
            c = tf.expand_dims(x[:, i] * 0.5 + 0.1, 1) * _const(f"md_s{i}", [8], -2.0, 2.0)
            cols.append(tf.sin(c + _const(f"md_b{i}", [8], -1.0, 1.0)) * _const(f"md_m{i}", [8]))
        h = tf.nn.relu(tf.matmul(tf.concat(cols, 1), _const("md_w1", [24, 16], -0.3, 0.3)) + _const("md_b", [16]))
        return tf.sigmoid(tf.matmul(h, _const("md_w2", [16, 6], -0.3, 0.3)))

    def squeeze_all(tf, x):  # [B, 1, 5] squeezed of every 1: [5] at batch 1, [3, 5] at batch 3
        return tf.tanh(tf.reduce_mean(tf.squeeze(x) * 2.0, axis=-1, keepdims=True) + tf.squeeze(x))

    def spatial_open(tf, x):  # H and W open: the conv, the pool and the views bind at each size
        y = tf.nn.relu(_conv(tf, x, "so_conv", 3, 3, 6))
        y = tf.nn.max_pool2d(y, 2, 2, "SAME")
        return tf.squeeze(tf.reduce_max(tf.transpose(y, [0, 3, 1, 2]), axis=-1), axis=[0])

    def emptied_rows(tf, x):  # rows of an open length: at 0, MEAN is NaN (0 / 0), SUM 0, MAX -FLT_MAX
        return (tf.reduce_mean(x, -1), tf.reduce_sum(x, -1) * 2.0, tf.reduce_max(x, -1) * 0.5)

    def matmul_lower_rank(tf, a, b):  # BATCH_MATMUL of a [B, 1, T, 4] and a run-time b [4, 3]: b broadcast
        return tf.tanh(tf.matmul(a, b) * 0.5)

    def wide_to_empty_pool(tf, x):  # a 1.5 MiB conv output at one row, then a VALID pool of none
        y = tf.nn.relu(_conv(tf, x, "wep_conv", 1, 1, 96))
        return tf.tanh(tf.nn.max_pool2d(y, 2, 2, "VALID"))

    def image_mean(tf, x):  # MEAN over H and W of an image resized to no pixels: NaN, as TFLite's kernel
        return tf.nn.relu(tf.reduce_mean(x, axis=[1, 2], keepdims=True) * _const("im_s", [4]) - 0.5)

    def inf_operands(tf, x):  # constants holding inf: ADD, SUB, MUL clamp to +-FLT_MAX as TFLite's kernels
        c = np.array([np.inf, -np.inf, 1.0, 3e38], np.float32)
        return tf.abs(tf.abs(x + c) * 2.0) - c, tf.abs(x * np.float32(3e38)) + 1.0

    mel_sizes = [[[2, 100]], [[1, 32]], [[1, 400]]]
    return [
        Spec("open_expand_transpose", mel_twin, [[None, None]], 0, 0, claimed_all=4, partitions_all=2,
             resizes=[[[1, 5]], [[2, 7]], [[1, 1]], [[1, 0]], [[0, 3]], [[3, 1]]],
             emits=("EXPAND_DIMS", "TRANSPOSE"),
             about="[-1, -1] input: EXPAND_DIMS, TRANSPOSE, MUL, ADD, RELU at [1, 5] give [1, 5, 1] "
                   "(the EXPAND_DIMS was a RESHAPE to the shape seen when planning: [5, 1, 1])"),
        Spec("open_rank1_expand_dense", rank1_dense, [[None]], 0, 0, claimed_all=3, partitions_all=2,
             resizes=[[[2]], [[0]], [[7]], [[64]], [[1]]], emits=("EXPAND_DIMS", "FULLY_CONNECTED"),
             about="[-1] input: EXPAND_DIMS to [B, 1], FULLY_CONNECTED [1 -> 8], SUB, RELU at batch 0, 2, 7, 64 "
                   "(the rank-1 batch was never inferred: 'Reshape does not fit its input [2]')"),
        Spec("open_melspectrogram", melspectrogram, [[None, None]], 7, 2, claimed_all=17, partitions_all=9,
             start=[[1, 400]], resizes=mel_sizes,
             emits=("EXPAND_DIMS", "SQUEEZE", "CONV_2D", "TRANSPOSE", "FULLY_CONNECTED", "LOG", "REDUCE_MAX"),
             about="openWakeWord's melspectrogram pattern on a [-1, -1] input: conv1d frames (EXPAND_DIMS, "
                   "CONV_2D, SQUEEZE) in NCW (TRANSPOSEs), power, mel matmul, dB, a max; 0 and 1 frames. "
                   "Planned at [1, 1], where the convolutions' outputs are empty: claimed, they bind at each size"),
        Spec("open_melspectrogram_empty", melspectrogram, [[None, None]], 7, 2, claimed_all=17, partitions_all=9,
             start=[[1, 400]], resizes=[[[1, 31]], [[0, 64]]], emits=("CONV_2D", "FULLY_CONNECTED"),
             about="the melspectrogram pattern at no frames (31 samples) and batch 0: empty outputs as "
                   "LiteRT's (tflite-runtime 2.14's own kernels crash on both, tf.lite 2.21's on batch 0)"),
        Spec("open_batch_metadata", metadata, [[None, 3]], 0, 0, claimed_all=21, partitions_all=11,
             weights="float16", resizes=[[[0, 3]], [[2, 3]], [[7, 3]], [[64, 3]]],
             emits=("STRIDED_SLICE", "EXPAND_DIMS", "SIN", "CONCATENATION", "FULLY_CONNECTED"),
             about="BirdNET's metadata pattern on a [-1, 3] input, float16 weights: columns sliced, "
                   "EXPAND_DIMS, affine, SIN (left), CONCATENATION, two FULLY_CONNECTED, LOGISTIC; claimed: "
                   "each column's STRIDED_SLICE, MUL, ADD, its EXPAND_DIMS, and the dense stack"),
        Spec("open_squeeze_all", squeeze_all, [[None, 1, 5]], 0, 0, claimed_all=0, partitions_all=0,
             emits=("SQUEEZE",),
             about="[-1, 1, 5] squeezed of every axis of size 1: [5] at batch 1, [3, 5] at batch 3, "
                   "then MEAN over the last axis, ADD, TANH; its rank is known only at run time: left"),
        Spec("open_spatial", spatial_open, [[1, None, None, 3]], 0, 0, claimed_all=2, partitions_all=2,
             resizes=[[[1, 9, 7, 3]], [[1, 1, 1, 3]], [[1, 0, 5, 3]], [[1, 4, 16, 3]]],
             emits=("CONV_2D+RELU", "MAX_POOL_2D", "TRANSPOSE", "REDUCE_MAX", "RESHAPE"),
             about="H and W open: CONV_2D+RELU, MAX_POOL_2D, TRANSPOSE, REDUCE_MAX over W, the batch squeezed "
                   "(a RESHAPE to a shape computed at run time)"),
        Spec("open_emptied_rows", emptied_rows, [[2, None]], 0, 0, claimed_all=4, partitions_all=2,
             resizes=[[[2, 0]], [[2, 5]], [[2, 1]]], emits=("MEAN", "SUM", "REDUCE_MAX"),
             about="rows of an open length: MEAN, SUM, REDUCE_MAX over it; at 0, NaN, 0 and -FLT_MAX"),
        Spec("open_matmul_lower_rank", matmul_lower_rank, [[None, 1, None, 4], [4, 3]], 0, 0, claimed_all=3,
             partitions_all=1, resizes=[[[2, 1, 5, 4], [4, 3]], [[1, 1, 0, 4], [4, 3]], [[0, 1, 3, 4], [4, 3]]],
             emits=("BATCH_MATMUL",),
             about="BATCH_MATMUL of a [-1, 1, -1, 4] and a run-time [4, 3] (one matrix for every batch, "
                   "broadcast from its lower rank, as openWakeWord's mel filterbank), MUL, TANH"),
        Spec("open_wide_empty_pool", wide_to_empty_pool, [[1, None, None, 3]], 0, 0, claimed_all=3, partitions_all=2,
             start=[[1, 4, 16, 3]], resizes=[[[1, 1, 4096, 3]], [[1, 4, 1024, 3]], [[1, 3, 2048, 3]]],
             emits=("CONV_2D+RELU", "MAX_POOL_2D"),
             about="H and W open: CONV_2D+RELU to 96 channels (1.5 MiB at [1, 1, 4096]: a depth-first chain's "
                   "size), MAX_POOL_2D 2x2 VALID (no rows out of one), TANH"),
        Spec("open_image_mean", image_mean, [[1, None, None, 4]], 0, 0, claimed_all=3, partitions_all=1,
             resizes=[[[1, 0, 3, 4]], [[1, 3, 5, 4]], [[1, 2, 0, 4]]], emits=("MEAN", "MUL", "SUB+RELU"),
             about="H and W open: MEAN over them, MUL, SUB+RELU; at 0 pixels the mean is NaN (0 / 0)"),
        Spec("inf_operands", inf_operands, [[2, 4]], 8, 2,
             about="constants holding inf and 3e38: ADD, MUL, SUB saturate at +-FLT_MAX as TFLite's kernels"),
    ]


def view_specs():
    """The index views (ops/index_view.h): SLICE, STRIDED_SLICE, GATHER of constant indices, TILE,
    DEPTH_TO_SPACE and SPACE_TO_DEPTH, each a group's anchor with its epilogue; open axes resized."""
    def slice_(tf, x):
        return tf.nn.relu(tf.slice(x, [0, 1, 2, 0], [-1, 5, -1, 3]) * 2.0 + 1.0)

    def strided(tf, x):  # steps of 2, backwards, a channel range
        return tf.tanh(x[:, 1:7:2, ::-1, 2:5] * 1.5)

    def shrink(tf, x):  # one row and one channel, both axes dropped; W open
        return tf.tanh(x[:, 3, :, -2] * 1.5 + 0.5)

    def last_token(tf, x):  # a sequence's last step into a dense layer (rows open)
        return tf.nn.relu(tf.matmul(x[:, -1, :], _const("lt_w", [16, 8], -0.5, 0.5)) + _const("lt_b", [8]))

    def gather(tf, x):  # channels picked, repeated and reordered
        return tf.nn.relu(tf.gather(x, [3, 0, 0, 5, 1], axis=3) - 0.1)

    def gather_matrix(tf, x):  # indices of rank 2: the axis becomes two
        return tf.nn.relu(tf.gather(x, [[3, 0], [1, 2], [5, 5]], axis=1) * 0.7)

    def tile(tf, x):
        return tf.sigmoid(tf.tile(x, [1, 2, 3, 1]) * 2.0)

    def pixel_shuffle(channels):  # super-resolution's upsampling: a conv to 4 C channels, DEPTH_TO_SPACE
        def fn(tf, x):
            return tf.nn.relu(tf.nn.depth_to_space(_conv(tf, x, f"ps_conv{channels}", 3, 3, 4 * channels), 2) * 3.0)
        return fn

    def focus(tf, x):  # YOLOv5's focus: SPACE_TO_DEPTH, then a conv
        return tf.nn.relu(_conv(tf, tf.tanh(tf.nn.space_to_depth(x, 2) * 0.5), "fo_conv", 3, 3, 8))

    def transpose5(tf, x, y):  # a rank-5 TRANSPOSE between run-time values
        return tf.nn.softmax(tf.transpose(x * y, [0, 3, 1, 4, 2])) * 0.5

    def split(tf, x):  # three equal parts along the channels, each with an epilogue of its own
        return [tf.nn.relu(a * float(i + 1) + 1.0) for i, a in enumerate(tf.split(x, 3, axis=-1))]

    def glu(tf, x):  # a gated linear unit: the halves of the last axis, one gating the other
        a, b = tf.split(x, 2, axis=-1)
        return a * tf.sigmoid(b)

    def split_v(tf, x):  # sizes 1, the rest, 2 along an open axis
        return [tf.tanh(a * 2.0) for a in tf.split(x, [1, -1, 2], axis=1)]

    def unpack(tf, x):  # UNPACK: one output per index of axis 1, that axis dropped
        return [tf.tanh(a * 2.0 + 0.5) for a in tf.unstack(x, axis=1)]

    def split_partly_left(tf, x):  # one part read by an op left to the runtime (CUMSUM)
        a, b = tf.split(x, 2, axis=-1)
        return tf.nn.relu(a * 2.0 + 1.0), tf.math.cumsum(b, axis=1)

    def pack(axis):  # PACK of two dense layers' outputs: each written in place into its slice
        def fn(tf, x):
            a = tf.nn.relu(tf.matmul(x, _const("pk_w1", [8, 6], -1.0, 1.0)))
            return tf.tanh(tf.stack([a, tf.matmul(x, _const("pk_w2", [8, 6], -1.0, 1.0))], axis=axis))
        return fn

    batches = [[[3, 8, 9, 6]], [[0, 8, 9, 6]], [[1, 8, 9, 6]]]
    return [
        Spec("view_slice", slice_, [[None, 8, 9, 6]], 0, 0, claimed_all=3, partitions_all=1, resizes=batches,
             emits=("SLICE",), about="SLICE begin [0, 1, 2, 0] size [-1, 5, -1, 3], MUL, ADD+RELU"),
        Spec("view_strided_slice", strided, [[None, 8, 9, 6]], 0, 0, claimed_all=3, partitions_all=1,
             resizes=batches, emits=("STRIDED_SLICE",),
             about="x[:, 1:7:2, ::-1, 2:5]: STRIDED_SLICE with a step, a reversed axis and masks, MUL, TANH"),
        Spec("view_strided_shrink", shrink, [[None, 8, None, 6]], 3, 1, claimed_all=4, partitions_all=1,
             resizes=[[[2, 8, 5, 6]], [[1, 8, 1, 6]], [[0, 8, 3, 6]], [[2, 8, 0, 6]]], emits=("STRIDED_SLICE",),
             about="x[:, 3, :, -2] on an open batch and W: two axes shrunk, MUL, ADD, TANH"),
        Spec("view_last_token", last_token, [[None, 10, 16]], 0, 0, claimed_all=2, partitions_all=2,
             emits=("STRIDED_SLICE", "FULLY_CONNECTED+RELU"),
             about="a sequence's last step (STRIDED_SLICE, the axis shrunk) into FULLY_CONNECTED+RELU"),
        Spec("view_gather", gather, [[None, 4, 5, 6]], 0, 0, claimed_all=2, partitions_all=1,
             resizes=[[[2, 4, 5, 6]], [[0, 4, 5, 6]]], emits=("GATHER",),
             about="GATHER of channels [3, 0, 0, 5, 1] (constant indices), SUB+RELU"),
        Spec("view_gather_matrix", gather_matrix, [[2, 6, None]], 0, 0, claimed_all=2, partitions_all=1,
             resizes=[[[2, 6, 7]], [[2, 6, 1]], [[2, 6, 0]]], emits=("GATHER",),
             about="GATHER along axis 1 of indices [3, 2]: [2, 6, W] -> [2, 3, 2, W], MUL+RELU"),
        Spec("view_tile", tile, [[None, 3, 4, 5]], 0, 0, claimed_all=3, partitions_all=1, emits=("TILE",),
             resizes=[[[2, 3, 4, 5]], [[0, 3, 4, 5]]], about="TILE by [1, 2, 3, 1], MUL, LOGISTIC"),
        Spec("view_pixel_shuffle", pixel_shuffle(64), [[1, None, None, 3]], 0, 0, claimed_all=3, partitions_all=2,
             resizes=[[[1, 4, 5, 3]], [[1, 1, 1, 3]], [[1, 0, 3, 3]]], emits=("DEPTH_TO_SPACE", "CONV_2D"),
             about="CONV_2D to 256 channels, DEPTH_TO_SPACE 2 (a pixel shuffle to 64 channels), MUL+RELU; "
                   "H and W open"),
        Spec("view_pixel_shuffle_narrow", pixel_shuffle(3), [[1, 8, 8, 3]], 0, 0, claimed_all=1, partitions_all=1,
             emits=("DEPTH_TO_SPACE", "CONV_2D"),
             about="CONV_2D to 12 channels, DEPTH_TO_SPACE 2 to 3 channels (left: XNNPACK copies so few "
                   "faster), MUL+RELU (left: one node)"),
        Spec("view_focus", focus, [[None, 8, 6, 32]], 0, 0, claimed_all=3, partitions_all=2,
             resizes=[[[2, 8, 6, 32]], [[0, 8, 6, 32]]], emits=("SPACE_TO_DEPTH", "CONV_2D+RELU"),
             about="SPACE_TO_DEPTH 2 (left: as fast in XNNPACK), MUL, TANH, CONV_2D+RELU (YOLOv5's focus)"),
        Spec("view_split", split, [[None, 4, 5, 6]], 0, 0, claimed_all=6, partitions_all=3, emits=("SPLIT",),
             resizes=[[[2, 4, 5, 6]], [[0, 4, 5, 6]]],
             about="SPLIT in 3 along the channels (one IR node per output, claimed together), MUL, ADD+RELU each"),
        Spec("view_split_glu", glu, [[2, None, 8]], 0, 0, claimed_all=3, partitions_all=1, emits=("SPLIT",),
             resizes=[[[2, 7, 8]], [[2, 0, 8]], [[2, 1, 8]]],
             about="a gated linear unit: SPLIT of the last axis in halves, LOGISTIC of one, MUL"),
        Spec("view_split_v", split_v, [[None, 6, None]], 0, 0, claimed_all=7, partitions_all=3, emits=("SPLIT_V",),
             resizes=[[[2, 6, 5]], [[0, 6, 3]], [[3, 6, 1]]],
             about="SPLIT_V sizes [1, -1, 2] along axis 1 (the -1: 3), batch and W open, MUL, TANH each"),
        Spec("view_split_open_axis", split_v, [[2, None, 5]], 0, 0, claimed_all=0, partitions_all=0,
             emits=("SPLIT_V",), start=[[2, 6, 5]], resizes=[[[2, 3, 5]], [[3, 9, 5]]],
             about="SPLIT_V sizes [1, -1, 2] along an open axis: planned at its placeholder size 1, where the "
                   "sizes do not fit, it is left (declined, not guessed)"),
        Spec("view_unpack", unpack, [[None, 3, 5]], 9, 3, claimed_all=10, partitions_all=3, emits=("UNPACK",),
             resizes=[[[2, 3, 5]], [[0, 3, 5]]],
             about="UNPACK of axis 1 (3 outputs, the axis dropped), MUL, ADD, TANH each"),
        Spec("view_split_partly_left", split_partly_left, [[2, 4, 6]], 0, 0, claimed_all=0, partitions_all=0,
             emits=("SPLIT", "CUMSUM"),
             about="SPLIT whose second part only CUMSUM (left) reads: a part alone is not worth claiming, so "
                   "the whole SPLIT is left with its first part's epilogue"),
        Spec("view_pack", pack(1), [[None, 8]], 0, 0, claimed_all=3, partitions_all=3,
             emits=("PACK", "FULLY_CONNECTED+RELU"),
             about="PACK along axis 1 of two FULLY_CONNECTED outputs (each written in place), TANH (left: "
                   "no group reads the PACK's output)"),
        Spec("view_pack_last", pack(-1), [[3, 8]], 0, 0, claimed_all=3, partitions_all=3, emits=("PACK",),
             about="PACK along the new last axis (-1): the parts written strided, one value per row"),
        Spec("view_transpose_rank5", transpose5, [[2, 3, 4, 5, 6], [2, 3, 4, 5, 6]], 0, 0, claimed_all=4,
             partitions_all=2, emits=("TRANSPOSE", "SOFTMAX"),
             about="MUL of two inputs, a rank-5 TRANSPOSE [0, 3, 1, 4, 2], SOFTMAX, MUL"),
    ]


def all_specs():
    return (chain_specs() + op_specs() + broadcast_specs() + structure_specs() + size_specs()
            + special_specs() + gemm_specs() + conv_specs() + transformer_specs() + sparse_specs()
            + open_axes_specs() + view_specs() + [default_spec()])


def model_names():
    return [s.name for s in all_specs()]


def int8_model_names():
    return [s.name for s in all_specs() if s.quantize]


def source_hash():
    """Changes whenever this generator changes (the cache key for generated models)."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]


# ---------------------------------------------------------------------------
# Conversion (TensorFlow from here on).

def _tf():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    tf.get_logger().setLevel("ERROR")
    return tf


def convert(tf, spec):
    sigs = [tf.TensorSpec(s, tf.float32, name=f"in{i}") for i, s in enumerate(spec.shapes)]
    concrete = tf.function(lambda *xs: spec.fn(tf, *xs), input_signature=sigs).get_concrete_function()
    conv = tf.lite.TFLiteConverter.from_concrete_functions([concrete])
    set_weight_format(tf, conv, spec.weights)
    if spec.quantize:
        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        conv.representative_dataset = lambda: _representative(spec)
        conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        conv.inference_input_type = tf.int8
        conv.inference_output_type = tf.int8
    model = conv.convert()
    return _patch(model, spec.patch) if spec.patch else model


def set_weight_format(tf, conv, weights):
    """Asks the converter for weights in format `weights`: float32, float16, dynamic_int8 (int8
    weights, float activations), sparse, sparse_float16 or sparse_dynamic_int8."""
    optimizations = {"float16": [tf.lite.Optimize.DEFAULT], "sparse": [tf.lite.Optimize.EXPERIMENTAL_SPARSITY],
                     "sparse_float16": [tf.lite.Optimize.EXPERIMENTAL_SPARSITY, tf.lite.Optimize.DEFAULT],
                     "dynamic_int8": [tf.lite.Optimize.DEFAULT],
                     "sparse_dynamic_int8": [tf.lite.Optimize.EXPERIMENTAL_SPARSITY, tf.lite.Optimize.DEFAULT]}
    if weights in optimizations:
        conv.optimizations = optimizations[weights]
    if weights.endswith("float16"):
        conv.target_spec.supported_types = [tf.float16]


def write_float_twin(tf, model, weights, path):
    """For int8 weights (dynamic_int8, sparse_dynamic_int8): writes the model's float twin, the
    reference the delegate's dequantized weights are compared with; True if it did."""
    if not weights.endswith("dynamic_int8"):
        return False
    dense = densified(tf, model) if weights.startswith("sparse") else model
    Path(path).write_bytes(float_twin(dense))
    return True


def _representative(spec):
    rng = _rng(spec.name)
    for _ in range(16):
        yield [rng.uniform(lo, hi, size=s).astype(np.float32)
               for s, (lo, hi) in zip(spec.shapes, spec.input_ranges())]


def _schema():
    from tensorflow.lite.python import schema_py_generated as schema
    return schema


def _patch(model, renames):
    """Renames builtin operators (for ops no TF graph converts to, e.g. RELU_0_TO_1)."""
    from tensorflow.lite.tools import flatbuffer_utils as fbu
    schema = _schema()
    codes = {k: v for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
    names = {v: k for k, v in codes.items()}
    m = fbu.read_model_from_bytearray(bytearray(model))
    for oc in m.operatorCodes:
        new = renames.get(names[max(oc.builtinCode, oc.deprecatedBuiltinCode)])
        if new:
            oc.builtinCode = codes[new]
            oc.deprecatedBuiltinCode = min(codes[new], 127)  # 127: see builtinCode
    return bytes(fbu.convert_object_to_bytearray(m))


def _runs_as_hybrid(schema, sg, code, op):
    """Whether the delegate runs `op` (reading int8 weights) as TFLite's hybrid kernel does:
    FULLY_CONNECTED; CONV_2D with a scale per output channel (not all one) and no dilation;
    DEPTHWISE_CONV_2D of depth multiplier 1 (ops/dynamic_range.h)."""
    B = schema.BuiltinOperator
    w = sg.tensors[op.inputs[1]]
    if code == B.FULLY_CONNECTED:
        return True
    if code == B.CONV_2D:
        o = op.builtinOptions
        return len(set(np.asarray(w.quantization.scale).tolist())) > 1 and o.dilationHFactor == o.dilationWFactor == 1
    return code == B.DEPTHWISE_CONV_2D and sg.tensors[op.inputs[0]].shape[-1] == w.shape[-1]


def _hybrid_weights(schema, m):
    """The int8 weights of float32 layers the delegate runs as TFLite's hybrid kernels."""
    sg = m.subgraphs[0]
    codes = [max(oc.builtinCode, oc.deprecatedBuiltinCode) for oc in m.operatorCodes]
    layers = (schema.BuiltinOperator.FULLY_CONNECTED, schema.BuiltinOperator.CONV_2D,
              schema.BuiltinOperator.DEPTHWISE_CONV_2D)
    return {op.inputs[1] for op in sg.operators
            if codes[op.opcodeIndex] in layers and len(op.inputs) > 1
            and sg.tensors[op.inputs[0]].type == schema.TensorType.FLOAT32
            and sg.tensors[op.inputs[1]].type == schema.TensorType.INT8
            and _runs_as_hybrid(schema, sg, codes[op.opcodeIndex], op)}


def float_twin(model):
    """The model with every int8 constant made the float32 tensor of its dequantized values
    ((q - zero point) * scale, per channel of its quantized dimension): the builtin kernels
    then compute in float what a hybrid layer approximates, as the delegate does. Except the
    int8 weights of the layers the delegate computes as TFLite's hybrid kernels do
    (_hybrid_weights: the input quantized to int8 per row or per image), which the twin runs too."""
    from tensorflow.lite.tools import flatbuffer_utils as fbu
    schema = _schema()
    m = fbu.read_model_from_bytearray(bytearray(model))
    hybrid = _hybrid_weights(schema, m)
    for i, t in enumerate(m.subgraphs[0].tensors):
        data = m.buffers[t.buffer].data
        if (t.type != schema.TensorType.INT8 or data is None or len(data) == 0 or t.quantization is None
                or t.sparsity is not None  # sparse: read only by the DENSIFYs densified() removed
                or i in hybrid):
            continue
        q = np.asarray(data, dtype=np.uint8).view(np.int8).reshape(t.shape).astype(np.float32)
        scale, zero = np.asarray(t.quantization.scale, np.float32), np.asarray(t.quantization.zeroPoint)
        axis = t.quantization.quantizedDimension if scale.size > 1 else 0
        shape = [1] * q.ndim
        shape[axis] = scale.size
        values = ((q - zero.reshape(shape)) * scale.reshape(shape)).astype(np.float32)
        m.buffers[t.buffer].data = np.frombuffer(values.tobytes(), dtype=np.uint8)
        t.type, t.quantization = schema.TensorType.FLOAT32, None
    return bytes(fbu.convert_object_to_bytearray(m))


def densified(tf, model):
    """The model with each DENSIFY's output a constant holding what the runtime's own DENSIFY
    writes there, and the DENSIFYs gone: a model float_twin can dequantize."""
    from tensorflow.lite.tools import flatbuffer_utils as fbu
    schema = _schema()
    builtin = tf.lite.experimental.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
    it = tf.lite.Interpreter(model_content=model, experimental_op_resolver_type=builtin)
    it.allocate_tensors()
    it.invoke()  # DENSIFY writes its output on the first run (the inputs do not matter)
    m = fbu.read_model_from_bytearray(bytearray(model))
    sg = m.subgraphs[0]
    codes = [max(oc.builtinCode, oc.deprecatedBuiltinCode) for oc in m.operatorCodes]
    densify = [op for op in sg.operators if codes[op.opcodeIndex] == schema.BuiltinOperator.DENSIFY]
    for op in densify:
        buffer = schema.BufferT()
        buffer.data = np.frombuffer(it.get_tensor(op.outputs[0]).tobytes(), dtype=np.uint8)
        m.buffers.append(buffer)
        sg.tensors[op.outputs[0]].buffer = len(m.buffers) - 1
    sg.operators = [op for op in sg.operators if op not in densify]
    return bytes(fbu.convert_object_to_bytearray(m))


def malformed_sparse(src, dst):
    """Copies model `src` to `dst` with its first sparse constant holding an index outside its last
    dim and its last one a segment short: formats a reader must decline (see test_cli.py)."""
    from tensorflow.lite.tools import flatbuffer_utils as fbu
    m = fbu.read_model_from_bytearray(bytearray(Path(src).read_bytes()))
    sparse = [t for t in m.subgraphs[0].tensors if t.sparsity is not None]
    first, last = sparse[0].sparsity.dimMetadata, sparse[-1].sparsity.dimMetadata
    first[-1].arrayIndices.values[0] = 200
    compressed = next(d for d in last if d.arraySegments is not None)
    compressed.arraySegments.values = compressed.arraySegments.values[:-1]
    Path(dst).write_bytes(bytes(fbu.convert_object_to_bytearray(m)))


def describe(tf, model):
    """The converted model's nodes (op, fused activation, options, dtypes) and its interpreter."""
    it = tf.lite.Interpreter(model_content=model)
    nodes = []
    for op, (act, opt) in zip(it._get_ops_details(), _op_options(model)):
        types = op["operand_types"]
        data = types[2:3] if op["op_name"] in TRANSPOSE_CONV_OPS else types[:1]  # the data input's type
        nodes.append({
            "op": op["op_name"], "act": act, "options": opt,
            "float32": all(t is np.float32 for t in types + op["result_types"]),
            "int8": all(t is np.int8 for t in types + op["result_types"]),
            "f32_data": all(t is np.float32 for t in data + op["result_types"]),
            "int8_weights": data == [np.float32] and np.int8 in types,
        })
    return nodes, it


def _op_options(model):
    """Per operator of subgraph 0: (fused activation name, notable options)."""
    from tensorflow.lite.tools import flatbuffer_utils as fbu
    schema = _schema()
    act_names = {v: k for k, v in vars(schema.ActivationFunctionType).items() if not k.startswith("_")}
    paddings = {v: k for k, v in vars(schema.Padding).items() if not k.startswith("_")}
    mirror_modes = {v: k for k, v in vars(schema.MirrorPadMode).items() if not k.startswith("_")}
    m = fbu.read_model_from_bytearray(bytearray(model))
    out = []
    for op in m.subgraphs[0].operators:
        o = op.builtinOptions
        act = act_names.get(getattr(o, "fusedActivationFunction", 0), "?")
        opt = {}
        if hasattr(o, "approximate"):
            opt["approximate"] = bool(o.approximate)
        if hasattr(o, "alpha"):
            opt["alpha"] = round(float(o.alpha), 6)
        if hasattr(o, "strideH"):  # CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, pools
            opt["stride"] = f"{o.strideH}x{o.strideW}"
            if (getattr(o, "dilationHFactor", 1), getattr(o, "dilationWFactor", 1)) != (1, 1):
                opt["dilation"] = f"{o.dilationHFactor}x{o.dilationWFactor}"
            opt["padding"] = paddings.get(o.padding, "?")
            if getattr(o, "depthMultiplier", 1) != 1:
                opt["multiplier"] = int(o.depthMultiplier)
        if isinstance(o, schema.MirrorPadOptionsT):
            opt["mode"] = mirror_modes.get(o.mode, "?")
        if isinstance(o, schema.ConcatenationOptionsT):
            opt["axis"] = int(o.axis)
        if hasattr(o, "halfPixelCenters"):  # the resizes
            opt["align_corners"] = bool(o.alignCorners)
            opt["half_pixel_centers"] = bool(o.halfPixelCenters)
        if hasattr(o, "adjX"):  # BATCH_MATMUL
            opt["adj_x"] = bool(o.adjX)
        out.append((act, opt))
    return out


def _op_label(nd):
    label = nd["op"] + ("" if nd["act"] == "NONE" else "+" + nd["act"])
    return label + "".join(f" {k}={v}" for k, v in nd["options"].items() if k != "adj_x")


def expected_all(spec):
    """(nodes claimed, groups) with default options (every family), as the spec states them."""
    if spec.claimed_all is None:
        return spec.claimed_elementwise, spec.partitions_elementwise
    return spec.claimed_all, spec.partitions_elementwise if spec.partitions_all is None else spec.partitions_all


def check(spec, nodes):
    """Fails when the converted model cannot be what the spec means: an op it names was
    not emitted, or its hand counts exceed what the model holds. (What the delegate
    claims is checked by the tests, against the plan the library writes.)"""
    labels = [_op_label(n) for n in nodes]
    missing = [w for w in spec_emits(spec) if not any(lb == w or lb.startswith(w + " ") for lb in labels)]
    if missing:
        raise SystemExit(f"{spec.name}: the converted model has no {missing}: {labels}")
    elementwise = sum((n["float32"] and n["op"] in CLAIMABLE_OPS) or (n["int8"] and n["op"] in INT8_OPS)
                      for n in nodes)
    for what, (claimed, groups), most in ((" with fusions=elementwise", (spec.claimed_elementwise,
                                                                          spec.partitions_elementwise), elementwise),
                                          ("", expected_all(spec), len(nodes))):
        if not (claimed <= most and (claimed > 0) == (groups > 0) and groups <= claimed):
            raise SystemExit(f"{spec.name}: {claimed} claimed in {groups} groups{what} cannot be: "
                             f"the model has {most} nodes that could be claimed: {labels}")


def spec_emits(spec):
    """The op labels the spec exercises: its `emits`, or for op_<name> specs the op itself."""
    if spec.emits or not spec.name.startswith("op_"):
        return list(spec.emits)
    key = spec.name[3:].upper()
    if key in UNARY_FNS:
        return [{"GELU": "GELU approximate=False", "GELU_TANH": "GELU approximate=True"}.get(key, key)]
    base = max((op for op in BINARY_OPS if key == op or key.startswith(op + "_")), key=len)
    return [base + key[len(base):].replace("_", "+", 1)]


def resize_cases(signatures, resizes=None, batches=RESIZE_BATCHES):
    """The manifest's resize_cases for inputs of these shape signatures: `resizes` (per case a
    shape per input), or where a signature has open axes, each of `batches` in place of every -1."""
    if resizes is None:
        open_axes = any(-1 in sig for sig in signatures)
        resizes = [[[b if d == -1 else d for d in sig] for sig in signatures] for b in batches] if open_axes else []
    return [{"key": ",".join("x".join(map(str, s)) for s in shapes), "shapes": shapes} for shapes in resizes]


def manifest_entry(spec, nodes, it, size):
    check(spec, nodes)
    ops = sorted({n["op"] for n in nodes})
    return {
        "file": f"{spec.name}.tflite",
        "about": spec.about,
        "expect_claimed": expected_all(spec)[0],  # by hand: nodes claimed with default options
        "expect_partitions": expected_all(spec)[1],  # and the fused groups they form
        "expect_claimed_elementwise": spec.claimed_elementwise,  # the same with fusions=elementwise
        "expect_partitions_elementwise": spec.partitions_elementwise,
        "expect_int8_conv": list(spec.int8_conv or expected_all(spec)),  # with fusions "all,int8_conv"
        "steps_2_14": spec.steps_2_14,
        "ops": [_op_label(n) for n in nodes],
        "approx_ops": [o for o in ops if o in APPROX_OPS],
        "int8_weight_nodes": [i for i, n in enumerate(nodes) if n["int8_weights"]],
        "input_ranges": spec.input_ranges(),
        "input_dtypes": [np.dtype(d["dtype"]).name for d in it.get_input_details()],
        "dynamic_batch": spec.dynamic,
        "shape_signatures": [d["shape_signature"].tolist() for d in it.get_input_details()],
        "resize_cases": resize_cases([d["shape_signature"].tolist() for d in it.get_input_details()], spec.resizes),
        "start_shapes": spec.start,
        "bytes": size,
    }


def generate(outdir, only=None):
    tf = _tf()
    tf.random.set_seed(0)
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    models, emitted = {}, set()
    for spec in all_specs():
        if only and spec.name not in only:
            continue
        model = convert(tf, spec)
        (outdir / f"{spec.name}.tflite").write_bytes(model)
        nodes, it = describe(tf, model)
        models[spec.name] = manifest_entry(spec, nodes, it, len(model))
        if write_float_twin(tf, model, spec.weights, outdir / f"{spec.name}_twin.tflite"):
            models[spec.name]["reference_file"] = f"{spec.name}_twin.tflite"
        emitted |= {n["op"] for n in nodes
                    if n["float32"] or (n["op"] in PAD_OPS + RESIZE_OPS + TRANSPOSE_CONV_OPS and n["f32_data"])}
    if not only:
        missing = set(CLAIMABLE_OPS + ANCHOR_OPS + PAD_OPS) - emitted
        if missing:
            raise SystemExit(f"no model covers {sorted(missing)}")
    manifest = {"generator": source_hash(), "tensorflow": tf.__version__, "models": models}
    (outdir / "manifest.json").write_text(json.dumps(manifest, indent=1))


def write_default_model(path):
    tf = _tf()
    spec = default_spec()
    model = convert(tf, spec)
    check(spec, describe(tf, model)[0])
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_bytes(model)
    print(f"wrote {path} ({len(model)} bytes)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", nargs="?")
    ap.add_argument("--only", nargs="+", help="generate only these models")
    ap.add_argument("--default-model", metavar="PATH", help="write the bundled default model")
    args = ap.parse_args(argv)
    if not args.outdir and not args.default_model:
        ap.error("give OUTDIR and/or --default-model PATH")
    if args.default_model:
        write_default_model(args.default_model)
    if args.outdir:
        generate(args.outdir, args.only)


if __name__ == "__main__":
    sys.exit(main())
