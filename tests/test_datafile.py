"""Reading a column from CSV / TSV / whitespace text / .npy, and the errors it gives."""

import numpy as np
import pytest

from robustfit.datafile import DataFileError, read_column
from robustfit.errors import RobustFitError


@pytest.mark.parametrize("text, column, expected", [
    ("1.5\n2.5\n-3e2\n", None, [1.5, 2.5, -300.0]),
    ("a,b\n1,2\n3,4\n", "b", [2.0, 4.0]),
    ("a,b\n1,2\n3,4\n", "0", [1.0, 3.0]),
    ("a\tb\n1\t2\n3\t\n", "b", [2.0, np.nan]),
    ("a;b\n1;2\n3;4\n", 1, [2.0, 4.0]),
    ("# comment\n1 2\n\n3   4\n", 1, [2.0, 4.0]),
    ("x\n1\nNA\nnan\n2\n", None, [1.0, np.nan, np.nan, 2.0]),
    ('"v"\n"1.0"\n"2.0"\n', None, [1.0, 2.0]),
])
def test_reads_delimited_text(tmp_path, text, column, expected):
    p = tmp_path / "d.txt"
    p.write_text(text)
    np.testing.assert_array_equal(read_column(p, column), expected)


def test_reads_npy(tmp_path):
    np.save(tmp_path / "a.npy", np.arange(4.0))
    np.save(tmp_path / "b.npy", np.arange(6.0).reshape(3, 2))
    np.testing.assert_array_equal(read_column(tmp_path / "a.npy"), np.arange(4.0))
    np.testing.assert_array_equal(read_column(tmp_path / "b.npy", "1"), [1.0, 3.0, 5.0])
    with pytest.raises(DataFileError, match="2 columns"):
        read_column(tmp_path / "b.npy")
    np.save(tmp_path / "s.npy", np.array(["a", "b"]))
    with pytest.raises(DataFileError, match="not real numbers"):
        read_column(tmp_path / "s.npy")


def test_errors_are_robustfit_and_value_errors(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text("x\n1\n2,5\nfoo\n")
    with pytest.raises(DataFileError, match="'foo'.*data row 3") as info:
        read_column(p)
    assert isinstance(info.value, RobustFitError) and isinstance(info.value, ValueError)
    with pytest.raises(DataFileError, match="is a directory"):
        read_column(tmp_path)
