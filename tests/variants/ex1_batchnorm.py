"""Other answers for exercise 1, BatchNorm (see autograder/authoring/variants.py), by class of mistake."""

_CLASS = "class MNISTModelBN(nn.Module):\n    def __init__(self):\n        super().__init__()\n"


def _model(layers: str, forward: str = "        return self.net(x)\n") -> str:
    """MNISTModelBN with ``layers`` inside nn.Sequential and ``forward``'s body."""
    return (_CLASS + "        self.net = nn.Sequential(\n" + layers + "        )\n"
            "    def forward(self, x):\n" + forward)


_BN_LAYERS = ("            nn.Linear(784, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.2),\n"
              "            nn.Linear(256, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.2),\n"
              "            nn.Linear(128, 10),\n")

# The model split into named layers, for the answers that write forward by hand.
_LAYERS = (_CLASS
           + "        self.fc1, self.fc2, self.fc3 = nn.Linear(784, 256), nn.Linear(256, 128), nn.Linear(128, 10)\n"
           "        self.bn1, self.bn2 = nn.BatchNorm1d(256), nn.BatchNorm1d(128)\n"
           "        self.drop = nn.Dropout(0.2)\n"
           "    def forward(self, x):\n")


def _predict(body: str) -> str:
    return "def predict(model, x, batch_size=1000):\n" + body


def _train(seed_line: str = "    set_seed(seed)\n", model_line: str = "    model = make_model().to(device)\n",
           lr: str = "lr", fit_extra: str = ", seed=seed", device_arg: str = "device",
           result: str = "t.seconds / epochs") -> str:
    return ("def train_and_time(make_model, seed, train, val, *, epochs, device, batch_size=64, lr=1e-3):\n"
            + seed_line + model_line
            + f"    opt = torch.optim.Adam(model.parameters(), lr={lr})\n"
            "    with Timer(device) as t:\n"
            f"        h = fit(model, train, val, epochs=epochs, optimizer=opt, device={device_arg}, "
            f"batch_size=batch_size{fit_extra})\n"
            f"    return h, {result}\n")


def _first(body: str) -> str:
    return "def first_epoch_reaching(history, target):\n" + body


