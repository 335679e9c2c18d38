"""The `fusedelegate` command.

    fusedelegate bench [MODEL]   compare built-in kernels, XNNPACK and fusedelegate
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

from . import __version__, default_model_path, load
from ._inspect import claimed_node_count, original_node_count, partitions
from ._loader import DelegateOptionError, LibraryError
from ._runtime import RuntimeUnavailable, load_runtime


class CliError(Exception):
    """A user-facing error: printed as one line, exit status 2."""


def parse_delegate_options(text):
    """'k:v;k:v' (as benchmark_model's --external_delegate_options) -> dict."""
    options = {}
    for item in filter(None, (text or "").split(";")):
        key, sep, value = item.partition(":")
        if not sep:
            raise CliError(f"--delegate_options: '{item}' is not key:value")
        options[key.strip()] = value.strip()
    return options


def make_inputs(interpreter, value_range, seed=0):
    rng = np.random.default_rng(seed)
    lo, hi = value_range
    inputs = []
    for d in interpreter.get_input_details():
        if d["dtype"] == np.float32:
            inputs.append(rng.uniform(lo, hi, d["shape"]).astype(np.float32))
        elif np.issubdtype(d["dtype"], np.integer):
            info = np.iinfo(d["dtype"])
            inputs.append(rng.integers(max(info.min, -128), min(info.max, 127), d["shape"]).astype(d["dtype"]))
        else:
            raise CliError(f"cannot fill input '{d['name']}' of type {np.dtype(d['dtype']).name}")
    return inputs


class Config:
    def __init__(self, name, module, model, threads, delegate_options, use_xnnpack, use_fusedelegate):
        resolver = module.OpResolverType
        kwargs = {"model_path": model, "num_threads": threads}
        if not use_xnnpack:
            kwargs["experimental_op_resolver_type"] = resolver.BUILTIN_WITHOUT_DEFAULT_DELEGATES
        if use_fusedelegate:
            kwargs["experimental_delegates"] = [load(**delegate_options)]
        self.name = name
        start = time.perf_counter()
        self.interpreter = module.Interpreter(**kwargs)
        self.interpreter.allocate_tensors()
        self.init_ms = (time.perf_counter() - start) * 1e3
        self.times = []

    def run(self, inputs):
        it = self.interpreter
        for d, x in zip(it.get_input_details(), inputs):
            it.set_tensor(d["index"], x)
        start = time.perf_counter()
        it.invoke()
        elapsed = time.perf_counter() - start
        return elapsed, [it.get_tensor(d["index"]) for d in it.get_output_details()]


def max_rel_error(outputs, reference):
    worst = 0.0
    for y, r in zip(outputs, reference):
        if r.dtype != np.float32 or r.size == 0:
            continue
        scale = float(np.max(np.abs(r))) or 1.0
        worst = max(worst, float(np.max(np.abs(y.astype(np.float64) - r))) / scale)
    return worst


def bench(args):
    model = args.model or default_model_path()
    if not os.path.isfile(model):
        raise CliError(f"model not found: {model}")
    try:
        runtime, module = load_runtime(args.runtime)
    except RuntimeUnavailable as e:
        raise CliError(str(e)) from None
    options = parse_delegate_options(args.delegate_options)
    lo, hi = (float(v) for v in args.input_range.split(","))
    try:
        configs = [
            Config("builtin", module, model, args.num_threads, options, False, False),
            Config("xnnpack", module, model, args.num_threads, options, True, False),
            Config("fusedelegate", module, model, args.num_threads, options, False, True),
            Config("fusedelegate+xnnpack", module, model, args.num_threads, options, True, True),
        ]
    except (DelegateOptionError, LibraryError) as e:
        raise CliError(str(e)) from None
    except ValueError as e:
        raise CliError(f"cannot load {model}: {str(e).splitlines()[0]}") from None

    inputs = make_inputs(configs[0].interpreter, (lo, hi))
    reference = configs[0].run(inputs)[1]
    errors = {c.name: max_rel_error(c.run(inputs)[1], reference) for c in configs}
    for _ in range(args.warmup_runs):
        for c in configs:
            c.run(inputs)
    for _ in range(args.num_runs):  # rounds alternate configurations: drift cancels
        for c in configs:
            c.times.append(c.run(inputs)[0])

    fused = configs[2].interpreter
    parts = partitions(fused)
    print(f"fusedelegate {__version__} | runtime {runtime} | threads {args.num_threads} | model {model}")
    print(f"fused {claimed_node_count(fused)} of {original_node_count(fused)} nodes "
          f"into {len(parts)} partition(s)")
    base = {c.name: c.times for c in configs}
    print(f"{'configuration':<22}{'init ms':>9}{'median ms':>11}{'vs builtin':>12}{'vs xnnpack':>12}"
          f"{'max rel err':>13}")
    for c in configs:
        def ratio(other):
            return statistics.median(a / b for a, b in zip(c.times, base[other]))
        print(f"{c.name:<22}{c.init_ms:>9.1f}{statistics.median(c.times) * 1e3:>11.3f}"
              f"{ratio('builtin'):>11.2f}x{ratio('xnnpack'):>11.2f}x{errors[c.name]:>13.2e}")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="fusedelegate", description=__doc__.strip().splitlines()[0])
    parser.add_argument("--version", action="version", version=f"fusedelegate {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("bench", help="compare built-in kernels, XNNPACK and fusedelegate on a model")
    b.add_argument("model", nargs="?", help="a .tflite model (default: the bundled default model)")
    b.add_argument("--runtime", default="auto", help="auto, litert, tflite or tf")
    b.add_argument("--num_threads", type=int, default=1)
    b.add_argument("--num_runs", type=int, default=50)
    b.add_argument("--warmup_runs", type=int, default=5)
    b.add_argument("--input_range", default="-1,1", help="uniform range of the seeded random inputs")
    b.add_argument("--delegate_options", default="", help='fusedelegate options, "k:v;k:v"')
    args = parser.parse_args(argv)
    try:
        return bench(args)
    except CliError as e:
        print(f"fusedelegate: {e}", file=sys.stderr)
        return 2
