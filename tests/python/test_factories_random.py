import numpy as np
import pytest

import spire


def test_factories():
    assert spire.zeros(2, 3).shape == (2, 3) and spire.zeros((2, 3)).tolist() == [[0.0] * 3] * 2
    assert spire.ones(4, dtype=spire.int32).dtype == spire.int32
    assert spire.full((2,), 7).dtype == spire.int64 and spire.full((2,), 7.5).tolist() == [7.5, 7.5]
    assert spire.full(3, True).dtype == spire.bool
    np.testing.assert_array_equal(spire.arange(5).numpy(), np.arange(5))
    assert spire.arange(5).dtype == spire.int64 and spire.arange(0.0, 1.0, 0.25).dtype == spire.float32
    np.testing.assert_allclose(spire.arange(1, 2, 0.25).numpy(), [1.0, 1.25, 1.5, 1.75])
    np.testing.assert_allclose(spire.linspace(0, 1, 5).numpy(), np.linspace(0, 1, 5))
    np.testing.assert_array_equal(spire.eye(3).numpy(), np.eye(3))
    np.testing.assert_array_equal(spire.eye(2, 3).numpy(), np.eye(2, 3))
    x = spire.ones(2, 2, dtype=spire.float64)
    assert spire.zeros_like(x).dtype == spire.float64
    assert spire.ones_like(x, dtype=spire.int32).dtype == spire.int32
    assert spire.full_like(x, 3.0).tolist() == [[3.0, 3.0], [3.0, 3.0]]
    assert spire.empty(3).shape == (3,)
    assert spire.zeros(2, requires_grad=True).requires_grad


def test_random_is_deterministic():
    spire.manual_seed(123)
    a = spire.random.normal((1000,))
    spire.manual_seed(123)
    b = spire.random.normal((1000,))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    c = spire.random.normal((1000,))
    assert not np.array_equal(a.numpy(), c.numpy())
    assert abs(float(a.mean())) < 0.15 and abs(float(a.std()) - 1.0) < 0.1


def test_generators():
    g1 = spire.random.Generator(seed=5)
    g2 = spire.random.Generator(seed=5)
    u1 = spire.random.uniform((10,), -1.0, 1.0, generator=g1)
    u2 = spire.random.uniform((10,), -1.0, 1.0, generator=g2)
    np.testing.assert_array_equal(u1.numpy(), u2.numpy())
    assert g1.offset > 0
    assert float(u1.min()) >= -1.0 and float(u1.max()) < 1.0
    r = spire.random.randint(0, 10, (100,), generator=g1)
    assert r.dtype == spire.int64 and 0 <= int(r.min()) and int(r.max()) < 10
    p = spire.random.permutation(20, generator=g1)
    assert sorted(p.tolist()) == list(range(20))
    b = spire.random.bernoulli((200,), 0.3, generator=g1)
    assert b.dtype == spire.bool
    assert spire.randn(3, 4).shape == (3, 4) and spire.rand(5).dtype == spire.float32


def test_devices_on_this_machine():
    t = spire.ones(2)
    assert t.cpu() is not None and t.to("cpu").device == "cpu"
    assert isinstance(spire.cuda.is_available(), bool)
    if not spire.cuda.is_available():
        assert spire.cuda.device_count() == 0 and spire.cuda.unavailable_reason() != ""
        with pytest.raises(spire.DeviceError):
            t.to("cuda")
    else:
        g = t.cuda() * 2.0
        assert g.device == "cuda:0" and g.cpu().tolist() == [2.0, 2.0]
        assert t.__dlpack_device__() == (1, 0) and g.__dlpack_device__() == (2, 0)


def test_draws_on_a_device_match_the_cpu_or_refuse_cleanly():
    cpu = spire.random.normal((1000,), generator=spire.random.Generator(3))
    gen = spire.random.Generator(3)
    if spire.cuda.is_available():
        gpu = spire.random.normal((1000,), generator=gen, device="cuda")
        assert gpu.device == "cuda:0"
        assert np.array_equal(np.asarray(gpu.cpu()), np.asarray(cpu))  # the same bits
        assert np.array_equal(np.asarray(spire.randn(7, generator=spire.random.Generator(1), device="cuda").cpu()),
                              np.asarray(spire.randn(7, generator=spire.random.Generator(1))))
    else:
        with pytest.raises(spire.DeviceError, match="normal"):
            spire.random.normal((1000,), generator=gen, device="cuda")
        # A refused draw consumes nothing: the generator still gives the CPU's first draw.
        assert gen.offset == 0
        assert np.array_equal(np.asarray(spire.random.normal((1000,), generator=gen)), np.asarray(cpu))
