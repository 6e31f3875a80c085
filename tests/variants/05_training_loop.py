"""Other answers for lesson 05 (see autograder/variants.py): mistakes the tests must catch, and
correct answers written differently that must keep full marks."""

# The loop most fit() variants start from; each wrong one changes a line or two of it.
_FIT = (
    "def fit(model, x, y, optimizer, epochs, batch_size=32, generator=None):\n"
    "    history = {'loss': [], 'accuracy': []}\n"
    "    loss_fn = nn.CrossEntropyLoss()\n"
    "    for _ in range(epochs):\n"
    "        model.train()\n"
    "        order = torch.randperm(len(x), generator=generator).to(x.device)\n"
    "        losses = [train_step(model, x[order[s:s + batch_size]], y[order[s:s + batch_size]], optimizer, loss_fn)\n"
    "                  for s in range(0, len(x), batch_size)]\n"
    "        history['loss'].append(sum(losses) / len(losses))\n"
    "        history['accuracy'].append(accuracy(model, x, y))\n"
    "    return history\n"
)


def _fit_with(*edits: tuple[str, str]) -> str:
    source = _FIT
    for old, new in edits:
        assert old in source, f"variant edit does not apply: {old!r}"
        source = source.replace(old, new)
    return source


WRONG = {
    "make-circles": [
        # Draws from PyTorch's global random state: the visible checks pass, the data is not reproducible.
        "def make_circles(n, noise=0.1, generator=None):\n"
        "    y = (torch.arange(n) >= n // 2).long()\n"
        "    radius = 1.0 + y.float()\n"
        "    angle = 2 * math.pi * torch.rand(n)\n"
        "    x = torch.stack([radius * angle.cos(), radius * angle.sin()], dim=1)\n"
        "    return x + noise * torch.randn(n, 2), y\n",
        # noise used as a variance: invisible with noise=0.
        "def make_circles(n, noise=0.1, generator=None):\n"
        "    y = (torch.arange(n) >= n // 2).long()\n"
        "    radius = 1.0 + y.float()\n"
        "    angle = 2 * math.pi * torch.rand(n, generator=generator)\n"
        "    x = torch.stack([radius * angle.cos(), radius * angle.sin()], dim=1)\n"
        "    return x + noise ** 2 * torch.randn(n, 2, generator=generator), y\n",
        # Angles in [0, pi): half circles only.
        "def make_circles(n, noise=0.1, generator=None):\n"
        "    y = (torch.arange(n) >= n // 2).long()\n"
        "    radius = 1.0 + y.float()\n"
        "    angle = math.pi * torch.rand(n, generator=generator)\n"
        "    x = torch.stack([radius * angle.cos(), radius * angle.sin()], dim=1)\n"
        "    return x + noise * torch.randn(n, 2, generator=generator), y\n",
        # Rounds the wrong way for odd n (class 0 gets the extra point).
        "def make_circles(n, noise=0.1, generator=None):\n"
        "    y = (torch.arange(n) >= (n + 1) // 2).long()\n"
        "    radius = 1.0 + y.float()\n"
        "    angle = 2 * math.pi * torch.rand(n, generator=generator)\n"
        "    x = torch.stack([radius * angle.cos(), radius * angle.sin()], dim=1)\n"
        "    return x + noise * torch.randn(n, 2, generator=generator), y\n",
        # Float labels: CrossEntropyLoss wants class indices.
        "def make_circles(n, noise=0.1, generator=None):\n"
        "    y = (torch.arange(n) >= n // 2).float()\n"
        "    angle = 2 * math.pi * torch.rand(n, generator=generator)\n"
        "    x = torch.stack([(1 + y) * angle.cos(), (1 + y) * angle.sin()], dim=1)\n"
        "    return x + noise * torch.randn(n, 2, generator=generator), y\n",
    ],
    "train-step": [
        # Never clears the gradients: they pile up, yet the loss still falls with Adam.
        "def train_step(model, x, y, optimizer, loss_fn):\n"
        "    loss = loss_fn(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    return loss.item()\n",
        # Clears after backward: every step sees zero gradients.
        "def train_step(model, x, y, optimizer, loss_fn):\n"
        "    loss = loss_fn(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.zero_grad()\n"
        "    optimizer.step()\n"
        "    return loss.item()\n",
        # Steps before backward.
        "def train_step(model, x, y, optimizer, loss_fn):\n"
        "    optimizer.zero_grad()\n"
        "    loss = loss_fn(model(x), y)\n"
        "    optimizer.step()\n"
        "    loss.backward()\n"
        "    return loss.item()\n",
        # Returns the tensor.
        "def train_step(model, x, y, optimizer, loss_fn):\n"
        "    optimizer.zero_grad()\n"
        "    loss = loss_fn(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    return loss\n",
        # Returns the loss after the update (an extra forward pass).
        "def train_step(model, x, y, optimizer, loss_fn):\n"
        "    optimizer.zero_grad()\n"
        "    loss_fn(model(x), y).backward()\n"
        "    optimizer.step()\n"
        "    with torch.no_grad():\n"
        "        return loss_fn(model(x), y).item()\n",
    ],
    "accuracy": [
        # no_grad but no eval(): dropout stays on.
        "def accuracy(model, x, y):\n"
        "    with torch.no_grad():\n"
        "        return (model(x).argmax(dim=1) == y).float().mean().item()\n",
        # eval() but no no_grad(): a graph is built for nothing.
        "def accuracy(model, x, y):\n"
        "    model.eval()\n"
        "    return (model(x).argmax(dim=1) == y).float().mean().item()\n",
        # Returns a tensor.
        "def accuracy(model, x, y):\n"
        "    model.eval()\n"
        "    with torch.no_grad():\n"
        "        return (model(x).argmax(dim=1) == y).float().mean()\n",
        # Counts instead of a fraction.
        "def accuracy(model, x, y):\n"
        "    model.eval()\n"
        "    with torch.no_grad():\n"
        "        return float((model(x).argmax(dim=1) == y).sum())\n",
    ],
    "fit": [
        # train() once before the loop: after the first accuracy() every step runs in eval mode.
        _fit_with(("    for _ in range(epochs):\n        model.train()\n", "    model.train()\n    for _ in range(epochs):\n")),
        # Never shuffles.
        _fit_with(("        order = torch.randperm(len(x), generator=generator).to(x.device)\n", ""),
                  ("x[order[s:s + batch_size]], y[order[s:s + batch_size]]", "x[s:s + batch_size], y[s:s + batch_size]")),
        # Shuffles x and y with two different permutations.
        _fit_with(("        order = torch.randperm(len(x), generator=generator).to(x.device)\n",
                   "        xs = x[torch.randperm(len(x), generator=generator).to(x.device)]\n"
                   "        ys = y[torch.randperm(len(y), generator=generator).to(y.device)]\n"),
                  ("model, x[order[s:s + batch_size]], y[order[s:s + batch_size]]", "model, xs[s:s + batch_size], ys[s:s + batch_size]")),
        # Drops the last, smaller batch.
        _fit_with(("range(0, len(x), batch_size)", "range(0, len(x) - batch_size + 1, batch_size)")),
        # Shuffles with the global random state instead of the generator.
        _fit_with(("torch.randperm(len(x), generator=generator)", "torch.randperm(len(x))")),
        # Its own loop, without zero_grad.
        "def fit(model, x, y, optimizer, epochs, batch_size=32, generator=None):\n"
        "    history = {'loss': [], 'accuracy': []}\n"
        "    loss_fn = nn.CrossEntropyLoss()\n"
        "    for _ in range(epochs):\n"
        "        model.train()\n"
        "        order = torch.randperm(len(x), generator=generator).to(x.device)\n"
        "        total = 0.0\n"
        "        for s in range(0, len(x), batch_size):\n"
        "            idx = order[s:s + batch_size]\n"
        "            loss = loss_fn(model(x[idx]), y[idx])\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "            total += loss.item() * len(idx)\n"
        "        history['loss'].append(total / len(x))\n"
        "        history['accuracy'].append(accuracy(model, x, y))\n"
        "    return history\n",
        # zero_grad once per epoch, outside the batch loop: gradients pile up within an epoch.
        "def fit(model, x, y, optimizer, epochs, batch_size=32, generator=None):\n"
        "    history = {'loss': [], 'accuracy': []}\n"
        "    loss_fn = nn.CrossEntropyLoss()\n"
        "    for _ in range(epochs):\n"
        "        model.train()\n"
        "        optimizer.zero_grad()\n"
        "        order = torch.randperm(len(x), generator=generator).to(x.device)\n"
        "        total = 0.0\n"
        "        for s in range(0, len(x), batch_size):\n"
        "            idx = order[s:s + batch_size]\n"
        "            loss = loss_fn(model(x[idx]), y[idx])\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "            total += loss.item() * len(idx)\n"
        "        history['loss'].append(total / len(x))\n"
        "        history['accuracy'].append(accuracy(model, x, y))\n"
        "    return history\n",
    ],
    "make-model": [
        # No hidden layer: a straight line cannot separate the rings.
        "def make_model():\n    return nn.Linear(2, 2)\n",
        # Hidden layers but no non-linearity: still one linear map.
        "def make_model():\n"
        "    return nn.Sequential(nn.Linear(2, 32), nn.Linear(32, 32), nn.Linear(32, 2))\n",
        # One output: a (B, 1) score is not two logits.
        "def make_model():\n"
        "    return nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 1))\n",
        # The same model every call.
        "_shared_model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 2))\n\n"
        "def make_model():\n    return _shared_model\n",
    ],
}

