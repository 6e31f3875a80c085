"""Other answers for exercise 5, SGD with momentum against Adam (see autograder/authoring/variants.py), by class of mistake."""


def _own_loop(train_loss: str, drop_last: bool = False) -> str:
    """train_recipe with a training loop of its own, whose per-epoch training loss is the expression ``train_loss`` of
    the lists ``losses`` (batch means) and ``sizes`` (batch sizes)."""
    drop = ", drop_last=True" if drop_last else ""
    return ("from coursekit.mnist import InMemoryBatches, evaluate\n"
            "def train_recipe(name, train, val, epochs, device, seed=0, batch_size=64, progress=True):\n"
            "    set_seed(seed)\n"
            "    model = MNISTModel().to(device)\n"
            "    optimizer, scheduler = make_recipe(name, model, epochs)\n"
            f"    batches = InMemoryBatches(*train, batch_size=batch_size, generator=torch.Generator().manual_seed(seed){drop})\n"
            "    loss_fn = torch.nn.CrossEntropyLoss()\n"
            "    history = {'train_loss': [], 'train_acc': [], 'val_loss': [], 'val_acc': []}\n"
            "    for _ in range(epochs):\n"
            "        model.train()\n"
            "        losses, hits, sizes = [], 0, []\n"
            "        for x, y in batches:\n"
            "            x, y = x.to(device), y.to(device)\n"
            "            optimizer.zero_grad()\n"
            "            logits = model(x)\n"
            "            loss = loss_fn(logits, y)\n"
            "            loss.backward()\n"
            "            optimizer.step()\n"
            "            losses.append(loss.item())\n"
            "            hits += (logits.argmax(dim=1) == y).sum().item()\n"
            "            sizes.append(len(y))\n"
            "        if scheduler is not None:\n"
            "            scheduler.step()\n"
            f"        history['train_loss'].append({train_loss})\n"
            "        history['train_acc'].append(hits / sum(sizes))\n"
            "        for key, value in zip(('val_loss', 'val_acc'), evaluate(model, *val, loss_fn, device)):\n"
            "            history[key].append(value)\n"
            "    return history\n")

