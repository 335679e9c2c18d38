"""The TensorFlow front end (fusedelegate.tf): the Grappler pass and the fused
op, against TensorFlow's own execution of the same models. The scenarios run
in one subprocess (tf_worker.py; TensorFlow is imported once, and a library
the pass cannot load must not take pytest down). Skipped when
libfusedelegate_tf.so was not built (no tensorflow where the package was),
unless FUSEDELEGATE_REQUIRE_TF=1 (scripts/test.sh), which fails instead."""
import json
import os
from pathlib import Path

import pytest

import fusedelegate.tf as fdt
from procs import TESTS, require_runtime, run_python, tail

MAX_REL = 1e-4


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    require_runtime("tf")
    if not os.path.exists(fdt.library_path()):
        why = f"{fdt.library_path()} not built (tensorflow was not importable at build time)"
        if os.environ.get("FUSEDELEGATE_REQUIRE_TF") == "1":  # scripts/test.sh: CI builds it
            pytest.fail(why, pytrace=False)
        pytest.skip(why)
    proc = run_python([str(TESTS / "tf_worker.py"), str(tmp_path_factory.mktemp("tf"))],
                      env={"TF_CPP_MIN_LOG_LEVEL": "2"})
    if proc.returncode != 0:
        pytest.fail(f"tf_worker.py failed:\n{tail(proc.stderr)}", pytrace=False)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def scenario(results, name):
    r = results[name]
    assert "error" not in r, r["error"]
    return r


def test_keras_block_net_fuses_and_matches_tf(results):
    r = scenario(results, "keras_block")
    assert r["batch2"]["fused_ops"] >= 1, r  # the optimized graph holds fused ops
    assert r["batch2"]["tf_compute_left"] == [], r  # and every conv, activation and the head ran in them
    assert r["batch2"]["max_rel"] <= MAX_REL, r


def test_translated_ops_fuse_and_match_tf(results):
    r = scenario(results, "op_coverage")
    assert r["fused_ops"] >= 1, r
    claimed = {"Conv2D", "_FusedConv2D", "Elu", "LeakyRelu", "FusedBatchNormV3", "MaxPool", "AvgPool", "MatMul",
               "_FusedMatMul", "Softmax", "Pad", "Transpose", "BatchMatMulV2", "ConcatV2", "Sigmoid", "Tanh", "Softplus"}
    assert not claimed & set(r["tf_compute_left"]), r
    assert r["max_rel"] <= MAX_REL, r


def test_transformer_block_with_computed_reshapes(results):
    r = scenario(results, "transformer_block")
    assert r["fused_ops"] >= 1, r
    claimed = {"MatMul", "_FusedMatMul", "BatchMatMulV2", "Softmax", "Tanh", "Rsqrt", "Mean"}
    assert not claimed & set(r["tf_compute_left"]), r
    assert r["max_rel"] <= MAX_REL, r


@pytest.mark.parametrize("form", ["erfc", "erf"])
def test_exact_gelu_is_one_fused_op(results, form):
    r = scenario(results, "gelu_forms")[form]
    assert r["fused_ops"] == 1 and r["tf_compute_left"] == [], r
    assert r["max_rel"] <= MAX_REL, r


def test_keras_hard_swish_is_one_op(results):
    r = scenario(results, "hard_swish")
    assert r["fused_ops"] == 1 and r["hard_swish"] and r["tf_compute_left"] == [], r
    assert r["max_rel"] <= MAX_REL, r


@pytest.mark.parametrize("case", ["batch1", "batch3", "fixed_batch1", "fixed_batch3", "heads_batch1", "heads_batch3"])
def test_dense_on_rank_3_is_one_fully_connected(results, case):
    r = scenario(results, "tensordot")[case]
    if case != "batch3":  # the graph TF ran is collected on its first call
        assert r["fused_ops"] == 1 and r["reshapes"] == 0, r
        assert r["outputs"] == 1 or case == "batch1", r  # the model's output alone
        assert r["tf_ops_left"] == [] and r["tf_reshapes"] == [], r
    assert r["max_rel"] <= MAX_REL, r


def test_corrupt_partition_is_a_clear_error(results):
    r = scenario(results, "bad_partition")
    assert r["raised"] and "FdFusedPartition" in r["raised"], r


def test_saved_model_with_two_threads(results):
    r = scenario(results, "saved_model")
    assert r["fused_ops"] >= 1 and r["tf_compute_left"] == [], r
    assert r["max_rel"] <= MAX_REL, r


