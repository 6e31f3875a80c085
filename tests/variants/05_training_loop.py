"""Other answers for lesson 05 (see autograder/authoring/variants.py): mistakes the tests must catch, and
correct answers written differently that must keep full marks, by class of mistake."""

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


# make_circles as the solution writes it; variants change a line of it.
_CIRCLES = (
    "def make_circles(n, noise=0.1, generator=None):\n"
    "    y = (torch.arange(n) >= n // 2).long()\n"
    "    radius = 1.0 + y.float()\n"
    "    angle = 2 * math.pi * torch.rand(n, generator=generator)\n"
    "    x = torch.stack([radius * angle.cos(), radius * angle.sin()], dim=1)\n"
    "    return x + noise * torch.randn(n, 2, generator=generator), y\n"
)


def _circles_with(*edits: tuple[str, str]) -> str:
    source = _CIRCLES
    for old, new in edits:
        assert old in source, f"variant edit does not apply: {old!r}"
        source = source.replace(old, new)
    return source


# train_step as the solution writes it.
_STEP = (
    "def train_step(model, x, y, optimizer, loss_fn):\n"
    "    optimizer.zero_grad()\n"
    "    logits = model(x)\n"
    "    loss = loss_fn(logits, y)\n"
    "    loss.backward()\n"
    "    optimizer.step()\n"
    "    return loss.item()\n"
)


def _step_with(*edits: tuple[str, str]) -> str:
    source = _STEP
    for old, new in edits:
        assert old in source, f"variant edit does not apply: {old!r}"
        source = source.replace(old, new)
    return source


_ACCURACY = (
    "def accuracy(model, x, y):\n"
    "    model.eval()\n"
    "    with torch.no_grad():\n"
    "        predictions = model(x).argmax(dim=1)\n"
    "    return (predictions == y).float().mean().item()\n"
)


def _accuracy_with(*edits: tuple[str, str]) -> str:
    source = _ACCURACY
    for old, new in edits:
        assert old in source, f"variant edit does not apply: {old!r}"
        source = source.replace(old, new)
    return source


def _model(body: str) -> str:
    return "def make_model():\n    return " + body + "\n"


