"""Paired latency of a Keras model as a tf.function (the test block net, a
larger block net, or a Keras application with random weights): TensorFlow's
default graph optimizations vs the same with the fusedelegate Grappler pass.

Rounds alternate the two (each round: `calls` calls of one, then of the
other); prints per configuration the median per-call time and the median of
the per-round ratios (with-pass / default). Usage:
    tf_block_bench.py [--size test|medium|mobilenet_v2|efficientnet_b0|resnet50]
                      [--rounds 15] [--calls 50] [--threads 1]
"""
import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import fusedelegate.tf as fdt  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from tf_worker import block_net  # noqa: E402

SIZES = {"test": (2, 12, 8), "medium": (1, 56, 32),  # batch, height/width, channels
         "mobilenet_v2": (1, 96, 3), "efficientnet_b0": (1, 96, 3), "resnet50": (1, 64, 3)}


def application(name, hw):
    apps = tf.keras.applications
    kw = dict(input_shape=(hw, hw, 3), weights=None, classifier_activation=None)
    if name == "mobilenet_v2":
        return apps.MobileNetV2(alpha=0.35, **kw)
    return apps.EfficientNetB0(**kw) if name == "efficientnet_b0" else apps.ResNet50(**kw)


def medium_net(hw, c):
    k = tf.keras
    x = k.Input((hw, hw, c))
    y = k.layers.Conv2D(2 * c, 3, padding="same")(x)
    y = k.layers.ReLU(6.0)(y)
    z = k.layers.DepthwiseConv2D(3, padding="same")(y)
    z = k.layers.Activation("swish")(z)
    z = k.layers.Add()([z, y])
    z = k.layers.Conv2D(2 * c, 1, activation="tanh")(z)
    z = k.layers.GlobalAveragePooling2D()(z)
    z = k.layers.Dense(10)(z)
    return k.Model(x, z)


def timed(fn, x, calls):
    start = time.perf_counter()
    for _ in range(calls):
        fn(x)
    return (time.perf_counter() - start) / calls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", choices=SIZES, default="test")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--calls", type=int, default=50)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    tf.config.threading.set_intra_op_parallelism_threads(a.threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    batch, hw, c = SIZES[a.size]
    model = (block_net() if a.size == "test" else medium_net(hw, c) if a.size == "medium"
             else application(a.size, hw))
    fn = tf.function(model, input_signature=[tf.TensorSpec([None, hw, hw, c], tf.float32)])
    x = tf.constant(np.random.default_rng(0).standard_normal((batch, hw, hw, c)).astype(np.float32))
    want = fn(x).numpy()
    with fdt.enabled(num_threads=a.threads):
        got = fn(x).numpy()
    default, fused, ratios = [], [], []
    for r in range(a.rounds):
        order = [False, True] if r % 2 == 0 else [True, False]
        t = {}
        for use_pass in order:
            if use_pass:
                with fdt.enabled(num_threads=a.threads):
                    t[True] = timed(fn, x, a.calls)
            else:
                t[False] = timed(fn, x, a.calls)
        default.append(t[False])
        fused.append(t[True])
        ratios.append(t[True] / t[False])
    rel = float(np.max(np.abs(got - want)) / np.max(np.abs(want)))
    print(f"size {a.size} (batch {batch}, {hw}x{hw}x{c}), threads {a.threads}, {a.rounds} rounds x {a.calls} calls")
    print(f"TF default : median {statistics.median(default) * 1e6:9.1f} us/call")
    print(f"with pass  : median {statistics.median(fused) * 1e6:9.1f} us/call")
    print(f"ratio with-pass/default: median {statistics.median(ratios):.3f} "
          f"(min {min(ratios):.3f}, max {max(ratios):.3f}); max_rel vs default {rel:.2e}")


if __name__ == "__main__":
    main()
