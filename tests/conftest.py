"""Shared fixtures: the generated models (cached in tests/.cache/models-<hash of
models.py>) and worker runs per runtime (see procs.py)."""
import json
import shutil

import pytest

import models
from procs import CACHE, generate_into, require_runtime, run_worker


# ---------------------------------------------------------------------------
# Models.

@pytest.fixture(scope="session")
def model_dir():
    out = CACHE / f"models-{models.source_hash()}"
    for stale in CACHE.glob("models-*"):
        if stale.name != out.name and ".tmp" not in stale.name:
            shutil.rmtree(stale, ignore_errors=True)
    return generate_into(out, "models.py", [], "model generation")


@pytest.fixture(scope="session")
def manifest(model_dir):
    return json.loads((model_dir / "manifest.json").read_text())["models"]


class WorkerResults:
    """Worker runs, made once per (runtime, via, options) and then reused."""

    def __init__(self, model_dir, manifest):
        self.model_dir, self.names, self._runs = model_dir, list(manifest), {}

    def get(self, runtime, options=None, via="load", names=None):
        """Per model, the worker's result (all models unless `names`)."""
        require_runtime(runtime)
        names = tuple(names or self.names)
        key = (runtime, via, json.dumps(options or {}, sort_keys=True), names)
        if key not in self._runs:
            self._runs[key] = run_worker(runtime, self.model_dir, names, options, via)
        return self._runs[key]


@pytest.fixture(scope="session")
def worker_results(model_dir, manifest):
    return WorkerResults(model_dir, manifest)
