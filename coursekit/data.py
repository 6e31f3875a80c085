"""Get MNIST and Fashion-MNIST as their original IDX ``.gz`` files, and read them.

Where a file comes from, in this order:

1. a local folder named by an environment variable (``COURSEKIT_MNIST_DIR`` or
   ``COURSEKIT_FASHION_MNIST_DIR``): read only, never written to;
2. the cache folder (``COURSEKIT_CACHE``, default ``~/.cache/coursekit``), one sub-folder per data set;
3. the download mirrors, tried in turn, through pooch: a download lands in a temporary file in the cache
   folder and is moved into place only after its MD5 matches, so a cut connection never leaves a half file.

Every file is checked against the MD5 of the original distribution before it is used.
"""

from __future__ import annotations

import gzip
import hashlib
import math
import os
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path


import torch

from .answers import course_answer
from .i18n import gettext as _

__all__ = [
    "DATASETS",
    "CLASS_NAMES",
    "DataNotFoundError",
    "ChecksumError",
    "IDXFormatError",
    "dataset_files",
    "fetch_file",
    "read_idx",
    "load_images",
    "load_labels",
    "load_split",
    "describe_sources",
]


class DataNotFoundError(FileNotFoundError):
    """No local copy, no cached copy, and no mirror could serve the file."""


class ChecksumError(ValueError):
    """A file's MD5 differs from the original distribution's."""


class IDXFormatError(ValueError):
    """A file is not a valid (gzipped) IDX file."""


@dataclass(frozen=True)
class DatasetInfo:
    name: str
    env_var: str
    md5s: dict[str, str]  # file name -> MD5 of the .gz file
    mirrors: tuple[str, ...]  # base URLs, each ending in "/"

    def filename(self, split: str, kind: str) -> str:
        prefix = {"train": "train", "test": "t10k"}[split]
        suffix = {"images": "images-idx3-ubyte.gz", "labels": "labels-idx1-ubyte.gz"}[kind]
        return f"{prefix}-{suffix}"


DATASETS: dict[str, DatasetInfo] = {
    "mnist": DatasetInfo(
        name="mnist",
        env_var="COURSEKIT_MNIST_DIR",
        md5s={
            "train-images-idx3-ubyte.gz": "f68b3c2dcbeaaa9fbdd348bbdeb94873",
            "train-labels-idx1-ubyte.gz": "d53e105ee54ea40749a09fcbcd1e9432",
            "t10k-images-idx3-ubyte.gz": "9fb629c4189551a2d022fa330f9573f3",
            "t10k-labels-idx1-ubyte.gz": "ec29112dd5afa0611ce80d1b7f02629c",
        },
        mirrors=(
            "https://ossci-datasets.s3.amazonaws.com/mnist/",
            "https://storage.googleapis.com/cvdf-datasets/mnist/",
            "http://yann.lecun.com/exdb/mnist/",
        ),
    ),
    "fashion-mnist": DatasetInfo(
        name="fashion-mnist",
        env_var="COURSEKIT_FASHION_MNIST_DIR",
        md5s={
            "train-images-idx3-ubyte.gz": "8d4fb7e6c68d591d4c3dfef9ec88bf0d",
            "train-labels-idx1-ubyte.gz": "25c81989df183df01b3e8a0aad5dffbe",
            "t10k-images-idx3-ubyte.gz": "bef4ecab320f06d8554ea6380940ec79",
            "t10k-labels-idx1-ubyte.gz": "bb300cfdad3c16e7a12a480ee83cd310",
        },
        mirrors=(
            "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",
            "https://github.com/zalandoresearch/fashion-mnist/raw/master/data/fashion/",
        ),
    ),
}

# Label k of each data set means CLASS_NAMES[dataset][k] (Fashion-MNIST's order is Zalando's README's).
CLASS_NAMES: dict[str, tuple[str, ...]] = {
    "mnist": tuple(str(digit) for digit in range(10)),
    "fashion-mnist": ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                      "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"),
}

_DOWNLOAD_TIMEOUT_S = 30
_CHUNK = 1 << 16


def _info(dataset: str) -> DatasetInfo:
    try:
        return DATASETS[dataset]
    except KeyError:
        raise ValueError(f"unknown data set {dataset!r}: choose one of {sorted(DATASETS)}") from None


