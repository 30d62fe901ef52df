"""Smoke test of examples/digits.py: a few epochs on a subset train both models end to end (fit with
EarlyStopping and ModelCheckpoint, reload of the best HDF5 checkpoint into a fresh model, summary
file), well above chance (10%), and the same seed gives the same numbers."""

import importlib.util
import os


_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "digits.py")


def _digits():
    spec = importlib.util.spec_from_file_location("digits_example", _PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _run(mod, out):
    # 400 images, no augmentation, 4 epochs: about a second; --min-acc 0 so the status is 0.
    return mod.main(["--out", str(out), "--subset", "400", "--epochs", "4", "--augment", "0", "--lr", "3e-3",
                     "--min-acc", "0"])


def test_digits_smoke(tmp_path):
    mod = _digits()
    status, results = _run(mod, tmp_path / "a")
    assert status == 0
    assert [r["model"] for r in results] == ["mlp", "cnn"]
    for r in results:
        assert 1 <= r["best_epoch"] <= r["epochs"] <= 4
        assert os.path.isfile(r["checkpoint"])
        assert r["test_accuracy"] > 0.5, r   # chance is 0.1
    summary = (tmp_path / "a" / "summary.txt").read_text()
    assert "mlp:" in summary and "cnn:" in summary
    assert not [f for f in os.listdir(tmp_path / "a") if ".tmp-" in f]

    # Same seed, same numbers (wall times aside).
    _, again = _run(mod, tmp_path / "b")
    keys = ("epochs", "best_epoch", "best_val_loss", "best_val_accuracy", "test_loss", "test_accuracy")
    assert [[r[k] for k in keys] for r in results] == [[r[k] for k in keys] for r in again]


def test_digits_exit_status_below_threshold(tmp_path):
    mod = _digits()
    status, _ = mod.main(["--out", str(tmp_path), "--subset", "200", "--epochs", "1", "--augment", "0",
                          "--models", "mlp", "--min-acc", "1.01"])
    assert status == 1
