"""Diagnostic plots of fitted distributions (optional; needs matplotlib).

matplotlib is imported only when a plot is drawn, and figures are built without pyplot,
so plotting works headless (no display, no GUI backend) and in threads.
"""

from __future__ import annotations

import os

import numpy as np

from .errors import BackendUnavailableError, InvalidInputError

__all__ = ["plot_fit", "plot_candidates"]


def _figure(figsize):
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise BackendUnavailableError(
            "plotting needs matplotlib; install it with: pip install 'robustfit[plot]'"
        ) from None
    return Figure(figsize=figsize, dpi=100, layout="constrained")


def _plotting_positions(n: int) -> np.ndarray:
    return (np.arange(1, n + 1) - 0.5) / n


def _grid(x: np.ndarray, frozen, n: int = 400) -> np.ndarray:
    lo, hi = float(np.min(x)), float(np.max(x))
    pad = 0.05 * (hi - lo or abs(hi) or 1.0)
    grid = np.linspace(lo - pad, hi + pad, n)
    with np.errstate(all="ignore"):
        a, b = frozen.support()
    return grid[(grid >= a) & (grid <= b)]


def _sample(result) -> np.ndarray:
    data = getattr(result, "data", None)
    if not isinstance(data, np.ndarray) or data.size == 0:
        raise InvalidInputError("plot() needs the uncensored sample the result was fitted to.")
    return np.sort(data)


def plot_fit(result, *, path: str | os.PathLike | None = None, bins="auto",
             title: str | None = None, figsize=(10.0, 8.0)):
    """Four-panel diagnostic figure of a :class:`~robustfit.FitResult`.

    Panels: histogram with the fitted density; Q-Q (fitted quantiles against sorted
    data); P-P (fitted cdf at the data against plotting positions); empirical and
    fitted CDF.

    Parameters
    ----------
    result : FitResult
        A fit of uncensored data.
    path : str or path-like, optional
        Where to save the figure (the format follows the extension, e.g. ``.png``).
    bins : int or str
        Histogram bins, as for ``numpy.histogram``.
    title : str, optional
        Figure title; by default the distribution and its parameters.
    figsize : tuple of float
        Size in inches (at 100 dpi, so ``(10, 8)`` saves a 1000x800 PNG).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import os, tempfile
    >>> from scipy import stats
    >>> import robustfit
    >>> x = stats.weibull_min.rvs(1.8, scale=1200, size=500, random_state=0)
    >>> res = robustfit.fit(stats.weibull_min, x, floc=0)
    >>> fig = res.plot(os.path.join(tempfile.mkdtemp(), "weibull.png"))
    >>> len(fig.axes)
    4
    """
    x = _sample(result)
    frozen = result.frozen()
    n = x.size
    fig = _figure(figsize)
    ax_hist, ax_qq, ax_pp, ax_cdf = fig.subplots(2, 2).ravel()
    grid = _grid(x, frozen)
    pos = _plotting_positions(n)
    with np.errstate(all="ignore"):
        pdf = frozen.pdf(grid)
        theo_q = frozen.ppf(pos)
        cdf_x = frozen.cdf(x)
        cdf_grid = frozen.cdf(grid)

    ax_hist.hist(x, bins=bins, density=True, color="0.8", edgecolor="0.5", label="data")
    ax_hist.plot(grid, pdf, color="C0", lw=2, label="fitted density")
    ax_hist.set(title="Histogram and density", xlabel="x", ylabel="density")
    ax_hist.legend()

    ax_qq.plot(theo_q, x, ".", ms=3, color="C0")
    finite = np.isfinite(theo_q)
    if finite.any():
        lo = min(theo_q[finite].min(), x[0])
        hi = max(theo_q[finite].max(), x[-1])
        ax_qq.plot([lo, hi], [lo, hi], color="C3", lw=1)
    ax_qq.set(title="Q-Q", xlabel="fitted quantiles", ylabel="sample quantiles")

    ax_pp.plot(pos, cdf_x, ".", ms=3, color="C0")
    ax_pp.plot([0, 1], [0, 1], color="C3", lw=1)
    ax_pp.set(title="P-P", xlabel="empirical probability", ylabel="fitted probability")

    ax_cdf.step(x, np.arange(1, n + 1) / n, where="post", color="0.3", label="empirical")
    ax_cdf.plot(grid, cdf_grid, color="C0", lw=2, label="fitted")
    ax_cdf.set(title="CDF", xlabel="x", ylabel="probability")
    ax_cdf.legend()

    if title is None:
        params = ", ".join(f"{k}={v:.4g}" for k, v in result.params.items())
        title = f"{result.dist.name}({params})"
    fig.suptitle(title)
    if path is not None:
        fig.savefig(path)
    return fig


def plot_candidates(data, fits, *, path: str | os.PathLike | None = None, bins="auto",
                    figsize=(11.0, 4.5)):
    """Histogram and empirical CDF of ``data`` with several fitted distributions.

    Parameters
    ----------
    data : array_like
        The sample.
    fits : sequence of (str, frozen distribution)
        Labels and frozen scipy.stats distributions to overlay (e.g. the top three of
        ``robustfit best``).
    path : str or path-like, optional
        Where to save the figure.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from scipy import stats
    >>> from robustfit.plotting import plot_candidates
    >>> x = stats.norm.rvs(size=300, random_state=0)
    >>> fig = plot_candidates(x, [("norm", stats.norm()), ("logistic", stats.logistic())])
    >>> len(fig.axes)
    2
    """
    x = np.sort(np.asarray(data, dtype=float))
    fig = _figure(figsize)
    ax_hist, ax_cdf = fig.subplots(1, 2)
    ax_hist.hist(x, bins=bins, density=True, color="0.85", edgecolor="0.6", label="data")
    ax_cdf.step(x, np.arange(1, x.size + 1) / x.size, where="post", color="0.3",
                label="empirical")
    for k, (label, frozen) in enumerate(fits):
        grid = _grid(x, frozen)
        with np.errstate(all="ignore"):
            ax_hist.plot(grid, frozen.pdf(grid), lw=2, color=f"C{k}", label=label)
            ax_cdf.plot(grid, frozen.cdf(grid), lw=1.5, color=f"C{k}", label=label)
    ax_hist.set(title="Histogram and densities", xlabel="x", ylabel="density")
    ax_cdf.set(title="CDF", xlabel="x", ylabel="probability")
    ax_hist.legend()
    ax_cdf.legend()
    if path is not None:
        fig.savefig(path)
    return fig
