"""The editions (issue 41, docs/translations/README.md): catalogs made from the English and merged as it changes,
lessons and documents made from them, the course's words in the student's language. No notebook runs here.

- what a translator gets: markdown by block, comments by token, the strings code hands to checks and hidden tests;
- a change to the English shows: the old translation goes fuzzy (with the old English beside it), the release shows
  the English with a marker, ``translations --check`` lists it, and a shipped catalog that is not complete fails here;
- every shipped edition is the English lesson with other words: the same cells, ids, metadata (nbval's tags
  included) and code, comments aside; and it is exactly what ``release`` makes from the catalogs;
- one assignment whichever edition: a complete and a one-mistake copy of every assignment, in English and as an
  edition, compose to the same program (what the kernel runs decides every score; tests/test_grading.py and
  tests/test_classroom.py grade editions end to end);
- the kernel, Validate and the feedback page speak the notebook's language, English where nothing is translated.
"""

from __future__ import annotations

import io
import json
import os
import tokenize
from pathlib import Path

import nbformat
import polib
import pytest

from autograder.authoring import catalogs, translate, units
from autograder.core import course, editions, notebooks
from autograder.grading import assignment, compose, feedback
from autograder.grading.rules import Words
from autograder.grading.verdicts import CellChecks, Check
from submission_factory import student_copy

i18n = editions.i18n()
SHIPPED = [(e.code, name) for e in editions.EDITIONS.values() for name in e.shipped_notebooks()]


# --- what a translator translates -------------------------------------------------------------------------------

def test_markdown_blocks_give_the_text_back_and_cut_where_a_reader_does():
    text = ("# Title\n\nA paragraph wrapped\nat 1998. on purpose.\n\n1. first item,\n   continued\n2. second\n\n"
            "| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\nx = 1  # a comment to translate\n```\n\n$$\nx^2\n$$\n\n> quoted\n> more")
    found = units.blocks(text)
    assert "\n".join(line for b in found for line in b.lines) == text
    kinds = [(b.kind, b.body) for b in found if b.kind != "blank"]
    assert kinds[:5] == [("heading", "Title"), ("paragraph", "A paragraph wrapped at 1998. on purpose."),
                         ("item", "first item, continued"), ("item", "second"), ("table", "| a | b |\n|---|---|\n| 1 | 2 |")]
    assert [k for k, _ in kinds[5:]] == ["code", "math", "quote"] and kinds[7][1] == "quoted more"
    assert [u.msgid for u in units.markdown_units(text, "x")][-2:] == ["a comment to translate", "quoted more"]


def test_every_markdown_of_the_course_splits_back_into_itself():
    texts = [c.source for name in course.assignments() for c in notebooks.read(course.lesson_notebook(name)).cells
             if c.cell_type == "markdown"] + [p.read_text(encoding="utf-8") for p in editions.DOCUMENTS.values()]
    for text in texts:
        assert "\n".join(line for b in units.blocks(text) for line in b.lines) == text


def test_only_comments_with_words_are_translated_and_code_stays_token_for_token():
    source = 's = "# not a comment"  # a real comment\nx = (1, 2)   # (2,)\ny = 3  # noqa: E501\n%timeit x\n'
    assert [c.text for c in units.comments(source)] == ["a real comment"]
    out = units.replace_comments(source, {"a real comment": "um comentário de verdade"}.get)
    assert out.startswith('s = "# not a comment"  # um comentário de verdade\n') and out.endswith("%timeit x\n")
    assert units.comments("def broken(:\n    # unreadable\n") == []


def test_the_strings_handed_to_checks_and_hidden_tests_are_found_computed_ones_are_not():
    visible = ('check_shape(x, (2, 3), name="make_grid(2, 3)", hint="swap nothing.")\n'
               'check(ok, "the loss must fall", "lower the rate.")\npassed("all fine here")\n'
               'check_close(a, b, name="the two channels of pixel (0, 0)", hint=f"computed {n}")\n')
    assert [(s.what, s.text) for s in units.code_strings(visible, hidden=False)] == [
        ("hint", "swap nothing."), ("message", "the loss must fall"), ("hint", "lower the rate."),
        ("message", "all fine here"), ("name", "the two channels of pixel (0, 0)")]
    hidden = ('hidden.same("mean_image of fresh images", f(x), hint="average over dim=0.")\nsame("x", 1, hint="no")\n'
              'tip = "use minlength."\nhidden.same("q", 1, hint="one count per class: " + tip)\n'
              'n = 3\nhidden.same("r", 1, hint=f"{n} rows")\n')
    assert [(s.context, s.text) for s in units.code_strings(hidden, hidden=True)] == [
        (units.HIDDEN_CONTEXT, "mean_image of fresh images"), (units.HIDDEN_CONTEXT, "average over dim=0."),
        (units.HIDDEN_CONTEXT, "one count per class: use minlength.")]


