import numpy as np
import pytest

import robustfit
from robustfit._validation import as_finite_1d, check_choice


def test_every_error_refines_a_builtin():
    assert issubclass(robustfit.NonFiniteDataError, ValueError)
    assert issubclass(robustfit.OutOfSupportError, robustfit.RobustFitError)
    assert issubclass(robustfit.UnsupportedDistributionError, TypeError)
    assert issubclass(robustfit.BackendUnavailableError, ImportError)


def test_nan_policy_raise_names_count_and_first_index():
    with pytest.raises(robustfit.NonFiniteDataError, match=r"2 non-finite.*index 1"):
        as_finite_1d([1.0, np.nan, 3.0, np.inf])


def test_nan_policy_omit_drops_and_counts():
    arr, n = as_finite_1d([1.0, np.nan, 3.0, np.inf], nan_policy="omit")
    np.testing.assert_array_equal(arr, [1.0, 3.0])
    assert n == 2


def test_bad_dtype_and_shape_are_named():
    with pytest.raises(robustfit.InvalidInputError, match="data must hold real numbers"):
        as_finite_1d(["a", "b"])
    with pytest.raises(robustfit.InvalidInputError, match="1-dimensional"):
        as_finite_1d(np.ones((3, 3)))
    with pytest.raises(robustfit.InvalidInputError, match="nan_policy"):
        check_choice("drop", "nan_policy", ("raise", "omit"))


def test_float16_is_promoted():
    arr, _ = as_finite_1d(np.ones(4, dtype=np.float16))
    assert arr.dtype == np.float64
