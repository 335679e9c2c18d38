"""Small models of the patterns where claiming has lost to XNNPACK before (issue 18):
the cases the claim policy must make fast or decline. Random weights, seed 0,
converted with the TFLite converter (float32 weights).

    .venv/bin/python benchmarks/policy_cases.py            # writes benchmarks/models/case_*.tflite
    .venv/bin/python benchmarks/ab_libraries.py LIB LIB --models case_dw_mult2,... \\
        --options_a "fusions:all" --options_b ""

Cases: depthwise with depth multiplier 2 and 4; dilated 3x3 convolutions (dense and
depthwise); convolutions each followed by a separate activation layer (ELU, tanh,
sigmoid, GELU, LeakyReLU, swish); binary ops broadcasting [1,H,1,C], [1,H,W,1] and
[C] between live tensors; a conv net with long elementwise chains between its convs.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def _keras():
    import tensorflow as tf
    return tf, tf.keras.layers


def dw_mult2():
    tf, L = _keras()
    x = L.Input([56, 56, 32], batch_size=1)
    y = L.DepthwiseConv2D(3, padding="same", depth_multiplier=2, activation="relu")(x)
    y = L.DepthwiseConv2D(3, padding="same", depth_multiplier=4)(L.Conv2D(16, 1)(y))
    return tf.keras.Model(x, y)


def dilated():
    tf, L = _keras()
    x = L.Input([56, 56, 64], batch_size=1)
    y = L.Conv2D(64, 3, padding="same", dilation_rate=2, activation="relu")(x)
    y = L.DepthwiseConv2D(3, padding="same", dilation_rate=2, activation="relu6")(y)
    y = L.Conv2D(64, 3, padding="same", dilation_rate=4)(y)
    return tf.keras.Model(x, y)


def activation_row():
    tf, L = _keras()
    x = L.Input([56, 56, 32], batch_size=1)
    y = x
    for act in ("elu", "tanh", "sigmoid", "gelu", "swish"):
        y = L.Activation(act)(L.Conv2D(32, 3, padding="same")(y))
    y = L.LeakyReLU(0.1)(L.Conv2D(32, 1)(y))
    return tf.keras.Model(x, y)


def broadcast_binary():
    tf, L = _keras()
    x = L.Input([56, 56, 64], batch_size=1)
    rows = L.Lambda(lambda t: tf.reduce_mean(t, axis=2, keepdims=True))(x)     # [1,H,1,C]
    pixels = L.Lambda(lambda t: tf.reduce_max(t, axis=3, keepdims=True))(x)    # [1,H,W,1]
    bias = tf.linspace(-1.0, 1.0, 64)                                          # [C]
    y = L.Lambda(lambda ts: ts[0] * ts[1] - ts[2])([x, rows, pixels])
    y = L.Lambda(lambda t: tf.maximum(t + bias, t * 0.1))(y)
    return tf.keras.Model(x, y)


def conv_chains():
    tf, L = _keras()
    x = L.Input([56, 56, 32], batch_size=1)
    y = x
    for i in range(3):
        c = L.Conv2D(32, 3, padding="same")(y)
        z = L.Lambda(lambda t: tf.nn.relu6(t * 1.5 + 0.25) * tf.sigmoid(t) - tf.tanh(t) * 0.5)(c)
        y = L.Add()([z, y])
    return tf.keras.Model(x, y)


CASES = {"dw_mult2": dw_mult2, "dilated": dilated, "activation_row": activation_row,
         "broadcast_binary": broadcast_binary, "conv_chains": conv_chains}


def build(out, names=None):
    import keras_models
    import tensorflow as tf
    os.makedirs(out, exist_ok=True)
    paths = []
    for name in names or CASES:
        path = os.path.join(out, f"case_{name}.tflite")
        tf.keras.backend.clear_session()
        tf.keras.utils.set_random_seed(0)
        with open(path, "wb") as f:
            f.write(keras_models.convert(CASES[name]()))
        paths.append(path)
        print(f"wrote {path}")
    return paths


if __name__ == "__main__":
    build(os.path.join(HERE, "models"), sys.argv[1:])
