"""Recurrent layers of ``strided.torch.nn``: ``RNN``, ``LSTM``, ``GRU`` and their cells.

Ports of ``torch/nn/modules/rnn.py``: the same parameters under the same names and
in the same order (``weight_ih_l0``, ``weight_hh_l0``, ``bias_ih_l0``, ``bias_hh_l0``,
``weight_hr_l0`` with ``proj_size``, ``..._reverse`` for the backward direction), the
same default initialisation (every parameter ``U(-1/sqrt(hidden_size),
1/sqrt(hidden_size))``), and the equations of PyTorch's documentation (gate order
``i, f, g, o`` for the LSTM, ``r, z, n`` for the GRU, ``n = tanh(W_in x + b_in + r *
(W_hn h + b_hn))``). The time loop is Python over strided's recorded operations
(the input projection of all time steps is one ``linear``), so backpropagation
through time is strided's autograd.

A ``PackedSequence`` input (``nn.utils.rnn``) is run as PyTorch runs it: at step ``t`` only
the first ``batch_sizes[t]`` sequences (the batch is sorted longest first) take a step, so each
sequence's ``h_n`` (and ``c_n``) is its state after its own last real step; the backward
direction starts each sequence from ``h_0`` at its own last step. The output is a
``PackedSequence`` with the input's ``batch_sizes`` and permutations, and ``h_0``/``h_n`` are in
the batch's original order (permuted by ``sorted_indices`` / ``unsorted_indices``).
"""

from __future__ import annotations

import math
import numbers
import warnings

import strided as _st
from strided import Array

from . import functional as F
from . import init
from .modules import Module, _factory
from .parameter import Parameter
from ..._core.caller import stacklevel

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _check_array(input, who: str) -> Array:
    if type(input) is not Array:
        raise TypeError(f"{who}: input must be a strided array; got {type(input).__name__}")
    return input


def _torch_dtype(dt) -> str:
    return f"strided.{dt.name}"


def _mm_dtype_name(dt) -> str:
    return {"float32": "Float", "float64": "Double", "float16": "Half"}.get(dt.name, dt.name)


def _check_dtype(input: Array, weight: Array) -> None:
    """PyTorch's RNNBase.check_input: a ValueError naming both dtypes."""
    if input.dtype != weight.dtype:
        w, i = _torch_dtype(weight.dtype), _torch_dtype(input.dtype)
        raise ValueError(f"RNN input dtype ({i}) does not match weight dtype ({w}). Convert input: "
                         f"input.to({w}), or convert model: model.to({i})")


def _check_mm_dtype(a: Array, weight: Array) -> None:
    """The matmul's RuntimeError PyTorch's cells and states give for another dtype."""
    if a.dtype != weight.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                           f"{_mm_dtype_name(a.dtype)} and {_mm_dtype_name(weight.dtype)}")


def _step(mode: str, gi: Array, h: Array, c, w_hh: Array, b_hh, w_hr):
    """One time step: ``gi`` is the input's projection ``x @ w_ih.T + b_ih``; returns
    the new ``(h, c)`` (``c`` None except for the LSTM)."""
    gh = F.linear(h, w_hh, b_hh)
    if mode == "RNN_TANH":
        return _st.tanh(gi + gh), None
    if mode == "RNN_RELU":
        return _st.relu(gi + gh), None
    if mode == "LSTM":
        i, f, g, o = (gi + gh).chunk(4, dim=-1)
        c = _st.sigmoid(f) * c + _st.sigmoid(i) * _st.tanh(g)
        h = _st.sigmoid(o) * _st.tanh(c)
        if w_hr is not None:
            h = F.linear(h, w_hr)
        return h, c
    ir, iz, in_ = gi.chunk(3, dim=-1)
    hr, hz, hn = gh.chunk(3, dim=-1)
    r = _st.sigmoid(ir + hr)
    z = _st.sigmoid(iz + hz)
    n = _st.tanh(in_ + r * hn)
    return (1.0 - z) * n + z * h, None


