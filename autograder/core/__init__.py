"""The bottom of the autograder: facts every room shares, and nothing that grades, splits or releases.

``settings`` (statuses, limits' defaults, nbgrader's settings), ``course`` (where solutions and lessons
are), ``notebooks`` (reading, tidying and writing notebooks), ``regions`` (the hidden-test and grader
regions of a test cell), ``processes`` (ending a process tree). Nothing here imports another room.
"""
