"""FULLY_CONNECTED anchors with their elementwise epilogue (family
fully_connected, on by default): claimed as planned, outputs match the runtime's own kernels,
resizes re-bind the GEMM."""
import pytest

from checks import check_claims, check_invokes, counts

MODELS = ["fc_gelu", "fc_mlp", "fc_nobias", "fc_large_dynamic", "fc_huge_weights", "fc_dynamic_int8"]
TOL = 1e-5  # GEMM accumulation order differs from the reference kernels


@pytest.mark.parametrize("runtime", ["tf", "tflite", "litert"])
@pytest.mark.parametrize("name", MODELS)
def test_fully_connected_with_epilogue(worker_results, manifest, runtime, name):
    entry = manifest[name]
    res = worker_results.get(runtime, names=MODELS)[name]
    if res.get("skipped"):
        pytest.skip(res["skipped"])
    assert not res.get("error"), res.get("traceback") or res["error"]
    check_claims(res, entry, counts(entry))
    check_invokes(res["invokes"], TOL, "invoke")
    for batch, r in res.get("resize", {}).items():
        if r.get("skipped"):
            continue
        assert not r["error"], f"batch {batch}: {r['error']}"
        assert r["output_shapes"] == r["reference_output_shapes"]
        check_claims(r, entry, counts(entry))
        check_invokes(r["invokes"], TOL, f"batch {batch}, invoke")


def test_fully_connected_family_off_claims_no_fully_connected(worker_results, manifest):
    results = worker_results.get("litert", {"fusions": "elementwise"}, names=MODELS)
    for name in MODELS:
        entry, res = manifest[name], results[name]
        assert res["claimed"] == entry["expect_claimed_elementwise"] < entry["expect_claimed"]
        check_claims(res, entry, counts(entry, "elementwise"))
