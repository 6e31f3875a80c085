{#- courselab: nbgrader's page, with its values passed as data (page_values.j2) instead of inline script text. -#}
{%- extends "nbgrader/gradebook_notebooks.tpl" -%}
{%- from "page_values.j2" import list_page_head -%}
{%- block head -%}
{{ list_page_head(base_url, "gradebook_notebooks.js", {"assignment_id": assignment_id}) }}
{%- endblock head -%}
