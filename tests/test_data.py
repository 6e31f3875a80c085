"""Tests for ``coursekit.data``: the IDX reader and the local folder / cache / mirror logic.

Everything except the ``data``-marked tests is self-contained: the tests write small IDX files
themselves and serve them from a real HTTP server on 127.0.0.1 (nothing else is ever contacted).
The ``data`` tests read the real MNIST / Fashion-MNIST files from ``../shared/data`` (read only)
and are skipped, with a reason, where that folder is absent.
"""

from __future__ import annotations

import dataclasses
import functools
import gzip
import hashlib
import os
import socket
import struct
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import torch

from coursekit import data
from coursekit.data import ChecksumError, DataNotFoundError, IDXFormatError

# --- building IDX files ------------------------------------------------------------------------

_TYPE_CODES = {torch.uint8: (0x08, "B"), torch.int32: (0x0C, "i"), torch.float32: (0x0D, "f")}


def idx_bytes(tensor: torch.Tensor, shape: tuple[int, ...] | None = None) -> bytes:
    """The IDX encoding of ``tensor``; ``shape`` overrides the header's dimensions (to fake bad files)."""
    type_code, fmt = _TYPE_CODES[tensor.dtype]
    dims = tuple(tensor.shape) if shape is None else tuple(shape)
    header = struct.pack(">HBB", 0, type_code, len(dims)) + struct.pack(f">{len(dims)}I", *dims)
    values = tensor.flatten().tolist()
    return header + struct.pack(f">{len(values)}{fmt}", *values)


def write_idx(path: Path, tensor: torch.Tensor) -> Path:
    """Write ``tensor`` as IDX to ``path``, gzipped if the name ends in ``.gz``."""
    raw = idx_bytes(tensor)
    path.write_bytes(gzip.compress(raw, mtime=0) if path.suffix == ".gz" else raw)
    return path


def random_images(n: int, rows: int = 4, cols: int = 5, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 256, (n, rows, cols), generator=g, dtype=torch.uint8)


# --- read_idx ------------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", ["", ".gz"])
@pytest.mark.parametrize(
    "tensor",
    [random_images(7), torch.arange(10, dtype=torch.uint8), torch.tensor([255, 0, 3], dtype=torch.uint8)],
    ids=["images-3d", "labels-1d", "labels-1d-extremes"],
)
def test_read_idx_round_trip_uint8(tmp_path, tensor, suffix):
    path = write_idx(tmp_path / f"file-ubyte{suffix}", tensor)
    out = data.read_idx(path)
    assert out.dtype == torch.uint8
    assert out.shape == tensor.shape  # the shape comes from the header
    assert torch.equal(out, tensor)


def test_read_idx_shape_comes_from_header(tmp_path):
    # The same 24 bytes of body, read with two different headers.
    body = torch.arange(24, dtype=torch.uint8)
    for shape in [(2, 3, 4), (6, 4), (24,)]:
        path = tmp_path / f"f{len(shape)}"
        path.write_bytes(idx_bytes(body, shape=shape))
        out = data.read_idx(path)
        assert out.shape == shape
        assert torch.equal(out.flatten(), body)


def test_read_idx_accepts_str_path(tmp_path):
    path = write_idx(tmp_path / "labels.gz", torch.arange(5, dtype=torch.uint8))
    assert torch.equal(data.read_idx(str(path)), torch.arange(5, dtype=torch.uint8))


@pytest.mark.parametrize(
    "tensor",
    [
        torch.tensor([1, -2, 70000, -(2**31), 2**31 - 1], dtype=torch.int32),
        torch.tensor([[1.5, -2.25, 0.0], [3.0e10, -1.0e-3, 7.0]], dtype=torch.float32),
    ],
    ids=["int32", "float32"],
)
def test_read_idx_multibyte_types_are_big_endian(tmp_path, tensor):
    path = write_idx(tmp_path / "multi.gz", tensor)
    out = data.read_idx(path)
    assert out.dtype == tensor.dtype
    assert torch.equal(out, tensor)


