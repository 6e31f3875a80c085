"""Other answers for lesson 03 (see autograder/variants.py): mistakes the tests must catch, and
correct answers written differently that must keep full marks."""

WRONG = {
    "mlp": [
        # The classic bug: layers in a plain Python list are not registered.
        "class MLP(nn.Module):\n"
        "    def __init__(self, in_features, hidden_sizes, out_features):\n"
        "        super().__init__()\n"
        "        sizes = [in_features, *hidden_sizes, out_features]\n"
        "        self.layers = [nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])]\n"
        "    def forward(self, x):\n"
        "        for layer in self.layers[:-1]:\n"
        "            x = torch.relu(layer(x))\n"
        "        return self.layers[-1](x)\n",
        # A ReLU after the output layer too: right shape and counts, wrong values.
        "class MLP(nn.Module):\n"
        "    def __init__(self, in_features, hidden_sizes, out_features):\n"
        "        super().__init__()\n"
        "        sizes = [in_features, *hidden_sizes, out_features]\n"
        "        layers = []\n"
        "        for a, b in zip(sizes[:-1], sizes[1:]):\n"
        "            layers += [nn.Linear(a, b), nn.ReLU()]\n"
        "        self.net = nn.Sequential(*layers)\n"
        "    def forward(self, x):\n"
        "        return self.net(x)\n",
        # No activation at all: the stack collapses to one linear map.
        "class MLP(nn.Module):\n"
        "    def __init__(self, in_features, hidden_sizes, out_features):\n"
        "        super().__init__()\n"
        "        sizes = [in_features, *hidden_sizes, out_features]\n"
        "        self.net = nn.Sequential(*[nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])])\n"
        "    def forward(self, x):\n"
        "        return self.net(x)\n",
        # Assumes at least one hidden layer: breaks when hidden_sizes is empty.
        "class MLP(nn.Module):\n"
        "    def __init__(self, in_features, hidden_sizes, out_features):\n"
        "        super().__init__()\n"
        "        self.first = nn.Linear(in_features, hidden_sizes[0])\n"
        "        self.rest = nn.ModuleList(nn.Linear(a, b) for a, b in zip(hidden_sizes[:-1], hidden_sizes[1:]))\n"
        "        self.out = nn.Linear(hidden_sizes[-1], out_features)\n"
        "    def forward(self, x):\n"
        "        x = torch.relu(self.first(x))\n"
        "        for layer in self.rest:\n"
        "            x = torch.relu(layer(x))\n"
        "        return self.out(x)\n",
    ],
    "count-parameters": [
        # Counts frozen parameters too.
        "def count_parameters(model):\n    return sum(p.numel() for p in model.parameters())\n",
        # Counts the state dict: buffers (BatchNorm running statistics) included.
        "def count_parameters(model):\n    return sum(t.numel() for t in model.state_dict().values())\n",
        # Counts tensors, not numbers.
        "def count_parameters(model):\n    return len([p for p in model.parameters() if p.requires_grad])\n",
    ],
    "init-weights": [
        # fan_out mode: right only for square layers.
        "def init_weights(module):\n"
        "    if isinstance(module, nn.Linear):\n"
        "        nn.init.kaiming_normal_(module.weight, mode='fan_out', nonlinearity='relu')\n"
        "        if module.bias is not None:\n"
        "            nn.init.zeros_(module.bias)\n"
        "    elif isinstance(module, (nn.BatchNorm1d, nn.BatchNorm2d)):\n"
        "        nn.init.ones_(module.weight)\n"
        "        nn.init.zeros_(module.bias)\n",
        # Only BatchNorm1d handled.
        "def init_weights(module):\n"
        "    if isinstance(module, nn.Linear):\n"
        "        nn.init.kaiming_normal_(module.weight, nonlinearity='relu')\n"
        "        if module.bias is not None:\n"
        "            nn.init.zeros_(module.bias)\n"
        "    elif isinstance(module, nn.BatchNorm1d):\n"
        "        nn.init.ones_(module.weight)\n"
        "        nn.init.zeros_(module.bias)\n",
        # Assumes every Linear has a bias.
        "def init_weights(module):\n"
        "    if isinstance(module, nn.Linear):\n"
        "        nn.init.kaiming_normal_(module.weight, nonlinearity='relu')\n"
        "        nn.init.zeros_(module.bias)\n"
        "    elif isinstance(module, (nn.BatchNorm1d, nn.BatchNorm2d)):\n"
        "        nn.init.ones_(module.weight)\n"
        "        nn.init.zeros_(module.bias)\n",
        # Xavier (Glorot) instead of Kaiming: the scale is for tanh, too small for ReLU.
        "def init_weights(module):\n"
        "    if isinstance(module, nn.Linear):\n"
        "        nn.init.xavier_normal_(module.weight)\n"
        "        if module.bias is not None:\n"
        "            nn.init.zeros_(module.bias)\n"
        "    elif isinstance(module, (nn.BatchNorm1d, nn.BatchNorm2d)):\n"
        "        nn.init.ones_(module.weight)\n"
        "        nn.init.zeros_(module.bias)\n",
    ],
    "predict": [
        # no_grad but no eval(): dropout and batch statistics stay on.
        "def predict(model, x):\n    with torch.no_grad():\n        return model(x)\n",
        # Always back to train(), even when the model was in eval mode.
        "def predict(model, x):\n"
        "    model.eval()\n"
        "    with torch.no_grad():\n"
        "        out = model(x)\n"
        "    model.train()\n"
        "    return out\n",
        # Forgets torch.no_grad(): the output drags the graph along.
        "def predict(model, x):\n"
        "    was_training = model.training\n"
        "    model.eval()\n"
        "    out = model(x)\n"
        "    model.train(was_training)\n"
        "    return out\n",
        # Never restores the mode.
        "def predict(model, x):\n    model.eval()\n    with torch.no_grad():\n        return model(x)\n",
    ],
    "save-and-reload": [
        # Pickles the whole model and loads it back without weights_only.
        "def save_and_reload(model, directory, factory):\n"
        "    path = Path(directory) / 'model.pt'\n"
        "    torch.save(model, path)\n"
        "    return torch.load(path, weights_only=False)\n",
        # Saves parameters only and loads non-strictly: BatchNorm buffers are lost.
        "def save_and_reload(model, directory, factory):\n"
        "    path = Path(directory) / 'model.pt'\n"
        "    torch.save({n: p.detach() for n, p in model.named_parameters()}, path)\n"
        "    fresh = factory()\n"
        "    fresh.load_state_dict(torch.load(path, weights_only=True), strict=False)\n"
        "    return fresh\n",
        # Saves, then returns a deep copy instead of loading into factory().
        "import copy\n\n"
        "def save_and_reload(model, directory, factory):\n"
        "    torch.save(model.state_dict(), Path(directory) / 'model.pt')\n"
        "    return copy.deepcopy(model)\n",
        # Returns the original model.
        "def save_and_reload(model, directory, factory):\n"
        "    torch.save(model.state_dict(), Path(directory) / 'model.pt')\n"
        "    return model\n",
        # Builds a fresh model but never loads the weights into it.
        "def save_and_reload(model, directory, factory):\n"
        "    torch.save(model.state_dict(), Path(directory) / 'model.pt')\n"
        "    return factory()\n",
    ],
}

