"""Runs the TF front end's scenarios in one process (TensorFlow imported once)
and prints one JSON object: per scenario, what the test module checks.

Each scenario compares the pass's outputs with TensorFlow's own execution of
the same model (eager ops, or a Session without the pass) and records which
ops the optimized graphs hold. Usage: tf_worker.py [scenario ...]
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.eager import context  # noqa: E402

import fusedelegate.tf as fdt  # noqa: E402

RNG = np.random.default_rng(7)


def max_rel(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return float(np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-30))


def optimized_nodes(fn, *args):
    """fn(*args) and the nodes of the graphs TF ran, after Grappler."""
    ctx = context.context()
    ctx.enable_graph_collection()
    try:
        out = fn(*args)
        meta = ctx.export_run_metadata()
    finally:
        ctx.disable_graph_collection()
    return out, [n for g in meta.function_graphs for n in g.post_optimization_graph.node]


def optimized_ops(fn, *args):
    """fn(*args) and the op types of the graphs TF ran, after Grappler."""
    out, nodes = optimized_nodes(fn, *args)
    return out, [n.op for n in nodes]


# Ops of an optimized graph that compute nothing themselves (or only views).
PLUMBING = {"_Arg", "_Retval", "ReadVariableOp", "Const", "Identity", "Reshape", "Squeeze", "NoOp",
            "FdFusedPartition", "Placeholder", "_EagerConst"}


def block_net():
    """A small Keras block net: conv + bias + ReLU6, depthwise, an elementwise
    chain (swish), a residual add, a 1x1 conv, pooling and a dense head."""
    k = tf.keras
    x = k.Input((12, 12, 8))
    y = k.layers.Conv2D(16, 3, padding="same")(x)
    y = k.layers.ReLU(6.0)(y)
    z = k.layers.DepthwiseConv2D(3, padding="same")(y)
    z = k.layers.Activation("swish")(z)
    z = k.layers.Add()([z, y])
    z = k.layers.Conv2D(16, 1, activation="tanh")(z)
    z = k.layers.GlobalAveragePooling2D()(z)
    z = k.layers.Dense(10)(z)
    return k.Model(x, z)


def empty_batch_shape(model, empty):
    """What TF gives for an empty batch: its eager call's shape, or where TF's own kernels
    fail on it (oneDNN's Conv2D returns its input's shape for a batch of 0 on CPUs it is on
    for), the model's output shape with batch 0."""
    try:
        return list(model(empty).shape)
    except tf.errors.InvalidArgumentError:
        return [0] + list(model.output_shape[1:])


def scenario_keras_block():
    model = block_net()
    fn = tf.function(model, input_signature=[tf.TensorSpec([None, 12, 12, 8], tf.float32)])
    result = {}
    with fdt.enabled(num_threads=1):
        for batch in (2, 5):
            x = RNG.standard_normal((batch, 12, 12, 8)).astype(np.float32)
            got, ops = optimized_ops(fn, x)
            result[f"batch{batch}"] = {"max_rel": max_rel(got, model(x)), "fused_ops": ops.count("FdFusedPartition"),
                                       "shape": list(got.shape),
                                       "tf_compute_left": sorted(set(ops) - PLUMBING)}
        empty = np.zeros((0, 12, 12, 8), np.float32)
        result["batch0"] = {"shape": list(fn(empty).shape), "tf_shape": empty_batch_shape(model, empty)}
    return result


def scenario_mobilenet_v2():
    """Keras' MobileNetV2 at alpha 0.35 (random weights, 96 px, batch norms on
    variables, inference): every convolution runs in the fused ops."""
    tf.keras.utils.set_random_seed(3)
    model = tf.keras.applications.MobileNetV2(alpha=0.35, input_shape=(96, 96, 3), weights=None, classes=10,
                                              classifier_activation=None)  # logits: softmax would hide errors
    fn = tf.function(lambda v: model(v, training=False), input_signature=[tf.TensorSpec([None, 96, 96, 3], tf.float32)])
    x = RNG.uniform(-1, 1, (2, 96, 96, 3)).astype(np.float32)
    want = fn(x).numpy()
    with fdt.enabled(num_threads=1):
        got, ops = optimized_ops(fn, x)
    return {"fused_ops": ops.count("FdFusedPartition"), "tf_compute_left": sorted(set(ops) - PLUMBING),
            "max_rel": max_rel(got, want)}


