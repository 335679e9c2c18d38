"""Writes real architectures with random weights as .tflite (float32, batch 1),
for `fusedelegate bench`. Keras builds them offline (weights=None): no download.

    python benchmarks/keras_models.py OUTDIR [mobilenet_v2 mobilenet_v3_small efficientnet_b0 resnet50
                                              bert_small yolo_like]

The batch is fixed at 1 (a batch of None would convert to SHAPE/STRIDED_SLICE/PACK
ops and tensors of dynamic shape) and conversion allows builtin ops only.
"""
import os
import sys

import numpy as np
import tensorflow as tf

layers = tf.keras.layers


def image_input(size=224):
    return tf.keras.Input((size, size, 3), batch_size=1)


class Attention(layers.Layer):
    """Softmax attention on [1, seq, heads, head_dim] q, k, v: BATCH_MATMUL, SOFTMAX."""

    def call(self, q, k, v):
        q, k, v = (tf.transpose(t, (0, 2, 1, 3)) for t in (q, k, v))  # [1, heads, seq, dim]
        scores = tf.matmul(q, k, transpose_b=True) * (1.0 / float(q.shape[-1]) ** 0.5)
        return tf.transpose(tf.matmul(tf.nn.softmax(scores, axis=-1), v), (0, 2, 1, 3))


def bert_small(seq=128, hidden=256, heads=4, num_layers=4, ffn=1024):
    """A BERT encoder on a [1, seq, hidden] embedding input (no embedding lookup):
    post-norm layers of multi-head attention and a GELU FFN, each with a residual ADD
    and LayerNormalization."""
    x = inp = tf.keras.Input((seq, hidden), batch_size=1)
    split = layers.Reshape((seq, heads, hidden // heads))
    for _ in range(num_layers):
        q, k, v = (split(layers.Dense(hidden)(x)) for _ in range(3))
        ctx = layers.Reshape((seq, hidden))(Attention()(q, k, v))
        x = layers.LayerNormalization(epsilon=1e-12)(x + layers.Dense(hidden)(ctx))
        h = layers.Dense(ffn, activation="gelu")(x)
        x = layers.LayerNormalization(epsilon=1e-12)(x + layers.Dense(hidden)(h))
    return tf.keras.Model(inp, x, name="bert_small")


def yolo_like(size=256, widths=(32, 64, 128, 256, 512), blocks=(1, 2, 2, 2, 1), anchors=3, classes=80):
    """A Darknet-style detector: conv+BN+LeakyReLU(0.1) blocks; each downsampling is an
    explicit top/left ZeroPadding2D then a stride-2 'valid' 3x3 conv; residual blocks
    1x1 -> 3x3 -> ADD; a 1x1 conv detection head (anchors * (5 + classes) channels)."""

    def conv(x, filters, k, stride=1, padding="same"):
        x = layers.Conv2D(filters, k, stride, padding=padding, use_bias=False)(x)
        return layers.LeakyReLU(negative_slope=0.1)(layers.BatchNormalization()(x))

    x = inp = image_input(size)
    x = conv(x, widths[0] // 2, 3)
    for width, n in zip(widths, blocks):
        x = conv(layers.ZeroPadding2D(((1, 0), (1, 0)))(x), width, 3, 2, "valid")
        for _ in range(n):
            x = layers.Add()([x, conv(conv(x, width // 2, 1), width, 3)])
    x = conv(x, widths[-1], 3)
    out = layers.Conv2D(anchors * (5 + classes), 1)(x)
    return tf.keras.Model(inp, out, name="yolo_like")


# Logits, not softmax: with random weights the softmax saturates to a uniform
# 1/1000, which would hide any numerical difference from the accuracy check.
LOGITS = {"classifier_activation": None}

BUILDERS = {
    "mobilenet_v2": lambda: tf.keras.applications.MobileNetV2(weights=None, input_tensor=image_input(), **LOGITS),
    "mobilenet_v3_small": lambda: tf.keras.applications.MobileNetV3Small(weights=None, input_tensor=image_input(), **LOGITS),
    "efficientnet_b0": lambda: tf.keras.applications.EfficientNetB0(weights=None, input_tensor=image_input(), **LOGITS),
    "resnet50": lambda: tf.keras.applications.ResNet50(weights=None, input_tensor=image_input(), **LOGITS),
    "bert_small": bert_small,
    "yolo_like": yolo_like,
}


WEIGHTS = ("float32", "float16", "dynamic_int8", "int8", "int8_float_io")


def noise_dataset(model, samples=8):
    """A representative dataset of seeded uniform [-1, 1] noise, one array per input: the
    range the benchmarks feed (an int8 input's full range maps onto about [-1, 1])."""
    rng = np.random.default_rng(0)
    shapes = [[1, *t.shape[1:]] for t in model.inputs]
    return lambda: ([rng.uniform(-1, 1, s).astype(np.float32) for s in shapes] for _ in range(samples))


def convert(model, weights="float32"):
    """weights "float16": the converter's float16 quantization (weights read through
    DEQUANTIZE); "dynamic_int8": dynamic-range quantization (Optimize.DEFAULT without a
    representative dataset: int8 weights, float32 activations); "int8": full-integer
    quantization (Optimize.DEFAULT with noise_dataset, int8 builtin ops only, int8 inputs and
    outputs); "int8_float_io": the same with float32 inputs and outputs (a QUANTIZE in, a
    DEQUANTIZE out)."""
    if weights not in WEIGHTS:
        raise ValueError(f"unknown weights '{weights}'")
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]  # no SELECT_TF_OPS
    if weights != "float32":
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
    if weights == "float16":
        converter.target_spec.supported_types = [tf.float16]
    if weights.startswith("int8"):
        converter.representative_dataset = noise_dataset(model)
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    if weights == "int8":
        converter.inference_input_type = converter.inference_output_type = tf.int8
    return converter.convert()


def build(name, path, weights="float32"):
    """Builds model `name` with seed 0 and writes it to `path`."""
    tf.keras.backend.clear_session()  # layer names restart: same bytes however many were built before
    tf.keras.utils.set_random_seed(0)
    content = convert(BUILDERS[name](), weights)
    with open(path, "wb") as f:
        f.write(content)


def main(out, names):
    os.makedirs(out, exist_ok=True)
    for name in names or ["mobilenet_v2"]:
        if name not in BUILDERS:
            sys.exit(f"unknown model {name}; choose from {', '.join(BUILDERS)}")
        path = os.path.join(out, f"{name}.tflite")
        build(name, path)
        print(f"wrote {path}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "models", sys.argv[2:])
