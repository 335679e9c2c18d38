"""Where the Grappler pass loses time in a tf.function: one model of the Keras set run
as a tf.function (weights in variables: Keras 3 writes BatchNormalization out as
element ops on them, computed on each run) and frozen to constants in a
tf.compat.v1.Session (Grappler folds those ops), each with TF's defaults and with the pass.
Rounds alternate the four (rotating their order); prints each one's median ms, its median
per-round ratio to the tf.function default and to the frozen default (the pass's option
log="info" prints its fused groups per graph). Usage:
    tf_frozen_vs_function.py [mobilenet_v2|resnet50|...] [--rounds 9] [--calls 3]
"""
import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tensorflow as tf  # noqa: E402
from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2  # noqa: E402

import fusedelegate.tf as fdt  # noqa: E402
import tf_model_set  # noqa: E402


def function_calls(model, spec, x):
    """(default, with pass) callables of the model as a tf.function."""
    plain, ours = tf.function(model, input_signature=spec), tf.function(model, input_signature=spec)

    def with_pass():
        with fdt.enabled(num_threads=1):
            return ours(x)
    return (lambda: plain(x)), with_pass


def frozen_calls(model, spec, x):
    """(default, with pass) callables of the model frozen to constants, each in its own Session."""
    frozen = convert_variables_to_constants_v2(tf.function(model, input_signature=spec).get_concrete_function())
    graph_def, feed, fetch = frozen.graph.as_graph_def(), frozen.inputs[0].name, frozen.outputs[0].name
    base = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)

    def session(config):
        g = tf.Graph()
        with g.as_default():
            tf.compat.v1.import_graph_def(graph_def, name="")
        sess = tf.compat.v1.Session(graph=g, config=config)
        return lambda: sess.run(fetch, {feed: x.numpy()})
    return session(base), session(fdt.session_config(base, num_threads=1))


def paired_rounds(calls, rounds, per_round):
    """Each configuration's per-round median ms, the order rotating per round."""
    for f in calls.values():
        f(), f()  # warm-up: the first call also optimizes the graph and packs the weights
    names, out = list(calls), {k: [] for k in calls}
    for r in range(rounds):
        for k in names[r % len(names):] + names[:r % len(names)]:
            times = []
            for _ in range(per_round):
                start = time.perf_counter()
                calls[k]()
                times.append((time.perf_counter() - start) * 1e3)
            out[k].append(statistics.median(times))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model", nargs="?", default="mobilenet_v2", choices=tf_model_set.MODELS)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--calls", type=int, default=3)
    a = ap.parse_args()
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    model = tf_model_set.build_keras(a.model)
    shape = (1,) + tuple(model.inputs[0].shape[1:])
    spec, x = [tf.TensorSpec(shape, tf.float32)], tf.constant(tf_model_set.make_input(shape))
    fn_tf, fn_pass = function_calls(model, spec, x)
    frozen_tf, frozen_pass = frozen_calls(model, spec, x)
    t = paired_rounds({"function tf": fn_tf, "function pass": fn_pass, "frozen tf": frozen_tf,
                       "frozen pass": frozen_pass}, a.rounds, a.calls)
    print(f"{a.model}, batch 1, 1 thread, {a.rounds} rounds x {a.calls} calls; CPU {tf_model_set.cpu_name()}")
    for k, v in t.items():
        vs_fn = statistics.median(p / q for p, q in zip(v, t["function tf"]))
        vs_frozen = statistics.median(p / q for p, q in zip(v, t["frozen tf"]))
        print(f"  {k:<15} median {statistics.median(v):8.2f} ms   vs function tf {vs_fn:.3f}   "
              f"vs frozen tf {vs_frozen:.3f}")


if __name__ == "__main__":
    main()
