"""Other answers for exercise 3 (see autograder/authoring/variants.py).

The GPU-only cell amp-speedup-gpu-tests is a test cell, not a solution cell, so it has no variants here. A device type
'cpu' written into autocast, right by accident on a CPU, is caught on any machine by the autocast-device row: a model
and a batch on 'meta' make the solution's autocast raise, and the written-in one run on.
A mean instead of a median counts as WRONG in this exercise (the throughput tests include outliers).
"""

_SCALER = (
    "def make_scaler(device, dtype, enabled=True):\n"
    "    return torch.amp.GradScaler(torch.device(device).type, enabled=enabled and dtype == torch.float16)\n\n\n"
)

# The correct step most amp_step variants start from; each wrong one changes a line or two of it.
_STEP = (
    "def amp_step(model, x, y, optimizer, scaler, loss_fn, dtype=torch.float16, enabled=True):\n"
    "    optimizer.zero_grad()\n"
    "    with torch.autocast(device_type=x.device.type, dtype=dtype, enabled=enabled):\n"
    "        loss = loss_fn(model(x), y)\n"
    "    scaler.scale(loss).backward()\n"
    "    scaler.step(optimizer)\n"
    "    scaler.update()\n"
    "    return loss.detach()\n"
)


def _step_with(*edits: tuple[str, str]) -> str:
    """_SCALER plus _STEP with each (old, new) edit applied once."""
    source = _STEP
    for old, new in edits:
        assert source.count(old) == 1, f"variant edit does not apply exactly once: {old!r}"
        source = source.replace(old, new)
    return _SCALER + source


def _mlp(end="    return nn.Sequential(*layers, nn.Linear(size, classes))\n", width="    width = (width + 7) // 8 * 8\n",
         linear="nn.Linear(size, width)"):
    return ("def make_wide_mlp(width, depth, in_features, classes):\n" + width
            + "    layers, size = [], in_features\n"
            "    for _ in range(depth):\n"
            f"        layers += [{linear}, nn.ReLU()]\n"
            "        size = width\n" + end)


def _intensity(body):
    return "def arithmetic_intensity(batch, fan_in, fan_out, dtype):\n" + body


def _throughput(body):
    return "def throughput(step_fn, batch_size, device, warmup=3, repeats=7):\n" + body


_WARMUP = "    for _ in range(warmup):\n        step_fn()\n"

# The solution's three scaler lines, and the same lines run only when the scaler is enabled (several answers
# branch on it).
_SCALED_STEP = "    scaler.scale(loss).backward()\n    scaler.step(optimizer)\n    scaler.update()\n"
_SCALED_WHEN_ENABLED = ("    if scaler.is_enabled():\n        scaler.scale(loss).backward()\n        scaler.step(optimizer)\n"
                        "        scaler.update()\n    else:\n        loss.backward()\n")


