"""The training-loss figure of the autograd guide: ``python docs/_tools/loss_curve.py``.

Trains with strided's autograd and plots the loss per step with matplotlib, into
docs/_static/autograd-loss.png (committed; rerun after a change that moves the
curves):

- left: the guide's thermometer fit (``t_c = w * t_u + b``, mean squared error,
  plain gradient descent), with the raw input ``t_u`` at the largest learning rate
  that does not diverge and with the normalized input ``0.1 * t_u`` at 1e-2, as the
  guide explains;
- right: the two-layer MLP of examples/train_classifier.py on three spirals
  (softmax cross-entropy, full-batch SGD), with its training accuracy.
"""

from __future__ import annotations

import math
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "examples"))

import strided as xp  # noqa: E402
from strided import autograd  # noqa: E402

OUT = ROOT / "docs" / "_static" / "autograd-loss.png"

T_C = [0.5, 14.0, 15.0, 28.0, 11.0, 8.0, 3.0, -4.0, 6.0, 13.0, 21.0]
T_U = [35.7, 55.9, 58.2, 81.9, 56.3, 48.9, 33.9, 21.8, 48.4, 60.4, 68.4]


def thermometer(scale: float, lr: float, epochs: int) -> list:
    """The guide's training loop; the loss of every epoch."""
    t_c, t_u = xp.tensor(T_C), scale * xp.tensor(T_U)
    params = xp.tensor([1.0, 0.0], requires_grad=True)
    losses = []
    for _ in range(epochs):
        if params.grad is not None:
            params.grad.zero_()
        w, b = params
        loss = ((w * t_u + b - t_c) ** 2).mean()
        loss.backward()
        with xp.no_grad():
            params -= lr * params.grad
        losses.append(loss.item())
    return losses


def spirals(steps: int = 2000, hidden: int = 64, lr: float = 1.0, seed: int = 0):
    """examples/train_classifier.py's model and data; (losses, accuracies) per step."""
    import train_classifier as tc

    rng = np.random.default_rng(seed)
    X_np, y_np = tc.spirals(100, 3, rng)
    X, Y = xp.asarray(X_np), xp.asarray(np.eye(3, dtype=np.float32)[y_np])
    y = xp.asarray(y_np)
    params = [tc.init((2, hidden), rng, 1.0), xp.zeros(hidden, requires_grad=True),
              tc.init((hidden, 3), rng, 1.0 / math.sqrt(hidden)), xp.zeros(3, requires_grad=True)]
    losses, accs = [], []
    for _ in range(steps):
        logits = tc.forward(params, X)
        loss = tc.cross_entropy(logits, Y)
        loss.backward()
        with autograd.no_grad():
            for p in params:
                p -= lr * p.grad
                p.grad = None
            accs.append(float(xp.mean(xp.astype(xp.argmax(logits, axis=1) == y, xp.float32))))
        losses.append(loss.item())
    return losses, accs


def main() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    raw = thermometer(1.0, 1e-4, 5000)
    normalized = thermometer(0.1, 1e-2, 5000)
    losses, accs = spirals()

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.6), dpi=110)
    a.plot(range(1, len(raw) + 1), raw, label="raw t_u, lr 1e-4")
    a.plot(range(1, len(normalized) + 1), normalized, label="0.1 * t_u, lr 1e-2")
    a.set_xscale("log")
    a.set_yscale("log")
    a.set_xlabel("epoch")
    a.set_ylabel("mean squared error")
    a.set_title("Thermometer: w * t_u + b (the walk-through)")
    a.legend(frameon=False)
    a.grid(alpha=0.3, which="both")

    b.plot(losses, color="C2", label="loss")
    b.set_yscale("log")
    b.set_xlabel("step")
    b.set_ylabel("cross-entropy")
    b.set_title("Spirals: 2-64-3 MLP (examples/train_classifier.py)")
    b.grid(alpha=0.3, which="both")
    acc = b.twinx()
    acc.plot(accs, color="C3", alpha=0.7, label="training accuracy")
    acc.set_ylim(0, 1.02)
    acc.set_ylabel("training accuracy")
    lines = b.get_lines() + acc.get_lines()
    b.legend(lines, [ln.get_label() for ln in lines], frameon=False, loc="center right")
    fig.suptitle(f"Training with strided {xp.__version__}'s autograd", fontsize=10)
    fig.tight_layout()
    fig.savefig(OUT, metadata={"Software": None})
    print(f"wrote {OUT.relative_to(ROOT)}: thermometer loss {normalized[-1]:.4f}, "
          f"spirals loss {losses[-1]:.4f}, accuracy {accs[-1]:.1%}")


if __name__ == "__main__":
    main()
