"""`fusedelegate bench`: built-in kernels vs XNNPACK vs fusedelegate on one model.

Each configuration runs in its own process (_bench_worker.py) on the same fixed
seeded inputs. Rounds alternate between configurations (rotating their order)
so drift on a busy device cancels; ratios are paired per round.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any, Callable, Protocol, TypeVar

import numpy as np

from ._bench_worker import CONFIGS

if TYPE_CHECKING:
    from numpy.typing import NDArray

    # A CSV column: its name, and its value in a configuration's dict of figures.
    Column = tuple[str, Callable[[dict[str, Any]], object]]

T = TypeVar("T")


class Runner(Protocol):
    """A configuration paired_rounds times: it runs n invokes, and keeps their times."""
    times: list[float]

    def run(self, n: int) -> list[float]: ...


R = TypeVar("R", bound=Runner)

BASELINES = ("builtin", "xnnpack")


class BenchError(Exception):
    """A user-facing failure: one line, non-zero exit."""


def check_model_file(path: str) -> None:
    if not os.path.isfile(path):
        raise BenchError(f"model not found: {path}")
    with open(path, "rb") as f:
        head = f.read(8)
    if len(head) < 8 or head[4:8] != b"TFL3":
        raise BenchError(f"not a TFLite model (no TFL3 flatbuffer identifier): {path}")


def parse_value_ranges(text: str | None) -> dict[str, tuple[float, float]]:
    """benchmark_model's --input_layer_value_range: 'name,lo,hi:name,lo,hi';
    a bare 'lo,hi' sets the default for every input."""
    ranges = {"": (-1.0, 1.0)}
    for item in filter(None, (text or "").split(":")):
        parts = item.split(",")
        try:
            if len(parts) == 2:
                ranges[""] = (float(parts[0]), float(parts[1]))
            elif len(parts) == 3:
                ranges[parts[0]] = (float(parts[1]), float(parts[2]))
            else:
                raise ValueError
        except ValueError:
            raise BenchError(f"--input_layer_value_range: '{item}' is not name,lo,hi or lo,hi") from None
    return ranges


class Worker:
    def __init__(self, config: str, args: argparse.Namespace, options: dict[str, Any],
                 ranges: dict[str, tuple[float, float]], init_only: bool = False) -> None:
        self.config = config
        cmd = [sys.executable, "-m", "fusedelegate._bench_worker", "--runtime", args.runtime,
               "--model", args.model, "--config", config, "--num_threads", str(args.num_threads),
               "--delegate_options", json.dumps(options),
               "--ranges", json.dumps({k: list(v) for k, v in ranges.items()})] + (["--init_only"] if init_only else [])
        # numpy's OpenBLAS would start a helper thread per core that spins
        # (sched_yield) beside the interpreter's threads; the workers do no BLAS.
        env = dict(os.environ)
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env)
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr  # the pipes asked for
        self.requests, self.replies, self.errors = self.proc.stdin, self.proc.stdout, self.proc.stderr
        self.info = self._read()
        if "error" in self.info:
            raise BenchError(f"{config}: {self.info['error']}")
        self.times: list[float] = []
        self.rss_peak_mb: float | None = self.info.get("rss_runtime_mb")

    def _read(self) -> dict[str, Any]:
        line = self.replies.readline()
        if not line:
            err = self.errors.read().strip().splitlines()
            raise BenchError(f"{self.config}: the runtime stopped ({err[-1] if err else 'no message'})")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def ask(self, **cmd: object) -> dict[str, Any]:
        self.requests.write(json.dumps(cmd) + "\n")
        self.requests.flush()
        return self._read()

    def run(self, n: int) -> list[float]:
        reply = self.ask(cmd="run", n=n)
        self.rss_peak_mb = reply["rss_peak_mb"]
        times: list[float] = reply["times"]
        return times

    def outputs(self, folder: str) -> list[NDArray[Any]]:
        path = os.path.join(folder, self.config.replace("+", "_") + ".npz")
        self.ask(cmd="outputs", path=path)
        with np.load(path) as z:
            return [z[k] for k in sorted(z.files, key=lambda k: int(k.split("_")[1]))]

    def close(self) -> None:
        try:
            self.requests.write(json.dumps({"cmd": "quit"}) + "\n")
            self.requests.close()
            self.proc.wait(timeout=30)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


def accuracy(outputs: Sequence[NDArray[Any]], reference: Sequence[NDArray[Any]]) -> list[dict[str, float]]:
    """Per output: max |y - reference| and that over max |reference|; a quantized (integer)
    output also in quantization steps: the largest difference and the share of values equal."""
    per_output: list[dict[str, float]] = []
    for y, r in zip(outputs, reference):
        if r.size == 0 or r.dtype.kind not in "fiu":
            per_output.append({"max_abs": 0.0, "max_rel": 0.0})
            continue
        diff = np.abs(y.astype(np.float64) - r.astype(np.float64))
        scale = float(np.max(np.abs(r.astype(np.float64))))
        entry = {"max_abs": float(diff.max()), "max_rel": float(diff.max()) / scale if scale else float(diff.max())}
        if r.dtype.kind in "iu":
            entry.update({"max_steps": float(diff.max()), "exact_share": float(np.mean(diff == 0))})
        per_output.append(entry)
    return per_output


def quantized_accuracy(config: dict[str, Any]) -> str:
    """'2 (99.1%)': the most quantization steps any integer output is off, and the share of
    values exact over them all; '' without integer outputs."""
    ints = [a for a in config["accuracy_vs_builtin"] if "max_steps" in a]
    if not ints:
        return ""
    return f"{max(a['max_steps'] for a in ints):.0f} ({100 * min(a['exact_share'] for a in ints):.1f}%)"


def worst_rel_error(config: dict[str, Any]) -> float:
    return max((a["max_rel"] for a in config["accuracy_vs_builtin"]), default=0.0)


def latency_stats(times: Sequence[float]) -> dict[str, float]:
    t = np.asarray(times)
    return {"min": float(t.min()), "median": float(np.median(t)), "mean": float(t.mean()),
            "p90": float(np.percentile(t, 90)), "p99": float(np.percentile(t, 99)),
            "std": float(t.std())}


class Progress:
    """A progress bar on stderr, only when stderr is a terminal."""

    def __init__(self, total: int) -> None:
        self.total, self.on = total, sys.stderr.isatty()

    def update(self, done: int, note: str = "") -> None:
        if self.on:
            filled = int(30 * done / max(self.total, 1))
            sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {done}/{self.total} {note}  ")
            sys.stderr.flush()

    def close(self) -> None:
        if self.on:
            sys.stderr.write("\r" + " " * 60 + "\r")


def rotated(items: Sequence[T], r: int) -> list[T]:
    """items starting at position r (mod len): round r's order, so no configuration is always first."""
    r %= len(items)
    return list(items[r:]) + list(items[:r])


