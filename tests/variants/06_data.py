"""Other answers for lesson 06 (see autograder/variants.py)."""

_SQUARES_HEAD = (
    "class SquaresDataset(Dataset):\n"
    "    def __init__(self, n):\n        self.n = n\n"
    "    def __len__(self):\n        return self.n\n"
)

_HEADER_OK = (
    "def read_idx_header(raw):\n"
    "    if len(raw) < 4:\n        raise ValueError('too short')\n"
)

WRONG = {
    "squares-dataset": [
        # No range check: dataset[n] returns an item, so a plain for loop over it never ends.
        _SQUARES_HEAD
        + "    def __getitem__(self, i):\n"
        "        return torch.tensor([float(i)]), torch.tensor([float(i * i)])\n",
        # Integer tensors: torch.tensor([i]) is int64.
        _SQUARES_HEAD
        + "    def __getitem__(self, i):\n"
        "        if i >= self.n:\n            raise IndexError(i)\n"
        "        return torch.tensor([i]), torch.tensor([i * i])\n",
        # 0-d target: batches of y come out (B,), not (B, 1).
        _SQUARES_HEAD
        + "    def __getitem__(self, i):\n"
        "        if i >= self.n:\n            raise IndexError(i)\n"
        "        return torch.tensor([float(i)]), torch.tensor(float(i * i))\n",
    ],
    "make-loader": [
        # Seeds the global generator: reproducible only if nothing else draws random numbers in between.
        "def make_loader(dataset, batch_size, seed):\n"
        "    torch.manual_seed(seed)\n"
        "    return DataLoader(dataset, batch_size=batch_size, shuffle=True)\n",
        # A seeded generator but no shuffle: every seed gives the same, sorted order.
        "def make_loader(dataset, batch_size, seed):\n"
        "    return DataLoader(dataset, batch_size=batch_size, generator=torch.Generator().manual_seed(seed))\n",
        # Drops the last partial batch: some items never appear in an epoch.
        "def make_loader(dataset, batch_size, seed):\n"
        "    return DataLoader(dataset, batch_size=batch_size, shuffle=True, drop_last=True,\n"
        "                      generator=torch.Generator().manual_seed(seed))\n",
    ],
    "pad-collate": [
        # Lengths counted from the padded rows: wrong when a token equals the padding value.
        "def pad_collate(batch, padding_value=0):\n"
        "    padded = pad_sequence([s for s, _ in batch], batch_first=True, padding_value=padding_value)\n"
        "    lengths = (padded != padding_value).sum(dim=1)\n"
        "    return padded, lengths, torch.tensor([y for _, y in batch])\n",
        # Ignores padding_value: always pads with 0.
        "def pad_collate(batch, padding_value=0):\n"
        "    padded = pad_sequence([s for s, _ in batch], batch_first=True)\n"
        "    lengths = torch.tensor([len(s) for s, _ in batch])\n"
        "    return padded, lengths, torch.tensor([y for _, y in batch])\n",
        # Time first: (T_max, B).
        "def pad_collate(batch, padding_value=0):\n"
        "    padded = pad_sequence([s for s, _ in batch], padding_value=padding_value)\n"
        "    lengths = torch.tensor([len(s) for s, _ in batch])\n"
        "    return padded, lengths, torch.tensor([y for _, y in batch])\n",
        # int32 lengths.
        "def pad_collate(batch, padding_value=0):\n"
        "    padded = pad_sequence([s for s, _ in batch], batch_first=True, padding_value=padding_value)\n"
        "    lengths = torch.tensor([len(s) for s, _ in batch], dtype=torch.int32)\n"
        "    return padded, lengths, torch.tensor([y for _, y in batch])\n",
    ],
    "read-idx-header": [
        # Reads each size from its last byte only: right for sizes below 256.
        _HEADER_OK
        + "    if raw[0] != 0 or raw[1] != 0 or raw[2] != 8:\n        raise ValueError('bad magic number')\n"
        "    ndim = raw[3]\n"
        "    if len(raw) < 4 + 4 * ndim:\n        raise ValueError('header cut short')\n"
        "    return tuple(raw[7 + 4 * k] for k in range(ndim))\n",
        # Accepts only the image magic number 2051 and assumes three dimensions.
        _HEADER_OK
        + "    if struct.unpack('>I', raw[:4])[0] != 2051:\n        raise ValueError('bad magic number')\n"
        "    if len(raw) < 16:\n        raise ValueError('header cut short')\n"
        "    return struct.unpack('>3I', raw[4:16])\n",
        # Checks only the two zero bytes, not the element type.
        _HEADER_OK
        + "    if raw[0] != 0 or raw[1] != 0:\n        raise ValueError('bad magic number')\n"
        "    ndim = raw[3]\n"
        "    if len(raw) < 4 + 4 * ndim:\n        raise ValueError('header cut short')\n"
        "    return struct.unpack(f'>{ndim}I', raw[4:4 + 4 * ndim])\n",
        # No length check: struct.error (not ValueError) on bytes cut short.
        "def read_idx_header(raw):\n"
        "    zero, type_code, ndim = struct.unpack('>HBB', raw[:4])\n"
        "    if zero != 0 or type_code != 8:\n        raise ValueError('bad magic number')\n"
        "    return struct.unpack(f'>{ndim}I', raw[4:4 + 4 * ndim])\n",
        # Native (little-endian) byte order.
        _HEADER_OK
        + "    if raw[0] != 0 or raw[1] != 0 or raw[2] != 8:\n        raise ValueError('bad magic number')\n"
        "    ndim = raw[3]\n"
        "    if len(raw) < 4 + 4 * ndim:\n        raise ValueError('header cut short')\n"
        "    return struct.unpack(f'<{ndim}I', raw[4:4 + 4 * ndim])\n",
        # Asserts instead of raising ValueError.
        "def read_idx_header(raw):\n"
        "    assert raw[:3] == bytes([0, 0, 8]), 'bad magic number'\n"
        "    ndim = raw[3]\n"
        "    return struct.unpack(f'>{ndim}I', raw[4:4 + 4 * ndim])\n",
    ],
    "parse-idx": [
        # No size check: reshape raises RuntimeError (not ValueError) on a damaged file.
        "def parse_idx(raw):\n"
        "    shape = read_idx_header(raw)\n"
        "    return torch.frombuffer(bytearray(raw), dtype=torch.uint8)[4 + 4 * len(shape):].reshape(shape)\n",
        # Reads exactly count bytes: a truncated file fails, but extra bytes are silently ignored.
        "import math\n\ndef parse_idx(raw):\n"
        "    shape = read_idx_header(raw)\n"
        "    count = math.prod(shape)\n"
        "    return torch.frombuffer(bytearray(raw), dtype=torch.uint8, offset=4 + 4 * len(shape), count=count).view(shape)\n",
        # Offset of a label file (8 bytes) for every file.
        "import math\n\ndef parse_idx(raw):\n"
        "    shape = read_idx_header(raw)\n"
        "    if len(raw) - 4 - 4 * len(shape) != math.prod(shape):\n        raise ValueError('truncated')\n"
        "    return torch.frombuffer(bytearray(raw), dtype=torch.uint8, offset=8, count=math.prod(shape)).view(shape)\n",
        # Converts to float on the way.
        "import math\n\ndef parse_idx(raw):\n"
        "    shape = read_idx_header(raw)\n"
        "    if len(raw) - 4 - 4 * len(shape) != math.prod(shape):\n        raise ValueError('truncated')\n"
        "    return torch.tensor(list(raw[4 + 4 * len(shape):]), dtype=torch.float32).reshape(shape)\n",
    ],
}

