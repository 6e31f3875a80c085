"""The instructor's tools on the course itself: ``release`` (lessons from solutions, through nbgrader),
``check`` (a notebook's visible checks, as Validate shows them), ``variants`` (wrong and right answers
against the hidden tests, judged as grading judges them) and ``promises`` (the table they make).
"""
