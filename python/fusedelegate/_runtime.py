"""Picks a TFLite runtime without importing the others (two in one process can
break each other: tensorflow + tflite_runtime)."""
from __future__ import annotations

import importlib
from types import ModuleType

# name -> module holding Interpreter and OpResolverType
RUNTIMES = {
    "litert": "ai_edge_litert.interpreter",
    "tflite": "tflite_runtime.interpreter",
    "tf": "tensorflow.lite.python.interpreter",
}

# Each runtime's top module -> the distributions that may install it.
DISTRIBUTIONS = {
    "ai_edge_litert": ("ai-edge-litert",),
    "tflite_runtime": ("tflite-runtime",),
    "tensorflow": ("tensorflow-cpu", "tensorflow"),
}


class RuntimeUnavailable(RuntimeError):
    pass


def load_runtime(name: str = "auto") -> tuple[str, ModuleType]:
    """Returns (name, interpreter module). 'auto' tries litert, tflite, tf."""
    names = list(RUNTIMES) if name == "auto" else [name]
    if name != "auto" and name not in RUNTIMES:
        raise RuntimeUnavailable(f"unknown runtime '{name}'; choose from auto, {', '.join(RUNTIMES)}")
    errors: list[str] = []
    for n in names:
        try:
            return n, importlib.import_module(RUNTIMES[n])
        except Exception as e:  # ImportError, or a broken install
            errors.append(f"{n}: {e}")
    raise RuntimeUnavailable("no TFLite runtime could be imported (" + "; ".join(errors) +
                             "); install one: pip install 'fusedelegate[litert]'")


def load_runtime_name() -> str:
    """The runtime 'auto' means here, found without importing it."""
    import importlib.util
    for name, module in RUNTIMES.items():
        if importlib.util.find_spec(module.split(".")[0]) is not None:
            return name
    raise RuntimeUnavailable("no TFLite runtime is installed; install one: pip install 'fusedelegate[litert]'")


def installed_distribution(module: str) -> tuple[str, str] | None:
    """(distribution, version) of the first of DISTRIBUTIONS[module] installed, from its
    metadata (the module is not imported), or None."""
    import importlib.metadata  # 40 ms: only here, not on every command's start

    for name in DISTRIBUTIONS[module]:
        try:
            return name, importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None
