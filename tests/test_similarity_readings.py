"""The readings the similarity report compares: the structure of code (what a copier's restructuring cannot change)
and written answers (stems, figures, the order of the argument). Unit tests: no class, no notebook."""

from __future__ import annotations

from autograder.classroom import code_structure as cs
from autograder.classroom import fingerprints as fps
from autograder.classroom import prose

ORIGINAL = '''
def smooth(losses, beta=0.9):
    """Bias-corrected moving average."""
    avg = 0.0
    out = []
    for t, loss in enumerate(losses, start=1):
        avg = beta * avg + (1 - beta) * float(loss)
        out.append(avg / (1 - beta ** t))
    return out


def flagged(rows, limit):
    keep = []
    for r in rows:
        if r.sum() > limit:
            keep.append(r * 2)
    scale = rows.abs().max()
    total = rows.sum(dim=0)
    return torch.stack(keep) / scale, total
'''

# The same program after a copier's restructuring: statements swapped, functions moved, the loop a comprehension,
# a helper of their own (and one method helper), names and comments and strings changed.
RESTRUCTURED = '''
def _mix(a, b, x):
    return b * a + (1 - b) * float(x)


def flagged(data, lim):
    # rows above the limit, doubled
    total = data.sum(dim=0)
    scale = data.abs().max()
    return torch.stack([v * 2 for v in data if v.sum() > lim]) / scale, total


def smooth(curve, b=0.9):
    """EMA (my version)."""
    res = []
    m = 0.0
    for step, val in enumerate(curve, start=1):
        m = _mix(m, b, val)
        res += [m / (1 - b ** step)]   # de-biased
    return res
'''

KEEP = frozenset({"smooth", "flagged"})


def kinds(source: str) -> list[str]:
    return cs.structure_tokens(source, KEEP).kinds


def test_restructuring_leaves_the_structure_as_it_was():
    assert kinds(RESTRUCTURED) == kinds(ORIGINAL)
    # ... where the tokens lose most of their matches (which is why both readings are kept)
    a, b = (set(fps.kgram_hashes(fps.code_tokens(s), fps.K_CODE).tolist()) for s in (ORIGINAL, RESTRUCTURED))
    assert len(a & b) < 0.5 * len(a)


def test_what_the_program_does_still_tells_answers_apart():
    assert kinds(ORIGINAL.replace("torch.stack(keep)", "torch.cat(keep)")) != kinds(ORIGINAL)
    assert kinds(ORIGINAL.replace("r.sum() > limit", "r.sum() < limit")) != kinds(ORIGINAL)
    assert kinds(ORIGINAL.replace("1 - beta", "beta - 1")) != kinds(ORIGINAL)  # operand order is kept
    # dependent statements keep their order: the loop must come after what it reads
    swapped = ORIGINAL.replace("    avg = 0.0\n    out = []\n", "    out = []\n    avg = 0.0\n")
    assert kinds(swapped) == kinds(ORIGINAL)


def test_the_lessons_functions_are_never_inlined_away():
    two = "def helper(x):\n    return x * 2\n\ndef api(y):\n    return helper(y) + 1\n"
    assert kinds(two)[:1] == ["def"] and kinds(two).count("def") == 1  # helper inlined, then dropped
    kept = cs.structure_tokens(two, frozenset({"helper", "api"})).kinds
    assert kept.count("def") == 2


def test_method_helpers_and_tuple_returns_are_inlined():
    plain = ("class Net(nn.Module):\n    def forward(self, x):\n        h = self.fc(x)\n        h = torch.relu(h)\n"
             "        a, b = h.mean(), h.std()\n        return (h - a) / b\n")
    helped = ("class Net(nn.Module):\n    def _stats(self, t):\n        m, s = t.mean(), t.std()\n        return m, s\n\n"
              "    def forward(self, x):\n        h = torch.relu(self.fc(x))\n        a, b = self._stats(h)\n"
              "        return (h - a) / b\n")
    nested = plain.replace("        h = self.fc(x)\n        h = torch.relu(h)\n", "        h = torch.relu(self.fc(x))\n")
    assert cs.structure_tokens(helped, frozenset({"Net", "forward"})).kinds == \
        cs.structure_tokens(nested, frozenset({"Net", "forward"})).kinds