def fused_partitions(fn, *args):
    """fn(*args), the partition strings of the fused ops TF ran, and its nodes."""
    got, nodes = optimized_nodes(fn, *args)
    return got, [n.attr["partition"].s for n in nodes if n.op == "FdFusedPartition"], nodes


def scenario_tensordot():
    """Dense layers on rank-3 inputs (TF's Tensordot: Reshape, MatMul, Reshape):
    each one FULLY_CONNECTED keeping the leading dims, no RESHAPE in the
    partition or left to TF, also where three share their input (as attention's
    query, key and value do: TF merges their Reshapes to rows into one); two
    batch sizes of an unknown batch (its Shape ops read the shared input: an
    output too), then a fixed one (the model's output alone). Then heads ([6,
    2, 12]) flattened into one Dense's input ([6, 24]): at a fixed batch TF
    merges the two Reshapes to rows."""
    k = tf.keras
    x = k.Input((6, 24))
    h = k.layers.Dense(16, activation="relu")(x)
    q, key, v = (k.layers.Dense(8)(h) for _ in range(3))
    model = k.Model(x, k.layers.Dense(8)(q * key + v))
    heads = k.Input((6, 2, 12))
    merged = k.Model(heads, k.layers.Dense(8, activation="relu")(k.layers.Reshape((6, 24))(heads)))
    result = {}
    with fdt.enabled(num_threads=1):
        for name, m, shape in (("batch", model, (6, 24)), ("fixed_batch", model, (6, 24)),
                               ("heads_batch", merged, (6, 2, 12))):
            fn = tf.function(m, input_signature=[tf.TensorSpec([None, *shape], tf.float32)])
            for batch in (1, 3):
                if name != "batch":
                    fn = tf.function(m, input_signature=[tf.TensorSpec([batch, *shape], tf.float32)])
                inp = RNG.standard_normal((batch, *shape)).astype(np.float32)
                got, fused, nodes = fused_partitions(fn, inp)
                outputs = sum(n.attr["M"].i for n in nodes if n.op == "FdFusedPartition")
                result[f"{name}{batch}"] = {"fused_ops": len(fused), "outputs": outputs,
                    "reshapes": sum(p.count(b"Reshape") for p in fused),
                    "tf_ops_left": sorted({n.op for n in nodes} - PLUMBING - {"Shape"}),
                    "tf_reshapes": [n.name for n in nodes if n.op == "Reshape"], "max_rel": max_rel(got, m(inp))}
    return result


def scenario_hard_swish():
    """Keras' hard_swish, x * (relu6(x + 3) / 6), after a convolution: read as
    one HardSwish (the IR node's name is in the fused op's partition)."""
    k = tf.keras
    x = k.Input((8, 8, 4))
    model = k.Model(x, k.layers.Conv2D(8, 3, padding="same", activation="hard_swish")(x))
    fn = tf.function(model, input_signature=[tf.TensorSpec([None, 8, 8, 4], tf.float32)])
    inp = RNG.standard_normal((2, 8, 8, 4)).astype(np.float32) * 2.0
    with fdt.enabled(num_threads=1):
        got, fused, nodes = fused_partitions(fn, inp)
    return {"fused_ops": len(fused), "hard_swish": any(b"HardSwish" in p for p in fused),
            "tf_compute_left": sorted({n.op for n in nodes} - PLUMBING), "max_rel": max_rel(got, model(inp))}