# --- catalogs follow the English --------------------------------------------------------------------------------

def _po(*entries: tuple[str, str]) -> polib.POFile:
    po = polib.POFile()
    for msgid, msgstr in entries:
        po.append(polib.POEntry(msgid=msgid, msgstr=msgstr))
    return po


def test_merge_keeps_translations_marks_changed_english_fuzzy_and_keeps_what_is_gone():
    old = _po(("The loss falls after each epoch.", "A perda cai a cada época."), ("Gone paragraph.", "Parágrafo que sumiu."),
              ("Same.", "Igual."))
    new_english = [units.Unit("The loss falls after every epoch."), units.Unit("Same."), units.Unit("Brand new.")]
    merged = catalogs.merge(old, new_english, "pt_BR", "x")
    current = {e.msgid: e for e in merged if not e.obsolete}
    changed = current["The loss falls after every epoch."]
    assert changed.fuzzy and changed.msgstr == "A perda cai a cada época."
    assert changed.previous_msgid == "The loss falls after each epoch."
    assert current["Same."].msgstr == "Igual." and not current["Same."].fuzzy
    assert current["Brand new."].msgstr == ""
    assert [e.msgid for e in merged if e.obsolete] == ["Gone paragraph."]
    assert str(catalogs.merge(merged, new_english, "pt_BR", "x")) == str(merged), "a second merge changes nothing"


def test_a_translation_must_keep_the_code_maths_tags_and_fields_of_its_english():
    assert catalogs.broken("Use `view` on $x$ with <kbd>Shift</kbd>.", "Use `view` em $x$ com <kbd>Shift</kbd>.") is None
    assert "`view`" in catalogs.broken("Use `view` here.", "Use view aqui.")
    assert "{n}" in catalogs.broken("{n} rows", "linhas")
    assert catalogs.broken("{n} rows", "{n} linhas {extra}").startswith("no field")
    assert catalogs.broken("| a | b |\n|---|---|", "| a | b |") is not None
    assert catalogs.broken("See `x`.", "Veja `x` (ou `lessons/pt_BR/x`).") is None, "a code span of its own is allowed"


def test_status_counts_what_is_stale_and_missing_against_the_english_as_it_is_now(tmp_path, monkeypatch):
    edition = editions.Edition("pt_BR", "Português", "", ("00_setup",), (), ("00_setup",))
    english = [units.Unit("Kept."), units.Unit("Changed a lot today."), units.Unit("Never translated.")]
    monkeypatch.setattr(catalogs, "english", lambda name: english)
    monkeypatch.setattr(editions, "catalog_path", lambda code, name: tmp_path / f"{name}.po")
    catalogs.save(_po(("Kept.", "Mantido."), ("Changed a little today.", "Mudou um pouco hoje.")), tmp_path / "00_setup.po")
    found = catalogs.status(edition, "00_setup")
    assert (found.translated, found.total, found.stale, found.missing) == (1, 3, ["Changed a lot today."], ["Never translated."])
    assert not found.complete and "FAIL" in catalogs.report([found])


# --- editions: made from the catalogs, the same cells as the English ---------------------------------------------

def test_an_untranslated_or_stale_block_shows_its_english_with_a_marker():
    po = _po(("Translated paragraph.", "Parágrafo traduzido."), ("Stale paragraph.", "Velho."))
    po[1].flags.append("fuzzy")
    tr = translate.Translations("pt_BR", po)
    out = tr.markdown("Translated paragraph.\n\nStale paragraph.\n\n## Missing heading")
    marker = i18n.catalog("autograder", "pt_BR").gettext(translate.STALE_MARKER)
    assert marker != translate.STALE_MARKER, "the marker speaks the edition's language"
    assert out == f"Parágrafo traduzido.\n\nStale paragraph. {marker}\n\n## Missing heading {marker}"


