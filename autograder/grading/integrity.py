"""What the kernel guard reported, and the flags an instructor should look at.

Read after the kernel is gone, from the plan (locked cells the student edited, duplicated or deleted,
see compose.py) and from the guard's reports on the grader's channel. Values are judged outside the
box whatever the guard saw (verdicts.py); the guard matters for the *observations* of a test cell,
which rest on instruments inside the student's process. A cell's observations are not trusted when:

- the guard's check before the cell never reported (something skipped the cell's first line, or
  replaced the guard);
- the guard found code that can rewrite a cell active when it ran (an input or AST transformer, a
  replaced ``run_cell``, a magic).

Other changes (a replaced ``torch.allclose``, a swapped ``__code__``, a trace function, an event
callback) were put back before the test ran, so they are only flagged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .compose import Plan
from .job import RunReport
from .kernel_guard import UNTRUSTED

MAX_AUDIT_FLAGS = 5


@dataclass
class Integrity:
    untrusted: dict[str, str] = field(default_factory=dict)  # grade_id -> why its observations are not trusted
    flags: list[str] = field(default_factory=list)


def assess(plan: Plan, nb, report: RunReport) -> Integrity:
    checks, audits = {}, []
    for record in report.channel:
        if "nonce" in record:
            checks.setdefault(str(record["nonce"]), record)
        elif "audit" in record:
            audits.append(f"{record.get('audit')}: {record.get('detail')}")
    verdict = Integrity(flags=list(plan.flags))
    findings: dict[tuple[str, str], list[str]] = {}
    for slot in plan.tests:
        cell = nb.cells[slot.index]
        check = checks.get(slot.nonce)
        if check is not None and check.get("cell") == slot.grade_id:
            for kind, detail in check.get("found", []):
                findings.setdefault((str(kind), str(detail)), []).append(slot.grade_id)
        ran = cell.get("execution_count") is not None or bool(cell.get("outputs"))
        if not ran:
            continue
        if check is None or check.get("cell") != slot.grade_id:
            verdict.untrusted[slot.grade_id] = "the grader's check before the cell never reported (something skipped or replaced it)"
        elif any(kind in UNTRUSTED for kind, _ in check.get("found", [])):
            verdict.untrusted[slot.grade_id] = "code that can rewrite a cell was active when it ran"
    for (kind, detail), where in findings.items():
        effect = "its observations were not trusted" if kind in UNTRUSTED else "put back before the test ran"
        verdict.flags.append(f"{kind}: {detail[:200]} (found before {', '.join(where)}; {effect})")
    if verdict.untrusted:
        by_reason: dict[str, list[str]] = {}
        for cell, why in verdict.untrusted.items():
            by_reason.setdefault(why, []).append(cell)
        for why, where in by_reason.items():
            verdict.flags.append(f"observations not trusted because {why}: {', '.join(where)}")
    verdict.flags += list(dict.fromkeys(a[:200] for a in audits))[:MAX_AUDIT_FLAGS]
    return verdict
