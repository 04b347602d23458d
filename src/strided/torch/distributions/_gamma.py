"""Gamma and Dirichlet draws with PyTorch's reparameterized (implicit) gradients.

PyTorch's ``torch._standard_gamma``, ``torch._standard_gamma_grad``,
``torch._sample_dirichlet`` and ``torch._dirichlet_grad`` (ATen C++), composed
here from strided's random and elementwise functions:

* ``_standard_gamma(alpha)`` draws Gamma(alpha, 1) by Marsaglia and Tsang's
  rejection method (ATen's ``sample_gamma``: alpha < 1 is boosted to alpha + 1
  and scaled by ``U ** (1 / alpha)``), vectorised: every round redraws the
  elements not yet accepted. Its gradient is ``grad * _standard_gamma_grad``.
* ``_standard_gamma_grad(alpha, x)`` and ``_dirichlet_grad(x, alpha, total)``
  are ATen's approximations (aten/src/ATen/native/Distributions.h:
  ``standard_gamma_grad_one``, ``dirichlet_grad_one``) term by term, each
  branch computed for all elements and chosen with ``where``; in float64 as ATen
  does on CPU (its accumulate type), cast back to the input's dtype.

Invariants: draws are made under ``no_grad``; the gradients are constants of
the backward (PyTorch's are once-differentiable).
"""

from __future__ import annotations

import strided.torch as torch
from strided.autograd import Function

__all__: list = []

_MAX_ROUNDS = 1000


def _draw_standard_gamma(alpha):
    """Gamma(alpha, 1) draws of alpha's shape and dtype (no gradient)."""
    with torch.no_grad():
        a = alpha.to(torch.float64)
        small = a < 1.0
        boost = torch.where(small, a + 1.0, a)
        d = boost - 1.0 / 3.0
        c = 1.0 / torch.sqrt(9.0 * d)
        out = torch.zeros_like(a)
        done = a <= 0.0  # (ATen gives 0 for alpha == 0)
        for _ in range(_MAX_ROUNDS):
            if bool(done.all()):
                break
            z = torch.randn(a.shape, dtype=torch.float64, device=a.device)
            u = torch.rand(a.shape, dtype=torch.float64, device=a.device)
            v = (1.0 + c * z) ** 3
            ok = (v > 0) & (torch.log1p(-u) < 0.5 * z * z + d - d * v + d * torch.log(v.clamp(min=1e-300)))
            take = ok & ~done
            out = torch.where(take, d * v, out)
            done = done | ok
        else:
            raise RuntimeError("_standard_gamma(): the rejection sampler did not converge")
        u = torch.rand(a.shape, dtype=torch.float64, device=a.device)
        scale = torch.where(small, torch.pow(1.0 - u, 1.0 / a), torch.ones_like(a))
        out = out * scale
        out = torch.where(a > 0, out, torch.zeros_like(a))
        res = out.to(alpha.dtype)
        return res.clamp(min=torch.finfo(alpha.dtype).tiny)


def _digamma(x):
    return torch.digamma(x)


