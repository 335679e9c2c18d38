"""Issue 4's model set: builds six models (random weights, float32, batch 1) and runs
`fusedelegate bench` on each, at one and two threads, then prints one summary table
with the geomeans over the set next to the issue's targets.

Models: mobilenet_v2, mobilenet_v3_small, efficientnet_b0, resnet50 (Keras
applications), bert_small (4 layers, seq 128, hidden 256, 4 heads, FFN 1024, GELU)
and yolo_like (Darknet-style, 256x256, LeakyReLU(0.1), top/left-padded stride-2
convs, residual blocks); builders in benchmarks/keras_models.py. A model whose
.tflite already exists in --out is not rebuilt (--rebuild forces it); building
needs tensorflow, benchmarking only the runtime bench uses.

    .venv/bin/python benchmarks/model_set.py                                  # all six, 1 and 2 threads
    .venv/bin/python benchmarks/model_set.py --models mobilenet_v3_small,yolo_like --num_runs 5
    .venv/bin/python benchmarks/model_set.py --delegate_options "fusions:all" --json all.json
    .venv/bin/python benchmarks/model_set.py --weights dynamic_int8 --build_only   # <model>_dynamic_int8.tflite
    .venv/bin/python benchmarks/model_set.py --weights int8 --build_only           # <model>_int8.tflite

Each (model, thread count) is one `fusedelegate bench` run: builtin, xnnpack,
fusedelegate and fusedelegate+xnnpack in their own processes, rounds alternating,
ratios = medians of per-round paired ratios. Thread scaling compares medians of two
separate runs (1-thread median / N-thread median), so it is not paired. Init times
are one measurement per worker process (the table shows the min over the thread
counts' runs). bench runs all four configurations every round, so ResNet-50 with
builtin kernels (~250 ms a run) dominates: on a 2-core x86 machine the whole set at
1 and 2 threads with the default 50 rounds takes about 2.5 minutes (plus about a
minute to build the models the first time). bench compares float outputs only: int8 outputs
(--weights int8) read as no error; benchmarks/int8_package_models.py compares them in
quantization steps (--models benchmarks/models/<model>_int8.tflite).
"""
import argparse
import contextlib
import importlib
import io
import json
import math
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # keras_models, real_models (imported lazily: they import tensorflow)

MODELS = ("mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0", "resnet50", "bert_small", "yolo_like")
# keras_models.convert's weight formats; real_set.py takes the first a file name ends with
WEIGHTS = ("float32", "float16", "dynamic_int8", "int8", "int8_float_io")
TARGETS = {"geomean_fd_xnn": 0.90, "max_fd_xnn": 1.05, "geomean_fdx_xnn": 0.85, "max_rel_err": 1e-4}


def build_models(names, out, rebuild, weights="float32", builder="keras_models"):
    """Writes missing models with module `builder` (its build(name, path, weights)) and
    checks each new one: builtin ops only, the builder's EXPECTED_OPS present, static
    shapes (unless in its DYNAMIC_SHAPES), runs."""
    os.makedirs(out, exist_ok=True)
    ignore = os.path.join(out, ".gitignore")
    if not os.path.exists(ignore):  # the folder ignores itself: models are never committed
        with open(ignore, "w") as f:
            f.write("*\n")
    suffix = "" if weights == "float32" else "_" + weights
    paths = {n: os.path.join(out, f"{n}{suffix}.tflite") for n in names}
    todo = [n for n in names if rebuild or not os.path.exists(paths[n])]
    if todo:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        builder = importlib.import_module(builder)
    for name in todo:
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):  # Keras' export prints its signature
            builder.build(name, paths[name], weights)
        try:
            ops = check_model(paths[name], name in getattr(builder, "DYNAMIC_SHAPES", ()),
                              getattr(builder, "EXPECTED_OPS", {}).get(name, ()))
        except SystemExit:
            os.remove(paths[name])  # not cached: the next run rebuilds it
            raise
        print(f"built {paths[name]} in {time.perf_counter() - start:.0f} s: {sum(ops.values())} ops "
              + ", ".join(f"{k} {v}" for k, v in sorted(ops.items(), key=lambda kv: -kv[1])))
    return paths


