"""Seeded random graphs with open axes, for the shape fuzz test (tests/test_shape_fuzz.py).

    python tests/shape_fuzz.py OUTDIR --seed S --graphs N [--only K ...]

writes OUTDIR/s<K>.tflite and OUTDIR/manifest.json (the fields tests/worker.py reads, and
per graph its seed, index and `about`, the graph in one line). Graph K of seed S draws from
numpy's default_rng([S, K, attempt]): the same made alone (--only K) or among thousands. Where
the converter rejects a graph (it does some valid ones: "'tfl.sub' op result type not
broadcast compatible" on [1, ?] operands), the next attempt draws another; after ATTEMPTS the
entry gets an `error` instead of a file.

A graph is one or two float32 inputs (an image [B,H,W,C], rows [B,T,D], vectors [B,D] or a
vector [N]) whose signature leaves random axes open (-1): the batch, H and W, the sequence,
and the last axis where no step reads weights along it. Inputs that share an axis share its
name, and so its size. Then 2 to 9 steps, each drawn from the views (EXPAND_DIMS, SQUEEZE of
named axes or of every 1, RESHAPE to a constant shape with -1 or to one computed at run
time, TRANSPOSE; the index views SLICE, STRIDED_SLICE, GATHER, TILE, a part of SPLIT,
SPLIT_V or UNPACK, DEPTH_TO_SPACE, SPACE_TO_DEPTH), elementwise ops (a constant or a live value of a shape that broadcasts,
whatever the sizes), CONV_2D, DEPTHWISE_CONV_2D, pools, FULLY_CONNECTED, BATCH_MATMUL,
CONCATENATION, reductions over the last axis or H and W, and SOFTMAX. A step applies only
where the shape allows at every size of the open axes.

Each graph has resize_cases: per case a size for every open axis (0, 1, or 2 to 9; at most
MAX_ELEMENTS per input), the inputs' shapes the worker resizes to; in a tenth of the graphs the
last case makes one open axis 256 to 4096 (tensors past 1 MiB: depth-first chains, streamed
tiles).
"""
import math
import sys
from dataclasses import dataclass

import numpy as np

import fuzz
import models

MAX_STEPS = 9
ATTEMPTS = 5
MAX_ELEMENTS = 6000  # per input, at any resize
CASES = 4  # resize cases per graph
LARGE_SHARE = 0.1  # graphs whose last case makes one open axis large, of up to LARGE_ELEMENTS per input:
LARGE_ELEMENTS = 400_000  # a tensor after a convolution may pass 1 MiB (depth-first chains from there on)
AXIS_NAMES = {"image": "BHWC", "rows": "BTD", "vectors": "BD", "vector": "N"}


@dataclass
class Value:
    t: object  # the TF tensor
    name: str
    dims: tuple  # per axis an int (fixed) or a str (open: its name); None: rank unknown

    @property
    def rank(self):
        return None if self.dims is None else len(self.dims)


class Graph:
    """One random graph being traced: its values, a line per step, fresh axis names."""

    def __init__(self, tf, rng):
        self.tf, self.rng = tf, rng
        self.values, self.steps, self.fresh, self.read = [], [], 0, set()

    def new(self, t, dims, text):
        v = Value(t, f"v{len(self.values)}", None if dims is None else tuple(dims))
        self.values.append(v)
        self.steps.append(f"{v.name}{list(v.dims) if dims is not None else '[?]'}={text}")
        return v

    def chance(self, p):
        return self.rng.random() < p

    def pick(self, seq):
        return seq[self.rng.integers(len(seq))]

    def axis(self):
        """A new open axis whose size follows from others' (a strided conv's, a merge's)."""
        self.fresh += 1
        return f"x{self.fresh}"

    def const(self, shape, lo=-1.0, hi=1.0):
        return self.rng.uniform(lo, hi, size=shape).astype(np.float32)


def is_open(d):
    return isinstance(d, str)


