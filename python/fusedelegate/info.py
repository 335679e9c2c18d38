"""`fusedelegate info`: what a bug report needs to know about this installation.

Versions come from the distributions' metadata: no runtime is imported for them.
The ISA is the library's own choice, as the plan it writes for the bundled model
names it; that needs one TFLite runtime, imported as `fusedelegate plan` does.
"""
from __future__ import annotations

import hashlib
import os
import platform
from pathlib import Path
from typing import Any

from . import __version__, default_model_path, library_path
from . import tf as fdt
from ._runtime import DISTRIBUTIONS, installed_distribution
from .plan import delegate_plan

CACHE_FOLDER = Path("/sys/devices/system/cpu/cpu0/cache")
CACHE_TYPE_SUFFIX = {"Data": "d", "Instruction": "i"}  # a Unified cache has none: L2, L3


def runtimes() -> dict[str, dict[str, str] | None]:
    """Per runtime module, the distribution installing it and its version (None: not installed)."""
    found = {module: installed_distribution(module) for module in DISTRIBUTIONS}
    return {module: {"distribution": d[0], "version": d[1]} if d else None for module, d in found.items()}


def file_identity(path: str) -> dict[str, Any]:
    """The library file: its path, whether it is there, its size and a short sha256 (the
    library has no version of its own to ask)."""
    if not os.path.isfile(path):
        return {"path": path, "present": False, "bytes": None, "sha256": None}
    data = Path(path).read_bytes()
    return {"path": path, "present": True, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()[:12]}


def cpu_model() -> str:
    """/proc/cpuinfo's model name with its family and model where it has them (a
    cloud AMD part names itself only "AMD EPYC"), else what the platform module knows."""
    fields: dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    name = fields.get("model name")
    if not name:
        return platform.processor() or platform.machine()
    if "cpu family" in fields and "model" in fields:
        return f"{name} (family {fields['cpu family']} model {fields['model']})"
    return name


def cpu_caches(folder: Path = CACHE_FOLDER) -> dict[str, str]:
    """CPU 0's caches as sysfs lists them: {"L1d": "48K", "L1i": "32K", "L2": ..., "L3": ...}."""
    caches = {}
    for index in sorted(folder.glob("index*")):
        try:
            level, kind, size = ((index / name).read_text().strip() for name in ("level", "type", "size"))
        except OSError:
            continue
        caches[f"L{level}{CACHE_TYPE_SUFFIX.get(kind, '')}"] = size
    return caches


def chosen_isa() -> tuple[str | None, str | None]:
    """(the ISA the library runs with default options, None) or (None, why it is unknown)."""
    try:
        return str(delegate_plan(default_model_path())["isa"]), None
    except Exception as e:  # no runtime, a broken library: reported, not raised
        text = str(e).strip()
        return None, text.splitlines()[0] if text else type(e).__name__


def tf_library() -> dict[str, Any]:
    """libfusedelegate_tf.so: where, whether it is there, and its TensorFlow against the installed one."""
    path = fdt.library_path()
    present = os.path.isfile(path)
    built = fdt.built_against(path) if present else None
    installed = fdt.installed_version()
    matches = bool(built and installed and fdt.same_version(built, installed))
    return {"path": path, "present": present, "built_against": built, "installed_tensorflow": installed,
            "matches": matches}


def collect() -> dict[str, Any]:
    """Everything `fusedelegate info` reports (what --json prints)."""
    isa, isa_error = chosen_isa()
    return {"version": __version__, "library": file_identity(library_path()),
            "python": platform.python_version(), "platform": platform.platform(),
            "cpu": {"model": cpu_model(), "caches": cpu_caches()}, "isa": isa, "isa_error": isa_error,
            "runtimes": runtimes(), "tf_library": tf_library()}


def library_line(library: dict[str, Any]) -> str:
    if not library["present"]:
        return f"{library['path']} (missing)"
    return f"{library['path']} ({library['bytes']} bytes, sha256 {library['sha256']})"


def runtime_lines(found: dict[str, dict[str, str] | None]) -> list[str]:
    return [f"{module}: {d['distribution']} {d['version']}" if d else f"{module}: not installed"
            for module, d in found.items()]


def tf_library_line(lib: dict[str, Any]) -> str:
    if not lib["present"]:
        return f"{lib['path']}: not built"
    built, installed = lib["built_against"], lib["installed_tensorflow"]
    if installed is None:
        return f"{lib['path']}: built against TensorFlow {built}; TensorFlow is not installed"
    verdict = "matches" if lib["matches"] else "does not match: rebuild it against the installed TensorFlow"
    return f"{lib['path']}: built against TensorFlow {built}, installed {installed}: {verdict}"


def format_info(info: dict[str, Any]) -> str:
    caches = ", ".join(f"{name} {size}" for name, size in info["cpu"]["caches"].items()) or "unknown"
    isa = f"{info['isa']} (chosen by isa:auto)" if info["isa"] else f"unknown ({info['isa_error']})"
    runtime_rows = runtime_lines(info["runtimes"])
    rows = [("fusedelegate", info["version"]), ("library", library_line(info["library"])),
            ("python", f"{info['python']} on {info['platform']}"), ("cpu", info["cpu"]["model"]),
            ("caches", caches), ("isa", isa), ("runtimes", runtime_rows[0]),
            *(("", row) for row in runtime_rows[1:]), ("tf library", tf_library_line(info["tf_library"]))]
    return "\n".join(f"{name:<14}{value}" for name, value in rows)
