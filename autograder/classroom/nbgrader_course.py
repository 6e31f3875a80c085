"""The instructor's nbgrader course, as nbgrader's own commands see it from a folder.

Its settings (gradebook, course id, the ``submitted``, ``autograded`` and ``feedback`` folders, the late
penalty) come from the same configuration files ``nbgrader collect`` or ``nbgrader export`` would read there:
``nbgrader_config.py`` in that folder and in every folder of ``JUPYTER_CONFIG_PATH`` (``make instructor``
puts ``jupyter/instructor`` there, whose gradebook lives in ``.instructor/``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..core import course

INSTRUCTOR_SETTINGS = course.ROOT / "jupyter" / "instructor"


@dataclass
class NbgraderCourse:
    root: Path
    db_url: str
    course_id: str
    config: object        # nbgrader's traitlets Config, for its own plugins (the late penalty)
    coursedir: object     # nbgrader.coursedir.CourseDirectory

    def folder(self, step: str, student: str, assignment: str) -> Path:
        """``<root>/<step>/<student>/<assignment>``, the layout of every nbgrader step."""
        return Path(self.coursedir.format_path(step, student, assignment))

    @property
    def autograded(self) -> str:
        return self.coursedir.autograded_directory

    @property
    def feedback(self) -> str:
        return self.coursedir.feedback_directory

    @property
    def submitted(self) -> str:
        return self.coursedir.submitted_directory


def load(root: Path) -> NbgraderCourse:
    """nbgrader's settings for the course whose folder is ``root``."""
    from nbgrader.apps.baseapp import NbGrader

    root = Path(root).resolve()
    here, config_path = os.getcwd(), os.environ.get("JUPYTER_CONFIG_PATH")
    if root == course.ROOT.resolve():
        # This kit's own instructor course: its settings are the instructor set-up's (what make instructor and
        # make nbgrader use), wherever this command was started from.
        os.environ["JUPYTER_CONFIG_PATH"] = os.pathsep.join(filter(None, [str(INSTRUCTOR_SETTINGS), config_path]))
    os.chdir(root)  # nbgrader reads nbgrader_config.py from the working folder, as its commands do
    try:
        app = NbGrader()
        app.initialize([], root=str(root))
    finally:
        os.chdir(here)
        if config_path is None:
            os.environ.pop("JUPYTER_CONFIG_PATH", None)
        else:
            os.environ["JUPYTER_CONFIG_PATH"] = config_path
    coursedir = app.coursedir
    if not coursedir.course_id:
        raise SystemExit(f"no nbgrader course id is set for {root}: add c.CourseDirectory.course_id = '...' to its "
                         "nbgrader_config.py (make instructor sets 'pytorch-course')")
    return NbgraderCourse(Path(coursedir.root), coursedir.db_url, coursedir.course_id, app.config, coursedir)
