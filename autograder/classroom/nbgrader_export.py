"""``nbgrader export``, written by the course's CSV rules (core/csv_safe.py).

nbgrader's own CSV exporter joins its fields with commas as they are: a roster name with a comma moves every later
column, and a name or e-mail address an LMS sync or ``nbgrader db student import`` brought in (``=HYPERLINK(...)``,
``-2+3``) is a live formula in the spreadsheet that opens the file. The course's nbgrader settings
(``core/settings.py``, ``configure``) make this class ``ExportApp.plugin_class``: the same columns, rows and
options (``--to``, ``--assignment``, ``--student``), with ids, names and dates as quoted text that never starts a
formula, and scores as numbers.
"""

from __future__ import annotations

from nbgrader.api import MissingEntry
from nbgrader.plugins import ExportPlugin

from ..core import csv_safe

COLUMNS = ["assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email",
           "raw_score", "late_submission_penalty", "score", "max_score"]


def _when(value) -> str | None:
    return None if value is None else str(value)


class SafeCsvExport(ExportPlugin):
    """nbgrader's CSV export (same columns and options), each field written by core/csv_safe.py."""

    def export(self, gradebook) -> None:
        dest = self.to or "grades.csv"
        students, assignments = [str(s) for s in self.student], [str(a) for a in self.assignment]
        self.log.info("Exporting grades to %s (text quoted, no field starts a formula)", dest)
        rows = []
        for assignment in gradebook.assignments:
            if assignments and assignment.name not in assignments:
                continue
            for student in gradebook.students:
                if students and student.id not in students:
                    continue
                try:
                    submission = gradebook.find_submission(assignment.name, student.id)
                except MissingEntry:   # nothing handed in: nbgrader's export gives 0
                    stamp, raw, penalty = None, 0.0, 0.0
                else:
                    stamp, raw, penalty = submission.timestamp, submission.score, submission.late_submission_penalty or 0.0
                rows.append([assignment.name, _when(assignment.duedate), _when(stamp), student.id, student.last_name or "",
                             student.first_name or "", student.email or "", raw, penalty, max(0.0, raw - penalty),
                             assignment.max_score])
        csv_safe.write(dest, COLUMNS, rows)
