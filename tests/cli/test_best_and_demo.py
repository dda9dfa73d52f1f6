"""``robustfit best`` and ``robustfit demo`` run as real commands."""

import json
import time

import numpy as np
import pytest


def test_best_ranks_the_true_family_first(run_cli, gamma_csv, tmp_path):
    png = tmp_path / "top3.png"
    out = run_cli("best", gamma_csv, "--column", "hours", "--candidates",
                  "norm,gamma,expon,lognorm,pareto", "--json", "--plot", png, "--jobs", "2")
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    ranking = rep["ranking"]
    assert ranking[0]["name"] == "gamma" and ranking[0]["status"] == "ok"
    aics = [r["aic"] for r in ranking if r["status"] == "ok"]
    assert aics == sorted(aics)
    assert {r["name"] for r in ranking} == {"norm", "gamma", "expon", "lognorm", "pareto"}
    assert png.stat().st_size > 10_000


def test_best_table_and_ks_ranking(run_cli, gamma_csv):
    out = run_cli("best", gamma_csv, "-c", "hours", "--candidates", "norm,gamma,logistic",
                  "--by", "ks", "--top", "2", "--no-progress")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "ranked by KS" in lines[0]
    rows = [ln for ln in lines[1:] if ln[:4].strip().isdigit()]
    assert len(rows) == 2 and rows[0].split()[1].rstrip("*") == "gamma"


def test_best_timeout_really_stops_a_slow_candidate(run_cli, tmp_path):
    # levy_stable's fit on 3000 points takes minutes; the limit must cut it at ~1 s
    path = tmp_path / "x.txt"
    np.savetxt(path, np.random.default_rng(0).standard_t(3, size=3000))
    t0 = time.perf_counter()
    out = run_cli("best", path, "--candidates", "norm,levy_stable", "--timeout", "1",
                  "--json")
    elapsed = time.perf_counter() - t0
    assert out.returncode == 0, out.stderr
    ranking = json.loads(out.stdout, parse_constant=lambda c: pytest.fail(f"non-JSON {c}"))
    status = {r["name"]: r["status"] for r in ranking["ranking"]}
    assert status == {"norm": "ok", "levy_stable": "timeout"}
    assert ranking["ranking"][1]["aic"] is None  # strict JSON: no Infinity
    assert elapsed < 20


def test_best_unknown_candidate_is_one_line_error(run_cli, gamma_csv):
    out = run_cli("best", gamma_csv, "-c", "hours", "--candidates", "norm,notadist")
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines() == [out.stderr.strip()]
    assert "notadist" in out.stderr


@pytest.fixture(scope="module")
def demo_output(run_cli):
    out = run_cli("demo", timeout=180)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_demo_prints_three_verdicts(demo_output):
    verdicts = dict(ln.split(": ", 1) for ln in demo_output.splitlines()
                    if ln.startswith("VERDICT "))
    assert set(verdicts) == {"VERDICT maxwell", "VERDICT svm", "VERDICT gradients"}
    assert verdicts["VERDICT maxwell"].startswith("robustfit hit the exact MLE")
    assert "scipy.stats.fit reported success=True at scale=1" in verdicts["VERDICT maxwell"]
    svm = verdicts["VERDICT svm"]
    assert svm.startswith("robust_minimize reached f=") and "than fmin_bfgs" in svm
    assert verdicts["VERDICT gradients"] == (
        "per_sample_grad_sq named the corrupted sample, index 137")
    seconds = float(demo_output.rsplit("demo finished in ", 1)[1].split()[0])
    assert seconds < 60
