"""Other answers for lesson 09, patterns (see autograder/authoring/variants.py), by class of mistake."""

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


# train_with_early_stopping as the solution writes it; variants change a line or two of it.
_STOPPING = (
    "def train_with_early_stopping(model, train_epoch, val_loss, max_epochs, patience):\n"
    "    best_loss, best_epoch, best_state, losses = math.inf, 0, None, []\n"
    "    for epoch in range(1, max_epochs + 1):\n"
    "        train_epoch()\n"
    "        losses.append(val_loss())\n"
    "        if losses[-1] < best_loss:\n"
    "            best_loss, best_epoch = losses[-1], epoch\n"
    "            best_state = copy.deepcopy(model.state_dict())\n"
    "        elif epoch - best_epoch >= patience:\n"
    "            break\n"
    "    if best_state is not None:\n"
    "        model.load_state_dict(best_state)\n"
    "    return best_epoch, losses\n"
)


def _stopping_with(*edits: tuple[str, str]) -> str:
    source = _STOPPING
    for old, new in edits:
        assert old in source, f"variant edit does not apply: {old!r}"
        source = source.replace(old, new)
    return source


def _clip(body: str) -> str:
    return "def clip_and_step(model, optimizer, max_norm, scaler=None):\n" + body


# A helper that copies every tensor of a nested state (dicts, lists, tuples) to the CPU, whatever the depth.
_TO_CPU = '''
def _to_cpu(value):
    if torch.is_tensor(value):
        return value.detach().cpu().clone()
    if isinstance(value, dict):
        return {k: _to_cpu(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_to_cpu(v) for v in value)
    return value
'''


