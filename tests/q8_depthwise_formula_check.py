"""The q8 depthwise formula (delegate/kernels/q8_depthwise.h) against
ai-edge-litert 2.3's and tf.lite 2.21's builtin int8 DEPTHWISE_CONV_2D (no
XNNPACK): per-channel weights, padding SAME and VALID, multipliers 1 and 2,
depths off and on a multiple of 8. Counts the outputs where each requantization differs from the
runtime: the kernels' split (the first 8 * floor(depth / 8) channels in ruy's
form, ties up; the rest in the reference form, ties away), all ruy's, all the
reference's. Not a pytest test (builds models with TensorFlow, then runs both
runtimes in the same process):
    python tests/q8_depthwise_formula_check.py
"""
import contextlib
import io

import numpy as np

from q8_gemm_formula_check import q8_multiplier, quant, requantize


def convert(channels, multiplier, kernel, size, padding):
    import tensorflow as tf
    x = tf.keras.Input((size, size, channels), batch_size=1)
    y = tf.keras.layers.DepthwiseConv2D(kernel, depth_multiplier=multiplier, padding=padding)(x)
    model = tf.keras.Model(x, y)
    rng = np.random.default_rng(channels * 100 + kernel)
    for w in model.weights:  # [kh, kw, channels, multiplier] and the bias: scales that differ by channel
        scale = rng.uniform(0.05, 1.0, size=w.shape[-2:] if len(w.shape) == 4 else w.shape)
        w.assign((rng.normal(size=w.shape) * scale).astype(np.float32))
    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.representative_dataset = lambda: ([rng.normal(size=x.shape).astype(np.float32)] for _ in range(20))
    conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    conv.inference_input_type = conv.inference_output_type = tf.int8
    with contextlib.redirect_stdout(io.StringIO()):  # the converter prints the model's signature
        return conv.convert()


def sums(x, w, bias, zp_in, multiplier, padding):
    """acc[oy, ox, c] by the formula, int64 (x [h, w, in], w [kh, kw, depth])."""
    kh, kw, depth = w.shape
    x = x.astype(np.int64) - zp_in
    if padding == "same":  # TFLite's SAME at stride 1: the odd pixel of padding after
        x = np.pad(x, (((kh - 1) // 2, kh // 2), ((kw - 1) // 2, kw // 2), (0, 0)))
    oh, ow = x.shape[0] - kh + 1, x.shape[1] - kw + 1
    xs = np.repeat(x, multiplier, axis=2)  # output channel c reads input channel c // multiplier
    acc = np.zeros((oh, ow, depth), np.int64) + bias
    for ky in range(kh):
        for kx in range(kw):
            acc += xs[ky:ky + oh, kx:kx + ow] * w[ky, kx].astype(np.int64)
    return acc


def outputs(acc, mult, zp_out, ruy_channels):
    out = np.empty(acc.shape, np.int64)
    for c, (m, e) in enumerate(mult):
        ruy = c < ruy_channels
        column = [min(127, max(-128, requantize(int(a), m, e, ruy) + zp_out)) for a in acc[..., c].ravel()]
        out[..., c] = np.reshape(column, acc.shape[:-1])
    return out


def interpreter(model, runtime):
    if runtime == "tf.lite":
        import tensorflow as tf
        Interpreter, OpResolverType = tf.lite.Interpreter, tf.lite.experimental.OpResolverType
    else:
        from ai_edge_litert.interpreter import Interpreter, OpResolverType
    return Interpreter(model_content=model,
                       experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)


def mismatches(model, multiplier, padding, runtime):
    it = interpreter(model, runtime)
    it.allocate_tensors()
    op = next(o for o in it._get_ops_details() if o["op_name"] == "DEPTHWISE_CONV_2D")
    t = {d["index"]: d for d in it.get_tensor_details()}
    x_t, w_t, b_t = (t[i] for i in op["inputs"][:3])
    w, bias = it.get_tensor(w_t["index"])[0], it.get_tensor(b_t["index"]).astype(np.int64)
    (s_in,), zp_in = quant(x_t)
    (s_out,), zp_out = quant(t[op["outputs"][0]])
    s_w, _ = quant(w_t)
    mult = [q8_multiplier(float(np.float64(s_in) * np.float64(s) / np.float64(s_out))) for s in s_w]
    depth = w.shape[-1]
    forms = {"split": depth // 8 * 8, "all ruy": depth, "all reference": 0}
    inp, rng, count, wrong = it.get_input_details()[0], np.random.default_rng(1), 0, dict.fromkeys(forms, 0)
    for _ in range(10):
        x = rng.integers(-128, 128, size=inp["shape"]).astype(np.int8)
        it.set_tensor(inp["index"], x)
        it.invoke()
        got = it.get_tensor(it.get_output_details()[0]["index"])[0].astype(np.int64)
        acc = sums(x[0], w, bias, zp_in, multiplier, padding)
        for form, ruy_channels in forms.items():
            wrong[form] += int((outputs(acc, mult, zp_out, ruy_channels) != got).sum())
        count += acc.size
    return depth, count, wrong


if __name__ == "__main__":
    for channels, multiplier, kernel, size, padding in [(13, 1, 3, 24, "same"), (37, 1, 3, 16, "same"),
                                                        (30, 1, 5, 16, "valid"), (11, 2, 3, 20, "same"),
                                                        (32, 1, 3, 16, "same")]:
        model = convert(channels, multiplier, kernel, size, padding)
        for runtime in ("ai-edge-litert", "tf.lite"):
            depth, count, wrong = mismatches(model, multiplier, padding, runtime)
            print(f"{runtime}: depth {depth} (multiplier {multiplier}) {kernel}x{kernel} {padding}: {count} outputs, "
                  "differ: " + ", ".join(f"{form} {n}" for form, n in wrong.items()))
