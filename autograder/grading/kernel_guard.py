# The grading kernel's guard: loaded by the grader before any student code, inside the sandbox.
#
# It is best effort by nature (it shares its process with the student's code; see
# docs/grading-security.md): what it cannot stop, it reports. Nothing here runs in a student's
# JupyterLab. It is started with ``runpy.run_path(path, run_name=RUN_NAME)`` and leaves a module
# of that name in sys.modules, whose ``before_test`` every test cell calls as its first line.
#
# - os._exit() raises KernelExitBlocked instead of ending the kernel, so later cells keep their points.
# - A snapshot, by identity, of what the tests rely on: IPython's transformers, event callbacks,
#   run_cell and friends, magics, trace and profile functions, builtins, the modules in sys.modules,
#   the functions of torch, numpy and coursekit and their code objects (a swapped ``__code__`` keeps
#   the function's identity), and every global of coursekit's modules. Before each test cell, ``before_test`` compares,
#   puts back what it can, and writes what it found to a pipe inherited from the grader (a channel the
#   kernel can add to but not take back from); the grader reads it outside the sandbox.
# - An audit hook that reports network connection attempts through the same pipe.
#
# Since the hidden tests' values are judged outside the box (coursekit/hidden.py), none of this decides a
# value: it keeps the instruments that observe the student's code honest where it can, and tells the
# instructor what was tried.
import json as _json
import os as _os
import sys as _sys

GUARD_MODULE = "_autograder_guard"        # the module test cells find in sys.modules
RUN_NAME = "__autograder_guard_main__"     # the name this file runs under (runpy removes it afterwards)
KERNEL_EXIT_BLOCKED = "KernelExitBlocked"
# Changes of these kinds mean the test cell's own code may have been altered before it ran: the grader
# scores such a cell 0. The others are put back before the test runs, so they are only reported.
UNTRUSTED = ("input transformer", "AST transformer", "run_cell", "cell compiler", "cell magic", "line magic")
# Callbacks that the course's own packages register (the inline plotting backend, widgets).
_TRUSTED_CALLBACK_MODULES = ("IPython.", "ipykernel.", "matplotlib_inline.", "matplotlib.", "ipywidgets.", "coursekit.")
# What the tests call, by module: every callable attribute is remembered by identity.
_WATCHED_MODULES = ("torch", "torch.nn", "torch.nn.functional", "torch.testing", "torch.linalg", "numpy",
                    "numpy.testing", "math", "coursekit", "coursekit.checks", "coursekit.testing", "coursekit.hidden",
                    "unittest.mock")
# Modules whose every global is remembered (the course's own: their names are few and never rebound).
_WHOLE_MODULES = ("coursekit.checks", "coursekit.testing", "coursekit.hidden")
_SWAPPED_BY_IPYKERNEL = ("input", "raw_input", "getpass")
_SHELL_METHODS = ("run_cell", "run_cell_async", "_run_cell", "run_ast_nodes", "run_code", "transform_cell",
                  "transform_ast", "should_run_async", "ex", "ev", "showtraceback")


class KernelExitBlocked(BaseException):
    """Raised instead of ending the kernel process from a cell."""


def _rewrapped(new, old, package: str) -> bool:
    """Whether ``new`` is the library's own wrapper of ``old`` (torch wraps some functions when one of its
    submodules is imported, for example ``torch.manual_seed`` when ``torch._dynamo`` loads)."""
    root = _sys.modules.get(package)
    folder = _os.path.dirname(getattr(root, "__file__", "") or "") + _os.sep
    code = getattr(new, "__code__", None)  # the wrapper's own code must be the library's, not a cell's
    if folder == _os.sep or code is None or not code.co_filename.startswith(folder):
        return False
    for _ in range(5):
        new = getattr(new, "__wrapped__", None)
        if new is old:
            return True
        if new is None:
            return False
    return False


def _callable_members(namespace: dict) -> dict:
    return {name: value for name, value in namespace.items() if callable(value)}


