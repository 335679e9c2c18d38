"""docs/performance.md's generated part: written from the benchmarks' JSON
(benchmarks/performance_page.py), each figure with its CPU, date, build and command."""
import json
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import performance_page  # noqa: E402

RESULT = {
    "cpu": "Some CPU (family 1 model 2)", "date": "2026-01-02", "commit": "abc1234",
    "settings": {"sets": {"float32": ["m1", "m2"]}, "rounds": 7, "runs": 3, "min_batch_ms": 20.0, "init_runs": 3},
    "sets": {"float32": {
        "rows": {"m1": {"nodes": 10, "fd": 9, "xnn_after_fd": 1, "xnn": 10, "dx/x": 0.8125, "d/x": 0.875,
                        "init dx/x": 0.5, "max_rel dx": 1.5e-6, "max_rel xnn": 2.5e-7},
                 "m2": {"error": "could not build"}},
        "geomean": {"dx/x": 0.8125, "d/x": 0.875, "init dx/x": 0.5}}},
}


def test_a_section_holds_every_figure_with_its_cpu_date_build_and_command():
    text = performance_page.section("real_set-x", RESULT)
    assert "### 2026-01-02: Some CPU (family 1 model 2)" in text
    assert "Build abc1234" in text
    assert "benchmarks/real_set.py --sets float32 --rounds 7 --runs 3 --min_batch_ms 20 --init_runs 3" in text
    assert "| m1 | 9/10 | 1 | 10/10 | 0.81 | 0.88 | 0.50 | 1.5e-06 | 2.5e-07 |" in text
    assert "| m2 | failed: could not build |" in text
    assert "| geomean (1 models) | | | | 0.81 | 0.88 | 0.50 | | |" in text
    assert "![dx/x per model](img/real_set-x.png)" in text


def test_the_page_in_the_tree_is_what_its_json_gives():
    assert performance_page.main(["--check"]) == 0


def test_check_fails_when_a_result_changes_and_a_rewrite_mends_it(tmp_path):
    shutil.copy(performance_page.PAGE, tmp_path / "performance.md")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "real_set-new.json").write_text(json.dumps(RESULT))
    args = ["--page", str(tmp_path / "performance.md"), "--results", str(tmp_path / "results")]
    assert performance_page.main(args + ["--check"]) == 1
    assert performance_page.main(args) == 0
    assert performance_page.main(args + ["--check"]) == 0
    page = (tmp_path / "performance.md").read_text()
    assert page.count(performance_page.BEGIN) == 1 and "Some CPU" in page
    assert (tmp_path / "img" / "real_set-new.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
