"""The course's autograder: a thin, readable layer over nbgrader (release, check, grade)."""
