"""Checks of one worker result against the manifest (shared by the test modules)."""
from pathlib import Path

import pytest

# max |y - ref| / max |ref|. Exact ops differ from the reference only by rounding
# (e.g. FMA contraction); approximated functions (exp, log, tanh, logistic, gelu,
# elu, pow) are polynomials targeting ~1e-6.
TOL_EXACT = 1e-5
TOL_APPROX = 1e-5


def tolerance(entry):
    return TOL_APPROX if entry["approx_ops"] else TOL_EXACT


def _labels(entry, nodes):
    return [f"{i}:{entry['ops'][i]}" for i in nodes]


def check_claims(res, entry, groups, exact=None):
    """`exact`: whether the runtime must make one DELEGATE node for a single group
    (default: the manifest's partitions_exact, planned with default options)."""
    exact = entry["partitions_exact"] if exact is None else exact
    expect = sorted(n for g in groups for n in g)
    got = sorted(n for p in res["partition_nodes"] for n in p)
    assert res["claimed"] == len(expect) and got == expect, (
        f"claimed {res['claimed']} nodes {_labels(entry, got)}, expected {len(expect)} "
        f"{_labels(entry, expect)}; model ops {entry['ops']}")
    if not expect:
        assert res["partitions"] == 0
    elif exact and len(groups) == 1:
        assert res["partitions"] == 1, f"one group, {res['partitions']} delegate nodes"
    else:  # the runtime may merge or split groups into delegate nodes
        assert 1 <= res["partitions"] <= len(expect)
    assert set(res["delegate_ops"]) <= {"DELEGATE"}, res["delegate_ops"]


def check_invokes(invokes, tol, what):
    for k, per_output in enumerate(invokes):
        for i, (max_abs, max_rel) in enumerate(per_output):
            assert max_rel <= tol, (f"{what} {k}, output {i}: max_rel {max_rel:.3g} "
                                    f"(max_abs_err {max_abs:.3g}) > {tol:g}")


def check_resizes(res, entry, groups, exact=None):
    resized = res.get("resize", {})
    assert sorted(resized) == sorted(str(b) for b in entry["resize_batches"])
    for batch, r in resized.items():
        if r.get("skipped"):
            continue  # the runtime's own kernels cannot run this batch
        assert not r["error"], f"batch {batch}: {r['error']}"
        assert r["output_shapes"] == r["reference_output_shapes"], (r["output_shapes"], r["reference_output_shapes"])
        check_claims(r, entry, groups, exact)
        check_invokes(r["invokes"], tolerance(entry), f"batch {batch}, invoke")


def check_result(res, entry, groups, exact=None):
    if res.get("skipped"):
        pytest.skip(res["skipped"])
    assert not res.get("error"), res.get("traceback") or res["error"]
    check_claims(res, entry, groups, exact)
    assert len(res["invokes"]) == 3
    check_invokes(res["invokes"], tolerance(entry), "invoke")
    check_resizes(res, entry, groups, exact)


def cpu_has(flag):
    """Whether /proc/cpuinfo lists the CPU flag (e.g. avx2, avx512f); False if unknown."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return any(flag in line.split() for line in text.splitlines() if line.startswith("flags"))


# Options that run each micro-kernel ISA and the thread split, with the CPU flag each needs.
KERNEL_VARIANTS = [
    ("isa-scalar", {"isa": "scalar"}, None),
    ("isa-avx2", {"isa": "avx2"}, "avx2"),
    ("isa-avx512", {"isa": "avx512"}, "avx512f"),
    ("threads-2", {"num_threads": 2}, None),
]


def claimed_nodes(res):
    """The node indices a worker result's partitions claimed, sorted."""
    return sorted(n for p in res["partition_nodes"] for n in p)


def check_ops_claimed(res, entry, ops):
    """Every node of the model whose op is in `ops` is claimed."""
    claimed = claimed_nodes(res)
    for i, label in enumerate(entry["ops"]):
        if op_of(label) in ops:
            assert i in claimed, f"{i}:{label} not claimed; claimed {claimed} of {entry['ops']}"


def op_of(label):
    """The op of a manifest label: "CONV_2D+RELU6 stride=2x2" -> "CONV_2D"."""
    return label.split()[0].split("+")[0]


def check_variant(worker_results, manifest, models, name, options, cpu_flag):
    """Model `name` of the family `models` (fusions=all plus `options`) on litert."""
    if cpu_flag and not cpu_has(cpu_flag):
        pytest.skip(f"this CPU has no {cpu_flag}")
    entry = manifest[name]
    res = worker_results.get("litert", {"fusions": "all", **options}, names=models)[name]
    check_result(res, entry, entry["groups_all"], entry["partitions_exact_all"])


def check_off_by_default(worker_results, manifest, models, runtime, family_ops):
    """With default options each of `models` claims what its spec states, fewer nodes than
    with fusions=all, and none of `family_ops` (the opt-in family's ops)."""
    results = worker_results.get(runtime, names=models)
    for name in models:
        entry, res = manifest[name], results[name]
        if res.get("skipped"):
            continue
        assert not res.get("error"), (name, res.get("traceback") or res["error"])
        assert res["claimed"] == entry["expect_claimed"] < entry["expect_claimed_all"], (name, res["partition_nodes"])
        claimed = claimed_nodes(res)
        assert not [i for i in claimed if op_of(entry["ops"][i]) in family_ops], (name, claimed, entry["ops"])
        check_claims(res, entry, entry["groups"])
        check_invokes(res["invokes"], tolerance(entry), f"{name}: invoke")