def _tokens_without_comments(source: str) -> list[tuple[int, str]]:
    try:
        return [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(source).readline)
                if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE)]
    except tokenize.TokenError:
        return [(0, source)]


@pytest.mark.parametrize("code,name", SHIPPED)
def test_a_shipped_edition_has_the_english_lessons_cells_ids_metadata_and_code(code, name):
    english = notebooks.read(course.lesson_notebook(name))
    edition = notebooks.read(editions.lesson_notebook(code, name))
    assert {k: v for k, v in edition.metadata.items() if k != editions.LANGUAGE_KEY} == english.metadata
    assert edition.metadata[editions.LANGUAGE_KEY] == code
    assert [(c.cell_type, c.id, c.metadata) for c in edition.cells] == [(c.cell_type, c.id, c.metadata) for c in english.cells]
    for mine, theirs in zip(edition.cells, english.cells):
        if notebooks.grading(theirs):
            assert mine.source == theirs.source, f"{code}/{name}/{theirs.id}: nbgrader's cells are never translated"
        elif theirs.cell_type == "code":
            assert _tokens_without_comments(mine.source) == _tokens_without_comments(theirs.source), \
                f"{code}/{name}/{theirs.id}: only comments may differ"
    assert any(m.source != t.source for m, t in zip(edition.cells, english.cells) if t.cell_type == "markdown")


@pytest.mark.parametrize("code,name", SHIPPED)
def test_a_shipped_edition_is_what_release_makes_from_its_catalog(code, name):
    english = notebooks.read(course.lesson_notebook(name))
    fresh = translate.edition_notebook(english, code, translate.Translations.of(code, name))
    assert notebooks.dumps(fresh) == editions.lesson_notebook(code, name).read_text(encoding="utf-8"), (
        f"lessons/{code}/{name} is not what its catalog gives: run `python -m autograder release {name}`")


def test_editions_hold_exactly_the_shipped_lessons_and_documents():
    for edition in editions.EDITIONS.values():
        folder = course.LESSONS / edition.code
        found = sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []
        assert found == edition.shipped_notebooks(), f"lessons/{edition.code} must hold exactly its shipped lessons"
        for name in edition.shipped_documents():
            english = editions.DOCUMENTS[name].read_text(encoding="utf-8")
            assert editions.document_path(edition.code, name).read_text(encoding="utf-8").split("\n", 1)[1] == \
                translate.Translations.of(edition.code, name).markdown(english), (
                    f"docs/{edition.code}/{name}.md is not what its catalog gives: run `python -m autograder release`")


@pytest.fixture(scope="module")
def english():
    """Each catalog's English, read once for the module."""
    found: dict[str, list] = {}
    return lambda name: found.setdefault(name, catalogs.english(name))


def test_every_shipped_catalog_is_complete(english):
    """The suite fails when a shipped translation falls behind its English: update it in the same commit."""
    statuses, complete = catalogs.check(list(editions.EDITIONS.values()), english_of=english)
    assert complete, ("a shipped translation is not complete (docs/translations/README.md: `python -m autograder "
                      "translations --update`, translate what is listed, or take it out of `shipped`):\n"
                      + catalogs.report([s for s in statuses if s.shipped and not s.complete]))


def test_every_shipped_catalog_is_up_to_date_with_its_english(english):
    """What a translator opens shows the English as it is (a catalog in progress may lag: its translator runs
    `translations --update` first, and release shows nothing of it)."""
    for edition in editions.EDITIONS.values():
        for name in edition.shipped:
            po = catalogs.read(editions.catalog_path(edition.code, name))
            merged = catalogs.merge(po, english(name), edition.code, name)
            assert str(merged) == str(po), (f"translations/{edition.code}/{name}.po is behind its English: run "
                                            f"`python -m autograder translations --update --lang {edition.code}`")


