"""Other answers for lesson 09, patterns (see autograder/variants.py)."""

_SEEDED_BODY = (
    "    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)\n"
    "    batches = InMemoryBatches(x, y, batch_size=64, generator=torch.Generator().manual_seed(seed))\n"
    "    return [train_one_epoch(model, batches, optimizer, loss_fn, x.device)[0] for _ in range(epochs)], model\n"
)

_SAVE_OK = '''
def save_checkpoint(path, model, optimizer, scheduler, epoch, loader_generator):
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
                "epoch": epoch, "torch_rng": torch.get_rng_state(), "loader_rng": loader_generator.get_state()}, path)
'''

_LOAD_OK = '''
def load_checkpoint(path, model, optimizer, scheduler, loader_generator):
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    torch.set_rng_state(state["torch_rng"])
    loader_generator.set_state(state["loader_rng"])
    return state["epoch"]
'''

WRONG = {
    "seeded-run": [
        # Seeds after the model is built: the initial weights are not repeatable.
        "def seeded_run(seed, x, y, epochs=1):\n    model = MNISTModel().to(x.device)\n    set_seed(seed)\n" + _SEEDED_BODY,
        # Ignores its argument: always seed 0 (passes the visible check, which uses seed 0).
        "def seeded_run(seed, x, y, epochs=1):\n    set_seed(0)\n    model = MNISTModel().to(x.device)\n"
        + _SEEDED_BODY.replace("manual_seed(seed)", "manual_seed(0)"),
        # Seeds Python's random only: torch draws are untouched.
        "def seeded_run(seed, x, y, epochs=1):\n    random.seed(seed)\n    model = MNISTModel().to(x.device)\n" + _SEEDED_BODY,
    ],
    "checkpoint": [
        # Weights, scheduler, epoch and RNG, but no optimizer state: momentum restarts at zero.
        _SAVE_OK.replace('"optimizer": optimizer.state_dict(), ', "")
        + _LOAD_OK.replace('    optimizer.load_state_dict(state["optimizer"])\n', ""),
        # No RNG states: dropout masks and shuffles of the first epochs are replayed.
        _SAVE_OK + _LOAD_OK.replace('    torch.set_rng_state(state["torch_rng"])\n    loader_generator.set_state(state["loader_rng"])\n', ""),
        # Restores the loader state into a new generator, not the one the batches use.
        _SAVE_OK + _LOAD_OK.replace('    loader_generator.set_state(state["loader_rng"])\n',
                                    '    loader_generator = torch.Generator()\n    loader_generator.set_state(state["loader_rng"])\n'),
        # Loads with weights_only=False (passes the visible check).
        _SAVE_OK + _LOAD_OK.replace("weights_only=True", "weights_only=False"),
        # Pickles the objects themselves (passes the visible check; the file needs weights_only=False).
        '''
def save_checkpoint(path, model, optimizer, scheduler, epoch, loader_generator):
    torch.save({"model": model, "optimizer": optimizer, "scheduler": scheduler, "epoch": epoch,
                "torch_rng": torch.get_rng_state(), "loader_rng": loader_generator.get_state()}, path)

def load_checkpoint(path, model, optimizer, scheduler, loader_generator):
    state = torch.load(path, weights_only=False)
    model.load_state_dict(state["model"].state_dict())
    optimizer.load_state_dict(state["optimizer"].state_dict())
    scheduler.load_state_dict(state["scheduler"].state_dict())
    torch.set_rng_state(state["torch_rng"])
    loader_generator.set_state(state["loader_rng"])
    return state["epoch"]
''',
    ],
    "clip-and-step": [
        # Clips each value, not the norm: changes the direction.
        "def clip_and_step(model, optimizer, max_norm):\n"
        "    norm = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters() if p.grad is not None))\n"
        "    torch.nn.utils.clip_grad_value_(model.parameters(), max_norm)\n"
        "    optimizer.step()\n    return float(norm)\n",
        # Steps before clipping: the update used the full gradient.
        "def clip_and_step(model, optimizer, max_norm):\n    optimizer.step()\n"
        "    return float(torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm))\n",
        # Returns the norm after clipping.
        "def clip_and_step(model, optimizer, max_norm):\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)\n    optimizer.step()\n"
        "    return float(torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters() if p.grad is not None)))\n",
        # Always rescales to max_norm, also when the norm is below it (passes the visible check).
        "def clip_and_step(model, optimizer, max_norm):\n"
        "    grads = [p.grad for p in model.parameters() if p.grad is not None]\n"
        "    norm = torch.sqrt(sum((g ** 2).sum() for g in grads))\n"
        "    for g in grads:\n        g.mul_(max_norm / norm)\n"
        "    optimizer.step()\n    return norm.item()\n",
        # Hand-written, forgets frozen parameters whose .grad is None (passes the visible check).
        "def clip_and_step(model, optimizer, max_norm):\n"
        "    norm = torch.stack([p.grad.norm() for p in model.parameters()]).norm()\n"
        "    if norm > max_norm:\n        for p in model.parameters():\n            p.grad.mul_(max_norm / norm)\n"
        "    optimizer.step()\n    return norm.item()\n",
        # Clips each tensor to max_norm on its own.
        "def clip_and_step(model, optimizer, max_norm):\n"
        "    norm = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters() if p.grad is not None))\n"
        "    for p in model.parameters():\n        torch.nn.utils.clip_grad_norm_([p], max_norm)\n"
        "    optimizer.step()\n    return float(norm)\n",
    ],
    "predict": [
        # no_grad only: dropout stays on.
        "def predict(model, x):\n    with torch.no_grad():\n        return model(x)\n",
        # eval() and never switches back.
        "def predict(model, x):\n    model.eval()\n    with torch.no_grad():\n        return model(x)\n",
        # Always switches training back on (passes the visible check, whose model was training).
        "def predict(model, x):\n    model.eval()\n    with torch.no_grad():\n        out = model(x)\n    model.train()\n    return out\n",
        # Eval mode but builds a graph.
        "def predict(model, x):\n    mode = model.training\n    model.eval()\n    out = model(x)\n    model.train(mode)\n    return out\n",
    ],
}

