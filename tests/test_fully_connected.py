"""FULLY_CONNECTED anchors with their elementwise epilogue (opt-in family:
fusions=all): claimed as planned, outputs match the runtime's own kernels,
resizes re-bind the GEMM."""
import pytest

from checks import check_claims, check_invokes, counts

MODELS = ["fc_gelu", "fc_mlp", "fc_nobias", "fc_large_dynamic", "fc_huge_weights"]
TOL = 1e-5  # GEMM accumulation order differs from the reference kernels


@pytest.mark.parametrize("runtime", ["tf", "tflite", "litert"])
@pytest.mark.parametrize("name", MODELS)
def test_fully_connected_with_epilogue(worker_results, manifest, runtime, name):
    entry = manifest[name]
    res = worker_results.get(runtime, {"fusions": "all"}, names=MODELS)[name]
    if res.get("skipped"):
        pytest.skip(res["skipped"])
    assert not res.get("error"), res.get("traceback") or res["error"]
    check_claims(res, entry, counts(entry, fusions_all=True))
    check_invokes(res["invokes"], TOL, "invoke")
    for batch, r in res.get("resize", {}).items():
        if r.get("skipped"):
            continue
        assert not r["error"], f"batch {batch}: {r['error']}"
        assert r["output_shapes"] == r["reference_output_shapes"]
        check_claims(r, entry, counts(entry, fusions_all=True))
        check_invokes(r["invokes"], TOL, f"batch {batch}, invoke")


def test_fully_connected_is_off_by_default(worker_results, manifest):
    for name in MODELS:
        res = worker_results.get("litert")[name]
        assert res["claimed"] == manifest[name]["expect_claimed"] < manifest[name]["expect_claimed_all"]
