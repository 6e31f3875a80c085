"""Other answers for lesson 03 (see autograder/authoring/variants.py): mistakes the tests must catch, and
correct answers written differently that must keep full marks, by class of mistake."""

_HEAD = ("class MLP(nn.Module):\n"
         "    def __init__(self, in_features, hidden_sizes, out_features):\n"
         "        super().__init__()\n")
_SEQUENTIAL = (_HEAD +
               "        sizes = [in_features, *hidden_sizes, out_features]\n"
               "        layers = []\n"
               "        for a, b in zip(sizes[:-2], sizes[1:-1]):\n"
               "            layers += [nn.Linear(a, b), nn.ReLU()]\n"
               "        layers.append(nn.Linear(sizes[-2], sizes[-1]))\n")


def _init(linear: str, norm: str = "isinstance(module, (nn.BatchNorm1d, nn.BatchNorm2d))", before: str = "") -> str:
    """An init_weights whose Linear branch is `linear` (indented lines)."""
    return ("def init_weights(module):\n" + before +
            "    if isinstance(module, nn.Linear):\n" + linear +
            f"    elif {norm}:\n"
            "        nn.init.ones_(module.weight)\n"
            "        nn.init.zeros_(module.bias)\n")


_KAIMING = ("        nn.init.kaiming_normal_(module.weight, nonlinearity='relu')\n"
            "        if module.bias is not None:\n"
            "            nn.init.zeros_(module.bias)\n")