def cache_root() -> Path:
    """The folder downloads are kept in (``COURSEKIT_CACHE`` or ``~/.cache/coursekit``)."""
    return Path(os.environ.get("COURSEKIT_CACHE", Path.home() / ".cache" / "coursekit")).expanduser()


def local_dir(dataset: str) -> Path | None:
    """The local folder set for ``dataset`` by its environment variable, if any."""
    value = os.environ.get(_info(dataset).env_var, "").strip()
    return Path(value).expanduser() if value else None


def md5sum(path: Path) -> str:
    digest = hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _offline_help(info: DatasetInfo) -> str:
    names = "\n".join(f"    {name}" for name in info.md5s)
    return _(
        "To work offline, put these four files (unchanged, still gzipped) in one folder:\n{names}\n"
        "and point {variable} at it, for example\n"
        "    export {variable}=/path/to/{name}\n"
        "(in a notebook: os.environ[{quoted}] = '/path/to/{name}' before loading), "
        "or copy them into {cache}."
    ).format(names=names, variable=info.env_var, quoted=repr(info.env_var), name=info.name, cache=cache_root() / info.name)


def _download(url: str, target: Path, expected_md5: str, progress: bool) -> None:
    """Download ``url`` to ``target``; raise on any failure.

    pooch streams it into a temporary file beside ``target`` and moves it into place only when its MD5
    matches; whatever fails, the temporary file is removed. Each mirror is tried once (the caller goes on
    to the next one), so pooch's own retries stay off.
    """
    import pooch  # imported on first download only: most runs read a local folder or the cache

    bar = _DownloadBar(target.name) if progress else False
    downloader = pooch.HTTPDownloader(progressbar=bar, timeout=_DOWNLOAD_TIMEOUT_S, chunk_size=_CHUNK,
                                      headers={"User-Agent": "coursekit"})
    logger = pooch.get_logger()
    level = logger.level
    logger.setLevel("WARNING")  # the bar names the file; pooch's "Downloading data from ..." line would repeat it
    try:
        pooch.retrieve(url, known_hash=f"md5:{expected_md5}", fname=target.name, path=target.parent,
                       downloader=downloader)
    except ValueError as exc:  # pooch's hash check
        raise ChecksumError(
            f"checksum mismatch, so the download was removed (the mirror served a different or damaged file): {exc}"
        ) from exc
    finally:
        logger.setLevel(level)
        if bar:
            bar.close()


def _first_cause(exc: BaseException) -> str:
    """What went wrong first ('[Errno 111] Connection refused'), not the connection pool's wrappers around it."""
    for _link in range(10):  # a chain is a handful of links; the bound guards against a cycle
        inner = exc.__cause__ or exc.__context__ or next((a for a in exc.args if isinstance(a, BaseException)), None)
        if inner is None:
            break
        exc = inner
    return str(exc)


class _DownloadBar:
    """The progress bar pooch drives, on ``tqdm.auto`` (a widget in a notebook, text in a terminal).

    pooch sets ``total`` once the server has said the size; a notebook's widget takes a new total only
    through ``reset``, so the setter goes there.
    """

    def __init__(self, desc: str):
        from tqdm.auto import tqdm

        self._bar = tqdm(total=None, desc=desc, unit="B", unit_scale=True, leave=False)

    def __bool__(self) -> bool:  # pooch asks "if progressbar:" before and while it downloads
        return True

    @property
    def total(self):
        return self._bar.total

    @total.setter
    def total(self, size: int) -> None:
        self._bar.reset(total=size or None)   # 0: the server did not say

    def update(self, n: int) -> None:
        self._bar.update(n)

    def reset(self) -> None:
        self._bar.reset()

    def close(self) -> None:
        self._bar.close()