def check_model(path, allow_dynamic=False, expected_ops=()):
    """Op histogram of a model run by tf.lite's builtin kernels; raises if it needs
    Flex/custom ops, lacks one of `expected_ops` or has tensors of dynamic shape
    (unless `allow_dynamic`)."""
    import warnings
    import tensorflow as tf
    warnings.filterwarnings("ignore", message=".*tf.lite.Interpreter is deprecated")
    it = tf.lite.Interpreter(model_path=path, experimental_op_resolver_type=(
        tf.lite.experimental.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES))
    it.allocate_tensors()
    ops = {}
    for op in it._get_ops_details():
        ops[op["op_name"]] = ops.get(op["op_name"], 0) + 1
    bad = [o for o in ops if o.startswith("Flex") or o in ("CUSTOM", "DELEGATE")]
    dynamic = [t["name"] for t in it.get_tensor_details() if -1 in list(t["shape_signature"])]
    if bad or (dynamic and not allow_dynamic):
        raise SystemExit(f"{path}: not builtin-only/static: ops {bad}, dynamic tensors {dynamic[:3]}")
    missing = [o for o in expected_ops if o not in ops]
    if missing:
        raise SystemExit(f"{path}: the converter emitted no {', '.join(missing)}")
    rng = np.random.default_rng(0)
    for d in it.get_input_details():
        it.set_tensor(d["index"], random_input(rng, d["shape"], d["dtype"]))
    it.invoke()
    if not all(np.isfinite(it.get_tensor(d["index"])).all() for d in it.get_output_details()):
        raise SystemExit(f"{path}: non-finite outputs")
    return ops


def random_input(rng, shape, dtype):
    """Uniform noise: every value of an integer type, else [-1, 1]."""
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype)
    return rng.uniform(-1, 1, shape).astype(dtype)


def bench(path, threads, args, options):
    """One `fusedelegate bench` run through its Python API, with the CLI's defaults."""
    from fusedelegate.bench import run_bench
    from fusedelegate.cli import build_parser
    from fusedelegate._runtime import load_runtime_name
    # int8 inputs: every int8 value (the calibration's [-1, 1]), not bench's default -1, 0, 1
    value_range = ["--input_layer_value_range=-128,127"] if args.weights == "int8" else []
    ns = build_parser().parse_args(["bench", path, "--num_threads", str(threads), "--num_runs",
                                    str(args.num_runs), "--init_runs", str(args.init_runs), "--runtime", args.runtime,
                                    *value_range])
    if ns.runtime == "auto":
        ns.runtime = load_runtime_name()
    return run_bench(ns, options)


def summarize(runs):
    """The table row of one model from its bench results {threads: result}."""
    from fusedelegate.bench import worst_rel_error
    t1, tn = min(runs), max(runs)
    c1 = runs[t1]["configurations"]
    fd, fdx, xnn = c1["fusedelegate"], c1["fusedelegate+xnnpack"], c1["xnnpack"]
    row = {"nodes": fd["nodes"], "fd_nodes": fd["nodes_claimed_by_fusedelegate"],
           "fd_partitions": fd["partitions_of_fusedelegate"],
           "xnn_nodes_with_fd": fdx["nodes_claimed"] - fdx["nodes_claimed_by_fusedelegate"],
           "builtin_ms": c1["builtin"]["latency_ms"]["median"], "xnn_ms": xnn["latency_ms"]["median"],
           "fd_builtin": fd["ratio_vs"]["builtin"], "fd_xnn": fd["ratio_vs"]["xnnpack"],
           "fdx_xnn": fdx["ratio_vs"]["xnnpack"],
           # init: one measurement per process; the min over the thread counts' runs
           "init_ms": {k: min(r["configurations"][k]["init_ms"] for r in runs.values()) for k in c1},
           "max_rel_err": {k: max(worst_rel_error(r["configurations"][k]) for r in runs.values())
                           for k in c1 if k != "builtin"}}  # vs builtin, at every thread count
    if tn != t1:  # thread scaling: t1 median / tn median, unpaired
        cn = runs[tn]["configurations"]
        row["scaling_threads"] = tn
        for k in ("xnnpack", "fusedelegate"):
            row[f"scaling_{k}"] = c1[k]["latency_ms"]["median"] / cn[k]["latency_ms"]["median"]
        row["fd_xnn_threads_n"] = cn["fusedelegate"]["ratio_vs"]["xnnpack"]
    return row


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


