"""The benchmark scripts' tables and arguments, offline: no model is built or fetched."""
import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import int8_package_models  # noqa: E402
import model_set  # noqa: E402

SHA256 = re.compile(r"[0-9a-f]{64}")


def test_int8_package_models_are_pinned_archives_of_the_wheel():
    assert SHA256.fullmatch(int8_package_models.WHEEL_SHA)
    assert re.fullmatch(r"[a-z0-9-]+==[0-9.]+", int8_package_models.WHEEL)
    for name, (archive, sha) in int8_package_models.MODELS.items():
        assert archive.endswith(f"/{name}.mltk.zip") and SHA256.fullmatch(sha), name
    assert len({sha for _, sha in int8_package_models.MODELS.values()}) == len(int8_package_models.MODELS)


def test_int8_package_models_take_paths_without_fetching_and_refuse_unknown_names(tmp_path):
    paths = int8_package_models.model_paths("a/mobilenet_v2_int8.tflite", str(tmp_path))
    assert paths == {"mobilenet_v2_int8": "a/mobilenet_v2_int8.tflite"}
    with pytest.raises(SystemExit, match="unknown model nope"):
        int8_package_models.model_paths("nope", str(tmp_path))
    assert not os.listdir(tmp_path)


@pytest.mark.parametrize("weights", ["int8", "int8_float_io", "dynamic_int8"])
def test_model_set_takes_the_int8_weights(weights):
    assert model_set.parse_args(["--weights", weights, "--build_only"]).weights == weights


def test_each_weights_suffix_names_its_own_format():
    """real_set.py reads a model's format from its file name: the first of WEIGHTS it ends with."""
    for weights in model_set.WEIGHTS[1:]:
        assert next(w for w in model_set.WEIGHTS if f"resnet50_{weights}".endswith("_" + w)) == weights
