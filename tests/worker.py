"""Runs test models with and without fusedelegate in ONE runtime and writes the results.

    python tests/worker.py --runtime {tf,tflite,litert} --models DIR --out results.json
                           [--model NAME ...] [--options JSON] [--via {load,load_delegate,xnnpack}]

Imports only the named runtime (tensorflow and tflite_runtime cannot share a
process), numpy and fusedelegate. Per model: a reference interpreter (builtin
kernels, no default delegate) and a delegated one (same resolver, plus the
delegate) get the same seeded inputs, 3 times with different values; models with open
axes are then resized to each of their resize_cases (per input a shape) and compared again. A
model whose default shapes cannot run starts at its start_shapes. The results file is rewritten after
every phase ("running": {model, phase} names the one in progress, null at the
end), so a crash leaves everything before it and says where it happened. A
failing model records its error and the worker goes on.

--via picks how the delegate is made: `load` (fusedelegate.load), `load_delegate`
(the runtime's own load_delegate on fusedelegate.library_path()), or `xnnpack`
(no fusedelegate at all: the runtime's default XNNPACK delegate stands in, to
check this harness without the library).

Each delegated interpreter gets its own delegate with option plan_file; the plan
the library wrote (nodes with partition and reason, partitions with their fused
groups) is recorded next to what the runtime delegated, after preparing and after
every resize, for the tests to compare.
"""
import argparse
import json
import os
import sys
import tempfile
import traceback
import zlib
from pathlib import Path

import numpy as np

INVOKES = 3


def import_runtime(name):
    """(Interpreter class, OpResolverType, load_delegate, version) of one runtime."""
    if name == "tf":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
        lite = tf.lite
        exp = lite.experimental
        return lite.Interpreter, exp.OpResolverType, exp.load_delegate, tf.__version__
    if name == "tflite":
        import tflite_runtime
        from tflite_runtime import interpreter as m
        return m.Interpreter, m.OpResolverType, m.load_delegate, tflite_runtime.__version__
    if name == "litert":
        from ai_edge_litert import interpreter as m
        return m.Interpreter, m.OpResolverType, m.load_delegate, _dist_version("ai-edge-litert")
    raise ValueError(f"unknown runtime {name!r}")


def _dist_version(dist):
    from importlib import metadata
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


# ---------------------------------------------------------------------------
# Counting what a delegate claimed, from op details alone.

def partition_info(ref_ops, del_ops):
    """The nodes each delegate kernel replaced: a list (one per partition, i.e. per
    node the delegate added) of sorted original node indices.

    Measured in all three runtimes: the delegated interpreter's `_get_ops_details()`
    still lists every original node, unchanged, and appends one node per partition
    (op_name 'DELEGATE') whose inputs and outputs are the partition's boundary
    tensors. A partition's nodes are the original ones between those boundaries:
    walk back from each partition output through producers to the partition inputs.
    """
    n = len(ref_ops)
    originals = [o for o in del_ops if o["index"] < n]
    if [o["op_name"] for o in originals] != [o["op_name"] for o in ref_ops]:
        raise AssertionError("the delegated interpreter no longer lists the original nodes")
    producer = {int(t): o for o in originals for t in o["outputs"]}
    partitions = []
    for d in (o for o in del_ops if o["index"] >= n):
        boundary = {int(t) for t in d["inputs"]}
        stack, nodes = [int(t) for t in d["outputs"]], set()
        while stack:
            t = stack.pop()
            node = producer.get(t)
            if t in boundary or node is None or node["index"] in nodes:
                continue
            nodes.add(node["index"])
            stack.extend(int(i) for i in node["inputs"] if i >= 0)
        partitions.append(sorted(nodes))
    return partitions


def claimed_summary(model_ops, dele):
    """What `dele` delegated of the model whose nodes are `model_ops`."""
    del_ops = dele._get_ops_details()
    partitions = partition_info(model_ops, del_ops)
    return {"claimed": sum(len(p) for p in partitions), "partitions": len(partitions),
            "partition_nodes": partitions,
            "delegate_ops": sorted({o["op_name"] for o in del_ops[len(del_ops) - len(partitions):]})}


