"""The similarity report (python -m autograder similarity): copies rank first, honest students are not accused,
short and common answers accuse nobody, a broken class completes, and the report runs nothing a student wrote."""

from __future__ import annotations

import csv
import html.parser
import os
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest

from autograder import cli
from autograder.classroom import fingerprints as fps
from autograder.classroom import similarity as sim
from autograder.core import course, notebooks
from autograder.grading import assignment
from submission_factory import student_copy
from synthetic_class import build, notebook

# Seeds of classes used nowhere else: the thresholds were chosen on other seeds (bench/similarity_scale.py's
# results name the seeds they measured on, and those differ too).
SEED = 20261205
LONG = ("06_data", "08_mnist_mlp")  # answers long enough for a copy to stand out
WRITTEN = "ex2_lr_finder"            # code and a written answer


def _read(folder: Path, assignment: str) -> sim.ClassAnswers:
    return sim.read_class(folder, assignment, sorted(p.name for p in folder.iterdir()))


# --- fingerprints --------------------------------------------------------------------------------------------


ANSWER = '''def smooth(losses, beta=0.9):
    """Exponential moving average, bias-corrected."""
    values, out, avg = torch.as_tensor(losses).flatten(), [], 0.0
    for t, v in enumerate(values, start=1):
        avg = beta * avg + (1 - beta) * v   # running mean
        out.append(avg / (1 - beta ** t))
    return torch.stack(out).tolist() if out else []
'''


HIDDEN = '''def smooth(curve, b=0.9):

    # my own EMA
    """Smoothed curve."""
    vals, res, m = torch.as_tensor(curve).flatten(), [], 0.0


    for step, val in enumerate(vals,
                               start=1):
        m = b * m + (1 - b) * val
        res.append(m / (1 - b ** step))   # debiased
    return torch.stack(res).tolist() if res else []
'''


def test_renames_comments_layout_and_strings_leave_the_tokens_alone():
    assert fps.code_tokens(HIDDEN).kinds == fps.code_tokens(ANSWER).kinds
    # The API an answer uses is not a name the student chose: another spelling is another answer.
    other = ANSWER.replace("torch.stack(out)", "torch.cat(out)")
    assert fps.code_tokens(other).kinds != fps.code_tokens(ANSWER).kinds


def test_reordered_functions_keep_most_fingerprints():
    helper = "def helper(x):\n    return x.flatten().cumsum(dim=0) / torch.arange(1, len(x) + 1)\n"
    two, swapped = ANSWER + "\n\n" + helper, helper + "\n\n" + ANSWER
    a, b = (fps.fingerprint(fps.code_tokens(t), fps.K_CODE, fps.WINDOW_CODE, fps.boilerplate([], fps.K_CODE))
            for t in (two, swapped))
    assert len(set(a.unique()) & set(b.unique())) >= 0.8 * len(a.unique())


def test_what_the_course_gave_out_is_never_the_students_own():
    given = sim.given_out(assignment.load("05_training_loop"), sim.CODE)
    lesson = notebooks.read(course.lesson_notebook("05_training_loop"))
    stubs = [c.source for c in lesson.cells if notebooks.is_solution_cell(c)]
    for stub in stubs:
        assert fps.fingerprint(fps.code_tokens(stub), fps.K_CODE, fps.WINDOW_CODE, given).own == 0
    solution = student_copy("05_training_loop")
    answers = sim.answers_of(solution, sim.answer_cells(assignment.load("05_training_loop"), sim.CODE))
    own = fps.fingerprint(fps.code_tokens(answers["fit"]), fps.K_CODE, fps.WINDOW_CODE, given)
    assert 0 < own.own < len(own.tokens)  # the signature and docstring are the lesson's


