"""PyTorch's MNIST example (pytorch/examples, mnist/main.py: two convolutions, max pooling,
dropout, two linear layers, log_softmax and nll_loss, Adadelta with StepLR, a DataLoader),
on synthetic 28x28 images (a class's stroke, computed, not drawn) and with the dropout
probabilities at 0 so that both runs take the same path. ``initial`` gives the starting weights."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)
        self.conv2 = nn.Conv2d(8, 16, 3, 1)
        self.dropout1 = nn.Dropout(0.0)
        self.dropout2 = nn.Dropout(0.0)
        self.fc1 = nn.Linear(2304, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def images(n):
    """n images of 10 classes: class k is a bright bar at row 2 + 2k, with a ramp."""
    labels = torch.arange(n) % 10
    rows = torch.arange(28).reshape(1, 28, 1)
    bars = (rows - (2 + 2 * labels).reshape(-1, 1, 1)).abs() <= 1
    ramp = torch.linspace(0.0, 0.5, 28).reshape(1, 1, 28)
    x = bars.float() + ramp * (labels.reshape(-1, 1, 1) % 3).float()
    return ((x - 0.1307) / 0.3081).reshape(n, 1, 28, 28), labels


def train(model, device, train_loader, optimizer, losses):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())


def test(model, device, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction='sum').item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    test_loss /= len(test_loader.dataset)
    return test_loss, correct


def run(initial=None):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x, y = images(80)
    train_loader = DataLoader(TensorDataset(x[:60], y[:60]), batch_size=20, shuffle=False)
    test_loader = DataLoader(TensorDataset(x[60:], y[60:]), batch_size=10)
    model = Net().to(device)
    if initial is not None:
        model.load_state_dict(initial)
    out = {"initial": {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()},
           "losses": [], "test": []}
    optimizer = optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
    for epoch in range(1, 4):
        train(model, device, train_loader, optimizer, out["losses"])
        out["test"].append(test(model, device, test_loader))
        scheduler.step()
    return out
