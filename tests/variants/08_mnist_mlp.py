"""Other answers for lesson 08, the Build (see autograder/authoring/variants.py), by class of mistake."""

_READ_IDX_OK = '''
def _read_idx(path, magic_expected, ndim):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    magic, = struct.unpack(">I", raw[:4])
    if magic != magic_expected:
        raise ValueError(f"bad magic number {magic} in {path}")
    dims = struct.unpack(">" + "I" * ndim, raw[4:4 + 4 * ndim])
    size = 1
    for d in dims:
        size *= d
    if len(raw) - 4 - 4 * ndim != size:
        raise ValueError(f"{path} is truncated")
    return torch.frombuffer(bytearray(raw[4 + 4 * ndim:]), dtype=torch.uint8).reshape(dims)
'''

_LABELS_OK = "\ndef load_labels(path):\n    return _read_idx(path, 2049, 1).long()\n"


def _images(body: str) -> str:
    """_read_idx and load_labels as they should be, and load_images returning ``body`` from x = the (N, 28, 28) uint8 images."""
    return _READ_IDX_OK + "\ndef load_images(path):\n    x = _read_idx(path, 2051, 3)\n    return " + body + "\n" + _LABELS_OK


def _read_idx_with(old: str, new: str) -> str:
    """The three loaders as they should be, with one edit to _read_idx."""
    assert old in _READ_IDX_OK, f"variant edit does not apply: {old!r}"
    return _images("x.reshape(len(x), -1).float() / 255").replace(_READ_IDX_OK, _READ_IDX_OK.replace(old, new), 1)


def _mnist_model(layers: str, forward: str = "return self.net(x)") -> str:
    return ("class MNISTModel(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            f"        self.net = nn.Sequential({layers})\n"
            f"    def forward(self, x):\n        {forward}\n")


_LAYERS = ("nn.Linear(784, 256), nn.ReLU(), nn.Dropout(0.2), nn.Linear(256, 128), nn.ReLU(), nn.Dropout(0.2), "
           "nn.Linear(128, 10)")

# The model with named layers and one Dropout module, for the answers that write forward by hand (forward's body follows).
_NAMED = ("class MNISTModel(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
          "        self.fc1, self.fc2, self.fc3 = nn.Linear(784, 256), nn.Linear(256, 128), nn.Linear(128, 10)\n"
          "        self.drop = nn.Dropout(0.2)\n    def forward(self, x):\n")

_EPOCH = (
    "def train_one_epoch(model, loader, optimizer, loss_fn, device):\n"
    "    model.train()\n"
    "    tl, c, n = 0.0, 0, 0\n"
    "    for x, y in loader:\n"
    "        x, y = x.to(device), y.to(device)\n"
    "        optimizer.zero_grad()\n"
    "        out = model(x)\n"
    "        loss = loss_fn(out, y)\n"
    "        loss.backward()\n"
    "        optimizer.step()\n"
    "        tl += loss.item() * len(y)\n"
    "        c += (out.argmax(1) == y).sum().item()\n"
    "        n += len(y)\n"
    "    return tl / n, c / n\n"
)


def _epoch_with(*edits: tuple[str, str]) -> str:
    source = _EPOCH
    for old, new in edits:
        assert old in source, f"variant edit does not apply: {old!r}"
        source = source.replace(old, new)
    return source


_EVALUATE = (
    "def evaluate(model, loader, loss_fn, device):\n"
    "    model.eval()\n"
    "    tl, c, n = 0.0, 0, 0\n"
    "    with torch.no_grad():\n"
    "        for x, y in loader:\n"
    "            x, y = x.to(device), y.to(device)\n"
    "            out = model(x)\n"
    "            tl += loss_fn(out, y).item() * len(y)\n"
    "            c += (out.argmax(1) == y).sum().item()\n"
    "            n += len(y)\n"
    "    return tl / n, c / n\n"
)


def _evaluate_with(*edits: tuple[str, str]) -> str:
    source = _EVALUATE
    for old, new in edits:
        assert old in source, f"variant edit does not apply: {old!r}"
        source = source.replace(old, new)
    return source


def _train_cell(epoch: str, record: str = "    for key, value in zip(history, (train_loss, train_acc, val_loss, val_acc)):\n"
                                              "        history[key].append(value)\n",
                loader: str = "fast_loader", after: str = "") -> str:
    """The training cell as the solution writes it (10 epochs on fast_loader, Adam 1e-3, fused; the test set measured once
    at the end), with ``epoch``: the lines that set train_loss, train_acc, val_loss and val_acc (indented by 4), ``record``:
    the lines that append them, ``loader``: the training batches, and ``after``: lines run after the last epoch."""
    return ("set_seed(0)\nhistory = {'train_loss': [], 'train_acc': [], 'val_loss': [], 'val_acc': []}\n"
            "model = MNISTModel().to(device)\noptimizer = torch.optim.Adam(model.parameters(), lr=1e-3, fused=True)\n"
            "loss_fn = nn.CrossEntropyLoss()\n"
            + ("" if loader == "fast_loader" else f"batches = {loader}\n")
            + "for epoch in tqdm(range(10), desc='epochs'):\n"
            + (epoch if loader == "fast_loader" else epoch.replace("fast_loader", "batches")) + record + after
            + "test_loss, test_acc = evaluate(model, test_batches, loss_fn, device)\n"
            "torch.save(model.state_dict(), 'mnist_mlp.pt')\n")