WRONG = {
    "model-bn": {
        "values": [
            # BatchNorm after the ReLU instead of before it.
            _model(_BN_LAYERS.replace("nn.BatchNorm1d(256), nn.ReLU()", "nn.ReLU(), nn.BatchNorm1d(256)")
                   .replace("nn.BatchNorm1d(128), nn.ReLU()", "nn.ReLU(), nn.BatchNorm1d(128)")),
            # BatchNorm2d, the image version.
            _model(_BN_LAYERS.replace("BatchNorm1d", "BatchNorm2d")),
            # Feature sizes swapped.
            _model("            nn.Linear(784, 256), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.2),\n"
                   "            nn.Linear(256, 128), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.2),\n"
                   "            nn.Linear(128, 10),\n"),
            # BatchNorm on the output layer as well.
            _model(_BN_LAYERS.replace("nn.Linear(128, 10),", "nn.Linear(128, 10), nn.BatchNorm1d(10),")),
            # Just the reference model (passes the visible checks).
            "from coursekit.mnist import MNISTModel as _Ref\n"
            + _CLASS + "        self.inner = _Ref(batchnorm=True)\n"
            "    def forward(self, x):\n        return self.inner(x)\n",
            # The course's model as a base class: it does this exercise's work, so the cell earns nothing.
            "import coursekit.mnist\n\nclass MNISTModelBN(coursekit.mnist.MNISTModel):\n"
            "    def __init__(self):\n        super().__init__(batchnorm=True)\n",
            # The course's model's layers taken over: the same.
            "import coursekit.mnist\n\n" + _CLASS + "        self.net = coursekit.mnist.MNISTModel(batchnorm=True).net\n"
            "    def forward(self, x):\n        return self.net(x)\n",
            # eps=1e-3 in BatchNorm: another normalisation than BatchNorm's default.
            _model(_BN_LAYERS.replace("BatchNorm1d(256)", "BatchNorm1d(256, eps=1e-3)").replace("BatchNorm1d(128)", "BatchNorm1d(128, eps=1e-3)")),
            # The second Dropout forgotten: the same in eval() mode, another model in train() mode.
            _model(_BN_LAYERS.replace("nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.2),", "nn.BatchNorm1d(128), nn.ReLU(),")),
        ],
        "modes": [
            # No running statistics: eval() keeps normalising with the batch's own statistics.
            _model(_BN_LAYERS.replace("BatchNorm1d(256)", "BatchNorm1d(256, track_running_stats=False)")
                   .replace("BatchNorm1d(128)", "BatchNorm1d(128, track_running_stats=False)")),
            # Batch statistics forced in forward, whatever the mode ("forgot eval" built into the model).
            _LAYERS
            + "        h = F.batch_norm(self.fc1(x), None, None, self.bn1.weight, self.bn1.bias, training=True)\n"
            "        h = self.drop(F.relu(h))\n"
            "        h = F.batch_norm(self.fc2(h), None, None, self.bn2.weight, self.bn2.bias, training=True)\n"
            "        return self.fc3(self.drop(F.relu(h)))\n",
            # F.dropout without training=self.training: its default is True, so dropout stays on in eval().
            _LAYERS
            + "        h = F.dropout(F.relu(self.bn1(self.fc1(x))), 0.2)\n"
            "        h = F.dropout(F.relu(self.bn2(self.fc2(h))), 0.2)\n"
            "        return self.fc3(h)\n",
            # Running statistics updated with momentum 0.01: train() mode moves them ten times slower than the default.
            _model(_BN_LAYERS.replace("BatchNorm1d(256)", "BatchNorm1d(256, momentum=0.01)")
                   .replace("BatchNorm1d(128)", "BatchNorm1d(128, momentum=0.01)")),
            # BatchNorm by hand with the batch's statistics, in every mode (the running statistics are never used).
            _LAYERS
            + "        def norm(h, bn):\n"
            "            return (h - h.mean(0)) / torch.sqrt(h.var(0, unbiased=False) + bn.eps) * bn.weight + bn.bias\n"
            "        h = self.drop(F.relu(norm(self.fc1(x), self.bn1)))\n"
            "        h = self.drop(F.relu(norm(self.fc2(h), self.bn2)))\n"
            "        return self.fc3(h)\n",
        ],
        "logits": [
            # Softmax probabilities instead of logits (passes the visible checks).
            _model(_BN_LAYERS.replace("nn.Linear(128, 10),", "nn.Linear(128, 10), nn.Softmax(dim=1),")),
            # Log-probabilities: CrossEntropyLoss would apply log_softmax a second time.
            _model(_BN_LAYERS, "        return F.log_softmax(self.net(x), dim=1)\n"),
        ],
        "shapes": [
            # squeeze() "to tidy up": a batch of one comes back as (10,) instead of (1, 10).
            _model(_BN_LAYERS, "        return self.net(x).squeeze()\n"),
        ],
        "grad": [
            # The output detached "to save memory": nothing can be trained through it.
            _model(_BN_LAYERS, "        return self.net(x).detach()\n"),
        ],
        "device": [
            # Moves its input to the notebook's `device`: right only while the model happens to live there too.
            _model(_BN_LAYERS, "        return self.net(x.to(device))\n"),
        ],
        "result-device": [
            # The logits handed back on the CPU "for the loss", wherever the model and its input are.
            _model(_BN_LAYERS, "        return self.net(x).cpu()\n"),
        ],
    },
    "predict": {
        "values": [
            # torch.max(...)[0] is the largest logit, not its index.
            _predict("    was = model.training\n    model.eval()\n"
                     "    dev = next(model.parameters()).device\n"
                     "    with torch.no_grad():\n"
                     "        out = torch.cat([torch.max(model(c.to(dev)), 1)[0].long().cpu() for c in x.split(batch_size)])\n"
                     "    model.train(was)\n    return out\n"),
            # Slices x[s:batch_size] instead of x[s:s + batch_size]: every chunk after the first is empty.
            _predict("    was = model.training\n    model.eval()\n"
                     "    dev = next(model.parameters()).device\n"
                     "    with torch.no_grad():\n"
                     "        out = torch.cat([model(x[s:batch_size].to(dev)).argmax(1).cpu()\n"
                     "                         for s in range(0, len(x), batch_size)])\n"
                     "    model.train(was)\n    return out\n"),
        ],
        "result-device": [
            # The classes left where the model computed them (.cpu() forgotten): right only when the model is on the CPU.
            _predict("    was = model.training\n    model.eval()\n"
                     "    dev = next(model.parameters()).device\n"
                     "    with torch.no_grad():\n"
                     "        out = torch.cat([model(c.to(dev)).argmax(1) for c in x.split(batch_size)])\n"
                     "    model.train(was)\n    return out\n"),
            # The classes sent to the model's device "to keep everything together".
            _predict("    was = model.training\n    model.eval()\n"
                     "    dev = next(model.parameters()).device\n"
                     "    with torch.no_grad():\n"
                     "        out = torch.cat([model(c.to(dev)).argmax(1).cpu() for c in x.split(batch_size)])\n"
                     "    model.train(was)\n    return out.to(dev)\n"),
        ],
        "shapes": [
            # squeeze() at the end: a single image gives a 0-d tensor instead of shape (1,).
            _predict("    was = model.training\n    model.eval()\n"
                     "    dev = next(model.parameters()).device\n"
                     "    with torch.no_grad():\n"
                     "        out = torch.cat([model(c.to(dev)).argmax(1).cpu() for c in x.split(batch_size)])\n"
                     "    model.train(was)\n    return out.squeeze()\n"),
        ],
        "boundaries": [
            # range(0, len(x) - 1, batch_size): with chunks of one row the last row is never predicted.
            _predict("    was = model.training\n    model.eval()\n"
                     "    dev = next(model.parameters()).device\n"
                     "    with torch.no_grad():\n"
                     "        out = torch.cat([model(x[s:s + batch_size].to(dev)).argmax(1).cpu()\n"
                     "                         for s in range(0, len(x) - 1, batch_size)] or [torch.zeros(0, dtype=torch.long)])\n"
                     "    model.train(was)\n    return out\n"),
            # len(x) // batch_size chunks: the last, shorter chunk is dropped (and fewer rows than one chunk give none).
            _predict("    was = model.training\n    model.eval()\n"
                     "    dev = next(model.parameters()).device\n"
                     "    with torch.no_grad():\n"
                     "        out = torch.cat([model(x[k * batch_size:(k + 1) * batch_size].to(dev)).argmax(1).cpu()\n"
                     "                         for k in range(len(x) // batch_size)])\n"
                     "    model.train(was)\n    return out\n"),
        ],
        "dtype": [
            # Pre-allocated with torch.empty(N): float32, not int64.
            _predict("    was = model.training\n    model.eval()\n"
                     "    dev = next(model.parameters()).device\n    out = torch.empty(len(x))\n"
                     "    with torch.no_grad():\n"
                     "        for s in range(0, len(x), batch_size):\n"
                     "            out[s:s + batch_size] = model(x[s:s + batch_size].to(dev)).argmax(1).cpu()\n"
                     "    model.train(was)\n    return out\n"),
        ],
        "device": [
            # Never moves the chunks to the model's device: right only while everything is on the CPU.
            _predict("    was = model.training\n    model.eval()\n"
                     "    with torch.no_grad():\n"
                     "        out = torch.cat([model(c).argmax(1).cpu() for c in x.split(batch_size)])\n"
                     "    model.train(was)\n    return out\n"),
            # Moves the chunks to the notebook's `device`, not to the model's.
            _predict("    was = model.training\n    model.eval()\n"
                     "    with torch.no_grad():\n"
                     "        out = torch.cat([model(c.to(device)).argmax(1).cpu() for c in x.split(batch_size)])\n"
                     "    model.train(was)\n    return out\n"),
        ],
        "modes": [
            # Restores only the top module's flag (model.training = was): its layers stay in eval() mode.
            _predict("    was = model.training\n    model.eval()\n"
                     "    dev = next(model.parameters()).device\n"
                     "    with torch.no_grad():\n"
                     "        out = torch.cat([model(c.to(dev)).argmax(1).cpu() for c in x.split(batch_size)])\n"
                     "    model.training = was\n    return out\n"),
            # Forgets eval(): batch-dependent predictions, running statistics updated, a batch of one fails.
            _predict("    with torch.no_grad():\n"
                     "        return torch.cat([model(x[s:s + batch_size]).argmax(1) for s in range(0, len(x), batch_size)]).cpu()\n"),
            # Switches to eval() and leaves the model there.
            _predict("    model.eval()\n"
                     "    with torch.no_grad():\n"
                     "        return torch.cat([model(x[s:s + batch_size]).argmax(1) for s in range(0, len(x), batch_size)]).cpu()\n"),
            # Always switches back to train(), even for a model that was in eval mode.
            _predict("    model.eval()\n"
                     "    with torch.no_grad():\n"
                     "        out = torch.cat([model(x[s:s + batch_size]).argmax(1) for s in range(0, len(x), batch_size)])\n"
                     "    model.train()\n"
                     "    return out.cpu()\n"),
        ],
        "grad": [
            # Builds a graph (no no_grad).
            _predict("    was = model.training\n"
                     "    model.eval()\n"
                     "    out = torch.cat([model(x[s:s + batch_size]).argmax(1) for s in range(0, len(x), batch_size)])\n"
                     "    model.train(was)\n"
                     "    return out.cpu()\n"),
            # detach() after the forward pass: the graph has already been built by then.
            _predict("    was = model.training\n    model.eval()\n"
                     "    dev = next(model.parameters()).device\n"
                     "    out = torch.cat([model(c.to(dev)).detach().argmax(1).cpu() for c in x.split(batch_size)])\n"
                     "    model.train(was)\n    return out\n"),
        ],
    },
    "train-and-time": {
        "values": [
            # Total seconds instead of seconds per epoch.
            _train(result="t.seconds"),
            # Learning rate hard-coded.
            _train(lr="1e-3"),
            # AdamW (weight decay 0.01) instead of Adam.
            _train().replace("torch.optim.Adam(", "torch.optim.AdamW("),
            # batch_size not passed on: fit's default of 64 whatever the caller asked.
            _train().replace(", batch_size=batch_size", ""),
            # One call to fit per epoch, each reseeding its batches with the same seed: every epoch shuffles alike.
            "def train_and_time(make_model, seed, train, val, *, epochs, device, batch_size=64, lr=1e-3):\n"
            "    set_seed(seed)\n    model = make_model().to(device)\n"
            "    opt = torch.optim.Adam(model.parameters(), lr=lr)\n    history = {}\n"
            "    with Timer(device) as t:\n        for _ in range(epochs):\n"
            "            h = fit(model, train, val, epochs=1, optimizer=opt, device=device, batch_size=batch_size, seed=seed)\n"
            "            for k, v in h.items():\n                history.setdefault(k, []).extend(v)\n"
            "    return history, t.seconds / epochs\n",
        ],
        "provenance": [
            # Measures on the training data (fit(model, train, train, ...)): every validation figure comes from the wrong data.
            _train().replace("fit(model, train, val,", "fit(model, train, train,"),
            # Hands train and val to fit the other way round.
            _train().replace("fit(model, train, val,", "fit(model, val, train,"),
        ],
        "randomness": [
            # Seeds after building the model: the initial weights are not fixed by the seed.
            _train(seed_line="", model_line="    model = make_model().to(device)\n    set_seed(seed)\n"),
            # Always the same batch order (fit's default seed=0).
            _train(fit_extra=""),
            # A fixed seed: every run starts from the same weights whatever `seed` says.
            _train(seed_line="    set_seed(0)\n"),
            # The seed folded into 16 bits: seeds that differ by a multiple of 65,536 give the same run.
            _train(seed_line="    seed = seed % 65536\n    set_seed(seed)\n"),
        ],
        "device": [
            # Picks its own device instead of the one it was given (right on a machine with one device only).
            _train(model_line="    model = make_model().to(pick_device())\n", device_arg="pick_device()"),
        ],
        "leakage": [
            # The validation images added to the training data ("more data"): it is then chosen on images it learned.
            _train().replace("fit(model, train, val,", "fit(model, (torch.cat([train[0], val[0]]), torch.cat([train[1], val[1]])), val,"),
            # The notebook's whole training file instead of the `train` it was given: the validation images are in it.
            _train().replace("fit(model, train, val,", "fit(model, (x_train, y_train), val,"),
            # Trained on the validation data it is measured on.
            _train().replace("fit(model, train, val,", "fit(model, val, val,"),
        ],
    },
    "first-epoch": {
        "values": [
            # Counts from 0.
            _first("    for k, a in enumerate(history['val_acc']):\n"
                   "        if a >= target:\n            return k\n    return None\n"),
            # The last epoch at or above the target, not the first.
            _first("    hits = [k for k, a in enumerate(history['val_acc'], start=1) if a >= target]\n"
                   "    return hits[-1] if hits else None\n"),
            # The accuracies taken off the history's list as they are read: the caller's history is emptied.
            _first("    acc, epoch = history['val_acc'], 0\n    while acc:\n        epoch += 1\n"
                   "        if acc.pop(0) >= target:\n            return epoch\n    return None\n"),
            # The epoch from which the accuracy stays at or above the target, not the first that reaches it.
            _first("    acc = history['val_acc']\n    for k in range(len(acc)):\n"
                   "        if all(a >= target for a in acc[k:]):\n            return k + 1\n    return None\n"),
            # Epoch of the best accuracy.
            _first("    acc = history['val_acc']\n"
                   "    if not acc or max(acc) < target:\n        return None\n"
                   "    return acc.index(max(acc)) + 1\n"),
            # A 0-d tensor instead of a Python int.
            _first("    hits = (torch.tensor(history['val_acc'], dtype=torch.float64) >= target).nonzero()\n"
                   "    return hits[0, 0] + 1 if len(hits) else None\n"),
        ],
        "provenance": [
            # Training accuracy instead of validation accuracy.
            _first("    for k, a in enumerate(history['train_acc'], start=1):\n"
                   "        if a >= target:\n            return k\n    return None\n"),
        ],
        "leakage": [
            # Reads the test accuracy: an epoch chosen on the test set.
            _first("    for k, a in enumerate(history['test_acc'], start=1):\n"
                   "        if a >= target:\n            return k\n    return None\n"),
            # The test figures preferred when a history has them.
            _first("    acc = history.get('test_acc') or history['val_acc']\n"
                   "    return next((k + 1 for k, a in enumerate(acc) if a >= target), None)\n"),
            # The better of the two held-out figures at each epoch.
            _first("    acc = [max(v, t) for v, t in zip(history['val_acc'], history.get('test_acc', history['val_acc']))]\n"
                   "    return next((k + 1 for k, a in enumerate(acc) if a >= target), None)\n"),
        ],
        "boundaries": [
            # Both sides rounded to two decimals "as the plot shows them": a value just below the target counts.
            _first("    for k, a in enumerate(history['val_acc'], start=1):\n"
                   "        if round(a, 2) >= round(target, 2):\n            return k\n    return None\n"),
            # Strictly above the target: an epoch exactly at the target does not count.
            _first("    for k, a in enumerate(history['val_acc'], start=1):\n"
                   "        if a > target:\n            return k\n    return None\n"),
            # Rules out a run that never gets there with max() first: a run of no epochs raises instead of giving None.
            _first("    acc = history['val_acc']\n"
                   "    if max(acc) < target:\n        return None\n"
                   "    return next(k + 1 for k, a in enumerate(acc) if a >= target)\n"),
        ],
    },
}

