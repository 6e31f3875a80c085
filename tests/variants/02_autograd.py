"""Other answers for lesson 02 (see autograder/variants.py)."""

WRONG = {
    "grad-at": [
        # Switches on requires_grad on the caller's tensor: the second call on the same x accumulates.
        "def grad_at(f, x):\n    x.requires_grad_(True)\n    f(x).backward()\n    return x.grad\n",
        # Forgets requires_grad altogether: backward() has nothing to differentiate.
        "def grad_at(f, x):\n    y = f(x)\n    y.backward()\n    return x.grad\n",
        # Clones the tracked tensor: the clone is not a leaf, so its .grad stays None.
        "def grad_at(f, x):\n    leaf = x.clone().requires_grad_()\n    z = leaf * 1.0\n    f(z).backward()\n    return z.grad\n",
    ],
    "grad-over-batches": [
        # Never zeroes: a stale w.grad (or the previous step's) is added in.
        "def grad_over_batches(loss_fn, w, batches):\n"
        "    for x, y in batches:\n        (loss_fn(w, x, y) / len(batches)).backward()\n    return w.grad\n",
        # Sums the batch gradients instead of averaging them.
        "def grad_over_batches(loss_fn, w, batches):\n"
        "    w.grad = None\n    for x, y in batches:\n        loss_fn(w, x, y).backward()\n    return w.grad\n",
        # Zeroes inside the loop: only the last batch survives.
        "def grad_over_batches(loss_fn, w, batches):\n"
        "    for x, y in batches:\n        w.grad = None\n        (loss_fn(w, x, y) / len(batches)).backward()\n    return w.grad\n",
        # zero_() on a gradient that does not exist yet.
        "def grad_over_batches(loss_fn, w, batches):\n"
        "    w.grad.zero_()\n    for x, y in batches:\n        (loss_fn(w, x, y) / len(batches)).backward()\n    return w.grad\n",
    ],
    "predict-without-graph": [
        # Builds the graph, then detaches: same result, but tracking was on while the model ran.
        "def predict_without_graph(model_fn, x):\n    return model_fn(x).detach()\n",
        # Switches tracking off for good: every later backward() silently breaks.
        "def predict_without_graph(model_fn, x):\n    torch.set_grad_enabled(False)\n    return model_fn(x)\n",
        # torch.no_grad() on its own line does nothing.
        "def predict_without_graph(model_fn, x):\n    torch.no_grad()\n    return model_fn(x)\n",
        # Detaches the input, but the parameters still require grad.
        "def predict_without_graph(model_fn, x):\n    return model_fn(x.detach())\n",
    ],
    "numerical-gradient": [
        # Forward difference: error of order eps, shows with eps=1e-4.
        "def numerical_gradient(f, x, eps=1e-6):\n"
        "    p = x.detach().double().clone()\n    g = torch.zeros_like(p)\n    fp, fg = p.view(-1), g.view(-1)\n"
        "    f0 = f(p).item()\n"
        "    for i in range(fp.numel()):\n"
        "        old = fp[i].item()\n        fp[i] = old + eps\n        fg[i] = (f(p).item() - f0) / eps\n        fp[i] = old\n"
        "    return g\n",
        # Computes in float32 and converts at the end: rounding swamps eps=1e-6.
        "def numerical_gradient(f, x, eps=1e-6):\n"
        "    p = x.detach().float().clone()\n    g = torch.zeros_like(p)\n    fp, fg = p.view(-1), g.view(-1)\n"
        "    for i in range(fp.numel()):\n"
        "        old = fp[i].item()\n        fp[i] = old + eps\n        a = f(p).item()\n        fp[i] = old - eps\n"
        "        b = f(p).item()\n        fp[i] = old\n        fg[i] = (a - b) / (2 * eps)\n"
        "    return g.double()\n",
        # x.double() is x itself for float64 input, and the perturbation is never undone.
        "def numerical_gradient(f, x, eps=1e-6):\n"
        "    p = x.detach().double()\n    g = torch.zeros_like(p)\n    fp, fg = p.view(-1), g.view(-1)\n"
        "    for i in range(fp.numel()):\n"
        "        fp[i] += eps\n        a = f(p).item()\n        fp[i] -= 2 * eps\n        b = f(p).item()\n"
        "        fg[i] = (a - b) / (2 * eps)\n"
        "    return g\n",
        # Only 1-D inputs: loops over the first dimension and perturbs whole rows.
        "def numerical_gradient(f, x, eps=1e-6):\n"
        "    p = x.detach().double().clone()\n    g = torch.zeros_like(p)\n"
        "    for i in range(len(p)):\n"
        "        old = p[i].clone()\n        p[i] = old + eps\n        a = f(p).item()\n        p[i] = old - eps\n"
        "        b = f(p).item()\n        p[i] = old\n        g[i] = (a - b) / (2 * eps)\n"
        "    return g\n",
    ],
    "gradient-check": [
        # Mean instead of max.
        "def gradient_check(f, x):\n"
        "    p = x.detach().double()\n    a, n = grad_at(f, p), numerical_gradient(f, p)\n"
        "    return ((a - n).abs() / (a.abs() + n.abs()).clamp_min(1e-12)).mean().item()\n",
        # Absolute error: meaningless for large or small gradients.
        "def gradient_check(f, x):\n"
        "    p = x.detach().double()\n    a, n = grad_at(f, p), numerical_gradient(f, p)\n"
        "    return (a - n).abs().max().item()\n",
        # Denominator max(|a|, |n|) instead of |a| + |n|.
        "def gradient_check(f, x):\n"
        "    p = x.detach().double()\n    a, n = grad_at(f, p), numerical_gradient(f, p)\n"
        "    return ((a - n).abs() / torch.maximum(a.abs(), n.abs()).clamp_min(1e-12)).max().item()\n",
        # Returns a tensor, not a float.
        "def gradient_check(f, x):\n"
        "    p = x.detach().double()\n    a, n = grad_at(f, p), numerical_gradient(f, p)\n"
        "    return ((a - n).abs() / (a.abs() + n.abs()).clamp_min(1e-12)).max()\n",
    ],
}

