"""A small classifier in the style of PyTorch's "Build the Neural Network" and "Optimizing
Model Parameters" tutorials, on synthetic data (three interleaved spirals, computed, not
drawn): an nn.Module with Flatten/Linear/ReLU/Dropout, CrossEntropyLoss, Adam with a StepLR
schedule, minibatches, train/eval modes, accuracy. ``initial`` gives the starting weights."""
import math

import torch
from torch import nn


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(2, 32),
            nn.ReLU(),
            nn.Linear(32, 32),
            nn.Tanh(),
            nn.Dropout(p=0.0),
            nn.Linear(32, 3),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


def spirals(n, device):
    t = torch.linspace(0.0, 1.0, n, device=device)
    xs, ys = [], []
    for k in range(3):
        angle = t * 4.0 + k * 2.0 * math.pi / 3
        r = t + 0.1
        xs.append(torch.stack([r * torch.cos(angle), r * torch.sin(angle)], dim=1))
        ys.append(torch.full((n,), k, dtype=torch.long, device=device))
    return torch.cat(xs).reshape(-1, 1, 2), torch.cat(ys)


def run(initial=None):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    X, y = spirals(100, device)
    perm = torch.tensor([(i * 37) % 300 for i in range(300)], device=device)  # a fixed shuffle
    X, y = X[perm], y[perm]
    model = NeuralNetwork().to(device)
    if initial is not None:
        model.load_state_dict(initial)
    out = {"initial": {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()},
           "losses": [], "accuracy": []}
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
    batch_size = 50
    for epoch in range(30):
        model.train()
        for i in range(0, len(X), batch_size):
            pred = model(X[i:i + batch_size])
            loss = loss_fn(pred, y[i:i + batch_size])
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        scheduler.step()
        model.eval()
        with torch.no_grad():
            pred = model(X)
            out["losses"].append(loss_fn(pred, y).item())
            _, predicted = torch.max(pred, 1)
            correct = (predicted == y).type(torch.float).sum().item()
            out["accuracy"].append(correct / len(X))
    out["probabilities"] = nn.Softmax(dim=1)(model(X[:5]))
    return out