def const(*shape, scale=0.3):
    return tf.constant(RNG.standard_normal(shape).astype(np.float32) * scale)


def scenario_op_coverage():
    """Const weights through every translated op family: pad into a strided
    conv, ELU, depthwise with multiplier 2, LeakyReLU, inference batch norm,
    pools, spatial mean, dense layers (both weight layouts), softmax; and a
    transformer-style branch: transpose, batch matmul, concat, softplus, last-axis mean."""
    w1, b1, dw = const(3, 3, 4, 8), const(8), const(3, 3, 8, 2)
    bn = [const(16) + 1.0, const(16), const(16), tf.abs(const(16)) + 0.5]
    fc1, fc2, q = const(16, 12), const(6, 12), const(6, 6)

    @tf.function(input_signature=[tf.TensorSpec([None, 10, 10, 4], tf.float32)])
    def f(x):
        y = tf.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]])
        y = tf.nn.elu(tf.nn.bias_add(tf.nn.conv2d(y, w1, 2, "VALID"), b1))
        y = tf.nn.leaky_relu(tf.nn.depthwise_conv2d(y, dw, [1, 1, 1, 1], "SAME"), 0.1)
        y, _, _ = tf.compat.v1.nn.fused_batch_norm(y, *bn, is_training=False)
        y = tf.nn.avg_pool2d(tf.nn.max_pool2d(y, 2, 2, "SAME"), 3, 1, "SAME")
        v = tf.reduce_mean(tf.nn.relu(y), axis=[1, 2])
        h = tf.nn.relu(tf.matmul(v, fc1) + 0.5)
        logits = tf.nn.softmax(tf.matmul(h, fc2, transpose_b=True) * 2.0 - 1.0)
        t = tf.reshape(y, [-1, 9, 16])
        a = tf.matmul(tf.transpose(t, [0, 2, 1]), t) * 0.1
        a = tf.concat([tf.nn.sigmoid(a), tf.tanh(a) * a, tf.nn.softplus(a * 8.0)], axis=2)
        return logits, tf.reduce_mean(a * a + 1.0, axis=-1), tf.matmul(logits, q)

    x = RNG.standard_normal((3, 10, 10, 4)).astype(np.float32)
    with fdt.enabled(log=os.environ.get("FD_TF_LOG", "quiet")):
        got, ops = optimized_ops(f, x)
    want = f.python_function(tf.constant(x))
    return {"fused_ops": ops.count("FdFusedPartition"), "tf_compute_left": sorted(set(ops) - PLUMBING),
            "max_rel": max(max_rel(g, w) for g, w in zip(got, want))}