def read_plan(path):
    """The plan file, without tensors and programs: {"nodes": [{id, op, partition, reason}],
    "partitions": [{"nodes", "groups": [node ids per fused group]}], "summary"}; None if
    the delegate wrote none."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        plan = json.load(f)
    return {"nodes": [{k: n[k] for k in ("id", "op", "partition", "reason")} for n in plan["nodes"]],
            "partitions": [{"nodes": p["nodes"], "groups": [g["nodes"] for g in p["groups"]]}
                           for p in plan["partitions"]],
            "summary": plan["summary"]}


# ---------------------------------------------------------------------------
# Comparing outputs.

def compare(y, ref):
    """(max |y - ref|, max |y - ref| / max |ref|); NaN or inf mismatches give inf."""
    if y.shape != ref.shape or y.dtype != ref.dtype:
        raise AssertionError(f"output {y.dtype}{list(y.shape)}, reference {ref.dtype}{list(ref.shape)}")
    if y.size == 0:
        return 0.0, 0.0
    y, ref = y.astype(np.float64), ref.astype(np.float64)
    same = (y == ref) | (np.isnan(y) & np.isnan(ref))
    with np.errstate(invalid="ignore"):  # inf - inf
        diff = np.where(same, 0.0, np.abs(y - ref))
    diff = np.where(np.isnan(diff), np.inf, diff)
    max_abs = float(diff.max())
    finite = np.abs(ref[np.isfinite(ref)])
    scale = float(finite.max()) if finite.size else 0.0
    if max_abs == 0.0:
        return 0.0, 0.0
    return max_abs, (max_abs / scale if scale > 0 else float("inf"))


def make_inputs(interp, entry, seed):
    """Seeded inputs for the interpreter's current input shapes, in the model's ranges."""
    rng = np.random.default_rng(seed)
    values = []
    for d, (lo, hi) in zip(interp.get_input_details(), entry["input_ranges"]):
        shape, dtype = tuple(d["shape"]), np.dtype(d["dtype"])
        if np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            values.append(rng.integers(info.min, info.max, size=shape, endpoint=True).astype(dtype))
        else:
            values.append(rng.uniform(lo, hi, size=shape).astype(dtype))
    return values


def run(interp, values):
    for d, v in zip(interp.get_input_details(), values):
        interp.set_tensor(d["index"], v)
    interp.invoke()
    return [interp.get_tensor(d["index"]) for d in interp.get_output_details()]


def _seed(name, tag):
    return zlib.crc32(f"{name}/{tag}".encode())


# ---------------------------------------------------------------------------
# One model: the reference runs every case first, then the delegated interpreter.

class Runner:
    def __init__(self, runtime, via, options):
        self.Interpreter, self.Resolver, self.load_delegate, self.version = import_runtime(runtime)
        self.via = via
        self.plans = tempfile.TemporaryDirectory(prefix="fd-plans-")
        self.plan_path = None  # the plan file of the current delegated interpreter
        if via == "load":
            import fusedelegate
            self._make = lambda plan: fusedelegate.load(**dict(options, plan_file=plan))
        elif via == "load_delegate":
            import fusedelegate
            path = fusedelegate.library_path()
            self._make = lambda plan: self.load_delegate(
                path, {k: str(v) for k, v in dict(options, plan_file=plan).items()})
        if via != "xnnpack":
            self._make(os.path.join(self.plans.name, "check.json"))  # a missing library or a bad option fails here

    def reference(self, path):
        # Every tensor kept apart: TFLite's arena lets an op's output overwrite a tensor a
        # later op still reads through a view (EXPAND_DIMS -> SOFTMAX -> MUL by the
        # EXPAND_DIMS' input gives wrong values in LiteRT 2.3 and tf.lite 2.21; the
        # delegate computes what TensorFlow does).
        return self.Interpreter(model_path=str(path), num_threads=1, experimental_preserve_all_tensors=True,
                                experimental_op_resolver_type=self.Resolver.BUILTIN_WITHOUT_DEFAULT_DELEGATES)

    def delegated(self, path):
        if self.via == "xnnpack":
            self.plan_path = None
            return self.Interpreter(model_path=str(path), num_threads=1,
                                    experimental_op_resolver_type=self.Resolver.AUTO)
        self.plan_path = os.path.join(self.plans.name, Path(path).stem + ".json")
        if os.path.exists(self.plan_path):
            os.remove(self.plan_path)
        delegate = self._make(self.plan_path)
        return self.Interpreter(model_path=str(path), num_threads=1, experimental_delegates=[delegate],
                                experimental_op_resolver_type=self.Resolver.BUILTIN_WITHOUT_DEFAULT_DELEGATES)

    def summary(self, dele):
        """What the runtime delegated, and the plan the delegate wrote (None without one)."""
        out = claimed_summary(self.model_ops, dele)
        out["plan"] = read_plan(self.plan_path) if self.plan_path else None
        return out

    def run_model(self, name, entry, path, mark=lambda phase: None):
        """mark(phase) is called before the reference and before the delegated runs."""
        mark("reference")
        try:
            ref, cases = self.run_reference(name, entry, path)
        except Exception as e:  # the runtime itself cannot run this model: not our failure
            return {"skipped": f"reference interpreter failed: {_err(e)}"}
        mark("delegate")
        result = {"error": None}
        try:
            dele = self.delegated(path)
            _resize_inputs(dele, entry.get("start_shapes"))
            result.update(self.summary(dele))
            result["invokes"] = [_compare_all(run(dele, c["inputs"]), c["outputs"])
                                 for c in cases if c["key"] is None]
            result["outputs"] = _worst(result["invokes"], ref)
            resized = [c for c in cases if c["key"] is not None]
            if resized:
                result["resize"] = {}
            for c in resized:
                result["resize"][c["key"]] = self.check_resize(dele, c)
        except Exception as e:
            result["error"] = _err(e)
            result["traceback"] = traceback.format_exc(limit=6)
        return result

    def run_reference(self, name, entry, path):
        """The reference interpreter and its cases: {key, shapes, inputs, outputs, skipped}. A
        model with int8 weights runs its float twin (reference_file: the same weights
        dequantized), so the reference is the float computation, not a hybrid kernel's.
        Sets model_ops, the model's own nodes (a twin may lack its DENSIFYs)."""
        twin = entry.get("reference_file")
        ref = self.reference(path.parent / twin if twin else path)
        self.model_ops = (self.reference(path) if twin else ref)._get_ops_details()
        _resize_inputs(ref, entry.get("start_shapes"))
        cases = []
        for k in range(INVOKES):
            values = make_inputs(ref, entry, _seed(name, k))
            cases.append({"key": None, "inputs": values, "outputs": run(ref, values)})
        for c in entry.get("resize_cases", []):
            case = {"key": c["key"], "shapes": c["shapes"], "inputs": [], "outputs": [], "skipped": None}
            try:
                _resize_inputs(ref, c["shapes"])
                for k in range(2):
                    values = make_inputs(ref, entry, _seed(name, f"b{c['key']}/{k}"))
                    case["inputs"].append(values)
                    case["outputs"].append(run(ref, values))
            except Exception as e:
                case["skipped"] = f"reference cannot run {c['key']}: {_err(e)}"
            cases.append(case)
        return ref, cases

    def check_resize(self, dele, case):
        """Resizes the delegated interpreter's inputs; compares 2 invokes with the reference."""
        if case["skipped"]:
            return {"skipped": case["skipped"], "error": None}
        try:
            _resize_inputs(dele, case["shapes"])
        except Exception as e:
            return {"error": f"resize to {case['key']}: {_err(e)}"}
        out = self.summary(dele)
        out["invokes"] = [_compare_all(run(dele, v), r) for v, r in zip(case["inputs"], case["outputs"])]
        out["output_shapes"] = [[int(s) for s in d["shape"]] for d in dele.get_output_details()]
        out["reference_output_shapes"] = [list(r.shape) for r in case["outputs"][0]] if case["outputs"] else []
        out["error"] = None
        return out