WRONG = {
    "seeded-run": {
        "values": [
            # A new optimizer every epoch: the momentum restarts at zero each time.
            "def seeded_run(seed, x, y, epochs=1):\n    set_seed(seed)\n    model = MNISTModel().to(x.device)\n"
            "    batches = InMemoryBatches(x, y, batch_size=64, generator=torch.Generator().manual_seed(seed))\n"
            "    losses = []\n    for _ in range(epochs):\n"
            "        optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)\n"
            "        losses.append(train_one_epoch(model, batches, optimizer, loss_fn, x.device)[0])\n"
            "    return losses, model\n",
        ],
        "randomness": [
            # Seeds after the model is built: the initial weights are not repeatable.
            "def seeded_run(seed, x, y, epochs=1):\n    model = MNISTModel().to(x.device)\n    set_seed(seed)\n" + _SEEDED_BODY,
            # Ignores its argument: always seed 0 (passes the visible check, which uses seed 0).
            "def seeded_run(seed, x, y, epochs=1):\n    set_seed(0)\n    model = MNISTModel().to(x.device)\n"
            + _SEEDED_BODY.replace("manual_seed(seed)", "manual_seed(0)"),
            # Seeds Python's random only: torch draws are untouched.
            "def seeded_run(seed, x, y, epochs=1):\n    random.seed(seed)\n    model = MNISTModel().to(x.device)\n" + _SEEDED_BODY,
            # torch.manual_seed, but the batches shuffled by the global generator: repeatable, yet the shuffle order
            # depends on how many numbers the model drew (the exercise asks for a generator of the batches' own).
            "def seeded_run(seed, x, y, epochs=1):\n    torch.manual_seed(seed)\n    model = MNISTModel().to(x.device)\n"
            "    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)\n"
            "    batches = InMemoryBatches(x, y, 64)\n    losses = []\n    for _ in range(epochs):\n"
            "        loss, _ = train_one_epoch(model, batches, opt, loss_fn, x.device)\n        losses.append(loss)\n"
            "    return losses, model\n",
            # The seed folded into 16 bits "to keep it small": seeds that differ by a multiple of 65,536 give the same run.
            "def seeded_run(seed, x, y, epochs=1):\n    seed = seed % 2**16\n    set_seed(seed)\n"
            "    model = MNISTModel().to(x.device)\n" + _SEEDED_BODY,
            # The batches' generator seeded with a fixed number: every seed shuffles alike.
            "def seeded_run(seed, x, y, epochs=1):\n    set_seed(seed)\n    model = MNISTModel().to(x.device)\n"
            + _SEEDED_BODY.replace("manual_seed(seed)", "manual_seed(1234)"),
        ],
        "device": [
            # The model and the training on the notebook's global device instead of x.device.
            "def seeded_run(seed, x, y, epochs=1):\n    set_seed(seed)\n    model = MNISTModel().to(device)\n"
            + _SEEDED_BODY.replace("x.device", "device"),
            # The model never moved: right while the data is on the CPU, where the model is built.
            "def seeded_run(seed, x, y, epochs=1):\n    set_seed(seed)\n    model = MNISTModel()\n" + _SEEDED_BODY,
        ],
        "boundaries": [
            # At least one epoch, whatever epochs says: epochs=0 still trains.
            "def seeded_run(seed, x, y, epochs=1):\n    set_seed(seed)\n    model = MNISTModel().to(x.device)\n"
            + _SEEDED_BODY.replace("range(epochs)", "range(max(1, epochs))"),
            # The last, shorter batch dropped (drop_last=True): data of fewer than 64 rows gives no batch at all.
            "def seeded_run(seed, x, y, epochs=1):\n    set_seed(seed)\n    model = MNISTModel().to(x.device)\n"
            + _SEEDED_BODY.replace("manual_seed(seed))", "manual_seed(seed), drop_last=True)"),
        ],
    },
    "checkpoint": {
        "values": [
            # The epoch read back from the scheduler's own count, plus one "for the next epoch".
            _SAVE_OK + _LOAD_OK.replace('    return state["epoch"]\n', "    return scheduler.last_epoch + 1\n"),
            # Weights, scheduler, epoch and RNG, but no optimizer state: momentum restarts at zero.
            _SAVE_OK.replace('"optimizer": optimizer.state_dict(), ', "")
            + _LOAD_OK.replace('    optimizer.load_state_dict(state["optimizer"])\n', ""),
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
            # No scheduler state: the learning rate restarts at its first value.
            _SAVE_OK.replace('"scheduler": scheduler.state_dict(),\n               ', "\n               ")
            + _LOAD_OK.replace('    scheduler.load_state_dict(state["scheduler"])\n', ""),
        ],
        "randomness": [
            # The loader generator's seed saved instead of its state: the shuffles restart from the first epoch's.
            _SAVE_OK.replace('"loader_rng": loader_generator.get_state()', '"loader_seed": loader_generator.initial_seed()')
            + _LOAD_OK.replace('loader_generator.set_state(state["loader_rng"])', 'loader_generator.manual_seed(state["loader_seed"])'),
            # No RNG states: dropout masks and shuffles of the first epochs are replayed.
            _SAVE_OK + _LOAD_OK.replace('    torch.set_rng_state(state["torch_rng"])\n    loader_generator.set_state(state["loader_rng"])\n', ""),
            # Saves the global generator's state but never restores it: the dropout masks depend on whatever ran before.
            _SAVE_OK + _LOAD_OK.replace('    torch.set_rng_state(state["torch_rng"])\n', ""),
        ],
        "nesting": [
            # Every state moved to the CPU before saving, one level deep: the optimizer's state dict holds a dict of
            # per-parameter dicts and a list of groups, which have no .cpu().
            _SAVE_OK.replace("model.state_dict(), ", "{k: v.cpu() for k, v in model.state_dict().items()}, ")
            .replace("optimizer.state_dict(), ", "{k: v.cpu() for k, v in optimizer.state_dict().items()}, ") + _LOAD_OK,
            # The loaded optimizer state copied one level deep "to detach it from the file": its values are a dict of
            # per-parameter dicts and a list of groups, not tensors, and have no .clone().
            _SAVE_OK + _LOAD_OK.replace('    optimizer.load_state_dict(state["optimizer"])\n',
                                        '    optimizer.load_state_dict({k: v.clone() for k, v in state["optimizer"].items()})\n'),
        ],
    },
    "clip-and-step": {
        "values": [
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
            # The L1 norm (norm_type=1) instead of the total (L2) norm.
            _clip("    if scaler is not None:\n        scaler.unscale_(optimizer)\n"
                  "    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm, norm_type=1)\n"
                  "    if scaler is not None:\n        scaler.step(optimizer)\n        scaler.update()\n"
                  "    else:\n        optimizer.step()\n    return float(norm)\n"),
            # Only the first layer's gradients measured and clipped.
            _clip("    if scaler is not None:\n        scaler.unscale_(optimizer)\n"
                  "    norm = torch.nn.utils.clip_grad_norm_(next(model.children()).parameters(), max_norm)\n"
                  "    if scaler is not None:\n        scaler.step(optimizer)\n        scaler.update()\n"
                  "    else:\n        optimizer.step()\n    return float(norm)\n"),
        ],
        "amp": [
            # scaler.update() forgotten: the scale never drops after a skipped step.
            _clip("    if scaler is not None:\n        scaler.unscale_(optimizer)\n"
                  "    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)\n"
                  "    if scaler is not None:\n        scaler.step(optimizer)\n"
                  "    else:\n        optimizer.step()\n    return float(norm)\n"),
            # The scaled gradients clipped: max_norm meets a norm 65,536 times too large, the true step almost vanishes.
            _clip("    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)\n"
                  "    if scaler is not None:\n        scaler.step(optimizer)\n        scaler.update()\n"
                  "    else:\n        optimizer.step()\n    return float(norm)\n"),
            # unscale_ after clipping: the clipping still saw the scaled gradients.
            _clip("    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)\n"
                  "    if scaler is not None:\n        scaler.unscale_(optimizer)\n        scaler.step(optimizer)\n"
                  "        scaler.update()\n    else:\n        optimizer.step()\n    return float(norm)\n"),
            # Divides by the scale by hand, then scaler.step divides a second time.
            _clip("    if scaler is not None:\n        for p in model.parameters():\n            if p.grad is not None:\n"
                  "                p.grad.div_(scaler.get_scale())\n"
                  "    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)\n"
                  "    if scaler is not None:\n        scaler.step(optimizer)\n        scaler.update()\n"
                  "    else:\n        optimizer.step()\n    return float(norm)\n"),
            # Unscales, then steps the optimizer itself: a gradient that is inf goes into the weights, and the scale
            # never moves.
            _clip("    if scaler is not None:\n        scaler.unscale_(optimizer)\n"
                  "    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)\n"
                  "    optimizer.step()\n    return float(norm)\n"),
        ],
    },
    "early-stopping": {
        "values": [
            # The state dict itself, not a copy: it moves on with the model, so the last epoch's weights come back.
            _stopping_with(("copy.deepcopy(model.state_dict())", "model.state_dict()")),
            # Never loads the best state back: the model keeps the last epoch's weights.
            _stopping_with(("    if best_state is not None:\n        model.load_state_dict(best_state)\n", "")),
            # A copy of the whole model, then `model = best_model`: only a local name changes, the caller's model does not.
            _stopping_with(("best_state = copy.deepcopy(model.state_dict())", "best_state = copy.deepcopy(model)"),
                           ("        model.load_state_dict(best_state)\n", "        model = best_state\n")),
            # Only the parameters are kept and restored: BatchNorm's running statistics stay those of the last epoch.
            _stopping_with(("best_state = copy.deepcopy(model.state_dict())",
                            "best_state = [p.detach().clone() for p in model.parameters()]"),
                           ("        model.load_state_dict(best_state)\n",
                            "        with torch.no_grad():\n"
                            "            for p, kept in zip(model.parameters(), best_state):\n"
                            "                p.copy_(kept)\n")),
            # The best epoch counted from 0.
            _stopping_with(("    return best_epoch, losses\n", "    return best_epoch - 1, losses\n")),
            # val_loss() called a second time to compare: each call measures again (here: the next epoch's figure).
            _stopping_with(("        if losses[-1] < best_loss:\n            best_loss, best_epoch = losses[-1], epoch\n",
                            "        if val_loss() < best_loss:\n            best_loss, best_epoch = losses[-1], epoch\n")),
        ],
        "boundaries": [
            # <= : a validation loss equal to the best counts as a new best (a later, equal epoch replaces it).
            _stopping_with(("if losses[-1] < best_loss:", "if losses[-1] <= best_loss:")),
            # Waits one epoch too many before stopping.
            _stopping_with(("elif epoch - best_epoch >= patience:", "elif epoch - best_epoch > patience:")),
            # Stops one epoch too early.
            _stopping_with(("elif epoch - best_epoch >= patience:", "elif epoch - best_epoch >= patience - 1:")),
            # One epoch short of max_epochs.
            _stopping_with(("range(1, max_epochs + 1)", "range(1, max_epochs)")),
        ],
        "nesting": [
            # A new dict around the same tensors: the dict is copied, the tensors inside it are not.
            _stopping_with(("copy.deepcopy(model.state_dict())", "dict(model.state_dict())")),
            _stopping_with(("copy.deepcopy(model.state_dict())", "model.state_dict().copy()")),
        ],
        "provenance": [
            # The epoch chosen on the training loss, which keeps falling, instead of the validation loss.
            _stopping_with(("        train_epoch()\n        losses.append(val_loss())\n        if losses[-1] < best_loss:\n"
                            "            best_loss, best_epoch = losses[-1], epoch\n",
                            "        trained = train_epoch()\n        losses.append(val_loss())\n        if trained < best_loss:\n"
                            "            best_loss, best_epoch = trained, epoch\n")),
        ],
    },
}

