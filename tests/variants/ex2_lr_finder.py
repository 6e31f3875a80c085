"""Other answers for exercise 2, the learning-rate finder (see autograder/authoring/variants.py)."""

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


def _sweep(save=_DEEP_SAVE, restore=_RESTORE_BOTH, stop=_STOP, edits=()):
    """The sweep above with its placeholders filled in, then each (old, new) edit applied once."""
    source = _SWEEP.replace("SAVE", save).replace("RESTORE", restore).replace("STOP", stop)
    for old, new in edits:
        assert source.count(old) == 1, f"variant edit does not apply exactly once: {old!r}"
        source = source.replace(old, new)
    return source


def _schedule(body):
    return "def lr_schedule(start, end, steps):\n" + body


def _smooth(body):
    return "def smooth(losses, beta=0.9):\n" + body


def _suggestion(optimizer="torch.optim.Adam(model.parameters(), lr=1e-3)", seed_line="    set_seed(seed)\n",
                generator="torch.Generator().manual_seed(seed)", sweep_device="device", result="suggest_lr(lrs, losses)"):
    return ("def mnist_suggestion(x, y, device, seed=0, steps=300, batch_size=64):\n" + seed_line
            + f"    model = MNISTModel().to(device)\n    optimizer = {optimizer}\n"
            f"    batches = InMemoryBatches(x, y, batch_size=batch_size, generator={generator})\n"
            f"    lrs, losses = lr_range_test(model, optimizer, batches, nn.CrossEntropyLoss(), {sweep_device}, steps=steps)\n"
            f"    return {result}, lrs, losses\n")


def _runs(seed_first="    set_seed(0)\n", seed_once="", lr_second="1e-3"):
    return ("runs = {}\n" + seed_once
            + f"for name, lr in [('suggested', suggested_lr), ('Adam 1e-3', {lr_second})]:\n" + seed_first
            + "    net = MNISTModel().to(device)\n"
            "    runs[f'{name}, seed 0'] = fit(net, (x_tr, y_tr), (x_val, y_val), epochs=2,\n"
            "                                  optimizer=torch.optim.Adam(net.parameters(), lr=lr), device=device, seed=0)\n")


