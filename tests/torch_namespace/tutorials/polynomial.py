"""PyTorch's "Learning PyTorch with Examples" (pytorch.org/tutorials/beginner/pytorch_with_examples):
fitting y = sin(x) with a third-order polynomial, four ways — nn with a hand-written update,
nn with optim.RMSprop, a custom nn.Module with optim.SGD, and a custom autograd.Function.
``initial`` gives the random starting weights (the test copies PyTorch's across)."""
import math

import torch


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


class Polynomial3(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))

    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

    def string(self):
        return f'y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + {self.d.item()} x^3'


def _state(model):
    return {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()}


def run(initial=None):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    out = {"losses": [], "initial": {}}
    x = torch.linspace(-math.pi, math.pi, 2000, device=device)
    y = torch.sin(x)
    p = torch.tensor([1, 2, 3], device=device)
    xx = x.unsqueeze(-1).pow(p)

    # 1. nn, the update written by hand
    model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1)).to(device)
    if initial is not None:
        model.load_state_dict(initial["nn"])
    out["initial"]["nn"] = _state(model)
    loss_fn = torch.nn.MSELoss(reduction='sum')
    learning_rate = 1e-6
    for t in range(2000):
        y_pred = model(xx)
        loss = loss_fn(y_pred, y)
        if t % 100 == 99:
            out["losses"].append(loss.item())
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for param in model.parameters():
                param -= learning_rate * param.grad
    linear_layer = model[0]
    out["nn_result"] = (linear_layer.bias.item(), *linear_layer.weight[:, 0].tolist(),
                        *linear_layer.weight[:, 1].tolist(), *linear_layer.weight[:, 2].tolist())

    # 2. nn and optim
    model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1)).to(device)
    if initial is not None:
        model.load_state_dict(initial["optim"])
    out["initial"]["optim"] = _state(model)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    for t in range(2000):
        y_pred = model(xx)
        loss = loss_fn(y_pred, y)
        if t % 100 == 99:
            out["losses"].append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    # 3. a custom nn.Module
    model = Polynomial3().to(device)
    if initial is not None:
        model.load_state_dict(initial["module"])
    out["initial"]["module"] = _state(model)
    criterion = torch.nn.MSELoss(reduction='sum')
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
    for t in range(2000):
        y_pred = model(x)
        loss = criterion(y_pred, y)
        if t % 100 == 99:
            out["losses"].append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    out["module_result"] = model.string()

    # 4. a custom autograd Function
    dtype = torch.float
    a = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
    b = torch.full((), -1.0, device=device, dtype=dtype, requires_grad=True)
    c = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
    d = torch.full((), 0.3, device=device, dtype=dtype, requires_grad=True)
    learning_rate = 5e-6
    for t in range(2000):
        P3 = LegendrePolynomial3.apply
        y_pred = a + b * P3(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        if t % 100 == 99:
            out["losses"].append(loss.item())
        loss.backward()
        with torch.no_grad():
            a -= learning_rate * a.grad
            b -= learning_rate * b.grad
            c -= learning_rate * c.grad
            d -= learning_rate * d.grad
            a.grad = None
            b.grad = None
            c.grad = None
            d.grad = None
    return out
