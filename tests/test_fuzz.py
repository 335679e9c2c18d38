"""The fuzz test: seeded random graphs (tests/fuzz.py) through the delegate in LiteRT, with
default options and with fusions=elementwise, min_nodes_per_partition=1, compared with the
interpreter's builtin kernels (tests/worker.py), dynamic batches resized.

    .venv/bin/python -m pytest tests/test_fuzz.py                      # CI: 400 graphs, seed 0
    FD_FUZZ_GRAPHS=3000 FD_FUZZ_SEED=7 .venv/bin/python -m pytest tests/test_fuzz.py -q
    FD_FUZZ_SEED=7 FD_FUZZ_ONLY=57,112 .venv/bin/python -m pytest tests/test_fuzz.py  # those again

FD_FUZZ_GRAPHS: how many graphs (default 400); FD_FUZZ_SEED: the seed (default 0);
FD_FUZZ_ONLY: a comma list of graph indices, made alone (graph K of a seed is the same made
alone or among thousands). A failure names the seed, the index and the graph. Graphs are
cached in tests/.cache/fuzz-<generator hash>-s<seed>-<graphs>.

Per graph and option set: the worker ran it without error, the plan agrees with what the
runtime delegated, and every output is within TOL of the builtin kernels (also after
resizes). Over the whole default set, the delegate claimed every op it claims somewhere,
and with fusions=elementwise only elementwise ops (and the float16 constants they read).
"""
import contextlib
import json
import os

import pytest

import models
from checks import TOL_HYBRID, accuracy_misses, check_result, claimed_nodes, op_of
from procs import fuzz_set, results_by_option_set, run_worker

CI_GRAPHS = 400
GRAPHS = int(os.environ.get("FD_FUZZ_GRAPHS", CI_GRAPHS))
SEED = int(os.environ.get("FD_FUZZ_SEED", 0))
ONLY = [int(k) for k in os.environ.get("FD_FUZZ_ONLY", "").replace(",", " ").split()]
INDICES = ONLY or list(range(GRAPHS))
OPTIONS = {"default": {}, "elementwise": {"fusions": "elementwise", "min_nodes_per_partition": 1}}
CHUNK = 200  # graphs per worker process (the worker rewrites its results file per graph)

# An output passes with max |y - ref| / max |ref| <= TOL or max |y - ref| <= ABS_TOL. The
# hand-made models hold 1e-5 (checks.py); random compositions are worse conditioned: sums
# and differences that cancel turn rounding into relative error (XNNPACK differs from the
# builtin kernels by up to 1.3e-4 on such graphs), and the delegate's fused multiply-add
# (rounded once, see docs/architecture.md, Accuracy) keeps the rounding error of a*b - a*b, which the builtin
# kernels cancel to an exact 0. Values stay below 20 (fuzz_steps.BOUND), whose rounding is
# 1e-6. A wrong op, index or broadcast is off by far more.
TOL, ABS_TOL = 1e-4, 1e-6

# Known delegate bugs, by the error they give -> the bug (xfail; remove once fixed).
KNOWN_BUGS = {}  # error text -> why it is expected; remove an entry once its bug is fixed


def _name(k):
    return f"g{k:05d}"


def _repro(k):
    return f"FD_FUZZ_SEED={SEED} FD_FUZZ_ONLY={k} pytest tests/test_fuzz.py"


@pytest.fixture(scope="module")
def fuzz_dir():
    """The generated graphs, cached per generator, seed and graph set."""
    return fuzz_set("fuzz", "fuzz.py", ("fuzz.py", "fuzz_steps.py", "models.py"), SEED, ONLY, GRAPHS)


@pytest.fixture(scope="module")
def fuzz_manifest(fuzz_dir):
    return json.loads((fuzz_dir / "manifest.json").read_text())["models"]


@pytest.fixture(scope="module")
def fuzz_results(fuzz_dir, fuzz_manifest):
    """results(option set) -> per graph the worker's result; each option set runs once."""
    return results_by_option_set(fuzz_dir, fuzz_manifest, OPTIONS, CHUNK)


@pytest.fixture(scope="module")
def xnnpack_result(fuzz_dir):
    """name -> XNNPACK's result on that graph, run when asked (only failures ask)."""
    runs = {}

    def result(name):
        if name not in runs:
            runs[name] = run_worker("litert", fuzz_dir, [name], via="xnnpack")[name]
        return runs[name]
    return result


def hybrid_left(res, entry):
    """Whether a layer with int8 weights was left to the runtime's hybrid kernel, which
    quantizes its activations too: its error against the float twin, which a random graph
    may amplify without bound (0.24 after an EXP), is the runtime's."""
    return not set(entry.get("int8_weight_nodes", [])) <= set(claimed_nodes(res))


def worst_rel(res):
    """The largest max_rel of a worker result: all invokes, outputs and resizes."""
    invokes = res.get("invokes", []) + [i for r in res.get("resize", {}).values() for i in r.get("invokes", [])]
    return max((rel for invoke in invokes for _, rel in invoke), default=0.0)