RIGHT = {
    "grad-at": [
        "def grad_at(f, x):\n    leaf = x.detach().clone().requires_grad_(True)\n"
        "    return torch.autograd.grad(f(leaf), leaf)[0]\n",
        "def grad_at(f, x):\n    leaf = torch.tensor(x.tolist(), dtype=x.dtype, requires_grad=True)\n"
        "    out = f(leaf)\n    out.backward()\n    return leaf.grad.clone()\n",
    ],
    "grad-over-batches": [
        # Zeroes in place when a gradient exists.
        "def grad_over_batches(loss_fn, w, batches):\n"
        "    if w.grad is not None:\n        w.grad.zero_()\n"
        "    for x, y in batches:\n        loss = loss_fn(w, x, y)\n        (loss / len(batches)).backward()\n"
        "    return w.grad\n",
        # One backward on the average of all losses (no accumulation needed).
        "def grad_over_batches(loss_fn, w, batches):\n"
        "    total = sum(loss_fn(w, x, y) for x, y in batches) / len(batches)\n"
        "    w.grad = torch.autograd.grad(total, w)[0]\n    return w.grad\n",
    ],
    "predict-without-graph": [
        "def predict_without_graph(model_fn, x):\n    with torch.inference_mode():\n        return model_fn(x)\n",
        "def predict_without_graph(model_fn, x):\n"
        "    @torch.no_grad()\n    def run(inputs):\n        return model_fn(inputs)\n    return run(x)\n",
        "def predict_without_graph(model_fn, x):\n    with torch.set_grad_enabled(False):\n        out = model_fn(x)\n    return out\n",
    ],
    "numerical-gradient": [
        # Index tuples instead of a flat view; a perturbation tensor per element.
        "import itertools\n\n"
        "def numerical_gradient(f, x, eps=1e-6):\n"
        "    base = x.detach().to(torch.float64)\n    grad = torch.empty(base.shape, dtype=torch.float64)\n"
        "    for idx in itertools.product(*[range(s) for s in base.shape]):\n"
        "        step = torch.zeros_like(base)\n        step[idx] = eps\n"
        "        grad[idx] = (f(base + step) - f(base - step)) / (2 * eps)\n"
        "    return grad\n",
        # In place on the caller's float64 x (exactly restored), under no_grad.
        "def numerical_gradient(f, x, eps=1e-6):\n"
        "    work = x.detach() if x.dtype == torch.float64 else x.detach().double()\n"
        "    out = torch.zeros(work.numel(), dtype=torch.float64)\n    flat = work.reshape(-1)\n"
        "    with torch.no_grad():\n"
        "        for i in range(flat.numel()):\n"
        "            saved = flat[i].clone()\n            flat[i] = saved + eps\n            up = f(work)\n"
        "            flat[i] = saved - eps\n            down = f(work)\n            flat[i] = saved\n"
        "            out[i] = (up - down) / (2 * eps)\n"
        "    return out.reshape(x.shape)\n",
    ],
    "gradient-check": [
        # autograd.grad and the formula written out.
        "def gradient_check(f, x):\n"
        "    p = x.detach().double().requires_grad_()\n    auto, = torch.autograd.grad(f(p), p)\n"
        "    num = numerical_gradient(f, p.detach())\n"
        "    ratio = (auto - num).abs() / torch.clamp(auto.abs() + num.abs(), min=1e-12)\n"
        "    return float(ratio.max())\n",
        "from coursekit import rel_error\n\n"
        "def gradient_check(f, x):\n    x64 = x.double()\n    return rel_error(numerical_gradient(f, x64), grad_at(f, x64))\n",
    ],
}