def broadcasts(a, b):
    """Whether dims a and b broadcast at every size of their open axes (the same open axis,
    or a fixed 1 on one side)."""
    for x, y in zip(reversed(a), reversed(b)):
        if x != y and x != 1 and y != 1:
            return False
    return True


def broadcast_dims(a, b):
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        out.append(y if x == 1 else x)
    return tuple(reversed(out))


# ---------------------------------------------------------------------------
# Elementwise steps.

UNARY = {
    "relu": lambda tf, t: tf.nn.relu(t),
    "tanh": lambda tf, t: tf.tanh(t),
    "abs": lambda tf, t: tf.abs(t),
    "neg": lambda tf, t: tf.negative(t),
    "logistic": lambda tf, t: tf.sigmoid(t),
    "relu6": lambda tf, t: tf.nn.relu6(t),
    "exp": lambda tf, t: tf.exp(tf.clip_by_value(t, -3.0, 3.0)),
}


def unary(g, v):
    name = g.pick(list(UNARY))
    return g.new(UNARY[name](g.tf, v.t), v.dims, f"{name}({v.name})")


def binary(g, v):
    """ADD, SUB, MUL, MAXIMUM of v and a constant whose axes are 1 where v's are open, or a
    live value whose shape broadcasts with v's at every size."""
    if v.dims is None:
        return None
    live = [w for w in g.values if w.dims is not None and broadcasts(v.dims, w.dims)]
    if live and g.chance(0.5):
        w = g.pick(live)
        g.read.add(w.name)
        other, dims, text = w.t, broadcast_dims(v.dims, w.dims), w.name
    else:
        shape = [d if not is_open(d) and g.chance(0.6) else 1 for d in v.dims]
        shape = shape[int(g.rng.integers(len(shape) + 1)):] if g.chance(0.3) else shape
        other, dims, text = g.const(shape, -1.5, 1.5), v.dims, f"c{shape}"
    op = g.pick(("add", "sub", "mul", "maximum"))
    fn = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
          "maximum": g.tf.maximum}[op]
    a, b = (v.t, other) if g.chance(0.5) else (other, v.t)
    t = fn(a, b)
    return g.new(g.tf.tanh(t) if op == "mul" else t, dims, f"{op}({v.name},{text})")


# ---------------------------------------------------------------------------
# Views.

def expand_dims(g, v):
    if v.dims is None or v.rank >= 5:
        return None
    axis = int(g.rng.integers(-v.rank - 1, v.rank + 1))
    at = axis if axis >= 0 else axis + v.rank + 1
    return g.new(g.tf.expand_dims(v.t, axis), v.dims[:at] + (1,) + v.dims[at:], f"expand_dims({v.name},{axis})")


def squeeze(g, v):
    """SQUEEZE of fixed axes of size 1 (by index, either sign), or of every axis of size 1:
    where an axis is open its rank is then known only at run time."""
    if v.dims is None:
        return None
    ones = [i for i, d in enumerate(v.dims) if d == 1]
    if ones and g.chance(0.7):
        axes = [int(i) for i in g.rng.choice(ones, size=int(g.rng.integers(1, len(ones) + 1)), replace=False)]
        axes = [a - v.rank if g.chance(0.3) else a for a in axes]
        dims = tuple(d for i, d in enumerate(v.dims) if i not in [a % v.rank for a in axes])
        return g.new(g.tf.squeeze(v.t, axes), dims, f"squeeze({v.name},{axes})")
    if not ones and not any(is_open(d) for d in v.dims):
        return None
    dims = None if any(is_open(d) for d in v.dims) else tuple(d for d in v.dims if d != 1)
    return g.new(g.tf.squeeze(v.t), dims, f"squeeze_all({v.name})")


def merged(g, dims):
    """The dims merged into one: their product, or one open axis (itself, or a new one)."""
    fixed = math.prod(d for d in dims if not is_open(d))
    opened = [d for d in dims if is_open(d)]
    if not opened:
        return fixed
    return opened[0] if len(opened) == 1 and fixed == 1 else g.axis()


