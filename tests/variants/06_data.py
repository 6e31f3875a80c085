"""Other answers for lesson 06 (see autograder/authoring/variants.py), by class of mistake."""

_SQUARES_HEAD = (
    "class SquaresDataset(Dataset):\n"
    "    def __init__(self, n):\n        self.n = n\n"
    "    def __len__(self):\n        return self.n\n"
)


def _squares(getitem_body: str) -> str:
    """A SquaresDataset whose __getitem__ has this body (indented by 8 spaces)."""
    return _SQUARES_HEAD + "    def __getitem__(self, i):\n" + getitem_body


_IN_RANGE = "        if not 0 <= i < self.n:\n            raise IndexError(i)\n"

_HEADER_OK = (
    "def read_idx_header(raw):\n"
    "    if len(raw) < 4:\n        raise ValueError('too short')\n"
)

_PAD = (
    "def pad_collate(batch, padding_value=0):\n"
    "    padded = pad_sequence([s for s, _ in batch], batch_first=True, padding_value=padding_value)\n"
    "    lengths = torch.tensor([len(s) for s, _ in batch])\n"
    "    return padded, lengths, torch.tensor([y for _, y in batch])\n"
)


def _pad_with(*edits: tuple[str, str]) -> str:
    source = _PAD
    for old, new in edits:
        assert old in source, f"variant edit does not apply: {old!r}"
        source = source.replace(old, new)
    return source


_PARSE = (
    "import math\n\ndef parse_idx(raw):\n"
    "    shape = read_idx_header(raw)\n"
    "    if len(raw) - 4 - 4 * len(shape) != math.prod(shape):\n        raise ValueError('truncated')\n"
    "    return torch.frombuffer(bytearray(raw), dtype=torch.uint8, offset=4 + 4 * len(shape), count=math.prod(shape)).view(shape)\n"
)


def _parse_with(*edits: tuple[str, str]) -> str:
    source = _PARSE
    for old, new in edits:
        assert old in source, f"variant edit does not apply: {old!r}"
        source = source.replace(old, new)
    return source


