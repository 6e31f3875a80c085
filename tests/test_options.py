"""One owner per fact: the options, their defaults and the exit codes live in the code (cli.py's parsers, ``Limits``,
core/settings.py); docs/options.md is written from them, and no other page may state a value the code does not have.

The pages are read as a person reads them: a table row that names one option (`` `--timeout` ``) and has a number
in its next cell states that option's default; "`--threads 1`, the default" and "(default: 1)" after an option do
too; a number before a reference to a constant (`` `settings.CELL_TIMEOUT_S` ``) states that constant; "N workers"
in a sentence about the test suite states the Makefile's WORKERS; "exit with N" / "exit code N" states an exit
code, and the commands named in that sentence must be ones that exit with it. Anything else is left alone, so
examples (``--jobs 2``) and measurements stay free.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import re
from pathlib import Path

import pytest

from autograder import cli
from autograder.authoring import options
from autograder.core import course
from autograder.grading.job import Limits

PAGES = [course.ROOT / "README.md", *sorted((course.ROOT / "docs").glob("*.md"))]
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
FRACTION_WORDS = {"a quarter": 0.25, "one quarter": 0.25, "half": 0.5, "a third": 1 / 3, "three quarters": 0.75}
SECONDS = {"s": 1, "sec": 1, "seconds": 1, "min": 60, "minutes": 60, "h": 3600, "hours": 3600}
MEGABYTES = {"kB": 1 / 1024, "KB": 1 / 1024, "MB": 1, "MiB": 1, "GB": 1024, "GiB": 1024}
QUANTITY = r"(\d[\d,]*(?:\.\d+)?)\s*(%|seconds|sec|s|minutes|min|hours|h|kB|KB|MiB|MB|GiB|GB)?(?![\w.])"
SUITE_WORDS = ("pytest-xdist", "xdist", "make test", "test suite", "the suite")


# --- what the code says ------------------------------------------------------------------------------------

def option_defaults() -> dict[str, object]:
    """Each option with one default across the commands that have it ('--out' differs, so it is left out)."""
    seen: dict[str, list] = {}
    for _, _, sub in options.subcommands(cli.build_parser()):
        for action in sub._actions:
            for name in action.option_strings:
                seen.setdefault(name, []).append(action.default)
    return {name: found[0] for name, found in seen.items() if all(d == found[0] for d in found)}


def exit_codes() -> dict[int, str | tuple[str, ...]]:
    return {code: which for code, which, _ in options.EXIT_CODES}


def makefile_workers() -> int:
    [value] = re.findall(r"^WORKERS \?= (\d+)$", (course.ROOT / "Makefile").read_text(encoding="utf-8"), re.M)
    return int(value)


def constant(module: str, name: str):
    """``settings.CELL_TIMEOUT_S`` and the like: a module of the grader's rooms or of coursekit, by its short name."""
    for package in ("autograder.core", "autograder.grading", "autograder.scale", "autograder.classroom",
                    "autograder.authoring", "coursekit"):
        try:
            return getattr(importlib.import_module(f"{package}.{module}"), name)
        except (ImportError, AttributeError):
            continue
    return None


# --- what a page says --------------------------------------------------------------------------------------

def _unit_of_option(option: str) -> dict[str, float] | None:
    if option.endswith("-mb"):
        return MEGABYTES
    if "timeout" in option or "wait" in option:
        return SECONDS
    return None


def _unit_of_constant(name: str) -> tuple[dict[str, float] | None, float]:
    """(the units a page may use for it, how many of the constant's own units one of the table's makes)."""
    if name.endswith("_S"):
        return SECONDS, 1
    if name.endswith("_MB"):
        return MEGABYTES, 1
    if name.endswith("_BYTES"):
        return MEGABYTES, 2**20
    return None, 1


def _amount(number: str, unit: str | None, units: dict[str, float] | None, scale: float = 1) -> float | None:
    """The stated number in the code's unit, or None when the unit says it is about something else."""
    value = float(number.replace(",", ""))
    if unit == "%":
        return value / 100
    if unit is None:
        return value
    if units is None or unit not in units:
        return None
    return value * units[unit] * scale