def test_concurrent_calls(results):
    r = scenario(results, "concurrent_calls")
    assert r["runs"] == 4 and r["max_rel"] <= MAX_REL, r


def test_unknown_batch_binds_again(results):
    r = scenario(results, "keras_block")
    assert r["batch5"]["shape"] == [5, 10]
    assert r["batch0"]["shape"] == r["batch0"]["tf_shape"], r  # an empty batch: what TF gives
    assert r["batch5"]["max_rel"] <= MAX_REL, r


def test_variable_weights_are_packed_again_when_assigned(results):
    r = scenario(results, "variable_update")
    assert r["fused_ops"] >= 1, r
    assert r["changed"], r  # the assignment reached the output
    assert r["first_max_rel"] <= MAX_REL and r["second_max_rel"] <= MAX_REL, r


def test_batch_norms_on_variables_fold_and_follow_assignments(results):
    r = scenario(results, "batch_norm_variables")
    assert r["fused_ops"] >= 1, r
    assert r["tf_compute_left"] == [], r  # the batch norms' vector math ran in the fused op too
    assert r["views_of_variables"] == [], r  # it reads the variables, not TF's reshapes of them
    assert r["changed"], r  # new statistics and scale reached the output
    assert r["first_max_rel"] <= MAX_REL and r["second_max_rel"] <= MAX_REL, r
    assert r["shared"]["fused_ops"] >= 2 and r["shared"]["max_rel"] <= MAX_REL, r  # weight math read by two


def test_gradients_through_fused_forward(results):
    r = scenario(results, "gradients")
    assert r["fused_ops"] >= 1, r
    assert r["loss_max_rel"] <= MAX_REL and r["grad_max_rel"] <= MAX_REL, r


def test_nothing_to_fuse_is_unchanged(results):
    r = scenario(results, "nothing_to_fuse")
    assert r["fused_ops"] == 0 and r["equal"], r


def test_disable(results):
    r = scenario(results, "disable")
    assert r["was_enabled"] and not r["is_enabled"], r
    assert r["fused_on"] >= 1 and r["fused_off"] == 0 and r["max_rel"] <= MAX_REL, r


def test_tf1_frozen_graph_in_session(results):
    r = scenario(results, "session")
    assert r["fused_ops"] >= 1 and r["tf_compute_left"] == [], r
    assert r["max_rel"] <= MAX_REL, r


def test_only_cpu_placed_nodes_are_fused(results):
    """The same frozen graph, its nodes unplaced, on the CPU, or on a GPU (no GPU here:
    Grappler alone, no placer): only the GPU-placed graph keeps its own ops."""
    r = scenario(results, "device_filter")
    for device in ("unplaced", "/device:CPU:0"):
        assert "FdFusedPartition" in r[device] and "Conv2D" not in r[device], r
    assert "FdFusedPartition" not in r["/device:GPU:0"] and "Conv2D" in r["/device:GPU:0"], r


def test_version_mismatch_names_both_versions(results):
    r = scenario(results, "version_mismatch")
    assert r["raised"] and "was built against TensorFlow 9" in r["raised"], r
    assert "but TensorFlow" in r["raised"] and "installed" in r["raised"], r


def test_version_check_reads_tf_and_pip_spellings_alike():
    """The library records tf.__version__ ("2.16.0-rc0"); the check reads the installed version
    from the distribution's metadata ("2.16.0rc0"): the same release either way."""
    assert fdt.same_version("2.21.0", "2.21.0")
    assert fdt.same_version("2.16.0-rc0", "2.16.0rc0")
    assert fdt.same_version("2.22.0-dev20250101", "2.22.0.dev20250101")
    assert not fdt.same_version("2.21.0", "2.21.1")
    assert not fdt.same_version("2.16.0-rc0", "2.16.0")


def test_a_view_read_as_data_and_as_weights_keeps_its_node(results):
    r = scenario(results, "view_read_as_data")
    assert r["fused_ops"] >= 1, r  # the rewrite's graph is valid (else TF keeps the graph unfused)
    assert r["max_rel"] <= MAX_REL, r


def test_small_mobilenet_v2_fuses_every_convolution(results):
    r = scenario(results, "mobilenet_v2")
    assert r["fused_ops"] >= 1, r
    assert not {"Conv2D", "_FusedConv2D", "DepthwiseConv2dNative", "Relu6", "Mul", "AddV2"} & set(r["tf_compute_left"]), r
    assert r["max_rel"] <= MAX_REL, r