class RNNBase(Module):
    """The layers, parameters and time loop shared by ``RNN``, ``LSTM`` and ``GRU``."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None, dtype=None):
        super().__init__()
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) \
                or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", UserWarning,
                          stacklevel=stacklevel())
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        gate_size = _GATES[mode] * hidden_size
        kw = _factory(device, dtype)
        num_directions = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih", (gate_size, layer_input)),
                          ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr", (proj_size, hidden_size))]
                names = []
                for base, shape in shapes:
                    name = f"{base}_l{layer}{suffix}"
                    setattr(self, name, Parameter(_st.empty(shape, **kw)))
                    names.append(name)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw every parameter from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self) -> None:
        """Nothing to do: PyTorch packs the weights into one cuDNN buffer here; strided
        reads each parameter where it is (the call is accepted so that programs run)."""

    @property
    def all_weights(self) -> list:
        """The parameters, one list per layer and direction (PyTorch's order)."""
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def _layer_params(self, layer: int, direction: int):
        suffix = "_reverse" if direction == 1 else ""
        get = lambda base: getattr(self, f"{base}_l{layer}{suffix}", None)  # noqa: E731
        return get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh"), get("weight_hr")

    def _expected_hidden(self, batch: int, size: int) -> tuple:
        return (self.num_layers * (2 if self.bidirectional else 1), batch, size)

    def _check_input(self, input: Array) -> None:
        if self.input_size != input.shape[-1]:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")
        _check_dtype(input, self.weight_ih_l0)

    def _run(self, input: Array, h0: Array, c0):
        """The stacked, possibly bidirectional recurrence over ``input`` (T, N, I)."""
        mode = self.mode
        nd = 2 if self.bidirectional else 1
        x = input
        hn, cn = [], []
        for layer in range(self.num_layers):
            outs = []
            for d in range(nd):
                w_ih, w_hh, b_ih, b_hh, w_hr = self._layer_params(layer, d)
                k = layer * nd + d
                h, c = h0[k], (c0[k] if c0 is not None else None)
                gi = F.linear(x, w_ih, b_ih)
                steps = range(x.shape[0] - 1, -1, -1) if d == 1 else range(x.shape[0])
                seq = [None] * x.shape[0]
                for t in steps:
                    h, c = _step(mode, gi[t], h, c, w_hh, b_hh, w_hr)
                    seq[t] = h
                outs.append(_st.stack(seq, axis=0) if seq else
                            _st.zeros((0,) + tuple(h.shape), dtype=x.dtype, device=x.device))
                hn.append(h)
                cn.append(c)
            x = outs[0] if nd == 1 else _st.concat(outs, axis=-1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, training=True)
        return x, _st.stack(hn, axis=0), (_st.stack(cn, axis=0) if c0 is not None else None)

    def _run_packed(self, data: Array, sizes: list, h0: Array, c0):
        """The stacked, possibly bidirectional recurrence over packed ``data`` (rows of
        ``batch_sizes`` ``sizes``): only the first ``sizes[t]`` sequences step at ``t``."""
        mode = self.mode
        nd = 2 if self.bidirectional else 1
        starts = [0]
        for b in sizes:
            starts.append(starts[-1] + b)
        x = data
        hn, cn = [], []
        for layer in range(self.num_layers):
            outs = []
            for d in range(nd):
                w_ih, w_hh, b_ih, b_hh, w_hr = self._layer_params(layer, d)
                k = layer * nd + d
                gi = F.linear(x, w_ih, b_ih)
                seq = [None] * len(sizes)
                if d == 0:
                    h, c = h0[k], (c0[k] if c0 is not None else None)
                    done_h, done_c = [], []  # (final states as sequences end: the highest rows first)
                    for t, b in enumerate(sizes):
                        if b < h.shape[0]:  # sequences b.. ended at t - 1
                            done_h.append(h[b:])
                            h = h[:b]
                            if c is not None:
                                done_c.append(c[b:])
                                c = c[:b]
                        h, c = _step(mode, gi[starts[t]:starts[t + 1]], h, c, w_hh, b_hh, w_hr)
                        seq[t] = h
                    h = _st.concat([h] + done_h[::-1], axis=0)
                    c = _st.concat([c] + done_c[::-1], axis=0) if c is not None else None
                else:
                    h = h0[k][:0]
                    c = c0[k][:0] if c0 is not None else None
                    for t in range(len(sizes) - 1, -1, -1):
                        b = sizes[t]
                        if b > h.shape[0]:  # sequences len(h).. start (their last step is t)
                            h = _st.concat([h, h0[k][h.shape[0]:b]], axis=0)
                            if c is not None:
                                c = _st.concat([c, c0[k][c.shape[0]:b]], axis=0)
                        h, c = _step(mode, gi[starts[t]:starts[t + 1]], h, c, w_hh, b_hh, w_hr)
                        seq[t] = h
                outs.append(_st.concat(seq, axis=0))
                hn.append(h)
                cn.append(c)
            x = outs[0] if nd == 1 else _st.concat(outs, axis=-1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, training=True)
        return x, _st.stack(hn, axis=0), (_st.stack(cn, axis=0) if c0 is not None else None)

    def _forward_packed(self, packed, hx, name: str):
        """``forward`` for a ``PackedSequence``: PyTorch's checks, then ``_run_packed``."""
        from .utils.rnn import _batch_sizes_list
        lstm = self.mode == "LSTM"
        data = _check_array(packed.data, f"{name}.forward() PackedSequence data")
        sizes = _batch_sizes_list(packed)
        if data.ndim != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {data.ndim}")
        if lstm:  # (PyTorch's LSTM checks a packed input in its kernel: RuntimeErrors only)
            if self.input_size != data.shape[-1]:
                raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                                   f"{self.input_size}, got {data.shape[-1]}")
            _check_mm_dtype(data, self.weight_ih_l0)
        else:
            self._check_input(data)
        batch = sizes[0]
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        sorted_indices, unsorted_indices = packed.sorted_indices, packed.unsorted_indices
        kw = {"dtype": data.dtype, "device": data.device}

        def permute(state, indices):
            return state if indices is None else state.index_select(1, indices)

        if hx is None:
            h0 = _st.zeros(self._expected_hidden(batch, real_hidden), **kw)
            c0 = _st.zeros(self._expected_hidden(batch, self.hidden_size), **kw) if lstm else None
        elif lstm:
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise TypeError("LSTM: hx must be a tuple (h_0, c_0) of arrays")
            h0, c0 = (permute(_check_array(a, f"{name}.forward() hx"), sorted_indices) for a in hx)
            for i, (a, size) in enumerate(((h0, real_hidden), (c0, self.hidden_size))):
                want = self._expected_hidden(batch, size)
                if tuple(a.shape) != want:
                    raise RuntimeError(f"Expected hidden[{i}] size {want}, got {list(a.shape)}")
        else:
            h0, c0 = permute(_check_array(hx, f"{name}.forward() hx"), sorted_indices), None
            want = self._expected_hidden(batch, real_hidden)
            if tuple(h0.shape) != want:
                raise RuntimeError(f"Expected hidden size {want}, got {list(h0.shape)}")
        for state in (h0, c0):
            if state is not None:
                _check_mm_dtype(state, self.weight_hh_l0)
        out, hn, cn = self._run_packed(data, sizes, h0, c0)
        output = type(packed)(out, packed.batch_sizes, sorted_indices, unsorted_indices)
        hn = permute(hn, unsorted_indices)
        if lstm:
            return output, (hn, permute(cn, unsorted_indices))
        return output, hn

    def _forward(self, input, hx, name: str):
        from .utils.rnn import PackedSequence
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx, name)
        input = _check_array(input, f"{name}.forward()")
        lstm = self.mode == "LSTM"
        if input.ndim not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D "
                             + ("instead" if lstm or name == "GRU" else "tensor instead"))
        is_batched = input.ndim == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = _st.expand_dims(input, axis=batch_dim)
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        if hx is not None:
            if lstm:
                if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                    raise TypeError("LSTM: hx must be a tuple (h_0, c_0) of arrays")
                want = 3 if is_batched else 2
                if hx[0].ndim != want or hx[1].ndim != want:
                    kind = "batched 3-D" if is_batched else "unbatched 2-D"
                    raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D but "
                                       f"got ({hx[0].ndim}-D, {hx[1].ndim}-D) tensors")
                if not is_batched:
                    hx = (_st.expand_dims(hx[0], axis=1), _st.expand_dims(hx[1], axis=1))
            else:
                _check_array(hx, f"{name}.forward() hx")
                if is_batched and hx.ndim != 3:
                    raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got "
                                       f"{hx.ndim}-D tensor")
                if not is_batched:
                    if hx.ndim != 2:
                        raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got "
                                           f"{hx.ndim}-D tensor")
                    hx = _st.expand_dims(hx, axis=1)
        batch = input.shape[batch_dim]
        self._check_input(input)
        kw = {"dtype": input.dtype, "device": input.device}
        if hx is None:
            h0 = _st.zeros(self._expected_hidden(batch, real_hidden), **kw)
            c0 = _st.zeros(self._expected_hidden(batch, self.hidden_size), **kw) if lstm else None
        elif lstm:
            h0, c0 = hx
            for i, (a, size) in enumerate(((h0, real_hidden), (c0, self.hidden_size))):
                want = self._expected_hidden(batch, size)
                if tuple(a.shape) != want:
                    raise RuntimeError(f"Expected hidden[{i}] size {want}, got {list(a.shape)}")
        else:
            h0, c0 = hx, None
            want = self._expected_hidden(batch, real_hidden)
            if tuple(h0.shape) != want:
                raise RuntimeError(f"Expected hidden size {want}, got {list(h0.shape)}")
        for state in (h0, c0):
            if state is not None:
                _check_mm_dtype(state, self.weight_hh_l0)
        x = input.transpose(0, 1) if self.batch_first else input
        out, hn, cn = self._run(x, h0, c0)
        if self.batch_first:
            out = out.transpose(0, 1)
        if not is_batched:
            out = out[0] if self.batch_first else out[:, 0]
            hn = hn[:, 0]
            cn = cn[:, 0] if cn is not None else None
        return (out, (hn, cn)) if lstm else (out, hn)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


