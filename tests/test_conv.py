"""CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV anchors with their elementwise epilogues, and
PAD / PADV2 / MIRROR_PAD folded into them (family conv, on by default):
claimed as planned in every runtime, outputs match the runtime's own kernels,
batch resizes re-bind the convolution; with fusions=elementwise no convolution
or pad is claimed."""
import json

import pytest

import models
from procs import require_runtime, run_python
from checks import (KERNEL_VARIANTS, check_family_off, check_ops_claimed, check_result, check_variant, counts,
                    op_of)

MODELS = [s.name for s in models.conv_specs()]
RUNTIMES = ["tf", "tflite", "litert"]
CONV_ANCHORS = ("CONV_2D", "DEPTHWISE_CONV_2D") + models.RESIZE_OPS + models.TRANSPOSE_CONV_OPS
CONV_FAMILY_OPS = CONV_ANCHORS + ("CONCATENATION",) + models.PAD_OPS


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("name", MODELS)
def test_conv_with_epilogue(worker_results, manifest, runtime, name):
    entry = manifest[name]
    res = worker_results.get(runtime, names=MODELS)[name]
    if not res.get("skipped") and not res.get("error"):
        assert res["claimed"] == entry["expect_claimed"], (res["partition_nodes"], entry["ops"])
        check_ops_claimed(res, entry, CONV_ANCHORS)
    check_result(res, entry, counts(entry))


# The conv micro-kernels per ISA and the thread split, on one runtime.
VARIANTS = KERNEL_VARIANTS + [
    ("elementwise-conv", {"fusions": "elementwise,conv"}, None),  # no FULLY_CONNECTED in these models
]


@pytest.mark.parametrize("variant,options,cpu_flag", VARIANTS, ids=[v[0] for v in VARIANTS])
@pytest.mark.parametrize("name", MODELS)
def test_conv_option_variant(worker_results, manifest, name, variant, options, cpu_flag):
    check_variant(worker_results, manifest, MODELS, name, options, cpu_flag)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_conv_family_off_claims_no_convolution(worker_results, manifest, runtime):
    check_family_off(worker_results, manifest, MODELS, runtime, CONV_FAMILY_OPS)


def test_every_conv_model_has_a_convolution_or_a_resize(manifest):
    for name in MODELS:
        assert any(op_of(o) in CONV_ANCHORS for o in manifest[name]["ops"]), name


def profiled_programs(tmp_path, model, threads):
    """The delegate's programs (profile_file entries) after one invoke of `model` in LiteRT."""
    require_runtime("litert")
    profile = tmp_path / "profile.json"
    script = f"""
import numpy as np, fusedelegate
from ai_edge_litert.interpreter import Interpreter
d = fusedelegate.load(fusions="all", num_threads={threads}, profile_file={str(profile)!r})
it = Interpreter(model_path={str(model)!r}, num_threads={threads}, experimental_delegates=[d])
it.allocate_tensors()
it.invoke()
"""
    proc = run_python(["-c", script], timeout=120)
    assert proc.returncode == 0, proc.stderr
    return [p for part in json.loads(profile.read_text())["partitions"] for p in part["programs"]]


def test_squeeze_excite_gate_folds_into_the_project_conv(tmp_path, model_dir):
    """The gate's MUL runs inside the 1x1 project conv's program (its weights scaled), not as a pass."""
    ops = [p["ops"] for p in profiled_programs(tmp_path, model_dir / "squeeze_excite.tflite", 1)]
    assert "MUL+CONV_2D+ADD" in ops and "MUL" not in ops, ops


@pytest.mark.parametrize("threads", [1, 2])
def test_inverted_residual_runs_depth_first(tmp_path, model_dir, threads):
    """The blocks' programs run in strips (the profile says how tall); at two threads each thread
    takes half of the output rows, so strips are at most 28 of the 56 rows."""
    programs = profiled_programs(tmp_path, model_dir / "inverted_residual.tflite", threads)
    strips = [p.get("depth_first_strip_rows", 0) for p in programs]
    # Both blocks: expand, depthwise, project (and the next expand) in strips.
    assert sum(s > 0 for s in strips) >= 5 and all(0 < s <= 56 // threads for s in strips if s), programs
    if threads == 1:
        assert all(s < 56 for s in strips), programs


def test_transpose_conv_of_a_computed_output_shape_is_left_with_its_reason(worker_results, manifest):
    """With batch None the converter computes TRANSPOSE_CONV's output shape at run time: the
    plan leaves the layer and says why (the rest of the model runs as its spec states)."""
    name = "tconv_dynamic_batch"
    res, ops = worker_results.get("litert")[name], manifest[name]["ops"]
    node = next(n for n in res["plan"]["nodes"] if op_of(ops[n["id"]]) == "TRANSPOSE_CONV")
    assert node["partition"] < 0 and "output_shape is not a constant" in node["reason"], node
