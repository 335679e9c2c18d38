"""What benchmarks/q8_depthwise_bench.cc measures, for LiteRT: one int8
DEPTHWISE_CONV_2D layer (stride 1, padding SAME, multiplier 1, per-channel
weights) run by XNNPACK (the default delegate) and by the builtin kernels, one
thread, Mpixel/s of output, the median of 15 rounds of invokes (each invoke's
own overhead included: a few microseconds). Needs TensorFlow to build the models:
    .venv/bin/python benchmarks/q8_depthwise_litert.py
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from q8_depthwise_formula_check import convert  # noqa: E402

SHAPES = [(56, 32, 3), (56, 96, 3), (56, 144, 3), (56, 576, 3), (14, 32, 3), (14, 96, 3), (14, 144, 3),
          (14, 576, 3), (14, 100, 3), (14, 576, 5), (7, 960, 3)]  # size x size pixels, depth, kernel


def mpixels(model, pixels, resolver):
    from ai_edge_litert.interpreter import Interpreter
    it = Interpreter(model_content=model, num_threads=1, experimental_op_resolver_type=resolver)
    it.allocate_tensors()
    inp = it.get_input_details()[0]
    it.set_tensor(inp["index"], np.random.default_rng(0).integers(-128, 128, size=inp["shape"]).astype(np.int8))
    calls = max(1, int(3e5 / pixels))
    rates = []
    for _ in range(15):
        start = time.perf_counter()
        for _ in range(calls):
            it.invoke()
        rates.append(pixels * calls / (time.perf_counter() - start) / 1e6)
    return sorted(rates)[len(rates) // 2]


if __name__ == "__main__":
    from ai_edge_litert.interpreter import OpResolverType
    print(f"{'pixels x depth, kxk':20} {'XNNPACK':>10} {'builtin':>10}")
    for size, depth, kernel in SHAPES:
        model = convert(depth, 1, kernel, size, "same")
        rates = [mpixels(model, size * size, r)
                 for r in (OpResolverType.AUTO, OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)]
        print(f"{f'{size}x{size}x{depth}, {kernel}x{kernel}':20} {rates[0]:10.2f} {rates[1]:10.2f}", flush=True)