@pytest.mark.parametrize("name", course.assignments())
def test_one_assignment_whichever_edition_the_same_answers_compose_to_the_same_program(name):
    """A complete copy and a copy with its last answer missing, each made from the English lesson and from its
    Portuguese edition (as released, or as a preview where it is not shipped yet), compose to the same code and the
    same test slots, comments aside: the kernel runs nothing else, so the scores are the same."""
    task = assignment.load(name)
    english = notebooks.read(course.lesson_notebook(name))
    edition = translate.edition_notebook(english, "pt_BR", translate.Translations.of("pt_BR", name))
    last = [notebooks.grading(c)["grade_id"] for c in english.cells if notebooks.is_solution_cell(c)][-1]
    for stub in (None, last):
        plans = [compose.build(student_copy(name, leave_stub=stub, lesson=nb), task) for nb in (english, edition)]
        codes = [[_tokens_without_comments(_without_nonces(c.source, p)) for c in p.nb.cells if c.cell_type == "code"]
                 for p in plans]
        assert codes[0] == codes[1], f"{name}: the edition's copy runs other code (comments aside)"
        assert [(s.grade_id, s.points) for s in plans[0].tests] == [(s.grade_id, s.points) for s in plans[1].tests]
        assert not plans[1].flags and plans[1].nb.metadata.get(editions.LANGUAGE_KEY) == "pt_BR"


def _without_nonces(source: str, plan) -> str:
    for slot in plan.tests:
        source = source.replace(slot.nonce, "NONCE")
    return source


# --- the course's words in the student's language ----------------------------------------------------------------

def test_the_kernel_language_comes_from_the_notebook_then_the_set_up_then_the_folder():
    assert "pt_BR" in i18n.available()
    lessons = str(course.LESSONS)
    assert i18n.language({"JPY_SESSION_NAME": f"{lessons}/pt_BR/01_tensors/01_tensors.ipynb"}, "/") == "pt_BR"
    assert i18n.language({"JPY_SESSION_NAME": f"{lessons}/01_tensors/01_tensors.ipynb",
                          "COURSEKIT_LANG": "pt_BR"}, "/") == "en", "an English lesson is English in any set-up"
    assert i18n.language({"COURSEKIT_LANG": "pt-br.UTF-8"}, "/") == "pt_BR"
    assert i18n.language({}, f"{lessons}/pt_BR/00_setup") == "pt_BR"
    assert i18n.language({"COURSEKIT_LANG": "xx_YY"}, "/tmp") == "en"
    assert i18n.normalise("en_US.UTF-8") == "en" and i18n.normalise("fr_FR") is None


def test_checks_speak_the_kernels_language_with_the_notebooks_own_hints(monkeypatch):
    import torch

    from coursekit.checks import CheckFailed, check_close, check_shape

    monkeypatch.setenv("COURSEKIT_LANG", "pt_BR")
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    with pytest.raises(CheckFailed) as failure:
        check_shape(torch.zeros(3, 2), (2, 3), name="make_grid(2, 3)")
    assert str(failure.value).startswith("make_grid(2, 3): o shape deveria ser (2, 3), mas é (3, 2).\nDica: os tamanhos")
    with pytest.raises(CheckFailed) as failure:   # a hint written in 01_tensors' check cell, from its catalog
        check_close(torch.ones(2), torch.zeros(2), name="the two channels of pixel (0, 0)",
                    hint="right shape, wrong values: `view`/`reshape` regroup numbers without moving them; use `permute`.")
    assert failure.value.what.startswith("os dois canais do pixel (0, 0): valores diferentes")
    assert failure.value.hint.startswith("shape certo, valores errados")
    monkeypatch.setenv("COURSEKIT_LANG", "en")
    with pytest.raises(CheckFailed, match=r"^make_grid\(2, 3\) should have shape \(2, 3\), got \(3, 2\)\."):
        check_shape(torch.zeros(3, 2), (2, 3), name="make_grid(2, 3)")


def test_words_are_english_everywhere_and_the_readers_language_on_a_page():
    message = Words("{share:.1%} of {n} predictions are right; at least {needed:.0%} are needed", share=0.925, n=200,
                    needed=0.9)
    assert message == "92.5% of 200 predictions are right; at least 90% are needed"
    assert i18n.catalog("autograder", "pt_BR").words(message) == \
        "92,5% de 200 previsões estão certas; são necessárias pelo menos 90%"
    nested = Words("expected {expected}, got {got}{where}", expected=Words("the int {value}", value="3"),
                   got="torch.float32", where=Words(" (at {path})", path="[0]"))
    assert i18n.catalog("autograder", "pt_BR").words(nested) == "esperava o int 3, veio torch.float32 (em [0])"
    broken = i18n.Catalog("pt_BR", {(None, "{n} rows"): "{m} linhas"})
    assert broken.words(Words("{n} rows", n=2)) == "2 rows", "a translation that cannot be filled falls back to English"