def fetch_file(
    dataset: str,
    filename: str,
    *,
    mirrors: list[str] | tuple[str, ...] | None = None,
    download: bool = True,
    progress: bool = True,
) -> Path:
    """Return a verified local path to one original file of ``dataset``.

    ``mirrors`` replaces the built-in list of base URLs (tests use a local server).
    """
    info = _info(dataset)
    if filename not in info.md5s:
        raise ValueError(f"{filename!r} is not a file of {dataset}: expected one of {sorted(info.md5s)}")
    expected = info.md5s[filename]
    tried: list[str] = []

    # 1. The local folder: read only. A wrong file there is reported, never deleted.
    folder = local_dir(dataset)
    if folder is not None:
        if not folder.is_dir():
            raise DataNotFoundError(
                _("{variable} is set to {folder}, which is not a folder. Fix the path or unset {variable}.").format(
                    variable=info.env_var, folder=repr(str(folder))) + "\n" + _offline_help(info)
            )
        candidate = folder / filename
        if candidate.is_file():
            actual = md5sum(candidate)
            if actual != expected:
                raise ChecksumError(_(
                    "{path} has MD5 {actual}, but the original {filename} has MD5 {expected}. "
                    "The file is damaged or is not the original (it must stay gzipped). It was left in "
                    "place because it is yours: replace it with the original, or unset {variable}."
                ).format(path=candidate, actual=actual, filename=filename, expected=expected, variable=info.env_var))
            return candidate
        tried.append(_("local folder {folder} ({variable}): no {filename} there").format(
            folder=folder, variable=info.env_var, filename=filename))
    else:
        tried.append(_("local folder: {variable} is not set").format(variable=info.env_var))

    # 2. The cache: ours to manage, so a damaged file is removed and fetched again.
    cached = cache_root() / info.name / filename
    if cached.is_file():
        actual = md5sum(cached)
        if actual == expected:
            return cached
        cached.unlink()
        tried.append(_("cache {path}: MD5 {actual} did not match {expected}, so the file was removed").format(
            path=cached, actual=actual, expected=expected))
    else:
        tried.append(_("cache {path}: not there").format(path=cached))

    # 3. The mirrors, in order.
    if not download:
        tried.append(_("download: switched off (download=False)"))
    else:
        for base in mirrors if mirrors is not None else info.mirrors:
            url = base.rstrip("/") + "/" + filename
            try:
                _download(url, cached, expected, progress)
                return cached
            except ChecksumError as exc:
                tried.append(f"{url}: {exc}")
            except OSError as exc:  # requests' errors (HTTP status, refused, cut, timeout) are OSErrors too
                tried.append(f"{url}: {type(exc).__name__}: {_first_cause(exc)}")

    lines = "\n".join(f"  - {t}" for t in tried)
    raise DataNotFoundError(_("Could not get {dataset} file {filename}. Tried:").format(dataset=dataset, filename=filename)
                            + f"\n{lines}\n" + _offline_help(info))


def dataset_files(dataset: str, **kwargs) -> dict[str, Path]:
    """Fetch (or find) all four files of ``dataset``; returns {file name: path}."""
    return {name: fetch_file(dataset, name, **kwargs) for name in _info(dataset).md5s}


# --- reading IDX files -------------------------------------------------------------------------

# The third byte of the magic number names the element type (LeCun's IDX description).
_IDX_DTYPES = {
    0x08: (torch.uint8, 1),
    0x09: (torch.int8, 1),
    0x0B: (torch.int16, 2),
    0x0C: (torch.int32, 4),
    0x0D: (torch.float32, 4),
    0x0E: (torch.float64, 8),
}


def _read_bytes(path: Path) -> bytes:
    if path.suffix != ".gz":
        return path.read_bytes()
    try:
        with gzip.open(path, "rb") as f:
            return f.read()
    except (OSError, EOFError, zlib.error) as exc:
        raise IDXFormatError(_(
            "{path}: cannot be decompressed ({error}). The file is damaged or was "
            "cut short while copying or downloading: delete it and fetch it again."
        ).format(path=path, error=f"{type(exc).__name__}: {exc}")) from exc


