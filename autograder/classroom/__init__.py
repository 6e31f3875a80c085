"""The nbgrader course around the grader: what ``nbgrader collect`` hands in, and where the grader's results go
so that nbgrader's own tools take over (the gradebook Formgrader and ``nbgrader export`` read, the autograded
copies Formgrader shows, the feedback pages ``release_feedback`` sends back).

Everything here runs in the grader's own process, after scoring, outside every sandbox: it reads the grader's
results and the submitted files, never anything a kernel wrote.
"""