MIN_ROUND_MS = 10.0


def runs_per_round(requested: int, warmup_means_ms: Sequence[float | None]) -> int:
    """`requested`, or (0, the default) enough runs for MIN_ROUND_MS of the fastest
    configuration, at most 100: one invoke of a model of a millisecond measures its
    process waking and its caches refilling after the others ran more than the model."""
    if requested > 0:
        return requested
    known = [m for m in warmup_means_ms if m]
    return max(1, min(100, math.ceil(MIN_ROUND_MS / min(known)))) if known else 1


def paired_rounds(runners: Sequence[R], args: argparse.Namespace,
                  name_of: Callable[[R], str]) -> tuple[int, dict[str, list[float]]]:
    """Rounds of args.runs_per_round runs of each runner (each round starts one later), until
    args.num_runs rounds or args.max_secs; each runner's times go to its .times. Returns the
    rounds run and, by name_of(runner), the per-round medians."""
    progress, start, rounds = Progress(args.num_runs), time.perf_counter(), 0
    per_round: dict[str, list[float]] = {name_of(r): [] for r in runners}
    while rounds < args.num_runs and time.perf_counter() - start < args.max_secs:
        for r in rotated(runners, rounds):
            times = r.run(args.runs_per_round)
            r.times.extend(times)
            per_round[name_of(r)].append(statistics.median(times))
        rounds += 1
        progress.update(rounds)
    progress.close()
    return rounds, per_round


