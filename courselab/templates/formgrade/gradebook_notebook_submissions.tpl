{#- courselab: nbgrader's page, with its values passed as data (page_values.j2) instead of inline script text, and its
    button's action bound by a script rather than an onclick attribute (no policy then needs 'unsafe-hashes'). -#}
{%- extends "nbgrader/gradebook_notebook_submissions.tpl" -%}
{%- from "page_values.j2" import list_page_head -%}
{%- block head -%}
{{ list_page_head(base_url, "gradebook_notebook_submissions.js", {"assignment_id": assignment_id, "notebook_id": notebook_id}) }}
{%- endblock head -%}
{%- block messages -%}
<button id="toggle_names">Show All Names</button>
<script>document.getElementById("toggle_names").addEventListener("click", function () { toggleAllNames(); });</script>
{%- endblock -%}