RIGHT = {
    "model-bn": {
        "grad": [
            # Linear and BatchNorm layers in ModuleLists walked by a loop: every output still connected to the weights.
            "class MNISTModelBN(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.fc = nn.ModuleList([nn.Linear(784, 256), nn.Linear(256, 128), nn.Linear(128, 10)])\n"
            "        self.bn = nn.ModuleList([nn.BatchNorm1d(256), nn.BatchNorm1d(128)])\n"
            "        self.drop = nn.Dropout(0.2)\n"
            "    def forward(self, x):\n"
            "        for fc, bn in zip(self.fc, self.bn):\n"
            "            x = self.drop(torch.relu(bn(fc(x))))\n"
            "        return self.fc[-1](x)\n",
        ],
        "values": [
            # Separate layers and functional ReLU.
            _LAYERS
            + "        x = self.drop(F.relu(self.bn1(self.fc1(x))))   # (B, 256)\n"
            "        x = self.drop(F.relu(self.bn2(self.fc2(x))))   # (B, 128)\n"
            "        return self.fc3(x)\n",
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
        "modes": [
            # Functional dropout that follows the module's mode.
            _LAYERS
            + "        h = F.dropout(F.relu(self.bn1(self.fc1(x))), 0.2, training=self.training)\n"
            "        h = F.dropout(F.relu(self.bn2(self.fc2(h))), 0.2, self.training)\n"
            "        return self.fc3(h)\n",
            # BatchNorm's mode-related defaults written out (running statistics kept, updated with momentum 0.1).
            _model(_BN_LAYERS.replace("nn.BatchNorm1d(256)", "nn.BatchNorm1d(256, momentum=0.1, track_running_stats=True)")
                   .replace("nn.BatchNorm1d(128)", "nn.BatchNorm1d(128, eps=1e-5, affine=True, track_running_stats=True)")),
        ],
        "logits": [
            # The layers in a ModuleList, the last one's output returned as it is.
            _CLASS
            + "        self.layers = nn.ModuleList([nn.Linear(784, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.2),\n"
            "                                     nn.Linear(256, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.2),\n"
            "                                     nn.Linear(128, 10)])\n"
            "    def forward(self, x):\n"
            "        for layer in self.layers:\n            x = layer(x)\n"
            "        return x   # raw logits\n",
        ],
        "shapes": [
            # Flattens with view(B, -1), which keeps the batch dimension for any B.
            _model(_BN_LAYERS, "        return self.net(x.view(x.shape[0], -1))\n"),
        ],
        "device": [
            # Moves its input to wherever the model's weights are: follows the model's device.
            _model(_BN_LAYERS, "        return self.net(x.to(self.net[0].weight.device))\n"),
        ],
        "result-device": [
            # The logits moved to the input's device, where they already are.
            _model(_BN_LAYERS, "        return self.net(x).to(x.device)\n"),
        ],
    },
    "predict": {
        "values": [
            # torch.max(...)[1] is the index of the largest logit (the softmax would not change it).
            _predict("    was = model.training\n    model.eval()\n"
                     "    dev = next(model.parameters()).device\n"
                     "    with torch.no_grad():\n"
                     "        out = torch.cat([torch.max(model(c.to(dev)).softmax(1), 1)[1].cpu() for c in x.split(batch_size)])\n"
                     "    model.train(was)\n    return out\n"),
        ],
        "result-device": [
            # The classes of every chunk gathered where the model is, brought to the CPU once at the end.
            _predict("    was = model.training\n    model.eval()\n"
                     "    dev = next(model.parameters()).device\n"
                     "    with torch.no_grad():\n"
                     "        out = torch.cat([model(c.to(dev)).argmax(1) for c in x.split(batch_size)])\n"
                     "    model.train(was)\n    return out.cpu()\n"),
            # Each chunk's classes sent to the CPU by name, with .to.
            _predict("    was = model.training\n    model.eval()\n"
                     "    dev = next(model.parameters()).device\n"
                     "    with torch.no_grad():\n"
                     "        out = torch.cat([model(c.to(dev)).argmax(1).to(torch.device('cpu')) for c in x.split(batch_size)])\n"
                     "    model.train(was)\n    return out\n"),
        ],
        "shapes": [
            # An explicit loop over the start of each chunk, the last shorter one included.
            _predict("    was = model.training\n    model.eval()\n"
                     "    dev = next(model.parameters()).device\n    parts = []\n"
                     "    with torch.no_grad():\n"
                     "        for start in range(0, x.shape[0], batch_size):\n"
                     "            parts.append(model(x[start:start + batch_size].to(dev)).argmax(dim=1).cpu())\n"
                     "    model.train(was)\n    return torch.cat(parts)\n"),
        ],
        "boundaries": [
            # math.ceil(N / batch_size) chunks, the last one shorter.
            _predict("    was = model.training\n    model.eval()\n"
                     "    dev = next(model.parameters()).device\n"
                     "    with torch.no_grad():\n"
                     "        out = torch.cat([model(x[k * batch_size:(k + 1) * batch_size].to(dev)).argmax(1).cpu()\n"
                     "                         for k in range(math.ceil(len(x) / batch_size))])\n"
                     "    model.train(was)\n    return out\n"),
        ],
        "dtype": [
            # Pre-allocated as int64.
            _predict("    was = model.training\n    model.eval()\n"
                     "    dev = next(model.parameters()).device\n    out = torch.empty(len(x), dtype=torch.long)\n"
                     "    with torch.no_grad():\n"
                     "        for s in range(0, len(x), batch_size):\n"
                     "            out[s:s + batch_size] = model(x[s:s + batch_size].to(dev)).argmax(1).cpu()\n"
                     "    model.train(was)\n    return out\n"),
        ],
        "device": [
            # The device of the model's first buffer (BatchNorm's running mean) and .to('cpu') at the end.
            _predict("    was = model.training\n    model.eval()\n"
                     "    dev = next(iter(model.state_dict().values())).device\n"
                     "    with torch.no_grad():\n"
                     "        out = [model(c.to(dev)).argmax(1).to('cpu') for c in torch.split(x, batch_size)]\n"
                     "    model.train(was)\n    return torch.cat(out)\n"),
        ],
        "modes": [
            # model.train(mode=...) with the remembered flag.
            _predict("    mode = model.training\n    model.train(False)\n"
                     "    dev = next(model.parameters()).device\n"
                     "    with torch.no_grad():\n"
                     "        out = torch.cat([model(c.to(dev)).argmax(-1).cpu() for c in x.split(batch_size)])\n"
                     "    model.train(mode=mode)\n    return out\n"),
        ],
        "grad": [
            # inference_mode, try/finally.
            _predict("    was_training = model.training\n"
                     "    device = next(model.parameters()).device\n"
                     "    model.eval()\n"
                     "    try:\n"
                     "        with torch.inference_mode():\n"
                     "            return torch.cat([model(chunk.to(device)).argmax(dim=1).cpu() for chunk in x.split(batch_size)])\n"
                     "    finally:\n"
                     "        if was_training:\n            model.train()\n"),
            # The forward passes in a function decorated with @torch.no_grad().
            _predict("    @torch.no_grad()\n"
                     "    def classes(chunk):\n"
                     "        return model(chunk.to(next(model.parameters()).device)).argmax(1).cpu()\n"
                     "    was = model.training\n    model.eval()\n"
                     "    out = torch.cat([classes(c) for c in x.split(batch_size)])\n"
                     "    model.train(was)\n    return out\n"),
        ],
    },
    "train-and-time": {
        "values": [
            # time.perf_counter instead of Timer (fit ends each epoch with .item(), which waits for the device).
            "def train_and_time(make_model, seed, train, val, *, epochs, device, batch_size=64, lr=1e-3):\n"
            "    torch.manual_seed(seed)\n"
            "    model = make_model()\n"
            "    model.to(device)\n"
            "    optimizer = torch.optim.Adam(model.parameters(), lr=lr)\n"
            "    start = time.perf_counter()\n"
            "    history = fit(model, train, val, epochs=epochs, optimizer=optimizer, device=device,\n"
            "                  batch_size=batch_size, seed=seed, progress=False)\n"
            "    return history, float((time.perf_counter() - start) / epochs)\n",
        ],
        "randomness": [
            # torch.random.manual_seed does what set_seed does for this run.
            _train(seed_line="    torch.random.manual_seed(seed)\n"),
        ],
        "device": [
            # The device as a keyword of .to, and given to fit by keyword in another order.
            _train(model_line="    model = make_model()\n    model = model.to(device=device)\n"),
        ],
        "provenance": [
            # The two data sets unpacked and put back together, each in its own place, passed by keyword.
            _train().replace("fit(model, train, val,",
                             "(x_tr, y_tr), (x_va, y_va) = train, val\n        h = fit(model, train=(x_tr, y_tr), "
                             "val=(x_va, y_va),").replace("        h = (x_tr", "        (x_tr"),
        ],
        "leakage": [
            # The two pairs copied before fit: the same rows, other tensors.
            _train().replace("fit(model, train, val,", "fit(model, tuple(t.clone() for t in train), tuple(t.clone() for t in val),"),
            # The pairs handed on as lists.
            _train().replace("fit(model, train, val,", "fit(model, list(train), list(val),"),
        ],
    },
    "first-epoch": {
        "values": [
            _first("    return next((k + 1 for k, a in enumerate(history['val_acc']) if a >= target), None)\n"),
            # NumPy: the first True of a boolean array, as a Python int.
            _first("    import numpy as np\n    hits = np.asarray(history['val_acc'], dtype=float) >= target\n"
                   "    return int(hits.argmax()) + 1 if hits.any() else None\n"),
        ],
        "provenance": [
            # The validation accuracies looked up by key once, then scanned with an index.
            _first("    val_acc = history.get('val_acc', [])\n"
                   "    for k in range(len(val_acc)):\n        if val_acc[k] >= target:\n            return k + 1\n"
                   "    return None\n"),
        ],
        "leakage": [
            # Only the validation figures looked at, by name, whatever else the history holds.
            _first("    validation = {k: v for k, v in history.items() if k.startswith('val_')}\n"
                   "    return next((k + 1 for k, a in enumerate(validation['val_acc']) if a >= target), None)\n"),
            # Epochs and validation accuracies zipped, the smallest epoch that reaches the target.
            _first("    rows = zip(range(1, len(history['val_acc']) + 1), history['val_acc'])\n"
                   "    return min((k for k, a in rows if a >= target), default=None)\n"),
        ],
        "boundaries": [
            # "Not below the target", and an index that walks while the run is still short of it.
            _first("    acc, k = history['val_acc'], 0\n"
                   "    while k < len(acc) and acc[k] < target:\n        k += 1\n"
                   "    return k + 1 if k < len(acc) else None\n"),
        ],
    },
}

NOT_TESTED = {
    "train-and-time": {
        "amp": "fit ends every epoch with .item(), which waits for the device, so a clock read without synchronising "
               "is right here too (the RIGHT answer with time.perf_counter shows it).",
    },
}
