"""Other answers for lesson 02 (see autograder/authoring/variants.py), by class of mistake."""

WRONG = {
    "grad-at": {
        "values": [
            # Forgets requires_grad altogether: backward() has nothing to differentiate.
            "def grad_at(f, x):\n    y = f(x)\n    y.backward()\n    return x.grad\n",
            # Clones the tracked tensor: the clone is not a leaf, so its .grad stays None.
            "def grad_at(f, x):\n    leaf = x.clone().requires_grad_()\n    z = leaf * 1.0\n    f(z).backward()\n    return z.grad\n",
        ],
        "shapes": [
            # Flattens x "to get a vector": right for 1-D inputs, a flat gradient for the others.
            "def grad_at(f, x):\n"
            "    leaf = x.detach().reshape(-1).clone().requires_grad_()\n"
            "    f(leaf.reshape(x.shape)).backward()\n    return leaf.grad\n",
            # view(-1) for the flat leaf: right for a contiguous x, an error for an x that is a view with other strides.
            "def grad_at(f, x):\n"
            "    flat = x.detach().view(-1).clone().requires_grad_()\n"
            "    f(flat.view(x.shape)).backward()\n    return flat.grad.view(x.shape)\n",
        ],
        "dtype": [
            # .float() on the way: a float64 x gets a float32 gradient.
            "def grad_at(f, x):\n    leaf = x.detach().float().requires_grad_()\n    f(leaf).backward()\n    return leaf.grad\n",
            # torch.tensor(list) picks float32 (and the CPU), whatever x was.
            "def grad_at(f, x):\n    leaf = torch.tensor(x.tolist(), requires_grad=True)\n    f(leaf).backward()\n    return leaf.grad\n",
        ],
        "device": [
            # Was a RIGHT answer: through a Python list the copy always lands on the CPU, wherever x lives.
            "def grad_at(f, x):\n    leaf = torch.tensor(x.tolist(), dtype=x.dtype, requires_grad=True)\n"
            "    out = f(leaf)\n    out.backward()\n    return leaf.grad.clone()\n",
            # .cpu() on the way: the gradient of a GPU tensor comes back on the CPU.
            "def grad_at(f, x):\n    leaf = x.detach().cpu().requires_grad_()\n    f(leaf).backward()\n    return leaf.grad\n",
        ],
        "result-device": [
            # Hands the gradient back on the CPU: right on a CPU machine, wrong for an x that lives elsewhere.
            "def grad_at(f, x):\n    leaf = x.detach().requires_grad_()\n    f(leaf).backward()\n    return leaf.grad.cpu()\n",
            "def grad_at(f, x):\n    leaf = x.detach().clone().requires_grad_()\n    f(leaf).backward()\n"
            "    return leaf.grad.to('cpu', copy=True)\n",
        ],
        "grad": [
            # Switches on requires_grad on the caller's tensor: the second call on the same x accumulates.
            "def grad_at(f, x):\n    x.requires_grad_(True)\n    f(x).backward()\n    return x.grad\n",
            # Tidies requires_grad up afterwards, but leaves (and overwrites) the caller's x.grad.
            "def grad_at(f, x):\n"
            "    x.requires_grad_(True)\n    x.grad = None\n    f(x).backward()\n"
            "    g = x.grad\n    x.requires_grad_(False)\n    return g\n",
        ],
    },
    "grad-over-batches": {
        "values": [
            # Sums the batch gradients instead of averaging them.
            "def grad_over_batches(loss_fn, w, batches):\n"
            "    w.grad = None\n    for x, y in batches:\n        loss_fn(w, x, y).backward()\n    return w.grad\n",
            # Zeroes inside the loop: only the last batch survives.
            "def grad_over_batches(loss_fn, w, batches):\n"
            "    total = sum(len(x) for x, _ in batches)\n"
            "    for x, y in batches:\n        w.grad = None\n        (loss_fn(w, x, y) * len(x) / total).backward()\n"
            "    return w.grad\n",
            # Divides by the batch size, not by the number of examples in all the batches.
            "def grad_over_batches(loss_fn, w, batches):\n"
            "    w.grad = None\n    for x, y in batches:\n        (loss_fn(w, x, y) / len(x)).backward()\n    return w.grad\n",
        ],
        "grad": [
            # Never zeroes: a stale w.grad (or the previous step's) is added in.
            "def grad_over_batches(loss_fn, w, batches):\n"
            "    total = sum(len(x) for x, _ in batches)\n"
            "    for x, y in batches:\n        (loss_fn(w, x, y) * len(x) / total).backward()\n    return w.grad\n",
            # zero_() on a gradient that does not exist yet.
            "def grad_over_batches(loss_fn, w, batches):\n"
            "    w.grad.zero_()\n    total = sum(len(x) for x, _ in batches)\n"
            "    for x, y in batches:\n        (loss_fn(w, x, y) * len(x) / total).backward()\n    return w.grad\n",
            # One backward on the weighted mean, but nothing reset first: the stale gradient stays in.
            "def grad_over_batches(loss_fn, w, batches):\n"
            "    total = sum(len(x) for x, _ in batches)\n"
            "    mean = sum(loss_fn(w, x, y) * len(x) for x, y in batches) / total\n    mean.backward()\n    return w.grad\n",
        ],
        "device": [
            # Zeroes with torch.zeros: a CPU gradient that a parameter on another device cannot accumulate into.
            "def grad_over_batches(loss_fn, w, batches):\n"
            "    w.grad = torch.zeros(w.shape)\n    total = sum(len(x) for x, _ in batches)\n"
            "    for x, y in batches:\n        (loss_fn(w, x, y) * len(x) / total).backward()\n    return w.grad\n",
        ],
        "result-device": [
            # Hands the gradient back on the CPU: right on a CPU machine, wrong for a w that lives elsewhere.
            "def grad_over_batches(loss_fn, w, batches):\n"
            "    w.grad = None\n    total = sum(len(x) for x, _ in batches)\n"
            "    for x, y in batches:\n        (loss_fn(w, x, y) * len(x) / total).backward()\n    return w.grad.cpu()\n",
            # Leaves w.grad alone but returns a copy made on the CPU, as torch.tensor of a list does.
            "def grad_over_batches(loss_fn, w, batches):\n"
            "    w.grad = None\n    total = sum(len(x) for x, _ in batches)\n"
            "    for x, y in batches:\n        (loss_fn(w, x, y) * len(x) / total).backward()\n"
            "    return w.grad.to('cpu')\n",
        ],
        "aggregation": [
            # The plain mean over batches (1 / len(batches) each): right for equal batches only, while the words say
            # a smaller batch counts less.
            "def grad_over_batches(loss_fn, w, batches):\n"
            "    w.grad = None\n    for x, y in batches:\n        (loss_fn(w, x, y) / len(batches)).backward()\n"
            "    return w.grad\n",
            # Counts the examples as batches x the first batch's size: too many when the last batch is smaller.
            "def grad_over_batches(loss_fn, w, batches):\n"
            "    w.grad = None\n    total = len(batches) * len(batches[0][0])\n"
            "    for x, y in batches:\n        (loss_fn(w, x, y) * len(x) / total).backward()\n    return w.grad\n",
            # Skips a smaller last batch (as drop_last=True would): its examples never count.
            "def grad_over_batches(loss_fn, w, batches):\n"
            "    w.grad = None\n    full = [(x, y) for x, y in batches if len(x) == len(batches[0][0])]\n"
            "    for x, y in full:\n        (loss_fn(w, x, y) / len(full)).backward()\n    return w.grad\n",
            # Counts the examples as if only the last batch could be smaller: wrong when a smaller batch comes earlier.
            "def grad_over_batches(loss_fn, w, batches):\n"
            "    w.grad = None\n    total = len(batches[0][0]) * (len(batches) - 1) + len(batches[-1][0])\n"
            "    for x, y in batches:\n        (loss_fn(w, x, y) * len(x) / total).backward()\n    return w.grad\n",
        ],
    },
    "predict-without-graph": {
        "values": [
            # Turns the scores into probabilities on the way: not what model_fn returns.
            "def predict_without_graph(model_fn, x):\n    with torch.no_grad():\n        return torch.sigmoid(model_fn(x))\n",
            # Switches a module to eval() "because it is a prediction": the words ask for model_fn(x) as the model
            # stands, and the model's mode (and BatchNorm's statistics) change.
            "def predict_without_graph(model_fn, x):\n"
            "    if isinstance(model_fn, torch.nn.Module):\n        model_fn.eval()\n"
            "    with torch.no_grad():\n        return model_fn(x)\n",
        ],
        "grad": [
            # Builds the graph, then detaches: same result, but tracking was on while the model ran.
            "def predict_without_graph(model_fn, x):\n    return model_fn(x).detach()\n",
            # Switches tracking off for good: every later backward() silently breaks.
            "def predict_without_graph(model_fn, x):\n    torch.set_grad_enabled(False)\n    return model_fn(x)\n",
            # torch.no_grad() on its own line does nothing.
            "def predict_without_graph(model_fn, x):\n    torch.no_grad()\n    return model_fn(x)\n",
            # Detaches the input, but the parameters still require grad.
            "def predict_without_graph(model_fn, x):\n    return model_fn(x.detach())\n",
        ],
    },
    "numerical-gradient": {
        "values": [
            # Forward difference: error of order eps, shows with eps=1e-4.
            "def numerical_gradient(f, x, eps=1e-6):\n"
            "    p = x.detach().double().clone()\n    g = torch.zeros_like(p)\n    fp, fg = p.view(-1), g.view(-1)\n"
            "    f0 = f(p).item()\n"
            "    for i in range(fp.numel()):\n"
            "        old = fp[i].item()\n        fp[i] = old + eps\n        fg[i] = (f(p).item() - f0) / eps\n        fp[i] = old\n"
            "    return g\n",
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
            # The loop stops one element short: the last element's estimate stays 0.
            "def numerical_gradient(f, x, eps=1e-6):\n"
            "    p = x.detach().to(torch.float64).clone()\n    g = torch.zeros_like(p)\n    fp, fg = p.view(-1), g.view(-1)\n"
            "    for i in range(fp.numel() - 1):\n"
            "        old = fp[i].item()\n        fp[i] = old + eps\n        a = f(p).item()\n        fp[i] = old - eps\n"
            "        b = f(p).item()\n        fp[i] = old\n        fg[i] = (a - b) / (2 * eps)\n"
            "    return g\n",
        ],
        "shapes": [
            # A copy that keeps a transposed x's strides: view(-1) on it fails (the words ask for a contiguous copy).
            "def numerical_gradient(f, x, eps=1e-6):\n"
            "    point = x.detach().to(torch.float64).clone()\n    grad = torch.zeros_like(point)\n"
            "    flat_point, flat_grad = point.view(-1), grad.view(-1)\n"
            "    for i in range(flat_point.numel()):\n"
            "        old = flat_point[i].item()\n        flat_point[i] = old + eps\n        up = f(point).item()\n"
            "        flat_point[i] = old - eps\n        down = f(point).item()\n        flat_point[i] = old\n"
            "        flat_grad[i] = (up - down) / (2 * eps)\n"
            "    return grad\n",
            # In place on a float64 x through reshape(-1): for a transposed x reshape copies, so every write misses x,
            # f never sees a perturbation, and the estimate is all zeros.
            "def numerical_gradient(f, x, eps=1e-6):\n"
            "    work = x.detach() if x.dtype == torch.float64 else x.detach().double()\n"
            "    out = torch.zeros(work.numel(), dtype=torch.float64)\n    flat = work.reshape(-1)\n"
            "    with torch.no_grad():\n"
            "        for i in range(flat.numel()):\n"
            "            saved = flat[i].clone()\n            flat[i] = saved + eps\n            up = f(work)\n"
            "            flat[i] = saved - eps\n            down = f(work)\n            flat[i] = saved\n"
            "            out[i] = (up - down) / (2 * eps)\n"
            "    return out.reshape(x.shape)\n",
            # One value per element in a flat tensor, never given x's shape back.
            "def numerical_gradient(f, x, eps=1e-6):\n"
            "    p = x.detach().double().clone()\n    g = torch.zeros(p.numel(), dtype=torch.float64)\n    fp = p.view(-1)\n"
            "    for i in range(fp.numel()):\n"
            "        old = fp[i].item()\n        fp[i] = old + eps\n        a = f(p).item()\n        fp[i] = old - eps\n"
            "        b = f(p).item()\n        fp[i] = old\n        g[i] = (a - b) / (2 * eps)\n"
            "    return g\n",
        ],
        "dtype": [
            # Computes in float32 and converts at the end: rounding swamps eps=1e-6.
            "def numerical_gradient(f, x, eps=1e-6):\n"
            "    p = x.detach().float().clone()\n    g = torch.zeros_like(p)\n    fp, fg = p.view(-1), g.view(-1)\n"
            "    for i in range(fp.numel()):\n"
            "        old = fp[i].item()\n        fp[i] = old + eps\n        a = f(p).item()\n        fp[i] = old - eps\n"
            "        b = f(p).item()\n        fp[i] = old\n        fg[i] = (a - b) / (2 * eps)\n"
            "    return g.double()\n",
            # Computes in float64 but stores the answer in a buffer shaped (and typed) like x.
            "def numerical_gradient(f, x, eps=1e-6):\n"
            "    p = x.detach().double().clone()\n    g = torch.zeros_like(x)\n    fp, fg = p.view(-1), g.view(-1)\n"
            "    for i in range(fp.numel()):\n"
            "        old = fp[i].item()\n        fp[i] = old + eps\n        a = f(p).item()\n        fp[i] = old - eps\n"
            "        b = f(p).item()\n        fp[i] = old\n        fg[i] = (a - b) / (2 * eps)\n"
            "    return g\n",
        ],
        "grad": [
            # No detach: for an x that requires grad every difference is tracked, and the result carries a graph.
            "def numerical_gradient(f, x, eps=1e-6):\n"
            "    base = x.to(torch.float64).clone()\n    grad = torch.zeros_like(base)\n"
            "    for i in range(base.numel()):\n"
            "        step = torch.zeros(base.numel(), dtype=torch.float64)\n        step[i] = eps\n"
            "        step = step.reshape(base.shape)\n"
            "        grad.view(-1)[i] = (f(base + step) - f(base - step)) / (2 * eps)\n"
            "    return grad\n",
        ],
        "evaluation": [
            # Never puts element i back: every later point is evaluated with it still at x_i - eps.
            "def numerical_gradient(f, x, eps=1e-6):\n"
            "    p = x.detach().double().clone()\n    g = torch.zeros_like(p)\n    fp, fg = p.view(-1), g.view(-1)\n"
            "    for i in range(fp.numel()):\n"
            "        old = fp[i].item()\n        fp[i] = old + eps\n        a = f(p).item()\n        fp[i] = old - eps\n"
            "        b = f(p).item()\n        fg[i] = (a - b) / (2 * eps)\n"
            "    return g\n",
            # Keeps the old value as fp[i], a view that changes with the element: f(x - eps e_i) is evaluated at x.
            "def numerical_gradient(f, x, eps=1e-6):\n"
            "    p = x.detach().double().clone()\n    g = torch.zeros_like(p)\n    fp, fg = p.view(-1), g.view(-1)\n"
            "    for i in range(fp.numel()):\n"
            "        old = fp[i]\n        fp[i] = old + eps\n        a = f(p).item()\n        fp[i] = old - eps\n"
            "        b = f(p).item()\n        fp[i] = old\n        fg[i] = (a - b) / (2 * eps)\n"
            "    return g\n",
        ],
    },
    "gradient-check": {
        "values": [
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
            # One ratio, the largest difference over the largest denominator, instead of the largest ratio elementwise.
            "def gradient_check(f, x):\n"
            "    p = x.detach().double()\n    a, n = grad_at(f, p), numerical_gradient(f, p)\n"
            "    return ((a - n).abs().max() / (a.abs() + n.abs()).max().clamp_min(1e-12)).item()\n",
            # Returns a tensor, not a float.
            "def gradient_check(f, x):\n"
            "    p = x.detach().double()\n    a, n = grad_at(f, p), numerical_gradient(f, p)\n"
            "    return ((a - n).abs() / (a.abs() + n.abs()).clamp_min(1e-12)).max()\n",
        ],
        "dtype": [
            # Never converts x: autograd runs in float32, whose 7 digits are too few to check anything.
            "from coursekit.checks import rel_error\n\n"
            "def gradient_check(f, x):\n    return rel_error(grad_at(f, x), numerical_gradient(f, x))\n",
        ],
        "stability": [
            # No clamp: where both gradients are exactly 0 the ratio is 0 / 0 = NaN.
            "def gradient_check(f, x):\n"
            "    p = x.detach().double()\n    a, n = grad_at(f, p), numerical_gradient(f, p)\n"
            "    return ((a - n).abs() / (a.abs() + n.abs())).max().item()\n",
        ],
        "evaluation": [
            # Its own central difference, whose element i is never put back: later points are shifted by eps, a
            # relative error of order eps that stays under any threshold.
            "from coursekit.checks import rel_error\n\n"
            "def gradient_check(f, x):\n"
            "    p = x.detach().double().clone()\n    auto = grad_at(f, p)\n    num = torch.zeros_like(p)\n"
            "    for i in range(p.numel()):\n"
            "        p.view(-1)[i] += 1e-6\n        up = f(p).item()\n        p.view(-1)[i] -= 2e-6\n"
            "        down = f(p).item()\n        num.view(-1)[i] = (up - down) / 2e-6\n"
            "    return rel_error(auto, num)\n",
        ],
    },
}

