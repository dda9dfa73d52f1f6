"""``robustfit fit`` run as a real command on real files."""

import json

import numpy as np
import pytest
from scipy import stats


def test_fit_prints_params_stderr_gof_and_scipy(run_cli, gamma_csv, gamma_sample):
    out = run_cli("fit", "gamma", gamma_csv, "--column", "hours")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    for needle in ("std. error", "95% interval", "log-likelihood", "AIC", "BIC", "KS", "AD",
                   "plain scipy.stats.gamma.fit"):
        assert needle in text
    ref = stats.gamma.fit(gamma_sample)
    assert f"{ref[0]:.3g}"[:4] in text  # the shape estimate agrees with scipy's to 3 digits


def test_fit_json_matches_library(run_cli, gamma_csv, gamma_sample):
    import robustfit

    out = run_cli("fit", "gamma", gamma_csv, "-c", "1", "--floc", "0", "--json")
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    res = robustfit.fit(stats.gamma, gamma_sample, floc=0)
    params = {p["name"]: p for p in rep["params"]}
    assert params["loc"]["fixed"] and params["loc"]["stderr"] is None
    np.testing.assert_allclose(params["a"]["value"], res[0], rtol=1e-10)
    np.testing.assert_allclose(params["scale"]["stderr"], res.stderr["scale"], rtol=1e-6)
    np.testing.assert_allclose(rep["aic"], res.aic)
    assert rep["gof"]["ks"] < 0.05
    assert rep["scipy"]["status"] == "ok"
    np.testing.assert_allclose(rep["scipy"]["nll"], res.nll, rtol=1e-6)


def test_fit_whitespace_text_npy_and_plot(run_cli, tmp_path, gamma_sample):
    txt = tmp_path / "x.txt"
    np.savetxt(txt, gamma_sample)
    npy = tmp_path / "x.npy"
    np.save(npy, gamma_sample)
    png = tmp_path / "fit.png"
    a = run_cli("fit", "lognorm", txt, "--no-scipy", "--json")
    b = run_cli("fit", "lognorm", npy, "--no-scipy", "--json", "--plot", png)
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    assert json.loads(a.stdout)["params"] == json.loads(b.stdout)["params"]
    assert png.stat().st_size > 10_000


def test_fit_nan_policy_omit(run_cli, tmp_path):
    path = tmp_path / "gaps.csv"
    path.write_text("v\n1.5\n\n2.0\nNA\n3.5\n2.2\n1.1\n4.0\n")
    bad = run_cli("fit", "norm", path)
    assert bad.returncode == 1
    assert "--nan-policy omit" in bad.stderr
    good = run_cli("fit", "norm", path, "--nan-policy", "omit", "--json", "--no-scipy")
    assert good.returncode == 0, good.stderr
    rep = json.loads(good.stdout)
    assert rep["n"] == 6 and rep["n_omitted"] == 1  # blank lines are not data rows


def _write(path, text):
    path.write_text(text)
    return path


@pytest.mark.parametrize("case, content, args, needle", [
    ("non-numeric", "x\n1.0\n2.0\nabc\n3.0\n", (), "non-numeric value 'abc'"),
    ("empty", "", (), "is empty"),
    ("header-only", "x\n", (), "no data rows"),
    ("missing-column", "a,b\n1,2\n3,4\n", ("--column", "c"), "column 'c' not found"),
    ("no-column", "a,b\n1,2\n3,4\n", (), "choose one with --column"),
    ("index-range", "1 2\n3 4\n", ("--column", "5"), "out of range"),
    ("all-nan", "x,y\n1,NA\n2,NA\n3,\n", ("--column", "y"), "non-finite"),
    ("all-nan-omit", "x,y\n1,NA\n2,NA\n3,\n", ("--column", "y", "--nan-policy", "omit"),
     "data is empty after omitting"),
    ("unknown-dist", "x\n1\n2\n3\n", ("DIST=gammma",), "unknown distribution 'gammma'"),
    ("discrete-dist", "x\n1\n2\n3\n", ("DIST=poisson",), "unknown distribution 'poisson'"),
    ("out-of-support", "x\n-1\n2\n3\n", ("DIST=expon", "--floc", "0"), "below"),
    ("too-few", "x\n1\n", (), "cannot determine"),
])
def test_fit_malformed_input_is_one_line_error(run_cli, tmp_path, case, content, args, needle):
    path = _write(tmp_path / f"{case}.csv", content)
    dist = "norm"
    rest = []
    for a in args:
        if a.startswith("DIST="):
            dist = a[5:]
        else:
            rest.append(a)
    out = run_cli("fit", dist, path, *rest)
    assert out.returncode == 1, (out.stdout, out.stderr)
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("robustfit: error:"), out.stderr
    assert needle in lines[0]


def test_missing_file_and_usage_errors(run_cli, tmp_path):
    out = run_cli("fit", "norm", tmp_path / "nope.csv")
    assert out.returncode == 1 and "does not exist" in out.stderr
    out = run_cli("fit", "norm")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    out = run_cli("fit", "norm", tmp_path / "x.csv", "--fscale", "-1")
    assert out.returncode == 2 and "must be positive" in out.stderr
    out = run_cli("frobnicate")
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1


def test_binary_file_is_one_line_error(run_cli, tmp_path):
    path = tmp_path / "blob.csv"
    path.write_bytes(bytes(range(256)) * 4)
    out = run_cli("fit", "norm", path)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
