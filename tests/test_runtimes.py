"""Every model in every runtime: fusedelegate claims exactly the planned nodes and its
outputs match the runtime's own builtin kernels (3 invokes, then batch resizes)."""
import pytest

import models
from checks import check_result, cpu_has

RUNTIMES = ("tf", "tflite", "litert")
MODEL_NAMES = models.model_names()

# Option variants run on one runtime over all models:
# (id, options, manifest key of the expected groups, CPU flag needed).
VARIANT_RUNTIME = "litert"
VARIANTS = [
    ("isa-scalar", {"isa": "scalar"}, "groups", None),
    ("isa-avx2", {"isa": "avx2"}, "groups", "avx2"),  # auto picks AVX-512 where it can
    ("threads-2", {"num_threads": 2}, "groups", None),
    ("fusions-elementwise", {"fusions": "elementwise"}, "groups", None),
    ("min-nodes-1", {"min_nodes_per_partition": 1}, "groups_min1", None),
    ("fusions-all", {"fusions": "all"}, "groups_all", None),  # anchors and pads too
]


@pytest.mark.parametrize("runtime,name", [(r, n) for r in RUNTIMES for n in MODEL_NAMES],
                         ids=[f"{r}-{n}" for r in RUNTIMES for n in MODEL_NAMES])
def test_model(worker_results, manifest, runtime, name):
    entry = manifest[name]
    check_result(worker_results.get(runtime)[name], entry, entry["groups"])


@pytest.mark.parametrize("variant,options,groups_key,cpu_flag", VARIANTS, ids=[v[0] for v in VARIANTS])
@pytest.mark.parametrize("name", MODEL_NAMES)
def test_option_variant(worker_results, manifest, name, variant, options, groups_key, cpu_flag):
    if cpu_flag and not cpu_has(cpu_flag):
        pytest.skip(f"this CPU has no {cpu_flag}")
    entry = manifest[name]
    exact = entry["partitions_exact_all"] if groups_key == "groups_all" else None
    check_result(worker_results.get(VARIANT_RUNTIME, options)[name], entry, entry[groups_key], exact)


def test_manifest_lists_every_model(manifest):
    assert list(manifest) == MODEL_NAMES

