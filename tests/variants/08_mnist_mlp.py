"""Other answers for lesson 08, the Build (see autograder/variants.py)."""

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

WRONG = {
    "load-idx": [
        # No header checks at all: frombuffer's own error is not a clear message.
        _READ_IDX_OK.replace('    if magic != magic_expected:\n        raise ValueError(f"bad magic number {magic} in {path}")\n', "")
        + "\ndef load_images(path):\n    x = _read_idx(path, 2051, 3)\n    return x.reshape(len(x), -1).float() / 255\n"
        + "\ndef load_labels(path):\n    return _read_idx(path, 2049, 1).long()\n",
        # Pixels left in [0, 255].
        _READ_IDX_OK + "\ndef load_images(path):\n    x = _read_idx(path, 2051, 3)\n    return x.reshape(len(x), -1).float()\n"
        + "\ndef load_labels(path):\n    return _read_idx(path, 2049, 1).long()\n",
    ],
    "mnist-model": [
        # Softmax at the end: probabilities instead of logits.
        "class MNISTModel(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Dropout(0.2), nn.Linear(256, 128), nn.ReLU(),\n"
        "                                 nn.Dropout(0.2), nn.Linear(128, 10), nn.Softmax(dim=1))\n"
        "    def forward(self, x):\n        return self.net(x)\n",
        # Dropout forgotten (same parameter count).
        "class MNISTModel(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))\n"
        "    def forward(self, x):\n        return self.net(x)\n",
    ],
    "train-one-epoch": [
        # No zero_grad: gradients accumulate.
        "def train_one_epoch(model, loader, optimizer, loss_fn, device):\n    model.train()\n    tl, c, n = 0.0, 0, 0\n"
        "    for x, y in loader:\n        x, y = x.to(device), y.to(device)\n        out = model(x)\n        loss = loss_fn(out, y)\n"
        "        loss.backward()\n        optimizer.step()\n        tl += loss.item() * len(y)\n"
        "        c += (out.argmax(1) == y).sum().item()\n        n += len(y)\n    return tl / n, c / n\n",
        # Never switches to train(): a model left in eval() trains without dropout.
        "def train_one_epoch(model, loader, optimizer, loss_fn, device):\n    tl, c, n = 0.0, 0, 0\n"
        "    for x, y in loader:\n        x, y = x.to(device), y.to(device)\n        optimizer.zero_grad()\n        out = model(x)\n"
        "        loss = loss_fn(out, y)\n        loss.backward()\n        optimizer.step()\n        tl += loss.item() * len(y)\n"
        "        c += (out.argmax(1) == y).sum().item()\n        n += len(y)\n    return tl / n, c / n\n",
        # Mean of batch means: wrong when the last batch is smaller.
        "def train_one_epoch(model, loader, optimizer, loss_fn, device):\n    model.train()\n    losses, accs = [], []\n"
        "    for x, y in loader:\n        x, y = x.to(device), y.to(device)\n        optimizer.zero_grad()\n        out = model(x)\n"
        "        loss = loss_fn(out, y)\n        loss.backward()\n        optimizer.step()\n        losses.append(loss.item())\n"
        "        accs.append((out.argmax(1) == y).float().mean().item())\n    return sum(losses) / len(losses), sum(accs) / len(accs)\n",
    ],
    "evaluate": [
        # Missing eval(): dropout stays on, results vary.
        "def evaluate(model, loader, loss_fn, device):\n    tl, c, n = 0.0, 0, 0\n    with torch.no_grad():\n"
        "        for x, y in loader:\n            x, y = x.to(device), y.to(device)\n            out = model(x)\n"
        "            tl += loss_fn(out, y).item() * len(y)\n            c += (out.argmax(1) == y).sum().item()\n            n += len(y)\n"
        "    return tl / n, c / n\n",
        # Missing no_grad: builds a graph for nothing.
        "def evaluate(model, loader, loss_fn, device):\n    model.eval()\n    tl, c, n = 0.0, 0, 0\n"
        "    for x, y in loader:\n        x, y = x.to(device), y.to(device)\n        out = model(x)\n"
        "        tl += loss_fn(out, y).item() * len(y)\n        c += (out.argmax(1) == y).sum().item()\n        n += len(y)\n"
        "    return tl / n, c / n\n",
    ],
    "train-mnist": [
        # A learning rate far too small: the model never gets good.
        "set_seed(0)\nhistory = {'train_loss': [], 'train_acc': [], 'test_loss': [], 'test_acc': []}\n"
        "model = MNISTModel()\noptimizer = torch.optim.SGD(model.parameters(), lr=1e-4)\nloss_fn = nn.CrossEntropyLoss()\n"
        "for epoch in range(10):\n    a = train_one_epoch(model, [next(iter(fast_loader))], optimizer, loss_fn, device)\n"
        "    b = evaluate(model, test_loader, loss_fn, device)\n"
        "    for k, v in zip(history, a + b):\n        history[k].append(v)\n"
        "torch.save(model.state_dict(), 'mnist_mlp.pt')\n",
        # The optimizer was built for another model's parameters: the trained model never moves.
        "set_seed(0)\nhistory = {'train_loss': [], 'train_acc': [], 'test_loss': [], 'test_acc': []}\n"
        "model = MNISTModel().to(device)\n"
        "optimizer = torch.optim.Adam(MNISTModel().parameters(), lr=1e-3, fused=True)\n"
        "for epoch in range(10):\n    a = train_one_epoch(model, [next(iter(fast_loader))], optimizer, nn.CrossEntropyLoss(), device)\n"
        "    b = evaluate(model, test_batches, nn.CrossEntropyLoss(), device)\n"
        "    for k, v in zip(history, a + b):\n        history[k].append(v)\n"
        "torch.save(model.state_dict(), 'mnist_mlp.pt')\n",
    ],
}

