# nbgrader settings for the course root: solutions/ is the source, lessons/ the student release.
# The shared values live in autograder/core/settings.py, so grading folders use exactly the same ones.
from autograder.core.settings import configure

c = get_config()  # noqa: F821 (provided by nbgrader when it loads this file)
configure(c, source="solutions", release="lessons")
