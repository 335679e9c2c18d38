"""Seeded random graphs for the fuzz test (tests/test_fuzz.py).

    python tests/fuzz.py OUTDIR --seed S --graphs N [--only K ...]

writes OUTDIR/g<K>.tflite and OUTDIR/manifest.json: the fields tests/worker.py reads, and
per graph its seed, index and `about`, the graph in one line. Graph K of seed S draws from
its own generator, numpy's default_rng([S, K]): it is the same made alone (--only K) or
among thousands. A graph the converter rejects gets an `error` instead of a file.

A graph is one to three float32 inputs (an image [B,H,W,C], rows [B,T,D] or vectors [B,D];
the others full-sized or broadcast) and 2 to 14 random steps. Each step reads the newest
value or an earlier one (branches that join, residuals) and is drawn from every op the
delegate claims: the elementwise ops with every kind of broadcast (constants on either
side, two run-time values), CONV_2D and DEPTHWISE_CONV_2D (kernels 1, 3, 5, strides,
dilations, SAME/VALID, multipliers 1 and 2) after an explicit PAD or MIRROR_PAD or not,
TRANSPOSE_CONV (kernels 1-4, strides 1-3 per axis, SAME/VALID), pools, spatial MEAN, FULLY_CONNECTED, BATCH_MATMUL, SOFTMAX, LayerNorm, RESHAPE, TRANSPOSE,
CONCATENATION on any axis, attention, a lone PAD on any axes; and SIN, which it never claims, cutting groups.
Some graphs take a dynamic batch (the worker resizes it). Weights come in the formats real
models carry: float32, the converter's float16, dynamic-range int8 (layers of 1024+ weights;
the reference is the float twin, the same weights dequantized), sparse (80% zeros, through a
DENSIFY), and sparse int8; some graphs are full-integer int8 (int8 inputs, outputs and
activations, calibrated on seeded inputs; the reference is the builtin int8 kernels, which
the delegate must match bit for bit; a graph with an op TFLite has no int8 kernel for stays
float32). Outputs: the last value, values nothing reads, and a few intermediates.

The steps, and how they keep values finite and in their ops' domains: tests/fuzz_steps.py.
"""
import argparse
import json
import sys
from pathlib import Path

import numpy as np

import models
from fuzz_steps import MAX_ELEMENTS, Graph, broadcast_kind, size, step

MAX_STEPS = 14
INPUT_RANGES = ((-3.0, 3.0), (-8.0, 8.0), (-1.0, 1.0), (0.5, 2.0))
DYNAMIC_SHARE = 0.2
WEIGHT_FORMATS = {"float32": 0.4, "float16": 0.2, "dynamic_int8": 0.15, "sparse": 0.1, "sparse_dynamic_int8": 0.05,
                  "int8": 0.1}


