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