def scenario_saved_model(tmp):
    """The issue's use: a SavedModel loaded and called, with two threads in the fused ops."""
    model = block_net()

    class Module(tf.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        @tf.function(input_signature=[tf.TensorSpec([None, 12, 12, 8], tf.float32)])
        def __call__(self, x):
            return self.m(x)

    path = os.path.join(tmp, "saved_block_net")
    tf.saved_model.save(Module(model), path)
    loaded = tf.saved_model.load(path)
    x = RNG.standard_normal((3, 12, 12, 8)).astype(np.float32)
    with fdt.enabled(num_threads=2):
        got, ops = optimized_ops(loaded, x)
    return {"fused_ops": ops.count("FdFusedPartition"), "tf_compute_left": sorted(set(ops) - PLUMBING),
            "max_rel": max_rel(got, model(x))}


def scenario_concurrent_calls():
    """One fused function called from four threads at once (each enables the pass)."""
    import threading

    model = block_net()
    fn = tf.function(model, input_signature=[tf.TensorSpec([None, 12, 12, 8], tf.float32)])
    inputs = [RNG.standard_normal((2, 12, 12, 8)).astype(np.float32) for _ in range(4)]
    worst = []

    def run(x):
        with fdt.enabled():
            worst.append(max(max_rel(fn(x), model(x)) for _ in range(10)))

    threads = [threading.Thread(target=run, args=(x,)) for x in inputs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"runs": len(worst), "max_rel": max(worst)}


def scenario_transformer_block():
    """Dense layers on [batch, 16, 32] (a Tensordot: reshapes to shapes computed
    at run time), tanh-GELU, attention with batch matmuls and softmax, a
    residual add and a layer norm; unknown batch."""
    k = tf.keras
    dq, dk, dv, d2 = (k.layers.Dense(32) for _ in range(4))
    d1 = k.layers.Dense(64, activation=lambda t: k.activations.gelu(t, approximate=True))
    norm = k.layers.LayerNormalization()

    def model(x):
        att = tf.nn.softmax(tf.matmul(dq(x), dk(x), transpose_b=True) * 0.125)
        y = norm(x + tf.matmul(att, dv(x)))
        return y + d2(d1(y))

    fn = tf.function(model, input_signature=[tf.TensorSpec([None, 16, 32], tf.float32)])
    x = RNG.standard_normal((2, 16, 32)).astype(np.float32)
    want = model(x)  # eager: TF's own kernels (and the layers' variables made)
    with fdt.enabled():
        got, ops = optimized_ops(fn, x)
    return {"fused_ops": ops.count("FdFusedPartition"), "tf_compute_left": sorted(set(ops) - PLUMBING),
            "max_rel": max_rel(got, want)}


def scenario_gelu_forms():
    """Exact GELU as tf.nn.gelu writes it (erfc) and as BERT does (erf), each
    between two other elementwise ops: one fused GELU, no Erf / Erfc left."""
    result = {}
    for form in ("erfc", "erf"):
        @tf.function(input_signature=[tf.TensorSpec([None, 24], tf.float32)])
        def f(x):
            x = x * 3.0 + 1.0
            if form == "erfc":
                g = tf.nn.gelu(x, approximate=False)
            else:
                g = 0.5 * x * (1.0 + tf.math.erf(x / tf.sqrt(2.0)))
            return g - 2.0

        x = RNG.standard_normal((2, 24)).astype(np.float32)
        with fdt.enabled():
            got, ops = optimized_ops(f, x)
        result[form] = {"fused_ops": ops.count("FdFusedPartition"), "tf_compute_left": sorted(set(ops) - PLUMBING),
                        "max_rel": max_rel(got, f.python_function(x))}
    return result


def scenario_variable_update():
    """Weights read from a variable: a new value (assign, assign_add) must be packed again."""
    w = tf.Variable(RNG.standard_normal((3, 3, 4, 8)).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([None, 8, 8, 4], tf.float32)])
    def f(x):
        y = tf.nn.relu6(tf.nn.conv2d(x, w, 1, "SAME"))
        return tf.sigmoid(y) * y + 1.0

    x = RNG.standard_normal((1, 8, 8, 4)).astype(np.float32)
    with fdt.enabled():
        first, ops = optimized_ops(f, x)
        first_want = f.python_function(x)
        w.assign(w * -0.5)
        second = f(x)
        second_want = f.python_function(x)
        w.assign_add(tf.ones_like(w) * 0.25)  # another update path (AssignAddVariableOp)
        third = f(x)
    return {"fused_ops": ops.count("FdFusedPartition"), "first_max_rel": max_rel(first, first_want),
            "second_max_rel": max(max_rel(second, second_want), max_rel(third, f.python_function(x))),
            "changed": bool(np.any(np.abs(first.numpy() - second.numpy()) > 1e-3))}


