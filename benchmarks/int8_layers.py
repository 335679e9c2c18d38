"""Single int8 layers of the shapes real mobile and server nets use (MobileNetV2's
1x1 expand/project, ResNet's 3x3, a stem, depthwise 3x3, a classifier), full-integer
(int8 inputs and outputs, keras_models.convert(weights="int8")): what an int8 layer
claimed alone costs against XNNPACK's, for the claim policy.

    .venv/bin/python benchmarks/int8_layers.py       # writes benchmarks/models/q8layer_*.tflite
    .venv/bin/python benchmarks/ab_libraries.py LIB LIB --models q8layer_pw_56x24x144,... \\
        --options_b "min_nodes_per_partition:1"
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# name: (input [h, w, c], layer kind, filters or multiplier, kernel, stride)
LAYERS = {
    "stem_112x3x32": ([224, 224, 3], "conv", 32, 3, 2),
    "pw_56x24x144": ([56, 56, 24], "conv", 144, 1, 1),
    "pw_28x192x32": ([28, 28, 192], "conv", 32, 1, 1),
    "pw_14x96x576": ([14, 14, 96], "conv", 576, 1, 1),
    "pw_7x320x1280": ([7, 7, 320], "conv", 1280, 1, 1),
    "c3_56x64x64": ([56, 56, 64], "conv", 64, 3, 1),
    "c3_28x128x128": ([28, 28, 128], "conv", 128, 3, 1),
    "c3_14x256x256": ([14, 14, 256], "conv", 256, 3, 1),
    "c3s2_56x64x128": ([56, 56, 64], "conv", 128, 3, 2),
    "dw_112x32": ([112, 112, 32], "depthwise", 1, 3, 1),
    "dw_56x144s2": ([56, 56, 144], "depthwise", 1, 3, 2),
    "dw_14x576": ([14, 14, 576], "depthwise", 1, 3, 1),
    "dw5_14x480": ([14, 14, 480], "depthwise", 1, 5, 1),
    "fc_1280x1000": ([1280], "dense", 1000, 1, 1),
}


def layer_model(shape, kind, width, kernel, stride):
    import tensorflow as tf
    L = tf.keras.layers
    x = L.Input(shape, batch_size=1)
    if kind == "conv":
        y = L.Conv2D(width, kernel, stride, padding="same", activation="relu6")(x)
    elif kind == "depthwise":
        y = L.DepthwiseConv2D(kernel, stride, padding="same", depth_multiplier=width, activation="relu6")(x)
    else:
        y = L.Dense(width, activation="relu")(x)
    return tf.keras.Model(x, y)


def build(out, names=None):
    import keras_models
    import tensorflow as tf
    os.makedirs(out, exist_ok=True)
    for name in names or LAYERS:
        tf.keras.backend.clear_session()
        tf.keras.utils.set_random_seed(0)
        path = os.path.join(out, f"q8layer_{name}.tflite")
        with open(path, "wb") as f:
            f.write(keras_models.convert(layer_model(*LAYERS[name]), "int8"))
        print(f"wrote {path}")


if __name__ == "__main__":
    build(os.path.join(HERE, "models"), sys.argv[1:])
