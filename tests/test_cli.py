"""The `fusedelegate` command end to end: bench and plan on generated models,
their JSON/CSV/DOT output, and one-line errors for bad input. No timing checks."""
import csv
import hashlib
import importlib.metadata
import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

import pytest

import fusedelegate
from checks import cpu_has
from procs import TESTS, require_runtime, run_python, subprocess_env

CONFIGS = ["builtin", "xnnpack", "fusedelegate", "fusedelegate+xnnpack"]


def cli(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "fusedelegate", *map(str, args)], env=subprocess_env(),
                          capture_output=True, text=True, timeout=timeout)


def assert_one_line_error(proc, *words):
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fusedelegate: "), proc.stderr
    assert "Traceback" not in proc.stderr
    for w in words:
        assert w in lines[0], lines[0]


@pytest.fixture(scope="module")
def chain(model_dir, manifest):
    return model_dir / "chain_8.tflite", manifest["chain_8"]


def expect_csv_matches_json(table, result):
    """Every column of every row of the --csv table is the JSON's value of the same name."""
    rows = list(csv.DictReader(table.open()))
    assert [r["configuration"] for r in rows] == list(result["configurations"])
    tf = "tf" in result["configurations"]
    for row in rows:
        c = result["configurations"][row["configuration"]]
        errors = c["accuracy_vs_tf" if tf else "accuracy_vs_builtin"]
        want = {"max_rel_error": max((a["max_rel"] for a in errors), default=0.0)}
        want.update({f"{k}_ms": v for k, v in c["latency_ms"].items()})
        want.update({f"ratio_vs_{k}": v for k, v in c["ratio_vs"].items()})
        want.update({k: v for k, v in c.items() if k in row and not isinstance(v, (dict, list))})
        assert set(row) == set(want) | {"configuration"}, sorted(set(row) ^ set(want))
        for key, value in want.items():
            assert float(row[key]) == pytest.approx(value, rel=1e-12), (row["configuration"], key)


@pytest.mark.parametrize("runtime", ["litert", "tflite"])
def test_bench_json_has_every_configuration(tmp_path, chain, runtime):
    require_runtime(runtime)
    model, entry = chain
    out, table = tmp_path / "b.json", tmp_path / "b.csv"
    proc = cli("bench", model, "--runtime", runtime, "--num_runs", 4, "--warmup_runs", 1, "--init_runs", 2,
               "--json", out, "--csv", table, "--op_profile")
    assert proc.returncode == 0, proc.stderr
    assert "\r" not in proc.stderr  # no progress bar when stderr is not a terminal
    result = json.loads(out.read_text())
    assert result["runtime"] == runtime and result["rounds"] == 4
    assert list(result["configurations"]) == CONFIGS
    runs = result["runs_per_round"]  # chosen: enough invokes for 10 ms of the fastest configuration
    assert runs > 1  # chain_8 takes well under 10 ms
    for name, c in result["configurations"].items():
        assert len(c["times_ms"]) == 4 * runs
        for key in ("min", "median", "mean", "p90", "p99", "std"):
            assert c["latency_ms"][key] >= 0
        assert c["init_ms"] > 0 and c["first_inference_ms"] > 0 and c["peak_rss_mb"] > 0
        assert len(c["init_runs_ms"]) == 2 and c["init_ms"] == pytest.approx(sum(c["init_runs_ms"]) / 2)
        assert c["ratio_vs"]["builtin"] > 0 and c["ratio_vs"]["xnnpack"] > 0
        assert c["accuracy_vs_builtin"], name
        for acc in c["accuracy_vs_builtin"]:
            assert acc["max_rel"] <= 1e-5, (name, acc)
    fused = result["configurations"]["fusedelegate"]
    assert fused["nodes_claimed_by_fusedelegate"] == entry["expect_claimed"] == fused["nodes_claimed"]
    assert result["configurations"]["builtin"]["nodes_claimed"] == 0
    assert result["configurations"]["builtin"]["ratio_vs"]["builtin"] == 1.0
    profile = result["op_profile"]
    assert len(profile["partitions"]) == fused["partitions"] >= 1
    assert all(p["invokes"] >= 4 and p["mean_ms"] > 0 for p in profile["partitions"])
    expect_csv_matches_json(table, result)
    for c in CONFIGS:
        assert c in proc.stdout


