"""The test harness itself (no runtime, no library): output comparison, counting
claimed nodes from op details, and the planner replica behind expect_claimed."""
import math

import numpy as np
import pytest

from models import plan
from worker import compare, partition_info


# --- compare ---

def test_compare_identical_and_empty():
    a = np.array([1.0, -2.0, np.nan, np.inf], np.float32)
    assert compare(a, a.copy()) == (0.0, 0.0)
    assert compare(np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32)) == (0.0, 0.0)


def test_compare_relative_to_largest_reference():
    ref = np.array([4.0, 1.0], np.float32)
    y = np.array([4.0, 1.5], np.float32)
    assert compare(y, ref) == (0.5, 0.125)


@pytest.mark.parametrize("y,ref", [([np.nan, 1.0], [0.0, 1.0]), ([np.inf, 1.0], [2.0, 1.0]),
                                   ([1.0, 0.0], [0.0, 0.0])])
def test_compare_mismatches_without_scale_are_infinite(y, ref):
    assert math.isinf(compare(np.array(y, np.float32), np.array(ref, np.float32))[1])


def test_compare_shape_mismatch():
    with pytest.raises(AssertionError):
        compare(np.zeros(3, np.float32), np.zeros(4, np.float32))


# --- partition_info, on op details as tflite-runtime 2.14 reported them with XNNPACK ---

def _op(index, name, inputs, outputs):
    return {"index": index, "op_name": name, "inputs": np.array(inputs), "outputs": np.array(outputs)}


REF_OPS = [_op(0, "EXP", [0], [6]), _op(1, "MUL", [6, 1], [7]), _op(2, "SUB", [7, 5], [8]),
           _op(3, "TANH", [8], [9]), _op(4, "ADD", [9, 3], [10]), _op(5, "RESHAPE", [10, 2], [11]),
           _op(6, "ABS", [11], [12]), _op(7, "MUL", [12, 4], [13])]


def test_partition_info_walks_between_boundaries():
    delegated = REF_OPS + [_op(8, "DELEGATE", [1, 2, 3, 4, 5, 6], [7, 13])]
    assert partition_info(REF_OPS, delegated) == [[1, 2, 3, 4, 5, 6, 7]]


def test_partition_info_two_partitions_and_none():
    delegated = REF_OPS + [_op(8, "DELEGATE", [0, 1, 5], [8]), _op(9, "DELEGATE", [11, 4], [13])]
    assert partition_info(REF_OPS, delegated) == [[0, 1, 2], [6, 7]]
    assert partition_info(REF_OPS, REF_OPS) == []


# --- plan, the replica of the delegate's planner ---

def _node(op, inputs, outputs, act="NONE", float32=True):
    return {"op": op, "act": act, "float32": float32, "inputs": inputs, "outputs": outputs}


S = (1, 8)


def test_plan_chain_and_min_nodes():
    nodes = [_node("ADD", [0, 1], [2]), _node("TANH", [2], [3]), _node("SOFTMAX", [3], [4]),
             _node("EXP", [4], [5])]
    shapes = {t: S for t in range(6)}
    assert plan(nodes, shapes) == []  # by default a pair saves too little
    assert plan(nodes, shapes, min_nodes=2) == [[0, 1]]
    assert plan(nodes, shapes, min_nodes=1) == [[0, 1], [3]]


def test_plan_keeps_groups_convex():
    # TANH -> MUL; TANH -> SOFTMAX; ADD(MUL, SOFTMAX): ADD joining would make a cycle
    nodes = [_node("TANH", [0], [2]), _node("SOFTMAX", [2], [3]), _node("MUL", [2, 1], [4]),
             _node("ADD", [4, 3], [5]), _node("ABS", [5], [6])]
    assert plan(nodes, {t: S for t in range(7)}, min_nodes=2) == [[0, 2], [3, 4]]


def test_plan_splits_on_output_shape_and_skips_unsupported():
    nodes = [_node("MUL", [0, 1], [2]), _node("TANH", [2], [3]), _node("MUL", [3, 4], [5]),
             _node("ABS", [5], [6]), _node("ADD", [6, 6], [7], act="TANH"),
             _node("ADD", [6, 6], [8], float32=False)]
    shapes = {0: (1, 1, 8), 1: (1, 1, 8), 2: (1, 1, 8), 3: (1, 1, 8), 4: (1, 4, 1),
              5: (1, 4, 8), 6: (1, 4, 8), 7: (1, 4, 8), 8: (1, 4, 8)}
    assert plan(nodes, shapes, min_nodes=2) == [[0, 1], [2, 3]]


def test_plan_merges_branches():
    nodes = [_node("TANH", [0], [1]), _node("EXP", [1], [2]), _node("MUL", [1, 9], [3]),
             _node("ADD", [2, 3], [4])]
    assert plan(nodes, {t: S for t in (0, 1, 2, 3, 4, 9)}) == [[0, 1, 2, 3]]


