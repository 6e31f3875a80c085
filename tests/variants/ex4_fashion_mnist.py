"""Other answers for exercise 4, Fashion-MNIST (see autograder/variants.py)."""

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

_TRAIN_FAST = (
    "set_seed(0)\n"
    "model = MNISTModel().to(device)\n"
    "optimizer = torch.optim.SGD(model.parameters(), lr=0.01)\n"
    "history = fit(model, (x_train[:{n}], y_train_used[:{n}]), (x_test, y_test), epochs=1, optimizer=optimizer,\n"
    "              device=device, batch_size=256, progress=False)\n"
)

WRONG = {
    "fashion-dataset": [
        # Labels as floats: the DataLoader then makes float64 label batches, which CrossEntropyLoss rejects.
        _DATASET.replace("return image, int(self.labels[i])", "return image, float(self.labels[i])"),
        # Pixels left in 0..255 (read the raw bytes, forgot to divide by 255).
        _DATASET.replace(
            'self.images = load_images(fetch_file("fashion-mnist", f"{prefix}-images-idx3-ubyte.gz"))',
            'from coursekit.data import read_idx\n'
            '        self.images = read_idx(fetch_file("fashion-mnist", f"{prefix}-images-idx3-ubyte.gz")).flatten(1).float()'),
        # The transform is stored but never applied.
        _DATASET.replace("        if self.transform is not None:\n            image = self.transform(image)\n", ""),
        # Off-by-one length.
        _DATASET.replace("return len(self.labels)", "return len(self.labels) - 1"),
        # Labels shuffled separately from the images.
        _DATASET.replace("        self.transform = transform\n",
                         "        self.labels = self.labels[torch.randperm(len(self.labels))]\n        self.transform = transform\n"),
        # Both splits read the training files.
        _DATASET.replace('prefix = "train" if split == "train" else "t10k"', 'prefix = "train"'),
        # No split check: an unknown split falls through to fetch_file's error about file names.
        _DATASET.replace("""        if split not in ("train", "test"):
            raise ValueError(f"split must be 'train' or 'test', not {split!r}")
""", "").replace('prefix = "train" if split == "train" else "t10k"',
                 'prefix = {"train": "train", "test": "t10k"}.get(split, split)'),
    ],
    "train-fashion": [
        # Far too little training: one epoch of plain SGD.
        _TRAIN_FAST.replace("{n}", "60000").replace("y_train_used", "y_train"),
        # Labels shuffled apart from their images: the model learns nothing.
        "y_train_used = y_train[torch.randperm(len(y_train))]\n"
        + _TRAIN_FAST.replace("{n}", "60000").replace("SGD(model.parameters(), lr=0.01)", "Adam(model.parameters(), lr=1e-3)"),
    ],
    "confusion-matrix": [
        # Transposed: rows are the predictions.
        "def confusion_matrix(predictions, labels, num_classes):\n"
        "    cells = predictions * num_classes + labels\n"
        "    return torch.bincount(cells, minlength=num_classes * num_classes).reshape(num_classes, num_classes)\n",
        # No minlength: bincount stops at the largest cell number that occurs, so the reshape fails.
        "def confusion_matrix(predictions, labels, num_classes):\n"
        "    return torch.bincount(labels * num_classes + predictions).reshape(num_classes, num_classes)\n",
        # Float counts from a float table.
        "def confusion_matrix(predictions, labels, num_classes):\n"
        "    c = torch.zeros(num_classes, num_classes)\n"
        "    for t, p in zip(labels.tolist(), predictions.tolist()):\n"
        "        c[t, p] += 1\n"
        "    return c\n",
    ],
    "per-class-accuracy": [
        # Divides by how often each class was predicted: that is precision, not per-class accuracy.
        "def per_class_accuracy(predictions, labels, num_classes):\n"
        "    correct = torch.bincount(labels[predictions == labels], minlength=num_classes)\n"
        "    return correct.float() / torch.bincount(predictions, minlength=num_classes).float()\n",
        # Replaces the nan of an absent class with 0.
        "def per_class_accuracy(predictions, labels, num_classes):\n"
        "    correct = torch.bincount(labels[predictions == labels], minlength=num_classes)\n"
        "    return correct.float() / torch.bincount(labels, minlength=num_classes).clamp_min(1).float()\n",
    ],
}

RIGHT = {
    "fashion-dataset": [
        # Keeps the compact uint8 images (47 MB instead of 188 MB) and converts one item at a time.
        '''
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
''',
        # Through load_split, with the items built eagerly as a list.
        '''
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
''',
    ],
    "train-fashion": [
        # The same recipe written out with the Build's loop pieces, seed 1 (measured: 87.95%).
        "set_seed(1)\n"
        "from coursekit.mnist import train_one_epoch\n"
        "model = MNISTModel().to(device)\n"
        "optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)\n"
        "batches = InMemoryBatches(x_train, y_train, batch_size=256, generator=torch.Generator().manual_seed(1))\n"
        "scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=3e-3, epochs=5, steps_per_epoch=len(batches))\n"
        "history = {'train_loss': [], 'train_acc': [], 'test_loss': [], 'test_acc': []}\n"
        "for epoch in range(5):\n"
        "    result = train_one_epoch(model, batches, optimizer, torch.nn.CrossEntropyLoss(), device, scheduler)\n"
        "    result += evaluate(model, x_test, y_test, torch.nn.CrossEntropyLoss(), device)\n"
        "    for key, value in zip(history, result):\n"
        "        history[key].append(value)\n",
    ],
    "confusion-matrix": [
        "def confusion_matrix(predictions, labels, num_classes):\n"
        "    c = torch.zeros(num_classes, num_classes, dtype=torch.long)\n"
        "    for t, p in zip(labels.tolist(), predictions.tolist()):\n"
        "        c[t, p] += 1\n"
        "    return c\n",
        "def confusion_matrix(predictions, labels, num_classes):\n"
        "    eye = torch.eye(num_classes, dtype=torch.long)\n"
        "    return eye[labels].T @ eye[predictions]\n",
    ],
    "per-class-accuracy": [
        "def per_class_accuracy(predictions, labels, num_classes):\n"
        "    c = confusion_matrix(predictions, labels, num_classes)\n"
        "    return c.diag() / c.sum(dim=1)\n",
        "def per_class_accuracy(predictions, labels, num_classes):\n"
        "    out = []\n"
        "    for k in range(num_classes):\n"
        "        mine = labels == k\n"
        "        out.append((predictions[mine] == k).float().mean())\n"
        "    return torch.stack(out)\n",
    ],
}