WRONG = {
    "lr-schedule": {
        "values": [
            # Linear spacing: the same amount added each step.
            _schedule("    return torch.linspace(start, end, steps)\n"),
            # Off by one: `steps` ratios, so the end is never reached.
            _schedule("    r = (end / start) ** (1 / steps)\n"
                      "    return torch.tensor([start * r ** k for k in range(steps)])\n"),
            # The ratio rounded "to keep the numbers tidy": every rate after the first drifts from the geometric sequence.
            _schedule("    r = round((end / start) ** (1 / (steps - 1)), 2)\n"
                      "    return [start * r ** k for k in range(steps)]\n"),
        ],
        "shapes": [
            # Off by one the other way: steps + 1 values.
            _schedule("    return torch.logspace(math.log10(start), math.log10(end), steps + 1)\n"),
            # range(1, steps): the first rate is start * r, and there are only steps - 1 of them.
            _schedule("    r = (end / start) ** (1 / (steps - 1))\n"
                      "    return [start * r ** k for k in range(1, steps)]\n"),
        ],
        "boundaries": [
            # A guard off by one: it rejects steps=2, the shortest schedule (its two ends), which is allowed.
            _schedule("    if steps <= 2:\n        raise ValueError('a schedule needs at least two steps')\n"
                      "    return torch.logspace(math.log10(start), math.log10(end), steps, dtype=torch.float64)\n"),
            # Equal ends "have nothing to sweep": one rate instead of `steps` equal ones.
            _schedule("    if start == end:\n        return [start]\n"
                      "    return torch.logspace(math.log10(start), math.log10(end), steps, dtype=torch.float64)\n"),
        ],
    },
    "smooth": {
        "values": [
            # No bias correction: the first values are pulled towards zero.
            _smooth("    avg, out = 0.0, []\n    for loss in losses:\n"
                    "        avg = beta * avg + (1 - beta) * float(loss)\n        out.append(avg)\n    return out\n"),
            # Weights swapped: beta on the new loss, so almost no smoothing.
            _smooth("    avg, out = 0.0, []\n    for t, loss in enumerate(losses, 1):\n"
                    "        avg = (1 - beta) * avg + beta * float(loss)\n        out.append(avg / (1 - (1 - beta) ** t))\n"
                    "    return out\n"),
            # The smoothed values written over the losses it was given (a list changes under the caller's feet).
            _smooth("    avg = 0.0\n    for t in range(1, len(losses) + 1):\n"
                    "        avg = beta * avg + (1 - beta) * float(losses[t - 1])\n        losses[t - 1] = avg / (1 - beta ** t)\n"
                    "    return [float(v) for v in losses]\n"),
            # A default beta of its own: right whenever beta is given.
            "def smooth(losses, beta=0.98):\n"
            "    avg, out = 0.0, []\n    for t, loss in enumerate(losses, start=1):\n"
            "        avg = beta * avg + (1 - beta) * float(loss)\n        out.append(avg / (1 - beta ** t))\n    return out\n",
        ],
        "stability": [
            # The closed form beta**t * cumsum(beta**-k * loss_k) in float32: beta**-k overflows after ~850 steps.
            _smooth("    x = torch.tensor([float(v) for v in losses])\n"
                    "    t = torch.arange(1, len(x) + 1, dtype=torch.float32)\n"
                    "    avg = (1 - beta) * beta ** t * torch.cumsum(beta ** -t * x, dim=0)\n"
                    "    return (avg / (1 - beta ** t)).tolist()\n"),
        ],
        "boundaries": [
            # Starts from the first loss (its own bias-corrected value): right for one loss or more, IndexError for none.
            _smooth("    values = [float(v) for v in losses]\n    avg, out = (1 - beta) * values[0], [values[0]]\n"
                    "    for t, v in enumerate(values[1:], start=2):\n"
                    "        avg = beta * avg + (1 - beta) * v\n        out.append(avg / (1 - beta ** t))\n"
                    "    return out\n"),
        ],
    },
    "lr-range-test": {
        "values": [
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
            # Sets the rate of the first parameter group only: the other groups keep their own rate.
            _sweep(edits=[('            for g in optimizer.param_groups:\n                g["lr"] = rates[t]\n',
                           '            optimizer.param_groups[0]["lr"] = rates[t]\n')]),
            # Saves and restores the parameters only: BatchNorm's running statistics (buffers) keep the sweep's values.
            _sweep(save="m0 = [p.detach().clone() for p in model.parameters()]; o0 = copy.deepcopy(optimizer.state_dict())",
                   restore="[p.data.copy_(q) for p, q in zip(model.parameters(), m0)]; optimizer.load_state_dict(o0)"),
            # 4 written in instead of the diverge_factor it was given.
            _sweep(stop="not math.isfinite(losses[-1]) or losses[-1] > 4.0 * best"),
            # The batches taken by index (batches[k % len(batches)]): fine for a list, but `batches` is any iterable
            # with a length, and one that cannot be indexed fails.
            _sweep(edits=[("        for x, y in batches:\n", "        for k in range(len(batches)):\n            x, y = batches[k]\n")]),
            # The raw loss compared with the limit instead of the smoothed one: one noisy step stops the sweep.
            _sweep(edits=[("            avg = beta * avg + (1 - beta) * loss.item()\n",
                           "            avg = beta * avg + (1 - beta) * loss.item()\n            raw = loss.item()\n")],
                   stop="not math.isfinite(raw) or raw > diverge_factor * best"),
        ],
        "boundaries": [
            # >= for "exceeds": a smoothed loss exactly diverge_factor times the best one stops the sweep.
            _sweep(stop="not math.isfinite(losses[-1]) or losses[-1] >= diverge_factor * best"),
            # No best loss before the first step, so the test starts at the second: a NaN at step 1 goes by.
            _sweep(stop="t > 1 and (not math.isfinite(losses[-1]) or losses[-1] > diverge_factor * best)"),
            # One step short: the loop stops before the last rate, `end`, is ever used.
            _sweep(edits=[("    while t < steps:\n", "    while t < steps - 1:\n"),
                          ("            if t == steps:\n", "            if t == steps - 1:\n")]),
        ],
        "aggregation": [
            # The bias correction counts the steps of the current pass only: k starts again at 1 with each pass.
            _sweep(edits=[("        for x, y in batches:\n", "        for k, (x, y) in enumerate(batches, start=1):\n"),
                          ("losses.append(avg / (1 - beta ** t))", "losses.append(avg / (1 - beta ** k))")]),
            # The plain mean of every loss so far instead of the exponential moving average.
            _sweep(edits=[("avg = beta * avg + (1 - beta) * loss.item()", "avg = avg + loss.item()"),
                          ("losses.append(avg / (1 - beta ** t))", "losses.append(avg / t)")]),
        ],
        "provenance": [
            # A fresh iterator at every step: next(iter(batches)) is always the first batch.
            _sweep(edits=[("        for x, y in batches:\n", "        for _ in batches:\n            x, y = next(iter(batches))\n")]),
        ],
        "device": [
            # Never moves the batches to `device`: right only while model and data are both on the CPU.
            _sweep(edits=[("model(x.to(device)), y.to(device)", "model(x), y")]),
        ],
        "modes": [
            # No model.train(): a model handed over in eval() mode is swept with dropout off.
            _sweep(edits=[("    model.train()\n", "")]),
        ],
        "grad": [
            # No zero_grad: every step's gradient includes all the earlier ones.
            _sweep(edits=[("            optimizer.zero_grad()\n", "")]),
            # The smoothed loss is built from the loss tensor, not loss.item(): every step's graph is kept alive.
            _sweep(edits=[("(1 - beta) * loss.item()", "(1 - beta) * loss")]),
        ],
        "stability": [
            # No test for NaN: `nan > 4 * best` is False, so a sweep whose loss turned NaN runs on to the end.
            _sweep(stop="losses[-1] > diverge_factor * best"),
        ],
        "nesting": [
            # Every tensor of the optimizer's state dict cloned, one level deep: its tensors sit a level further down
            # (state -> parameter -> exp_avg), so Adam's moments are kept by reference and change with the sweep.
            _sweep(save="m0 = copy.deepcopy(model.state_dict()); "
                        "o0 = {k: (v.clone() if torch.is_tensor(v) else v) for k, v in optimizer.state_dict().items()}"),
            # A shallow copy of the optimizer's state dict: a new outer dict around the same per-parameter states.
            _sweep(save="m0 = copy.deepcopy(model.state_dict()); o0 = copy.copy(optimizer.state_dict())"),
        ],
    },
    "suggest-lr": {
        "values": [
            # The rate at the minimum itself: too high.
            "def suggest_lr(lrs, losses):\n    k = min(range(len(losses)), key=lambda i: float(losses[i]))\n    return float(lrs[k])\n",
            # argmin on a tensor: a nan at the end wins.
            "def suggest_lr(lrs, losses):\n    k = torch.as_tensor(losses).argmin()\n    return float(lrs[int(k)]) / 10\n",
            # Skips inf but not nan.
            "def suggest_lr(lrs, losses):\n"
            "    kept = [(float(loss), float(lr)) for lr, loss in zip(lrs, losses) if float(loss) != float('inf')]\n"
            "    k = torch.tensor([loss for loss, _ in kept]).argmin()\n"
            "    return kept[int(k)][1] / 10\n",
            # Skips nan and inf but not -inf, which is not finite either: a curve with a -inf point suggests its rate.
            "def suggest_lr(lrs, losses):\n"
            "    kept = [(float(loss), float(lr)) for lr, loss in zip(lrs, losses)\n"
            "            if not math.isnan(float(loss)) and float(loss) != math.inf]\n"
            "    return min(kept)[1] / 10\n",
            # The position of the minimum among the finite losses used as a position among all the rates: wrong as soon
            # as a point that is not finite comes before the minimum.
            "def suggest_lr(lrs, losses):\n"
            "    finite = [float(v) for v in losses if math.isfinite(float(v))]\n"
            "    return float(lrs[finite.index(min(finite))]) / 10\n",
        ],
        "boundaries": [
            # Always drops the last point (where a diverged sweep ends) instead of the points that are not finite: wrong
            # when the curve is lowest at its end, and nothing is left of a curve of one point.
            "def suggest_lr(lrs, losses):\n"
            "    pairs = [(float(loss), float(lr)) for lr, loss in zip(lrs, losses)][:-1]\n"
            "    return min(p for p in pairs if math.isfinite(p[0]))[1] / 10\n",
        ],
    },
    "mnist-suggestion": {
        "values": [
            # Plain SGD instead of Adam: its range is an order of magnitude higher.
            _suggestion(optimizer="torch.optim.SGD(model.parameters(), lr=1e-3)"),
            # The lowest loss's rate taken as the suggestion (the rule's division by 10 dropped).
            _suggestion(result="10 * suggest_lr(lrs, losses)"),
            # Sweeps the notebook's whole training file instead of the x and y it was given (the visible check passes x_tr).
            _suggestion().replace("InMemoryBatches(x, y,", "InMemoryBatches(x_train, y_train,"),
            # The batch size written in: right only for the default of 64.
            _suggestion().replace("batch_size=batch_size,", "batch_size=64,"),
        ],
        "device": [
            # Sweeps on the data's device (x.device) instead of the device it was given.
            _suggestion(sweep_device="x.device"),
        ],
        "randomness": [
            # Never seeded: the initial weights come from whatever state the global generator is in.
            _suggestion(seed_line=""),
            # A fixed seed: every seed gives the same sweep.
            _suggestion(seed_line="    set_seed(0)\n", generator="torch.Generator().manual_seed(0)"),
        ],
    },
    "compare-runs": {
        "values": [
            # Both runs at 1e-3: the suggestion is never used.
            _runs().replace("('suggested', suggested_lr)", "('suggested', 1e-3)"),
            # (Two randomness mistakes, filed here since the cell is top-level code: no function to give a seed, so
            # the class's probes, testing.reproducibility and loader_generator, cannot apply; the values of the 1e-3
            # run's history show both.)
            # Seeded once before both runs: the second model starts from other weights than the first.
            _runs(seed_first="", seed_once="set_seed(0)\n"),
            # Never seeded: neither run starts from the seed-0 weights.
            _runs(seed_first=""),
        ],
        "provenance": [
            # Measured on the training images: the val_* figures come from the data the model was trained on.
            _runs().replace("(x_val, y_val)", "(x_tr, y_tr)"),
        ],
        "leakage": [
            # Trained on the whole training file: the validation images the runs are compared on are among the training data.
            _runs().replace("fit(net, (x_tr, y_tr),", "fit(net, (x_train, y_train),"),
            # Measured on the test images after every epoch: the rate would be chosen on the test set.
            "from coursekit.data import load_split\n" + _runs().replace("(x_val, y_val)", "load_split('mnist', 'test')"),
        ],
    },
}

