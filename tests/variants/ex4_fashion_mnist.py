"""Other answers for exercise 4, Fashion-MNIST (see autograder/authoring/variants.py)."""

_DATASET = '''
class FashionMNISTDataset(Dataset):
    def __init__(self, split="train", transform=None):
        if split not in ("train", "test"):
            raise ValueError(f"split must be 'train' or 'test', not {split!r}")
        prefix = "train" if split == "train" else "t10k"
        self.images = load_images(fetch_file("fashion-mnist", f"{prefix}-images-idx3-ubyte.gz"))
        self.labels = load_labels(fetch_file("fashion-mnist", f"{prefix}-labels-idx1-ubyte.gz"))
        self.transform = transform
        self.classes = list(CLASS_NAMES["fashion-mnist"])

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        image = self.images[i]
        if self.transform is not None:
            image = self.transform(image)
        return image, int(self.labels[i])
'''

# The test set, measured once after training.
_TEST_ONCE = "test_loss, test_acc = evaluate(model, x_test, y_test, torch.nn.CrossEntropyLoss(), device)\n"

_TRAIN_FAST = (
    "set_seed(0)\n"
    "model = MNISTModel().to(device)\n"
    "optimizer = torch.optim.SGD(model.parameters(), lr=0.01)\n"
    "history = fit(model, (x_tr[:{n}], y_tr_used[:{n}]), (x_val, y_val), epochs=1, optimizer=optimizer,\n"
    "              device=device, batch_size=256, progress=False)\n"
    + _TEST_ONCE
)

# The suggested recipe, trained on {train} and measured after each epoch on {val} (the test set measured once after).
_RECIPE = (
    "set_seed(0)\n"
    "model = MNISTModel().to(device)\n"
    "optimizer = torch.optim.Adam(model.parameters(), lr=3e-3 / 25)\n"
    "train = {train}\n"
    "scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=3e-3, epochs=5, steps_per_epoch=len(train[0]) // 256 + 1,\n"
    "                                                cycle_momentum=False)\n"
    "history = fit(model, train, {val}, epochs=5, optimizer=optimizer, device=device,\n"
    "              batch_size=256, seed=0, scheduler=scheduler, scheduler_per='batch', progress=False)\n"
    + _TEST_ONCE
)


def _recipe(train: str = "(x_tr, y_tr)", val: str = "(x_val, y_val)") -> str:
    return _RECIPE.replace("{train}", train).replace("{val}", val)

_IMAGES_LINE = 'self.images = load_images(fetch_file("fashion-mnist", f"{prefix}-images-idx3-ubyte.gz"))'


def _dataset(*edits: tuple[str, str]) -> str:
    """_DATASET with each (old, new) edit applied once."""
    source = _DATASET
    for old, new in edits:
        assert source.count(old) == 1, f"variant edit does not apply exactly once: {old!r}"
        source = source.replace(old, new)
    return source


def _raw_images(expression: str) -> tuple[str, str]:
    """An edit that reads the raw uint8 images and turns them into self.images with ``expression`` (of `raw`)."""
    return (_IMAGES_LINE,
            'from coursekit.data import read_idx\n'
            '        raw = read_idx(fetch_file("fashion-mnist", f"{prefix}-images-idx3-ubyte.gz")).flatten(1).float()\n'
            f'        self.images = {expression}')


