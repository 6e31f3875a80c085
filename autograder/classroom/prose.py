"""How a written answer is read for comparison: its words, their stems, the figures it quotes, and the order of its
points.

Students write in English or, with the Portuguese edition of the course, in Brazilian Portuguese. Each answer is
stemmed in its own language (Snowball's stemmers, through the snowballstemmer package: maintained, pure Python,
and faster still where PyStemmer is installed), the language guessed from its most common short words; an answer in
one language is compared with one in the other as it is (they share little but their figures).

- **stems**: the words with the language's function words left out, each cut to its stem (``reached``, ``reaches``
  and ``reaching`` are one stem): shingles of these are the answer's phrases, and the stems one by one its terms;
- **figures**: the numbers it quotes, exactly as written (``95.8``, ``6.6e-4``, ``1,000``; a trailing ``%`` is
  dropped, ``E`` is ``e``, a decimal comma is a point: ``95,8`` is ``95.8``), when they have at least two significant digits: a measured figure, not a count of
  epochs. ``95.8`` and ``95.80`` are two figures: the digits a student writes are part of what they measured;
- **argument**: the order of its points, as ordered pairs of nearby stems and figures (``a`` before ``b``, at most
  ``ORDER_SPAN`` places apart): a copy that swaps words keeps many of these pairs, two answers that share words but
  not their order do not.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .fingerprints import Tokens

ORDER_SPAN = 3
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_DECIMAL_COMMA = re.compile(r"^(-?\d+),(\d{1,2}|\d{4,})(?=e|$)")   # one comma, not three digits after it
_FIGURE = re.compile(r"(?<![\w.,])[-+−]?\d+(?:[.,]\d+)*(?:[eE][-+−]?\d+)?%?")
_FUNCTION_WORDS = {
    "english": set("""a about above after again against all also am an and any are as at be because been before being
        below between both but by can could did do does doing down during each few for from further had has have having
        he her here hers him his how i if in into is it its itself just me more most my no nor not now of off on once
        only or other our ours out over own same she should so some such than that the their theirs them then there
        these they this those through to too under until up very was we were what when where which while who whom why
        will with would you your yours one two""".split()),
    "portuguese": set("""a ao aos as às até com como da das de dela dele deles depois do dos e é ela elas ele eles em
        entre era essa esse esta está estão este eu foi foram há isso isto já lhe mais mas me mesmo meu minha muito na
        nas não nem no nos nós num numa o os ou para pela pelas pelo pelos por qual quando que quem se sem ser seu sua
        são só também te tem têm um uma umas uns você vocês foi seria ter sobre cada dois duas""".split()),
}


@lru_cache(maxsize=2)
def _stemmer(language: str):
    import snowballstemmer

    return snowballstemmer.stemmer(language)


@lru_cache(maxsize=1 << 16)
def _stem(language: str, word: str) -> str:
    return _stemmer(language).stemWord(word)


def language(text: str) -> str:
    """"english" or "portuguese": the language whose function words the text uses most (English when tied)."""
    words = [w.lower() for w in _WORD.findall(text)]
    counts = {name: sum(w in found for w in words) for name, found in _FUNCTION_WORDS.items()}
    return "portuguese" if counts["portuguese"] > counts["english"] else "english"


def stems(text: str) -> Tokens:
    """The answer's words less its language's function words, as stems, with where each word stands."""
    lang = language(text)
    skip = _FUNCTION_WORDS[lang]
    kinds, spans = [], []
    for m in _WORD.finditer(text):
        word = m.group().lower()
        if word not in skip and len(word) > 1:
            kinds.append(_stem(lang, word))
            spans.append(m.span())
    return Tokens(text, kinds, spans)


def significant_digits(figure: str) -> int:
    mantissa = re.split(r"[eE]", figure)[0]
    digits = re.sub(r"\D", "", mantissa).lstrip("0")
    if not re.search(r"[.,]\d", mantissa):  # a whole number: its trailing zeros are not measured
        digits = digits.rstrip("0")
    return len(digits)


def figures(text: str) -> Tokens:
    """The measured figures the answer quotes, as written (see the module's docstring)."""
    kinds, spans = [], []
    for m in _FIGURE.finditer(text):
        figure = m.group().rstrip("%").lstrip("+").replace("−", "-").lower()  # 6.6E-4 is 6.6e-4
        figure = _DECIMAL_COMMA.sub(r"\1.\2", figure)  # 95,8 is 95.8 (1,000 stays: a thousands comma)
        if significant_digits(figure) >= 2:
            kinds.append(figure)
            spans.append(m.span())
    return Tokens(text, kinds, spans)


def other_notation(text: str) -> str:
    """``text`` with its decimal points and commas swapped: ``95.8`` and ``1,000`` as a Brazilian writes them
    (``95,8``, ``1.000``), and back. The figures a lesson prints are given out in both notations."""
    return text.translate(_SWAPPED)


_SWAPPED = str.maketrans({".": ",", ",": "."})


def argument(text: str) -> Tokens:
    """The order of the answer's points: every ordered pair of stems or figures at most ``ORDER_SPAN`` apart."""
    points = stems(text)
    numbers = figures(text)
    merged = sorted(zip(points.spans + numbers.spans, points.kinds + numbers.kinds))
    kinds, spans = [], []
    for i, (span, kind) in enumerate(merged):
        for later_span, later in merged[i + 1:i + 1 + ORDER_SPAN]:
            if later != kind:
                kinds.append(f"{kind}>{later}")
                spans.append((span[0], later_span[1]))
    return Tokens(text, kinds, spans)