def _standard_gamma_grad(alpha, x):
    """d x / d alpha for x ~ Gamma(alpha, 1), as PyTorch's ``torch._standard_gamma_grad``."""
    with torch.no_grad():
        dt = alpha.dtype
        a = alpha.to(torch.float64)
        x = x.to(torch.float64)
        a, x = torch.broadcast_tensors(a, x)
        # Taylor series for small x.
        numer = torch.ones_like(x)
        denom = a
        series1 = numer / denom
        series2 = numer / (denom * denom)
        for i in range(1, 6):
            numer = numer * (-x / i)
            denom = denom + 1
            series1 = series1 + numer / denom
            series2 = series2 + numer / (denom * denom)
        pow_x_alpha = torch.pow(x, a)
        gamma_pdf = torch.pow(x, a - 1) * torch.exp(-x)
        gamma_cdf = pow_x_alpha * series1
        gamma_cdf_alpha = (torch.log(x) - _digamma(a)) * gamma_cdf - pow_x_alpha * series2
        small = -gamma_cdf_alpha / gamma_pdf
        small = torch.where(torch.isnan(small), torch.zeros_like(small), small)
        # Rice saddle point expansion for large alpha.
        numer_1 = 1 + 24 * a * (1 + 12 * a)
        numer_2 = 1440 * (a * a) + 6 * x * (53 - 120 * x) - 65 * x * x / a + a * (107 + 3600 * x)
        denom_m = 1244160 * (a * a) * (a * a)
        near = numer_1 * numer_2 / denom_m
        den = torch.sqrt(8 * a)
        term2 = den / (a - x)
        term3 = torch.pow(x - a - a * torch.log(x / a), -1.5)
        term23 = torch.where(x < a, term2 - term3, term2 + term3)
        term1 = torch.log(x / a) * term23 - torch.sqrt(2 / a) * (a + x) / ((a - x) * (a - x))
        stirling = 1 + 1 / (12 * a) * (1 + 1 / (24 * a))
        far = -stirling * (x * term1) / den
        large = torch.where((0.9 * a <= x) & (x <= 1.1 * a), near, far)
        # Bivariate rational approximation.
        u = torch.log(x / a)
        v = torch.log(a)
        coef_uv = (
            (0.16009398, -0.094634809, 0.025146376, -0.0030648343,
             1, 0.32668115, 0.10406089, 0.0014179084),
            (0.53487893, 0.1298071, 0.065735949, -0.0015649758,
             0.16639465, 0.020070113, -0.0035938915, -0.00058392623),
            (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777,
             0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07),
        )
        cv = [coef_uv[0][i] + u * (coef_uv[1][i] + u * coef_uv[2][i]) for i in range(8)]
        p = cv[0] + v * (cv[1] + v * (cv[2] + v * cv[3]))
        q = cv[4] + v * (cv[5] + v * (cv[6] + v * cv[7]))
        mid = torch.exp(p / q)
        # Note: ATen compares with float constants (0.8f, 8.0f), which are these in double
        # only up to rounding; 0.8f is 0.800000011920929.
        res = torch.where(x < 0.800000011920929, small, torch.where(a > 8.0, large, mid))
        return res.to(dt)


def _beta_grad_alpha_small(x, alpha, beta):
    factor = _digamma(alpha) - _digamma(alpha + beta) - torch.log(x)
    numer = torch.ones_like(x)
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer = numer * ((i - beta) * x / i)
        denom = alpha + i
        series = series + numer / denom * (factor + 1 / denom)
    result = x * torch.pow(1 - x, -beta) * series
    return torch.where(torch.isnan(result), torch.zeros_like(result), result)


def _beta_grad_beta_small(x, alpha, beta):
    factor = _digamma(alpha + beta) - _digamma(beta)
    numer = torch.ones_like(x)
    betas = torch.ones_like(x)
    dbetas = torch.zeros_like(x)
    series = factor / alpha
    for i in range(1, 9):
        numer = numer * (-x / i)
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series = series + numer / (alpha + i) * (dbetas + factor * betas)
    result = -torch.pow(1 - x, 1 - beta) * series
    return torch.where(torch.isnan(result), torch.zeros_like(result), result)


def _beta_grad_alpha_mid(x, alpha, beta):
    total = alpha + beta
    mean = alpha / total
    std = torch.sqrt(alpha * beta / (total + 1)) / total
    poly = 47 * x * (beta * beta) * (beta * beta) + alpha * (
        (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta + alpha * (
            3 * (59 + 180 * beta - 90 * x) * (beta * beta) + alpha * (
                (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (
                    8 * (1 - x) * (135 * beta - 11)))))
    prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
    prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
    near = prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / torch.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha))
                * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1_den = torch.sqrt(2 * alpha / beta) * torch.pow(total, 1.5) * axbx * axbx
    term1 = term1_num / term1_den
    term2 = 0.5 * torch.log(alpha / (total * x))
    term3 = torch.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4_base = beta * torch.log(beta / (total * (1 - x))) + alpha * torch.log(alpha / (total * x))
    term4 = torch.pow(term4_base, -1.5)
    term1234 = term1 + term2 * (term3 + torch.where(x < mean, term4, -term4))
    far = stirling * prefactor * term1234
    return torch.where((mean - 0.1 * std <= x) & (x <= mean + 0.1 * std), near, far)


