"""The Keras model set (keras_models.py, random weights) in full TensorFlow: paired
latency of TF's default graph optimizations (`tf`: remapper + oneDNN), XLA (`xla`:
tf.function(jit_compile=True)), TF with the fusedelegate Grappler pass (`pass`), and
the same model converted to .tflite run by fusedelegate then XNNPACK in LiteRT
(`tflite`, in a subprocess: TensorFlow and a TFLite runtime in one process can break
each other).

    tf_model_set.py [--models a,b] [--batch 1|8] [--threads 1|all] [--rounds 11]
                    [--calls 3] [--configs tf,xla,pass,tflite] [--xla_max_compile_s 60]
                    [--json FILE]

Every configuration runs the same weights on the same seeded input. Rounds alternate
the configurations (rotating their order); each round times `calls` calls of each.
Reported per model: the median ms per call of `tf`, each configuration's median
per-round ratio to `tf` (lower is faster), its max_rel against `tf`'s output (relative
to the largest magnitude), and the geomeans of the ratios over the models.
"""
import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

MODELS = ("mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0", "resnet50", "bert_small", "yolo_like")
CONFIGS = ("tf", "xla", "pass", "tflite")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default=",".join(MODELS), help="comma list, subset of: " + ", ".join(MODELS))
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--threads", default="1", help="a number, or 'all' (the machine's cores)")
    p.add_argument("--rounds", type=int, default=11)
    p.add_argument("--calls", type=int, default=3, help="timed calls per configuration and round")
    p.add_argument("--configs", default=",".join(CONFIGS), help="comma list, subset of: " + ", ".join(CONFIGS))
    p.add_argument("--xla_max_compile_s", type=float, default=60.0,
                   help="drop xla for a model whose first call (the compile) took longer")
    p.add_argument("--json", metavar="FILE")
    a = p.parse_args(argv)
    a.models, a.configs = a.models.split(","), a.configs.split(",")
    for name, allowed, given in (("model", MODELS, a.models), ("configuration", CONFIGS, a.configs)):
        bad = [x for x in given if x not in allowed]
        if bad:
            p.error(f"unknown {name} {bad[0]}; choose from {', '.join(allowed)}")
    if "tf" not in a.configs:
        p.error("--configs must include tf (the reference)")
    a.threads = os.cpu_count() if a.threads == "all" else int(a.threads)
    return a


def build_keras(name):
    """The model as keras_models.build makes it: the same seed, the same weights."""
    import tensorflow as tf
    import keras_models
    tf.keras.backend.clear_session()
    tf.keras.utils.set_random_seed(0)
    return keras_models.BUILDERS[name]()


def to_tflite(fn, path):
    """Converts the concrete function (its fixed batch included) with builtin ops only."""
    import tensorflow as tf
    converter = tf.lite.TFLiteConverter.from_concrete_functions([fn.get_concrete_function()])
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    with open(path, "wb") as f:
        f.write(converter.convert())


def max_rel(got, want):
    import numpy as np
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return float(np.max(np.abs(got - want)) / max(float(np.max(np.abs(want))), 1e-30))


class TfConfig:
    """A tf.function called on one input; `scope` (a context manager factory) wraps its calls."""

    def __init__(self, name, fn, x, scope=None):
        self.name, self.fn, self.x, self.scope = name, fn, x, scope

    def _calls(self, n):
        times = []
        for _ in range(n):
            start = time.perf_counter()
            self.fn(self.x)
            times.append((time.perf_counter() - start) * 1e3)
        return times

    def run(self, n):
        if self.scope is None:
            return self._calls(n)
        with self.scope():
            return self._calls(n)

    def output(self):
        if self.scope is None:
            return self.fn(self.x).numpy()
        with self.scope():
            return self.fn(self.x).numpy()

    def close(self):
        pass


class TfliteConfig:
    """fusedelegate + XNNPACK in LiteRT, in `fusedelegate bench`'s worker process; its
    input is the worker's seeded input, the same as make_input's."""

    def __init__(self, path, threads):
        from fusedelegate.bench import Worker
        args = argparse.Namespace(runtime="litert", model=path, num_threads=threads)
        self.name = "tflite"
        self.worker = Worker("fusedelegate+xnnpack", args, {"num_threads": threads}, {"": (-1.0, 1.0)})

    def run(self, n):
        return self.worker.run(n)

    def output(self):
        with tempfile.TemporaryDirectory() as tmp:
            return self.worker.outputs(tmp)[0]

    def close(self):
        self.worker.close()


def make_input(shape):
    """The bench worker's input: numpy's default_rng(0), uniform in [-1, 1]."""
    import numpy as np
    return np.random.default_rng(0).uniform(-1.0, 1.0, shape).astype(np.float32)


def xla_config(fn_of, x, limit_s):
    """The XLA configuration, or None (printing why) when its compile took over limit_s."""
    fn = fn_of(jit_compile=True)
    start = time.perf_counter()
    fn(x)
    took = time.perf_counter() - start
    if took > limit_s:
        print(f"  xla skipped: its first call (the compile) took {took:.0f} s > --xla_max_compile_s {limit_s:g}")
        return None
    return TfConfig("xla", fn, x)


def make_configs(name, a, tflite_dir):
    """The model's configurations, each called once (compiled, packed, warmed)."""
    import tensorflow as tf
    import fusedelegate.tf as fdt
    model = build_keras(name)
    shape = (a.batch,) + tuple(model.inputs[0].shape[1:])
    spec = [tf.TensorSpec(shape, tf.float32)]
    fn_of = lambda **kw: tf.function(model, input_signature=spec, **kw)  # noqa: E731
    x = tf.constant(make_input(shape))
    configs = [TfConfig("tf", fn_of(), x)]
    if "xla" in a.configs:
        configs.append(xla_config(fn_of, x, a.xla_max_compile_s))
    if "pass" in a.configs:
        configs.append(TfConfig("pass", fn_of(), x, lambda: fdt.enabled(num_threads=a.threads)))
    if "tflite" in a.configs:
        path = os.path.join(tflite_dir, f"{name}.tflite")
        to_tflite(fn_of(), path)
        configs.append(TfliteConfig(path, a.threads))
    return [c for c in configs if c is not None]


def rotated(items, r):
    r %= len(items)
    return items[r:] + items[:r]


def measure(configs, a):
    """Per configuration: every call's ms and each round's median ms."""
    for c in configs:
        c.run(2)  # warm-up
    calls = {c.name: [] for c in configs}
    rounds = {c.name: [] for c in configs}
    for r in range(a.rounds):
        for c in rotated(configs, r):
            times = c.run(a.calls)
            calls[c.name] += times
            rounds[c.name].append(statistics.median(times))
    return calls, rounds


def bench_model(name, a, tflite_dir):
    configs = make_configs(name, a, tflite_dir)
    try:
        outputs = {c.name: c.output() for c in configs}
        calls, rounds = measure(configs, a)
    finally:
        for c in configs:
            c.close()
    row = {"tf_median_ms": statistics.median(calls["tf"]), "configurations": {}}
    for c in configs:
        ratios = [t / ref for t, ref in zip(rounds[c.name], rounds["tf"])]
        row["configurations"][c.name] = {
            "median_ms": statistics.median(calls[c.name]), "ratio_vs_tf": statistics.median(ratios),
            "max_rel_vs_tf": max_rel(outputs[c.name], outputs["tf"]), "round_medians_ms": rounds[c.name]}
    return row


def geomean(values):
    """None when there is nothing to average (a configuration every model skipped)."""
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def print_table(rows, a):
    others = [c for c in a.configs if c != "tf"]
    print(f"\nbatch {a.batch}, threads {a.threads}, {a.rounds} rounds x {a.calls} calls; "
          "ratio: median of per-round (configuration / tf), lower is faster")
    print(f"{'model':<20}{'tf ms':>9}" + "".join(f"{c + ' ratio':>14}{'max_rel':>10}" for c in others))
    for name, row in rows.items():
        line = f"{name:<20}{row['tf_median_ms']:>9.2f}"
        for c in others:
            got = row["configurations"].get(c)
            line += f"{got['ratio_vs_tf']:>14.3f}{got['max_rel_vs_tf']:>10.1e}" if got else f"{'-':>14}{'-':>10}"
        print(line)
    means = {c: geomean([r["configurations"][c]["ratio_vs_tf"] for r in rows.values() if c in r["configurations"]])
             for c in others}
    print(f"{'geomean':<20}{'':>9}" + "".join((f"{means[c]:>14.3f}" if means[c] else f"{'-':>14}") + f"{'':>10}" for c in others))
    return means


def cpu_name():
    with open("/proc/cpuinfo") as f:
        pairs = [line.split(":", 1) for line in f.read().split("\n\n")[0].splitlines() if ":" in line]
    fields = {k.strip(): v.strip() for k, v in pairs}
    get = lambda k: fields.get(k, "?")  # noqa: E731
    return f"{get('model name')} (family {get('cpu family')}, model {get('model')})"


def main(argv=None):
    a = parse_args(argv)
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(a.threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    print(f"CPU: {cpu_name()}; TensorFlow {tf.__version__}")
    rows = {}
    with tempfile.TemporaryDirectory() as tflite_dir:
        for name in a.models:
            start = time.perf_counter()
            print(f"{name}:", flush=True)
            rows[name] = bench_model(name, a, tflite_dir)
            print(f"  done in {time.perf_counter() - start:.0f} s", flush=True)
    means = print_table(rows, a)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"cpu": cpu_name(), "tensorflow": tf.__version__, "batch": a.batch, "threads": a.threads,
                       "rounds": a.rounds, "calls": a.calls, "models": rows, "geomean_ratio_vs_tf": means},
                      f, indent=1)


if __name__ == "__main__":
    main()