WRONG = {
    "squares-dataset": {
        "values": [
            # No range check: dataset[n] returns an item, so a plain for loop over it never ends.
            _squares("        return torch.tensor([float(i)]), torch.tensor([float(i * i)])\n"),
            # Off by one in the range check: dataset[n] still returns an item.
            _squares("        if i > self.n:\n            raise IndexError(i)\n"
                     "        return torch.tensor([float(i)]), torch.tensor([float(i * i)])\n"),
        ],
        "shapes": [
            # 0-d target: batches of y come out (B,), not (B, 1).
            _squares(_IN_RANGE + "        return torch.tensor([float(i)]), torch.tensor(float(i * i))\n"),
            # (1, 1) items: batches come out (B, 1, 1).
            _squares(_IN_RANGE + "        return torch.tensor([[float(i)]]), torch.tensor([[float(i * i)]])\n"),
        ],
        "dtype": [
            # Integer tensors: torch.tensor([i]) is int64.
            _squares(_IN_RANGE + "        return torch.tensor([i]), torch.tensor([i * i])\n"),
            # float64, as NumPy makes it.
            _squares(_IN_RANGE + "        return torch.tensor([i], dtype=torch.float64), torch.tensor([i * i], dtype=torch.float64)\n"),
        ],
        "boundaries": [
            # < n - 1 for < n: the last item raises IndexError, so a loop over the dataset stops one item early.
            _squares("        if not 0 <= i < self.n - 1:\n            raise IndexError(i)\n"
                     "        return torch.tensor([float(i)]), torch.tensor([float(i * i)])\n"),
            # 0 < i for 0 <= i: item 0 raises IndexError, so a loop over the dataset yields nothing.
            _squares("        if not 0 < i < self.n:\n            raise IndexError(i)\n"
                     "        return torch.tensor([float(i)]), torch.tensor([float(i * i)])\n"),
            # __len__ one short: a DataLoader never asks for the last item.
            _SQUARES_HEAD.replace("return self.n", "return self.n - 1") + "    def __getitem__(self, i):\n" + _IN_RANGE
            + "        return torch.tensor([float(i)]), torch.tensor([float(i * i)])\n",
        ],
    },
    "make-loader": {
        "values": [
            # A seeded generator but no shuffle: every seed gives the same, sorted order.
            "def make_loader(dataset, batch_size, seed):\n"
            "    return DataLoader(dataset, batch_size=batch_size, generator=torch.Generator().manual_seed(seed))\n",
            # Drops the last partial batch: some items never appear in an epoch.
            "def make_loader(dataset, batch_size, seed):\n"
            "    return DataLoader(dataset, batch_size=batch_size, shuffle=True, drop_last=True,\n"
            "                      generator=torch.Generator().manual_seed(seed))\n",
            # Forgets batch_size: batches of one.
            "def make_loader(dataset, batch_size, seed):\n"
            "    return DataLoader(dataset, shuffle=True, generator=torch.Generator().manual_seed(seed))\n",
            # A random sampler with replacement: some items come twice in an epoch, others never.
            "from torch.utils.data import RandomSampler\n\n"
            "def make_loader(dataset, batch_size, seed):\n"
            "    sampler = RandomSampler(dataset, replacement=True, generator=torch.Generator().manual_seed(seed))\n"
            "    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)\n",
        ],
        "randomness": [
            # Seeds the global generator: reproducible only if nothing else draws random numbers in between.
            "def make_loader(dataset, batch_size, seed):\n"
            "    torch.manual_seed(seed)\n"
            "    return DataLoader(dataset, batch_size=batch_size, shuffle=True)\n",
            # Seeds the global generator and passes it explicitly: still the stream everything else draws from.
            "def make_loader(dataset, batch_size, seed):\n"
            "    torch.manual_seed(seed)\n"
            "    return DataLoader(dataset, batch_size=batch_size, shuffle=True, generator=torch.default_generator)\n",
            # A generator of its own, never seeded: the same order for every seed.
            "def make_loader(dataset, batch_size, seed):\n"
            "    return DataLoader(dataset, batch_size=batch_size, shuffle=True, generator=torch.Generator())\n",
        ],
    },
    "pad-collate": {
        "values": [
            # Lengths counted from the padded rows: wrong when a token equals the padding value.
            _pad_with(("torch.tensor([len(s) for s, _ in batch])", "(padded != padding_value).sum(dim=1)")),
            # Ignores padding_value: always pads with 0.
            _pad_with((", padding_value=padding_value)", ")")),
            # Sorts the batch in place, longest first (as pack_padded_sequence likes it): the caller's list changes, and so
            # does the order of the rows.
            _pad_with(("    padded = ", "    batch.sort(key=lambda pair: len(pair[0]), reverse=True)\n    padded = ")),
        ],
        "shapes": [
            # Time first: (T_max, B).
            _pad_with(("batch_first=True, ", "")),
            # squeeze() on the lengths and labels: a batch of one gives 0-d tensors.
            _pad_with(("torch.tensor([len(s) for s, _ in batch])", "torch.tensor([len(s) for s, _ in batch]).squeeze()"),
                      ("torch.tensor([y for _, y in batch])", "torch.tensor([y for _, y in batch]).squeeze()")),
        ],
        "dtype": [
            # int32 lengths.
            _pad_with(("torch.tensor([len(s) for s, _ in batch])", "torch.tensor([len(s) for s, _ in batch], dtype=torch.int32)")),
            # A padded tensor that is always int64: float sequences lose their fractions.
            "def pad_collate(batch, padding_value=0):\n"
            "    longest = max(len(s) for s, _ in batch)\n"
            "    padded = torch.full((len(batch), longest), padding_value, dtype=torch.long)\n"
            "    for row, (s, _) in enumerate(batch):\n        padded[row, :len(s)] = s\n"
            "    return padded, torch.tensor([len(s) for s, _ in batch]), torch.tensor([y for _, y in batch])\n",
            # Float labels.
            _pad_with(("torch.tensor([y for _, y in batch])", "torch.tensor([float(y) for _, y in batch])")),
        ],
    },
    "read-idx-header": {
        "values": [
            # The bytes written to a file and read by the course's own reader (coursekit.data): nobody's own work.
            "import math\n\nfrom coursekit.data import read_idx\n\n"
            "def read_idx_header(raw):\n"
            "    if len(raw) < 4 or raw[:3] != bytes([0, 0, 8]) or len(raw) < 4 + 4 * raw[3]:\n"
            "        raise ValueError('bad magic number, or a header cut short')\n"
            "    ndim = raw[3]\n"
            "    shape = struct.unpack(f'>{ndim}I', raw[4:4 + 4 * ndim])\n"
            "    path = Path(tempfile.mkdtemp()) / 'data.idx'\n"
            "    path.write_bytes(raw[:4 + 4 * ndim] + bytes(math.prod(shape) if math.prod(shape) < 10**6 else 0))\n"
            "    try:\n"
            "        return tuple(read_idx(path).shape)\n"
            "    except ValueError:\n"
            "        return shape\n",
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
        "format": [
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
            # The magic number of the tiny file above (3 dimensions) written in: a label file (1 dimension) is refused.
            _HEADER_OK
            + "    if raw[:4] != b'\\x00\\x00\\x08\\x03':\n        raise ValueError(f'bad magic number {raw[:4].hex()}')\n"
            "    ndim = raw[3]\n"
            "    if len(raw) < 4 + 4 * ndim:\n        raise ValueError('header cut short')\n"
            "    return struct.unpack(f'>{ndim}I', raw[4:4 + 4 * ndim])\n",
            # Signed sizes ('>i'): a size of 2**31 or more comes out negative.
            _HEADER_OK
            + "    if raw[:3] != b'\\x00\\x00\\x08':\n        raise ValueError('bad magic number')\n"
            "    ndim = raw[3]\n"
            "    if len(raw) < 4 + 4 * ndim:\n        raise ValueError('header cut short')\n"
            "    return struct.unpack(f'>{ndim}i', raw[4:4 + 4 * ndim])\n",
        ],
        "boundaries": [
            # <= for < in the header's length check: a header with nothing after it (a file of zero items) is refused.
            _HEADER_OK
            + "    if raw[:3] != b'\\x00\\x00\\x08':\n        raise ValueError('bad magic number')\n"
            "    ndim = raw[3]\n"
            "    if len(raw) <= 4 + 4 * ndim:\n        raise ValueError('header cut short')\n"
            "    return struct.unpack(f'>{ndim}I', raw[4:4 + 4 * ndim])\n",
            # <= 4 for < 4: exactly 4 bytes are refused, also when they are a whole header (0 dimensions).
            "def read_idx_header(raw):\n"
            "    if len(raw) <= 4:\n        raise ValueError('too short')\n"
            "    if raw[:3] != b'\\x00\\x00\\x08':\n        raise ValueError('bad magic number')\n"
            "    ndim = raw[3]\n"
            "    if len(raw) < 4 + 4 * ndim:\n        raise ValueError('header cut short')\n"
            "    return struct.unpack(f'>{ndim}I', raw[4:4 + 4 * ndim])\n",
            # The magic number's 4 bytes forgotten in the length check: a header 1 to 4 bytes short reaches struct.unpack.
            _HEADER_OK
            + "    if raw[:3] != b'\\x00\\x00\\x08':\n        raise ValueError('bad magic number')\n"
            "    ndim = raw[3]\n"
            "    if len(raw) < 4 * ndim:\n        raise ValueError('header cut short')\n"
            "    return struct.unpack(f'>{ndim}I', raw[4:4 + 4 * ndim])\n",
        ],
    },
    "parse-idx": {
        "values": [
            # The bytes written to a file and read by the course's own reader (coursekit.data): nobody's own work.
            "from coursekit.data import read_idx\n\n"
            "def parse_idx(raw):\n"
            "    read_idx_header(raw)\n"
            "    path = Path(tempfile.mkdtemp()) / 'data.idx'\n"
            "    path.write_bytes(raw)\n"
            "    return read_idx(path)\n",
            # No size check: reshape raises RuntimeError (not ValueError) on a damaged file.
            "def parse_idx(raw):\n"
            "    shape = read_idx_header(raw)\n"
            "    return torch.frombuffer(bytearray(raw), dtype=torch.uint8)[4 + 4 * len(shape):].reshape(shape)\n",
            # Reads exactly count bytes: a truncated file fails, but extra bytes are silently ignored.
            "import math\n\ndef parse_idx(raw):\n"
            "    shape = read_idx_header(raw)\n"
            "    count = math.prod(shape)\n"
            "    return torch.frombuffer(bytearray(raw), dtype=torch.uint8, offset=4 + 4 * len(shape), count=count).view(shape)\n",
        ],
        "format": [
            # Offset of a label file (8 bytes) for every file.
            _parse_with(("offset=4 + 4 * len(shape)", "offset=8")),
            # Offset of an image file (16 bytes) for every file.
            _parse_with(("offset=4 + 4 * len(shape)", "offset=16")),
            # Images of 28 x 28 assumed, as in MNIST: any other shape is refused or mangled.
            _parse_with((".view(shape)", ".view(-1, 28, 28)")),
            # The header read from the first 16 bytes (an image file's): a 4-D file's header is cut short.
            _parse_with(("    shape = read_idx_header(raw)\n", "    shape = read_idx_header(raw[:16])\n")),
        ],
        "dtype": [
            # Converts to float on the way.
            "import math\n\ndef parse_idx(raw):\n"
            "    shape = read_idx_header(raw)\n"
            "    if len(raw) - 4 - 4 * len(shape) != math.prod(shape):\n        raise ValueError('truncated')\n"
            "    return torch.tensor(list(raw[4 + 4 * len(shape):]), dtype=torch.float32).reshape(shape)\n",
            # Signed bytes: values above 127 come out negative.
            _parse_with(("dtype=torch.uint8", "dtype=torch.int8")),
            # A list of ints without a dtype: int64.
            "import math\n\ndef parse_idx(raw):\n"
            "    shape = read_idx_header(raw)\n"
            "    if len(raw) - 4 - 4 * len(shape) != math.prod(shape):\n        raise ValueError('truncated')\n"
            "    return torch.tensor(list(raw[4 + 4 * len(shape):])).reshape(shape)\n",
        ],
        # (A file of zero items is not tried: torch.frombuffer, which the lesson asks for, refuses an empty body.)
        "boundaries": [
            # One byte of slack at the end (for a trailing newline, say): a file one byte too long is accepted.
            _parse_with(("    if len(raw) - 4 - 4 * len(shape) != math.prod(shape):\n",
                         "    if not 0 <= len(raw) - 4 - 4 * len(shape) - math.prod(shape) <= 1:\n")),
            # An off-by-one in the truncation check: one missing byte passes it, and view() then raises RuntimeError.
            "import math\n\ndef parse_idx(raw):\n"
            "    shape = read_idx_header(raw)\n"
            "    body = raw[4 + 4 * len(shape):]\n"
            "    if len(body) + 1 < math.prod(shape) or len(body) > math.prod(shape):\n        raise ValueError('wrong size')\n"
            "    return torch.frombuffer(bytearray(body), dtype=torch.uint8).view(shape)\n",
            # <= for < in the truncation check: a file of exactly the right size is refused as truncated.
            "import math\n\ndef parse_idx(raw):\n"
            "    shape = read_idx_header(raw)\n"
            "    start, count = 4 + 4 * len(shape), math.prod(shape)\n"
            "    if len(raw) <= start + count:\n        raise ValueError('truncated')\n"
            "    if len(raw) > start + count:\n        raise ValueError('extra bytes')\n"
            "    return torch.frombuffer(bytearray(raw), dtype=torch.uint8, offset=start, count=count).view(shape)\n",
        ],
    },
}

RIGHT = {
    "squares-dataset": {
        "values": [
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
        "shapes": [
            # A 0-d tensor reshaped to (1,).
            _squares(_IN_RANGE + "        x = torch.tensor(float(i)).reshape(1)\n        return x, x * x\n"),
        ],
        "dtype": [
            # An integer tensor converted with .float().
            _squares(_IN_RANGE + "        return torch.tensor([i]).float(), torch.tensor([i * i]).float()\n"),
            # dtype written out.
            _squares(_IN_RANGE + "        return torch.tensor([i], dtype=torch.float32), torch.tensor([i ** 2], dtype=torch.float32)\n"),
        ],
        "boundaries": [
            # The range check as two comparisons.
            _squares("        if i < 0 or i >= self.n:\n            raise IndexError(i)\n"
                     "        return torch.tensor([float(i)]), torch.tensor([float(i * i)])\n"),
            # Membership in range(len(self)).
            _squares("        if i not in range(len(self)):\n            raise IndexError(f'{i} is out of range')\n"
                     "        return torch.tensor([float(i)]), torch.tensor([float(i) ** 2])\n"),
        ],
    },
    "make-loader": {
        "values": [
            # Positional arguments.
            "def make_loader(dataset, batch_size, seed):\n"
            "    return DataLoader(dataset, batch_size, True, generator=torch.Generator().manual_seed(seed))\n",
        ],
        "randomness": [
            # A RandomSampler with its own generator.
            "def make_loader(dataset, batch_size, seed):\n"
            "    g = torch.Generator()\n    g.manual_seed(seed)\n"
            "    sampler = torch.utils.data.RandomSampler(dataset, generator=g)\n"
            "    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)\n",
            # A BatchSampler over a RandomSampler with its own generator.
            "def make_loader(dataset, batch_size, seed):\n"
            "    from torch.utils.data import BatchSampler, RandomSampler\n"
            "    g = torch.Generator().manual_seed(seed)\n"
            "    return DataLoader(dataset, batch_sampler=BatchSampler(RandomSampler(dataset, generator=g), batch_size, False))\n",
            # coursekit's set_seed returns a generator of its own, seeded with seed.
            "def make_loader(dataset, batch_size, seed):\n"
            "    return DataLoader(dataset, batch_size=batch_size, shuffle=True, generator=set_seed(seed))\n",
        ],
    },
    "pad-collate": {
        "values": [
            # By hand: a full tensor of padding, then copy each sequence in.
            "def pad_collate(batch, padding_value=0):\n"
            "    lengths = torch.tensor([len(s) for s, _ in batch], dtype=torch.long)\n"
            "    padded = torch.full((len(batch), int(lengths.max())), padding_value, dtype=batch[0][0].dtype)\n"
            "    for row, (s, _) in enumerate(batch):\n        padded[row, :len(s)] = s\n"
            "    return padded, lengths, torch.tensor([y for _, y in batch], dtype=torch.long)\n",
        ],
        "shapes": [
            # Time first, then transposed.
            _pad_with(("batch_first=True, ", ""), ("    lengths", "    padded = padded.T\n    lengths")),
        ],
        "dtype": [
            # F.pad each sequence (keeps its dtype), then stack; as_tensor for the lengths and labels.
            "def pad_collate(batch, padding_value=0):\n"
            "    import torch.nn.functional as F\n"
            "    sequences, labels = zip(*batch)\n"
            "    longest = max(s.shape[0] for s in sequences)\n"
            "    padded = torch.stack([F.pad(s, (0, longest - s.shape[0]), value=padding_value) for s in sequences])\n"
            "    return padded, torch.as_tensor([s.shape[0] for s in sequences]), torch.as_tensor(labels)\n",
            # LongTensor for the lengths and labels.
            _pad_with(("torch.tensor([len(s) for s, _ in batch])", "torch.LongTensor([len(s) for s, _ in batch])"),
                      ("torch.tensor([y for _, y in batch])", "torch.LongTensor([y for _, y in batch])")),
        ],
    },
    "read-idx-header": {
        "values": [
            # Compares the whole magic number as one integer, and returns a list.
            "def read_idx_header(raw):\n"
            "    if len(raw) < 4:\n        raise ValueError('too short for a header')\n"
            "    magic = struct.unpack('>I', raw[:4])[0]\n"
            "    if magic >> 8 != 0x08:\n        raise ValueError(f'Magic number 0x{magic:08x} is not 0x000008dd')\n"
            "    ndim = magic & 0xFF\n"
            "    try:\n        return list(struct.unpack_from(f'>{ndim}I', raw, 4))\n"
            "    except struct.error as error:\n        raise ValueError(f'header cut short: {error}') from None\n",
        ],
        "format": [
            # int.from_bytes, one size at a time.
            "def read_idx_header(raw):\n"
            "    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] != 0x08:\n"
            "        raise ValueError(f'wrong magic number {raw[:4]!r}' if len(raw) >= 4 else 'too short')\n"
            "    ndim = raw[3]\n"
            "    if len(raw) < 4 + 4 * ndim:\n        raise ValueError('the header is cut short')\n"
            "    return tuple(int.from_bytes(raw[4 + 4 * k:8 + 4 * k], 'big') for k in range(ndim))\n",
            # struct's '>HBB' for the magic's fields, then one '>I' per dimension.
            "def read_idx_header(raw):\n"
            "    if len(raw) < 4:\n        raise ValueError('too short: no magic number')\n"
            "    zero, kind, ndim = struct.unpack('>HBB', raw[:4])\n"
            "    if zero != 0 or kind != 0x08:\n        raise ValueError(f'bad magic number {raw[:4].hex()}')\n"
            "    if len(raw) < 4 + 4 * ndim:\n        raise ValueError('the header is cut short')\n"
            "    return tuple(struct.unpack('>I', raw[4 + 4 * k:8 + 4 * k])[0] for k in range(ndim))\n",
        ],
        "boundaries": [
            # One check for both lengths: 4 bytes, then 4 per dimension.
            "def read_idx_header(raw):\n"
            "    if len(raw) < 4 or len(raw) < 4 + 4 * raw[3]:\n        raise ValueError('the data ends inside the header')\n"
            "    if raw[0] or raw[1] or raw[2] != 8:\n        raise ValueError('wrong magic number')\n"
            "    return struct.unpack('>' + 'I' * raw[3], raw[4:4 + 4 * raw[3]])\n",
            # The sizes sliced first, their length compared with what the header announces.
            "def read_idx_header(raw):\n"
            "    magic = raw[:4]\n"
            "    if len(magic) != 4:\n        raise ValueError('no room for the magic number')\n"
            "    if magic[:3] != bytes([0, 0, 8]):\n        raise ValueError('bad magic number')\n"
            "    sizes = raw[4:4 + 4 * magic[3]]\n"
            "    if len(sizes) != 4 * magic[3]:\n        raise ValueError('header cut short')\n"
            "    return tuple(struct.unpack(f'>{magic[3]}I', sizes))\n",
        ],
    },
    "parse-idx": {
        "values": [
            # frombuffer on the read-only bytes, then clone (PyTorch warns, the result is right).
            "import math\n\ndef parse_idx(raw):\n"
            "    shape = tuple(read_idx_header(raw))\n"
            "    start = 4 + 4 * len(shape)\n"
            "    if len(raw) != start + math.prod(shape):\n        raise ValueError('truncated or too long')\n"
            "    return torch.frombuffer(raw, dtype=torch.uint8, offset=start).clone().reshape(shape)\n",
        ],
        "format": [
            # The body sliced off after the header, whatever its length.
            "import math\n\ndef parse_idx(raw):\n"
            "    shape = read_idx_header(raw)\n"
            "    body = raw[4 + 4 * len(shape):]\n"
            "    if len(body) != math.prod(shape):\n        raise ValueError('body size does not match the header')\n"
            "    return torch.frombuffer(bytearray(body), dtype=torch.uint8).reshape(*shape)\n",
        ],
        "dtype": [
            # A list of ints, then a uint8 tensor.
            "import math\n\ndef parse_idx(raw):\n"
            "    shape = read_idx_header(raw)\n"
            "    body = raw[4 + 4 * len(shape):]\n"
            "    if len(body) != math.prod(shape):\n        raise ValueError('body size does not match the header')\n"
            "    return torch.tensor(list(body), dtype=torch.uint8).reshape(shape)\n",
            # NumPy's frombuffer, copied, then torch.from_numpy (uint8 all the way).
            "import math\nimport numpy as np\n\ndef parse_idx(raw):\n"
            "    shape = read_idx_header(raw)\n"
            "    start = 4 + 4 * len(shape)\n"
            "    if len(raw) - start != math.prod(shape):\n        raise ValueError('wrong size')\n"
            "    return torch.from_numpy(np.frombuffer(raw, dtype=np.uint8, offset=start).copy()).reshape(shape)\n",
        ],
        "boundaries": [
            # Too short and too long checked separately.
            "import math\n\ndef parse_idx(raw):\n"
            "    shape = read_idx_header(raw)\n"
            "    start, count = 4 + 4 * len(shape), math.prod(shape)\n"
            "    if len(raw) < start + count:\n        raise ValueError('truncated')\n"
            "    if len(raw) > start + count:\n        raise ValueError('extra bytes after the data')\n"
            "    return torch.frombuffer(bytearray(raw), dtype=torch.uint8, offset=start, count=count).view(shape)\n",
            # The difference compared with zero.
            "import math\n\ndef parse_idx(raw):\n"
            "    shape = read_idx_header(raw)\n"
            "    body = raw[4 + 4 * len(shape):]\n"
            "    if len(body) - math.prod(shape):\n        raise ValueError(f'{len(body) - math.prod(shape):+d} bytes')\n"
            "    return torch.frombuffer(bytearray(body), dtype=torch.uint8).view(shape)\n",
        ],
    },
}

NOT_TESTED = {
    "pad-collate": {
        "boundaries": "the lesson asks for no size check here; a batch of one sequence is tested (shapes), but empty "
                      "sequences and empty batches are not: a DataLoader never makes an empty batch, and the lesson's "
                      "sequences have at least one token.",
        "device": "a collate function builds batches from the dataset's items on the CPU, inside the DataLoader; the batch "
                  "moves to the device afterwards (section 7), so there is no device for it to follow.",
    },
    "squares-dataset": {
        "device": "a dataset's items are made on the CPU and moved by the training loop, batch by batch (section 7).",
    },
}
