"""Fingerprints of an answer: what a student wrote, reduced to what copying does not change.

Code is read as Python tokens by Pygments' lexer, which reads any text (a cell that does not parse, an IPython
magic) without failing. Comments, blank lines and layout are dropped; every string literal (docstrings included)
becomes one token ``S``; every plain name becomes ``V`` (a variable, a parameter, a function), and so does an
attribute the cell itself sets or defines (``self.hidden = ...``). What stays as written is what a copier cannot
rename without breaking the code, and where honest answers differ: keywords, operators, numbers, built-ins and the
attributes the answer uses (``.reshape`` or ``.view``, ``torch.stack`` or ``torch.cat``). Renamed variables,
changed comments, blank lines and changed string literals therefore leave the tokens as they were.

The other readings (code_structure.py for code's structure, prose.py for written answers) make ``Tokens`` too.

Whatever the reading, every run of ``k`` consecutive tokens is hashed (a stable hash: the same text gives the same
fingerprints in every run), the hashes are winnowed (MOSS's algorithm, from the copydetect library: the smallest
hash of every window of ``window`` hashes is kept, which guarantees that any match of ``k + window - 1`` tokens
or more is found), and the hashes found in what the course gave out (the boilerplate: the lesson's cells, their
stubs, the code in the instructions) are removed. Pygments and copydetect are used rather than copydetect's own
tokenizer because that one renames every name, ``torch.stack`` included, and hashes with Python's ``hash()``,
which changes from one process to the next (docs/similarity.md says more).
"""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from pygments.lexers.python import PythonLexer
from pygments.token import Comment, Name, String, Text

K_CODE = 10     # tokens per k-gram in code: a little under a line
WINDOW_CODE = 4  # so any shared run of 13 tokens or more is found
K_STRUCTURE = 12     # structure tokens per k-gram (code_structure.py): about a line
WINDOW_STRUCTURE = 4
K_TEXT = 4      # stems per k-gram in a written answer (function words left out: about six words)
WINDOW_TEXT = 2
_HASH_BITS = 52  # copydetect's winnowing compares hashes as float64, exact up to 2**53
_BASE = np.uint64(1_000_003)

_STORED_ATTRIBUTE = re.compile(r"\.\s*([A-Za-z_]\w*)\s*=(?!=)")
_DEFINED = re.compile(r"\b(?:def|class)\s+([A-Za-z_]\w*)")


@dataclass
class Tokens:
    """A text read as tokens: ``kinds`` the normalised tokens, ``spans`` where each stands in ``text``."""
    text: str
    kinds: list[str]
    spans: list[tuple[int, int]]

    def __len__(self) -> int:
        return len(self.kinds)


@dataclass
class Fingerprint:
    """One answer's fingerprints, less the boilerplate's: ``hashes`` (winnowed, as many as selected) with the token
    index where each k-gram starts (``positions``); ``mine`` marks the tokens that no k-gram of the boilerplate
    covers, what the student wrote; ``k`` the tokens per k-gram."""
    tokens: Tokens
    hashes: np.ndarray
    positions: np.ndarray
    mine: np.ndarray
    k: int

    @property
    def own(self) -> int:
        """The length of the answer after the boilerplate, in tokens."""
        return int(self.mine.sum())

    def unique(self) -> np.ndarray:
        """The distinct hashes, sorted (computed once: every pair of the class asks)."""
        found = self.__dict__.get("_unique")
        if found is None:
            found = self.__dict__["_unique"] = np.unique(self.hashes)
        return found


