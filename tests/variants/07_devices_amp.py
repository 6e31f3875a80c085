"""Other answers for lesson 07 (see autograder/variants.py).

The GPU-only cell amp-train-step-gpu-tests is a test cell, not a solution cell, so it has no variants here.
"""

WRONG = {
    "to-device": [
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
        "def to_device(batch, device):\n"
        "    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        "    if isinstance(batch, torch.Tensor):\n"
        "        return batch.to(device)\n"
        "    if isinstance(batch, dict):\n"
        "        return {k: v.to(device) for k, v in batch.items()}\n"
        "    return type(batch)(v.to(device) for v in batch)\n",
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
    "train-step": [
        # Never moves the batch: fine while everything is on the CPU, fails once the model is elsewhere.
        "def train_step(model, batch, optimizer, loss_fn, device):\n"
        "    x, y = batch\n"
        "    optimizer.zero_grad()\n"
        "    loss = loss_fn(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    return loss.detach()\n",
        # No zero_grad: gradients pile up from the second step on.
        "def train_step(model, batch, optimizer, loss_fn, device):\n"
        "    x, y = to_device(batch, device)\n"
        "    loss = loss_fn(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    return loss.detach()\n",
        # .item() every step: a float, and a GPU synchronization per step.
        "def train_step(model, batch, optimizer, loss_fn, device):\n"
        "    x, y = to_device(batch, device)\n"
        "    optimizer.zero_grad()\n"
        "    loss = loss_fn(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    return loss.item()\n",
        # Returns the loss with its graph attached.
        "def train_step(model, batch, optimizer, loss_fn, device):\n"
        "    x, y = to_device(batch, device)\n"
        "    optimizer.zero_grad()\n"
        "    loss = loss_fn(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    return loss\n",
    ],
    "autocast-forward": [
        # Casts the output of a float32 forward pass: bfloat16 on the outside, no mixed precision inside.
        "def autocast_forward(model, x):\n"
        "    return model(x).to(torch.bfloat16)\n",
        # Converts a copy of the model and the input by hand instead of autocasting.
        "def autocast_forward(model, x):\n"
        "    return copy.deepcopy(model).to(torch.bfloat16)(x.to(torch.bfloat16))\n",
        # Converts the model itself: its parameters stay bfloat16 for good.
        "def autocast_forward(model, x):\n"
        "    return model.to(torch.bfloat16)(x.to(torch.bfloat16))\n",
        # Hard-coded 'cuda': on a CPU tensor autocast switches itself off.
        "def autocast_forward(model, x):\n"
        "    with torch.autocast(device_type='cuda', dtype=torch.bfloat16):\n"
        "        return model(x)\n",
        # Inside no_grad: the output cannot be trained from.
        "def autocast_forward(model, x):\n"
        "    with torch.no_grad(), torch.autocast(device_type=x.device.type, dtype=torch.bfloat16):\n"
        "        return model(x)\n",
    ],
    "amp-train-step": [
        # Ignores the scaler: right while nothing overflows, wrong when a step must be skipped.
        "def amp_train_step(model, x, y, optimizer, scaler, loss_fn, dtype=torch.bfloat16):\n"
        "    optimizer.zero_grad()\n"
        "    with torch.autocast(device_type=x.device.type, dtype=dtype):\n"
        "        loss = loss_fn(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    return loss.detach()\n",
        # Scales the loss but steps the optimizer directly: gradients 65536 times too large.
        "def amp_train_step(model, x, y, optimizer, scaler, loss_fn, dtype=torch.bfloat16):\n"
        "    optimizer.zero_grad()\n"
        "    with torch.autocast(device_type=x.device.type, dtype=dtype):\n"
        "        loss = loss_fn(model(x), y)\n"
        "    scaler.scale(loss).backward()\n"
        "    optimizer.step()\n"
        "    return loss.detach()\n",
        # Forgets scaler.update(): the scale never adapts.
        "def amp_train_step(model, x, y, optimizer, scaler, loss_fn, dtype=torch.bfloat16):\n"
        "    optimizer.zero_grad()\n"
        "    with torch.autocast(device_type=x.device.type, dtype=dtype):\n"
        "        loss = loss_fn(model(x), y)\n"
        "    scaler.scale(loss).backward()\n"
        "    scaler.step(optimizer)\n"
        "    return loss.detach()\n",
        # Ignores the dtype argument.
        "def amp_train_step(model, x, y, optimizer, scaler, loss_fn, dtype=torch.bfloat16):\n"
        "    optimizer.zero_grad()\n"
        "    with torch.autocast(device_type=x.device.type, dtype=torch.bfloat16):\n"
        "        loss = loss_fn(model(x), y)\n"
        "    scaler.scale(loss).backward()\n"
        "    scaler.step(optimizer)\n"
        "    scaler.update()\n"
        "    return loss.detach()\n",
        # No zero_grad: gradients pile up from the second step on.
        "def amp_train_step(model, x, y, optimizer, scaler, loss_fn, dtype=torch.bfloat16):\n"
        "    with torch.autocast(device_type=x.device.type, dtype=dtype):\n"
        "        loss = loss_fn(model(x), y)\n"
        "    scaler.scale(loss).backward()\n"
        "    scaler.step(optimizer)\n"
        "    scaler.update()\n"
        "    return loss.detach()\n",
    ],
    "samples-per-second": [
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
    ],
}

RIGHT = {
    "to-device": [
        "def to_device(batch, device):\n"
        "    if torch.is_tensor(batch):\n"
        "        return batch.to(device)\n"
        "    if isinstance(batch, dict):\n"
        "        return {key: value.to(device) for key, value in batch.items()}\n"
        "    if isinstance(batch, tuple):\n"
        "        return tuple(value.to(device) for value in batch)\n"
        "    return [value.to(device) for value in batch]\n",
        "def to_device(batch, device):\n"
        "    move = lambda t: t.to(device, non_blocking=True)\n"
        "    if isinstance(batch, torch.Tensor):\n"
        "        return move(batch)\n"
        "    if isinstance(batch, dict):\n"
        "        return dict(zip(batch.keys(), map(move, batch.values())))\n"
        "    return type(batch)(map(move, batch))\n",
    ],
    "train-step": [
        "def train_step(model, batch, optimizer, loss_fn, device):\n"
        "    x, y = (t.to(device) for t in batch)\n"
        "    model.zero_grad(set_to_none=True)\n"
        "    output = model(x)\n"
        "    loss = loss_fn(output, y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    return loss.detach()\n",
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
    ],
    "autocast-forward": [
        "def autocast_forward(model, x):\n"
        "    with torch.amp.autocast(x.device.type, dtype=torch.bfloat16):\n"
        "        out = model(x)\n"
        "    return out\n",
        "def autocast_forward(model, x):\n"
        "    kind = next(model.parameters()).device.type\n"
        "    with torch.autocast(kind, torch.bfloat16, enabled=True):\n"
        "        return model(x)\n",
    ],
    "amp-train-step": [
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
    "samples-per-second": [
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
        "def samples_per_second(fn, batch_size, device, warmup=2, repeats=5):\n"
        "    for _ in range(warmup):\n"
        "        fn()\n"
        "    synchronize(device)\n"
        "    start = time.perf_counter()\n"
        "    for _ in range(repeats):\n"
        "        fn()\n"
        "    synchronize(device)\n"
        "    return batch_size * repeats / (time.perf_counter() - start)\n",
    ],
}