def input_shapes(g, dynamic):
    """The first input's shape (image, rows or vectors), then 0-2 more: full or broadcast."""
    batch = None if dynamic else g.pick((1, 1, 1, 2, 3))
    dim = lambda hi: int(g.rng.integers(1, hi + 1))
    kind = g.pick(("image", "image", "image", "rows", "rows", "vectors"))
    first = {"image": (batch, dim(16), dim(16), dim(16)), "rows": (batch, dim(16), dim(32)),
             "vectors": (batch, dim(32))}[kind]
    while size(first) > MAX_ELEMENTS // 2:
        first = first[:-1] + (max(1, first[-1] // 2),)
    more = [first if g.chance(0.4) else broadcast_kind(g, first, g.pick((batch, 1)))
            for _ in range(g.pick((0, 1, 1, 2)))]
    return [first] + more


def trace(g, xs, bound):
    """The graph's outputs: steps from the inputs xs, then the last value, values nothing
    read and a few intermediates (at most 4)."""
    for x in xs:
        g.new(x, bound, f"input{x.shape.as_list()}")
    for _ in range(int(g.rng.integers(2, MAX_STEPS + 1))):
        ranked = [v for v in g.values if v.rank >= 2]  # scalars and vectors are operands only
        step(g, ranked[-1] if g.chance(0.7) else g.pick(ranked))
    inner = g.values[len(xs):-1]
    outs = [g.values[-1]] + [v for v in inner if v.name not in g.read or g.chance(0.1)]
    outs = outs[:4]
    g.steps.append("out " + ",".join(v.name for v in outs))
    return tuple(v.t for v in outs)


def convert(tf, g, sigs, bound, weights, lo, hi):
    """The tflite model of the graph g traces from inputs `sigs` of magnitude `bound`, its
    weights in format `weights` (models.set_weight_format; int8: full-integer, calibrated on
    seeded inputs in [lo, hi])."""
    fn = tf.function(lambda *xs: trace(g, xs, bound), input_signature=sigs, autograph=False)
    converter = tf.lite.TFLiteConverter.from_concrete_functions([fn.get_concrete_function()])
    if weights == "int8":
        set_full_integer(tf, converter, [[d or 1 for d in s.shape] for s in sigs], lo, hi, g.rng.integers(1 << 30))
    else:
        models.set_weight_format(tf, converter, weights)
    return converter.convert()


def set_full_integer(tf, converter, shapes, lo, hi, seed):
    """Asks the converter for a full-integer int8 model with int8 inputs and outputs."""
    def samples():
        rng = np.random.default_rng(seed)
        for _ in range(8):
            yield [rng.uniform(lo, hi, size=s).astype(np.float32) for s in shapes]
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.representative_dataset = samples
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    converter.inference_input_type = converter.inference_output_type = tf.int8


def make_graph(tf, seed, index, exact_gelu=True, weights=None):
    """(tflite bytes or None, manifest entry) of graph `index` of `seed`. Where the converter
    leaves GELU's erf form unfused (as tf.Erfc, which TFLite lacks: after a NEG, with a
    dynamic batch, after some matmuls), the same graph with GELU's tanh form; where a
    full-integer graph holds an op without an int8 kernel, the same graph in float32."""
    rng = np.random.default_rng([seed, index])
    dynamic = rng.random() < DYNAMIC_SHARE
    drawn = str(rng.choice(list(WEIGHT_FORMATS), p=list(WEIGHT_FORMATS.values())))
    weights = weights or drawn
    g = Graph(tf, rng, exact_gelu, sparse=weights.startswith("sparse"), wide=weights.endswith("dynamic_int8"))
    lo, hi = g.pick(INPUT_RANGES)
    shapes = input_shapes(g, dynamic)
    sigs = [tf.TensorSpec(s, tf.float32, name=f"in{i}") for i, s in enumerate(shapes)]
    entry = {"seed": seed, "index": index, "weights": weights,
             "dynamic_batch": dynamic, "input_ranges": [[lo, hi]] * len(shapes)}
    try:
        model = convert(tf, g, sigs, max(abs(lo), abs(hi)), weights, lo, hi)
    except Exception as e:
        if exact_gelu and "Erfc" in str(e):
            return make_graph(tf, seed, index, exact_gelu=False, weights=weights)
        if weights == "int8":
            return make_graph(tf, seed, index, exact_gelu, weights="float32")
        model = None  # a generator bug: the test reports it with the graph
        entry["error"] = f"{type(e).__name__}: {e}"[:2000]
    entry["about"] = "; ".join(g.steps)
    return model, entry


def describe(tf, model, entry, index):
    """The manifest fields the worker and the checks read, from the converted model."""
    nodes, it = models.describe(tf, model)
    inputs = it.get_input_details()
    entry.update({
        "file": f"g{index:05d}.tflite",
        "ops": [models._op_label(n) for n in nodes],
        "approx_ops": sorted({n["op"] for n in nodes} & set(models.APPROX_OPS)),
        "int8_weight_nodes": [i for i, n in enumerate(nodes) if n["int8_weights"]],
        "input_ranges": entry["input_ranges"][:len(inputs)],  # one range for all: any may be dropped
        "input_dtypes": [np.dtype(d["dtype"]).name for d in inputs],
        "shape_signatures": [d["shape_signature"].tolist() for d in inputs],
        # TFLite's hybrid kernels (int8 weights) fail at batch 0 where the float twin runs it.
        "resize_cases": models.resize_cases(
            [d["shape_signature"].tolist() for d in inputs],
            batches=[b for b in models.RESIZE_BATCHES if b or not entry["weights"].endswith("int8")]),
        "bytes": len(model),
    })
    return entry


def write_graph(tf, outdir, seed, k):
    """Graph k of `seed` into outdir (with its float twin where it has int8 weights): its entry."""
    model, entry = make_graph(tf, seed, k)
    if model is not None:
        (outdir / f"g{k:05d}.tflite").write_bytes(model)
        entry = describe(tf, model, entry, k)
        if models.write_float_twin(tf, model, entry["weights"], outdir / f"g{k:05d}_twin.tflite"):
            entry["reference_file"] = f"g{k:05d}_twin.tflite"
    return f"g{k:05d}", entry


def generate(outdir, seed, indices, write_one=write_graph):
    """write_one(tf, outdir, seed, k) -> (name, entry) for every index k; then the manifest."""
    tf = models._tf()
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    graphs = dict(write_one(tf, outdir, seed, k) for k in indices)
    manifest = {"tensorflow": tf.__version__, "seed": seed, "models": graphs}
    (outdir / "manifest.json").write_text(json.dumps(manifest, indent=1))


def main(argv=None, doc=__doc__, write_one=write_graph, graphs=400):
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--graphs", type=int, default=graphs)
    ap.add_argument("--only", type=int, nargs="+", help="only these graph indices")
    args = ap.parse_args(argv)
    generate(args.outdir, args.seed, args.only or range(args.graphs), write_one)


if __name__ == "__main__":
    sys.exit(main())
