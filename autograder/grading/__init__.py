"""The grading pipeline for one submission, in the order it runs (docs/architecture.md walks through it):

intake (read the notebook safely) -> compose (the notebook to run: the student's cells, the course's
test cells) -> job (what the executor is told) -> execute, in a sandbox, with the kernel guard (values
and observations leave the box as records on the grader's channel) -> reference (the same records from
the course's own solution) -> verdicts (records compared outside the box, rules in ``rules``) ->
scoring (points per cell) -> feedback (the page, in the grader's own words) -> results (CSV rows).
``submission`` runs these steps for one (student, assignment).
"""
