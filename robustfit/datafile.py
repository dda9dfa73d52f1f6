"""Reading one numeric column from a CSV/TSV/whitespace text file or a ``.npy`` file.

Used by the command line; every problem with the file becomes a
:class:`DataFileError` whose message names the file, the column and the fix.
"""

from __future__ import annotations

import csv
import os

import numpy as np

from .errors import InvalidInputError

__all__ = ["DataFileError", "read_column"]

_MISSING = {"", "nan", "na", "n/a", "null", "none", "-", "?"}


class DataFileError(InvalidInputError):
    """A data file cannot be read, or the requested column is missing or not numeric."""


def read_column(path: str | os.PathLike, column: str | int | None = None) -> np.ndarray:
    """Read one column of numbers from ``path``.

    Parameters
    ----------
    path : str or path-like
        ``.npy`` (1-D, or 2-D with ``column`` an index) or delimited text: the delimiter
        (comma, tab, semicolon or whitespace) is detected; a first row that is not
        numeric is taken as a header.
    column : str, int or None
        Column name (from the header) or 0-based index. ``None`` needs a file with a
        single column.

    Returns
    -------
    numpy.ndarray
        float64 values; empty cells and ``NA``/``nan`` become NaN (the caller's
        ``nan_policy`` decides what happens to them).

    Raises
    ------
    DataFileError
        The file is missing, empty, has no such column, several columns but no
        ``column``, or a cell that is not a number.

    Examples
    --------
    >>> import tempfile, os
    >>> from robustfit.datafile import read_column
    >>> d = tempfile.mkdtemp()
    >>> p = os.path.join(d, "speeds.csv")
    >>> _ = open(p, "w").write("id,speed\\n1,10.5\\n2,NA\\n3,12.0\\n")
    >>> read_column(p, "speed")
    array([10.5,  nan, 12. ])
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise DataFileError(f"file {path!r} does not exist; check the FILE argument.")
    if os.path.isdir(path):
        raise DataFileError(f"{path!r} is a directory; pass a data file.")
    if path.lower().endswith(".npy"):
        return _read_npy(path, column)
    return _read_text(path, column)


def _read_npy(path: str, column) -> np.ndarray:
    try:
        arr = np.load(path, allow_pickle=False)
    except Exception as exc:
        raise DataFileError(f"cannot read {path!r} as a .npy file: {exc}") from exc
    if arr.dtype.kind not in "biuf":
        raise DataFileError(f"{path!r} holds dtype {arr.dtype}, not real numbers.")
    if arr.ndim == 1 and column in (None, 0, "0"):
        out = arr.astype(float)
    elif arr.ndim == 2:
        if column is None:
            if arr.shape[1] != 1:
                raise DataFileError(
                    f"{path!r} has {arr.shape[1]} columns; choose one with --column INDEX."
                )
            column = 0
        idx = _as_index(column, arr.shape[1], path)
        out = arr[:, idx].astype(float)
    else:
        raise DataFileError(
            f"{path!r} holds an array of shape {arr.shape}; save a 1-D or 2-D array."
        )
    if out.size == 0:
        raise DataFileError(f"{path!r} is empty; it holds no observations.")
    return out


def _as_index(column, n_cols: int, path: str) -> int:
    try:
        idx = int(column)
    except (TypeError, ValueError):
        raise DataFileError(
            f"column {column!r} not found in {path!r} (it has no header); "
            f"use a 0-based index below {n_cols}."
        ) from None
    if not -n_cols <= idx < n_cols:
        raise DataFileError(
            f"column index {idx} is out of range for {path!r}, which has {n_cols} "
            f"column(s); use 0..{n_cols - 1}."
        )
    return idx


def _split_rows(path: str) -> list[list[str]]:
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            text = fh.read()
    except UnicodeDecodeError:
        raise DataFileError(
            f"{path!r} is not UTF-8 text; pass a CSV/TSV/text file or a .npy array."
        ) from None
    except OSError as exc:
        raise DataFileError(f"cannot read {path!r}: {exc.strerror or exc}") from exc
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise DataFileError(f"{path!r} is empty; it holds no observations.")
    sample = "\n".join(lines[:50])
    delim = next((d for d in ("\t", ",", ";") if d in sample), None)
    if delim is None:
        return [[c.strip("\"'") for c in ln.split()] for ln in lines]
    return [[c.strip() for c in row] for row in csv.reader(lines, delimiter=delim)]


def _parse(cell: str) -> float:
    if cell.strip().lower() in _MISSING:
        return float("nan")
    return float(cell)


def _is_number(cell: str) -> bool:
    try:
        _parse(cell)
    except ValueError:
        return False
    return True


def _read_text(path: str, column) -> np.ndarray:
    rows = _split_rows(path)
    header = None
    if not all(_is_number(c) for c in rows[0]):
        header, rows = rows[0], rows[1:]
    n_cols = len(header) if header is not None else max(len(r) for r in rows)
    if column is None:
        if n_cols != 1:
            names = ", ".join(header) if header else f"{n_cols} unnamed columns"
            raise DataFileError(
                f"{path!r} has {n_cols} columns ({names}); choose one with --column."
            )
        idx = 0
    elif header is not None and str(column) in header:
        idx = header.index(str(column))
    elif header is not None and not str(column).lstrip("-").isdigit():
        raise DataFileError(
            f"column {column!r} not found in {path!r}; its columns are: {', '.join(header)}."
        )
    else:
        idx = _as_index(column, n_cols, path)
    if not rows:
        raise DataFileError(f"{path!r} has a header but no data rows.")
    name = header[idx] if header is not None else f"#{idx}"
    values = np.empty(len(rows))
    for i, row in enumerate(rows):
        cell = row[idx] if idx < len(row) or -len(row) <= idx < 0 else ""
        try:
            values[i] = _parse(cell)
        except ValueError:
            raise DataFileError(
                f"non-numeric value {cell!r} in column {name!r} of {path!r} at data row "
                f"{i + 1}; "
                "fix or remove it (empty cells and NA are read as missing)."
            ) from None
    return values