_DIRICHLET_C = (
    (((1.003668233, -0.01061107488, -0.0657888334, 0.01201642863),
      (0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033),
      (-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013)),
     ((0.221950385, -0.3187676331, 0.01799915743, 0.01074823814),
      (-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057),
      (0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05)),
     ((-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565),
      (0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181),
      (0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05))),
    (((1, -0.02924021934, -0.04438342661, 0.007285809825),
      (0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521),
      (-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149)),
     ((0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273),
      (0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956),
      (-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05)),
     ((0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05),
      (0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05),
      (-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06))),
)


def _dirichlet_grad(x, alpha, total):
    """ATen's ``dirichlet_grad_one``: the scaled reparameterized gradient
    ``-(d/dalpha cdf(x; alpha, total - alpha)) / pdf / (1 - x)`` of a Beta draw ``x``,
    as PyTorch's ``torch._dirichlet_grad``."""
    with torch.no_grad():
        dt = x.dtype
        x, alpha, total = (t.to(torch.float64) for t in torch.broadcast_tensors(x, alpha, total))
        beta = total - alpha
        boundary = total * x * (1 - x)
        g_small = _beta_grad_alpha_small(x, alpha, beta)
        g_large = -_beta_grad_beta_small(1 - x, beta, alpha)
        g_mid = _beta_grad_alpha_mid(x, alpha, beta)
        u = torch.log(x)
        a = torch.log(alpha) - u
        b = torch.log(total) - a
        pow_u = (1.0, u, u * u)
        pow_a = (1.0, a, a * a)
        p = torch.zeros_like(x)
        q = torch.zeros_like(x)
        c = _DIRICHLET_C
        for i in range(3):
            for j in range(3):
                ua = pow_u[i] * pow_a[j]
                p = p + ua * (c[0][i][j][0] + b * (c[0][i][j][1] + b * (c[0][i][j][2] + b * c[0][i][j][3])))
                q = q + ua * (c[1][i][j][0] + b * (c[1][i][j][1] + b * (c[1][i][j][2] + b * c[1][i][j][3])))
        approx = x * (_digamma(total) - _digamma(alpha)) / beta
        g_rational = p / q * approx
        res = torch.where(
            (x <= 0.5) & (boundary < 2.5), g_small,
            torch.where((x >= 0.5) & (boundary < 0.75), g_large,
                        torch.where((alpha > 6) & (beta > 6), g_mid, g_rational)))
        return res.to(dt)


class _StandardGammaGrad(Function):
    """``torch._standard_gamma_grad(alpha, x)`` as a node: PyTorch has no derivative of it."""

    @staticmethod
    def forward(ctx, alpha, x):
        return _standard_gamma_grad(alpha, x)

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError("the derivative for '_standard_gamma_grad' is not implemented.")


class _StandardGamma(Function):
    """``torch._standard_gamma``: a Gamma(alpha, 1) draw, differentiable in alpha (once, as
    PyTorch's: its backward ``grad * _standard_gamma_grad(alpha, x)`` is differentiable in
    ``grad`` only, and a second derivative in alpha raises PyTorch's NotImplementedError)."""

    @staticmethod
    def forward(ctx, alpha):
        x = _draw_standard_gamma(alpha)
        ctx.save_for_backward(alpha, x)
        return x

    @staticmethod
    def backward(ctx, grad):
        alpha, x = ctx.saved_tensors
        return grad * _StandardGammaGrad.apply(alpha, x)


class _DelayedError(Function):
    """PyTorch's ``once_differentiable`` guard: passes a gradient through, and raises if
    it is differentiated again."""

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("trying to differentiate twice a function that was marked with "
                           "@once_differentiable")


def _once_differentiable(result, *grads):
    """A backward's result as PyTorch's ``once_differentiable`` leaves it: computed without
    a graph, and where a gradient it was computed from requires grad, guarded."""
    if torch.is_grad_enabled() and any(getattr(g, "requires_grad", False) for g in grads):
        return _DelayedError.apply(result.detach().requires_grad_())
    return result


def _standard_gamma(alpha):
    """A Gamma(alpha, 1) draw of alpha's shape, differentiable in alpha (implicitly)."""
    return _StandardGamma.apply(alpha)


def _sample_dirichlet(concentration):
    """A Dirichlet(concentration) draw (no gradient): gamma draws normalised along the last dim."""
    with torch.no_grad():
        g = _draw_standard_gamma(concentration)
        return g / g.sum(-1, keepdim=True)
