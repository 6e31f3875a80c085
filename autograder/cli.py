"""python -m autograder: release the lessons, check a notebook, grade a folder of submissions (on this
machine, or in shards on a Slurm or Kubernetes cluster)."""

from __future__ import annotations

import argparse
from pathlib import Path

from .scale import shards
from .scale.kubernetes import MERGE_WAIT_S
from .grading.job import Limits
from .core.settings import EXIT_NEEDS_INSTRUCTOR, EXIT_SHARDS_MISSING, FINISHED


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m autograder", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("release", help="regenerate lessons/ from solutions/ (idempotent)")
    p.add_argument("names", nargs="*", help="assignments to release (default: all)")
    p.add_argument("--into", type=Path, help="write the release here instead of lessons/")
    p.add_argument("--lang", action="append", metavar="CODE",
                   help="also write this edition (lessons/CODE/NN/NN.ipynb) of each shipped lesson, e.g. pt_BR; "
                        "'all' (the default) writes every edition; with --into, lessons in progress too (a preview)")

    p = sub.add_parser("translations", help="the editions' catalogs (translations/CODE/NAME.po): update them from the "
                                            "English, check what is stale or missing (docs/translations/README.md)")
    p.add_argument("names", nargs="*", metavar="NAME", help="catalogs: a notebook, a document or a package (default: all)")
    p.add_argument("--lang", action="append", metavar="CODE", help="an edition, e.g. pt_BR (repeatable; default: all)")
    p.add_argument("--update", action="store_true",
                   help="merge the current English into the catalogs (translations kept; changed English marked fuzzy)")
    p.add_argument("--check", action="store_true",
                   help="exit 1 when a shipped catalog is not complete (every entry translated and current)")

    p = sub.add_parser("check", help="run a notebook and list its visible checks with hints")
    p.add_argument("notebook", type=Path)

    p = sub.add_parser("grade", help="autograde SUBMISSIONS/<student>/<assignment>/<assignment>.ipynb")
    p.add_argument("submissions", type=Path)
    p.add_argument("--out", type=Path, default=Path("graded"), help="where grades.csv, cells.csv and feedback/ go (default: graded/)")
    p.add_argument("--workdir", type=Path, help="keep the grader's private folders (composed and executed notebooks, logs) here")
    p.add_argument("--jobs", type=int, default=1, help="grade this many submissions at once (default: 1)")
    p.add_argument("--runner", choices=["cpu", "gpu", "auto"], default="auto",
                   help="gpu runs GPU-only tests; cpu reports them as not run; auto picks by torch.cuda.is_available()")
    p.add_argument("--shard", type=shards.parse_shard, metavar="K/N",
                   help="grade only shard K (0..N-1) of N, balanced by measured time; put the shards together with merge")
    add_gradebook_options(p)
    add_grading_options(p)

    p = sub.add_parser("gradebook", help="record a finished grading (grade or merge --out folder) in the nbgrader gradebook")
    p.add_argument("graded", type=Path, metavar="OUT", help="the --out folder of grade or merge (grades.csv, cells.csv, feedback/)")
    p.add_argument("--submissions", type=Path, required=True,
                   help="the submissions it graded (for their timestamps and the copies Formgrader shows)")
    p.add_argument("--course", type=Path, default=Path("."),
                   help="the nbgrader course folder whose nbgrader_config.py names the gradebook (default: here)")

    p = sub.add_parser("merge", help="put the shards of one class (grade --shard K/N) together, as one grade would have")
    p.add_argument("folders", nargs="+", type=Path, metavar="OUT_K", help="each shard's --out folder")
    p.add_argument("--out", type=Path, required=True, help="where the class's grades.csv, cells.csv and feedback/ go")
    p.add_argument("--wait", type=float, default=0, metavar="SECONDS",
                   help="first wait up to this long for every shard to finish (for schedulers without job dependencies)")
    p.add_argument("--rerun-hint", help=argparse.SUPPRESS)  # printed when shards are missing; {shards}: their numbers

    p = sub.add_parser("slurm", help="grade SUBMISSIONS as a Slurm job array of N shards, then merge (docs/grading-at-scale.md)")
    p.add_argument("submissions", type=Path)
    p.add_argument("--shards", type=int, required=True, metavar="N", help="array tasks, one shard each")
    p.add_argument("--out", type=Path, default=Path("graded"),
                   help="the class's results; shards, scripts and logs go in it too (default: graded/)")
    p.add_argument("--partition", help="Slurm partition (default: the cluster's)")
    p.add_argument("--gpu", action="store_true", help="one GPU per shard (--gres=gpu:1) and grade --runner gpu")
    p.add_argument("--jobs", type=int, default=1, help="submissions graded at once in each shard (default: 1)")
    p.add_argument("--cpus-per-task", type=int, help="CPUs per shard (default: --jobs x --threads)")
    p.add_argument("--time", help="time limit per shard, as sbatch takes it (default: the partition's)")
    p.add_argument("--sbatch-option", action="append", metavar="OPTION",
                   help="one more #SBATCH option for both jobs, e.g. --sbatch-option=--account=abc (repeatable)")
    p.add_argument("--only", metavar="K[,K...]", help="submit only these shards (to re-run shards that died), and a merge")
    p.add_argument("--dry-run", action="store_true", help="print the scripts and the sbatch commands; submit nothing")
    add_grading_options(p)

    p = sub.add_parser("kubernetes", aliases=["k8s"],
                       help="print the Kubernetes Jobs that grade a class in N shards and merge them (docs/grading-at-scale.md)")
    p.add_argument("--shards", type=int, required=True, metavar="N", help="completions of the Indexed Job, one shard each")
    p.add_argument("--image", required=True, help="a container image with Python, this kit's requirements and bubblewrap")
    p.add_argument("--name", default="autograde", help="prefix of the Jobs' names (default: %(default)s)")
    p.add_argument("--namespace", help="Kubernetes namespace (default: kubectl's)")
    p.add_argument("--parallelism", type=int, help="pods at once (default: all N)")
    p.add_argument("--gpu", action="store_true", help="one GPU per pod (nvidia.com/gpu: 1) and grade --runner gpu")
    p.add_argument("--jobs", type=int, default=1, help="submissions graded at once in each pod (default: 1)")
    for claim, what in (("submissions", "the submissions (read-only)"), ("course", "this course's folder (read-only)"),
                        ("results", "the results, shared by every pod (ReadWriteMany)")):
        p.add_argument(f"--{claim}-claim", default=claim, help=f"PersistentVolumeClaim holding {what} (default: %(default)s)")
    p.add_argument("--data-claim", help="PersistentVolumeClaim with mnist/ and fashion-mnist/ (read-only; default: none)")
    p.add_argument("--merge-wait", type=float, default=MERGE_WAIT_S, metavar="SECONDS",
                   help="how long the merge Job waits for every shard before naming those missing (default: %(default)g)")
    add_grading_options(p)

    p = sub.add_parser("variants", help="try the wrong and right answers in tests/variants/ against the tests")
    p.add_argument("names", nargs="*", help="assignments (default: all that have a variants file)")

    p = sub.add_parser("mutants", help="mutation analysis: each graded cell's solution changed in small ways, tried against "
                                       "its hidden tests (killed, survived, or equivalent by tests/mutants/NN.toml)")
    p.add_argument("name", help="the assignment")
    p.add_argument("grade_id", nargs="?", help="one graded answer cell (default: all of the assignment's)")
    p.add_argument("--write", action="store_true", help="record the run in tests/mutants/NN.json (docs/promises.md reads it)")
    p.add_argument("--jobs", type=int, default=1, help="mutants tried at once (default: 1)")
    p.add_argument("--list", action="store_true", help="only list the mutants, without running them")

    sub.add_parser("promises", help="regenerate docs/promises.md, the table of promises, from tests/variants/")

    p = sub.add_parser("show", help="an assignment as plain text: each graded cell's points, instructions, solution, "
                                    "hidden tests and their rules")
    p.add_argument("assignment", metavar="NN", help="the assignment, e.g. 02_autograd")
    p.add_argument("grade_id", nargs="?", metavar="GRADE_ID", help="only this graded cell (its answer's or a test cell's id)")

    p = sub.add_parser("list", help="every assignment with its points (automatic, GPU-only, written)")
    p.add_argument("--write", action="store_true", help="instead, rewrite the README's lessons table (titles, points, times)")

    p = sub.add_parser("options", help="regenerate docs/options.md: every command's options and defaults, the limits, "
                                       "the exit codes")
    p.add_argument("--check", action="store_true", help="only say whether docs/options.md is current (exit 1 if not)")

    p = sub.add_parser("similarity", help="pairs of students whose answers are too alike to be chance, on this machine "
                                          "(docs/similarity.md)")
    p.add_argument("names", nargs="*", metavar="NN", help="assignments to compare")
    p.add_argument("--all", action="store_true", help="every assignment that has submissions")
    p.add_argument("--submitted", type=Path, default=Path("submitted"),
                   help="SUBMITTED/<student>/<assignment>/<assignment>.ipynb (default: submitted/, as nbgrader collects)")
    p.add_argument("--out", type=Path, default=Path("similarity"), help="where NN.csv and NN.html go (default: similarity/)")
    p.add_argument("--threshold", type=float, default=None,
                   help="list a pair of code answers from this score, 0 to 1 (default: 0.75, a conservative line)")
    p.add_argument("--written-threshold", type=float, default=None,
                   help="list a pair of written answers from this score, 0 to 1 (default: 0.4)")
    p.add_argument("--top", type=int, default=None,
                   help="show at least this many of the class's highest pairs, listed or not (default: 20)")
    return parser


