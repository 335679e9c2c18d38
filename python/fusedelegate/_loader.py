"""Loads libfusedelegate.so through its TFLite plugin entry points.

The delegate is created with ctypes, not through a runtime's load_delegate, so
`fusedelegate` imports no runtime and its object works with all three
interpreters (each takes any object with `_get_native_delegate_pointer()`).
Options are validated by the library itself, the one place that knows them.
"""
from __future__ import annotations

import ctypes
import os
from collections.abc import Mapping
from pathlib import Path

_HERE = Path(__file__).resolve().parent
_LIBRARY_NAME = "libfusedelegate.so"

# Keys the library accepts, in its order (it is the authority: tests/test_python_api.py checks
# this list against the one its unknown-key message names).
OPTION_KEYS = ("num_threads", "isa", "fusions", "min_nodes_per_partition", "log", "plan_file", "profile_file")


class DelegateOptionError(ValueError):
    """An unknown option key or a bad value; the message names the key."""


class LibraryError(OSError):
    """The shared library is missing or cannot be loaded; says which file and why."""


def library_path() -> str:
    """Path of libfusedelegate.so (for load_delegate and benchmark_model)."""
    override = os.environ.get("FUSEDELEGATE_LIBRARY")
    return str(Path(override).resolve()) if override else str(_HERE / _LIBRARY_NAME)


def default_model_path() -> str:
    """The bundled default model: an elementwise-heavy block our generator made."""
    return str(_HERE / "data" / "default_model.tflite")


_ERROR_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_char_p)
_lib_cache: dict[str | None, ctypes.CDLL] = {}


def _library() -> ctypes.CDLL:
    # Keyed by the variable as written where that names one file whatever the
    # working directory (resolving the path costs more than creating the delegate).
    key = os.environ.get("FUSEDELEGATE_LIBRARY")
    if key and not os.path.isabs(key):
        key = library_path()
    if key in _lib_cache:
        return _lib_cache[key]
    path = library_path()
    if not os.path.exists(path):
        raise LibraryError(f"fusedelegate library not found: {path} (was the package built? "
                           "reinstall with `pip install .`)")
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise LibraryError(f"cannot load fusedelegate library {path}: {e}") from None
    try:
        create = lib.tflite_plugin_create_delegate
        destroy = lib.tflite_plugin_destroy_delegate
    except AttributeError:
        raise LibraryError(f"{path} does not export the TFLite plugin entry points "
                           "tflite_plugin_create_delegate / tflite_plugin_destroy_delegate") from None
    create.restype = ctypes.c_void_p
    create.argtypes = [ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p),
                       ctypes.c_size_t, _ERROR_CALLBACK]
    destroy.restype = None
    destroy.argtypes = [ctypes.c_void_p]
    _lib_cache[key] = lib
    return lib


def _option_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


class Delegate:
    """A created fusedelegate, to pass in `experimental_delegates=[...]`."""

    def __init__(self, options: Mapping[str, object]) -> None:
        lib = _library()
        self._destroy = lib.tflite_plugin_destroy_delegate
        self.options = {str(k): _option_text(v) for k, v in options.items()}
        keys = [k.encode() for k in self.options]
        values = [v.encode() for v in self.options.values()]
        n = len(keys)
        errors: list[str] = []
        # No options, nothing to report: a ctypes callback costs 0.2 ms to make, a
        # tenth of a small model's start.
        # Nor are arrays made for no options (a first array type costs 0.05 ms).
        callback = _ERROR_CALLBACK(lambda msg: errors.append(msg.decode(errors="replace"))) if n else _ERROR_CALLBACK()
        key_array = (ctypes.c_char_p * n)(*keys) if n else None
        value_array = (ctypes.c_char_p * n)(*values) if n else None
        handle: int | None = lib.tflite_plugin_create_delegate(key_array, value_array, n, callback)
        if not handle:
            raise DelegateOptionError("; ".join(errors) or "fusedelegate: delegate creation failed")
        self._handle = handle  # 0 once destroyed

    def _get_native_delegate_pointer(self) -> int:
        return self._handle

    def __del__(self) -> None:
        handle = getattr(self, "_handle", None)
        if handle:
            self._handle = 0
            self._destroy(handle)

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v}" for k, v in self.options.items())
        return f"fusedelegate.Delegate({opts})"


def load(option_dict: dict[str, object] | None = None, /, **options: object) -> Delegate:
    """Create the delegate. Options (strings, ints or bools) as in the README:
    num_threads, isa, fusions, min_nodes_per_partition, log; as keywords,
    load(num_threads=2), or as the one dict a runtime's load_delegate takes,
    load({"num_threads": 2}). Raises DelegateOptionError (a ValueError) for a
    bad option, LibraryError (an OSError) when the library is missing or broken."""
    if "options" in options and isinstance(options["options"], dict):
        raise DelegateOptionError("fusedelegate: load() takes options as keywords, load(num_threads=2), "
                                  "or as one dict, load({'num_threads': 2}), not options={...}")
    if option_dict is not None and not isinstance(option_dict, dict):
        raise DelegateOptionError(f"fusedelegate: load() takes a dict of options, not {type(option_dict).__name__}")
    return Delegate({**(option_dict or {}), **options})


def _load_on_import() -> None:
    """The library is loaded when the package is imported, as a runtime loads
    its own kernels when it is imported: load() then only creates (a small
    model's start would otherwise carry the 0.5 ms of the library's loading).
    A missing or broken library is reported by load(), not by the import."""
    try:
        _library()
    except OSError:
        pass


_load_on_import()
