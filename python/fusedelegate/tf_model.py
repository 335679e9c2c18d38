"""A SavedModel directory or a .keras file for `fusedelegate bench --tf` / `plan --tf`:
loaded as one flat function of its inputs, with seeded random inputs from its signature.
TensorFlow is imported only here, and only when such a model is given."""
from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # before TensorFlow is imported

import numpy as np

from .bench import BenchError

if TYPE_CHECKING:
    from numpy.typing import NDArray

    # A model as one call: its inputs -> (its outputs, flat, and the object keeping it alive).
    ModelCall = Callable[[list[Any]], tuple[list[Any], object]]
    # An input as the model declares it: name, shape (maybe with unknown dimensions), dtype.
    InputDecl = tuple[str, Any, Any]


def import_tensorflow() -> Any:  # the tensorflow module (untyped)
    """TensorFlow, its start-up lines held back (TF_CPP_MIN_LOG_LEVEL does not silence
    absl's early ones, nor oneDNN's "custom operations are on" on CPUs it enables): the
    command's own output and errors stay its own. Shown if the import fails."""
    if "tensorflow" in sys.modules:
        return sys.modules["tensorflow"]
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            import tensorflow as tf
        except BaseException:
            os.dup2(saved, 2)
            held.seek(0)
            sys.stderr.buffer.write(held.read())
            raise
        finally:
            os.dup2(saved, 2)
            os.close(saved)
    return tf


def model_kind(path: str) -> str:
    """'saved_model' or 'keras'; a clear BenchError for anything else."""
    if not os.path.exists(path):
        raise BenchError(f"model not found: {path}")
    if os.path.isdir(path):
        if not os.path.isfile(os.path.join(path, "saved_model.pb")):
            raise BenchError(f"not a SavedModel directory (no saved_model.pb): {path}")
        return "saved_model"
    if path.endswith(".keras"):
        return "keras"
    raise BenchError(f"--tf needs a SavedModel directory or a .keras file: {path}")


def _load_saved_model(tf: ModuleType, path: str) -> tuple[ModelCall, list[InputDecl]]:
    loaded = tf.saved_model.load(path)
    sig = loaded.signatures.get("serving_default")
    if sig is None:
        raise BenchError(f"{path} has no serving_default signature")
    specs = sorted(sig.structured_input_signature[1].items())
    names = [name for name, _ in specs]

    def call(xs: list[Any]) -> tuple[list[Any], object]:
        out = sig(**dict(zip(names, xs)))
        return [out[k] for k in sorted(out)], loaded  # keeps the loaded object alive
    return call, [(name, spec.shape, spec.dtype) for name, spec in specs]


def _load_keras(tf: ModuleType, path: str) -> tuple[ModelCall, list[InputDecl]]:
    model = tf.keras.models.load_model(path, compile=False)

    def call(xs: list[Any]) -> tuple[list[Any], object]:
        return tf.nest.flatten(model(xs if len(xs) > 1 else xs[0], training=False)), model
    return call, [(t.name, t.shape, tf.as_dtype(t.dtype)) for t in model.inputs]


def resolved_specs(tf: ModuleType, inputs: Sequence[InputDecl]) -> list[Any]:
    """TensorSpecs with an unknown batch set to 1; any other unknown dimension is an error."""
    specs = []
    for name, shape, dtype in inputs:
        dims = list(tf.TensorShape(shape).as_list())
        if dims and dims[0] is None:
            dims[0] = 1
        if None in dims:
            raise BenchError(f"input '{name}' has an unknown dimension besides the batch: {shape}")
        specs.append(tf.TensorSpec(dims, dtype, name=name))
    return specs


def load_tf_model(path: str) -> tuple[Callable[..., Any], list[Any]]:
    """(fn_of(jit_compile) -> a tf.function of the inputs returning a flat list, input specs)."""
    kind = model_kind(path)
    tf = import_tensorflow()
    try:
        call, inputs = (_load_saved_model if kind == "saved_model" else _load_keras)(tf, path)
    except BenchError:
        raise
    except Exception as e:  # a corrupt file, an unknown layer...
        text = str(e).strip()
        raise BenchError(f"cannot load {path}: {text.splitlines()[0] if text else type(e).__name__}") from None
    specs = resolved_specs(tf, inputs)

    def fn_of(jit_compile: bool = False) -> Any:
        return tf.function(lambda *xs: call(list(xs))[0], input_signature=specs, jit_compile=jit_compile)
    return fn_of, specs


def random_inputs(specs: Sequence[Any], ranges: dict[str, tuple[float, float]], seed: int = 0) -> list[NDArray[Any]]:
    """Seeded inputs; `ranges` maps input name -> (lo, hi), '' the default."""
    rng = np.random.default_rng(seed)
    out: list[NDArray[Any]] = []
    for s in specs:
        lo, hi = ranges.get(s.name, ranges[""])
        dtype = np.dtype(s.dtype.as_numpy_dtype)
        if dtype.kind == "f":
            out.append(rng.uniform(lo, hi, s.shape).astype(dtype))
        elif dtype.kind in "iu":
            out.append(rng.integers(int(lo), int(hi) + 1, s.shape).astype(dtype))
        elif dtype.kind == "b":
            out.append(rng.integers(0, 2, s.shape).astype(bool))
        else:
            raise BenchError(f"cannot fill input '{s.name}' of type {dtype.name}")
    return out


def optimized_graphs(fn: Any, xs: Sequence[Any]) -> list[Any]:
    """Calls fn(*xs) and returns the graphs TensorFlow ran, after Grappler."""
    from tensorflow.python.eager import context
    ctx = context.context()
    ctx.enable_graph_collection()
    try:
        fn(*xs)
        meta = ctx.export_run_metadata()
    finally:
        ctx.disable_graph_collection()
    return [g.post_optimization_graph for g in meta.function_graphs]
