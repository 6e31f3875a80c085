"""Formgrader's pages rendered from the course's templates first, with every name escaped.

nbgrader 0.9.6 renders its list pages from ``.tpl`` templates with a Jinja environment that does not escape, and its
manual-grading page with nbconvert (which cannot escape by default: its filters write HTML); its templates print a
student's names and ids as they are, and put a page's names into inline scripts. A name comes from wherever the
gradebook got it: a roster (``nbgrader db student import``), an LMS, another tool. So, in the instructor set-up, this
module replaces the two renderers nbgrader put in the server's settings when it loaded:

- the list pages' environment autoescapes, and looks in ``courselab/templates/formgrade/`` first, where the course's
  templates extend nbgrader's (``nbgrader/NAME.tpl``) and replace only the parts that put names into scripts;
- the manual-grading page's exporter looks in the same folder first, for the course's navigation bar and ``<head>``
  (``formgrade_macros.html.j2``, every name escaped by hand) and a stand-in for MathJax (``mathjax.html.j2``).

nbgrader's code is not changed; its handlers read both from the settings on every request.
"""

from __future__ import annotations

import copy
from pathlib import Path

import jinja2

COURSE_TEMPLATES = Path(__file__).resolve().parent / "templates"
COURSE_FORMGRADE = COURSE_TEMPLATES / "formgrade"   # named after nbgrader's nbconvert template, which it comes before
INSTALLED = "courselab_formgrader_pages"              # the settings key that says the course's renderers are in place


def nbgrader_templates() -> Path:
    from nbgrader.server_extensions.formgrader import handlers

    return Path(handlers.template_path)


def environment(nbgrader_folder: Path) -> jinja2.Environment:
    """The list pages' Jinja environment: the course's templates first, nbgrader's also under ``nbgrader/``."""
    nbgrader = jinja2.FileSystemLoader(str(nbgrader_folder))
    loader = jinja2.ChoiceLoader([jinja2.FileSystemLoader(str(COURSE_FORMGRADE)), jinja2.PrefixLoader({"nbgrader": nbgrader}),
                                  nbgrader])
    return jinja2.Environment(loader=loader, autoescape=True)


def exporter(config, nbgrader_folder: Path):
    """The manual-grading page's exporter: nbgrader's settings (``config``), the course's templates first."""
    from nbconvert.exporters import HTMLExporter

    config = copy.deepcopy(config)
    config.HTMLExporter.template_name = "formgrade"
    config.HTMLExporter.extra_template_basedirs = [str(COURSE_TEMPLATES), str(nbgrader_folder)]
    return HTMLExporter(config=config)


def install(settings: dict) -> list[Path]:
    """Put the course's renderers in Formgrader's ``settings`` (the server's); return the template folders the pages
    are rendered from, for the page policy's hashes."""
    nbgrader_folder = nbgrader_templates()
    settings["nbgrader_jinja2_env"] = environment(nbgrader_folder)
    manual = exporter(settings["nbgrader_formgrader"].config, nbgrader_folder)
    settings["nbgrader_exporter"] = manual
    names = set(manual.get_template_names())      # formgrade, and the nbconvert templates it extends
    chain = [Path(p) for p in manual.template_paths if Path(p).name in names]
    settings[INSTALLED] = True
    return [COURSE_FORMGRADE, nbgrader_folder, *chain]
