"""The shape fuzz test: seeded random graphs with open axes (tests/shape_fuzz.py) through the
delegate in LiteRT with default options and with min_nodes_per_partition=1, each resized to
its resize_cases (every open axis at 0, 1 or more), compared with the interpreter's builtin
kernels (tests/worker.py).

    .venv/bin/python -m pytest tests/test_shape_fuzz.py                        # CI: 150 graphs, seed 0
    FD_SHAPE_FUZZ_GRAPHS=10000 FD_SHAPE_FUZZ_SEED=1 .venv/bin/python -m pytest tests/test_shape_fuzz.py -q
    FD_SHAPE_FUZZ_SEED=1 FD_SHAPE_FUZZ_ONLY=57,112 .venv/bin/python -m pytest tests/test_shape_fuzz.py

Per graph, option set and resize: the worker ran it without error, the plan agrees with what
the runtime delegated, the output shapes are the reference's and every output is within TOL
of it (or ABS_TOL: an output that cancels to nearly 0, tanh(x) - x, turns an ulp of the
approximated functions into a large relative error). A node the delegate cannot run at every size is declined (left to the runtime): that
passes. Over the whole CI set the delegate claimed every view it has, and most resizes ran.
"""
import json
import os

import pytest

from checks import accuracy_misses, check_result, claimed_nodes, op_of
from procs import fuzz_set, results_by_option_set

CI_GRAPHS = 150
GRAPHS = int(os.environ.get("FD_SHAPE_FUZZ_GRAPHS", CI_GRAPHS))
SEED = int(os.environ.get("FD_SHAPE_FUZZ_SEED", 0))
ONLY = [int(k) for k in os.environ.get("FD_SHAPE_FUZZ_ONLY", "").replace(",", " ").split()]
INDICES = ONLY or list(range(GRAPHS))
OPTIONS = {"default": {}, "min-nodes-1": {"min_nodes_per_partition": 1}}
CHUNK = 250  # graphs per worker process
TOL = 1e-5  # max |y - ref| / max |ref| per output: the bound for these short graphs
ABS_TOL = 1e-6  # values stay below 30: their rounding is 2e-6


def _name(k):
    return f"s{k:05d}"


@pytest.fixture(scope="module")
def shape_fuzz_dir():
    return fuzz_set("shapefuzz", "shape_fuzz.py", ("shape_fuzz.py", "fuzz.py", "models.py"), SEED, ONLY, GRAPHS)


@pytest.fixture(scope="module")
def manifest(shape_fuzz_dir):
    return json.loads((shape_fuzz_dir / "manifest.json").read_text())["models"]


@pytest.fixture(scope="module")
def results(shape_fuzz_dir, manifest):
    """results(option set) -> per graph the worker's result; each option set runs once."""
    return results_by_option_set(shape_fuzz_dir, manifest, OPTIONS, CHUNK)


@pytest.mark.parametrize("option_set", list(OPTIONS))
@pytest.mark.parametrize("index", INDICES, ids=_name)
def test_shape_fuzz_graph(manifest, results, option_set, index):
    """The delegate runs the graph at every size as the builtin kernels do, or declines."""
    name, entry = _name(index), manifest[_name(index)]
    repro = f"FD_SHAPE_FUZZ_SEED={SEED} FD_SHAPE_FUZZ_ONLY={index} pytest tests/test_shape_fuzz.py"
    what = f"{name} ({repro}), options {OPTIONS[option_set]}: {entry['about']}"
    assert "error" not in entry, f"the converter rejected {what}: {entry['error']}"
    res = results(option_set)[name]
    try:
        check_result(res, entry, None, float("inf"))  # all but the accuracy of the outputs
    except AssertionError as e:
        raise AssertionError(f"{what}\nops {entry['ops']}\n{e}") from None
    misses = accuracy_misses(res, TOL, ABS_TOL)
    assert not misses, f"{what}\nops {entry['ops']}\n" + "\n".join(misses)


VIEWS = {"EXPAND_DIMS", "SQUEEZE", "RESHAPE", "TRANSPOSE"}
ANCHORS = {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "CONCATENATION", "MEAN"}


def test_shape_fuzz_reaches_the_delegate(manifest, results):
    """Over the CI set with default options, the delegate claimed every view and the main
    anchors somewhere, and at most a quarter of the resizes were ones the builtin kernels
    themselves cannot run (a fuzzer that only declines or skips tests nothing)."""
    if ONLY or GRAPHS < CI_GRAPHS:
        pytest.skip(f"checked on sets of {CI_GRAPHS} graphs or more")
    ran = {n: r for n, r in results("default").items() if not r.get("error") and not r.get("skipped")}
    claimed = {op_of(manifest[n]["ops"][i]) for n, r in ran.items() for i in claimed_nodes(r)}
    assert VIEWS | ANCHORS <= claimed, f"never claimed: {sorted((VIEWS | ANCHORS) - claimed)}"
    resizes = [c for r in ran.values() for c in r.get("resize", {}).values()]
    skipped = sum(1 for c in resizes if c.get("skipped"))
    assert resizes and skipped <= len(resizes) / 4, f"{skipped} of {len(resizes)} resizes skipped"
