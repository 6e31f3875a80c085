"""Other answers for exercise 1, BatchNorm (see autograder/variants.py)."""

_CLASS = "class MNISTModelBN(nn.Module):\n    def __init__(self):\n        super().__init__()\n"

WRONG = {
    "model-bn": [
        # BatchNorm after the ReLU instead of before it.
        _CLASS
        + "        self.net = nn.Sequential(\n"
        "            nn.Linear(784, 256), nn.ReLU(), nn.BatchNorm1d(256), nn.Dropout(0.2),\n"
        "            nn.Linear(256, 128), nn.ReLU(), nn.BatchNorm1d(128), nn.Dropout(0.2),\n"
        "            nn.Linear(128, 10))\n"
        "    def forward(self, x):\n        return self.net(x)\n",
        # BatchNorm2d, the image version.
        _CLASS
        + "        self.net = nn.Sequential(\n"
        "            nn.Linear(784, 256), nn.BatchNorm2d(256), nn.ReLU(), nn.Dropout(0.2),\n"
        "            nn.Linear(256, 128), nn.BatchNorm2d(128), nn.ReLU(), nn.Dropout(0.2),\n"
        "            nn.Linear(128, 10))\n"
        "    def forward(self, x):\n        return self.net(x)\n",
        # Feature sizes swapped.
        _CLASS
        + "        self.net = nn.Sequential(\n"
        "            nn.Linear(784, 256), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.2),\n"
        "            nn.Linear(256, 128), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.2),\n"
        "            nn.Linear(128, 10))\n"
        "    def forward(self, x):\n        return self.net(x)\n",
        # BatchNorm on the output layer as well.
        _CLASS
        + "        self.net = nn.Sequential(\n"
        "            nn.Linear(784, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.2),\n"
        "            nn.Linear(256, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.2),\n"
        "            nn.Linear(128, 10), nn.BatchNorm1d(10))\n"
        "    def forward(self, x):\n        return self.net(x)\n",
        # No running statistics: eval() keeps normalising with the batch's own statistics.
        _CLASS
        + "        self.net = nn.Sequential(\n"
        "            nn.Linear(784, 256), nn.BatchNorm1d(256, track_running_stats=False), nn.ReLU(), nn.Dropout(0.2),\n"
        "            nn.Linear(256, 128), nn.BatchNorm1d(128, track_running_stats=False), nn.ReLU(), nn.Dropout(0.2),\n"
        "            nn.Linear(128, 10))\n"
        "    def forward(self, x):\n        return self.net(x)\n",
        # Batch statistics forced in forward, whatever the mode ("forgot eval" built into the model).
        _CLASS
        + "        self.fc1, self.fc2, self.fc3 = nn.Linear(784, 256), nn.Linear(256, 128), nn.Linear(128, 10)\n"
        "        self.bn1, self.bn2 = nn.BatchNorm1d(256), nn.BatchNorm1d(128)\n"
        "        self.drop = nn.Dropout(0.2)\n"
        "    def forward(self, x):\n"
        "        h = F.batch_norm(self.fc1(x), None, None, self.bn1.weight, self.bn1.bias, training=True)\n"
        "        h = self.drop(F.relu(h))\n"
        "        h = F.batch_norm(self.fc2(h), None, None, self.bn2.weight, self.bn2.bias, training=True)\n"
        "        return self.fc3(self.drop(F.relu(h)))\n",
        # Softmax probabilities instead of logits (passes the visible checks).
        _CLASS
        + "        self.net = nn.Sequential(\n"
        "            nn.Linear(784, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.2),\n"
        "            nn.Linear(256, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.2),\n"
        "            nn.Linear(128, 10), nn.Softmax(dim=1))\n"
        "    def forward(self, x):\n        return self.net(x)\n",
        # Just the reference model (passes the visible checks).
        "from coursekit.mnist import MNISTModel as _Ref\n"
        "class MNISTModelBN(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.inner = _Ref(batchnorm=True)\n"
        "    def forward(self, x):\n        return self.inner(x)\n",
    ],
    "predict": [
        # Forgets eval(): batch-dependent predictions, running statistics updated, a batch of one fails.
        "def predict(model, x, batch_size=1000):\n"
        "    with torch.no_grad():\n"
        "        return torch.cat([model(x[s:s + batch_size]).argmax(1) for s in range(0, len(x), batch_size)]).cpu()\n",
        # Switches to eval() and leaves the model there.
        "def predict(model, x, batch_size=1000):\n"
        "    model.eval()\n"
        "    with torch.no_grad():\n"
        "        return torch.cat([model(x[s:s + batch_size]).argmax(1) for s in range(0, len(x), batch_size)]).cpu()\n",
        # Always switches back to train(), even for a model that was in eval mode.
        "def predict(model, x, batch_size=1000):\n"
        "    model.eval()\n"
        "    with torch.no_grad():\n"
        "        out = torch.cat([model(x[s:s + batch_size]).argmax(1) for s in range(0, len(x), batch_size)])\n"
        "    model.train()\n"
        "    return out.cpu()\n",
        # Builds a graph (no no_grad).
        "def predict(model, x, batch_size=1000):\n"
        "    was = model.training\n"
        "    model.eval()\n"
        "    out = torch.cat([model(x[s:s + batch_size]).argmax(1) for s in range(0, len(x), batch_size)])\n"
        "    model.train(was)\n"
        "    return out.cpu()\n",
    ],
    "train-and-time": [
        # Seeds after building the model: the initial weights are not fixed by the seed.
        "def train_and_time(make_model, seed, train, test, *, epochs, device, batch_size=64, lr=1e-3):\n"
        "    model = make_model().to(device)\n"
        "    set_seed(seed)\n"
        "    opt = torch.optim.Adam(model.parameters(), lr=lr)\n"
        "    start = time.perf_counter()\n"
        "    h = fit(model, train, test, epochs=epochs, optimizer=opt, device=device, batch_size=batch_size, seed=seed)\n"
        "    return h, (time.perf_counter() - start) / epochs\n",
        # Always the same batch order (fit's default seed=0).
        "def train_and_time(make_model, seed, train, test, *, epochs, device, batch_size=64, lr=1e-3):\n"
        "    set_seed(seed)\n"
        "    model = make_model().to(device)\n"
        "    opt = torch.optim.Adam(model.parameters(), lr=lr)\n"
        "    start = time.perf_counter()\n"
        "    h = fit(model, train, test, epochs=epochs, optimizer=opt, device=device, batch_size=batch_size)\n"
        "    return h, (time.perf_counter() - start) / epochs\n",
        # Total seconds instead of seconds per epoch.
        "def train_and_time(make_model, seed, train, test, *, epochs, device, batch_size=64, lr=1e-3):\n"
        "    set_seed(seed)\n"
        "    model = make_model().to(device)\n"
        "    opt = torch.optim.Adam(model.parameters(), lr=lr)\n"
        "    start = time.perf_counter()\n"
        "    h = fit(model, train, test, epochs=epochs, optimizer=opt, device=device, batch_size=batch_size, seed=seed)\n"
        "    return h, time.perf_counter() - start\n",
        # Learning rate hard-coded.
        "def train_and_time(make_model, seed, train, test, *, epochs, device, batch_size=64, lr=1e-3):\n"
        "    set_seed(seed)\n"
        "    model = make_model().to(device)\n"
        "    opt = torch.optim.Adam(model.parameters(), lr=1e-3)\n"
        "    with Timer(device) as t:\n"
        "        h = fit(model, train, test, epochs=epochs, optimizer=opt, device=device, batch_size=batch_size, seed=seed)\n"
        "    return h, t.seconds / epochs\n",
    ],
    "first-epoch": [
        # Counts from 0.
        "def first_epoch_reaching(history, target):\n"
        "    for k, a in enumerate(history['test_acc']):\n"
        "        if a >= target:\n            return k\n    return None\n",
        # Strictly above the target.
        "def first_epoch_reaching(history, target):\n"
        "    for k, a in enumerate(history['test_acc'], start=1):\n"
        "        if a > target:\n            return k\n    return None\n",
        # The last epoch at or above the target, not the first.
        "def first_epoch_reaching(history, target):\n"
        "    hits = [k for k, a in enumerate(history['test_acc'], start=1) if a >= target]\n"
        "    return hits[-1] if hits else None\n",
        # Training accuracy instead of test accuracy.
        "def first_epoch_reaching(history, target):\n"
        "    for k, a in enumerate(history['train_acc'], start=1):\n"
        "        if a >= target:\n            return k\n    return None\n",
        # Epoch of the best accuracy.
        "def first_epoch_reaching(history, target):\n"
        "    acc = history['test_acc']\n"
        "    if not acc or max(acc) < target:\n        return None\n"
        "    return acc.index(max(acc)) + 1\n",
    ],
}