def reshape(g, v):
    """RESHAPE to a constant shape: the axes up to a fixed suffix merged into one -1, a fixed
    axis split in two; or (computed at run time) the first axis kept and the rest merged."""
    if v.dims is None or v.rank < 1:
        return None
    kind = g.pick(("merge", "split", "computed"))
    if kind == "computed" and v.rank >= 2:
        t = g.tf.reshape(v.t, [g.tf.shape(v.t)[0], -1])
        return g.new(t, (v.dims[0], merged(g, v.dims[1:])), f"reshape_computed({v.name})")
    if kind == "split":
        splits = [(i, f) for i, d in enumerate(v.dims) if not is_open(d) for f in (2, 3) if d % f == 0 and d > f]
        if splits and v.rank < 5:
            i, f = splits[int(g.rng.integers(len(splits)))]
            dims = v.dims[:i] + (f, v.dims[i] // f) + v.dims[i + 1:]
            target = [-1 if is_open(d) else d for d in dims]
            if target.count(-1) <= 1:
                return g.new(g.tf.reshape(v.t, target), dims, f"reshape({v.name},{target})")
    cut = int(g.rng.integers(1, v.rank + 1))
    suffix = v.dims[cut:]
    if any(is_open(d) for d in suffix):
        return None
    target = [-1] + list(suffix)
    return g.new(g.tf.reshape(v.t, target), (merged(g, v.dims[:cut]),) + suffix, f"reshape({v.name},{target})")


def transpose(g, v):
    if v.dims is None or v.rank < 2:
        return None
    perm = [int(p) for p in g.rng.permutation(v.rank)]
    if perm == sorted(perm):
        perm[-2], perm[-1] = perm[-1], perm[-2]
    return g.new(g.tf.transpose(v.t, perm), tuple(v.dims[p] for p in perm), f"transpose({v.name},{perm})")


def concat(g, v):
    """CONCATENATION of v with itself or a unary op of it, along any axis (either sign)."""
    if v.dims is None or v.rank < 1:
        return None
    axis = int(g.rng.integers(v.rank))
    other = g.pick((v.t, g.tf.tanh(v.t)))
    d = v.dims[axis]
    dims = v.dims[:axis] + (g.axis() if is_open(d) else 2 * d,) + v.dims[axis + 1:]
    arg = axis - v.rank if g.chance(0.3) else axis
    return g.new(g.tf.concat([v.t, other], axis=arg), dims, f"concat({v.name},axis={arg})")


# ---------------------------------------------------------------------------
# Index views: SLICE, STRIDED_SLICE, GATHER, TILE, SPLIT / SPLIT_V / UNPACK,
# DEPTH_TO_SPACE, SPACE_TO_DEPTH. On an open axis only what fits every size.

def slice_(g, v):
    """SLICE of one fixed axis (a begin and a size, or -1: to the end); the rest whole."""
    fixed = [i for i, d in enumerate(v.dims or ()) if not is_open(d) and d >= 2]
    if not fixed:
        return None
    i = g.pick(fixed)
    b = int(g.rng.integers(v.dims[i]))
    size = g.pick((-1, int(g.rng.integers(1, v.dims[i] - b + 1))))
    begin, sizes = [0] * v.rank, [-1] * v.rank
    begin[i], sizes[i] = b, size
    dims = v.dims[:i] + (v.dims[i] - b if size == -1 else size,) + v.dims[i + 1:]
    return g.new(g.tf.slice(v.t, begin, sizes), dims, f"slice({v.name},{begin},{sizes})")


def strided(g, v):
    """x[..., a:b:s, ...] on each axis: fixed ones any python slice or an index (shrunk),
    open ones whole, reversed, or from 1 on (a new open size)."""
    if v.dims is None or v.rank < 1:
        return None
    keys, dims, text = [], [], []
    for d in v.dims:
        if is_open(d):
            k = g.pick((slice(None), slice(None, None, -1), slice(1, None)))
            dims.append(d if k.start is None else g.axis())
        elif g.chance(0.2) and d >= 1:  # an index: the axis dropped
            k = int(g.rng.integers(-d, d))
        else:
            start, stop = (int(g.rng.integers(-d - 1, d + 2)) if g.chance(0.6) else None for _ in range(2))
            k = slice(start, stop, g.pick((1, 1, 2, 3, -1, -2)))
            if not range(d)[k]:  # fixed axes stay at 1 or more (the converter divides by them)
                k = slice(None, None, k.step)
            dims.append(len(range(d)[k]))
        keys.append(k)
        text.append(str(k) if isinstance(k, int) else f"{k.start}:{k.stop}:{k.step}")
    if not dims:  # every axis an index: a scalar
        return None
    return g.new(v.t[tuple(keys)], dims, f"strided({v.name},[{','.join(text)}])")


def gather(g, v):
    """GATHER along a fixed axis of constant indices (a vector or a matrix)."""
    fixed = [i for i, d in enumerate(v.dims or ()) if not is_open(d)]
    if not fixed:
        return None
    i = g.pick(fixed)
    shape = g.pick(((int(g.rng.integers(1, 6)),), (2, int(g.rng.integers(1, 3)))))
    idx = g.rng.integers(v.dims[i], size=shape).astype(np.int32)
    if v.rank - 1 + len(shape) > 5:
        return None
    arg = i - v.rank if g.chance(0.3) else i
    dims = v.dims[:i] + shape + v.dims[i + 1:]
    return g.new(g.tf.gather(v.t, idx, axis=arg), dims, f"gather({v.name},{idx.tolist()},axis={arg})")


def tile(g, v):
    """TILE of one axis by 2 or 3 (more would outgrow what the reference kernels run quickly)."""
    if v.dims is None or v.rank < 1:
        return None
    mult = [1] * v.rank
    mult[int(g.rng.integers(v.rank))] = int(g.pick((2, 3)))
    dims = tuple(d if m == 1 else g.axis() if is_open(d) else d * m for d, m in zip(v.dims, mult))
    return g.new(g.tf.tile(v.t, mult), dims, f"tile({v.name},{mult})")


def split(g, v):
    """One part of SPLIT (equal parts), SPLIT_V (given sizes, one -1) or UNPACK of a fixed axis."""
    fixed = [i for i, d in enumerate(v.dims or ()) if not is_open(d) and d >= 2]
    if not fixed:
        return None
    i = g.pick(fixed)
    d = v.dims[i]
    kind = g.pick(("split", "split_v", "unpack"))
    if kind == "unpack" and d <= 4 and v.rank >= 2:
        k = int(g.rng.integers(d))
        return g.new(g.tf.unstack(v.t, axis=i)[k], v.dims[:i] + v.dims[i + 1:], f"unpack({v.name},{i})[{k}]")
    if kind == "split" and d % 2 == 0:
        parts, sizes = 2, [d // 2] * 2
    else:
        a = int(g.rng.integers(1, d))
        parts, sizes = [a, -1], [a, d - a]
    k = int(g.rng.integers(len(sizes)))
    t = g.tf.split(v.t, parts, axis=i)[k]
    return g.new(t, v.dims[:i] + (sizes[k],) + v.dims[i + 1:], f"split({v.name},{parts},{i})[{k}]")


def depth_space(g, v):
    """DEPTH_TO_SPACE 2 of fixed channels that 4 divides, else SPACE_TO_DEPTH 2 of even H and W."""
    if v.dims is None or v.rank != 4:
        return None
    b, h, w, c = v.dims
    if not is_open(c) and c % 4 == 0 and g.chance(0.5):
        up = tuple(g.axis() if is_open(x) else 2 * x for x in (h, w))
        return g.new(g.tf.nn.depth_to_space(v.t, 2), (b,) + up + (c // 4,), f"depth_to_space({v.name})")
    if is_open(h) or is_open(w) or h % 2 or w % 2 or is_open(c):
        return None
    return g.new(g.tf.nn.space_to_depth(v.t, 2), (b, h // 2, w // 2, 4 * c), f"space_to_depth({v.name})")


# ---------------------------------------------------------------------------
# Anchors: convolutions, pools, FULLY_CONNECTED, BATCH_MATMUL, reductions, SOFTMAX.

def spatial(g, d, k, stride, padding):
    """An output axis of a window op over axis d."""
    if not is_open(d):
        return -(-d // stride) if padding == "SAME" else (d - k) // stride + 1
    return d if stride == 1 and padding == "SAME" else g.axis()


def conv(g, v):
    """CONV_2D or DEPTHWISE_CONV_2D (kernel 1 or 3, stride 1 or 2, SAME or VALID) of an
    image with fixed channels, bias and perhaps RELU."""
    if v.rank != 4 or is_open(v.dims[3]):
        return None
    _, h, w, c = v.dims
    k, stride = g.pick((1, 3)), g.pick((1, 1, 2))
    padding = g.pick(("SAME", "VALID"))
    if any(not is_open(d) and d < k for d in (h, w)):
        padding = "SAME"
    if g.chance(0.4):
        y = g.tf.nn.depthwise_conv2d(v.t, g.const([k, k, c, 1], -0.5, 0.5), [1, stride, stride, 1], padding)
        n, kind = c, "dwconv"
    else:
        n = int(g.rng.integers(1, 9))
        y = g.tf.nn.conv2d(v.t, g.const([k, k, c, n], -0.5, 0.5), stride, padding)
        kind = "conv"
    y = y + g.const([n], -0.3, 0.3)
    if g.chance(0.4):
        y = g.tf.nn.relu(y)
    dims = (v.dims[0], spatial(g, h, k, stride, padding), spatial(g, w, k, stride, padding), n)
    return g.new(y, dims, f"{kind}{k}x{k}/s{stride}/{padding}->{n}({v.name})")


def pool(g, v):
    if v.rank != 4:
        return None
    padding = g.pick(("SAME", "VALID"))
    _, h, w, c = v.dims
    if any(not is_open(d) and d < 2 for d in (h, w)):
        padding = "SAME"
    kind = g.pick(("max", "avg"))
    fn = g.tf.nn.max_pool2d if kind == "max" else g.tf.nn.avg_pool2d
    dims = (v.dims[0], spatial(g, h, 2, 2, padding), spatial(g, w, 2, 2, padding), c)
    return g.new(fn(v.t, 2, 2, padding), dims, f"{kind}_pool2x2/{padding}({v.name})")


def dense(g, v):
    """A matmul of v (rank 2 or 3, its last axis fixed) by constant weights, bias or not."""
    if v.rank not in (2, 3) or is_open(v.dims[-1]) or v.dims[-1] < 2:
        return None
    d, n = v.dims[-1], int(g.rng.integers(1, 13))
    y = g.tf.matmul(v.t, g.const([d, n], -math.sqrt(3 / d), math.sqrt(3 / d)))
    if g.chance(0.6):
        y = y + g.const([n], -0.3, 0.3)
    return g.new(y, v.dims[:-1] + (n,), f"dense->{n}({v.name})")


def batch_matmul(g, v):
    """v [.., T, D] times its own transpose: [.., T, T]; not of a [.., T, T] again (a large case
    of T then costs T^3 in the reference kernels: minutes)."""
    if v.rank not in (3, 4) or v.dims[-1] == v.dims[-2]:
        return None
    t = g.tf.matmul(v.t, v.t, transpose_b=True)
    return g.new(g.tf.tanh(t), v.dims[:-1] + (v.dims[-2],), f"matmul({v.name},{v.name}^T)")


# Over an axis a run may size (even 0), only sums of magnitudes: a MEAN of no values is NaN
# (0 / 0) and a REDUCE_MAX -FLT_MAX, which TFLite's kernels then treat each their own way
# (LiteRT's one-channel depthwise kernel turns NaN into FLT_MAX; sums of +-FLT_MAX overflow
# in their order), and a sum of many signed terms cancels to its rounding. tests/models.py
# has the reductions of emptied axes.
def reduce_last(g, v):
    if v.dims is None or v.rank < 2:
        return None
    kind = g.pick(("mean", "sum", "max")) if not is_open(v.dims[-1]) else "sum"
    keep = g.chance(0.6)
    if kind == "sum":
        t = g.tf.tanh(g.tf.reduce_sum(g.tf.abs(v.t), axis=-1, keepdims=keep) * 0.1)
    else:
        t = (g.tf.reduce_mean if kind == "mean" else g.tf.reduce_max)(v.t, axis=-1, keepdims=keep)
    return g.new(t, v.dims[:-1] + ((1,) if keep else ()), f"{kind}_last({v.name},keep={keep})")


def mean_hw(g, v):
    if v.rank != 4 or is_open(v.dims[1]) or is_open(v.dims[2]):
        return None
    keep = g.chance(0.5)
    t = g.tf.reduce_mean(v.t, axis=[1, 2], keepdims=keep)
    dims = (v.dims[0], 1, 1, v.dims[3]) if keep else (v.dims[0], v.dims[3])
    return g.new(t, dims, f"mean_hw({v.name},keep={keep})")


def softmax(g, v):
    if v.dims is None or v.rank < 2:
        return None
    return g.new(g.tf.nn.softmax(v.t), v.dims, f"softmax({v.name})")


STEPS = ((unary, 3), (binary, 4), (expand_dims, 3), (squeeze, 2), (reshape, 3), (transpose, 2), (concat, 2),
         (conv, 3), (pool, 1), (dense, 3), (batch_matmul, 1), (reduce_last, 2), (mean_hw, 1), (softmax, 1),
         (slice_, 1), (strided, 2), (gather, 1), (tile, 1), (split, 2), (depth_space, 1))
STEP_WEIGHTS = np.array([w for _, w in STEPS], float) / sum(w for _, w in STEPS)


def step(g, v):
    """One random step reading v (draws again until one applies)."""
    g.read.add(v.name)
    for _ in range(100):
        out = STEPS[g.rng.choice(len(STEPS), p=STEP_WEIGHTS)][0](g, v)
        if out is not None:
            return out
    return unary(g, v)


# ---------------------------------------------------------------------------
# Inputs, open axes and the resize cases.

def input_dims(g):
    """The first input's dims (each axis open or not), and perhaps a second one: the same
    dims, or a broadcast of them (fixed 1s)."""
    kind = g.pick(("image", "image", "rows", "rows", "vectors", "vector"))
    sizes = {"image": (1, 8, 8, 4), "rows": (1, 6, 8), "vectors": (1, 12), "vector": (8,)}[kind]
    names = AXIS_NAMES[kind]
    chance = {"B": 0.6, "H": 0.5, "W": 0.5, "T": 0.6, "N": 0.8, "C": 0.25, "D": 0.3}
    dims = tuple(n if g.chance(chance[n]) else int(g.rng.integers(1, s + 1)) if n != "B" else s
                 for n, s in zip(names, sizes))
    if not any(is_open(d) for d in dims):
        dims = (names[0],) + dims[1:]
    first = [dims]
    if g.chance(0.35):
        first.append(dims if g.chance(0.5) else tuple(d if g.chance(0.5) else 1 for d in dims))
    return first


def signature(dims):
    return [None if is_open(d) else d for d in dims]


def resize_case(g, inputs, large=False):
    """A size for every open axis (0, 1 or 2-9; `large`: one of them 256 to 4096), shrunk
    until each input holds at most MAX_ELEMENTS (LARGE_ELEMENTS): per input its shape."""
    names = sorted({d for dims in inputs for d in dims if is_open(d)})
    size = {n: int(g.pick((0, 1, 1, *range(2, 10)))) for n in names}
    if large:
        size[g.pick(names)] = int(g.pick((256, 1024, 4096)))
    most = LARGE_ELEMENTS if large else MAX_ELEMENTS
    while True:
        shapes = [[size[d] if is_open(d) else d for d in dims] for dims in inputs]
        big = [s for s in shapes if math.prod(s) > most]
        if not big:
            return shapes
        n = max(names, key=lambda k: size[k])
        size[n] = max(1, size[n] // 2)


def trace(g, xs, inputs):
    for x, dims in zip(xs, inputs):
        g.new(x, dims, "input")
    for _ in range(int(g.rng.integers(2, MAX_STEPS + 1))):
        v = g.values[-1] if g.chance(0.75) else g.pick(g.values)
        step(g, v)
    outs = [g.values[-1]] + ([g.pick(g.values[len(xs):-1])] if len(g.values) > len(xs) + 1 and g.chance(0.3) else [])
    outs += [unary(g, x) for x in g.values[:len(xs)] if x.name not in g.read]  # every input stays the model's
    g.steps.append("out " + ",".join(v.name for v in outs))
    return tuple(v.t for v in outs)


def make_graph(tf, seed, index, attempt=0):
    """(tflite bytes or None, manifest entry, resize cases) of graph `index` of `seed`."""
    g = Graph(tf, np.random.default_rng([seed, index, attempt]))
    inputs = input_dims(g)
    sigs = [tf.TensorSpec(signature(d), tf.float32, name=f"in{i}") for i, d in enumerate(inputs)]
    cases = []
    large = g.chance(LARGE_SHARE)
    for k in range(CASES):
        shapes = resize_case(g, inputs, large and k == CASES - 1)
        if shapes not in cases:
            cases.append(shapes)
    entry = {"seed": seed, "index": index, "attempt": attempt, "weights": "float32",
             "input_ranges": [[-2.0, 2.0]] * len(inputs), "input_axes": [list(d) for d in inputs]}
    try:
        fn = tf.function(lambda *xs: trace(g, xs, inputs), input_signature=sigs, autograph=False)
        converter = tf.lite.TFLiteConverter.from_concrete_functions([fn.get_concrete_function()])
        model = converter.convert()
    except Exception as e:
        if attempt + 1 < ATTEMPTS:
            return make_graph(tf, seed, index, attempt + 1)
        model = None
        entry["error"] = f"{type(e).__name__}: {e}"[:2000]
    entry["about"] = "; ".join(g.steps)
    return model, entry, cases


def describe(tf, model, entry, index, cases):
    nodes, it = models.describe(tf, model)
    inputs = it.get_input_details()
    order = [int(d["name"].split("in")[-1].split(":")[0]) for d in inputs]  # the converter may reorder
    entry.update({
        "file": f"s{index:05d}.tflite",
        "ops": [models._op_label(n) for n in nodes],
        "approx_ops": sorted({n["op"] for n in nodes} & set(models.APPROX_OPS)),
        "int8_weight_nodes": [],
        "input_dtypes": [np.dtype(d["dtype"]).name for d in inputs],
        "shape_signatures": [d["shape_signature"].tolist() for d in inputs],
        "resize_cases": models.resize_cases(None, [[shapes[i] for i in order] for shapes in cases]),
        "bytes": len(model),
    })
    return entry


def write_graph(tf, outdir, seed, k):
    """Graph k of `seed` into outdir: its name and entry."""
    model, entry, cases = make_graph(tf, seed, k)
    if model is not None:
        (outdir / f"s{k:05d}.tflite").write_bytes(model)
        entry = describe(tf, model, entry, k, cases)
    return f"s{k:05d}", entry


if __name__ == "__main__":
    sys.exit(fuzz.main(doc=__doc__, write_one=write_graph, graphs=150))
