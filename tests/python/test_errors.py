"""Engine errors arrive as Python exceptions of the expected builtin kinds, with useful messages."""
import numpy as np
import pytest

import spire


def test_hierarchy():
    assert issubclass(spire.ShapeError, spire.SpireError) and issubclass(spire.ShapeError, ValueError)
    assert issubclass(spire.DTypeError, spire.SpireError) and issubclass(spire.DTypeError, TypeError)
    assert issubclass(spire.SpireValueError, ValueError)
    assert issubclass(spire.ConfigError, ValueError) and issubclass(spire.ParseError, ValueError)
    assert issubclass(spire.SpireIOError, OSError)
    assert issubclass(spire.AutodiffError, RuntimeError)
    assert issubclass(spire.DeviceError, RuntimeError)
    assert not hasattr(spire, "ValueError") and not hasattr(spire, "IOError")  # builtins not shadowed


def test_shape_error_message_names_op_and_shapes():
    with pytest.raises(spire.ShapeError) as e:
        spire.ones(2, 3) + spire.ones(4)
    msg = str(e.value)
    assert "add" in msg and "[2, 3]" in msg and "[4]" in msg
    with pytest.raises(ValueError):  # catchable as the builtin
        spire.ones(2, 3) @ spire.ones(2, 3)


def test_reshape_error():
    with pytest.raises(spire.ShapeError, match="reshape"):
        spire.ones(6).reshape(4, 2)


def test_dtype_errors():
    with pytest.raises(spire.DTypeError, match="unknown dtype 'float8'"):
        spire.zeros(2, dtype="float8")
    with pytest.raises(TypeError):
        spire.zeros(2, dtype=np.float16)


def test_value_errors():
    with pytest.raises(spire.SpireValueError, match="item"):
        spire.ones(3).item()
    with pytest.raises(ValueError, match="unknown device"):
        spire.Device("tpu")


def test_autodiff_error():
    with pytest.raises(spire.AutodiffError):
        (spire.ones(2, requires_grad=True) * 2).requires_grad = False


def test_index_error_is_builtin():
    with pytest.raises(IndexError):
        spire.ones(2)[5]


def test_dtype_objects():
    assert spire.float32.name == "float32" and repr(spire.float32) == "spire.float32"
    assert spire.float32 == "float32" and spire.float32 == np.float32 and spire.float32 != spire.float64
    assert spire.float64.itemsize == 8 and spire.complex64.is_complex and spire.float32.is_floating_point
    assert np.dtype(spire.float64.numpy) == np.float64
    assert spire.ones(2).dtype is spire.float32
    assert {spire.float32: 1}[spire.float32] == 1
    assert spire.ones(2).device == "cpu" and str(spire.ones(2).device) == "cpu"
