"""Helpers for running the real ``robustfit`` command in a subprocess."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

ROOT = Path(__file__).resolve().parents[2]


def _run(*args, timeout=120):
    env = dict(os.environ)
    env.pop("ROBUSTFIT_DEBUG", None)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "robustfit", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, env=env)


@pytest.fixture(scope="session")
def run_cli():
    """``run_cli(*args)``: run ``python -m robustfit *args``; a CompletedProcess."""
    return _run


@pytest.fixture(scope="session")
def gamma_sample():
    return stats.gamma.rvs(2.5, scale=3.0, size=1500, random_state=np.random.default_rng(5))


@pytest.fixture
def gamma_csv(tmp_path, gamma_sample):
    path = tmp_path / "life.csv"
    rows = "\n".join(f"{i},{float(v)!r}" for i, v in enumerate(gamma_sample))
    path.write_text("id,hours\n" + rows + "\n")
    return path
