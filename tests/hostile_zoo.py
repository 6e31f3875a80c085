"""Hostile and broken submissions of lesson 01, one or more per attack class of docs/grading-security.md.

Each entry is a notebook (or raw text) and what grading it must give. The attacks are written to
work against a grader without this project's protections: the in-kernel tricks (class 9) sit on top
of answers that run but are wrong, so that a trick which neutered the tests would earn points.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import nbformat

from autograder.core import course, notebooks
from submission_factory import student_copy

NAME = "01_tensors"
FULL = 10.0
FIRST, LAST = "make-grid", "pairwise-distances"   # the first and the last exercise (2 points each)
MAKE_GRID = "def make_grid(rows, cols):\n    return torch.arange(rows * cols, dtype=torch.float32).reshape(rows, cols)\n"
SLEEPER_TAG = "autograder-zoo-sleeper"
ENV_MARK = "ENV-NAMES:"
PROC_MARK = "PROCESSES-SEEN:"

# Answers that run and return tensors of the right shape with the wrong values.
WRONG_ANSWERS = {
    "make-grid": "def make_grid(rows, cols):\n    return torch.zeros(rows, cols)\n",
    "rows-mean-above": "def rows_with_mean_above(x, threshold):\n    return x\n",
    "flatten-images": "def flatten_images(images):\n    return images.reshape(images.shape[0], -1) * 0\n",
    "channels-last": "def to_channels_last(images):\n    return images.permute(0, 2, 3, 1) * 0\n",
    "pairwise-distances": ("def pairwise_sq_distances(a, b):\n"
                           "    return torch.zeros(a.shape[0], b.shape[0], device=a.device, dtype=a.dtype)\n"),
}


@dataclass
class Expect:
    score: float | None                 # None: not checked (the reason or flag is what matters)
    words: tuple[str, ...] = ()         # each must appear in status, reason or flags
    status: str | None = None
    no_flags: bool = False
    extra: dict = field(default_factory=dict)


def wrong(before: str) -> nbformat.NotebookNode:
    """Every answer wrong but running, with ``before`` as a cell of its own above the first exercise."""
    return student_copy(NAME, replace=WRONG_ANSWERS, insert_before={FIRST: before})


def hostile_first(code: str) -> nbformat.NotebookNode:
    """The correct notebook with ``code`` at the top of the first exercise's cell."""
    return student_copy(NAME, replace={FIRST: code + "\n" + MAKE_GRID})


def hostile_last(code: str) -> nbformat.NotebookNode:
    """The correct notebook with ``code`` at the top of the last exercise's cell (earlier cells keep their points)."""
    answer = next(c.source for c in student_copy(NAME).cells if notebooks.grading(c).get("grade_id") == LAST)
    return student_copy(NAME, replace={LAST: code + "\n" + answer})


