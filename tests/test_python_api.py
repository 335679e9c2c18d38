"""The fusedelegate Python package: options, errors, paths, and options arriving
through a runtime's own load_delegate."""
import os
import re
import textwrap
from pathlib import Path

import pytest

import fusedelegate
from checks import check_result, counts, cpu_has
from procs import require_runtime, run_python

BAD_VALUES = [
    ("num_threads", "x"),
    ("isa", "sse9"),
    ("fusions", "bogus"),
    ("min_nodes_per_partition", "0"),
    ("log", "loud"),
]
GOOD_OPTIONS = [
    {},
    {"num_threads": 1},
    {"num_threads": "2"},
    {"isa": "auto"},
    {"isa": "scalar"},
    {"fusions": "all"},
    {"fusions": "elementwise"},
    {"fusions": ["elementwise"]},
    {"min_nodes_per_partition": 1},
    {"min_nodes_per_partition": "3"},
    {"log": "quiet"},
    {"num_threads": 1, "isa": "scalar", "fusions": "all", "min_nodes_per_partition": 2,
     "log": "quiet"},
]


def test_version():
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", fusedelegate.__version__)


def test_library_path_exists():
    path = Path(fusedelegate.library_path())
    assert path.name == "libfusedelegate.so"
    assert path.is_file(), f"{path} missing: build the library first"


def test_default_model_bundled(model_dir):
    path = Path(fusedelegate.default_model_path())
    regenerate = f"regenerate: python tests/models.py --default-model {path}"
    assert path.is_file(), f"{path} missing; {regenerate}"
    assert 0 < path.stat().st_size < 200 * 1024
    # the same bytes as the generator's default_block (tested in test_runtimes)
    assert path.read_bytes() == (model_dir / "default_block.tflite").read_bytes(), regenerate


@pytest.mark.parametrize("options", GOOD_OPTIONS, ids=str)
def test_good_options(options):
    d = fusedelegate.load(**options)
    assert d._get_native_delegate_pointer()
    assert isinstance(d, fusedelegate.Delegate)


@pytest.mark.parametrize("isa,flag", [("avx2", "avx2"), ("avx512", "avx512f")])
def test_isa_the_cpu_has(isa, flag):
    if not cpu_has(flag):
        pytest.skip(f"this CPU has no {flag}")
    assert fusedelegate.load(isa=isa)._get_native_delegate_pointer()


def test_options_as_one_dict_as_load_delegate_takes_them():
    d = fusedelegate.load({"num_threads": 1, "log": "quiet"}, fusions="all")
    assert d.options == {"num_threads": "1", "log": "quiet", "fusions": "all"}
    with pytest.raises(fusedelegate.DelegateOptionError) as e:
        fusedelegate.load({"isa": "bogus"})
    assert "isa" in str(e.value)
    with pytest.raises(fusedelegate.DelegateOptionError) as e:
        fusedelegate.load(options={"num_threads": 1})  # load_delegate's keyword: a hint, not "unknown option"
    assert "as keywords" in str(e.value)
    with pytest.raises(fusedelegate.DelegateOptionError):
        fusedelegate.load(["num_threads"])


def test_unknown_key():
    with pytest.raises(fusedelegate.DelegateOptionError) as e:
        fusedelegate.load(bogus_key=1)
    assert isinstance(e.value, ValueError)
    assert "bogus_key" in str(e.value)


def test_option_keys_are_the_librarys():
    """OPTION_KEYS lists the keys the library's own table holds, in its order (the library names
    them when it refuses a key), and the library takes each of them."""
    with pytest.raises(fusedelegate.DelegateOptionError) as e:
        fusedelegate.load(bogus_key=1)
    named = str(e.value).split("accepted options: ")[1].strip()
    assert tuple(k.strip() for k in named.split(",")) == fusedelegate.OPTION_KEYS
    values = {"num_threads": 1, "isa": "auto", "fusions": "all", "min_nodes_per_partition": 3, "log": "quiet",
              "plan_file": "unused.json", "profile_file": "unused.json"}
    assert set(values) == set(fusedelegate.OPTION_KEYS)
    for key in fusedelegate.OPTION_KEYS:
        fusedelegate.load(**{key: values[key]})


@pytest.mark.parametrize("key,value", BAD_VALUES)
def test_bad_value(key, value):
    with pytest.raises(fusedelegate.DelegateOptionError) as e:
        fusedelegate.load(**{key: value})
    assert isinstance(e.value, ValueError)
    assert key in str(e.value)


def test_error_classes():
    assert issubclass(fusedelegate.DelegateOptionError, ValueError)
    assert issubclass(fusedelegate.LibraryError, OSError)


def test_missing_library(tmp_path):
    missing = tmp_path / "nowhere" / "libfusedelegate.so"
    script = textwrap.dedent("""
        import fusedelegate
        try:
            fusedelegate.load()
        except fusedelegate.LibraryError as e:
            print("LibraryError", isinstance(e, OSError), e)
        else:
            print("loaded")
    """)
    proc = run_python(["-c", script], timeout=60, env={"FUSEDELEGATE_LIBRARY": str(missing)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("LibraryError True"), proc.stdout
    assert str(missing) in proc.stdout


def test_library_loaded_on_import_follows_a_relative_path(tmp_path):
    """The library is loaded when the package is imported; a relative
    FUSEDELEGATE_LIBRARY still names the file from the working directory of
    each load() (after a chdir to where it is missing: LibraryError)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    os.symlink(fusedelegate.library_path(), tmp_path / "a" / "libfusedelegate.so")
    script = textwrap.dedent(f"""
        import os
        os.chdir({str(tmp_path / "a")!r})
        import fusedelegate
        fusedelegate.load()
        os.chdir("../b")
        try:
            fusedelegate.load()
        except fusedelegate.LibraryError as e:
            print("LibraryError", e)
        else:
            print("loaded")
    """)
    proc = run_python(["-c", script], timeout=60, env={"FUSEDELEGATE_LIBRARY": "libfusedelegate.so"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("LibraryError"), proc.stdout
    assert str(tmp_path / "b" / "libfusedelegate.so") in proc.stdout


# --- through the runtime's own load_delegate (LiteRT), in a subprocess ---

def test_load_delegate_bad_option():
    require_runtime("litert")
    script = textwrap.dedent("""
        import fusedelegate
        from ai_edge_litert.interpreter import load_delegate
        try:
            load_delegate(fusedelegate.library_path(), {"isa": "bogus"})
        except ValueError as e:
            print("ValueError", e)
        else:
            print("loaded")
    """)
    proc = run_python(["-c", script], timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ValueError"), proc.stdout
    assert "isa" in proc.stdout.replace(fusedelegate.library_path(), "")


def test_load_delegate_claims_nodes(worker_results, manifest):
    names = ["chain_5", "op_gelu", "dynamic_batch"]
    results = worker_results.get("litert", {"num_threads": "1"}, via="load_delegate", names=names)
    for name in names:
        check_result(results[name], manifest[name], counts(manifest[name]))
        assert results[name]["claimed"] > 0
