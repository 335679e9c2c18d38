"""`fusedelegate plan`: the delegate's own fusion plan for a model, without running it.

The delegate writes its plan (option plan_file) when an interpreter prepares it;
this module only reads and presents that file. No second planner here.
"""
from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from typing import Any

from . import load
from ._runtime import load_runtime


def delegate_plan(model: str, runtime: str = "auto", options: Mapping[str, object] | None = None) -> dict[str, Any]:
    """Builds an interpreter with fusedelegate and returns the plan it wrote."""
    _, module = load_runtime(runtime)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "plan.json")
        delegate = load(**dict(options or {}, plan_file=path))
        module.Interpreter(model_path=model, experimental_delegates=[delegate],
                           experimental_op_resolver_type=module.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
        if not os.path.exists(path):
            raise RuntimeError("the delegate wrote no plan (was it applied?)")
        with open(path) as f:
            plan: dict[str, Any] = json.load(f)
            return plan


def human_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB"):
        if abs(n) < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


def format_plan(plan: dict[str, Any]) -> str:
    nodes = {n["id"]: n for n in plan["nodes"]}
    s = plan["summary"]
    lines = [f"{s['claimed']} of {s['nodes']} nodes fused into {s['partitions']} partition(s); "
             f"intermediate traffic saved per inference: {human_bytes(s['bytes_saved'])} "
             f"(isa {plan['isa']}, threads {plan['threads']})"]
    for k, part in enumerate(plan["partitions"]):
        lines.append(f"\npartition {k}: {len(part['nodes'])} nodes, saves {human_bytes(part['bytes_saved'])}")
        for g in part["groups"]:
            ops = " ".join(f"{i}:{nodes[i]['op']}" for i in g["nodes"])
            lines.append(f"  group [{ops}]  inputs {g['inputs']} -> outputs {g['outputs']}, "
                         f"saves {human_bytes(g['bytes_saved'])}")
            lines += ["    " + line for line in g["program"].strip().splitlines()]
    rounded = [n for n in plan["nodes"] if n.get("rounds_as_builtin") and n["partition"] >= 0]
    if rounded:
        lines.append(f"\n{len(rounded)} fused node(s) round as the builtin kernels (an int8-weight layer "
                     f"quantizes what they compute): " + " ".join(f"{n['id']}:{n['op']}" for n in rounded))
    left = [n for n in plan["nodes"] if n["partition"] < 0]
    if left:
        lines.append("\nleft to the interpreter:")
        lines += [f"  {n['id']}:{n['op']}: {n['reason']}" for n in left]
    return "\n".join(lines)


def dot_string(text: str) -> str:
    """`text` as a DOT double-quoted string: backslashes and quotes escaped, each line
    break as DOT's \\n (a bare backslash would start one of Graphviz's label escapes)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "\\n".join(escaped.splitlines()) + '"'


def plan_dot(plan: dict[str, Any]) -> str:
    """Graphviz: one cluster per partition, edges along tensors."""
    producer = {t: n["id"] for n in plan["nodes"] for t in n["outputs"]}
    out = ["digraph plan {", "  rankdir=TB; node [shape=box, style=rounded, fontname=Helvetica];"]
    for k, part in enumerate(plan["partitions"]):
        out.append(f"  subgraph cluster_{k} {{ label=\"partition {k}\"; style=filled; color=lightblue;")
        out += [f"    n{i};" for i in part["nodes"]]
        out.append("  }")
    for n in plan["nodes"]:
        label, tip = dot_string(f"{n['id']}: {n['op']}"), dot_string(n["reason"])
        out.append(f"  n{n['id']} [label={label}, tooltip={tip}];")
    for n in plan["nodes"]:
        for t in n["inputs"]:
            if t in producer:
                shape = "x".join(str(d) for d in plan["tensors"][str(t)]["shape"])
                out.append(f"  n{producer[t]} -> n{n['id']} [label=\"{shape}\", fontsize=9];")
    out.append("}")
    return "\n".join(out) + "\n"
