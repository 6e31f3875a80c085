# nbgrader settings that only the instructor set-up adds (`make instructor` and `make nbgrader` put this folder
# on JUPYTER_CONFIG_PATH; the course root's nbgrader_config.py still applies and comes first). This is the
# instructor's nbgrader course: Formgrader, `nbgrader release_assignment/collect/release_feedback/export` and
# `python -m autograder grade --gradebook` all read it.
import os
from pathlib import Path

work = Path(__file__).resolve().parents[2] / ".instructor"
work.mkdir(exist_ok=True)

c = get_config()  # noqa: F821 (provided by nbgrader when it loads this file)
# The gradebook (it stores every hidden test: never commit it) lives in the git-ignored .instructor/.
c.CourseDirectory.db_url = f"sqlite:///{work / 'gradebook.db'}"
# The exchange students fetch from and submit to. On one machine (a dry run) it is .instructor/exchange; on a
# shared server (JupyterHub) it is the folder every student's server also names, for example
# COURSE_EXCHANGE=/srv/nbgrader/exchange (docs/instructor-guide.md, "A course on a shared server (JupyterHub)").
exchange = Path(os.environ.get("COURSE_EXCHANGE") or work / "exchange")
if not os.environ.get("COURSE_EXCHANGE"):
    exchange.mkdir(exist_ok=True)
c.Exchange.root = str(exchange)
c.CourseDirectory.course_id = os.environ.get("COURSE_ID", "pytorch-course")
# Late submissions: nbgrader's own choice of penalty, applied when `grade --gradebook` records a submission
# handed in after the due date you set in Formgrader ("none" keeps the score; "zero" gives 0).
c.LateSubmissionPlugin.penalty_method = os.environ.get("COURSE_LATE_PENALTY", "none")
# Formgrader shows each student's notebook in the instructor's browser, at the server's own origin: markdown a
# student wrote (a written answer) must not run there. Its manual-grading template ignores this setting (the copy
# it shows is made inert by the grader instead, autograder/classroom/formgrader_copy.py); nbconvert's other
# templates, which Formgrader may use, honour it.
c.HTMLExporter.sanitize_html = True