def test_bench_default_model_and_plot(tmp_path):
    require_runtime("litert")
    pytest.importorskip("matplotlib")
    png = tmp_path / "lat.png"
    proc = cli("bench", "--runtime", "litert", "--num_runs", 2, "--warmup_runs", 0, "--plot", png)
    assert proc.returncode == 0, proc.stderr
    assert "default_model.tflite" in proc.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plan_is_the_delegates_own(tmp_path, chain, model_dir, manifest):
    require_runtime("litert")
    model, entry = chain
    out, dot = tmp_path / "p.json", tmp_path / "p.dot"
    proc = cli("plan", model, "--runtime", "litert", "--json", out, "--dot", dot)
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(out.read_text())
    groups = [g["nodes"] for p in plan["partitions"] for g in p["groups"]]
    assert (plan["summary"]["claimed"], len(groups)) == (entry["expect_claimed"], entry["expect_partitions"])
    claimed = sorted(i for p in plan["partitions"] for i in p["nodes"])
    assert claimed == sorted(n for g in groups for n in g) == [n["id"] for n in plan["nodes"] if n["partition"] >= 0]
    for part in plan["partitions"]:
        for g in part["groups"]:
            assert g["program"].strip() and g["outputs"]
    assert plan["summary"]["bytes_saved"] > 0
    assert dot.read_text().startswith("digraph plan {")
    # A full-integer model: its TANH a table, the MUL and ADD of two inputs left, saying why.
    proc = cli("plan", model_dir / "int8_quantized.tflite", "--runtime", "litert", "--json", out)
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(out.read_text())
    assert plan["summary"]["claimed"] == 1
    assert [g["program"].strip() for p in plan["partitions"] for g in p["groups"]] == ["out0 = table(in0);"]
    left = [n for n in plan["nodes"] if n["partition"] < 0]
    assert [n["op"] for n in left] == ["MUL", "ADD"]
    assert all("two independent inputs" in n["reason"] for n in left), left


def test_bench_reports_int8_outputs_in_quantization_steps(tmp_path, model_dir):
    require_runtime("litert")
    out = tmp_path / "b.json"
    proc = cli("bench", model_dir / "int8_chain.tflite", "--runtime", "litert", "--num_runs", 2,
               "--warmup_runs", 1, "--init_runs", 1, "--json", out)
    assert proc.returncode == 0, proc.stderr
    assert "steps (exact)" in proc.stdout
    configs = json.loads(out.read_text())["configurations"]
    builtin = configs["builtin"]["accuracy_vs_builtin"]
    assert [(a["max_steps"], a["exact_share"]) for a in builtin] == [(0.0, 1.0)]
    for c in configs.values():
        for a in c["accuracy_vs_builtin"]:
            assert a["max_steps"] == a["max_abs"] and 0.0 <= a["exact_share"] <= 1.0, a


def test_plan_reports_policy_and_unsupported_ops(tmp_path, manifest, model_dir):
    require_runtime("litert")
    out = tmp_path / "p.json"
    proc = cli("plan", model_dir / "default_block.tflite", "--runtime", "litert", "--json", out,
               "--delegate_options", "fusions:elementwise")
    assert proc.returncode == 0, proc.stderr
    reasons = [n["reason"] for n in json.loads(out.read_text())["nodes"] if n["reason"]]
    assert any(r.startswith("fusion family 'transformer' is disabled") for r in reasons)  # the MEANs
    assert any(r.startswith("policy:") for r in reasons)
    assert "left to the interpreter:" in proc.stdout
    proc = cli("plan", model_dir / "lone_between.tflite", "--runtime", "litert", "--json", out)
    assert proc.returncode == 0, proc.stderr
    reasons = [n["reason"] for n in json.loads(out.read_text())["nodes"] if n["reason"]]
    assert any(r.startswith("unsupported op SIN") for r in reasons), reasons


def test_plan_shows_its_rewrites(tmp_path, model_dir):
    """The bundled default model's swish, x * LOGISTIC(x), is a fold of the plan: the LOGISTIC
    into the MUL (which runs as one SWISH), and every fold names nodes of the plan."""
    require_runtime("litert")
    out = tmp_path / "p.json"
    proc = cli("plan", model_dir / "default_block.tflite", "--runtime", "litert", "--json", out)
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(out.read_text())
    op = {n["id"]: n["op"] for n in plan["nodes"]}
    swish = [f for f in plan["folds"] if f["kind"] == "swish"]
    assert swish and all(op[f["into"]] == "MUL" and [op[n] for n in f["nodes"]] == ["LOGISTIC"] for f in swish)
    for f in plan["folds"]:
        if f["kind"] == "multiply_add":
            assert op[f["into"]] in ("ADD", "SUB") and [op[n] for n in f["nodes"]] == ["MUL"]
    programs = " ".join(g["program"] for p in plan["partitions"] for g in p["groups"])
    assert "Swish" in programs