_RNN_ARGS = ("input_size", "hidden_size", "num_layers", "nonlinearity", "bias", "batch_first",
             "dropout", "bidirectional", "device", "dtype")


class RNN(RNNBase):
    """An Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or ``relu``).

    ``forward(input, hx=None)`` returns ``(output, h_n)``; ``input`` is ``(L, N, H_in)``,
    ``(N, L, H_in)`` with ``batch_first``, unbatched ``(L, H_in)``, or a ``PackedSequence``
    (``output`` is then one too).

    >>> import strided.torch as torch
    >>> rnn = torch.nn.RNN(3, 4, num_layers=2, bidirectional=True)
    >>> out, h = rnn(torch.zeros(5, 2, 3))
    >>> out.shape, h.shape
    (strided.Size([5, 2, 8]), strided.Size([4, 2, 4]))
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > len(_RNN_ARGS):
            raise TypeError(f"RNN() takes at most {len(_RNN_ARGS)} positional arguments")
        bound = dict(zip(_RNN_ARGS, args))
        for k, v in kwargs.items():
            if k not in _RNN_ARGS:
                raise TypeError(f"RNN() got an unexpected keyword argument '{k}'")
            if k in bound:
                raise TypeError(f"RNN() got multiple values for argument '{k}'")
            bound[k] = v
        nonlinearity = bound.pop("nonlinearity", "tanh")
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, **bound)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        """``(output, h_n)``: the last layer's hidden states at every step, and every
        layer's (and direction's) last hidden state."""
        return self._forward(input, hx, "RNN")


class LSTM(RNNBase):
    """A long short-term memory RNN (PyTorch's ``nn.LSTM``, ``proj_size`` included).

    ``forward(input, hx=None)`` returns ``(output, (h_n, c_n))``; ``input`` may be a
    ``PackedSequence`` (``output`` is then one too).

    >>> import strided.torch as torch
    >>> lstm = torch.nn.LSTM(3, 4, batch_first=True, proj_size=2)
    >>> out, (h, c) = lstm(torch.zeros(2, 5, 3))
    >>> out.shape, h.shape, c.shape
    (strided.Size([2, 5, 2]), strided.Size([1, 2, 2]), strided.Size([1, 2, 4]))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, proj_size, device, dtype)

    def forward(self, input, hx=None):
        """``(output, (h_n, c_n))``."""
        return self._forward(input, hx, "LSTM")