def member(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """Which of ``values`` are in ``sorted_set`` (sorted, unique): ``np.isin``, by binary search."""
    if not len(sorted_set):
        return np.zeros(len(values), dtype=bool)
    at = np.minimum(np.searchsorted(sorted_set, values), len(sorted_set) - 1)
    return sorted_set[at] == values


def _own_names(source: str) -> set[str]:
    """Attributes the code sets or defines itself (``self.fc = ...``, a method): names a copier may rename."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set(_STORED_ATTRIBUTE.findall(source)) | set(_DEFINED.findall(source))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
    return found


def code_tokens(source: str) -> Tokens:
    """``source`` as normalised Python tokens (see the module's docstring)."""
    own_attributes = _own_names(source)
    kinds: list[str] = []
    spans: list[tuple[int, int]] = []
    for start, kind, value in PythonLexer().get_tokens_unprocessed(source):
        if kind in Comment or kind in Text or not value.strip():
            continue
        end = start + len(value)
        if kind in String:
            if kinds and kinds[-1] == "S":  # one literal in several pieces (quotes, escapes, implicit concatenation)
                spans[-1] = (spans[-1][0], end)
                continue
            kinds.append("S")
        elif kind in Name.Builtin or kind in Name.Exception or kind in Name.Decorator or kind in Name.Namespace:
            kinds.append(value)
        elif kind in Name:
            after_dot = bool(kinds) and kinds[-1] == "."
            kinds.append(value if after_dot and value not in own_attributes else "V")
        else:
            kinds.append(value)
        spans.append((start, end))
    return Tokens(source, kinds, spans)


@lru_cache(maxsize=1 << 16)
def _token_hash(kind: str) -> int:
    return int.from_bytes(hashlib.blake2b(kind.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")


def kgram_hashes(tokens: Tokens, k: int) -> np.ndarray:
    """A stable hash of every ``k`` consecutive tokens (int64, below 2**52); empty when there are fewer than k."""
    n = len(tokens) - k + 1
    if n <= 0:
        return np.zeros(0, dtype=np.int64)
    values = np.array([_token_hash(kind) for kind in tokens.kinds], dtype=np.uint64)
    hashes = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):  # arithmetic modulo 2**64 on purpose
        for offset in range(k):
            hashes = hashes * _BASE + values[offset:offset + n]
    return (hashes >> np.uint64(64 - _HASH_BITS)).astype(np.int64)


def boilerplate(tokenized: list[Tokens], k: int) -> np.ndarray:
    """The k-gram hashes of what the course gave out (sorted, unique)."""
    found = [kgram_hashes(t, k) for t in tokenized]
    return np.unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)


def fingerprint(tokens: Tokens, k: int, window: int, given: np.ndarray) -> Fingerprint:
    """The winnowed fingerprints of ``tokens`` that are not in ``given`` (the boilerplate's hashes)."""
    from copydetect.utils import winnow

    hashes = kgram_hashes(tokens, k)
    if not len(hashes):
        return Fingerprint(tokens, hashes, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool), k)
    in_given = member(hashes, given)
    covered = np.zeros(len(tokens), dtype=bool)
    for start in np.flatnonzero(in_given):
        covered[start:start + k] = True
    selected, positions = winnow(hashes, window, remove_duplicates=False)
    keep = ~member(selected, given)
    return Fingerprint(tokens, selected[keep].astype(np.int64), positions[keep].astype(np.int64), ~covered, k)


def matched(fp: Fingerprint, shared: np.ndarray) -> tuple[int, list[tuple[int, int]]]:
    """How many of ``fp``'s own tokens lie in k-grams whose hash is in ``shared``, and those stretches as character
    spans of its text (merged where they touch), for marking in the report."""
    from copydetect.utils import get_copied_slices

    positions = fp.positions[member(fp.hashes, shared)]
    if not len(positions):
        return 0, []
    starts, ends = get_copied_slices(positions, fp.k)
    inside = np.zeros(len(fp.tokens), dtype=bool)
    for start, end in zip(starts.tolist(), ends.tolist()):
        inside[start:end] = True
    inside &= fp.mine  # the boilerplate around a match is not the student's, so it is not marked
    spans = fp.tokens.spans
    found: list[tuple[int, int]] = []
    for t in np.flatnonzero(inside).tolist():
        start, end = spans[t]
        if found and inside[t - 1] and found[-1][0] <= start:  # the next token in the text: one stretch
            found[-1] = (found[-1][0], max(found[-1][1], end))
        else:  # a new stretch (a reading that reorders, as the structure does, may jump back)
            found.append((start, end))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(found):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        elif end > start:
            merged.append((start, end))
    return int(inside.sum()), merged
