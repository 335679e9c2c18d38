"""Shapes set at run time past what a model's signature promises: a clear error, never a
wrong shape (docs/ops.md, "Shapes set at run time"). Models of their own, in LiteRT."""
from procs import require_runtime, run_python

# A RESHAPE to a shape computed at run time (SHAPE, STRIDED_SLICE, PACK): [batch, -1] of a
# [None, 4, 8] input. The converter gives its output the signature [-1, -1] (then it is left);
# written as [-1, 32], which axis 1 fixed at 4 makes true, the delegate reshapes by it.
CONVERT = """
import sys, tensorflow as tf
from tensorflow.lite.tools import flatbuffer_utils as fbu
f = tf.function(lambda x: tf.tanh(tf.reshape(x, [tf.shape(x)[0], -1]) * 2.0 + 1.0),
                input_signature=[tf.TensorSpec([None, 4, 8], tf.float32)], autograph=False)
m = fbu.read_model_from_bytearray(bytearray(
    tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()]).convert()))
g = m.subgraphs[0]
reshape = next(op for op in g.operators if m.operatorCodes[op.opcodeIndex].builtinCode == 22)
g.tensors[reshape.outputs[0]].shape, g.tensors[reshape.outputs[0]].shapeSignature = [1, 32], [-1, 32]
open(sys.argv[1], "wb").write(bytes(fbu.convert_object_to_bytearray(m)))
"""

# Resized within the signature ([3, 4, 8]), then past it ([4, 5, 8]: axis 1 is fixed at 4,
# so the signature's [-1, 32] gives [5, 32] where the computed shape is [4, 40]).
RUN = """
import sys, numpy as np, fusedelegate
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from fusedelegate._inspect import claimed_node_count
def make(delegates):
    return Interpreter(model_path=sys.argv[1], experimental_delegates=delegates,
                       experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
ref, fd = make([]), make([fusedelegate.load()])
for shape in ([3, 4, 8], [4, 5, 8]):
    x = np.random.default_rng(1).uniform(-1, 1, shape).astype(np.float32)
    outs = []
    for it in (ref, fd):
        it.resize_tensor_input(it.get_input_details()[0]["index"], shape)
        it.allocate_tensors()
        it.set_tensor(it.get_input_details()[0]["index"], x)
        try:
            it.invoke()
            outs.append(it.get_tensor(it.get_output_details()[0]["index"]))
        except RuntimeError as e:
            outs.append(str(e).replace(chr(10), " "))
    r, d = outs
    same = not isinstance(d, str) and r.shape == d.shape and float(np.abs(r - d).max()) < 1e-6
    print(shape, list(r.shape), claimed_node_count(fd), "same" if same else d)
"""


def test_a_computed_reshape_resized_past_its_signature_is_an_error(tmp_path):
    require_runtime("tf")
    require_runtime("litert")
    model = tmp_path / "computed_reshape.tflite"
    proc = run_python(["-c", CONVERT, str(model)], timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    proc = run_python(["-c", RUN, str(model)], timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    within, past = proc.stdout.strip().splitlines()[-2:]
    assert within.startswith("[3, 4, 8] [3, 32]") and within.endswith("same"), within
    claimed = int(within.split()[-2])
    assert claimed >= 2, f"the RESHAPE and what reads it were not claimed: {within}"
    assert past.startswith("[4, 5, 8] [4, 40]"), past
    assert "resized past its signature" in past, past
