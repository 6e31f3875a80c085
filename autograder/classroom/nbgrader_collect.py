"""nbgrader's collect, taking only submissions whose names a person could have written.

On a shared exchange the students write the inbound folder names themselves
(``<student>+<assignment>+<time>+<random>``). nbgrader's own collect stops for the whole class at the first name
it cannot read, and copies any student id it finds into ``submitted/``, from where the id reaches every page an
instructor opens. This collect (``c.ExchangeFactory.collect``, set by ``core/settings.py``) leaves such a folder
where it is, says which one and why, and collects everyone else. A student with one good and one unreadable
submission gets the good one (and the log names the other).
"""

from __future__ import annotations

import os
from datetime import datetime

from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.utils import parse_utc

from ..grading import intake

REFUSED = "refused"


class CollectStudentIds(ExchangeCollect):

    def _path_to_record(self, path):
        name = os.path.basename(path)
        parts = name.rsplit("+", 3)
        problem = "not a submission's name (student+assignment+time+random)" if len(parts) < 4 else None
        if problem is None and not intake.STUDENT_ID.fullmatch(parts[0]):
            problem = f"{intake.shown(parts[0])} is not a student id ({intake.STUDENT_ID_RULE})"
        when = datetime.min   # sorts last: a student's readable submission is taken before it
        if problem is None:
            try:
                when = parse_utc(parts[2])
            except (ValueError, OverflowError):
                problem = "its time is not a time"
        record = {"username": parts[0], "filename": name, "timestamp": when}
        if problem:
            record[REFUSED] = problem
            self.log.warning("Not collected: the inbound folder %s (%s). It stays in the exchange; ask the student to "
                             "submit again under their own id.", intake.shown(name), problem)
        return record

    def copy_files(self):
        self.src_records = [r for r in self.src_records if REFUSED not in r]
        super().copy_files()
