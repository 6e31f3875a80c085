"""Names vulture would call unused (tests/test_lint.py) but that a framework reads by name.

vulture only parses this file; nothing imports or runs it. A name listed here counts as used everywhere, so the
list holds framework hooks only, each group with who reads it. Dead code is removed, never listed here.
"""

from types import SimpleNamespace

_ = SimpleNamespace()

# traitlets options, set on a config object (core/settings.py: configure; courselab/formgrader_pages.py) or on
# nbclient's and jupyter_client's objects (core/notebooks.py, grading/execute.py): nbgrader, nbconvert, nbclient and
# jupyter_client read them by name.
_.source_directory, _.release_directory, _.ignore, _.code_stub, _.interrupt_on_timeout, _.add_missing_cells
_.template_name, _.extra_template_basedirs
_.max_lines, _.max_traceback, _.pre_convert_hook, _.sanitize_preprocessors, _.autograde_preprocessors
_.create_student, _.collect, _.owns_km, _.timeout_func, _.interrupt_mode

# Methods and classes that Jupyter's libraries call or load by an import path written in the settings:
# jupyter_client's KernelManager.format_kernel_cmd (called with extra_arguments= by keyword), nbconvert's
# Preprocessor.preprocess_cell and its markdown renderer's _embed_image_or_attachment, the feedback steps of
# settings.FEEDBACK_STEPS, nbgrader's Autograde hooks, ExchangeCollect's init_src, _path_to_record and copy_files and
# ExportApp's plugin and its export (settings.configure), and the column of nbgrader's Comment row that Formgrader shows.
_.format_kernel_cmd, _.extra_arguments, _.preprocess_cell, _._embed_image_or_attachment, _.TruncateOutputs
_.prepare, _.CourseGrader, _.CollectStudentIds, _._path_to_record, _.auto_comment
_.init_src, _.copy_files, _.SafeCsvExport, _.export

# Jupyter server and tornado: the extension's entry points, the contents manager's pre-save hook and /files/ handler
# (by import path, jupyter/instructor/jupyter_server_config.json), a handler's post, an OutputTransform's
# transform_first_chunk and transform_chunk; html.parser's callbacks.
_._jupyter_server_extension_points, _._load_jupyter_server_extension, _._start_jupyter_server_extension
_.tidy_solution_before_save, _.InertFilesHandler
_.post, _.transform_first_chunk, _.transform_chunk, _.handle_starttag, _.handle_data, _.handle_endtag

# IPython: an exception's _render_traceback_, and sys.last_* that %tb and the debugger read (coursekit).
_._render_traceback_, _.last_type, _.last_value, _.last_traceback, _.last_exc

# The kernel guard replaces os._exit in the student's kernel (grading/kernel_guard.py).
_._exit

# functools.lru_cache keys on every argument: intake's released-ids cache takes the lesson's mtime only to be
# recomputed when the lesson changes.
_.mtime_ns

# pytest and pytest-xdist hooks and markers; http.server's handler and server attributes (the tests' servers).
_.pytestmark, _.pytest_report_header, _.pytest_configure, _.pytest_collection_modifyitems
_.pytest_xdist_make_scheduler, _._split_scope, _.log_message, _.close_connection, _.daemon_threads
_.pytest_runtest_protocol, _.nextitem   # bench/suite_time.py, loaded into pytest as a plugin (-p suite_time)

# What a variants file declares, read by name by authoring/variants.py (tests/variants/NN.py).
_.WRONG, _.RIGHT, _.ONE_WAY, _.NOT_TESTED, _.LEAVE_OUT

# pickle.Pickler calls reducer_override for each object it saves (coursekit/workers.py's _NameFinder).
_.reducer_override

# The cell harness: a Trial's fields travel to the worker as a dict (trial["first_catch"]); tqdm reads
# monitor_interval (0: no monitor thread in a process that forks).
_.first_catch, _.monitor_interval

# libcst calls a visitor's on_visit and reads its METADATA_DEPENDENCIES (authoring/mutants.py); inspect.signature reads
# __signature__ (coursekit/answers.py); hypothesis's ConjectureData calls its provider's _maybe_draw_constant
# (coursekit/strategies.py).
_.METADATA_DEPENDENCIES, _.on_visit, _.__signature__, _._maybe_draw_constant

# nbgrader builds its release from the class named in c.ExchangeFactory.release_assignment (core/settings.py).
_.ReleaseWithEditions, _.release_assignment