_EPOCH_LINES = ("    train_loss, train_acc = train_one_epoch(model, fast_loader, optimizer, loss_fn, device)\n"
                "    val_loss, val_acc = evaluate(model, val_batches, loss_fn, device)\n")


_INLINE_EPOCH = (
    "    model.train()\n    total, hits, n = 0.0, 0, 0\n"
    "    for xb, yb in fast_loader:\n        optimizer.zero_grad()\n        out = model(xb)\n"
    "        loss = loss_fn(out, yb)\n        loss.backward()\n        optimizer.step()\n"
    "        total += loss.item() * len(yb)\n        hits += (out.argmax(1) == yb).sum().item()\n        n += len(yb)\n"
)


WRONG = {
    "load-idx": {
        "values": [
            # No magic-number check: a labels file (or anything gzipped) is read as images.
            _read_idx_with('    if magic != magic_expected:\n        raise ValueError(f"bad magic number {magic} in {path}")\n', ""),
            # No size check: a truncated body gives a RuntimeError from reshape, not a ValueError that says so.
            _read_idx_with('    if len(raw) - 4 - 4 * ndim != size:\n        raise ValueError(f"{path} is truncated")\n', ""),
            # The course's own readers handed in: they do this exercise's work, so the cell earns nothing.
            "from coursekit.data import load_images, load_labels\n",
            # The course's IDX reader behind two functions of one's own: the same.
            "from coursekit.data import read_idx\n\ndef load_images(path):\n    x = read_idx(path, 3)\n"
            "    return x.reshape(len(x), -1).float() / 255\n\ndef load_labels(path):\n    return read_idx(path, 1).long()\n",
        ],
        "dtype": [
            # Pixels left in [0, 255].
            _images("x.reshape(len(x), -1).float()"),
            # float64 pixels.
            _images("x.reshape(len(x), -1).double() / 255"),
        ],
        "format": [
            # Divides by the data's own maximum: right for MNIST, whose brightest pixel is 255, wrong for dimmer images.
            _images("x.reshape(len(x), -1).float() / x.max()"),
            # Min-max scaling: the data's own range instead of the format's 0..255.
            _images("(x.reshape(len(x), -1).float() - x.min()) / (x.max() - x.min())"),
        ],
        "boundaries": [
            # The whole file's length (header included) compared with the body's size: a body up to 16 bytes short passes
            # the check, and reshape then raises RuntimeError instead of a ValueError that says 'truncated'.
            _read_idx_with("if len(raw) - 4 - 4 * ndim != size:", "if len(raw) < size:"),
            # <= for <: a file of exactly the size its header announces is refused as truncated.
            _read_idx_with("if len(raw) - 4 - 4 * ndim != size:", "if len(raw) - 4 - 4 * ndim <= size:"),
            # Only the magic number's last byte (the number of dimensions) checked: 2051 + 256 passes for an image file.
            _read_idx_with("if magic != magic_expected:", "if magic % 256 != magic_expected % 256:"),
        ],
    },
    "mnist-model": {
        "values": [
            # Dropout forgotten (same parameter count).
            _mnist_model("nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)"),
            # The course's own model handed in: it does this exercise's work, so the cell earns nothing.
            "from coursekit.mnist import MNISTModel\n",
            # The course's model as a base class, nothing of one's own: the same.
            "import coursekit.mnist\n\nclass MNISTModel(coursekit.mnist.MNISTModel):\n    pass\n",
            # Dropout after the first hidden layer only.
            _NAMED + "        x = self.drop(torch.relu(self.fc1(x)))\n        x = torch.relu(self.fc2(x))\n        return self.fc3(x)\n",
        ],
        "modes": [
            # The Dropout layer is defined but forward never goes through it: train() mode is as deterministic as eval().
            _NAMED + "        x = torch.relu(self.fc1(x))\n        x = torch.relu(self.fc2(x))\n        return self.fc3(x)\n",
            # Functional dropout without training=self.training: on in eval() mode too.
            _NAMED + "        x = nn.functional.dropout(torch.relu(self.fc1(x)), 0.2)\n"
            "        x = nn.functional.dropout(torch.relu(self.fc2(x)), 0.2)\n        return self.fc3(x)\n",
        ],
        "result-device": [
            # The logits brought back to the CPU "for the loss": wrong wherever the model and its input live elsewhere.
            _mnist_model(_LAYERS, "return self.net(x).cpu()"),
        ],
        "grad": [
            # The output detached "to save memory": nothing can be trained through it.
            _mnist_model(_LAYERS, "return self.net(x).detach()"),
        ],
        "logits": [
            # Softmax at the end: probabilities instead of logits.
            _mnist_model(_LAYERS + ", nn.Softmax(dim=1)"),
            # LogSoftmax at the end: log-probabilities.
            _mnist_model(_LAYERS + ", nn.LogSoftmax(dim=1)"),
        ],
        "shapes": [
            # squeeze() in forward: a batch of one comes out as (10,).
            _mnist_model(_LAYERS, "return self.net(x).squeeze()"),
            # Flattens from dimension 0: the whole batch becomes one long vector.
            _mnist_model("nn.Flatten(0), " + _LAYERS),
        ],
    },
    "train-one-epoch": {
        "values": [
            # Mean of batch means: wrong when the last batch is smaller.
            "def train_one_epoch(model, loader, optimizer, loss_fn, device):\n    model.train()\n    losses, accs = [], []\n"
            "    for x, y in loader:\n        x, y = x.to(device), y.to(device)\n        optimizer.zero_grad()\n        out = model(x)\n"
            "        loss = loss_fn(out, y)\n        loss.backward()\n        optimizer.step()\n        losses.append(loss.item())\n"
            "        accs.append((out.argmax(1) == y).float().mean().item())\n    return sum(losses) / len(losses), sum(accs) / len(accs)\n",
            # The course's own function handed in: it does this exercise's work, so the cell earns nothing.
            "from coursekit.mnist import train_one_epoch\n",
            # A wrapper around the course's function: the same.
            "import coursekit.mnist\n\ndef train_one_epoch(model, loader, optimizer, loss_fn, device):\n"
            "    return coursekit.mnist.train_one_epoch(model, loader, optimizer, loss_fn, device)\n",
            # A CrossEntropyLoss of its own instead of the loss_fn it is given.
            _epoch_with(("    model.train()\n", "    model.train()\n    criterion = nn.CrossEntropyLoss()\n"),
                        ("loss = loss_fn(out, y)", "loss = criterion(out, y)")),
            # Totals kept in a default argument: the second call goes on from the first call's sums.
            _epoch_with(("def train_one_epoch(model, loader, optimizer, loss_fn, device):\n",
                         "def train_one_epoch(model, loader, optimizer, loss_fn, device, _sums=[0.0, 0, 0]):\n"),
                        ("    tl, c, n = 0.0, 0, 0\n", "    tl, c, n = _sums\n"),
                        ("    return tl / n, c / n\n", "    _sums[:] = [tl, c, n]\n    return tl / n, c / n\n")),
        ],
        "boundaries": [
            # Every batch but the last trained on (a loop over the batches up to len - 1).
            _epoch_with(("    for x, y in loader:\n", "    batches = list(loader)\n    for x, y in batches[:max(1, len(batches) - 1)]:\n")),
        ],
        "modes": [
            # Never switches to train(): a model left in eval() trains without dropout.
            _epoch_with(("    model.train()\n", "")),
        ],
        "grad": [
            # No zero_grad: gradients accumulate.
            _epoch_with(("        optimizer.zero_grad()\n", "")),
            # zero_grad between backward and step: every step sees zero gradients.
            _epoch_with(("        optimizer.zero_grad()\n", ""), ("        optimizer.step()\n", "        optimizer.zero_grad()\n        optimizer.step()\n")),
        ],
        "device": [
            # Never moves the batches: right by accident while the model is on the CPU.
            _epoch_with(("        x, y = x.to(device), y.to(device)\n", "")),
            # Moves them to 'cpu', written in.
            _epoch_with(("x.to(device), y.to(device)", "x.to('cpu'), y.to('cpu')")),
        ],
        "logits": [
            # Probabilities into CrossEntropyLoss.
            _epoch_with(("loss = loss_fn(out, y)", "loss = loss_fn(out.softmax(dim=1), y)")),
        ],
        "aggregation": [
            # The sum of the batches' losses, not a mean.
            _epoch_with(("tl += loss.item() * len(y)", "tl += loss.item()"), ("return tl / n, c / n", "return tl, c / n")),
            # Weighted by batch size, but divided by the number of batches.
            _epoch_with(("return tl / n, c / n", "return tl / len(loader), c / n")),
            # The losses added up with their graphs (no detach, one float at the end): every batch's graph stays alive
            # until the epoch ends, where the words ask for detached tensors.
            _epoch_with(("tl += loss.item() * len(y)", "tl += loss * len(y)"), ("return tl / n, c / n", "return float(tl) / n, c / n")),
            # The number of samples counted in a second pass over the loader: an iterator that passes once is empty by then.
            _epoch_with(("    return tl / n, c / n\n", "    n = sum(len(y) for _, y in loader) or n\n    return tl / n, c / n\n")),
            # Integer division for the accuracy: 0 unless every prediction is right.
            _epoch_with(("return tl / n, c / n", "return tl / n, c // n")),
            # The loss weighted right, the accuracy a mean of the batches' accuracies.
            _epoch_with(("    tl, c, n = 0.0, 0, 0\n", "    tl, c, n, accs = 0.0, 0, 0, []\n"),
                        ("        c += (out.argmax(1) == y).sum().item()\n",
                         "        accs.append((out.argmax(1) == y).float().mean().item())\n"),
                        ("return tl / n, c / n", "return tl / n, sum(accs) / len(accs)")),
        ],
    },
    "evaluate": {
        "values": [
            # Mean of batch means: wrong when the last batch is smaller.
            "def evaluate(model, loader, loss_fn, device):\n    model.eval()\n    losses, accs = [], []\n    with torch.no_grad():\n"
            "        for x, y in loader:\n            x, y = x.to(device), y.to(device)\n            out = model(x)\n"
            "            losses.append(loss_fn(out, y).item())\n            accs.append((out.argmax(1) == y).float().mean().item())\n"
            "    return sum(losses) / len(losses), sum(accs) / len(accs)\n",
            # The course's own evaluate behind a function of one's own (the batches gathered into one set): it does this
            # exercise's work, so the cell earns nothing.
            "import coursekit.mnist\n\ndef evaluate(model, loader, loss_fn, device):\n    xs, ys = zip(*loader)\n"
            "    return coursekit.mnist.evaluate(model, torch.cat(xs), torch.cat(ys), loss_fn, device)\n",
            # A cross-entropy of its own instead of the loss_fn it is given.
            _evaluate_with(("tl += loss_fn(out, y).item()", "tl += nn.functional.cross_entropy(out, y).item()")),
        ],
        "modes": [
            # Missing eval(): dropout stays on, results vary.
            _evaluate_with(("    model.eval()\n", "")),
            # eval(), then the BatchNorm layers put back in training mode "to keep their statistics fresh": they normalise
            # with each batch's statistics and move their running ones.
            _evaluate_with(("    model.eval()\n", "    model.eval()\n    for m in model.modules():\n"
                            "        if isinstance(m, nn.BatchNorm1d):\n            m.train()\n")),
        ],
        "grad": [
            # Missing no_grad: builds a graph for nothing.
            "def evaluate(model, loader, loss_fn, device):\n    model.eval()\n    tl, c, n = 0.0, 0, 0\n"
            "    for x, y in loader:\n        x, y = x.to(device), y.to(device)\n        out = model(x)\n"
            "        tl += loss_fn(out, y).item() * len(y)\n        c += (out.argmax(1) == y).sum().item()\n        n += len(y)\n"
            "    return tl / n, c / n\n",
        ],
        "device": [
            # Never moves the batches.
            _evaluate_with(("            x, y = x.to(device), y.to(device)\n", "")),
            # Moves them to 'cpu', written in.
            _evaluate_with(("x.to(device), y.to(device)", "x.to('cpu'), y.to('cpu')")),
        ],
        "logits": [
            # Probabilities into the loss function.
            _evaluate_with(("loss_fn(out, y)", "loss_fn(torch.softmax(out, dim=1), y)")),
        ],
        "aggregation": [
            # The sum of the batches' losses.
            _evaluate_with(("tl += loss_fn(out, y).item() * len(y)", "tl += loss_fn(out, y).item()"),
                           ("return tl / n, c / n", "return tl, c / n")),
            # Every batch assumed as large as the first (len(loader) * batch size samples): the last, smaller one is
            # counted as a full one.
            _evaluate_with(("    return tl / n, c / n\n", "    n = len(loader) * len(next(iter(loader))[1])\n    return tl / n, c / n\n")),
            # Drops the last batch when it is smaller than the first (as drop_last=True would).
            _evaluate_with(("        for x, y in loader:\n", "        first = None\n        for x, y in loader:\n"
                            "            first = first or len(y)\n            if len(y) < first:\n                break\n")),
        ],
    },
    "train-mnist": {
        "values": [
            # A learning rate far too small: the model never gets good.
            "set_seed(0)\nhistory = {'train_loss': [], 'train_acc': [], 'val_loss': [], 'val_acc': []}\n"
            "model = MNISTModel()\noptimizer = torch.optim.SGD(model.parameters(), lr=1e-4)\nloss_fn = nn.CrossEntropyLoss()\n"
            "for epoch in range(10):\n    a = train_one_epoch(model, [next(iter(fast_loader))], optimizer, loss_fn, device)\n"
            "    b = evaluate(model, val_batches, loss_fn, device)\n"
            "    for k, v in zip(history, a + b):\n        history[k].append(v)\n"
            "test_loss, test_acc = evaluate(model, test_batches, loss_fn, device)\n"
            "torch.save(model.state_dict(), 'mnist_mlp.pt')\n",
            # The optimizer was built for another model's parameters: the trained model never moves.
            "set_seed(0)\nhistory = {'train_loss': [], 'train_acc': [], 'val_loss': [], 'val_acc': []}\n"
            "model = MNISTModel().to(device)\n"
            "optimizer = torch.optim.Adam(MNISTModel().parameters(), lr=1e-3, fused=True)\n"
            "for epoch in range(10):\n    a = train_one_epoch(model, [next(iter(fast_loader))], optimizer, nn.CrossEntropyLoss(), device)\n"
            "    b = evaluate(model, val_batches, nn.CrossEntropyLoss(), device)\n"
            "    for k, v in zip(history, a + b):\n        history[k].append(v)\n"
            "test_loss, test_acc = evaluate(model, test_batches, nn.CrossEntropyLoss(), device)\n"
            "torch.save(model.state_dict(), 'mnist_mlp.pt')\n",
        ],
        "provenance": [
            # The validation figures measured on the training batches (fast_loader) instead of the validation batches.
            _train_cell("    train_loss, train_acc = train_one_epoch(model, fast_loader, optimizer, loss_fn, device)\n"
                        "    val_loss, val_acc = evaluate(model, fast_loader, loss_fn, device)\n"),
            # The figures appended under each other's keys: train_* hold the validation figures and val_* the training ones.
            _train_cell(_EPOCH_LINES, "    for key, value in zip(history, (val_loss, val_acc, train_loss, train_acc)):\n"
                                      "        history[key].append(value)\n"),
        ],
        "aggregation": [
            # The loop written inline, its training figures divided by the number of batches instead of the samples.
            _train_cell(_INLINE_EPOCH + "    train_loss, train_acc = total / len(fast_loader), hits / len(fast_loader)\n"
                        "    val_loss, val_acc = evaluate(model, val_batches, loss_fn, device)\n"),
        ],
        "device": [
            # device=None to the training and the validation calls: a CPU runner trains the same model, a GPU runner would
            # leave every batch on the CPU and stop (the notebook's train_one_epoch and evaluate note the device given).
            _train_cell("    train_loss, train_acc = train_one_epoch(model, fast_loader, optimizer, loss_fn, None)\n"
                        "    val_loss, val_acc = evaluate(model, val_batches, loss_fn, None)\n"),
        ],
        "leakage": [
            # The test images added to the training data ("more data is better"): the model has learned the test set.
            _train_cell(_EPOCH_LINES, loader="InMemoryBatches(torch.cat([x_tr, x_test]), torch.cat([y_tr, y_test]), 64, "
                                             "generator=torch.Generator().manual_seed(0))"),
            # The whole training file, validation images included: the validation figures measure images it learned.
            _train_cell(_EPOCH_LINES, loader="InMemoryBatches(x_train, y_train, 64, generator=torch.Generator().manual_seed(0))"),
            # Every image there is, training, validation and test: neither held-out set is held out any more.
            _train_cell(_EPOCH_LINES, loader="InMemoryBatches(torch.cat([x_train, x_test]), torch.cat([y_train, y_test]), 64, "
                                             "generator=torch.Generator().manual_seed(0))"),
        ],
    },
}