RIGHT = {
    "seeded-run": {
        "values": [
            # set_seed, then the generator seeded by hand.
            "def seeded_run(seed, x, y, epochs=1):\n    set_seed(seed)\n    model = MNISTModel().to(x.device)\n" + _SEEDED_BODY,
        ],
        "boundaries": [
            # Epochs counted from 1 to epochs (none for epochs=0), and the last, shorter batch kept by saying so
            # (drop_last=False): the words' boundaries read the other way round, with the same run.
            "def seeded_run(seed, x, y, epochs=1):\n    set_seed(seed)\n    model = MNISTModel().to(x.device)\n"
            + _SEEDED_BODY.replace("manual_seed(seed))", "manual_seed(seed), drop_last=False)")
                          .replace("for _ in range(epochs)", "for _epoch in range(1, epochs + 1)"),
        ],
        "randomness": [
            # torch.manual_seed only (the recipe draws from torch alone), and a generator seeded in two steps.
            "def seeded_run(seed, x, y, epochs=1):\n    torch.manual_seed(seed)\n"
            "    g = torch.Generator()\n    g.manual_seed(seed)\n"
            "    model = MNISTModel().to(x.device)\n"
            "    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)\n"
            "    batches = InMemoryBatches(x, y, 64, generator=g)\n    losses = []\n    for _ in range(epochs):\n"
            "        loss, _ = train_one_epoch(model, batches, opt, loss_fn, x.device)\n        losses.append(loss)\n"
            "    return losses, model\n",
            # The generator returned by set_seed (the solution's way).
            "def seeded_run(seed, x, y, epochs=1):\n    loader_generator = set_seed(seed)\n    model = MNISTModel().to(x.device)\n"
            + _SEEDED_BODY.replace("torch.Generator().manual_seed(seed)", "loader_generator"),
        ],
        "device": [
            # The device read once from x into a local variable.
            "def seeded_run(seed, x, y, epochs=1):\n    here = x.device\n    set_seed(seed)\n    model = MNISTModel().to(here)\n"
            + _SEEDED_BODY.replace("x.device", "here"),
        ],
    },
    "checkpoint": {
        "values": [
            _SAVE_OK + _LOAD_OK,
        ],
        "randomness": [
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
            # The scheduler's state restored before the optimizer's, and the generators' before the model's weights.
            _SAVE_OK + "\ndef load_checkpoint(path, model, optimizer, scheduler, loader_generator):\n"
            "    state = torch.load(path, weights_only=True)\n    scheduler.load_state_dict(state['scheduler'])\n"
            "    optimizer.load_state_dict(state['optimizer'])\n    loader_generator.set_state(state['loader_rng'])\n"
            "    torch.set_rng_state(state['torch_rng'])\n    model.load_state_dict(state['model'])\n    return state['epoch']\n",
            # The model's weights loaded last, after the generators' states.
            _SAVE_OK + _LOAD_OK.replace('    model.load_state_dict(state["model"])\n', "")
                               .replace('    return state["epoch"]\n', '    model.load_state_dict(state["model"])\n    return state["epoch"]\n'),
        ],
        "nesting": [
            # Every tensor of every state copied to the CPU before saving, at every depth (the optimizer's state is a
            # dict of per-parameter dicts, its groups a list of dicts).
            _TO_CPU + _SAVE_OK.replace("model.state_dict(), ", "_to_cpu(model.state_dict()), ")
            .replace("optimizer.state_dict(), ", "_to_cpu(optimizer.state_dict()), ") + _LOAD_OK,
            # The loaded states deep-copied before they are restored.
            _SAVE_OK + _LOAD_OK.replace('    state = torch.load(path, weights_only=True)\n',
                                        '    state = copy.deepcopy(torch.load(path, weights_only=True))\n'),
        ],
    },
    "clip-and-step": {
        "values": [
            # By hand in float64, only when the norm is too large (an inf norm clips every gradient to nan, as
            # clip_grad_norm_ does).
            _clip("    if scaler is not None:\n        scaler.unscale_(optimizer)\n"
                  "    grads = [p.grad for p in model.parameters() if p.grad is not None]\n"
                  "    total = torch.sqrt(sum((g.detach().double() ** 2).sum() for g in grads))\n"
                  "    if total > max_norm:\n        for g in grads:\n            g.mul_(float(max_norm / total))\n"
                  "    if scaler is not None:\n        scaler.step(optimizer)\n        scaler.update()\n"
                  "    else:\n        optimizer.step()\n    return total.item()\n"),
            # clip_grad_norm_ on the trainable parameters, keyword arguments.
            _clip("    if scaler is not None:\n        scaler.unscale_(optimizer)\n"
                  "    params = [p for p in model.parameters() if p.requires_grad]\n"
                  "    norm = torch.nn.utils.clip_grad_norm_(params, max_norm=max_norm, norm_type=2.0).item()\n"
                  "    if scaler is None:\n        optimizer.step()\n        return norm\n"
                  "    scaler.step(optimizer)\n    scaler.update()\n    return norm\n"),
        ],
        "amp": [
            # Two paths written out, the scaler's first; the norm as a Python float from .item().
            _clip("    if scaler is None:\n"
                  "        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)\n"
                  "        optimizer.step()\n        return norm.item()\n"
                  "    scaler.unscale_(optimizer)\n"
                  "    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)\n"
                  "    scaler.step(optimizer)\n    scaler.update()\n    return norm.item()\n"),
            # A scaler made "disabled" when none is given: GradScaler(enabled=False) passes every call through.
            _clip("    scaler = scaler if scaler is not None else torch.amp.GradScaler('cpu', enabled=False)\n"
                  "    scaler.unscale_(optimizer)\n"
                  "    norm = float(torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm))\n"
                  "    scaler.step(optimizer)\n    scaler.update()\n    return norm\n"),
        ],
    },
    "early-stopping": {
        "values": [
            # Every tensor cloned by hand.
            _stopping_with(("copy.deepcopy(model.state_dict())", "{k: v.detach().clone() for k, v in model.state_dict().items()}")),
            # A copy of the whole model, whose state is loaded back into the caller's model.
            _stopping_with(("best_state = copy.deepcopy(model.state_dict())", "best_state = copy.deepcopy(model)"),
                           ("model.load_state_dict(best_state)", "model.load_state_dict(best_state.state_dict())")),
            # A checkpoint on disk, read back with weights_only=True.
            "def train_with_early_stopping(model, train_epoch, val_loss, max_epochs, patience):\n"
            "    folder = tempfile.mkdtemp()\n"
            "    path = os.path.join(folder, 'best.pt')\n"
            "    best, best_epoch, losses = None, 0, []\n"
            "    for epoch in range(1, max_epochs + 1):\n"
            "        train_epoch()\n"
            "        loss = val_loss()\n"
            "        losses.append(loss)\n"
            "        if best is None or loss < best:\n"
            "            best, best_epoch = loss, epoch\n"
            "            torch.save(model.state_dict(), path)\n"
            "        if epoch - best_epoch >= patience:\n"
            "            break\n"
            "    if best_epoch:\n"
            "        model.load_state_dict(torch.load(path, weights_only=True))\n"
            "    return best_epoch, losses\n",
        ],
        "boundaries": [
            # A counter of epochs without improvement, reset at each new best; a while loop.
            "def train_with_early_stopping(model, train_epoch, val_loss, max_epochs, patience):\n"
            "    losses, best_epoch, best_state, waited = [], 0, None, 0\n"
            "    while len(losses) < max_epochs and waited < patience:\n"
            "        train_epoch()\n"
            "        losses.append(val_loss())\n"
            "        if best_state is None or losses[-1] < min(losses[:-1]):\n"
            "            best_epoch, best_state, waited = len(losses), copy.deepcopy(model.state_dict()), 0\n"
            "        else:\n"
            "            waited += 1\n"
            "    model.load_state_dict(best_state)\n"
            "    return best_epoch, losses\n",
            # Epochs counted from 0 inside, from 1 in what is returned.
            _stopping_with(("    for epoch in range(1, max_epochs + 1):\n", "    for epoch in range(max_epochs):\n"),
                           ("best_loss, best_epoch = losses[-1], epoch\n", "best_loss, best_epoch = losses[-1], epoch + 1\n"),
                           ("elif epoch - best_epoch >= patience:", "elif epoch + 1 - best_epoch >= patience:")),
        ],
        "nesting": [
            # The state copied item by item into a new dict of clones.
            _stopping_with(("copy.deepcopy(model.state_dict())",
                            "{name: tensor.clone() for name, tensor in model.state_dict().items()}")),
        ],
        "provenance": [
            # The training loss kept too, and ignored for the choice.
            _stopping_with(("        train_epoch()\n", "        trained = train_epoch()\n"),
                           ("        if losses[-1] < best_loss:\n", "        if losses[-1] < best_loss and trained is not None:\n")),
        ],
    },
}