def test_the_feedback_speaks_the_edition_of_the_submission():
    checks = CellChecks("make-grid-tests", [
        Check("make_grid(rows, 5) for 1, 7 and 129 rows", "value", False,
              Words("expected shape {expected}, got {got}{where}", expected="(1, 5)", got="(5, 1)", where=""),
              "make it work for any size: no number written into the code, and no squeeze(), which drops a size-1 row."),
        Check("another", "value", True)])
    cell = nbformat.v4.new_code_cell("")
    pt = feedback.verdict_text("failed", 0, 2, checks, cell, None, feedback.Voice("pt_BR", "01_tensors"))
    assert pt.splitlines() == [
        "Corretor: 0 / 2 pontos.",
        "✗ make_grid(rows, 5) para 1, 7 e 129 linhas: esperava shape (1, 5), veio (5, 1).",
        "  Dica: faça funcionar para qualquer tamanho: nenhum número fixo no código, e nada de squeeze(), que elimina "
        "uma linha de tamanho 1.",
        "1 de 2 verificações passaram."]
    en = feedback.verdict_text("failed", 0, 2, checks, cell, None)
    assert en.splitlines()[:2] == ["Grader: 0 / 2 points.", "✗ make_grid(rows, 5) for 1, 7 and 129 rows: expected shape "
                                                              "(1, 5), got (5, 1)."]
    assert "<p>Nota: 0 / 0</p>" in feedback.problem_page(_result(), "pt_BR")


def _result():
    from autograder.grading.results import SubmissionResult

    return SubmissionResult("ana", "01_tensors", "error", "the kernel could not start", 0.0, [])


def test_a_notebooks_language_is_a_shipped_edition_or_english():
    assert editions.notebook_language({"metadata": {"language": "pt_BR"}}) == "pt_BR"
    for odd in ("../../etc", "xx", 3, None):
        assert editions.notebook_language({"metadata": {"language": odd}}) == "en"
    assert editions.notebook_language({"metadata": []}) == "en"


def test_validate_runs_an_editions_notebook_in_its_language(tmp_path):
    from courselab import validate

    path = tmp_path / "n.ipynb"
    path.write_text(json.dumps({"metadata": {"language": "pt_BR"}, "cells": [], "nbformat": 4, "nbformat_minor": 5}))
    assert validate.notebook_language(path) == "pt_BR"
    (tmp_path / "bad.ipynb").write_text("{not json")
    assert validate.notebook_language(tmp_path / "bad.ipynb") == "en"
    say = validate._voice("pt_BR")
    assert say(Words("The validation stopped before it finished (exit code {code}):", code=1)).startswith("A validação")


# --- the student set-up of an edition -------------------------------------------------------------------------

def test_the_student_set_up_of_an_edition_opens_its_lessons_in_its_language(tmp_path):
    import courselab

    argv = ["--lang=pt-BR", "--no-browser"]
    assert courselab._language_option(argv) == "pt_BR" and argv == ["--no-browser"]
    with pytest.raises(SystemExit, match="unknown language 'fr'"):
        courselab._language_option(["--lang", "fr"])
    own = tmp_path / "user-settings"
    (own / "@jupyterlab" / "apputils-extension").mkdir(parents=True)
    (own / "@jupyterlab" / "apputils-extension" / "themes.jupyterlab-settings").write_text('{"theme": "JupyterLab Dark"}')
    args = courselab.lab_arguments("student", [], language="pt_BR")
    assert f"--ServerApp.root_dir={course.LESSONS / 'pt_BR'}" in args
    env = courselab.server_environment("student", base={"PATH": "/bin", "LANG": "C.UTF-8",
                                                        "JUPYTERLAB_SETTINGS_DIR": str(own)}, language="pt_BR")
    settings = Path(env["JUPYTERLAB_SETTINGS_DIR"])
    assert settings == tmp_path / "user-settings-pt_BR", "the edition's JupyterLab settings sit beside the student's own"
    assert json.loads((settings / "@jupyterlab" / "translation-extension" / "plugin.jupyterlab-settings").read_text()) \
        == {"locale": "pt_BR"}
    assert (settings / "@jupyterlab" / "apputils-extension" / "themes.jupyterlab-settings").is_file(), "a copy of theirs"
    assert not (own / "@jupyterlab" / "translation-extension").exists(), "the English set-up's settings are untouched"
    assert env["COURSEKIT_LANG"] == "pt_BR" and env["LANG"] == "C.UTF-8", "the locale is left alone"


