# nbgrader settings of a student's server on a shared machine (JupyterHub): the exchange the instructor releases
# to and collects from, and the course id. These are the two values a JupyterHub admin sets for every student,
# here through the environment of the single-user servers (or by copying this file to /etc/jupyter and writing
# them in): COURSE_EXCHANGE (default /srv/nbgrader/exchange) and COURSE_ID (default pytorch-course). The
# instructor's set-up must name the same two (jupyter/instructor/nbgrader_config.py).
import os

c = get_config()  # noqa: F821 (provided by nbgrader when it loads this file)
c.Exchange.root = os.environ.get("COURSE_EXCHANGE", "/srv/nbgrader/exchange")
c.CourseDirectory.course_id = os.environ.get("COURSE_ID", "pytorch-course")
