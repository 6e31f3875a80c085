"""Other answers for exercise 2, the learning-rate finder (see autograder/variants.py)."""

_SWEEP = '''
def lr_range_test(model, optimizer, batches, loss_fn, device, start=1e-7, end=1.0, steps=None, beta=0.9,
                  diverge_factor=4.0):
    steps = len(batches) if steps is None else steps
    SAVE
    lrs, losses, avg, best, t = [], [], 0.0, math.inf, 0
    rates = [float(r) for r in lr_schedule(start, end, steps)]
    model.train()
    while t < steps:
        for x, y in batches:
            if t == steps:
                break
            for g in optimizer.param_groups:
                g["lr"] = rates[t]
            optimizer.zero_grad()
            loss = loss_fn(model(x.to(device)), y.to(device))
            loss.backward()
            optimizer.step()
            t += 1
            avg = beta * avg + (1 - beta) * loss.item()
            lrs.append(rates[t - 1])
            losses.append(avg / (1 - beta ** t))
            if STOP:
                RESTORE
                return lrs, losses
            best = min(best, losses[-1])
    RESTORE
    return lrs, losses
'''
_DEEP_SAVE = "m0, o0 = copy.deepcopy(model.state_dict()), copy.deepcopy(optimizer.state_dict())"
_RESTORE_BOTH = "model.load_state_dict(m0); optimizer.load_state_dict(o0)"
_STOP = "not math.isfinite(losses[-1]) or losses[-1] > diverge_factor * best"


def _sweep(save=_DEEP_SAVE, restore=_RESTORE_BOTH, stop=_STOP):
    return _SWEEP.replace("SAVE", save).replace("RESTORE", restore).replace("STOP", stop)


WRONG = {
    "lr-schedule": [
        # Linear spacing: the same amount added each step.
        "def lr_schedule(start, end, steps):\n    return torch.linspace(start, end, steps)\n",
        # Off by one: `steps` ratios, so the end is never reached.
        "def lr_schedule(start, end, steps):\n    r = (end / start) ** (1 / steps)\n"
        "    return torch.tensor([start * r ** k for k in range(steps)])\n",
        # Off by one the other way: steps + 1 values.
        "def lr_schedule(start, end, steps):\n"
        "    return torch.logspace(math.log10(start), math.log10(end), steps + 1)\n",
    ],
    "smooth": [
        # No bias correction: the first values are pulled towards zero.
        "def smooth(losses, beta=0.9):\n    avg, out = 0.0, []\n    for loss in losses:\n"
        "        avg = beta * avg + (1 - beta) * float(loss)\n        out.append(avg)\n    return out\n",
        # Weights swapped: beta on the new loss, so almost no smoothing.
        "def smooth(losses, beta=0.9):\n    avg, out = 0.0, []\n    for t, loss in enumerate(losses, 1):\n"
        "        avg = (1 - beta) * avg + beta * float(loss)\n        out.append(avg / (1 - (1 - beta) ** t))\n    return out\n",
    ],
    "lr-range-test": [
        # No divergence stop: the sweep always runs to the end.
        _sweep(stop="False"),
        # Only the model is restored: Adam keeps the sweep's step count and moments.
        _sweep(restore="model.load_state_dict(m0)"),
        # "Saved" by reference: state_dict() without a copy changes along with the training.
        _sweep(save="m0, o0 = model.state_dict(), optimizer.state_dict()"),
        # Model copied, optimizer's state dict by reference (its tensors are updated in place).
        _sweep(save="m0, o0 = copy.deepcopy(model.state_dict()), optimizer.state_dict()"),
        # Restores only at the end of a full sweep, not when it stops early.
        _sweep(restore="pass").replace("    pass\n    return lrs, losses\n",
                                       "    model.load_state_dict(m0); optimizer.load_state_dict(o0)\n    return lrs, losses\n"),
        # Compares the smoothed loss with 4 x the first loss instead of the best one: stops far too late.
        _sweep(stop="not math.isfinite(losses[-1]) or losses[-1] > diverge_factor * losses[0]"),
    ],
    "suggest-lr": [
        # The rate at the minimum itself: too high.
        "def suggest_lr(lrs, losses):\n    k = min(range(len(losses)), key=lambda i: float(losses[i]))\n    return float(lrs[k])\n",
        # argmin on a tensor: a nan at the end wins.
        "def suggest_lr(lrs, losses):\n    k = torch.as_tensor(losses).argmin()\n    return float(lrs[int(k)]) / 10\n",
    ],
    "mnist-suggestion": [
        # Plain SGD instead of Adam: its range is an order of magnitude higher.
        "def mnist_suggestion(x, y, device, seed=0, steps=300, batch_size=64):\n    set_seed(seed)\n"
        "    model = MNISTModel().to(device)\n    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)\n"
        "    batches = InMemoryBatches(x, y, batch_size=batch_size, generator=torch.Generator().manual_seed(seed))\n"
        "    lrs, losses = lr_range_test(model, optimizer, batches, nn.CrossEntropyLoss(), device, steps=steps)\n"
        "    return suggest_lr(lrs, losses), lrs, losses\n",
        # The lowest loss's rate taken as the suggestion (the rule's division by 10 dropped).
        "def mnist_suggestion(x, y, device, seed=0, steps=300, batch_size=64):\n    set_seed(seed)\n"
        "    model = MNISTModel().to(device)\n    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)\n"
        "    batches = InMemoryBatches(x, y, batch_size=batch_size, generator=torch.Generator().manual_seed(seed))\n"
        "    lrs, losses = lr_range_test(model, optimizer, batches, nn.CrossEntropyLoss(), device, steps=steps)\n"
        "    return 10 * suggest_lr(lrs, losses), lrs, losses\n",
    ],
    "compare-runs": [
        # Both runs at 1e-3: the suggestion is never used.
        "runs = {}\nfor name in ('suggested', 'Adam 1e-3'):\n    set_seed(0)\n    net = MNISTModel().to(device)\n"
        "    runs[f'{name}, seed 0'] = fit(net, (x_train, y_train), (x_test, y_test), epochs=2,\n"
        "                                  optimizer=torch.optim.Adam(net.parameters(), lr=1e-3), device=device, seed=0)\n",
    ],
}