def test_matched_stretches_cover_only_the_students_own_tokens():
    given = fps.boilerplate([fps.code_tokens("def smooth(losses, beta=0.9):\n    raise NotImplementedError()\n")],
                            fps.K_CODE)
    fp = fps.fingerprint(fps.code_tokens(ANSWER), fps.K_CODE, fps.WINDOW_CODE, given)
    count, spans = fps.matched(fp, fp.unique())
    assert 0 < count <= fp.own
    assert all(start >= ANSWER.index('"""') for start, _ in spans)  # the signature is not marked


# --- the synthetic class: copies first, honest students not accused -----------------------------------------

# The disguises the class tests hold the report to: a copy renamed, one reordered, one whose loops became
# comprehensions (and back), one with helpers of its own, one with all of these and renamed, and a ring of three.
RESTRUCTURED = ("renamed", "reordered", "loops", "helpers", "restructured-renamed", "ring")


@pytest.mark.parametrize("assignment", LONG)
def test_restructured_copies_rank_first_and_nobody_honest_is_listed(tmp_path, assignment):
    synthetic = build(tmp_path, assignment, honest=40, seed=SEED, copiers=RESTRUCTURED)
    comparison = sim.Comparison(_read(tmp_path, assignment), sim.CODE)
    planted = set(synthetic.planted())
    top = [frozenset((a, b)) for a, b, _ in comparison.ranked()[:len(planted)]]
    assert set(top) == planted, f"planted copies not on top: {comparison.ranked()[:len(planted) + 3]}"
    listed = comparison.listed()
    accused = [(p.a, p.b, round(p.score, 3)) for p in listed if frozenset((p.a, p.b)) not in planted]
    assert not accused, f"honest students listed: {accused}"
    assert {frozenset((p.a, p.b)) for p in listed} == planted
    for pair in listed:  # every listed pair says why, with the cells that agree and the reading that saw it
        assert len(pair.cells) >= sim.CODE.min_cells and " match" in pair.why()
        assert all(c.readings[0].name in ("tokens", "structure") for c in pair.cells)
    restructured = next(c for c, d in synthetic.disguise.items() if d == "restructured-renamed")
    pair = next(p for p in listed if restructured in (p.a, p.b))
    assert any(c.lead.name == "structure" for c in pair.cells), pair.why()  # the tokens alone lost it


def test_each_reading_finds_what_the_other_misses(tmp_path):
    """The structure finds the restructured copy that the tokens lose; the tokens the copy whose cells do not parse
    (where the structure has nothing to read)."""
    synthetic = build(tmp_path, "06_data", honest=30, seed=SEED + 5, copiers=("restructured-renamed", "renamed"))
    pairs = {synthetic.disguise[c]: frozenset((c, s)) for c, s in synthetic.copies.items()}
    restructured, renamed = pairs["restructured-renamed"], pairs["renamed"]
    copier = next(c for c, d in synthetic.disguise.items() if d == "renamed")
    path = tmp_path / copier / "06_data" / "06_data.ipynb"
    nb = notebooks.read(path)
    for cell in nb.cells:
        if notebooks.is_solution_cell(cell):
            cell.source += "\n)"  # a stray bracket at the end of every answer: nothing parses
    notebooks.write(nb, path)
    answers = _read(tmp_path, "06_data")
    assert not any(copier in by_student for by_student in answers.fingerprints["code"]["structure"].values())
    alone = {name: sim.Comparison(answers, replace(sim.CODE, combine=lambda by, n=name: by[n]))
             for name in ("tokens", "structure")}
    both = sim.Comparison(answers, sim.CODE)

    def listed(comparison):
        return {frozenset((p.a, p.b)) for p in comparison.listed()}

    assert restructured in listed(alone["structure"]) and restructured not in listed(alone["tokens"])
    assert renamed in listed(alone["tokens"]) and renamed not in listed(alone["structure"])
    assert {restructured, renamed} == listed(both)