def test_plan_declines_malformed_sparse_weights(tmp_path, model_dir):
    """A DENSIFY of a sparse constant with an index out of range, and a FULLY_CONNECTED reading
    sparse weights a segment short: each left with what is wrong, the rest claimed."""
    require_runtime("litert")
    model, out = tmp_path / "malformed.tflite", tmp_path / "p.json"
    make = "import sys, models; models.malformed_sparse(sys.argv[1], sys.argv[2])"
    proc = run_python(["-c", make, str(model_dir / "sparse_weights.tflite"), str(model)], timeout=300)
    assert proc.returncode == 0, proc.stderr
    proc = cli("plan", model, "--runtime", "litert", "--json", out)
    assert proc.returncode == 0, proc.stderr
    nodes = json.loads(out.read_text())["nodes"]
    reasons = {n["id"]: n["reason"] for n in nodes}
    assert reasons[0] == "DENSIFY of a malformed sparse constant: level 3: index 200 outside a dim of 16", reasons
    assert reasons[1].startswith("weights are not"), reasons  # the CONV_2D reading it
    assert reasons[11] == ("FULLY_CONNECTED of malformed sparse weights: level 1: 16 segments for 16 "
                           "positions above"), reasons
    assert [n["id"] for n in nodes if n["partition"] >= 0] == list(range(2, 11))


def test_bad_input_gives_one_line_and_nonzero_exit(tmp_path, chain):
    model, _ = chain
    assert_one_line_error(cli("bench", tmp_path / "missing.tflite"), "model not found")
    junk = tmp_path / "junk.tflite"
    junk.write_bytes(b"this is not a flatbuffer at all")
    assert_one_line_error(cli("bench", junk), "not a TFLite model")
    assert_one_line_error(cli("plan", junk), "not a TFLite model")
    truncated = tmp_path / "truncated.tflite"
    truncated.write_bytes(model.read_bytes()[:200])
    assert_one_line_error(cli("bench", truncated, "--runtime", "litert"))
    assert_one_line_error(cli("plan", truncated, "--runtime", "litert"))
    assert_one_line_error(cli("bench", model, "--bogus_flag"), "--bogus_flag")
    assert_one_line_error(cli("bench", model, "--delegate_options", "colour:red"), "colour")
    assert_one_line_error(cli("bench", model, "--delegate_options", "isa:sse9"), "isa")
    assert_one_line_error(cli("bench", model, "--input_layer_value_range", "a,b"), "input_layer_value_range")
    assert_one_line_error(cli("frobnicate"))


def test_an_input_the_tool_cannot_fill(tmp_path):
    require_runtime("litert")
    model = tmp_path / "complex.tflite"
    make = ("import tensorflow as tf, sys\n"
            "f = tf.function(lambda z: tf.math.real(z) * 2.0, input_signature=[tf.TensorSpec([4], tf.complex64)])\n"
            "c = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()])\n"
            "open(sys.argv[1], 'wb').write(c.convert())\n")
    gen = subprocess.run([sys.executable, "-c", make, str(model)], env=subprocess_env(), capture_output=True,
                         text=True, timeout=300)
    if gen.returncode != 0:
        pytest.skip(f"converter could not make a complex64 model: {gen.stderr[-300:]}")
    assert_one_line_error(cli("bench", model, "--runtime", "litert", "--num_runs", 1), "cannot fill input")


