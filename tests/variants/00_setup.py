"""Other answers for lesson 00 (see autograder/variants.py): mistakes the tests must catch, and
correct answers written differently that must keep full marks."""

WRONG = {
    "choose-device": [
        # Hard-coded device: right on this CPU machine, wrong on a GPU machine.
        'import torch\n\ndef choose_device():\n    return torch.device("cpu")\n',
    ],
    "count-labels": [
        # bincount without minlength: classes missing at the end disappear.
        "def count_labels(labels, num_classes=10):\n    return torch.bincount(labels)\n",
    ],
    "mean-image": [
        # Mean over the wrong dimension.
        "def mean_image(images):\n    return images.mean(dim=1)\n",
    ],
}

RIGHT = {
    "choose-device": [
        'import torch\n\ndef choose_device():\n    if torch.cuda.is_available():\n        return torch.device("cuda:0")\n    return torch.device("cpu")\n',
    ],
    "count-labels": [
        "def count_labels(labels, num_classes=10):\n"
        "    return torch.stack([(labels == k).sum() for k in range(num_classes)])\n",
        "def count_labels(labels, num_classes=10):\n"
        "    counts = torch.zeros(num_classes, dtype=torch.long)\n"
        "    counts.index_add_(0, labels, torch.ones_like(labels))\n"
        "    return counts\n",
    ],
    "mean-image": [
        "def mean_image(images):\n    return images.sum(0) / images.shape[0]\n",
    ],
}