def batch_norm_net():
    """Convolutions each followed by a Keras BatchNormalization (in a tf.function
    written out as Mul/AddV2/Rsqrt/Sub on its variables) and a ReLU6; the last
    one reads a squeeze-excite product (its scale and the batch norm both fold
    into its weights)."""
    k = tf.keras
    x = k.Input((10, 10, 4))
    y = k.layers.Conv2D(16, 3, padding="same", use_bias=False)(x)
    y = k.layers.ReLU(6.0)(k.layers.BatchNormalization()(y))
    y = k.layers.DepthwiseConv2D(3, padding="same", use_bias=False)(y)
    y = k.layers.ReLU(6.0)(k.layers.BatchNormalization()(y))
    gate = k.layers.Conv2D(16, 1, activation="sigmoid")(k.layers.GlobalAveragePooling2D(keepdims=True)(y))
    y = k.layers.Conv2D(8, 1)(y * gate)
    model = k.Model(x, k.layers.BatchNormalization()(y))
    for layer in model.layers:  # statistics and scales far from the initial ones
        if isinstance(layer, k.layers.BatchNormalization):
            layer.set_weights([RNG.uniform(0.5, 2.0, w.shape).astype(np.float32) if i in (0, 3) else
                               RNG.standard_normal(w.shape).astype(np.float32) for i, w in enumerate(layer.weights)])
    return model


def shared_weight_math():
    """Vector math on variables that two fused ops read, an op TF keeps between
    them: each computes its own copy. (output, optimized ops, TF's output)."""
    var = tf.Variable(RNG.uniform(0.5, 2.0, 8).astype(np.float32))
    w = tf.Variable(RNG.standard_normal((3, 3, 4, 8)).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([1, 6, 6, 4], tf.float32)])
    def f(x):
        s = tf.math.rsqrt(var + 1e-3) * 2.0
        y = tf.nn.relu(tf.nn.conv2d(x, w, 1, "SAME") * s)
        y = tf.math.cumsum(y, axis=1)  # left to TF
        return tf.tanh(y * s + 1.0)

    x = RNG.standard_normal((1, 6, 6, 4)).astype(np.float32)
    with fdt.enabled(num_threads=1):
        got, ops = optimized_ops(f, x)
        var.assign(var * 0.5)
        got = f(x)
    return got, ops, f.python_function(x)


def scenario_batch_norm_variables():
    """Batch norms on variables fold into the convolutions (their vector math
    is computed when the weights are packed), and again once they change."""
    model = batch_norm_net()
    fn = tf.function(model, input_signature=[tf.TensorSpec([None, 10, 10, 4], tf.float32)])
    x = RNG.standard_normal((2, 10, 10, 4)).astype(np.float32)
    with fdt.enabled(num_threads=1):
        first, nodes = optimized_nodes(fn, x)
        first_want = model(x)
        bn = model.layers[2]
        bn.moving_variance.assign(bn.moving_variance * 3.0)
        bn.gamma.assign(-bn.gamma)
        head = model.layers[-2]  # the 1x1 conv, whose bias TF reads through a reshape
        head.bias.assign(head.bias + 1.0)
        second = fn(x)
    shared, shared_ops, shared_want = shared_weight_math()
    ops, by_name = [n.op for n in nodes], {n.name: n for n in nodes}
    views_of_variables = [n.name for n in nodes if n.op in ("Reshape", "Squeeze", "ExpandDims") and
                          by_name[n.input[0].split(":")[0]].op == "ReadVariableOp"]
    return {"fused_ops": ops.count("FdFusedPartition"), "tf_compute_left": sorted(set(ops) - PLUMBING),
            "views_of_variables": views_of_variables,
            "shared": {"fused_ops": shared_ops.count("FdFusedPartition"), "max_rel": max_rel(shared, shared_want)},
            "first_max_rel": max_rel(first, first_want),
            "second_max_rel": max_rel(second, model(x)),
            "changed": bool(np.any(np.abs(first.numpy() - second.numpy()) > 1e-3))}


