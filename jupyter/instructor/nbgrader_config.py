# nbgrader settings that only the instructor set-up adds (`make instructor` puts this folder on
# JUPYTER_CONFIG_PATH; the course root's nbgrader_config.py still applies and comes first).
# Formgrader's gradebook and exchange folder go to the git-ignored .instructor/ folder (not the course root,
# not /usr/local/share).
from pathlib import Path

work = Path(__file__).resolve().parents[2] / ".instructor"
work.mkdir(exist_ok=True)

c = get_config()  # noqa: F821 (provided by nbgrader when it loads this file)
c.CourseDirectory.db_url = f"sqlite:///{work / 'gradebook.db'}"
# Students hand in notebook files (README, "Grade"), so the course needs no exchange; Formgrader warns until
# it has one and a course id. A local one here makes its Release and Collect buttons work for a dry run.
(work / "exchange").mkdir(exist_ok=True)
c.Exchange.root = str(work / "exchange")
c.CourseDirectory.course_id = "pytorch-course"
