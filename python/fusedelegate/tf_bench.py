"""`fusedelegate bench --tf PATH`: TensorFlow's default graph optimizations (`tf`), XLA
(`tf+xla`) and TensorFlow with the fusedelegate Grappler pass (`tf+pass`) on one model,
in this process. Rounds alternate the configurations (rotating their order) and ratios
are paired per round, as in the TFLite bench."""
from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from typing import IO, TYPE_CHECKING, Any, Callable

from .bench import (BenchError, accuracy, latency_columns, latency_stats, paired_rounds, parse_value_ranges,
                    runs_per_round, write_columns_csv)
from .tf_model import import_tensorflow, load_tf_model, optimized_graphs, random_inputs

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from numpy.typing import NDArray

    from .bench import Column

TF_CONFIGS = ("tf", "tf+xla", "tf+pass")


class TfConfig:
    def __init__(self, name: str, fn: Any, xs: list[Any], scope: Callable[[], AbstractContextManager[Any]]) -> None:
        self.name, self.fn, self.xs, self.scope = name, fn, xs, scope
        self.times: list[float] = []
        self.first_ms: float | None = None
        self.outputs: list[NDArray[Any]] = []
        self.fused_ops = 0

    def first_call(self) -> None:
        """The first call (tracing, Grappler, XLA's compile), its outputs and fused op count."""
        with self.scope():
            start = time.perf_counter()
            graphs = optimized_graphs(self.fn, self.xs)
            self.first_ms = (time.perf_counter() - start) * 1e3
            self.outputs = [y.numpy() for y in self.fn(*self.xs)]
        self.fused_ops = sum(n.op == "FdFusedPartition" for g in graphs for n in g.node)

    def run(self, n: int) -> list[float]:
        times: list[float] = []
        with self.scope():
            for _ in range(n):
                start = time.perf_counter()
                self.fn(*self.xs)
                times.append((time.perf_counter() - start) * 1e3)
        return times


def make_configs(args: argparse.Namespace, options: dict[str, Any]) -> list[TfConfig]:
    tf = import_tensorflow()
    import fusedelegate.tf as fdt
    tf.config.threading.set_intra_op_parallelism_threads(args.num_threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    try:
        fdt.load_library()
    except fdt.TensorFlowVersionError as e:
        raise BenchError(str(e)) from None
    fn_of, specs = load_tf_model(args.tf)
    xs = [tf.constant(x) for x in random_inputs(specs, parse_value_ranges(args.input_layer_value_range))]
    plain = contextlib.nullcontext
    with_pass = lambda: fdt.enabled(**dict({"num_threads": args.num_threads}, **options))  # noqa: E731
    return [TfConfig("tf", fn_of(), xs, plain), TfConfig("tf+xla", fn_of(jit_compile=True), xs, plain),
            TfConfig("tf+pass", fn_of(), xs, with_pass)]


def first_calls(configs: list[TfConfig]) -> list[TfConfig]:
    """Runs each first call; drops XLA (saying why) when it cannot compile the model."""
    kept = []
    for c in configs:
        try:
            c.first_call()
        except Exception as e:  # XLA: an op it cannot compile; others: the model's own failure
            if c.name != "tf+xla":
                raise BenchError(f"{c.name}: {str(e).strip().splitlines()[0]}") from None
            print(f"fusedelegate: tf+xla left out: {str(e).strip().splitlines()[0]}", file=sys.stderr)
            continue
        kept.append(c)
    return kept


def timed_rounds(configs: list[TfConfig], args: argparse.Namespace) -> tuple[int, dict[str, list[float]]]:
    """Alternating rounds; returns the number run and each configuration's per-round medians."""
    means = [statistics.mean(c.run(args.warmup_runs)) if args.warmup_runs else None for c in configs]
    args.runs_per_round = runs_per_round(args.runs_per_round, means)
    return paired_rounds(configs, args, lambda c: c.name)


def run_tf_bench(args: argparse.Namespace, options: dict[str, Any]) -> dict[str, Any]:
    """The result dict (also what --json writes)."""
    tf = import_tensorflow()
    configs = first_calls(make_configs(args, options))
    rounds, per_round = timed_rounds(configs, args)
    result = {"model": args.tf, "runtime": f"tensorflow {tf.__version__}", "num_threads": args.num_threads,
              "rounds": rounds, "runs_per_round": args.runs_per_round, "delegate_options": options,
              "configurations": {}}
    reference = configs[0]
    for c in configs:
        ratio = statistics.median(a / b for a, b in zip(per_round[c.name], per_round["tf"]))
        result["configurations"][c.name] = {
            "first_inference_ms": c.first_ms, "latency_ms": latency_stats(c.times), "ratio_vs": {"tf": ratio},
            "fused_ops": c.fused_ops, "accuracy_vs_tf": accuracy(c.outputs, reference.outputs),
            "times_ms": c.times}
    return result


def print_tf_table(result: dict[str, Any], out: IO[str] = sys.stdout) -> None:
    print(f"model {result['model']} | {result['runtime']} | threads {result['num_threads']} "
          f"| {result['rounds']} rounds x {result['runs_per_round']} runs", file=out)
    print(f"{'configuration':<15}{'first':>9}{'min':>9}{'median':>9}{'mean':>9}{'p90':>9}{'p99':>9}{'std':>8}"
          f"{'vs tf':>8}{'fused ops':>10}{'max rel err':>12}", file=out)
    for name, c in result["configurations"].items():
        lat = c["latency_ms"]
        err = max((a["max_rel"] for a in c["accuracy_vs_tf"]), default=0.0)
        print(f"{name:<15}{c['first_inference_ms']:>9.1f}{lat['min']:>9.3f}{lat['median']:>9.3f}{lat['mean']:>9.3f}"
              f"{lat['p90']:>9.3f}{lat['p99']:>9.3f}{lat['std']:>8.3f}{c['ratio_vs']['tf']:>7.2f}x"
              f"{c['fused_ops']:>10}{err:>12.2e}", file=out)
    print("times in ms (first: the first call, with tracing, Grappler and XLA's compile); vs tf: median of "
          "per-round paired ratios (lower is faster); fused ops: FdFusedPartition ops in the graphs run",
          file=out)


# `fusedelegate bench --tf --csv`: the columns, each name with its value.
TF_CSV_COLUMNS: list[Column] = [
    ("first_inference_ms", lambda c: c["first_inference_ms"]),
    *latency_columns(),
    ("ratio_vs_tf", lambda c: c["ratio_vs"]["tf"]),
    ("fused_ops", lambda c: c["fused_ops"]),
    ("max_rel_error", lambda c: max((a["max_rel"] for a in c["accuracy_vs_tf"]), default=0.0)),
]


def write_tf_csv(result: dict[str, Any], path: str) -> None:
    write_columns_csv(result, path, TF_CSV_COLUMNS)