CONFIG_TAGS = {"builtin": "blt", "xnnpack": "xnn", "fusedelegate": "fd", "fusedelegate+xnnpack": "fdx"}


def print_summary(rows, args):
    tn = next((r["scaling_threads"] for r in rows.values() if "scaling_threads" in r), None)
    f = lambda v, w=7, p=2: f"{v:>{w}.{p}f}" if isinstance(v, float) else f"{'-':>{w}}"  # noqa: E731
    print(f"\nmodel set | delegate options: {args.delegate_options or '(defaults)'} | {args.num_runs} rounds"
          f" | ratios: paired medians at {args.threads[0]} thread(s), lower is faster")
    head = f"{'model':<19}{'fd nodes':>9}{'xnn ms':>8}{'fd/blt':>7}{'fd/xnn':>7}{'fdx/xnn':>8}"
    if tn:
        head += f"{f'xnn {args.threads[0]}/{tn}t':>10}{f'fd {args.threads[0]}/{tn}t':>9}{f'fd/xnn {tn}t':>10}"
    print(head + f"{'init ms blt/xnn/fd/fdx':>25}  {'max rel err fd/xnn/fdx'}")
    for name, r in rows.items():
        if "error" in r:
            print(f"{name:<19}failed: {r['error']}")
            continue
        nodes = f"{r['fd_nodes']}/{r['nodes']}"
        line = (f"{name:<19}{nodes:>9}{f(r['xnn_ms'], 8)}{f(r['fd_builtin'])}"
                f"{f(r['fd_xnn'])}{f(r['fdx_xnn'], 8)}")
        if tn:
            line += (f"{f(r.get('scaling_xnnpack'), 10)}{f(r.get('scaling_fusedelegate'), 9)}"
                     f"{f(r.get('fd_xnn_threads_n'), 10)}")
        init = "/".join(f"{r['init_ms'][k]:.1f}" for k in CONFIG_TAGS)
        err = "/".join(f"{r['max_rel_err'][k]:.1e}" for k in ("fusedelegate", "xnnpack", "fusedelegate+xnnpack"))
        print(f"{line}{init:>25}  {err}")

    ok = {n: r for n, r in rows.items() if "error" not in r}
    worst = lambda key: max(ok, key=key) if ok else "-"  # noqa: E731  (the worst model's name)
    init_ratio = lambda n: ok[n]["init_ms"]["fusedelegate+xnnpack"] / ok[n]["init_ms"]["xnnpack"]  # noqa: E731
    err = lambda n: ok[n]["max_rel_err"]["fusedelegate"]  # noqa: E731
    g_fd, g_fdx = geomean([r["fd_xnn"] for r in ok.values()]), geomean([r["fdx_xnn"] for r in ok.values()])
    w_fd, w_init, w_err = worst(lambda n: ok[n]["fd_xnn"]), worst(init_ratio), worst(err)
    nan = float("nan")
    checks = [  # (what, value, target, met); nan compares false: no models, target missed
        ("geomean fd/xnn", g_fd, TARGETS["geomean_fd_xnn"]),
        (f"worst model fd/xnn ({w_fd})", ok[w_fd]["fd_xnn"] if ok else nan, TARGETS["max_fd_xnn"]),
        ("geomean fdx/xnn", g_fdx, TARGETS["geomean_fdx_xnn"]),
        (f"accuracy: worst fd max rel err vs builtin ({w_err})", err(w_err) if ok else nan,
         TARGETS["max_rel_err"]),
        (f"init: worst fdx init / xnn init ({w_init})", init_ratio(w_init) if ok else nan, 1.0),
    ]
    print(f"\nover {len(ok)} of {len(rows)} models, at {args.threads[0]} thread(s) "
          f"(fd nodes: nodes fusedelegate claims / all nodes; init: median of "
          f"{args.init_runs} fresh processes, min over the thread counts)")
    for what, value, target in checks:
        shown = f"{value:.2e}" if 0 < abs(value) < 0.01 else f"{value:.3f}"
        print(f"  {what:<64}{shown:>9}   target <= {target:<7g}{'met' if value <= target else 'MISSED'}")
    return [{"what": w, "value": v, "target": t, "met": v <= t} for w, v, t in checks]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", default=",".join(MODELS), help="comma list, subset of: " + ", ".join(MODELS))
    p.add_argument("--num_runs", type=int, default=50, help="bench rounds per model and thread count (default 50)")
    p.add_argument("--init_runs", type=int, default=7,
                   help="fresh processes per configuration whose init times give the median (default 7)")
    p.add_argument("--threads", default="1,2", help="comma list of thread counts (default 1,2)")
    p.add_argument("--delegate_options", default="", help='fusedelegate options "k:v;k:v" (default: none)')
    p.add_argument("--runtime", default="auto", choices=["auto", "litert", "tflite", "tf"])
    p.add_argument("--out", default=os.path.join(HERE, "models"), help="model folder (default benchmarks/models)")
    p.add_argument("--rebuild", action="store_true", help="rebuild models even if their file exists")
    p.add_argument("--weights", default="float32", choices=WEIGHTS,
                   help="float16: the converter's float16 weights, read through DEQUANTIZE (files <model>_float16); "
                        "dynamic_int8: dynamic-range int8 weights (files <model>_dynamic_int8); "
                        "int8: full-integer, int8 activations, inputs and outputs, calibrated on seeded noise "
                        "(files <model>_int8); int8_float_io: the same with float32 inputs and outputs")
    p.add_argument("--build_only", action="store_true", help="build and check the models, no bench")
    p.add_argument("--json", metavar="FILE", help="write every bench result and the summary as JSON")
    args = p.parse_args(argv)
    args.models = [m.strip() for m in args.models.split(",") if m.strip()]
    unknown = [m for m in args.models if m not in MODELS]
    if unknown or not args.models:
        p.error(f"unknown model(s) {', '.join(unknown) or '(none given)'}; choose from {', '.join(MODELS)}")
    try:
        args.threads = sorted({int(t) for t in args.threads.split(",")})
        assert args.threads and min(args.threads) >= 1
    except (ValueError, AssertionError):
        p.error(f"--threads: '{args.threads}' is not a comma list of positive integers")
    return args