def test_the_terminal_check_speaks_the_notebooks_language():
    from autograder.authoring.check import CheckRow, explain, format_table

    nb = nbformat.v4.new_notebook()
    row = CheckRow("make-grid-tests", 2, False, explain(nb, 0, "NotImplementedError: "))
    table = format_table([row], "pt_BR")
    assert "ainda não feito: troque `raise NotImplementedError()`" in table and "Verificações visíveis: 0 / 2" in table
    assert "not done yet" in format_table([row]), "English by default"


def test_make_course_lang_names_the_edition_and_keeps_a_utf8_locale(tmp_path):
    """`make course LANG=pt_BR`: the edition for courselab, and never the bare `pt_BR` as every child's locale."""
    import shutil
    import subprocess

    if not shutil.which("make"):
        pytest.skip("no make here")
    probe = tmp_path / "probe.mk"
    probe.write_text(f"include {course.ROOT / 'Makefile'}\nprobe:\n\t@echo \"$$LANG|$(EDITION)\"\n")

    def run(*args: str) -> list[str]:
        done = subprocess.run(["make", "-s", "-f", str(probe), "probe", *args], cwd=course.ROOT, capture_output=True,
                              text=True, timeout=60, env={**os.environ, "LANG": "C.UTF-8"})
        return done.stdout.strip().split("|")

    locale, edition = run("LANG=pt_BR")
    assert edition == "pt_BR" and locale.lower().replace("-", "").endswith(".utf8"), (locale, edition)
    assert run() == ["C.UTF-8", ""], "without LANG on make's command line, nothing changes"


# --- an edition handed in through the exchange ---------------------------------------------------------------------

def _folder_with(tmp_path, top=None, edition=None, name="00_setup"):
    """A submission folder holding the English notebook and/or the pt_BR edition's copy (pt_BR/NN.ipynb)."""
    folder = tmp_path / "student" / name
    folder.mkdir(parents=True)
    if top is not None:
        notebooks.write(top, folder / f"{name}.ipynb")
    if edition is not None:
        notebooks.write(edition, folder / "pt_BR" / f"{name}.ipynb")
    return folder


def test_intake_grades_the_edition_the_student_worked_in(tmp_path):
    from autograder.grading import intake

    name = "00_setup"
    task = assignment.load(name)
    released = notebooks.read(course.lesson_notebook(name))
    released_pt = notebooks.read(editions.lesson_notebook("pt_BR", name))
    answered_pt = student_copy(name, lesson=released_pt)

    # Fetched through the exchange, worked in pt_BR/00_setup.ipynb: that copy is graded, and nothing is flagged.
    repairs = []
    nb = intake.read_submission(_folder_with(tmp_path / "a", released, answered_pt), task, repairs)
    assert editions.notebook_language(nb) == "pt_BR" and not any("edition" in r for r in repairs)
    # Only the edition's copy handed in: it is graded, and the note says so.
    repairs = []
    nb = intake.read_submission(_folder_with(tmp_path / "b", None, answered_pt), task, repairs)
    assert editions.notebook_language(nb) == "pt_BR" and any("no 00_setup.ipynb" in r for r in repairs)
    # Answers in both: the English notebook is graded, and the note names the other.
    repairs = []
    nb = intake.read_submission(_folder_with(tmp_path / "c", student_copy(name), answered_pt), task, repairs)
    assert editions.notebook_language(nb) == "en" and any("two editions" in r for r in repairs)
    # The English notebook only: as before.
    nb = intake.read_submission(_folder_with(tmp_path / "d", student_copy(name), None), task, [])
    assert editions.notebook_language(nb) == "en"


def test_an_edition_copy_that_is_a_link_is_never_read(tmp_path):
    from autograder.grading import intake

    name = "00_setup"
    task = assignment.load(name)
    folder = _folder_with(tmp_path, notebooks.read(course.lesson_notebook(name)))
    (folder / "pt_BR").mkdir()
    (folder / "pt_BR" / f"{name}.ipynb").symlink_to(course.solution_notebook(name))   # the solution, by a link
    repairs = []
    nb = intake.read_submission(folder, task, repairs)
    assert editions.notebook_language(nb) == "en" and any("was not read" in r and "link" in r for r in repairs)
