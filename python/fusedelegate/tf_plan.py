"""`fusedelegate plan --tf PATH`: which TensorFlow nodes the Grappler pass replaced with
which FdFusedPartition op, and which compute nodes it left, read from the graphs
TensorFlow ran (after Grappler). Each fused op lists its members in its
`_fd_fused_nodes` attribute; their op types come from the same model's graph
optimized without the pass (the graph the pass was given)."""
from __future__ import annotations

import argparse
from typing import Any

from .tf_bench import TfConfig, make_configs
from .tf_model import optimized_graphs

# Ops that compute nothing themselves (or only views); not listed as left.
PLUMBING = {"_Arg", "_Retval", "ReadVariableOp", "Const", "Identity", "NoOp", "Placeholder", "_EagerConst",
            "FdFusedPartition", "PartitionedCall", "StatefulPartitionedCall", "VarHandleOp"}


def _graphs(config: TfConfig) -> list[Any]:
    with config.scope():
        return optimized_graphs(config.fn, config.xs)


def tf_plan(args: argparse.Namespace, options: dict[str, Any]) -> dict[str, Any]:
    """{"model", "partitions": [{"name", "nodes": [{"name", "op"}]}], "left": [{"name", "op"}]}."""
    configs = make_configs(args, options)
    plain, with_pass = configs[0], configs[2]
    op_of = {n.name: n.op for g in _graphs(plain) for n in g.node}
    partitions: list[dict[str, Any]] = []
    left: list[dict[str, str]] = []
    for g in _graphs(with_pass):
        for n in g.node:
            if n.op == "FdFusedPartition":
                members = [m.decode() for m in n.attr["_fd_fused_nodes"].list.s]
                partitions.append({"name": n.name, "nodes": [{"name": m, "op": op_of.get(m, "?")} for m in members]})
            elif n.op not in PLUMBING:
                left.append({"name": n.name, "op": n.op})
    return {"model": args.tf, "partitions": partitions, "left": left}


def format_tf_plan(plan: dict[str, Any]) -> str:
    fused = sum(len(p["nodes"]) for p in plan["partitions"])
    lines = [f"{fused} TensorFlow nodes fused into {len(plan['partitions'])} FdFusedPartition op(s); "
             f"{len(plan['left'])} compute node(s) left to TensorFlow"]
    for p in plan["partitions"]:
        lines.append(f"\n{p['name']}: {len(p['nodes'])} nodes")
        lines += [f"  {n['name']} ({n['op']})" for n in p["nodes"]]
    if plan["left"]:
        lines.append("\nleft to TensorFlow (delegate option log:verbose prints why):")
        lines += [f"  {n['name']} ({n['op']})" for n in plan["left"]]
    return "\n".join(lines)
