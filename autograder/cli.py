"""python -m autograder: release the lessons, check a notebook, grade a folder of submissions."""

from __future__ import annotations

import argparse
from pathlib import Path

from . import grade as grade_mod
from . import release as release_mod
from .check import check
from .sandbox import Limits


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
    defaults = Limits()
    p.add_argument("--jobs", type=int, default=1, help="grade this many submissions at once (default: 1)")
    p.add_argument("--runner", choices=["cpu", "gpu", "auto"], default="auto",
                   help="gpu runs GPU-only tests; cpu reports them as not run; auto picks by torch.cuda.is_available()")
    p.add_argument("--timeout", type=float, default=defaults.wall_s,
                   help="wall-time limit per submission, seconds (default: %(default)g)")
    p.add_argument("--cell-timeout", type=int, default=defaults.cell_s, help="per-cell limit, seconds (default: %(default)s)")
    p.add_argument("--memory-mb", type=int, default=defaults.memory_mb, help="address space per process, MB (default: %(default)s)")
    p.add_argument("--file-mb", type=int, default=defaults.file_mb, help="largest file written, MB (default: %(default)s)")
    p.add_argument("--processes", type=int, default=defaults.processes, help="process limit (default: %(default)s)")
    p.add_argument("--threads", type=int, default=defaults.threads, help="maths threads per job (default: %(default)s)")
    p.add_argument("--allow-network", action="store_true", help="do not cut the submission off the network")

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
    limits = Limits(wall_s=args.timeout, cell_s=args.cell_timeout, memory_mb=args.memory_mb, file_mb=args.file_mb,
                    processes=args.processes, threads=args.threads, network=args.allow_network)
    results = grade_mod.grade(args.submissions, args.out, names=args.names, workdir=args.workdir, limits=limits,
                              jobs=args.jobs, runner=args.runner)
    return 0 if all(r.status in ("graded", "not submitted") for r in results) else 3
    return 0
