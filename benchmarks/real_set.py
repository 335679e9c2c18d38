"""Issue 18's real-format set next to the float32 set, with fusedelegate's default
options, one thread, all configurations warm in one process (LiteRT), rounds alternating.

Sets: float32 (model_set.py's six models), real (the six with dynamic-range int8 weights,
<name>_dynamic_int8, and real_models.py's sparse_net, blazeface_like, segmentation_net,
dynamic_batch). Missing models are built first, each builder in its own process
(tensorflow stays out of the timing process).

    .venv/bin/python benchmarks/real_set.py                        # both sets, 21 rounds
    .venv/bin/python benchmarks/real_set.py --sets real --rounds 11 --json real.json
    (a JSON kept in benchmarks/results/ becomes a section of docs/performance.md: benchmarks/performance_page.py)
    .venv/bin/python benchmarks/real_set.py --models blazeface_like,resnet50_dynamic_int8

Per model: nodes fusedelegate claims / all nodes, with XNNPACK after it (fd, +xnn: the
nodes XNNPACK then takes) and XNNPACK alone (xnn); dx/x = time(fusedelegate then XNNPACK)
/ time(XNNPACK); d/x = time(fusedelegate, builtin kernels for the rest) / time(XNNPACK);
both medians of per-round paired ratios (a round times a batch of invokes per configuration:
at least --runs, and at least --min_batch_ms of XNNPACK's time). init dx/x: interpreter creation + allocate_tensors
+ first invoke, median over --init_runs fresh processes each, alternating. max_rel dx:
max|y - ref| / max|ref| of fusedelegate then XNNPACK against the builtin kernels (x: of
XNNPACK alone, for what is XNNPACK's own difference).
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # numpy's BLAS threads would spin beside ours
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, HERE)  # model_set, ab_libraries (their top levels import no tensorflow)
from ab_libraries import outputs, timed  # noqa: E402

FLOAT32 = ("mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0", "resnet50", "bert_small", "yolo_like")
REAL_MODELS = ("sparse_net", "blazeface_like", "segmentation_net", "dynamic_batch")
SETS = {"float32": FLOAT32, "real": tuple(f"{m}_dynamic_int8" for m in FLOAT32) + REAL_MODELS}
TIMED = ("xnn", "dx", "d")  # XNNPACK alone, fusedelegate then XNNPACK, fusedelegate alone


def cpu_name():
    """'model name (family F model M)' from /proc/cpuinfo."""
    info = {}
    with open("/proc/cpuinfo") as f:
        for line in f:
            key, _, value = line.partition(":")
            info.setdefault(key.strip(), value.strip())
    return f"{info.get('model name', '?')} (family {info.get('cpu family', '?')} model {info.get('model', '?')})"


def git_commit():
    """The tree's commit (a '+' if it has changes), or '?' outside a git checkout."""
    def git(*a):
        return subprocess.run(["git", "-C", HERE, *a], capture_output=True, text=True).stdout.strip()
    commit = git("rev-parse", "--short", "HEAD")
    return (commit + ("+" if git("status", "--porcelain", "--untracked-files=no") else "")) or "?"


def build_missing(names, out):
    """Builds the models not in `out`: real_models.py's, else model_set.py's six with
    the weights their file name ends with (<name>_float16, <name>_dynamic_int8)."""
    from model_set import WEIGHTS
    jobs = {}
    for n in names:
        if os.path.exists(os.path.join(out, n + ".tflite")):
            continue
        if n in REAL_MODELS:
            jobs.setdefault(("real_models.py",), []).append(n)
            continue
        weights = next((w for w in WEIGHTS if n.endswith("_" + w)), "float32")
        key = ("model_set.py", "--build_only", "--weights", weights)
        jobs.setdefault(key, []).append(n.removesuffix("_" + weights))
    for (script, *flags), models in jobs.items():
        cmd = [sys.executable, os.path.join(HERE, script), *flags, "--out", out, "--models", ",".join(models)]
        subprocess.run(cmd, check=True)