def run_bench(args: argparse.Namespace, options: dict[str, Any]) -> dict[str, Any]:
    """Returns the result dict (also what --json writes)."""
    check_model_file(args.model)
    ranges = parse_value_ranges(args.input_layer_value_range)
    workers: list[Worker] = []
    profile_dir = tempfile.TemporaryDirectory() if args.op_profile else None
    profile_path = os.path.join(profile_dir.name, "profile.json") if profile_dir else None
    try:
        for config in CONFIGS:
            opts = dict(options, profile_file=profile_path) if profile_path and config == "fusedelegate" else options
            workers.append(Worker(config, args, opts, ranges))
        init_ms = {w.config: [w.info["init_ms"]] for w in workers}
        for r in range(1, args.init_runs):  # more fresh processes, in turn: one init varies by 2x and more
            for config in rotated(CONFIGS, r):
                extra = Worker(config, args, options, ranges, init_only=True)
                init_ms[config].append(extra.info["init_ms"])
                extra.proc.communicate()  # it exits after its one line
        with tempfile.TemporaryDirectory() as tmp:
            outs = {w.config: w.outputs(tmp) for w in workers}
        for w in workers:
            w.info["warmup_ms"] = statistics.mean(w.run(args.warmup_runs)) if args.warmup_runs else None
        args.runs_per_round = runs_per_round(args.runs_per_round, [w.info["warmup_ms"] for w in workers])
        rounds, per_round = paired_rounds(workers, args, lambda w: w.config)
    finally:
        for w in workers:
            w.close()

    # Op details cannot tell delegates apart: fusedelegate, applied first, claims
    # the same nodes with or without XNNPACK after it.
    ours = next(w.info for w in workers if w.config == "fusedelegate")
    result = {"model": args.model, "runtime": args.runtime, "num_threads": args.num_threads,
              "rounds": rounds, "runs_per_round": args.runs_per_round, "delegate_options": options,
              "configurations": {}}
    for w in workers:
        ratios = {b: statistics.median(a / c for a, c in zip(per_round[w.config], per_round[b]))
                  for b in BASELINES}
        result["configurations"][w.config] = {
            "init_ms": statistics.median(init_ms[w.config]), "init_runs_ms": init_ms[w.config],
            "first_inference_ms": w.info["first_ms"],
            "warmup_mean_ms": w.info["warmup_ms"], "latency_ms": latency_stats(w.times),
            "ratio_vs": ratios, "peak_rss_mb": w.rss_peak_mb,
            "runtime_rss_mb": w.info["rss_runtime_mb"], "partitions": w.info["partitions"],
            "nodes_claimed": w.info["claimed"], "nodes": w.info["nodes"],
            "nodes_claimed_by_fusedelegate": ours["claimed"] if "fusedelegate" in w.config else 0,
            "partitions_of_fusedelegate": ours["partitions"] if "fusedelegate" in w.config else 0,
            "accuracy_vs_builtin": accuracy(outs[w.config], outs["builtin"]),
            "times_ms": w.times,
        }
    if profile_dir and profile_path:
        result["op_profile"] = read_profile(profile_path, result["configurations"]["fusedelegate"])
        profile_dir.cleanup()
    return result


def read_profile(path: str, config: dict[str, Any]) -> dict[str, Any]:
    """Per partition: mean ms per invoke, next to the rest of the interpreter's time."""
    if not os.path.exists(path):
        raise BenchError("--op_profile: the delegate wrote no profile")
    with open(path) as f:
        parts = json.load(f)["partitions"]
    # Warm-up and the first inference also ran the partitions: use means per invoke.
    rows = [{"partition": k, "ops": p["ops"], "nodes": p["nodes"], "invokes": p["invokes"],
             "mean_ms": 1e3 * p["seconds"] / p["invokes"] if p["invokes"] else 0.0}
            for k, p in enumerate(parts)]
    # Per fused program, summed over programs of the same ops.
    programs: dict[str, float] = {}
    for p in parts:
        for prog in p.get("programs", []):
            programs[prog["ops"]] = programs.get(prog["ops"], 0.0) + (
                1e3 * prog["seconds"] / p["invokes"] if p["invokes"] else 0.0)
    total = config["latency_ms"]["mean"]
    rest = max(total - sum(r["mean_ms"] for r in rows), 0.0)
    top = sorted(programs.items(), key=lambda kv: -kv[1])
    return {"partitions": rows, "programs": [{"ops": k, "mean_ms": v} for k, v in top],
            "interpreter_own_ops_mean_ms": rest, "total_mean_ms": total}


def print_profile(profile: dict[str, Any], out: IO[str] = sys.stdout) -> None:
    total = profile["total_mean_ms"] or 1.0
    print("\nop profile (fusedelegate configuration, mean per invoke):", file=out)
    for r in profile["partitions"]:
        ops = " ".join(r["ops"])
        ops = ops if len(ops) < 60 else ops[:57] + "..."
        print(f"  partition {r['partition']:<3}{r['mean_ms']:>9.3f} ms {100 * r['mean_ms'] / total:>5.1f}%  {ops}",
              file=out)
    rest = profile["interpreter_own_ops_mean_ms"]
    print(f"  interpreter's own ops{rest:>7.3f} ms {100 * rest / total:>5.1f}%  (everything not delegated)", file=out)
    if profile.get("programs"):
        print("fused programs, by ops, slowest first (top 12):", file=out)
        for r in profile["programs"][:12]:
            ops = r["ops"] if len(r["ops"]) < 70 else r["ops"][:67] + "..."
            print(f"  {r['mean_ms']:>9.3f} ms {100 * r['mean_ms'] / total:>5.1f}%  {ops}", file=out)