WRONG = {
    "mlp": {
        "values": [
            # The classic bug: layers in a plain Python list are not registered.
            _HEAD +
            "        sizes = [in_features, *hidden_sizes, out_features]\n"
            "        self.layers = [nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])]\n"
            "    def forward(self, x):\n"
            "        for layer in self.layers[:-1]:\n"
            "            x = torch.relu(layer(x))\n"
            "        return self.layers[-1](x)\n",
            # A ReLU after the output layer too: right shape and counts, wrong values.
            _HEAD +
            "        sizes = [in_features, *hidden_sizes, out_features]\n"
            "        layers = []\n"
            "        for a, b in zip(sizes[:-1], sizes[1:]):\n"
            "            layers += [nn.Linear(a, b), nn.ReLU()]\n"
            "        self.net = nn.Sequential(*layers)\n"
            "    def forward(self, x):\n"
            "        return self.net(x)\n",
            # No activation at all: the stack collapses to one linear map.
            _HEAD +
            "        sizes = [in_features, *hidden_sizes, out_features]\n"
            "        self.net = nn.Sequential(*[nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])])\n"
            "    def forward(self, x):\n"
            "        return self.net(x)\n",
            # Builds the list of sizes in the caller's hidden_sizes: the right model, but the list handed in has grown.
            _HEAD +
            "        sizes = hidden_sizes\n"
            "        sizes.insert(0, in_features)\n"
            "        sizes.append(out_features)\n"
            "        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))\n"
            "    def forward(self, x):\n"
            "        for layer in self.layers[:-1]:\n"
            "            x = torch.relu(layer(x))\n"
            "        return self.layers[-1](x)\n",
        ],
        "grad": [
            # The forward pass under torch.no_grad() "for speed": the same scores, but no gradient ever reaches a layer.
            _SEQUENTIAL +
            "        self.net = nn.Sequential(*layers)\n"
            "    def forward(self, x):\n"
            "        with torch.no_grad():\n"
            "            return self.net(x)\n",
        ],
        "shapes": [
            # Assumes at least one hidden layer: breaks when hidden_sizes is empty.
            _HEAD +
            "        self.first = nn.Linear(in_features, hidden_sizes[0])\n"
            "        self.rest = nn.ModuleList(nn.Linear(a, b) for a, b in zip(hidden_sizes[:-1], hidden_sizes[1:]))\n"
            "        self.out = nn.Linear(hidden_sizes[-1], out_features)\n"
            "    def forward(self, x):\n"
            "        x = torch.relu(self.first(x))\n"
            "        for layer in self.rest:\n"
            "            x = torch.relu(layer(x))\n"
            "        return self.out(x)\n",
            # squeeze() "to tidy up": a batch of one loses its batch dimension.
            _SEQUENTIAL +
            "        self.net = nn.Sequential(*layers)\n"
            "    def forward(self, x):\n"
            "        return self.net(x).squeeze()\n",
        ],
        "device": [
            # ReLU by hand against a zeros tensor made on the CPU: fails as soon as x lives elsewhere.
            _HEAD +
            "        sizes = [in_features, *hidden_sizes, out_features]\n"
            "        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))\n"
            "    def forward(self, x):\n"
            "        for layer in self.layers[:-1]:\n"
            "            h = layer(x)\n"
            "            x = torch.maximum(h, torch.zeros(h.shape))\n"
            "        return self.layers[-1](x)\n",
        ],
        "logits": [
            # A softmax at the end: probabilities, where CrossEntropyLoss wants raw scores.
            _SEQUENTIAL +
            "        self.net = nn.Sequential(*layers, nn.Softmax(dim=1))\n"
            "    def forward(self, x):\n"
            "        return self.net(x)\n",
            # log_softmax at the end: log-probabilities, still not raw scores.
            _SEQUENTIAL +
            "        self.net = nn.Sequential(*layers)\n"
            "    def forward(self, x):\n"
            "        return torch.log_softmax(self.net(x), dim=1)\n",
        ],
        "boundaries": [
            # A special case for "no hidden layer" tested with > 1 instead of >= 1: a single hidden layer is dropped.
            _HEAD +
            "        sizes = [in_features, *hidden_sizes, out_features]\n"
            "        if len(hidden_sizes) > 1:\n"
            "            self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))\n"
            "        else:\n"
            "            self.layers = nn.ModuleList([nn.Linear(in_features, out_features)])\n"
            "    def forward(self, x):\n"
            "        for layer in self.layers[:-1]:\n"
            "            x = torch.relu(layer(x))\n"
            "        return self.layers[-1](x)\n",
        ],
    },
    "count-parameters": {
        "values": [
            # Counts frozen parameters too.
            "def count_parameters(model):\n    return sum(p.numel() for p in model.parameters())\n",
            # Counts the state dict: buffers (BatchNorm running statistics) included.
            "def count_parameters(model):\n    return sum(t.numel() for t in model.state_dict().values())\n",
            # Counts tensors, not numbers.
            "def count_parameters(model):\n    return len([p for p in model.parameters() if p.requires_grad])\n",
            # Keeps duplicates: a layer used twice is counted twice.
            "def count_parameters(model):\n"
            "    return sum(p.numel() for _, p in model.named_parameters(remove_duplicate=False) if p.requires_grad)\n",
            # Decides layer by layer from its weight: a frozen bias next to a trainable weight still counts, and a
            # trainable bias next to a frozen weight does not.
            "def count_parameters(model):\n"
            "    total = 0\n"
            "    for module in model.modules():\n"
            "        weight = getattr(module, 'weight', None)\n"
            "        if isinstance(weight, nn.Parameter) and weight.requires_grad:\n"
            "            total += sum(p.numel() for p in module.parameters(recurse=False))\n"
            "    return total\n",
        ],
        "boundaries": [
            # Counts the elements of the concatenated trainable tensors: torch.cat of an empty list fails for a model
            # without trainable parameters.
            "def count_parameters(model):\n"
            "    return torch.cat([p.reshape(-1) for p in model.parameters() if p.requires_grad]).numel()\n",
        ],
    },
    "init-weights": {
        "values": [
            # fan_out mode: right only for square layers.
            _init("        nn.init.kaiming_normal_(module.weight, mode='fan_out', nonlinearity='relu')\n"
                  "        if module.bias is not None:\n"
                  "            nn.init.zeros_(module.bias)\n"),
            # Only BatchNorm1d handled.
            _init(_KAIMING, norm="isinstance(module, nn.BatchNorm1d)"),
            # Assumes every Linear has a bias.
            _init("        nn.init.kaiming_normal_(module.weight, nonlinearity='relu')\n"
                  "        nn.init.zeros_(module.bias)\n"),
            # Kaiming for every layer with a matrix of weights: Conv2d and Embedding are changed too, where the words
            # leave every other module untouched.
            "def init_weights(module):\n"
            "    if isinstance(module, (nn.BatchNorm1d, nn.BatchNorm2d)):\n"
            "        nn.init.ones_(module.weight)\n        nn.init.zeros_(module.bias)\n"
            "    elif getattr(module, 'weight', None) is not None and module.weight.dim() >= 2:\n"
            "        nn.init.kaiming_normal_(module.weight, nonlinearity='relu')\n"
            "        if getattr(module, 'bias', None) is not None:\n"
            "            nn.init.zeros_(module.bias)\n",
            # Xavier (Glorot) instead of Kaiming: the scale is for tanh, too small for ReLU.
            _init("        nn.init.xavier_normal_(module.weight)\n"
                  "        if module.bias is not None:\n"
                  "            nn.init.zeros_(module.bias)\n"),
        ],
        "randomness": [
            # Seeds inside: every layer of a shape gets the same weights, whatever the caller seeded.
            _init(_KAIMING, before="    torch.manual_seed(0)\n"),
            # A private generator with a fixed seed: the same weights on every run, whatever the caller seeded.
            _init("        nn.init.kaiming_normal_(module.weight, nonlinearity='relu', generator=torch.Generator().manual_seed(0))\n"
                  "        if module.bias is not None:\n"
                  "            nn.init.zeros_(module.bias)\n"),
        ],
        "device": [
            # Replaces the weight with a new Parameter made on the CPU: a model on a GPU gets a CPU weight.
            _init("        std = (2 / module.in_features) ** 0.5\n"
                  "        module.weight = nn.Parameter(torch.randn(module.out_features, module.in_features) * std)\n"
                  "        if module.bias is not None:\n"
                  "            nn.init.zeros_(module.bias)\n"),
            # Overwrites .data with a CPU tensor.
            _init("        module.weight.data = torch.randn(module.weight.shape) * (2 / module.in_features) ** 0.5\n"
                  "        if module.bias is not None:\n"
                  "            module.bias.data.zero_()\n"),
        ],
    },
    "predict": {
        "values": [
            # Returns class indices instead of the model's output.
            "def predict(model, x):\n"
            "    was_training = model.training\n    model.eval()\n"
            "    with torch.no_grad():\n        out = model(x).argmax(dim=1)\n"
            "    model.train(was_training)\n    return out\n",
        ],
        "modes": [
            # no_grad but no eval(): dropout and batch statistics stay on.
            "def predict(model, x):\n    with torch.no_grad():\n        return model(x)\n",
            # Always back to train(), even when the model was in eval mode.
            "def predict(model, x):\n"
            "    model.eval()\n"
            "    with torch.no_grad():\n"
            "        out = model(x)\n"
            "    model.train()\n"
            "    return out\n",
            # Never restores the mode.
            "def predict(model, x):\n    model.eval()\n    with torch.no_grad():\n        return model(x)\n",
        ],
        "grad": [
            # Freezes the parameters "to stop tracking" and leaves them frozen: autograd still records (tracking is on),
            # and the model can no longer be trained.
            "def predict(model, x):\n"
            "    was_training = model.training\n    model.eval()\n    model.requires_grad_(False)\n"
            "    out = model(x)\n    model.train(was_training)\n    return out\n",
            # Forgets torch.no_grad(): the output drags the graph along.
            "def predict(model, x):\n"
            "    was_training = model.training\n"
            "    model.eval()\n"
            "    out = model(x)\n"
            "    model.train(was_training)\n"
            "    return out\n",
        ],
        "shapes": [
            # squeeze() on the output: a batch of one loses its batch dimension.
            "def predict(model, x):\n"
            "    was_training = model.training\n    model.eval()\n"
            "    with torch.no_grad():\n        out = model(x).squeeze()\n"
            "    model.train(was_training)\n    return out\n",
        ],
        "device": [
            # 'cpu' written in for the input: the model on another device gets a CPU batch.
            "def predict(model, x):\n"
            "    was_training = model.training\n    model.eval()\n"
            "    with torch.no_grad():\n        out = model(x.to('cpu'))\n"
            "    model.train(was_training)\n    return out\n",
        ],
        "result-device": [
            # Hands the output back on the CPU, where the words say it stays with the model.
            "def predict(model, x):\n"
            "    was_training = model.training\n    model.eval()\n"
            "    with torch.no_grad():\n        out = model(x)\n"
            "    model.train(was_training)\n    return out.cpu()\n",
            "def predict(model, x):\n"
            "    was_training = model.training\n    model.eval()\n"
            "    with torch.no_grad():\n        out = model(x).detach().to('cpu')\n"
            "    model.train(was_training)\n    return out\n",
        ],
    },
    "save-and-reload": {
        "values": [
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
            # The state dict, but read back with weights_only=False: a file holding any Python object is unpickled,
            # where the words ask for weights_only=True.
            "def save_and_reload(model, directory, factory):\n"
            "    path = Path(directory) / 'model.pt'\n"
            "    torch.save(model.state_dict(), path)\n"
            "    fresh = factory()\n"
            "    fresh.load_state_dict(torch.load(path, weights_only=False))\n"
            "    return fresh\n",
            # Returns what load_state_dict returns (the report of missing and unexpected keys), not the model.
            "def save_and_reload(model, directory, factory):\n"
            "    path = Path(directory) / 'model.pt'\n"
            "    torch.save(model.state_dict(), path)\n"
            "    return factory().load_state_dict(torch.load(path, weights_only=True))\n",
        ],
    },
}

