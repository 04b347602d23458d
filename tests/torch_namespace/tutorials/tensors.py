"""PyTorch's "Tensors" tutorial (pytorch.org/tutorials/beginner/basics/tensorqs_tutorial),
as a function returning what it prints. Written for PyTorch; run unchanged on strided."""
import numpy as np
import torch


def run(initial=None):
    out = {}
    data = [[1, 2], [3, 4]]
    x_data = torch.tensor(data)
    out["x_data"] = x_data
    np_array = np.array(data)
    x_np = torch.from_numpy(np_array)
    out["x_np"] = x_np
    x_ones = torch.ones_like(x_data)
    out["x_ones"] = x_ones
    x_rand = torch.rand_like(x_data, dtype=torch.float)
    out["x_rand_shape"] = tuple(x_rand.shape)

    shape = (2, 3,)
    out["ones"] = torch.ones(shape)
    out["zeros"] = torch.zeros(shape)
    out["rand_shape"] = tuple(torch.rand(shape).shape)

    tensor = torch.rand(3, 4)
    out["attrs"] = (tuple(tensor.shape), str(tensor.dtype).removeprefix("torch."))

    device = "cuda" if torch.cuda.is_available() else "cpu"
    tensor = torch.ones(4, 4).to(device)
    out["first_row"] = tensor[0]
    out["first_col"] = tensor[:, 0]
    out["last_col"] = tensor[..., -1]
    tensor[:, 1] = 0
    out["tensor"] = tensor
    t1 = torch.cat([tensor, tensor, tensor], dim=1)
    out["t1"] = t1

    y1 = tensor @ tensor.T
    y2 = tensor.matmul(tensor.T)
    y3 = torch.rand_like(y1)
    torch.matmul(tensor, tensor.T, out=y3)
    out["y1"], out["y2"], out["y3"] = y1, y2, y3
    z1 = tensor * tensor
    z2 = tensor.mul(tensor)
    z3 = torch.rand_like(tensor)
    torch.mul(tensor, tensor, out=z3)
    out["z1"], out["z2"], out["z3"] = z1, z2, z3

    agg = tensor.sum()
    agg_item = agg.item()
    out["agg_item"] = (agg_item, type(agg_item).__name__)
    tensor.add_(5)
    out["added"] = tensor

    t = torch.ones(5, device="cpu")  # the NumPy bridge is about host memory
    n = t.numpy()
    t.add_(1)
    out["bridge"] = (t, n.copy())
    n = np.ones(5)
    t = torch.from_numpy(n)
    np.add(n, 1, out=n)
    out["bridge2"] = t
    return out
