"""nbgrader's release_assignment, carrying the assignment's editions to the students.

nbgrader releases one folder per assignment, ``lessons/NN/``, which holds the English lesson only; an edition's lesson
sits in ``lessons/<code>/NN/`` (core/editions.py). So that a student on a shared server can take the course in their
language through the exchange like everyone else, this release (``c.ExchangeFactory.release_assignment``, set by
``core/settings.py``) copies, after nbgrader's own copy, each shipped edition's lesson into the released folder as
``<code>/NN.ipynb``. A student fetches ``NN/``, opens ``NN/pt_BR/NN.ipynb`` and hands in the whole folder, as
always; intake grades the edition the student worked in (grading/intake.py, ``edition_chosen``), in the same
gradebook assignment, and the feedback page speaks its language.
"""

from __future__ import annotations

import os
import shutil

from nbgrader.exchange.default.release_assignment import ExchangeReleaseAssignment

from ..core import editions


class ReleaseWithEditions(ExchangeReleaseAssignment):

    def copy_files(self):
        super().copy_files()
        name = self.coursedir.assignment_id
        for edition in editions.EDITIONS.values():
            source = editions.lesson_notebook(edition.code, name)
            if name not in edition.shipped or not source.is_file():
                continue
            folder = os.path.join(self.dest_path, edition.code)
            os.makedirs(folder, exist_ok=True)
            shutil.copyfile(source, os.path.join(folder, f"{name}.ipynb"))
            self.log.info("Released the %s edition as %s/%s.ipynb", edition.name, edition.code, name)
        self.set_perms(self.dest_path, fileperms=0o644 | (0o020 if self.coursedir.groupshared else 0),
                       dirperms=0o755 | (0o2020 if self.coursedir.groupshared else 0))
