"""Other answers for lesson 07 (see autograder/authoring/variants.py), by class of mistake.

The GPU-only cell amp-train-step-gpu-tests is a test cell, not a solution cell, so it has no variants here (it runs
after amp-train-step's own tests, and only on a GPU runner). A device type 'cpu' written into autocast, right by
accident on a CPU, is caught on any machine by the autocast-device rows: a model and a batch on 'meta' make the
solution's autocast raise, and the written-in one run on.
"""

_STEP = (
    "def train_step(model, batch, optimizer, loss_fn, device):\n"
    "    x, y = to_device(batch, device)\n"
    "    optimizer.zero_grad()\n"
    "    logits = model(x)\n"
    "    loss = loss_fn(logits, y)\n"
    "    loss.backward()\n"
    "    optimizer.step()\n"
    "    return loss.detach()\n"
)


def _step_with(*edits: tuple[str, str]) -> str:
    source = _STEP
    for old, new in edits:
        assert old in source, f"variant edit does not apply: {old!r}"
        source = source.replace(old, new)
    return source


_AMP = (
    "def amp_train_step(model, x, y, optimizer, scaler, loss_fn, dtype=torch.bfloat16):\n"
    "    optimizer.zero_grad()\n"
    "    with torch.autocast(device_type=x.device.type, dtype=dtype):\n"
    "        loss = loss_fn(model(x), y)\n"
    "    scaler.scale(loss).backward()\n"
    "    scaler.step(optimizer)\n"
    "    scaler.update()\n"
    "    return loss.detach()\n"
)


def _amp_with(*edits: tuple[str, str]) -> str:
    source = _AMP
    for old, new in edits:
        assert old in source, f"variant edit does not apply: {old!r}"
        source = source.replace(old, new)
    return source


_TO_DEVICE = (
    "def to_device(batch, device):\n"
    "    if isinstance(batch, torch.Tensor):\n"
    "        return batch.to(device)\n"
    "    if isinstance(batch, dict):\n"
    "        return {k: to_device(v, device) for k, v in batch.items()}\n"
    "    return type(batch)(to_device(v, device) for v in batch)\n"
)
# The same container kinds, one level deep only: the tensors of a tuple, a list or a dict.
_ONE_LEVEL = (
    "def to_device(batch, device):\n"
    "    if isinstance(batch, torch.Tensor):\n"
    "        return batch.to(device)\n"
    "    if isinstance(batch, dict):\n"
    "        return {k: v.to(device) for k, v in batch.items()}\n"
    "    return type(batch)(v.to(device) for v in batch)\n"
)

# The solution's three scaler lines, and the same lines run only when the scaler is enabled (several answers
# branch on it).
_SCALED_STEP = "    scaler.scale(loss).backward()\n    scaler.step(optimizer)\n    scaler.update()\n"
_SCALED_WHEN_ENABLED = ("    if scaler.is_enabled():\n        scaler.scale(loss).backward()\n        scaler.step(optimizer)\n"
                        "        scaler.update()\n    else:\n        loss.backward()\n")


# samples_per_second's warm-up and timed loop, synchronized on both ends; answers differ in what they return.
_TIMED_LOOP = ("def samples_per_second(fn, batch_size, device, warmup=2, repeats=5):\n"
               "    for _ in range(warmup):\n        fn()\n    synchronize(device)\n    start = time.perf_counter()\n"
               "    for _ in range(repeats):\n        fn()\n    synchronize(device)\n")