RIGHT = {
    "seeded-run": [
        # torch.manual_seed only, and batches shuffled by the (seeded) global generator.
        "def seeded_run(seed, x, y, epochs=1):\n    torch.manual_seed(seed)\n    model = MNISTModel().to(x.device)\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)\n"
        "    batches = InMemoryBatches(x, y, 64)\n    losses = []\n    for _ in range(epochs):\n"
        "        loss, _ = train_one_epoch(model, batches, opt, loss_fn, x.device)\n        losses.append(loss)\n"
        "    return losses, model\n",
        "def seeded_run(seed, x, y, epochs=1):\n    set_seed(seed)\n    model = MNISTModel().to(x.device)\n" + _SEEDED_BODY,
    ],
    "checkpoint": [
        _SAVE_OK + _LOAD_OK,
        # Nested dict, torch.random API, default weights_only (True since PyTorch 2.6), an open file.
        '''
def save_checkpoint(path, model, optimizer, scheduler, epoch, loader_generator):
    with open(path, "wb") as f:
        torch.save({"states": {"m": model.state_dict(), "o": optimizer.state_dict(), "s": scheduler.state_dict()},
                    "meta": {"epoch": int(epoch)},
                    "rng": [torch.random.get_rng_state(), loader_generator.get_state()]}, f)

def load_checkpoint(path, model, optimizer, scheduler, loader_generator):
    ckpt = torch.load(path, map_location="cpu")
    for obj, key in ((model, "m"), (optimizer, "o"), (scheduler, "s")):
        obj.load_state_dict(ckpt["states"][key])
    torch.random.set_rng_state(ckpt["rng"][0])
    loader_generator.set_state(ckpt["rng"][1])
    return ckpt["meta"]["epoch"]
''',
    ],
    "clip-and-step": [
        "def clip_and_step(model, optimizer, max_norm):\n"
        "    grads = [p.grad for p in model.parameters() if p.grad is not None]\n"
        "    total = torch.sqrt(sum((g.detach().double() ** 2).sum() for g in grads))\n"
        "    if total > max_norm:\n        for g in grads:\n            g.mul_(float(max_norm / total))\n"
        "    optimizer.step()\n    return total.item()\n",
        "def clip_and_step(model, optimizer, max_norm):\n"
        "    params = [p for p in model.parameters() if p.requires_grad]\n"
        "    norm = torch.nn.utils.clip_grad_norm_(params, max_norm=max_norm, norm_type=2.0).item()\n"
        "    optimizer.step()\n    return norm\n",
    ],
    "predict": [
        "def predict(model, x):\n    mode = model.training\n    model.train(False)\n"
        "    with torch.inference_mode():\n        logits = model(x)\n    model.train(mode)\n    return logits\n",
        "def predict(model, x):\n    modes = [(m, m.training) for m in model.modules()]\n    model.eval()\n"
        "    with torch.no_grad():\n        out = model(x)\n    for m, t in modes:\n        m.training = t\n    return out\n",
    ],
}