def test_python_dash_m_and_version():
    proc = subprocess.run([sys.executable, "-m", "fusedelegate", "--version"], env=subprocess_env(),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("fusedelegate ")


@pytest.fixture(scope="module")
def tf_models(tmp_path_factory):
    """A tiny Keras model as .keras and as a SavedModel (unknown batch), and what TF's own graph
    collection finds in its optimized graph with the pass."""
    require_runtime("tf")
    import fusedelegate.tf as fdt
    if not os.path.exists(fdt.library_path()):
        pytest.skip(f"{fdt.library_path()} not built")
    out = tmp_path_factory.mktemp("tf_cli")
    proc = run_python([str(TESTS / "tf_cli_models.py"), str(out)], env={"TF_CPP_MIN_LOG_LEVEL": "2"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    truth = json.loads(proc.stdout.strip().splitlines()[-1])
    assert truth["fused_ops"] >= 1 and "Softsign" in truth["ops"], truth
    return out, truth


@pytest.mark.parametrize("name", ["tiny.keras", "tiny_saved"])
def test_bench_tf_json_and_csv(tmp_path, tf_models, name):
    folder, truth = tf_models
    out, table = tmp_path / "b.json", tmp_path / "b.csv"
    proc = cli("bench", "--tf", folder / name, "--num_runs", 3, "--warmup_runs", 1, "--json", out, "--csv", table)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["rounds"] == 3 and result["runtime"].startswith("tensorflow ")
    configs = result["configurations"]
    assert list(configs) == ["tf", "tf+xla", "tf+pass"], proc.stderr
    assert configs["tf"]["ratio_vs"]["tf"] == 1.0 and configs["tf"]["fused_ops"] == 0
    assert configs["tf+pass"]["fused_ops"] == truth["fused_ops"]
    for c in configs.values():
        assert len(c["times_ms"]) == 3 * result["runs_per_round"]
        assert c["latency_ms"]["median"] > 0 and c["ratio_vs"]["tf"] > 0
        assert all(a["max_rel"] <= 1e-4 for a in c["accuracy_vs_tf"]), c["accuracy_vs_tf"]
    expect_csv_matches_json(table, result)
    assert "tf+pass" in proc.stdout


def test_plan_tf_matches_the_optimized_graph(tmp_path, tf_models):
    folder, truth = tf_models
    out = tmp_path / "p.json"
    proc = cli("plan", "--tf", folder / "tiny.keras", "--json", out)
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(out.read_text())
    assert len(plan["partitions"]) == truth["fused_ops"]
    members = [n for p in plan["partitions"] for n in p["nodes"]]
    assert members and all(n["op"] != "?" for n in members), members
    fused_types = {n["op"] for n in members}
    assert fused_types & {"Conv2D", "_FusedConv2D"} and "Softsign" not in fused_types, fused_types
    left_types = {n["op"] for n in plan["left"]}
    assert "Softsign" in left_types and left_types <= set(truth["ops"]), (left_types, truth["ops"])
    assert not {n["name"] for n in plan["left"]} & {n["name"] for n in members}
    assert f"fused into {truth['fused_ops']} FdFusedPartition op(s)" in proc.stdout
    assert "Softsign" in proc.stdout.split("\nleft to TensorFlow (")[1]


def test_tf_bad_paths_give_one_line(tmp_path, tf_models):
    folder, _ = tf_models
    assert_one_line_error(cli("bench", "--tf", tmp_path / "nothing"), "model not found")
    (tmp_path / "empty").mkdir()
    assert_one_line_error(cli("plan", "--tf", tmp_path / "empty"), "no saved_model.pb")
    text = tmp_path / "model.txt"
    text.write_text("hello")
    assert_one_line_error(cli("bench", "--tf", text), "SavedModel directory or a .keras file")
    junk = tmp_path / "junk.keras"
    junk.write_bytes(b"not a zip")
    assert_one_line_error(cli("plan", "--tf", junk), "cannot load")
    assert_one_line_error(cli("bench", "model.tflite", "--tf", folder / "tiny.keras"), "not both")
    assert_one_line_error(cli("plan"), "--tf PATH")


def test_runs_per_round_fill_ten_ms_of_the_fastest_configuration():
    from fusedelegate.bench import runs_per_round
    assert runs_per_round(0, [2.0, 0.5, 1.0]) == 20
    assert runs_per_round(0, [0.01]) == 100  # at most 100
    assert runs_per_round(0, [25.0, 40.0]) == 1
    assert runs_per_round(0, [None, None]) == 1  # no warm-up runs: one
    assert runs_per_round(3, [0.5]) == 3  # asked for


def dot_strings(text):
    """The double-quoted strings of DOT `text`, their escapes undone (\\" and \\\\; \\n a line break)."""
    unescape = {'"': '"', "\\": "\\", "n": "\n"}
    return [re.sub(r"\\(.)", lambda m: unescape.get(m.group(1), m.group(0)), s)
            for s in re.findall(r'"((?:[^"\\]|\\.)*)"', text)]


def test_plan_dot_escapes_quotes_backslashes_and_newlines():
    """A (custom) op's name and a reason holding a quote, a backslash and a line break: each
    label and tooltip one DOT string that reads back as the text."""
    from fusedelegate.plan import plan_dot
    op, reason = 'My"Op\\v2', 'unsupported op My"Op\\v2\nsee "docs\\ops"'
    plan = {"nodes": [{"id": 0, "op": "ADD", "inputs": [0], "outputs": [1], "reason": ""},
                      {"id": 1, "op": op, "inputs": [1], "outputs": [2], "reason": reason}],
            "partitions": [{"nodes": [0]}], "tensors": {"0": {"shape": [1, 4]}, "1": {"shape": [1, 4]},
                                                        "2": {"shape": [1, 4]}}}
    dot = plan_dot(plan)
    assert f"1: {op}" in dot_strings(dot) and reason in dot_strings(dot)
    assert '"1: My\\"Op\\\\v2"' in dot
    for line in dot.splitlines():  # no string runs past its line, nothing is left unquoted
        outside = re.sub(r'"(?:[^"\\]|\\.)*"', "", line)
        assert '"' not in outside and "\\" not in outside, line
    assert dot.startswith("digraph plan {") and dot.rstrip().endswith("}")


# Each runtime's module and the distributions that may install it.
RUNTIME_DISTRIBUTIONS = {"ai_edge_litert": ["ai-edge-litert"], "tflite_runtime": ["tflite-runtime"],
                         "tensorflow": ["tensorflow-cpu", "tensorflow"]}


def installed_runtimes():
    """Per runtime module, (distribution, version) as importlib.metadata gives them, or None."""
    found = {}
    for module, names in RUNTIME_DISTRIBUTIONS.items():
        found[module] = None
        for name in names:
            try:
                found[module] = (name, importlib.metadata.version(name))
                break
            except importlib.metadata.PackageNotFoundError:
                continue
    return found


def cpuinfo_model_name():
    """'model name (family F model M)' of /proc/cpuinfo's first processor."""
    fields = {}
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    if "model name" not in fields:
        return None
    if "cpu family" in fields and "model" in fields:
        return f"{fields['model name']} (family {fields['cpu family']} model {fields['model']})"
    return fields["model name"]


def isa_auto_chooses():
    """The widest ISA the CPU has, as the library's isa:auto takes it."""
    if platform.machine() == "aarch64":
        return "neon"
    if cpu_has("avx512f"):
        return "avx512"
    return "avx2" if cpu_has("avx2") and cpu_has("fma") else "scalar"


def test_info_names_versions_library_and_cpu():
    proc = cli("info", timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.startswith(f"fusedelegate  {fusedelegate.__version__}\n"), out
    library = Path(fusedelegate.library_path())
    sha = hashlib.sha256(library.read_bytes()).hexdigest()[:12]
    assert f"{library} ({library.stat().st_size} bytes, sha256 {sha})" in out, out
    for module, found in installed_runtimes().items():
        assert (f"{module}: {found[0]} {found[1]}" if found else f"{module}: not installed") in out, out
    model = cpuinfo_model_name()
    if model:
        assert f"\ncpu           {model}\n" in out, out
    if any(installed_runtimes().values()):
        assert f"\nisa           {isa_auto_chooses()} (chosen by isa:auto)\n" in out, out


def test_info_json():
    import fusedelegate.tf as fdt
    proc = cli("info", "--json", timeout=300)
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    assert {"version", "library", "python", "platform", "cpu", "isa", "runtimes", "tf_library"} <= set(info)
    assert info["version"] == fusedelegate.__version__
    assert info["library"]["path"] == fusedelegate.library_path() and info["library"]["present"]
    runtimes = installed_runtimes()
    assert info["runtimes"] == {m: {"distribution": f[0], "version": f[1]} if f else None for m, f in runtimes.items()}
    model = cpuinfo_model_name()
    if model:
        assert info["cpu"]["model"] == model
    sysfs = Path("/sys/devices/system/cpu/cpu0/cache/index0")
    if sysfs.is_dir():
        level, kind = (sysfs / "level").read_text().strip(), (sysfs / "type").read_text().strip()
        name = f"L{level}" + {"Data": "d", "Instruction": "i"}.get(kind, "")
        assert info["cpu"]["caches"][name] == (sysfs / "size").read_text().strip(), info["cpu"]
    if any(runtimes.values()):
        assert info["isa"] == isa_auto_chooses() and info["isa_error"] is None, info
    lib = info["tf_library"]
    assert lib["path"] == fdt.library_path() and lib["present"] == os.path.isfile(fdt.library_path())
    tf = runtimes["tensorflow"]
    assert lib["installed_tensorflow"] == (tf[1] if tf else None)
    if lib["present"]:
        assert lib["built_against"] == fdt.built_against()
        assert lib["matches"] == bool(tf and fdt.same_version(lib["built_against"], tf[1]))


def test_info_imports_no_runtime_for_versions():
    """The runtimes' and TensorFlow's versions come from their metadata, not their import."""
    script = ("import sys\nfrom fusedelegate.info import runtimes, tf_library\nruntimes(); tf_library()\n"
              "print(sorted(m for m in ('tensorflow', 'tflite_runtime', 'ai_edge_litert') if m in sys.modules))")
    proc = run_python(["-c", script], timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]", proc.stdout
