"""The steps random graphs are made of (tests/fuzz.py): one value in, one value out.

Each step reads a graph value v (and perhaps others, or constants) and returns the new
Value, or None where it does not apply to v (its rank, its sizes). Every value carries a
rough bound of its magnitude; one past BOUND is brought back (TANH, a clamp or a scale), so
no graph overflows. LOG, SQRT, RSQRT, POW's base and denominators read abs(v) + 0.5 or
v^2 + 0.5; EXP reads a clamp to [-4, 4]. No step makes a value of more than MAX_ELEMENTS
per image, and the dynamic batch (None) only ever stays the first dimension.
"""
import math
from dataclasses import dataclass

import numpy as np

BOUND = 20.0  # values past this are brought back
MAX_ELEMENTS = 4096  # per image: no step makes a bigger value


@dataclass
class Value:
    t: object  # the TF tensor
    name: str
    bound: float  # a rough bound of |value|
    constant: bool = False  # an operand that is no graph value

    @property
    def shape(self):
        return tuple(self.t.shape.as_list())

    @property
    def rank(self):
        return len(self.shape)


class Graph:
    """One random graph being traced: its values, a line per step and what was read."""

    def __init__(self, tf, rng, exact_gelu=True, sparse=False, wide=False):
        self.tf, self.rng, self.exact_gelu, self.sparse, self.wide = tf, rng, exact_gelu, sparse, wide
        self.values, self.steps, self.read = [], [], set()

    def new(self, t, bound, text, *reads):
        v = Value(t, f"v{len(self.values)}", float(bound))
        self.values.append(v)
        self.steps.append(f"{v.name}={text}")
        self.read.update(r.name for r in reads)
        return v

    def chance(self, p):
        return self.rng.random() < p

    def pick(self, seq):
        return seq[self.rng.integers(len(seq))]

    def const(self, shape, lo=-1.0, hi=1.0):
        return self.rng.uniform(lo, hi, size=shape).astype(np.float32)

    def units(self, hi, per_unit):
        """A layer's output channels: 1 to hi, or in a wide graph 1 to 4 * hi (int8 weights need
        layers of 1024+ weights), each unit taking per_unit elements of MAX_ELEMENTS."""
        n = int(self.rng.integers(1, (4 * hi if self.wide else hi) + 1))
        return max(1, min(n, MAX_ELEMENTS // max(per_unit, 1)))

    def weights(self, shape, lo, hi):
        """A layer's weights; in a sparse graph 80% of them zeros, so that the converter's
        sparsity optimization stores them sparse (read through a DENSIFY), or (half the
        layers) 85% of their blocks of 4 along axis -2 (the input channels of a conv's or
        matmul's weights: what the delegate's sparse GEMM takes)."""
        w = self.const(shape, lo, hi)
        if not self.sparse:
            return w
        if len(shape) < 2 or self.rng.random() < 0.5:
            return w * (self.rng.random(w.shape) < 0.2)
        blocks = list(shape)
        blocks[-2] = -(-shape[-2] // 4)
        keep = np.repeat(self.rng.random(blocks) < 0.15, 4, axis=-2)[..., :shape[-2], :]
        return w * keep

    def constant(self, shape, lo=-1.0, hi=1.0):
        """A constant operand, as a Value that is no graph value."""
        c = self.const(shape, lo, hi)
        return Value(self.tf.constant(c), f"c{list(shape)}", max(abs(lo), abs(hi)), True)


def size(shape):
    return math.prod(d for d in shape[1:] if d)


def broadcast(a, b):
    """The numpy broadcast of shapes a and b, or None when they do not broadcast. None in a
    shape is the dynamic batch: it meets itself or 1, and stays the first dimension."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and 1 not in (x, y):
            return None
        out.append(y if x == 1 else x)
    out.reverse()
    return None if None in out[1:] else tuple(out)


def broadcast_kind(g, shape, batch=1):
    """A shape that broadcasts to `shape`: some dimensions 1 ([1,1,1,C], [1,H,1,C],
    [1,H,W,1], ...), the batch `batch`, perhaps leading dimensions dropped ([C], scalar)."""
    kept = [batch] + [d if g.chance(0.5) else 1 for d in shape[1:]]
    return tuple(kept[g.rng.integers(len(kept) + 1):] if g.chance(0.3) else kept)


def resize(g, v):
    """RESIZE_BILINEAR or RESIZE_NEAREST_NEIGHBOR to a size up to twice H and W, each corner
    option TF has (TF2: half pixel centers; TF1: align_corners or neither)."""
    if v.rank != 4:
        return None
    h, w = v.t.shape.as_list()[1:3]
    size = [int(g.rng.integers(1, 2 * h + 1)), int(g.rng.integers(1, 2 * w + 1))]
    kind, option = g.pick(("bilinear", "nearest")), g.pick(("half_pixel", "align_corners", "none"))
    tf1 = g.tf.compat.v1.image
    if option == "half_pixel":
        t = g.tf.image.resize(v.t, size, kind)
    elif kind == "bilinear":
        t = tf1.resize_bilinear(v.t, size, align_corners=option == "align_corners")
    else:
        t = tf1.resize_nearest_neighbor(v.t, size, align_corners=option == "align_corners")
    return g.new(t, v.bound, f"resize_{kind}{size}/{option}({v.name})", v)


# ---------------------------------------------------------------------------
# Elementwise steps. Unary: name -> (tensor of the input, bound of the output).

def _hard_swish(tf, t):
    return t * tf.nn.relu6(t + 3.0) * (1.0 / 6.0)  # the converter emits HARD_SWISH


UNARY = {
    "relu": (lambda g, t: g.tf.nn.relu(t), lambda b: b),
    "relu6": (lambda g, t: g.tf.nn.relu6(t), lambda b: min(b, 6.0)),
    "relu_n1_to_1": (lambda g, t: g.tf.clip_by_value(t, -1.0, 1.0), lambda b: 1.0),
    "leaky_relu": (lambda g, t: g.tf.nn.leaky_relu(t, g.pick((0.01, 0.1, 0.2, 0.3))), lambda b: b),
    "elu": (lambda g, t: g.tf.nn.elu(t), lambda b: b),
    "logistic": (lambda g, t: g.tf.sigmoid(t), lambda b: 1.0),
    "tanh": (lambda g, t: g.tf.tanh(t), lambda b: 1.0),
    "hard_swish": (lambda g, t: _hard_swish(g.tf, t), lambda b: b * (b + 3.0) / 6.0),
    "gelu": (lambda g, t: g.tf.nn.gelu(t, approximate=False), lambda b: b),
    "gelu_tanh": (lambda g, t: g.tf.nn.gelu(t, approximate=True), lambda b: b),
    "swish": (lambda g, t: t * g.tf.sigmoid(t), lambda b: b),
    "exp": (lambda g, t: g.tf.exp(g.tf.clip_by_value(t, -4.0, 4.0)), lambda b: math.exp(min(b, 4.0))),
    "square": (lambda g, t: g.tf.square(t), lambda b: b * b),
    "neg": (lambda g, t: g.tf.negative(t), lambda b: b),
    "abs": (lambda g, t: g.tf.abs(t), lambda b: b),
    "sin": (lambda g, t: g.tf.sin(t), lambda b: 1.0),  # never claimed: cuts groups
}
# These read a positive value (see positive()).
POSITIVE_UNARY = {
    "log": (lambda g, t: g.tf.math.log(t), lambda b: max(0.7, math.log(b))),
    "sqrt": (lambda g, t: g.tf.sqrt(t), lambda b: math.sqrt(b)),
    "rsqrt": (lambda g, t: g.tf.math.rsqrt(t), lambda b: 1.5),
}
BINARY = {
    "add": (lambda g, a, b: a + b, lambda x, y: x + y),
    "sub": (lambda g, a, b: a - b, lambda x, y: x + y),
    "mul": (lambda g, a, b: a * b, lambda x, y: x * y),
    "maximum": (lambda g, a, b: g.tf.maximum(a, b), max),
    "minimum": (lambda g, a, b: g.tf.minimum(a, b), max),
    "squared_difference": (lambda g, a, b: g.tf.math.squared_difference(a, b), lambda x, y: (x + y) ** 2),
}
ACTIVATIONS = {  # the converter fuses these into ADD, SUB, MUL, DIV and the anchors
    "relu": (lambda tf, t: tf.nn.relu(t), lambda b: b),
    "relu6": (lambda tf, t: tf.nn.relu6(t), lambda b: min(b, 6.0)),
    "relu_n1_to_1": (lambda tf, t: tf.clip_by_value(t, -1.0, 1.0), lambda b: 1.0),
}


def positive(g, v):
    """(tensor >= 0.5 made from v, its bound, text)."""
    if g.chance(0.7):
        return g.tf.abs(v.t) + 0.5, v.bound + 0.5, f"abs({v.name})+0.5"
    return g.tf.square(v.t) + 0.5, v.bound ** 2 + 0.5, f"{v.name}^2+0.5"


def unary(g, v):
    name = g.pick(list(UNARY) + list(POSITIVE_UNARY))
    if name == "gelu" and not g.exact_gelu:
        name = "gelu_tanh"
    if name in UNARY:
        fn, bound = UNARY[name]
        return g.new(fn(g, v.t), bound(v.bound), f"{name}({v.name})", v)
    fn, bound = POSITIVE_UNARY[name]
    t, b, text = positive(g, v)
    return g.new(fn(g, t), bound(b), f"{name}({text})", v)


def activation(g, t, bound, p=0.3):
    """t with a fused activation (chance p): (tensor, bound, suffix)."""
    if not g.chance(p):
        return t, bound, ""
    name = g.pick(list(ACTIVATIONS))
    fn, b = ACTIVATIONS[name]
    return fn(g.tf, t), b(bound), f"+{name}"


def partner(g, v):
    """A second operand for v: a live value the two broadcast with (an earlier one, an
    input, v itself), or a constant of a broadcast shape, a scalar now and then."""
    live = [w for w in g.values if (s := broadcast(v.shape, w.shape)) is not None and size(s) <= MAX_ELEMENTS]
    if g.chance(0.45) and live:
        return g.pick(live)
    if g.chance(0.15):
        return Value(g.tf.constant(np.float32(g.rng.uniform(-2.0, 2.0))), "scalar", 2.0, True)
    return g.constant(broadcast_kind(g, v.shape), -1.5, 1.5)


def binary(g, v):
    """ADD SUB MUL DIV MAXIMUM MINIMUM SQUARED_DIFFERENCE POW of v and a partner, either
    side, perhaps with a fused activation."""
    w = partner(g, v)
    a, b = (v, w) if g.chance(0.5) else (w, v)
    op = g.pick(list(BINARY) + ["div", "pow"])
    if op == "div":
        den, _, den_text = positive(g, b)
        t, bound, text = a.t / den, a.bound * 2.0, f"div({a.name},{den_text})"
    elif op == "pow":
        return power(g, a, b)
    else:
        fn, bound = BINARY[op]
        t, bound, text = fn(g, a.t, b.t), bound(a.bound, b.bound), f"{op}({a.name},{b.name})"
    if op in ("add", "sub", "mul", "div"):
        t, bound, act = activation(g, t, bound)
        text += act
    return g.new(t, bound, text, v, w)


def power(g, a, b):
    """POW of a positive base; the exponent in [-2, 2]: a clamped value or a constant
    (2 and 0.5 take the exact paths)."""
    base, bound, text = positive(g, a)
    if b.constant:
        e = g.pick((2.0, 0.5, float(g.rng.uniform(-2.0, 2.0))))
        exponent, etext = g.tf.constant(np.float32(e)), f"{e:.3g}"
    else:
        exponent, etext = g.tf.clip_by_value(b.t, -2.0, 2.0), f"clamp({b.name})"
    return g.new(g.tf.pow(base, exponent), max(bound, 2.0) ** 2, f"pow({text},{etext})", a, b)


def prelu(g, v):
    """PRELU: relu(v) - alpha * relu(-v), alpha of rank(v) - 1, some dimensions 1."""
    if v.rank < 2:
        return None
    alpha = g.const([d if g.chance(0.5) else 1 for d in v.shape[1:]], -0.3, 0.6)
    t = g.tf.nn.relu(v.t) + g.tf.nn.relu(-v.t) * -alpha
    return g.new(t, v.bound, f"prelu({v.name},alpha{list(alpha.shape)})", v)


# ---------------------------------------------------------------------------
# Convolutions, pools and spatial MEAN (images [B,H,W,C]).

def explicit_pad(g, v):
    """(tensor, text): v after a PAD (0 or another constant) or MIRROR_PAD on H and W."""
    h, w = v.shape[1:3]
    mode = g.pick(("CONSTANT", "CONSTANT", "REFLECT", "SYMMETRIC"))
    most = min(2, {"CONSTANT": 2, "REFLECT": min(h, w) - 1, "SYMMETRIC": min(h, w)}[mode])
    top, bottom, left, right = (int(p) for p in g.rng.integers(0, most + 1, size=4))
    value = float(g.pick((0.0, 0.0, 0.5, -1.25))) if mode == "CONSTANT" else 0.0
    t = g.tf.pad(v.t, [[0, 0], [top, bottom], [left, right], [0, 0]], mode=mode, constant_values=value)
    return t, f"pad_{mode.lower()}({v.name},{top}{bottom}{left}{right},{value:g})"


def pad(g, v):
    """A lone PAD (constant 0 or another value) on any axes but the batch: channels, rows,
    H and W alike."""
    if size(v.shape) * 2 > MAX_ELEMENTS:
        return None
    pads = [[0, 0]] + [[int(p) for p in g.rng.integers(0, 3, size=2)] for _ in v.shape[1:]]
    value = float(g.pick((0.0, 0.0, 0.5, -1.25)))
    t = g.tf.pad(v.t, pads, constant_values=value)
    if size(t.shape) > MAX_ELEMENTS:
        return None
    return g.new(t, max(v.bound, abs(value)), f"pad({v.name},{pads},{value:g})", v)


def window_input(g, v):
    """(tensor, text, padding) a window op reads: v, or v explicitly padded (then VALID)."""
    if g.chance(0.3):
        t, text = explicit_pad(g, v)
        return t, text, "VALID"
    return v.t, v.name, g.pick(("SAME", "VALID"))


def conv(g, v):
    """CONV_2D or DEPTHWISE_CONV_2D, bias or not, perhaps a fused activation."""
    if v.rank != 4:
        return None
    x, text, padding = window_input(g, v)
    k, stride, dilation = g.pick((1, 3, 3, 5)), g.pick((1, 1, 2)), g.pick((1, 1, 1, 2))
    h, w, cin = x.shape.as_list()[1:]
    if (k - 1) * dilation + 1 > min(h, w):
        padding = "SAME"
    if g.chance(0.4):
        multiplier = g.pick((1, 1, 2)) if 2 * size(v.shape) <= MAX_ELEMENTS else 1
        stride = 1 if dilation > 1 else stride  # TF's depthwise: dilation only at stride 1
        f = g.weights([k, k, cin, multiplier], -math.sqrt(3 / k / k), math.sqrt(3 / k / k))
        y = g.tf.nn.depthwise_conv2d(x, f, [1, stride, stride, 1], padding, dilations=[dilation, dilation])
        cout, kind = cin * multiplier, f"dwconv{k}x{k}*{multiplier}"
    else:
        cout, scale = g.units(16, h * w), math.sqrt(3 / k / k / cin)
        y = g.tf.nn.conv2d(x, g.weights([k, k, cin, cout], -scale, scale), stride, padding, dilations=dilation)
        kind = f"conv{k}x{k}"
    if g.chance(0.8):
        y = y + g.const([cout], -0.3, 0.3)
    y, bound, act = activation(g, y, 2.0 * v.bound + 0.3)
    return g.new(y, bound, f"{kind}/s{stride}/d{dilation}/{padding}->{cout}({text}){act}", v)


def transpose_conv(g, v):
    """TRANSPOSE_CONV (Keras' Conv2DTranspose and its output size): kernel 1-4, strides 1-3 per
    axis, SAME or VALID, bias or not, perhaps a fused activation. With the dynamic batch its
    output shape is computed at run time (the delegate leaves it)."""
    if v.rank != 4:
        return None
    h, w, cin = v.shape[1:]
    k, sh, sw = int(g.rng.integers(1, 5)), g.pick((1, 2, 2, 3)), g.pick((1, 2, 2, 3))
    padding = g.pick(("SAME", "VALID"))
    oh, ow = (n * s + (0 if padding == "SAME" else max(k - s, 0)) for n, s in ((h, sh), (w, sw)))
    cout = min(int(g.rng.integers(1, 17)), MAX_ELEMENTS // (oh * ow))
    if cout < 1:
        return None
    dims = [oh, ow, cout]
    shape = [v.shape[0]] + dims if v.shape[0] is not None else g.tf.stack([g.tf.shape(v.t)[0]] + dims)
    scale = math.sqrt(3 / k / k / cin)
    y = g.tf.nn.conv2d_transpose(v.t, g.weights([k, k, cout, cin], -scale, scale), shape, [sh, sw], padding)
    if g.chance(0.8):
        y = y + g.const([cout], -0.3, 0.3)
    y, bound, act = activation(g, y, 2.0 * v.bound + 0.3)
    return g.new(y, bound, f"tconv{k}x{k}/s{sh}x{sw}/{padding}->{cout}({v.name}){act}", v)


def pool(g, v):
    """MAX_POOL_2D or AVERAGE_POOL_2D, 2x2 or 3x3, stride 1 or 2."""
    if v.rank != 4:
        return None
    x, text, padding = window_input(g, v)
    k, stride = g.pick((2, 3)), g.pick((1, 2))
    if k > min(x.shape.as_list()[1:3]):
        padding = "SAME"
    kind = g.pick(("max_pool", "avg_pool"))
    fn = g.tf.nn.max_pool2d if kind == "max_pool" else g.tf.nn.avg_pool2d
    return g.new(fn(x, k, stride, padding), v.bound, f"{kind}{k}x{k}/s{stride}/{padding}({text})", v)


def spatial_mean(g, v):
    """MEAN over H and W, keeping them (a per-channel broadcast operand) or not (vectors)."""
    if v.rank != 4:
        return None
    keep = g.chance(0.6)
    t = g.tf.reduce_mean(v.t, axis=[1, 2], keepdims=keep)
    return g.new(t, v.bound, f"mean_hw({v.name},keepdims={keep})", v)


# ---------------------------------------------------------------------------
# Rows [B,T,D] and vectors [B,D]: FULLY_CONNECTED, BATCH_MATMUL, SOFTMAX, LayerNorm.

def dense(g, v):
    """FULLY_CONNECTED (a matmul by constant weights), bias or not, perhaps an activation."""
    if v.rank not in (2, 3) or v.shape[-1] < 2:  # the converter fails on chains of 1-deep ones
        return None
    d = v.shape[-1]
    n = g.units(32, size(v.shape) // d)
    y = g.tf.matmul(v.t, g.weights([d, n], -math.sqrt(3 / d), math.sqrt(3 / d)))
    if g.chance(0.7):
        y = y + g.const([n], -0.3, 0.3)
    y, bound, act = activation(g, y, 2.0 * v.bound + 0.3)
    return g.new(y, bound, f"dense->{n}({v.name}){act}", v)


def matmul_forms(g, v):
    """(w, adj_x, adj_y) for every value w that v can multiply (v itself too)."""
    forms = []
    for w in g.values:
        batch = broadcast(v.shape[:-2], w.shape[:-2]) if w.rank == v.rank else None
        if batch is None:
            continue
        (t, d), (t2, d2) = v.shape[-2:], w.shape[-2:]
        for adj_x, adj_y, fits, rows, cols in ((False, True, d2 == d, t, t2), (False, False, t2 == d, t, d2),
                                               (True, False, t2 == t, d, d2)):
            if fits and size(batch + (rows, cols)) <= MAX_ELEMENTS:
                forms.append((w, adj_x, adj_y))
    return forms


def batch_matmul(g, v):
    """BATCH_MATMUL of two run-time values (a b of batch 1 is shared by every batch)."""
    if v.rank < 3:
        return None
    forms = matmul_forms(g, v)
    if not forms:
        return None
    w, adj_x, adj_y = g.pick(forms)
    inner = v.shape[-2] if adj_x else v.shape[-1]
    t = g.tf.matmul(v.t, w.t, transpose_a=adj_x, transpose_b=adj_y)
    return g.new(t, v.bound * w.bound * inner, f"matmul({v.name},{w.name},adj_x={adj_x},adj_y={adj_y})", v, w)


def softmax(g, v):
    """SOFTMAX over the last axis, its input perhaps scaled first."""
    if v.rank < 2:
        return None
    beta = g.pick((1.0, 1.0, 0.5, 3.0))
    t = g.tf.nn.softmax(v.t * beta if beta != 1.0 else v.t)
    return g.new(t, 1.0, f"softmax({v.name},beta={beta:g})", v)


def row_reduce(g, v):
    """MEAN, SUM, REDUCE_MAX or REDUCE_MIN over the last axis, keeping it (a per-row broadcast
    operand) or not."""
    if v.rank < 2:
        return None
    keep = v.rank == 2 or g.chance(0.7)
    kind = g.pick(("mean", "mean", "sum", "max", "min"))
    op = {"mean": g.tf.reduce_mean, "sum": g.tf.reduce_sum, "max": g.tf.reduce_max, "min": g.tf.reduce_min}[kind]
    t = op(v.t, axis=-1, keepdims=keep)
    bound = v.bound * (v.shape[-1] if kind == "sum" else 1.0)
    return g.new(t, bound, f"{kind}_last({v.name},keepdims={keep})", v)


def layer_norm(g, v):
    """LayerNorm over the last axis: MEAN, SQUARED_DIFFERENCE, MEAN, ADD, RSQRT, scale, shift."""
    if v.rank < 2:
        return None
    tf, d = g.tf, v.shape[-1]
    mean = tf.reduce_mean(v.t, axis=-1, keepdims=True)
    var = tf.reduce_mean(tf.math.squared_difference(v.t, mean), axis=-1, keepdims=True)
    scale = tf.math.rsqrt(var + 1e-2) * g.const([d], 0.5, 1.5)  # amplifies rounding at most 10x
    t = v.t * scale + (g.const([d], -0.5, 0.5) - mean * scale)
    return g.new(t, 1.5 * math.sqrt(d) + 0.5, f"layer_norm({v.name})", v)


# ---------------------------------------------------------------------------
# Layout: RESHAPE, TRANSPOSE, CONCATENATION; attention.

def reshape(g, v):
    """RESHAPE that merges the last two dimensions (or H and W) or splits the last one; the
    batch stays first (-1 when dynamic, and sometimes when not)."""
    rest = v.shape[1:]
    targets = []
    if len(rest) >= 2:
        targets.append(rest[:-2] + (rest[-2] * rest[-1],))
    if len(rest) == 3:
        targets.append((rest[0] * rest[1], rest[2]))
    if len(rest) <= 2:
        targets += [rest[:-1] + (f, rest[-1] // f) for f in (2, 3, 4) if rest[-1] % f == 0 and rest[-1] > f]
    if not targets:
        return None
    batch = -1 if v.shape[0] is None or g.chance(0.5) else v.shape[0]
    target = [batch, *g.pick(targets)]
    return g.new(g.tf.reshape(v.t, target), v.bound, f"reshape({v.name},{target})", v)


def transpose(g, v):
    """TRANSPOSE of the axes after the batch, or (static batch) any permutation."""
    r = v.rank
    if r < 2 or (r == 2 and v.shape[0] is None):
        return None
    anywhere = v.shape[0] is not None and g.chance(0.25)
    perm = list(g.rng.permutation(r)) if anywhere else [0] + list(1 + g.rng.permutation(r - 1))
    if perm == sorted(perm):
        perm[-2], perm[-1] = perm[-1], perm[-2]
    perm = [int(p) for p in perm]
    return g.new(g.tf.transpose(v.t, perm), v.bound, f"transpose({v.name},{perm})", v)


def concat(g, v):
    """CONCATENATION of v and 1-2 values of its shape but along the axis (v itself, earlier
    ones, or one made for it); any axis, the batch only when static."""
    axis = int(g.rng.integers(0 if v.shape[0] is not None else 1, v.rank))
    fits = lambda w: w.rank == v.rank and all(a == b for i, (a, b) in enumerate(zip(v.shape, w.shape))
                                              if i != axis)
    n = int(g.rng.integers(2, 4))
    if size(v.shape) * n > MAX_ELEMENTS or (axis == 0 and v.shape[0] * n > 4):
        return None
    others = [w for w in g.values if fits(w)]
    parts = [v] + [g.pick(others) for _ in range(n - 1)]
    if g.chance(0.3):
        parts[-1] = unary(g, v)
    axis_arg = axis - v.rank if g.chance(0.3) else axis
    t = g.tf.concat([p.t for p in parts], axis=axis_arg)
    names = ",".join(p.name for p in parts)
    return g.new(t, max(p.bound for p in parts), f"concat([{names}],axis={axis_arg})", *parts)


def attention(g, v):
    """One attention block on rows [B,T,D]: Q, K, V projections, heads split by RESHAPE and
    TRANSPOSE, scaled scores, SOFTMAX, BATCH_MATMUL, heads merged, output projection."""
    if v.rank != 3:
        return None
    tf, (t, d) = g.tf, v.shape[1:]
    heads = g.pick([h for h in (1, 2, 4) if d % h == 0])
    proj = lambda x, n: tf.matmul(x, g.const([int(x.shape[-1]), n], -math.sqrt(3 / d), math.sqrt(3 / d)))
    split = lambda x: tf.transpose(tf.reshape(x, [-1, t, heads, d // heads]), [0, 2, 1, 3])
    q, k, values = (split(proj(v.t, d)) for _ in range(3))
    p = tf.nn.softmax(tf.matmul(q, k, transpose_b=True) * (1.0 / math.sqrt(d // heads)))
    o = tf.reshape(tf.transpose(tf.matmul(p, values), [0, 2, 1, 3]), [-1, t, d])
    return g.new(proj(o, d), 2.0 * v.bound + 0.3, f"attention({v.name},heads={heads})", v)


def tame(g, v):
    """Brings a value past BOUND back: TANH, a clamp to [-4, 4] or a scale."""
    kind = g.pick(("tanh", "clamp", "scale"))
    if kind == "tanh":
        return g.new(g.tf.tanh(v.t), 1.0, f"tanh({v.name})", v)
    if kind == "clamp":
        return g.new(g.tf.clip_by_value(v.t, -4.0, 4.0), 4.0, f"clamp({v.name})", v)
    s = 4.0 / v.bound
    return g.new(v.t * s, 4.0, f"mul({v.name},{s:.3g})", v)


# ---------------------------------------------------------------------------
# Drawing a step (weights: how often each is drawn).

STEPS = ((unary, 8), (binary, 10), (prelu, 1), (conv, 6), (transpose_conv, 1), (pool, 2), (spatial_mean, 1),
         (resize, 1), (dense, 3), (batch_matmul, 2), (softmax, 1), (row_reduce, 2), (layer_norm, 1), (reshape, 2),
         (transpose, 1), (concat, 2), (attention, 1), (pad, 1))
STEP_WEIGHTS = np.array([w for _, w in STEPS], float) / sum(w for _, w in STEPS)


def step(g, v):
    """One random step reading v (draws again until one applies to v's rank); then tames."""
    out = None
    while out is None:
        out = STEPS[g.rng.choice(len(STEPS), p=STEP_WEIGHTS)][0](g, v)
    return tame(g, out) if out.bound > BOUND else out