RIGHT = {
    "load-idx": [
        _READ_IDX_OK + "\ndef load_images(path):\n    x = _read_idx(path, 2051, 3)\n    return x.flatten(1).to(torch.float32).div(255)\n"
        + "\ndef load_labels(path):\n    return _read_idx(path, 2049, 1).to(torch.int64)\n",
    ],
    "mnist-model": [
        "class MNISTModel(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.fc1, self.fc2, self.fc3 = nn.Linear(784, 256), nn.Linear(256, 128), nn.Linear(128, 10)\n"
        "        self.drop = nn.Dropout(0.2)\n        self.drop2 = nn.Dropout(p=0.2)\n"
        "    def forward(self, x):\n        x = self.drop(torch.relu(self.fc1(x)))\n        x = self.drop2(torch.relu(self.fc2(x)))\n"
        "        return self.fc3(x)\n",
    ],
    "train-one-epoch": [
        "def train_one_epoch(model, loader, optimizer, loss_fn, device):\n    model.train()\n"
        "    total = torch.zeros(()); correct = torch.zeros((), dtype=torch.long); n = 0\n"
        "    for x, y in loader:\n        x = x.to(device); y = y.to(device)\n        optimizer.zero_grad(set_to_none=True)\n"
        "        logits = model(x)\n        loss = loss_fn(logits, y)\n        loss.backward()\n        optimizer.step()\n"
        "        total += loss.detach().cpu() * y.numel()\n        correct += (logits.argmax(-1) == y).sum().cpu()\n        n += y.numel()\n"
        "    return float(total / n), float(correct) / n\n",
    ],
    "evaluate": [
        "@torch.inference_mode()\ndef evaluate(model, loader, loss_fn, device):\n    model.eval()\n    losses, hits, n = [], 0, 0\n"
        "    for x, y in loader:\n        out = model(x.to(device))\n        y = y.to(device)\n"
        "        losses.append(loss_fn(out, y).item() * len(y))\n        hits += int((out.argmax(1) == y).sum())\n        n += len(y)\n"
        "    return sum(losses) / n, hits / n\n",
    ],
    "train-mnist": [
        # Plain Adam (not fused) and a differently written loop: just as correct.
        "set_seed(0)\nhistory = {'train_loss': [], 'train_acc': [], 'test_loss': [], 'test_acc': []}\n"
        "model = MNISTModel().to(device)\noptimizer = torch.optim.Adam(model.parameters(), lr=1e-3)\n"
        "for epoch in range(10):\n    r = train_one_epoch(model, fast_loader, optimizer, nn.CrossEntropyLoss(), device)\n"
        "    r = r + evaluate(model, test_loader, nn.CrossEntropyLoss(), device)\n"
        "    for k, v in zip(history, r):\n        history[k].append(v)\n"
        "torch.save(model.state_dict(), 'mnist_mlp.pt')\n",
        # The loop written out inline instead of calling train_one_epoch: any correct loop keeps full marks.
        "set_seed(0)\nhistory = {'train_loss': [], 'train_acc': [], 'test_loss': [], 'test_acc': []}\n"
        "model = MNISTModel().to(device)\noptimizer = torch.optim.Adam(model.parameters(), lr=1e-3, fused=True)\n"
        "loss_fn = nn.CrossEntropyLoss()\n"
        "for epoch in tqdm(range(10)):\n    model.train()\n    total, hits, n = 0.0, 0, 0\n"
        "    for xb, yb in fast_loader:\n        optimizer.zero_grad()\n        out = model(xb)\n"
        "        loss = loss_fn(out, yb)\n        loss.backward()\n        optimizer.step()\n"
        "        total += loss.item() * len(yb)\n        hits += (out.argmax(1) == yb).sum().item()\n        n += len(yb)\n"
        "    test_loss, test_acc = evaluate(model, test_batches, loss_fn, device)\n"
        "    for k, v in zip(history, (total / n, hits / n, test_loss, test_acc)):\n        history[k].append(v)\n"
        "torch.save(model.state_dict(), 'mnist_mlp.pt')\n",
    ],
}
