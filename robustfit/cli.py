"""The ``robustfit`` command: ``fit``, ``best`` and ``demo`` (also ``python -m robustfit``).

Every failure the user can cause (a missing file, a non-numeric cell, an unknown
distribution, too few observations) ends in one line ``robustfit: error: ...`` and
exit status 1; usage mistakes exit with status 2. Tracebacks are shown only when the
environment variable ``ROBUSTFIT_DEBUG`` is set.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

from . import __version__
from .errors import RobustFitError

__all__ = ["main", "build_parser"]

EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line naming the problem and the fix."""

    def error(self, message: str):  # noqa: D401 - argparse's hook
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


def _positive(text: str) -> float:
    value = _float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be positive")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``robustfit`` command."""
    parser = _Parser(prog="robustfit", description="Distribution fitting, minimisation and "
                     "per-sample gradients that do not fail.")
    parser.add_argument("--version", action="version", version=f"robustfit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="{fit,best,demo}",
                                parser_class=_Parser)
    sub.required = True

    p = sub.add_parser("fit", help="fit one distribution to a column of numbers",
                       description="Fit a continuous scipy.stats distribution by maximum "
                       "likelihood and compare with plain scipy.stats on the same data.")
    p.add_argument("dist", metavar="DIST", help="scipy.stats name, e.g. gamma, weibull_min")
    p.add_argument("file", metavar="FILE", help="CSV, TSV, whitespace-separated text or .npy")
    p.add_argument("--column", "-c", help="column name or 0-based index (files with "
                   "several columns)")
    p.add_argument("--floc", type=_float, help="fix the location")
    p.add_argument("--fscale", type=_positive, help="fix the scale")
    for j in range(4):
        p.add_argument(f"--f{j}", type=_float, metavar="X", help=f"fix shape parameter {j}"
                       if j else "fix shape parameter 0 (also --f1 .. --f3)")
    p.add_argument("--nan-policy", choices=("raise", "omit"), default="raise",
                   help="NaN/empty cells: stop with an error (default) or drop them")
    p.add_argument("--level", type=float, default=0.95, help="confidence level (0.95)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plot", metavar="PNG", help="save the diagnostic figure here")
    p.add_argument("--scipy-timeout", type=_positive, default=60.0, metavar="S",
                   help="seconds allowed for the plain scipy.stats comparison (60)")
    p.add_argument("--no-scipy", action="store_true", help="skip the scipy comparison")

    b = sub.add_parser("best", help="fit many distributions and rank them",
                       description="Fit each candidate in its own process with a time "
                       "limit, and rank by AIC, BIC or the KS statistic.")
    b.add_argument("file", metavar="FILE")
    b.add_argument("--column", "-c")
    b.add_argument("--candidates", default="common",
                   help="'common' (24 families), 'all' or NAME,NAME,... (common)")
    b.add_argument("--top", type=_positive_int, default=10, help="rows to print (10)")
    b.add_argument("--jobs", "-j", type=_positive_int, default=None,
                   help="parallel processes (number of CPUs)")
    b.add_argument("--timeout", type=_positive, default=30.0, metavar="S",
                   help="seconds per distribution; a fit still running is killed (30)")
    b.add_argument("--by", choices=("aic", "bic", "ks"), default="aic")
    b.add_argument("--nan-policy", choices=("raise", "omit"), default="raise")
    b.add_argument("--json", action="store_true")
    b.add_argument("--plot", metavar="PNG", help="save the top three over the data here")
    b.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    d = sub.add_parser("demo", help="what robustfit fixes, next to plain scipy",
                       description="Three scenarios on embedded data (under a minute).")
    d.add_argument("--only", choices=("maxwell", "svm", "gradients"), action="append",
                   help="run only these scenarios")
    return parser


def _jsonable(obj):
    """Strict JSON: numpy scalars become floats, NaN/inf become null."""
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, (bool, str)) or obj is None:
        return obj
    try:
        value = float(obj)
    except (TypeError, ValueError):
        return str(obj)
    if isinstance(obj, int):
        return obj
    return value if math.isfinite(value) else None


def _print_json(obj) -> None:
    print(json.dumps(_jsonable(obj), indent=2, allow_nan=False))


def _load(args) -> tuple:
    from .datafile import read_column

    column = args.column
    x = read_column(args.file, column)
    label = args.file if column is None else f"{args.file} (column {column!r})"
    return x, label


def _cmd_fit(args) -> int:
    from .fitting.report import fit_report, format_fit_report

    x, label = _load(args)
    fixed = {k: getattr(args, k) for k in ("floc", "fscale", "f0", "f1", "f2", "f3")
             if getattr(args, k) is not None}
    report, result = fit_report(args.dist, x, fixed, nan_policy=args.nan_policy,
                                level=args.level, scipy_timeout=None if args.no_scipy
                                else args.scipy_timeout)
    report["source"] = label
    if args.plot:
        result.plot(args.plot)
        report["plot"] = args.plot
    if args.json:
        _print_json(report)
    else:
        print(format_fit_report(report))
    return 0


def _cmd_best(args) -> int:
    from .fitting.selection import best

    x, label = _load(args)
    ranking = best(x, args.candidates, by=args.by, jobs=args.jobs, timeout=args.timeout,
                   progress=not args.no_progress and not args.json,
                   nan_policy=args.nan_policy)
    ok = [r for r in ranking if r.status == "ok"]
    if args.plot:
        if not ok:
            raise RobustFitError("no candidate could be fitted, so there is nothing to plot.")
        from .plotting import plot_candidates

        plot_candidates(x, [(r.name, r.frozen()) for r in ok[:3]], path=args.plot)
    if args.json:
        _print_json({"source": label, "by": args.by, "n": int(x.size),
                     "ranking": [r.as_dict() for r in ranking]})
        return 0
    from .fitting.report import format_ranking

    print(format_ranking(ranking, label=label, by=args.by, top=args.top))
    return 0 if ok else EXIT_ERROR


def _cmd_demo(args) -> int:
    from .demo import run_demo

    run_demo(only=args.only)
    return 0


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    # messages written for the Python API name keyword arguments; say the flag instead
    return text.replace("nan_policy='omit'", "--nan-policy omit")


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handlers = {"fit": _cmd_fit, "best": _cmd_best, "demo": _cmd_demo}
    try:
        return handlers[args.command](args)
    except KeyboardInterrupt:
        print("robustfit: interrupted", file=sys.stderr)
        return 130
    except (RobustFitError, OSError) as exc:
        if os.environ.get("ROBUSTFIT_DEBUG"):
            raise
        print(f"robustfit: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:  # a bug of ours: still one line, with a way to see more
        if os.environ.get("ROBUSTFIT_DEBUG"):
            raise
        print(f"robustfit: internal error: {type(exc).__name__}: {_one_line(exc)} "
              "(set ROBUSTFIT_DEBUG=1 for the traceback and please report it)",
              file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