RIGHT = {
    "model-bn": [
        # Separate layers and functional ReLU.
        _CLASS
        + "        self.fc1, self.fc2, self.out = nn.Linear(784, 256), nn.Linear(256, 128), nn.Linear(128, 10)\n"
        "        self.bn1, self.bn2 = nn.BatchNorm1d(256), nn.BatchNorm1d(128)\n"
        "        self.drop = nn.Dropout(0.2)\n"
        "    def forward(self, x):\n"
        "        x = self.drop(F.relu(self.bn1(self.fc1(x))))   # (B, 256)\n"
        "        x = self.drop(F.relu(self.bn2(self.fc2(x))))   # (B, 128)\n"
        "        return self.out(x)\n",
        # Hidden Linear layers without bias (BatchNorm's beta replaces it), built in a loop.
        _CLASS
        + "        layers, width = [], 784\n"
        "        for size in (256, 128):\n"
        "            layers += [nn.Linear(width, size, bias=False), nn.BatchNorm1d(size), nn.ReLU(), nn.Dropout(0.2)]\n"
        "            width = size\n"
        "        self.body = nn.Sequential(*layers)\n"
        "        self.head = nn.Linear(width, 10)\n"
        "    def forward(self, x):\n        return self.head(self.body(x.flatten(1)))\n",
    ],
    "predict": [
        "def predict(model, x, batch_size=1000):\n"
        "    was_training = model.training\n"
        "    device = next(model.parameters()).device\n"
        "    model.eval()\n"
        "    try:\n"
        "        with torch.inference_mode():\n"
        "            return torch.cat([model(chunk.to(device)).argmax(dim=1).cpu() for chunk in x.split(batch_size)])\n"
        "    finally:\n"
        "        if was_training:\n            model.train()\n",
    ],
    "train-and-time": [
        "def train_and_time(make_model, seed, train, test, *, epochs, device, batch_size=64, lr=1e-3):\n"
        "    torch.manual_seed(seed)\n"
        "    model = make_model()\n"
        "    model.to(device)\n"
        "    optimizer = torch.optim.Adam(model.parameters(), lr=lr)\n"
        "    start = time.perf_counter()\n"
        "    history = fit(model, train, test, epochs=epochs, optimizer=optimizer, device=device,\n"
        "                  batch_size=batch_size, seed=seed, progress=False)\n"
        "    return history, float((time.perf_counter() - start) / epochs)\n",
    ],
    "first-epoch": [
        "def first_epoch_reaching(history, target):\n"
        "    return next((k + 1 for k, a in enumerate(history['test_acc']) if a >= target), None)\n",
    ],
}
