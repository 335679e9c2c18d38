"""Writes real architectures with random weights as .tflite (float32, batch 1),
for `fusedelegate bench`. Keras builds them offline (weights=None): no download.

    python benchmarks/keras_models.py OUTDIR [mobilenet_v2 mobilenet_v3_small efficientnet_b0 resnet50]
"""
import os
import sys

import tensorflow as tf

BUILDERS = {
    "mobilenet_v2": lambda: tf.keras.applications.MobileNetV2(weights=None, input_shape=(224, 224, 3)),
    "mobilenet_v3_small": lambda: tf.keras.applications.MobileNetV3Small(weights=None, input_shape=(224, 224, 3)),
    "efficientnet_b0": lambda: tf.keras.applications.EfficientNetB0(weights=None, input_shape=(224, 224, 3)),
    "resnet50": lambda: tf.keras.applications.ResNet50(weights=None, input_shape=(224, 224, 3)),
}


def convert(model):
    return tf.lite.TFLiteConverter.from_keras_model(model).convert()


def main(out, names):
    os.makedirs(out, exist_ok=True)
    for name in names or ["mobilenet_v2"]:
        if name not in BUILDERS:
            sys.exit(f"unknown model {name}; choose from {', '.join(BUILDERS)}")
        tf.keras.utils.set_random_seed(0)
        path = os.path.join(out, f"{name}.tflite")
        with open(path, "wb") as f:
            f.write(convert(BUILDERS[name]()))
        print(f"wrote {path}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "models", sys.argv[2:])