def xfail_known_bug(res):
    errors = [res.get("error") or ""] + [r.get("error") or "" for r in res.get("resize", {}).values()]
    for text, bug in KNOWN_BUGS.items():
        if any(text in e for e in errors):
            pytest.xfail(bug)


def xfail_if_xnnpack_as_far(res, xnnpack, hybrid=False):
    """Where XNNPACK too is at least half as far from the builtin kernels as the delegate,
    they are no oracle for the graph (it amplifies rounding, or they are wrong): xfail. So
    too where a hybrid layer was left and XNNPACK cannot run the graph (sparse int8)."""
    if hybrid and (xnnpack.get("error") or xnnpack.get("skipped")):
        pytest.xfail("a hybrid layer left to the runtime, and XNNPACK cannot run the graph: no oracle")
    ours, theirs = worst_rel(res), worst_rel(xnnpack)
    if not xnnpack.get("error") and not xnnpack.get("skipped") and theirs >= 0.5 * ours:
        pytest.xfail(f"the builtin kernels are no oracle here: XNNPACK is {theirs:.3g} from them, "
                     f"the delegate {ours:.3g}")


def xfail_if_builtin_reads_malformed_weights(res):
    """Where the delegate left a layer whose sparse weights are malformed (the converter
    stores a block of 4 along a dim of 2), the builtin kernel reads past its values: its
    output changes from one interpreter to the next (seed 12, graph 1536), no oracle."""
    plan = res.get("plan") or {}
    if any("malformed sparse" in (n.get("reason") or "") for n in plan.get("nodes", [])):
        pytest.xfail("the builtin kernels read past malformed sparse weights: no oracle")


@contextlib.contextmanager
def failing_as(what):
    try:
        yield
    except AssertionError as e:
        raise AssertionError(f"{what}\n{e}") from None


@pytest.mark.parametrize("option_set", list(OPTIONS))
@pytest.mark.parametrize("index", INDICES, ids=_name)
def test_fuzz_graph(fuzz_manifest, fuzz_results, xnnpack_result, option_set, index):
    """The delegate runs the graph as the builtin kernels do."""
    name, entry = _name(index), fuzz_manifest[_name(index)]
    what = f"{name} ({_repro(index)}), options {OPTIONS[option_set]}: {entry['about']}"
    assert "error" not in entry, f"the converter rejected {what}: {entry['error']}"
    res, what = fuzz_results(option_set)[name], f"{what}\nops {entry['ops']}"
    xfail_known_bug(res)
    with failing_as(what):
        check_result(res, entry, None, float("inf"))  # all but the accuracy of the outputs
    misses = accuracy_misses(res, TOL_HYBRID if hybrid_left(res, entry) else TOL, ABS_TOL)
    if misses and entry["weights"] != "int8":  # int8: the builtin kernels are the oracle, bit for bit
        xfail_if_builtin_reads_malformed_weights(res)
        xfail_if_xnnpack_as_far(res, xnnpack_result(name), hybrid_left(res, entry))
    assert not misses, what + "\n" + "\n".join(misses)


# Ops the delegate claims that no TF graph converts to (the hand-made models patch them in).
NOT_EMITTED = {"RELU_0_TO_1"}
CLAIMED_OPS = (set(models.CLAIMABLE_OPS + models.ANCHOR_OPS + models.PAD_OPS + models.ROW_OPS)
               | {"CONCATENATION", "MAX_POOL_2D", "AVERAGE_POOL_2D", "DEQUANTIZE"}) - NOT_EMITTED


def claimed_ops(manifest, results):
    """The ops of every node the delegate claimed, over all graphs that ran."""
    ops = set()
    for name, res in results.items():
        if not res.get("error") and not res.get("skipped"):
            ops |= {op_of(manifest[name]["ops"][i]) for i in claimed_nodes(res)}
    return ops


def test_fuzz_claims_every_op_it_can(fuzz_manifest, fuzz_results):
    """With default options the graphs got every op the delegate claims claimed somewhere
    (a fuzzer that never reaches the delegate tests nothing); with fusions=elementwise, no
    op of another family (a DEQUANTIZE of constants they read joins them)."""
    if ONLY or GRAPHS < CI_GRAPHS:
        pytest.skip(f"checked on sets of {CI_GRAPHS} graphs or more")
    missing = CLAIMED_OPS - claimed_ops(fuzz_manifest, fuzz_results("default"))
    assert not missing, f"no graph of seed {SEED} got {sorted(missing)} claimed"
    # A DEQUANTIZE of a float16 constant joins the elementwise ops reading it.
    elementwise = set(models.CLAIMABLE_OPS + models.INT8_OPS) | {"DEQUANTIZE"}
    extra = claimed_ops(fuzz_manifest, fuzz_results("elementwise")) - elementwise
    assert not extra, f"fusions=elementwise claimed {sorted(extra)}"