def test_written_answers_with_synonyms_and_shared_figures_are_listed(tmp_path):
    synthetic = build(tmp_path, WRITTEN, honest=30, seed=SEED + 1, copiers=("restructured", "helpers", "renamed"))
    out = tmp_path / "out"
    sim.compare_assignment(tmp_path, WRITTEN, synthetic.students, out)
    rows = list(csv.DictReader((out / f"{WRITTEN}-written.csv").open(encoding="utf-8")))
    listed = {frozenset((r["student_a"], r["student_b"])): r["cells"] for r in rows if r["listed"] == "yes"}
    assert set(listed) == set(synthetic.planted()), rows[:5]
    swapped = next(frozenset(p) for p in synthetic.copies.items() if synthetic.disguise[p[0]] != "renamed")
    assert "figures match (" in listed[swapped] or "ordered pairs match" in listed[swapped], listed[swapped]
    # the page shows the pairs below the line too, marked so
    page = (out / f"{WRITTEN}.html").read_text(encoding="utf-8")
    assert "below the line" in page and page.count("<b>listed</b>") >= len(listed)


def test_pairs_below_the_line_are_shown_and_the_line_can_move(tmp_path):
    """A copy with its longest cell taken from someone else falls under the conservative line: the page and the CSV
    still show it among the class's top pairs, not listed; --threshold lists it, --top shows more pairs."""
    submitted = tmp_path / "submitted"
    synthetic = build(submitted, "08_mnist_mlp", honest=24, seed=SEED + 6, copiers=())
    source, other = synthetic.honest[:2]  # the copier takes source's notebook, and other's answer to load-idx
    nb = notebooks.read(submitted / source / "08_mnist_mlp" / "08_mnist_mlp.ipynb")
    theirs = sim.answers_of(notebooks.read(submitted / other / "08_mnist_mlp" / "08_mnist_mlp.ipynb"), ["load-idx"])
    for cell in nb.cells:
        if notebooks.grading(cell).get("grade_id") == "load-idx":
            cell.source = theirs["load-idx"]
    notebooks.write(nb, submitted / "copier" / "08_mnist_mlp" / "08_mnist_mlp.ipynb")
    copy = frozenset((source, "copier"))

    def rows(*options):
        out = tmp_path / "-".join(options or ("default",))
        assert cli.main(["similarity", "08_mnist_mlp", "--submitted", str(submitted), "--out", str(out), *options]) == 0
        return list(csv.DictReader((out / "08_mnist_mlp.csv").open(encoding="utf-8"))), out

    default, out = rows()
    found = {frozenset((r["student_a"], r["student_b"])): r for r in default}
    assert copy in found and found[copy]["listed"] == "no" and float(found[copy]["score"]) < sim.CODE.threshold
    assert [r["listed"] for r in default].count("yes") == 0 and len(default) >= sim.TOP
    assert default == sorted(default, key=lambda r: -float(r["score"]))
    page = (out / "08_mnist_mlp.html").read_text(encoding="utf-8")
    assert "0 pair(s) listed" in page and "below the line" in page
    lowered, _ = rows("--threshold", f"{float(found[copy]['score']) - 0.01:.2f}")
    assert any(frozenset((r["student_a"], r["student_b"])) == copy and r["listed"] == "yes" for r in lowered)
    more, _ = rows("--top", "60")
    assert len(more) >= 60 > len(default)
    for bad in (["--threshold", "0"], ["--threshold", "1.5"], ["--written-threshold", "-1"], ["--top", "-2"]):
        with pytest.raises(SystemExit, match="threshold|--top"):
            cli.main(["similarity", "08_mnist_mlp", "--submitted", str(submitted), *bad])