def _compare_all(ys, refs):
    """Per output [max_abs, max_rel]."""
    return [compare(y, r) for y, r in zip(ys, refs)]


def _resize_inputs(interp, shapes):
    """Every input to its shape in `shapes` (in input order; None: as they are), then allocates."""
    for d, shape in zip(interp.get_input_details(), shapes or []):
        interp.resize_tensor_input(d["index"], [int(s) for s in shape])
    interp.allocate_tensors()


def _worst(invokes, ref):
    names = [d["name"] for d in ref.get_output_details()]
    return [{"name": nm, "max_abs_err": max(inv[i][0] for inv in invokes),
             "max_rel": max(inv[i][1] for inv in invokes)} for i, nm in enumerate(names)]


def _err(e):
    return f"{type(e).__name__}: {e}".strip()


# ---------------------------------------------------------------------------

def write_json(path, data):
    tmp = Path(str(path) + ".tmp")
    tmp.write_text(json.dumps(data))  # rewritten per model: no indent, so json takes its C encoder
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runtime", required=True, choices=["tf", "tflite", "litert"])
    ap.add_argument("--models", required=True, help="directory with manifest.json")
    ap.add_argument("--out", required=True)
    ap.add_argument("--model", nargs="+", help="only these models")
    ap.add_argument("--options", default="{}", help="delegate options as a JSON object")
    ap.add_argument("--via", default="load", choices=["load", "load_delegate", "xnnpack"])
    args = ap.parse_args(argv)

    manifest = json.loads((Path(args.models) / "manifest.json").read_text())["models"]
    names = args.model or list(manifest)
    options = json.loads(args.options)
    out = {"runtime": args.runtime, "via": args.via, "options": options, "models": {}}
    try:
        runner = Runner(args.runtime, args.via, options)
    except Exception as e:  # a runtime or library that cannot load fails every model alike
        out["error"] = _err(e)
        write_json(args.out, out)
        return 1
    out["runtime_version"] = runner.version
    for name in names:
        if name not in manifest:
            out["models"][name] = {"error": f"no model {name!r} in the manifest"}
            continue

        def mark(phase, name=name):
            out["running"] = {"model": name, "phase": phase}
            write_json(args.out, out)

        path = Path(args.models) / manifest[name]["file"]
        out["models"][name] = runner.run_model(name, manifest[name], path, mark)
    out["running"] = None
    write_json(args.out, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
