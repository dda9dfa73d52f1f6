"""Diagnostic figures: written as PNGs of the expected size, and not blank."""

import numpy as np
import pytest
from scipy import stats

import robustfit

mpl_image = pytest.importorskip("matplotlib.image", reason="plotting needs matplotlib")


def _check_png(path, width, height):
    img = mpl_image.imread(str(path))
    assert img.shape[:2] == (height, width)
    rgb = img[..., :3]
    non_white = np.mean(np.any(rgb < 0.95, axis=-1))
    assert 0.02 < non_white < 0.9  # something was drawn, and it is not a filled block
    assert len(np.unique(rgb.reshape(-1, 3).round(2), axis=0)) > 10  # several colours


def test_fit_plot_writes_four_panel_png(tmp_path):
    x = stats.maxwell.rvs(scale=1.0455e4, size=3000, random_state=0)
    res = robustfit.fit(stats.maxwell, x, floc=0)
    path = tmp_path / "maxwell.png"
    fig = res.plot(path)
    assert [ax.get_title() for ax in fig.axes] == ["Histogram and density", "Q-Q", "P-P",
                                                   "CDF"]
    _check_png(path, 1000, 800)
    small = tmp_path / "small.png"
    res.plot(small, figsize=(6, 4), bins=30, title="speeds")
    _check_png(small, 600, 400)


def test_plot_candidates_png(tmp_path):
    from robustfit.plotting import plot_candidates

    x = stats.gamma.rvs(2.0, size=500, random_state=1)
    fits = [(n, robustfit.fit(getattr(stats, n), x).frozen()) for n in ("gamma", "norm")]
    path = tmp_path / "best.png"
    plot_candidates(x, fits, path=path)
    _check_png(path, 1100, 450)


def test_plot_of_bounded_support_and_censored_data(tmp_path):
    x = stats.beta.rvs(0.5, 0.5, size=400, random_state=2)  # density infinite at the edges
    res = robustfit.fit(stats.beta, x, floc=0, fscale=1)
    res.plot(tmp_path / "beta.png")
    _check_png(tmp_path / "beta.png", 1000, 800)
    cens = stats.CensoredData(uncensored=x[:300], right=x[300:])
    rc = robustfit.fit(stats.beta, cens, floc=0, fscale=1)
    with pytest.raises(robustfit.InvalidInputError, match="uncensored"):
        rc.plot()