@course_answer
def read_idx(path: str | Path, expected_ndim: int | None = None) -> torch.Tensor:
    """Read an IDX file (optionally gzipped) into a tensor of the shape its header gives.

    The header is 4 magic bytes (0, 0, element type, number of dimensions), then one big-endian
    uint32 per dimension; the body holds the elements in row-major order.
    """
    path = Path(path)
    raw = _read_bytes(path)
    if len(raw) < 4:
        raise IDXFormatError(_("{path}: only {size} bytes, too short for an IDX header (4 bytes or more).").format(
            path=path, size=len(raw)))
    zero, type_code, ndim = struct.unpack(">HBB", raw[:4])
    if zero != 0 or type_code not in _IDX_DTYPES or ndim == 0:
        raise IDXFormatError(_(
            "{path}: bad magic number 0x{magic} (an IDX file starts with 00 00, a type code "
            "such as 08 for uint8, and its number of dimensions). This is not an IDX file, or it was "
            "read without decompressing it."
        ).format(path=path, magic=raw[:4].hex()))
    header_len = 4 + 4 * ndim
    if len(raw) < header_len:
        raise IDXFormatError(_("{path}: header says {ndim} dimensions, but the file ends inside the header.").format(
            path=path, ndim=ndim))
    dims = struct.unpack(f">{ndim}I", raw[4:header_len])
    if expected_ndim is not None and ndim != expected_ndim:
        kinds = {1: _("a label file (1 dimension)"), 3: _("an image file (3 dimensions)")}
        dimensions = _("{ndim} dimensions")
        raise IDXFormatError(_("{path}: expected {expected}, found {found}. Did you swap the images and labels files?").format(
            path=path, expected=kinds.get(expected_ndim, dimensions.format(ndim=expected_ndim)),
            found=kinds.get(ndim, dimensions.format(ndim=ndim))))
    dtype, itemsize = _IDX_DTYPES[type_code]
    expected_bytes = math.prod(dims) * itemsize
    body = len(raw) - header_len
    if body != expected_bytes:
        cause = _("truncated: the file was cut short") if body < expected_bytes else _("it has extra bytes at the end")
        raise IDXFormatError(_(
            "{path}: header promises shape {shape} = {expected} bytes of data, the file holds "
            "{body} ({cause}). Delete it and fetch it again."
        ).format(path=path, shape=tuple(dims), expected=expected_bytes, body=body, cause=cause))
    if expected_bytes == 0:  # torch.frombuffer refuses count=0
        return torch.empty(dims, dtype=dtype)
    tensor = torch.frombuffer(bytearray(raw), dtype=torch.uint8, offset=header_len, count=expected_bytes)
    if itemsize > 1:  # multi-byte IDX elements are big-endian
        tensor = tensor.view(-1, itemsize).flip(-1).contiguous().view(dtype)
    return tensor.view(dims)


@course_answer
def load_images(path: str | Path) -> torch.Tensor:
    """Images as float32 in [0, 1], shape (N, rows*cols)."""
    images = read_idx(path, expected_ndim=3)  # (N, 28, 28) uint8
    return images.reshape(images.shape[0], -1).float() / 255.0  # (N, 784) float32


@course_answer
def load_labels(path: str | Path) -> torch.Tensor:
    """Labels as int64, shape (N,)."""
    return read_idx(path, expected_ndim=1).long()  # (N,) int64


def load_split(dataset: str = "mnist", split: str = "train", **fetch_kwargs) -> tuple[torch.Tensor, torch.Tensor]:
    """(images (N, 784) float32 in [0, 1], labels (N,) int64) for ``split`` 'train' or 'test'."""
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', not {split!r}")
    info = _info(dataset)
    images = load_images(fetch_file(dataset, info.filename(split, "images"), **fetch_kwargs))
    labels = load_labels(fetch_file(dataset, info.filename(split, "labels"), **fetch_kwargs))
    if images.shape[0] != labels.shape[0]:
        raise IDXFormatError(f"{dataset} {split}: {images.shape[0]} images but {labels.shape[0]} labels.")
    return images, labels


def describe_sources(dataset: str) -> str:
    """One line saying where ``dataset`` would be read from now, without downloading anything."""
    info = _info(dataset)
    folder = local_dir(dataset)
    if folder is not None and all((folder / name).is_file() for name in info.md5s):
        return _("{dataset}: local folder {folder} ({variable})").format(dataset=dataset, folder=folder,
                                                                         variable=info.env_var)
    cached = cache_root() / info.name
    if all((cached / name).is_file() for name in info.md5s):
        return _("{dataset}: cache {path}").format(dataset=dataset, path=cached)
    return _("{dataset}: not found locally; it will be downloaded on first use.").format(dataset=dataset) + "\n" + \
        _offline_help(info)
