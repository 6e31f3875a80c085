"""Other answers for lesson 01 (see autograder/authoring/variants.py), by class of mistake."""

WRONG = {
    "make-grid": {
        "values": [
            # Column-major order: entry (i, j) holds j * rows + i.
            "def make_grid(rows, cols):\n    return torch.arange(rows * cols, dtype=torch.float32).reshape(cols, rows).T.contiguous()\n",
            # Counts from 1.
            "def make_grid(rows, cols):\n    return torch.arange(1, rows * cols + 1, dtype=torch.float32).reshape(rows, cols)\n",
        ],
        "shapes": [
            # No unsqueeze: (rows,) + (cols,) broadcast only when rows == cols or one of them is 1, and stay 1-D.
            "def make_grid(rows, cols):\n    return (torch.arange(rows) * cols + torch.arange(cols)).float()\n",
            # squeeze() "to tidy up": a single row or column loses a dimension.
            "def make_grid(rows, cols):\n    return torch.arange(rows * cols, dtype=torch.float32).reshape(rows, cols).squeeze()\n",
        ],
        "dtype": [
            # Integer dtype: arange of ints gives int64.
            "def make_grid(rows, cols):\n    return torch.arange(rows * cols).reshape(rows, cols)\n",
            # float64 from .double().
            "def make_grid(rows, cols):\n    return torch.arange(rows * cols).reshape(rows, cols).double()\n",
            # Counts in uint8 "to save memory", then float32: past 255 the numbers wrap around to 0.
            "def make_grid(rows, cols):\n"
            "    return torch.arange(rows * cols, dtype=torch.uint8).reshape(rows, cols).to(torch.float32)\n",
            # bfloat16 holds whole numbers exactly only up to 256: larger grids come back rounded.
            "def make_grid(rows, cols):\n"
            "    return torch.arange(rows * cols, dtype=torch.bfloat16).reshape(rows, cols).float()\n",
        ],
    },
    "rows-mean-above": {
        "values": [
            # Filters elements instead of rows.
            "def rows_with_mean_above(x, threshold):\n    return x[x > threshold].reshape(-1, x.shape[1])\n",
            # >= keeps a row whose mean equals the threshold.
            "def rows_with_mean_above(x, threshold):\n    return x[x.mean(dim=1) >= threshold]\n",
            # The threshold rounded to a whole number: rows whose mean lies between the two are misjudged.
            "def rows_with_mean_above(x, threshold):\n    return x[x.mean(dim=1) > round(threshold)]\n",
            # Sorts the rows by their mean "to find the cut": the right rows, in the wrong order.
            "def rows_with_mean_above(x, threshold):\n"
            "    means = x.mean(dim=1)\n    order = means.argsort()\n    return x[order][means[order] > threshold]\n",
            # Zeroes the rows that do not qualify in the caller's x before picking the others out.
            "def rows_with_mean_above(x, threshold):\n"
            "    keep = x.mean(dim=1) > threshold\n    x[~keep] = 0\n    return x[keep]\n",
        ],
        "shapes": [
            # Mean over the wrong dimension: happens to work on square inputs only.
            "def rows_with_mean_above(x, threshold):\n    return x[x.mean(dim=0) > threshold]\n",
            # torch.stack of an empty list fails when no row qualifies.
            "def rows_with_mean_above(x, threshold):\n    return torch.stack([row for row in x if row.mean() > threshold])\n",
        ],
        "boundaries": [
            # The mean compared with a float32 copy of a float64 threshold: right on whole numbers, off just beside them.
            "def rows_with_mean_above(x, threshold):\n"
            "    return x[x.mean(dim=1) > torch.tensor(threshold, dtype=torch.float32)]\n",
        ],
        "dtype": [
            # The empty answer made with torch.zeros: float32, whatever x's dtype.
            "def rows_with_mean_above(x, threshold):\n"
            "    rows = [row for row in x if row.mean() > threshold]\n"
            "    return torch.stack(rows) if rows else torch.zeros(0, x.shape[1])\n",
            # Through Python lists: torch.tensor picks float32 for a float64 x.
            "def rows_with_mean_above(x, threshold):\n"
            "    kept = [row.tolist() for row in x if row.mean() > threshold]\n"
            "    return torch.tensor(kept).reshape(-1, x.shape[1])\n",
        ],
    },
    "flatten-images": {
        "values": [
            # view breaks on non-contiguous input.
            "def flatten_images(images):\n    return images.view(images.shape[0], -1)\n",
            # Channels last before flattening: each row in H, W, C order instead of C, H, W.
            "def flatten_images(images):\n    return images.permute(0, 2, 3, 1).reshape(images.shape[0], -1)\n",
        ],
        "shapes": [
            # Hard-coded channel count.
            "def flatten_images(images):\n    return images.reshape(-1, 3 * images.shape[2] * images.shape[3])\n",
            # squeeze() first: a batch of one image loses its batch dimension.
            "def flatten_images(images):\n    return torch.flatten(images.squeeze(), start_dim=1)\n",
            # squeeze() after flattening: images of a single pixel give one number per image, shape (N,).
            "def flatten_images(images):\n    return images.reshape(images.shape[0], -1).squeeze()\n",
        ],
        "device": [
            # A NumPy round trip: fine on the CPU, impossible for images on a GPU.
            "def flatten_images(images):\n    return torch.from_numpy(images.numpy().reshape(images.shape[0], -1))\n",
        ],
        "result-device": [
            # Brings the flattened batch to the CPU, where the words say it stays on the images' device.
            "def flatten_images(images):\n    return images.reshape(images.shape[0], -1).cpu()\n",
            "def flatten_images(images):\n    return images.contiguous().view(len(images), -1).to('cpu')\n",
        ],
    },
    "channels-last": {
        "values": [
            # Right shape, wrong values.
            "def to_channels_last(images):\n    n, c, h, w = images.shape\n    return images.reshape(n, h, w, c)\n",
            # transpose_ in place: the right result, but the caller's batch has changed its layout too.
            "def to_channels_last(images):\n    return images.transpose_(1, 2).transpose_(2, 3)\n",
        ],
        "shapes": [
            # Swaps H and W as well.
            "def to_channels_last(images):\n    return images.permute(0, 3, 2, 1)\n",
            # transpose(1, 3) swaps C and W: (N, W, H, C).
            "def to_channels_last(images):\n    return images.transpose(1, 3)\n",
        ],
        "dtype": [
            # A loop into torch.empty: float32 (and on the CPU), whatever the images were.
            "def to_channels_last(images):\n"
            "    n, c, h, w = images.shape\n    out = torch.empty(n, h, w, c)\n"
            "    for k in range(c):\n        out[..., k] = images[:, k]\n    return out\n",
            # .float() "to be safe": float64 images come back as float32.
            "def to_channels_last(images):\n    return torch.stack([images[:, k] for k in range(images.shape[1])], dim=-1).float()\n",
        ],
        "device": [
            # NumPy's transpose: right on the CPU, impossible for images on a GPU.
            "def to_channels_last(images):\n    return torch.from_numpy(images.numpy().transpose(0, 2, 3, 1).copy())\n",
            # A loop into a tensor made with the right dtype but on the default device.
            "def to_channels_last(images):\n"
            "    n, c, h, w = images.shape\n    out = torch.empty(n, h, w, c, dtype=images.dtype)\n"
            "    for k in range(c):\n        out[..., k] = images[:, k]\n    return out\n",
        ],
        "result-device": [
            # The permuted batch, copied to the CPU.
            "def to_channels_last(images):\n    return images.permute(0, 2, 3, 1).cpu()\n",
            "def to_channels_last(images):\n    return images.permute(0, 2, 3, 1).contiguous().to('cpu')\n",
        ],
    },
    "pairwise-distances": {
        "values": [
            # Plain distances, not squared.
            "def pairwise_sq_distances(a, b):\n    return torch.cdist(a, b.to(a.device))\n",
            # Absolute differences: L1 distances.
            "def pairwise_sq_distances(a, b):\n    b = b.to(a.device)\n    return (a[:, None, :] - b[None, :, :]).abs().sum(-1)\n",
            # unsqueeze_ in place: the right distances, but the caller's a and b now have an extra dimension.
            "def pairwise_sq_distances(a, b):\n"
            "    b = b.to(a.device)\n    return ((a.unsqueeze_(1) - b.unsqueeze_(0)) ** 2).sum(-1)\n",
        ],
        "shapes": [
            # squeeze() at the end: a single point in a gives a 1-D answer.
            "def pairwise_sq_distances(a, b):\n"
            "    b = b.to(a.device)\n    return ((a.unsqueeze(1) - b.unsqueeze(0)) ** 2).sum(-1).squeeze()\n",
            # squeeze(-1) "for the single-coordinate case": a single point in b gives (n,) instead of (n, 1).
            "def pairwise_sq_distances(a, b):\n"
            "    b = b.to(a.device)\n    return ((a.unsqueeze(1) - b.unsqueeze(0)) ** 2).sum(-1).squeeze(-1)\n",
        ],
        "device": [
            # Ignores the device of a.
            "def pairwise_sq_distances(a, b):\n    a = a.to('cpu')\n    return ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)\n",
            # Never moves b: fine while both live on the same device.
            "def pairwise_sq_distances(a, b):\n    return ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)\n",
        ],
        "result-device": [
            # Moves a to b's device instead of b to a's: the answer lives where b lives.
            "def pairwise_sq_distances(a, b):\n    a = a.to(b.device)\n"
            "    return ((a.unsqueeze(1) - b.unsqueeze(0)) ** 2).sum(-1)\n",
            # Computes where a lives, then hands the answer over on the CPU.
            "def pairwise_sq_distances(a, b):\n    b = b.to(a.device)\n"
            "    return ((a.unsqueeze(1) - b.unsqueeze(0)) ** 2).sum(-1).cpu()\n",
        ],
    },
}