WRONG = {
    "to-device": {
        "values": [
            # Only handles an (x, y) pair.
            "def to_device(batch, device):\n"
            "    x, y = batch\n"
            "    return x.to(device), y.to(device)\n",
            # Always returns a list, whatever came in.
            "def to_device(batch, device):\n"
            "    if isinstance(batch, dict):\n"
            "        return {k: v.to(device) for k, v in batch.items()}\n"
            "    return [v.to(device) for v in batch]\n",
        ],
        "device": [
            # Calls .to() but throws the result away: tensors never move (passes the CPU-to-CPU visible check).
            "def to_device(batch, device):\n"
            "    if isinstance(batch, torch.Tensor):\n"
            "        batch.to(device)\n"
            "        return batch\n"
            "    values = batch.values() if isinstance(batch, dict) else batch\n"
            "    for value in values:\n"
            "        value.to(device)\n"
            "    return batch\n",
            # Ignores the device it was given and picks its own (passes on a CPU machine's visible check).
            _TO_DEVICE.replace("    if isinstance(batch, torch.Tensor):\n",
                               "    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
                               "    if isinstance(batch, torch.Tensor):\n", 1),
            # 'cpu' written in for the elements of a tuple or a list.
            _TO_DEVICE.replace("to_device(v, device) for v in batch)", "to_device(v, 'cpu') for v in batch)"),
        ],
        "dtype": [
            # Converts everything to float32 on the way: the labels are no longer class indices.
            _TO_DEVICE.replace(".to(device)", ".to(device, torch.float32)"),
            # Rebuilds each tensor from a Python list: float16 and bool tensors change dtype.
            _TO_DEVICE.replace("return batch.to(device)", "return torch.tensor(batch.tolist(), device=device)"),
        ],
        "nesting": [
            # One level only: a container inside a container meets .to(), which it does not have.
            _ONE_LEVEL,
            # Recurses into tuples and lists, but moves a dict's values as if they were tensors.
            _TO_DEVICE.replace("to_device(v, device) for k, v", "v.to(device) for k, v"),
            # Recurses, but rebuilds every sequence as a list: the tuple inside the dict comes back a list.
            _TO_DEVICE.replace("type(batch)(to_device(v, device) for v in batch)", "[to_device(v, device) for v in batch]"),
            # Flattens the structure into a list of its tensors, moved.
            "def to_device(batch, device):\n"
            "    if isinstance(batch, torch.Tensor):\n        return batch.to(device)\n"
            "    values = batch.values() if isinstance(batch, dict) else batch\n"
            "    found = []\n"
            "    for value in values:\n"
            "        moved = to_device(value, device)\n"
            "        found += moved if isinstance(moved, list) else [moved]\n"
            "    return found if isinstance(batch, list) else type(batch)(found) if isinstance(batch, tuple) else "
            "dict(zip(batch, found))\n",
        ],
        "result-device": [
            # Moves only what is on the CPU ("the loader gives CPU batches"): a batch elsewhere never comes back.
            _TO_DEVICE.replace("return batch.to(device)", "return batch.to(device) if batch.device.type == 'cpu' else batch"),
            # Skips the work when the CPU is asked for, as if every batch started there.
            _TO_DEVICE.replace("    if isinstance(batch, torch.Tensor):\n",
                               "    if str(device) == 'cpu':\n        return batch\n    if isinstance(batch, torch.Tensor):\n", 1),
        ],
        "grad": [
            # Detached on the way: a tensor that was part of an autograd graph comes back cut off from it.
            _TO_DEVICE.replace("return batch.to(device)", "return batch.to(device).detach()"),
        ],
    },
    "train-step": {
        "values": [
            # The course's own epoch of training (lesson 08) on a one-batch list: nobody's own work.
            "from coursekit.mnist import _train_one_epoch\n\n"
            "def train_step(model, batch, optimizer, loss_fn, device):\n"
            "    (loss, _), _ = _train_one_epoch(model, [batch], optimizer, loss_fn, device, None)\n"
            "    return torch.tensor(loss, device=device)\n",
            # .item() every step: a float, and a GPU synchronization per step.
            _step_with(("return loss.detach()", "return loss.item()")),
            # Returns the loss after the step (a second forward pass).
            _step_with(("    return loss.detach()\n", "    with torch.no_grad():\n        return loss_fn(model(x), y)\n")),
        ],
        "grad": [
            # No zero_grad: gradients pile up from the second step on.
            _step_with(("    optimizer.zero_grad()\n", "")),
            # Returns the loss with its graph attached.
            _step_with(("return loss.detach()", "return loss")),
        ],
        "device": [
            # Never moves the batch: fine while everything is on the CPU, fails once the model is elsewhere.
            _step_with(("x, y = to_device(batch, device)", "x, y = batch")),
            # Moves the batch to 'cpu', written in.
            _step_with(("x, y = to_device(batch, device)", "x, y = to_device(batch, 'cpu')")),
            # Calls .to(device) without keeping the result.
            _step_with(("    x, y = to_device(batch, device)\n", "    x, y = batch\n    x.to(device)\n    y.to(device)\n")),
        ],
        "shapes": [
            # squeeze() on the logits: a batch of one becomes a vector without its batch dimension.
            _step_with(("logits = model(x)", "logits = model(x).squeeze()")),
        ],
        "logits": [
            # Probabilities into CrossEntropyLoss.
            _step_with(("logits = model(x)", "logits = F.softmax(model(x), dim=1)")),
        ],
        "result-device": [
            # Hands the loss back on the CPU, where the words say it stays on `device`.
            _step_with(("return loss.detach()", "return loss.detach().cpu()")),
            _step_with(("return loss.detach()", "return loss.detach().to('cpu')")),
            # The loss brought back to the CPU: it should stay on the device, where the model is.
            _step_with(("return loss.detach()", "return loss.detach().cpu()")),
        ],
    },
    "autocast-forward": {
        "values": [
            # Runs under autocast but hands back a float32 copy of the output.
            "def autocast_forward(model, x):\n"
            "    with torch.autocast(device_type=x.device.type, dtype=torch.bfloat16):\n"
            "        out = model(x)\n"
            "    return out.float()\n",
        ],
        "amp": [
            # Casts the output of a float32 forward pass: bfloat16 on the outside, no mixed precision inside.
            "def autocast_forward(model, x):\n"
            "    return model(x).to(torch.bfloat16)\n",
            # Converts a copy of the model and the input by hand instead of autocasting.
            "def autocast_forward(model, x):\n"
            "    return copy.deepcopy(model).to(torch.bfloat16)(x.to(torch.bfloat16))\n",
            # float16 instead of bfloat16.
            "def autocast_forward(model, x):\n"
            "    with torch.autocast(device_type=x.device.type, dtype=torch.float16):\n"
            "        return model(x)\n",
        ],
        "dtype": [
            # Converts the model itself: its parameters stay bfloat16 for good.
            "def autocast_forward(model, x):\n"
            "    return model.to(torch.bfloat16)(x.to(torch.bfloat16))\n",
            # float16 instead of bfloat16.
            "def autocast_forward(model, x):\n"
            "    with torch.autocast(device_type=x.device.type, dtype=torch.float16):\n"
            "        return model(x)\n",
        ],
        "device": [
            # Hard-coded 'cuda': on a CPU tensor autocast switches itself off.
            "def autocast_forward(model, x):\n"
            "    with torch.autocast(device_type='cuda', dtype=torch.bfloat16):\n"
            "        return model(x)\n",
        ],
        "autocast-device": [
            # 'cpu' written in: right on a CPU-only machine, and a CUDA batch would run in float32.
            "def autocast_forward(model, x):\n"
            "    with torch.autocast(device_type='cpu', dtype=torch.bfloat16):\n"
            "        return model(x)\n",
        ],
        "grad": [
            # Inside no_grad: the output cannot be trained from.
            "def autocast_forward(model, x):\n"
            "    with torch.no_grad(), torch.autocast(device_type=x.device.type, dtype=torch.bfloat16):\n"
            "        return model(x)\n",
            # inference_mode: the same, and faster.
            "def autocast_forward(model, x):\n"
            "    with torch.inference_mode(), torch.autocast(device_type=x.device.type, dtype=torch.bfloat16):\n"
            "        return model(x)\n",
        ],
    },
    "amp-train-step": {
        "values": [
            # Returns the scaled loss.
            _amp_with(("    scaler.scale(loss).backward()\n", "    scaled = scaler.scale(loss)\n    scaled.backward()\n"),
                      ("return loss.detach()", "return scaled.detach()")),
            # The scaler's step, then the optimizer's own: two updates per call.
            _amp_with(("    scaler.step(optimizer)\n", "    scaler.step(optimizer)\n    optimizer.step()\n")),
        ],
        "amp": [
            # Ignores the scaler: right while nothing overflows, wrong when a step must be skipped.
            _amp_with((_SCALED_STEP,
                       "    loss.backward()\n    optimizer.step()\n")),
            # Scales the loss but steps the optimizer directly: gradients 65536 times too large.
            _amp_with(("    scaler.step(optimizer)\n    scaler.update()\n", "    optimizer.step()\n")),
            # Forgets scaler.update(): the scale never adapts.
            _amp_with(("    scaler.update()\n", "")),
            # Ignores the dtype argument.
            _amp_with(("dtype=dtype)", "dtype=torch.bfloat16)")),
            # update() before step(): the scale adapts to the wrong step's gradients.
            _amp_with(("    scaler.step(optimizer)\n    scaler.update()\n", "    scaler.update()\n    scaler.step(optimizer)\n")),
            # The whole step under autocast, the optimizer's update included.
            "def amp_train_step(model, x, y, optimizer, scaler, loss_fn, dtype=torch.bfloat16):\n"
            "    with torch.autocast(device_type=x.device.type, dtype=dtype):\n"
            "        optimizer.zero_grad()\n"
            "        loss = loss_fn(model(x), y)\n"
            "        scaler.scale(loss).backward()\n"
            "        scaler.step(optimizer)\n"
            "        scaler.update()\n"
            "    return loss.detach()\n",
        ],
        "grad": [
            # No zero_grad: gradients pile up from the second step on.
            _amp_with(("    optimizer.zero_grad()\n", "")),
            # Returns the loss with its graph attached.
            _amp_with(("return loss.detach()", "return loss")),
        ],
        "device": [
            # Hard-coded 'cuda' for autocast: on a CPU tensor it switches itself off.
            _amp_with(("device_type=x.device.type", "device_type='cuda'")),
        ],
        "autocast-device": [
            # 'cpu' written in: right on a CPU-only machine, and a CUDA batch would run in float32.
            _amp_with(("device_type=x.device.type", "device_type='cpu'")),
        ],
        "scaler": [
            # "bfloat16 needs no scaler": skips the enabled scaler it was given, so an overflowing step is taken.
            _amp_with((_SCALED_STEP,
                       "    if dtype == torch.bfloat16:\n"
                       "        loss.backward()\n"
                       "        optimizer.step()\n"
                       "    else:\n"
                       "        scaler.scale(loss).backward()\n"
                       "        scaler.step(optimizer)\n"
                       "        scaler.update()\n")),
            # A disabled scaler taken to mean "no step": the plain branch forgets optimizer.step().
            _amp_with((_SCALED_STEP, _SCALED_WHEN_ENABLED)),
            # A fresh GradScaler for float16 on every step, instead of the one given: its scale never carries over.
            _amp_with(("    scaler.scale(loss).backward()\n",
                       "    if dtype == torch.float16:\n"
                       "        scaler = torch.amp.GradScaler(x.device.type)\n"
                       "    scaler.scale(loss).backward()\n")),
        ],
    },
    "samples-per-second": {
        "values": [
            # Times the warm-up calls too.
            "def samples_per_second(fn, batch_size, device, warmup=2, repeats=5):\n"
            "    synchronize(device)\n"
            "    start = time.perf_counter()\n"
            "    for _ in range(warmup + repeats):\n"
            "        fn()\n"
            "    synchronize(device)\n"
            "    return batch_size * (warmup + repeats) / (time.perf_counter() - start)\n",
            # Seconds per sample instead of samples per second.
            "def samples_per_second(fn, batch_size, device, warmup=2, repeats=5):\n"
            "    return measure(fn, warmup=warmup, repeats=repeats, device=device) / batch_size\n",
            # No warm-up at all.
            "def samples_per_second(fn, batch_size, device, warmup=2, repeats=5):\n"
            "    return batch_size / measure(fn, warmup=0, repeats=repeats, device=device)\n",
            # Counts the samples of the warm-up calls too, over the time of the timed calls only.
            _TIMED_LOOP
            + "    return batch_size * (warmup + repeats) / (time.perf_counter() - start)\n",
            # Floor division: a whole number of samples per second.
            "def samples_per_second(fn, batch_size, device, warmup=2, repeats=5):\n"
            "    return float(batch_size // measure(fn, warmup=warmup, repeats=repeats, device=device))\n",
        ],
        "amp": [
            # Warms up but never synchronizes: on a GPU it times the queueing, not the work.
            "def samples_per_second(fn, batch_size, device, warmup=2, repeats=5):\n"
            "    for _ in range(warmup):\n"
            "        fn()\n"
            "    start = time.perf_counter()\n"
            "    for _ in range(repeats):\n"
            "        fn()\n"
            "    return batch_size * repeats / (time.perf_counter() - start)\n",
            # Synchronizes only at the end: queued warm-up work is billed to the timed calls.
            "def samples_per_second(fn, batch_size, device, warmup=2, repeats=5):\n"
            "    for _ in range(warmup):\n"
            "        fn()\n"
            "    start = time.perf_counter()\n"
            "    for _ in range(repeats):\n"
            "        fn()\n"
            "    synchronize(device)\n"
            "    return batch_size * repeats / (time.perf_counter() - start)\n",
            # measure() without the device: its Timer synchronizes nothing.
            "def samples_per_second(fn, batch_size, device, warmup=2, repeats=5):\n"
            "    return batch_size / measure(fn, warmup=warmup, repeats=repeats)\n",
        ],
    },
}

