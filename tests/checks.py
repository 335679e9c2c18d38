"""Checks of one worker result against the manifest (shared by the test modules)."""
from pathlib import Path

import pytest

# max |y - ref| / max |ref|. Exact ops differ from the reference only by rounding
# (e.g. FMA contraction); approximated functions (exp, log, tanh, logistic, gelu,
# elu, pow) are polynomials targeting ~1e-6.
TOL_EXACT = 1e-5
TOL_APPROX = 1e-5
# A layer with int8 weights left to the runtime runs its hybrid kernel, which
# quantizes the activations to int8 too: about 1e-2 off the float twin.
TOL_HYBRID = 5e-2


def tolerance(entry, res=None):
    """The model's tolerance; looser where `res` left a layer with int8 weights to the runtime."""
    hybrid = entry.get("int8_weight_nodes", [])
    if hybrid and (res is None or not set(hybrid) <= set(claimed_nodes(res))):
        return TOL_HYBRID
    return TOL_APPROX if entry["approx_ops"] else TOL_EXACT


def _labels(entry, nodes):
    return [f"{i}:{entry['ops'][i]}" for i in nodes]


def counts(entry, fusions="default"):
    """(nodes claimed, fused groups) as the spec states them by hand, for default options
    (every family; the same as fusions=all), for fusions="elementwise", or (int8 models) for
    fusions "all,int8_conv"."""
    if fusions == "int8_conv":
        return tuple(entry["expect_int8_conv"])
    suffix = {"default": "", "all": "", "elementwise": "_elementwise"}[fusions]
    return entry["expect_claimed" + suffix], entry["expect_partitions" + suffix]


def plan_groups(res):
    """The fused groups (node ids) of the plan the delegate wrote."""
    return [sorted(g) for p in res["plan"]["partitions"] for g in p["groups"]]


def check_plan(res, entry):
    """The delegate's own plan agrees with what the runtime delegated: the same
    partitions, each the union of its disjoint fused groups; every node left has a reason."""
    plan = res["plan"]
    assert plan is not None, "the delegate wrote no plan_file"
    parts = [sorted(p["nodes"]) for p in plan["partitions"]]
    assert sorted(parts) == sorted(sorted(p) for p in res["partition_nodes"]), (
        f"plan partitions {parts}, the runtime delegated {res['partition_nodes']}; model ops {entry['ops']}")
    several = {n["id"] for n in plan["nodes"] if [m["id"] for m in plan["nodes"]].count(n["id"]) > 1}
    for p in plan["partitions"]:  # an op of several outputs (SPLIT) may run in a group per output
        members = [n for g in p["groups"] for n in g]
        once = [n for n in members if n not in several] + sorted({n for n in members if n in several})
        assert sorted(once) == sorted(p["nodes"]), f"partition {p['nodes']} is not its groups {p['groups']}"
    partition_of = {n["id"]: n["partition"] for n in plan["nodes"]}
    assert sorted(partition_of) == list(range(len(entry["ops"]))), "the plan does not list every node"
    for k, nodes in enumerate(parts):
        assert all(partition_of[n] == k for n in nodes), (k, nodes, partition_of)
    assert sorted(n for n, k in partition_of.items() if k >= 0) == claimed_nodes(res)
    left = [n for n in plan["nodes"] if n["partition"] < 0 and not n["reason"].strip()]
    assert not left, f"nodes left without a reason: {left}"
    assert (plan["summary"]["claimed"], plan["summary"]["partitions"]) == (res["claimed"], res["partitions"])


def check_claims(res, entry, expect):
    """What the runtime delegated matches the delegate's plan; with `expect` (nodes
    claimed, fused groups) stated by hand, the plan claims that much too."""
    assert set(res["delegate_ops"]) <= {"DELEGATE"}, res["delegate_ops"]
    check_plan(res, entry)
    if expect is None:
        return
    groups = plan_groups(res)
    got = (res["claimed"], len(groups))
    assert got == tuple(expect), (
        f"claimed {got[0]} nodes in {got[1]} groups, the spec says {expect[0]} in {expect[1]}: "
        f"{[_labels(entry, g) for g in groups]}; model ops {entry['ops']}")