RIGHT = {
    "make-grid": {
        "values": [
            "def make_grid(rows, cols):\n"
            "    i = torch.arange(rows).unsqueeze(1)\n    j = torch.arange(cols).unsqueeze(0)\n"
            "    return (i * cols + j).float()\n",
        ],
        "shapes": [
            "def make_grid(rows, cols):\n    return torch.arange(rows * cols, dtype=torch.float32).view(-1, cols)\n",
            # Two index grids from meshgrid (rows first), combined.
            "def make_grid(rows, cols):\n"
            "    i, j = torch.meshgrid(torch.arange(rows), torch.arange(cols), indexing='ij')\n"
            "    return (i * cols + j).to(torch.float32)\n",
        ],
        "dtype": [
            # A float start makes arange use the default float dtype, float32.
            "def make_grid(rows, cols):\n    return torch.arange(0.0, rows * cols).reshape(rows, -1)\n",
            "def make_grid(rows, cols):\n    return torch.linspace(0, rows * cols - 1, rows * cols).reshape(rows, cols)\n",
        ],
    },
    "rows-mean-above": {
        "values": [
            "def rows_with_mean_above(x, threshold):\n"
            "    keep = [k for k in range(x.shape[0]) if x[k].mean() > threshold]\n"
            "    return x[torch.tensor(keep, dtype=torch.long)]\n",
        ],
        "shapes": [
            "def rows_with_mean_above(x, threshold):\n    return x[x.mean(-1) > threshold]\n",
            "def rows_with_mean_above(x, threshold):\n"
            "    return x.index_select(0, torch.nonzero(x.mean(dim=1) > threshold).flatten())\n",
        ],
        "dtype": [
            # The empty answer sliced from x itself keeps its dtype (and device).
            "def rows_with_mean_above(x, threshold):\n"
            "    rows = [row for row in x if row.mean() > threshold]\n"
            "    return torch.stack(rows) if rows else x[:0]\n",
            "def rows_with_mean_above(x, threshold):\n    return x[(x.sum(dim=1) / x.shape[1]) > threshold]\n",
        ],
        "boundaries": [
            # The mean in float64, whatever x's dtype: the same decision at and beside every row mean.
            "def rows_with_mean_above(x, threshold):\n    return x[x.double().mean(dim=1) > threshold]\n",
            # Tensor.gt, the method that > calls.
            "def rows_with_mean_above(x, threshold):\n    return x[x.mean(dim=1).gt(threshold)]\n",
        ],
    },
    "flatten-images": {
        "values": [
            "def flatten_images(images):\n    return torch.flatten(images, start_dim=1)\n",
            "def flatten_images(images):\n    return images.contiguous().view(len(images), -1)\n",
        ],
        "shapes": [
            "def flatten_images(images):\n    return images.reshape(images.size(0), images[0].numel())\n",
            # The row length from the other three sizes.
            "def flatten_images(images):\n    n, c, h, w = images.shape\n    return images.reshape(-1, c * h * w)\n",
        ],
        "device": [
            "def flatten_images(images):\n    return torch.nn.Flatten()(images)\n",
        ],
        "result-device": [
            "def flatten_images(images):\n    return images.reshape(images.shape[0], -1).to(images.device)\n",
            "def flatten_images(images):\n    return torch.flatten(images, start_dim=1)\n",
        ],
    },
    "channels-last": {
        "values": [
            "def to_channels_last(images):\n    return images.transpose(1, 2).transpose(2, 3)\n",
        ],
        "shapes": [
            "def to_channels_last(images):\n    return images.movedim(1, -1)\n",
            # One channel at a time, stacked along a new last dimension.
            "def to_channels_last(images):\n    return torch.stack(images.unbind(dim=1), dim=-1)\n",
        ],
        "dtype": [
            # The loop, into a tensor made like the images (dtype and device).
            "def to_channels_last(images):\n"
            "    n, c, h, w = images.shape\n    out = images.new_empty(n, h, w, c)\n"
            "    for k in range(c):\n        out[..., k] = images[:, k]\n    return out\n",
        ],
        "device": [
            "def to_channels_last(images):\n    return torch.einsum('nchw->nhwc', images)\n",
            "def to_channels_last(images):\n"
            "    n, c, h, w = images.shape\n    out = torch.empty(n, h, w, c, dtype=images.dtype, device=images.device)\n"
            "    for k in range(c):\n        out[..., k] = images[:, k]\n    return out\n",
        ],
        "result-device": [
            "def to_channels_last(images):\n    return images.permute(0, 2, 3, 1).contiguous()\n",
            "def to_channels_last(images):\n    return images.movedim(1, -1).to(images.device)\n",
        ],
    },
    "pairwise-distances": {
        "values": [
            "def pairwise_sq_distances(a, b):\n"
            "    b = b.to(a.device)\n"
            "    return (a ** 2).sum(1, keepdim=True) - 2 * a @ b.T + (b ** 2).sum(1)\n",
        ],
        "shapes": [
            "def pairwise_sq_distances(a, b):\n    return torch.cdist(a, b.to(a.device)) ** 2\n",
        ],
        "device": [
            "def pairwise_sq_distances(a, b):\n"
            "    diff = a[:, None, :] - b.to(device=a.device)[None, :, :]\n"
            "    return torch.einsum('nmd,nmd->nm', diff, diff)\n",
        ],
        "result-device": [
            # The expansion |a|^2 - 2 a.b + |b|^2, with b moved to a's device first.
            "def pairwise_sq_distances(a, b):\n    b = b.to(a.device)\n"
            "    return (a * a).sum(1, keepdim=True) - 2 * a @ b.T + (b * b).sum(1)\n",
            "def pairwise_sq_distances(a, b):\n"
            "    return ((a[:, None, :] - b.to(device=a.device)[None, :, :]) ** 2).sum(dim=2)\n",
        ],
    },
}

NOT_TESTED = {
    "rows-mean-above": {
        "device": "the answer's size depends on the data (a boolean mask), which the 'meta' device cannot compute, and "
                  "the CPU runner has no second device to try it on.",
    },
}