WRONG = {
    "fashion-dataset": {
        "values": [
            # The transform is stored but never applied.
            _dataset(("        if self.transform is not None:\n            image = self.transform(image)\n", "")),
            # Off-by-one length.
            _dataset(("return len(self.labels)", "return len(self.labels) - 1")),
            # Labels shuffled separately from the images.
            _dataset(("        self.transform = transform\n",
                      "        self.labels = self.labels[torch.randperm(len(self.labels))]\n        self.transform = transform\n")),
            # Both splits read the training files.
            _dataset(('prefix = "train" if split == "train" else "t10k"', 'prefix = "train"')),
            # No split check: an unknown split falls through to fetch_file's error about file names.
            _dataset(("""        if split not in ("train", "test"):
            raise ValueError(f"split must be 'train' or 'test', not {split!r}")
""", ""), ('prefix = "train" if split == "train" else "t10k"', 'prefix = {"train": "train", "test": "t10k"}.get(split, split)')),
            # The split name tidied first ("to be forgiving"): " test" and "train " are read as splits, where only
            # "train" and "test" are.
            _dataset(('        if split not in ("train", "test"):\n', '        split = split.strip()\n        if split not in ("train", "test"):\n')),
        ],
        "dtype": [
            # Labels as floats: the DataLoader then makes float64 label batches, which CrossEntropyLoss rejects.
            _dataset(("return image, int(self.labels[i])", "return image, float(self.labels[i])")),
            # Pixels left in 0..255 (read the raw bytes, forgot to divide by 255).
            _dataset(_raw_images("raw")),
            # The label as a 0-d int64 tensor instead of a Python int.
            _dataset(("return image, int(self.labels[i])", "return image, self.labels[i]")),
            # float64 images: .double() before dividing.
            _dataset(_raw_images("raw.double() / 255")),
        ],
        "shapes": [
            # Images kept as 28 x 28 squares instead of (784,) vectors.
            _dataset(("        image = self.images[i]\n", "        image = self.images[i].view(28, 28)\n")),
            # A batch dimension added to each item: (1, 784), so a DataLoader makes (B, 1, 784).
            _dataset(("        image = self.images[i]\n", "        image = self.images[i].unsqueeze(0)\n")),
        ],
        "format": [
            # Divides by the data's own brightest pixel instead of the format's 255: right only when some pixel is 255.
            _dataset(_raw_images("raw / raw.max()")),
            # The split sizes written into __len__: right for the original files only.
            _dataset(("return len(self.labels)", "return 60000 if self.split == 'train' else 10000"),
                     ("        self.transform = transform\n", "        self.transform = transform\n        self.split = split\n")),
        ],
        "provenance": [
            # A copy-paste slip: the labels always come from the training file, whatever the split.
            _dataset(('f"{prefix}-labels-idx1-ubyte.gz"', '"train-labels-idx1-ubyte.gz"')),
            # The files cached on the class "so that a second dataset is free", keyed by nothing: every split built
            # after the first one gets the first one's images and labels.
            _dataset((_IMAGES_LINE + "\n        self.labels = load_labels(fetch_file(\"fashion-mnist\", f\"{prefix}-labels-idx1-ubyte.gz\"))",
                      "if not hasattr(FashionMNISTDataset, '_files'):\n"
                      "            FashionMNISTDataset._files = (\n"
                      "                load_images(fetch_file(\"fashion-mnist\", f\"{prefix}-images-idx3-ubyte.gz\")),\n"
                      "                load_labels(fetch_file(\"fashion-mnist\", f\"{prefix}-labels-idx1-ubyte.gz\")))\n"
                      "        self.images, self.labels = FashionMNISTDataset._files")),
        ],
        "boundaries": [
            # An index check of its own, off by one: `>= len - 1` refuses the last item.
            _dataset(("        image = self.images[i]\n",
                      "        if i >= len(self) - 1:\n            raise IndexError(i)\n        image = self.images[i]\n")),
            # squeeze() "to tidy up" the images: a file of one image loses its row dimension.
            _dataset((_IMAGES_LINE, _IMAGES_LINE + ".squeeze()")),
        ],
    },
    "train-fashion": {
        "values": [
            # Far too little training: one epoch of plain SGD.
            _TRAIN_FAST.replace("{n}", "50000").replace("y_tr_used", "y_tr"),
            # Labels shuffled apart from their images: the model learns nothing.
            "y_tr_used = y_tr[torch.randperm(len(y_tr))]\n"
            + _TRAIN_FAST.replace("{n}", "50000").replace("SGD(model.parameters(), lr=0.01)", "Adam(model.parameters(), lr=1e-3)"),
            # Constant Adam at 1e-3, batch 256, 5 epochs, seed 2: 86.8% on the validation set but 86.2% on the test set,
            # which a visible bar of 86.5% on the validation set alone would let through.
            "set_seed(2)\n"
            "model = MNISTModel().to(device)\n"
            "optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)\n"
            "history = fit(model, (x_tr, y_tr), (x_val, y_val), epochs=5, optimizer=optimizer, device=device,\n"
            "              batch_size=256, seed=2, progress=False)\n"
            + _TEST_ONCE,
        ],
        "provenance": [
            # The validation figures measured on the training images: history's val_acc is the training accuracy
            # (higher, so the visible check passes with room to spare).
            _recipe(val="(x_tr, y_tr)"),
            # The last 10,000 rows of the training file measured as if they were the validation set.
            _recipe(val="(x_train[-10000:], y_train[-10000:])"),
            # The test figures measured on the validation images.
            _recipe().replace("evaluate(model, x_test, y_test,", "evaluate(model, x_val, y_val,"),
        ],
        "leakage": [
            # The whole training file, validation images included: the validation figures measure images it learned.
            _recipe(train="(x_train, y_train)"),
            # The test images added to the training data ("more data"): the model has learned the test set.
            _recipe(train="(torch.cat([x_tr, x_test]), torch.cat([y_tr, y_test]))"),
            # Half of the test images added to the training data (measured: 0.980 times the validation loss on the test
            # images, against 1.027 to 1.046 for honest recipes).
            _recipe(train="(torch.cat([x_tr, x_test[:5000]]), torch.cat([y_tr, y_test[:5000]]))"),
        ],
        "logits": [
            # A Softmax appended "to get probabilities": CrossEntropyLoss is then fed probabilities.
            "model = torch.nn.Sequential(MNISTModel(), torch.nn.Softmax(dim=1)).to(device)\n"
            "optimizer = torch.optim.Adam(model.parameters(), lr=3e-3 / 25)\n"
            "scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=3e-3, epochs=5, steps_per_epoch=len(x_tr) // 256 + 1)\n"
            "history = fit(model, (x_tr, y_tr), (x_val, y_val), epochs=5, optimizer=optimizer, device=device,\n"
            "              batch_size=256, seed=0, scheduler=scheduler, scheduler_per='batch', progress=False)\n"
            + _TEST_ONCE,
        ],
    },
    "confusion-matrix": {
        "boundaries": [
            # minlength is the largest cell number, K * K - 1, not the number of cells: when the last cell is empty the
            # counts are one short and the reshape fails.
            "def confusion_matrix(predictions, labels, num_classes):\n"
            "    cells = labels * num_classes + predictions\n"
            "    return torch.bincount(cells, minlength=num_classes * num_classes - 1).reshape(num_classes, num_classes)\n",
            # squeeze() "in case the inputs are (N, 1)": a single example becomes 0-d, which bincount refuses.
            "def confusion_matrix(predictions, labels, num_classes):\n"
            "    cells = (labels * num_classes + predictions).squeeze()\n"
            "    return torch.bincount(cells, minlength=num_classes * num_classes).reshape(num_classes, num_classes)\n",
            # The number of classes read from the data: the classes that never occur at the top are left out.
            "def confusion_matrix(predictions, labels, num_classes):\n"
            "    k = int(torch.maximum(labels.max(), predictions.max())) + 1\n"
            "    return torch.bincount(labels * k + predictions, minlength=k * k).reshape(k, k)\n",
            # The inputs checked with max() first: no examples at all have no maximum, so an empty batch raises.
            "def confusion_matrix(predictions, labels, num_classes):\n"
            "    if max(int(labels.max()), int(predictions.max())) >= num_classes:\n"
            "        raise ValueError('a class index is out of range')\n"
            "    return torch.bincount(labels * num_classes + predictions, minlength=num_classes ** 2).view(num_classes, num_classes)\n",
        ],
        "values": [
            # Transposed: rows are the predictions.
            "def confusion_matrix(predictions, labels, num_classes):\n"
            "    cells = predictions * num_classes + labels\n"
            "    return torch.bincount(cells, minlength=num_classes * num_classes).reshape(num_classes, num_classes)\n",
            # The cell numbers computed in place in `labels` ("to save memory"): the caller's labels are changed.
            "def confusion_matrix(predictions, labels, num_classes):\n"
            "    cells = labels.mul_(num_classes).add_(predictions)\n"
            "    return torch.bincount(cells, minlength=num_classes * num_classes).reshape(num_classes, num_classes)\n",
        ],
        "shapes": [
            # No minlength: bincount stops at the largest cell number that occurs, so the reshape fails.
            "def confusion_matrix(predictions, labels, num_classes):\n"
            "    return torch.bincount(labels * num_classes + predictions).reshape(num_classes, num_classes)\n",
        ],
        "dtype": [
            # Float counts from a float table.
            "def confusion_matrix(predictions, labels, num_classes):\n"
            "    c = torch.zeros(num_classes, num_classes)\n"
            "    for t, p in zip(labels.tolist(), predictions.tolist()):\n"
            "        c[t, p] += 1\n"
            "    return c\n",
        ],
    },
    "per-class-accuracy": {
        "boundaries": [
            # An epsilon "to avoid dividing by zero": a class with no example gets 0 instead of nan.
            "def per_class_accuracy(predictions, labels, num_classes):\n"
            "    correct = torch.bincount(labels[predictions == labels], minlength=num_classes).float()\n"
            "    return correct / (torch.bincount(labels, minlength=num_classes).float() + 1e-8)\n",
            # squeeze() "in case the inputs are (N, 1)": a single example becomes 0-d, which bincount refuses.
            "def per_class_accuracy(predictions, labels, num_classes):\n"
            "    predictions, labels = predictions.squeeze(), labels.squeeze()\n"
            "    correct = torch.bincount(labels[predictions == labels], minlength=num_classes)\n"
            "    return correct.float() / torch.bincount(labels, minlength=num_classes).float()\n",
        ],
        "aggregation": [
            # Mean over the wrong count: each class's correct predictions divided by ALL the examples.
            "def per_class_accuracy(predictions, labels, num_classes):\n"
            "    correct = torch.bincount(labels[predictions == labels], minlength=num_classes).float()\n"
            "    return correct / len(labels)\n",
            # The overall accuracy (a mean over every example) repeated for each class.
            "def per_class_accuracy(predictions, labels, num_classes):\n"
            "    return (predictions == labels).float().mean().repeat(num_classes)\n",
        ],
        "values": [
            # Divides by how often each class was predicted: that is precision, not per-class accuracy.
            "def per_class_accuracy(predictions, labels, num_classes):\n"
            "    correct = torch.bincount(labels[predictions == labels], minlength=num_classes)\n"
            "    return correct.float() / torch.bincount(predictions, minlength=num_classes).float()\n",
            # The wrong predictions marked in place in `predictions` (-1 can never match): the caller's tensor changes.
            "def per_class_accuracy(predictions, labels, num_classes):\n"
            "    predictions[predictions != labels] = -1\n"
            "    correct = torch.bincount(labels[predictions == labels], minlength=num_classes)\n"
            "    return correct.float() / torch.bincount(labels, minlength=num_classes).float()\n",
            # Replaces the nan of an absent class with 0.
            "def per_class_accuracy(predictions, labels, num_classes):\n"
            "    correct = torch.bincount(labels[predictions == labels], minlength=num_classes)\n"
            "    return correct.float() / torch.bincount(labels, minlength=num_classes).clamp_min(1).float()\n",
        ],
        "shapes": [
            # No minlength: when the last classes never occur among the labels, the result is too short.
            "def per_class_accuracy(predictions, labels, num_classes):\n"
            "    total = torch.bincount(labels).float()\n"
            "    correct = torch.bincount(labels[predictions == labels], minlength=len(total)).float()\n"
            "    return correct / total\n",
        ],
        "dtype": [
            # float64 result.
            "def per_class_accuracy(predictions, labels, num_classes):\n"
            "    correct = torch.bincount(labels[predictions == labels], minlength=num_classes)\n"
            "    return correct.double() / torch.bincount(labels, minlength=num_classes)\n",
        ],
    },
}