RIGHT = {
    "load-idx": {
        "values": [
            # flatten(1), .to(float32).div(255), to(torch.int64).
            _READ_IDX_OK + "\ndef load_images(path):\n    x = _read_idx(path, 2051, 3)\n    return x.flatten(1).to(torch.float32).div(255)\n"
            + "\ndef load_labels(path):\n    return _read_idx(path, 2049, 1).to(torch.int64)\n",
        ],
        "dtype": [
            # Multiplied by 1 / 255 after .float().
            _images("x.reshape(x.shape[0], 28 * 28).float() * (1 / 255)"),
        ],
        "format": [
            # The format's constant as a float, divided in place.
            _images("x.view(len(x), -1).float().div_(255.0)"),
        ],
        "boundaries": [
            # The whole file's length compared with header plus body.
            _read_idx_with("if len(raw) - 4 - 4 * ndim != size:", "if len(raw) < 4 + 4 * ndim + size:"),
            # Header and body read separately from the gzip stream; the body's length compared with the sizes' product.
            "import math\n\ndef _read_idx(path, magic_expected, ndim):\n"
            "    with gzip.open(path, 'rb') as f:\n        header = f.read(4 + 4 * ndim)\n        body = f.read()\n"
            "    if len(header) < 4 or struct.unpack('>I', header[:4])[0] != magic_expected:\n"
            "        raise ValueError(f'{path}: wrong magic number')\n"
            "    if len(header) < 4 + 4 * ndim:\n        raise ValueError(f'{path}: truncated header')\n"
            "    dims = struct.unpack(f'>{ndim}I', header[4:])\n"
            "    if len(body) < math.prod(dims):\n        raise ValueError(f'{path}: truncated, {len(body)} of {math.prod(dims)} bytes')\n"
            "    return torch.frombuffer(bytearray(body[:math.prod(dims)]), dtype=torch.uint8).view(dims)\n"
            "\ndef load_images(path):\n    x = _read_idx(path, 2051, 3)\n    return x.reshape(len(x), -1).float() / 255\n"
            + _LABELS_OK,
        ],
    },
    "mnist-model": {
        "result-device": [
            # The output sent to the input's device by name: already there, so nothing moves.
            "class MNISTModel(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Dropout(0.2), nn.Linear(256, 128), nn.ReLU(), "
            "nn.Dropout(0.2), nn.Linear(128, 10))\n"
            "    def forward(self, x):\n"
            "        return self.net(x).to(x.device)\n",
        ],
        "grad": [
            # The layers in a ModuleList walked by a loop: every output still connected to the weights.
            "class MNISTModel(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.layers = nn.ModuleList([nn.Linear(784, 256), nn.Linear(256, 128), nn.Linear(128, 10)])\n"
            "        self.drop = nn.Dropout(0.2)\n"
            "    def forward(self, x):\n"
            "        for layer in self.layers[:-1]:\n"
            "            x = self.drop(torch.relu(layer(x)))\n"
            "        return self.layers[-1](x)\n",
        ],
        "values": [
            # Named layers, torch.relu in forward.
            "class MNISTModel(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.fc1, self.fc2, self.fc3 = nn.Linear(784, 256), nn.Linear(256, 128), nn.Linear(128, 10)\n"
            "        self.drop = nn.Dropout(0.2)\n        self.drop2 = nn.Dropout(p=0.2)\n"
            "    def forward(self, x):\n        x = self.drop(torch.relu(self.fc1(x)))\n        x = self.drop2(torch.relu(self.fc2(x)))\n"
            "        return self.fc3(x)\n",
            # The layers defined from the output back, one Dropout module applied twice, dropout before the ReLU (the two
            # commute: dropout zeroes and scales by a positive factor).
            "class MNISTModel(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.out = nn.Linear(128, 10)\n        self.hidden2 = nn.Linear(256, 128)\n        self.hidden1 = nn.Linear(784, 256)\n"
            "        self.drop = nn.Dropout(p=0.2)\n"
            "    def forward(self, x):\n        x = torch.relu(self.drop(self.hidden1(x)))\n"
            "        x = torch.relu(self.drop(self.hidden2(x)))\n        return self.out(x)\n",
        ],
        "modes": [
            # Functional dropout that follows the module's mode.
            _NAMED + "        x = nn.functional.dropout(torch.relu(self.fc1(x)), 0.2, training=self.training)\n"
            "        x = nn.functional.dropout(torch.relu(self.fc2(x)), 0.2, self.training)\n        return self.fc3(x)\n",
        ],
        "logits": [
            # A plain Linear last, then the raw scores.
            _mnist_model(_LAYERS, "logits = self.net(x)\n        return logits"),
        ],
        "shapes": [
            # Flattens from dimension 1, so (B, 784) and (B, 28, 28) both work.
            _mnist_model(_LAYERS, "return self.net(x.flatten(1))"),
            # view with the batch size read from the input.
            _mnist_model(_LAYERS, "return self.net(x.view(x.size(0), -1))"),
        ],
    },
    "train-one-epoch": {
        "boundaries": [
            # The batches taken by index from one pass over the loader, the last, shorter one included.
            "def train_one_epoch(model, loader, optimizer, loss_fn, device):\n"
            "    model.train()\n"
            "    batches = list(loader)\n"
            "    total, correct, seen = torch.zeros((), device=device), torch.zeros((), device=device), 0\n"
            "    for i in range(len(batches)):\n"
            "        x, y = batches[i][0].to(device), batches[i][1].to(device)\n"
            "        optimizer.zero_grad()\n"
            "        out = model(x)\n"
            "        loss = loss_fn(out, y)\n"
            "        loss.backward()\n"
            "        optimizer.step()\n"
            "        total += loss.detach() * len(y)\n"
            "        correct += (out.argmax(dim=1) == y).sum()\n"
            "        seen += len(y)\n"
            "    return total.item() / seen, correct.item() / seen\n",
        ],
        "values": [
            # Tensor accumulators, one .item() at the end.
            "def train_one_epoch(model, loader, optimizer, loss_fn, device):\n    model.train()\n"
            "    total = torch.zeros(()); correct = torch.zeros((), dtype=torch.long); n = 0\n"
            "    for x, y in loader:\n        x = x.to(device); y = y.to(device)\n        optimizer.zero_grad(set_to_none=True)\n"
            "        logits = model(x)\n        loss = loss_fn(logits, y)\n        loss.backward()\n        optimizer.step()\n"
            "        total += loss.detach().cpu() * y.numel()\n        correct += (logits.argmax(-1) == y).sum().cpu()\n        n += y.numel()\n"
            "    return float(total / n), float(correct) / n\n",
        ],
        "modes": [
            # train(True).
            _epoch_with(("model.train()", "model.train(True)")),
        ],
        "grad": [
            # model.zero_grad().
            _epoch_with(("optimizer.zero_grad()", "model.zero_grad()")),
        ],
        "device": [
            # device= as a keyword, non_blocking copies.
            _epoch_with(("x.to(device), y.to(device)", "x.to(device=device, non_blocking=True), y.to(device=device, non_blocking=True)")),
        ],
        "logits": [
            # The forward pass written into the loss call, logits recomputed for the accuracy under no_grad.
            _epoch_with(("        out = model(x)\n        loss = loss_fn(out, y)\n", "        loss = loss_fn(model(x), y)\n"),
                        ("        c += (out.argmax(1) == y).sum().item()\n",
                         "        with torch.no_grad():\n            c += (model(x).argmax(1) == y).sum().item()\n")),
        ],
        "aggregation": [
            # Per-batch losses and sizes kept in lists, the weighted mean taken at the end.
            "def train_one_epoch(model, loader, optimizer, loss_fn, device):\n    model.train()\n    losses, sizes, hits = [], [], 0\n"
            "    for x, y in loader:\n        x, y = x.to(device), y.to(device)\n        optimizer.zero_grad()\n        out = model(x)\n"
            "        loss = loss_fn(out, y)\n        loss.backward()\n        optimizer.step()\n"
            "        losses.append(loss.item())\n        sizes.append(len(y))\n        hits += int((out.argmax(1) == y).sum())\n"
            "    return sum(l * s for l, s in zip(losses, sizes)) / sum(sizes), hits / sum(sizes)\n",
            # Running means updated after every batch.
            "def train_one_epoch(model, loader, optimizer, loss_fn, device):\n    model.train()\n    mean_loss, mean_acc, seen = 0.0, 0.0, 0\n"
            "    for x, y in loader:\n        x, y = x.to(device), y.to(device)\n        optimizer.zero_grad()\n        out = model(x)\n"
            "        loss = loss_fn(out, y)\n        loss.backward()\n        optimizer.step()\n        seen += len(y)\n"
            "        mean_loss += (loss.item() - mean_loss) * len(y) / seen\n"
            "        mean_acc += ((out.argmax(1) == y).float().mean().item() - mean_acc) * len(y) / seen\n"
            "    return mean_loss, mean_acc\n",
        ],
    },
    "evaluate": {
        "values": [
            # inference_mode as a decorator, losses collected in a list.
            "@torch.inference_mode()\ndef evaluate(model, loader, loss_fn, device):\n    model.eval()\n    losses, hits, n = [], 0, 0\n"
            "    for x, y in loader:\n        out = model(x.to(device))\n        y = y.to(device)\n"
            "        losses.append(loss_fn(out, y).item() * len(y))\n        hits += int((out.argmax(1) == y).sum())\n        n += len(y)\n"
            "    return sum(losses) / n, hits / n\n",
        ],
        "modes": [
            # train(False).
            _evaluate_with(("model.eval()", "model.train(False)")),
        ],
        "grad": [
            # inference_mode as a block.
            _evaluate_with(("torch.no_grad()", "torch.inference_mode()")),
        ],
        "device": [
            # device= as a keyword.
            _evaluate_with(("x.to(device), y.to(device)", "x.to(device=device), y.to(device=device)")),
        ],
        "logits": [
            # The logits kept in a variable of their own.
            _evaluate_with(("            out = model(x)\n            tl += loss_fn(out, y).item() * len(y)\n",
                            "            out = model(x)\n            logits = out\n            tl += loss_fn(logits, y).item() * len(y)\n")),
        ],
        "aggregation": [
            # Every batch's logits and labels gathered, one loss over all of them.
            "def evaluate(model, loader, loss_fn, device):\n    model.eval()\n    outs, ys = [], []\n    with torch.no_grad():\n"
            "        for x, y in loader:\n            outs.append(model(x.to(device)))\n            ys.append(y.to(device))\n"
            "        out, y = torch.cat(outs), torch.cat(ys)\n"
            "        return loss_fn(out, y).item(), (out.argmax(1) == y).float().mean().item()\n",
            # Sums in tensors, weighted by batch size.
            "def evaluate(model, loader, loss_fn, device):\n    model.eval()\n    total, hits, n = torch.zeros((), dtype=torch.float64), 0, 0\n"
            "    with torch.no_grad():\n        for x, y in loader:\n            x, y = x.to(device), y.to(device)\n"
            "            out = model(x)\n            total += loss_fn(out, y).double().cpu() * y.shape[0]\n"
            "            hits += (out.argmax(dim=-1) == y).sum().item()\n            n += y.shape[0]\n"
            "    return (total / n).item(), hits / n\n",
        ],
    },
    "train-mnist": {
        "values": [
            # The loop written out inline instead of calling train_one_epoch: any correct loop keeps full marks.
            "set_seed(0)\nhistory = {'train_loss': [], 'train_acc': [], 'val_loss': [], 'val_acc': []}\n"
            "model = MNISTModel().to(device)\noptimizer = torch.optim.Adam(model.parameters(), lr=1e-3, fused=True)\n"
            "loss_fn = nn.CrossEntropyLoss()\n"
            "for epoch in tqdm(range(10)):\n    model.train()\n    total, hits, n = 0.0, 0, 0\n"
            "    for xb, yb in fast_loader:\n        optimizer.zero_grad()\n        out = model(xb)\n"
            "        loss = loss_fn(out, yb)\n        loss.backward()\n        optimizer.step()\n"
            "        total += loss.item() * len(yb)\n        hits += (out.argmax(1) == yb).sum().item()\n        n += len(yb)\n"
            "    val_loss, val_acc = evaluate(model, val_batches, loss_fn, device)\n"
            "    for k, v in zip(history, (total / n, hits / n, val_loss, val_acc)):\n        history[k].append(v)\n"
            "test_loss, test_acc = evaluate(model, test_batches, loss_fn, device)\n"
            "torch.save(model.state_dict(), 'mnist_mlp.pt')\n",
        ],
        "provenance": [
            # Each key appended by name; the validation and test figures from DataLoaders in batches of 500.
            _train_cell("    train_loss, train_acc = train_one_epoch(model, fast_loader, optimizer, loss_fn, device)\n"
                        "    val_loss, val_acc = evaluate(model, DataLoader(TensorDataset(x_val, y_val), batch_size=500), loss_fn, device)\n",
                        "    history['train_loss'].append(train_loss)\n    history['train_acc'].append(train_acc)\n"
                        "    history['val_loss'].append(val_loss)\n    history['val_acc'].append(val_acc)\n")
            .replace("evaluate(model, test_batches, loss_fn, device)",
                     "evaluate(model, DataLoader(TensorDataset(x_test, y_test), batch_size=500), loss_fn, device)"),
        ],
        "device": [
            # The device by keyword, as the torch.device it already is, and the model moved with to(device=...).
            _train_cell("    train_loss, train_acc = train_one_epoch(model, fast_loader, optimizer, loss_fn, device=torch.device(device))\n"
                        "    val_loss, val_acc = evaluate(model, val_batches, loss_fn, device=device)\n")
            .replace("MNISTModel().to(device)", "MNISTModel().to(device=device)"),
        ],
        "aggregation": [
            # The loop written inline, per-batch losses and sizes in lists, weighted means at the end of each epoch.
            _train_cell("    model.train()\n    losses, sizes, hits = [], [], 0\n"
                        "    for xb, yb in fast_loader:\n        optimizer.zero_grad()\n        out = model(xb)\n"
                        "        loss = loss_fn(out, yb)\n        loss.backward()\n        optimizer.step()\n"
                        "        losses.append(loss.item())\n        sizes.append(len(yb))\n        hits += int((out.argmax(1) == yb).sum())\n"
                        "    train_loss = sum(l * s for l, s in zip(losses, sizes)) / sum(sizes)\n    train_acc = hits / sum(sizes)\n"
                        "    val_loss, val_acc = evaluate(model, val_batches, loss_fn, device)\n"),
        ],
        "leakage": [
            # The training images through a shuffling DataLoader of its own, with plain (not fused) Adam: other batches,
            # another model, the same data.
            _train_cell(_EPOCH_LINES, loader="DataLoader(TensorDataset(x_tr, y_tr), batch_size=64, shuffle=True, "
                                             "generator=torch.Generator().manual_seed(1))")
            .replace("lr=1e-3, fused=True", "lr=1e-3"),
        ],
    },
}

NOT_TESTED = {
    "train-mnist": {
        "randomness": "set_seed(0) and fast_loader's own generator are given outside the solution, and the hidden test "
                      "measures the saved model's accuracy on the real test set, not its exact weights.",
    },
    "load-idx": {
        "device": "the loaders read files into CPU memory; the training code moves the data afterwards.",
    },
}
