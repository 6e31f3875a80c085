"""Other answers for lesson 00 (see autograder/authoring/variants.py): mistakes the tests must catch, and
correct answers written differently that must keep full marks, by class of mistake."""

WRONG = {
    "choose-device": {
        "values": [
            # A string, not a torch.device.
            'import torch\n\ndef choose_device():\n    return "cuda" if torch.cuda.is_available() else "cpu"\n',
            # The course's own answer handed in (coursekit.pick_device): the cell earns nothing for it.
            'from coursekit import pick_device\n\ndef choose_device():\n    return pick_device()\n',
            'import coursekit\n\nchoose_device = coursekit.pick_device\n',
        ],
        "device": [
            # The machine asked once, when the cell ran: every later call gives that first answer.
            'import torch\n\n_DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n\n'
            'def choose_device():\n    return _DEVICE\n',
            # Cached across calls: the first call's answer, whatever the machine has when the next one runs.
            'import functools\nimport torch\n\n@functools.lru_cache(maxsize=None)\ndef choose_device():\n'
            '    return torch.device("cuda" if torch.cuda.is_available() else "cpu")\n',
            # The function itself, not its answer, is tested: always true, so always 'cuda'.
            'import torch\n\ndef choose_device():\n    return torch.device("cuda" if torch.cuda.is_available else "cpu")\n',
            # Hard-coded device: right on this CPU machine, wrong on a GPU machine.
            'import torch\n\ndef choose_device():\n    return torch.device("cpu")\n',
            # Asks whether PyTorch was built with CUDA, not whether this machine has a GPU.
            'import torch\n\ndef choose_device():\n    return torch.device("cuda" if torch.version.cuda else "cpu")\n',
        ],
    },
    "count-labels": {
        "values": [
            # histc without min and max: the bins span the data's own range, not the classes'.
            "def count_labels(labels, num_classes=10):\n"
            "    return torch.histc(labels.float(), bins=num_classes).long()\n",
        ],
        "shapes": [
            # bincount without minlength: classes missing at the end disappear.
            "def count_labels(labels, num_classes=10):\n    return torch.bincount(labels)\n",
            # unique counts only the labels present: its length depends on the data.
            "def count_labels(labels, num_classes=10):\n    return labels.unique(return_counts=True)[1]\n",
        ],
        "boundaries": [
            # minlength one short: the last class disappears when no label names it.
            "def count_labels(labels, num_classes=10):\n    return torch.bincount(labels, minlength=num_classes - 1)\n",
            # Counts up to the largest label seen: fails on no labels at all, and drops unseen top classes.
            "def count_labels(labels, num_classes=10):\n"
            "    return torch.stack([(labels == k).sum() for k in range(int(labels.max()) + 1)])\n",
        ],
        "dtype": [
            # Float counts: index_add_ into torch.zeros, whose default dtype is float32.
            "def count_labels(labels, num_classes=10):\n"
            "    return torch.zeros(num_classes).index_add_(0, labels, torch.ones(len(labels)))\n",
            # histc with the right range counts right, but in float32.
            "def count_labels(labels, num_classes=10):\n"
            "    return torch.histc(labels.float(), bins=num_classes, min=0, max=num_classes - 1)\n",
        ],
    },
    "mean-image": {
        "values": [
            # Mean over the wrong dimension.
            "def mean_image(images):\n    return images.mean(dim=1)\n",
            # Divides the sum by the number of pixels instead of the number of images.
            "def mean_image(images):\n    return images.sum(0) / images.shape[1]\n",
            # Scales the caller's images in place before adding them up: the right mean, but the images have changed.
            "def mean_image(images):\n    return images.div_(images.shape[0]).sum(dim=0)\n",
        ],
        "shapes": [
            # squeeze() 'to be safe' turns a batch of one into a single image, whose mean is a number.
            "def mean_image(images):\n    return images.squeeze().mean(dim=0)\n",
            # squeeze() after the mean: images of a single pixel give a 0-d mean instead of shape (1,).
            "def mean_image(images):\n    return images.mean(dim=0).squeeze()\n",
        ],
        "dtype": [
            # float64 "for accuracy", never converted back.
            "def mean_image(images):\n    return images.double().mean(dim=0)\n",
            # float() "to be safe": float64 images give a float32 mean.
            "def mean_image(images):\n    return images.mean(dim=0).float()\n",
        ],
        "device": [
            # A NumPy round trip: right on the CPU, impossible for a tensor on a GPU.
            "def mean_image(images):\n    return torch.from_numpy(images.numpy().mean(axis=0))\n",
            # One new tensor built from Python numbers: always on the CPU.
            "def mean_image(images):\n"
            "    return torch.tensor([images[:, j].mean().item() for j in range(images.shape[1])])\n",
        ],
        "result-device": [
            # Brings the mean back to the CPU, where the words say it stays on the images' device.
            "def mean_image(images):\n    return images.mean(dim=0).cpu()\n",
            "def mean_image(images):\n    return images.mean(dim=0).to('cpu')\n",
        ],
    },
}

