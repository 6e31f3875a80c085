"""The course's autograder: releases lessons and checks them with nbgrader's format and tools, and grades
submissions in a sandbox, with scores decided outside it (see grade.py and docs/grading-security.md)."""
