"""A small classifier written with the spellings PyTorch's tutorials and older programs start
with: the device from ``torch.accelerator``, the model built inside ``with torch.device(...)``,
``from torch.autograd import Variable``, a loss subclassing ``torch.nn.modules.loss._Loss``, the
legacy ``torch.LongTensor`` for the labels, the negative log-likelihood picked with
``x[range(n), target]``, and keyword arguments spelled as PyTorch's documentation spells them.
``initial`` gives the starting weights."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable
from torch.nn.modules.loss import _Loss

import numpy as np

device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"


class RangeNLL(_Loss):
    """The mean negative log-likelihood of the targets' log-probabilities."""

    def forward(self, logp, target):
        picked = logp[range(target.shape[0]), target]
        return -picked.mean() if self.reduction == "mean" else -picked.sum()


def data():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((48, 5)).astype(np.float32)
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(np.int64) + (x[:, 2] > 1).astype(np.int64)
    return x, y


def run(initial=None):
    with torch.device(device):
        model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3))
    if initial is not None:
        model.load_state_dict(initial)
    out = {"initial": {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()},
           "losses": []}
    x_np, y_np = data()
    x = Variable(torch.tensor(x_np).to(device), requires_grad=False)
    y = torch.LongTensor(y_np.tolist()).to(device)
    loss_fn = RangeNLL()
    opt = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.5)
    for _ in range(25):
        opt.zero_grad()
        logp = F.log_softmax(input=model(x), dim=1)
        loss = loss_fn(logp, y)
        loss.backward()
        opt.step()
        out["losses"].append(loss.item())
    with torch.no_grad():
        w = model[0].weight
        out["gram"] = torch.matmul(input=w, other=w.t())
        out["accuracy"] = torch.eq(input=model(x).argmax(dim=1), other=y).float().mean().item()
    return out