WRONG = {
    "make-wide-mlp": {
        "values": [
            # Rounds the width down instead of up.
            _mlp(width="    width = width // 8 * 8\n"),
            # No activations: a stack of Linear layers is one linear map.
            "def make_wide_mlp(width, depth, in_features, classes):\n"
            "    width = (width + 7) // 8 * 8\n"
            "    sizes = [in_features] + [width] * depth + [classes]\n"
            "    return nn.Sequential(*[nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])])\n",
            # A ReLU after the output layer as well: the logits can no longer be negative.
            _mlp(end="    return nn.Sequential(*layers, nn.Linear(size, classes), nn.ReLU())\n"),
            # Linear layers without biases.
            _mlp(linear="nn.Linear(size, width, bias=False)"),
        ],
        "dtype": [
            # Converts the model to float16 by hand instead of leaving the casting to autocast.
            _mlp(end="    return nn.Sequential(*layers, nn.Linear(size, classes)).half()\n"),
            # bfloat16 weights "for the tensor cores": autocast would have made bfloat16 copies on its own.
            _mlp(linear="nn.Linear(size, width, dtype=torch.bfloat16)",
                 end="    return nn.Sequential(*layers, nn.Linear(size, classes, dtype=torch.bfloat16))\n"),
        ],
        "boundaries": [
            # "Round up" as round(width / 8 + 0.5): halves round to even, so 24 becomes 32 (the visible 64 stays 64).
            _mlp(width="    width = round(width / 8 + 0.5) * 8\n"),
            # Always to the next multiple: a width that is already a multiple of 8 grows by 8.
            _mlp(width="    width = (width // 8 + 1) * 8\n"),
        ],
        "logits": [
            # A Softmax on the output: probabilities, which CrossEntropyLoss would soften a second time.
            _mlp(end="    return nn.Sequential(*layers, nn.Linear(size, classes), nn.Softmax(dim=-1))\n"),
            # LogSoftmax on the output: log-probabilities, not raw scores.
            _mlp(end="    return nn.Sequential(*layers, nn.Linear(size, classes), nn.LogSoftmax(dim=1))\n"),
        ],
    },
    "arithmetic-intensity": {
        "values": [
            # Bits instead of bytes.
            _intensity("    flops = 2 * batch * fan_in * fan_out\n"
                       "    return float(flops / ((batch * fan_in + fan_in * fan_out + batch * fan_out) * torch.finfo(dtype).bits))\n"),
            # Forgets the weight: only the activations are counted as traffic.
            _intensity("    flops = 2 * batch * fan_in * fan_out\n"
                       "    return float(flops / ((batch * fan_in + batch * fan_out) * dtype.itemsize))\n"),
            # Assumes 4 bytes whatever the dtype (right for the float32 visible check only).
            _intensity("    flops = 2 * batch * fan_in * fan_out\n"
                       "    moved = (batch * fan_in + fan_in * fan_out + batch * fan_out) * (2 if dtype == torch.float16 else 4)\n"
                       "    return float(flops / moved)\n"),
            # One FLOP per multiply-add.
            _intensity("    return float(batch * fan_in * fan_out / ((batch * fan_in + fan_in * fan_out + batch * fan_out) * dtype.itemsize))\n"),
            # Floor division: the fraction of a FLOP per byte is lost.
            _intensity("    numbers = batch * fan_in + fan_in * fan_out + batch * fan_out\n"
                       "    return float(2 * batch * fan_in * fan_out // (numbers * dtype.itemsize))\n"),
        ],
    },
    "amp-step": {
        "values": [
            # A scaler for every 16-bit dtype: bfloat16 does not need one.
            "def make_scaler(device, dtype, enabled=True):\n"
            "    return torch.amp.GradScaler(torch.device(device).type, enabled=enabled and dtype != torch.float32)\n\n\n"
            + _STEP,
            # make_scaler ignores `enabled`: a float16 scaler even when AMP is switched off.
            "def make_scaler(device, dtype, enabled=True):\n"
            "    return torch.amp.GradScaler(torch.device(device).type, enabled=dtype == torch.float16)\n\n\n"
            + _STEP,
        ],
        "amp": [
            # scaler.step without scaler.scale(loss).backward(): the gradients are divided by a scale never applied.
            _step_with(("    scaler.scale(loss).backward()\n", "    scaler.scale(loss)\n    loss.backward()\n")),
            # Forgets scaler.update() (passes the one-step visible check).
            _step_with(("    scaler.update()\n", "")),
            # optimizer.step() directly with an enabled scaler: gradients 65536 times too large.
            _step_with(("    scaler.step(optimizer)\n", "    optimizer.step()\n")),
            # Autocast around the optimizer step too (passes the visible check: SGD has no products to round).
            _step_with((_SCALED_STEP,
                        "        scaler.scale(loss).backward()\n        scaler.step(optimizer)\n        scaler.update()\n")),
            # Ignores `enabled`: the float32 arm of the comparison is autocast too.
            _step_with((", enabled=enabled):", "):")),
            # Ignores `dtype`: always float16, so the bfloat16 arm is float16 too.
            _step_with(("dtype=dtype, enabled=enabled", "dtype=torch.float16, enabled=enabled")),
            # Only the forward pass under autocast: the loss is computed in float16, outside the block.
            _step_with(("        loss = loss_fn(model(x), y)\n", "        out = model(x)\n"),
                       ("    scaler.scale(loss).backward()\n", "    loss = loss_fn(out, y)\n    scaler.scale(loss).backward()\n")),
        ],
        "device": [
            # Hard-coded "cuda": on a CPU tensor autocast is then off.
            _step_with(("device_type=x.device.type", "device_type='cuda'")),
            # Moves the batch to the GPU itself: .cuda() ignores where the model and the data live.
            _step_with(("    optimizer.zero_grad()\n", "    optimizer.zero_grad()\n    x, y = x.cuda(), y.cuda()\n")),
        ],
        "autocast-device": [
            # 'cpu' written in: right on a CPU-only machine, and a CUDA batch would run in float32.
            _step_with(("device_type=x.device.type", "device_type='cpu'")),
        ],
        "scaler": [
            # "Only CUDA needs loss scaling": a disabled scaler for float16 on the CPU.
            "def make_scaler(device, dtype, enabled=True):\n"
            "    kind = torch.device(device).type\n"
            "    return torch.amp.GradScaler(kind, enabled=enabled and dtype == torch.float16 and kind == 'cuda')\n\n\n"
            + _STEP,
            # "bfloat16 needs no scaler": skips the enabled scaler it was given, so an overflowing step is taken.
            _step_with((_SCALED_STEP,
                        "    if dtype == torch.bfloat16:\n"
                        "        loss.backward()\n"
                        "        optimizer.step()\n"
                        "    else:\n"
                        "        scaler.scale(loss).backward()\n"
                        "        scaler.step(optimizer)\n"
                        "        scaler.update()\n")),
            # A disabled scaler taken to mean "no step": the plain branch forgets optimizer.step().
            _step_with((_SCALED_STEP, _SCALED_WHEN_ENABLED)),
            # A fresh GradScaler for float16 on every step, instead of the one given: its scale never carries over.
            _step_with(("    scaler.scale(loss).backward()\n",
                        "    if dtype == torch.float16:\n"
                        "        scaler = make_scaler(x.device, dtype, enabled)\n"
                        "    scaler.scale(loss).backward()\n")),
            # update() with a fixed new scale: the scale never grows or shrinks by itself.
            _step_with(("    scaler.update()\n", "    scaler.update(2.0 ** 10)\n")),
        ],
        "grad": [
            # No zero_grad: gradients pile up from the second step on.
            _step_with(("    optimizer.zero_grad()\n", "")),
            # zero_grad between backward and the step: the step sees zero gradients.
            _step_with(("    optimizer.zero_grad()\n", ""),
                       ("    scaler.step(optimizer)\n", "    optimizer.zero_grad()\n    scaler.step(optimizer)\n")),
            # Returns the loss with its graph (and every activation it holds) still attached.
            _step_with(("    return loss.detach()\n", "    return loss\n")),
        ],
    },
    "throughput": {
        "values": [
            # No warm-up: the first, slow calls are timed.
            _throughput("    rates = []\n"
                        "    for _ in range(repeats):\n"
                        "        with Timer(device) as t:\n"
                        "            step_fn()\n"
                        "        rates.append(batch_size / t.seconds)\n"
                        "    return float(statistics.median(rates)), rates\n"),
            # The mean of the per-call times instead of the median.
            _throughput(_WARMUP + "    seconds = []\n"
                        "    for _ in range(repeats):\n"
                        "        with Timer(device) as t:\n"
                        "            step_fn()\n"
                        "        seconds.append(t.seconds)\n"
                        "    return batch_size / (sum(seconds) / len(seconds)), [batch_size / s for s in seconds]\n"),
            # The mean of the per-call rates instead of the median.
            _throughput(_WARMUP + "    rates = []\n"
                        "    for _ in range(repeats):\n"
                        "        with Timer(device) as t:\n"
                        "            step_fn()\n"
                        "        rates.append(batch_size / t.seconds)\n"
                        "    return sum(rates) / len(rates), rates\n"),
            # Synchronizes only once, around the whole timed loop (lesson 07's answer): no per-call rates, a mean.
            _throughput(_WARMUP + "    synchronize(device)\n"
                        "    start = time.perf_counter()\n"
                        "    for _ in range(repeats):\n"
                        "        step_fn()\n"
                        "    synchronize(device)\n"
                        "    rate = batch_size * repeats / (time.perf_counter() - start)\n"
                        "    return rate, [rate] * repeats\n"),
            # Times the warm-up calls as well.
            _throughput("    rates = []\n"
                        "    for _ in range(warmup + repeats):\n"
                        "        with Timer(device) as t:\n"
                        "            step_fn()\n"
                        "        rates.append(batch_size / t.seconds)\n"
                        "    return float(statistics.median(rates)), rates\n"),
            # The rates sorted before they are returned (the median needs them sorted, the list does not).
            _throughput(_WARMUP + "    rates = []\n    for _ in range(repeats):\n        with Timer(device) as t:\n"
                        "            step_fn()\n        rates.append(batch_size / t.seconds)\n"
                        "    rates.sort()\n    return float(statistics.median(rates)), rates\n"),
        ],
        "amp": [
            # No synchronization: on a GPU this times the queueing, not the work.
            _throughput(_WARMUP + "    rates = []\n"
                        "    for _ in range(repeats):\n"
                        "        start = time.perf_counter()\n"
                        "        step_fn()\n"
                        "        rates.append(batch_size / (time.perf_counter() - start))\n"
                        "    return float(statistics.median(rates)), rates\n"),
            # Synchronizes before starting the clock but not before reading it: the clock stops too early.
            _throughput(_WARMUP + "    rates = []\n"
                        "    for _ in range(repeats):\n"
                        "        synchronize(device)\n"
                        "        start = time.perf_counter()\n"
                        "        step_fn()\n"
                        "        rates.append(batch_size / (time.perf_counter() - start))\n"
                        "    return float(statistics.median(rates)), rates\n"),
            # Timer() without the device: it cannot know which device to wait for, so it never synchronizes.
            _throughput(_WARMUP + "    rates = []\n"
                        "    for _ in range(repeats):\n"
                        "        with Timer() as t:\n"
                        "            step_fn()\n"
                        "        rates.append(batch_size / t.seconds)\n"
                        "    return float(statistics.median(rates)), rates\n"),
        ],
    },
}