def print_table(result: dict[str, Any], out: IO[str] = sys.stdout) -> None:
    cfgs = result["configurations"]
    any_cfg = next(iter(cfgs.values()))
    print(f"model {result['model']} | runtime {result['runtime']} | threads {result['num_threads']} "
          f"| {result['rounds']} rounds x {result['runs_per_round']} runs", file=out)
    head = (f"{'configuration':<21}{'init':>7}{'first':>7}{'min':>8}{'median':>8}{'mean':>8}{'p90':>8}"
            f"{'p99':>8}{'std':>7}{'vs builtin':>11}{'vs xnnpack':>11}{'RSS MB':>8}{'claimed':>13}"
            f"{'max rel err':>12}{'steps (exact)' if quantized_accuracy(any_cfg) else '':>14}")
    print(head, file=out)
    for name, c in cfgs.items():
        lat = c["latency_ms"]
        err = worst_rel_error(c)
        fd, other = c["nodes_claimed_by_fusedelegate"], c["nodes_claimed"] - c["nodes_claimed_by_fusedelegate"]
        claimed = "+".join(f"{n}{tag}" for n, tag in ((fd, "fd"), (other, "xnn")) if n) or "0"
        print(f"{name:<21}{c['init_ms']:>7.1f}{c['first_inference_ms']:>7.2f}{lat['min']:>8.3f}"
              f"{lat['median']:>8.3f}{lat['mean']:>8.3f}{lat['p90']:>8.3f}{lat['p99']:>8.3f}"
              f"{lat['std']:>7.3f}{c['ratio_vs']['builtin']:>10.2f}x{c['ratio_vs']['xnnpack']:>10.2f}x"
              f"{c['peak_rss_mb']:>8.1f}{claimed:>13}{err:>12.2e}{quantized_accuracy(c):>14}", file=out)
    print(f"times in ms; ratios: medians of per-round paired ratios (lower is faster); claimed: nodes "
          f"run by fusedelegate (fd) and XNNPACK (xnn) of {any_cfg['nodes']}", file=out)
    if quantized_accuracy(any_cfg):
        print("integer outputs: the most quantization steps off the builtin kernels (share of values exact)",
              file=out)


def latency_columns() -> list[Column]:
    """The CSV columns of the latency statistics: (name, value of a configuration)."""
    def column(key: str) -> Column:
        return f"{key}_ms", lambda c: c["latency_ms"][key]
    return [column(key) for key in ("min", "median", "mean", "p90", "p99", "std")]


# `fusedelegate bench --csv`: a row per configuration, each column's name and
# value from one table.
CSV_COLUMNS: list[Column] = [
    ("init_ms", lambda c: c["init_ms"]),
    ("first_inference_ms", lambda c: c["first_inference_ms"]),
    *latency_columns(),
    ("ratio_vs_builtin", lambda c: c["ratio_vs"]["builtin"]),
    ("ratio_vs_xnnpack", lambda c: c["ratio_vs"]["xnnpack"]),
    ("peak_rss_mb", lambda c: c["peak_rss_mb"]),
    ("partitions", lambda c: c["partitions"]),
    ("nodes_claimed", lambda c: c["nodes_claimed"]),
    ("nodes_claimed_by_fusedelegate", lambda c: c["nodes_claimed_by_fusedelegate"]),
    ("max_rel_error", worst_rel_error),
]


def write_columns_csv(result: dict[str, Any], path: str, columns: Sequence[Column]) -> None:
    """A row per configuration: its name, then each column's value."""
    import csv
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["configuration"] + [name for name, _ in columns])
        for name, c in result["configurations"].items():
            w.writerow([name] + [value(c) for _, value in columns])


def write_csv(result: dict[str, Any], path: str) -> None:
    write_columns_csv(result, path, CSV_COLUMNS)


def write_plot(result: dict[str, Any], path: str) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise BenchError("--plot needs matplotlib: pip install 'fusedelegate[plot]'") from None
    fig, ax = plt.subplots(figsize=(8, 4))
    names = list(result["configurations"])
    ax.boxplot([result["configurations"][n]["times_ms"] for n in names])
    ax.set_xticks(range(1, len(names) + 1))
    ax.set_xticklabels(names)
    ax.set_ylabel("latency (ms)")
    ax.set_title(os.path.basename(result["model"]))
    fig.tight_layout()
    fig.savefig(path, dpi=100)
