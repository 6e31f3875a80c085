{#- courselab: the manual-grading page of a submission whose notebook is missing from autograded/ (nbgrader's own
    imports a macro file that nbgrader 0.9.6 does not ship, so that page failed with a server error). Rendered by
    Formgrader's autoescaping environment; the macros are the course's (formgrade_macros.html.j2). -#}
{%- from "formgrade_macros.html.j2" import header, nav -%}
{%- from "mathjax.html.j2" import mathjax -%}
<!DOCTYPE html>
<html>
<head>
{{ header(resources) }}
{{ mathjax() }}
<link rel="stylesheet" href="{{ resources.base_url }}/formgrader/static/css/formgrade.css" />
</head>
<body>
{{ nav(resources) }}
<div class="container">
  <div class="panel panel-danger">
    <div class="panel-heading"><h4 class="panel-title">{{ resources.notebook_id }}</h4></div>
    <div class="panel-body">
      <p>This submission's notebook is not in the folder Formgrader shows: {{ resources.filename }}</p>
      <p>Record the submission again (<code>python -m autograder grade submitted --assignment {{ resources.assignment_id }}
        --gradebook</code>), which writes it there.</p>
    </div>
  </div>
</div>
</body>
</html>
