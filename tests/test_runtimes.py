"""Every model in every runtime: fusedelegate claims what its own plan (plan_file) says,
as many nodes in as many fused groups as the spec states by hand, and its outputs match
the runtime's own builtin kernels (3 invokes, then batch resizes)."""
import pytest

import models
from checks import accuracy_misses, check_claims, check_result, claimed_nodes, counts, cpu_has

RUNTIMES = ("tf", "tflite", "litert")
MODEL_NAMES = models.model_names()

# Option variants run on one runtime over all models:
# (id, options, hand counts: "default" (every family, as fusions=all), "elementwise" or None,
# CPU flag needed).
VARIANT_RUNTIME = "litert"
VARIANTS = [
    ("isa-scalar", {"isa": "scalar"}, "default", None),
    ("isa-avx2", {"isa": "avx2"}, "default", "avx2"),  # auto picks AVX-512 where it can
    ("threads-2", {"num_threads": 2}, "default", None),
    ("fusions-elementwise", {"fusions": "elementwise"}, "elementwise", None),
    ("min-nodes-1", {"min_nodes_per_partition": 1}, None, None),  # no hand count: see below
    ("fusions-all", {"fusions": "all"}, "default", None),  # the default, named
]


@pytest.mark.parametrize("runtime,name", [(r, n) for r in RUNTIMES for n in MODEL_NAMES],
                         ids=[f"{r}-{n}" for r in RUNTIMES for n in MODEL_NAMES])
def test_model(worker_results, manifest, runtime, name):
    check_in(runtime, worker_results.get(runtime)[name], manifest[name], counts(manifest[name]))


def check_in(runtime, res, entry, expect):
    """check_result, but where tflite-runtime 2.14 rounds an int8 op its own way (the
    spec's steps_2_14): its outputs within that many quantization steps."""
    steps = entry.get("steps_2_14", 0) if runtime == "tflite" else 0
    if not steps:
        check_result(res, entry, expect)
        return
    if res.get("skipped"):
        pytest.skip(res["skipped"])
    assert not res.get("error"), res.get("traceback") or res["error"]
    check_claims(res, entry, expect)
    assert not accuracy_misses(res, 0.0, steps), accuracy_misses(res, 0.0, steps)


@pytest.mark.parametrize("variant,options,hand_counts,cpu_flag", VARIANTS, ids=[v[0] for v in VARIANTS])
@pytest.mark.parametrize("name", MODEL_NAMES)
def test_option_variant(worker_results, manifest, name, variant, options, hand_counts, cpu_flag):
    if cpu_flag and not cpu_has(cpu_flag):
        pytest.skip(f"this CPU has no {cpu_flag}")
    entry = manifest[name]
    expect = counts(entry, hand_counts) if hand_counts else None
    check_result(worker_results.get(VARIANT_RUNTIME, options)[name], entry, expect)


INT8_NAMES = models.int8_model_names()
# Every runtime with the CPU's own kernels; the other kernels (no runtime changes them) in one.
INT8_CONV_VARIANTS = [(r, {}) for r in RUNTIMES] + [
    (VARIANT_RUNTIME, v) for v in ({"isa": "scalar"}, {"isa": "avx2"}, {"num_threads": 2})]


@pytest.mark.parametrize("name", INT8_NAMES)
@pytest.mark.parametrize("runtime,variant", INT8_CONV_VARIANTS,
                         ids=[f"{r}-{'-'.join(map(str, v.values())) or 'auto'}" for r, v in INT8_CONV_VARIANTS])
def test_int8_conv_family(worker_results, manifest, runtime, variant, name):
    """fusions "all,int8_conv" claims int8 CONV_2D too: exact against every runtime's builtin kernels."""
    if variant.get("isa") == "avx2" and not cpu_has("avx2"):
        pytest.skip("this CPU has no avx2")
    results = worker_results.get(runtime, {"fusions": "all,int8_conv", **variant}, names=INT8_NAMES)
    check_in(runtime, results[name], manifest[name], counts(manifest[name], "int8_conv"))


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_min_nodes_1_claims_what_the_default_claims(worker_results, manifest, name):
    """min_nodes_per_partition=1 claims every node the default claims, and no node is left
    by the size policy (a lone anchor that saves nothing may be)."""
    res = worker_results.get(VARIANT_RUNTIME, {"min_nodes_per_partition": 1})[name]
    default = worker_results.get(VARIANT_RUNTIME)[name]
    if res.get("skipped") or default.get("skipped"):
        pytest.skip(res.get("skipped") or default["skipped"])
    assert res["claimed"] >= manifest[name]["expect_claimed"]
    assert set(claimed_nodes(default)) <= set(claimed_nodes(res)), (default["partition_nodes"], res["partition_nodes"])
    assert not [n for n in res["plan"]["nodes"] if "min_nodes_per_partition" in n["reason"]], res["plan"]["nodes"]


def test_manifest_lists_every_model(manifest):
    assert list(manifest) == MODEL_NAMES