def test_the_help_says_the_defaults_the_report_uses(capsys):
    with pytest.raises(SystemExit):
        cli.main(["similarity", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for default in (sim.TOP, f"{sim.CODE.threshold:g}", f"{sim.WRITTEN.threshold:g}"):
        assert f"default: {default}" in text, default


def test_what_the_lesson_gave_out_in_any_edition_is_nobodys(tmp_path, monkeypatch):
    """A Portuguese edition (lessons/pt_BR/NN/NN.ipynb: translated prose) gives out its own prose: two students
    who paste the same paragraph of it have written nothing of their own."""
    lessons = tmp_path / "lessons"
    lesson = notebooks.read(course.lesson_notebook(WRITTEN))
    notebooks.write(lesson, lessons / WRITTEN / f"{WRITTEN}.ipynb")
    paragraph = ("Nesta lição a taxa de aprendizado cresce a cada passo até a perda divergir, e a sugestão é a taxa do "
                 "menor valor da perda suavizada dividida por dez, como explicado acima com os números do gráfico. ")
    translated = notebooks.read(course.lesson_notebook(WRITTEN))
    translated.cells[0].source = paragraph * 2
    notebooks.write(translated, lessons / "pt_BR" / WRITTEN / f"{WRITTEN}.ipynb")
    monkeypatch.setattr(course, "LESSONS", lessons)
    task = assignment.load(WRITTEN)
    editions = sim.lesson_editions(task)
    assert len(editions) == 2
    for rep in sim.WRITTEN.representations:
        given = sim.given_out(task, sim.WRITTEN, rep, editions)
        fp = fps.fingerprint(rep.read(paragraph, frozenset()), rep.k, rep.window, given)
        assert fp.own == 0, rep.name
        alone = sim.given_out(task, sim.WRITTEN, rep, editions[:1])
        assert fps.fingerprint(rep.read(paragraph, frozenset()), rep.k, rep.window, alone).own > 0 or \
            rep.name == "figures", rep.name


def test_a_class_that_hands_in_one_answer_accuses_nobody(tmp_path):
    """Everyone wrote the same (the course's own solution): an answer the whole class shares is no evidence."""
    for student in ("ann", "bob", "cy", "dee", "eve", "fay"):
        target = tmp_path / student / "08_mnist_mlp"
        target.mkdir(parents=True)
        nbformat.write(student_copy("08_mnist_mlp"), str(target / "08_mnist_mlp.ipynb"))
    comparison = sim.Comparison(_read(tmp_path, "08_mnist_mlp"), sim.CODE)
    assert comparison.listed() == []
    assert comparison.score.max() < 0.1


def test_short_cells_and_common_idioms_accuse_nobody(tmp_path):
    """Two students share odd one-liners in every cell of lesson 01, and the rest of the class writes the common
    idiom: the one-liners are too short to count, whatever their rarity."""
    bodies = {"make-grid": "return torch.arange(0., rows * cols).view(rows, -1).clone()",
              "rows-mean-above": "return x[(x.sum(1) / x.size(1)).gt(threshold)]",
              "flatten-images": "return images.flatten(1).contiguous().clone()",
              "channels-last": "return images.movedim(1, -1).contiguous().clone()"}
    lesson = notebooks.read(course.lesson_notebook("01_tensors"))
    stubs = {notebooks.grading(c).get("grade_id"): c.source for c in lesson.cells}
    odd = {gid: stubs[gid].replace("# YOUR CODE HERE\n    raise NotImplementedError()", body) for gid, body in bodies.items()}
    assert all(body in odd[gid] for gid, body in bodies.items())
    for student in ("pat", "sam"):
        target = tmp_path / student / "01_tensors"
        target.mkdir(parents=True)
        nbformat.write(notebook("01_tensors", odd), str(target / "01_tensors.ipynb"))
    for student in ("al", "bo", "cid", "dot", "ed", "flo", "gus", "hal"):
        target = tmp_path / student / "01_tensors"
        target.mkdir(parents=True)
        nbformat.write(student_copy("01_tensors"), str(target / "01_tensors.ipynb"))
    comparison = sim.Comparison(_read(tmp_path, "01_tensors"), sim.CODE)
    assert comparison.listed() == []


# --- a broken class completes ------------------------------------------------------------------------------


def test_a_class_with_broken_notebooks_completes_and_lists_what_it_skipped(tmp_path, capsys):
    submitted = tmp_path / "submitted"
    build(submitted, "06_data", honest=4, seed=SEED + 2, copiers=("renamed",))

    def folder(student):
        target = submitted / student / "06_data"
        target.mkdir(parents=True)
        return target / "06_data.ipynb"

    folder("blank").write_text(nbformat.writes(notebooks.read(course.lesson_notebook("06_data"))), encoding="utf-8")
    folder("garbled").write_text('{"cells": [', encoding="utf-8")
    folder("not-a-notebook").write_text('{"hello": "world"}', encoding="utf-8")
    folder("binary").write_bytes(b"\xff\xfe\x00 not text")
    folder("linked").symlink_to(submitted / "blank" / "06_data" / "06_data.ipynb")
    (submitted / "nothing-inside" / "06_data").mkdir(parents=True)
    (submitted / "other-work" / "01_tensors").mkdir(parents=True)
    (submitted / "bad name <b>").mkdir()
    odd = folder("odd-cells")
    nb = notebooks.read(course.lesson_notebook("06_data"))
    nb.cells[0]["source"] = ["a list ", "of lines"]
    for cell in nb.cells:
        cell.get("metadata", {}).pop("nbgrader", None)  # another editor dropped nbgrader's metadata
    odd.write_text(nbformat.writes(nb), encoding="utf-8")

    out = tmp_path / "similarity"
    assert cli.main(["similarity", "06_data", "--submitted", str(submitted), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "\r" not in printed and "06_data:" in printed  # plain lines when not on a terminal
    page = (out / "06_data.html").read_text(encoding="utf-8")
    for student in ("blank", "garbled", "not-a-notebook", "binary", "linked", "nothing-inside", "other-work",
                    "odd-cells"):
        assert f"<td>{student}</td>" in page, student
    assert "symbolic link" in page and "not valid JSON" in page and "no answer of its own" in page
    assert "bad name &lt;b&gt;" in page and "bad name <b>" not in page
    rows = list(csv.DictReader((out / "06_data.csv").open(encoding="utf-8")))
    assert [r["listed"] for r in rows].count("yes") == 1 and list(rows[0]) == sim.CSV_COLUMNS


def test_the_command_wants_assignments_or_all(tmp_path):
    with pytest.raises(SystemExit, match="--all"):
        cli.main(["similarity", "--submitted", str(tmp_path)])
    with pytest.raises(SystemExit, match="not a folder"):
        cli.main(["similarity", "--all", "--submitted", str(tmp_path / "none")])


def test_csv_fields_cannot_start_a_formula(tmp_path):
    reading = sim.Reading("tokens", "tokens", 30, 40, 0, 0.9)
    pair = sim.Pair("=HYPERLINK(1)", "+b", 0.9, [sim.CellMatch("-cell", 10, 0.9, [reading])], [])
    sim.write_csv(tmp_path / "x.csv", [pair])
    row = list(csv.reader((tmp_path / "x.csv").open(encoding="utf-8")))[1]
    assert row[0] == "'=HYPERLINK(1)" and row[1] == "'+b" and row[4].startswith("'-cell")


# --- the report is inert -----------------------------------------------------------------------------------

HOSTILE_CODE = ('def smooth(losses, beta=0.9):\n'
                '    """</pre><script>window.__pwned = 1</script><img src=x onerror="window.__pwned=2">"""\n'
                '    note = "<svg onload=window.__pwned=3><a href=\'javascript:window.__pwned=4\'>x</a></svg>"\n'
                '    # <iframe src="javascript:alert(1)"></iframe> <!-- -->  ]]> <style>body{display:none}</style>\n'
                '    values, out, avg = torch.as_tensor(losses, dtype=torch.float64).flatten(), [], 0.0\n'
                '    for t, v in enumerate(values, start=1):\n'
                '        avg = beta * avg + (1 - beta) * v\n'
                '        out.append(avg / (1 - beta ** t))\n'
                '    return torch.stack(out).tolist() if len(note) and out else []\n')
HOSTILE_TEXT = ('<script>window.__pwned = 5</script> <img src=x onerror=window.__pwned=6> '
                '[link](javascript:window.__pwned=7) <svg><script>window.__pwned=8</script></svg> '
                '<meta http-equiv="refresh" content="0;url=javascript:window.__pwned=9"> ') * 3


class _Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.attributes = set(), []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attributes += [(tag, name, value) for name, value in attrs]


def _hostile_report(tmp_path) -> Path:
    """Two students who copied each other's hostile answers (so both are shown), in a small honest class."""
    submitted = tmp_path / "submitted"
    build(submitted, WRITTEN, honest=6, seed=SEED + 3, copiers=())
    for student in ("mallory", "trudy"):
        nb = student_copy(WRITTEN, replace={"smooth": HOSTILE_CODE, "lr-choice-written": HOSTILE_TEXT})
        target = submitted / student / WRITTEN
        target.mkdir(parents=True)
        nbformat.write(nb, str(target / f"{WRITTEN}.ipynb"))
    (submitted / "<img src=x onerror=window.__pwned=10>").mkdir()  # not a student id: listed as skipped
    out = tmp_path / "out"
    outcome = sim.compare_assignment(submitted, WRITTEN, sorted(p.name for p in submitted.iterdir()), out)
    assert {("mallory", "trudy")} <= {(p.a, p.b) for pairs in outcome.listed.values() for p in pairs}
    return out / f"{WRITTEN}.html"


def test_the_report_shows_hostile_answers_as_text(tmp_path):
    page_path = _hostile_report(tmp_path)
    page = page_path.read_text(encoding="utf-8")
    assert "mallory" in page and "window.__pwned = 1" in page  # the hostile answer is shown...
    parsed = _Tags()
    parsed.feed(page)
    # ... as text: only the report's own tags and attributes, no script, handler, frame or foreign link.
    assert parsed.tags <= {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "h4", "p", "table",
                           "tr", "th", "td", "a", "section", "div", "b", "pre", "mark", "span"}, parsed.tags
    for tag, name, value in parsed.attributes:
        assert not name.startswith("on"), (tag, name)
        if name == "href":
            assert value.startswith("#"), value
    assert "default-src 'none'; style-src 'unsafe-inline'" in page and "<script" not in page
    assert "window.__pwned = 5" in page  # the written answer is shown too, as text


@pytest.mark.browser
def test_no_student_script_runs_in_a_browser(tmp_path):
    from browser_lab import CHROMIUM_ARGS, browser_missing, chromium

    missing = browser_missing()
    if missing:
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    page_path = _hostile_report(tmp_path)
    requests, dialogs = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.on("request", lambda r: requests.append(r.url))
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(page_path.as_uri())
            page.wait_for_timeout(500)
            assert page.evaluate("typeof window.__pwned") == "undefined"
            assert "window.__pwned = 1" in page.inner_text("body")  # the answer is there, as text
        finally:
            browser.close()
    assert not dialogs
    assert requests == [page_path.as_uri()], requests  # the page fetched nothing


def test_the_default_folders_are_nbgraders(tmp_path, monkeypatch):
    """`submitted/` in, `similarity/` out, as an instructor runs it from the course folder."""
    monkeypatch.chdir(tmp_path)
    build(tmp_path / "submitted", "06_data", honest=3, seed=SEED + 4, copiers=())
    assert cli.main(["similarity", "--all"]) == 0
    assert sorted(os.listdir(tmp_path / "similarity")) == ["06_data.csv", "06_data.html"]


def test_a_lower_line_lowers_what_a_cell_needs_to_agree():
    code, written = sim.Options(threshold=0.4, written_threshold=0.3).tracks()
    assert (code.threshold, code.agree, written.threshold, written.agree) == (0.4, 0.4, 0.3, 0.3)
    assert sim.Options().tracks() == (sim.CODE, sim.WRITTEN)