def add_gradebook_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--student", action="append", dest="students",
                   help="grade only this student (repeatable); other rows of the gradebook are left as they are")
    p.add_argument("--gradebook", action="store_true",
                   help="then record the scores in the nbgrader gradebook of --course, with the copies Formgrader shows "
                        "and the feedback pages for nbgrader release_feedback")
    p.add_argument("--course", type=Path, default=Path("."),
                   help="the nbgrader course folder whose nbgrader_config.py names the gradebook (default: here)")


def add_grading_options(p: argparse.ArgumentParser) -> None:
    """How each submission is graded: the same options for grade and for every shard of slurm and kubernetes."""
    defaults = Limits()
    p.add_argument("--assignment", action="append", dest="names", help="grade only this assignment (repeatable)")
    limits = p.add_argument_group("limits of each submission (their defaults: Limits, autograder/grading/job.py)")
    limits.add_argument("--timeout", type=float, default=defaults.wall_s,
                        help="wall-time limit per submission, seconds (default: %(default)g)")
    limits.add_argument("--cell-timeout", type=int, default=defaults.cell_s, help="per-cell limit, seconds (default: %(default)s)")
    limits.add_argument("--memory-mb", type=int, default=defaults.memory_mb,
                        help="heap and private memory per process (RLIMIT_DATA), MB (default: %(default)s)")
    limits.add_argument("--file-mb", type=int, default=defaults.file_mb, help="largest file written, MB (default: %(default)s)")
    limits.add_argument("--tmp-mb", type=int, default=defaults.tmp_mb, help="size of the private /tmp and /dev/shm, MB (default: %(default)s)")
    limits.add_argument("--processes", type=int, default=defaults.processes, help="process limit (default: %(default)s)")
    limits.add_argument("--threads", type=int, default=defaults.threads, help="maths threads per job (default: %(default)s)")
    limits.add_argument("--allow-network", action="store_true", help="do not cut the submission off the network")
    p.add_argument("--unsafe-no-sandbox", action="store_true",
                   help="grade even where bubblewrap cannot run (the kernel then sees this machine; every row says so)")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "release":
        from .authoring import release

        release.release(args.names, into=args.into, languages=args.lang)
        return 0
    if args.command == "translations":
        from .authoring import catalogs
        from .core import editions

        chosen = editions.chosen(args.lang)
        if args.update:
            for edition in chosen:
                for path in catalogs.update(edition, args.names or None):
                    print(f"updated {path.relative_to(path.parents[2])}")
        statuses, complete = catalogs.check(chosen, args.names or None)
        print(catalogs.report(statuses))
        if args.check and not complete:
            print("A shipped catalog is not complete: translate what is listed (docs/translations/README.md), or take "
                  "it out of `shipped` in autograder/core/editions.py.")
            return 1
        return 0
    if args.command == "check":
        from .authoring.check import check

        return check(args.notebook)
    if args.command == "promises":
        from .authoring import promises

        print(f"{promises.TABLE} and {promises.SECURITY} " + ("updated" if promises.write() else "unchanged"))
        return 0
    if args.command in ("show", "list"):
        from .authoring import show

        if args.command == "list" and args.write:
            print(f"{show.README} " + ("updated" if show.write_readme() else "unchanged"))
            return 0
        print(show.show(args.assignment, args.grade_id) if args.command == "show" else show.listing(), end="")
        return 0
    if args.command == "options":
        from .authoring import options

        return options.main(build_parser(), check_only=args.check)
    if args.command == "similarity":
        from .classroom import similarity

        if bool(args.names) == args.all:
            raise SystemExit("name the assignments to compare (python -m autograder similarity 05_training_loop), "
                             "or --all for every one, not both")
        options = similarity.Options(args.threshold, args.written_threshold,
                                     similarity.TOP if args.top is None else args.top)
        similarity.run(args.submitted, None if args.all else args.names, args.out, options)
        return 0
    if args.command == "mutants":
        from .authoring import mutants

        if args.list:
            for mutant in mutants.all_mutants(args.name, args.grade_id):
                print(mutant.label())
            return 0
        return mutants.report(args.name, args.grade_id, write=args.write, jobs=args.jobs)
    if args.command == "variants":
        from .authoring.variants import VARIANTS_DIR, report

        names = args.names or sorted(p.stem for p in VARIANTS_DIR.glob("*.py"))
        return max([report(name) for name in names] + [0])
    if args.command in ("merge", "slurm", "kubernetes", "k8s"):
        return _cluster_command(args)
    if args.command == "gradebook":
        from .classroom import gradebook, nbgrader_course
        from .grading.results import read_csvs, write_csvs

        nbc = nbgrader_course.load(args.course)
        results = read_csvs(args.graded)
        print(gradebook.record(results, args.submissions, nbc, args.graded / "feedback").summary(nbc))
        write_csvs(results, args.graded)   # a submission that could not be recorded says so in its row
        return _exit_code(results)
    from .scale.grade import grade

    nbc = None
    if args.gradebook and args.shard:
        raise SystemExit("--gradebook records a whole grading: grade the shards without it, merge them, then run "
                         "python -m autograder gradebook MERGED --submissions SUBMISSIONS")
    if args.gradebook:  # read before grading, so that a course without an id stops before the first student
        from .classroom import nbgrader_course

        nbc = nbgrader_course.load(args.course)
    limits = Limits(wall_s=args.timeout, cell_s=args.cell_timeout, memory_mb=args.memory_mb, file_mb=args.file_mb,
                    tmp_mb=args.tmp_mb, processes=args.processes, threads=args.threads, network=args.allow_network)
    results = grade(args.submissions, args.out, names=args.names, workdir=args.workdir, limits=limits,
                    jobs=args.jobs, runner=args.runner, unsafe_no_sandbox=args.unsafe_no_sandbox, shard=args.shard,
                    students=args.students)
    if nbc is not None:
        from .classroom import gradebook
        from .grading.results import write_csvs

        print(gradebook.record(results, args.submissions, nbc, args.out / "feedback").summary(nbc))
        write_csvs(results, args.out)   # a submission that could not be recorded says so in its row
    return _exit_code(results)


def _exit_code(results) -> int:
    """0 when every submission was graded (or not handed in), else EXIT_NEEDS_INSTRUCTOR (core/settings.py)."""
    return 0 if all(r.status in FINISHED for r in results) else EXIT_NEEDS_INSTRUCTOR


def _cluster_command(args: argparse.Namespace) -> int:
    """merge, slurm and kubernetes (docs/grading-at-scale.md)."""
    from .scale import cluster

    if args.command == "merge":
        from .scale.merge import MissingShards, merge

        try:
            results = merge(args.folders, args.out, wait_s=args.wait)
        except MissingShards as missing:
            print(missing)
            if args.rerun_hint:
                print("Or submit them again with:\n  " + args.rerun_hint.replace("{shards}", ",".join(map(str, sorted(missing.missing)))))
            return EXIT_SHARDS_MISSING
        return _exit_code(results)
    if args.command == "slurm":
        from .scale import slurm

        slurm.submit(slurm.from_args(args, cluster.grading_options(args)), dry_run=args.dry_run)
        return 0
    from .scale import kubernetes

    print(kubernetes.from_args(args, cluster.grading_options(args)).render(), end="")
    return 0