def test_comments_and_their_language_never_count():
    """The Portuguese edition has the same code cells with translated comments (and strings)."""
    translated = ORIGINAL.replace('"""Bias-corrected moving average."""', '"""Média móvel corrigida."""') \
        .replace("    avg = 0.0\n", "    avg = 0.0  # média acumulada, começa em zero\n")
    assert kinds(translated) == kinds(ORIGINAL)
    assert fps.code_tokens(translated).kinds == fps.code_tokens(ORIGINAL).kinds


def test_code_that_does_not_parse_has_no_structure_and_magics_are_skipped():
    assert cs.structure_tokens("def f(:\n    pass\n").kinds == []
    assert kinds("%timeit f(1)\n" + ORIGINAL) == kinds(ORIGINAL)
    deep = "x = " + "(" * 400 + "1" + ")" * 400 + "\n"
    assert cs.structure_tokens(deep).kinds in ([], ["=", "V", "1"])  # never an error, whatever the nesting


def test_each_token_points_into_the_answer_as_handed_in():
    tokens = cs.structure_tokens(RESTRUCTURED, KEEP)
    for kind, (start, end) in zip(tokens.kinds, tokens.spans):
        assert 0 <= start <= end <= len(RESTRUCTURED)
    text = "x = 'é' + names\n"
    tokens = cs.structure_tokens(text)
    assert [text[s:e] for s, e in tokens.spans][-1] == "names"  # columns counted in characters, not bytes


def test_figures_are_kept_as_written():
    text = "Adam reached 97.92% and SGD 97.20 %, a gap of 0.72 points after 10 epochs (1e-3, 6.6E-4, 1,000 and 95,8)."
    assert prose.figures(text).kinds == ["97.92", "97.20", "0.72", "6.6e-4", "1,000", "95.8"]
    assert prose.figures("atingiu 96,35% e 0,0066 com 1.000 imagens").kinds == ["96.35", "0.0066", "1.000"]
    assert prose.significant_digits("0.0050") == 2 and prose.significant_digits("300") == 1


def test_written_answers_are_stemmed_in_their_own_language():
    english = "The runs reached the lowest losses when the rates were rising"
    portuguese = "As execuções atingiram as menores perdas quando as taxas estavam subindo"
    assert prose.language(english) == "english" and prose.language(portuguese) == "portuguese"
    assert prose.stems("The model reaches it").kinds == prose.stems("the models reached").kinds == ["model", "reach"]
    assert "the" not in prose.stems(english).kinds and "as" not in prose.stems(portuguese).kinds
    assert prose.stems("taxas de aprendizado").kinds == prose.stems("taxa de aprendizado").kinds


def test_the_argument_is_the_order_of_its_points():
    a = prose.argument("Adam reached 97.92 then SGD reached 97.20 later.").kinds
    b = prose.argument("SGD reached 97.20 later then Adam reached 97.92.").kinds
    assert "adam>reach" in a and "adam>reach" in b and "97.92>sgd" in a and "97.92>sgd" not in b


def test_helpers_that_multiply_stop_at_a_budget():
    """A hostile answer: each helper calls the one before eight times. Inlining all of it would make billions of
    nodes; the reading stops adding at its budget and still returns, quickly."""
    lines = ["def h0(x):\n    return x + 1\n"]
    for i in range(1, 12):
        calls = " + ".join(f"h{i - 1}(x)" for _ in range(8))
        lines.append(f"def h{i}(x):\n    return {calls}\n")
    lines.append("def answer(x):\n    return h11(x)\n")
    tokens = cs.structure_tokens("\n".join(lines), frozenset({"answer"}))
    assert 0 < len(tokens) < 50 * cs.MAX_INLINED


def test_a_figure_in_either_notation_is_the_same_given_out_figure():
    assert prose.figures(prose.other_notation("reached 95.8% on 10,000 images")).kinds == ["95.8", "10.000"]
