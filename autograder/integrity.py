"""Flags for the instructor: signs that a submission tried to game the grader.

Flags never change a score; they point at something a person should look at. Two sources: the
student's own cells (read as text before grading) and the audit log the kernel guard wrote while
the notebook ran.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from nbformat import NotebookNode

from . import notebooks

_PATTERNS = [
    (re.compile(r"\b__builtins__\b|\bimport\s+builtins\b|\bbuiltins\s*\.\s*\w+\s*="), "redefines Python builtins"),
    (re.compile(r"^\s*(AssertionError|assert_\w*|check\w*|CheckFailed)\s*=", re.M), "redefines an assertion or check"),
    (re.compile(r"\btorch(\s*\.\s*\w+)+\s*=(?!=)|setattr\(\s*torch\b"), "monkeypatches torch"),
    (re.compile(r"\b(coursekit|checks)(\s*\.\s*\w+)+\s*=(?!=)|setattr\(\s*(coursekit|checks)\b"), "monkeypatches the course's helper package"),
    (re.compile(r"\bsys\s*\.\s*modules\s*\["), "replaces modules in sys.modules"),
    (re.compile(r"gradebook\.db"), "mentions the gradebook"),
]


def scan_cells(nb: NotebookNode) -> list[str]:
    """Flags raised by the text of the student's cells (test cells are the grader's, so skipped)."""
    flags = []
    for cell in nb.cells:
        if cell.cell_type != "code" or notebooks.is_test_cell(cell):
            continue
        where = notebooks.grading(cell).get("grade_id") or f"cell {nb.cells.index(cell) + 1}"
        for pattern, what in _PATTERNS:
            if pattern.search(cell.source):
                flags.append(f"{what} ({where})")
    return flags


def read_audit_log(path: Path, limit: int = 5) -> list[str]:
    """Flags from the kernel guard's audit log: each kind once, with up to ``limit`` examples."""
    if not path.is_file():
        return []
    seen: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        details = seen.setdefault(entry.get("kind", "?"), [])
        if entry.get("detail") not in details:
            details.append(entry.get("detail"))
    return [f"{kind}: {', '.join(d for d in details[:limit] if d)}" for kind, details in sorted(seen.items())]