RIGHT = {
    "make-circles": [
        # Random directions from normalised Gaussian vectors, labels in random order.
        "def make_circles(n, noise=0.1, generator=None):\n"
        "    labels = torch.cat([torch.zeros(n // 2, dtype=torch.long), torch.ones(n - n // 2, dtype=torch.long)])\n"
        "    labels = labels[torch.randperm(n, generator=generator)]\n"
        "    direction = torch.randn(n, 2, generator=generator)\n"
        "    direction = direction / direction.norm(dim=1, keepdim=True)\n"
        "    points = direction * (labels + 1).unsqueeze(1).float()\n"
        "    return points + torch.randn(n, 2, generator=generator) * noise, labels\n",
        # One point at a time, in plain Python.
        "def make_circles(n, noise=0.1, generator=None):\n"
        "    points, labels = [], []\n"
        "    for i in range(n):\n"
        "        label = 0 if i < n // 2 else 1\n"
        "        theta = 2 * math.pi * torch.rand(1, generator=generator).item()\n"
        "        dx, dy = (noise * torch.randn(2, generator=generator)).tolist()\n"
        "        points.append([(label + 1) * math.cos(theta) + dx, (label + 1) * math.sin(theta) + dy])\n"
        "        labels.append(label)\n"
        "    return torch.tensor(points, dtype=torch.float32).reshape(n, 2), torch.tensor(labels, dtype=torch.int64)\n",
    ],
    "train-step": [
        # model.zero_grad and float().
        "def train_step(model, x, y, optimizer, loss_fn):\n"
        "    model.zero_grad(set_to_none=True)\n"
        "    loss = loss_fn(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    return float(loss)\n",
        # Clears at the end of the step instead of the start.
        "def train_step(model, x, y, optimizer, loss_fn):\n"
        "    loss = loss_fn(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    optimizer.zero_grad()\n"
        "    return loss.detach().item()\n",
        # Gradients set to None by hand.
        "def train_step(model, x, y, optimizer, loss_fn):\n"
        "    for p in model.parameters():\n"
        "        p.grad = None\n"
        "    logits = model(x)\n"
        "    loss = loss_fn(logits, y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    return loss.item()\n",
    ],
    "accuracy": [
        # inference_mode, restores the previous mode, counts then divides.
        "def accuracy(model, x, y):\n"
        "    was_training = model.training\n"
        "    model.eval()\n"
        "    with torch.inference_mode():\n"
        "        correct = (model(x).argmax(dim=1) == y).sum().item()\n"
        "    model.train(was_training)\n"
        "    return correct / len(y)\n",
        # train(False), max().indices, torch.eq.
        "def accuracy(model, x, y):\n"
        "    model.train(False)\n"
        "    with torch.no_grad():\n"
        "        predicted = model(x).max(dim=1).indices\n"
        "    return torch.eq(predicted, y).sum().item() / y.numel()\n",
    ],
    "fit": [
        # DataLoader with a seeded generator; loss averaged over batches.
        "from torch.utils.data import DataLoader, TensorDataset\n\n"
        "def fit(model, x, y, optimizer, epochs, batch_size=32, generator=None):\n"
        "    history = {'loss': [], 'accuracy': []}\n"
        "    loss_fn = nn.CrossEntropyLoss()\n"
        "    loader = DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=True, generator=generator)\n"
        "    for _ in range(epochs):\n"
        "        model.train()\n"
        "        losses = [train_step(model, xb, yb, optimizer, loss_fn) for xb, yb in loader]\n"
        "        history['loss'].append(sum(losses) / len(losses))\n"
        "        history['accuracy'].append(accuracy(model, x, y))\n"
        "    return history\n",
        # The five steps inline, torch.split over the permutation.
        "def fit(model, x, y, optimizer, epochs, batch_size=32, generator=None):\n"
        "    history = {'loss': [], 'accuracy': []}\n"
        "    loss_fn = nn.CrossEntropyLoss()\n"
        "    for epoch in range(epochs):\n"
        "        model.train()\n"
        "        permutation = torch.randperm(x.shape[0], generator=generator)\n"
        "        running = 0.0\n"
        "        for idx in torch.split(permutation, batch_size):\n"
        "            idx = idx.to(x.device)\n"
        "            model.zero_grad()\n"
        "            loss = loss_fn(model(x[idx]), y[idx])\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "            running += loss.item() * idx.numel()\n"
        "        history['loss'].append(running / x.shape[0])\n"
        "        history['accuracy'].append(accuracy(model, x, y))\n"
        "    return history\n",
        # coursekit's in-memory batches (lesson 08).
        "from coursekit.mnist import InMemoryBatches\n\n"
        "def fit(model, x, y, optimizer, epochs, batch_size=32, generator=None):\n"
        "    history = {'loss': [], 'accuracy': []}\n"
        "    batches = InMemoryBatches(x, y, batch_size, generator=generator)\n"
        "    for _ in range(epochs):\n"
        "        model.train()\n"
        "        total = sum(train_step(model, xb, yb, optimizer, nn.CrossEntropyLoss()) * len(yb) for xb, yb in batches)\n"
        "        history['loss'].append(total / len(y))\n"
        "        history['accuracy'].append(accuracy(model, x, y))\n"
        "    return history\n",
    ],
    "make-model": [
        # One wider hidden layer with tanh.
        "def make_model():\n"
        "    return nn.Sequential(nn.Linear(2, 64), nn.Tanh(), nn.Linear(64, 2))\n",
        # A module class with BatchNorm.
        "class CircleNet(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.hidden = nn.Sequential(nn.Linear(2, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU())\n"
        "        self.out = nn.Linear(16, 2)\n"
        "    def forward(self, x):\n"
        "        return self.out(self.hidden(x))\n\n"
        "def make_model():\n    return CircleNet()\n",
        # Named layers, LeakyReLU.
        "from collections import OrderedDict\n\n"
        "def make_model():\n"
        "    return nn.Sequential(OrderedDict([('fc1', nn.Linear(2, 24)), ('act1', nn.LeakyReLU(0.1)),\n"
        "                                      ('fc2', nn.Linear(24, 24)), ('act2', nn.LeakyReLU(0.1)),\n"
        "                                      ('logits', nn.Linear(24, 2))]))\n",
    ],
}