def test_read_idx_zero_items(tmp_path):
    """A valid IDX file with no items (header only) reads as an empty tensor of the header's shape."""
    path = tmp_path / "empty-ubyte"
    path.write_bytes(idx_bytes(torch.zeros(0, 28, 28, dtype=torch.uint8)))
    out = data.read_idx(path, expected_ndim=3)
    assert out.shape == (0, 28, 28)
    assert out.dtype == torch.uint8


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_read_idx_wrong_magic(tmp_path, suffix):
    raw = b"\x12\x34\x08\x01" + struct.pack(">I", 3) + b"abc"
    path = tmp_path / f"bad-magic{suffix}"
    path.write_bytes(gzip.compress(raw) if suffix else raw)
    with pytest.raises(IDXFormatError) as info:
        data.read_idx(path)
    assert str(path) in str(info.value)
    assert "magic" in str(info.value)


def test_read_idx_unknown_type_code_is_bad_magic(tmp_path):
    path = tmp_path / "bad-type"
    path.write_bytes(b"\x00\x00\x07\x01" + struct.pack(">I", 1) + b"x")
    with pytest.raises(IDXFormatError, match="magic"):
        data.read_idx(path)


def test_read_idx_gzipped_file_read_without_gz_suffix_is_bad_magic(tmp_path):
    """A .gz file renamed without its suffix is not decompressed: the gzip header is not an IDX magic."""
    path = write_idx(tmp_path / "labels.gz", torch.arange(5, dtype=torch.uint8))
    renamed = path.rename(tmp_path / "labels-idx1-ubyte")
    with pytest.raises(IDXFormatError) as info:
        data.read_idx(renamed)
    assert "magic" in str(info.value) and str(renamed) in str(info.value)


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_read_idx_truncated_body(tmp_path, suffix):
    raw = idx_bytes(random_images(3))[:-7]
    path = tmp_path / f"short{suffix}"
    path.write_bytes(gzip.compress(raw) if suffix else raw)
    with pytest.raises(IDXFormatError) as info:
        data.read_idx(path)
    message = str(info.value)
    assert "truncated" in message
    assert str(path) in message
    assert "(3, 4, 5)" in message  # the shape the header promises


def test_read_idx_extra_bytes(tmp_path):
    path = tmp_path / "long"
    path.write_bytes(idx_bytes(random_images(3)) + b"\x00\x01")
    with pytest.raises(IDXFormatError, match="extra bytes") as info:
        data.read_idx(path)
    assert "truncated" not in str(info.value)


@pytest.mark.parametrize(
    "raw, needle",
    [(b"\x00\x00", "too short"), (b"\x00\x00\x08\x03" + struct.pack(">I", 2), "inside the header")],
    ids=["shorter-than-magic", "inside-header"],
)
def test_read_idx_cut_inside_header(tmp_path, raw, needle):
    path = tmp_path / "tiny"
    path.write_bytes(raw)
    with pytest.raises(IDXFormatError, match=needle):
        data.read_idx(path)