RIGHT = {
    "mlp": [
        # nn.Sequential with ReLU modules.
        "class MLP(nn.Module):\n"
        "    def __init__(self, in_features, hidden_sizes, out_features):\n"
        "        super().__init__()\n"
        "        layers, width = [], in_features\n"
        "        for size in hidden_sizes:\n"
        "            layers += [nn.Linear(width, size), nn.ReLU()]\n"
        "            width = size\n"
        "        layers.append(nn.Linear(width, out_features))\n"
        "        self.net = nn.Sequential(*layers)\n"
        "    def forward(self, x):\n"
        "        return self.net(x)\n",
        # Output layer registered before the hidden ones, F.relu.
        "import torch.nn.functional as F\n\n"
        "class MLP(nn.Module):\n"
        "    def __init__(self, in_features, hidden_sizes, out_features):\n"
        "        super().__init__()\n"
        "        widths = [in_features] + list(hidden_sizes)\n"
        "        self.out = nn.Linear(widths[-1], out_features)\n"
        "        self.hidden = nn.ModuleList([nn.Linear(widths[k], widths[k + 1]) for k in range(len(hidden_sizes))])\n"
        "    def forward(self, x):\n"
        "        for layer in self.hidden:\n"
        "            x = F.relu(layer(x))\n"
        "        return self.out(x)\n",
        # Named layers via add_module.
        "class MLP(nn.Module):\n"
        "    def __init__(self, in_features, hidden_sizes, out_features):\n"
        "        super().__init__()\n"
        "        sizes = [in_features, *hidden_sizes, out_features]\n"
        "        self.depth = len(sizes) - 1\n"
        "        for k in range(self.depth):\n"
        "            self.add_module(f'fc{k}', nn.Linear(sizes[k], sizes[k + 1]))\n"
        "    def forward(self, x):\n"
        "        for k in range(self.depth):\n"
        "            x = getattr(self, f'fc{k}')(x)\n"
        "            if k < self.depth - 1:\n"
        "                x = x.clamp(min=0)\n"
        "        return x\n",
    ],
    "count-parameters": [
        "def count_parameters(model):\n"
        "    total = 0\n"
        "    for name, p in model.named_parameters():\n"
        "        if p.requires_grad:\n"
        "            total += p.numel()\n"
        "    return total\n",
        "import math\n\n"
        "def count_parameters(model):\n"
        "    return sum(math.prod(p.shape) for p in filter(lambda p: p.requires_grad, model.parameters()))\n",
    ],
    "init-weights": [
        # Kaiming uniform, and the BatchNorm base class.
        "def init_weights(module):\n"
        "    if isinstance(module, nn.Linear):\n"
        "        nn.init.kaiming_uniform_(module.weight, nonlinearity='relu')\n"
        "        if module.bias is not None:\n"
        "            module.bias.data.zero_()\n"
        "    elif isinstance(module, nn.modules.batchnorm._BatchNorm):\n"
        "        module.weight.data.fill_(1.0)\n"
        "        module.bias.data.fill_(0.0)\n",
        # Kaiming written out by hand.
        "def init_weights(module):\n"
        "    with torch.no_grad():\n"
        "        if type(module) is nn.Linear:\n"
        "            fan_in = module.weight.shape[1]\n"
        "            module.weight.normal_(0.0, (2.0 / fan_in) ** 0.5)\n"
        "            if module.bias is not None:\n"
        "                module.bias.zero_()\n"
        "        if type(module) in (nn.BatchNorm1d, nn.BatchNorm2d):\n"
        "            module.weight.fill_(1.0)\n"
        "            module.bias.zero_()\n",
    ],
    "predict": [
        # try/finally restores the mode even if the forward pass fails.
        "def predict(model, x):\n"
        "    mode = model.training\n"
        "    model.train(False)\n"
        "    try:\n"
        "        with torch.no_grad():\n"
        "            return model(x)\n"
        "    finally:\n"
        "        model.train(mode)\n",
        # inference_mode instead of no_grad; restore with an if.
        "def predict(model, x):\n"
        "    was_training = model.training\n"
        "    model.eval()\n"
        "    with torch.inference_mode():\n"
        "        out = model(x)\n"
        "    if was_training:\n"
        "        model.train()\n"
        "    return out\n",
    ],
    "save-and-reload": [
        # os.path, map_location, a .pth name.
        "import os\n\n"
        "def save_and_reload(model, directory, factory):\n"
        "    path = os.path.join(directory, 'weights.pth')\n"
        "    torch.save(model.state_dict(), path)\n"
        "    new_model = factory()\n"
        "    new_model.load_state_dict(torch.load(path, map_location='cpu', weights_only=True))\n"
        "    return new_model\n",
        # A checkpoint dictionary with the state dict inside.
        "def save_and_reload(model, directory, factory):\n"
        "    path = Path(directory) / 'checkpoint.pt'\n"
        "    torch.save({'model': model.state_dict(), 'note': 'lesson 03'}, path)\n"
        "    checkpoint = torch.load(path, weights_only=True)\n"
        "    fresh = factory()\n"
        "    fresh.load_state_dict(checkpoint['model'])\n"
        "    return fresh\n",
    ],
}
