"""One benchmark configuration in its own process (python -m fusedelegate._bench_worker).

Speaks JSON lines with bench.py: a first line with init figures, then answers
{"cmd": "run", "n": k} with invoke times, {"cmd": "outputs", "path": p} by
saving the outputs, {"cmd": "quit"}. Only the chosen runtime is imported.
Native code printing to stdout cannot corrupt the protocol: fd 1 goes to stderr.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

CONFIGS = ("builtin", "xnnpack", "fusedelegate", "fusedelegate+xnnpack")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def make_inputs(interpreter: Any, ranges: dict[str, tuple[float, float]], seed: int = 0) -> list[NDArray[Any]]:
    """Fixed seeded inputs; `ranges` maps input name -> (lo, hi), '' the default."""
    rng = np.random.default_rng(seed)
    inputs: list[NDArray[Any]] = []
    for d in interpreter.get_input_details():
        lo, hi = ranges.get(d["name"], ranges[""])
        dtype = np.dtype(d["dtype"])
        if dtype.kind == "f":
            inputs.append(rng.uniform(lo, hi, d["shape"]).astype(dtype))
        elif dtype.kind in "iu":
            info = np.iinfo(dtype)
            inputs.append(rng.integers(int(max(lo, info.min)), int(min(hi, info.max) + 1), d["shape"]).astype(dtype))
        elif dtype.kind == "b":
            inputs.append(rng.integers(0, 2, d["shape"]).astype(bool))
        else:
            raise ValueError(f"cannot fill input '{d['name']}' of type {dtype.name}")
    return inputs


def build(module: ModuleType, args: argparse.Namespace) -> Any:
    kwargs: dict[str, Any] = {"model_path": args.model, "num_threads": args.num_threads}
    if "xnnpack" not in args.config:
        kwargs["experimental_op_resolver_type"] = module.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
    if args.config.startswith("fusedelegate"):
        import fusedelegate
        kwargs["experimental_delegates"] = [fusedelegate.load(**json.loads(args.delegate_options))]
    interpreter = module.Interpreter(**kwargs)
    interpreter.allocate_tensors()
    return interpreter


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--runtime", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--config", choices=CONFIGS, required=True)
    p.add_argument("--num_threads", type=int, default=1)
    p.add_argument("--delegate_options", default="{}")
    p.add_argument("--ranges", default='{"": [-1, 1]}')
    p.add_argument("--init_only", action="store_true", help="report the init time and exit")
    args = p.parse_args()

    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)

    def say(obj: dict[str, Any]) -> None:
        proto.write(json.dumps(obj) + "\n")

    try:
        from fusedelegate._runtime import load_runtime
        from fusedelegate._inspect import claimed_node_count, original_node_count, partitions
        _, module = load_runtime(args.runtime)
        rss_before = peak_rss_mb()
        start = time.perf_counter()
        interpreter = build(module, args)
        init_ms = (time.perf_counter() - start) * 1e3
        if args.init_only:
            say({"init_ms": init_ms})
            return 0
        inputs = make_inputs(interpreter, {k: tuple(v) for k, v in json.loads(args.ranges).items()})
        for d, x in zip(interpreter.get_input_details(), inputs):
            interpreter.set_tensor(d["index"], x)
        start = time.perf_counter()
        interpreter.invoke()
        first_ms = (time.perf_counter() - start) * 1e3
    except Exception as e:  # reported as one line by bench.py
        text = str(e).strip()
        say({"error": text.splitlines()[-1] if text else type(e).__name__})
        return 1
    say({"init_ms": init_ms, "first_ms": first_ms, "partitions": len(partitions(interpreter)),
         "claimed": claimed_node_count(interpreter), "nodes": original_node_count(interpreter),
         "rss_runtime_mb": rss_before})
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd["cmd"] == "run":
            times: list[float] = []
            for _ in range(cmd["n"]):
                start = time.perf_counter()
                interpreter.invoke()
                times.append((time.perf_counter() - start) * 1e3)
            say({"times": times, "rss_peak_mb": peak_rss_mb()})
        elif cmd["cmd"] == "outputs":
            outs = [interpreter.get_tensor(d["index"]) for d in interpreter.get_output_details()]
            np.savez(cmd["path"], *outs)
            say({"saved": cmd["path"]})
        else:
            break
    del interpreter  # the delegate writes its profile (option profile_file) when destroyed
    return 0


if __name__ == "__main__":
    sys.exit(main())
