"""FULLY_CONNECTED anchors with their elementwise epilogue (family
fully_connected, on by default): claimed as planned, outputs match the runtime's own kernels,
resizes re-bind the GEMM."""
import pytest

from checks import check_claims, check_invokes, counts
from procs import convert_and_compare

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
    for key, r in res.get("resize", {}).items():
        if r.get("skipped"):
            continue
        assert not r["error"], f"resize {key}: {r['error']}"
        assert r["output_shapes"] == r["reference_output_shapes"]
        check_claims(r, entry, counts(entry))
        check_invokes(r["invokes"], TOL, f"resize {key}, invoke")


def test_fully_connected_family_off_claims_no_fully_connected(worker_results, manifest):
    results = worker_results.get("litert", {"fusions": "elementwise"}, names=MODELS)
    for name in MODELS:
        entry, res = manifest[name], results[name]
        assert res["claimed"] == entry["expect_claimed_elementwise"] < entry["expect_claimed"]
        check_claims(res, entry, counts(entry, "elementwise"))


HYBRID_DENSE = """
import sys, numpy as np, tensorflow as tf
rng = np.random.default_rng(7)
inp = tf.keras.Input((5, 37), batch_size=3)
y = tf.keras.layers.Dense(50, activation="relu")(inp)
m = tf.keras.Model(inp, tf.keras.layers.Dense(24)(y))
for w in m.weights:
    w.assign(rng.standard_normal(w.shape).astype(np.float32) * 0.3)
c = tf.lite.TFLiteConverter.from_keras_model(m)
c.optimizations = [tf.lite.Optimize.DEFAULT]
if sys.argv[2] == "per_tensor":
    c._experimental_disable_per_channel_quantization_for_dense_layers = True
open(sys.argv[1], "wb").write(c.convert())
"""


@pytest.mark.parametrize("scales", ["per_channel", "per_tensor"])
def test_dynamic_range_fully_connected_equals_the_hybrid_kernel_bit_for_bit(tmp_path, scales):
    """Keras Dense layers (a rank-3 input, RELU fused) with int8 weights, a scale per output
    channel or one for all: claimed, and their outputs equal LiteRT's builtin hybrid kernel's
    to the bit (the scales multiplied first, then corr * scale + bias, two roundings)."""
    ops, claimed, differ, size = convert_and_compare(tmp_path / f"hybrid_dense_{scales}.tflite", HYBRID_DENSE, scales)
    assert "DEQUANTIZE" not in ops and ops.count("FULLY_CONNECTED") == 2, ops
    assert claimed == len(ops), f"fusedelegate claimed {claimed} of {ops}"
    assert differ == 0, f"{differ} of {size} outputs differ from the builtin kernel's"