class GRU(RNNBase):
    """A gated recurrent unit RNN (PyTorch's ``nn.GRU``); ``forward(input, hx=None)`` returns
    ``(output, h_n)``, ``input`` a padded array or a ``PackedSequence``.

    >>> import strided.torch as torch
    >>> torch.nn.GRU(3, 4, num_layers=2)
    GRU(3, 4, num_layers=2)
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device=None, dtype=None, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        for k in kwargs:
            raise TypeError(f"GRU() got an unexpected keyword argument '{k}'")
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, 0, device, dtype)

    def forward(self, input, hx=None):
        """``(output, h_n)``."""
        return self._forward(input, hx, "GRU")


# --- cells ----------------------------------------------------------------------------

class RNNCellBase(Module):
    """The parameters shared by ``RNNCell``, ``LSTMCell`` and ``GRUCell``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        kw = _factory(device, dtype)
        self.weight_ih = Parameter(_st.empty((num_chunks * hidden_size, input_size), **kw))
        self.weight_hh = Parameter(_st.empty((num_chunks * hidden_size, hidden_size), **kw))
        if bias:
            self.bias_ih = Parameter(_st.empty((num_chunks * hidden_size,), **kw))
            self.bias_hh = Parameter(_st.empty((num_chunks * hidden_size,), **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw every parameter from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nl = self.__dict__.get("nonlinearity")
        if nl is not None and nl != "tanh":
            s += f", nonlinearity={nl}"
        return s

    def _prepare(self, input, hx, name: str, n_states: int):
        input = _check_array(input, f"{name}.forward()")
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        is_batched = input.ndim == 2
        if hx is not None:
            states = list(hx) if n_states == 2 else [hx]
            if not is_batched:
                states = [_st.expand_dims(s, axis=0) for s in states]
        if not is_batched:
            input = _st.expand_dims(input, axis=0)
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected "
                               f"{self.input_size}")
        _check_mm_dtype(input, self.weight_ih)
        if hx is None:
            z = _st.zeros((input.shape[0], self.hidden_size), dtype=input.dtype, device=input.device)
            states = [z] * n_states
        for i, s in enumerate(states):
            if s.ndim < 2 or s.shape[1] != self.hidden_size:
                got = s.shape[1] if s.ndim >= 2 else s.shape[0]
                raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got {got}, expected "
                                   f"{self.hidden_size}")
            if s.shape[0] != input.shape[0]:
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{i} "
                                   f"batch size {s.shape[0]}")
        _check_mm_dtype(states[0], self.weight_hh)  # (a c of another dtype promotes, as PyTorch)
        return input, states, is_batched


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or ``relu``).

    >>> import strided.torch as torch
    >>> torch.nn.RNNCell(3, 4)(torch.zeros(2, 3)).shape
    strided.Size([2, 4])
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        """The next hidden state ``h'``."""
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        x, (h,), batched = self._prepare(input, hx, "RNNCell", 1)
        mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        h, _ = _step(mode, F.linear(x, self.weight_ih, self.bias_ih), h, None, self.weight_hh,
                     self.bias_hh, None)
        return h if batched else h[0]


class LSTMCell(RNNCellBase):
    """One step of an LSTM: returns ``(h', c')``.

    >>> import strided.torch as torch
    >>> h, c = torch.nn.LSTMCell(3, 4)(torch.zeros(3))
    >>> h.shape, c.shape
    (strided.Size([4]), strided.Size([4]))
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        """``(h', c')``."""
        x, (h, c), batched = self._prepare(input, hx, "LSTMCell", 2)
        h, c = _step("LSTM", F.linear(x, self.weight_ih, self.bias_ih), h, c, self.weight_hh,
                     self.bias_hh, None)
        return (h, c) if batched else (h[0], c[0])


class GRUCell(RNNCellBase):
    """One step of a GRU.

    >>> import strided.torch as torch
    >>> torch.nn.GRUCell(3, 4)
    GRUCell(3, 4)
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        """The next hidden state ``h'``."""
        x, (h,), batched = self._prepare(input, hx, "GRUCell", 1)
        h, _ = _step("GRU", F.linear(x, self.weight_ih, self.bias_ih), h, None, self.weight_hh,
                     self.bias_hh, None)
        return h if batched else h[0]
