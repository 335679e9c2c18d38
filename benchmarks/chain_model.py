"""Writes the chain-heavy benchmark model: 22 elementwise ops on a
[1, 112, 112, 64] activation (per-channel affine, swish, GELU-tanh, tanh,
maximum, abs/square, sqrt/rsqrt, relu6, exp) that fusedelegate runs as one
fused group. Needs tensorflow.

    python benchmarks/chain_model.py chain.tflite
    fusedelegate bench chain.tflite --num_runs 50
"""
import sys

import tensorflow as tf

C = 64


@tf.function(input_signature=[tf.TensorSpec([1, 112, 112, C]), tf.TensorSpec([1, 1, 1, C]),
                              tf.TensorSpec([1, 1, 1, C])])
def chain(x, scale, shift):
    y = x * scale + shift
    y = y * tf.sigmoid(y)
    y = tf.nn.gelu(y, approximate=True)
    z = tf.tanh(y) - x
    z = tf.maximum(z, -0.5) * 0.7
    z = tf.abs(z) + tf.square(y)
    z = tf.sqrt(z + 1.0)
    z = tf.math.rsqrt(z) * scale - shift
    return tf.nn.relu6(z * 3.0) + tf.exp(-tf.abs(x))


def main(path):
    converter = tf.lite.TFLiteConverter.from_concrete_functions([chain.get_concrete_function()])
    with open(path, "wb") as f:
        f.write(converter.convert())
    print(f"wrote {path}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "chain.tflite")