def scenario_gradients():
    """A training step's gradients through a fused forward pass."""
    w = tf.Variable(RNG.standard_normal((3, 3, 4, 8)).astype(np.float32) * 0.3)

    def step(x):
        with tf.GradientTape() as tape:
            y = tf.nn.relu6(tf.nn.conv2d(x, w, 1, "SAME"))
            loss = tf.reduce_sum(tf.tanh(y * 0.5 + 0.1) * y)
        return loss, tape.gradient(loss, w)

    fn = tf.function(step, input_signature=[tf.TensorSpec([None, 8, 8, 4], tf.float32)])
    x = RNG.standard_normal((2, 8, 8, 4)).astype(np.float32)
    with fdt.enabled():
        (loss, grad), ops = optimized_ops(fn, x)
    ref_loss, ref_grad = step(tf.constant(x))
    return {"fused_ops": ops.count("FdFusedPartition"), "loss_max_rel": max_rel(loss, ref_loss),
            "grad_max_rel": max_rel(grad, ref_grad)}


def scenario_disable():
    """enable() then disable(): calls after it run TF's graph, unfused."""
    model = block_net()
    fn = tf.function(model, input_signature=[tf.TensorSpec([None, 12, 12, 8], tf.float32)])
    x = RNG.standard_normal((2, 12, 12, 8)).astype(np.float32)
    fdt.enable()
    was_enabled = fdt.is_enabled()
    _, ops_on = optimized_ops(fn, x)
    fdt.disable()
    got, ops_off = optimized_ops(tf.function(model.__call__), x)
    return {"was_enabled": was_enabled, "is_enabled": fdt.is_enabled(), "fused_on": ops_on.count("FdFusedPartition"),
            "fused_off": ops_off.count("FdFusedPartition"), "max_rel": max_rel(got, model(x))}


def scenario_nothing_to_fuse():
    @tf.function(input_signature=[tf.TensorSpec([None, 6], tf.float32)])
    def f(x):
        return tf.reduce_max(tf.cumsum(x, axis=1), axis=1)

    x = RNG.standard_normal((3, 6)).astype(np.float32)
    with fdt.enabled():
        got, ops = optimized_ops(f, x)
    return {"fused_ops": ops.count("FdFusedPartition"), "equal": bool(np.array_equal(got, f.python_function(x)))}


def frozen_graph():
    """A TF1 graph with Const weights: conv + bias + ReLU, a second conv with an
    inference batch norm and ReLU (the remapper makes it one _FusedConv2D), a
    residual chain."""
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 10, 10, 4], name="x")
        w1 = tf.constant(RNG.standard_normal((3, 3, 4, 8)).astype(np.float32) * 0.3)
        b1 = tf.constant(RNG.standard_normal(8).astype(np.float32))
        w2 = tf.constant(RNG.standard_normal((1, 1, 8, 8)).astype(np.float32) * 0.3)
        y = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w1, 1, "SAME"), b1))
        bn = [tf.constant(RNG.random(8).astype(np.float32) + 0.5) for _ in range(4)]
        z = tf.nn.relu(tf.compat.v1.nn.fused_batch_norm(tf.nn.conv2d(y, w2, 1, "SAME"), *bn, is_training=False)[0])
        out = tf.identity(tf.nn.relu6(z * 0.5 + y) - 1.0, name="out")
    return g, x, out


def scenario_session():
    g, x, out = frozen_graph()
    feed = RNG.standard_normal((3, 10, 10, 4)).astype(np.float32)
    with tf.compat.v1.Session(graph=g) as sess:
        want = sess.run(out, {x: feed})
    run_options = tf.compat.v1.RunOptions(output_partition_graphs=True)
    meta = tf.compat.v1.RunMetadata()
    with tf.compat.v1.Session(graph=g, config=fdt.session_config(num_threads=1, log=os.environ.get("FD_TF_LOG", "quiet"))) as sess:
        got = sess.run(out, {x: feed}, options=run_options, run_metadata=meta)
    ops = [n.op for pg in meta.partition_graphs for n in pg.node]
    return {"fused_ops": ops.count("FdFusedPartition"), "max_rel": max_rel(got, want),
            "tf_compute_left": sorted(set(ops) - PLUMBING - {"_Recv", "_Send"})}


