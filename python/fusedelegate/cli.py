"""The `fusedelegate` command (also `python -m fusedelegate`).

    fusedelegate bench [MODEL]   built-in kernels vs XNNPACK vs fusedelegate, paired
    fusedelegate plan MODEL      the delegate's fusion plan, without running the model
    fusedelegate bench --tf PATH TensorFlow default vs XLA vs the Grappler pass (SavedModel or .keras)
    fusedelegate plan --tf PATH  which TensorFlow nodes the pass fused into which op
    fusedelegate info            versions, library, CPU and ISA: what a bug report needs
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, Callable, NoReturn

from . import __version__, default_model_path, load
from ._loader import DelegateOptionError, LibraryError
from ._runtime import RuntimeUnavailable, load_runtime_name
from .bench import (BenchError, check_model_file, print_profile, print_table, run_bench, write_csv,
                    write_plot)
from .plan import delegate_plan, format_plan, plan_dot


class CliError(Exception):
    """A user-facing error: printed as one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, not a usage dump
        raise CliError(f"{message} (see '{self.prog} --help')")


def parse_delegate_options(text: str | None) -> dict[str, Any]:
    """'k:v;k:v' (as benchmark_model's --external_delegate_options) -> dict."""
    options: dict[str, Any] = {}
    for item in filter(None, (text or "").split(";")):
        key, sep, value = item.partition(":")
        if not sep:
            raise CliError(f"--delegate_options: '{item}' is not key:value")
        options[key.strip()] = value.strip()
    return options


def tf_or_model(args: argparse.Namespace) -> bool:
    """Whether the command is for a TensorFlow model (--tf); MODEL and --tf exclude each other."""
    if args.tf and args.model:
        raise CliError("give either a .tflite MODEL or --tf PATH, not both")
    return bool(args.tf)


def write_result(result: dict[str, Any], args: argparse.Namespace,
                 csv_writer: Callable[[dict[str, Any], str], None]) -> None:
    """What --json, --csv (through csv_writer) and --plot ask for."""
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    if args.csv:
        csv_writer(result, args.csv)
    if args.plot:
        write_plot(result, args.plot)


def cmd_bench_tf(args: argparse.Namespace, options: dict[str, Any]) -> int:
    from .tf_bench import print_tf_table, run_tf_bench, write_tf_csv
    if args.op_profile:
        raise CliError("--op_profile is for .tflite models, not --tf")
    result = run_tf_bench(args, options)
    print_tf_table(result)
    write_result(result, args, write_tf_csv)
    return 0


def cmd_plan_tf(args: argparse.Namespace, options: dict[str, Any]) -> int:
    from .tf_plan import format_tf_plan, tf_plan
    if args.dot:
        raise CliError("--dot is for .tflite models, not --tf")
    args.num_threads, args.input_layer_value_range = 1, ""
    plan = tf_plan(args, options)
    print(format_tf_plan(plan))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(plan, f, indent=1)
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    if tf_or_model(args):
        options = parse_delegate_options(args.delegate_options)
        load(**options)
        return cmd_bench_tf(args, options)
    args.model = args.model or default_model_path()
    options = parse_delegate_options(args.delegate_options)
    load(**options)  # validate once here: a bad option is one clear line
    result = run_bench(args, options)
    print_table(result)
    if args.op_profile:
        print_profile(result["op_profile"])
    write_result(result, args, write_csv)
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    if tf_or_model(args):
        options = parse_delegate_options(args.delegate_options)
        load(**options)
        return cmd_plan_tf(args, options)
    if not args.model:
        raise CliError("give a .tflite MODEL or --tf PATH")
    check_model_file(args.model)
    options = parse_delegate_options(args.delegate_options)
    load(**options)
    try:
        plan = delegate_plan(args.model, args.runtime, options)
    except (ValueError, RuntimeError) as e:
        raise CliError(f"cannot load {args.model}: {str(e).strip().splitlines()[0]}") from None
    print(format_plan(plan))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(plan, f, indent=1)
    if args.dot:
        with open(args.dot, "w") as f:
            f.write(plan_dot(plan))
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    from .info import collect, format_info
    info = collect()
    print(json.dumps(info, indent=1) if args.json else format_info(info))
    return 0


def build_parser() -> Parser:
    parser = Parser(prog="fusedelegate", description="fusedelegate: operator fusion for TFLite")
    parser.add_argument("--version", action="version", version=f"fusedelegate {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    b = sub.add_parser("bench", help="compare built-in kernels, XNNPACK and fusedelegate on a model")
    b.add_argument("model", nargs="?", help="a .tflite model (default: the bundled default model)")
    b.add_argument("--tf", metavar="PATH", help="a TensorFlow SavedModel directory or .keras file instead: "
                   "TF default vs XLA vs TF with the fusedelegate pass, in this process")
    b.add_argument("--runtime", default="auto", choices=["auto", "litert", "tflite", "tf"],
                   help="TFLite runtime (auto: litert, then tflite_runtime, then tensorflow)")
    b.add_argument("--num_threads", type=int, default=1)
    b.add_argument("--num_runs", type=int, default=50, help="rounds; each runs every configuration")
    b.add_argument("--runs_per_round", type=int, default=0,
                   help="invokes per configuration per round; 0 (default): enough for 10 ms of the fastest "
                        "configuration (1 for models of 10 ms and more)")
    b.add_argument("--warmup_runs", type=int, default=5)
    b.add_argument("--init_runs", type=int, default=3,
                   help="fresh processes per configuration timed for init, in turn; reports the median")
    b.add_argument("--max_secs", type=float, default=150.0, help="stop the rounds after this long")
    b.add_argument("--input_layer_value_range", default="",
                   help="'lo,hi' for every input, or 'name,lo,hi:name,lo,hi' (default -1,1)")
    b.add_argument("--delegate_options", default="", help='fusedelegate options, "k:v;k:v"')
    b.add_argument("--json", metavar="FILE", help="write every figure as JSON")
    b.add_argument("--csv", metavar="FILE", help="write the table as CSV")
    b.add_argument("--plot", metavar="FILE.png", help="latency distributions (needs matplotlib)")
    b.add_argument("--op_profile", action="store_true",
                   help="time each fusedelegate partition (delegate-side timers)")
    b.set_defaults(func=cmd_bench)
    p = sub.add_parser("plan", help="show the delegate's fusion plan for a model")
    p.add_argument("model", nargs="?", help="a .tflite model")
    p.add_argument("--tf", metavar="PATH", help="a TensorFlow SavedModel directory or .keras file instead: "
                   "the nodes the Grappler pass fused")
    p.add_argument("--runtime", default="auto", choices=["auto", "litert", "tflite", "tf"])
    p.add_argument("--delegate_options", default="", help='fusedelegate options, "k:v;k:v"')
    p.add_argument("--json", metavar="FILE", help="write the plan as JSON")
    p.add_argument("--dot", metavar="FILE", help="write the plan as a Graphviz graph")
    p.set_defaults(func=cmd_plan)
    i = sub.add_parser("info", help="versions, library, CPU and ISA: what a bug report needs")
    i.add_argument("--json", action="store_true", help="print it as JSON")
    i.set_defaults(func=cmd_info)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if getattr(args, "runtime", None) == "auto" and not args.tf:
            args.runtime = load_runtime_name()
        status: int = args.func(args)
        return status
    except (CliError, BenchError, DelegateOptionError, LibraryError, RuntimeUnavailable) as e:
        message = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        print(f"fusedelegate: {message.removeprefix('fusedelegate: ')}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("fusedelegate: interrupted", file=sys.stderr)
        return 130
