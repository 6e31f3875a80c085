"""python -m autograder: release the lessons, check a notebook, grade a folder of submissions."""

from __future__ import annotations

import argparse
from pathlib import Path

from .sandbox import Limits
from .settings import GRADED, NOT_SUBMITTED


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
    p.add_argument("--workdir", type=Path, help="keep the grader's private folders (composed and executed notebooks, logs) here")
    defaults = Limits()
    p.add_argument("--jobs", type=int, default=1, help="grade this many submissions at once (default: 1)")
    p.add_argument("--runner", choices=["cpu", "gpu", "auto"], default="auto",
                   help="gpu runs GPU-only tests; cpu reports them as not run; auto picks by torch.cuda.is_available()")
    p.add_argument("--timeout", type=float, default=defaults.wall_s,
                   help="wall-time limit per submission, seconds (default: %(default)g)")
    p.add_argument("--cell-timeout", type=int, default=defaults.cell_s, help="per-cell limit, seconds (default: %(default)s)")
    p.add_argument("--memory-mb", type=int, default=defaults.memory_mb,
                   help="heap and private memory per process (RLIMIT_DATA), MB (default: %(default)s)")
    p.add_argument("--file-mb", type=int, default=defaults.file_mb, help="largest file written, MB (default: %(default)s)")
    p.add_argument("--tmp-mb", type=int, default=defaults.tmp_mb, help="size of the private /tmp and /dev/shm, MB (default: %(default)s)")
    p.add_argument("--processes", type=int, default=defaults.processes, help="process limit (default: %(default)s)")
    p.add_argument("--threads", type=int, default=defaults.threads, help="maths threads per job (default: %(default)s)")
    p.add_argument("--allow-network", action="store_true", help="do not cut the submission off the network")
    p.add_argument("--unsafe-no-sandbox", action="store_true",
                   help="grade even where bubblewrap cannot run (the kernel then sees this machine; every row says so)")

    p = sub.add_parser("variants", help="try the wrong and right answers in tests/variants/ against the tests")
    p.add_argument("names", nargs="*", help="assignments (default: all that have a variants file)")

    sub.add_parser("promises", help="regenerate docs/promises.md, the table of promises, from tests/variants/")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "release":
        from . import release

        release.release(args.names, into=args.into)
        return 0
    if args.command == "check":
        from .check import check

        return check(args.notebook)
    if args.command == "promises":
        from . import promises

        print(f"{promises.TABLE} " + ("updated" if promises.write() else "unchanged"))
        return 0
    if args.command == "variants":
        from .variants import VARIANTS_DIR, report

        names = args.names or sorted(p.stem for p in VARIANTS_DIR.glob("*.py"))
        return max([report(name) for name in names] + [0])
    from .grade import grade

    limits = Limits(wall_s=args.timeout, cell_s=args.cell_timeout, memory_mb=args.memory_mb, file_mb=args.file_mb,
                    tmp_mb=args.tmp_mb, processes=args.processes, threads=args.threads, network=args.allow_network)
    results = grade(args.submissions, args.out, names=args.names, workdir=args.workdir, limits=limits,
                    jobs=args.jobs, runner=args.runner, unsafe_no_sandbox=args.unsafe_no_sandbox)
    return 0 if all(r.status in (GRADED, NOT_SUBMITTED) for r in results) else 3