class _Guard:
    def __init__(self, fd: int):
        self.fd = fd
        self.shell = None
        try:
            self.shell = get_ipython()  # noqa: F821 (defined by IPython when this file runs)
        except NameError:
            pass
        import builtins

        for name in _WATCHED_MODULES:
            try:
                __import__(name)
            except Exception:  # an optional package (numpy) may be missing
                pass
        self.modules = {name: _sys.modules[name] for name in _WATCHED_MODULES if name in _sys.modules}
        self.modules["builtins"] = builtins
        self.members = {name: _callable_members(vars(module)) for name, module in self.modules.items()}
        for name in _SWAPPED_BY_IPYKERNEL:  # ipykernel swaps these around every request
            self.members["builtins"].pop(name, None)
        self.codes = {(name, attr): value.__code__ for name, members in self.members.items()
                      for attr, value in members.items() if type(getattr(value, "__code__", None)).__name__ == "code"
                      and getattr(value, "__module__", "") and str(getattr(value, "__module__", "")).startswith(("coursekit", "torch.testing"))}
        self.globals = {name: dict(vars(self.modules[name])) for name in _WHOLE_MODULES if name in self.modules}
        import torch

        self.tensor_members = _callable_members(vars(torch.Tensor))
        self.tensor_subclasses = set(self._tensor_subclasses())
        shell = self.shell
        if shell is not None:
            self.shell_lists = {kind: [(live, list(live)) for live in lists] for kind, lists in self._shell_lists().items()}
            self.shell_methods = {name: getattr(type(shell), name, None) for name in _SHELL_METHODS}
            self.compiler = shell.compile
            self.compiler_methods = {name: getattr(type(shell.compile), name, None)
                                     for name in ("ast_parse", "__call__", "cache", "format_code_name")}
            self.callbacks = {event: list(funcs) for event, funcs in shell.events.callbacks.items()}
            self.magics = {kind: dict(table) for kind, table in shell.magics_manager.magics.items()}

    # --- what the tests rely on -----------------------------------------------------------------

    def _shell_lists(self) -> dict:
        manager = self.shell.input_transformer_manager
        return {
            "input transformer": [self.shell.input_transformers_post, manager.cleanup_transforms,
                                  manager.line_transforms, manager.token_transformers],
            "AST transformer": [self.shell.ast_transformers],
        }

    @staticmethod
    def _tensor_subclasses():
        import torch

        todo, seen = list(torch.Tensor.__subclasses__()), []
        while todo:
            cls = todo.pop()
            seen.append(cls)
            todo.extend(cls.__subclasses__())
        return seen

    def _check_and_restore(self) -> list:
        """(kind, detail) for everything changed since the snapshot; what can be put back is."""
        found = []
        for name, module in self.modules.items():
            if _sys.modules.get(name) is not module:
                found.append(("module replaced", f"sys.modules[{name!r}]"))
                _sys.modules[name] = module
            namespace = vars(module)
            members = self.members[name]
            for attr, value in list(members.items()):
                current = namespace.get(attr)
                if current is value:
                    continue
                if _rewrapped(current, value, name.split(".")[0]):
                    members[attr] = current
                    continue
                found.append(("function replaced", f"{name}.{attr}"))
                setattr(module, attr, value)
        for (name, attr), code in self.codes.items():
            function = self.members[name].get(attr)
            if function is not None and getattr(function, "__code__", code) is not code:
                found.append(("code replaced", f"{name}.{attr}.__code__"))
                function.__code__ = code
        for name, saved in self.globals.items():
            namespace = vars(self.modules[name])
            for attr, value in saved.items():
                if attr in self.members[name] or attr.startswith("__"):
                    continue   # functions are checked above
                if namespace.get(attr) is not value:
                    found.append(("module global replaced", f"{name}.{attr}"))
                    namespace[attr] = value
        import torch

        for attr, value in self.tensor_members.items():
            if vars(torch.Tensor).get(attr) is not value:
                found.append(("function replaced", f"torch.Tensor.{attr}"))
                setattr(torch.Tensor, attr, value)
        for cls in self._tensor_subclasses():
            if cls in self.tensor_subclasses or "__torch_function__" not in vars(cls):
                continue
            if not cls.__module__.startswith("torch"):
                found.append(("tensor subclass", f"{cls.__module__}.{cls.__qualname__} defines __torch_function__"))
        if _sys.gettrace() is not None or _sys.getprofile() is not None:
            found.append(("trace function", "sys.settrace/sys.setprofile"))
            _sys.settrace(None)
            _sys.setprofile(None)
        import threading

        if getattr(threading, "_trace_hook", None) or getattr(threading, "_profile_hook", None):
            found.append(("trace function", "threading.settrace/threading.setprofile"))
            threading.settrace(None)
            threading.setprofile(None)
        if self.shell is not None:
            found += self._check_shell()
        return found

    def _check_shell(self) -> list:
        found = []
        shell = self.shell
        for kind, lists in self._shell_lists().items():
            for now, (live, then) in zip(lists, self.shell_lists[kind]):
                if now is not live or list(now) != then:
                    added = [getattr(t, "__qualname__", type(t).__name__) for t in now if t not in then]
                    found.append((kind, ", ".join(added) or "changed"))
                    live[:] = then  # later cells run without it
        manager = shell.input_transformer_manager
        lists = self.shell_lists
        shell.input_transformers_post = lists["input transformer"][0][0]
        manager.cleanup_transforms, manager.line_transforms, manager.token_transformers = (
            live for live, _ in lists["input transformer"][1:])
        shell.ast_transformers = lists["AST transformer"][0][0]
        if shell.compile is not self.compiler:
            found.append(("cell compiler", "shell.compile replaced"))
            shell.compile = self.compiler
        for name, method in self.compiler_methods.items():
            if name in vars(self.compiler) or getattr(type(self.compiler), name, None) is not method:
                found.append(("cell compiler", f"shell.compile.{name}"))
                vars(self.compiler).pop(name, None)
                if method is not None:
                    setattr(type(self.compiler), name, method)
        for name, method in self.shell_methods.items():
            if name in vars(shell) or getattr(type(shell), name, None) is not method:
                found.append(("run_cell", f"shell.{name}"))
                vars(shell).pop(name, None)
                if method is not None:
                    setattr(type(shell), name, method)
        for event, funcs in shell.events.callbacks.items():
            for func in list(funcs):
                module = getattr(func, "__module__", "") or ""
                if func in self.callbacks.get(event, []) or module.startswith(_TRUSTED_CALLBACK_MODULES):
                    continue
                found.append(("event callback", f"{event}: {getattr(func, '__qualname__', func)!s}"))
                funcs.remove(func)
        for kind, table in shell.magics_manager.magics.items():
            for name, func in table.items():
                if self.magics.get(kind, {}).get(name) is not func:
                    found.append((f"{kind} magic", f"%{'%' if kind == 'cell' else ''}{name}"))
            table.clear()
            table.update(self.magics.get(kind, {}))
        return found

    # --- the pipe --------------------------------------------------------------------------------

    def send(self, record: dict) -> None:
        try:
            _os.write(self.fd, (_json.dumps(record) + "\n").encode("utf-8"))
        except (OSError, TypeError, ValueError):
            pass  # a closed channel is noticed outside: the records it expects never arrive

    def before_test(self, cell: str, nonce: str) -> None:
        try:
            found = self._check_and_restore()
        except Exception as error:  # the check must not be the reason a test fails
            found = [("guard error", f"{type(error).__name__}: {error}")]
        self.send({"cell": cell, "nonce": nonce, "found": [list(item) for item in found]})


def _install() -> None:
    import types

    fd = int(_os.environ.get("AUTOGRADER_CHANNEL_FD", "-1"))

    def exit_blocked(code=0):
        raise KernelExitBlocked(f"os._exit({code}) was called: a graded notebook may not end its own Python process")

    exit_blocked.__name__ = "_exit"
    _os._exit = exit_blocked
    guard = _Guard(fd)

    def audit(event, args):
        if event == "socket.connect" and len(args) > 1 and isinstance(args[1], tuple):
            guard.send({"audit": "network connection attempt", "detail": f"{args[1][0]}:{args[1][1]}"})

    _sys.addaudithook(audit)
    module = types.ModuleType(GUARD_MODULE, "The grader's guard (see autograder/grading/kernel_guard.py).")
    module.before_test = guard.before_test
    module.KernelExitBlocked = KernelExitBlocked
    _sys.modules[GUARD_MODULE] = module
    import builtins

    builtins.KernelExitBlocked = KernelExitBlocked  # so that a traceback names it like any built-in error


if __name__ == RUN_NAME:
    _install()
