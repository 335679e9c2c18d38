"""Subprocesses of the test suite: runtime checks and worker runs.

Each runtime runs in its own subprocess (tests/worker.py): tensorflow and
tflite_runtime cannot share a process. The pytest process itself imports no runtime.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
try:
    import fusedelegate
except ImportError:  # not installed and no PYTHONPATH: use the checkout's package
    sys.path.insert(0, str(TESTS.parent / "python"))
    import fusedelegate

CACHE = TESTS / ".cache"
RUNTIME_MODULES = {"tf": "tensorflow", "tflite": "tflite_runtime.interpreter",
                   "litert": "ai_edge_litert.interpreter"}
WORKER_TIMEOUT_S = 600


def subprocess_env(extra=None):
    """The environment for subprocesses: they import this same fusedelegate."""
    env = dict(os.environ, **(extra or {}))
    paths = [str(Path(fusedelegate.__file__).resolve().parents[1]), str(TESTS)]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    return env


def run_python(args, timeout=WORKER_TIMEOUT_S, env=None):
    """Runs this Python on args; `env` adds environment variables."""
    return subprocess.run([sys.executable, *args], env=subprocess_env(env), capture_output=True,
                          text=True, timeout=timeout)


# Runs a model (argv[1]) with LiteRT's builtin kernels, then with fusedelegate first:
# its ops but DELEGATE, the nodes claimed, the outputs that differ, their count.
COMPARE_WITH_BUILTIN = """
import sys, numpy as np, fusedelegate
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from fusedelegate._inspect import claimed_node_count
def run(delegates):
    it = Interpreter(model_path=sys.argv[1], experimental_delegates=delegates,
                     experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    it.allocate_tensors()
    x = np.random.default_rng(5).uniform(-1, 1, it.get_input_details()[0]["shape"]).astype(np.float32)
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    ops = [o["op_name"] for o in it._get_ops_details() if o["op_name"] != "DELEGATE"]
    outputs = [it.get_tensor(d["index"]) for d in it.get_output_details()]
    return outputs, ops, claimed_node_count(it) if delegates else 0
ref, ops, _ = run([])
got, _, claimed = run([fusedelegate.load()])
differ = sum(int((r != g).sum()) for r, g in zip(ref, got))
print("|".join(ops), claimed, differ, sum(r.size for r in ref))
"""


def compare_with_builtin(model):
    """COMPARE_WITH_BUILTIN on `model` in a fresh process: (ops, claimed, differ, size), the
    last two over all its outputs."""
    proc = run_python(["-c", COMPARE_WITH_BUILTIN, str(model)], timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    ops, claimed, differ, size = proc.stdout.strip().splitlines()[-1].split(" ")
    return ops.split("|"), int(claimed), int(differ), int(size)


def convert_and_compare(model, script, *args):
    """Runs converter `script` (tf) writing `model`, then compare_with_builtin (litert)."""
    require_runtime("tf")
    require_runtime("litert")
    proc = run_python(["-c", script, str(model), *args], timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return compare_with_builtin(model)


def tail(text, n=2000):
    return text[-n:] if text else ""


def generate_into(out, script, args, what, timeout=WORKER_TIMEOUT_S):
    """Unless `out` holds a manifest.json, runs generator `script` (in tests/) writing into
    a fresh folder (its first argument), then moves that folder to `out`; another session
    may have made it meanwhile. Fails the test with the generator's stderr."""
    if (out / "manifest.json").exists():
        return out
    tmp = out.with_name(f"{out.name}.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    proc = run_python([str(TESTS / script), str(tmp), *args], timeout=timeout)
    if proc.returncode != 0:
        pytest.fail(f"{what} failed:\n{tail(proc.stderr)}", pytrace=False)
    try:
        tmp.rename(out)
    except OSError:  # another session made it meanwhile
        shutil.rmtree(tmp, ignore_errors=True)
    return out


# ---------------------------------------------------------------------------
# Runtimes and workers.

_available = {}


def runtime_available(runtime):
    """(bool, why not): whether a subprocess can import the runtime."""
    if runtime not in _available:
        proc = run_python(["-c", f"import {RUNTIME_MODULES[runtime]}"], timeout=120)
        last = (proc.stderr.strip().splitlines() or ["?"])[-1]
        _available[runtime] = (proc.returncode == 0, f"{RUNTIME_MODULES[runtime]} not importable: {last}")
    return _available[runtime]


def require_runtime(runtime):
    ok, why = runtime_available(runtime)
    if not ok:
        pytest.skip(why)


def run_worker(runtime, model_dir, names, options=None, via="load"):
    """Per model name, the worker's result. A worker that crashes on one model is
    restarted on the rest; the crashed model gets an error (delegate run) or is
    marked skipped (the runtime's own reference run crashed)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    out = CACHE / f"results-{runtime}-{via}-{os.getpid()}.json"
    results, remaining = {}, list(names)
    while remaining:
        out.unlink(missing_ok=True)
        args = [str(TESTS / "worker.py"), "--runtime", runtime, "--models", str(model_dir),
                "--out", str(out), "--via", via, "--options", json.dumps(options or {}),
                "--model", *remaining]
        try:
            proc = run_python(args)
            rc, stderr = proc.returncode, proc.stderr
        except subprocess.TimeoutExpired as e:
            err = e.stderr or b""
            rc, stderr = "timeout", err.decode(errors="replace") if isinstance(err, bytes) else err
        data = json.loads(out.read_text()) if out.exists() else {}
        results.update(data.get("models", {}))
        running = data.get("running")
        if running:
            name = running["model"]
            if running["phase"] == "reference":
                results[name] = {"skipped": f"{runtime} itself crashed (exit {rc}) running the model "
                                            f"without any delegate: {tail(stderr, 300).strip()}"}
            else:
                results[name] = {"error": f"worker crashed ({rc}) in the delegated run:\n{tail(stderr)}"}
        left = [n for n in remaining if n not in results]
        if len(left) == len(remaining) or (left and not running):  # no progress: give up
            why = data.get("error") or f"worker failed ({rc}):\n{tail(stderr)}"
            results.update({n: {"error": why} for n in left})
            left = []
        remaining = left
    out.unlink(missing_ok=True)
    return results


# ---------------------------------------------------------------------------
# Fuzzers: generated graph sets and their worker runs.

def fuzz_set(prefix, script, sources, seed, only, graphs):
    """The graphs generator `script` makes for `seed` (`only` these indices, else `graphs` of
    them), cached in CACHE per generator (`sources` hashed), seed and set; other generators'
    sets of this prefix are removed (other seeds and sets may be in use)."""
    digest = hashlib.sha256(b"".join((TESTS / f).read_bytes() for f in sources)).hexdigest()[:16]
    generator = f"{prefix}-{digest}"
    which = f"only{'_'.join(map(str, only))}" if only else f"n{graphs}"
    out = CACHE / f"{generator}-s{seed}-{which}"
    for stale in CACHE.glob(f"{prefix}-*"):
        if not stale.name.startswith(generator + "-") and ".tmp" not in stale.name:
            shutil.rmtree(stale, ignore_errors=True)
    which_args = ["--only", *map(str, only)] if only else ["--graphs", str(graphs)]
    return generate_into(out, script, ["--seed", str(seed), *which_args], f"{prefix} graph generation",
                         timeout=120 + (len(only) if only else graphs))


def results_by_option_set(model_dir, manifest, options, chunk=200):
    """results(option set name) -> per graph the LiteRT worker's result with options[name],
    run once per option set, `chunk` graphs per worker process."""
    runs = {}

    def results(option_set):
        require_runtime("litert")
        if option_set not in runs:
            names = [n for n, e in manifest.items() if "error" not in e]
            runs[option_set] = {}
            for i in range(0, len(names), chunk):
                runs[option_set].update(run_worker("litert", model_dir, names[i:i + chunk], options[option_set]))
        return runs[option_set]
    return results

