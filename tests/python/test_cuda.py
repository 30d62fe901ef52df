"""spire.cuda: what every machine answers (statistics, clean errors naming why there is no GPU, the
matmul precision setting), and, where a GPU is present, results against NumPy, streams and events,
pinned copies, the allocator's statistics and collectives over NCCL."""
import numpy as np
import pytest

import spire

gpu = spire.cuda.is_available()


def test_matmul_precision_setting():
    assert spire.get_float32_matmul_precision() == "highest"  # no TF32 unless asked
    spire.set_float32_matmul_precision("high")
    try:
        assert spire.cuda.get_float32_matmul_precision() == "high"
    finally:
        spire.set_float32_matmul_precision("highest")
    with pytest.raises(ValueError, match='"highest" or "high"'):
        spire.set_float32_matmul_precision("medium")


def test_cuda_on_this_machine():
    if gpu:
        check_gpu_results_streams_and_memory()
    else:
        check_without_a_gpu_everything_says_why()


def check_without_a_gpu_everything_says_why():
    reason = spire.cuda.unavailable_reason()
    assert spire.cuda.device_count() == 0 and reason
    stats = spire.cuda.memory_stats()
    assert stats["allocated_bytes"] == 0 and stats["reserved_bytes"] == 0
    assert spire.cuda.memory_allocated() == 0 and spire.cuda.max_memory_allocated() == 0
    for call in (spire.cuda.synchronize, spire.cuda.Stream, lambda: spire.ones(3).pin_memory(),
                 lambda: spire.randn(3, device="cuda")):
        with pytest.raises(spire.DeviceError, match="not available") as e:
            call()
        assert reason in str(e.value)
    assert not spire.ones(3).is_pinned()
    # CUDA tensors' collectives go to NCCL, which says there is no GPU (CPU tensors are unaffected).
    world = spire.parallel.world()
    with pytest.raises(spire.DeviceError, match="nccl: no cuda:0 on this machine"):
        world.on("cuda:0")
    assert world.on("cpu") is world or world.on("cpu").id == world.id


def check_gpu_results_streams_and_memory():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((64, 32)), rng.standard_normal((32, 16))
    x, y = spire.from_numpy(a).cuda(), spire.from_numpy(b).cuda()
    before = spire.cuda.memory_allocated()
    z = spire.tanh(x @ y).sum(0)
    assert z.device == "cuda:0" and spire.cuda.memory_allocated() > before
    np.testing.assert_allclose(np.asarray(z.cpu()), np.tanh(a @ b).sum(0), rtol=1e-12)
    s = spire.cuda.Stream()
    start, end = spire.cuda.Event(enable_timing=True), spire.cuda.Event(enable_timing=True)
    with spire.cuda.stream(s):
        start.record()
        w = (x @ y) * 2.0
        end.record()
    end.synchronize()
    assert start.elapsed_time(end) >= 0
    np.testing.assert_allclose(np.asarray(w.cpu()), 2 * (a @ b), rtol=1e-12)
    p = spire.from_numpy(a).pin_memory()
    assert p.is_pinned()
    back = p.to("cuda", non_blocking=True).cpu()
    assert np.array_equal(np.asarray(back), a)
    # Collectives on CUDA tensors run over NCCL (world size 1 here).
    nccl = spire.parallel.world().on("cuda:0")
    assert nccl.backend == "nccl" and nccl.device == "cuda:0" and nccl.size == spire.parallel.size()
    total = spire.parallel.all_reduce(x, "sum")
    assert total.device == "cuda:0" and np.array_equal(np.asarray(total.cpu()), a)