def _same(stated: float, actual) -> bool:
    return isinstance(actual, (int, float)) and not isinstance(actual, bool) and abs(stated - actual) <= 1e-9 * max(1, abs(actual))


def _blocks(text: str) -> tuple[list[str], list[str]]:
    """(table rows, prose paragraphs joined into one line each), fenced code left out."""
    rows, paragraphs, current, fenced = [], [], [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if line.lstrip().startswith("|"):
            rows.append(line.strip())
        elif line.strip():
            if re.match(r"\s*(?:[-*]|\d+\.)\s", line) and current:   # a list item is a paragraph of its own
                paragraphs.append(" ".join(current))
                current = []
            current.append(line.strip())
            continue
        if current:
            paragraphs.append(" ".join(current))
            current = []
    if current:
        paragraphs.append(" ".join(current))
    return rows, paragraphs


def _sentences(paragraph: str) -> list[str]:
    """Sentences, and the clauses of a sentence that a semicolon separates."""
    return re.split(r"(?<=[.;])\s+", paragraph)


def drift(text: str) -> list[str]:
    """What ``text`` states that the code does not have, each in a line that quotes it."""
    defaults, codes = option_defaults(), exit_codes()
    commands = {name.split(" ")[0] for name, _, _ in options.subcommands(cli.build_parser())}
    found = []
    rows, paragraphs = _blocks(text)

    def check_option(option: str, stated: str, where: str) -> None:
        if option not in defaults:
            return
        actual = defaults[option]
        quantity = re.fullmatch(r"\s*" + QUANTITY + r".*", stated)
        if quantity:
            amount = _amount(quantity[1], quantity[2], _unit_of_option(option))
            if amount is not None and not _same(amount, actual):
                found.append(f"{option}: the page says {stated.strip()!r}, the code's default is {actual!r}: {where}")
        elif isinstance(actual, str) and stated.strip().strip("`") != actual:
            found.append(f"{option}: the page says {stated.strip()!r}, the code's default is {actual!r}: {where}")

    def check_constants(piece: str) -> None:
        for ref in re.finditer(r"`(?:[a-z_]+\.)*([a-z_]+)\.([A-Z][A-Z0-9_]+)`", piece):
            value = constant(ref[1], ref[2])
            before = piece[max(0, ref.start() - 90):ref.start()]
            before = re.split(r"[.;|]\s", before)[-1]   # the same clause only
            words = [(m.start(), FRACTION_WORDS[m[0].lower()], None)
                     for m in re.finditer("|".join(FRACTION_WORDS), before, re.I)]
            numbers = [(m.start(), m[1], m[2]) for m in re.finditer(QUANTITY, before)]
            if value is None or not (words or numbers):
                continue
            _, number, unit = max(words + numbers, key=lambda item: item[0])
            units, scale = _unit_of_constant(ref[2])
            stated = number if isinstance(number, float) else _amount(number, unit, units, scale)
            if stated is not None and not _same(stated, value):
                found.append(f"{ref[1]}.{ref[2]} is {value!r}, the page says {before.strip()!r}")

    for row in rows:
        cells = re.split(r"(?<!\\)\|", row.strip("|"))
        for k, cell in enumerate(cells[:-1]):
            named = re.findall(r"`(--[a-z][a-z0-9-]*)`", cell)
            if len(named) == 1:
                check_option(named[0], cells[k + 1], row)
        check_constants(row)
    for paragraph in paragraphs:
        for m in re.finditer(r"`(--[a-z][a-z0-9-]*)[ =]([^`]+)`\)?,?\s*\(?the default\b", paragraph):
            check_option(m[1], m[2], m[0])
        for m in re.finditer(r"`(--[a-z][a-z0-9-]*)`[^|.`]{0,30}?\(default:?\s*([^)]+)\)", paragraph):
            check_option(m[1], m[2], m[0])
        check_constants(paragraph)
        for sentence in _sentences(paragraph):
            for m in re.finditer(r"\b(" + "|".join(NUMBER_WORDS) + r"|\d+)\s+(?:pytest-xdist\s+)?workers\b", sentence, re.I):
                count = NUMBER_WORDS.get(m[1].lower()) or int(m[1])
                if any(w in sentence for w in SUITE_WORDS) and count != makefile_workers():
                    found.append(f"the suite runs on {makefile_workers()} workers (Makefile WORKERS), the page says "
                                 f"{m[0]!r}: {sentence}")
            for m in re.finditer(r"\bexit(?:s|ed)?\s+(?:with\s+|code\s+|status\s+)?(\d+)\b", sentence, re.I):
                code = int(m[1])
                if code not in codes:
                    found.append(f"exit code {code} is none the code has ({sorted(codes)}): {sentence}")
                    continue
                named = {c for c in re.findall(r"`([a-z0-9]+)`", sentence) if c in commands}
                allowed = codes[code]
                if allowed != options.EVERY and not named <= set(allowed):
                    found.append(f"exit code {code} comes from {', '.join(allowed)} only, the page names "
                                 f"{', '.join(sorted(named))}: {sentence}")
    return found


# --- the tests ---------------------------------------------------------------------------------------------

def test_the_options_page_is_current():
    assert options.PAGE.read_text(encoding="utf-8") == options.render(cli.build_parser()), (
        "docs/options.md is not current: run python -m autograder options")


def test_the_options_command_writes_and_checks_the_page(tmp_path, capsys):
    page = tmp_path / "options.md"
    assert options.main(cli.build_parser(), check_only=True, page=page) == 1
    assert options.main(cli.build_parser(), page=page) == 0 and "updated" in capsys.readouterr().out
    assert options.main(cli.build_parser(), check_only=True, page=page) == 0
    text = page.read_text(encoding="utf-8")
    for name, _, sub in options.subcommands(cli.build_parser()):
        assert f"## {name}\n" in text
        for action in sub._actions:
            if action.help is not argparse.SUPPRESS and action.option_strings and "-h" not in action.option_strings:
                assert f"`{options.argument(action)}`" in text, action.option_strings


def test_the_limits_group_is_limits_field_by_field():
    """grade's limits are Limits' fields, in order, with Limits' defaults: nothing else owns a limit."""
    grade = dict((name, sub) for name, _, sub in options.subcommands(cli.build_parser()))["grade"]
    [group] = [g for g in grade._action_groups if g.title.startswith("limits")]
    args = cli.build_parser().parse_args(["grade", "submissions"])
    assert [getattr(args, a.dest) for a in group._group_actions] == list(dataclasses.astuple(Limits()))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_page_states_a_default_a_worker_count_or_an_exit_code_the_code_lacks(page: Path):
    found = drift(page.read_text(encoding="utf-8"))
    assert not found, f"{page.relative_to(course.ROOT)} disagrees with the code:\n" + "\n".join(found)


def test_the_reader_catches_drift():
    limits = Limits()
    wrong = f"""
| limit | option | default |
|---|---|---|
| wall time | `--timeout` | {limits.wall_s / 60 + 1:g} min |
| memory | `--memory-mb` | {limits.memory_mb * 2} |
| threads (`--threads`) | {limits.threads + 1} |
| time per cell | {limits.cell_s + 5} s (`settings.CELL_TIMEOUT_S`) | stopped |

Each kernel gets one maths thread (`--threads {limits.threads + 2}`, the default). It picks a runner
(`--runner gpu`, the default). The suite runs on {makefile_workers() + 1} workers (pytest-xdist). `grade` exits with 5
when a shard is missing. `check` exits with 4 when a check fails. Values decide, observations hold half of
the points (`settings.OBSERVED_SHARE`).
"""
    found = "\n".join(drift(wrong))
    for needle in ("--timeout", "--memory-mb", "--threads: the page says '2'", "--threads: the page says '3'",
                   "--runner", "CELL_TIMEOUT_S", "workers", "exit code 5", "exit code 4 comes from merge only",
                   "OBSERVED_SHARE"):
        assert needle in found, needle
    right = f"""
| wall time | `--timeout` | {limits.wall_s / 60:g} min |
| memory | `--memory-mb` | {limits.memory_mb / 1024:g} GB |

One maths thread per kernel (`--threads {limits.threads}`, the default); an example: `grade --jobs 2 --timeout 60`.
The suite runs on {makefile_workers()} workers (pytest-xdist); `merge` exits with 4 when a shard is missing.
"""
    assert drift(right) == []
