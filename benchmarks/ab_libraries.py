"""Paired A/B of two builds of libfusedelegate.so on the same models, in one process:
the before/after check of a change that must not change speed or results.

Each model runs with XNNPACK alone, with build A and with build B (fusedelegate
first, XNNPACK on the rest, as a user gets it), all three interpreters warm in one
process (LiteRT). Rounds alternate the order; each round times a batch of invokes
per configuration. Ratios are medians of per-round paired ratios. Outputs of A and
B are compared bit for bit.

    .venv/bin/python benchmarks/model_set.py --build_only
    .venv/bin/python benchmarks/ab_libraries.py OLD.so NEW.so --delegate_options "fusions:all"

The same library twice with different options compares two option sets:

    .venv/bin/python benchmarks/ab_libraries.py LIB LIB --options_a "fusions:all" --options_b ""
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
MODELS = ("mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0", "resnet50", "bert_small", "yolo_like")


def parse_options(text):
    return dict(kv.split(":", 1) for kv in text.split(";") if kv) if text else {}


def interpreter(path, library, options, threads):
    """A warm interpreter: XNNPACK alone (library None), else fusedelegate from `library` then XNNPACK."""
    from ai_edge_litert.interpreter import Interpreter
    delegates = []
    if library:
        os.environ["FUSEDELEGATE_LIBRARY"] = library
        import fusedelegate
        delegates = [fusedelegate.load(num_threads=threads, **options)]
    it = Interpreter(model_path=path, experimental_delegates=delegates, num_threads=threads)
    it.allocate_tensors()
    rng = np.random.default_rng(0)
    for d in it.get_input_details():  # int8 models: every value of the type
        dtype = np.dtype(d["dtype"])
        if np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            it.set_tensor(d["index"], rng.integers(info.min, info.max, d["shape"], endpoint=True).astype(dtype))
        else:
            it.set_tensor(d["index"], rng.uniform(-1, 1, d["shape"]).astype(dtype))
    it.invoke()
    return it, delegates


def timed(it, runs):
    start = time.perf_counter()
    for _ in range(runs):
        it.invoke()
    return (time.perf_counter() - start) / runs


def outputs(it):
    return [it.get_tensor(d["index"]).copy() for d in it.get_output_details()]


def compare(path, libs, options, threads, rounds, runs):
    its = {"xnn": interpreter(path, None, {}, threads)}
    its["a"] = interpreter(path, libs[0], options[0], threads)
    its["b"] = interpreter(path, libs[1], options[1], threads)
    same = all(np.array_equal(x, y, equal_nan=True) for x, y in zip(outputs(its["a"][0]), outputs(its["b"][0])))
    times = {k: [] for k in its}
    order = list(its)
    for r in range(rounds):
        for k in order if r % 2 == 0 else order[::-1]:
            times[k].append(timed(its[k][0], runs))
    ratio = lambda x, y: statistics.median(p / q for p, q in zip(times[x], times[y]))
    return {"b/a": ratio("b", "a"), "a/xnn": ratio("a", "xnn"), "b/xnn": ratio("b", "xnn"),
            "xnn_ms": 1e3 * statistics.median(times["xnn"]), "same": same}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", help="build A (before): path of libfusedelegate.so")
    p.add_argument("b", help="build B (after)")
    p.add_argument("--models", default=",".join(MODELS), help="comma list of names in --out, or .tflite paths")
    p.add_argument("--out", default=os.path.join(HERE, "models"), help="model folder (model_set.py --build_only)")
    p.add_argument("--delegate_options", default="", help='"k:v;k:v" for both builds (default: none)')
    p.add_argument("--options_a", help="options for A only (default: --delegate_options)")
    p.add_argument("--options_b", help="options for B only (default: --delegate_options)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--suffix", default="",
                   help='model file suffix, e.g. "_float16", "_dynamic_int8" (model_set.py --weights)')
    p.add_argument("--rounds", type=int, default=21)
    p.add_argument("--runs", type=int, default=5, help="invokes per configuration per round")
    args = p.parse_args(argv)
    options = [parse_options(args.delegate_options if o is None else o) for o in (args.options_a, args.options_b)]
    print(f"{'model':20} {'B/A':>7} {'A/xnn':>7} {'B/xnn':>7} {'xnn ms':>8}  outputs")
    ratios = []
    for name in args.models.split(","):
        path = name if name.endswith(".tflite") else os.path.join(args.out, f"{name}{args.suffix}.tflite")
        name = os.path.basename(path)[:-len(".tflite")]
        r = compare(path, (args.a, args.b), options, args.threads, args.rounds, args.runs)
        ratios.append(r["b/a"])
        print(f"{name:20} {r['b/a']:7.3f} {r['a/xnn']:7.3f} {r['b/xnn']:7.3f} {r['xnn_ms']:8.2f}  "
              f"{'bit-identical' if r['same'] else 'DIFFER'}", flush=True)
    print(f"{'geomean B/A':20} {statistics.geometric_mean(ratios):7.3f}")


if __name__ == "__main__":
    main()
