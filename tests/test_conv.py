"""CONV_2D and DEPTHWISE_CONV_2D anchors with their elementwise epilogues, and
PAD / PADV2 / MIRROR_PAD folded into them (opt-in family conv: fusions=all):
claimed as planned in every runtime, outputs match the runtime's own kernels,
batch resizes re-bind the convolution; with default options no convolution
or pad is claimed."""
import pytest

import models
from checks import check_claims, check_invokes, check_result, cpu_has, tolerance

MODELS = [s.name for s in models.conv_specs()]
RUNTIMES = ["tf", "tflite", "litert"]
CONV_FAMILY_OPS = ("CONV_2D", "DEPTHWISE_CONV_2D") + models.PAD_OPS


def _op(label):
    return label.split()[0].split("+")[0]


def _claimed(res):
    return sorted(n for p in res["partition_nodes"] for n in p)


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("name", MODELS)
def test_conv_with_epilogue(worker_results, manifest, runtime, name):
    entry = manifest[name]
    res = worker_results.get(runtime, {"fusions": "all"}, names=MODELS)[name]
    if not res.get("skipped") and not res.get("error"):
        assert res["claimed"] == entry["expect_claimed_all"], (res["partition_nodes"], entry["ops"])
        # Every convolution is claimed, and every pad whose one reader is a convolution.
        claimed = _claimed(res)
        for i, label in enumerate(entry["ops"]):
            if _op(label) in ("CONV_2D", "DEPTHWISE_CONV_2D"):
                assert i in claimed, f"{i}:{label} not claimed; claimed {claimed} of {entry['ops']}"
    check_result(res, entry, entry["groups_all"], entry["partitions_exact_all"])


# The conv micro-kernels per ISA and the thread split, on one runtime.
VARIANTS = [
    ("isa-scalar", {"isa": "scalar"}, None),
    ("isa-avx2", {"isa": "avx2"}, "avx2"),
    ("isa-avx512", {"isa": "avx512"}, "avx512f"),
    ("threads-2", {"num_threads": 2}, None),
    ("elementwise-conv", {"fusions": "elementwise,conv"}, None),  # no FULLY_CONNECTED in these models
]


@pytest.mark.parametrize("variant,options,cpu_flag", VARIANTS, ids=[v[0] for v in VARIANTS])
@pytest.mark.parametrize("name", MODELS)
def test_conv_option_variant(worker_results, manifest, name, variant, options, cpu_flag):
    if cpu_flag and not cpu_has(cpu_flag):
        pytest.skip(f"this CPU has no {cpu_flag}")
    entry = manifest[name]
    res = worker_results.get("litert", {"fusions": "all", **options}, names=MODELS)[name]
    check_result(res, entry, entry["groups_all"], entry["partitions_exact_all"])


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_conv_is_off_by_default(worker_results, manifest, runtime):
    results = worker_results.get(runtime, names=MODELS)
    for name in MODELS:
        entry, res = manifest[name], results[name]
        if res.get("skipped"):
            continue
        assert not res.get("error"), (name, res.get("traceback") or res["error"])
        assert res["claimed"] == entry["expect_claimed"] < entry["expect_claimed_all"], (name, res["partition_nodes"])
        claimed = _claimed(res)
        assert not [i for i in claimed if _op(entry["ops"][i]) in CONV_FAMILY_OPS], (name, claimed, entry["ops"])
        check_claims(res, entry, entry["groups"])
        check_invokes(res["invokes"], tolerance(entry), f"{name}: invoke")


def test_every_conv_model_has_a_convolution(manifest):
    for name in MODELS:
        assert any(_op(o) in ("CONV_2D", "DEPTHWISE_CONV_2D") for o in manifest[name]["ops"]), name
