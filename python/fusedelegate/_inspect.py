"""What a delegate claimed, read from an interpreter's own op details.

`_get_ops_details()` lists every original node plus one DELEGATE node per
partition, whose inputs and outputs are the partition's boundary. The nodes a
partition replaced are those found walking back from its outputs to its inputs.
"""
from __future__ import annotations

from typing import Any


def partitions(interpreter: Any, delegate_op: str = "DELEGATE") -> list[dict[str, list[int]]]:
    """One dict per delegate partition: inputs, outputs, and replaced node indices."""
    ops: list[dict[str, Any]] = interpreter._get_ops_details()
    producer: dict[int, dict[str, Any]] = {}
    for op in ops:
        if op["op_name"] != delegate_op:
            for t in op["outputs"]:
                producer[int(t)] = op
    result: list[dict[str, list[int]]] = []
    for op in ops:
        if op["op_name"] != delegate_op:
            continue
        boundary = {int(t) for t in op["inputs"]}
        nodes: set[int] = set()
        stack = [int(t) for t in op["outputs"]]
        while stack:
            p = producer.get(stack.pop())
            if p is None or p["index"] in nodes:
                continue
            nodes.add(p["index"])
            stack.extend(int(t) for t in p["inputs"] if int(t) >= 0 and int(t) not in boundary)
        result.append({"inputs": sorted(boundary), "outputs": [int(t) for t in op["outputs"]],
                       "nodes": sorted(nodes)})
    return result


def claimed_node_count(interpreter: Any) -> int:
    return sum(len(p["nodes"]) for p in partitions(interpreter))


def original_node_count(interpreter: Any, delegate_op: str = "DELEGATE") -> int:
    return sum(1 for op in interpreter._get_ops_details() if op["op_name"] != delegate_op)