def main(argv=None):
    args = parse_args(argv)
    import fusedelegate
    from fusedelegate.bench import BenchError
    from fusedelegate.cli import CliError, parse_delegate_options
    try:
        options = parse_delegate_options(args.delegate_options)
        fusedelegate.load(**options)  # a bad option fails here, as one line
    except (CliError, ValueError) as e:
        sys.exit(f"model_set: {str(e).removeprefix('fusedelegate: ')}")
    paths = build_models(args.models, args.out, args.rebuild, args.weights)
    if args.build_only:
        return
    results, rows, start = {}, {}, time.perf_counter()
    for name in args.models:
        results[name] = {}
        try:
            for t in args.threads:
                print(f"[{time.perf_counter() - start:5.0f} s] bench {name} at {t} thread(s)", flush=True)
                results[name][t] = bench(paths[name], t, args, options)
            rows[name] = summarize(results[name])
        except BenchError as e:  # one model failing does not lose the others
            print(f"  {name}: {e}", file=sys.stderr)
            rows[name] = {"error": str(e).strip().splitlines()[0]}
    checks = print_summary(rows, args)
    print(f"total {time.perf_counter() - start:.0f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"settings": {k: v for k, v in vars(args).items()}, "options": options,
                       "summary": rows, "targets": checks, "bench": results}, f, indent=1)


if __name__ == "__main__":
    main()
