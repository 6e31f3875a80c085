"""nbgrader's collect, taking only what a person could have handed in, as data.

On a shared exchange the students write the inbound folders themselves: their names
(``<student>+<assignment>+<time>+<random>``) and everything in them. nbgrader's own collect stops for the whole class
at the first name it cannot read, copies any student id it finds into ``submitted/``, from where the id reaches
every page an instructor opens, skips names that start with ``.`` without a word, and copies with
``shutil.copytree``, which follows links (a link named as the notebook and pointing at the course's solution becomes
the student's notebook; one to the gradebook copies the gradebook) and stops at a named pipe. This collect
(``c.ExchangeFactory.collect``, set by ``core/settings.py``):

- leaves an inbound entry whose name is no submission's, whose student is no id, whose time is no time, or which is
  not a folder (a link, a pipe...) where it is, and says which and why; a student with one good and one refused
  submission gets the good one;
- copies regular files and folders only (core/student_files.py: never through a link, bounded in size, count and
  depth, nbgrader's ignore, include and size settings applied); each entry left out is named in the log;
- checks the copied ``timestamp.txt``: one that is missing or not a time (which would take Formgrader's *Manage
  Submissions* down for the whole assignment) is kept aside and replaced by the time in the folder's name, and the
  log says so;
- collects each student on their own: whatever one folder holds, the others are collected.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import stat
from datetime import datetime
from pathlib import Path

from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.utils import parse_utc

from ..core import student_files
from ..grading import intake
from .gradebook import TIME_FORMAT, TIMESTAMP, replace_timestamp

REFUSED = "refused"


class CollectStudentIds(ExchangeCollect):

    def init_src(self):
        super().init_src()
        # nbgrader finds inbound folders with a glob, which never matches a name that starts with '.': name them.
        pattern = f"{self.coursedir.student_id or '*'}+{self.coursedir.assignment_id}+*"
        for entry in sorted(os.scandir(self.inbound_path), key=lambda e: e.name):
            if entry.name.startswith(".") and fnmatch.fnmatchcase(entry.name, pattern):
                self._path_to_record(entry.path)   # refused (no id starts with '.'); says so in the log

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
                if not datetime(2000, 1, 1) <= when.replace(tzinfo=None) <= datetime(2200, 1, 1):
                    raise ValueError(parts[2])
            except (ValueError, OverflowError):
                problem, when = "its time is not a time", datetime.min
        if problem is None:
            try:
                mode = os.lstat(path).st_mode
            except OSError as error:   # gone, or not ours to look at
                problem, when = f"it could not be looked at ({type(error).__name__})", datetime.min
            else:
                if not stat.S_ISDIR(mode):
                    problem, when = f"it is {student_files.kind(mode)}, not a folder", datetime.min
        record = {"username": parts[0], "filename": name, "timestamp": when}
        if problem:
            record[REFUSED] = problem
            self.log.warning("Not collected: the inbound folder %s (%s). It stays in the exchange; ask the student to "
                             "submit again under their own id.", intake.shown(name), problem)
        return record

    def copy_files(self):
        self.src_records = [r for r in self.src_records if REFUSED not in r]
        if not self.src_records:
            self.log.warning("No submissions of '%s' for course '%s' to collect", self.coursedir.assignment_id,
                             self.coursedir.course_id)
            return
        self.log.info("Processing %d submissions of '%s' for course '%s'", len(self.src_records),
                      self.coursedir.assignment_id, self.coursedir.course_id)
        for record in self.src_records:
            try:
                self._collect(record)
            except Exception as error:  # noqa: BLE001 - one student's folder never stops the class
                self.log.error("Not collected: %s's submission %s (%s). The other students are collected.",
                               record["username"], intake.shown(record["filename"]), type(error).__name__)

    def _wanted(self, dest: Path, new: datetime) -> tuple[bool, str]:
        """Whether to copy over what ``dest`` holds (nbgrader's rules: --update, --before-duedate), and the words."""
        if not os.path.lexists(dest):
            return True, "Collecting submission"
        existing, _ = intake.read_timestamp(dest)   # one that is no time counts as none (nbgrader would stop)
        if self.update and (existing is None or new > existing):
            return True, "Updating submission"
        if self.before_duedate and existing != new:
            return True, "Updating submission"
        return False, "No newer submission to collect" if self.update else "Submission already exists, use --update to update"

    def _collect(self, record: dict) -> None:
        student, assignment = record["username"], self.coursedir.assignment_id
        source = Path(self.inbound_path) / record["filename"]
        dest = Path(self.coursedir.format_path(self.coursedir.submitted_directory, student, assignment))
        if self.check_owner:
            self._check_owner(source, student)
        copy, words = self._wanted(dest, record["timestamp"])
        self.log.info("%s: %s %s", words, student, assignment)
        if not copy:
            return
        dest.parent.mkdir(parents=True, exist_ok=True)
        staging = dest.parent / f".{dest.name}.collecting"
        shutil.rmtree(staging, ignore_errors=True)
        try:
            copied = student_files.copy_tree(source, staging, self._limits(), self._ignored)
        except (student_files.Refused, OSError) as error:
            shutil.rmtree(staging, ignore_errors=True)
            why = getattr(error, "reason", None) or f"it could not be read ({type(error).__name__})"
            self.log.warning("Not collected: %s's submission %s holds %s. It stays in the exchange%s.", student,
                             intake.shown(record["filename"]), why,
                             "; the copy collected before stays" if os.path.lexists(dest) else "")
            return
        for relative, why in copied.left_out:
            self.log.warning("Left out of %s's submission: %s is %s (collect takes regular files and folders only, "
                             "each within CourseDirectory.max_file_size)", student, intake.shown(relative), why)
        if not (staging / f"{assignment}.ipynb").is_file():
            self.log.warning("%s's submission has no %s.ipynb that is a regular file: grading will say the notebook is "
                             "missing; ask the student to submit the notebook file itself", student, assignment)
        self._check_timestamp(staging, student, record["timestamp"])
        if self.coursedir.groupshared:
            self._share(staging)
        if os.path.lexists(dest):
            shutil.rmtree(dest)
        os.rename(staging, dest)

    def _check_timestamp(self, folder: Path, student: str, named: datetime) -> None:
        """A ``timestamp.txt`` nbgrader and the gradebook can read: the student's own when it is a time, else the
        time in the inbound folder's name (what nbgrader's submit wrote in both), the student's file kept aside."""
        when, problem = intake.read_timestamp(folder)
        if when is not None:
            return
        stamp = named.strftime(TIME_FORMAT)
        kept = replace_timestamp(folder, stamp)
        self.log.warning("%s's %s: recorded as submitted at %s, the time in the inbound folder's name%s", student,
                         problem or f"{TIMESTAMP} is missing", stamp, f" (the student's file is kept as {kept})" if kept else "")

    def _limits(self) -> student_files.TreeLimits:
        return student_files.TreeLimits(file_bytes=1000 * self.coursedir.max_file_size,
                                        total_bytes=1000 * self.coursedir.max_dir_size)

    def _ignored(self, name: str, is_folder: bool) -> bool:
        """nbgrader's own rules for what a copy leaves out: CourseDirectory.ignore, and for files .include."""
        if any(fnmatch.fnmatch(name, pattern) for pattern in self.coursedir.ignore):
            return True
        include = self.coursedir.include
        return not is_folder and bool(include) and not any(fnmatch.fnmatch(name, pattern) for pattern in include)

    def _check_owner(self, source: Path, student: str) -> None:
        import pwd

        try:
            owner = pwd.getpwuid(os.lstat(source).st_uid).pw_name
        except KeyError:
            owner = "unknown id"
        if owner != student:
            self.log.warning("%s claims to be submitted by %s but is owned by %s; cheating attempt? You may disable "
                             "this warning by unsetting the option CollectApp.check_owner", intake.shown(source.name),
                             student, owner)

    @staticmethod
    def _share(folder: Path) -> None:
        """nbgrader's groupshared courses: the group may read and write what was collected."""
        for root, folders, files in os.walk(folder):
            os.chmod(root, os.stat(root).st_mode | 0o2770)
            for name in files:
                path = os.path.join(root, name)
                os.chmod(path, os.lstat(path).st_mode | 0o660)
