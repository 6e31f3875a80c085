"""A whole class: ``grade`` over a folder of submissions (with a progress bar), shards balanced by measured
time, ``merge``, and the Slurm and Kubernetes front ends. Built on ``grading``, which grades one submission.
"""
