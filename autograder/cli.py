"""python -m autograder: release the lessons, check a notebook, grade a folder of submissions."""

from __future__ import annotations

import argparse
from pathlib import Path

from . import grade as grade_mod
from . import release as release_mod
from .check import check


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m autograder", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("release", help="regenerate lessons/ from solutions/ (idempotent)")
    p.add_argument("names", nargs="*", help="assignments to release (default: all)")
    p.add_argument("--into", type=Path, help="write the release here instead of lessons/")

    p = sub.add_parser("check", help="run a notebook and list its visible checks with hints")
    p.add_argument("notebook", type=Path)

    p = sub.add_parser("grade", help="autograde SUBMISSIONS/<student>/<assignment>/<assignment>.ipynb")
    p.add_argument("submissions", type=Path)
    p.add_argument("--out", type=Path, default=Path("graded"), help="where grades.csv, cells.csv and feedback/ go (default: graded/)")
    p.add_argument("--assignment", action="append", dest="names", help="grade only this assignment (repeatable)")
    p.add_argument("--workdir", type=Path, help="keep nbgrader's scratch folders here (default: a temporary folder)")
    p.add_argument("--timeout", type=float, default=grade_mod.DEFAULT_SUBMISSION_TIMEOUT_S,
                   help="wall-time limit per submission in seconds (default: %(default)s)")

    p = sub.add_parser("variants", help="try the wrong and right answers in tests/variants/ against the tests")
    p.add_argument("names", nargs="*", help="assignments (default: all that have a variants file)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "release":
        release_mod.release(args.names, into=args.into)
        return 0
    if args.command == "check":
        return check(args.notebook)
    if args.command == "variants":
        from .variants import VARIANTS_DIR, report

        names = args.names or sorted(p.stem for p in VARIANTS_DIR.glob("*.py"))
        return max([report(name) for name in names] + [0])
    grade_mod.grade(args.submissions, args.out, names=args.names, workdir=args.workdir, timeout=args.timeout)
    return 0
