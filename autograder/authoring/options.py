"""``python -m autograder options``: docs/options.md, written from the command line itself.

Every command with its arguments, their defaults and their help, read from ``cli.build_parser()`` (the limits'
defaults come from ``Limits``, grading/job.py), and the exit codes (core/settings.py). Besides ``--help`` this
page is the only written copy of those facts: tests/test_options.py fails when it is not current, and when
another page states a default, a worker count or an exit code that the code does not have.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from ..core import course
from ..core.settings import EXIT_NEEDS_INSTRUCTOR, EXIT_SHARDS_MISSING, FINISHED, SUBMISSION_STATUSES

PAGE = course.ROOT / "docs" / "options.md"
EVERY = "every command"
GRADING = ("grade", "merge", "gradebook")   # the commands whose exit code says whether a submission needs you

# (code, the commands that exit with it, when). The codes come from core/settings.py; 1 is Python's for SystemExit
# with a message, 2 argparse's.
EXIT_CODES: tuple[tuple[int, str | tuple[str, ...], str], ...] = (
    (0, EVERY, "it did its work; for " + ", ".join(f"`{c}`" for c in GRADING) + ": and every submission's status is "
     + " or ".join(f"`{s}`" for s in FINISHED)),
    (1, EVERY, "it stopped with a message that says what to fix; `check`: a visible check failed; `variants`: a wrong "
     "answer was not caught or a right one lost points; `options --check`: this page is not current"),
    (2, EVERY, "a mistake in the command line (the usage is printed)"),
    (EXIT_NEEDS_INSTRUCTOR, GRADING, "it finished, but some submission's status is another one (its row in "
     "grades.csv says why); the scripts of `slurm` and `kubernetes` count this as success"),
    (EXIT_SHARDS_MISSING, ("merge",), "a shard did not finish: nothing was written, and the shards are named"),
)


def subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name as --help lists it, its help, its parser) for each command, in --help's order, aliases folded in."""
    [group] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return [(choice.metavar or choice.dest, choice.help, group.choices[choice.dest]) for choice in group._choices_actions]


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def argument(action: argparse.Action) -> str:
    """How the argument is written: ``--timeout SECONDS``, ``NN``, ``[names ...]``."""
    if not action.option_strings:
        name = action.metavar or action.dest
        return {"?": f"[{name}]", "*": f"[{name} ...]", "+": f"{name} ..."}.get(action.nargs, name)
    if action.nargs == 0:
        return ", ".join(action.option_strings)
    value = action.metavar or ("{" + ",".join(map(str, action.choices)) + "}" if action.choices else action.dest.upper())
    return ", ".join(f"{o} {value}" for o in action.option_strings)


def default(action: argparse.Action) -> str:
    """The default as a person would type it ('' where there is none)."""
    if not action.option_strings:
        return "" if action.nargs in ("?", "*") else "required"
    if action.required:
        return "required"
    value = action.default
    if action.nargs == 0 and value is False:
        return "off"
    if value is None or value is argparse.SUPPRESS or value == []:
        return ""
    return f"{value:g}" if isinstance(value, float) else str(value)


def explained(action: argparse.Action, prog: str, shown_default: str) -> str:
    """The help text as --help prints it, less its "(default: ...)" where the default has a column of its own."""
    params = {k: v for k, v in vars(action).items() if v is not argparse.SUPPRESS}
    if params.get("choices") is not None:
        params["choices"] = ", ".join(map(str, params["choices"]))
    text = (action.help or "") % {**params, "prog": prog}
    return re.sub(r"\s*\(default: [^()]*\)", "", text) if shown_default else text


def _table(actions: list[argparse.Action], prog: str) -> list[str]:
    rows = ["| argument | default | what it does |", "|---|---|---|"]
    for action in actions:
        shown = default(action)
        rows.append(f"| `{_cell(argument(action))}` | {_cell(shown)} | {_cell(explained(action, prog, shown))} |")
    return rows


def render(parser: argparse.ArgumentParser) -> str:
    lines = [
        "# Options of `python -m autograder`",
        "",
        "<!-- Written by `python -m autograder options` from the command line's parsers (autograder/cli.py), the",
        "limits (`Limits`, autograder/grading/job.py) and the exit codes (autograder/core/settings.py). Do not edit:",
        "change the code and run the command again (tests/test_options.py fails while this page is not current). -->",
        "",
        "Every command, its arguments with their defaults, and what each exit code means. `python -m autograder",
        "COMMAND --help` prints the same.",
        "",
        "| command | what it does |",
        "|---|---|",
    ]
    commands = subcommands(parser)
    lines += [f"| [`{_cell(name)}`](#{_anchor(name)}) | {_cell(text)} |" for name, text, _ in commands]
    lines += ["", "## Exit codes", "", "| code | commands | when |", "|---|---|---|"]
    for code, which, when in EXIT_CODES:
        names = which if isinstance(which, str) else ", ".join(f"`{c}`" for c in which)
        lines.append(f"| {code} | {names} | {_cell(when)} |")
    lines += ["", "The statuses a row of grades.csv can have: " + ", ".join(f"`{s}`" for s in SUBMISSION_STATUSES) + "."]
    for name, text, sub in commands:
        lines += ["", f"## {name}", "", _cell(text) + "."]
        for group in sub._action_groups:
            shown = [a for a in group._group_actions if a.help is not argparse.SUPPRESS and not isinstance(a, argparse._HelpAction)]
            if shown:
                lines += ["", f"{group.title[0].upper()}{group.title[1:]}:", "", *_table(shown, sub.prog)]
    return "\n".join(lines) + "\n"


def _anchor(name: str) -> str:
    """GitHub's anchor of a heading ``## name``."""
    return re.sub(r"[^a-z0-9 _-]", "", name.lower()).replace(" ", "-")


def main(parser: argparse.ArgumentParser, check_only: bool = False, page: Path = PAGE) -> int:
    text = render(parser)
    current = page.read_text(encoding="utf-8") if page.is_file() else None
    if check_only:
        print(f"{page} is " + ("current" if current == text else "not current: run python -m autograder options"))
        return 0 if current == text else 1
    if current != text:
        page.write_text(text, encoding="utf-8")
    print(f"{page} " + ("updated" if current != text else "unchanged"))
    return 0