NOT_TESTED = {
    "seeded-run": {
        "aggregation": "the per-epoch losses are train_one_epoch's own mean, which the exercise says to call: the answer "
                       "writes no mean of its own (a hand-written epoch would change the exact run the values row "
                       "compares anyway).",
    },
    "clip-and-step": {
        "stability": "torch's own clip_grad_norm_ sums squares in float32 and returns inf for gradients around 1e19 "
                     "and above, so a large-gradient test would fail the answer the exercise asks for.",
        "boundaries": "at a total norm exactly equal to max_norm, clipping multiplies every gradient by max_norm / norm "
                      "= 1 (clip_grad_norm_ by a factor within 1e-6 of it), so clipping with > or with >= leaves the "
                      "same gradients: there is no limit an answer can get wrong.",
    },
    "checkpoint": {
        "device": "on a CPU runner every tensor is on the CPU; a checkpoint written on a GPU and read elsewhere needs "
                  "map_location, which the lesson mentions but the exercise does not ask for.",
    },
    "early-stopping": {
        "device": "the best state may be kept on any device (a copy on the CPU saves GPU memory): load_state_dict copies "
                  "it back into the model's own tensors wherever they live, so no placement is wrong.",
        "modes": "train_epoch() and val_loss() set the modes they need; the function itself runs no forward pass.",
    },
}
