"""Whether each test cell's result can be trusted, and the flags an instructor should look at.

Two sources, both read after the kernel is gone: the plan (locked cells the student edited,
duplicated or deleted, see compose.py) and what the run left behind: the kernel guard's reports on
its pipe, and each test cell's completion token in its output. A test cell is untrusted, and scores
0, when:

- the guard's check before it never reported (something skipped the cell's first line, or replaced
  the guard);
- the guard found code that can rewrite a cell active when it ran (an input or AST transformer, a
  replaced ``run_cell``, a magic); other changes (a replaced ``torch.allclose``, a trace function,
  an event callback) were put back before the test ran, so they are flagged but do not cost points;
- the cell raised no error yet its token is missing (something cut it short or swallowed its end).

This is best effort: the tests share the kernel with the student's code (docs/grading-security.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import notebooks
from .compose import Plan
from .kernel_guard import UNTRUSTED

MAX_AUDIT_FLAGS = 5


@dataclass
class Integrity:
    untrusted: dict[str, str] = field(default_factory=dict)  # grade_id -> why its result is not trusted
    flags: list[str] = field(default_factory=list)


def assess(plan: Plan, nb, report: dict) -> Integrity:
    checks, audits = {}, []
    for record in report.get("guard", []):
        if "nonce" in record:
            checks.setdefault(str(record["nonce"]), record)
        elif "audit" in record:
            audits.append(f"{record.get('audit')}: {record.get('detail')}")
    verdict = Integrity(flags=list(plan.flags))
    findings: dict[tuple[str, str], list[str]] = {}
    zeroed: dict[str, list[str]] = {}
    for slot in plan.tests:
        cell = nb.cells[slot.index]
        check = checks.get(slot.nonce)
        if check is not None and check.get("cell") == slot.grade_id:
            for kind, detail in check.get("found", []):
                findings.setdefault((kind, detail), []).append(slot.grade_id)
        ran = cell.get("execution_count") is not None or bool(cell.get("outputs"))
        if not ran or notebooks.errors(cell):
            continue  # not run, or failed on its own: a score of 0 needs no further doubt
        if check is None or check.get("cell") != slot.grade_id:
            why = "the grader's check before the cell never reported (something skipped or replaced it)"
        elif any(kind in UNTRUSTED for kind, _ in check.get("found", [])):
            why = "code that can rewrite a cell was active when it ran"
        elif slot.token not in notebooks.stream_text(cell, "stdout"):
            why = "it did not run to its end (its completion token is missing)"
        else:
            continue
        verdict.untrusted[slot.grade_id] = why
        zeroed.setdefault(why, []).append(slot.grade_id)
    for (kind, detail), where in findings.items():
        effect = "the cell scored 0" if kind in UNTRUSTED else "put back before the test ran"
        verdict.flags.append(f"{kind}: {detail} (found before {', '.join(where)}; {effect})")
    for why, where in zeroed.items():
        verdict.flags.append(f"test cell scored 0 because {why}: {', '.join(where)}")
    verdict.flags += list(dict.fromkeys(audits))[:MAX_AUDIT_FLAGS]
    return verdict
