{#- courselab: nbgrader's page, with its values passed as data (page_values.j2) instead of inline script text. -#}
{%- extends "nbgrader/manage_students_notebook_submissions.tpl" -%}
{%- from "page_values.j2" import list_page_head -%}
{%- block head -%}
{{ list_page_head(base_url, "manage_students_notebook_submissions.js",
                  {"student_id": student_id, "assignment_id": assignment_id}) }}
{%- endblock head -%}
