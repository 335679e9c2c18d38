"""The q8 GEMM formula (delegate/kernels/q8_gemm.h) against ai-edge-litert's
builtin int8 kernels (no XNNPACK): FULLY_CONNECTED at batch 256 (ruy) and 1
(CustomGemv), and a 1x1 CONV_2D, per-channel weights, no activation. Counts
the outputs where each rounding (ruy's ties up, the reference's ties away)
differs from the runtime. Not a pytest test (builds models with TensorFlow,
then runs LiteRT in the same process, which works for these two):
    python tests/q8_gemm_formula_check.py
"""
import math

import numpy as np


def q8_multiplier(real):
    """TFLite's QuantizeMultiplier (kernels/q8_fixed_point.h)."""
    if real == 0:
        return 0, 0
    q, e = math.frexp(real)
    fixed = math.floor(q * 2**31 + 0.5)
    if fixed == 2**31:
        fixed, e = fixed // 2, e + 1
    return (0, 0) if e < -31 else (fixed, e)


def requantize(acc, m, e, ruy):
    """q8_gemm.h's requantize, in Python integers."""
    left, right = max(e, 0), max(-e, 0)
    s = ((acc << left) + 2**31) % 2**32 - 2**31
    h = (s * m + 2**30) >> 31
    if right == 0:
        return h
    half = 1 << (right - 1)
    return (h + half) >> right if ruy or h >= 0 else -((-h + half) >> right)


def convert(kind, k, n, batch):
    import tensorflow as tf
    if kind == "FULLY_CONNECTED":
        x = tf.keras.Input((k,), batch_size=batch)
        y = tf.keras.layers.Dense(n)(x)
    else:
        x = tf.keras.Input((16, 16, k), batch_size=batch)
        y = tf.keras.layers.Conv2D(n, 1)(x)
    model = tf.keras.Model(x, y)
    rng = np.random.default_rng(0)
    for w in model.weights:
        w.assign(rng.normal(size=w.shape).astype(np.float32) * 0.3)
    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.representative_dataset = lambda: ([rng.normal(size=x.shape).astype(np.float32)] for _ in range(20))
    conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    conv.inference_input_type = conv.inference_output_type = tf.int8
    return conv.convert()


def quant(detail):
    q = detail["quantization_parameters"]
    return q["scales"], int(q["zero_points"][0])


def mismatches(model, kind):
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    it = Interpreter(model_content=model,
                     experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    it.allocate_tensors()
    op = next(o for o in it._get_ops_details() if o["op_name"] == kind)
    t = {d["index"]: d for d in it.get_tensor_details()}
    x_t, w_t, b_t = (t[i] for i in op["inputs"][:3])
    w = it.get_tensor(w_t["index"]).astype(np.int64)
    w = w.reshape(w.shape[0], -1)
    bias = it.get_tensor(b_t["index"]).astype(np.int64)
    (s_in,), zp_in = quant(x_t)
    (s_out,), zp_out = quant(t[op["outputs"][0]])
    s_w, _ = quant(w_t)
    mult = [q8_multiplier(float(np.float64(s_in) * np.float64(s) / np.float64(s_out))) for s in s_w]
    inp, rng, count, wrong = it.get_input_details()[0], np.random.default_rng(1), 0, {True: 0, False: 0}
    for _ in range(20):
        x = rng.integers(-128, 128, size=inp["shape"]).astype(np.int8)
        it.set_tensor(inp["index"], x)
        it.invoke()
        got = it.get_tensor(it.get_output_details()[0]["index"]).reshape(-1, w.shape[0])
        acc = (x.reshape(-1, w.shape[1]).astype(np.int64) - zp_in) @ w.T + bias
        for c, (m, e) in enumerate(mult):
            for ruy in (True, False):
                want = [min(127, max(-128, requantize(int(a), m, e, ruy) + zp_out)) for a in acc[:, c]]
                wrong[ruy] += int((np.array(want) != got[:, c]).sum())
        count += acc.size
    return count, wrong


if __name__ == "__main__":
    for kind, k, n, batch in [("FULLY_CONNECTED", 64, 48, 256), ("FULLY_CONNECTED", 1024, 1000, 1),
                              ("CONV_2D", 32, 40, 1)]:
        count, wrong = mismatches(convert(kind, k, n, batch), kind)
        print(f"{kind} k={k} n={n} batch={batch}: {count} outputs, differ: ruy form {wrong[True]}, "
              f"reference form {wrong[False]}")