# --- anchors and folded pads (fusions=all) ---

ALL = ("elementwise", "conv", "fully_connected")
X4, P4, Y4 = (1, 8, 8, 4), (1, 9, 9, 4), (1, 4, 4, 4)


def _pad(inp, out, pads=(0, 0, 1, 0, 1, 0, 0, 0)):
    return dict(_node("PAD", [inp, 90], [out], float32=False), pads=list(pads), f32_data=True,
                const=[False, True])


def _conv(inp, out, op="CONV_2D", const=True):
    return dict(_node(op, [inp, 91, 92], [out]), const=[False, const, True])


def test_plan_folds_a_pad_into_its_convolution_and_anchors_the_epilogue():
    nodes = [_pad(0, 1), _conv(1, 2), _node("RELU", [2], [3]), _node("MUL", [3, 2], [4])]
    shapes = {0: X4, 1: P4, 2: Y4, 3: Y4, 4: Y4}
    assert plan(nodes, shapes) == []
    assert plan(nodes, shapes, min_nodes=2) == [[2, 3]]
    assert plan(nodes, shapes, families=ALL) == [[0, 1, 2, 3]]
    assert plan(nodes, shapes, families=("conv",)) == [[0, 1]]


def test_plan_pad_with_another_reader_or_of_channels_is_not_folded():
    nodes = [_pad(0, 1), _conv(1, 2, "DEPTHWISE_CONV_2D"), _node("ABS", [1], [3])]
    shapes = {0: X4, 1: P4, 2: Y4, 3: P4}
    assert plan(nodes, shapes, families=ALL) == [[1]]
    nodes = [_pad(0, 1, (0, 0, 1, 0, 1, 0, 0, 1)), _conv(1, 2)]
    assert plan(nodes, shapes, families=ALL) == [[1]]


def test_plan_anchor_input_stays_outside_its_group():
    # TANH feeds the convolution; ADD reads both, joins the convolution's group only;
    # TANH alone is kept: it feeds an anchored group
    nodes = [_node("TANH", [0], [1]), _conv(1, 2), _node("ADD", [2, 1], [3])]
    shapes = {0: X4, 1: X4, 2: X4, 3: X4}
    assert plan(nodes, shapes, families=ALL) == [[0], [1, 2]]
    assert plan(nodes, shapes) == []  # TANH, ADD: one group would not be convex


def test_plan_folds_a_channel_scale_into_the_convolution_it_feeds():
    # MUL by a per-channel vector, then a 1x1 conv: one group when the weights are smaller
    nodes = [_node("MUL", [5, 0], [1]), _conv(1, 2)]
    for w, groups in (((4, 1, 1, 4), [[0, 1]]), ((300, 1, 1, 4), [[0], [1]])):  # alone, it feeds an anchor
        shapes = {0: X4, 5: (4,), 1: X4, 2: X4[:3] + (w[0],), 91: w, 92: (w[0],)}
        assert plan(nodes, shapes, families=ALL) == groups


def test_plan_anchor_needs_constant_weights_and_its_family():
    nodes = [_conv(0, 1, const=False), _node("EXP", [1], [2])]
    shapes = {0: X4, 1: X4, 2: X4}
    assert plan(nodes, shapes, families=ALL) == []
    nodes = [_conv(0, 1, op="FULLY_CONNECTED"), _node("EXP", [1], [2]), _node("ABS", [2], [3])]
    assert plan(nodes, {t: (4, 8) for t in range(4)}, families=("elementwise", "conv"), min_nodes=2) == [[1, 2]]


def test_plan_pools_and_spatial_mean_are_anchors():
    pool = dict(_node("MAX_POOL_2D", [1], [2], float32=True), f32_data=True, const=[False])
    mean = dict(_node("MEAN", [2, 93], [3], float32=False), f32_data=True, const=[False, True], axes=[1, -2])
    nodes = [_pad(0, 1), pool, mean, _node("EXP", [3], [4])]
    shapes = {0: X4, 1: P4, 2: Y4, 3: (1, 4), 4: (1, 4)}
    assert plan(nodes, shapes) == []
    assert plan(nodes, shapes, families=ALL) == [[0, 1], [2, 3]]
    channel_mean = dict(mean, axes=[3])
    assert plan([_pad(0, 1), pool, channel_mean, _node("EXP", [3], [4])], shapes, families=ALL) == [[0, 1]]


def test_plan_keeps_a_lone_elementwise_group_next_to_an_anchor():
    # MUL reads the convolution's output but cannot join its group (SOFTMAX between)
    nodes = [_conv(0, 1), _node("SOFTMAX", [1], [2]), _node("MUL", [1, 2], [3]), _node("TANH", [0], [4])]
    shapes = {0: X4, 1: X4, 2: X4, 3: X4, 4: X4}
    assert plan(nodes, shapes, families=ALL) == [[0], [2]]
    assert plan(nodes, shapes) == []