def stripped(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """What an editor that drops unknown metadata (and cell ids) hands in."""
    for cell in nb.cells:
        cell.metadata.pop("nbgrader", None)
        cell.pop("id", None)
    nb.nbformat_minor = 4
    return nb


def duplicated_test_cell(nb: nbformat.NotebookNode, grade_id: str) -> nbformat.NotebookNode:
    import copy

    index = next(i for i, c in enumerate(nb.cells) if notebooks.grading(c).get("grade_id") == grade_id)
    twin = copy.deepcopy(nb.cells[index])
    twin["id"] = "pasted-copy"
    nb.cells.insert(index + 1, twin)
    return nb


# --- class 9: tricks inside the kernel that would neuter the tests ------------------------------

IN_KERNEL_TRICKS = {
    "input-transformer": (
        "def _keep_ends(lines):\n"
        "    if any('check' in line for line in lines):\n"
        "        return [lines[0], lines[-1]]\n"
        "    return lines\n"
        "get_ipython().input_transformers_cleanup.append(_keep_ends)\n",
        "never reported"),   # what is left of each test cell no longer compiles, so even the guard's line never runs
    "ast-transformer": (
        "import ast\n"
        "class _DropChecks(ast.NodeTransformer):\n"
        "    def visit_Expr(self, node):\n"
        "        if isinstance(node.value, ast.Call) and 'check' in ast.unparse(node.value.func):\n"
        "            return None\n"
        "        return node\n"
        "    def visit_Assert(self, node):\n"
        "        return None\n"
        "get_ipython().ast_transformers.append(_DropChecks())\n", "AST transformer"),
    "replaced-run-cell": (
        "_shell = get_ipython()\n"
        "_original_run_cell = _shell.run_cell\n"
        "def _run_cell(raw_cell, *args, **kwargs):\n"
        "    if 'check' in raw_cell:\n"
        "        lines = raw_cell.strip().splitlines()\n"
        "        raw_cell = lines[0] + '\\n' + lines[-1]\n"
        "    return _original_run_cell(raw_cell, *args, **kwargs)\n"
        "_shell.run_cell = _run_cell\n", "never reported"),   # likewise
    "swallowing-magic": (
        "from IPython.core.magic import register_cell_magic\n"
        "@register_cell_magic\n"
        "def quiet(line, cell):\n"
        "    try:\n"
        "        get_ipython().ex(cell)\n"
        "    except Exception:\n"
        "        pass\n"
        "get_ipython().input_transformers_cleanup.append(\n"
        "    lambda lines: ['%%quiet\\n'] + lines if any('check' in l for l in lines) else lines)\n", "cell magic"),
    "hook-patches-hidden-tests": (
        "import coursekit.checks\n"
        "def _patch(info):\n"
        "    if 'BEGIN HIDDEN TESTS' in (info.raw_cell or ''):\n"
        "        for _name in ('check', 'check_close', 'check_shape', 'check_dtype', 'check_equal', 'check_device'):\n"
        "            setattr(coursekit.checks, _name, lambda *a, **k: None)\n"
        "        torch.allclose = lambda *a, **k: True\n"
        "get_ipython().events.register('pre_run_cell', _patch)\n", "event callback"),
    "settrace-skips-checks": (
        "import sys, linecache\n"
        "def _skip(frame, event, arg):\n"
        "    if event == 'call':\n"
        "        return _skip if 'ipykernel_' in frame.f_code.co_filename else None   # cells only\n"
        "    if event == 'line' and 'check' in linecache.getline(frame.f_code.co_filename, frame.f_lineno):\n"
        "        try:\n"
        "            frame.f_lineno = frame.f_lineno + 1\n"
        "        except ValueError:\n"
        "            pass\n"
        "    return _skip\n"
        "sys.settrace(_skip)\n", "trace function"),
    "allclose-through-an-alias": (
        "import coursekit.checks as _c\n"
        "_t = torch\n"
        "setattr(_t, 'allclose', lambda *a, **k: True)\n"
        "for _name in ('check', 'check_close', 'check_shape', 'check_dtype'):\n"
        "    vars(_c)[_name] = lambda *a, **k: None\n", "function replaced"),
    "fake-module-in-sys-modules": (
        "import sys, types\n"
        "_fake = types.ModuleType('coursekit.checks')\n"
        "for _name in ('check', 'check_close', 'check_shape', 'check_dtype', 'check_equal', 'check_device'):\n"
        "    setattr(_fake, _name, lambda *a, **k: None)\n"
        "sys.modules['coursekit.checks'] = _fake\n", "module replaced"),
    "wrapped-import": (
        "import builtins, types\n"
        "_real_import = builtins.__import__\n"
        "_fake = types.ModuleType('coursekit.checks')\n"
        "for _name in ('check', 'check_close', 'check_shape', 'check_dtype', 'check_equal', 'check_device'):\n"
        "    setattr(_fake, _name, lambda *a, **k: None)\n"
        "def _import(name, *args, **kwargs):\n"
        "    return _fake if name == 'coursekit.checks' else _real_import(name, *args, **kwargs)\n"
        "builtins.__import__ = _import\n", "builtins.__import__"),
}

# --- class 12: tricks aimed at checks that decide inside the kernel (issue 20). Hidden tests now send values that the
# grader judges outside, so each of these, on wrong answers, must still score 0. ----------------------------------

DECIDED_INSIDE_TRICKS = {
    # 1. Every check function keeps its identity but runs a no-op body.
    "code-swap": (
        "import coursekit, coursekit.checks, coursekit.testing, coursekit.hidden, torch.testing, types\n"
        "def _noop(*args, **kwargs):\n    return None\n"
        "for _module in (coursekit.checks, coursekit.testing, coursekit.hidden, torch.testing):\n"
        "    for _name, _value in list(vars(_module).items()):\n"
        "        if isinstance(_value, types.FunctionType) and not _value.__code__.co_freevars:\n"
        "            try:\n                _value.__code__ = _noop.__code__\n            except (ValueError, TypeError):\n                pass\n",
        "code replaced"),
    # 2. The check modules' own globals: a lenient torch and an isinstance that always agrees.
    "module-globals": (
        "import coursekit.checks, coursekit.testing, coursekit.hidden, types\n"
        "class _Lenient(types.ModuleType):\n"
        "    def __getattr__(self, name):\n"
        "        return (lambda *a, **k: True) if name in ('allclose', 'equal', 'isclose') else getattr(torch, name)\n"
        "_proxy = _Lenient('torch')\n"
        "for _module in (coursekit.checks, coursekit.testing, coursekit.hidden):\n"
        "    vars(_module)['torch'] = _proxy\n"
        "    vars(_module)['isinstance'] = lambda *a: True\n",
        "module global replaced"),
    # 3. torch.allclose and torch.equal replaced in every dict that holds them, the guard's records included.
    "gc-swap": (
        "import gc\n"
        "_yes = lambda *a, **k: True\n"
        "_real = {id(torch.allclose), id(torch.equal)}\n"
        "for _obj in gc.get_objects():\n"
        "    if isinstance(_obj, dict):\n"
        "        for _key, _value in list(_obj.items()):\n"
        "            if id(_value) in _real:\n"
        "                try:\n                    _obj[_key] = _yes\n                except Exception:\n                    pass\n",
        None),
    # 4. The cell parser wraps each test cell's body in try/except, keeping lines with random-looking tokens outside.
    "parser-patch": (
        "import ast, re\n"
        "_shell = get_ipython()\n"
        "_parse = _shell.compile.ast_parse\n"
        "def _lenient_parse(source, *args, **kwargs):\n"
        "    tree = _parse(source, *args, **kwargs)\n"
        "    if 'check' not in source and 'hidden' not in source:\n"
        "        return tree\n"
        "    keep = [n for n in tree.body if re.search(r'[0-9a-f]{12,}', ast.unparse(n))]\n"
        "    rest = [n for n in tree.body if n not in keep]\n"
        "    guarded = ast.Try(body=rest or [ast.Pass()], handlers=[ast.ExceptHandler(type=None, name=None, body=[ast.Pass()])],\n"
        "                      orelse=[], finalbody=[])\n"
        "    tree.body = keep + [guarded]\n"
        "    return ast.fix_missing_locations(tree)\n"
        "_shell.compile.ast_parse = _lenient_parse\n",
        "cell compiler"),
}

# Hidden-test source sent back to the student in encodings that line-by-line redaction cannot see. On correct
# answers: the pages must show none of it, in any encoding (test_hidden_tests_reach_no_page_in_any_encoding).
ENCODED_LEAKS = {
    "leak-base64-print": (
        "import base64\n"
        "get_ipython().events.register('pre_run_cell', lambda info: print(base64.b64encode((info.raw_cell or '').encode()).decode()))\n"),
    "leak-reversed-stderr": (
        "import sys\n"
        "get_ipython().events.register('pre_run_cell', lambda info: sys.stderr.write((info.raw_cell or '')[::-1] + '\\n'))\n"),
    "leak-exception-base64": (
        "import base64\n"
        "def _shout(info):\n"
        "    if 'hidden' in (info.raw_cell or ''):\n"
        "        raise RuntimeError(base64.b64encode(info.raw_cell.encode()).decode())\n"
        "get_ipython().events.register('pre_run_cell', _shout)\n"),
}

# Files handed in beside the notebook. The box gets the notebook only: a shadow package or a kernel launcher in the
# submission folder is never seen. student -> {path in the folder: content}.
SHADOW_COURSEKIT = (
    "import importlib.util, sys\n"
    "spec = importlib.util.find_spec('coursekit', [p for p in sys.path if p not in ('', '.', '/submission')])\n"
    "real = importlib.util.module_from_spec(spec)\n"
    "sys.modules['coursekit'] = real\n"
    "spec.loader.exec_module(real)\n"
    "import coursekit.checks, coursekit.hidden\n"
    "for _name in ('same', 'like', 'shapes', 'on_meta', 'accuracy', 'check', 'raises', 'observed'):\n"
    "    setattr(coursekit.hidden, _name, lambda *a, **k: None)\n")
EXTRA_FILES = {
    "shadow-package": {"coursekit/__init__.py": SHADOW_COURSEKIT},
    "shadow-launcher": {"ipykernel_launcher.py": "import sys\nsys.exit('a shadow launcher ran instead of the kernel')\n",
                        "coursekit/__init__.py": "raise ImportError('a shadow coursekit was imported')\n"},
}

AGREEABLE_TENSOR = (
    "class _Agreeable(torch.Tensor):\n"
    "    @classmethod\n"
    "    def __torch_function__(cls, func, types, args=(), kwargs=None):\n"
    "        if func in (torch.allclose, torch.equal, torch.isclose):\n"
    "            return True\n"
    "        return super().__torch_function__(func, types, args, kwargs or {})\n"
    "def make_grid(rows, cols):\n"
    "    return torch.zeros(rows, cols).as_subclass(_Agreeable)\n")


def zoo(listener_port: int, canary: str, out_folder: str, neighbour_folder: str) -> dict[str, tuple[object, Expect]]:
    """student name -> (notebook or raw text, what grading it must give)."""
    z: dict[str, tuple[object, Expect]] = {"correct": (student_copy(NAME), Expect(FULL, no_flags=True))}

    # 1, 2. Score storage and shared grading state: none exists inside the box.
    z["finds-gradebooks"] = (wrong(
        "import os, atexit\n"
        "found = []\n"
        "for top in ('/', '..', '../..', '/tmp', os.path.expanduser('~')):\n"
        "    for root, dirs, files in os.walk(top):\n"
        "        dirs[:] = [d for d in dirs if d not in ('proc', 'sys', 'dev', 'usr')]\n"
        "        found += [os.path.join(root, f) for f in files if f.endswith(('.db', 'nbgrader_config.py'))]\n"
        "print('GRADEBOOKS-FOUND:', found)\n"
        "atexit.register(lambda: open('/submission/scores.db', 'w').write('manual_score=100'))\n"), Expect(0.0))
    # 3. Persistence: code that would run in later processes.
    z["plants-pth"] = (wrong(
        "import site, sys, os\n"
        "for folder in site.getsitepackages() + sys.path:\n"
        "    try:\n"
        "        open(os.path.join(folder, 'zoo_persist.pth'), 'w').write('import os\\n')\n"
        "        print('WROTE', folder)\n"
        "    except OSError as error:\n"
        "        print('refused:', type(error).__name__)\n"
        "for k in range(2000):\n"
        "    open(f'/tmp/zoo-leftover-{k}', 'w').write('x')\n"), Expect(0.0))
    # 4. Solutions and hidden tests: files, the caller's source, a hook that prints every cell.
    z["reads-hidden-tests"] = (student_copy(NAME, replace={FIRST: (
        "import inspect, sys, glob, pathlib, coursekit\n"
        "get_ipython().events.register('pre_run_cell', lambda info: print(info.raw_cell))\n"
        "root = pathlib.Path(coursekit.__file__).resolve().parents[1]\n"
        "for path in [root / 'solutions', root / 'tests', *glob.glob('*.ipynb'), *glob.glob('/work/**/*.ipynb', recursive=True)]:\n"
        "    print('LOOKED AT', path, pathlib.Path(path).exists())\n"
        "def make_grid(rows, cols):\n"
        "    try:\n"
        "        print(''.join(inspect.findsource(sys._getframe(1))[0]))\n"
        "    except Exception as error:\n"
        "        print('no source', error)\n"
        "    return torch.arange(rows * cols, dtype=torch.float32).reshape(rows, cols)\n")}),
        Expect(FULL, ("event callback",)))
    # 5, 6. Other students, the host's processes, the grader's environment.
    z["looks-around"] = (hostile_first(
        "import os, json\n"
        f"print({PROC_MARK!r}, len([p for p in os.listdir('/proc') if p.isdigit()]))\n"
        f"print({ENV_MARK!r}, json.dumps(sorted(os.environ)))\n"
        f"for path in ({neighbour_folder!r}, {out_folder!r}):\n"
        "    try:\n"
        "        print(os.listdir(path))\n"
        "        open(os.path.join(path, 'zoo-was-here.html'), 'w').write('overwritten')\n"
        "    except OSError as error:\n"
        "        print('cannot reach', type(error).__name__)\n"), Expect(FULL, no_flags=True))
    z["network"] = (hostile_first(
        f"import socket\ntry:\n    socket.create_connection(('127.0.0.1', {listener_port}), timeout=3)\n"
        "    print('connected')\nexcept OSError as error:\n    print('no network:', error)\n"),
        Expect(FULL, ("network connection attempt",)))
    z["deletes-outside"] = (hostile_first(
        f"import os\ntry:\n    os.remove({canary!r})\n    print('deleted')\n"
        "except OSError as error:\n    print('could not delete:', error)\n"), Expect(FULL))
    # 7. Feedback that would run code in the instructor's browser.
    script_nb = hostile_first(
        "from IPython.display import HTML, Javascript, Markdown, display\n"
        "display(HTML('<script>document.title = \"zoo-script-ran\"</script><b onmouseover=\"alert(1)\">x</b>'))\n"
        "display(Javascript('document.title = \"zoo-js-ran\"'))\n"
        "display(Markdown('<img src=x onerror=\"alert(2)\"> [click](javascript:alert(3))'))\n")
    script_nb.cells.insert(1, nbformat.v4.new_markdown_cell(
        '<img src="x" onerror="alert(4)"> [a link](javascript:alert(5)) <iframe src="https://example.org"></iframe>'))
    z["scripts-in-feedback"] = (script_nb, Expect(FULL))
    z["=1+1"] = (student_copy(NAME), Expect(0.0, ("is not a student id",), "not a student id"))
    # 8. Links instead of notebooks (written by the test: see SYMLINKS).
    # 9. Tricks in the kernel, on answers that are all wrong.
    for student, (code, words) in IN_KERNEL_TRICKS.items():
        z[student] = (wrong(code), Expect(0.0, (words,)))
    z["agreeable-tensor"] = (student_copy(NAME, replace={**WRONG_ANSWERS, FIRST: AGREEABLE_TENSOR}),
                             Expect(0.0, ("tensor subclass",)))
    # 10. Honest students whose notebooks look odd: no false zeros.
    z["duplicated-locked-cell"] = (duplicated_test_cell(student_copy(NAME), "make-grid-tests"),
                                   Expect(FULL, ("duplicated a locked test cell",)))
    z["metadata-stripped"] = (stripped(student_copy(NAME)), Expect(FULL, ("matched to the lesson",)))
    z["unstoppable-last-cell"] = (hostile_last(
        "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
        "while True:\n    pass\n"), Expect(FULL - 2, ("pairwise-distances ignored the grader's interrupt",), "incomplete"))
    # Folder names no person has as an id (an option, a glob, a hidden file): listed by name, never graded; and
    # names that look odd but are ids: graded as anyone.
    for name in ("-h", "--force", "[ab]", ".hidden"):
        z[name] = (student_copy(NAME), Expect(0.0, ("is not a student id", "Rename the folder"), "not a student id"))
    for name in ("ann.lee@uni.example", "s-2027_007"):
        z[name] = (student_copy(NAME), Expect(FULL, no_flags=True))
    # 11. Names that look like tampering but are not.
    z["innocent-names"] = (student_copy(NAME, insert_before={FIRST: (
        "checkpoint_file = 'model.pt'\nchecked = True\ncheck_input = None\n"
        "torch.backends.cudnn.benchmark = False\ndtype: torch.dtype = torch.bfloat16\n")}), Expect(FULL, no_flags=True))
    # 13. A correct answer that writes warnings to stderr.
    z["warns"] = (student_copy(NAME, replace={FIRST: (
        "import warnings\n"
        "def make_grid(rows, cols):\n"
        "    warnings.warn('a harmless warning', UserWarning)\n"
        "    grid = torch.arange(rows * cols, dtype=torch.float32).reshape(rows, cols)\n"
        "    return torch.tensor(grid)   # copying a tensor with torch.tensor warns, and is still right\n")}),
        Expect(FULL, no_flags=True))
    # Limits and crashes.
    z["loop"] = (hostile_first("while True:\n    pass\n"), Expect(FULL - 2, ("time limit",)))
    z["memory-bomb"] = (hostile_first("bomb = bytearray(64 * 2**30)\n"), Expect(FULL - 2, ("memory",)))
    z["memory-hog"] = (hostile_first("hog = []\nwhile True:\n    hog.append(bytearray(200 * 2**20))\n"),
                       Expect(None, ("memory",)))
    z["os-exit"] = (hostile_first("import os\nos._exit(0)\n"), Expect(FULL - 2, ("os._exit",)))
    z["fork-bomb"] = (hostile_first(
        f"import subprocess\nkids = [subprocess.Popen(['sleep', '600', '{SLEEPER_TAG}'], start_new_session=True) "
        "for _ in range(100)]\nprint(len(kids), 'children started')\n"), Expect(FULL))
    z["big-output"] = (hostile_first("print('x' * 50_000_000)\n"), Expect(FULL))
    z["segfault-last-cell"] = (hostile_last("import ctypes\nctypes.string_at(0)\n"),
                               Expect(FULL - 2, ("crashed",), "incomplete"))
    z["tampered-tests"] = (student_copy(NAME, replace={
        "make-grid": WRONG_ANSWERS["make-grid"], "make-grid-tests": "print('all good')"}),
        Expect(FULL - 2, ("edited a locked test cell",)))
    z["deleted-test-cell"] = (student_copy(NAME, replace={"make-grid": WRONG_ANSWERS["make-grid"]},
                                           drop=("make-grid-tests",)), Expect(FULL - 2, ("deleted a graded cell",)))
    z["not-json"] = ("{ this is not a notebook", Expect(0.0, ("not valid JSON",), "invalid notebook"))
    z["blank"] = (notebooks.read(course.lesson_notebook(NAME)), Expect(0.0, no_flags=True))
    # 12. Tricks aimed at checks decided inside the kernel, on wrong answers: still 0.
    for student, (code, words) in DECIDED_INSIDE_TRICKS.items():
        z[student] = (wrong(code), Expect(0.0, (words,) if words else ()))
    for student, code in ENCODED_LEAKS.items():
        # The hook that raises shows its error in the first test cell, which costs that cell (an error is an error).
        full = FULL - 2 if student == "leak-exception-base64" else FULL
        z[student] = (student_copy(NAME, insert_before={FIRST: code}), Expect(full, ("event callback",)))
    z["shadow-package"] = (student_copy(NAME, replace=WRONG_ANSWERS), Expect(0.0, no_flags=True))
    z["shadow-launcher"] = (student_copy(NAME), Expect(FULL, no_flags=True))   # booby-trapped: seen, it would break
    z["prints-warns-plots"] = (student_copy(NAME, insert_before={"rows-mean-above": (
        "import sys, warnings\nimport matplotlib.pyplot as plt\n"
        "print('a correct notebook may print', make_grid(2, 2))\nprint('and write to stderr', file=sys.stderr)\n"
        "warnings.warn('and warn', UserWarning)\nplt.plot([0, 1], [1, 0]);\nplt.show()\n")}), Expect(FULL, no_flags=True))
    return z


# 8. student -> where their notebook links to (written as a symbolic link by the test).
SYMLINKS = {
    "link-to-solution": lambda: course.solution_notebook(NAME),
    "link-to-system-file": lambda: "/etc/passwd",
}