RIGHT = {
    "mlp": {
        "grad": [
            # ReLU written as h * (h > 0): the same values, and the same gradient, which reaches every layer.
            _HEAD +
            "        sizes = [in_features, *hidden_sizes, out_features]\n"
            "        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))\n"
            "    def forward(self, x):\n"
            "        for layer in self.layers[:-1]:\n"
            "            h = layer(x)\n"
            "            x = h * (h > 0)\n"
            "        return self.layers[-1](x)\n",
        ],
        "values": [
            # nn.Sequential with ReLU modules.
            _HEAD +
            "        layers, width = [], in_features\n"
            "        for size in hidden_sizes:\n"
            "            layers += [nn.Linear(width, size), nn.ReLU()]\n"
            "            width = size\n"
            "        layers.append(nn.Linear(width, out_features))\n"
            "        self.net = nn.Sequential(*layers)\n"
            "    def forward(self, x):\n"
            "        return self.net(x)\n",
        ],
        "shapes": [
            # Output layer registered before the hidden ones, F.relu.
            "import torch.nn.functional as F\n\n" + _HEAD +
            "        widths = [in_features] + list(hidden_sizes)\n"
            "        self.out = nn.Linear(widths[-1], out_features)\n"
            "        self.hidden = nn.ModuleList([nn.Linear(widths[k], widths[k + 1]) for k in range(len(hidden_sizes))])\n"
            "    def forward(self, x):\n"
            "        for layer in self.hidden:\n"
            "            x = F.relu(layer(x))\n"
            "        return self.out(x)\n",
        ],
        "device": [
            # Named layers via add_module; ReLU as clamp.
            _HEAD +
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
            # ReLU by hand against zeros made like h (same device and dtype).
            _HEAD +
            "        sizes = [in_features, *hidden_sizes, out_features]\n"
            "        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))\n"
            "    def forward(self, x):\n"
            "        for layer in self.layers[:-1]:\n"
            "            h = layer(x)\n"
            "            x = torch.maximum(h, torch.zeros_like(h))\n"
            "        return self.layers[-1](x)\n",
        ],
        "logits": [
            # The last layer applied with F.linear: still the raw scores.
            "import torch.nn.functional as F\n\n" + _SEQUENTIAL +
            "        self.hidden = nn.Sequential(*layers[:-1])\n"
            "        self.head = layers[-1]\n"
            "    def forward(self, x):\n"
            "        return F.linear(self.hidden(x), self.head.weight, self.head.bias)\n",
        ],
        "boundaries": [
            # The special case for "no hidden layer" tested right (an empty list), then the general stack.
            _HEAD +
            "        if not hidden_sizes:\n"
            "            self.layers = nn.ModuleList([nn.Linear(in_features, out_features)])\n"
            "        else:\n"
            "            sizes = [in_features, *hidden_sizes, out_features]\n"
            "            self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))\n"
            "    def forward(self, x):\n"
            "        for layer in self.layers[:-1]:\n"
            "            x = torch.relu(layer(x))\n"
            "        return self.layers[-1](x)\n",
        ],
    },
    "count-parameters": {
        "values": [
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
        "boundaries": [
            # sum() with an explicit start: 0 for a model with nothing to count.
            "def count_parameters(model):\n"
            "    return sum((p.numel() for p in model.parameters() if p.requires_grad), start=0)\n",
        ],
    },
    "init-weights": {
        "values": [
            # Kaiming uniform, and the BatchNorm base class.
            "def init_weights(module):\n"
            "    if isinstance(module, nn.Linear):\n"
            "        nn.init.kaiming_uniform_(module.weight, nonlinearity='relu')\n"
            "        if module.bias is not None:\n"
            "            module.bias.data.zero_()\n"
            "    elif isinstance(module, nn.modules.batchnorm._BatchNorm):\n"
            "        module.weight.data.fill_(1.0)\n"
            "        module.bias.data.fill_(0.0)\n",
        ],
        "randomness": [
            # Kaiming written out by hand: normal_ draws from the global generator too.
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
        "device": [
            # randn_like follows the weight's device; copy_ keeps the same Parameter.
            _init("        with torch.no_grad():\n"
                  "            module.weight.copy_(torch.randn_like(module.weight) * (2 / module.in_features) ** 0.5)\n"
                  "            if module.bias is not None:\n"
                  "                module.bias.zero_()\n"),
        ],
    },
    "predict": {
        "values": [
            # try/finally restores the mode even if the forward pass fails.
            "def predict(model, x):\n"
            "    mode = model.training\n"
            "    model.train(False)\n"
            "    try:\n"
            "        with torch.no_grad():\n"
            "            return model(x)\n"
            "    finally:\n"
            "        model.train(mode)\n",
        ],
        "modes": [
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
        "grad": [
            # A no_grad-decorated helper.
            "def predict(model, x):\n"
            "    @torch.no_grad()\n    def forward(inputs):\n        return model(inputs)\n"
            "    was_training = model.training\n    model.eval()\n"
            "    out = forward(x)\n    model.train(was_training)\n    return out\n",
        ],
        "shapes": [
            "def predict(model, x):\n"
            "    state = model.training\n    model.eval()\n"
            "    with torch.no_grad():\n        out = model(x.reshape(len(x), -1))\n"
            "    model.train(state)\n    return out\n",
        ],
        "device": [
            # Moves x to the model's device: a no-op when they already agree.
            "def predict(model, x):\n"
            "    was_training = model.training\n    model.eval()\n"
            "    with torch.no_grad():\n        out = model(x.to(next(model.parameters()).device))\n"
            "    model.train(was_training)\n    return out\n",
        ],
        "result-device": [
            # Moves the output to the input's device, where it already is.
            "def predict(model, x):\n"
            "    was_training = model.training\n    model.eval()\n"
            "    with torch.no_grad():\n        out = model(x)\n"
            "    model.train(was_training)\n    return out.to(x.device)\n",
            "def predict(model, x):\n"
            "    was_training = model.training\n    model.eval()\n"
            "    with torch.no_grad():\n        out = model(x).detach()\n"
            "    model.train(was_training)\n    return out\n",
        ],
    },
    "save-and-reload": {
        "values": [
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
    },
}