def test_read_idx_truncated_gzip(tmp_path):
    good = write_idx(tmp_path / "images.gz", random_images(20, 8, 8))
    blob = good.read_bytes()
    cut = tmp_path / "cut-images-idx3-ubyte.gz"
    cut.write_bytes(blob[: len(blob) // 2])
    with pytest.raises(IDXFormatError) as info:
        data.read_idx(cut)
    assert str(cut) in str(info.value)
    assert "decompress" in str(info.value)


def test_read_idx_not_gzip_but_named_gz(tmp_path):
    path = tmp_path / "plain.gz"
    path.write_bytes(idx_bytes(torch.arange(4, dtype=torch.uint8)))
    with pytest.raises(IDXFormatError) as info:
        data.read_idx(path)
    assert str(path) in str(info.value)


def test_read_idx_expected_ndim_mismatch_suggests_swap(tmp_path):
    labels = write_idx(tmp_path / "train-labels-idx1-ubyte.gz", torch.arange(6, dtype=torch.uint8))
    images = write_idx(tmp_path / "train-images-idx3-ubyte.gz", random_images(6))
    with pytest.raises(IDXFormatError, match="swap") as info:
        data.read_idx(labels, expected_ndim=3)
    assert str(labels) in str(info.value)
    with pytest.raises(IDXFormatError, match="swap"):
        data.load_images(labels)  # labels file passed as images
    with pytest.raises(IDXFormatError, match="swap"):
        data.load_labels(images)  # images file passed as labels
    assert data.read_idx(labels, expected_ndim=1).shape == (6,)


def test_load_images_and_labels_convert(tmp_path):
    images = random_images(6)
    images[0, 0, 0], images[0, 0, 1] = 0, 255
    img = data.load_images(write_idx(tmp_path / "i.gz", images))
    lab = data.load_labels(write_idx(tmp_path / "l.gz", torch.tensor([5, 0, 4, 1, 9, 2], dtype=torch.uint8)))
    assert img.shape == (6, 20) and img.dtype == torch.float32
    assert img.min().item() == 0.0 and img.max().item() == 1.0
    assert torch.allclose(img * 255, images.reshape(6, -1).float())
    assert lab.dtype == torch.int64 and lab.tolist() == [5, 0, 4, 1, 9, 2]


# --- a real HTTP server on 127.0.0.1 -------------------------------------------------------------


class _Handler(SimpleHTTPRequestHandler):
    """Serves files from ``directory``; ``/broken404/``, ``/broken500/`` and ``/cut/`` fail on purpose."""

    def do_GET(self):  # noqa: N802 (http.server's naming)
        self.server.requests.append(self.path)
        if self.path.startswith("/broken404/"):
            self.send_error(404)
        elif self.path.startswith("/broken500/"):
            self.send_error(500)
        elif self.path.startswith("/cut/"):
            # A chunked response whose connection drops in the middle of a chunk.
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.write(b"400\r\n" + b"x" * 10)
            self.wfile.flush()
            self.close_connection = True
        else:
            super().do_GET()

    def log_message(self, format, *args):  # keep the test output quiet
        pass


class Server:
    def __init__(self, root: Path):
        self.root = root
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Handler, directory=str(root)))
        self.httpd.daemon_threads = True
        self.httpd.requests = []
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def requests(self) -> list[str]:
        return self.httpd.requests

    def url(self, folder: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/{folder}/"


@pytest.fixture
def server(tmp_path):
    srv = Server(tmp_path / "www")
    srv.root.mkdir()
    srv.thread.start()
    try:
        yield srv
    finally:
        srv.httpd.shutdown()
        srv.httpd.server_close()
        srv.thread.join(timeout=5)


@pytest.fixture
def closed_port_url():
    """A URL on 127.0.0.1 whose port nobody listens on (connection refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/mnist/"


FAKE = "fake-mnist"
FAKE_ENV = "COURSEKIT_FAKE_MNIST_DIR"
IMAGES = "train-images-idx3-ubyte.gz"
LABELS = "train-labels-idx1-ubyte.gz"


@pytest.fixture
def fake(tmp_path, server, monkeypatch):
    """A small fake data set registered in ``data.DATASETS``, its files served under ``/good/``.

    ``/bad/`` and ``/bad2/`` serve files with the same names but different bytes. The cache is a fresh
    folder under tmp_path and the data set's environment variable is unset.
    """
    tensors = {
        "train-images-idx3-ubyte.gz": random_images(6, 4, 4, seed=1),
        "train-labels-idx1-ubyte.gz": torch.tensor([3, 1, 4, 1, 5, 9], dtype=torch.uint8),
        "t10k-images-idx3-ubyte.gz": random_images(3, 4, 4, seed=2),
        "t10k-labels-idx1-ubyte.gz": torch.tensor([2, 7, 1], dtype=torch.uint8),
    }
    blobs = {name: gzip.compress(idx_bytes(t), mtime=0) for name, t in tensors.items()}
    for folder, transform in [("good", lambda b: b), ("bad", lambda b: b[:-1] + b"\xff"), ("bad2", lambda b: b"junk")]:
        (server.root / folder).mkdir()
        for name, blob in blobs.items():
            (server.root / folder / name).write_bytes(transform(blob))
    # Copy a real DatasetInfo and swap in the fake's name, variable and MD5s.
    info = dataclasses.replace(
        data.DATASETS["mnist"],
        name=FAKE,
        env_var=FAKE_ENV,
        md5s={name: hashlib.md5(blob).hexdigest() for name, blob in blobs.items()},
        mirrors=(server.url("broken404"), server.url("good")),
    )
    monkeypatch.setitem(data.DATASETS, FAKE, info)
    monkeypatch.setenv("COURSEKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(FAKE_ENV, raising=False)
    monkeypatch.setattr(data, "_DOWNLOAD_TIMEOUT_S", 5)

    class Fake:
        pass

    f = Fake()
    f.info, f.blobs, f.tensors, f.server = info, blobs, tensors, server
    f.cache = tmp_path / "cache" / FAKE
    f.good, f.bad, f.bad2 = server.url("good"), server.url("bad"), server.url("bad2")
    return f


def part_files(root: Path) -> list[Path]:
    """Files a download left behind that are not a finished data file (a temporary file, whatever its name)."""
    names = set(data.DATASETS["mnist"].md5s)
    return sorted(p for p in root.rglob("*") if p.is_file() and p.name not in names) if root.exists() else []


@pytest.mark.parametrize("first", ["broken404", "broken500", "refused"])
def test_fetch_first_mirror_fails_second_serves(fake, closed_port_url, first):
    first_url = closed_port_url if first == "refused" else fake.server.url(first)
    path = data.fetch_file(FAKE, IMAGES, mirrors=[first_url, fake.good], progress=False)
    assert path == fake.cache / IMAGES
    assert path.read_bytes() == fake.blobs[IMAGES]
    assert part_files(fake.cache.parent) == []
    assert sorted(p.name for p in fake.cache.iterdir()) == [IMAGES]
    expected_requests = [f"/good/{IMAGES}"] if first == "refused" else [f"/{first}/{IMAGES}", f"/good/{IMAGES}"]
    assert fake.server.requests == expected_requests


def test_fetch_uses_built_in_mirrors_by_default(fake):
    # The fake's built-in mirrors are (broken404, good).
    path = data.fetch_file(FAKE, LABELS, progress=False)
    assert path.read_bytes() == fake.blobs[LABELS]
    assert fake.server.requests == [f"/broken404/{LABELS}", f"/good/{LABELS}"]


def test_fetch_second_call_uses_cache(fake):
    first = data.fetch_file(FAKE, LABELS, mirrors=[fake.good], progress=False)
    second = data.fetch_file(FAKE, LABELS, mirrors=[fake.good], progress=False)
    assert first == second
    assert fake.server.requests == [f"/good/{LABELS}"]  # only one download


def test_fetch_with_progress_bar(fake):
    path = data.fetch_file(FAKE, LABELS, mirrors=[fake.good], progress=True)
    assert path.read_bytes() == fake.blobs[LABELS]


def test_fetch_wrong_bytes_then_next_mirror(fake):
    path = data.fetch_file(FAKE, IMAGES, mirrors=[fake.bad, fake.good], progress=False)
    assert path.read_bytes() == fake.blobs[IMAGES]
    assert fake.server.requests == [f"/bad/{IMAGES}", f"/good/{IMAGES}"]
    assert part_files(fake.cache.parent) == []


def test_fetch_all_mirrors_wrong_bytes(fake):
    with pytest.raises(DataNotFoundError) as info:
        data.fetch_file(FAKE, IMAGES, mirrors=[fake.bad, fake.bad2], progress=False)
    message = str(info.value)
    assert message.count("checksum mismatch") == 2
    assert fake.bad + IMAGES in message and fake.bad2 + IMAGES in message
    assert not (fake.cache / IMAGES).exists()  # every wrong download was removed
    assert part_files(fake.cache.parent) == []


def test_fetch_connection_cut_mid_download_tries_next_mirror(fake):
    path = data.fetch_file(FAKE, IMAGES, mirrors=[fake.server.url("cut"), fake.good], progress=False)
    assert path.read_bytes() == fake.blobs[IMAGES]
    assert part_files(fake.cache.parent) == []


def test_fetch_damaged_cache_is_replaced(fake):
    fake.cache.mkdir(parents=True)
    (fake.cache / IMAGES).write_bytes(fake.blobs[IMAGES][:100])  # cut short
    path = data.fetch_file(FAKE, IMAGES, mirrors=[fake.good], progress=False)
    assert path == fake.cache / IMAGES
    assert path.read_bytes() == fake.blobs[IMAGES]
    assert fake.server.requests == [f"/good/{IMAGES}"]


def test_fetch_damaged_cache_removed_even_when_offline(fake, closed_port_url):
    fake.cache.mkdir(parents=True)
    (fake.cache / IMAGES).write_bytes(b"damaged")
    with pytest.raises(DataNotFoundError) as info:
        data.fetch_file(FAKE, IMAGES, mirrors=[closed_port_url], progress=False)
    assert "removed" in str(info.value)
    assert not (fake.cache / IMAGES).exists()


def test_fetch_good_cache_is_not_downloaded_again(fake):
    fake.cache.mkdir(parents=True)
    (fake.cache / LABELS).write_bytes(fake.blobs[LABELS])
    assert data.fetch_file(FAKE, LABELS, mirrors=[fake.good], progress=False) == fake.cache / LABELS
    assert fake.server.requests == []


def test_fetch_offline_without_local_folder(fake, closed_port_url):
    with pytest.raises(DataNotFoundError) as info:
        data.fetch_file(FAKE, IMAGES, mirrors=[closed_port_url, fake.server.url("broken404")], progress=False)
    message = str(info.value)
    for name in fake.info.md5s:  # all four files of the data set are named ...
        assert name in message
    assert FAKE_ENV in message  # ... and the variable to set
    assert f"export {FAKE_ENV}=" in message
    assert closed_port_url + IMAGES in message
    assert "404" in message
    assert isinstance(info.value, FileNotFoundError)
    assert part_files(fake.cache.parent) == []


def test_fetch_download_false_with_nothing_cached(fake):
    with pytest.raises(DataNotFoundError) as info:
        data.fetch_file(FAKE, IMAGES, mirrors=[fake.good], download=False, progress=False)
    assert "download=False" in str(info.value)
    assert FAKE_ENV in str(info.value)
    assert fake.server.requests == []


def test_fetch_reads_local_folder_first(fake, tmp_path, monkeypatch):
    local = tmp_path / "local"
    local.mkdir()
    (local / IMAGES).write_bytes(fake.blobs[IMAGES])
    monkeypatch.setenv(FAKE_ENV, str(local))
    path = data.fetch_file(FAKE, IMAGES, mirrors=[fake.good], progress=False)
    assert path == local / IMAGES
    assert fake.server.requests == []  # the server was never hit
    assert not fake.cache.exists()  # and nothing was copied into the cache
    assert data.describe_sources(FAKE).startswith(f"{FAKE}: not found locally")  # only 1 of the 4 files there


def test_fetch_local_folder_without_the_file_falls_back(fake, tmp_path, monkeypatch):
    local = tmp_path / "local"
    local.mkdir()
    monkeypatch.setenv(FAKE_ENV, str(local))
    path = data.fetch_file(FAKE, LABELS, mirrors=[fake.good], progress=False)
    assert path == fake.cache / LABELS
    assert list(local.iterdir()) == []  # the local folder is never written to


def test_fetch_local_file_with_wrong_md5(fake, tmp_path, monkeypatch):
    local = tmp_path / "local"
    local.mkdir()
    damaged = local / IMAGES
    damaged.write_bytes(b"not the original")
    monkeypatch.setenv(FAKE_ENV, str(local))
    with pytest.raises(ChecksumError) as info:
        data.fetch_file(FAKE, IMAGES, mirrors=[fake.good], progress=False)
    assert str(damaged) in str(info.value)
    assert FAKE_ENV in str(info.value)
    assert damaged.read_bytes() == b"not the original"  # NOT deleted: it is the user's file
    assert fake.server.requests == []


def test_fetch_env_var_points_to_missing_folder(fake, tmp_path, monkeypatch):
    missing = tmp_path / "no-such-folder"
    monkeypatch.setenv(FAKE_ENV, str(missing))
    with pytest.raises(DataNotFoundError) as info:
        data.fetch_file(FAKE, IMAGES, mirrors=[fake.good], progress=False)
    assert FAKE_ENV in str(info.value)
    assert str(missing) in str(info.value)
    assert fake.server.requests == []


def test_fetch_rejects_unknown_names(fake):
    with pytest.raises(ValueError, match="unknown data set"):
        data.fetch_file("no-such-dataset", IMAGES)
    with pytest.raises(ValueError, match="not a file of"):
        data.fetch_file(FAKE, "train-images-idx3-ubyte")  # missing .gz


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts open file descriptors via /proc (Linux)")
def test_failed_downloads_do_not_leak_file_descriptors(fake, closed_port_url):
    def open_fds() -> int:
        return len(os.listdir("/proc/self/fd"))

    data.fetch_file(FAKE, LABELS, mirrors=[fake.good], progress=False)  # warm up (imports, threads)
    before = open_fds()
    for _ in range(5):
        with pytest.raises(DataNotFoundError):
            data.fetch_file(FAKE, IMAGES, mirrors=[closed_port_url], progress=False)
    assert open_fds() <= before


def test_dataset_files_and_load_split_through_server(fake):
    files = data.dataset_files(FAKE, mirrors=[fake.good], progress=False)
    assert sorted(files) == sorted(fake.info.md5s)
    assert all(p.read_bytes() == fake.blobs[name] for name, p in files.items())
    assert data.describe_sources(FAKE) == f"{FAKE}: cache {fake.cache}"
    images, labels = data.load_split(FAKE, "train", mirrors=[fake.good], progress=False)
    assert images.shape == (6, 16) and images.dtype == torch.float32
    assert labels.tolist() == [3, 1, 4, 1, 5, 9] and labels.dtype == torch.int64
    images, labels = data.load_split(FAKE, "test", download=False)
    assert images.shape == (3, 16) and labels.tolist() == [2, 7, 1]
    with pytest.raises(ValueError, match="split"):
        data.load_split(FAKE, "validation")


def test_load_split_images_labels_count_mismatch(fake):
    fake.cache.mkdir(parents=True)
    for name, blob in fake.blobs.items():
        (fake.cache / name).write_bytes(blob)
    # Make the train labels one shorter, and register the new MD5 so the file is accepted.
    short = gzip.compress(idx_bytes(torch.tensor([3, 1, 4, 1, 5], dtype=torch.uint8)), mtime=0)
    (fake.cache / LABELS).write_bytes(short)
    fake.info.md5s[LABELS] = hashlib.md5(short).hexdigest()
    with pytest.raises(IDXFormatError, match="6 images but 5 labels"):
        data.load_split(FAKE, "train", download=False)


# --- the real files (read only, from ../shared/data) ---------------------------------------------

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture
def real(monkeypatch, tmp_path):
    """Point both data sets at ../shared/data (read only); skip if the files are not there."""

    def use(dataset: str) -> Path:
        folder = SHARED_DATA / dataset
        info = data.DATASETS[dataset]
        missing = [name for name in info.md5s if not (folder / name).is_file()]
        if missing:
            pytest.skip(f"real {dataset} files not found in {folder} (missing {', '.join(missing)})")
        monkeypatch.setenv(info.env_var, str(folder))
        return folder

    # Anything that would be downloaded lands in tmp_path, never in the shared folder or ~/.cache.
    monkeypatch.setenv("COURSEKIT_CACHE", str(tmp_path / "cache"))
    return use


def _load(dataset: str, split: str):
    # download=False: these tests never touch the network.
    return data.load_split(dataset, split, download=False, progress=False)


@pytest.mark.data
def test_real_mnist_train(real):
    folder = real("mnist")
    assert data.fetch_file("mnist", IMAGES, download=False) == folder / IMAGES  # read in place
    images, labels = _load("mnist", "train")
    assert images.shape == (60000, 784) and images.dtype == torch.float32
    assert labels.shape == (60000,) and labels.dtype == torch.int64
    assert images.min().item() == 0.0 and images.max().item() == 1.0
    assert labels[:10].tolist() == [5, 0, 4, 1, 9, 2, 1, 3, 1, 4]
    assert labels.min().item() == 0 and labels.max().item() == 9


@pytest.mark.data
def test_real_mnist_test(real):
    real("mnist")
    images, labels = _load("mnist", "test")
    assert images.shape == (10000, 784) and images.dtype == torch.float32
    assert labels.shape == (10000,) and labels.dtype == torch.int64
    assert 0.0 <= images.min().item() and images.max().item() <= 1.0
    assert torch.bincount(labels, minlength=10).tolist() == [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009]


@pytest.mark.data
def test_real_fashion_mnist(real):
    real("fashion-mnist")
    images, labels = _load("fashion-mnist", "test")
    assert images.shape == (10000, 784) and images.dtype == torch.float32
    assert labels.dtype == torch.int64
    assert 0.0 <= images.min().item() and images.max().item() <= 1.0
    assert torch.bincount(labels, minlength=10).tolist() == [1000] * 10
    images, labels = _load("fashion-mnist", "train")
    assert images.shape == (60000, 784) and labels.shape == (60000,)
    assert torch.bincount(labels, minlength=10).tolist() == [6000] * 10


@pytest.mark.data
def test_real_files_describe_sources(real):
    for dataset in ("mnist", "fashion-mnist"):
        folder = real(dataset)
        assert data.describe_sources(dataset) == f"{dataset}: local folder {folder} ({data.DATASETS[dataset].env_var})"
