from .core.settings import skip_slow_unused_imports

skip_slow_unused_imports()  # before the commands import nbformat: 1.2 s less on every call

from .cli import main  # noqa: E402

raise SystemExit(main())