RIGHT = {
    "to-device": {
        "values": [
            # Tuples and lists told apart explicitly.
            "def to_device(batch, device):\n"
            "    if torch.is_tensor(batch):\n"
            "        return batch.to(device)\n"
            "    if isinstance(batch, dict):\n"
            "        return {key: to_device(value, device) for key, value in batch.items()}\n"
            "    if isinstance(batch, tuple):\n"
            "        return tuple(to_device(value, device) for value in batch)\n"
            "    return [to_device(value, device) for value in batch]\n",
        ],
        "device": [
            # non_blocking copies, map over the values.
            "def to_device(batch, device):\n"
            "    if isinstance(batch, torch.Tensor):\n"
            "        return batch.to(device, non_blocking=True)\n"
            "    move = lambda value: to_device(value, device)\n"
            "    if isinstance(batch, dict):\n"
            "        return dict(zip(batch.keys(), map(move, batch.values())))\n"
            "    return type(batch)(map(move, batch))\n",
            # The device given as a keyword, after torch.device(...).
            _TO_DEVICE.replace("    if isinstance(batch, torch.Tensor):\n",
                               "    device = torch.device(device)\n    if isinstance(batch, torch.Tensor):\n", 1)
                      .replace(".to(device)", ".to(device=device)"),
        ],
        "dtype": [
            # The dtype passed along explicitly.
            _TO_DEVICE.replace("return batch.to(device)", "return batch.to(device=device, dtype=batch.dtype)"),
        ],
        "nesting": [
            # match/case, one case per kind of container.
            "def to_device(batch, device):\n"
            "    match batch:\n"
            "        case torch.Tensor():\n            return batch.to(device)\n"
            "        case dict():\n            return {k: to_device(v, device) for k, v in batch.items()}\n"
            "        case tuple() | list():\n            return type(batch)(to_device(v, device) for v in batch)\n",
            # functools.singledispatch, a function per type.
            "from functools import singledispatch\n\n"
            "@singledispatch\n"
            "def _move(batch, device):\n    return type(batch)(_move(v, device) for v in batch)\n\n"
            "@_move.register\n"
            "def _(batch: torch.Tensor, device):\n    return batch.to(device)\n\n"
            "@_move.register\n"
            "def _(batch: dict, device):\n    return {k: _move(v, device) for k, v in batch.items()}\n\n"
            "def to_device(batch, device):\n    return _move(batch, device)\n",
        ],
        "result-device": [
            # Moves a tensor only when it is somewhere else: the same on every device, the CPU included.
            _TO_DEVICE.replace("return batch.to(device)",
                               "return batch if batch.device == torch.device(device) else batch.to(device)"),
            # Asks for a copy every time.
            _TO_DEVICE.replace("return batch.to(device)", "return batch.to(device, copy=True)"),
        ],
        "grad": [
            # Detaches only what carries no gradient anyway: a tensor that requires one keeps its link to the graph.
            _TO_DEVICE.replace("return batch.to(device)",
                               "return batch.to(device) if batch.requires_grad else batch.detach().to(device)"),
        ],
    },
    "train-step": {
        "values": [
            # A generator expression to move the batch, model.zero_grad.
            "def train_step(model, batch, optimizer, loss_fn, device):\n"
            "    x, y = (t.to(device) for t in batch)\n"
            "    model.zero_grad(set_to_none=True)\n"
            "    output = model(x)\n"
            "    loss = loss_fn(output, y)\n"
            "    loss.backward()\n"
            "    optimizer.step()\n"
            "    return loss.detach()\n",
        ],
        "grad": [
            # Gradients zeroed in place at the start; the detached loss copied.
            _step_with(("optimizer.zero_grad()", "optimizer.zero_grad(set_to_none=False)"),
                       ("return loss.detach()", "return loss.detach().clone()")),
        ],
        "device": [
            # zero_grad after the step, device taken from the model, a redundant model.to(device).
            "def train_step(model, batch, optimizer, loss_fn, device):\n"
            "    model.to(device)\n"
            "    where = next(model.parameters()).device\n"
            "    x, y = batch[0].to(where, non_blocking=True), batch[1].to(where, non_blocking=True)\n"
            "    loss = loss_fn(model(x), y)\n"
            "    loss.backward()\n"
            "    optimizer.step()\n"
            "    optimizer.zero_grad()\n"
            "    return loss.detach()\n",
            # Each tensor moved with device= as a keyword.
            _step_with(("x, y = to_device(batch, device)", "x, y = batch[0].to(device=device), batch[1].to(device=device)")),
        ],
        "shapes": [
            # The logits reshaped to (B, classes) explicitly.
            _step_with(("logits = model(x)", "logits = model(x).reshape(x.shape[0], -1)")),
        ],
        "logits": [
            # The forward pass written straight into the loss call.
            _step_with(("    logits = model(x)\n    loss = loss_fn(logits, y)\n", "    loss = loss_fn(model(x), y)\n")),
        ],
        "result-device": [
            # Moves the loss to `device`, where it already is; a detached copy.
            _step_with(("return loss.detach()", "return loss.detach().to(device)")),
            _step_with(("return loss.detach()", "return loss.detach().clone()")),
        ],
    },
    "autocast-forward": {
        "values": [
            # enabled=True written out.
            "def autocast_forward(model, x):\n"
            "    with torch.autocast(device_type=x.device.type, dtype=torch.bfloat16, enabled=True):\n"
            "        y = model(x)\n"
            "    return y\n",
        ],
        "amp": [
            # torch.amp.autocast, positional device type.
            "def autocast_forward(model, x):\n"
            "    with torch.amp.autocast(x.device.type, dtype=torch.bfloat16):\n"
            "        out = model(x)\n"
            "    return out\n",
        ],
        "dtype": [
            # The dtype as the second positional argument.
            "def autocast_forward(model, x):\n"
            "    with torch.autocast(x.device.type, torch.bfloat16):\n"
            "        return model(x)\n",
        ],
        "device": [
            # The device type taken from the model's parameters.
            "def autocast_forward(model, x):\n"
            "    kind = next(model.parameters()).device.type\n"
            "    with torch.autocast(kind, torch.bfloat16, enabled=True):\n"
            "        return model(x)\n",
        ],
        "autocast-device": [
            # The input's device type kept in a variable, torch.amp.autocast.
            "def autocast_forward(model, x):\n"
            "    kind = x.device.type\n"
            "    with torch.amp.autocast(kind, dtype=torch.bfloat16):\n"
            "        return model(x)\n",
        ],
        "grad": [
            # enable_grad around it (a no-op where autograd is on, a guarantee where it was off).
            "def autocast_forward(model, x):\n"
            "    with torch.enable_grad(), torch.autocast(device_type=x.device.type, dtype=torch.bfloat16):\n"
            "        return model(x)\n",
        ],
    },
    "amp-train-step": {
        "values": [
            # The forward pass and the loss on separate lines.
            _amp_with(("        loss = loss_fn(model(x), y)\n", "        prediction = model(x)\n        loss = loss_fn(prediction, y)\n")),
        ],
        "amp": [
            # unscale_ before step (the place for gradient clipping), torch.amp.autocast.
            "def amp_train_step(model, x, y, optimizer, scaler, loss_fn, dtype=torch.bfloat16):\n"
            "    model.zero_grad(set_to_none=True)\n"
            "    with torch.amp.autocast(x.device.type, dtype=dtype):\n"
            "        out = model(x)\n"
            "        loss = loss_fn(out, y)\n"
            "    scaler.scale(loss).backward()\n"
            "    scaler.unscale_(optimizer)\n"
            "    scaler.step(optimizer)\n"
            "    scaler.update()\n"
            "    return loss.detach()\n",
            # zero_grad at the end; backward inside the autocast block (not recommended, but correct).
            "def amp_train_step(model, x, y, optimizer, scaler, loss_fn, dtype=torch.bfloat16):\n"
            "    with torch.autocast(device_type=x.device.type, dtype=dtype):\n"
            "        loss = loss_fn(model(x), y)\n"
            "        scaler.scale(loss).backward()\n"
            "    scaler.step(optimizer)\n"
            "    scaler.update()\n"
            "    optimizer.zero_grad()\n"
            "    return loss.detach()\n",
        ],
        "grad": [
            # Gradients zeroed in place.
            _amp_with(("optimizer.zero_grad()", "optimizer.zero_grad(set_to_none=False)")),
        ],
        "device": [
            # The device type taken from the model's parameters.
            _amp_with(("device_type=x.device.type", "device_type=next(model.parameters()).device.type")),
        ],
        "autocast-device": [
            # The device type of the targets (on the same device as x), torch.amp.autocast.
            _amp_with(("    with torch.autocast(device_type=x.device.type, dtype=dtype):\n",
                       "    with torch.amp.autocast(y.device.type, dtype=dtype):\n")),
        ],
        "scaler": [
            # A plain backward and step when the scaler is disabled, which is all a disabled scaler does anyway.
            _amp_with((_SCALED_STEP, _SCALED_WHEN_ENABLED + "        optimizer.step()\n")),
        ],
    },
    "samples-per-second": {
        "values": [
            # float() around the division.
            "def samples_per_second(fn, batch_size, device, warmup=2, repeats=5):\n"
            "    seconds = measure(fn, warmup=warmup, repeats=repeats, device=device)\n"
            "    return float(batch_size) / seconds\n",
        ],
        "amp": [
            # One Timer per call, median by hand.
            "def samples_per_second(fn, batch_size, device, warmup=2, repeats=5):\n"
            "    import statistics\n"
            "    for _ in range(warmup):\n"
            "        fn()\n"
            "    times = []\n"
            "    for _ in range(repeats):\n"
            "        with Timer(device) as t:\n"
            "            fn()\n"
            "        times.append(t.seconds)\n"
            "    return float(batch_size / statistics.median(times))\n",
            # The whole timed loop at once, synchronized on both ends (a mean instead of a median).
            _TIMED_LOOP
            + "    return batch_size * repeats / (time.perf_counter() - start)\n",
            # A clock imported by name, in nanoseconds, and CUDA synchronized by hand.
            "from time import perf_counter_ns\n\n"
            "def samples_per_second(fn, batch_size, device, warmup=2, repeats=5):\n"
            "    on_gpu = torch.device(device).type == 'cuda'\n"
            "    for _ in range(warmup):\n"
            "        fn()\n"
            "    if on_gpu:\n"
            "        torch.cuda.synchronize(device)\n"
            "    start = perf_counter_ns()\n"
            "    for _ in range(repeats):\n"
            "        fn()\n"
            "    if on_gpu:\n"
            "        torch.cuda.synchronize(device)\n"
            "    return batch_size / ((perf_counter_ns() - start) / 1e9 / repeats)\n",
        ],
    },
}

NOT_TESTED = {
    "amp-train-step": {
        "result-device": "the loss is computed under autocast, which refuses every device type a CPU runner can stand in "
                         "for a second device ('meta'); amp-train-step-gpu-tests compares the loss, its device included, "
                         "with the solution's on a GPU runner.",
    },
    "samples-per-second": {
        "device": "the only thing it does with the device is synchronize it, which the amp row checks with a pretend CUDA "
                  "device (coursekit.testing.ClockSpy); a CPU runner has no second real device to tell a written-in "
                  "'cuda' from the argument, and there a written-in 'cuda' already fails the visible check.",
    },
}
