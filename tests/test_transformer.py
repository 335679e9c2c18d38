"""Row ops of family transformer (on by default): BATCH_MATMUL of run-time
values (adj_x, one b shared by every batch), SOFTMAX, MEAN over the last axis
(LayerNorm), RESHAPE and TRANSPOSE, with their elementwise epilogues: claimed as
planned in every runtime, outputs match the runtime's own kernels, a dynamic
batch re-infers RESHAPE's -1; with fusions=elementwise no row op is claimed."""
import pytest

import models
from checks import (KERNEL_VARIANTS, check_claims, check_invokes, check_family_off, check_ops_claimed,
                    check_result, check_variant, claimed_nodes, counts, op_of, tolerance)

MODELS = [s.name for s in models.transformer_specs()]
RUNTIMES = ["tf", "tflite", "litert"]


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("name", MODELS)
def test_row_ops_with_epilogues(worker_results, manifest, runtime, name):
    entry = manifest[name]
    res = worker_results.get(runtime, names=MODELS)[name]
    if not res.get("skipped") and not res.get("error"):
        check_ops_claimed(res, entry, models.ROW_OPS)
    check_result(res, entry, counts(entry))


@pytest.mark.parametrize("variant,options,cpu_flag", KERNEL_VARIANTS, ids=[v[0] for v in KERNEL_VARIANTS])
@pytest.mark.parametrize("name", MODELS)
def test_row_ops_option_variant(worker_results, manifest, name, variant, options, cpu_flag):
    check_variant(worker_results, manifest, MODELS, name, options, cpu_flag)


def test_only_the_transformer_family_claims_row_ops(worker_results, manifest):
    """fusions=elementwise,fully_connected,conv: the same models, no row op claimed."""
    results = worker_results.get("litert", {"fusions": "elementwise,fully_connected,conv"}, names=MODELS)
    for name in MODELS:
        entry, res = manifest[name], results[name]
        assert not res.get("error"), (name, res.get("traceback") or res["error"])
        claimed = claimed_nodes(res)
        assert not [i for i in claimed if op_of(entry["ops"][i]) in models.ROW_OPS], (name, claimed, entry["ops"])
        check_claims(res, entry, None)  # no hand count for this family set: the plan and the runtime agree
        check_invokes(res["invokes"], tolerance(entry, res), f"{name}: invoke")


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_transformer_family_off_claims_no_row_op(worker_results, manifest, runtime):
    check_family_off(worker_results, manifest, MODELS, runtime, models.ROW_OPS)