def check_invokes(invokes, tol, what):
    for k, per_output in enumerate(invokes):
        for i, (max_abs, max_rel) in enumerate(per_output):
            assert max_rel <= tol, (f"{what} {k}, output {i}: max_rel {max_rel:.3g} "
                                    f"(max_abs_err {max_abs:.3g}) > {tol:g}")


def check_resizes(res, entry, expect, tol=None):
    """Each of the entry's resize_cases ran (or the runtime's own kernels could not run it):
    no error, the reference's output shapes, the claims and the tolerance."""
    resized = res.get("resize", {})
    assert sorted(resized) == sorted(c["key"] for c in entry.get("resize_cases", []))
    for key, r in resized.items():
        if r.get("skipped"):
            continue  # the runtime's own kernels cannot run these shapes
        assert not r["error"], f"resize {key}: {r['error']}"
        assert r["output_shapes"] == r["reference_output_shapes"], (r["output_shapes"], r["reference_output_shapes"])
        check_claims(r, entry, expect)
        check_invokes(r["invokes"], tol or tolerance(entry, r), f"resize {key}, invoke")


def accuracy_misses(res, tol, abs_tol):
    """'resize K, invoke I, output O: ...' for every output of every invoke (and resize) past
    both tol (its max_rel) and abs_tol (its max |y - ref|)."""
    runs = [("", res.get("invokes", []))]
    runs += [(f"resize {key}, ", r.get("invokes", [])) for key, r in res.get("resize", {}).items()]
    return [f"{resize}invoke {k}, output {i}: max_rel {rel:.3g} (max_abs_err {err:.3g})"
            for resize, invokes in runs for k, invoke in enumerate(invokes)
            for i, (err, rel) in enumerate(invoke) if rel > tol and err > abs_tol]


def check_result(res, entry, expect, tol=None):
    """`expect`: (nodes claimed, fused groups) by hand, or None where the options have no hand count;
    `tol`: max_rel allowed, by default tolerance(entry, res)."""
    if res.get("skipped"):
        pytest.skip(res["skipped"])
    assert not res.get("error"), res.get("traceback") or res["error"]
    check_claims(res, entry, expect)
    assert len(res["invokes"]) == 3
    check_invokes(res["invokes"], tol or tolerance(entry, res), "invoke")
    check_resizes(res, entry, expect, tol)


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
    """Model `name` of the family `models` (default options plus `options`) on litert."""
    if cpu_flag and not cpu_has(cpu_flag):
        pytest.skip(f"this CPU has no {cpu_flag}")
    entry = manifest[name]
    res = worker_results.get("litert", options, names=models)[name]
    check_result(res, entry, counts(entry))


def check_family_off(worker_results, manifest, models, runtime, family_ops):
    """With fusions=elementwise (the family of `family_ops` off) each of `models` claims
    what its spec states, fewer nodes than by default, and none of `family_ops`."""
    results = worker_results.get(runtime, {"fusions": "elementwise"}, names=models)
    for name in models:
        entry, res = manifest[name], results[name]
        if res.get("skipped"):
            continue
        assert not res.get("error"), (name, res.get("traceback") or res["error"])
        assert res["claimed"] == entry["expect_claimed_elementwise"] < entry["expect_claimed"], (
            name, res["partition_nodes"])
        claimed = claimed_nodes(res)
        assert not [i for i in claimed if op_of(entry["ops"][i]) in family_ops], (name, claimed, entry["ops"])
        check_claims(res, entry, counts(entry, "elementwise"))
        check_invokes(res["invokes"], tolerance(entry, res), f"{name}: invoke")