WRONG = {
    "make-circles": {
        "values": [
            # noise used as a variance: invisible with noise=0.
            _circles_with(("noise * torch.randn", "noise ** 2 * torch.randn")),
            # Angles in [0, pi): half circles only.
            _circles_with(("2 * math.pi * torch.rand", "math.pi * torch.rand")),
            # Rounds the wrong way for odd n (class 0 gets the extra point).
            _circles_with(("torch.arange(n) >= n // 2", "torch.arange(n) >= (n + 1) // 2")),
            # One noise vector for every point: the whole picture shifts, the points keep their circle's shape.
            _circles_with(("noise * torch.randn(n, 2, generator=generator)", "noise * torch.randn(2, generator=generator)")),
            # One noise number per point, added to both coordinates: every point moves along the diagonal y = x.
            _circles_with(("noise * torch.randn(n, 2, generator=generator)", "noise * torch.randn(n, 1, generator=generator)")),
            # Labels alternating 0, 1, 0, 1...: for odd n class 0 gets the extra point.
            _circles_with(("(torch.arange(n) >= n // 2).long()", "torch.arange(n) % 2")),
        ],
        "shapes": [
            # n // 2 points for each class: one point short whenever n is odd.
            "def make_circles(n, noise=0.1, generator=None):\n"
            "    def ring(count, radius):\n"
            "        angle = 2 * math.pi * torch.rand(count, generator=generator)\n"
            "        return radius * torch.stack([angle.cos(), angle.sin()], dim=1)\n"
            "    x = torch.cat([ring(n // 2, 1.0), ring(n // 2, 2.0)])\n"
            "    y = torch.cat([torch.zeros(n // 2), torch.ones(n // 2)]).long()\n"
            "    return x + noise * torch.randn(x.shape, generator=generator), y\n",
            # A squeeze on the way out: a single point comes back as (2,), not (1, 2).
            _circles_with(("    return x + noise * torch.randn(n, 2, generator=generator), y\n",
                           "    return (x + noise * torch.randn(n, 2, generator=generator)).squeeze(), y\n")),
        ],
        "dtype": [
            # Float labels: CrossEntropyLoss wants class indices.
            "def make_circles(n, noise=0.1, generator=None):\n"
            "    y = (torch.arange(n) >= n // 2).float()\n"
            "    angle = 2 * math.pi * torch.rand(n, generator=generator)\n"
            "    x = torch.stack([(1 + y) * angle.cos(), (1 + y) * angle.sin()], dim=1)\n"
            "    return x + noise * torch.randn(n, 2, generator=generator), y\n",
            # Points computed in float64 and returned as they are.
            _circles_with(("torch.rand(n, generator=generator)", "torch.rand(n, generator=generator, dtype=torch.float64)"),
                          ("torch.randn(n, 2, generator=generator)", "torch.randn(n, 2, generator=generator, dtype=torch.float64)")),
        ],
        "randomness": [
            # Draws from PyTorch's global random state: the visible checks pass, the data is not reproducible.
            _circles_with(("torch.rand(n, generator=generator)", "torch.rand(n)"),
                          ("torch.randn(n, 2, generator=generator)", "torch.randn(n, 2)")),
            # The angles from the generator, the noise from the global state.
            _circles_with(("torch.randn(n, 2, generator=generator)", "torch.randn(n, 2)")),
            # A generator of its own with a fixed seed: the argument is ignored, every seed gives the same data.
            _circles_with(("    y = ", "    generator = torch.Generator().manual_seed(0)\n    y = ")),
        ],
        "boundaries": [
            # > where >= belongs: the point at index n // 2 stays in class 0, which gets n // 2 + 1 points.
            _circles_with(("torch.arange(n) >= n // 2", "torch.arange(n) > n // 2")),
        ],
    },
    "train-step": {
        "values": [
            # The course's own epoch of training (lesson 08) on a one-batch list: right numbers, nobody's own work.
            "from coursekit.mnist import _train_one_epoch\n\n"
            "def train_step(model, x, y, optimizer, loss_fn):\n"
            "    (loss, _), _ = _train_one_epoch(model, [(x, y)], optimizer, loss_fn, x.device, None)\n"
            "    return loss\n",
            # Steps before backward.
            _step_with(("    loss.backward()\n    optimizer.step()\n", "    optimizer.step()\n    loss.backward()\n")),
            # Returns the tensor.
            _step_with(("return loss.item()", "return loss")),
            # Returns the loss after the update (an extra forward pass).
            "def train_step(model, x, y, optimizer, loss_fn):\n"
            "    optimizer.zero_grad()\n"
            "    loss_fn(model(x), y).backward()\n"
            "    optimizer.step()\n"
            "    with torch.no_grad():\n"
            "        return loss_fn(model(x), y).item()\n",
            # A fresh optimizer of its own instead of the one given: another rule, another learning rate.
            _step_with(("    optimizer.zero_grad()\n", "    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)\n    optimizer.zero_grad()\n")),
            # The loss rounded for display.
            _step_with(("return loss.item()", "return round(loss.item(), 4)")),
        ],
        "grad": [
            # Never clears the gradients: they pile up, yet the loss still falls with Adam.
            _step_with(("    optimizer.zero_grad()\n", "")),
            # Clears after backward: every step sees zero gradients.
            _step_with(("    optimizer.zero_grad()\n", ""), ("    optimizer.step()\n", "    optimizer.zero_grad()\n    optimizer.step()\n")),
            # zero_grad without the parentheses: a no-op, the gradients pile up.
            _step_with(("    optimizer.zero_grad()\n", "    optimizer.zero_grad\n")),
        ],
        "shapes": [
            # squeeze() on the logits: a batch of one becomes a (2,) vector that CrossEntropyLoss cannot pair with y.
            _step_with(("logits = model(x)", "logits = model(x).squeeze()")),
            # squeeze() on the labels: a batch of one leaves a 0-d target.
            _step_with(("loss_fn(logits, y)", "loss_fn(logits, y.squeeze())")),
        ],
        "logits": [
            # Probabilities into CrossEntropyLoss: it applies its own softmax, so the gradients are wrong.
            _step_with(("logits = model(x)", "logits = model(x).softmax(dim=1)")),
            # The same with the functional softmax, in a variable of its own.
            _step_with(("    loss = loss_fn(logits, y)\n",
                        "    probs = torch.nn.functional.softmax(logits, dim=-1)\n    loss = loss_fn(probs, y)\n")),
        ],
        "device": [
            # Moves the batch to the notebook's global device: right by accident while that is where the model is.
            _step_with(("logits = model(x)", "logits = model(x.to(device))"), ("loss_fn(logits, y)", "loss_fn(logits, y.to(device))")),
            # Moves the model to the notebook's global device at every step.
            _step_with(("    optimizer.zero_grad()\n", "    model.to(device)\n    optimizer.zero_grad()\n")),
        ],
    },
    "accuracy": {
        "values": [
            # The course's own evaluation (lesson 08): right numbers, nobody's own work.
            "from coursekit.mnist import evaluate\n\n"
            "def accuracy(model, x, y):\n"
            "    return evaluate(model, x, y, nn.CrossEntropyLoss(), x.device)[1]\n",
            # The private helper behind the course's evaluate, called directly: still the course's code.
            "from coursekit.mnist import _evaluate\n\n"
            "def accuracy(model, x, y):\n"
            "    return _evaluate(model, x, y, nn.CrossEntropyLoss(), x.device, len(x))[1]\n",
            # Returns a tensor.
            _accuracy_with((".mean().item()", ".mean()")),
            # Counts instead of a fraction.
            _accuracy_with(("(predictions == y).float().mean().item()", "float((predictions == y).sum())")),
            # Integer division: 0 unless every prediction is right.
            _accuracy_with(("(predictions == y).float().mean().item()", "(predictions == y).sum().item() // len(y)")),
            # Rounded to two decimals.
            _accuracy_with(("(predictions == y).float().mean().item()", "round((predictions == y).float().mean().item(), 2)")),
        ],
        "modes": [
            # no_grad but no eval(): dropout stays on.
            _accuracy_with(("    model.eval()\n", "")),
            # eval without the parentheses: a no-op.
            _accuracy_with(("model.eval()", "model.eval")),
        ],
        "grad": [
            # eval() but no no_grad(): a graph is built for nothing.
            "def accuracy(model, x, y):\n"
            "    model.eval()\n"
            "    return (model(x).argmax(dim=1) == y).float().mean().item()\n",
            # no_grad around the comparison only: the forward pass still records its graph.
            "def accuracy(model, x, y):\n"
            "    model.eval()\n"
            "    logits = model(x)\n"
            "    with torch.no_grad():\n"
            "        return (logits.argmax(dim=1) == y).float().mean().item()\n",
        ],
        "shapes": [
            # squeeze() on the logits: a single sample loses its batch dimension and argmax(dim=1) fails.
            _accuracy_with(("model(x).argmax(dim=1)", "model(x).squeeze().argmax(dim=1)")),
            # Compares (N,) predictions with y as a column: the mean of an (N, N) table, right only for N = 1.
            _accuracy_with(("(predictions == y)", "(predictions == y.view(-1, 1))")),
        ],
        "device": [
            # Moves the inputs to the notebook's global device.
            _accuracy_with(("model(x)", "model(x.to(device))"), ("== y)", "== y.to(device))")),
        ],
    },
    "fit": {
        "values": [
            # The course's own epoch of training (lesson 08) over the batches of each epoch: nobody's own work.
            "from coursekit.mnist import train_one_epoch\n\n"
            "def fit(model, x, y, optimizer, epochs, batch_size=32, generator=None):\n"
            "    history = {'loss': [], 'accuracy': []}\n"
            "    for _ in range(epochs):\n"
            "        order = torch.randperm(len(x), generator=generator).to(x.device)\n"
            "        batches = [(x[order[s:s + batch_size]], y[order[s:s + batch_size]]) for s in range(0, len(x), batch_size)]\n"
            "        loss, _ = train_one_epoch(model, batches, optimizer, nn.CrossEntropyLoss(), x.device)\n"
            "        history['loss'].append(loss)\n"
            "        history['accuracy'].append(accuracy(model, x, y))\n"
            "    return history\n",
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
            # Shuffles once, before the first epoch: every epoch visits the samples in the same order.
            _fit_with(("    for _ in range(epochs):\n        model.train()\n        order = torch.randperm(len(x), generator=generator).to(x.device)\n",
                       "    order = torch.randperm(len(x), generator=generator).to(x.device)\n    for _ in range(epochs):\n        model.train()\n")),
        ],
        "aggregation": [
            # The epoch's loss summed over its batches, not averaged.
            _fit_with(("history['loss'].append(sum(losses) / len(losses))", "history['loss'].append(sum(losses))")),
            # The batch means divided by the number of samples: each batch's loss is already a mean over its samples.
            _fit_with(("history['loss'].append(sum(losses) / len(losses))", "history['loss'].append(sum(losses) / len(x))")),
            # Divided by the number of full batches, n // batch_size: the last, smaller batch is summed but not counted.
            _fit_with(("history['loss'].append(sum(losses) / len(losses))",
                       "history['loss'].append(sum(losses) / (len(x) // batch_size))")),
            # The loss of the epoch's last batch only.
            _fit_with(("history['loss'].append(sum(losses) / len(losses))", "history['loss'].append(losses[-1])")),
        ],
        "provenance": [
            # The accuracy of the epoch's last batch (the variables the loop left behind), not of (x, y).
            _fit_with(("        losses = [train_step(model, x[order[s:s + batch_size]], y[order[s:s + batch_size]], "
                       "optimizer, loss_fn)\n                  for s in range(0, len(x), batch_size)]\n",
                       "        losses = []\n"
                       "        for s in range(0, len(x), batch_size):\n"
                       "            xb, yb = x[order[s:s + batch_size]], y[order[s:s + batch_size]]\n"
                       "            losses.append(train_step(model, xb, yb, optimizer, loss_fn))\n"),
                      ("accuracy(model, x, y)", "accuracy(model, xb, yb)")),
            # The accuracy measured before the epoch's steps, not after them.
            _fit_with(("        losses = [train_step(", "        history['accuracy'].append(accuracy(model, x, y))\n        model.train()\n        losses = [train_step("),
                      ("        history['accuracy'].append(accuracy(model, x, y))\n    return", "    return")),
        ],
        "boundaries": [
            # n // batch_size + 1 batches: right when the last batch is smaller, but when batch_size divides n the
            # extra batch is empty, and its loss is NaN.
            _fit_with(("for s in range(0, len(x), batch_size)]",
                       "for s in range(0, (len(x) // batch_size + 1) * batch_size, batch_size)]")),
            # range(0, n - 1, batch_size): when the last batch would hold a single sample, it is dropped.
            _fit_with(("for s in range(0, len(x), batch_size)]", "for s in range(0, len(x) - 1, batch_size)]")),
        ],
        "modes": [
            # train() once before the loop: after the first accuracy() every step runs in eval mode.
            _fit_with(("    for _ in range(epochs):\n        model.train()\n", "    model.train()\n    for _ in range(epochs):\n")),
            # train() after the steps, just before accuracy(): the steps of every epoch after the first run in eval mode.
            _fit_with(("        model.train()\n", ""),
                      ("        history['accuracy'].append", "        model.train()\n        history['accuracy'].append")),
        ],
        "grad": [
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
        "randomness": [
            # Shuffles with the global random state instead of the generator.
            _fit_with(("torch.randperm(len(x), generator=generator)", "torch.randperm(len(x))")),
            # A DataLoader that shuffles with the global generator (no generator= passed).
            "from torch.utils.data import DataLoader, TensorDataset\n\n"
            "def fit(model, x, y, optimizer, epochs, batch_size=32, generator=None):\n"
            "    history = {'loss': [], 'accuracy': []}\n"
            "    loss_fn = nn.CrossEntropyLoss()\n"
            "    loader = DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=True)\n"
            "    for _ in range(epochs):\n"
            "        model.train()\n"
            "        losses = [train_step(model, xb, yb, optimizer, loss_fn) for xb, yb in loader]\n"
            "        history['loss'].append(sum(losses) / len(losses))\n"
            "        history['accuracy'].append(accuracy(model, x, y))\n"
            "    return history\n",
        ],
        "device": [
            # Moves the permutation to the notebook's global device instead of x.device.
            _fit_with(("generator=generator).to(x.device)", "generator=generator).to(device)")),
            # Moves the data and the model to the notebook's global device first.
            _fit_with(("    loss_fn = nn.CrossEntropyLoss()\n",
                       "    loss_fn = nn.CrossEntropyLoss()\n    model.to(device)\n    x, y = x.to(device), y.to(device)\n")),
        ],
    },
    "make-model": {
        "values": [
            # No hidden layer: a straight line cannot separate the rings.
            _model("nn.Linear(2, 2)"),
            # Hidden layers but no non-linearity: still one linear map.
            _model("nn.Sequential(nn.Linear(2, 32), nn.Linear(32, 32), nn.Linear(32, 2))"),
            # One output: a (B, 1) score is not two logits.
            _model("nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 1))"),
            # The same model every call.
            "_shared_model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 2))\n\n"
            "def make_model():\n    return _shared_model\n",
        ],
        "logits": [
            # A Softmax at the end: probabilities, which CrossEntropyLoss then softmaxes again.
            _model("nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2), nn.Softmax(dim=1))"),
            # A LogSoftmax at the end: log-probabilities (trains, since CrossEntropyLoss normalises again, but they are no logits).
            _model("nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2), nn.LogSoftmax(dim=1))"),
            # A ReLU after the last layer: scores that can never be negative.
            _model("nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2), nn.ReLU())"),
            # A Sigmoid at the end: each score squashed into (0, 1).
            _model("nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2), nn.Sigmoid())"),
        ],
        "shapes": [
            # A forward pass that squeezes: a batch of one comes out as (2,).
            "class CircleNet(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.layers = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2))\n"
            "    def forward(self, x):\n"
            "        return self.layers(x).squeeze()\n\n"
            "def make_model():\n    return CircleNet()\n",
            # Flattens the input with the batch dimension written in: only batches of 5 pass.
            "class CircleNet(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.layers = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2))\n"
            "    def forward(self, x):\n"
            "        return self.layers(x.reshape(5, 2))\n\n"
            "def make_model():\n    return CircleNet()\n",
        ],
    },
}

RIGHT = {
    "make-circles": {
        "values": [
            # Random directions from normalised Gaussian vectors, labels in random order.
            "def make_circles(n, noise=0.1, generator=None):\n"
            "    labels = torch.cat([torch.zeros(n // 2, dtype=torch.long), torch.ones(n - n // 2, dtype=torch.long)])\n"
            "    labels = labels[torch.randperm(n, generator=generator)]\n"
            "    direction = torch.randn(n, 2, generator=generator)\n"
            "    direction = direction / direction.norm(dim=1, keepdim=True)\n"
            "    points = direction * (labels + 1).unsqueeze(1).float()\n"
            "    return points + torch.randn(n, 2, generator=generator) * noise, labels\n",
        ],
        "shapes": [
            # One ring per class, n // 2 and n - n // 2 points, joined with cat.
            "def make_circles(n, noise=0.1, generator=None):\n"
            "    def ring(count, radius):\n"
            "        angle = 2 * math.pi * torch.rand(count, generator=generator)\n"
            "        return radius * torch.stack([angle.cos(), angle.sin()], dim=1)\n"
            "    x = torch.cat([ring(n // 2, 1.0), ring(n - n // 2, 2.0)])\n"
            "    y = torch.cat([torch.zeros(n // 2), torch.ones(n - n // 2)]).long()\n"
            "    return x + noise * torch.randn(x.shape, generator=generator), y\n",
            # One point at a time, in plain Python, reshaped to (n, 2) at the end.
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
        "dtype": [
            # Computed in float64, converted at the end; labels filled into a long tensor.
            "def make_circles(n, noise=0.1, generator=None):\n"
            "    y = torch.zeros(n, dtype=torch.long)\n"
            "    y[n // 2:] = 1\n"
            "    angle = 2 * math.pi * torch.rand(n, generator=generator, dtype=torch.float64)\n"
            "    x = (1.0 + y.double()).unsqueeze(1) * torch.stack([angle.cos(), angle.sin()], dim=1)\n"
            "    x = x + noise * torch.randn(n, 2, generator=generator, dtype=torch.float64)\n"
            "    return x.float(), y\n",
        ],
        "boundaries": [
            # The first n // 2 indices (i < n // 2) are class 0, the rest class 1.
            _circles_with(("(torch.arange(n) >= n // 2).long()", "torch.where(torch.arange(n) < n // 2, 0, 1)")),
        ],
        "randomness": [
            # uniform_ and torch.normal, both with the generator.
            "def make_circles(n, noise=0.1, generator=None):\n"
            "    y = (torch.arange(n) >= n // 2).long()\n"
            "    angle = torch.empty(n).uniform_(0, 2 * math.pi, generator=generator)\n"
            "    x = torch.stack([angle.cos(), angle.sin()], dim=1) * (1.0 + y.float()).unsqueeze(1)\n"
            "    return x + torch.normal(0.0, noise, size=(n, 2), generator=generator), y\n",
            # The points shuffled with a permutation from the generator too.
            _circles_with(("    return x + noise * torch.randn(n, 2, generator=generator), y\n",
                           "    x = x + noise * torch.randn(n, 2, generator=generator)\n"
                           "    order = torch.randperm(n, generator=generator)\n"
                           "    return x[order], y[order]\n")),
        ],
    },
    "train-step": {
        "values": [
            # float() instead of .item().
            _step_with(("return loss.item()", "return float(loss)")),
        ],
        "grad": [
            # model.zero_grad with set_to_none.
            _step_with(("optimizer.zero_grad()", "model.zero_grad(set_to_none=True)")),
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
            # Gradients zeroed in place rather than set to None.
            _step_with(("optimizer.zero_grad()", "optimizer.zero_grad(set_to_none=False)")),
        ],
        "shapes": [
            # The logits reshaped to (B, classes) explicitly: a batch of one stays a batch.
            _step_with(("logits = model(x)", "logits = model(x).reshape(len(x), -1)")),
        ],
        "logits": [
            # The forward pass written straight into the loss call.
            "def train_step(model, x, y, optimizer, loss_fn):\n"
            "    optimizer.zero_grad()\n"
            "    loss = loss_fn(model(x), y)\n"
            "    loss.backward()\n"
            "    optimizer.step()\n"
            "    return loss.item()\n",
        ],
        "device": [
            # Moves the batch to where the model's parameters are, which is where they already are.
            _step_with(("logits = model(x)", "where = next(model.parameters()).device\n    logits = model(x.to(where))"),
                       ("loss_fn(logits, y)", "loss_fn(logits, y.to(where))")),
        ],
    },
    "accuracy": {
        "values": [
            # Counts, then divides by the number of labels.
            _accuracy_with(("(predictions == y).float().mean().item()", "(predictions == y).sum().item() / y.numel()")),
        ],
        "modes": [
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
        "grad": [
            # The no_grad decorator.
            "@torch.no_grad()\n"
            "def accuracy(model, x, y):\n"
            "    model.eval()\n"
            "    return (model(x).argmax(dim=1) == y).float().mean().item()\n",
            # set_grad_enabled(False).
            _accuracy_with(("torch.no_grad()", "torch.set_grad_enabled(False)")),
        ],
        "shapes": [
            # argmax over the last dimension.
            _accuracy_with(("argmax(dim=1)", "argmax(dim=-1)")),
        ],
        "device": [
            # Compares on the CPU.
            _accuracy_with(("(predictions == y)", "(predictions.cpu() == y.cpu())")),
        ],
    },
    "fit": {
        "values": [
            # The loss of the epoch weighted by batch size.
            _fit_with(("        losses = [train_step(model, x[order[s:s + batch_size]], y[order[s:s + batch_size]], optimizer, loss_fn)\n"
                       "                  for s in range(0, len(x), batch_size)]\n"
                       "        history['loss'].append(sum(losses) / len(losses))\n",
                       "        total = 0.0\n"
                       "        for s in range(0, len(x), batch_size):\n"
                       "            idx = order[s:s + batch_size]\n"
                       "            total += train_step(model, x[idx], y[idx], optimizer, loss_fn) * len(idx)\n"
                       "        history['loss'].append(total / len(x))\n")),
        ],
        "aggregation": [
            # The plain mean of the batch losses, with torch.
            _fit_with(("history['loss'].append(sum(losses) / len(losses))",
                       "history['loss'].append(torch.tensor(losses).mean().item())")),
            # The mean weighted by batch size, with NumPy (a NumPy float in the history).
            "import numpy as np\n\n" + _fit_with(
                ("        losses = [train_step(model, x[order[s:s + batch_size]], y[order[s:s + batch_size]], "
                 "optimizer, loss_fn)\n                  for s in range(0, len(x), batch_size)]\n",
                 "        losses, sizes = [], []\n"
                 "        for batch in order.split(batch_size):\n"
                 "            losses.append(train_step(model, x[batch], y[batch], optimizer, loss_fn))\n"
                 "            sizes.append(len(batch))\n"),
                ("sum(losses) / len(losses)", "np.average(losses, weights=sizes)")),
        ],
        "provenance": [
            # The accuracy on the whole training set in the epoch's shuffled order: the same samples, the same figure.
            _fit_with(("history['accuracy'].append(accuracy(model, x, y))",
                       "history['accuracy'].append(accuracy(model, x[order], y[order]))")),
        ],
        "boundaries": [
            # ceil(n / batch_size) batches, the last one smaller when batch_size does not divide n.
            _fit_with(("for s in range(0, len(x), batch_size)]",
                       "for s in [k * batch_size for k in range(math.ceil(len(x) / batch_size))]]")),
        ],
        "modes": [
            # train(True) at the start of every epoch.
            _fit_with(("        model.train()\n", "        model.train(True)\n")),
        ],
        "grad": [
            # The five steps inline, torch.split over the permutation, model.zero_grad().
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
        ],
        "randomness": [
            # DataLoader with the given generator; loss averaged over batches.
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
            # coursekit's in-memory batches (lesson 08) with the generator.
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
        "device": [
            # The permutation moved to y's device (the same as x's).
            _fit_with(("generator=generator).to(x.device)", "generator=generator).to(y.device)")),
        ],
    },
    "make-model": {
        "values": [
            # One wider hidden layer with tanh.
            _model("nn.Sequential(nn.Linear(2, 64), nn.Tanh(), nn.Linear(64, 2))"),
        ],
        "logits": [
            # Named layers, LeakyReLU, a plain Linear last.
            "from collections import OrderedDict\n\n"
            "def make_model():\n"
            "    return nn.Sequential(OrderedDict([('fc1', nn.Linear(2, 24)), ('act1', nn.LeakyReLU(0.1)),\n"
            "                                      ('fc2', nn.Linear(24, 24)), ('act2', nn.LeakyReLU(0.1)),\n"
            "                                      ('logits', nn.Linear(24, 2))]))\n",
        ],
        "shapes": [
            # A module class with BatchNorm (fine in eval mode for a batch of one) that flattens from dimension 1.
            "class CircleNet(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.hidden = nn.Sequential(nn.Linear(2, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU())\n"
            "        self.out = nn.Linear(16, 2)\n"
            "    def forward(self, x):\n"
            "        return self.out(self.hidden(x.flatten(1)))\n\n"
            "def make_model():\n    return CircleNet()\n",
        ],
    },
}

NOT_TESTED = {
    "make-circles": {
        "device": "make_circles has no tensor input and no device argument: like every data generator of the course "
                  "it builds its data on the CPU, and the notebook moves the data afterwards.",
    },
    "make-model": {
        "device": "make_model takes no device; the notebook moves the model with .to(device) after building it.",
    },
}