def optimized_with_device(device):
    """The op types of frozen_graph() after Grappler with the pass, every node placed
    on `device` (tf_optimizer.OptimizeGraph: the placer does not move them)."""
    from tensorflow.python.grappler import tf_optimizer
    g, _, out = frozen_graph()
    gd = g.as_graph_def()
    for n in gd.node:
        n.device = device
    with g.as_default():
        meta = tf.compat.v1.train.export_meta_graph(graph_def=gd)
    meta.collection_def["train_op"].node_list.value.append(out.op.name)
    return sorted({n.op for n in tf_optimizer.OptimizeGraph(fdt.session_config(num_threads=1), meta).node})


def scenario_device_filter():
    fdt.load_library()
    return {device or "unplaced": optimized_with_device(device) for device in ("", "/device:CPU:0", "/device:GPU:0")}


def scenario_bad_partition():
    """The op given a corrupt partition string: a clear error, not a crash."""
    ops = fdt.load_library()
    try:
        ops.fd_fused_partition(inputs=[tf.ones([1, 4])], weights=[], M=1, partition=b"FDPART\0\0garbage",
                               input_tensors=[0], output_tensors=[1], output_shapes=[[1, 4]])
        return {"raised": None}
    except tf.errors.InvalidArgumentError as e:
        return {"raised": e.message}


def scenario_version_mismatch(tmp):
    """A library whose recorded TF version differs must be refused, naming both."""
    real = fdt.library_path()
    data = open(real, "rb").read()
    marker = b"fusedelegate-tf-built-against=" + tf.__version__.encode()
    fake = os.path.join(tmp, "libfusedelegate_tf.so")
    with open(fake, "wb") as f:
        f.write(data.replace(marker, b"fusedelegate-tf-built-against=" + b"9" * len(tf.__version__)))
    os.environ["FUSEDELEGATE_TF_LIBRARY"] = fake
    try:
        fdt.enable()
        return {"raised": None}
    except fdt.TensorFlowVersionError as e:
        return {"raised": str(e)}
    finally:
        del os.environ["FUSEDELEGATE_TF_LIBRARY"]


def scenario_view_read_as_data():
    """A variable's Reshape that a fused MatMul reads as its data input and a
    MUL of the same group reads as weights (the RESHAPE family off, so the
    view stays a TF node): the fused op must not lose its input."""
    v = tf.Variable(RNG.standard_normal(4).astype(np.float32))
    w = tf.Variable(RNG.standard_normal((4, 4)).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([3, 4], tf.float32)])
    def f(x):
        r = tf.reshape(v, [1, 4])
        return tf.nn.relu((tf.matmul(r, w) + x) * r)

    x = RNG.standard_normal((3, 4)).astype(np.float32)
    with fdt.enabled(num_threads=1, fusions="fully_connected,elementwise"):
        got, ops = optimized_ops(f, x)
    return {"fused_ops": ops.count("FdFusedPartition"), "max_rel": max_rel(got, f.python_function(x))}


def main():
    names = sys.argv[2:] or ["version_mismatch", "keras_block", "op_coverage", "variable_update", "gradients",
                             "nothing_to_fuse", "session", "bad_partition", "saved_model", "concurrent_calls", "disable",
                             "transformer_block", "gelu_forms", "device_filter", "batch_norm_variables", "hard_swish", "tensordot",
                             "view_read_as_data", "mobilenet_v2"]
    results = {}
    for name in names:
        fn = globals()[f"scenario_{name}"]
        try:
            results[name] = fn(sys.argv[1]) if name in ("version_mismatch", "saved_model") else fn()
        except Exception as e:  # reported per scenario; the test says which
            results[name] = {"error": f"{type(e).__name__}: {e}"}
    print(json.dumps(results))


if __name__ == "__main__":
    main()