RIGHT = {
    "squares-dataset": [
        # Precomputed tensors: indexing past the end raises IndexError by itself.
        "class SquaresDataset(Dataset):\n"
        "    def __init__(self, n):\n"
        "        self.x = torch.arange(n, dtype=torch.float32).unsqueeze(1)\n"
        "        self.y = self.x ** 2\n"
        "    def __len__(self):\n        return self.x.shape[0]\n"
        "    def __getitem__(self, i):\n        return self.x[i], self.y[i]\n",
        # range() does the bounds check.
        "class SquaresDataset(Dataset):\n"
        "    def __init__(self, n):\n        self.values = range(n)\n"
        "    def __len__(self):\n        return len(self.values)\n"
        "    def __getitem__(self, i):\n"
        "        v = self.values[i]\n"
        "        return torch.full((1,), float(v)), torch.full((1,), float(v * v))\n",
    ],
    "make-loader": [
        "def make_loader(dataset, batch_size, seed):\n"
        "    g = torch.Generator()\n    g.manual_seed(seed)\n"
        "    sampler = torch.utils.data.RandomSampler(dataset, generator=g)\n"
        "    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)\n",
        "def make_loader(dataset, batch_size, seed):\n"
        "    from torch.utils.data import BatchSampler, RandomSampler\n"
        "    g = torch.Generator().manual_seed(seed)\n"
        "    return DataLoader(dataset, batch_sampler=BatchSampler(RandomSampler(dataset, generator=g), batch_size, False))\n",
    ],
    "pad-collate": [
        # By hand: a full tensor of padding, then copy each sequence in.
        "def pad_collate(batch, padding_value=0):\n"
        "    lengths = torch.tensor([len(s) for s, _ in batch], dtype=torch.long)\n"
        "    padded = torch.full((len(batch), int(lengths.max())), padding_value, dtype=batch[0][0].dtype)\n"
        "    for row, (s, _) in enumerate(batch):\n        padded[row, :len(s)] = s\n"
        "    return padded, lengths, torch.tensor([y for _, y in batch], dtype=torch.long)\n",
        # F.pad each sequence, then stack.
        "def pad_collate(batch, padding_value=0):\n"
        "    import torch.nn.functional as F\n"
        "    sequences, labels = zip(*batch)\n"
        "    longest = max(s.shape[0] for s in sequences)\n"
        "    padded = torch.stack([F.pad(s, (0, longest - s.shape[0]), value=padding_value) for s in sequences])\n"
        "    return padded, torch.as_tensor([s.shape[0] for s in sequences]), torch.as_tensor(labels)\n",
    ],
    "read-idx-header": [
        # int.from_bytes, one size at a time.
        "def read_idx_header(raw):\n"
        "    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] != 0x08:\n"
        "        raise ValueError(f'wrong magic number {raw[:4]!r}' if len(raw) >= 4 else 'too short')\n"
        "    ndim = raw[3]\n"
        "    if len(raw) < 4 + 4 * ndim:\n        raise ValueError('the header is cut short')\n"
        "    return tuple(int.from_bytes(raw[4 + 4 * k:8 + 4 * k], 'big') for k in range(ndim))\n",
        # Compares the whole magic number as one integer, and returns a list.
        "def read_idx_header(raw):\n"
        "    if len(raw) < 4:\n        raise ValueError('too short for a header')\n"
        "    magic = struct.unpack('>I', raw[:4])[0]\n"
        "    if magic >> 8 != 0x08:\n        raise ValueError(f'Magic number 0x{magic:08x} is not 0x000008dd')\n"
        "    ndim = magic & 0xFF\n"
        "    try:\n        return list(struct.unpack_from(f'>{ndim}I', raw, 4))\n"
        "    except struct.error as error:\n        raise ValueError(f'header cut short: {error}') from None\n",
    ],
    "parse-idx": [
        # A list of ints, then a tensor.
        "import math\n\ndef parse_idx(raw):\n"
        "    shape = read_idx_header(raw)\n"
        "    body = raw[4 + 4 * len(shape):]\n"
        "    if len(body) != math.prod(shape):\n        raise ValueError('body size does not match the header')\n"
        "    return torch.tensor(list(body), dtype=torch.uint8).reshape(shape)\n",
        # frombuffer on the read-only bytes, then clone (PyTorch warns, the result is right).
        "import math\n\ndef parse_idx(raw):\n"
        "    shape = tuple(read_idx_header(raw))\n"
        "    start = 4 + 4 * len(shape)\n"
        "    if len(raw) != start + math.prod(shape):\n        raise ValueError('truncated or too long')\n"
        "    return torch.frombuffer(raw, dtype=torch.uint8, offset=start).clone().reshape(shape)\n",
    ],
}