RIGHT = {
    "make-wide-mlp": {
        "values": [
            # A custom module with functional ReLUs and math.ceil.
            "def make_wide_mlp(width, depth, in_features, classes):\n"
            "    import math\n"
            "    width = 8 * math.ceil(width / 8)\n\n"
            "    class WideMLP(nn.Module):\n"
            "        def __init__(self):\n"
            "            super().__init__()\n"
            "            sizes = [in_features] + [width] * depth\n"
            "            self.hidden = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes, sizes[1:]))\n"
            "            self.out = nn.Linear(width, classes)\n\n"
            "        def forward(self, x):\n"
            "            for layer in self.hidden:\n"
            "                x = F.relu(layer(x))\n"
            "            return self.out(x)\n\n"
            "    return WideMLP()\n",
        ],
        "dtype": [
            # float32 written out in every layer.
            _mlp(linear="nn.Linear(size, width, dtype=torch.float32)",
                 end="    return nn.Sequential(*layers, nn.Linear(size, classes, dtype=torch.float32))\n"),
            # .float() at the end: a no-op on float32 weights.
            _mlp(end="    return nn.Sequential(*layers, nn.Linear(size, classes)).float()\n"),
        ],
        "boundaries": [
            # A multiple of 8 kept as it is, written out; any other width to the next multiple.
            _mlp(width="    width = width if width % 8 == 0 else (width // 8 + 1) * 8\n"),
        ],
        "logits": [
            # Blocks of (Linear, ReLU), then the output layer on its own: raw scores.
            "def make_wide_mlp(width, depth, in_features, classes):\n"
            "    width += (-width) % 8\n"
            "    blocks = [nn.Sequential(nn.Linear(in_features if k == 0 else width, width), nn.ReLU(inplace=True))\n"
            "              for k in range(depth)]\n"
            "    return nn.Sequential(*blocks, nn.Linear(width, classes))\n",
        ],
    },
    "arithmetic-intensity": {
        "values": [
            _intensity("    size = torch.empty((), dtype=dtype).element_size()\n"
                       "    numbers = batch * fan_in + fan_in * fan_out + batch * fan_out\n"
                       "    return 2.0 * batch * fan_in * fan_out / (numbers * size)\n"),
            _intensity("    bytes_per = torch.finfo(dtype).bits // 8\n"
                       "    return (2 * batch * fan_in * fan_out) / (bytes_per * (batch * (fan_in + fan_out) + fan_in * fan_out))\n"),
        ],
    },
    "amp-step": {
        "values": [
            # make_scaler with two code paths.
            "def make_scaler(device, dtype, enabled=True):\n"
            "    if enabled and dtype == torch.float16:\n"
            "        return torch.amp.GradScaler(torch.device(device).type)\n"
            "    return torch.amp.GradScaler(torch.device(device).type, enabled=False)\n\n\n" + _STEP,
        ],
        "amp": [
            # Backward inside the autocast block (allowed, if pointless), unscale_ before the step, model.zero_grad().
            "def make_scaler(device, dtype, enabled=True):\n"
            "    on = bool(enabled) and dtype is torch.float16\n"
            "    kind = device if isinstance(device, str) else device.type\n"
            "    return torch.amp.GradScaler(kind, enabled=on)\n\n\n"
            "def amp_step(model, x, y, optimizer, scaler, loss_fn, dtype=torch.float16, enabled=True):\n"
            "    model.zero_grad(set_to_none=True)\n"
            "    with torch.amp.autocast(x.device.type, dtype=dtype, enabled=enabled):\n"
            "        out = model(x)\n"
            "        loss = loss_fn(out, y)\n"
            "        scaler.scale(loss).backward()\n"
            "    scaler.unscale_(optimizer)\n"
            "    scaler.step(optimizer)\n"
            "    scaler.update()\n"
            "    return loss.detach()\n",
        ],
        "device": [
            # The device type from the model's parameters; autocast only when enabled.
            _SCALER
            + "def amp_step(model, x, y, optimizer, scaler, loss_fn, dtype=torch.float16, enabled=True):\n"
            "    kind = next(model.parameters()).device.type\n"
            "    optimizer.zero_grad()\n"
            "    if enabled:\n"
            "        with torch.autocast(device_type=kind, dtype=dtype):\n"
            "            loss = loss_fn(model(x), y)\n"
            "    else:\n"
            "        loss = loss_fn(model(x), y)\n"
            "    scaler.scale(loss).backward()\n"
            "    scaler.step(optimizer)\n"
            "    scaler.update()\n"
            "    return loss.detach()\n",
        ],
        "autocast-device": [
            # The device type of the targets (on the same device as x), torch.amp.autocast.
            _step_with(("    with torch.autocast(device_type=x.device.type, dtype=dtype, enabled=enabled):\n",
                        "    with torch.amp.autocast(y.device.type, dtype=dtype, enabled=enabled):\n")),
        ],
        "scaler": [
            # A plain backward and step when the scaler is disabled, which is all a disabled scaler does anyway.
            _step_with((_SCALED_STEP, _SCALED_WHEN_ENABLED + "        optimizer.step()\n")),
            # The device type as a keyword, the switch as one boolean.
            "def make_scaler(device, dtype, enabled=True):\n"
            "    use = bool(enabled) and dtype == torch.float16\n"
            "    return torch.amp.GradScaler(device=torch.device(device).type, enabled=use)\n\n\n" + _STEP,
        ],
        "grad": [
            # zero_grad after the step instead of before the forward pass.
            _step_with(("    optimizer.zero_grad()\n", ""),
                       ("    scaler.update()\n", "    scaler.update()\n    optimizer.zero_grad(set_to_none=False)\n")),
            # The gradients set to None by hand.
            _step_with(("    optimizer.zero_grad()\n", "    for p in model.parameters():\n        p.grad = None\n")),
        ],
    },
    "throughput": {
        "values": [
            # coursekit.timing.measure once per repeat.
            _throughput(_WARMUP
                        + "    seconds = [measure(step_fn, warmup=0, repeats=1, device=device) for _ in range(repeats)]\n"
                        "    rates = [batch_size / s for s in seconds]\n"
                        "    return batch_size / sorted(seconds)[len(seconds) // 2], rates\n"),
        ],
        "amp": [
            # synchronize by hand and a torch median (the lower middle value for an even count).
            _throughput(_WARMUP + "    rates = []\n"
                        "    for _ in range(repeats):\n"
                        "        synchronize(device)\n"
                        "        start = time.perf_counter()\n"
                        "        step_fn()\n"
                        "        synchronize(device)\n"
                        "        rates.append(batch_size / (time.perf_counter() - start))\n"
                        "    return torch.tensor(rates).median().item(), rates\n"),
        ],
    },
}
