"""Other answers for lesson 04 (see autograder/authoring/variants.py), by class of mistake."""

WRONG = {
    "classification-loss": {
        "values": [
            # Forgot log_softmax: nll_loss on raw logits.
            "def classification_loss(logits, targets):\n    return F.nll_loss(logits, targets)\n",
            # Sum instead of mean.
            "def classification_loss(logits, targets):\n    return F.cross_entropy(logits, targets, reduction='sum')\n",
            # Detached from the graph: the value is right, the gradient never reaches the model.
            "def classification_loss(logits, targets):\n    return F.cross_entropy(logits.detach(), targets)\n",
        ],
        "logits": [
            # Softmax before CrossEntropyLoss: the mistake section 2 is about.
            "def classification_loss(logits, targets):\n    return F.cross_entropy(logits.softmax(dim=1), targets)\n",
            # nll_loss on probabilities: it wants log-probabilities.
            "def classification_loss(logits, targets):\n    return F.nll_loss(F.softmax(logits, dim=1), targets)\n",
            # A sigmoid "to get probabilities" before the loss squashes the scores just the same.
            "def classification_loss(logits, targets):\n    return F.cross_entropy(torch.sigmoid(logits), targets)\n",
        ],
        "stability": [
            # log of a softmax: right on small logits, -inf (so inf loss, NaN gradient) on large ones.
            "def classification_loss(logits, targets):\n"
            "    log_p = torch.log(torch.softmax(logits, dim=1))\n"
            "    return -log_p[torch.arange(len(targets)), targets].mean()\n",
            # The softmax by hand, without subtracting the maximum: exp overflows above 88.
            "def classification_loss(logits, targets):\n"
            "    p = logits.exp() / logits.exp().sum(dim=1, keepdim=True)\n"
            "    return -p[torch.arange(len(targets)), targets].log().mean()\n",
        ],
        "shapes": [
            # One loss per example: reduction='none' and no mean.
            "def classification_loss(logits, targets):\n    return F.cross_entropy(logits, targets, reduction='none')\n",
            # squeeze() "to be safe": a batch of one becomes a single unbatched row the targets no longer fit.
            "def classification_loss(logits, targets):\n    return F.cross_entropy(logits.squeeze(), targets)\n",
        ],
    },
    "stable-bce": {
        "values": [
            # Sign error on the y * z term.
            "def stable_bce_with_logits(z, y):\n"
            "    return (torch.clamp(z, min=0) + y * z + torch.log1p(torch.exp(-z.abs()))).mean()\n",
            # Sum instead of mean.
            "def stable_bce_with_logits(z, y):\n"
            "    return (torch.clamp(z, min=0) - y * z + torch.log1p(torch.exp(-z.abs()))).sum()\n",
        ],
        "stability": [
            # The textbook formula on probabilities: log(0) = -inf once sigmoid rounds to 0 or 1.
            "def stable_bce_with_logits(z, y):\n"
            "    p = torch.sigmoid(z)\n"
            "    return -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).mean()\n",
            # BCELoss on sigmoid: clamps the log at -100, wrong value and zero gradient.
            "def stable_bce_with_logits(z, y):\n    return F.binary_cross_entropy(torch.sigmoid(z), y)\n",
            # log(1 + e^z) - yz without splitting off max(z, 0): exp overflows above z = 88.
            "def stable_bce_with_logits(z, y):\n    return (torch.log(1 + torch.exp(z)) - y * z).mean()\n",
            # Both branches of torch.where are computed: the unused exp(z) overflows, and its NaN leaks into the gradient.
            "def stable_bce_with_logits(z, y):\n"
            "    pos = z * (1 - y) + torch.log1p(torch.exp(-z))\n"
            "    neg = -z * y + torch.log1p(torch.exp(z))\n"
            "    return torch.where(z >= 0, pos, neg).mean()\n",
        ],
        "boundaries": [
            # The formula split by sign with two strict masks: an element with z exactly 0 belongs to neither branch,
            # so its loss is 0 instead of log 2 (a zero-initialised output layer gives nothing but such logits).
            "def stable_bce_with_logits(z, y):\n"
            "    out = torch.zeros_like(z)\n"
            "    pos, neg = z > 0, z < 0\n"
            "    out[pos] = z[pos] * (1 - y[pos]) + torch.log1p(torch.exp(-z[pos]))\n"
            "    out[neg] = -z[neg] * y[neg] + torch.log1p(torch.exp(z[neg]))\n"
            "    return out.mean()\n",
            # The formula as written, with torch.clamp for max(z, 0): right values, but at z exactly 0 autograd takes
            # slope 1 for the clamp and 0 for |z|, so the gradient there is (1 - y) / N instead of (1/2 - y) / N.
            "def stable_bce_with_logits(z, y):\n"
            "    return (torch.clamp(z, min=0) - y * z + torch.log1p(torch.exp(-z.abs()))).mean()\n",
            # relu for max(z, 0): slope 0 at z = 0, so the gradient there is -y / N.
            "def stable_bce_with_logits(z, y):\n"
            "    return (z.relu() - y * z + torch.log1p(torch.exp(-z.abs()))).mean()\n",
        ],
        "logits": [
            # A sigmoid before the loss that applies its own: the probabilities are taken for logits.
            "def stable_bce_with_logits(z, y):\n    return F.binary_cross_entropy_with_logits(torch.sigmoid(z), y)\n",
        ],
        "shapes": [
            # Divides by len(z), the first dimension only: right for 1-D logits, wrong for the others.
            "def stable_bce_with_logits(z, y):\n"
            "    return (torch.clamp(z, min=0) - y * z + torch.log1p(torch.exp(-z.abs()))).sum() / len(z)\n",
            # Mean over the last dimension only: one number per row for 2-D logits.
            "def stable_bce_with_logits(z, y):\n"
            "    return (torch.clamp(z, min=0) - y * z + torch.log1p(torch.exp(-z.abs()))).mean(dim=-1)\n",
        ],
    },
    "sgd-momentum": {
        "values": [
            # The (1 - momentum) "dampened" convention from textbooks, not torch.optim.SGD's.
            "def sgd_momentum_step(param, grad, velocity, lr, momentum):\n"
            "    velocity = momentum * velocity + (1 - momentum) * grad\n"
            "    return param - lr * velocity, velocity\n",
            # lr folded into the velocity: the same path, but the velocity is not torch's momentum_buffer.
            "def sgd_momentum_step(param, grad, velocity, lr, momentum):\n"
            "    velocity = momentum * velocity + lr * grad\n"
            "    return param - velocity, velocity\n",
            # Steps with the old velocity.
            "def sgd_momentum_step(param, grad, velocity, lr, momentum):\n"
            "    new_param = param - lr * velocity\n"
            "    return new_param, momentum * velocity + grad\n",
            # Nesterov by mistake.
            "def sgd_momentum_step(param, grad, velocity, lr, momentum):\n"
            "    velocity = momentum * velocity + grad\n"
            "    return param - lr * (grad + momentum * velocity), velocity\n",
            # Momentum hard-coded to the usual 0.9: passes the visible checks, which use 0.9.
            "def sgd_momentum_step(param, grad, velocity, lr, momentum):\n"
            "    velocity = 0.9 * velocity + grad\n"
            "    return param - lr * velocity, velocity\n",
            # Builds the velocity inside the caller's grad: right numbers, but grad is changed (and aliased).
            "def sgd_momentum_step(param, grad, velocity, lr, momentum):\n"
            "    grad.add_(velocity, alpha=momentum)\n"
            "    return param - lr * grad, grad\n",
        ],
    },
    "adam-step": {
        "values": [
            # No bias correction.
            "def adam_step(param, grad, m, v, t, lr, betas, eps):\n"
            "    m = betas[0] * m + (1 - betas[0]) * grad\n"
            "    v = betas[1] * v + (1 - betas[1]) * grad ** 2\n"
            "    return param - lr * m / (v.sqrt() + eps), m, v\n",
            # eps inside the square root: invisible with eps = 1e-8 and gradients near 1.
            "def adam_step(param, grad, m, v, t, lr, betas, eps):\n"
            "    m = betas[0] * m + (1 - betas[0]) * grad\n"
            "    v = betas[1] * v + (1 - betas[1]) * grad ** 2\n"
            "    m_hat, v_hat = m / (1 - betas[0] ** t), v / (1 - betas[1] ** t)\n"
            "    return param - lr * m_hat / (v_hat + eps).sqrt(), m, v\n",
            # The Adam paper's 'efficient' form: eps added before the sqrt(v) correction, so it is scaled differently.
            "import math\n"
            "def adam_step(param, grad, m, v, t, lr, betas, eps):\n"
            "    m = betas[0] * m + (1 - betas[0]) * grad\n"
            "    v = betas[1] * v + (1 - betas[1]) * grad ** 2\n"
            "    step = lr * math.sqrt(1 - betas[1] ** t) / (1 - betas[0] ** t)\n"
            "    return param - step * m / (v.sqrt() + eps), m, v\n",
            # Betas hard-coded to the defaults: passes the visible checks, which use the defaults.
            "def adam_step(param, grad, m, v, t, lr, betas, eps):\n"
            "    m = 0.9 * m + 0.1 * grad\n"
            "    v = 0.999 * v + 0.001 * grad ** 2\n"
            "    m_hat, v_hat = m / (1 - 0.9 ** t), v / (1 - 0.999 ** t)\n"
            "    return param - lr * m_hat / (v_hat.sqrt() + eps), m, v\n",
            # Returns the bias-corrected moments as the new state.
            "def adam_step(param, grad, m, v, t, lr, betas, eps):\n"
            "    m = (betas[0] * m + (1 - betas[0]) * grad) / (1 - betas[0] ** t)\n"
            "    v = (betas[1] * v + (1 - betas[1]) * grad ** 2) / (1 - betas[1] ** t)\n"
            "    return param - lr * m / (v.sqrt() + eps), m, v\n",
            # Step counted from 0: bias correction off by one step.
            "def adam_step(param, grad, m, v, t, lr, betas, eps):\n"
            "    m = betas[0] * m + (1 - betas[0]) * grad\n"
            "    v = betas[1] * v + (1 - betas[1]) * grad ** 2\n"
            "    m_hat, v_hat = m / (1 - betas[0] ** (t + 1)), v / (1 - betas[1] ** (t + 1))\n"
            "    return param - lr * m_hat / (v_hat.sqrt() + eps), m, v\n",
        ],
        "stability": [
            # No eps at all: a gradient that is exactly 0 gives 0 / 0 = NaN.
            "def adam_step(param, grad, m, v, t, lr, betas, eps):\n"
            "    m = betas[0] * m + (1 - betas[0]) * grad\n"
            "    v = betas[1] * v + (1 - betas[1]) * grad ** 2\n"
            "    m_hat, v_hat = m / (1 - betas[0] ** t), v / (1 - betas[1] ** t)\n"
            "    return param - lr * m_hat / v_hat.sqrt(), m, v\n",
        ],
    },
    "collect-lrs": {
        "values": [
            # Records after scheduler.step(): the whole schedule shifted by one step.
            "def collect_lrs(optimizer, scheduler, steps):\n"
            "    lrs = []\n"
            "    for _ in range(steps):\n"
            "        optimizer.step()\n"
            "        scheduler.step()\n"
            "        lrs.append(optimizer.param_groups[0]['lr'])\n"
            "    return lrs\n",
            # scheduler.get_lr() is the internal update rule, not the current value (decays twice at StepLR's boundaries).
            "def collect_lrs(optimizer, scheduler, steps):\n"
            "    lrs = []\n"
            "    for _ in range(steps):\n"
            "        lrs.append(scheduler.get_lr()[0])\n"
            "        optimizer.step()\n"
            "        scheduler.step()\n"
            "    return lrs\n",
            # The starting value plus one value after every step: steps + 1 values.
            "def collect_lrs(optimizer, scheduler, steps):\n"
            "    lrs = [optimizer.param_groups[0]['lr']]\n"
            "    for _ in range(steps):\n"
            "        optimizer.step()\n"
            "        scheduler.step()\n"
            "        lrs.append(optimizer.param_groups[0]['lr'])\n"
            "    return lrs\n",
            # The optimizer's default lr never changes: the scheduler writes into param_groups.
            "def collect_lrs(optimizer, scheduler, steps):\n"
            "    lrs = []\n"
            "    for _ in range(steps):\n"
            "        lrs.append(optimizer.defaults['lr'])\n"
            "        optimizer.step()\n"
            "        scheduler.step()\n"
            "    return lrs\n",
            # scheduler.step() before optimizer.step(): the list is right, but each step used the next value.
            "def collect_lrs(optimizer, scheduler, steps):\n"
            "    lrs = []\n"
            "    for _ in range(steps):\n"
            "        lrs.append(optimizer.param_groups[0]['lr'])\n"
            "        scheduler.step()\n"
            "        optimizer.step()\n"
            "    return lrs\n",
        ],
        "boundaries": [
            # The first rate read before the loop, then steps - 1 steps: the list is right for steps >= 1, but one
            # optimizer.step() is missing, and steps=0 still gives one value.
            "def collect_lrs(optimizer, scheduler, steps):\n"
            "    lrs = [optimizer.param_groups[0]['lr']]\n"
            "    for _ in range(steps - 1):\n"
            "        optimizer.step()\n"
            "        scheduler.step()\n"
            "        lrs.append(optimizer.param_groups[0]['lr'])\n"
            "    return lrs\n",
            # A loop that tests its count after the step (do ... while): right for steps >= 1, one step for steps=0.
            "def collect_lrs(optimizer, scheduler, steps):\n"
            "    lrs = []\n"
            "    while True:\n"
            "        lrs.append(optimizer.param_groups[0]['lr'])\n"
            "        optimizer.step()\n"
            "        scheduler.step()\n"
            "        if len(lrs) >= steps:\n"
            "            return lrs\n",
        ],
    },
}

