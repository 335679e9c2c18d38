"""The test harness itself (no runtime, no library): output comparison and counting
claimed nodes from op details."""
import math

import numpy as np
import pytest

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