RIGHT = {
    "grad-at": {
        "values": [
            "def grad_at(f, x):\n    leaf = x.detach().clone().requires_grad_(True)\n"
            "    return torch.autograd.grad(f(leaf), leaf)[0]\n",
        ],
        "shapes": [
            # A flat leaf is fine when the gradient is given x's shape back.
            "def grad_at(f, x):\n"
            "    flat = x.detach().reshape(-1).clone().requires_grad_()\n"
            "    f(flat.reshape(x.shape)).backward()\n    return flat.grad.reshape(x.shape)\n",
        ],
        "dtype": [
            "def grad_at(f, x):\n    leaf = x.detach().to(x.dtype, copy=True).requires_grad_()\n"
            "    f(leaf).backward()\n    return leaf.grad\n",
        ],
        "device": [
            # A copy made on x's device with new_empty.
            "def grad_at(f, x):\n    leaf = x.new_empty(x.shape).copy_(x.detach()).requires_grad_()\n"
            "    f(leaf).backward()\n    return leaf.grad\n",
            "def grad_at(f, x):\n    leaf = torch.zeros_like(x).add_(x.detach()).requires_grad_()\n"
            "    (g,) = torch.autograd.grad(f(leaf), [leaf])\n    return g\n",
        ],
        "result-device": [
            # Moves the gradient to x's device, where it already is.
            "def grad_at(f, x):\n    leaf = x.detach().requires_grad_()\n    f(leaf).backward()\n    return leaf.grad.to(x.device)\n",
            "def grad_at(f, x):\n    leaf = x.detach().requires_grad_()\n    (g,) = torch.autograd.grad(f(leaf), leaf)\n"
            "    return g.detach()\n",
        ],
        "grad": [
            # enable_grad and autograd.grad: nothing is ever written into a .grad.
            "def grad_at(f, x):\n"
            "    with torch.enable_grad():\n        leaf = x.detach().requires_grad_()\n        out = f(leaf)\n"
            "    (g,) = torch.autograd.grad(out, leaf)\n    return g\n",
            "def grad_at(f, x):\n    leaf = x.detach().clone()\n    leaf.requires_grad = True\n"
            "    f(leaf).backward()\n    return leaf.grad.clone()\n",
        ],
    },
    "grad-over-batches": {
        "values": [
            # One autograd.grad on the weighted mean of all losses (no accumulation needed).
            "def grad_over_batches(loss_fn, w, batches):\n"
            "    total = sum(len(x) for x, _ in batches)\n"
            "    mean = sum(loss_fn(w, x, y) * len(x) for x, y in batches) / total\n"
            "    w.grad = torch.autograd.grad(mean, w)[0]\n    return w.grad\n",
        ],
        "grad": [
            # Zeroes in place when a gradient exists.
            "def grad_over_batches(loss_fn, w, batches):\n"
            "    if w.grad is not None:\n        w.grad.zero_()\n    total = sum(x.shape[0] for x, _ in batches)\n"
            "    for x, y in batches:\n        loss = loss_fn(w, x, y)\n        (loss * (x.shape[0] / total)).backward()\n"
            "    return w.grad\n",
            # Accumulates each batch's summed loss (mean x size), then divides the gradient by N once.
            "def grad_over_batches(loss_fn, w, batches):\n"
            "    w.grad = None\n    seen = 0\n    for x, y in batches:\n        (loss_fn(w, x, y) * len(x)).backward()\n"
            "        seen += len(x)\n    w.grad /= seen\n    return w.grad\n",
        ],
        "device": [
            "def grad_over_batches(loss_fn, w, batches):\n"
            "    w.grad = torch.zeros_like(w)\n    total = sum(len(x) for x, _ in batches)\n"
            "    for x, y in batches:\n        (loss_fn(w, x, y) * len(x) / total).backward()\n    return w.grad\n",
            "def grad_over_batches(loss_fn, w, batches):\n"
            "    w.grad = w.new_zeros(w.shape)\n    total = sum(len(y) for _, y in batches)\n"
            "    for x, y in batches:\n        (loss_fn(w, x, y) * (len(y) / total)).backward()\n    return w.grad\n",
        ],
        "result-device": [
            # Moves the gradient to w's own device, which is where it already is.
            "def grad_over_batches(loss_fn, w, batches):\n"
            "    w.grad = None\n    total = sum(len(x) for x, _ in batches)\n"
            "    for x, y in batches:\n        (loss_fn(w, x, y) * len(x) / total).backward()\n"
            "    return w.grad.to(w.device)\n",
            # Returns the gradient read back from w after the loop.
            "def grad_over_batches(loss_fn, w, batches):\n"
            "    w.grad = None\n    total = sum(len(x) for x, _ in batches)\n"
            "    for x, y in batches:\n        (loss_fn(w, x, y) * len(x) / total).backward()\n"
            "    grad = w.grad\n    return grad\n",
        ],
        "aggregation": [
            # Other readings of "weight each batch by its share": the share from the labels (len(y)), and the
            # batch losses stacked and weighted by a tensor of sizes.
            "def grad_over_batches(loss_fn, w, batches):\n"
            "    w.grad = None\n    total = sum(len(y) for _, y in batches)\n"
            "    for x, y in batches:\n        (loss_fn(w, x, y) * (len(y) / total)).backward()\n    return w.grad\n",
            "def grad_over_batches(loss_fn, w, batches):\n"
            "    losses = torch.stack([loss_fn(w, x, y) for x, y in batches])\n"
            "    sizes = torch.tensor([float(len(x)) for x, _ in batches], device=losses.device)\n"
            "    w.grad = None\n    ((losses * sizes).sum() / sizes.sum()).backward()\n    return w.grad\n",
        ],
    },
    "predict-without-graph": {
        "values": [
            "def predict_without_graph(model_fn, x):\n    with torch.no_grad():\n        out = model_fn(x)\n    return out\n",
            # Notes a module's mode and puts it back afterwards: model_fn(x) as the model stands, the mode unchanged.
            "def predict_without_graph(model_fn, x):\n"
            "    training = getattr(model_fn, 'training', None)\n"
            "    with torch.no_grad():\n        out = model_fn(x)\n"
            "    if training is not None:\n        model_fn.train(training)\n"
            "    return out\n",
        ],
        "grad": [
            "def predict_without_graph(model_fn, x):\n    with torch.inference_mode():\n        return model_fn(x)\n",
            "def predict_without_graph(model_fn, x):\n"
            "    @torch.no_grad()\n    def run(inputs):\n        return model_fn(inputs)\n    return run(x)\n",
            "def predict_without_graph(model_fn, x):\n    with torch.set_grad_enabled(False):\n        out = model_fn(x)\n    return out\n",
            # Tracking switched off and on again by hand.
            "def predict_without_graph(model_fn, x):\n"
            "    torch.set_grad_enabled(False)\n    try:\n        return model_fn(x)\n    finally:\n"
            "        torch.set_grad_enabled(True)\n",
        ],
    },
    "numerical-gradient": {
        "values": [
            # Index tuples instead of a flat view; a perturbation tensor per element.
            "import itertools\n\n"
            "def numerical_gradient(f, x, eps=1e-6):\n"
            "    base = x.detach().to(torch.float64)\n    grad = torch.empty(base.shape, dtype=torch.float64)\n"
            "    for idx in itertools.product(*[range(s) for s in base.shape]):\n"
            "        step = torch.zeros_like(base)\n        step[idx] = eps\n"
            "        grad[idx] = (f(base + step) - f(base - step)) / (2 * eps)\n"
            "    return grad\n",
        ],
        "shapes": [
            # In place on the caller's float64 x (exactly restored), under no_grad, flat then reshaped.
            "def numerical_gradient(f, x, eps=1e-6):\n"
            "    work = x.detach() if x.dtype == torch.float64 and x.is_contiguous() else x.detach().double().contiguous()\n"
            "    out = torch.zeros(work.numel(), dtype=torch.float64)\n    flat = work.reshape(-1)\n"
            "    with torch.no_grad():\n"
            "        for i in range(flat.numel()):\n"
            "            saved = flat[i].clone()\n            flat[i] = saved + eps\n            up = f(work)\n"
            "            flat[i] = saved - eps\n            down = f(work)\n            flat[i] = saved\n"
            "            out[i] = (up - down) / (2 * eps)\n"
            "    return out.reshape(x.shape)\n",
        ],
        "dtype": [
            "def numerical_gradient(f, x, eps=1e-6):\n"
            "    point = x.detach().clone().to(dtype=torch.float64).contiguous()\n    grad = torch.empty_like(point)\n"
            "    for i in range(point.numel()):\n"
            "        bump = torch.zeros_like(point)\n        bump.view(-1)[i] = eps\n"
            "        grad.view(-1)[i] = float(f(point + bump) - f(point - bump)) / (2 * eps)\n"
            "    return grad\n",
        ],
        "grad": [
            # A tracked copy, but everything under no_grad: no graph is built.
            "def numerical_gradient(f, x, eps=1e-6):\n"
            "    with torch.no_grad():\n"
            "        point = x.to(torch.float64, copy=True, memory_format=torch.contiguous_format)\n"
            "        out = torch.empty_like(point)\n"
            "        for i in range(point.numel()):\n"
            "            e = torch.zeros_like(point)\n            e.view(-1)[i] = eps\n"
            "            out.view(-1)[i] = (f(point + e) - f(point - e)) / (2 * eps)\n"
            "    return out\n",
        ],
        "evaluation": [
            # x - eps first, moved in place by steps of eps and back (rounding at the last bit only).
            "def numerical_gradient(f, x, eps=1e-6):\n"
            "    p = x.detach().to(torch.float64).clone(memory_format=torch.contiguous_format)\n    out = torch.empty_like(p)\n"
            "    for i in range(p.numel()):\n"
            "        p.view(-1)[i] -= eps\n        down = float(f(p))\n        p.view(-1)[i] += 2 * eps\n"
            "        up = float(f(p))\n        p.view(-1)[i] -= eps\n        out.view(-1)[i] = (up - down) / (2 * eps)\n"
            "    return out\n",
            # Every x + eps e_i first, then every x - eps e_i, from the rows of an identity matrix.
            "def numerical_gradient(f, x, eps=1e-6):\n"
            "    base = x.detach().double()\n    steps = torch.eye(base.numel(), dtype=torch.float64) * eps\n"
            "    up = torch.stack([f(base + s.reshape(base.shape)) for s in steps])\n"
            "    down = torch.stack([f(base - s.reshape(base.shape)) for s in steps])\n"
            "    return ((up - down) / (2 * eps)).reshape(base.shape)\n",
        ],
    },
    "gradient-check": {
        "values": [
            # autograd.grad and the formula written out.
            "def gradient_check(f, x):\n"
            "    p = x.detach().double().requires_grad_()\n    auto, = torch.autograd.grad(f(p), p)\n"
            "    num = numerical_gradient(f, p.detach())\n"
            "    ratio = (auto - num).abs() / torch.clamp(auto.abs() + num.abs(), min=1e-12)\n"
            "    return float(ratio.max())\n",
        ],
        "dtype": [
            "from coursekit import rel_error\n\n"
            "def gradient_check(f, x):\n    x64 = x.double()\n    return rel_error(numerical_gradient(f, x64), grad_at(f, x64))\n",
            "def gradient_check(f, x):\n"
            "    point = x.detach().clone().to(dtype=torch.float64)\n    a, n = grad_at(f, point), numerical_gradient(f, point)\n"
            "    return ((a - n).abs() / (a.abs() + n.abs()).clamp(min=1e-12)).max().item()\n",
        ],
        "stability": [
            # A tiny constant added instead of a clamp: 0 / 1e-12 is 0 as well.
            "def gradient_check(f, x):\n"
            "    p = x.detach().double()\n    a, n = grad_at(f, p), numerical_gradient(f, p)\n"
            "    return ((a - n).abs() / (a.abs() + n.abs() + 1e-12)).max().item()\n",
        ],
        "evaluation": [
            # Its own central difference with another eps, x - eps first, each element put back in a finally.
            "def gradient_check(f, x):\n"
            "    p = x.detach().to(torch.float64).clone()\n    auto = grad_at(f, p)\n"
            "    num = torch.empty_like(p)\n    flat = p.view(-1)\n"
            "    for i in range(flat.numel()):\n"
            "        saved = flat[i].item()\n"
            "        try:\n"
            "            flat[i] = saved - 1e-5\n            down = f(p).item()\n"
            "            flat[i] = saved + 1e-5\n            up = f(p).item()\n"
            "        finally:\n            flat[i] = saved\n"
            "        num.view(-1)[i] = (up - down) / 2e-5\n"
            "    ratio = (auto - num).abs() / (auto.abs() + num.abs()).clamp_min(1e-12)\n"
            "    return ratio.max().item()\n",
        ],
    },
}

NOT_TESTED = {
    "numerical-gradient": {
        "device": "the words do not say where the estimate lives: it is numbers read from f one at a time (.item()), "
                  "and a float64 tensor on the CPU fits them as well as one on x's device.",
    },
    "gradient-check": {
        "device": "it returns a Python float, which lives on no device.",
    },
}