WRONG = {
    "make-optimizer": {"values": [
        # Momentum forgotten: plain SGD.
        "def make_optimizer(name, params):\n"
        "    if name in ('sgd', 'sgd+cosine'):\n        return torch.optim.SGD(params, lr=0.01)\n"
        "    if name == 'adam':\n        return torch.optim.Adam(params, lr=1e-3)\n"
        "    raise ValueError(name)\n",
        # Nesterov switched on: passes the visible checks.
        "def make_optimizer(name, params):\n"
        "    if name in ('sgd', 'sgd+cosine'):\n        return torch.optim.SGD(params, lr=0.01, momentum=0.9, nesterov=True)\n"
        "    if name == 'adam':\n        return torch.optim.Adam(params, lr=1e-3)\n"
        "    raise ValueError(name)\n",
        # Learning rate 0.1 for SGD.
        "def make_optimizer(name, params):\n"
        "    if name in ('sgd', 'sgd+cosine'):\n        return torch.optim.SGD(params, lr=0.1, momentum=0.9)\n"
        "    if name == 'adam':\n        return torch.optim.Adam(params, lr=1e-3)\n"
        "    raise ValueError(name)\n",
        # Weight decay added "for good measure": passes the visible checks.
        "def make_optimizer(name, params):\n"
        "    if name in ('sgd', 'sgd+cosine'):\n        return torch.optim.SGD(params, lr=0.01, momentum=0.9, weight_decay=5e-4)\n"
        "    if name == 'adam':\n        return torch.optim.Adam(params, lr=1e-3)\n"
        "    raise ValueError(name)\n",
        # Adam at 1e-2.
        "def make_optimizer(name, params):\n"
        "    if name in ('sgd', 'sgd+cosine'):\n        return torch.optim.SGD(params, lr=0.01, momentum=0.9)\n"
        "    if name == 'adam':\n        return torch.optim.Adam(params, lr=1e-2)\n"
        "    raise ValueError(name)\n",
        # AdamW is not Adam (decoupled weight decay 0.01 by default), though it passes isinstance(Adam).
        "def make_optimizer(name, params):\n"
        "    if name in ('sgd', 'sgd+cosine'):\n        return torch.optim.SGD(params, lr=0.01, momentum=0.9)\n"
        "    if name == 'adam':\n        return torch.optim.AdamW(params, lr=1e-3)\n"
        "    raise ValueError(name)\n",
        # Any unknown name silently becomes Adam.
        "def make_optimizer(name, params):\n"
        "    if name in ('sgd', 'sgd+cosine'):\n        return torch.optim.SGD(params, lr=0.01, momentum=0.9)\n"
        "    return torch.optim.Adam(params, lr=1e-3)\n",
        # A table of constructors: an unknown name raises the dict's KeyError, where the words say ValueError.
        "def make_optimizer(name, params):\n"
        "    recipes = {'sgd': lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.9),\n"
        "               'sgd+cosine': lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.9),\n"
        "               'adam': lambda p: torch.optim.Adam(p, lr=1e-3)}\n"
        "    return recipes[name](params)\n",
        # The name tidied first ("to be forgiving"): ' sgd' and 'adam ' become recipes, where only the three names are.
        "def make_optimizer(name, params):\n"
        "    name = name.strip()\n"
        "    if name in ('sgd', 'sgd+cosine'):\n        return torch.optim.SGD(params, lr=0.01, momentum=0.9)\n"
        "    if name == 'adam':\n        return torch.optim.Adam(params, lr=1e-3)\n"
        "    raise ValueError(name)\n",
        # Recipes told apart by a part of the name: 'sgd+cos', 'sgdcosine' or 'adamw' pass as recipes.
        "def make_optimizer(name, params):\n"
        "    if name.startswith('sgd'):\n        return torch.optim.SGD(params, lr=0.01, momentum=0.9)\n"
        "    if 'adam' in name:\n        return torch.optim.Adam(params, lr=1e-3)\n"
        "    raise ValueError(name)\n",
        # Refuses an unknown name with another error than the words say.
        "def make_optimizer(name, params):\n"
        "    if name in ('sgd', 'sgd+cosine'):\n        return torch.optim.SGD(params, lr=0.01, momentum=0.9)\n"
        "    if name == 'adam':\n        return torch.optim.Adam(params, lr=1e-3)\n"
        "    raise NotImplementedError(f'no recipe {name!r}')\n",
    ]},
    "cosine-lr": {"values": [
        # Sine instead of cosine.
        "def cosine_lr(base_lr, epoch, T_max, eta_min=0.0):\n"
        "    return eta_min + (base_lr - eta_min) * (1 + math.sin(math.pi * epoch / T_max)) / 2\n",
        # The 1/2 forgotten.
        "def cosine_lr(base_lr, epoch, T_max, eta_min=0.0):\n"
        "    return eta_min + (base_lr - eta_min) * (1 + math.cos(math.pi * epoch / T_max))\n",
        # eta_min ignored: right whenever eta_min is 0, so the visible check passes.
        "def cosine_lr(base_lr, epoch, T_max, eta_min=0.0):\n"
        "    return base_lr * (1 + math.cos(math.pi * epoch / T_max)) / 2\n",
        # eta_min only added, not subtracted from the amplitude: visible check passes.
        "def cosine_lr(base_lr, epoch, T_max, eta_min=0.0):\n"
        "    return eta_min + base_lr * (1 + math.cos(math.pi * epoch / T_max)) / 2\n",
        # pi forgotten.
        "def cosine_lr(base_lr, epoch, T_max, eta_min=0.0):\n"
        "    return eta_min + (base_lr - eta_min) * (1 + math.cos(epoch / T_max)) / 2\n",
        # Off by one epoch.
        "def cosine_lr(base_lr, epoch, T_max, eta_min=0.0):\n"
        "    return eta_min + (base_lr - eta_min) * (1 + math.cos(math.pi * (epoch + 1) / T_max)) / 2\n",
        # Rounded "to keep the printout tidy": 5 decimals lose a small rate's digits.
        "def cosine_lr(base_lr, epoch, T_max, eta_min=0.0):\n"
        "    return round(eta_min + (base_lr - eta_min) * (1 + math.cos(math.pi * epoch / T_max)) / 2, 5)\n",
        # The progress through the schedule in whole epochs first: epoch // T_max is 0 until the very end.
        "def cosine_lr(base_lr, epoch, T_max, eta_min=0.0):\n"
        "    return eta_min + (base_lr - eta_min) * (1 + math.cos(math.pi * (epoch // T_max))) / 2\n",
        # A floor of its own as the default eta_min, "so that the rate never reaches 0".
        "def cosine_lr(base_lr, epoch, T_max, eta_min=1e-6):\n"
        "    return eta_min + (base_lr - eta_min) * (1 + math.cos(math.pi * epoch / T_max)) / 2\n",
    ]},
    "make-recipe": {"values": [
        # T_max hard-coded to 10: right for the 10-epoch runs only, so the visible check passes.
        "def make_recipe(name, model, epochs):\n"
        "    optimizer = make_optimizer(name, model.parameters())\n"
        "    if name == 'sgd+cosine':\n"
        "        return optimizer, torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)\n"
        "    return optimizer, None\n",
        # T_max counted in batches while the scheduler steps once per epoch.
        "def make_recipe(name, model, epochs):\n"
        "    optimizer = make_optimizer(name, model.parameters())\n"
        "    if name == 'sgd+cosine':\n"
        "        return optimizer, torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs * 938)\n"
        "    return optimizer, None\n",
        # T_max = epochs - 1 (the last epoch's index).
        "def make_recipe(name, model, epochs):\n"
        "    optimizer = make_optimizer(name, model.parameters())\n"
        "    if name == 'sgd+cosine':\n"
        "        return optimizer, torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=max(epochs - 1, 1))\n"
        "    return optimizer, None\n",
        # The scheduler drives a second optimizer, not the one returned.
        "def make_recipe(name, model, epochs):\n"
        "    optimizer = make_optimizer(name, model.parameters())\n"
        "    if name == 'sgd+cosine':\n"
        "        return optimizer, torch.optim.lr_scheduler.CosineAnnealingLR(make_optimizer(name, model.parameters()), T_max=epochs)\n"
        "    return optimizer, None\n",
        # A cosine schedule for every recipe, Adam included.
        "def make_recipe(name, model, epochs):\n"
        "    optimizer = make_optimizer(name, model.parameters())\n"
        "    return optimizer, torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)\n",
        # The optimizer built over a copy of the model: the scheduler drives it, but the model it is given never trains.
        "import copy\n"
        "def make_recipe(name, model, epochs):\n"
        "    optimizer = make_optimizer(name, copy.deepcopy(model).parameters())\n"
        "    if name == 'sgd+cosine':\n"
        "        return optimizer, torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)\n"
        "    return optimizer, None\n",
        # A schedule for the SGD recipes, the plain one included.
        "def make_recipe(name, model, epochs):\n"
        "    optimizer = make_optimizer(name, model.parameters())\n"
        "    if name.startswith('sgd'):\n"
        "        return optimizer, torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)\n"
        "    return optimizer, None\n",
        # SGD rebuilt by hand with Nesterov: passes the visible check.
        "def make_recipe(name, model, epochs):\n"
        "    if name == 'sgd+cosine':\n"
        "        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, nesterov=True)\n"
        "        return optimizer, torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)\n"
        "    return make_optimizer(name, model.parameters()), None\n",
    ]},
    "train-recipe": {"values": [
        # Scheduler stepped per batch: T_max=epochs then runs out after a few batches. Passes the visible check.
        "def train_recipe(name, train, val, epochs, device, seed=0, batch_size=64, progress=True):\n"
        "    set_seed(seed)\n"
        "    model = MNISTModel().to(device)\n"
        "    optimizer, scheduler = make_recipe(name, model, epochs)\n"
        "    return fit(model, train, val, epochs=epochs, optimizer=optimizer, device=device, batch_size=batch_size,\n"
        "               seed=seed, scheduler=scheduler, scheduler_per='batch', progress=progress)\n",
        # A hand-written loop that hands the scheduler to train_one_epoch, which steps it per batch.
        "from coursekit.mnist import InMemoryBatches, evaluate, train_one_epoch\n"
        "def train_recipe(name, train, val, epochs, device, seed=0, batch_size=64, progress=True):\n"
        "    set_seed(seed)\n"
        "    model = MNISTModel().to(device)\n"
        "    optimizer, scheduler = make_recipe(name, model, epochs)\n"
        "    batches = InMemoryBatches(*train, batch_size=batch_size, generator=torch.Generator().manual_seed(seed))\n"
        "    loss_fn = torch.nn.CrossEntropyLoss()\n"
        "    history = {'train_loss': [], 'train_acc': [], 'val_loss': [], 'val_acc': []}\n"
        "    for _ in range(epochs):\n"
        "        tr = train_one_epoch(model, batches, optimizer, loss_fn, device, scheduler)\n"
        "        te = evaluate(model, *val, loss_fn, device)\n"
        "        for key, value in zip(history, tr + te):\n"
        "            history[key].append(value)\n"
        "    return history\n",
        # The scheduler is built but never given to fit: the learning rate stays at 0.01.
        "def train_recipe(name, train, val, epochs, device, seed=0, batch_size=64, progress=True):\n"
        "    set_seed(seed)\n"
        "    model = MNISTModel().to(device)\n"
        "    optimizer, scheduler = make_recipe(name, model, epochs)\n"
        "    return fit(model, train, val, epochs=epochs, optimizer=optimizer, device=device, batch_size=batch_size,\n"
        "               seed=seed, progress=progress)\n",
        # The recipe built for 10 epochs whatever the run's length.
        "def train_recipe(name, train, val, epochs, device, seed=0, batch_size=64, progress=True):\n"
        "    set_seed(seed)\n"
        "    model = MNISTModel().to(device)\n"
        "    optimizer, scheduler = make_recipe(name, model, 10)\n"
        "    return fit(model, train, val, epochs=epochs, optimizer=optimizer, device=device, batch_size=batch_size,\n"
        "               seed=seed, scheduler=scheduler, progress=progress)\n",
    ], "randomness": [
        # Seeded after the model is built: every run starts from different weights.
        "def train_recipe(name, train, val, epochs, device, seed=0, batch_size=64, progress=True):\n"
        "    model = MNISTModel().to(device)\n"
        "    set_seed(seed)\n"
        "    optimizer, scheduler = make_recipe(name, model, epochs)\n"
        "    return fit(model, train, val, epochs=epochs, optimizer=optimizer, device=device, batch_size=batch_size,\n"
        "               seed=seed, scheduler=scheduler, progress=progress)\n",
        # fit without seed=seed: every run shuffles its batches in fit's default order (seed 0).
        "def train_recipe(name, train, val, epochs, device, seed=0, batch_size=64, progress=True):\n"
        "    set_seed(seed)\n"
        "    model = MNISTModel().to(device)\n"
        "    optimizer, scheduler = make_recipe(name, model, epochs)\n"
        "    return fit(model, train, val, epochs=epochs, optimizer=optimizer, device=device, batch_size=batch_size,\n"
        "               scheduler=scheduler, progress=progress)\n",
        # A hand-written loop whose batches shuffle with the global generator (no generator=...): not the seed's order.
        "from coursekit.mnist import InMemoryBatches, evaluate, train_one_epoch\n"
        "def train_recipe(name, train, val, epochs, device, seed=0, batch_size=64, progress=True):\n"
        "    set_seed(seed)\n"
        "    model = MNISTModel().to(device)\n"
        "    optimizer, scheduler = make_recipe(name, model, epochs)\n"
        "    batches = InMemoryBatches(*train, batch_size=batch_size)\n"
        "    loss_fn = torch.nn.CrossEntropyLoss()\n"
        "    history = {'train_loss': [], 'train_acc': [], 'val_loss': [], 'val_acc': []}\n"
        "    for _ in range(epochs):\n"
        "        tr = train_one_epoch(model, batches, optimizer, loss_fn, device)\n"
        "        if scheduler is not None:\n            scheduler.step()\n"
        "        te = evaluate(model, *val, loss_fn, device)\n"
        "        for key, value in zip(history, tr + te):\n"
        "            history[key].append(value)\n"
        "    return history\n",
    ], "device": [
        # Chooses its own device inside the function instead of using the `device` it is given.
        "def train_recipe(name, train, val, epochs, device, seed=0, batch_size=64, progress=True):\n"
        "    set_seed(seed)\n"
        "    dev = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        "    model = MNISTModel().to(dev)\n"
        "    optimizer, scheduler = make_recipe(name, model, epochs)\n"
        "    return fit(model, train, val, epochs=epochs, optimizer=optimizer, device=dev, batch_size=batch_size,\n"
        "               seed=seed, scheduler=scheduler, progress=progress)\n",
        # The CPU written in: right by accident on a CPU-only machine, wrong for any other device it is given.
        "def train_recipe(name, train, val, epochs, device, seed=0, batch_size=64, progress=True):\n"
        "    set_seed(seed)\n"
        "    model = MNISTModel()\n"
        "    optimizer, scheduler = make_recipe(name, model, epochs)\n"
        "    return fit(model, train, val, epochs=epochs, optimizer=optimizer, device=torch.device('cpu'),\n"
        "               batch_size=batch_size, seed=seed, scheduler=scheduler, progress=progress)\n",
    ], "aggregation": [
        # A loop of its own whose training loss is the sum of the batch losses, not their mean.
        _own_loop('sum(losses)'),
        # A loop of its own whose training loss is the plain mean of the batch means: the last, smaller batch weighs as much as a full one.
        _own_loop('sum(losses) / len(losses)'),
        # A loop of its own over batches with drop_last=True: the last, smaller batch is never trained on or counted.
        _own_loop('sum(l * n for l, n in zip(losses, sizes)) / sum(sizes)', drop_last=True),
    ], "provenance": [
        # The validation figures measured on the training data it was given.
        "def train_recipe(name, train, val, epochs, device, seed=0, batch_size=64, progress=True):\n"
        "    set_seed(seed)\n"
        "    model = MNISTModel().to(device)\n"
        "    optimizer, scheduler = make_recipe(name, model, epochs)\n"
        "    return fit(model, train, train, epochs=epochs, optimizer=optimizer, device=device, batch_size=batch_size,\n"
        "               seed=seed, scheduler=scheduler, progress=progress)\n",
        # Only the first 1,000 validation images measured, "to save time": right whenever `val` is smaller.
        "def train_recipe(name, train, val, epochs, device, seed=0, batch_size=64, progress=True):\n"
        "    set_seed(seed)\n"
        "    model = MNISTModel().to(device)\n"
        "    optimizer, scheduler = make_recipe(name, model, epochs)\n"
        "    return fit(model, train, (val[0][:1000], val[1][:1000]), epochs=epochs, optimizer=optimizer, device=device,\n"
        "               batch_size=batch_size, seed=seed, scheduler=scheduler, progress=progress)\n",
        # The notebook's whole validation set instead of the `val` it was given: right for the notebook's own runs only.
        "def train_recipe(name, train, val, epochs, device, seed=0, batch_size=64, progress=True):\n"
        "    set_seed(seed)\n"
        "    model = MNISTModel().to(device)\n"
        "    optimizer, scheduler = make_recipe(name, model, epochs)\n"
        "    return fit(model, train, (x_val, y_val), epochs=epochs, optimizer=optimizer, device=device,\n"
        "               batch_size=batch_size, seed=seed, scheduler=scheduler, progress=progress)\n",
    ], "leakage": [
        # The validation images added to the training data ("more data"): the figures it is chosen on measure images
        # it learned.
        "def train_recipe(name, train, val, epochs, device, seed=0, batch_size=64, progress=True):\n"
        "    set_seed(seed)\n"
        "    model = MNISTModel().to(device)\n"
        "    optimizer, scheduler = make_recipe(name, model, epochs)\n"
        "    both = torch.cat([train[0], val[0]]), torch.cat([train[1], val[1]])\n"
        "    return fit(model, both, val, epochs=epochs, optimizer=optimizer, device=device, batch_size=batch_size,\n"
        "               seed=seed, scheduler=scheduler, progress=progress)\n",
        # The notebook's whole training file instead of the `train` it was given: the validation images are in it.
        "def train_recipe(name, train, val, epochs, device, seed=0, batch_size=64, progress=True):\n"
        "    set_seed(seed)\n"
        "    model = MNISTModel().to(device)\n"
        "    optimizer, scheduler = make_recipe(name, model, epochs)\n"
        "    return fit(model, (x_train, y_train), val, epochs=epochs, optimizer=optimizer, device=device,\n"
        "               batch_size=batch_size, seed=seed, scheduler=scheduler, progress=progress)\n",
        # The two swapped: trained on the validation data, measured on the training data.
        "def train_recipe(name, train, val, epochs, device, seed=0, batch_size=64, progress=True):\n"
        "    set_seed(seed)\n"
        "    model = MNISTModel().to(device)\n"
        "    optimizer, scheduler = make_recipe(name, model, epochs)\n"
        "    return fit(model, val, train, epochs=epochs, optimizer=optimizer, device=device, batch_size=batch_size,\n"
        "               seed=seed, scheduler=scheduler, progress=progress)\n",
    ]},
    "apply-weight-decay": {"values": [
        # The decay subtracted from the gradient: it pushes the weights away from zero.
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    if decoupled:\n        return param * (1 - lr * weight_decay), grad\n"
        "    return param, grad - weight_decay * param\n",
        # Decoupled decay without the learning rate: every step shrinks by weight_decay itself.
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    if decoupled:\n        return param * (1 - weight_decay), grad\n"
        "    return param, grad + weight_decay * param\n",
        # The two swapped: L2 shrinks the parameter, decoupled changes the gradient.
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    if not decoupled:\n        return param * (1 - lr * weight_decay), grad\n"
        "    return param, grad + weight_decay * param\n",
        # Decoupled decay shrinks the gradient instead of the parameter.
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    if decoupled:\n        return param, grad * (1 - lr * weight_decay)\n"
        "    return param, grad + weight_decay * param\n",
        # Both at once when decoupled: AdamW's shrink and Adam's L2 term too.
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    if decoupled:\n        return param * (1 - lr * weight_decay), grad + weight_decay * param\n"
        "    return param, grad + weight_decay * param\n",
        # L2 with the learning rate folded in, as if the optimizer would not multiply by it.
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    if decoupled:\n        return param * (1 - lr * weight_decay), grad\n"
        "    return param, grad + lr * weight_decay * param\n",
        # In place: the caller's tensors change (here the parameter shrinks twice when the caller copies it back).
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    if decoupled:\n        param.mul_(1 - lr * weight_decay)\n        return param, grad\n"
        "    grad.add_(weight_decay * param)\n    return param, grad\n",
        # The pair in the other order.
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    if decoupled:\n        return grad, param * (1 - lr * weight_decay)\n"
        "    return grad + weight_decay * param, param\n",
        # The decoupled shrink subtracts lr * weight_decay itself, not that fraction of the weight.
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    if decoupled:\n        return param - lr * weight_decay, grad\n"
        "    return param, grad + weight_decay * param\n",
        # L2 decay proportional to the gradient instead of the weight.
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    if decoupled:\n        return param * (1 - lr * weight_decay), grad\n"
        "    return param, grad + weight_decay * grad\n",
        # Only the decoupled branch written in place ("it saves a copy"): the weight given shrinks too.
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    if decoupled:\n        param *= 1 - lr * weight_decay\n        return param, grad\n"
        "    return param, grad + weight_decay * param\n",
    ], "shapes": [
        # Flattened to do the work, given back with view: a view of a larger tensor (a transposed one) cannot be viewed.
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    p, g = param.view(-1), grad.view(-1)\n"
        "    if decoupled:\n        return (p * (1 - lr * weight_decay)).view(param.shape), grad\n"
        "    return param, (g + weight_decay * p).view(grad.shape)\n",
        # A factor per row built with len(param): a single number (a 0-d tensor) has no len.
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    factor = torch.full((len(param),) + (1,) * (param.dim() - 1), 1 - lr * weight_decay, dtype=param.dtype,\n"
        "                        device=param.device)\n"
        "    if decoupled:\n        return param * factor, grad\n"
        "    return param, grad + weight_decay * param\n",
    ], "dtype": [
        # The result cast to float32 "like a model's weights": a float64 pair comes back float32.
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    if decoupled:\n        return (param * (1 - lr * weight_decay)).float(), grad.float()\n"
        "    return param.float(), (grad + weight_decay * param).float()\n",
        # Computed in float32: a float64 weight comes back rounded.
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    param, grad = param.float(), grad.float()\n"
        "    if decoupled:\n        return param * (1 - lr * weight_decay), grad\n"
        "    return param, grad + weight_decay * param\n",
    ], "device": [
        # The factor made as a tensor on the CPU: it cannot meet tensors on another device.
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    factor = torch.tensor(1 - lr * weight_decay, dtype=param.dtype)\n"
        "    if decoupled:\n        return param * factor.to('cpu').expand(param.shape).clone(), grad\n"
        "    return param, grad + weight_decay * param.cpu()\n",
    ]},
}

RIGHT = {
    "make-optimizer": {"values": [
        # A table of constructors; the dict's KeyError for an unknown name turned into the ValueError the words ask for.
        "def make_optimizer(name, params):\n"
        "    recipes = {'sgd': lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.9),\n"
        "               'sgd+cosine': lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.9),\n"
        "               'adam': lambda p: torch.optim.Adam(p, lr=1e-3)}\n"
        "    try:\n        make = recipes[name]\n"
        "    except KeyError:\n        raise ValueError(f'unknown recipe {name!r}') from None\n"
        "    return make(params)\n",
        # An error class of its own, a subclass of ValueError; the names matched with match/case.
        "class UnknownRecipe(ValueError):\n    pass\n"
        "def make_optimizer(name, params):\n"
        "    match name:\n"
        "        case 'sgd' | 'sgd+cosine':\n            return torch.optim.SGD(params, lr=0.01, momentum=0.9)\n"
        "        case 'adam':\n            return torch.optim.Adam(params, lr=0.001)\n"
        "    raise UnknownRecipe(name)\n",
        # Positional arguments, the defaults spelt out, the parameters listed first, and a fused kernel.
        "def make_optimizer(name, params):\n"
        "    params = list(params)\n"
        "    if name == 'adam':\n"
        "        return torch.optim.Adam(params, 0.001, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, fused=True)\n"
        "    if name.startswith('sgd') and name in {'sgd', 'sgd+cosine'}:\n"
        "        return torch.optim.SGD(params, 0.01, 0.9, dampening=0, weight_decay=0, nesterov=False, foreach=False)\n"
        "    raise ValueError(f'no recipe called {name}')\n",
    ]},
    "cosine-lr": {"values": [
        # With torch instead of math, as a float.
        "def cosine_lr(base_lr, epoch, T_max, eta_min=0.0):\n"
        "    angle = torch.tensor(torch.pi * epoch / T_max, dtype=torch.float64)\n"
        "    return (eta_min + 0.5 * (base_lr - eta_min) * (1 + torch.cos(angle))).item()\n",
        # The half-angle form: (1 + cos x) / 2 = cos(x / 2) ** 2.
        "def cosine_lr(base_lr, epoch, T_max, eta_min=0.0):\n"
        "    return eta_min + (base_lr - eta_min) * math.cos(math.pi * epoch / (2 * T_max)) ** 2\n",
        # Returned as a 0-d float64 tensor.
        "def cosine_lr(base_lr, epoch, T_max, eta_min=0.0):\n"
        "    t = torch.tensor(epoch / T_max, dtype=torch.float64)\n"
        "    return eta_min + (base_lr - eta_min) * (1 + torch.cos(torch.pi * t)) / 2\n",
        # The same curve written downwards from base_lr: (1 + cos x) / 2 = 1 - sin(x / 2) ** 2.
        "def cosine_lr(base_lr, epoch, T_max, eta_min=0.0):\n"
        "    return base_lr - (base_lr - eta_min) * math.sin(math.pi * epoch / (2 * T_max)) ** 2\n",
        # PyTorch's own scheduler, stepped `epoch` times on a throwaway optimizer (its recursive form, not the formula).
        "def cosine_lr(base_lr, epoch, T_max, eta_min=0.0):\n"
        "    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=base_lr)\n"
        "    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=T_max, eta_min=eta_min)\n"
        "    for _ in range(epoch):\n        optimizer.step()\n        scheduler.step()\n"
        "    return float(optimizer.param_groups[0]['lr'])\n",
    ]},
    "make-recipe": {"values": [
        # eta_min written out, SGD built by hand.
        "def make_recipe(name, model, epochs):\n"
        "    if name == 'sgd+cosine':\n"
        "        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)\n"
        "        return optimizer, torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs, eta_min=0)\n"
        "    return make_optimizer(name, model.parameters()), None\n",
        # Every argument of the scheduler by position (T_max, eta_min), the recipe name tested by its suffix.
        "def make_recipe(name, model, epochs):\n"
        "    optimizer = make_optimizer(name, model.parameters())\n"
        "    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, epochs, 0.0) if name.endswith('+cosine') else None\n"
        "    return optimizer, scheduler\n",
        # The same schedule as a LambdaLR multiplier.
        "def make_recipe(name, model, epochs):\n"
        "    optimizer = make_optimizer(name, model.parameters())\n"
        "    if name != 'sgd+cosine':\n        return optimizer, None\n"
        "    factor = lambda e: 0.5 * (1 + math.cos(math.pi * e / epochs))\n"
        "    return optimizer, torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=factor)\n",
    ]},
    "train-recipe": {"values": [
        # A hand-written loop that steps the scheduler after each epoch.
        "from coursekit.mnist import InMemoryBatches, evaluate, train_one_epoch\n"
        "def train_recipe(name, train, val, epochs, device, seed=0, batch_size=64, progress=True):\n"
        "    set_seed(seed)\n"
        "    model = MNISTModel().to(device)\n"
        "    optimizer, scheduler = make_recipe(name, model, epochs)\n"
        "    batches = InMemoryBatches(*train, batch_size=batch_size, generator=torch.Generator().manual_seed(seed))\n"
        "    loss_fn = torch.nn.CrossEntropyLoss()\n"
        "    history = {'train_loss': [], 'train_acc': [], 'val_loss': [], 'val_acc': []}\n"
        "    for _ in range(epochs):\n"
        "        tr = train_one_epoch(model, batches, optimizer, loss_fn, device)\n"
        "        if scheduler is not None:\n            scheduler.step()\n"
        "        te = evaluate(model, *val, loss_fn, device)\n"
        "        for key, value in zip(history, tr + te):\n"
        "            history[key].append(value)\n"
        "    return history\n",
    ], "device": [
        # fit told the device the model's parameters are on, which is the one it was given.
        "def train_recipe(name, train, val, epochs, device, seed=0, batch_size=64, progress=True):\n"
        "    set_seed(seed)\n"
        "    model = MNISTModel().to(device)\n"
        "    optimizer, scheduler = make_recipe(name, model, epochs)\n"
        "    return fit(model, train, val, epochs=epochs, optimizer=optimizer, device=next(model.parameters()).device,\n"
        "               batch_size=batch_size, seed=seed, scheduler=scheduler, progress=progress)\n",
        # fit's default scheduler_per is 'epoch'; the model is moved after the recipe is built.
        "def train_recipe(name, train, val, epochs, device, seed=0, batch_size=64, progress=True):\n"
        "    set_seed(seed)\n"
        "    model = MNISTModel()\n"
        "    optimizer, scheduler = make_recipe(name, model, epochs)\n"
        "    model.to(device)\n"
        "    return fit(model, train, val, epochs=epochs, optimizer=optimizer, device=device,\n"
        "               batch_size=batch_size, seed=seed, scheduler=scheduler, progress=progress)\n",
    ], "randomness": [
        # torch.manual_seed(seed) does what set_seed(seed) does for this run.
        "def train_recipe(name, train, val, epochs, device, seed=0, batch_size=64, progress=True):\n"
        "    torch.manual_seed(seed)\n"
        "    model = MNISTModel().to(device)\n"
        "    optimizer, scheduler = make_recipe(name, model, epochs)\n"
        "    return fit(model, train, val, epochs=epochs, optimizer=optimizer, device=device, batch_size=batch_size,\n"
        "               seed=seed, scheduler=scheduler, scheduler_per='epoch', progress=progress)\n",
    ], "aggregation": [
        # A loop of its own that weighs each batch's mean loss by its size, in Python floats.
        _own_loop('sum(l * n for l, n in zip(losses, sizes)) / sum(sizes)'),
    ], "leakage": [
        # The training and validation data copied (on the device) before fit: the same rows.
        "def train_recipe(name, train, val, epochs, device, seed=0, batch_size=64, progress=True):\n"
        "    set_seed(seed)\n"
        "    model = MNISTModel().to(device)\n"
        "    optimizer, scheduler = make_recipe(name, model, epochs)\n"
        "    train = tuple(t.to(device).clone() for t in train)\n"
        "    val = tuple(t.to(device).clone() for t in val)\n"
        "    return fit(model, train, val, epochs=epochs, optimizer=optimizer, device=device, batch_size=batch_size,\n"
        "               seed=seed, scheduler=scheduler, progress=progress)\n",
        # The pairs handed on as lists, the keyword arguments in another order.
        "def train_recipe(name, train, val, epochs, device, seed=0, batch_size=64, progress=True):\n"
        "    set_seed(seed)\n"
        "    model = MNISTModel().to(device)\n"
        "    optimizer, scheduler = make_recipe(name, model, epochs)\n"
        "    return fit(model, list(train), list(val), seed=seed, batch_size=batch_size, epochs=epochs, device=device,\n"
        "               optimizer=optimizer, scheduler_per='epoch', scheduler=scheduler, progress=progress)\n",
    ], "provenance": [
        # The validation data taken apart and passed again, by keyword.
        "def train_recipe(name, train, val, epochs, device, seed=0, batch_size=64, progress=True):\n"
        "    set_seed(seed)\n"
        "    model = MNISTModel().to(device)\n"
        "    optimizer, scheduler = make_recipe(name, model, epochs)\n"
        "    x_eval, y_eval = val\n"
        "    return fit(model, train=train, val=(x_eval, y_eval), epochs=epochs, optimizer=optimizer, device=device,\n"
        "               batch_size=batch_size, seed=seed, scheduler=scheduler, progress=progress)\n",
    ]},
    "apply-weight-decay": {"values": [
        # torch's own arithmetic: add with alpha, mul by the factor.
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    if decoupled:\n        return param.mul(1 - lr * weight_decay), grad.clone()\n"
        "    return param.clone(), grad.add(param, alpha=weight_decay)\n",
        # The decoupled shrink written as a subtraction.
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    new_param = param - lr * weight_decay * param if decoupled else param\n"
        "    new_grad = grad if decoupled else grad + weight_decay * param\n"
        "    return new_param, new_grad\n",
        # The pair as a list, and nothing computed for a decay of 0 (the tensors given handed back).
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    if weight_decay == 0:\n        return [param, grad]\n"
        "    if decoupled:\n        return [param * (1 - lr * weight_decay), grad]\n"
        "    return [param, grad + weight_decay * param]\n",
        # torch.add with alpha for L2, the factor folded into the multiplication for decoupled; both by keyword.
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    if not decoupled:\n        return param, torch.add(grad, param, alpha=weight_decay)\n"
        "    return torch.mul(param, 1.0 - lr * weight_decay), grad\n",
        # In place, but on copies of the tensors it was given.
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    param, grad = param.clone(), grad.clone()\n"
        "    if decoupled:\n        param.mul_(1 - lr * weight_decay)\n"
        "    else:\n        grad.add_(param, alpha=weight_decay)\n"
        "    return param, grad\n",
    ], "shapes": [
        # Flattened with reshape (a copy where a view cannot be had) and given back in the tensors' shape: any shape,
        # a single number and a view of a larger tensor included.
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    p, g = param.reshape(-1), grad.reshape(-1)\n"
        "    if decoupled:\n        return (p * (1 - lr * weight_decay)).reshape(param.shape), grad\n"
        "    return param, (g + weight_decay * p).reshape(grad.shape)\n",
    ], "dtype": [
        # The factor as a 0-d tensor of the parameter's dtype.
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    factor = torch.tensor(1 - lr * weight_decay, dtype=param.dtype, device=param.device)\n"
        "    if decoupled:\n        return param * factor, grad\n"
        "    return param, grad + weight_decay * param\n",
    ], "device": [
        # torch.lerp towards a zero tensor made like the parameter, on its device.
        "def apply_weight_decay(param, grad, lr, weight_decay, decoupled):\n"
        "    if decoupled:\n        return torch.lerp(param, torch.zeros_like(param), lr * weight_decay), grad\n"
        "    return param, grad + weight_decay * param\n",
    ]},
}

# Plain cells the variants run skips (by first line): the three 10-epoch runs take a minute and only the plot
# and the closing answer read their histories; first_epoch_reaching's tests use histories of their own.
LEAVE_OUT = {
    "SEED = 0": "the three 10-epoch runs, read only by the plot below and the closing answer",
    "fig = plot_runs({f\"{name}, seed {SEED}\": history for name, history in histories.items()},": "plots those runs",
    "def first_epoch_reaching(history, target):": "reads the answer off those runs' histories",
}