RIGHT = {
    "fashion-dataset": {
        "values": [
            # Through load_split, with the labels as a Python list.
            """
from coursekit.data import load_split

class FashionMNISTDataset(Dataset):
    def __init__(self, split="train", transform=None):
        if split != "train" and split != "test":
            raise ValueError("split should be 'train' or 'test', got " + repr(split))
        x, y = load_split("fashion-mnist", split)
        self.x, self.y = x, y.tolist()
        self.transform = transform
        self.classes = tuple(CLASS_NAMES["fashion-mnist"])

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        x = self.x[i]
        return (x if self.transform is None else self.transform(x)), self.y[i]
""",
        ],
        "dtype": [
            # .item() of an int64 tensor is a Python int; the images converted with .to(torch.float32).
            _dataset(_raw_images("raw.to(torch.float32) / 255.0"),
                     ("return image, int(self.labels[i])", "return image, self.labels[i].item()")),
        ],
        "shapes": [
            # Images kept as (N, 28, 28) and flattened one item at a time.
            _dataset((_IMAGES_LINE, 'self.images = load_images(fetch_file("fashion-mnist", f"{prefix}-images-idx3-ubyte.gz"))'
                                    '.view(-1, 28, 28)'),
                     ("        image = self.images[i]\n", "        image = self.images[i].flatten()\n")),
        ],
        "format": [
            # Keeps the compact uint8 images (47 MB instead of 188 MB) and converts one item at a time.
            """
from coursekit.data import read_idx

class FashionMNISTDataset(Dataset):
    FILES = {"train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
             "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")}

    def __init__(self, split="train", transform=None):
        if split not in self.FILES:
            raise ValueError(f"unknown split {split!r}; use one of {list(self.FILES)}")
        images_file, labels_file = self.FILES[split]
        self.pixels = read_idx(fetch_file("fashion-mnist", images_file))      # (N, 28, 28) uint8
        self.targets = load_labels(fetch_file("fashion-mnist", labels_file))  # (N,) int64
        self.transform = transform
        self.classes = CLASS_NAMES["fashion-mnist"]

    def __len__(self):
        return self.targets.shape[0]

    def __getitem__(self, index):
        if index >= len(self) or index < -len(self):
            raise IndexError(index)
        x = self.pixels[index].reshape(-1).to(torch.float32) / 255
        return (self.transform(x) if self.transform else x), self.targets[index].item()
""",
            # The maximum of the uint8 type itself (255), not of the data.
            _dataset(_raw_images("raw / torch.iinfo(torch.uint8).max")),
        ],
        "provenance": [
            # The files cached on the class, keyed by the path fetch_file returns: each split reads its own files once.
            _dataset((_IMAGES_LINE + "\n        self.labels = load_labels(fetch_file(\"fashion-mnist\", f\"{prefix}-labels-idx1-ubyte.gz\"))",
                      "cache = FashionMNISTDataset.__dict__.get('_files')\n"
                      "        if cache is None:\n"
                      "            cache = FashionMNISTDataset._files = {}\n"
                      "        paths = (fetch_file(\"fashion-mnist\", f\"{prefix}-images-idx3-ubyte.gz\"),\n"
                      "                 fetch_file(\"fashion-mnist\", f\"{prefix}-labels-idx1-ubyte.gz\"))\n"
                      "        if paths not in cache:\n"
                      "            cache[paths] = (load_images(paths[0]), load_labels(paths[1]))\n"
                      "        self.images, self.labels = cache[paths]")),
        ],
        "boundaries": [
            # An index check of its own, at exactly len(self); the files read with reshape, which keeps a single row.
            _dataset((_IMAGES_LINE, _IMAGES_LINE + ".reshape(-1, 784)"),
                     ("        image = self.images[i]\n",
                      "        if i >= len(self):\n            raise IndexError(f\"index {i} is past the end ({len(self)} items)\")\n"
                      "        image = self.images[i]\n")),
        ],
    },
    "train-fashion": {
        "values": [
            # The same recipe written out with the Build's loop pieces, seed 1 (measured: 87.95%).
            "set_seed(1)\n"
            "from coursekit.mnist import train_one_epoch\n"
            "model = MNISTModel().to(device)\n"
            "optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)\n"
            "batches = InMemoryBatches(x_tr, y_tr, batch_size=256, generator=torch.Generator().manual_seed(1))\n"
            "scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=3e-3, epochs=5, steps_per_epoch=len(batches))\n"
            "history = {'train_loss': [], 'train_acc': [], 'val_loss': [], 'val_acc': []}\n"
            "for epoch in range(5):\n"
            "    result = train_one_epoch(model, batches, optimizer, torch.nn.CrossEntropyLoss(), device, scheduler)\n"
            "    result += evaluate(model, x_val, y_val, torch.nn.CrossEntropyLoss(), device)\n"
            "    for key, value in zip(history, result):\n"
            "        history[key].append(value)\n"
            + _TEST_ONCE,
        ],
        "provenance": [
            # The test data read straight from the original files rather than through the dataset.
            "from coursekit.data import load_split\n"
            + _recipe().replace("evaluate(model, x_test, y_test,", "evaluate(model, *load_split('fashion-mnist', 'test'),"),
        ],
        "leakage": [
            # The validation split carved again in the cell (the same seed carves the same rows, in other tensors),
            # passed as lists.
            "(xs, ys), (xv, yv) = validation_split(x_train, y_train, size=10_000, seed=0)\n"
            + _recipe(train="[xs, ys]", val="[xv, yv]"),
            # The training images in an order of their own (the same rows, shuffled once before fit).
            "order = torch.randperm(len(x_tr), generator=torch.Generator().manual_seed(5))\n"
            + _recipe(train="(x_tr[order], y_tr[order])"),
        ],
    },
    "confusion-matrix": {
        "boundaries": [
            # scatter_add_ into K * K cells: one example, and classes that never occur, need nothing special.
            "def confusion_matrix(predictions, labels, num_classes):\n"
            "    cells = labels * num_classes + predictions\n"
            "    counts = torch.zeros(num_classes * num_classes, dtype=torch.int64)\n"
            "    return counts.scatter_add_(0, cells, torch.ones_like(cells)).view(num_classes, num_classes)\n",
        ],
        "values": [
            # One-hot rows multiplied: (K, N) @ (N, K).
            "def confusion_matrix(predictions, labels, num_classes):\n"
            "    eye = torch.eye(num_classes, dtype=torch.long)\n"
            "    return eye[labels].T @ eye[predictions]\n",
        ],
        "shapes": [
            # index_put_ with accumulate into a (K, K) table made first.
            "def confusion_matrix(predictions, labels, num_classes):\n"
            "    c = torch.zeros(num_classes, num_classes, dtype=torch.int64)\n"
            "    return c.index_put_((labels, predictions), torch.ones_like(labels), accumulate=True)\n",
        ],
        "dtype": [
            # A Python loop into a long table.
            "def confusion_matrix(predictions, labels, num_classes):\n"
            "    c = torch.zeros(num_classes, num_classes, dtype=torch.long)\n"
            "    for t, p in zip(labels.tolist(), predictions.tolist()):\n"
            "        c[t, p] += 1\n"
            "    return c\n",
        ],
    },
    "per-class-accuracy": {
        "boundaries": [
            # nan written in explicitly where a class has no example.
            "def per_class_accuracy(predictions, labels, num_classes):\n"
            "    correct = torch.bincount(labels[predictions == labels], minlength=num_classes).float()\n"
            "    total = torch.bincount(labels, minlength=num_classes).float()\n"
            "    return torch.where(total > 0, correct / total.clamp_min(1), torch.full_like(total, float('nan')))\n",
        ],
        "aggregation": [
            # The mean of the hits of each true class, with scatter_reduce; a class with no example keeps its nan.
            "def per_class_accuracy(predictions, labels, num_classes):\n"
            "    hits = (predictions == labels).float()\n"
            "    return torch.full((num_classes,), float('nan')).scatter_reduce_(0, labels, hits, reduce='mean', include_self=False)\n",
        ],
        "values": [
            # The diagonal of the confusion matrix over its row sums.
            "def per_class_accuracy(predictions, labels, num_classes):\n"
            "    c = confusion_matrix(predictions, labels, num_classes)\n"
            "    return c.diag() / c.sum(dim=1)\n",
        ],
        "shapes": [
            # One class at a time: the mean over an empty selection is nan.
            "def per_class_accuracy(predictions, labels, num_classes):\n"
            "    out = []\n"
            "    for k in range(num_classes):\n"
            "        mine = labels == k\n"
            "        out.append((predictions[mine] == k).float().mean())\n"
            "    return torch.stack(out)\n",
        ],
        "dtype": [
            # Counts converted with .to(torch.float32) before dividing.
            "def per_class_accuracy(predictions, labels, num_classes):\n"
            "    hits = torch.zeros(num_classes).index_add_(0, labels, (predictions == labels).to(torch.float32))\n"
            "    return hits / torch.bincount(labels, minlength=num_classes).to(torch.float32)\n",
        ],
    },
}

ONE_WAY = {
    "train-fashion": {
        "logits": "the model is coursekit's MNISTModel, unchanged, whose forward returns raw logits: there is no other "
                  "correct way to write it.",
    },
}

NOT_TESTED = {
    "train-fashion": {
        "aggregation": "the per-epoch training figures are fit's (coursekit.mnist), and the recipe is the student's "
                       "choice (any that reaches 87%), so history's training figures have no solution's value to be "
                       "compared with; its validation figures are checked against the model itself (provenance).",
    },
    "confusion-matrix": {
        "device": "the notebook's predictions come back with .cpu(); and torch.bincount, the loop-free answer, "
                  "cannot run on the meta device (its output size depends on the values).",
    },
    "per-class-accuracy": {
        "device": "the inputs come from the CPU in this notebook, and bincount cannot run on the meta device "
                  "(its output size depends on the values).",
    },
}