RIGHT = {
    "classification-loss": {
        "values": [
            "def classification_loss(logits, targets):\n    return nn.CrossEntropyLoss()(logits, targets)\n",
        ],
        "logits": [
            "def classification_loss(logits, targets):\n    return F.nll_loss(F.log_softmax(logits, dim=1), targets)\n",
        ],
        "stability": [
            "def classification_loss(logits, targets):\n"
            "    picked = logits.gather(1, targets.unsqueeze(1)).squeeze(1)  # (B,)\n"
            "    return (torch.logsumexp(logits, dim=1) - picked).mean()\n",
            "def classification_loss(logits, targets):\n"
            "    shifted = logits - logits.max(dim=1, keepdim=True).values\n"
            "    log_p = shifted - shifted.exp().sum(dim=1, keepdim=True).log()\n"
            "    return -log_p[torch.arange(logits.shape[0]), targets].sum() / logits.shape[0]\n",
        ],
        "shapes": [
            # Per-example losses, then their mean.
            "def classification_loss(logits, targets):\n    return F.cross_entropy(logits, targets, reduction='none').mean()\n",
        ],
    },
    "stable-bce": {
        "values": [
            "def stable_bce_with_logits(z, y):\n    return (F.softplus(z) - y * z).mean()\n",
        ],
        "stability": [
            "def stable_bce_with_logits(z, y):\n    return (torch.logaddexp(torch.zeros_like(z), z) - y * z).mean()\n",
            # log(1 + u) instead of log1p(u): less accurate for tiny u, but still stable; max(z, 0) as (z + |z|) / 2.
            "def stable_bce_with_logits(z, y):\n"
            "    return ((z + z.abs()) / 2 - y * z + torch.log(1 + torch.exp(-z.abs()))).mean()\n",
        ],
        "boundaries": [
            # Split by sign with z >= 0 on one side and z < 0 on the other: every element in exactly one branch.
            "def stable_bce_with_logits(z, y):\n"
            "    out = torch.zeros_like(z)\n"
            "    pos, neg = z >= 0, z < 0\n"
            "    out[pos] = z[pos] * (1 - y[pos]) + torch.log1p(torch.exp(-z[pos]))\n"
            "    out[neg] = -z[neg] * y[neg] + torch.log1p(torch.exp(z[neg]))\n"
            "    return out.mean()\n",
        ],
        "logits": [
            "def stable_bce_with_logits(z, y):\n    return F.binary_cross_entropy_with_logits(z, y)\n",
            # y * softplus(-z) + (1 - y) * softplus(z): the two log-sigmoid terms, both stable.
            "def stable_bce_with_logits(z, y):\n"
            "    return (y * F.softplus(-z) + (1 - y) * F.softplus(z)).mean()\n",
        ],
        "shapes": [
            # The sum over every element divided by their number.
            "def stable_bce_with_logits(z, y):\n"
            "    return (F.softplus(z) - y * z).sum() / z.numel()\n",
        ],
    },
    "sgd-momentum": {
        "values": [
            # In place, the way torch.optim does it (grad itself is only read).
            "def sgd_momentum_step(param, grad, velocity, lr, momentum):\n"
            "    velocity.mul_(momentum).add_(grad)\n"
            "    param.add_(velocity, alpha=-lr)\n"
            "    return param, velocity\n",
            "def sgd_momentum_step(param, grad, velocity, lr, momentum):\n"
            "    new_velocity = torch.add(grad, velocity, alpha=momentum)\n"
            "    return torch.sub(param, new_velocity, alpha=lr), new_velocity\n",
        ],
    },
    "adam-step": {
        "values": [
            # torch.optim.Adam's own arrangement of the arithmetic.
            "import math\n"
            "def adam_step(param, grad, m, v, t, lr, betas, eps):\n"
            "    beta1, beta2 = betas\n"
            "    m = m * beta1 + grad * (1 - beta1)\n"
            "    v = v * beta2 + grad * grad * (1 - beta2)\n"
            "    step_size = lr / (1 - beta1 ** t)\n"
            "    denom = v.sqrt() / math.sqrt(1 - beta2 ** t) + eps\n"
            "    return param - step_size * m / denom, m, v\n",
        ],
        "stability": [
            # In place, with lerp and addcmul; eps added to the root before dividing.
            "def adam_step(param, grad, m, v, t, lr, betas, eps):\n"
            "    m.lerp_(grad, 1 - betas[0])\n"
            "    v.mul_(betas[1]).addcmul_(grad, grad, value=1 - betas[1])\n"
            "    m_hat = m / (1 - betas[0] ** t)\n"
            "    v_hat = v / (1 - betas[1] ** t)\n"
            "    param.addcdiv_(m_hat, v_hat.sqrt().add(eps), value=-lr)\n"
            "    return param, m, v\n",
        ],
    },
    "collect-lrs": {
        "values": [
            "def collect_lrs(optimizer, scheduler, steps):\n"
            "    lrs = []\n"
            "    for _ in range(steps):\n"
            "        lrs.append(scheduler.get_last_lr()[0])\n"
            "        optimizer.step()\n"
            "        scheduler.step()\n"
            "    return lrs\n",
            "def collect_lrs(optimizer, scheduler, steps):\n"
            "    def one_step():\n"
            "        lr = float(optimizer.param_groups[0]['lr'])\n"
            "        optimizer.step()\n"
            "        scheduler.step()\n"
            "        return lr\n"
            "    return [one_step() for _ in range(steps)]\n",
            # The training loop's habits: zero_grad() before each step (there are no gradients, so it changes nothing),
            # and a tuple of the rates.
            "def collect_lrs(optimizer, scheduler, steps):\n"
            "    lrs = []\n"
            "    for _ in range(steps):\n"
            "        optimizer.zero_grad()\n"
            "        lrs.append(optimizer.param_groups[0]['lr'])\n"
            "        optimizer.step()\n"
            "        scheduler.step()\n"
            "    return tuple(lrs)\n",
        ],
        "boundaries": [
            # A while loop that tests its count before each step: no step at all for steps=0.
            "def collect_lrs(optimizer, scheduler, steps):\n"
            "    lrs = []\n"
            "    while len(lrs) < steps:\n"
            "        lrs.append(optimizer.param_groups[0]['lr'])\n"
            "        optimizer.step()\n"
            "        scheduler.step()\n"
            "    return lrs\n",
        ],
    },
}

NOT_TESTED = {
    "classification-loss": {
        "aggregation": "the loss of one batch: there are no batches or epochs to aggregate. Its mean over the examples "
                       "is checked by the values row (a sum instead of the mean) and the shapes row (one loss per example).",
    },
    "stable-bce": {
        "aggregation": "the loss of one batch: there are no batches or epochs to aggregate. Its mean over every element "
                       "is checked by the values row (a sum) and the shapes row (divided by len(z), a mean over the last "
                       "dimension only).",
    },
}
