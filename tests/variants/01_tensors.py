"""Other answers for lesson 01 (see autograder/variants.py)."""

WRONG = {
    "make-grid": [
        # Integer dtype: arange of ints gives int64.
        "def make_grid(rows, cols):\n    return torch.arange(rows * cols).reshape(rows, cols)\n",
        # Shape swapped, which only shows when rows != cols.
        "def make_grid(rows, cols):\n    return torch.arange(rows * cols, dtype=torch.float32).reshape(cols, rows).T.contiguous()\n",
    ],
    "rows-mean-above": [
        # Mean over the wrong dimension: happens to work on square inputs only.
        "def rows_with_mean_above(x, threshold):\n    return x[x.mean(dim=0) > threshold]\n",
        # Filters elements instead of rows.
        "def rows_with_mean_above(x, threshold):\n    return x[x > threshold].reshape(-1, x.shape[1])\n",
    ],
    "flatten-images": [
        # view breaks on non-contiguous input.
        "def flatten_images(images):\n    return images.view(images.shape[0], -1)\n",
        # Hard-coded channel count.
        "def flatten_images(images):\n    return images.reshape(-1, 3 * images.shape[2] * images.shape[3])\n",
    ],
    "channels-last": [
        # Right shape, wrong values.
        "def to_channels_last(images):\n    n, c, h, w = images.shape\n    return images.reshape(n, h, w, c)\n",
        # Swaps H and W as well.
        "def to_channels_last(images):\n    return images.permute(0, 3, 2, 1)\n",
    ],
    "pairwise-distances": [
        # Plain distances, not squared.
        "def pairwise_sq_distances(a, b):\n    return torch.cdist(a, b.to(a.device))\n",
        # Ignores the device of a.
        "def pairwise_sq_distances(a, b):\n    a = a.to('cpu')\n    return ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)\n",
    ],
}

RIGHT = {
    "make-grid": [
        "def make_grid(rows, cols):\n"
        "    i = torch.arange(rows).unsqueeze(1)\n    j = torch.arange(cols).unsqueeze(0)\n"
        "    return (i * cols + j).float()\n",
    ],
    "rows-mean-above": [
        "def rows_with_mean_above(x, threshold):\n"
        "    keep = [k for k in range(x.shape[0]) if x[k].mean() > threshold]\n"
        "    return x[torch.tensor(keep, dtype=torch.long)]\n",
    ],
    "flatten-images": [
        "def flatten_images(images):\n    return torch.flatten(images, start_dim=1)\n",
        "def flatten_images(images):\n    return images.contiguous().view(len(images), -1)\n",
    ],
    "channels-last": [
        "def to_channels_last(images):\n    return images.transpose(1, 2).transpose(2, 3)\n",
        "def to_channels_last(images):\n    return torch.einsum('nchw->nhwc', images)\n",
    ],
    "pairwise-distances": [
        "def pairwise_sq_distances(a, b):\n"
        "    b = b.to(a.device)\n"
        "    return (a ** 2).sum(1, keepdim=True) - 2 * a @ b.T + (b ** 2).sum(1)\n",
    ],
}