def interpreter(path, config, threads=1):
    """(interpreter, delegates) for a configuration of TIMED, or "ref": builtin kernels only."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    from fusedelegate._bench_worker import make_inputs
    delegates = []
    if config in ("dx", "d"):
        import fusedelegate
        delegates = [fusedelegate.load()]  # default options
    resolver = OpResolverType.AUTO if config in ("xnn", "dx") else OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
    it = Interpreter(model_path=path, experimental_delegates=delegates, num_threads=threads,
                     experimental_op_resolver_type=resolver)
    it.allocate_tensors()
    for d, x in zip(it.get_input_details(), make_inputs(it, {"": (-1.0, 1.0)})):
        it.set_tensor(d["index"], x)
    it.invoke()
    return it, delegates


def init_ms(path, config):
    """Init in a fresh process, as an app starting: interpreters alive in this one change
    it (XNNPACK packs MobileNetV3-Small's weights in a third of the time while another
    interpreter of the model lives). The runtime is imported before the clock starts."""
    cmd = [sys.executable, os.path.abspath(__file__), "--init_worker", path, config]
    return float(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.split()[-1])


def init_worker(path, config):
    import ai_edge_litert.interpreter  # noqa: F401  (imported before the clock, as apps do)
    import fusedelegate  # noqa: F401
    import fusedelegate._bench_worker  # noqa: F401  (interpreter() fills the inputs with it)
    start = time.perf_counter()
    interpreter(path, config)
    print((time.perf_counter() - start) * 1e3)


def node_counts(its):
    """Claimed nodes per configuration, read as `fusedelegate bench` reads them."""
    from fusedelegate._inspect import claimed_node_count, original_node_count
    fd = claimed_node_count(its["d"][0])  # fusedelegate claims the same nodes with XNNPACK after it
    return {"nodes": original_node_count(its["xnn"][0]), "fd": fd,
            "xnn_after_fd": claimed_node_count(its["dx"][0]) - fd, "xnn": claimed_node_count(its["xnn"][0])}


def batch_runs(it, runs, min_ms):
    """Invokes per batch: at least `runs`, and enough for `min_ms` (small models' batches
    would otherwise be as short as the machine's noise)."""
    return max(runs, math.ceil(min_ms / (1e3 * timed(it, 3))))


def paired_times(its, rounds, runs):
    """Seconds per invoke per round and configuration; each round starts one later in TIMED."""
    times = {k: [] for k in TIMED}
    for r in range(rounds):
        for k in TIMED[r % 3:] + TIMED[:r % 3]:
            times[k].append(timed(its[k][0], runs))
    return times


def paired_ratio(times, a, b):
    return statistics.median(x / y for x, y in zip(times[a], times[b]))


def init_ratio(path, runs):
    """Median init of dx / of xnn, each in fresh processes, alternating."""
    ms = {"dx": [], "xnn": []}
    for r in range(runs):
        for k in ("dx", "xnn") if r % 2 == 0 else ("xnn", "dx"):
            ms[k].append(init_ms(path, k))
    return statistics.median(ms["dx"]) / statistics.median(ms["xnn"]), ms


def measure(path, args):
    """One model's row."""
    from fusedelegate.bench import accuracy
    its = {k: interpreter(path, k) for k in TIMED + ("ref",)}
    row = node_counts(its)
    ref = outputs(its["ref"][0])
    for k in ("dx", "xnn"):  # XNNPACK's own error tells what is not fusedelegate's
        row[f"max_rel {k}"] = max((a["max_rel"] for a in accuracy(outputs(its[k][0]), ref)), default=0.0)
    runs = batch_runs(its["xnn"][0], args.runs, args.min_batch_ms)
    times = paired_times(its, args.rounds, runs)
    row.update({"dx/x": paired_ratio(times, "dx", "xnn"), "d/x": paired_ratio(times, "d", "xnn"),
                "xnn_ms": 1e3 * statistics.median(times["xnn"]), "runs_per_batch": runs})
    del its
    row["init dx/x"], row["init_ms"] = init_ratio(path, args.init_runs)
    return row


HEADER = (f"  {'model':<32}{'fd':>9}{'+xnn':>6}{'xnn':>10}{'dx/x':>7}{'d/x':>7}{'init dx/x':>10}"
          f"{'max_rel dx':>11}{'x':>9}")


def print_row(name, r):
    if "error" in r:
        print(f"  {name:<32} failed: {r['error']}")
        return
    n = r["nodes"]
    print(f"  {name:<32}{r['fd']:>4}/{n:<4}{r['xnn_after_fd']:>6}{r['xnn']:>5}/{n:<4}{r['dx/x']:>7.2f}"
          f"{r['d/x']:>7.2f}{r['init dx/x']:>10.2f}{r['max_rel dx']:>11.1e}{r['max_rel xnn']:>9.1e}", flush=True)


def print_geomeans(rows):
    ok = [r for r in rows.values() if "error" not in r]
    if not ok:
        return
    g = {k: statistics.geometric_mean(r[k] for r in ok) for k in ("dx/x", "d/x", "init dx/x")}
    nan_last = lambda v: math.inf if math.isnan(v) else v  # noqa: E731  (a NaN error is the worst)
    worst = {k: max((r[f"max_rel {k}"] for r in ok), key=nan_last) for k in ("dx", "xnn")}
    print(f"  {f'geomean ({len(ok)} models)':<32}{'':>25}{g['dx/x']:>7.2f}{g['d/x']:>7.2f}"
          f"{g['init dx/x']:>10.2f}{worst['dx']:>11.1e}{worst['xnn']:>9.1e} (max)")
    return g


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--sets", default="float32,real", help="comma list of: " + ", ".join(SETS))
    p.add_argument("--models", help="comma list of model file names (no .tflite) to run instead of the sets")
    p.add_argument("--rounds", type=int, default=21, help="alternating rounds (default 21)")
    p.add_argument("--runs", type=int, default=3, help="least invokes per configuration per round (default 3)")
    p.add_argument("--min_batch_ms", type=float, default=20.0,
                   help="more invokes per round where XNNPACK's would take less than this (default 20)")
    p.add_argument("--init_runs", type=int, default=9, help="fresh processes per configuration (default 9)")
    p.add_argument("--init_worker", nargs=2, metavar=("MODEL", "CONFIG"), help=argparse.SUPPRESS)
    p.add_argument("--out", default=os.path.join(HERE, "models"), help="model folder (default benchmarks/models)")
    p.add_argument("--json", metavar="FILE", help="write the settings and every row as JSON")
    args = p.parse_args(argv)
    sets = {"models": tuple(args.models.split(","))} if args.models else {}
    for name in ([] if args.models else args.sets.split(",")):
        if name not in SETS:
            p.error(f"unknown set '{name}'; choose from {', '.join(SETS)}")
        sets[name] = SETS[name]
    args.sets = sets
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.init_worker:
        return init_worker(*args.init_worker)
    build_missing([m for models in args.sets.values() for m in models], args.out)
    cpu = cpu_name()
    print(f"real_set | fusedelegate default options, 1 thread, LiteRT | {args.rounds} rounds x >= {args.runs} "
          f"invokes, >= {args.min_batch_ms:g} ms | paired medians, lower is faster | {cpu}")
    print(HEADER)
    result = {"cpu": cpu, "date": time.strftime("%Y-%m-%d"), "commit": git_commit(),
              "settings": {k: v for k, v in vars(args).items() if k != "json"}, "sets": {}}
    for set_name, models in args.sets.items():
        print(f" {set_name}")
        rows = {}
        for name in models:
            try:
                rows[name] = measure(os.path.join(args.out, name + ".tflite"), args)
            except Exception as e:  # one model failing does not lose the others
                rows[name] = {"error": (str(e).strip().splitlines() or [type(e).__name__])[-1]}
            print_row(name, rows[name])
        result["sets"][set_name] = {"rows": rows, "geomean": print_geomeans(rows)}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