RIGHT = {
    "choose-device": {
        "values": [
            'import torch\n\ndef choose_device():\n    if torch.cuda.is_available():\n        return torch.device("cuda:0")\n    return torch.device("cpu")\n',
        ],
        "device": [
            # Counting the GPUs is another way to ask the machine.
            'import torch\n\ndef choose_device():\n    return torch.device("cuda") if torch.cuda.device_count() > 0 else torch.device("cpu")\n',
            # The cuda module imported by name, asked at call time.
            'from torch import cuda, device\n\ndef choose_device():\n    return device(type="cuda" if cuda.is_available() else "cpu")\n',
            # The function itself imported: still asked at call time, so still right.
            'import torch\nfrom torch.cuda import is_available\n\ndef choose_device():\n'
            '    return torch.device("cuda" if is_available() else "cpu")\n',
        ],
    },
    "count-labels": {
        "values": [
            # histc with the classes' range: one bin per class.
            "def count_labels(labels, num_classes=10):\n"
            "    return torch.histc(labels.float(), bins=num_classes, min=0, max=num_classes - 1).long()\n",
            # A Python loop over the labels into int64 counts.
            "def count_labels(labels, num_classes=10):\n"
            "    counts = torch.zeros(num_classes, dtype=torch.int64)\n"
            "    for label in labels.tolist():\n        counts[label] += 1\n    return counts\n",
        ],
        "boundaries": [
            # Python's own counting, one class at a time: no labels give every class a 0.
            "def count_labels(labels, num_classes=10):\n"
            "    seen = labels.tolist()\n    return torch.tensor([seen.count(k) for k in range(num_classes)])\n",
        ],
        "shapes": [
            "def count_labels(labels, num_classes=10):\n"
            "    return torch.stack([(labels == k).sum() for k in range(num_classes)])\n",
            "import torch.nn.functional as F\n\n"
            "def count_labels(labels, num_classes=10):\n    return F.one_hot(labels, num_classes).sum(0)\n",
        ],
        "dtype": [
            # index_add_ into int64 counts (on the labels' device, so it also holds on a GPU).
            "def count_labels(labels, num_classes=10):\n"
            "    counts = torch.zeros(num_classes, dtype=torch.long, device=labels.device)\n"
            "    counts.index_add_(0, labels, torch.ones_like(labels))\n"
            "    return counts\n",
            "def count_labels(labels, num_classes=10):\n"
            "    return torch.bincount(labels, minlength=num_classes).to(torch.int64)\n",
        ],
    },
    "mean-image": {
        "values": [
            "def mean_image(images):\n    return images.sum(0) / images.shape[0]\n",
            # The mean of each row of the transposed batch: pixel by pixel all the same.
            "def mean_image(images):\n    return images.T.mean(dim=1)\n",
        ],
        "shapes": [
            "def mean_image(images):\n    return images.mean(dim=-2)\n",
            "def mean_image(images):\n    return torch.mean(images, 0, keepdim=True)[0]\n",
        ],
        "dtype": [
            # Accumulates in float64, then back to the input's dtype.
            "def mean_image(images):\n    return (images.sum(0, dtype=torch.float64) / len(images)).to(images.dtype)\n",
        ],
        "device": [
            "def mean_image(images):\n    return torch.einsum('nd->d', images) / images.shape[0]\n",
            # A matrix product with a vector of ones made on the images' device.
            "def mean_image(images):\n    return images.new_ones(images.shape[0]) @ images / images.shape[0]\n",
        ],
        "result-device": [
            # Moves the mean to the images' device, where it already is.
            "def mean_image(images):\n    return images.mean(dim=0).to(images.device)\n",
            "def mean_image(images):\n    total = torch.zeros_like(images[0])\n    for row in images:\n        total += row\n"
            "    return total / len(images)\n",
        ],
    },
}

NOT_TESTED = {
    "count-labels": {
        "device": "the words do not say where the counts live (on the labels' device or on the CPU both fit them), and "
                  "torch.bincount, the natural answer, has no 'meta' implementation (its output size depends on the data).",
    },
}
