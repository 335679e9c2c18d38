"""The package's type hints: mypy, with pyproject.toml's [tool.mypy], finds no error, and
the package carries its py.typed marker (PEP 561) so that users' type checkers read them."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import fusedelegate
from procs import TESTS

ROOT = TESTS.parent


def test_mypy_finds_no_error():
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed: pip install -r scripts/requirements-dev.txt")
    proc = subprocess.run([sys.executable, "-m", "mypy", "--config-file", "pyproject.toml", "python/fusedelegate"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "error:" not in proc.stdout and proc.stdout.startswith("Success: no issues found"), proc.stdout


def test_the_package_is_marked_typed():
    """In the package imported: the installed one (the wheel ships every file of
    python/fusedelegate) or, through PYTHONPATH, the source tree's."""
    assert (Path(fusedelegate.__file__).parent / "py.typed").is_file()