RIGHT = {
    "lr-schedule": [
        "def lr_schedule(start, end, steps):\n    return torch.logspace(math.log10(start), math.log10(end), steps)\n",
        "def lr_schedule(start, end, steps):\n    rates = [start]\n    for _ in range(steps - 1):\n"
        "        rates.append(rates[-1] * (end / start) ** (1 / (steps - 1)))\n    return rates\n",
    ],
    "smooth": [
        "def smooth(losses, beta=0.9):\n    values = torch.as_tensor(losses, dtype=torch.float64).flatten()\n"
        "    t = torch.arange(1, len(values) + 1, dtype=torch.float64)\n    avg, out = torch.zeros((), dtype=torch.float64), []\n"
        "    for v in values:\n        avg = avg * beta + v * (1 - beta)\n        out.append(avg.clone())\n"
        "    return (torch.stack(out) / (1 - beta ** t)).tolist() if out else []\n",
    ],
    "lr-range-test": [
        # The loop written another way, state dicts copied tensor by tensor.
        _sweep(save="m0 = {k: v.detach().clone() for k, v in model.state_dict().items()}; "
                    "o0 = copy.deepcopy(optimizer.state_dict())"),
        # Sweep a deep copy of the model and its optimizer: the originals are never touched.
        "def lr_range_test(model, optimizer, batches, loss_fn, device, start=1e-7, end=1.0, steps=None, beta=0.9,\n"
        "                  diverge_factor=4.0):\n"
        "    memo = {}\n    net = copy.deepcopy(model, memo)\n    opt = copy.deepcopy(optimizer, memo)\n"
        "    steps = steps or len(batches)\n    rates = torch.logspace(math.log10(start), math.log10(end), steps).tolist()\n"
        "    lrs, raw = [], []\n    net.train()\n    data = iter(())\n"
        "    for lr in rates:\n        try:\n            x, y = next(data)\n        except StopIteration:\n"
        "            data = iter(batches)\n            x, y = next(data)\n"
        "        opt.param_groups[0]['lr'] = lr\n        for g in opt.param_groups:\n            g['lr'] = lr\n"
        "        opt.zero_grad()\n        loss = loss_fn(net(x.to(device)), y.to(device))\n        loss.backward()\n        opt.step()\n"
        "        lrs.append(lr)\n        raw.append(loss.item())\n        sm = smooth(raw, beta)\n"
        "        if not math.isfinite(sm[-1]) or sm[-1] > diverge_factor * min(sm[:-1], default=math.inf):\n            break\n"
        "    return lrs, smooth(raw, beta)\n",
    ],
    "suggest-lr": [
        "def suggest_lr(lrs, losses):\n    l = torch.as_tensor([float(v) for v in losses], dtype=torch.float64)\n"
        "    l = torch.where(torch.isfinite(l), l, torch.full_like(l, float('inf')))\n"
        "    return float(lrs[int(l.argmin())]) / 10.0\n",
    ],
    "mnist-suggestion": [
        "def mnist_suggestion(x, y, device, seed=0, steps=300, batch_size=64):\n    set_seed(seed)\n"
        "    net = MNISTModel()\n    net.to(device)\n    adam = torch.optim.Adam(net.parameters())\n"
        "    data = InMemoryBatches(x, y, batch_size, generator=torch.Generator().manual_seed(seed))\n"
        "    rates, curve = lr_range_test(net, adam, data, loss_fn, device, steps=steps, start=1e-7, end=1.0)\n"
        "    return suggest_lr(rates, curve), rates, curve\n",
    ],
    "compare-runs": [
        "runs = {}\nset_seed(0)\nm1 = MNISTModel().to(device)\n"
        "h1 = fit(m1, (x_train, y_train), (x_test, y_test), epochs=2, optimizer=torch.optim.Adam(m1.parameters(), lr=suggested_lr),\n"
        "         device=device, seed=0, progress=False)\nset_seed(0)\nm2 = MNISTModel().to(device)\n"
        "h2 = fit(m2, (x_train, y_train), (x_test, y_test), epochs=2, optimizer=torch.optim.Adam(m2.parameters(), lr=1e-3),\n"
        "         device=device, seed=0, progress=False)\nruns.update({'suggested, seed 0': h1, 'Adam 1e-3, seed 0': h2})\n",
    ],
}