RIGHT = {
    "lr-schedule": {
        "values": [
            _schedule("    return torch.logspace(math.log10(start), math.log10(end), steps)\n"),
            # NumPy's geometric spacing, as a list of floats.
            _schedule("    import numpy as np\n    return np.geomspace(start, end, steps).tolist()\n"),
            # Evenly spaced natural logarithms, exponentiated.
            _schedule("    return torch.linspace(math.log(start), math.log(end), steps, dtype=torch.float64).exp()\n"),
        ],
        "shapes": [
            # A list built by multiplying, one value per step.
            _schedule("    rates = [start]\n    for _ in range(steps - 1):\n"
                      "        rates.append(rates[-1] * (end / start) ** (1 / (steps - 1)))\n    return rates\n"),
        ],
        "boundaries": [
            # The guard at its right place: fewer than two steps cannot hold both ends.
            _schedule("    if steps < 2:\n        raise ValueError('a schedule needs at least two steps')\n"
                      "    return [start * (end / start) ** (k / (steps - 1)) for k in range(steps)]\n"),
        ],
    },
    "smooth": {
        "values": [
            _smooth("    values = torch.as_tensor(losses, dtype=torch.float64).flatten()\n"
                    "    t = torch.arange(1, len(values) + 1, dtype=torch.float64)\n"
                    "    avg, out = torch.zeros((), dtype=torch.float64), []\n"
                    "    for v in values:\n        avg = avg * beta + v * (1 - beta)\n        out.append(avg.clone())\n"
                    "    return (torch.stack(out) / (1 - beta ** t)).tolist() if out else []\n"),
        ],
        "stability": [
            # Vectorised with the weights beta**(t - k) for k <= t, which never exceed 1.
            _smooth("    x = torch.tensor([float(v) for v in losses], dtype=torch.float64)\n"
                    "    t = torch.arange(1, len(x) + 1, dtype=torch.float64)\n"
                    "    lag = t[:, None] - t[None, :]                                   # (n, n)\n"
                    "    weights = torch.where(lag >= 0, (1 - beta) * beta ** lag.clamp_min(0), torch.zeros(()))\n"
                    "    return ((weights @ x) / (1 - beta ** t)).tolist()\n"),
        ],
        "boundaries": [
            # itertools.accumulate from avg = 0: no losses give no values without a special case.
            _smooth("    from itertools import accumulate\n"
                    "    avgs = list(accumulate((float(v) for v in losses), lambda avg, v: beta * avg + (1 - beta) * v,\n"
                    "                           initial=0.0))[1:]\n"
                    "    return [avg / (1 - beta ** t) for t, avg in enumerate(avgs, start=1)]\n"),
        ],
    },
    "lr-range-test": {
        "values": [
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
        "nesting": [
            # A copy that walks the optimizer's state dict to any depth and clones every tensor in it.
            "def _cloned(value):\n"
            "    if torch.is_tensor(value):\n        return value.detach().clone()\n"
            "    if isinstance(value, dict):\n        return {k: _cloned(v) for k, v in value.items()}\n"
            "    if isinstance(value, (list, tuple)):\n        return type(value)(_cloned(v) for v in value)\n"
            "    return value\n"
            + _sweep(save="m0 = _cloned(model.state_dict()); o0 = _cloned(optimizer.state_dict())"),
            # Each entry of the optimizer's state deep-copied on its own.
            _sweep(save="m0 = copy.deepcopy(model.state_dict()); "
                        "o0 = {k: copy.deepcopy(v) for k, v in optimizer.state_dict().items()}"),
        ],
        "device": [
            # non_blocking copies to the device given.
            _sweep(edits=[("model(x.to(device)), y.to(device)",
                           "model(x.to(device, non_blocking=True)), y.to(device=device, non_blocking=True)")]),
        ],
        "modes": [
            # train(True) for the sweep, and the model's own mode put back afterwards.
            _sweep(restore="model.load_state_dict(m0); optimizer.load_state_dict(o0); model.train(was_training)",
                   edits=[("    model.train()\n", "    was_training = model.training\n    model.train(True)\n")]),
        ],
        "grad": [
            # Gradients zeroed through the model, kept as zero tensors rather than None.
            _sweep(edits=[("            optimizer.zero_grad()\n", "            model.zero_grad(set_to_none=False)\n")]),
        ],
        "stability": [
            # isnan and isinf spelt out instead of isfinite.
            _sweep(stop="math.isnan(losses[-1]) or math.isinf(losses[-1]) or losses[-1] > diverge_factor * best"),
        ],
        "boundaries": [
            # zip over the schedule and itertools.cycle: exactly `steps` steps, `end` the last rate; the comparison
            # written the other way round, still strict.
            "def lr_range_test(model, optimizer, batches, loss_fn, device, start=1e-7, end=1.0, steps=None, beta=0.9,\n"
            "                  diverge_factor=4.0):\n"
            "    import itertools\n"
            "    steps = len(batches) if steps is None else steps\n"
            "    m0, o0 = copy.deepcopy(model.state_dict()), copy.deepcopy(optimizer.state_dict())\n"
            "    lrs, losses, avg, best = [], [], 0.0, math.inf\n"
            "    model.train()\n"
            "    try:\n"
            "        schedule = [float(r) for r in lr_schedule(start, end, steps)]\n"
            "        for t, (lr, (x, y)) in enumerate(zip(schedule, itertools.cycle(batches)), start=1):\n"
            "            for group in optimizer.param_groups:\n                group['lr'] = lr\n"
            "            optimizer.zero_grad()\n"
            "            loss = loss_fn(model(x.to(device)), y.to(device))\n"
            "            loss.backward()\n            optimizer.step()\n"
            "            avg = beta * avg + (1 - beta) * loss.item()\n"
            "            lrs.append(lr)\n            losses.append(avg / (1 - beta ** t))\n"
            "            if math.isnan(losses[-1]) or math.isinf(losses[-1]) or diverge_factor * best < losses[-1]:\n"
            "                break\n"
            "            best = min(best, losses[-1])\n"
            "    finally:\n"
            "        model.load_state_dict(m0)\n        optimizer.load_state_dict(o0)\n"
            "    return lrs, losses\n",
        ],
        "aggregation": [
            # The raw losses kept, the notebook's smooth() applied to all of them after each step; nested loops with
            # one step count over all passes.
            "def lr_range_test(model, optimizer, batches, loss_fn, device, start=1e-7, end=1.0, steps=None, beta=0.9,\n"
            "                  diverge_factor=4.0):\n"
            "    steps = len(batches) if steps is None else steps\n"
            "    saved = copy.deepcopy((model.state_dict(), optimizer.state_dict()))\n"
            "    rates = [float(r) for r in lr_schedule(start, end, steps)]\n"
            "    raw, lrs, losses = [], [], []\n"
            "    model.train()\n"
            "    try:\n"
            "        while len(raw) < steps:\n"
            "            for x, y in batches:\n"
            "                if len(raw) == steps:\n                    break\n"
            "                for group in optimizer.param_groups:\n                    group['lr'] = rates[len(raw)]\n"
            "                optimizer.zero_grad()\n"
            "                loss = loss_fn(model(x.to(device)), y.to(device))\n"
            "                loss.backward()\n                optimizer.step()\n"
            "                lrs.append(rates[len(raw)])\n                raw.append(loss.item())\n"
            "                losses.append(smooth(raw, beta)[-1])\n"
            "                if not math.isfinite(losses[-1]) or losses[-1] > diverge_factor * min(losses[:-1], default=math.inf):\n"
            "                    return lrs, losses\n"
            "        return lrs, losses\n"
            "    finally:\n"
            "        model.load_state_dict(saved[0])\n        optimizer.load_state_dict(saved[1])\n",
        ],
        "provenance": [
            # One iterator, started again when it runs out; the schedule as a tensor, each rate taken with .item().
            "def lr_range_test(model, optimizer, batches, loss_fn, device, start=1e-7, end=1.0, steps=None, beta=0.9,\n"
            "                  diverge_factor=4.0):\n"
            "    steps = len(batches) if steps is None else steps\n"
            "    m0, o0 = copy.deepcopy(model.state_dict()), copy.deepcopy(optimizer.state_dict())\n"
            "    lrs, losses, avg, best = [], [], 0.0, math.inf\n"
            "    model.train()\n"
            "    it = iter(batches)\n"
            "    for t, lr in enumerate(torch.as_tensor(lr_schedule(start, end, steps), dtype=torch.float64), start=1):\n"
            "        try:\n            x, y = next(it)\n        except StopIteration:\n"
            "            it = iter(batches)\n            x, y = next(it)\n"
            "        for group in optimizer.param_groups:\n            group['lr'] = lr.item()\n"
            "        optimizer.zero_grad()\n"
            "        loss = loss_fn(model(x.to(device)), y.to(device))\n"
            "        loss.backward()\n        optimizer.step()\n"
            "        avg = beta * avg + (1 - beta) * loss.item()\n"
            "        lrs.append(lr.item())\n        losses.append(avg / (1 - beta ** t))\n"
            "        if not math.isfinite(losses[-1]) or losses[-1] > diverge_factor * best:\n            break\n"
            "        best = min(best, losses[-1])\n"
            "    model.load_state_dict(m0)\n    optimizer.load_state_dict(o0)\n"
            "    return lrs, losses\n",
        ],
    },
    "suggest-lr": {
        "values": [
            "def suggest_lr(lrs, losses):\n    l = torch.as_tensor([float(v) for v in losses], dtype=torch.float64)\n"
            "    l = torch.where(torch.isfinite(l), l, torch.full_like(l, float('inf')))\n"
            "    return float(lrs[int(l.argmin())]) / 10.0\n",
            # The finite points kept as (loss, rate) pairs and sorted.
            "def suggest_lr(lrs, losses):\n"
            "    pairs = sorted((float(loss), float(lr)) for lr, loss in zip(lrs, losses) if math.isfinite(float(loss)))\n"
            "    return pairs[0][1] * 0.1\n",
        ],
        "boundaries": [
            # A loop over every index that keeps the first strict minimum among the finite losses.
            "def suggest_lr(lrs, losses):\n    best = None\n"
            "    for k in range(len(losses)):\n"
            "        loss = float(losses[k])\n"
            "        if math.isfinite(loss) and (best is None or loss < float(losses[best])):\n            best = k\n"
            "    return float(lrs[best]) / 10\n",
        ],
    },
    "mnist-suggestion": {
        "values": [
            "def mnist_suggestion(x, y, device, seed=0, steps=300, batch_size=64):\n    set_seed(seed)\n"
            "    net = MNISTModel()\n    net.to(device)\n    adam = torch.optim.Adam(net.parameters())\n"
            "    data = InMemoryBatches(x, y, batch_size, generator=torch.Generator().manual_seed(seed))\n"
            "    rates, curve = lr_range_test(net, adam, data, loss_fn, device, steps=steps, start=1e-7, end=1.0)\n"
            "    return suggest_lr(rates, curve), rates, curve\n",
        ],
        "device": [
            # The device as a keyword, and as a torch.device whatever form it was given in.
            _suggestion(sweep_device="torch.device(device)").replace("MNISTModel().to(device)",
                                                                     "MNISTModel().to(device=torch.device(device))"),
        ],
        "randomness": [
            # The generator set_seed returns is the same as torch.Generator().manual_seed(seed).
            "def mnist_suggestion(x, y, device, seed=0, steps=300, batch_size=64):\n"
            "    generator = set_seed(seed)\n"
            "    model = MNISTModel().to(device)\n"
            "    batches = InMemoryBatches(x, y, batch_size=batch_size, generator=generator)\n"
            "    lrs, losses = lr_range_test(model, torch.optim.Adam(model.parameters(), lr=1e-3), batches,\n"
            "                                nn.CrossEntropyLoss(), device, steps=steps)\n"
            "    return suggest_lr(lrs, losses), lrs, losses\n",
        ],
    },
    "compare-runs": {
        "values": [
            # The two runs written out one after the other.
            "runs = {}\nset_seed(0)\nm1 = MNISTModel().to(device)\n"
            "h1 = fit(m1, (x_tr, y_tr), (x_val, y_val), epochs=2, optimizer=torch.optim.Adam(m1.parameters(), lr=suggested_lr),\n"
            "         device=device, seed=0, progress=False)\nset_seed(0)\nm2 = MNISTModel().to(device)\n"
            "h2 = fit(m2, (x_tr, y_tr), (x_val, y_val), epochs=2, optimizer=torch.optim.Adam(m2.parameters(), lr=1e-3),\n"
            "         device=device, seed=0, progress=False)\nruns.update({'suggested, seed 0': h1, 'Adam 1e-3, seed 0': h2})\n",
            # torch.manual_seed(0) does what set_seed(0) does for these runs; the rates from a dict.
            "runs = {}\nrates = {'suggested, seed 0': suggested_lr, 'Adam 1e-3, seed 0': 1e-3}\n"
            "for key in rates:\n"
            "    torch.manual_seed(0)\n"
            "    net = MNISTModel()\n    net = net.to(device)\n"
            "    runs[key] = fit(net, (x_tr, y_tr), (x_val, y_val), epochs=2, batch_size=64, seed=0,\n"
            "                    optimizer=torch.optim.Adam(net.parameters(), lr=rates[key]), device=device, progress=False)\n",
        ],
        "provenance": [
            # The data sets named once, passed to fit by keyword.
            _runs().replace("fit(net, (x_tr, y_tr), (x_val, y_val),",
                            "fit(net, train=(x_tr, y_tr), val=(x_val, y_val),"),
        ],
        "leakage": [
            # The data copied before each run: the same images in other tensors (the ledger knows them by content).
            _runs().replace("fit(net, (x_tr, y_tr), (x_val, y_val),",
                            "fit(net, (x_tr.clone(), y_tr.clone()), (x_val.clone(), y_val.clone()),"),
            # Each history copied into a dict of its own (the ledger finds a run by its figures too).
            _runs().replace("runs[f'{name}, seed 0'] = fit(", "runs[f'{name}, seed 0'] = dict(fit(")
                   .replace("device=device, seed=0)\n", "device=device, seed=0))\n"),
        ],
    },
}
