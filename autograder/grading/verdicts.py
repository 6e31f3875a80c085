"""Judging a run's records against the reference run's, outside every kernel.

Both runs send records on the grader's channel (coursekit/hidden.py): one per check, tagged with its
test cell and its name. Records are matched by (cell, name, occurrence): the k-th record of a name in a
cell of the student's run is judged against the k-th of the reference run. The reference decides
everything but the value: which checks exist, their rule, tolerances, kind and hint. A reference
check with no student record fails (the cell stopped before it, or something kept it from reporting);
student records the reference does not have are ignored. A student record that is not well-formed
data fails its check.

One kind of record needs no reference: the course's own answers (coursekit/answers.py), while a test cell's hidden
tests forbid them (``hidden.own_work``), send one when they are called. Each adds a failed check to its cell, so a
cell whose answer handed in the course's own code earns nothing, with a message that names that code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from coursekit.hidden import OWN_WORK   # the kind of record a course answer sends (coursekit/answers.py)

from . import rules as library
from .rules import Words

VALUE, OBSERVATION = "value", "observation"
NOT_REPORTED = Words("this check never reported: the cell stopped before it (an error in the code it tests?)")
OWN_WORK_CHECK = Words("the answer is the student's own code")
OWN_WORK_HINT = Words("write this exercise's code yourself: the course package's version of it may be used in later "
                      "lessons, not handed in here.")


@dataclass
class Check:
    """One check of a test cell, as judged."""
    name: str
    kind: str          # VALUE (decided by the values the code returned) or OBSERVATION (what an instrument saw)
    passed: bool
    message: str = ""  # the grader's words when it failed
    hint: str = ""     # the course's hint for it


@dataclass
class CellChecks:
    cell: str
    checks: list[Check] = field(default_factory=list)

    def of_kind(self, kind: str) -> list[Check]:
        return [c for c in self.checks if c.kind == kind]

    def passed(self, kind: str) -> bool:
        return all(c.passed for c in self.of_kind(kind))


def records_of(lines: list[dict]) -> list[dict]:
    """The well-formed check records among everything a run sent on the channel, in order."""
    return [r for r in lines if isinstance(r, dict) and r.get("record") == 1 and isinstance(r.get("cell"), str)
            and isinstance(r.get("name"), str) and isinstance(r.get("value"), dict)]


def _numbered(records: list[dict]) -> dict[tuple[str, str, int], dict]:
    seen: dict[tuple[str, str], int] = {}
    out = {}
    for record in records:
        key = (record["cell"], record["name"])
        out[(*key, seen.get(key, 0))] = record
        seen[key] = seen.get(key, 0) + 1
    return out


def judge(reference: list[dict], student: list[dict], cell_rules: dict[str, dict[str, library.Rule]] | None = None,
          cells: set[str] | None = None) -> dict[str, CellChecks]:
    """Every reference check of ``cells`` (default: all) judged against the student's records.

    ``cell_rules`` holds each cell's own rules (its GRADER block, rules.cell_rules)."""
    cell_rules = cell_rules or {}
    mine = _numbered(records_of(student))
    judged: dict[str, CellChecks] = {}
    for (cell, name, k), ref in _numbered(records_of(reference)).items():
        if cells is not None and cell not in cells:
            continue
        label = name if k == 0 else f"{name} (#{k + 1})"
        kind = OBSERVATION if ref.get("kind") == OBSERVATION else VALUE
        check = Check(label, kind, False, hint=str(ref.get("hint") or ""))
        judged.setdefault(cell, CellChecks(cell)).checks.append(check)
        got = mine.get((cell, name, k))
        if got is None:
            check.message = NOT_REPORTED
            continue
        rule = cell_rules.get(cell, {}).get(ref.get("rule")) or library.LIBRARY.get(ref.get("rule"))
        if rule is None:
            check.message = Words("the test names a rule the grader does not know ({rule}): tell your instructor",
                                  rule=repr(ref.get("rule")))
            continue
        try:
            message = rule(got["value"], ref["value"], **(ref.get("params") or {}))
        except Exception as error:  # a malformed record of the student's: it fails, the grading goes on
            message = Words("the value sent could not be judged ({error})", error=type(error).__name__)
        check.passed, check.message = message is None, message or ""
    for record in records_of(student):
        if record.get("kind") == OWN_WORK and (cells is None or record["cell"] in cells) and record["cell"] in judged:
            judged[record["cell"]].checks.append(Check(OWN_WORK_CHECK, VALUE, False, own_work_message(record), OWN_WORK_HINT))
    return judged


def own_work_message(record: dict) -> Words:
    """The grader's words for a course answer that did a cell's work; it names the answer only if the name is one of
    the course's (the kernel chose it from that list, so nothing of the kernel's own making is shown)."""
    from coursekit.answers import registry

    value = record.get("value") or {}
    name = value.get("v") if value.get("t") == "str" else None
    if name in registry():
        return Words("the code tested here called the course's own {name}, which does this exercise's work: no points "
                     "for handing it in", name=name)
    return Words("the code tested here called the course's own answer to this exercise: no points for handing it in")
