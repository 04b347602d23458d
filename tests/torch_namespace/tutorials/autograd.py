"""PyTorch's "Automatic Differentiation with torch.autograd" tutorial
(pytorch.org/tutorials/beginner/basics/autogradqs_tutorial), returning what it prints.
``initial`` gives the random weights (the test copies PyTorch's across)."""
import torch


def run(initial=None):
    out = {}
    x = torch.ones(5)  # input tensor
    y = torch.zeros(3)  # expected output
    w = torch.randn(5, 3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    if initial is not None:
        with torch.no_grad():
            w.copy_(torch.tensor(initial["w"]))
            b.copy_(torch.tensor(initial["b"]))
    out["initial"] = {"w": w.detach().cpu().numpy().copy(), "b": b.detach().cpu().numpy().copy()}
    z = torch.matmul(x, w) + b
    loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
    out["has_grad_fn"] = (z.grad_fn is not None, loss.grad_fn is not None)

    loss.backward()
    out["w_grad"] = w.grad
    out["b_grad"] = b.grad
    out["loss"] = loss.item()

    z = torch.matmul(x, w) + b
    out["requires_grad"] = [z.requires_grad]
    with torch.no_grad():
        z = torch.matmul(x, w) + b
    out["requires_grad"].append(z.requires_grad)
    z = torch.matmul(x, w) + b
    z_det = z.detach()
    out["requires_grad"].append(z_det.requires_grad)

    inp = torch.eye(4, 5, requires_grad=True)
    out_ = (inp + 1).pow(2).t()
    out_.backward(torch.ones_like(out_), retain_graph=True)
    out["first_call"] = inp.grad.clone()
    out_.backward(torch.ones_like(out_), retain_graph=True)
    out["second_call"] = inp.grad.clone()
    inp.grad.zero_()
    out_.backward(torch.ones_like(out_), retain_graph=True)
    out["call_after_zeroing"] = inp.grad.clone()
    out["losses"] = [out["loss"]]
    return out
