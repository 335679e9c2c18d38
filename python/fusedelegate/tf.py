"""fusedelegate for full TensorFlow: a Grappler pass that replaces fusible
subgraphs with fused ops running on the same runtime as the TFLite delegate.

    import fusedelegate.tf as fdt
    fdt.enable(num_threads=1)          # or: with fdt.enabled(num_threads=1): ...
    model = tf.saved_model.load(path)  # or a Keras model, or any tf.function
    y = model(x)                       # fusible subgraphs now run as fused ops

enable() turns the pass on for tf.function calls made from this thread (TF's
function-call options are per thread); for tf.compat.v1.Session use
session_config(). Options are those of fusedelegate.load(): num_threads,
isa, fusions, min_nodes_per_partition, log. The pass only rewrites graphs
(eager ops run as they are) and leaves any graph it cannot handle unchanged,
logging why (log="info" or "verbose" for more).
"""
from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from . import _loader
from ._runtime import installed_distribution

OPTIMIZER_NAME = "fusedelegate"
_LIBRARY_NAME = "libfusedelegate_tf.so"
# The TensorFlow version the library was built against, as tf.__version__ gave it: the
# text of its exported fd_tf_built_against (delegate/frontends/tf/tf_partition_op.cc).
# Read from the file's bytes, not by loading the library to read the symbol: loading
# runs its op and pass registrations against the installed TensorFlow before the check
# could refuse a mismatch (and a later tf.load_op_library would then register nothing).
_VERSION_MARKER = re.compile(rb"fusedelegate-tf-built-against=([0-9A-Za-z.+\-]+)")
_loaded: dict[str, Any] = {}  # path -> the op module; one copy per process (a second registration aborts TF)


class TensorFlowVersionError(RuntimeError):
    """libfusedelegate_tf.so was built against another TensorFlow than the one installed."""


def library_path() -> str:
    """Path of libfusedelegate_tf.so: FUSEDELEGATE_TF_LIBRARY, else beside libfusedelegate.so."""
    override = os.environ.get("FUSEDELEGATE_TF_LIBRARY")
    if override:
        return str(Path(override).resolve())
    return str(Path(_loader.library_path()).parent / _LIBRARY_NAME)


def built_against(path: str | None = None) -> str | None:
    """The TensorFlow version the library was compiled against (read from the file), or None."""
    match = _VERSION_MARKER.search(Path(path or library_path()).read_bytes())
    return match.group(1).decode() if match else None


def installed_version() -> str | None:
    """The installed TensorFlow's version from its distribution's metadata (tensorflow-cpu or
    tensorflow), without importing it; None when neither is installed."""
    found = installed_distribution("tensorflow")
    return found[1] if found else None


def same_version(built: str, installed: str) -> bool:
    """Whether tf.__version__'s text ("2.16.0-rc0", what the library records) and a
    distribution's version ("2.16.0rc0") name the same release."""
    def normalized(version: str) -> str:
        return re.sub(r"[-_.]?(rc|dev)", r"\1", version.lower())
    return normalized(built) == normalized(installed)


def check_version(path: str) -> None:
    """Raises TensorFlowVersionError unless the library at `path` was built against the
    installed TensorFlow (read from its metadata; from tensorflow itself only without one)."""
    built, installed = built_against(path), installed_version()
    if installed is None:  # no distribution metadata (a TensorFlow built from source?)
        import tensorflow as tf

        installed = str(tf.__version__)
    if built is None or not same_version(built, installed):
        raise TensorFlowVersionError(
            f"{path} was built against TensorFlow {built}, but TensorFlow {installed} is installed; "
            "rebuild it against this TensorFlow: `pip install --force-reinstall --no-deps .` in the source tree.")


def load_library() -> Any:
    """Loads the op library once (checking its TensorFlow version); returns its op module."""
    path = library_path()
    if path in _loaded:
        return _loaded[path]
    if _loaded:
        raise _loader.LibraryError(f"fusedelegate: {next(iter(_loaded))} is already loaded; cannot also load {path}")
    if not os.path.exists(path):
        raise _loader.LibraryError(
            f"fusedelegate TensorFlow library not found: {path}. It is built when the package is built "
            "where tensorflow imports: reinstall with `pip install '.[tf]'` (or `pip install .` with "
            "tensorflow installed).")
    check_version(path)
    import tensorflow as tf

    _loaded[path] = tf.load_op_library(path)
    return _loaded[path]


def _add_optimizer(config: Any, options: dict[str, str]) -> Any:
    """Adds the pass (with `options`) to a ConfigProto's rewriter options, in place."""
    rewrite = config.graph_options.rewrite_options
    kept = [o for o in rewrite.custom_optimizers if o.name != OPTIMIZER_NAME]
    del rewrite.custom_optimizers[:]
    rewrite.custom_optimizers.extend(kept)
    ours = rewrite.custom_optimizers.add()
    ours.name = OPTIMIZER_NAME
    for key, value in options.items():
        ours.parameter_map[key].s = value.encode()
    rewrite.min_graph_nodes = -1  # Grappler skips graphs under 4 nodes otherwise
    return config


def _checked_options(options: dict[str, object]) -> dict[str, str]:
    """Options as strings, validated by the native library (the one authority)."""
    _loader.Delegate(options)
    return {str(k): _loader._option_text(v) for k, v in options.items()}


def session_config(config: Any = None, **options: object) -> Any:
    """A tf.compat.v1.ConfigProto (a copy of `config`, if given) running the pass."""
    import tensorflow as tf

    load_library()
    checked = _checked_options(options)
    out = tf.compat.v1.ConfigProto()
    if config is not None:
        out.CopyFrom(config)
    return _add_optimizer(out, checked)


def _call_options() -> Any:
    from tensorflow.python.eager import context

    return context.context().function_call_options


def _set_function_config(config: Any) -> None:
    from tensorflow.python.eager import context

    ctx = context.context()
    call_options = ctx.function_call_options
    call_options.config_proto_serialized = config
    ctx.function_call_options = call_options


def _function_config() -> Any:
    import tensorflow as tf

    config = tf.compat.v1.ConfigProto()
    config.ParseFromString(_call_options().config_proto_serialized)
    return config


def enable(**options: object) -> None:
    """Runs the pass on tf.function graphs called from this thread from now on."""
    load_library()
    _set_function_config(_add_optimizer(_function_config(), _checked_options(options)))


def disable() -> None:
    """Stops running the pass on this thread's tf.function calls."""
    config = _function_config()
    rewrite = config.graph_options.rewrite_options
    kept = [o for o in rewrite.custom_optimizers if o.name != OPTIMIZER_NAME]
    del rewrite.custom_optimizers[:]
    rewrite.custom_optimizers.extend(kept)
    _set_function_config(config)


def is_enabled() -> bool:
    """Whether this thread's tf.function calls run the pass."""
    return any(o.name == OPTIMIZER_NAME for o in _function_config().graph_options.rewrite_options.custom_optimizers)


@contextlib.contextmanager
def enabled(**options: object) -> Iterator[None]:
    """Runs the pass on tf.function calls inside the block, then restores the previous settings."""
    previous = _function_config()
    enable(**options)
    try:
        yield
    finally:
        _set_function_config(previous)
