"""Writes the tiny TensorFlow models `fusedelegate bench --tf` / `plan --tf` are tested on,
and what TensorFlow itself says their optimized graphs hold with the pass (found here
with TF's own graph collection, not with the CLI's code). Usage: tf_cli_models.py OUTDIR
prints one JSON object."""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.eager import context  # noqa: E402

import fusedelegate.tf as fdt  # noqa: E402


def tiny_model():
    """Conv + bias + ReLU, a Softsign (an op the pass does not translate), a dense head."""
    k = tf.keras
    x = k.Input((10, 10, 4))
    y = k.layers.Conv2D(8, 3, padding="same", activation="relu")(x)
    y = k.layers.Activation("softsign")(y)
    y = k.layers.Conv2D(8, 1, activation="relu6")(y)
    y = k.layers.GlobalAveragePooling2D()(y)
    return k.Model(x, k.layers.Dense(5)(y))


def graph_truth(fn, x):
    """FdFusedPartition count and the op types of the graphs run with the pass."""
    ctx = context.context()
    with fdt.enabled(num_threads=1):
        ctx.enable_graph_collection()
        try:
            fn(x)
            meta = ctx.export_run_metadata()
        finally:
            ctx.disable_graph_collection()
    ops = [n.op for g in meta.function_graphs for n in g.post_optimization_graph.node]
    return {"fused_ops": ops.count("FdFusedPartition"), "ops": sorted(set(ops))}


def main(out):
    tf.keras.utils.set_random_seed(0)
    model = tiny_model()
    model.save(os.path.join(out, "tiny.keras"))
    module = tf.Module()
    module.model = model
    spec = [tf.TensorSpec([None, 10, 10, 4], tf.float32, name="x")]
    module.serve = tf.function(lambda x: {"y": model(x)}, input_signature=spec)
    tf.saved_model.save(module, os.path.join(out, "tiny_saved"), signatures={"serving_default": module.serve})
    fn = tf.function(model, input_signature=[tf.TensorSpec([1, 10, 10, 4], tf.float32)])
    x = np.random.default_rng(0).uniform(-1, 1, (1, 10, 10, 4)).astype(np.float32)
    print(json.dumps(graph_truth(fn, x)))


if __name__ == "__main__":
    main(sys.argv[1])
